"""`./run help` (the README's pointer for "any other command") prints the script's usage, not its code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _help(venv: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CONTROLPLANE_VENV": str(venv)}
    return subprocess.run(["bash", str(REPO / "run"), "help"], capture_output=True, text=True, env=env, timeout=60)


def test_help_prints_the_usage_and_no_line_of_the_script(tmp_path: Path):
    result = _help(tmp_path / "no-venv")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("The project's one entry point.")
    assert "./run test [pytest args]" in result.stdout
    assert "set -euo pipefail" not in result.stdout  # found by QA: the usage ended with the script's first line


def test_help_lists_the_controlplane_commands_once_installed():
    result = _help(Path(sys.executable).parent.parent)
    assert result.returncode == 0, result.stderr
    assert "Commands:" in result.stdout and "reverify" in result.stdout and "serve" in result.stdout
