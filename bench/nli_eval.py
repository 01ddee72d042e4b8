"""The honest results table: NLI backends on the shared eval sets, beside published numbers.

    python bench/nli_eval.py [--backend shipped] [--fit] [--limit N]

1. ``--fit``: score the dev splits (AttributionBench dev_sampled, WiCE dev), fit temperature / threshold / veto codes
   and freeze them into the model directory's calibration.json (or ``--calibration-out FILE``). Without ``--fit`` the
   existing calibration is used. ``--fit --limit N`` fits on part of dev: it must name a ``--calibration-out`` that no
   backend reads, and is refused (exit 2) otherwise.
2. Score the test sets with the frozen calibration: WiCE test, AttributionBench test_ood and test_id_sampled500,
   FaithBench, Factcheck-GPT; plain backend and backend + deterministic-check vetoes.
3. Write bench/results/nli_eval.json and bench/results/nli_eval.md.

A benchmark, not a test: it takes minutes on a 2-core CPU.
"""

from __future__ import annotations

import argparse
import hashlib
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
from controlplane.nli.shipped import CALIBRATION_FILE, RUNTIMES

RESULTS = Path(__file__).resolve().parent / "results"
TESTS = [
    ("WiCE test", "wice/wice_claim.jsonl", "test", "WiCE"),
    ("AttributionBench test_ood", "attributionbench/attributionbench.jsonl", "test_ood", "AttributionBench"),
    ("AttributionBench test_id_sampled500", "attributionbench/attributionbench.jsonl", "test_id_sampled500",
     "AttributionBench"),
    ("FaithBench", "faithbench/faithbench.jsonl", None, None),
    ("Factcheck-GPT", "factcheck_gpt/factcheck_gpt_stance.jsonl", None, None),
]
# Published numbers (../shared/eval/published_baselines.json and README), on the same metric as our main column.
PUBLISHED = {
    "WiCE test": ("balanced_accuracy", {"Bespoke-MiniCheck-7B": 81.9, "GPT-4o": 78.5, "MiniCheck-Flan-T5-L": 72.2,
                                        "MiniCheck-DeBERTa-L": 69.4, "MiniCheck-RoBERTa-L": 67.6, "AlignScore": 66.0,
                                        "SummaC-ZS": 62.8, "T5-NLI-Mixed (TRUE)": 55.3}),
    "AttributionBench test_ood": ("macro_f1", {"GPT-4 w/ CoT (zero-shot)": 78.9, "T5-XXL-TRUE 11B (zero-shot)": 80.5,
                                               "AttrScore-FLAN-T5 3B (zero-shot)": 74.6,
                                               "RoBERTa-large-MNLI (fine-tuned on AttributionBench)": 62.4}),
    "AttributionBench test_id_sampled500": ("macro_f1", {"GPT-4 w/ CoT (full ID test)": 73.3,
                                                         "T5-XXL-TRUE 11B (full ID test)": 72.2,
                                                         "RoBERTa-large-MNLI fine-tuned (full ID test)": 64.1}),
    "FaithBench": ("balanced_accuracy", {"GPT-4o zero-shot": 56.2, "HHEM-2.1 (recomputed)": 54.17,
                                         "MiniCheck-DeBERTa-L": 55.2, "AlignScore-LG": 52.0, "TRUE-NLI": 51.0}),
    "Factcheck-GPT": ("macro_f1", {"RoBERTa-large-MNLI 3-way (not binary; accuracy 60.7)": 51.2}),
}


def _subsample(rows, n: int | None):
    """A deterministic subsample: the n rows with the smallest sha256(id)."""
    if not n or n >= len(rows):
        return rows
    keep = set(sorted(range(len(rows)), key=lambda i: hashlib.sha256(str(rows[i]["id"]).encode()).hexdigest())[:n])
    return [r for i, r in enumerate(rows) if i in keep]


def _load(rel: str, split: str | None, limit: int | None, sample: int | None = None):
    return _subsample(ev.load_rows(EVAL / rel, [split] if split else None, limit), sample)


