"""`controlplane trace ...`: read the trace store."""

from __future__ import annotations

from pathlib import Path

import click

from controlplane.contracts import FINAL_STATUSES, TraceStatus

from .common import (
    InputError,
    db_option,
    emit_json,
    json_option,
    limit_option_value,
    open_store,
    policy_option,
    since_option_value,
    status_option_value,
)

ALL_STATUSES = tuple(s.value for s in TraceStatus)
EXPORTABLE_STATUSES = tuple(s.value for s in FINAL_STATUSES)  # export takes complete traces only


@click.group("trace")
def trace_group() -> None:
    """Inspect, export and import traces."""


@trace_group.command("show")
@click.argument("trace_id")
@db_option
@json_option
def show(trace_id: str, db_path: Path | None, as_json: bool) -> None:
    """Print a trace's events in seq order with their phase and gate."""
    store = open_store(db_path)
    row = store.require(trace_id)
    events = store.events(trace_id)
    if as_json:
        emit_json(
            {
                "trace_id": trace_id,
                "status": row["status"],
                "created_at": row["created_at"],
                "policy_hash": row["policy_hash"],
                "events": [e.model_dump(mode="json") for e in events],
            }
        )
        return
    click.echo(f"trace {trace_id}  status: {row['status']}  created: {row['created_at']}")
    for event in events:
        gate = f" {event.gate_id}" if event.gate_id else ""
        attempt = f" attempt={event.metadata.attempt}" if event.metadata.attempt else ""
        extra = ""
        if event.gate_id and "result" in event.payload:
            codes = ",".join(event.payload.get("reason_codes", []))
            extra = f" -> {event.payload['result']}" + (f" [{codes}]" if codes else "")
        follow_up = event.payload.get("follow_up")
        if isinstance(follow_up, dict):  # the question the answer was for (controlplane/follow_ups.py)
            extra = f" follow-up read as \"{follow_up.get('read_as')}\" ({follow_up.get('rule')})"
        click.echo(f"{event.seq:>4}  {event.phase.value}{gate}{attempt}{extra}")


@trace_group.command("list")
@click.option("--since", default=None, help="ISO time; only traces created at or after it.")
@click.option("--status", default=None, help="pass, regen_pass, degraded, refused, in_progress or error.")
@click.option("--limit", type=int, default=50)
@db_option
@json_option
def list_traces(since: str | None, status: str | None, limit: int, db_path: Path | None, as_json: bool) -> None:
    """List stored traces, newest first."""
    since = since_option_value(since)
    status = status_option_value(status, ALL_STATUSES)
    limit = limit_option_value(limit)
    store = open_store(db_path)
    rows = store.list_traces(since=since, status=status, limit=limit)
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        failing = ",".join(row["failing_gates"]) or "-"
        click.echo(f"{row['trace_id']}  {row['created_at'][:19]}  {row['status']:<11} {row['mode_label'] or '-':<7} "
                   f"failing: {failing}  {row['user_message'][:60]!r}")


@trace_group.command("export")
@click.argument("trace_ids", nargs=-1)
@click.option("--since", default=None, help="ISO time; export complete traces created at or after it.")
@click.option("--status", default=None, help="Export complete traces with this status (pass, regen_pass, ...).")
@click.option("--limit", type=int, default=None, help="At most this many traces (newest) with --since/--status.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Bundle file to write (JSONL, one TraceBundle per line).")
@click.option("--no-redact", is_flag=True, help="Export unredacted (local debugging only; the file holds raw text).")
@db_option
@policy_option
@json_option
def export(trace_ids: tuple[str, ...], since: str | None, status: str | None, limit: int | None, output: Path,
           no_redact: bool, db_path: Path | None, policy_path: Path | None, as_json: bool) -> None:
    """Export traces as a replayable bundle, redacted with the policy bundle's redaction rules.

    The redaction rules come from --policy, else the promoted bundle in --db, else the shipped default.
    """
    from controlplane.policy_source import PolicySource, signing_config
    from controlplane.traces.bundles import BundleError, export_bundles
    from controlplane.traces.redaction import RedactionError

    if trace_ids and (since or status):
        raise InputError("give either TRACE_ID... or --since/--status, not both")
    since = since_option_value(since)
    status = status_option_value(status, EXPORTABLE_STATUSES)
    limit = limit_option_value(limit)
    store = open_store(db_path)
    # the same resolution as every request (controlplane.policy_source): the rules of the bundle that runs
    redaction = None if no_redact else PolicySource(policy_path, store, signing_config()).current.bundle.redaction
    try:
        summary = export_bundles(store, output, trace_ids=trace_ids, since=since, status=status, redaction=redaction,
                                 limit=limit)
    except (BundleError, RedactionError) as exc:
        raise InputError(str(exc)) from None
    if as_json:
        emit_json(summary.as_json())
        return
    masked = ", ".join(f"{k}={v}" for k, v in sorted(summary.redaction_counts.items())) or "none"
    click.echo(f"exported {len(summary.trace_ids)} trace(s) to {summary.path} ({summary.bytes} bytes, "
               f"{'redacted; masked: ' + masked if summary.redacted else 'NOT redacted'}) {summary.sha256}")


@trace_group.command("import")
@click.argument("bundle_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--rekey", is_flag=True,
              help="Store traces whose id already exists under a new id (<id>~<hash8>) instead of skipping them.")
@db_option
@json_option
def import_(bundle_file: Path, rekey: bool, db_path: Path | None, as_json: bool) -> None:
    """Load a bundle file into a store. Never clobbers: existing ids are skipped (or re-keyed with --rekey)."""
    from controlplane.traces.bundles import BundleError, import_bundles

    store = open_store(db_path)
    try:
        summary = import_bundles(store, bundle_file, on_conflict="rekey" if rekey else "skip")
    except BundleError as exc:
        raise InputError(str(exc)) from None
    if as_json:
        emit_json(summary.as_json())
    else:
        click.echo(summary.line())
