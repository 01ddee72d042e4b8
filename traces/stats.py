"""Operating figures over the trace store (seed §10): regen rate, top failing gates and reason codes, UNKNOWN rate,
citation density, refusal rate; plus feedback tags and critic findings. ``controlplane stats`` mirrors
``compute_stats`` and can draw them as a PNG (``render_png``: a dependency-free PNG writer with a 3x5 bitmap font,
because the venv has no plotting library and nothing may be downloaded).

Definitions (per complete trace: status pass, regen_pass, degraded or refused):

* regen rate: traces that needed more than one model attempt;
* refusal rate / degraded rate: traces whose final status is refused / degraded;
* top failing gates / reason codes: failing GateResults over all attempts (a gate failing on 3 attempts counts 3);
* UNKNOWN rate: claims labelled UNKNOWN among all claims of the final attempts;
* citation density: FACTUAL claims of the final attempts that carry evidence ids, among all FACTUAL claims.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

from .store import TraceStore

COMPLETE = ("pass", "regen_pass", "degraded", "refused")


def compute_stats(store: TraceStore, since: str | None = None, top: int = 8) -> dict[str, Any]:
    where = "status IN ('pass','regen_pass','degraded','refused')" + (" AND created_at >= ?" if since else "")
    params = [since] if since else []
    rows = list(store.db.query(f"SELECT trace_id, status, attempt_count FROM traces WHERE {where}", params))
    ids = [r["trace_id"] for r in rows]
    total = len(rows)
    statuses = Counter(r["status"] for r in rows)
    gate_fails: Counter = Counter()
    reason_codes: Counter = Counter()
    claims = unknown = factual = cited = 0
    for chunk_start in range(0, len(ids), 500):
        chunk = ids[chunk_start:chunk_start + 500]
        marks = ",".join("?" * len(chunk))
        for g in store.db.query(f"SELECT gate_id, reason_codes FROM gate_results WHERE result = 'fail' AND trace_id IN ({marks})",
                                chunk):
            gate_fails[g["gate_id"]] += 1
            reason_codes.update(json.loads(g["reason_codes"] or "[]"))
        for a in store.db.query(
            f"SELECT r.envelope FROM regen_attempts r JOIN traces t ON t.trace_id = r.trace_id "
            f"WHERE r.attempt = t.attempt_count AND r.trace_id IN ({marks})", chunk
        ):
            envelope = json.loads(a["envelope"]) if a["envelope"] else None
            claim_map = ((envelope or {}).get("meta") or {}).get("claim_map") or []
            for claim in claim_map if isinstance(claim_map, list) else []:
                if not isinstance(claim, dict):
                    continue
                claims += 1
                status = claim.get("status", "FACTUAL")
                unknown += status == "UNKNOWN"
                if status == "FACTUAL":
                    factual += 1
                    cited += bool(claim.get("evidence_ids"))
    feedback = Counter(r[0] for r in store.db.execute(
        "SELECT label FROM human_feedback" + (" WHERE created_at >= ?" if since else ""), params))
    findings = Counter(f"{r[0]}:{r[1]}" for r in store.db.execute(
        "SELECT status, type FROM critic_findings" + (" WHERE created_at >= ?" if since else ""), params))

    def rate(n: int, d: int) -> float | None:
        return round(n / d, 4) if d else None

    return {
        "since": since,
        "traces": total,
        "statuses": dict(sorted(statuses.items())),
        "regen_rate": rate(sum(1 for r in rows if (r["attempt_count"] or 0) > 1), total),
        "refusal_rate": rate(statuses.get("refused", 0), total),
        "degraded_rate": rate(statuses.get("degraded", 0), total),
        "unknown_rate": rate(unknown, claims),
        "citation_density": rate(cited, factual),
        "claims": claims,
        "top_failing_gates": gate_fails.most_common(top),
        "top_reason_codes": reason_codes.most_common(top),
        "feedback_tags": dict(feedback.most_common()),
        "critic_findings": dict(sorted(findings.items())),
    }


def render_table(stats: dict[str, Any]) -> str:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    lines = [f"traces: {stats['traces']}" + (f" since {stats['since']}" if stats["since"] else "")
             + "  (" + ", ".join(f"{k}: {v}" for k, v in stats["statuses"].items()) + ")",
             "", f"{'metric':<20} value", f"{'-' * 20} -----"]
    for label, key in (("regen rate", "regen_rate"), ("refusal rate", "refusal_rate"), ("degraded rate", "degraded_rate"),
                       ("UNKNOWN rate", "unknown_rate"), ("citation density", "citation_density")):
        lines.append(f"{label:<20} {pct(stats[key])}")
    for title, key in (("top failing gates", "top_failing_gates"), ("top reason codes", "top_reason_codes")):
        lines += ["", title + ":"] + [f"  {name:<32} {count}" for name, count in stats[key]] + (
            ["  (none)"] if not stats[key] else [])
    if stats["feedback_tags"]:
        lines += ["", "feedback tags: " + ", ".join(f"{k}: {v}" for k, v in stats["feedback_tags"].items())]
    if stats["critic_findings"]:
        lines += ["critic findings: " + ", ".join(f"{k}: {v}" for k, v in stats["critic_findings"].items())]
    return "\n".join(lines)


# -- a small PNG chart --------------------------------------------------------------------------------------------
_FONT = {
    "A": "010101111101101", "B": "110101110101110", "C": "011100100100011", "D": "110101101101110",
    "E": "111100110100111", "F": "111100110100100", "G": "011100101101011", "H": "101101111101101",
    "I": "111010010010111", "J": "001001001101010", "K": "101101110101101", "L": "100100100100111",
    "M": "101111111101101", "N": "110101101101101", "O": "010101101101010", "P": "110101110100100",
    "Q": "010101101110011", "R": "110101110101101", "S": "011100010001110", "T": "111010010010010",
    "U": "101101101101111", "V": "101101101101010", "W": "101101111111101", "X": "101101010101101",
    "Y": "101101010010010", "Z": "111001010100111", "0": "111101101101111", "1": "010110010010111",
    "2": "110001010100111", "3": "110001010001110", "4": "101101111001001", "5": "111100110001110",
    "6": "011100111101111", "7": "111001010010010", "8": "111101111101111", "9": "111101111001110",
    " ": "000000000000000", ".": "000000000000010", "%": "101001010100101", "-": "000000111000000",
    "_": "000000000000111", ":": "000010000010000", "/": "001001010100100", ">": "100010001010100",
    "(": "010100100100010", ")": "010001001001010", ",": "000000000010100", "=": "000111000111000",
}
SCALE = 2
CHAR_W = 4 * SCALE
WIDTH = 720
ROW = 9 * SCALE + 6
BG, FG, BAR, BAR2, GRID = (255, 255, 255), (30, 30, 30), (52, 101, 164), (204, 102, 51), (225, 225, 225)


class _Canvas:
    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(BG) * width * height)

    def rect(self, x: int, y: int, w: int, h: int, color: tuple[int, int, int]) -> None:
        for yy in range(max(0, y), min(self.height, y + h)):
            start = (yy * self.width + max(0, x)) * 3
            end = (yy * self.width + min(self.width, x + w)) * 3
            if end > start:
                self.pixels[start:end] = bytes(color) * ((end - start) // 3)

    def text(self, x: int, y: int, value: str, color: tuple[int, int, int] = FG) -> None:
        for index, ch in enumerate(value.upper()):
            glyph = _FONT.get(ch, _FONT["-"] if ch not in " " else _FONT[" "])
            for bit, on in enumerate(glyph):
                if on == "1":
                    row, col = divmod(bit, 3)
                    self.rect(x + index * CHAR_W + col * SCALE, y + row * SCALE, SCALE, SCALE, color)

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.pixels[r * self.width * 3:(r + 1) * self.width * 3])
                       for r in range(self.height))

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def render_png(stats: dict[str, Any], path: str | Path) -> Path:
    rates = [("REGEN RATE", stats["regen_rate"]), ("REFUSAL RATE", stats["refusal_rate"]),
             ("DEGRADED RATE", stats["degraded_rate"]), ("UNKNOWN RATE", stats["unknown_rate"]),
             ("CITATION DENSITY", stats["citation_density"])]
    gates = stats["top_failing_gates"]
    codes = stats["top_reason_codes"]
    rows = 2 + len(rates) + 2 + max(1, len(gates)) + 2 + max(1, len(codes))
    canvas = _Canvas(WIDTH, 16 + rows * ROW)
    bar_x = 26 * CHAR_W + 16
    bar_max = WIDTH - bar_x - 8 * CHAR_W
    y = 10
    canvas.text(8, y, f"CONTROLPLANE STATS: {stats['traces']} TRACES" + (f" SINCE {stats['since'][:10]}" if stats["since"] else ""))
    y += 2 * ROW

    def bars(items: list[tuple[str, float | None]], scale: float, color, fmt) -> int:
        nonlocal y
        if not items:
            canvas.text(8, y, "(NONE)")
            y += ROW
        for label, value in items:
            canvas.text(8, y, label[:26])
            canvas.rect(bar_x, y - 2, bar_max, 9 * SCALE - 4, GRID)
            if value:
                canvas.rect(bar_x, y - 2, max(1, int(bar_max * min(1.0, value / scale))), 9 * SCALE - 4, color)
            canvas.text(bar_x + bar_max + 6, y, fmt(value))
            y += ROW
        return y

    bars(rates, 1.0, BAR, lambda v: "-" if v is None else f"{v:.0%}")
    y += ROW // 2
    canvas.text(8, y, "TOP FAILING GATES (FAILS PER ATTEMPT)")
    y += ROW
    top = max([c for _, c in gates] + [1])
    bars([(g, c) for g, c in gates], top, BAR2, lambda v: str(v))
    y += ROW // 2
    canvas.text(8, y, "TOP REASON CODES")
    y += ROW
    top = max([c for _, c in codes] + [1])
    bars([(c, n) for c, n in codes], top, BAR2, lambda v: str(v))
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(canvas.png())
    return target