def _score(backend, rel: str, split: str | None, limit: int | None, sample: int | None = None):
    return ev.score_rows(backend, _load(rel, split, limit, sample), checks=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="shipped")
    parser.add_argument("--fit", action="store_true", help="fit calibration on dev and freeze it first")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--max-windows", type=int, default=4, help="windows scored per (evidence, claim sentence)")
    parser.add_argument("--only", default=None, help="comma-separated test names to run (default all)")
    parser.add_argument("--sample", action="append", default=[], metavar="NAME=N",
                        help="score a deterministic subsample of N rows of test NAME (smallest sha256(id))")
    parser.add_argument("--runtime", default=None, choices=RUNTIMES,
                        help="shipped verifier runtime for the test sets (default: auto, the loader's choice from "
                             "calibration.json's precision checks and this CPU)")
    parser.add_argument("--check-precision", action="store_true",
                        help="with --fit: also score dev with the bf16 and int8 runtimes under the fp32 calibration; "
                             "one becomes the default when its dev balanced accuracy is within 0.5 points of fp32")
    parser.add_argument("--precision-check-only", action="store_true",
                        help="keep the shipped calibration; only compare bf16 and int8 with fp32 on dev and set "
                             "default_runtime")
    parser.add_argument("--calibration-out", type=Path, default=None, metavar="FILE",
                        help="with --fit: write the fitted calibration here instead of the model directory's "
                             "calibration.json (which the backend reads); required with --limit")
    args = parser.parse_args(argv)
    if args.fit and args.limit is not None:
        refusal = partial_fit_refusal(args.backend, args.calibration_out)
        if refusal:
            parser.error(refusal)  # exit 2, before any model is loaded
    options = {"max_length": args.max_length, "max_windows": args.max_windows}
    if args.threads:
        options["threads"] = args.threads
    if args.precision_check_only:
        # The calibration stays as fitted (on whatever machine): only the reduced-precision runtimes are compared with
        # fp32 under it.
        from controlplane.nli.shipped import read_calibration, verifier_dir

        calibration = read_calibration(verifier_dir())
        fp32 = load_nli_backend("shipped", **{**options, "runtime": "torch"})
        scored = []
        for rel, split in ev.DEV_SETS:
            scored += _score(fp32, rel, split, args.limit)[0]
        dev_metrics = ev.evaluate_scored(fp32, scored, calibration, elapsed=1.0)
        check_precision("shipped", options, calibration, dev_metrics, args.limit)
        if args.limit is None:
            (verifier_dir() / "calibration.json").write_text(json.dumps(calibration, indent=1) + "\n")
        return 0
    shipped = args.backend.split(":")[0] == "shipped"
    fit_options = {**options, "runtime": "torch"} if shipped and args.fit else options
    backend = load_nli_backend(args.backend, **fit_options)
    model_dir = Path(backend.metadata()["model_dir"])
    report: dict = {"backend": backend.name, "model_dir": str(model_dir), "max_length": backend.max_length,
                    "max_windows": backend.max_windows,
                    "threads": backend.threads, "device": getattr(backend, "device", "cpu"), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if args.fit:
        scored, elapsed = [], 0.0
        for rel, split in ev.DEV_SETS:
            s, e = _score(backend, rel, split, args.limit)
            scored += s
            elapsed += e
            print(f"dev {rel}:{split} scored {len(s)} rows in {e:.0f}s", flush=True)
        calibration = ev.fit_calibration(backend, scored, sources=ev.DEV_SOURCES)
        calibration["dev_files_sha256"] = {Path(r).name: ev.file_sha256(EVAL / r) for r, _ in ev.DEV_SETS}
        calibration["max_length"] = backend.max_length
        calibration["fitted_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        calibration["fitted_with_runtime"] = getattr(backend, "runtime", "torch-fp32")
        dev_metrics = ev.evaluate_scored(backend, scored, calibration, elapsed=elapsed)
        calibration["default_runtime"] = "torch"
        if args.check_precision and shipped:
            check_precision(args.backend, options, calibration, dev_metrics, args.limit)
        calibration_file = args.calibration_out or model_dir / CALIBRATION_FILE
        calibration_file.write_text(json.dumps(calibration, indent=1) + "\n")
        report["dev"] = {"calibration": calibration, "metrics_on_dev": dev_metrics}
        if shipped:  # the test sets are scored with the runtime the product now uses by default
            backend = load_nli_backend(args.backend, **{**options, "runtime": args.runtime or "auto"})
            report["runtime"] = getattr(backend, "runtime", None)
        print(json.dumps(calibration, indent=1), flush=True)
    from controlplane.nli.shipped import read_calibration_file

    if not args.fit and shipped and args.runtime:
        backend = load_nli_backend(args.backend, **{**options, "runtime": args.runtime})
    report["runtime"] = getattr(backend, "runtime", None)
    calibration = read_calibration_file((args.fit and args.calibration_out) or model_dir / CALIBRATION_FILE)
    report["calibration"] = calibration
    only = set(args.only.split(",")) if args.only else None
    samples = {k: int(v) for k, v in (item.rsplit("=", 1) for item in args.sample)}
    report["subsampled"] = samples
    partial = RESULTS / "nli_eval.partial.json"
    results = {}
    for name, rel, split, dataset in TESTS:
        if only and name not in only:
            continue
        scored, elapsed = _score(backend, rel, split, args.limit, samples.get(name))
        entry = {
            "n": len(scored),
            "backend": ev.evaluate_scored(backend, scored, calibration, elapsed=elapsed),
            "backend+checks": ev.evaluate_scored(backend, scored, calibration, elapsed=elapsed, use_checks=True),
        }
        per_ds = calibration.get("per_dataset_threshold", {}).get(dataset or "", {})
        if per_ds:
            entry["backend@dataset_dev_threshold"] = ev.evaluate_scored(backend, scored, calibration, elapsed=elapsed,
                                                                        threshold=per_ds["threshold"])
        if name == "AttributionBench test_ood":
            rows = _load(rel, split, args.limit, samples.get(name))
            subsets = {}
            for subset in sorted({r.get("subset", "") for r in rows}):
                idx = [i for i, r in enumerate(rows) if r.get("subset", "") == subset]
                sub = [scored[i] for i in idx]
                subsets[subset] = ev.evaluate_scored(backend, sub, calibration, elapsed=elapsed)["macro_f1"]
            entry["subset_macro_f1"] = subsets
        results[name] = entry
        if args.limit is None:
            RESULTS.mkdir(parents=True, exist_ok=True)
            partial.write_text(json.dumps({**report, "tests": results}, indent=1) + "\n")
        print(name, json.dumps({k: v for k, v in entry["backend"].items() if k in
                                ("balanced_accuracy", "macro_f1", "auroc", "pairs_per_s")}), flush=True)
    report["tests"] = results
    report["published"] = {k: {"metric": m, "models": v} for k, (m, v) in PUBLISHED.items()}
    report["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if args.limit is None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "nli_eval.json").write_text(json.dumps(report, indent=1) + "\n")
        (RESULTS / "nli_eval.md").write_text(markdown(report))
        partial.unlink(missing_ok=True)
        print(f"wrote {RESULTS / 'nli_eval.json'} and nli_eval.md")
    else:
        print(markdown(report))
    return 0


def partial_fit_refusal(backend_name: str, calibration_out: Path | None) -> str | None:
    """Why a fit on part of the dev sets (--limit) may not be written where it is, or None. A calibration fitted on a
    partial dev set must never become the one a backend reads: the shipped verifier's, or the model directory's the
    fit would otherwise overwrite."""
    from controlplane.nli.shipped import VERIFIER_DIR, verifier_dir

    kind, _, path = backend_name.partition(":")
    model_dir = Path(path) if path else verifier_dir() if kind == "shipped" else None
    read_by_backends = {d.resolve() / CALIBRATION_FILE for d in (VERIFIER_DIR, verifier_dir(), model_dir) if d}
    if calibration_out is None:
        return ("--fit with --limit fits on part of the dev sets: it will not overwrite the model's calibration.json; "
                "name another file with --calibration-out FILE, or drop --limit")
    if calibration_out.resolve() in read_by_backends:
        return (f"--calibration-out {calibration_out} is a calibration a backend reads; a fit on part of the dev sets "
                "(--limit) must be written elsewhere")
    return None


def check_precision(backend_name: str, options: dict, calibration: dict, dev_metrics: dict,
                    limit: int | None) -> None:
    """Score dev with each reduced-precision runtime (bf16 torch, int8 ONNX Runtime) under the fp32 calibration and
    record the difference in calibration["precision_checks"], which the loader reads
    (controlplane.nli.shipped.choose_runtime: the first one within the rule that the machine serves).
    ``default_runtime`` is only a record for the reader: the first one within the rule, hardware aside."""
    from controlplane.nli.shipped import PRECISION_RULE_POINTS, REDUCED_PRECISION_RUNTIMES, within_rule

    checks = {}
    for runtime in REDUCED_PRECISION_RUNTIMES:
        reduced = load_nli_backend(backend_name, **{**options, "runtime": runtime})
        scored = []
        for rel, split in ev.DEV_SETS:
            scored += _score(reduced, rel, split, limit)[0]
        metrics = ev.evaluate_scored(reduced, scored, calibration, elapsed=1.0)
        delta = round(metrics["balanced_accuracy"] - dev_metrics["balanced_accuracy"], 2)
        checks[runtime] = {"dev_balanced_accuracy_fp32": dev_metrics["balanced_accuracy"],
                           "dev_balanced_accuracy": metrics["balanced_accuracy"],
                           "dev_auroc_fp32": dev_metrics["auroc"], "dev_auroc": metrics["auroc"],
                           "delta_points": delta}
        checks[runtime]["within_rule"] = within_rule(checks[runtime])
        print(f"{runtime} check", json.dumps(checks[runtime]), flush=True)
    calibration.pop("quantization_check", None)  # superseded: int8 is one of the precision checks
    calibration["precision_checks"] = {
        **checks, "rule": f"a reduced-precision runtime is used by default when |delta| <= {PRECISION_RULE_POINTS} dev "
                          "BAcc points (under the fp32 calibration) and the machine serves it; else torch fp32"}
    calibration["default_runtime"] = next((r for r in REDUCED_PRECISION_RUNTIMES if checks[r]["within_rule"]), "torch")


def markdown(report: dict) -> str:
    cal = report.get("calibration", {})
    lines = [
        "# NLI verifier: results on the shared eval sets (label_binary)",
        "",
        (f"Backend `{report['backend']}` (runtime {report.get('runtime')}), max_length {report['max_length']}, at most "
         f"{report.get('max_windows')} "
         f"windows per (evidence, claim sentence), "
         + (f"{report['threads']} torch thread(s). " if report.get("device", "cpu") == "cpu"
            else f"scored on {report['device']}. ")
         + 
         f"Calibration fitted on dev only ({', '.join(cal.get('dev_sources', [])) or 'not fitted'}): temperature "
         f"{cal.get('temperature')}, threshold {cal.get('threshold')}, veto codes {cal.get('veto_codes', [])}. "
         "Frozen before any test split was scored."),
        "",
    ]
    points = cal.get("operating_points") or {}
    if points:
        lines += [("Operating points on calibrated P(supported), fitted on the same dev rows (they are the policy "
                   "bundle's min_entailment): " + "; ".join(
                       f"{name} {p['threshold']} (dev: keeps {100 * p['supported_kept']:.1f} % of supported, passes "
                       f"{100 * p['unsupported_passed']:.1f} % of unsupported)" for name, p in points.items()
                       if isinstance(p, dict)) + "."), ""]
    from controlplane.nli.shipped import precision_checks

    checks = {k: v for k, v in precision_checks(cal).items() if isinstance(v, dict)}
    if checks:
        lines += [("Reduced-precision checks on dev (same calibration): " + "; ".join(
            f"{runtime} balanced accuracy {c.get('dev_balanced_accuracy', c.get('dev_balanced_accuracy_int8'))} against "
            f"fp32 {c['dev_balanced_accuracy_fp32']} (delta {c['delta_points']})" for runtime, c in checks.items())
            + f"; default runtime: {cal.get('default_runtime')} (used where the CPU serves it)."), ""]
    lines += [
        "| set | n | BAcc | macro-F1 | unsup. P | unsup. R | AUROC | ECE | Brier | pairs/s | + checks BAcc / F1 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, entry in report["tests"].items():
        m, c = entry["backend"], entry["backend+checks"]
        if name in report.get("subsampled", {}):
            name = f"{name} (deterministic sample)"
        lines.append(f"| {name} | {m['n']} | {m['balanced_accuracy']} | {m['macro_f1']} | {m['unsupported_precision']} | "
                     f"{m['unsupported_recall']} | {m['auroc']} | {m['ece']} | {m['brier']} | {m['pairs_per_s']} | "
                     f"{c['balanced_accuracy']} / {c['macro_f1']} |")
    lines += ["", "## Beside published numbers (same metric, same rows unless noted)", ""]
    for name, entry in report["tests"].items():
        pub = report["published"].get(name)
        if not pub:
            continue
        metric = pub["metric"]
        ours = entry["backend"][metric]
        extra = ""
        if "backend@dataset_dev_threshold" in entry:
            extra = f"; with the {name.split()[0]}-dev threshold: {entry['backend@dataset_dev_threshold'][metric]}"
        lines.append(f"**{name}** ({metric.replace('_', ' ')}): ours {ours}{extra}; " + ", ".join(
            f"{k} {v}" for k, v in pub["models"].items()))
        if "subset_macro_f1" in entry:
            lines.append(f"  per subset macro-F1: {entry['subset_macro_f1']} (GPT-4 CoT: BEGIN 77.5, AttrEval-GenSearch "
                         "83.3, HAGRID 75.9)")
        lines.append("")
    lines += [("Caveats: AttributionBench ID numbers were published on the full ID test set (ours: the authors' "
               "500-row sample). FaithBench claims are whole summaries (scored as the minimum over their sentences). "
               "Factcheck-GPT's published numbers are 3-way, not binary. WiCE evidence is the whole cited article, "
               "scored by best chunk; LLM-AggreFact's preprocessing may differ."), ""]
    if report.get("subsampled"):
        lines += ["Subsampled (CPU budget on a shared 2-core machine; rows with the smallest sha256(id)): "
                  + ", ".join(f"{k} {v} rows" for k, v in report["subsampled"].items())
                  + ". On 200 rows the standard error of balanced accuracy is about 3.5 points: FaithBench is "
                  "not a like-for-like comparison with the published 750-row numbers.", ""]
    if report.get("device", "cpu") == "cpu":
        lines += [("pairs/s = evaluation rows per second including chunking and all windows, measured while other "
                   "jobs shared the 2 cores (see bench/results/nli_throughput.json for a dedicated measurement)."), ""]
    else:
        lines += [(f"pairs/s = evaluation rows per second on {report['device']}, not a CPU figure (see "
                   "bench/results/nli_throughput.json for the CPU measurement)."), ""]
    return "\n".join(lines)


def rewrite_markdown() -> None:
    """Regenerate nli_eval.md from nli_eval.json (no scoring)."""
    report = json.loads((RESULTS / "nli_eval.json").read_text())
    (RESULTS / "nli_eval.md").write_text(markdown(report))


if __name__ == "__main__":
    sys.exit(main())
