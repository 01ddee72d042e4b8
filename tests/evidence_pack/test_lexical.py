"""BM25, fusion and the retrieval floor's lexical exception, without models (issue 15)."""

from __future__ import annotations

import pytest

from controlplane.contracts import BudgetConfig, EvidenceItem, RetrievalMatch, meets_retrieval_floor
from controlplane.contracts.errors import ConfigurationError
from controlplane.evidence_pack import build_pack
from controlplane.evidence_pack.builder import content_hash
from controlplane.evidence_pack.fusion import FusionSettings, fuse
from controlplane.evidence_pack.lexical import LexicalIndex, lexical_terms

CHUNKS = {
    "c1": ("The on-call primary acknowledges a SEV1 page within 5 minutes.", "Incident response runbook"),
    "c2": ("Backups of the production database are kept for 35 days.", "Data retention policy"),
    "c3": ("ADR-011: all client/server communication goes through /api/v2.", "ADR-011"),
    "c4": ("ADR-012: the mobile client caches responses for 10 minutes.", "ADR-012"),
}


def index() -> LexicalIndex:
    ids = list(CHUNKS)
    return LexicalIndex(ids, [CHUNKS[i][0] for i in ids], [CHUNKS[i][1] for i in ids])


def test_terms_are_the_project_stems_with_numbers_kept():
    assert lexical_terms("The backups are kept for 35 days") == ["backu", "kept", "35", "day"]
    # the number is what tells ADR-011 from ADR-012
    assert "011" in lexical_terms("What does ADR-011 say?") and "adr" in lexical_terms("What does ADR-011 say?")


def test_bm25_finds_the_chunk_with_the_rare_words_first():
    hits = index().search("Are production backups kept?", 4)
    assert hits[0].id == "c2"
    assert [h.id for h in hits] == ["c2"]  # no other chunk shares a query term
    assert hits[0].coverage == pytest.approx(1.0)
    assert index().search("What does ADR-011 say about the API?", 1)[0].id == "c3"


def test_coverage_counts_query_terms_no_chunk_holds():
    [hit] = index().search("Are backups kept in the Zurich vault?", 4)
    assert hit.id == "c2" and 0.2 < hit.coverage < 0.6  # "zurich" and "vault" occur nowhere


def test_no_shared_word_no_hit():
    assert index().search("capital of France", 4) == []
    assert index().search("the of and", 4) == []
    assert LexicalIndex([], []).search("backups", 3) == []


def test_weighted_fusion_mixes_cosine_and_relative_bm25():
    cosine = {"a": 0.50, "b": 0.28, "c": 0.40}
    bm25 = {"b": 8.0, "c": 2.0}
    ordered = fuse(cosine, bm25, frozenset({"a", "c"}), FusionSettings("weighted", 0.6))
    scores = {c.id: c.fused for c in ordered}
    assert scores["a"] == pytest.approx(0.6 * 0.50)
    assert scores["b"] == pytest.approx(0.6 * 0.28 + 0.4 * 1.0)
    assert scores["c"] == pytest.approx(0.6 * 0.40 + 0.4 * 0.25)
    assert [c.id for c in ordered] == ["b", "c", "a"]
    b = ordered[0]
    assert (b.dense_rank, b.lexical_rank, b.cosine, b.bm25) == (None, 1, 0.28, 8.0)
    # weight 1 is the cosine order
    assert [c.id for c in fuse(cosine, bm25, frozenset(cosine), FusionSettings("weighted", 1.0))] == ["a", "c", "b"]


def test_rrf_uses_ranks_only():
    cosine = {"a": 0.9, "b": 0.1, "c": 0.5}
    ordered = fuse(cosine, {"c": 0.01}, frozenset(cosine), FusionSettings("rrf"))
    assert [c.id for c in ordered] == ["c", "a", "b"]  # c: 2nd dense and 1st lexical, however small its BM25
    assert ordered[0].fused == pytest.approx(1 / 62 + 1 / 61, abs=1e-6)
    assert ordered[1].fused == pytest.approx(1 / 61, abs=1e-6)


