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


def test_a_baseline_without_its_own_install_is_imported_whole_from_its_link_tree(tmp_path):
    """--baseline on a plain checkout (a git worktree of an older commit): every controlplane.* module, the
    subpackages too, comes from that checkout, laid out as its own pyproject.toml says, not from this environment's
    editable install of this one."""
    import subprocess
    import sys

    from bench.hardening import installed_layout

    subpackages = ("contracts", "gates", "evidence_pack", "traces", "policy_bundles")
    checkout = tmp_path / "old"
    (checkout / "controlplane").mkdir(parents=True)
    (checkout / "controlplane" / "__init__.py").write_text("WHO = 'old'\n")
    for name in subpackages:
        (checkout / name).mkdir()
        (checkout / name / "__init__.py").write_text(f"WHO = 'old {name}'\n")
    mapping = ", ".join(f'"controlplane.{name}" = "{name}"' for name in subpackages)
    (checkout / "pyproject.toml").write_text(f'[tool.setuptools]\npackage-dir = {{ "controlplane" = "controlplane", '
                                             f'{mapping} }}\n')
    tree = installed_layout(checkout, tmp_path / "tree")
    modules = ["controlplane"] + [f"controlplane.{n}" for n in subpackages]
    script = f"import {', '.join(modules)}; print({', '.join(m + '.WHO' for m in modules)}, sep='|')"
    done = subprocess.run([sys.executable, "-c", script], cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split("|") == ["old"] + [f"old {n}" for n in subpackages]
