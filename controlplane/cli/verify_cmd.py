"""`controlplane verify`: router and gates on one stored envelope, no model call, nothing stored."""

from __future__ import annotations

from pathlib import Path

import click

from controlplane.api import ControlPlane
from controlplane.contracts.user_files import read_user_file
from controlplane.paths import default_trace_db

from .common import db_option, emit_json, format_option, json_option, policy_option, read_evidence, signing_options
from .render import gate_table


@click.command("verify")
@click.option("--evidence", "evidence_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="JSON file: an array of evidence items or an EvidencePack object.")
@click.option("--envelope", "envelope_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="File holding the model output (an OutputEnvelope, or any raw text to be judged).")
@click.option("--message", "-m", default="", help="The user message the envelope answers (drives routing).")
@click.option("--nli-backend", "nli_backend", default=None,
              help="NLI backend for nli_entailment: shipped, transformers:PATH, a plugin name, or none "
                   "(default: the policy's, else the shipped verifier; if it cannot load, claims fail closed).")
@db_option
@policy_option
@signing_options
@json_option
@format_option
@click.option("--prose", is_flag=True,
              help="The --envelope file is any model's plain-text answer: the server attributes each sentence to "
                   "the evidence (markers, n-gram overlap, embeddings) and builds the envelope, then every gate runs.")
def verify_command(evidence_path: Path | None, envelope_path: Path, message: str, policy_path: Path | None,
                   as_json: bool, nli_backend: str | None = None, db_path: Path | None = None,
                   require_signed: bool | None = None, public_key: Path | None = None,
                   output_format: str | None = None, prose: bool = False) -> None:
    """Check one envelope against evidence with the gates of the policy bundle. Exit 0 pass, 1 fail.

    The policy is the one `run` would use: --policy, else the bundle promoted in --db (or in the default trace store
    when it exists; verify never creates one), else the shipped default. Nothing is stored.
    """
    items, facts, rules = read_evidence(evidence_path)
    raw = read_user_file(envelope_path, "envelope file", "pass --envelope with an existing file")
    db = db_path if db_path is not None else (default_trace_db() if default_trace_db().is_file() else False)
    # verify never calls a model: no main model, no selector, no critic (ControlPlane.verify).
    with ControlPlane(model=False, policy=policy_path, db=db, nli_backend=nli_backend, critic=False,
                      require_signed=require_signed or None, public_key=public_key) as plane:
        result = plane.verify(raw, evidence=items, message=message, facts=facts, rules=rules or None, prose=prose)
    data = result.as_json()
    if output_format == "ebom":
        emit_json(result.as_ebom())
    elif as_json or output_format == "json":
        emit_json(data)
    else:
        click.echo(gate_table([{"attempt": 1, "gates": data["gates"]}]))
        methods = [s["method"] for s in (data.get("prose") or {}).get("sentences", [])]
        for index, claim in enumerate(data["claims"]):
            codes = ",".join(claim["reason_codes"]) or "-"
            how = f" ({methods[index]})" if index < len(methods) else ""
            click.echo(f"{claim['claim_id']}: {claim['verdict']} {codes}{how}  {claim['text'][:80]}")
        click.echo(f"status: {data['status']}")
    raise SystemExit(0 if result.status == "pass" else 1)
