"""The pytest plugin's fixtures, used on our own built-in gates, and the plugin's registration by entry point."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from controlplane import BaseGate, CostClass
from controlplane.adapters.scripted import ScriptedModel
from controlplane.pytest_plugin import GateCheck, GateHarness
from controlplane.traces.store import TraceStore

EVIDENCE = [{"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite)."}]
QUESTION = "What is our hosting architecture?"


def test_evidence_binding_flags_an_uncited_factual_claim(gate_harness):
    envelope = gate_harness.envelope("We host on Fly.io.", claims=[("We host on Fly.io.", [])])
    check = gate_harness.run("evidence_binding", envelope, EVIDENCE, message=QUESTION)
    check.assert_fail("UNCITED_CLAIM").assert_claim("c1", "UNCITED_CLAIM")


def test_evidence_binding_flags_an_id_that_is_not_in_the_pack(gate_harness):
    envelope = gate_harness.envelope("We host on Fly.io [E7].", claims=[("We host on Fly.io [E7].", ["E7"])])
    gate_harness.run("evidence_binding", envelope, EVIDENCE, message=QUESTION).assert_fail("UNKNOWN_EVIDENCE_ID")


def test_evidence_binding_passes_a_cited_claim_and_an_unknown_one(gate_harness):
    envelope = gate_harness.envelope(
        "We host on Fly.io [E1]. The budget is not in the evidence.",
        claims=[("We host on Fly.io [E1].", ["E1"]), ("The budget is not in the evidence.", [], "UNKNOWN")],
    )
    gate_harness.run("evidence_binding", envelope, EVIDENCE, message=QUESTION).assert_pass()


def test_claim_anchors_flags_a_claim_that_is_not_in_the_text(gate_harness):
    envelope = gate_harness.envelope("We host on Fly.io [E1].", claims=[("We host on Heroku [E1].", ["E1"])])
    gate_harness.run("claim_anchors", envelope, EVIDENCE, message=QUESTION).assert_fail("CLAIM_NOT_IN_TEXT")


def test_mode_echo_match_compares_with_the_router_decision(gate_harness):
    wrong = gate_harness.envelope("We host on Fly.io [E1].", claims=[("We host on Fly.io [E1].", ["E1"])],
                                  mode="Ida")
    gate_harness.run("mode_echo_match", wrong, EVIDENCE, message=QUESTION).assert_fail("MODE_MISMATCH", only=True)
    decision = gate_harness.decision(QUESTION).model_dump()
    decision["modeLabel"] = "Ida"
    gate_harness.run("mode_echo_match", wrong, EVIDENCE, mode=decision).assert_pass()


def test_output_schema_fails_prose_and_broken_json(gate_harness):
    gate_harness.run("output_schema", raw_output="We host on Fly.io.").assert_fail()
    check = gate_harness.run("output_schema", raw_output='{"assistant_text": "We host')
    check.assert_fail()
    assert check.codes & {"INVALID_JSON", "TRUNCATED_OUTPUT"}


def test_retrieval_required_without_a_retriever_fails_closed(gate_harness):
    check = gate_harness.run("retrieval_required", message="What does our runbook say about on-call?")
    check.assert_fail("RETRIEVAL_REQUIRED", "RETRIEVER_UNAVAILABLE")


def test_a_gate_that_raises_is_a_fail_with_gate_error_as_in_production(gate_harness):
    class Crashing(BaseGate):
        gate_id = "crashing"
        cost_class = CostClass.CHEAP

        def evaluate(self, inp):
            raise RuntimeError("boom")

    check = gate_harness.run(Crashing(), gate_harness.envelope("Hi."))
    check.assert_fail("GATE_ERROR", only=True)
    assert "boom" in check.details["error"]


def test_respect_when_applies_the_policy_condition(gate_harness):
    envelope = gate_harness.envelope("Tighter text.", claims=[("Tighter text.", [])], mode="Ida")
    message = "Rewrite this paragraph to tighten it."
    assert gate_harness.run("evidence_binding", envelope, message=message).outcome != "skip"
    gate_harness.run("evidence_binding", envelope, message=message, respect_when=True).assert_skip(
        "SKIPPED_BY_POLICY")


def test_the_assertion_helpers_fail_when_they_should(gate_harness):
    envelope = gate_harness.envelope("We host on Fly.io.", claims=[("We host on Fly.io.", [])])
    check = gate_harness.run("evidence_binding", envelope, EVIDENCE, message=QUESTION)
    assert isinstance(check, GateCheck) and check.outcome == "fail"
    with pytest.raises(AssertionError, match="expected evidence_binding to pass"):
        check.assert_pass()
    with pytest.raises(AssertionError, match="missing reason code"):
        check.assert_fail("MODE_MISMATCH")
    with pytest.raises(AssertionError, match="expected exactly"):
        check.assert_fail(only=True)
    with pytest.raises(AssertionError, match="claim c9"):
        check.assert_claim("c9", "UNCITED_CLAIM")
    with pytest.raises(LookupError, match="no gate 'nosuch'"):
        gate_harness.run("nosuch", envelope)
    with pytest.raises(TypeError):
        gate_harness.run(object(), envelope)


def test_scripted_model_trace_store_and_control_plane(scripted_model, trace_store, control_plane, core_policy,
                                                      tmp_path):
    model = scripted_model(["first", {"output": "x", "purpose": "selector"}])
    assert isinstance(model, ScriptedModel) and model.path.read_text().count("\n") == 2
    assert isinstance(trace_store, TraceStore) and trace_store.path.parent == tmp_path
    envelope = {"assistant_text": "We host on Fly.io [E1].", "meta": {"modeLabel": "System", "claim_map": [
        {"claim_id": "c1", "text": "We host on Fly.io [E1].", "evidence_ids": ["E1"]}]}}
    plane = control_plane([envelope], policy=core_policy)
    reply = plane.respond(QUESTION, evidence=EVIDENCE)
    assert reply.status == "pass" and trace_store.exists(reply.trace_id)
    with pytest.raises(TypeError):
        control_plane([envelope], model=model)


def test_the_plugin_fixtures_do_not_shadow_the_suite_fixtures(store, trace_store, write_script, scripted_model):
    assert store is not trace_store and store.path != trace_store.path
    assert write_script is not scripted_model


PLUGIN_TEST = '''
def test_fixture_from_the_entry_point(gate_harness):
    envelope = gate_harness.envelope("We host on Fly.io.", claims=[("We host on Fly.io.", [])])
    gate_harness.run("evidence_binding", envelope, [{"text": "x"}], message="What is our architecture?") \\
        .assert_fail("UNCITED_CLAIM")
'''


def run_pytest(tmp_path: Path, *args: str, autoload: bool = True) -> subprocess.CompletedProcess:
    (tmp_path / "test_outside.py").write_text(textwrap.dedent(PLUGIN_TEST))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not this repo's config: no conftest, no addopts
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)


def test_the_plugin_is_loaded_by_its_pytest11_entry_point(tmp_path):
    result = run_pytest(tmp_path)  # a project with no conftest: the fixture can only come from the entry point
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    without = run_pytest(tmp_path, autoload=False)
    assert without.returncode != 0 and "fixture 'gate_harness' not found" in without.stdout
    by_name = run_pytest(tmp_path, "-p", "controlplane", autoload=False)  # the entry point's name
    assert by_name.returncode == 0, by_name.stdout + by_name.stderr


def test_the_envelope_builder_anchors_spans_and_lets_meta_fields_be_replaced():
    built = GateHarness.envelope("We host on Fly.io [E1]. DB is Turso [E1].", spans=True,
                                 claims=[("We host on Fly.io [E1].", ["E1"]), ("DB is Turso [E1].", ["E1"])],
                                 ignored_evidence_ids=["E2"])
    text = built["assistant_text"]
    for claim in built["meta"]["claim_map"]:
        span = claim["span"]
        assert text[span["start_char"]:span["end_char"]] == claim["text"]
    assert built["meta"]["ignored_evidence_ids"] == ["E2"] and built["meta"]["used_evidence_ids"] == ["E1"]
    with pytest.raises(ValueError, match="not in assistant_text"):
        GateHarness.envelope("Something else.", claims=[("We host on Fly.io.", [])], spans=True)
