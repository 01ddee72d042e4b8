"""`controlplane reverify TRACE_ID --text FILE`: check a user's edit of a stored answer against that answer's evidence.

Mirrors ``ControlPlane.reverify``. Exit codes: 0 every sentence passes; 1 the edit is blocked or flagged; 2 bad input.
"""

from __future__ import annotations

from pathlib import Path

import click

from controlplane.api import ControlPlane
from controlplane.contracts.user_files import read_user_file

from .common import db_option, emit_json, json_option, policy_option, signing_options


@click.command("reverify")
@click.argument("trace_id")
@click.option("--text", "text_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="File holding the edited paragraph (plain text; [E#] markers are honoured).")
@db_option
@policy_option
@click.option("--nli-backend", "nli_backend", default=None,
              help="NLI backend for nli_entailment (default: the policy's, else the shipped verifier).")
@signing_options
@json_option
def reverify_command(trace_id: str, text_path: Path, db_path: Path | None, policy_path: Path | None,
                     nli_backend: str | None, require_signed: bool | None, public_key: Path | None,
                     as_json: bool) -> None:
    """Re-verify an edit of TRACE_ID's answer: PASS/FAIL per sentence, with what evidence would fix each FAIL.

    The check is stored as a new trace whose parent is TRACE_ID; no model is called.
    """
    text = read_user_file(text_path, "edit file", "pass --text with the edited paragraph")
    with ControlPlane(model=False, policy=policy_path, db=db_path, nli_backend=nli_backend, critic=False,
                      require_signed=require_signed or None, public_key=public_key) as plane:
        result = plane.reverify(trace_id, text)
    if as_json:
        emit_json(result.as_json())
    else:
        for sentence in result.sentences:
            codes = ",".join(sentence.reason_codes) or "-"
            click.echo(f"{sentence.verdict}  {codes}  ({sentence.attributed_by})  {sentence.text[:90]}")
            if sentence.fix:
                click.echo(f"      fix: {sentence.fix}")
        click.echo(f"status: {result.status}  verified: {str(result.verified).lower()}  trace: {result.trace_id} "
                   f"(edit of {result.parent_trace_id})")
    raise SystemExit(0 if result.passed else 1)
