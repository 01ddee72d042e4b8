"""Issue 16, "Crashes": huge integers, deep nesting and duplicate keys in every JSON that crosses a boundary.

A model output is a gate failure (INVALID_JSON), never an internal error; a file or request body is exit 2 / HTTP 400
with one line naming the problem. Everything runs through the real CLI, pipeline and HTTP server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.cli import main

HUGE_INT = "9" * 5001
DEEP = "[" * 100_000 + "]" * 100_000
# Below the interpreter's recursion limit, so json.loads succeeds, but deep enough to crash a recursive consumer.
SHALLOW_DEEP = "[" * 900 + "]" * 900
EVIDENCE = [{"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite).", "trust_tier": "authoritative"}]


def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output
    assert "internal error" not in result.output, result.output
    return result


@pytest.fixture
def env(tmp_path: Path, core_policy_file, monkeypatch):
    # Room for the whole hostile output: the probe ran with max_output_tokens 8192.
    policy = json.loads(core_policy_file.read_text())
    policy["budgets"].update(max_output_tokens=200_000, max_output_chars=1_000_000)
    core_policy_file.write_text(json.dumps(policy))
    monkeypatch.setenv("CONTROLPLANE_POLICY", str(core_policy_file))
    evidence = tmp_path / "evidence.json"
    evidence.write_text(json.dumps(EVIDENCE))
    return {"dir": tmp_path, "evidence": evidence, "db": tmp_path / "t.db", "policy": core_policy_file}


def _script(directory: Path, outputs: list[str]) -> Path:
    path = directory / "script.jsonl"
    path.write_text("\n".join(json.dumps(o) for o in outputs) + "\n")
    return path


@pytest.mark.parametrize("raw, code", [
    ('{"assistant_text": "We host on Fly.io.", "meta": {"modeLabel": ' + HUGE_INT + "}}", "INVALID_JSON"),
    ('{"assistant_text": "x", "meta": ' + DEEP + "}", "INVALID_JSON"),
    # decodable JSON, but no envelope nests 900 deep: the schema verdict (tests/adversarial/test_malformed_output.py)
    ('{"assistant_text": "x", "meta": ' + SHALLOW_DEEP + "}", "SCHEMA_VIOLATION"),
], ids=["huge-int", "deep", "deep-below-recursion-limit"])
def test_hostile_model_output_is_a_gate_failure_not_a_crash(env, raw: str, code: str):
    script = _script(env["dir"], [raw] * 3)
    out = cli("run", "-m", "Where do we host our architecture?", "--evidence", env["evidence"], "--model",
              f"scripted:{script}", "--db", env["db"], "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["status"] in ("refused", "degraded") and data["verified"] is False
    first_gate = next(g for g in data["gate_results"] if g["attempt"] == 1 and g["gate_id"] == "output_schema")
    assert first_gate["result"] == "fail" and first_gate["reason_codes"] == [code]


@pytest.mark.parametrize("content, fragment", [
    ('[{"id": "E1", "text": "t", "page": ' + HUGE_INT + "}]", "5001 digits"),
    ('[{"id": "E1", "text": "t", "x": ' + DEEP + "}]", "nests deeper"),
    ('[{"id": "E1", "text": "Fly.io", "text": "AWS"}]', "duplicate key 'text'"),
], ids=["huge-int", "deep", "duplicate-key"])
def test_hostile_evidence_file_exits_2_naming_the_problem(env, content: str, fragment: str):
    bad = env["dir"] / "bad-evidence.json"
    bad.write_text(content)
    script = _script(env["dir"], ["unused"])
    out = cli("run", "-m", "Where do we host?", "--evidence", bad, "--model", f"scripted:{script}", "--db", env["db"])
    assert out.exit_code == 2 and fragment in out.output and str(bad) in out.output
    assert len(out.output.strip().splitlines()) == 1


@pytest.mark.parametrize("edit, fragment", [
    (lambda text: text.replace('"max_claims": 64', '"max_claims": ' + HUGE_INT), "5001 digits"),
    (lambda text: text.replace('"description":', '"deep": ' + DEEP + ', "description":', 1), "nests deeper"),
    (lambda text: text.replace('"description":', '"version": "9.9.9", "description":', 1), "duplicate key 'version'"),
], ids=["huge-int", "deep", "duplicate-key"])
def test_hostile_policy_file_exits_2(env, edit, fragment: str):
    from controlplane.policy_bundles import loader

    shipped = Path(loader.__file__).with_name("default.json").read_text()
    bad = env["dir"] / "bad-policy.json"
    bad.write_text(edit(shipped))
    out = cli("policy", "validate", bad)
    assert out.exit_code == 2 and fragment in out.output and str(bad) in out.output


@pytest.mark.parametrize("line, fragment", [
    ('{"trace_id": "t", "n": ' + HUGE_INT + "}", "5001 digits"),
    ('{"trace_id": "t", "n": ' + DEEP + "}", "nests deeper"),
    ('{"trace_id": "t", "trace_id": "u"}', "duplicate key 'trace_id'"),
], ids=["huge-int", "deep", "duplicate-key"])
def test_hostile_bundle_file_exits_2_on_import_and_replay(env, line: str, fragment: str):
    bad = env["dir"] / "bad.jsonl"
    bad.write_text(line + "\n")
    for args in (("trace", "import", bad, "--db", env["db"]), ("replay", bad)):
        out = cli(*args)
        assert out.exit_code == 2 and fragment in out.output, (args, out.output)


@pytest.mark.parametrize("line, fragment", [
    ("{\"assistant_text\": " + HUGE_INT + "}", "5001 digits"),
    (DEEP, "nests deeper"),
], ids=["huge-int", "deep"])
def test_hostile_scripted_file_exits_2(env, line: str, fragment: str):
    script = env["dir"] / "hostile.jsonl"
    script.write_text(line + "\n")
    out = cli("run", "-m", "Where do we host?", "--evidence", env["evidence"], "--model", f"scripted:{script}",
              "--db", env["db"])
    assert out.exit_code == 2 and fragment in out.output
