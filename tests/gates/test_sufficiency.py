"""The evidence sufficiency tree (Smart Notes §2.3 table, six rows), independent-source counting, per-domain
thresholds, and EBOM confidence semantics (formula, LIMINAL x 0.8, action thresholds)."""

from __future__ import annotations

import pytest

from controlplane.contracts import EvidenceItem, ReasonCode
from controlplane.evidence_pack import build_pack
from controlplane.gates.nli_entailment import NliEntailmentGate
from controlplane.gates.sufficiency import (
    EvidenceScore,
    Sufficiency,
    action_for,
    claim_confidence,
    count_independent,
    decide,
    display_line,
    response_confidence,
    source_confidence,
    thresholds_for,
)
from controlplane.router import route
from tests.gates.decision_helpers import POLICY, codes, envelope, gate_input
from tests.gates.nli_backends import TableNliBackend

SMART_NOTES = {"min_entailment": 0.60, "min_sources": 2, "max_contradiction": 0.30}


def scores(ent: float, con: float, sources: int, *, split: bool = False) -> list[EvidenceScore]:
    """`sources` independent items at (ent, con); split=True puts the contradiction on a separate source."""
    if not sources:
        return []
    if split:
        support = [EvidenceScore(f"E{i}", f"doc{i}", ent, 0.05) for i in range(1, sources)]
        return support + [EvidenceScore(f"E{sources}", f"doc{sources}", ent, con)] if sources == 1 else \
            support + [EvidenceScore(f"E{sources}", f"doc{sources}", 0.2, con)]
    return [EvidenceScore(f"E{i}", f"doc{i}", ent, con) for i in range(1, sources + 1)]


@pytest.mark.parametrize(
    ("row", "evidence", "status", "reason"),
    [
        ("strong consensus", scores(0.85, 0.10, 3), Sufficiency.VERIFIED, None),
        ("weak consensus", scores(0.65, 0.15, 2), Sufficiency.VERIFIED, None),
        ("single source", scores(0.90, 0.05, 1), Sufficiency.LOW_CONFIDENCE, ReasonCode.INSUFFICIENT_SOURCES),
        ("conflicting evidence", [EvidenceScore("E1", "doc1", 0.75, 0.05), EvidenceScore("E2", "doc2", 0.70, 0.05),
                                  EvidenceScore("E3", "doc3", 0.10, 0.45)],
         Sufficiency.LOW_CONFIDENCE, ReasonCode.CONFLICTING_VERDICTS),
        ("no strong support", scores(0.50, 0.20, 2), Sufficiency.REJECTED, ReasonCode.LOW_ENTAILMENT),
        ("no evidence", [], Sufficiency.REJECTED, ReasonCode.NO_EVIDENCE),
    ],
)
def test_smart_notes_table_rows(row, evidence, status, reason):
    tree = decide(evidence, **SMART_NOTES)
    assert tree.status is status, row
    assert (tree.reasons[0] if tree.reasons else None) is reason, row


def test_contradiction_from_the_supporting_source_itself_is_high_contradiction():
    tree = decide([EvidenceScore("E1", "doc1", 0.7, 0.35), EvidenceScore("E2", "doc1", 0.7, 0.35)], **{
        **SMART_NOTES, "min_sources": 1})
    assert tree.status is Sufficiency.LOW_CONFIDENCE and tree.reasons == (ReasonCode.HIGH_CONTRADICTION,)


def test_independent_sources_are_documents_not_ids():
    pack = build_pack([
        {"id": "E1", "text": "Part one.", "provenance": {"document_id": "adr-011"}},
        {"id": "E2", "text": "Part two.", "provenance": {"document_id": "adr-011"}},
        {"id": "E3", "text": "Same page, other quote.", "source": "https://example.gov/page#a"},
        {"id": "E4", "text": "Same page, another quote.", "source": "https://example.gov/page#b"},
        {"id": "E5", "text": "A caller fact."},
        {"id": "E6", "text": "Another caller fact."},
        {"id": "E7", "text": "A caller fact."},  # same text as E5: same hash, same source
    ])
    assert count_independent(pack.evidence) == 4
    assert count_independent(pack.evidence[:2]) == 1


def test_thresholds_come_from_the_riskiest_domain_else_general(default_policy):
    policy = default_policy.bundle
    assert thresholds_for(route("LLC tax question about our database schema", policy), policy)[0] in {"legal", "finance"}
    domain, th = thresholds_for(route("hello there", policy), policy)
    assert domain is None and th == policy.general_thresholds
    domain, th = thresholds_for(route("How does our database schema scale?", policy), policy)
    assert domain == "architecture" and th == policy.domains["architecture"].thresholds
    assert th.min_entailment < policy.domains["legal"].thresholds.min_entailment  # medium rigor below high