@pytest.mark.parametrize("kwargs", [{"method": "max"}, {"cosine_weight": 1.5}, {"depth": 0}])
def test_bad_fusion_settings_are_refused(kwargs):
    with pytest.raises(ConfigurationError):
        FusionSettings(**kwargs)


def item(rid: str, cosine: float, match: RetrievalMatch | None = None, text: str | None = None) -> EvidenceItem:
    text = text or f"chunk {rid}"
    return EvidenceItem(id=rid, type="RETRIEVAL_SNIPPET", text=text, hash=content_hash(text), retrieval_score=cosine,
                        retrieval_match=match)


def match(rank: int | None, coverage: float, fused: float = 0.5) -> RetrievalMatch:
    return RetrievalMatch(method="weighted", fused_score=fused, bm25=3.0, query_coverage=coverage, lexical_rank=rank,
                          dense_rank=2)


RULE = {"min_query_coverage": 0.6, "min_score": 0.2}


def test_floor_is_the_cosine_unless_the_lexical_pass_is_set():
    assert meets_retrieval_floor(item("R1", 0.31), 0.3) == (True, "cosine")
    assert meets_retrieval_floor(item("R1", 0.28, match(1, 1.0)), 0.3) == (False, "below_floor")
    assert meets_retrieval_floor(item("R1", 0.28, match(1, 1.0)), 0.3, None) == (False, "below_floor")
    assert meets_retrieval_floor(item("R1", 0.28, match(1, 1.0)), 0.3, RULE) == (True, "lexical_pass")


@pytest.mark.parametrize("candidate", [
    item("R1", 0.28, match(2, 1.0)),  # not the best lexical match
    item("R1", 0.28, match(1, 0.5)),  # holds too little of the query
    item("R1", 0.15, match(1, 1.0)),  # under the lower cosine floor
    item("R1", 0.28, None),  # retrieved by dense search alone
])
def test_lexical_pass_keeps_only_the_best_lexical_match_that_covers_the_query(candidate):
    assert meets_retrieval_floor(candidate, 0.3, RULE) == (False, "below_floor")


def test_lexical_pass_can_reach_further_down_the_lexical_ranks():
    second = item("R1", 0.28, match(2, 0.6))
    assert meets_retrieval_floor(second, 0.3, RULE) == (False, "below_floor")
    assert meets_retrieval_floor(second, 0.3, {**RULE, "max_lexical_rank": 2}) == (True, "lexical_pass")


@pytest.mark.parametrize("bad", [{"min_query_coverage": 0.6}, {"min_query_coverage": "x", "min_score": 0.2},
                                 {"min_query_coverage": 1.5, "min_score": 0.2}, ["not", "a", "mapping"],
                                 {"min_query_coverage": 0.5, "min_score": 0.2, "max_lexical_rank": 0}])
def test_malformed_lexical_pass_is_a_configuration_error(bad):
    with pytest.raises(ConfigurationError, match="lexical_pass"):
        meets_retrieval_floor(item("R1", 0.1, match(1, 1.0)), 0.3, bad)


def test_pack_keeps_the_fused_order_not_the_cosine_order():
    # the best fused item has the lower cosine: E1 is still the best fused (issue 15), and its score stays the cosine
    low_cos_best_fused = item("R1", 0.28, match(1, 1.0, fused=0.57), text="The on-call primary is paged first.")
    high_cos = item("R2", 0.45, match(None, 0.0, fused=0.27), text="Production runs on Fly.io.")
    pack = build_pack(retrieved=[high_cos, low_cos_best_fused], budget=BudgetConfig())
    assert [e.text for e in pack.evidence] == [low_cos_best_fused.text, high_cos.text]
    assert pack.evidence[0].id == "E1" and pack.evidence[0].retrieval_score == 0.28
    assert pack.evidence[0].retrieval_match.fused_score == 0.57
