"""The readers' results file: each experiment rewrites its own section and keeps the other's."""

from __future__ import annotations

from bench.squad2_readers import write_section


def test_each_run_rewrites_only_its_own_section(tmp_path):
    out = tmp_path / "squad2_readers.md"
    write_section(out, ["## Probe: pooled", "", "| a |", "| 1 |"])
    write_section(out, ["## Reader: fine-tuned", "", "| b |", "| 2 |"])
    write_section(out, ["## Probe: pooled", "", "| a |", "| 3 |"])
    text = out.read_text()
    assert text.startswith("# Answerability readers")
    assert text.count("## Probe: pooled") == 1 and text.count("## Reader: fine-tuned") == 1
    assert "| 3 |" in text and "| 1 |" not in text  # the probe's new figures replace its old ones
    assert "| 2 |" in text  # the reader's section is kept as it was
    assert text.index("## Probe") < text.index("## Reader")  # in the order they were first written
