"""What failed, attempt by attempt: a refusal names the claims and gates that failed across every attempt, not only
the last attempt's codes (issue 15, G-5). Claims are named by id and reason, never by their unverified text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controlplane.contracts import AttemptRecord, FinishReason, TraceStatus

# When no attempt got an answer from the model (a server that is down, a script that ran out), "EMPTY_OUTPUT" alone
# reads as if the model had answered with nothing. The error itself stays in the trace (model_call events): an
# OpenAI-compatible server's error text is not ours to show.
MODEL_NEVER_ANSWERED = ("[The model did not answer on any attempt: its calls failed (the trace's model_call events "
                        "say why, e.g. `controlplane trace show TRACE_ID`).]")


def failures_across_attempts(records: Sequence[AttemptRecord]) -> list[dict[str, Any]]:
    rows = []
    for record in records:
        for gate in record.gate_results:
            if not gate.failed:
                continue
            claims = {str(cid): list(codes) for cid, codes in (gate.details.get("claims") or {}).items()}
            rows.append({"attempt": record.attempt, "gate_id": gate.gate_id,
                         "reason_codes": [c.value for c in gate.reason_codes], "claims": claims})
    return rows


def describe(rows: Sequence[dict[str, Any]], attempts: int) -> str:
    """One line per attempt: the gates that failed, their codes and the claims they failed."""
    if not rows:
        return ""
    lines = [f"What failed across the {attempts} attempt{'s' if attempts != 1 else ''}:"]
    for attempt in sorted({r["attempt"] for r in rows}):
        parts = []
        for row in (r for r in rows if r["attempt"] == attempt):
            plural = "s" if len(row["claims"]) > 1 else ""
            claims = f" on claim{plural} {', '.join(row['claims'])}" if row["claims"] else ""
            parts.append(f"{row['gate_id']} ({', '.join(row['reason_codes'])}{claims})")
        lines.append(f"- attempt {attempt}: " + "; ".join(parts) + ".")
    return "\n".join(lines)


def with_failure_history(outcome: Any, records: Sequence[AttemptRecord]) -> Any:
    """Record every attempt's failures on the degrade record; a refusal also says them."""
    rows = failures_across_attempts(records)
    outcome.record["failures_by_attempt"] = rows
    if outcome.status is TraceStatus.REFUSED and rows:
        outcome.assistant_text = outcome.assistant_text.rstrip() + "\n" + describe(rows, len(records))
    if outcome.status is TraceStatus.REFUSED and records and all(r.finish_reason is FinishReason.ERROR
                                                                 for r in records):
        outcome.record["model_never_answered"] = True
        outcome.assistant_text = outcome.assistant_text.rstrip() + "\n" + MODEL_NEVER_ANSWERED
    return outcome
