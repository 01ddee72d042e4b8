"""`controlplane trace ...`: read the trace store."""

from __future__ import annotations

from pathlib import Path

import click

from .common import db_option, emit_json, json_option, open_store


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
        click.echo(f"{event.seq:>4}  {event.phase.value}{gate}{attempt}{extra}")


@trace_group.command("list")
@click.option("--since", default=None, help="ISO time; only traces created at or after it.")
@click.option("--status", default=None, help="pass, regen_pass, degraded, refused, in_progress or error.")
@click.option("--limit", type=int, default=50)
@db_option
@json_option
def list_traces(since: str | None, status: str | None, limit: int, db_path: Path | None, as_json: bool) -> None:
    """List stored traces, newest first."""
    store = open_store(db_path)
    rows = store.list_traces(since=since, status=status, limit=limit)
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        failing = ",".join(row["failing_gates"]) or "-"
        click.echo(f"{row['trace_id']}  {row['created_at'][:19]}  {row['status']:<11} {row['mode_label'] or '-':<7} "
                   f"failing: {failing}  {row['user_message'][:60]!r}")
