"""`controlplane stats`: the seed's section-10 figures from real traces, as a table, JSON and a PNG."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

from click.testing import CliRunner

from controlplane.cli import main
from controlplane.traces.stats import compute_stats


def test_figures_from_the_recorded_flows(flows):
    store, ids = flows
    store.add_feedback(ids["degraded"], "too_cautious")
    figures = compute_stats(store)
    assert figures["traces"] == 5
    assert figures["statuses"] == {"degraded": 1, "pass": 1, "refused": 2, "regen_pass": 1}
    assert figures["regen_rate"] == 0.6 and figures["refusal_rate"] == 0.4 and figures["degraded_rate"] == 0.2
    assert figures["unknown_rate"] == 0.0
    assert figures["citation_density"] == 0.8  # 4 of the 5 FACTUAL claims in final answers carry evidence ids
    gates = dict(figures["top_failing_gates"])
    assert gates["evidence_binding"] == 7  # 1 (prose, precondition) + 3 (degraded) + 3 (spoofed id)
    assert figures["top_failing_gates"][0][0] == "evidence_binding"
    assert dict(figures["top_reason_codes"])["UNCITED_CLAIM"] == 3
    assert figures["feedback_tags"] == {"too_cautious": 1}
    assert compute_stats(store, since="2999-01-01")["traces"] == 0


def test_stats_cli_prints_a_table_and_writes_a_png(flows, tmp_path: Path):
    store, _ = flows
    png = tmp_path / "chart.png"
    result = CliRunner().invoke(main, ["stats", "--db", str(store.path), "--png", str(png)])
    assert result.exit_code == 0, result.output
    assert "regen rate           60.0%" in result.output and "evidence_binding" in result.output
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width == 720 and height > 200
    idat = data[data.index(b"IDAT") + 4: data.index(b"IEND") - 8]
    assert len(zlib.decompress(idat)) == height * (1 + width * 3)
    as_json = json.loads(CliRunner().invoke(main, ["stats", "--db", str(store.path), "--json"]).output)
    assert as_json["refusal_rate"] == 0.4 and as_json["png"] is None
