"""Options and helpers shared by CLI commands, so every command names things the same way."""

from __future__ import annotations

import json
import os
from datetime import UTC
from pathlib import Path
from typing import Any

import click

from controlplane.contracts.errors import ConfigurationError, InputError
from controlplane.evidence_pack import EvidenceError, read_evidence_file
from controlplane.paths import default_trace_db
from controlplane.traces.store import TraceStore, TraceStoreError

MODEL_ENV = "CONTROLPLANE_MODEL"
POLICY_ENV = "CONTROLPLANE_POLICY"


def policy_option(f):
    return click.option(
        "--policy", "policy_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
        help=f"Policy bundle file (default: ${POLICY_ENV}, else the bundle promoted in --db, else the shipped one).",
    )(f)


def db_option(f):
    return click.option(
        "--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
        help="SQLite trace store (default: $CONTROLPLANE_HOME/traces.db or ./.controlplane/traces.db).",
    )(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")(f)


def format_option(f):
    """--format text|json|ebom (after --json, which stays): ebom prints the EBOM structured response with its audit
    trail (controlplane.ebom), rebuilt from the request's trace."""
    return click.option("--format", "output_format", type=click.Choice(["text", "json", "ebom"]), default=None,
                        help="Output: text (default), json (as --json) or ebom (the EBOM structured response with "
                             "audit trail, JSON).")(f)


def signing_options(f):
    """--require-signed/--public-key: the same bar on every command that runs requests (run, ask, verify, serve)."""
    f = click.option(
        "--public-key", "public_key", type=click.Path(dir_okay=False, path_type=Path), default=None,
        help="Public key that policy signatures must verify with (default: $CONTROLPLANE_POLICY_PUBLIC_KEY).",
    )(f)
    return click.option(
        "--require-signed", "require_signed", is_flag=True, default=None,
        help="Refuse any policy bundle without a valid signature, the unsigned shipped default included "
             "(default: $CONTROLPLANE_REQUIRE_SIGNED_POLICY).",
    )(f)


def index_option(f):
    """--index DIR: the vector index (chromadb directory) everywhere; --index-db is its old, hidden spelling."""
    f = click.option("--index-db", "legacy_index", type=click.Path(file_okay=False, path_type=Path), default=None,
                     hidden=True, help="Deprecated spelling of --index.")(f)
    return click.option(
        "--index", "index_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
        help="Vector index directory (see `controlplane index`; default: $CONTROLPLANE_HOME/index).",
    )(f)


def chosen_index(index_dir: Path | None, legacy: Path | None, legacy_name: str = "--index-db") -> Path | None:
    if legacy is None:
        return index_dir
    if index_dir is not None and index_dir != legacy:
        raise InputError(f"give the vector index once: --index {index_dir} and {legacy_name} {legacy} disagree")
    click.echo(f"warning: {legacy_name} is deprecated here; use --index (the vector index)", err=True)
    return legacy


def critic_option(f):
    return click.option(
        "--critic", "critic_spec", default=None,
        help="Model spec of the sync critic (G7) when the bundle calls for it (default: the main model).",
    )(f)


def open_store(path: Path | None) -> TraceStore:
    try:
        return TraceStore(path or default_trace_db())
    except TraceStoreError as exc:
        raise InputError(str(exc)) from None


def read_evidence(path: Path | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict]:
    if path is None:
        return [], [], {}
    try:
        return read_evidence_file(path)
    except EvidenceError as exc:
        raise InputError(str(exc)) from None


def model_spec(value: str | None) -> str:
    return value or os.environ.get(MODEL_ENV) or "default"


def since_option_value(value: str | None, option: str = "--since") -> str | None:
    """An ISO date or time as the UTC text stored traces are compared with; anything else is an InputError (a
    filter that silently matches nothing looks exactly like an empty store)."""
    from datetime import date, datetime

    if value is None:
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"{option} {value!r} is not an ISO date or time; write e.g. 2026-11-01 or "
                         "2026-11-01T09:30:00+00:00 (times without a zone are UTC)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def limit_option_value(value: int | None, option: str = "--limit") -> int | None:
    """A count of traces: at least 1 (SQLite reads a negative LIMIT as no limit at all)."""
    if value is not None and value < 1:
        raise InputError(f"{option} {value} must be at least 1; leave it out for no limit")
    return value


def status_option_value(value: str | None, allowed: tuple[str, ...], option: str = "--status") -> str | None:
    if value is None:
        return None
    if value not in allowed:
        raise InputError(f"{option} {value!r} is not a trace status; use one of {', '.join(allowed)}")
    return value


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


__all__ = [
    "ConfigurationError",
    "InputError",
    "chosen_index",
    "critic_option",
    "db_option",
    "emit_json",
    "format_option",
    "index_option",
    "json_option",
    "limit_option_value",
    "model_spec",
    "open_store",
    "policy_option",
    "read_evidence",
    "signing_options",
    "since_option_value",
    "status_option_value",
]
