"""The code samples of docs/embedding.md run as written (only the model and policy come from the environment, and the
OpenAI sample's base URL points at a test server)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from controlplane.pytest_plugin import GateHarness

REPO = Path(__file__).resolve().parents[2]
ANSWER = GateHarness.envelope("We host on Fly.io [E1].", claims=[("We host on Fly.io [E1].", ["E1"])],
                              domain_flags=["architecture"])


def sample(name: str) -> str:
    doc = (REPO / "docs" / "embedding.md").read_text()
    match = re.search(rf"<!-- test: {name} -->\n```python\n(.*?)\n```", doc, flags=re.DOTALL)
    assert match, f"docs/embedding.md has no sample marked {name}"
    return match.group(1)


@pytest.fixture
def environment(tmp_path, monkeypatch, core_policy):
    script = tmp_path / "answers.jsonl"
    script.write_text(json.dumps(ANSWER) + "\n")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(core_policy.bundle.model_dump(mode="json", exclude_none=True)))
    monkeypatch.setenv("CONTROLPLANE_MODEL", f"scripted:{script}")
    monkeypatch.setenv("CONTROLPLANE_POLICY", str(policy))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(code: str) -> tuple[str, dict]:
    out = io.StringIO()
    scope: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/embedding.md", "exec"), scope)  # noqa: S102 -- the test runs the guide's own samples
    return out.getvalue(), scope


def test_the_ten_line_sample_runs(environment):
    code = sample("embed")
    lines = [line for line in code.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert len(lines) <= 11  # "embed in 10 lines" (plus the import)
    output, scope = run(code)
    first = output.splitlines()[0].split()
    assert first[:2] == ["pass", "True"] and first[2].startswith("tr_")
    assert "c1 PASS (0, 23) ('E1',)" in output
    assert (environment / "traces.db").exists()
    plane = scope["plane"]
    assert plane.session_turns("user-42") == []  # ended by the sample
    assert plane.trace(first[2]).outcome.verified
    plane.close()


def test_the_openai_client_sample_runs(environment, core_policy, control_plane):
    from controlplane.server import BackgroundServer

    plane = control_plane([ANSWER], policy=core_policy)
    with BackgroundServer(plane.app()) as server:
        code = sample("openai").replace("http://127.0.0.1:8080", server.url)
        output, _ = run(code)
    lines = output.splitlines()
    assert lines[0] == "We host on Fly.io [E1]."
    assert lines[1].startswith("pass True tr_")
