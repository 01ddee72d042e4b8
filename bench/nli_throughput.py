"""Pairs/s of each NLI backend on this CPU. A benchmark, not a test.

    python bench/nli_throughput.py [--backend shipped --backend transformers:PATH ...] [--pairs 256]

Two workloads: short pairs (a Factcheck-GPT-like claim against one ~60-word passage, one window each) and long
evidence (a WiCE article: many windows per pair, best-chunk scoring). Prints a table and writes
bench/results/nli_throughput.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from controlplane.nli import evaluate as ev
from controlplane.nli.registry import load_nli_backend

EVAL = Path(os.environ.get("CONTROLPLANE_EVAL_DIR", "/work/shared/eval"))
RESULTS = Path(__file__).resolve().parent / "results"


def workloads(n_short: int, n_long: int):
    short = ev.load_rows(EVAL / "factcheck_gpt/factcheck_gpt_stance.jsonl", None, n_short)
    long = ev.load_rows(EVAL / "wice/wice_claim.jsonl", ["dev"], n_long)
    return {
        "short (1 passage)": [(ev.evidence_text(r), r["claim"]) for r in short],
        "long (WiCE article, best chunk)": [(ev.evidence_text(r), r["claim"]) for r in long],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", action="append", default=None)
    parser.add_argument("--pairs", type=int, default=256, help="short pairs")
    parser.add_argument("--long-pairs", type=int, default=24)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--max-length", type=int, default=256)
    args = parser.parse_args(argv)
    loads = workloads(args.pairs, args.long_pairs)
    results = []
    for name in args.backend or ["shipped"]:
        options = {"max_length": args.max_length}
        if args.threads:
            options["threads"] = args.threads
        t0 = time.perf_counter()
        backend = load_nli_backend(name, **options)
        load_s = time.perf_counter() - t0
        backend.score(loads["short (1 passage)"][:8])  # warm-up
        for wname, pairs in loads.items():
            flat, _ = backend.chunk_pairs(pairs)
            t0 = time.perf_counter()
            backend.score(pairs)
            dt = time.perf_counter() - t0
            results.append({"backend": name, "workload": wname, "pairs": len(pairs), "windows": len(flat),
                            "seconds": round(dt, 2), "pairs_per_s": round(len(pairs) / dt, 2),
                            "windows_per_s": round(len(flat) / dt, 2), "load_s": round(load_s, 2),
                            "threads": backend.threads, "max_length": backend.max_length})
    header = f"{'backend':<28} {'workload':<32} {'pairs':>6} {'windows':>8} {'pairs/s':>8} {'windows/s':>10}"
    print(header)
    for r in results:
        print(f"{r['backend']:<28} {r['workload']:<32} {r['pairs']:>6} {r['windows']:>8} {r['pairs_per_s']:>8} "
              f"{r['windows_per_s']:>10}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    load1, load5, _ = os.getloadavg()
    (RESULTS / "nli_throughput.json").write_text(json.dumps({
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadavg_1m_at_end": round(load1, 2),
                    "loadavg_5m_at_end": round(load5, 2),
                    "note": "shared 2-core machine; other engineers' jobs ran at the same time"},
        "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
