"""Train the verifier on the whole permissive pool, choose a snapshot by dev score, and score it: one command for a
machine with an accelerator (the same steps run on a CPU, only far slower).

    python bench/_verifier_run.py --out RUN --base-model controlplane/nli/verifier --device cuda

1. ``controlplane.nli.train`` with the options below (fixed seed; snapshots every ``--checkpoint-every`` steps;
   ``--max-seconds`` stops a run that would outlast the machine, at a snapshot).
2. Every snapshot is exported as it would ship (fp16) and scored on the dev splits only (AttributionBench
   dev_sampled + WiCE dev); calibration is fitted on those rows, and the snapshot with the best dev balanced accuracy
   is chosen (the starting model is scored the same way, as the baseline).
3. The chosen snapshot is written to ``RUN/chosen`` (the files of controlplane/nli/verifier), and ``RUN/dev.json``
   records every snapshot's dev figures. No test split is read here: score the test sets afterwards with
   ``bench/nli_eval.py --fit`` once the chosen model is in place.

Set CONTROLPLANE_NLI_DEVICE=cuda to score on the accelerator too. Not a benchmark: the leading underscore keeps it
out of ``./run bench``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from bench import EVAL_DIR as EVAL

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from controlplane.contracts.errors import ConfigurationError
from controlplane.nli import evaluate as ev
from controlplane.nli.export import export_fp16
from controlplane.nli.train import TrainConfig, parse_layers, train
from controlplane.nli.transformers_backend import TransformersNliBackend


def dev_figures(model_dir: Path, rows: list[dict], threads: int) -> dict:
    backend = TransformersNliBackend(model_dir, threads=threads, max_length=256)
    scored, elapsed = ev.score_rows(backend, rows, checks=False)
    calibration = ev.fit_calibration(backend, scored, sources=ev.DEV_SOURCES)
    metrics = ev.evaluate_scored(backend, scored, calibration, elapsed=elapsed)
    return {"dev_balanced_accuracy": calibration["dev_balanced_accuracy"], "dev_auroc": metrics["auroc"],
            "temperature": calibration["temperature"], "threshold": calibration["threshold"],
            "per_dataset": calibration.get("per_dataset_threshold"), "seconds": round(elapsed, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--base-model", required=True)
    parser.add_argument("--device", default="auto", choices=["cpu", "cuda", "auto"])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--max-steps", type=int, default=6000)
    parser.add_argument("--max-seconds", type=float, default=0.0)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--learning-rate", type=float, default=4e-5)
    parser.add_argument("--warmup-steps", type=int, default=300)
    parser.add_argument("--checkpoint-every", type=int, default=1500)
    parser.add_argument("--doc-distractor", type=int, default=60000)
    parser.add_argument("--conjoined", type=int, default=60000)
    parser.add_argument("--synthetic-neutral", type=int, default=6000)
    parser.add_argument("--factcg-repeat", type=int, default=4)
    parser.add_argument("--threads", type=int, default=8, help="CPU threads for scoring when no accelerator is used")
    parser.add_argument("--dev-limit", type=int, default=None, help="at most N rows per dev file (smoke runs only)")
    parser.add_argument("--skip-train", action="store_true", help="only score the snapshots already in OUT")
    parser.add_argument("--head", default="3way", choices=["3way", "2way"], help="the output head (nli train --head)")
    parser.add_argument("--keep-layers", default="", help="a shallower student: the base's layers to keep, e.g. 0,2,4,5")
    parser.add_argument("--teacher", default="", help="distil from this trained verifier (nli train --teacher)")
    parser.add_argument("--distill-weight", type=float, default=0.5)
    parser.add_argument("--distill-temperature", type=float, default=2.0)
    args = parser.parse_args(argv)

    out = Path(args.out)
    cfg = TrainConfig(out=str(out), seed=args.seed, max_steps=args.max_steps, max_length=args.max_length,
                      batch_size=args.batch_size, learning_rate=args.learning_rate, warmup_steps=args.warmup_steps,
                      synthetic_neutral=args.synthetic_neutral, doc_distractor=args.doc_distractor,
                      conjoined=args.conjoined, factcg_repeat=args.factcg_repeat, sentence_sample=0,
                      checkpoint_every=args.checkpoint_every, base_model=args.base_model, device=args.device,
                      max_seconds=args.max_seconds, head=args.head, threads=args.threads,
                      keep_layers=parse_layers(args.keep_layers), teacher_model=args.teacher,
                      distill_weight=args.distill_weight, distill_temperature=args.distill_temperature,
                      **({"data_dir": args.data_dir} if args.data_dir else {}))
    if not args.skip_train:
        train(cfg, log=lambda msg: print(msg, flush=True))

    rows = []
    for rel, split in ev.DEV_SETS:
        rows += ev.load_rows(EVAL / rel, [split], args.dev_limit)
    report: dict = {"config": {k: v for k, v in vars(args).items()}, "dev_rows": len(rows), "candidates": {}}
    try:
        report["candidates"]["base"] = dev_figures(Path(args.base_model), rows, args.threads)
        print("base", json.dumps(report["candidates"]["base"]), flush=True)
    except ConfigurationError as exc:  # a plain encoder (no NLI head) as the starting point: nothing to score
        report["base_not_scored"] = str(exc)
    snapshots = sorted((out / "snapshots").glob("step-*"), key=lambda p: int(p.name.split("-")[1]))
    exported = out / "exported"
    for snap in snapshots:
        target = exported / snap.name
        export_fp16(snap, target)
        report["candidates"][snap.name] = dev_figures(target, rows, args.threads)
        print(snap.name, json.dumps(report["candidates"][snap.name]), flush=True)
        (out / "dev.json").write_text(json.dumps(report, indent=1) + "\n")
    trained = {k: v for k, v in report["candidates"].items() if k != "base"}
    if not trained:
        print("no snapshot to choose from", file=sys.stderr)
        return 1
    # Later snapshot wins a tie: it has seen more data for the same dev score.
    best = max(trained, key=lambda k: (trained[k]["dev_balanced_accuracy"], int(k.split("-")[1])))
    report["chosen"] = best
    report["rule"] = "highest dev balanced accuracy (calibration fitted on the same dev rows); ties to the later step"
    chosen = out / "chosen"
    if chosen.exists():
        shutil.rmtree(chosen)
    shutil.copytree(exported / best, chosen)
    report["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    (out / "dev.json").write_text(json.dumps(report, indent=1) + "\n")
    print("chosen", best, json.dumps(trained[best]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
