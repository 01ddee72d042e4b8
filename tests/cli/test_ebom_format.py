"""`--format ebom` on run, ask and verify: the EBOM structured response, valid against its JSON Schema."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from controlplane.cli import main
from controlplane.contracts.schemas import validate_instance
from tests.gates.test_reasoning_chain import MEDIUM_Q, RAIN, RAIN_PREMISES, envelope_for, step

CHAIN = [*RAIN_PREMISES, step("Therefore heavy rain contributes to delays on bus route 4 [E1, E2].", ["c1", "c2"],
                              "transitive", ["E1", "E2"])]


@pytest.fixture
def files(tmp_path, core_policy_file, monkeypatch):
    monkeypatch.setenv("CONTROLPLANE_POLICY", str(core_policy_file))  # no NLI model: the deterministic gates
    evidence = tmp_path / "evidence.json"
    evidence.write_text(json.dumps(RAIN))
    good = envelope_for(MEDIUM_Q, CHAIN)
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps(good) + "\n")
    envelope = tmp_path / "envelope.json"
    envelope.write_text(json.dumps(good))
    return {"evidence": evidence, "script": script, "envelope": envelope, "db": tmp_path / "t.db"}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def document(out) -> dict:
    data = json.loads(out.stdout)
    assert validate_instance("EbomDocument", data) == [], data
    return data


def test_run_format_ebom(files):
    out = invoke("run", "--message", MEDIUM_Q, "--evidence", files["evidence"], "--model",
                 f"scripted:{files['script']}", "--db", files["db"], "--format", "ebom")
    assert out.exit_code == 0, out.output
    doc = document(out)
    assert doc["metadata"]["verification_method"] == "none"  # this policy runs no NLI gate
    assert [s["output"] for s in doc["response"]["reasoning_chain"]] == ["c3"]
    # the same trace, stored, renders the same document
    shown = json.loads(invoke("trace", "show", doc["metadata"]["trace_id"], "--db", files["db"], "--json").output)
    assert shown["trace_id"] == doc["metadata"]["trace_id"]


def test_ask_format_ebom(files):
    out = invoke("ask", MEDIUM_Q, "--evidence", files["evidence"], "--model", f"scripted:{files['script']}",
                 "--db", files["db"], "--format", "ebom")
    assert out.exit_code == 0, out.output
    assert document(out)["response"]["answer"].startswith("Heavy rain causes flooding")


def test_verify_format_ebom_keeps_the_exit_code(files, default_policy, tmp_path):
    out = invoke("verify", "--envelope", files["envelope"], "--evidence", files["evidence"], "--message", MEDIUM_Q,
                 "--format", "ebom")
    doc = document(out)
    assert out.exit_code == 0 and doc["metadata"]["verification_status"] == "PASSED"
    # the core gates do not include reasoning_chain: the step is shown as not checked, never as VALID
    assert doc["response"]["reasoning_chain"][0]["validity"] == "UNCERTAIN"

    data = default_policy.bundle.model_dump(mode="json", exclude_none=True)
    data["gates"].append({"gate_id": "reasoning_chain", "when": {"always": True}})
    with_chain = tmp_path / "with-chain.json"
    with_chain.write_text(json.dumps(data))
    out = invoke("verify", "--envelope", files["envelope"], "--evidence", files["evidence"], "--message", MEDIUM_Q,
                 "--policy", with_chain, "--format", "ebom")
    doc = document(out)
    # no claim verifier in this policy: no premise claim was verified, so the step is PREMISE_UNVERIFIED
    assert out.exit_code == 1 and doc["metadata"]["verification_status"] == "FAILED"
    assert doc["response"]["reasoning_chain"][0]["reason_codes"] == ["PREMISE_UNVERIFIED"]


def test_format_json_is_the_json_output(files):
    out = invoke("run", "--message", MEDIUM_Q, "--evidence", files["evidence"], "--model",
                 f"scripted:{files['script']}", "--db", files["db"], "--format", "json")
    assert {"trace_id", "status", "claims"} <= set(json.loads(out.output))
    bad = CliRunner().invoke(main, ["run", "--message", "x", "--format", "yaml"])
    assert bad.exit_code == 2 and "yaml" in bad.output
