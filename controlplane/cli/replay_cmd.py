"""`controlplane replay BUNDLE.jsonl`: re-run router and gates on recorded outputs, without any model call.

Mirrors ``controlplane.replay.replay_bundles``. Exit codes: 0 reproduced (or, with --policy, changes listed);
1 a recorded verdict did not reproduce under the recorded policy (or --strict and the candidate changes something);
2 bad input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .common import InputError, emit_json, json_option


def _fmt(verdict) -> str:
    if verdict is None:
        return "(not run)"
    codes = ",".join(verdict["reason_codes"])
    return verdict["result"] + (f" [{codes}]" if codes else "")


@click.command("replay")
@click.argument("bundle_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--policy", "policy_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Candidate policy bundle; default: each trace's recorded policy (a determinism check).")
@click.option("--gate", "gate_id", default=None, help="Step through one gate: run only it, print its inputs.")
@click.option("--trace", "trace_filter", multiple=True, help="Replay only these trace ids from the file.")
@click.option("--strict", is_flag=True, help="With --policy: exit 1 when the candidate changes any verdict.")
@click.option("--nli-backend", "nli_backend", default=None,
              help="NLI backend for nli_entailment (shipped, transformers:PATH, none). Default: as recorded -- none "
                   "when the trace ran without one, else the policy's backend.")
@json_option
@click.option("--index", "index_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Vector index the traces retrieved from: say which traces' collections have changed since "
                   "(state_root), since the replay uses the chunks the trace recorded.")
def replay_command(bundle_file: Path, policy_path: Path | None, gate_id: str | None, trace_filter: tuple[str, ...],
                   strict: bool, nli_backend: str | None, as_json: bool, index_dir: Path | None = None) -> None:
    """Replay a trace bundle gate by gate under its recorded policy, or under a candidate (--policy)."""
    from controlplane.policy_bundles.lifecycle import load_checked
    from controlplane.policy_bundles.loader import PolicyBundleError
    from controlplane.replay import ReplayOptions, replay_bundles
    from controlplane.traces.bundles import BundleError, read_bundles

    try:
        bundles = read_bundles(bundle_file)
        policy = load_checked(policy_path) if policy_path else None
    except (BundleError, PolicyBundleError) as exc:
        raise InputError(str(exc)) from None
    if trace_filter:
        wanted = set(trace_filter)
        bundles = [b for b in bundles if b.trace_id in wanted]
        missing = wanted - {b.trace_id for b in bundles}
        if missing:
            raise InputError(f"trace(s) {', '.join(sorted(missing))} are not in {bundle_file}")
    backend = None
    if nli_backend:
        from controlplane.services import resolve_nli_backend

        backend = resolve_nli_backend(nli_backend, policy.bundle if policy else None)
    report = replay_bundles(bundles, policy, ReplayOptions(gate=gate_id, nli_backend=backend))
    substrate: dict[str, list] = {}
    if index_dir is not None:
        from controlplane.substrate import substrate_changes

        substrate = {b.trace_id: changes for b in bundles if (changes := substrate_changes(b, index_dir))}
    determinism = policy is None or all(t.recorded_policy_hash == policy.hash for t in report.traces)
    changed = bool(report.differences) or bool(report.errors)
    code = 1 if (report.errors or (changed and (determinism or strict))) else 0
    if as_json:
        data = report.as_json()
        data["mode"] = "determinism" if determinism else "candidate"
        data["seconds"] = round(report.seconds, 4)
        data["exit_code"] = code
        if index_dir is not None:
            data["substrate_changes"] = {tid: [c.as_json() for c in changes] for tid, changes in substrate.items()}
        emit_json(data)
        sys.exit(code)

    rate = len(report.traces) / report.seconds if report.seconds > 0 else float("inf")
    mode = "the recorded policy" if determinism else f"candidate {policy.bundle.name} {policy.bundle.version} ({policy.hash[:19]})"
    click.echo(f"replayed {len(report.traces)} trace(s) from {bundle_file} under {mode} in {report.seconds:.3f} s "
               f"({rate:.0f} traces/s), no model calls")
    for trace in report.traces:
        if trace.error:
            click.echo(f"{trace.trace_id}  ERROR: {trace.error}")
            continue
        state = "reproduced" if trace.reproduced else ("DIFFERS" if determinism else "changes")
        click.echo(f"{trace.trace_id}  {trace.recorded_status} -> {trace.replayed_status}  {state}")
        for difference in trace.differences:
            click.echo("    " + difference.line())
        for item in trace.could_not_run:
            click.echo(f"    attempt {item['attempt']} gate {item['gate_id']}: could not run (evidence text redacted); "
                       f"recorded {_fmt(item['recorded'])} kept")
        for note in trace.notes:
            click.echo(f"    note: {note}")
        for change in substrate.get(trace.trace_id, []):
            click.echo(f"    {change.line()}")
        for step in trace.steps:
            where = "pre-generation" if step.attempt is None else f"attempt {step.attempt}"
            click.echo(f"  -- {where}  gate {step.gate_id}")
            inputs = step.inputs
            click.echo(f"     mode decision: {json.dumps(inputs['mode_decision'])}")
            click.echo(f"     planned: runs={inputs['planned']['runs']} ({inputs['planned']['why']}); "
                       f"when={json.dumps(inputs['when'])}; params={json.dumps(inputs['params'])}")
            click.echo("     pack: " + (", ".join(f"{p['id']}{'(redacted)' if p['redacted'] else ''}"
                                                   for p in inputs["pack"]) or "(empty)"))
            if inputs.get("parse_failure"):
                click.echo(f"     parse failure: {inputs['parse_failure']}")
            for claim in inputs["envelope_claims"]:
                click.echo(f"     claim {claim['claim_id']} {claim['status']} ids={claim['evidence_ids']}: "
                           f"{claim['text'][:100]!r}")
            click.echo(f"     recorded: {_fmt(step.recorded)}   replayed: {_fmt(step.replayed)}")
            if step.details:
                click.echo(f"     details: {json.dumps(step.details, sort_keys=True)[:600]}")
    total = len(report.differences)
    if report.errors:
        click.echo(f"{len(report.errors)} trace(s) could not be replayed (see ERROR lines)")
    if determinism:
        click.echo("all recorded verdicts reproduced" if not changed else
                   "replay incomplete" if not total else
                   f"{total} difference(s) from the recorded verdicts in "
                   f"{sum(1 for t in report.traces if not t.reproduced)} trace(s)")
    else:
        click.echo(f"{total} verdict change(s) under the candidate in "
                   f"{sum(1 for t in report.traces if t.differences)} trace(s)")
    sys.exit(code)
