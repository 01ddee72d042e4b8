"""Promotion review: stored traces replayed under the current bundle and under the candidate, every verdict that
changes counted per gate, with example traces, and regen / refusal rates before and after.

Python API mirrored by ``controlplane policy review``::

    report = run_review(store, candidate, limit=500, out_base="review-1", reviewer="ana")

The report is written as ``OUT_BASE.md`` and ``OUT_BASE.json`` and recorded in ``policy_reviews`` with the newest
trace it covered; ``policy promote`` refuses a candidate without such a review, or when a newer trace was stored
after it (the review no longer covers current traffic).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controlplane.policy_bundles.diff import diff_bundles
from controlplane.policy_bundles.lifecycle import PolicyLifecycle, current_policy
from controlplane.policy_bundles.loader import LoadedPolicy, PolicyBundleError
from controlplane.replay import UNRESOLVED, LocalReplayRunner, ReplayOptions, ReplayRunner, TraceReplay
from controlplane.traces.store import TraceStore, TraceStoreError

EXAMPLES_PER_CHANGE = 5


def _verdict_key(verdict: dict[str, Any] | None) -> str:
    return "not_run" if verdict is None else verdict["result"]


def _verdict_map(replay: TraceReplay) -> dict[tuple[str, str, int], dict[str, Any]]:
    out = {}
    for stage, entries in replay.verdicts.items():
        seen: Counter = Counter()
        for entry in entries:
            out[(stage, entry["gate_id"], seen[entry["gate_id"]])] = entry["replayed"]
            seen[entry["gate_id"]] += 1
    return out


def _rates(replays: list[TraceReplay]) -> dict[str, Any]:
    n = len(replays) or 1
    statuses = Counter(r.replayed_status for r in replays)
    return {
        "traces": len(replays),
        "regen_rate": round(sum(r.regenerated for r in replays) / n, 4),
        "refusal_rate": round(statuses.get("refused", 0) / n, 4),
        "degraded_rate": round(statuses.get("degraded", 0) / n, 4),
        "unresolved": statuses.get(UNRESOLVED, 0),
        "statuses": dict(sorted(statuses.items())),
    }


@dataclass
class ReviewReport:
    data: dict[str, Any]
    markdown: str
    md_path: Path
    json_path: Path
    review_id: int

    @property
    def summary(self) -> dict[str, Any]:
        return self.data["summary"]


def compare(baseline_runs: list[TraceReplay], candidate_runs: list[TraceReplay]) -> dict[str, Any]:
    per_gate: dict[str, Counter] = defaultdict(Counter)
    examples: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    status_changes: Counter = Counter()
    status_examples: dict[str, list[str]] = defaultdict(list)
    changed_traces = set()
    for before, after in zip(baseline_runs, candidate_runs):
        b, a = _verdict_map(before), _verdict_map(after)
        for key in sorted(set(b) | set(a)):
            vb, va = b.get(key), a.get(key)
            if vb == va:
                continue
            _, gate_id, _ = key
            transition = f"{_verdict_key(vb)}->{_verdict_key(va)}"
            if transition.split("->")[0] == transition.split("->")[1]:
                transition += " (reason codes)"
            per_gate[gate_id][transition] += 1
            changed_traces.add(before.trace_id)
            if before.trace_id not in examples[gate_id][transition] and len(examples[gate_id][transition]) < EXAMPLES_PER_CHANGE:
                examples[gate_id][transition].append(before.trace_id)
        if before.replayed_status != after.replayed_status:
            transition = f"{before.replayed_status}->{after.replayed_status}"
            status_changes[transition] += 1
            changed_traces.add(before.trace_id)
            if len(status_examples[transition]) < EXAMPLES_PER_CHANGE:
                status_examples[transition].append(before.trace_id)
    return {
        "gates": {g: {"counts": dict(sorted(c.items())), "examples": {t: v for t, v in sorted(examples[g].items())}}
                  for g, c in sorted(per_gate.items())},
        "status_changes": {"counts": dict(sorted(status_changes.items())),
                           "examples": dict(sorted(status_examples.items()))},
        "changed_traces": len(changed_traces),
    }


def render_markdown(data: dict[str, Any]) -> str:
    s = data["summary"]
    before, after = s["baseline"], s["candidate"]
    lines = [
        f"# Policy review: {data['candidate']['name']} {data['candidate']['version']}",
        "",
        f"- candidate: `{data['candidate']['hash']}`",
        f"- baseline (current): {data['baseline']['name']} {data['baseline']['version']} `{data['baseline']['hash']}`",
        (f"- traces replayed: {s['traces']} (newest: {data['coverage']['newest_trace_id']} at "
         f"{data['coverage']['newest_trace_created_at']}); traces whose verdicts change: {s['changed_traces']}"),
        f"- reviewer: {data['reviewer']}; replay errors: {len(data['errors'])}",
        "",
        "## Rates",
        "",
        "| metric | baseline | candidate |",
        "| --- | --- | --- |",
        f"| regen rate | {before['regen_rate']:.1%} | {after['regen_rate']:.1%} |",
        f"| refusal rate | {before['refusal_rate']:.1%} | {after['refusal_rate']:.1%} |",
        f"| degraded rate | {before['degraded_rate']:.1%} | {after['degraded_rate']:.1%} |",
        f"| unresolved (needs an unrecorded attempt) | {before['unresolved']} | {after['unresolved']} |",
        "",
        "## Verdict changes per gate",
        "",
    ]
    gates = data["changes"]["gates"]
    if not gates:
        lines.append("No gate verdict changes.")
    else:
        lines += ["| gate | change | count | example traces |", "| --- | --- | --- | --- |"]
        for gate_id, entry in gates.items():
            for transition, count in entry["counts"].items():
                ex = ", ".join(f"`{t}`" for t in entry["examples"].get(transition, []))
                lines.append(f"| {gate_id} | {transition} | {count} | {ex} |")
    lines += ["", "## Final status changes", ""]
    status = data["changes"]["status_changes"]
    if not status["counts"]:
        lines.append("No final status changes.")
    else:
        lines += ["| change | count | example traces |", "| --- | --- | --- |"]
        for transition, count in status["counts"].items():
            ex = ", ".join(f"`{t}`" for t in status["examples"].get(transition, []))
            lines.append(f"| {transition} | {count} | {ex} |")
    lines += ["", "## Policy diff", ""]
    if not data["policy_diff"]:
        lines.append("The bundles are identical.")
    for change in data["policy_diff"]:
        lines.append(f"- `{change['path']}` {change['change']}: `{json.dumps(change['old'])}` -> "
                     f"`{json.dumps(change['new'])}`")
    return "\n".join(lines) + "\n"


def run_review(store: TraceStore, candidate: LoadedPolicy, limit: int | None = None, out_base: str | Path | None = None,
               reviewer: str = "unknown", baseline: LoadedPolicy | None = None,
               runner: ReplayRunner | None = None, options: ReplayOptions | None = None) -> ReviewReport:
    life = PolicyLifecycle(store)
    baseline = baseline or (current_policy(store, candidate.bundle.name) if (
        life.promoted(candidate.bundle.name) or candidate.bundle.name == "default") else None)
    if baseline is None:
        from controlplane.policy_bundles.loader import load_bundle

        baseline = load_bundle()
    from controlplane.gates.registry import GateRegistry

    missing = GateRegistry().missing_gates(candidate.bundle)
    if missing:
        raise PolicyBundleError(f"candidate {candidate.hash[:19]} names gate(s) {', '.join(missing)} that no installed "
                                "plugin registers; install the plugin or remove them before a review")
    store_trace_count = life.complete_trace_count()
    rows = store.list_traces(limit=limit, complete_only=True)
    bundles, errors = [], []
    for row in rows:
        try:
            bundles.append(store.load_bundle(row["trace_id"]))
        except (TraceStoreError, ValueError) as exc:
            errors.append({"trace_id": row["trace_id"], "error": str(exc)[:300]})
    bundles.sort(key=lambda b: (b.created_at, b.trace_id))
    runner = runner or LocalReplayRunner()
    options = options or ReplayOptions()
    before = list(runner.run(bundles, baseline, options))
    after = list(runner.run(bundles, candidate, options))
    for run in (*before, *after):
        if run.error:
            errors.append({"trace_id": run.trace_id, "error": run.error})
    changes = compare(before, after)
    newest = max(((b.created_at, b.trace_id) for b in bundles), default=(None, None))
    data = {
        "format": "controlplane.policy_review/v1",
        "candidate": {"name": candidate.bundle.name, "version": candidate.bundle.version, "hash": candidate.hash},
        "baseline": {"name": baseline.bundle.name, "version": baseline.bundle.version, "hash": baseline.hash},
        "reviewer": reviewer,
        "coverage": {"traces": len(bundles), "limit": limit, "newest_trace_created_at": newest[0],
                     "newest_trace_id": newest[1]},
        "summary": {"traces": len(bundles), "changed_traces": changes["changed_traces"],
                    "baseline": _rates(before), "candidate": _rates(after)},
        "changes": changes,
        "policy_diff": diff_bundles(baseline, candidate),
        "errors": errors,
    }
    markdown = render_markdown(data)
    base = Path(out_base) if out_base else Path(f"policy-review-{candidate.hash[7:19]}")
    md_path, json_path = base.with_name(base.name + ".md"), base.with_name(base.name + ".json")
    try:
        base.parent.mkdir(parents=True, exist_ok=True)
        json_text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n"
        json_path.write_text(json_text, encoding="utf-8")
        md_path.write_text(markdown, encoding="utf-8")
    except OSError as exc:
        raise PolicyBundleError(f"cannot write the review report {base}.md/.json: {exc} (pass -o with a writable path)") from None
    review_id = life.record_review(
        candidate, baseline.hash, reviewer, len(bundles), newest[0], newest[1], str(md_path), str(json_path),
        {**data["summary"], "store_trace_count": store_trace_count, "replay_errors": len(errors),
         "report_sha256": hashlib.sha256(json_text.encode("utf-8")).hexdigest()},
    )
    return ReviewReport(data, markdown, md_path, json_path, review_id)
