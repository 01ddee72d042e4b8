"""evidence_graph through the real gate path (Pipeline.run, scripted model, shipped bundle): the seed's node
schemas, the EBOM graph constraints with their reason codes, and Smart Notes' metrics in the trace."""

from __future__ import annotations

import pytest

from controlplane.contracts import Phase, TraceStatus
from controlplane.gates.evidence_graph import build_graph, check_constraints, claim_node
from controlplane.gates.interfaces import GateServices
from controlplane.pipeline import Pipeline
from tests.gates.nli_backends import OverlapNliBackend
from tests.gates.test_reasoning_chain import LOW_Q, MEDIUM_Q, RAIN, RAIN_PREMISES, gate, run, step

GOVERNANCE_Q = "Under our governance rules, how long are backups kept?"
BACKUPS = {"id": "E1", "text": "Backups are kept for 30 days.", "source": "docs/retention.md",
           "trust_tier": "authoritative"}
BACKUPS_AUDIT = {"id": "E2", "text": "The audit confirmed that backups are kept for 30 days.",
                 "source": "audits/2026-q3.md", "trust_tier": "authoritative"}
CHAIN = [*RAIN_PREMISES, step("Therefore heavy rain contributes to delays on bus route 4.", ["c1", "c2"], "transitive")]


def codes(result, gate_id: str = "evidence_graph") -> list[str]:
    return [c.value for c in gate(result, gate_id).reason_codes]


def test_nodes_and_edges_follow_the_seed_schemas(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, CHAIN)
    graph = gate(result, "evidence_graph").details["graph"]
    nodes = {n["node"]: n for n in graph["nodes"]}
    source = nodes["source:E1"]
    assert source["kind"] == "source" and source["sphere"] == "INSIDE"
    assert set(source["provenance"]) == {"type", "url", "timestamp", "tool_used"}
    assert {"credibility", "confidence", "verified", "immutable", "volatility"} <= set(source["metadata"])
    step_node = nodes["claim:c3"]
    assert step_node["claim_category"] == "REASONING" and step_node["type"] == "INFERENTIAL"
    assert step_node["support"] == ["E1", "E2"] and step_node["reasoning"]["validity"] == "VALID"
    assert nodes["claim:c1"]["type"] == "VERIFIED" and nodes["claim:c1"]["support"] == ["E1"]
    edges = {(e["from"], e["to"], e["kind"]) for e in graph["edges"]}
    assert ("claim:c1", "source:E1", "support") in edges
    assert {("claim:c3", "claim:c1", "reasoning"), ("claim:c3", "claim:c2", "reasoning")} <= edges


def test_smart_notes_metrics_go_into_the_trace(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, CHAIN)
    metrics = gate(result, "evidence_graph").details["metrics"]
    assert metrics["support_depth"] == 2  # c3 -> c1 -> E1: a transitive support chain
    assert metrics["redundancy"] == pytest.approx(2 / 3, abs=1e-4)  # 2 support edges over 3 claims
    assert metrics["diversity"] == 0.5  # one source type over two cited sources
    assert set(metrics["centrality"]) == {"c1", "c2", "c3"} and metrics["max_centrality"] > 0
    stored = store.load_bundle(result.trace_id)
    recorded = [e.payload for e in stored.events if e.phase is Phase.GATE and e.gate_id == "evidence_graph"]
    assert recorded[0]["details"]["metrics"] == metrics


def test_a_flat_answer_has_support_depth_one(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, RAIN_PREMISES)
    metrics = gate(result, "evidence_graph").details["metrics"]
    assert (metrics["support_depth"], metrics["redundancy"], metrics["max_centrality"]) == (1, 1.0, 0.0)


def test_the_graph_must_be_acyclic(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [
        *RAIN_PREMISES, step("Therefore heavy rain contributes to delays on bus route 4.", ["c1", "c4"]),
        step("So delays on bus route 4 follow from heavy rain.", ["c3"])])
    assert codes(result) == ["CIRCULAR_REASONING"]
    assert gate(result, "evidence_graph").details["constraints"]["cycles"] == [["c3", "c4"]]
    assert gate(result, "evidence_graph").details["metrics"]["support_depth"] is None


