"""reasoning_chain through the real gate path: Pipeline.run with the scripted model and the shipped bundle, the
NLI gate scoring with the suite's deterministic backends (tests/gates/nli_backends.py). Each tier with a valid and
an invalid chain, one chain per invalid pattern of the EBOM seed, circular reasoning, and the step's confidence.
"""

from __future__ import annotations

from typing import Any

import pytest

from controlplane.contracts import ClaimStatus, OutputEnvelope, TraceStatus
from controlplane.gates.interfaces import GateServices
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import load_bundle
from controlplane.router import route
from tests.conftest import build_envelope
from tests.gates.nli_backends import OverlapNliBackend, TableNliBackend

POLICY = load_bundle()

LOW_Q = "What happens when it rains?"
MEDIUM_Q = "How is our hosting architecture set up?"
HIGH_Q = "LLC liability law?"

RAIN = [{"id": "E1", "text": "Heavy rain causes flooding on Mill Road.", "trust_tier": "authoritative"},
        {"id": "E2", "text": "Flooding on Mill Road causes delays on bus route 4.", "trust_tier": "authoritative"}]
RAIN_PREMISES = [("Heavy rain causes flooding on Mill Road [E1].", ["E1"]),
                 ("Flooding on Mill Road causes delays on bus route 4 [E2].", ["E2"])]


def step(text: str, premises: list[str], operation: str = "entailment", evidence_ids: list[str] | None = None):
    return {"text": text, "premises": premises, "operation": operation, "evidence_ids": evidence_ids or []}


def envelope_for(question: str, claims: list[Any]) -> dict[str, Any]:
    """Plain claims are (text, ids) tuples; reasoning steps are step(...) dicts (status REASONING)."""
    plain = [(c["text"], c["evidence_ids"], "REASONING") if isinstance(c, dict) else c for c in claims]
    env = build_envelope(plain, mode=route(question, POLICY.bundle).modeLabel)
    for built, given in zip(env["meta"]["claim_map"], claims):
        if isinstance(given, dict):
            built["premises"] = given["premises"]
            built["operation"] = given["operation"]
    OutputEnvelope.model_validate(env)
    return env


def run(write_script, store, question: str, evidence: list[dict], claims: list[Any], backend=None):
    plane = Pipeline(model=write_script([envelope_for(question, claims)]), policy=POLICY, store=store,
                         services=GateServices(nli_backend=backend or OverlapNliBackend()))
    return plane.run(question, evidence=evidence)


def gate(result, gate_id: str):
    return next(g for g in result.attempts[0].gate_results if g.gate_id == gate_id)  # the scripted envelope


def step_record(result, claim_id: str) -> dict[str, Any]:
    return gate(result, "reasoning_chain").details["steps"][claim_id]


def codes_of(result, claim_id: str) -> list[str]:
    return step_record(result, claim_id)["reason_codes"]


# -- tier 1 (every rigor) -----------------------------------------------------------------------------------------------
def test_tier1_valid_chain_at_low_rigor_passes_and_is_verified(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES, step("Therefore heavy rain contributes to delays on bus route 4.", ["c1", "c2"], "transitive")])
    assert result.mode_decision.rigorConfig.level.value == "low"
    record = step_record(result, "c3")
    assert record["tiers_checked"] == [1] and record["validity"] == "VALID", record
    assert result.status is TraceStatus.PASS and result.verified
    assert "Therefore heavy rain contributes" in result.assistant_text


def test_tier1_a_premise_that_does_not_exist(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES, step("Therefore heavy rain contributes to delays on bus route 4.", ["c1", "c2", "c9"])])
    assert codes_of(result, "c3") == ["PREMISE_MISSING"]
    assert "contributes to delays" not in result.assistant_text


def test_tier1_a_reasoning_claim_with_nothing_to_reason_from(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES, ("Therefore heavy rain contributes to delays on bus route 4.", [], "REASONING")])
    assert codes_of(result, "c3") == ["PREMISE_MISSING"]
    assert result.status is not TraceStatus.PASS


def test_tier1_a_premise_that_failed_verification(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        ("Heavy rain closes the harbour [E1].", ["E1"]), RAIN_PREMISES[1],
        step("Therefore heavy rain contributes to delays on bus route 4.", ["c1", "c2"], "transitive")])
    assert gate(result, "nli_entailment").details["claims"]["c1"]  # the premise itself failed
    assert codes_of(result, "c3") == ["PREMISE_UNVERIFIED"]
    assert step_record(result, "c3")["validity"] == "INVALID"


