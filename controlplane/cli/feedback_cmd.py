"""`controlplane feedback TRACE_ID --tag TAG`: record human feedback on a trace (seed §10 feedback tags)."""

from __future__ import annotations

import re
from pathlib import Path

import click

from .common import InputError, db_option, emit_json, json_option, open_store

TAG = re.compile(r"^[a-z0-9][a-z0-9_.:-]{0,63}$")


@click.command("feedback")
@click.argument("trace_id")
@click.option("--tag", required=True, help="Short label, e.g. wrong_fact, good, missing_citation, too_cautious.")
@click.option("--note", default="", help="Free text.")
@click.option("--claim", "claim_id", default=None, help="Claim the feedback is about.")
@click.option("--by", "author", default=None)
@db_option
@json_option
def feedback_command(trace_id: str, tag: str, note: str, claim_id: str | None, author: str | None,
                     db_path: Path | None, as_json: bool) -> None:
    """Record human feedback on a stored trace."""
    from controlplane.policy_bundles.lifecycle import default_actor

    if not TAG.match(tag):
        raise InputError(f"--tag {tag!r}: use lowercase letters, digits and _.:- (e.g. wrong_fact)")
    store = open_store(db_path)
    store.add_feedback(trace_id, tag, note, claim_id=claim_id, author=author or default_actor())
    if as_json:
        emit_json({"trace_id": trace_id, "tag": tag, "note": note, "claim_id": claim_id})
    else:
        click.echo(f"feedback {tag!r} recorded on {trace_id}")
