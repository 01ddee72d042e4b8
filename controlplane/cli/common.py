"""Options and helpers shared by CLI commands, so every command names things the same way."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from controlplane.errors import ConfigurationError, InputError
from controlplane.evidence_pack import EvidenceError, read_evidence_file
from controlplane.paths import default_trace_db
from controlplane.policy_bundles.loader import LoadedPolicy, PolicyBundleError, load_bundle
from controlplane.traces.store import TraceStore, TraceStoreError

MODEL_ENV = "CONTROLPLANE_MODEL"
POLICY_ENV = "CONTROLPLANE_POLICY"


def policy_option(f):
    return click.option(
        "--policy", "policy_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
        help=f"Policy bundle file (default: ${POLICY_ENV} or the shipped default bundle).",
    )(f)


def db_option(f):
    return click.option(
        "--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
        help="SQLite trace store (default: $CONTROLPLANE_HOME/traces.db or ./.controlplane/traces.db).",
    )(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")(f)


def load_policy(path: Path | None) -> LoadedPolicy:
    chosen = path or (Path(os.environ[POLICY_ENV]) if os.environ.get(POLICY_ENV) else None)
    try:
        return load_bundle(chosen)
    except PolicyBundleError as exc:
        raise InputError(str(exc)) from None


def resolve_run_policy(store: TraceStore, path: Path | None) -> LoadedPolicy:
    """--policy FILE (or $CONTROLPLANE_POLICY), else the promoted bundle in this store, else the shipped default;
    signatures are checked when the deployment requires them."""
    from controlplane.policy_bundles.lifecycle import resolve_policy

    try:
        return resolve_policy(store, path)
    except (PolicyBundleError, ValueError) as exc:
        raise InputError(str(exc)) from None


def critic_option(f):
    return click.option(
        "--critic", "critic_spec", default=None,
        help="Model spec of the sync critic (G7) when the bundle calls for it (default: the main model).",
    )(f)


def build_critic(spec: str):
    from controlplane.traces.critic import critic_from_spec

    return critic_from_spec(spec)


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
    from datetime import date, datetime, timezone

    if value is None:
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{option} {value!r} is not an ISO date or time; write e.g. 2026-11-01 or "
                         "2026-11-01T09:30:00+00:00 (times without a zone are UTC)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat()


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
    "db_option",
    "emit_json",
    "json_option",
    "load_policy",
    "model_spec",
    "open_store",
    "policy_option",
    "read_evidence",
    "since_option_value",
    "status_option_value",
]
