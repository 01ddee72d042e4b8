"""Which quantized backend, by measurement (issue 11): torch dynamic quantization of the shipped verifier beside the
runtimes it ships with. A benchmark, not a test.

    ./run bench nli_quantization

Issue 11 names two ways to quantize: ONNX Runtime int8 (shipped as ``onnx-int8``, checked on dev by
``bench/nli_eval.py --fit --check-precision``) and torch dynamic quantization (every ``nn.Linear`` to qint8 weights
with dynamically quantized activations). This scores the second the way the precision checks score the first -- dev
balanced accuracy under the frozen fp32 calibration, against the 0.5-point rule -- and measures its throughput beside
fp32, bf16 and int8 ONNX in the same process (bench/nli_throughput.py's workloads). Prints a table and writes
bench/results/nli_quantization.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

from bench import EVAL_DIR as EVAL

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench.nli_throughput import long_pairs, measure, short_pairs
from controlplane.nli import evaluate as ev
from controlplane.nli.registry import load_nli_backend
from controlplane.nli.shipped import PRECISION_RULE_POINTS, read_calibration, verifier_dir

RESULTS = Path(__file__).resolve().parent / "results"
RUNTIMES = (("torch fp32", "torch", False), ("torch bf16", "torch-bf16", False), ("onnx int8", "onnx-int8", False),
            ("torch dynamic qint8", "torch", True))


def torch_dynamic(backend):
    """The backend with its model's Linear layers dynamically quantized to qint8 (in place)."""
    import torch

    with warnings.catch_warnings():  # torch announces the quantized tensor API's deprecation on every layer
        warnings.simplefilter("ignore")
        backend.model = torch.ao.quantization.quantize_dynamic(backend.model, {torch.nn.Linear}, dtype=torch.qint8)
    return backend


def dev_balanced_accuracy(backend, calibration: dict) -> dict:
    scored = []
    for rel, split in ev.DEV_SETS:
        scored += ev.score_rows(backend, ev.load_rows(EVAL / rel, [split]), checks=True)[0]
    metrics = ev.evaluate_scored(backend, scored, calibration, elapsed=1.0)
    return {"balanced_accuracy": metrics["balanced_accuracy"], "auroc": metrics["auroc"], "rows": len(scored)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=512, help="short pairs")
    parser.add_argument("--long-pairs", type=int, default=64)
    args = parser.parse_args(argv)
    calibration = read_calibration(verifier_dir())
    fp32 = calibration["dev_balanced_accuracy"]
    quantized = torch_dynamic(load_nli_backend("shipped", runtime="torch", threads=args.threads, fresh=True))
    dev = dev_balanced_accuracy(quantized, calibration)
    delta = round(dev["balanced_accuracy"] - fp32, 2)
    dev.update({"fp32": fp32, "delta_points": delta, "within_rule": abs(delta) <= PRECISION_RULE_POINTS})
    print(f"torch dynamic qint8 on dev: {dev['balanced_accuracy']} (fp32 {fp32}, delta {delta})", flush=True)

    rows = []
    loads = None
    for name, runtime, dynamic in RUNTIMES:
        row: dict = {"runtime": name}
        for workload, max_length in (("short", 128), ("long", 512)):
            backend = load_nli_backend("shipped", runtime=runtime, threads=args.threads, max_length=max_length,
                                       batch_size=32, max_windows=None, fresh=True)
            if dynamic:
                torch_dynamic(backend)
            if loads is None:
                loads = {"short": short_pairs(backend.tokenizer, args.pairs),
                         "long": long_pairs(backend.tokenizer, args.long_pairs)}
            result = measure(backend, loads[workload])
            row[workload] = result["pairs_per_s"] if workload == "short" else result["windows_per_s"]
        rows.append(row)
    checks = calibration.get("precision_checks", {})
    dev_by_runtime = {"torch fp32": fp32,
                      "torch bf16": checks.get("torch-bf16", {}).get("dev_balanced_accuracy"),
                      "onnx int8": checks.get("onnx-int8", {}).get("dev_balanced_accuracy"),
                      "torch dynamic qint8": dev["balanced_accuracy"]}
    header = f"{'runtime':<20} {'dev BAcc':>9} {'short pairs/s':>14} {'512-token windows/s':>20}"
    print("\n".join([header] + [f"{r['runtime']:<20} {dev_by_runtime[r['runtime']]!s:>9} {r['short']:>14} "
                                f"{r['long']:>20}" for r in rows]))
    load1, load5, _ = os.getloadavg()
    report = {"dev": dev, "dev_by_runtime": dev_by_runtime, "throughput": rows, "threads": args.threads,
              "loadavg_1m_at_end": round(load1, 2), "loadavg_5m_at_end": round(load5, 2),
              "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "nli_quantization.json").write_text(json.dumps(report, indent=1) + "\n")
    md = ["# Which quantized backend: torch dynamic qint8 beside the shipped runtimes (issue 11)", "",
          f"Shipped verifier, {args.threads} threads, same process; dev balanced accuracy under the frozen fp32 "
          f"calibration (AttributionBench dev_sampled + WiCE dev, {dev['rows']} rows; bf16 and int8 from "
          f"calibration.json's precision checks). Load average at the end: {load1:.2f}.", "",
          "| runtime | dev BAcc | short pairs/s (<= 128 tokens) | 512-token windows/s |", "|---|---:|---:|---:|"]
    md += [f"| {r['runtime']} | {dev_by_runtime[r['runtime']]} | {r['short']} | {r['long']} |" for r in rows]
    md += ["", f"Rule: a reduced-precision runtime is the default when it is within {PRECISION_RULE_POINTS} dev points "
               f"of fp32. Torch dynamic qint8: {delta:+} points, "
               f"{'within' if dev['within_rule'] else 'outside'} the rule.", ""]
    (RESULTS / "nli_quantization.md").write_text("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
