"""`controlplane verify`: router and gates on one stored envelope, no model call, nothing stored."""

from __future__ import annotations

from pathlib import Path

import click

from controlplane.errors import InputError
from controlplane.pipeline import ControlPlane
from controlplane.services import build_services

from .common import emit_json, json_option, load_policy, policy_option, read_evidence
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
@policy_option
@json_option
def verify_command(evidence_path: Path | None, envelope_path: Path, message: str, policy_path: Path | None,
                   as_json: bool, nli_backend: str | None = None) -> None:
    """Check one envelope against evidence with the gates of the policy bundle. Exit 0 pass, 1 fail."""
    policy = load_policy(policy_path)
    items, facts, rules = read_evidence(evidence_path)
    try:
        raw = envelope_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"envelope file not found: {envelope_path} (pass --envelope with an existing file)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read envelope file {envelope_path}: {exc}") from None
    # verify never calls a model: no main model, and no selector (the router's decision stands).
    services = build_services(nli_backend, policy=policy.bundle)
    plane = ControlPlane(model=None, policy=policy, services=services)  # type: ignore[arg-type]
    plane.selector_model = None
    pack = plane.build_pack(items, facts, rules)
    result = plane.verify(raw, evidence=pack, message=message)
    data = result.as_json()
    if as_json:
        emit_json(data)
    else:
        click.echo(gate_table([{"attempt": 1, "gates": data["gates"]}]))
        for claim in data["claims"]:
            codes = ",".join(claim["reason_codes"]) or "-"
            click.echo(f"{claim['claim_id']}: {claim['verdict']} {codes}  {claim['text'][:80]}")
        click.echo(f"status: {data['status']}")
    raise SystemExit(0 if result.status == "pass" else 1)
