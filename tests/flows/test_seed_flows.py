"""The control-plane seed's five end-to-end flows (section 9), with the scripted model, plus the trace contract."""

from __future__ import annotations

import pytest

from controlplane.contracts import ORDERED_PREFIX, Phase, TraceStatus
from controlplane.evidence_pack.retriever import ChromaRetriever
from controlplane.evidence_pack.vector_store import VectorStore
from controlplane.gates.interfaces import GateServices
from controlplane.pipeline import Pipeline

ARCH_EVIDENCE = [
    {"id": "E1", "title": "Stack facts", "text": "We host on Fly.io. DB is Turso (SQLite).", "trust_tier": "authoritative"},
    {"id": "E2", "title": "CP approach", "text": "The control plane rejects uncited factual claims and forces a regeneration.",
     "trust_tier": "authoritative"},
    {"id": "E3", "title": "Unrelated", "text": "The office plants are watered on Fridays."},
]


def gates_of(result, attempt=1):
    record = result.attempts[attempt - 1]
    return {g.gate_id: g for g in record.gate_results}


def codes(gate):
    return [c.value for c in gate.reason_codes]


def test_flow1_simple_rewrite_skips_evidence_binding_by_policy(write_script, store, default_policy, make_envelope):
    envelope = make_envelope([("Our launch moved to May because testing took longer.", [], "SUBJECTIVE")], mode="Ida",
                             domain_flags=["writing"])
    plane = Pipeline(model=write_script([envelope]), policy=default_policy, store=store)

    result = plane.run("Tighten this paragraph: the launch, which was planned, got moved to May because of testing.")

    assert result.mode_decision.modeLabel == "Ida"
    assert result.mode_decision.domainFlags == ["writing"]
    assert result.mode_decision.selectorUsed is False
    gates = gates_of(result)
    assert gates["output_schema"].result.value == "pass"
    assert gates["budget_enforcer"].result.value == "pass"
    assert gates["evidence_binding"].result.value == "skip"
    assert codes(gates["evidence_binding"]) == ["SKIPPED_BY_POLICY"]
    assert result.status is TraceStatus.PASS


def test_flow2_architecture_question_with_facts(write_script, store, default_policy, make_envelope):
    envelope = make_envelope(
        [("We host on Fly.io [E1].", ["E1"]), ("The control plane rejects uncited factual claims [E2].", ["E2"])],
        domain_flags=["architecture"],
    )
    envelope["meta"]["ignored_evidence_ids"] = ["E3"]
    plane = Pipeline(model=write_script([envelope]), policy=default_policy, store=store)

    result = plane.run("What's our CP approach and why?", evidence=ARCH_EVIDENCE)

    assert result.mode_decision.modeLabel == "System"
    assert "architecture" in result.mode_decision.domainFlags
    assert result.mode_decision.rigorConfig.level.value == "medium"
    gates = gates_of(result)
    for gate_id in ("output_schema", "mode_echo_match", "evidence_binding", "citation_integrity", "claim_anchors"):
        assert gates[gate_id].result.value == "pass", (gate_id, gates[gate_id].reason_codes, gates[gate_id].details)
    assert result.status is TraceStatus.PASS and result.verified
    bundle = store.load_bundle(result.trace_id)
    assert bundle.attempts[0].envelope["meta"]["ignored_evidence_ids"] == ["E3"]
    assert bundle.attempts[0].envelope["meta"]["used_evidence_ids"] == ["E1", "E2"]


