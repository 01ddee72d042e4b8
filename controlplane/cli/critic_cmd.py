"""`controlplane critic ...`: the offline critic loop (seed §7): run, list, accept/reject, suggest a draft bundle.

Thin layer over ``controlplane.critic`` (rules and model critic) and ``controlplane.policy_bundles.suggest``.
"""

from __future__ import annotations

from pathlib import Path

import click

from controlplane.policy_bundles.loader import PolicyBundleError

from .common import (
    InputError,
    db_option,
    emit_json,
    json_option,
    limit_option_value,
    open_store,
    policy_option,
    since_option_value,
)


@click.group("critic")
def critic_group() -> None:
    """Offline batch critic over stored traces, and the review of its findings."""


@critic_group.command("run")
@click.option("--since", default=None, help="ISO time; critique complete traces created at or after it.")
@click.option("--trace", "trace_ids", multiple=True, help="Critique these traces (instead of --since).")
@click.option("--limit", type=int, default=None, help="At most this many traces (newest).")
@click.option("--model", "model", default=None,
              help="Also ask a local model (scripted:FILE, gguf:PATH, default ...) with the CriticFinding schema.")
@click.option("--no-rules", is_flag=True, help="Skip the deterministic rules (model critic only).")
@db_option
@json_option
def run(since: str | None, trace_ids: tuple[str, ...], limit: int | None, model: str | None, no_rules: bool,
        db_path: Path | None, as_json: bool) -> None:
    """Find uncited/unsupported claims, ignored evidence and gates that should have fired; store the findings."""
    from controlplane.critic import RuleCritic, critic_from_spec, run_critic

    if since is None and not trace_ids:
        raise InputError("say which traces: --since TIME (e.g. 2026-11-01) or --trace ID")
    since = since_option_value(since)
    limit = limit_option_value(limit)
    critics = [] if no_rules else [RuleCritic()]
    if model:
        critics.append(critic_from_spec(model))
    if not critics:
        raise InputError("--no-rules without --model leaves no critic to run")
    store = open_store(db_path)
    summary = run_critic(store, critics, since=since, trace_ids=trace_ids, limit=limit)
    if as_json:
        emit_json(summary.as_json())
        return
    kinds = ", ".join(f"{k}: {v}" for k, v in sorted(summary.by_type.items())) or "none"
    click.echo(f"critiqued {summary.traces} trace(s) with {', '.join(c.name for c in critics)}: "
               f"{summary.findings_added} new finding(s) ({kinds}); {summary.duplicates} already stored")
    for error in summary.errors:
        click.echo(f"  {error['trace_id']} {error['critic']}: {error['error']}")
    if summary.findings_added:
        click.echo(f"review them: controlplane critic list --status proposed --db {store.path}")


@critic_group.command("list")
@click.option("--status", default=None, help="proposed, accepted or rejected.")
@click.option("--trace", "trace_id", default=None)
@click.option("--limit", type=int, default=None)
@db_option
@json_option
def list_(status: str | None, trace_id: str | None, limit: int | None, db_path: Path | None, as_json: bool) -> None:
    """Stored critic findings."""
    rows = open_store(db_path).list_findings(status=status, trace_id=trace_id, limit=limit)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo("no findings")
    for r in rows:
        delta = r["suggested_gate_delta"]
        suggestion = f"  suggests {delta['gate_id']}: {delta.get('patch') or delta.get('new_rule')}" if delta else ""
        click.echo(f"#{r['id']:<4} {r['status']:<9} {r['severity']:<8} {r['type']:<18} {r['trace_id']} "
                   f"{r['claim_id'] or '-'} [{r['source']}] {r['explanation'][:90]}{suggestion}")


def _review(ref: str, status: str, actor: str | None, note: str, db_path: Path | None) -> None:
    from controlplane.policy_bundles.lifecycle import default_actor

    row = open_store(db_path).review_finding(ref, status, actor or default_actor(), note)
    click.echo(f"finding #{row['id']} ({row['finding_id']}) {status} by {row['reviewed_by']}")


@critic_group.command("accept")
@click.argument("finding")
@click.option("--by", "actor", default=None)
@click.option("--why", "note", default="")
@db_option
def accept(finding: str, actor: str | None, note: str, db_path: Path | None) -> None:
    """Accept a finding (by row id or finding id): its suggested patch goes into the next suggest."""
    _review(finding, "accepted", actor, note, db_path)


@critic_group.command("reject")
@click.argument("finding")
@click.option("--by", "actor", default=None)
@click.option("--why", "note", default="")
@db_option
def reject(finding: str, actor: str | None, note: str, db_path: Path | None) -> None:
    """Reject a finding."""
    _review(finding, "rejected", actor, note, db_path)


@critic_group.command("suggest")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Draft bundle file to write.")
@click.option("--by", "actor", default=None)
@db_option
@policy_option
@json_option
def suggest(output: Path, actor: str | None, db_path: Path | None, policy_path: Path | None, as_json: bool) -> None:
    """Turn accepted findings' suggested_gate_delta patches into a draft bundle (new version), registered as draft.

    The base is --policy, else the promoted bundle, else the shipped default. Review it next:
    controlplane policy review DRAFT.json --db FILE
    """
    from controlplane.policy_bundles.lifecycle import PolicyLifecycle, default_actor
    from controlplane.policy_bundles.suggest import suggest_draft, write_bundle
    from controlplane.policy_source import PolicySource, signing_config

    store = open_store(db_path)
    try:
        base = PolicySource(policy_path, store, signing_config()).current  # the bundle that runs, as for requests
        accepted = store.list_findings(status="accepted")
        if not accepted:
            raise InputError("no accepted findings; accept some with: controlplane critic accept FINDING")
        suggestion = suggest_draft(base, accepted)
        write_bundle(suggestion.draft, output)
        version = PolicyLifecycle(store).register(
            suggestion.draft, actor or default_actor(),
            "critic suggest: " + ", ".join(str(a["finding"]) for a in suggestion.applied), source=str(output))
    except PolicyBundleError as exc:
        raise InputError(str(exc)) from None
    if as_json:
        emit_json({"path": str(output), "hash": version.hash, "version": version.version, "state": version.state,
                   "applied": suggestion.applied, "skipped": suggestion.skipped})
        return
    click.echo(f"draft {version.name} {version.version} {version.hash} written to {output} from "
               f"{len(suggestion.applied)} accepted finding(s)")
    for a in suggestion.applied:
        click.echo(f"  {a['gate_id']}: {a['patch']}  ({a['finding']})")
    for s in suggestion.skipped:
        click.echo(f"  skipped {s['finding']}: {s['why']}")
    click.echo(f"next: controlplane policy review {output} --db {store.path}")
