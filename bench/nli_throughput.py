"""Pairs/s of the NLI verifier on this CPU: fp32 (torch) beside bf16 (torch) and int8 (ONNX Runtime), in the same
run. A benchmark, not a test.

    python bench/nli_throughput.py [--backend shipped] [--runtime torch --runtime torch-bf16 ...] [--pairs 512]

Two workloads (targets from issue 11, on 2 threads):

* short pairs: Factcheck-GPT claims with their evidence passage, only pairs of at most 128 word-pieces, scored at
  max_length 128 (one window each). Target 300 pairs/s.
* 512-token windows: WiCE dev claims against the start of their cited article, cut so that each pair fills one
  512-token window. Target 40 windows/s.

Prints a table and writes bench/results/nli_throughput.{json,md}. The machine's load average is recorded: on a
shared machine the absolute numbers move with the other jobs; the fp32 / int8 ratio of one run is the robust part.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from bench import EVAL_DIR as EVAL

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from controlplane.nli import evaluate as ev
from controlplane.nli.registry import load_nli_backend
from controlplane.nli.shipped import native_bf16
from controlplane.nli.transformers_backend import DEFAULT_BATCH_TOKENS

RESULTS = Path(__file__).resolve().parent / "results"
SHORT_TOKENS = 128
LONG_TOKENS = 512
TARGETS = {"short": 300.0, "long": 40.0}


def short_pairs(tokenizer, n: int) -> list[tuple[str, str]]:
    rows = ev.load_rows(EVAL / "factcheck_gpt/factcheck_gpt_stance.jsonl")
    out = []
    for row in rows:
        pair = (ev.evidence_text(row), row["claim"])
        if len(tokenizer(*pair)["input_ids"]) <= SHORT_TOKENS:
            out.append(pair)
        if len(out) >= n:
            break
    return out


def long_pairs(tokenizer, n: int) -> list[tuple[str, str]]:
    """Claim + the article's first word-pieces, so that [CLS] article [SEP] claim [SEP] is exactly 512 tokens."""
    out = []
    for row in ev.load_rows(EVAL / "wice/wice_claim.jsonl", ["dev"]):
        claim = row["claim"]
        budget = LONG_TOKENS - 3 - len(tokenizer(claim, add_special_tokens=False)["input_ids"])
        ids = tokenizer(ev.evidence_text(row), add_special_tokens=False)["input_ids"]
        if budget < 64 or len(ids) < budget:
            continue
        out.append((tokenizer.decode(ids[:budget]), claim))
        if len(out) >= n:
            break
    return out


def measure(backend, pairs) -> dict:
    backend.score(pairs[:8])  # warm-up
    flat, _ = backend.chunk_pairs(pairs)
    t0 = time.perf_counter()
    backend.score(pairs)
    dt = time.perf_counter() - t0
    return {"pairs": len(pairs), "windows": len(flat), "seconds": round(dt, 2), "pairs_per_s": round(len(pairs) / dt, 1),
            "windows_per_s": round(len(flat) / dt, 1)}


def loads_rows(results: list[dict]) -> str:
    """How many rows each workload's batches held, e.g. "short pairs 32 to a batch, 512-token windows 16"."""
    first = results[0] if results else {}
    return (f"short pairs {first.get('short', {}).get('rows_per_batch')} to a batch, 512-token windows "
            f"{first.get('long', {}).get('rows_per_batch')}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="shipped")
    parser.add_argument("--runtime", action="append", default=None, help="torch, torch-bf16, onnx-int8 (default all three)")
    parser.add_argument("--pairs", type=int, default=512, help="short pairs")
    parser.add_argument("--long-pairs", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32, help="rows per forward batch at most")
    parser.add_argument("--batch-tokens", type=int, default=DEFAULT_BATCH_TOKENS,
                        help="padded tokens per forward batch at most (16 windows of 512 at the default)")
    args = parser.parse_args(argv)
    results = []
    loads = None
    for runtime in args.runtime or ["torch", "torch-bf16", "onnx-int8"]:
        row: dict = {"backend": args.backend, "runtime": runtime, "threads": args.threads}
        for workload, max_length in (("short", SHORT_TOKENS), ("long", LONG_TOKENS)):
            backend = load_nli_backend(args.backend, runtime=runtime, threads=args.threads, max_length=max_length,
                                       batch_size=args.batch_size, batch_tokens=args.batch_tokens, max_windows=None)
            if loads is None:
                loads = {"short": short_pairs(backend.tokenizer, args.pairs),
                         "long": long_pairs(backend.tokenizer, args.long_pairs)}
            row[workload] = {**measure(backend, loads[workload]), "rows_per_batch": backend.rows_per_batch}
        results.append(row)
    header = f"{'runtime':<12} {'short pairs/s (<=128 tok)':>26} {'512-token windows/s':>20}"
    lines = [header]
    for r in results:
        lines.append(f"{r['runtime']:<12} {r['short']['pairs_per_s']:>26} {r['long']['windows_per_s']:>20}")
    print("\n".join(lines))
    load1, load5, _ = os.getloadavg()
    report = {
        "batching": {"batch_size": args.batch_size, "batch_tokens": args.batch_tokens},
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "native_bf16": native_bf16(),
                    "loadavg_1m_at_end": round(load1, 2),
                    "loadavg_5m_at_end": round(load5, 2),
                    "note": "shared 2-core machine; other engineers' jobs ran at the same time"},
        "targets": {"short_pairs_per_s": TARGETS["short"], "long_windows_per_s": TARGETS["long"]},
        "results": results,
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "nli_throughput.json").write_text(json.dumps(report, indent=1) + "\n")
    md = ["# NLI verifier throughput (fp32 and bf16 torch, int8 ONNX Runtime, same run)", "",
          f"{args.threads} threads, batches of at most {args.batch_size} rows and {args.batch_tokens} padded tokens "
          f"({loads_rows(results)}). Load average at the end: {load1:.2f} (1 min), "
          f"{load5:.2f} (5 min) on {os.cpu_count()} cores shared with other jobs. Native bf16 (AMX or AVX512-BF16) "
          f"on this CPU: {'yes' if native_bf16() else 'no'}.", "",
          "| runtime | short pairs/s (<=128 tokens, n) | 512-token windows/s (n) |", "|---|---:|---:|"]
    for r in results:
        md.append(f"| {r['runtime']} | {r['short']['pairs_per_s']} ({r['short']['pairs']}) | "
                  f"{r['long']['windows_per_s']} ({r['long']['windows']}) |")
    md += ["", f"Targets (issue 11): {TARGETS['short']:.0f} short pairs/s, {TARGETS['long']:.0f} windows/s.", ""]
    (RESULTS / "nli_throughput.md").write_text("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
