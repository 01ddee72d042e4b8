"""The one regen step (issue 12 item 3): pass, regen or degrade from an attempt's gate results and the budgets,
shared by the pipeline and replay, so a replay under the recorded policy decides exactly as the run did."""

from __future__ import annotations

import pytest

from controlplane.contracts import CostClass, GateResult, ReasonCode, TraceStatus
from controlplane.evidence_pack import build_pack
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import parse_bundle
from controlplane.regen import RegenAction, RegenStep, next_step
from controlplane.replay import replay_trace
from controlplane.router import route

QUESTION = "What's our hosting architecture?"


def fail(gate_id, *codes, **details):
    return GateResult.failing(gate_id, "v1", CostClass.CHEAP, list(codes), details=details)


def ok(gate_id):
    return GateResult.passing(gate_id, "v1", CostClass.CHEAP)


@pytest.fixture
def step(default_policy):
    pack = build_pack([{"id": "E1", "text": "We host on Fly.io."}])
    decision = route(QUESTION, default_policy.bundle)
    budgets = default_policy.bundle.budgets

    def decide(results, attempt=1, parsed=True, elapsed_ms=0.0, budgets=budgets):
        return next_step(attempt, results, parsed, budgets, elapsed_ms, pack, decision)

    return decide


def test_every_gate_passing_on_parsed_output_passes(step):
    decided = step([ok("output_schema"), ok("evidence_binding")])
    assert decided.action is RegenAction.PASS and decided.delta is None


def test_output_that_did_not_parse_never_passes_even_when_no_gate_failed(step):
    decided = step([ok("budget_enforcer")], parsed=False)
    assert decided.action is RegenAction.DEGRADE and "unparsed output" in decided.why


def test_a_fixable_failure_regenerates_with_the_delta_for_the_next_attempt(step):
    decided = step([fail("evidence_binding", ReasonCode.UNCITED_CLAIM, claims={"c1": ["UNCITED_CLAIM"]})])
    assert decided.action is RegenAction.REGEN
    assert decided.delta.attempt == 2 and decided.delta.claim_ids == ["c1"]


def test_the_cap_the_wall_time_and_unfixable_failures_degrade_and_say_why(step, default_policy):
    fixable = [fail("evidence_binding", ReasonCode.UNCITED_CLAIM, claims={"c1": ["UNCITED_CLAIM"]})]
    last = 1 + default_policy.bundle.budgets.max_regen_attempts
    capped = step(fixable, attempt=last)
    assert capped.action is RegenAction.DEGRADE and "regen cap" in capped.why
    late = step(fixable, elapsed_ms=default_policy.bundle.budgets.max_wall_time_ms)
    assert late.action is RegenAction.DEGRADE and "wall time" in late.why
    unfixable = step([fail("nli_entailment", ReasonCode.VERIFIER_UNAVAILABLE)])
    assert unfixable.action is RegenAction.DEGRADE and "VERIFIER_UNAVAILABLE" in unfixable.why


def test_a_step_carries_a_delta_exactly_when_it_regenerates():
    with pytest.raises(ValueError):
        RegenStep(RegenAction.PASS, "why", delta=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        RegenStep(RegenAction.REGEN, "why")


def test_the_degrade_record_says_why_regeneration_stopped(write_script, store, default_policy):
    plane = Pipeline(model=write_script(["prose", "prose", "prose"]), policy=default_policy, store=store)
    result = plane.run(QUESTION, evidence=[{"id": "E1", "text": "We host on Fly.io."}])
    assert result.status is not TraceStatus.PASS
    assert result.degrade["regen_stopped"].startswith("regen cap reached")


def test_replay_reproduces_a_run_whose_unparsed_output_no_gate_failed(write_script, store, default_policy):
    """The policy runs no schema gate, so prose fails no gate; the run still does not pass it (fail closed), and
    replay, asking the same step, must say the same (it used to call it a pass)."""
    data = default_policy.bundle.model_dump(mode="json")
    data["gates"] = [g for g in data["gates"] if g["gate_id"] == "budget_enforcer"]
    lenient = parse_bundle(data, source="tests:no-schema-gate")
    plane = Pipeline(model=write_script(["Sure, we host on Fly.io."]), policy=lenient, store=store)
    result = plane.run(QUESTION, evidence=[{"id": "E1", "text": "We host on Fly.io."}])
    assert result.status is not TraceStatus.PASS and not result.verified

    replayed = replay_trace(store.load_bundle(result.trace_id))
    assert replayed.error is None and replayed.reproduced, [d.line() for d in replayed.differences]
    assert replayed.replayed_status == result.status.value
