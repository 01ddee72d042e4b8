"""The verifier's window length, chosen on dev: the shipped model scored on the dev splits (AttributionBench
dev_sampled + WiCE dev) at each max length, calibration fitted on the same rows, balanced accuracy reported.

    python bench/nli_max_length.py [256 384 512]

Writes bench/results/nli_max_length.{json,md}. Dev only: no test split is read.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from bench import EVAL_DIR as EVAL

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from controlplane.nli import evaluate as ev
from controlplane.nli.registry import load_nli_backend

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv: list[str] | None = None) -> int:
    lengths = [int(x) for x in (argv if argv is not None else sys.argv[1:])] or [256, 384, 512]
    rows = [row for rel, split in ev.DEV_SETS for row in ev.load_rows(EVAL / rel, [split])]
    results = []
    for max_length in lengths:
        backend = load_nli_backend("shipped", runtime="torch", max_length=max_length)
        started = time.perf_counter()
        scored, _ = ev.score_rows(backend, rows, checks=False)
        calibration = ev.fit_calibration(backend, scored, sources=ev.DEV_SOURCES)
        results.append({"max_length": backend.max_length, "dev_balanced_accuracy": calibration["dev_balanced_accuracy"],
                        "per_dataset": {k: v["dev_balanced_accuracy"]
                                        for k, v in calibration["per_dataset_threshold"].items()},
                        "seconds": round(time.perf_counter() - started, 1)})
        print(json.dumps(results[-1]), flush=True)
    lines = ["# Verifier window length on dev (`python bench/nli_max_length.py`)", "",
             f"Shipped verifier, torch fp32, {len(rows)} dev rows; calibration fitted on the same rows at each length.",
             "", "| max length | dev BAcc | AttributionBench dev | WiCE dev | s |", "|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['max_length']} | {r['dev_balanced_accuracy']} | {r['per_dataset'].get('AttributionBench')} | "
              f"{r['per_dataset'].get('WiCE')} | {r['seconds']} |" for r in results]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "nli_max_length.json").write_text(json.dumps(results, indent=1) + "\n")
    (RESULTS / "nli_max_length.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
