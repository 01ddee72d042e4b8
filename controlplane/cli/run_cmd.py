"""`controlplane run`: one request through the whole pipeline with a chosen model (scripted for tests)."""

from __future__ import annotations

from pathlib import Path

import click

from controlplane.adapters import load_model
from controlplane.pipeline import ControlPlane
from controlplane.services import build_services

from .common import (
    build_critic,
    critic_option,
    db_option,
    emit_json,
    json_option,
    model_spec,
    open_store,
    policy_option,
    read_evidence,
    resolve_run_policy,
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
@json_option
def run_command(message: str, evidence_path: Path | None, model: str | None, db_path: Path | None,
                policy_path: Path | None, as_json: bool, nli_backend: str | None = None,
                critic_spec: str | None = None) -> None:
    """Run one message through router, evidence, model, gates, regen and degrade; store the trace."""
    items, facts, rules = read_evidence(evidence_path)
    store = open_store(db_path)
    policy = resolve_run_policy(store, policy_path)
    spec = model_spec(model)
    adapter = load_model(spec)
    from controlplane.traces.critic import ModelCritic

    critic = build_critic(critic_spec) if critic_spec else ModelCritic(adapter)
    services = build_services(nli_backend, policy=policy.bundle, critic=critic)
    plane = ControlPlane(model=adapter, policy=policy, store=store, services=services)
    pack = plane.build_pack(items, facts, rules)
    result = plane.run([{"role": "user", "content": message}], evidence=pack)
    data = result.as_json()
    if as_json:
        emit_json(data)
    else:
        click.echo(render_run(data, str(store.path)))
