"""The hardening report says how fast its machine was, so that figures from different machines can be compared."""

from __future__ import annotations

import json
from pathlib import Path

from bench.hardening import cpu_reference_ms, render_markdown

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results" / "hardening.json"


def test_the_cpu_reference_is_a_positive_time_in_ms() -> None:
    measured = cpu_reference_ms(runs=2)
    assert isinstance(measured, float)
    assert 0 < measured < 10_000


def test_the_report_names_the_cpu_reference_of_its_machine() -> None:
    report = json.loads(RESULTS.read_text(encoding="utf-8"))
    reference = report["machine"]["cpu_reference_ms"]
    assert f"CPU reference (`cpu_reference_ms`, a fixed pure-Python workload; it compares machines): {reference} ms" \
        in render_markdown(report)


def test_a_report_from_before_the_reference_says_it_was_not_measured() -> None:
    report = json.loads(RESULTS.read_text(encoding="utf-8"))
    del report["machine"]["cpu_reference_ms"]
    assert "it compares machines): not measured. Wall time" in render_markdown(report)