def test_tier1_a_fact_no_source_has(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES, step("Therefore heavy rain contributes to 40 minute delays on bus route 4.", ["c1", "c2"])])
    assert codes_of(result, "c3") == ["UNSOURCED_REASONING_FACT"]
    assert "40" in step_record(result, "c3")["findings"][0]["detail"]


def test_a_step_may_reason_from_evidence_ids_directly(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        step("Therefore heavy rain contributes to delays on bus route 4.", ["E1", "E2"], "transitive")])
    record = step_record(result, "c1")
    assert record["validity"] == "VALID" and record["sources"] == ["E1", "E2"], record
    assert result.status is TraceStatus.PASS


def test_circular_reasoning_fails_every_step_on_the_cycle(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES,
        step("Therefore heavy rain contributes to delays on bus route 4.", ["c1", "c4"]),
        step("So delays on bus route 4 follow from heavy rain.", ["c3"])])
    assert codes_of(result, "c3") == ["CIRCULAR_REASONING"] and codes_of(result, "c4") == ["CIRCULAR_REASONING"]
    assert "CIRCULAR_REASONING" in [c.value for c in gate(result, "evidence_graph").reason_codes]


def test_a_step_that_rests_on_itself_is_circular(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES, step("Therefore heavy rain contributes to delays on bus route 4.", ["c1", "c3"])])
    assert codes_of(result, "c3") == ["CIRCULAR_REASONING"]


def test_a_step_resting_on_an_invalid_step_is_unverified(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES,
        step("Therefore heavy rain contributes to 40 minute delays on bus route 4.", ["c1", "c2"]),
        step("So heavy rain contributes to delays on bus route 4.", ["c3"])])
    assert codes_of(result, "c3") == ["UNSOURCED_REASONING_FACT"]
    assert codes_of(result, "c4") == ["PREMISE_UNVERIFIED"]
    assert gate(result, "reasoning_chain").details["order"].index("c3") < \
        gate(result, "reasoning_chain").details["order"].index("c4")


# -- tier 2 (medium rigor and up) -------------------------------------------------------------------------------------
def test_tier2_runs_at_medium_rigor_and_a_valid_transitive_chain_passes(write_script, store):
    result = run(write_script, store, MEDIUM_Q, RAIN, [
        *RAIN_PREMISES,
        step("Therefore heavy rain contributes to delays on bus route 4 [E1, E2].", ["c1", "c2"], "transitive",
             ["E1", "E2"])])
    record = step_record(result, "c3")
    assert record["tiers_checked"] == [1, 2] and record["validity"] == "VALID", record
    assert result.status is TraceStatus.PASS and result.verified


ZED = [{"id": "E1", "text": "Library Zed cuts build time by 40 percent. However, library Zed doubles memory use."}]
ZED_PREMISE = ("Library Zed cuts build time by 40 percent [E1].", ["E1"])


def test_tier1_alone_lets_through_what_tier2_catches(write_script, store):
    # every word of the step is sourced, so tier 1 passes it at low rigor; at medium tier 2 sees the ignored risk
    low = run(write_script, store, LOW_Q, ZED, [ZED_PREMISE, step("Therefore library Zed cuts build time.", ["c1"])])
    assert step_record(low, "c2")["validity"] == "VALID", step_record(low, "c2")
    medium = run(write_script, store, MEDIUM_Q, ZED, [ZED_PREMISE, step("Therefore library Zed cuts build time [E1].",
                                                                         ["c1"], "entailment", ["E1"])])
    assert codes_of(medium, "c2") == ["CHERRY_PICKING"]


NON_SEQUITUR_EVIDENCE = [{"id": "E1", "text": "The invoice service is processed by the queue worker."},
                         {"id": "E2", "text": "The billing cluster contains the queue worker."}]
NON_SEQUITUR_PREMISES = [("The invoice service is processed by the queue worker [E1].", ["E1"]),
                         ("The billing cluster contains the queue worker [E2].", ["E2"])]
NON_SEQUITUR_STEP = "Therefore the invoice service works with the billing cluster [E1, E2]."


def test_tier2_non_sequitur(write_script, store):
    # EBOM's own example: X is processed by Y, Z contains Y, therefore X works with Z
    result = run(write_script, store, MEDIUM_Q, NON_SEQUITUR_EVIDENCE, [
        *NON_SEQUITUR_PREMISES, step(NON_SEQUITUR_STEP, ["c1", "c2"], "transitive", ["E1", "E2"])])
    assert codes_of(result, "c3") == ["NON_SEQUITUR"]
    assert "works with" not in result.assistant_text