# ---------------------------------------------------------------------------------------------------------------
# the six rows through the gate itself (TableNliBackend gives each evidence text the row's probabilities)
ROWS = [
    ("strong", [(0.85, 0.10)] * 3, "VERIFIED", []),
    ("weak", [(0.82, 0.15)] * 2, "VERIFIED", []),
    ("single", [(0.90, 0.05)], "LOW_CONFIDENCE", ["INSUFFICIENT_SOURCES"]),
    ("conflict", [(0.85, 0.05), (0.85, 0.05), (0.10, 0.55)], "LOW_CONFIDENCE", ["CONFLICTING_VERDICTS"]),
    ("weak support", [(0.50, 0.20)] * 2, "REJECTED", ["LOW_ENTAILMENT"]),
]


@pytest.mark.parametrize(("row", "per_item", "decision", "reasons"), ROWS)
def test_rows_through_the_gate_in_a_high_stakes_domain(row, per_item, decision, reasons):
    texts = [f"Statute {i} says members of an LLC are not personally liable for its debts." for i in range(len(per_item))]
    evidence = [{"id": f"E{i + 1}", "text": t, "trust_tier": "authoritative", "provenance": {"document_id": f"d{i}"}}
                for i, t in enumerate(texts)]
    backend = TableNliBackend(dict(zip(texts, per_item)))
    ids = [e["id"] for e in evidence]
    env = envelope([("Members of an LLC are not personally liable for its debts.", ids)])
    result = NliEntailmentGate().evaluate(gate_input("nli_entailment", "LLC liability law?", evidence, env, backend,
                                                     params={"checks": [], "enforce_min_confidence": False}))
    record = result.details["claim_records"]["c1"]
    assert record["decision"] == decision, (row, record)
    assert record["reason_codes"][: len(reasons)] == reasons
    assert result.passed is (decision == "VERIFIED")
    if not result.passed:
        assert result.details["claims"]["c1"][: len(reasons)] == reasons


def test_no_evidence_row_through_the_gate():
    env = envelope([("Members of an LLC are not personally liable.", [])])
    result = NliEntailmentGate().evaluate(gate_input("nli_entailment", "LLC liability law?", [], env,
                                                     TableNliBackend({})))
    assert codes(result) == ["NO_EVIDENCE"] and result.details["claim_records"]["c1"]["decision"] == "REJECTED"


# ---------------------------------------------------------------------------------------------------------------
# confidence
def test_source_confidence_is_the_ebom_weighted_sum():
    assert source_confidence(0.9, 1.0, 1.0, 1.0) == pytest.approx(0.96)
    assert source_confidence(0.6, 0.5, 0.5, 0.5) == pytest.approx(0.24 + 0.15 + 0.1 + 0.05)


def test_claim_confidence_is_min_source_times_validity_times_verification():
    assert claim_confidence([0.9, 0.7], 1.0, 0.8) == pytest.approx(0.56)
    assert claim_confidence([0.9, 0.7], 0.1, 0.8) == pytest.approx(0.056)
    assert claim_confidence([0.9], 1.0, 0.9, sphere=0.8) == pytest.approx(0.648)
    report = response_confidence({"c1": 0.9, "c2": 0.55}, 0.6)
    assert report.response_confidence == 0.55 and report.action == "present_with_strong_warning"
    assert report.display == "Confidence: 0.55/1.0 - Low confidence - verify independently"


@pytest.mark.parametrize(("value", "action"), [(0.95, "high_confidence"), (0.85, "present_confidently"),
                                               (0.7, "present_confidently"), (0.65, "present_with_warning"),
                                               (0.5, "present_with_strong_warning"), (0.49, "refuse_to_answer")])
def test_action_thresholds(value, action):
    assert action_for(value) == action


def test_display_only_below_point_eight():
    assert display_line(0.85) is None and display_line(0.3).endswith("answer refused")


def _one_claim_gate(sphere: str, question: str = "How do we host? architecture", ent: float = 0.95):
    text = "We host the API on Fly.io in two regions."
    evidence = [{"id": "E1", "text": text, "trust_tier": "authoritative", "sphere": sphere,
                 **({"liminal_reason": "version conflict"} if sphere == "LIMINAL" else {})}]
    env = envelope([("We host the API on Fly.io in two regions [E1].", ["E1"])])
    return NliEntailmentGate().evaluate(gate_input("nli_entailment", question, evidence, env,
                                                   TableNliBackend({text: (ent, 0.01)})))


def test_liminal_evidence_multiplies_confidence_by_point_eight():
    inside = _one_claim_gate("INSIDE").details["claim_records"]["c1"]
    liminal = _one_claim_gate("LIMINAL").details["claim_records"]["c1"]
    assert liminal["confidence_factors"]["sphere_factor"] == 0.8
    assert liminal["warnings"] == ["E1 is LIMINAL (version conflict): confidence x0.8; verify its temporal or "
                                   "contextual qualifiers"]
    assert liminal["confidence"] == pytest.approx(inside["confidence"] * 0.8, abs=1e-3)
    # single authoritative caller source: 0.4*0.95 + 0.3*1 + 0.2*1 + 0.1*0.5 = 0.93; x entailment 0.95
    assert inside["confidence"] == pytest.approx(0.93 * 0.95, abs=1e-3)


