"""With CI=true a missing chromium fails the run instead of skipping the viewer's browser test (issue 16)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _browser_tests(env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "CONTROLPLANE_CHROMIUM": "/nonexistent/chromium", **env_extra}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-x",
                           str(REPO / "tests" / "viewer" / "test_browser.py")],
                          capture_output=True, text=True, env=env, timeout=600, cwd=REPO)


def test_ci_true_fails_when_the_browser_is_missing():
    result = _browser_tests({"CI": "true"})
    assert result.returncode == 1, result.stdout[-2000:]
    assert "CI=true requires the viewer's browser test" in result.stdout and "/nonexistent/chromium" in result.stdout


def test_outside_ci_a_missing_browser_skips_and_says_why():
    result = _browser_tests({"CI": ""})
    assert result.returncode == 0, result.stdout[-2000:]
    assert "skipped" in result.stdout and "passed" not in result.stdout


def test_the_run_script_stops_a_ci_run_without_a_browser(tmp_path: Path):
    """`./run test` under CI=true, on a machine without chromium that cannot install it (not root here: PATH has
    no apt-get and the id command says 1000), exits 1 before pytest runs."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "id").write_text("#!/bin/sh\necho 1000\n")
    (fake_bin / "id").chmod(0o755)
    script = (REPO / "run").read_text()
    start = script.index("ensure_browser() {")
    end = script.index("\n}\n", start) + 3
    probe = tmp_path / "probe.sh"
    probe.write_text("say() { printf '%s\\n' \"$*\" >&2; }\n" + script[start:end].replace("/usr/bin/chromium",
                                                                                            str(tmp_path / "none"))
                     + "ensure_browser\necho reached-tests\n")
    env = {"PATH": f"{fake_bin}:/usr/bin:/bin", "CI": "true"}
    result = subprocess.run(["bash", str(probe)], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 1 and "reached-tests" not in result.stdout
    assert "CI=true" in result.stderr
    relaxed = subprocess.run(["bash", str(probe)], capture_output=True, text=True, env={**env, "CI": ""}, timeout=60)
    assert relaxed.returncode == 0 and "reached-tests" in relaxed.stdout and "will skip" in relaxed.stderr