def test_flow3_high_rigor_legal_cite_or_unknown(write_script, store, default_policy, make_envelope):
    uncited = make_envelope([("An LLC's profits pass through to the members' personal tax returns.", [])])
    honest = make_envelope(
        [
            ("From provided evidence, a single-member LLC is taxed like a sole proprietorship by default [E1].", ["E1"]),
            ("Whether an S-corp election would help is UNKNOWN given the provided evidence.", [], "UNKNOWN"),
        ]
    )
    evidence = [{"id": "E1", "text": "By default, a single-member LLC is taxed like a sole proprietorship by default.",
                 "trust_tier": "authoritative"}]
    plane = Pipeline(model=write_script([uncited, honest]), policy=default_policy, store=store)

    result = plane.run("LLC tax implications?", evidence=evidence)

    assert result.mode_decision.rigorConfig.level.value == "high"
    assert {"legal", "finance"} <= set(result.mode_decision.domainFlags)
    first = gates_of(result, 1)
    assert first["evidence_binding"].result.value == "fail"
    assert codes(first["evidence_binding"]) == ["UNCITED_CLAIM"]
    assert first["evidence_binding"].details["claims"] == {"c1": ["UNCITED_CLAIM"]}
    delta = result.attempts[1].regen_delta
    assert delta.claim_ids == ["c1"] and "UNCITED_CLAIM" in [c.value for c in delta.reason_codes]
    assert result.status is TraceStatus.REGEN_PASS
    assert [c.status for c in result.claims] == ["FACTUAL", "UNKNOWN"]


def test_flow3_spoofed_citation_never_passes_and_refuses_in_high_rigor(write_script, store, default_policy, make_envelope):
    spoofed = make_envelope([("LLC members always owe self-employment tax [E7].", ["E7"])])
    plane = Pipeline(model=write_script([spoofed, spoofed, spoofed]), policy=default_policy, store=store)

    result = plane.run("LLC tax implications?", evidence=[{"id": "E1", "text": "LLCs are pass-through entities."}])

    assert [codes(gates_of(result, n)["evidence_binding"]) for n in (1, 2, 3)] == [["UNKNOWN_EVIDENCE_ID"]] * 3
    assert codes(gates_of(result)["citation_integrity"]) == [
        "CITATION_UNKNOWN_EVIDENCE_ID", "USED_IDS_INCONSISTENT", "INLINE_MARKER_UNRESOLVED"]
    assert result.status is TraceStatus.REFUSED  # high rigor degrades by refusing (policy degrade.by_rigor)
    assert "LLC members always owe self-employment tax" not in result.assistant_text  # never restated...
    assert "A statement citing E7 was not shown" in result.assistant_text and "evidence that states" in result.assistant_text
    assert result.degrade["claims"][0]["text"] == "LLC members always owe self-employment tax [E7]."  # ...but traced
    assert not result.verified


@pytest.fixture(scope="module")
def example_index(tmp_path_factory):
    from pathlib import Path

    db_dir = tmp_path_factory.mktemp("index")
    corpus = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    VectorStore(db_dir, create=True).add_paths("examples", [corpus])
    return db_dir


def test_flow4_retrieval_required_runs_retrieval_then_binds(write_script, store, default_policy, example_index):
    retriever = ChromaRetriever(example_index, "examples", k=3)
    expected = retriever.retrieve("What does ADR-011 say about client/server boundary?", 3)
    assert expected, "the example corpus must answer flow 4"
    answer = {
        "assistant_text": "ADR-011 makes the server the single source of truth for business rules [E1].",
        "meta": {"modeLabel": "System", "claim_map": [
            {"claim_id": "c1", "text": "ADR-011 makes the server the single source of truth for business rules [E1].",
             "evidence_ids": ["E1"], "status": "FACTUAL"}]},
    }
    plane = Pipeline(model=write_script([answer]), policy=default_policy, store=store,
                         services=GateServices(retriever=retriever))

    result = plane.run("What does ADR-011 say about client/server boundary?")

    assert "requires_retrieval" in result.mode_decision.domainFlags
    assert [g.result.value for g in result.pre_generation] == ["pass"]
    phases = [e.phase for e in result.events]
    assert Phase.RETRIEVAL in phases
    first_gate = next(e for e in result.events if e.phase is Phase.GATE)
    assert first_gate.gate_id == "retrieval_required" and first_gate.payload["result"] == "fail"
    assert first_gate.payload["reason_codes"] == ["RETRIEVAL_REQUIRED", "RETRIEVAL_PERFORMED"]
    assert result.evidence_pack.ids()[: len(expected)] == [f"E{i}" for i in range(1, len(expected) + 1)]
    assert result.evidence_pack.evidence[0].provenance.document_id
    assert result.status is TraceStatus.PASS
    bundle = store.load_bundle(result.trace_id)
    assert bundle.evidence_pack.evidence == [] and bundle.retrieved_evidence_pack.ids() == result.evidence_pack.ids()


