"""The bundle's retrieval floor as the Python API applies it before the pack is built: the cosine floor, and its
lexical exception (retrieval_required ``lexical_pass``, issue 15)."""

from __future__ import annotations

from controlplane import ControlPlane
from controlplane.api import DEFAULT_RETRIEVAL_K
from controlplane.contracts import EvidenceItem, RetrievalMatch
from controlplane.evidence_pack import content_hash
from controlplane.policy_bundles.loader import parse_bundle
from controlplane.pytest_plugin import GateHarness

QUESTION = "Who is paged first when production is down? (architecture)"
LEXICAL = "The on-call primary acknowledges a SEV1 page within 5 minutes."
NOISE = "Deploys run from GitHub Actions on every merge to main."


class FixedRetriever:
    """Two candidates under the cosine floor of 0.3: the best lexical match, and one only the dense search found."""

    name = "fixed"

    def retrieve(self, query, k):
        def item(rid, text, cosine, match):
            return EvidenceItem(id=rid, type="RETRIEVAL_SNIPPET", text=text, hash=content_hash(text),
                                retrieval_score=cosine, retrieval_match=match)

        lexical = RetrievalMatch(method="weighted", fused_score=0.57, bm25=4.0, query_coverage=0.6, lexical_rank=1,
                                 dense_rank=2)
        return [item("R1", LEXICAL, 0.28, lexical), item("R2", NOISE, 0.27, None)][:k]


def policy_with(core_policy, lexical_pass):
    data = core_policy.bundle.model_dump(mode="json", exclude_none=True)
    for gate in data["gates"]:
        if gate["gate_id"] == "retrieval_required":
            gate["params"] = {"k": 5, "min_score": 0.3, "lexical_pass": lexical_pass}
    return parse_bundle(data, source="tests:lexical_pass")


def envelope():
    text = "The on-call primary acknowledges a SEV1 page within 5 minutes [E1]."
    return GateHarness.envelope(text, claims=[(text, ["E1"])], domain_flags=["architecture"])


def test_the_lexical_pass_keeps_the_best_lexical_match_and_only_it(scripted_model, core_policy):
    rule = {"min_query_coverage": 0.5, "min_score": 0.25, "max_lexical_rank": 1}
    plane = ControlPlane(model=scripted_model([envelope()]), policy=policy_with(core_policy, rule), db=False,
                         retriever=FixedRetriever())
    reply = plane.respond(QUESTION, retrieve=True)
    assert [e.text for e in reply.evidence_pack.evidence] == [LEXICAL]
    kept = reply.evidence_pack.evidence[0]
    assert kept.retrieval_score == 0.28 and kept.retrieval_match.lexical_rank == 1


def test_without_the_lexical_pass_the_cosine_floor_drops_both(scripted_model, core_policy):
    plane = ControlPlane(model=scripted_model([envelope()] * 3), policy=policy_with(core_policy, None), db=False,
                         retriever=FixedRetriever())
    reply = plane.respond(QUESTION, retrieve=True)
    assert reply.evidence_pack is None or not any(e.text in (LEXICAL, NOISE) for e in reply.evidence_pack.evidence)
    assert not reply.verified


def test_the_plane_says_how_many_chunks_it_retrieves(scripted_model, core_policy):
    """``retrieval_k``: the caller's number when given, else the bundle's retrieval_required k (ask and the
    benchmarks read it rather than the bundle)."""
    policy = policy_with(core_policy, None)
    bundle_k = next(g for g in policy.bundle.gates if g.gate_id == "retrieval_required").params.get("k")
    plane = ControlPlane(model=scripted_model([envelope()]), policy=policy, db=False, retriever=FixedRetriever())
    assert plane.retrieval_k == (bundle_k or DEFAULT_RETRIEVAL_K)
    assert ControlPlane(model=scripted_model([envelope()]), policy=policy, db=False, retriever=FixedRetriever(),
                        retrieval_k=2).retrieval_k == 2