def test_labelled_speculation_needs_no_source_in_low_stakes(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, [RAIN_PREMISES[0], ("I think the detour is annoying.", [],
                                                                      "SUBJECTIVE")])
    graph_gate = gate(result, "evidence_graph")
    assert graph_gate.passed, graph_gate.details
    assert graph_gate.details["claim_records"]["c2"]["exempt"] == "SUBJECTIVE is exempt at this rigor"
    assert result.status is TraceStatus.PASS


def test_in_high_stakes_every_claim_must_reach_a_source(write_script, store):
    result = run(write_script, store, GOVERNANCE_Q, [BACKUPS, BACKUPS_AUDIT], [
        ("Backups are kept for 30 days [E1][E2].", ["E1", "E2"]), ("I think that is sensible.", [], "SUBJECTIVE")])
    assert result.mode_decision.rigorConfig.level.value == "high"
    assert gate(result, "evidence_graph").details["claims"] == {"c2": ["CLAIM_NOT_GROUNDED"]}


def test_high_stakes_need_two_independent_sources(write_script, store):
    # governance allows one source per claim in its thresholds; the graph constraint still asks for two
    one = run(write_script, store, GOVERNANCE_Q, [BACKUPS], [("Backups are kept for 30 days [E1].", ["E1"])])
    assert gate(one, "nli_entailment").passed
    assert codes(one) == ["INSUFFICIENT_SOURCES"]
    assert gate(one, "evidence_graph").details["claim_records"]["c1"]["independent_sources"] == 1
    # the refusal names the count the failing gate asked for, not the domain's own (it said "at least 1")
    assert "at least 2 independent sources" in one.assistant_text, one.assistant_text
    two = run(write_script, store, GOVERNANCE_Q, [BACKUPS, BACKUPS_AUDIT],
              [("Backups are kept for 30 days [E1][E2].", ["E1", "E2"])])
    assert gate(two, "evidence_graph").passed, gate(two, "evidence_graph").details
    assert two.status is TraceStatus.PASS


def test_two_items_of_one_document_are_one_source(write_script, store):
    same = {**BACKUPS_AUDIT, "source": BACKUPS["source"]}
    result = run(write_script, store, GOVERNANCE_Q, [BACKUPS, same],
                 [("Backups are kept for 30 days [E1][E2].", ["E1", "E2"])])
    assert codes(result) == ["INSUFFICIENT_SOURCES"]


def test_the_bundle_sets_the_high_stakes_support_count(write_script, store, shipped_policy):
    from controlplane.policy_bundles.loader import parse_bundle

    data = shipped_policy.bundle.model_dump(mode="json", exclude_none=True)
    next(g for g in data["gates"] if g["gate_id"] == "evidence_graph")["params"]["high_stakes_min_support"] = 1
    policy = parse_bundle(data, source="tests:one-source")
    from tests.gates.test_reasoning_chain import envelope_for

    plane = Pipeline(model=write_script([envelope_for(GOVERNANCE_Q, [("Backups are kept for 30 days [E1].",
                                                                        ["E1"])])]),
                         policy=policy, store=store, services=GateServices(nli_backend=OverlapNliBackend()))
    assert gate(plane.run(GOVERNANCE_Q, evidence=[BACKUPS]), "evidence_graph").passed


def test_confidence_propagates_along_the_chain(write_script, store):
    result = run(write_script, store, MEDIUM_Q, RAIN, [
        *RAIN_PREMISES, step("Therefore heavy rain contributes to delays on bus route 4 [E1, E2].", ["c1", "c2"],
                             "transitive", ["E1", "E2"])])
    records = gate(result, "evidence_graph").details["claim_records"]
    steps = gate(result, "reasoning_chain").details["steps"]
    nli = gate(result, "nli_entailment").details["claim_records"]
    assert records["c3"]["confidence_bound"] == steps["c3"]["confidence"]  # at the bound: weakest premise x ...
    assert steps["c3"]["confidence"] <= min(nli["c1"]["confidence"], nli["c2"]["confidence"])
    for claim_id in ("c1", "c2"):
        assert nli[claim_id]["confidence"] <= records[claim_id]["confidence_bound"]