def test_flow4_without_a_retriever_refuses_without_calling_the_model(write_script, store, default_policy):
    plane = Pipeline(model=write_script(["never used"]), policy=default_policy, store=store)

    result = plane.run("What does ADR-011 say about client/server boundary?")

    assert result.status is TraceStatus.REFUSED
    assert result.attempts == []
    assert [codes(g) for g in result.pre_generation] == [["RETRIEVAL_REQUIRED", "RETRIEVER_UNAVAILABLE"]]
    assert "no document store is configured" in result.assistant_text


def test_flow5_prose_fails_schema_then_regen_passes(write_script, store, default_policy, make_envelope):
    good = make_envelope([("We host on Fly.io [E1].", ["E1"])])
    plane = Pipeline(model=write_script(["Sure! We host on Fly.io.", good]), policy=default_policy, store=store)

    result = plane.run("Where do we host our architecture?", evidence=ARCH_EVIDENCE)

    first = gates_of(result, 1)
    assert codes(first["output_schema"]) == ["INVALID_JSON"]
    assert all(codes(first[g]) == ["PRECONDITION_FAILED"] for g in ("mode_echo_match", "evidence_binding"))
    delta = result.attempts[1].regen_delta
    assert delta.attempt == 2 and delta.failing_gate_ids[0] == "output_schema"
    assert "Return ONLY one JSON object" in delta.instructions[0]
    assert result.status is TraceStatus.REGEN_PASS and len(result.attempts) == 2
    stored = store.load_bundle(result.trace_id)
    assert stored.attempts[0].raw_output == "Sure! We host on Fly.io."
    assert [a.gate_results[0].result.value for a in stored.attempts] == ["fail", "pass"]


def test_trace_seq_is_contiguous_and_phase_prefix_is_the_seed_contract(write_script, store, default_policy, make_envelope):
    good = make_envelope([("We host on Fly.io [E1].", ["E1"])])
    plane = Pipeline(model=write_script(["prose", good]), policy=default_policy, store=store)
    result = plane.run("Where do we host our architecture?", evidence=ARCH_EVIDENCE)

    events = store.events(result.trace_id)
    assert [e.seq for e in events] == list(range(len(events)))
    assert all(e.metadata.seq == e.seq for e in events)
    assert tuple(e.phase for e in events[:4]) == ORDERED_PREFIX
    later = [e.phase for e in events[4:]]
    assert set(later).isdisjoint(ORDERED_PREFIX)
    assert later[-1] is Phase.FINAL
    regen_index = later.index(Phase.REGEN)
    assert later[regen_index + 1] is Phase.MODEL_CALL
    assert [e.metadata.attempt for e in events if e.phase is Phase.MODEL_CALL] == [1, 2]


def test_the_shipped_bundle_verifies_claims_and_fails_closed_without_a_verifier(write_script, store, shipped_policy,
                                                                                make_envelope):
    """With the shipped bundle, claim verification is on; with no NLI backend configured it never passes."""
    gate_ids = [g.gate_id for g in shipped_policy.bundle.gates]
    assert "nli_entailment" in gate_ids
    envelope = make_envelope([("We host on Fly.io [E1].", ["E1"])])
    plane = Pipeline(model=write_script([envelope] * 3), policy=shipped_policy, store=store)
    result = plane.run("Where is our hosting architecture?", evidence=ARCH_EVIDENCE)
    nli = gates_of(result)["nli_entailment"]
    assert nli.result.value == "fail" and "VERIFIER_UNAVAILABLE" in codes(nli)
    assert result.status is not TraceStatus.PASS and not result.verified
