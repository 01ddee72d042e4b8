"""Retrieval benchmark: MiniLM embedding throughput, index add and query latency at 10k chunks (chromadb, on disk).

Not a test: it measures, prints a table, and writes ``bench/results/retrieval.json`` and ``.md``.

    .venv/bin/python -m bench.retrieval            # full run, 10,000 chunks
    # a few minutes on 2 quiet cores (MEASURED.md: ~500 sentences/s); 20+ minutes when the cores are shared
    # (the committed run saw load 8-10 and ~12 chunks/s)
    .venv/bin/python -m bench.retrieval --chunks 2000 --queries 50   # quick look

What is measured (all offline, CPU, the same code paths as ``controlplane index``):
- model load: import of sentence-transformers + loading all-MiniLM-L6-v2 from its package path;
- embedding throughput: short sentences (~20 words) and chunk-sized texts (~150 words), batch 64;
- bulk add of N synthetic chunks with precomputed vectors (chroma writes only), and the embedding time of the same N
  chunks (so add-with-embedding = both), plus an end-to-end ``add_documents`` of a slice (reading, chunking, embedding,
  replace-by-source, writing) to show the per-document overhead;
- incremental add: one 5-chunk document added to the N-chunk collection (what ``index add FILE`` costs later on);
- query latency at N chunks: vector-only search, text search (query embedding + search), ``ChromaRetriever.retrieve``
  (full evidence items), each as p50/p99; reopen (new client) + first query.

Synthetic chunks are generated deterministically (fixed seed) from engineering-doc vocabulary, ~40 words each.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

RESULTS = Path(__file__).resolve().parent / "results"
SEED = 20261123

SUBJECTS = [
    "the billing service", "the booking API", "the mobile client", "the web client", "the on-call rotation",
    "the staging database", "the nightly export", "the webhook worker", "the search index", "the payment gateway",
    "the audit log", "the feature flag service", "the rate limiter", "the deploy pipeline", "the support queue",
]
VERBS = [
    "retries failed requests", "keeps records", "rotates credentials", "pages the secondary", "caches responses",
    "rejects requests", "replicates writes", "compresses payloads", "archives events", "throttles callers",
]
QUALIFIERS = [
    "for enterprise customers", "in the ams region", "outside working hours", "during a SEV1 incident",
    "for unauthenticated callers", "after a failed deploy", "on the Standard plan", "for EU residents",
    "during the canary phase", "when the primary is unreachable",
]
UNITS = ["minutes", "hours", "days", "requests per minute", "percent", "megabytes", "attempts", "seconds"]
FILLER = ["This", "rule", "was", "agreed", "in", "the", "weekly", "engineering", "meeting", "and", "is", "reviewed", "every", "quarter", "by", "the", "platform", "team.", "Exceptions", "need", "written", "approval", "and", "are", "recorded", "in", "the", "decision", "log", "with", "an", "owner", "and", "an", "expiry", "date."]


def synthetic_chunk(rng: random.Random, i: int) -> str:
    sentences = []
    for _ in range(2):
        sentences.append(
            f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(QUALIFIERS)} "
            f"within {rng.randint(1, 500)} {rng.choice(UNITS)}."
        )
    start = rng.randint(0, len(FILLER) - 16)
    sentences.append(" ".join(FILLER[start : start + rng.randint(8, 16)]).capitalize() + ".")
    return f"Rule {i}: " + " ".join(sentences)


def synthetic_query(rng: random.Random) -> str:
    return f"How does {rng.choice(SUBJECTS)} handle limits {rng.choice(QUALIFIERS)}?"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = (len(ordered) - 1) * p / 100.0
    low, high = int(rank), min(int(rank) + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    started = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - started, result


def latency_ms(fn, inputs: list) -> dict[str, float]:
    samples = []
    for x in inputs:
        started = time.perf_counter()
        fn(x)
        samples.append((time.perf_counter() - started) * 1000.0)
    return {
        "n": len(samples),
        "p50_ms": round(percentile(samples, 50), 2),
        "p99_ms": round(percentile(samples, 99), 2),
        "mean_ms": round(statistics.fmean(samples), 2),
    }


def dir_size_mb(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6, 1)


def run(n_chunks: int, n_queries: int, e2e_chunks: int, keep: Path | None) -> dict:
    from controlplane.evidence_pack import embeddings
    from controlplane.evidence_pack.chunking import Chunk, document_from_text

    report: dict = {
        "benchmark": "retrieval",
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "loadavg_1min_start": round(os.getloadavg()[0], 2),
        },
        "parameters": {"chunks": n_chunks, "queries": n_queries, "e2e_chunks": e2e_chunks, "seed": SEED},
    }
    def say(msg: str) -> None:
        print(f"[bench] {msg}", file=sys.stderr, flush=True)

    # -- model load
    t_import, _ = timed(__import__, "sentence_transformers")
    t_load, _ = timed(embeddings.load_model)
    import chromadb
    import torch

    report["machine"].update(
        {"torch": torch.__version__, "torch_threads": torch.get_num_threads(), "chromadb": chromadb.__version__}
    )
    report["model"] = {
        "id": embeddings.model_id(),
        "path": str(embeddings.resolve_model_path()),
        "import_s": round(t_import, 2),
        "load_s": round(t_load, 2),
    }
    say(f"model: import {t_import:.1f} s, load {t_load:.1f} s")

    # -- embedding throughput
    rng = random.Random(SEED)
    sentences = [
        f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(QUALIFIERS)} within "
        f"{rng.randint(1, 500)} {rng.choice(UNITS)}." for _ in range(1024)
    ]
    embeddings.embed(sentences[:64])  # warm-up
    t_sent, _ = timed(embeddings.embed, sentences)
    long_texts = [" ".join(synthetic_chunk(rng, i) for i in range(4))[:1100] for _ in range(128)]
    t_long, _ = timed(embeddings.embed, long_texts)
    def avg_words(items: list[str]) -> float:
        return round(statistics.fmean(len(s.split()) for s in items), 1)

    report["embedding"] = {
        "short_sentences": {"n": len(sentences), "avg_words": avg_words(sentences),
                            "per_s": round(len(sentences) / t_sent, 1)},
        "chunk_texts": {"n": len(long_texts), "avg_words": avg_words(long_texts),
                        "per_s": round(len(long_texts) / t_long, 1)},
        "batch_size": embeddings.DEFAULT_BATCH_SIZE,
    }
    say(f"embedding: {len(sentences) / t_sent:.0f} sentences/s, {len(long_texts) / t_long:.1f} chunk texts/s")

    # -- synthetic corpus and its vectors (precomputed once)
    rng = random.Random(SEED + 1)
    texts = [synthetic_chunk(rng, i) for i in range(n_chunks)]
    say(f"embedding {n_chunks} synthetic chunks once (precomputed vectors)")
    t_embed_all, vectors = timed(embeddings.embed, texts)
    # Ten chunks per synthetic document, each at its real offset in the document body ("\n\n"-joined).
    chunks = []
    offset = 0
    for i, t in enumerate(texts):
        if i % 10 == 0:
            offset = 0
        chunks.append(
            Chunk(document_id=f"synthetic-{i // 10:05d}.txt@bench", source=f"/bench/synthetic-{i // 10:05d}.txt",
                  text=t, start_char=offset, end_char=offset + len(t), chunk_index=i % 10, title=None,
                  words=len(t.split()))
        )
        offset += len(t) + 2

    from controlplane.evidence_pack.retriever import ChromaRetriever
    from controlplane.evidence_pack.vector_store import VectorStore

    workdir = keep or Path(tempfile.mkdtemp(prefix="cp-bench-retrieval-"))
    try:
        db = workdir / "index"
        store = VectorStore(db, create=True)
        t_add_pre, _ = timed(store.add_chunks, "bench", chunks, vectors)
        say(f"add {n_chunks} chunks with precomputed vectors: {t_add_pre:.1f} s")
        report["add"] = {
            "chunks": n_chunks,
            "avg_words": round(statistics.fmean(c.words for c in chunks), 1),
            "embed_s": round(t_embed_all, 2),
            "embed_chunks_per_s": round(n_chunks / t_embed_all, 1),
            "write_precomputed_s": round(t_add_pre, 2),
            "write_chunks_per_s": round(n_chunks / t_add_pre, 1),
            "with_embedding_s": round(t_embed_all + t_add_pre, 2),
            "disk_mb": dir_size_mb(db),
        }

        # -- end-to-end add_documents on a slice (10 chunks per document), into its own collection
        per_doc = 10
        docs = []
        for d in range(max(1, e2e_chunks // per_doc)):
            body = "\n\n".join(texts[d * per_doc : (d + 1) * per_doc])
            docs.append(document_from_text(body, f"e2e-{d:05d}.txt", kind="text", source=f"/bench/e2e-{d:05d}.txt"))
        t_e2e, e2e_report = timed(store.add_documents, "bench-e2e", docs, max_words=45, overlap_words=0)
        report["add"]["end_to_end"] = {
            "documents": len(docs),
            "chunks": e2e_report.chunks,
            "total_s": round(t_e2e, 2),
            "embed_s": round(e2e_report.embed_seconds, 2),
            "chunks_per_s": round(e2e_report.chunks / t_e2e, 1),
        }
        say(f"end-to-end add_documents: {len(docs)} docs, {e2e_report.chunks} chunks in {t_e2e:.1f} s")

        # -- incremental: one 5-chunk document into the big collection (replace by source each time)
        extra = document_from_text("\n\n".join(texts[:5]), "incremental.txt", kind="text", source="/bench/incr.txt")
        incr = latency_ms(
            lambda _: store.add_documents("bench", [extra], max_words=45, overlap_words=0), list(range(10))
        )
        report["add"]["incremental_one_document_5_chunks"] = incr
        say(f"incremental add of one document at {n_chunks} chunks: p50 {incr['p50_ms']} ms")

        # -- queries at n_chunks
        rng = random.Random(SEED + 2)
        queries = [synthetic_query(rng) for _ in range(n_queries)]
        query_vectors = embeddings.embed(queries)
        store.query_vector("bench", query_vectors[0], 5)  # warm-up
        report["query"] = {
            "collection_chunks": store.count("bench"),
            "k": 5,
            "vector_only": latency_ms(lambda v: store.query_vector("bench", v, 5), query_vectors),
            "text": latency_ms(lambda q: store.query("bench", q, 5), queries),
        }
        retriever = ChromaRetriever(db, "bench", k=5)
        report["query"]["retriever_evidence_items"] = latency_ms(lambda q: retriever.retrieve(q, 5), queries)
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
        t_reopen, _ = timed(lambda: VectorStore(db).query_vector("bench", query_vectors[0], 5))
        report["query"]["reopen_and_first_query_ms"] = round(t_reopen * 1000, 1)
        say(f"query: text p50 {report['query']['text']['p50_ms']} ms, vector p50 "
            f"{report['query']['vector_only']['p50_ms']} ms")
    finally:
        if keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return report


def render_markdown(r: dict) -> str:
    e, a, q = r["embedding"], r["add"], r["query"]
    incr = a["incremental_one_document_5_chunks"]
    rows = [
        ("model import + load", f"{r['model']['import_s']} s + {r['model']['load_s']} s"),
        (f"embedding, short sentences (~{e['short_sentences']['avg_words']} words, batch {e['batch_size']})",
         f"{e['short_sentences']['per_s']} sentences/s"),
        (f"embedding, chunk texts (~{e['chunk_texts']['avg_words']} words)", f"{e['chunk_texts']['per_s']} chunks/s"),
        (f"embed {a['chunks']} chunks (~{a['avg_words']} words)", f"{a['embed_s']} s ({a['embed_chunks_per_s']}/s)"),
        (f"add {a['chunks']} chunks, precomputed vectors",
         f"{a['write_precomputed_s']} s ({a['write_chunks_per_s']}/s)"),
        (f"add {a['chunks']} chunks, with embedding", f"{a['with_embedding_s']} s"),
        (f"end-to-end add_documents, {a['end_to_end']['documents']} docs / {a['end_to_end']['chunks']} chunks",
         f"{a['end_to_end']['total_s']} s ({a['end_to_end']['chunks_per_s']} chunks/s, "
         f"{a['end_to_end']['embed_s']} s embedding)"),
        (f"incremental add, one 5-chunk document at {a['chunks']} chunks",
         f"p50 {incr['p50_ms']} ms, p99 {incr['p99_ms']} ms"),
        ("index size on disk", f"{a['disk_mb']} MB"),
        (f"query k=5 at {q['collection_chunks']} chunks, vector only",
         f"p50 {q['vector_only']['p50_ms']} ms, p99 {q['vector_only']['p99_ms']} ms"),
        ("query k=5, text (embed query + search)", f"p50 {q['text']['p50_ms']} ms, p99 {q['text']['p99_ms']} ms"),
        ("ChromaRetriever.retrieve k=5 (evidence items)",
         f"p50 {q['retriever_evidence_items']['p50_ms']} ms, p99 {q['retriever_evidence_items']['p99_ms']} ms"),
        ("reopen (new client) + first query", f"{q['reopen_and_first_query_ms']} ms"),
    ]
    m = r["machine"]
    lines = [
        "# Retrieval benchmark",
        "",
        f"{r['date_utc']} · {m['cpus']} CPUs · torch {m['torch']} ({m['torch_threads']} threads) · chromadb "
        f"{m['chromadb']} · Python {m['python']} · model {r['model']['id']}",
        "",
        "| measure | result |",
        "| --- | --- |",
        *[f"| {k} | {v} |" for k, v in rows],
        "",
        f"Queries: {q['text']['n']} synthetic questions. Synthetic chunks are deterministic "
        f"(seed {r['parameters']['seed']}). "
        f"Load average (1 min) {m.get('loadavg_1min_start')} at the start, {m.get('loadavg_1min_end')} at the end, on "
        f"{m['cpus']} CPUs: above {m['cpus']} the machine was shared with other work and every figure is slower than "
        "on a quiet machine. Wall time of the run: " + f"{r.get('wall_s')} s.",
        "Reproduce: `.venv/bin/python -m bench.retrieval`.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--e2e-chunks", type=int, default=500, help="chunks for the end-to-end add_documents run")
    parser.add_argument("--keep", type=Path, default=None, help="keep the index in this folder")
    parser.add_argument("--no-write", action="store_true", help="print only; do not write bench/results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    report = run(args.chunks, args.queries, args.e2e_chunks, args.keep)
    report["wall_s"] = round(time.perf_counter() - started, 1)
    report["machine"]["loadavg_1min_end"] = round(os.getloadavg()[0], 2)
    markdown = render_markdown(report)
    print(markdown)
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "retrieval.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        (RESULTS / "retrieval.md").write_text(markdown, encoding="utf-8")
        print(f"wrote {RESULTS / 'retrieval.json'} and .md ({report['wall_s']} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
