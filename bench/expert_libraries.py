"""Expert libraries and real-time handling (issue 13 items 4-5): build cost, expert-first retrieval, latency.

Not a test. It builds, in a temporary index, the example corpus as the general collection and the sample expert
library (this Python's standard-library docstrings, a subset of modules) and asks ten coding questions whose answer
lives in one known module. Per question it records:

- ``hit@1`` / ``hit@4``: the expected module's passage is first / among the first four of the expert-first result;
- ``lib first``: the first passage is a library passage, expert-first against a plain merge by similarity score of
  the same library and general hits (what the pack builder did before expert libraries);
- retrieval latency (p50) of the expert-first retriever and of the general collection alone.

It also times the real-time step (``controlplane.realtime.handle_realtime``: staleness, LIMINAL marking with the
conflict check) on the example corpus as a pack of stale items. Prints a table and writes
``bench/results/expert_libraries.{json,md}``. Reproduce: ``./run bench expert_libraries [--modules a,b] [--no-write]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from controlplane.evidence_pack import build_pack, stdlib_docs
from controlplane.evidence_pack.libraries import ExpertFirstRetriever, add_library
from controlplane.evidence_pack.retriever import ChromaRetriever
from controlplane.evidence_pack.vector_store import VectorStore
from controlplane.policy_bundles.loader import load_bundle
from controlplane.realtime import handle_realtime
from controlplane.router import route

RESULTS = Path(__file__).resolve().parent / "results"
CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
QUESTIONS = [
    ("How do I parse a JSON string into a Python object?", "json"),
    ("How can I insert an item into a sorted Python list and keep it sorted?", "bisect"),
    ("How do I create a temporary directory in Python?", "tempfile"),
    ("How do I count how often each item occurs in a Python list?", "collections"),
    ("How do I compute the greatest common divisor of two integers in Python?", "math"),
    ("How do I split a shell command line into arguments in Python?", "shlex"),
    ("How do I generate a random UUID in Python?", "uuid"),
    ("How do I get the smallest items of a Python list with a heap?", "heapq"),
    ("How do I compress bytes with gzip in Python?", "gzip"),
    ("How do I wrap a long paragraph of text to a fixed width in Python?", "textwrap"),
]
MODULES = ("json", "bisect", "tempfile", "collections", "math", "shlex", "uuid", "heapq", "gzip", "textwrap",
           "statistics", "string")
K = 4


def p50(values: list[float]) -> float:
    return round(statistics.median(values), 2) if values else 0.0


def timed(call) -> tuple[object, float]:
    started = time.perf_counter()
    out = call()
    return out, (time.perf_counter() - started) * 1000


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", default=",".join(MODULES), help="standard-library modules of the library")
    parser.add_argument("--no-write", action="store_true", help="only print the table")
    args = parser.parse_args(argv)
    modules = [m for m in args.modules.split(",") if m]
    policy = load_bundle().bundle
    with tempfile.TemporaryDirectory() as tmp:
        store = VectorStore(Path(tmp) / "index", create=True)
        store.add_paths("corpus", [CORPUS])
        documents = stdlib_docs.stdlib_documents(modules)
        report, build_ms = timed(lambda: add_library(
            store, "stdlib", documents, domain="coding", version=stdlib_docs.python_version(), credibility=0.95,
            volatility="STATIC", licence=stdlib_docs.licence()))
        general = ChromaRetriever(Path(tmp) / "index", "corpus")
        expert_first = ExpertFirstRetriever(Path(tmp) / "index", general, K)
        expert_first.retrieve("warm up", K, domains=["coding"])
        rows, expert_ms, general_ms = [], [], []
        for question, module in QUESTIONS:
            domains = route(question, policy).domainFlags
            items, ms = timed(lambda q=question, d=domains: expert_first.retrieve(q, K, domains=d))
            expert_ms.append(ms)
            general_items, ms = timed(lambda q=question: general.retrieve(q, K))
            general_ms.append(ms)
            library_items = [i for i in items if i.library is not None]
            by_score = sorted(library_items + general_items, key=lambda i: -(i.retrieval_score or 0.0))
            wanted = f"stdlib:{module}"
            rows.append({
                "question": question, "module": module, "domains": domains,
                "hit_at_1": bool(items) and items[0].provenance.document_id == wanted,
                "hit_at_4": any(i.provenance.document_id == wanted for i in items[:K]),
                "library_first_expert_first": bool(items) and items[0].library is not None,
                "library_first_by_score": bool(by_score) and by_score[0].library is not None,
                "top_score": round(items[0].retrieval_score or 0.0, 3) if items else None,
            })
    now = datetime.now(UTC)
    texts = [p.read_text(encoding="utf-8")[:1500] for p in sorted(CORPUS.iterdir())]
    pack = build_pack([{"text": t, "provenance": {"retrieved_at": (now - timedelta(hours=2 + i)).isoformat()}}
                       for i, t in enumerate(texts)])
    decision = route("What is the latest on-call policy?", policy)
    realtime_ms = [timed(lambda: handle_realtime(decision, pack, now=now, query="x"))[1] for _ in range(20)]

    n = len(rows)
    summary = {
        "python": platform.python_version(), "modules": len(documents), "library_chunks": report.chunks,
        "build_seconds": round(build_ms / 1000, 1), "embed_seconds": round(report.embed_seconds, 1),
        "questions": n, "routed_to_coding": sum("coding" in r["domains"] for r in rows),
        "hit_at_1": sum(r["hit_at_1"] for r in rows), "hit_at_4": sum(r["hit_at_4"] for r in rows),
        "library_first_expert_first": sum(r["library_first_expert_first"] for r in rows),
        "library_first_by_score": sum(r["library_first_by_score"] for r in rows),
        "expert_first_p50_ms": p50(expert_ms), "general_only_p50_ms": p50(general_ms),
        "realtime_items": len(pack.evidence), "realtime_p50_ms": p50(realtime_ms),
    }
    table = [
        "| measure | value |", "| --- | --- |",
        f"| library | {summary['modules']} stdlib modules of Python {summary['python']}, {summary['library_chunks']} "
        f"passages, built in {summary['build_seconds']} s ({summary['embed_seconds']} s embedding) |",
        f"| questions routed to coding | {summary['routed_to_coding']}/{n} |",
        f"| expected module first (hit@1) | {summary['hit_at_1']}/{n} |",
        f"| expected module in top {K} (hit@{K}) | {summary['hit_at_4']}/{n} |",
        f"| first passage from the library: expert-first / merge by score | "
        f"{summary['library_first_expert_first']}/{n} / {summary['library_first_by_score']}/{n} |",
        f"| retrieval p50: expert-first / general collection only | {summary['expert_first_p50_ms']} ms / "
        f"{summary['general_only_p50_ms']} ms |",
        f"| real-time step p50 ({summary['realtime_items']} stale corpus items) | {summary['realtime_p50_ms']} ms |",
    ]
    print("\n".join(table))
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "expert_libraries.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=2) + "\n")
        (RESULTS / "expert_libraries.md").write_text(
            "# Expert libraries and real-time handling\n\n" + "\n".join(table) + "\n\n"
            "Reproduce: `./run bench expert_libraries`. Machine: 2 shared cores; timings vary with load.\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
