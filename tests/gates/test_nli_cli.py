"""--nli-backend on `controlplane verify` / `run`: explicit names load or fail naming the option; the default
(shipped verifier, lazily) fails closed with VERIFIER_UNAVAILABLE when it cannot load."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from controlplane.cli import main
from tests.gates.decision_helpers import envelope

EVIDENCE = [{"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite).", "trust_tier": "authoritative"}]
GOOD = envelope([("We host on Fly.io [E1].", ["E1"])])


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.delenv("CONTROLPLANE_POLICY", raising=False)
    monkeypatch.setenv("CONTROLPLANE_NLI_MODEL", str(tmp_path / "no-verifier-here"))
    evidence = tmp_path / "evidence.json"
    evidence.write_text(json.dumps(EVIDENCE))
    env = tmp_path / "envelope.json"
    env.write_text(json.dumps(GOOD))
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(json.dumps(GOOD) for _ in range(3)))
    return {"evidence": evidence, "envelope": env, "script": script, "db": tmp_path / "t.db"}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.mark.parametrize("backend", [None, "none"], ids=["default-missing-weights", "none"])
def test_verify_fails_closed_without_a_verifier(files, backend):
    args = ["verify", "--evidence", files["evidence"], "--envelope", files["envelope"], "-m",
            "Where is our hosting architecture?", "--json"] + (["--nli-backend", backend] if backend else [])
    out = invoke(*args)
    assert out.exit_code == 1
    gates = {g["gate_id"]: g for g in json.loads(out.output)["gates"]}
    assert gates["nli_entailment"]["result"] == "fail"
    assert gates["nli_entailment"]["reason_codes"] == ["VERIFIER_UNAVAILABLE"]


def test_unknown_backend_name_is_a_one_line_error_naming_the_option(files):
    out = invoke("verify", "--evidence", files["evidence"], "--envelope", files["envelope"], "--nli-backend", "bogus")
    assert out.exit_code == 2
    assert "--nli-backend bogus" in out.output and "unknown NLI backend" in out.output


def test_run_with_unloadable_verifier_never_reports_verified(files):
    out = invoke("run", "-m", "Where is our hosting architecture?", "--evidence", files["evidence"], "--model",
                 f"scripted:{files['script']}", "--db", files["db"], "--json")
    data = json.loads(out.output)
    assert data["verified"] is False and data["status"] in ("degraded", "refused")
    assert "verifier was not available" in data["assistant_text"]