def test_tier1_reports_the_non_sequitur_relation_as_unsourced_at_low_rigor(write_script, store):
    result = run(write_script, store, LOW_Q, NON_SEQUITUR_EVIDENCE, [
        *NON_SEQUITUR_PREMISES, step(NON_SEQUITUR_STEP, ["c1", "c2"], "transitive", ["E1", "E2"])])
    assert codes_of(result, "c3") == ["UNSOURCED_REASONING_FACT"]
    assert "work" in step_record(result, "c3")["findings"][0]["detail"]


def test_tier2_because_needs_a_reason_among_the_premises(write_script, store):
    result = run(write_script, store, MEDIUM_Q, RAIN, [
        RAIN_PREMISES[1],
        step("Delays on bus route 4 happen because of a strike [E2].", ["c1"], "entailment", ["E2"])])
    assert "NON_SEQUITUR" in codes_of(result, "c2")
    assert "stated reason" in step_record(result, "c2")["findings"][0]["detail"]


FAILOVER = [{"id": "E1", "text": "If the primary database fails, traffic moves to the replica."},
            {"id": "E2", "text": "The primary database fails during the Monday backup."}]


def test_tier2_conditional_with_a_sourced_antecedent_passes(write_script, store):
    result = run(write_script, store, MEDIUM_Q, FAILOVER, [
        ("If the primary database fails, traffic moves to the replica [E1].", ["E1"]),
        ("The primary database fails during the Monday backup [E2].", ["E2"]),
        step("Therefore during the Monday backup traffic moves to the replica [E1, E2].", ["c1", "c2"],
             "conditional", ["E1", "E2"])])
    assert step_record(result, "c3")["validity"] == "VALID", step_record(result, "c3")
    assert result.status is TraceStatus.PASS


def test_tier2_conditional_without_its_antecedent(write_script, store):
    result = run(write_script, store, MEDIUM_Q, FAILOVER, [
        ("If the primary database fails, traffic moves to the replica [E1].", ["E1"]),
        step("Therefore traffic moves to the replica [E1].", ["c1"], "conditional", ["E1"])])
    assert codes_of(result, "c2") == ["UNSOURCED_ANTECEDENT"]


def test_tier2_cherry_picking(write_script, store):
    result = run(write_script, store, MEDIUM_Q, ZED, [
        ZED_PREMISE, step("Therefore library Zed cuts build time [E1].", ["c1"], "aggregation", ["E1"])])
    assert codes_of(result, "c2") == ["CHERRY_PICKING"]
    assert "doubles memory use" in step_record(result, "c2")["findings"][0]["detail"]


def test_tier2_a_step_that_weighs_the_contrary_clause_is_not_cherry_picking(write_script, store):
    result = run(write_script, store, MEDIUM_Q, ZED, [
        ZED_PREMISE, ("However, library Zed doubles memory use [E1].", ["E1"]),
        step("Therefore library Zed cuts build time but doubles memory use [E1].", ["c1", "c2"], "contrast",
             ["E1"])])
    assert step_record(result, "c3")["validity"] == "VALID", step_record(result, "c3")
    assert result.status is TraceStatus.PASS


def test_tier2_false_equivalence(write_script, store):
    evidence = [{"id": "E1", "text": "Teams that write tests correlate with fewer outages."}]
    result = run(write_script, store, MEDIUM_Q, evidence, [
        ("Teams that write tests correlate with fewer outages [E1].", ["E1"]),
        step("Therefore teams that write tests causes fewer outages [E1].", ["c1"], "entailment", ["E1"])])
    assert codes_of(result, "c2") == ["FALSE_EQUIVALENCE"]


def test_tier2_overgeneralization(write_script, store):
    evidence = [{"id": "E1", "text": "A study of 100 Python developers found that they prefer type hints."}]
    result = run(write_script, store, MEDIUM_Q, evidence, [
        ("A study of 100 Python developers found that they prefer type hints [E1].", ["E1"]),
        step("Therefore all programmers prefer type hints [E1].", ["c1"], "entailment", ["E1"])])
    assert codes_of(result, "c2") == ["OVERGENERALIZATION"]
    assert "programmer" in step_record(result, "c2")["findings"][0]["detail"]