def test_a_claim_surer_than_what_it_rests_on_breaks_propagation(write_script, store):
    result = run(write_script, store, LOW_Q, RAIN, CHAIN)
    attempt = result.attempts[0]
    from controlplane.contracts import OutputEnvelope

    graph = build_graph(result.evidence_pack, OutputEnvelope.model_validate(attempt.envelope), attempt.gate_results)
    assert check_constraints(graph, high_stakes=False, exempt=[]).claims == {}
    recorded = graph.nodes[claim_node("c3")]["confidence"]
    graph.nodes[claim_node("c3")]["confidence"] = 0.99  # a step surer than its weakest premise
    assert check_constraints(graph, high_stakes=False, exempt=[]).claims == {"c3": ["CONFIDENCE_NOT_PROPAGATED"]}
    graph.nodes[claim_node("c3")]["confidence"] = recorded
    graph.nodes[claim_node("c1")]["confidence"] = 0.01  # a premise weaker than the step that reasoned from it
    assert check_constraints(graph, high_stakes=False, exempt=[]).claims == {"c3": ["CONFIDENCE_NOT_PROPAGATED"]}


# -- how many sources: the question decides, the evidence only raises strictness ----------------------------------------
RETENTION = {"id": "E1", "source": "docs/data-retention-policy.md", "trust_tier": "authoritative",
             "text": "Database backups are kept for 35 days. Data we must keep by law is retained. A legal hold "
                     "suspends deletion. GDPR article 17 applies."}
BACKUPS_Q = "How long are database backups kept?"
LEGAL_Q = "Can my landlord evict me without notice?"
EVICTION = {"id": "E1", "source": "docs/tenancy-law.md", "trust_tier": "authoritative",
            "text": "A landlord may not evict a tenant without notice under the law. The lease is a legal contract."}


def test_a_legal_word_in_the_evidence_does_not_make_a_plain_question_need_two_sources(write_script, store):
    result = run(write_script, store, BACKUPS_Q, [RETENTION],
                 [("Database backups are kept for 35 days [E1].", ["E1"])])
    decision = result.mode_decision
    assert decision.domainFlags == ["architecture"] and decision.evidenceDomainFlags == ["legal"]  # "database"
    assert decision.rigorConfig.level.value == "high"  # the evidence still raises rigor
    graph = gate(result, "evidence_graph")
    assert graph.passed, graph.details
    assert graph.details["constraints"]["min_support"] == 1
    assert graph.details["constraints"]["min_support_from"] == "sources_from_question:architecture:1"
    nli = gate(result, "nli_entailment")
    assert nli.details["thresholds"]["min_sources"] == 1
    assert nli.details["thresholds"]["min_sources_from"] == "sources_from_question:architecture:1"
    assert nli.details["thresholds"]["domain"] == "legal"  # legal strictness for the entailment threshold
    assert result.status is TraceStatus.PASS and result.verified


def test_a_legal_question_over_one_document_is_still_refused_for_insufficient_sources(write_script, store):
    result = run(write_script, store, LEGAL_Q, [EVICTION],
                 [("A landlord may not evict a tenant without notice under the law [E1].", ["E1"])])
    assert result.mode_decision.domainFlags == ["legal"]
    graph = gate(result, "evidence_graph")
    assert codes(result) == ["INSUFFICIENT_SOURCES"]
    assert graph.details["constraints"]["min_support"] == 2
    assert graph.details["constraints"]["min_support_from"] == "question_high_stakes:legal:2"
    assert "INSUFFICIENT_SOURCES" in gate(result, "nli_entailment").details["claims"]["c1"]
    assert result.status is TraceStatus.REFUSED and not result.verified
