"""Human-readable rendering of a run: the answer, a table of gate results per attempt, status and trace id."""

from __future__ import annotations

from typing import Any

SYMBOL = {"pass": "PASS", "fail": "FAIL", "skip": "skip"}


def gate_table(attempts: list[dict[str, Any]], pre: list[dict[str, Any]] | None = None) -> str:
    rows = [("attempt", "gate", "result", "reason codes", "ms")]
    for gate in pre or []:
        rows.append(("pre", gate["gate_id"], SYMBOL[gate["result"]], ",".join(gate["reason_codes"]) or "-",
                     f"{gate['latency_ms']:.2f}"))
    for attempt in attempts:
        for gate in attempt["gates"]:
            rows.append((str(attempt["attempt"]), gate["gate_id"], SYMBOL[gate["result"]],
                         ",".join(gate["reason_codes"]) or "-", f"{gate['latency_ms']:.2f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def attempts_of(gate_results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``Response.as_json()["gate_results"]`` (one flat list, each with its attempt) grouped per attempt."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    for gate in gate_results:
        if gate.get("attempt") is not None:
            grouped.setdefault(gate["attempt"], []).append(gate)
    return [{"attempt": attempt, "gates": gates} for attempt, gates in sorted(grouped.items())]


def render_run(data: dict[str, Any], db_path: str | None, sources: str = "") -> str:
    decision = data["mode_decision"]
    out = [
        data["assistant_text"],
        *([sources] if sources else []),
        "",
        f"mode: {decision['modeLabel']}  domains: {', '.join(decision['domainFlags']) or '-'}  "
        f"rigor: {decision['rigorConfig']['level']}  confidence: {decision['confidence']:.2f}",
        "",
        gate_table(attempts_of(data["gate_results"]), data.get("pre_generation_gates")),
        "",
        *_verification_lines(data.get("verification") or {}),
        f"status: {data['status']}  verified: {'yes' if data['verified'] else 'no'}  attempts: {data['attempts']}",
        f"trace: {data['trace_id']}",
        f"  show it: controlplane trace show {data['trace_id']}" + (f" --db {db_path}" if db_path else ""),
    ]
    return "\n".join(out)


def _verification_lines(verification: dict[str, Any]) -> list[str]:
    """EBOM: show confidence when it is below 0.8, and every staleness or sphere warning."""
    lines = []
    confidence = verification.get("confidence") or {}
    if confidence.get("display"):
        lines.append(confidence["display"])
    lines.extend(f"warning: {w}" for w in verification.get("warnings", []))
    realtime = verification.get("realtime")
    if realtime:  # EBOM real-time query handling: the retrieval timestamp, what was stale, what was refreshed
        lines.append(f"time-sensitive query ({', '.join(realtime.get('keywords') or [])}): evidence retrieved at "
                     f"{realtime.get('retrieved_at') or 'an unknown time'}; {len(realtime.get('stale') or [])} stale "
                     f"item(s); re-retrieval: {realtime.get('refresh')}")
        lines.extend(f"liminal: {x['id']}: {x['reason']}" for x in realtime.get("liminal") or [])
    return lines + ([""] if lines else [])
