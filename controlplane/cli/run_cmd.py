"""`controlplane run`: one request through the whole pipeline with a chosen model (scripted for tests).

Mirrors ``controlplane.ControlPlane(...).respond(...)``: ``run --json`` prints exactly ``Response.as_json()``.
"""

from __future__ import annotations

from pathlib import Path

import click

from controlplane.api import ControlPlane

from .common import (
    critic_option,
    db_option,
    emit_json,
    format_option,
    json_option,
    model_spec,
    policy_option,
    read_evidence,
    signing_options,
)
from .render import render_run


@click.command("run")
@click.option("--message", "-m", required=True, help="The user message.")
@click.option("--evidence", "evidence_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="JSON file: an array of evidence items or an EvidencePack object.")
@click.option("--model", "model", default=None,
              help="Model spec: scripted:FILE, gguf:PATH, default, openai:URL#MODEL (default: $CONTROLPLANE_MODEL).")
@click.option("--nli-backend", "nli_backend", default=None,
              help="NLI backend for nli_entailment: shipped, transformers:PATH, a plugin name, or none "
                   "(default: the policy's, else the shipped verifier; if it cannot load, claims fail closed).")
@critic_option
@db_option
@policy_option
@signing_options
@json_option
@format_option
def run_command(message: str, evidence_path: Path | None, model: str | None, db_path: Path | None,
                policy_path: Path | None, as_json: bool, nli_backend: str | None = None,
                critic_spec: str | None = None, require_signed: bool | None = None,
                public_key: Path | None = None, output_format: str | None = None) -> None:
    """Run one message through router, evidence, model, gates, regen and degrade; store the trace."""
    items, facts, rules = read_evidence(evidence_path)
    with ControlPlane(model=model_spec(model), policy=policy_path, db=db_path, nli_backend=nli_backend,
                      critic=critic_spec, require_signed=require_signed or None, public_key=public_key) as plane:
        reply = plane.respond(message, evidence=items, facts=facts, rules=rules or None)
        data = reply.as_json()
        store_path = str(plane.store.path) if plane.store is not None else None
    if output_format == "ebom":
        emit_json(reply.as_ebom())
    elif as_json or output_format == "json":
        emit_json(data)
    else:
        click.echo(render_run(data, store_path))