# -- tier 3 (high stakes) ---------------------------------------------------------------------------------------------
LLC = [{"id": "E1", "text": "An LLC member is not personally liable for the debts of the LLC.",
        "source": "https://statutes.example.gov/llc", "trust_tier": "authoritative"},
       {"id": "E2", "text": "Courts hold that an LLC member is not personally liable for the debts of the LLC.",
        "source": "https://courts.example.gov/llc", "trust_tier": "authoritative"}]
LLC_PREMISE = "An LLC member is not personally liable for LLC debts [E1][E2]."
LLC_STEP = "Therefore an LLC member is not personally liable for the debts of the LLC [E1][E2]."


def tier3_backend(premise_entailment: float) -> TableNliBackend:
    """The evidence entails both claims; the premise claim entails the step with ``premise_entailment``."""
    return TableNliBackend({LLC[0]["text"]: (0.97, 0.01), LLC[1]["text"]: (0.97, 0.01),
                            "An LLC member is not personally liable for LLC debts.": (premise_entailment, 0.02)})


def test_tier3_high_stakes_step_entailed_by_its_premises_passes(write_script, store):
    result = run(write_script, store, HIGH_Q, LLC, [(LLC_PREMISE, ["E1", "E2"]), step(
        LLC_STEP, ["c1"], "entailment", ["E1", "E2"])], backend=tier3_backend(0.91))
    assert result.mode_decision.rigorConfig.level.value == "high"
    record = step_record(result, "c2")
    assert record["tiers_checked"] == [1, 2, 3] and record["entailment"] == 0.91, record
    assert record["validity"] == "VALID"


def test_tier3_high_stakes_step_its_premises_do_not_entail(write_script, store):
    result = run(write_script, store, HIGH_Q, LLC, [(LLC_PREMISE, ["E1", "E2"]), step(
        LLC_STEP, ["c1"], "entailment", ["E1", "E2"])], backend=tier3_backend(0.2))
    assert codes_of(result, "c2") == ["REASONING_NOT_ENTAILED"]
    assert gate(result, "nli_entailment").passed  # the evidence entails it; the reasoning from c1 does not
    assert result.status is TraceStatus.REFUSED


# -- confidence (EBOM: weakest premise x validity x verification score) -----------------------------------------------
def test_step_confidence_is_bounded_by_its_weakest_premise(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES, step("Therefore heavy rain contributes to delays on bus route 4.", ["c1", "c2"], "transitive")])
    record = step_record(result, "c3")
    nli = gate(result, "nli_entailment").details["claim_records"]
    factors = record["confidence_factors"]
    assert factors["premise_confidences"] == {"c1": nli["c1"]["confidence"], "c2": nli["c2"]["confidence"]}
    weakest = min(nli["c1"]["confidence"], nli["c2"]["confidence"])
    assert record["confidence"] == round(weakest * 1.0 * factors["verification_score"], 4)
    assert 0 < record["confidence"] <= weakest


def test_an_invalid_step_has_near_zero_confidence(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES, step("Therefore heavy rain contributes to 40 minute delays on bus route 4.", ["c1", "c2"])])
    record = step_record(result, "c3")
    assert record["confidence_factors"]["reasoning_validity"] == 0.1
    assert record["confidence"] < 0.1


def test_operation_and_premises_belong_to_reasoning_claims_only():
    env = build_envelope([("We host on Fly.io [E1].", ["E1"])])
    env["meta"]["claim_map"][0]["premises"] = ["E1"]
    with pytest.raises(ValueError, match="REASONING claims only"):
        OutputEnvelope.model_validate(env)
    assert ClaimStatus.REASONING.value == "REASONING"


def test_the_regen_delta_names_the_invalid_step(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES, step("Therefore heavy rain contributes to 40 minute delays on bus route 4.", ["c1", "c2"])])
    delta = result.attempts[1].regen_delta
    assert delta is not None and "c3" in delta.claim_ids
    assert any("Claims c3 do not follow from what they rest on" in line for line in delta.instructions)


def test_a_conditional_step_may_reason_from_the_evidence_itself(write_script, store):
    # "fails" in a source is a condition, not a contrary clause: no cherry picking; both premises are evidence ids
    result = run(write_script, store, MEDIUM_Q, FAILOVER, [
        step("Therefore during the Monday backup traffic moves to the replica [E1, E2].", ["E1", "E2"], "conditional",
             ["E1", "E2"])])
    assert step_record(result, "c1")["validity"] == "VALID", step_record(result, "c1")
