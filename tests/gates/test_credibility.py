"""Source credibility scoring (EBOM tiers, URL domains, publication types), the pack builder hook, and staleness by
volatility with warnings (STALE_EVIDENCE fails only where the policy says)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controlplane.contracts import TrustTier
from controlplane.evidence_pack import build_pack
from controlplane.evidence_pack.credibility import TIER_RANGES, score_credibility, tier_for_host
from controlplane.evidence_pack.staleness import is_time_sensitive, staleness
from controlplane.gates.nli_entailment import NliEntailmentGate
from tests.gates.decision_helpers import envelope, gate_input
from tests.gates.nli_backends import TableNliBackend

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("source", "tier"),
    [
        ("https://www.irs.gov/businesses/llc", TrustTier.AUTHORITATIVE),
        ("https://law.cornell.edu/uscode", TrustTier.AUTHORITATIVE),
        ("https://cs.stanford.edu/notes", TrustTier.AUTHORITATIVE),
        ("https://developer.mozilla.org/en-US/docs/Web", TrustTier.ESTABLISHED),
        ("https://www.reuters.com/world", TrustTier.ESTABLISHED),
        ("https://github.com/org/repo", TrustTier.GENERAL),
        ("https://someone.medium.com/post", TrustTier.LOW),
        ("https://www.reddit.com/r/tax", TrustTier.LOW),
        ("https://x.com/user/status/1", TrustTier.UNRELIABLE),
    ],
)
def test_url_domains_map_to_ebom_tiers(source, tier):
    scored = score_credibility(None, source)
    assert scored.tier is tier
    low, high = TIER_RANGES[tier]
    assert low <= scored.score <= high


def test_explicit_trust_tier_beats_the_url_and_plain_items_keep_the_tier_default():
    assert score_credibility("low", "https://www.irs.gov/x").tier is TrustTier.LOW
    assert score_credibility(None, "caller").score == 0.6
    assert score_credibility("authoritative").score == 0.95
    assert tier_for_host("evil-gov.com") is None and tier_for_host("notirs.gov") is TrustTier.AUTHORITATIVE


def test_publication_type_is_blended_in():
    forum = score_credibility("established", None, "forum_answer").score
    review = score_credibility("established", None, "systematic_review").score
    assert forum == pytest.approx(0.6 * 0.8 + 0.4 * 0.4) and review == pytest.approx(0.6 * 0.8 + 0.4 * 1.0)


def test_pack_builder_scores_items_without_credibility_and_keeps_given_scores():
    pack = build_pack([
        {"id": "E1", "text": "a", "source": "https://www.irs.gov/llc"},
        {"id": "E2", "text": "b", "source": "https://reddit.com/r/tax"},
        {"id": "E3", "text": "c", "credibility": 0.42, "source": "https://www.irs.gov/llc"},
        {"id": "E4", "text": "d", "qualifiers": {"publication_type": "primary_research"}, "trust_tier": "established"},
        {"id": "E5", "text": "e"},
    ])
    assert [i.credibility for i in pack.evidence] == [0.95, 0.35, 0.42, pytest.approx(0.88), 0.6]


# ---------------------------------------------------------------------------------------------------------------
# staleness
def item(volatility: str, **prov):
    return build_pack([{"id": "E1", "text": "x", "volatility": volatility, "provenance": prov}]).evidence[0]


@pytest.mark.parametrize(
    ("volatility", "retrieved_at", "stale"),
    [
        ("HIGH", "2026-06-01T11:30:00Z", False),
        ("HIGH", "2026-06-01T10:00:00Z", True),
        ("MEDIUM", "2026-05-31T13:00:00Z", False),
        ("MEDIUM", "2026-05-30T12:00:00Z", True),
        ("LOW", "2026-05-28T12:00:00Z", False),
        ("LOW", "2026-05-01T12:00:00Z", True),
        ("STATIC", "1999-01-01", False),
    ],
)
def test_lifetimes_by_volatility(volatility, retrieved_at, stale):
    found = staleness(item(volatility, retrieved_at=retrieved_at), NOW)
    assert found.stale is stale
    assert (found.warning or "").startswith("[STALENESS WARNING") is stale
    assert found.freshness == (0.5 if stale else 1.0)


def test_undated_items_are_not_stale_and_time_sensitive_questions_shorten_the_lifetime():
    assert staleness(item("HIGH"), NOW).stale is False
    fresh_day = item("LOW", retrieved_at="2026-06-01T09:00:00Z")
    assert staleness(fresh_day, NOW).stale is False
    assert staleness(fresh_day, NOW, time_sensitive=True).stale is True
    assert is_time_sensitive("What's the latest Python version?") and not is_time_sensitive("What is Python?")
    assert is_time_sensitive("What is the price right now?") and not is_time_sensitive("Citations are now optional.")


def _stale_gate(volatility: str, stale_fails: list[str]):
    text = "The status page reports the EU region is degraded."
    evidence = [{"id": "E1", "text": text, "trust_tier": "authoritative", "volatility": volatility,
                 "provenance": {"retrieved_at": "2026-05-20T12:00:00Z"}}]
    env = envelope([("The status page reports the EU region is degraded [E1].", ["E1"])])
    return NliEntailmentGate().evaluate(gate_input("nli_entailment", "How is the EU region doing?", evidence, env,
                                                   TableNliBackend({text: (0.97, 0.01)}),
                                                   params={"stale_fails": stale_fails}))


def test_stale_evidence_is_a_warning_unless_the_policy_fails_it():
    warned = _stale_gate("MEDIUM", ["HIGH"])
    assert warned.passed and warned.details["warnings"][0].startswith("[STALENESS WARNING: E1")
    failed = _stale_gate("HIGH", ["HIGH"])
    assert failed.failed and failed.details["claims"]["c1"] == ["STALE_EVIDENCE"]
    record = failed.details["claim_records"]["c1"]
    assert record["staleness"][0]["stale"] and record["confidence_factors"]["source_confidences"]["E1"] == pytest.approx(
        0.4 * 0.95 + 0.3 + 0.2 * 0.5 + 0.1 * 0.5)


def test_low_credibility_sources_fail_high_stakes_claims():
    text = "An LLC protects members from personal liability for its debts."
    evidence = [{"id": "E1", "text": text, "source": "https://reddit.com/r/legal", "provenance": {"document_id": "a"}},
                {"id": "E2", "text": text + " Usually.", "source": "https://x.com/u/1", "provenance": {"document_id": "b"}}]
    env = envelope([("An LLC protects members from personal liability for its debts [E1][E2].", ["E1", "E2"])])
    backend = TableNliBackend({text: (0.97, 0.01), text + " Usually.": (0.97, 0.01)})
    result = NliEntailmentGate().evaluate(gate_input("nli_entailment", "LLC liability law?", evidence, env, backend,
                                                     params={"checks": []}))
    assert "LOW_CREDIBILITY" in result.details["claims"]["c1"]