def test_confidence_below_the_domain_minimum_fails_low_confidence():
    th = POLICY.domains["architecture"].thresholds
    ent = th.min_entailment + 0.02  # entailed enough, but 0.93 * ent * 0.8 (LIMINAL) is under min_confidence
    assert 0.93 * ent * 0.8 < th.min_confidence
    result = _one_claim_gate("LIMINAL", ent=ent)
    assert result.failed and result.details["claims"]["c1"] == ["LOW_CONFIDENCE"]
    confidence = result.details["confidence"]["response_confidence"]
    assert result.details["confidence"]["action"] == action_for(confidence)


def test_evidence_item_defaults_are_what_the_confidence_assumes():
    item = EvidenceItem(id="E1", text="x", hash="sha256:" + "0" * 64)
    assert item.sphere.value == "INSIDE" and item.retrieval_score is None


def test_retrieval_quality_of_retrieved_items_is_relative_to_the_similarity_floor():
    from controlplane.gates.nli_entailment import _retrieval_quality

    pack = build_pack([{"id": "E1", "text": "x"}])
    caller = pack.evidence[0]
    retrieved = caller.model_copy(update={"retrieval_score": 0.35})
    assert _retrieval_quality(caller, 0.7) == 1.0
    assert _retrieval_quality(retrieved, 0.7) == 0.5 and _retrieval_quality(retrieved, 0.7, "raw") == 0.35
    assert _retrieval_quality(caller.model_copy(update={"retrieval_score": 0.9}), 0.7) == 1.0


def test_sources_required_follow_the_question_strictness_follows_the_evidence_too():
    from controlplane.contracts import ModeDecision, RigorConfig, RigorLevel
    from controlplane.gates.sufficiency import required_sources, thresholds_for
    from controlplane.policy_bundles.loader import load_bundle

    policy = load_bundle().bundle
    rigor = RigorConfig(level=RigorLevel.HIGH, strict_sentences=True, require_citations=True, nli_required=True)
    from_evidence = ModeDecision(modeLabel="System", domainFlags=[], evidenceDomainFlags=["legal"], rigorConfig=rigor,
                                 confidence=0.5, version="t")
    assert required_sources(from_evidence, policy).reason == "sources_from_question:general:1"
    domain, th = thresholds_for(from_evidence, policy)
    assert domain == "legal" and th.min_sources == 1
    assert th.min_entailment == policy.domains["legal"].thresholds.min_entailment
    legal = from_evidence.model_copy(update={"domainFlags": ["legal"], "evidenceDomainFlags": []})
    assert required_sources(legal, policy).reason == f"sources_from_question:legal:{th.min_sources + 1}"
    assert thresholds_for(legal, policy)[1].min_sources == policy.domains["legal"].thresholds.min_sources == 2


def _reference_decide(scores, min_entailment, max_contradiction, min_sources):
    """The sufficiency tree as first written (max() and comprehensions): decide()'s one pass must agree with it."""
    from controlplane.contracts import ReasonCode
    from controlplane.gates.sufficiency import Sufficiency, TreeDecision

    if not scores:
        return TreeDecision(Sufficiency.REJECTED, (ReasonCode.NO_EVIDENCE,), None, None, 0)
    top_ent = max(s.entailment for s in scores)
    top_con = max(s.contradiction for s in scores)
    supporting = [s for s in scores if s.entailment >= min_entailment]
    contradicting = [s for s in scores if s.contradiction > max_contradiction]
    sources = len({s.source for s in supporting})
    common = {"max_entailment": round(top_ent, 4), "max_contradiction": round(top_con, 4),
              "independent_sources": sources, "supporting_ids": tuple(s.evidence_id for s in supporting),
              "contradicting_ids": tuple(s.evidence_id for s in contradicting)}
    if top_ent < min_entailment:
        reasons = [ReasonCode.LOW_ENTAILMENT] + ([ReasonCode.HIGH_CONTRADICTION] if contradicting else [])
        return TreeDecision(Sufficiency.REJECTED, tuple(reasons), **common)
    reasons = []
    if sources < min_sources:
        reasons.append(ReasonCode.INSUFFICIENT_SOURCES)
    if contradicting:
        reasons.append(ReasonCode.CONFLICTING_VERDICTS if any(a.source != b.source for a in supporting
                                                              for b in contradicting) else ReasonCode.HIGH_CONTRADICTION)
    if reasons:
        return TreeDecision(Sufficiency.LOW_CONFIDENCE, tuple(reasons), **common)
    return TreeDecision(Sufficiency.VERIFIED, (), **common)


def test_decide_agrees_with_the_reference_tree_on_random_scores():
    import math
    import random

    rng = random.Random(13)
    values = [0.0, 0.1, 0.12, 0.5, 0.6, 0.61, 0.9, math.nan]
    for _ in range(5000):
        scores = [EvidenceScore(f"E{i}", rng.choice("abc"), rng.choice(values), rng.choice(values))
                  for i in range(rng.randint(0, 4))]
        args = (rng.choice([0.12, 0.5, 0.6]), rng.choice([0.3, 0.6]), rng.choice([1, 2]))
        assert repr(decide(scores, *args)) == repr(_reference_decide(scores, *args))
