"""Issue 16, "Fail-opens to close", items 1 to 5, and the suite gaps that let them through: each test here failed on
the code before the fix (an unsupported claim delivered with status pass, often with verified: true).

Everything runs through the real pipeline (``ControlPlane.run`` with the scripted adapter, or ``ControlPlane.verify``)
under the shipped default bundle. Where a claim needs an entailment score, ``PairTableNli`` answers from a table of
(premise, hypothesis) pairs written in the test: it never looks at the deterministic claim checks, so a check that
fires is told apart from an NLI score.
"""

from __future__ import annotations

import pytest

from controlplane.contracts import ClaimStatus, ReasonCode, TraceStatus
from controlplane.contracts.text import split_sentences, strip_markers
from controlplane.degrade import REWRITE_NOTICE, degrade
from controlplane.gates.interfaces import GateServices
from controlplane.policy_bundles.loader import parse_bundle
from controlplane.router import route
from controlplane.verdicts import ClaimVerdict, sentence_verdicts

from .conftest import PairTableNli

SHOWN = (TraceStatus.PASS, TraceStatus.REGEN_PASS)
LEAFLET = ("Ibuprofen dosage for adults: the maximum over-the-counter dose is 1200 mg per day; "
           "higher doses only under medical supervision.")
HOSTING = "We host on Fly.io. The database is Turso."


def envelope(text: str, claims: list[tuple[str, list[str], str]], mode: str | None = None) -> dict:
    claim_map = [{"claim_id": f"c{i}", "text": t, "evidence_ids": ids, "status": status}
                 for i, (t, ids, status) in enumerate(claims, start=1)]
    return {"assistant_text": text,
            "meta": {"modeLabel": mode, "domainFlags": [], "claim_map": claim_map,
                     "citations": [{"claim_id": c["claim_id"], "evidence_ids": c["evidence_ids"]}
                                   for c in claim_map if c["evidence_ids"]],
                     "used_evidence_ids": sorted({i for c in claim_map for i in c["evidence_ids"]})}}


def run(kit, env: dict, message: str, evidence=None, nli=None):
    """The scripted model answers ``env`` on every attempt; unless the test set a mode, it echoes the router's (a
    model that gets the mode wrong fails mode_echo_match, which would hide the fail-open under test)."""
    if env["meta"]["modeLabel"] is None:
        env = {**env, "meta": {**env["meta"], "modeLabel": route(message, kit.full.bundle).modeLabel}}
    services = GateServices(nli_backend=nli or PairTableNli({}))
    return kit.run([env] * 3, message=message, evidence=evidence or [], policy=kit.full, services=services)


def assert_not_shown(result, *fragments: str) -> None:
    for fragment in fragments:
        assert fragment not in result.assistant_text, (result.status, result.assistant_text)
    assert not result.verified


# -- 1. writing mode never passes a factual claim unchecked --------------------------------------------------------
@pytest.mark.parametrize("message", ["Summarize this for me", "Rewrite this in plain English"])
def test_writing_request_over_medical_evidence_checks_the_claim_against_it(kit, message):
    claim = "Adults can safely take up to 4000 mg of ibuprofen per day without a doctor [E1]."
    env = envelope(claim, [(claim, ["E1"], "FACTUAL")], mode="System")  # the mode the evidence calls for
    nli = PairTableNli({(LEAFLET, claim): (0.02, 0.95)})
    evidence = [{"id": "E1", "text": LEAFLET, "trust_tier": "authoritative", "title": "Leaflet"}]
    result = run(kit, env, message, evidence, nli)

    assert_not_shown(result, "4000")
    assert result.status not in SHOWN
    decision = result.mode_decision
    # the evidence's domain, kept apart from the question's (ModeDecision.evidenceDomainFlags); rigor follows both
    assert "writing" not in decision.domainFlags and "medical" in decision.evidenceDomainFlags
    assert decision.rigorConfig.level.value == "high"  # rigor follows the evidence, not only the message
    assert "override:writing_exemption_dropped_for_evidence" in decision.reasons


def test_summarizing_evidence_is_not_a_rewrite_so_uncited_facts_fail(kit):
    summary = "We moved to AWS last year. The database is Turso."
    env = envelope(summary, [("We moved to AWS last year.", [], "FACTUAL"),
                             ("The database is Turso.", ["E1"], "FACTUAL")])
    nli = PairTableNli({(HOSTING, "The database is Turso."): (0.97, 0.01)})
    result = run(kit, env, "Summarize this for me", [{"id": "E1", "text": HOSTING, "trust_tier": "authoritative"}],
                 nli)
    assert result.mode_decision.domainFlags == [] and result.mode_decision.rigorConfig.require_citations
    assert_not_shown(result, "AWS")
    assert result.status is TraceStatus.DEGRADED and result.assistant_text.startswith("The database is Turso.")


def test_rewriting_the_users_own_text_is_the_one_exemption_and_says_so(kit):
    rewritten = "My cat sleeps most of the day and purrs a lot. She was born in 2019."
    env = envelope(rewritten, [], mode="Ida")
    result = run(kit, env, "Rewrite this in plain English: my cat, born 2019, sleeps all day long and purrs")
    assert result.mode_decision.domainFlags == ["writing"]

    assert result.status is TraceStatus.PASS
    assert result.assistant_text.startswith(rewritten)
    assert REWRITE_NOTICE in result.assistant_text  # the reply says it was not checked
    assert result.verified is False
    assert "rewrite exemption" in result.degrade["coverage_exemption"]  # so does the trace


@pytest.mark.parametrize("invented, marker", [("Our servers respond in 20 ms on average.", "20 ms"),
                                              ("Our servers are rated fast by Gartner.", "Gartner")])
def test_a_rewrite_that_adds_numbers_or_names_is_not_exempt(kit, invented, marker):
    env = envelope(f"Our servers are fast. {invented}", [], mode="Ida")
    result = run(kit, env, "Rewrite this in plain English: our servers are fast")
    assert result.mode_decision.domainFlags == ["writing"]
    assert_not_shown(result, marker)
    anchors = next(g for g in result.attempts[0].gate_results if g.gate_id == "claim_anchors")
    assert "exemption_refused" in anchors.details and "SENTENCE_UNCOVERED" in [c.value for c in anchors.reason_codes]


# -- 2. factual claims labelled UNKNOWN --------------------------------------------------------------------------------
@pytest.mark.parametrize("message", ["Where do we host our infrastructure?",  # medium (architecture)
                                     "Where do we host our infrastructure? Is it GDPR compliant?",  # high
                                     "What changed lately?"])  # low
@pytest.mark.parametrize("text", [
    "Nothing runs on Fly.io; we host on AWS.",
    "It is unclear whether we moved, but we host on AWS.",
    "Whether we host on AWS in us-east-1 is the question?",
])
def test_a_fact_labelled_unknown_is_checked_as_a_fact(kit, message, text):
    result = run(kit, envelope(text, [(text, [], "UNKNOWN")]), message, [{"id": "E1", "text": HOSTING}])
    assert_not_shown(result, "AWS")
    assert result.status not in SHOWN


def test_one_unknown_claim_may_not_span_two_sentences(kit):
    text = "The evidence does not say who hosts it. We host on AWS."
    result = run(kit, envelope(text, [(text, [], "UNKNOWN")]), "What changed lately?", [{"id": "E1", "text": HOSTING}])
    assert_not_shown(result, "AWS")


@pytest.mark.parametrize("claim, status", [("The evidence does not say when it ships", "UNKNOWN"),
                                           ("Sure", "TRIVIAL")])
@pytest.mark.parametrize("bundle", ["structural", "shipped"])
def test_an_uncited_claim_does_not_cover_the_rest_of_its_sentence(kit, claim, status, bundle):
    text = f"{claim}, and we host on AWS in us-east-1."
    env = envelope(text, [(claim, [], status)], mode="Ida")
    policy = kit.policy if bundle == "structural" else kit.full
    result = kit.run([env] * 3, message="What changed lately?", evidence=[{"id": "E1", "text": HOSTING}],
                     policy=policy, services=GateServices(nli_backend=PairTableNli({})))
    assert_not_shown(result, "AWS")


def test_an_honest_unknown_is_shown_but_never_verified(kit):
    text = "The evidence does not say when the Orion project ships."
    result = run(kit, envelope(text, [(text, [], "UNKNOWN")]), "When does the Orion project ship?",
                 [{"id": "E1", "text": HOSTING}])
    assert result.status is TraceStatus.PASS and result.assistant_text == text
    assert result.verified is False


# -- 3. text glued to a claim's sentence ----------------------------------------------------------------------------
def test_bracketed_prose_is_not_a_citation_marker():
    text = "We host on Fly.io [E1]. [Note: all hosting moved to AWS us-east-1 in 2024; Fly.io is retired]"
    sentences = [s.text for s in split_sentences(text)]
    assert sentences == ["We host on Fly.io [E1].",
                         "[Note: all hosting moved to AWS us-east-1 in 2024; Fly.io is retired]"]
    assert strip_markers(sentences[1]) == sentences[1]
    assert [s.text for s in split_sentences("We host on Fly.io. [E1][E2, E3] Turso is the database. [sic]")] == [
        "We host on Fly.io. [E1][E2, E3]", "Turso is the database.", "[sic]"]


def test_a_zero_width_space_ends_a_sentence_and_is_kept():
    text = "We host on Fly.io [E1].\u200bWe host on AWS in us-east-1."
    sentences = split_sentences(text)
    assert len(sentences) == 2
    assert all(text[s.start:s.end] == s.text for s in sentences)
    assert "".join(s.text for s in sentences) == text  # nothing dropped, the invisible character included


@pytest.mark.parametrize("glued", [
    " [Note: all hosting moved to AWS us-east-1 in 2024; Fly.io is retired]",
    "\u200bWe host on AWS in us-east-1.",
])
@pytest.mark.parametrize("message", ["Where do we host?", "What changed lately?"])
def test_text_glued_to_a_passing_claim_is_not_shown(kit, glued, message):
    claim = "We host on Fly.io [E1]."
    env = envelope(claim + glued, [(claim, ["E1"], "FACTUAL")])
    nli = PairTableNli({(HOSTING, claim): (0.97, 0.01)})
    result = run(kit, env, message, [{"id": "E1", "text": HOSTING, "trust_tier": "authoritative"}], nli)
    assert "AWS" not in result.assistant_text
    assert result.verified is False
    assert result.status in (TraceStatus.DEGRADED, TraceStatus.REFUSED)
    if result.status is TraceStatus.DEGRADED:
        assert result.assistant_text.startswith("We host on Fly.io [E1].")


# -- 4. low rigor: nothing unchecked is "verified" ----------------------------------------------------------------------
def test_low_rigor_with_an_empty_claim_map_shows_nothing_unchecked(kit):
    text = "We moved everything to AWS in 2024. The database is Postgres now."
    result = run(kit, envelope(text, [], mode="Ida"), "What changed lately?", [{"id": "E1", "text": HOSTING}])
    assert result.mode_decision.rigorConfig.level.value == "low"
    assert_not_shown(result, "AWS", "Postgres")
    assert result.status is TraceStatus.REFUSED


@pytest.mark.parametrize("status", ["UNKNOWN", "REASONING", "TRIVIAL", "SUBJECTIVE"])
def test_low_rigor_fact_under_an_escape_label_is_not_shown(kit, status):
    text = "We moved everything to AWS in us-east-1 in 2024."
    result = run(kit, envelope(text, [(text, [], status)], mode="Ida"), "What changed lately?",
                 [{"id": "E1", "text": HOSTING}])
    assert result.mode_decision.rigorConfig.level.value == "low"
    assert_not_shown(result, "AWS")


def test_low_rigor_honest_subjective_and_trivial_claims_still_pass(kit):
    text = "Happy to help. I think the new layout is cleaner."
    claims = [("Happy to help.", [], "TRIVIAL"), ("I think the new layout is cleaner.", [], "SUBJECTIVE")]
    result = run(kit, envelope(text, claims, mode="Ida"), "What changed lately?", [{"id": "E1", "text": HOSTING}])
    assert result.status is TraceStatus.PASS and result.assistant_text == text


# -- 5. the sentence re-check counts negations, quantifiers and modal words -----------------------------------------
@pytest.mark.parametrize("extra", ["no more", "never again", "in all regions", "only if we must"])
@pytest.mark.parametrize("message", ["Where do we host?", "What changed lately?"])
def test_a_sentence_that_says_more_than_its_claim_is_checked_as_a_whole(kit, extra, message):
    sentence = f"We host on Fly.io {extra} [E1]."
    env = envelope(sentence, [("We host on Fly.io", ["E1"], "FACTUAL")])
    nli = PairTableNli({(HOSTING, "We host on Fly.io"): (0.97, 0.01)})  # only the claim itself is entailed
    result = run(kit, env, message, [{"id": "E1", "text": HOSTING, "trust_tier": "authoritative"}], nli)
    assert_not_shown(result, extra)


@pytest.mark.parametrize("extra", ["only if we must", "in all regions", "no more"])
def test_a_fooled_verifier_cannot_pass_an_added_negation_quantifier_or_modal(kit, extra):
    """Even when the NLI backend entails everything, a meaning word the evidence never uses vetoes the sentence."""
    sentence = f"We host on Fly.io {extra} [E1]."
    env = envelope(sentence, [("We host on Fly.io", ["E1"], "FACTUAL")])
    result = run(kit, env, "Where do we host?", [{"id": "E1", "text": HOSTING, "trust_tier": "authoritative"}],
                 kit.AlwaysEntailsNli())
    assert_not_shown(result, extra)
    nli = next(g for g in result.attempts[0].gate_results if g.gate_id == "nli_entailment")
    assert "UNSUPPORTED_CONTENT" in nli.details["claims"]["c1"] or "NEGATION_MISMATCH" in nli.details["claims"]["c1"]


# -- verdicts: one failing claim fails its sentence, through every degrade path ------------------------------------
def _two_claim_verdicts() -> tuple[dict, list[ClaimVerdict]]:
    text = "We host on Fly.io [E1] and we use Postgres [E9]. The database is Turso [E1]."
    env = envelope(text, [("We host on Fly.io [E1]", ["E1"], "FACTUAL"), ("we use Postgres [E9]", ["E9"], "FACTUAL"),
                          ("The database is Turso [E1].", ["E1"], "FACTUAL")])
    claims = [ClaimVerdict("c1", "We host on Fly.io [E1]", "FACTUAL", ["E1"], "PASS", [], (0, 22)),
              ClaimVerdict("c2", "we use Postgres [E9]", "FACTUAL", ["E9"], "FAIL", ["UNKNOWN_EVIDENCE_ID"], (27, 47)),
              ClaimVerdict("c3", "The database is Turso [E1].", "FACTUAL", ["E1"], "PASS", [], (49, 76))]
    return env, claims


def test_a_sentence_with_a_passing_and_a_failing_claim_fails():
    from controlplane.contracts import OutputEnvelope

    env, claims = _two_claim_verdicts()
    env["meta"]["modeLabel"] = "Ida"
    verdicts = sentence_verdicts(OutputEnvelope.model_validate(env), claims)
    assert [(v.verdict, v.claim_ids) for v in verdicts] == [("FAIL", ["c1", "c2"]), ("PASS", ["c3"])]
    assert verdicts[0].reason_codes == ["UNKNOWN_EVIDENCE_ID"]


@pytest.mark.parametrize("rigor_message, expect", [
    ("What changed lately?", TraceStatus.DEGRADED),  # low: suppress
    ("Where do we host?", TraceStatus.DEGRADED),  # medium: suppress
    ("Where do we host? Is it GDPR compliant?", TraceStatus.REFUSED),  # high: refuse
])
def test_mixed_sentence_through_each_degrade_path(kit, rigor_message, expect):
    env, _ = _two_claim_verdicts()
    evidence = [{"id": "E1", "text": HOSTING, "trust_tier": "authoritative"}]
    nli = PairTableNli({(HOSTING, "We host on Fly.io"): (0.97, 0.01), (HOSTING, "The database is Turso"): (0.97, 0.01)})
    result = run(kit, env, rigor_message, evidence, nli)
    assert result.status is expect
    assert_not_shown(result, "Postgres", "Fly.io")
    if expect is TraceStatus.DEGRADED:
        assert result.assistant_text.startswith("The database is Turso [E1].")


def test_mixed_sentence_through_the_refuse_mode_of_a_bundle(kit):
    data = kit.full.bundle.model_dump(mode="json", exclude_none=True)
    data["degrade"] = {"mode": "refuse", "by_rigor": {}}
    refusing = parse_bundle(data, source="test:refuse")
    env, _ = _two_claim_verdicts()
    env["meta"]["modeLabel"] = "Ida"  # the router's mode for this message
    result = kit.run([env] * 3, message="What changed lately?", evidence=[{"id": "E1", "text": HOSTING}],
                     policy=refusing, services=GateServices(nli_backend=PairTableNli({})))
    assert result.status is TraceStatus.REFUSED
    assert_not_shown(result, "Postgres", "Fly.io", "Turso")


def test_degrade_called_directly_suppresses_the_mixed_sentence(kit):
    from controlplane.contracts import EvidencePack, OutputEnvelope

    env, claims = _two_claim_verdicts()
    env["meta"]["modeLabel"] = "Ida"
    decision = route("What changed lately?", kit.full.bundle)
    outcome = degrade(kit.full.bundle, decision, EvidencePack(), OutputEnvelope.model_validate(env), claims, [])
    assert outcome.status is TraceStatus.DEGRADED
    assert outcome.record["kept_sentences"] == ["The database is Turso [E1]."]
    assert "Postgres" not in outcome.assistant_text


# -- unknown_label_required is enforced ----------------------------------------------------------------------------------
@pytest.mark.parametrize("required, fails", [(True, True), (False, False)])
def test_unknown_label_required_makes_uncited_claims_say_unknown(kit, required, fails):
    text = "We host on AWS."
    env = envelope(text, [(text, [], "FACTUAL")], mode="Ida")
    pack = kit.plane(policy=kit.policy).build_pack(
        [{"id": "E1", "text": HOSTING}],
        rules={"must_cite_for_factual_claims": False, "unknown_label_required": required})
    verdict = kit.verify(env, evidence=pack, message="What changed lately?")
    binding = next(r for r in verdict.evaluation.results if r.gate_id == "evidence_binding")
    assert binding.failed is fails
    if fails:
        assert binding.reason_codes == [ReasonCode.UNCITED_CLAIM]
        assert binding.details["unknown_label_required"] == ["c1"]
    honest = envelope("The evidence does not say where we host.",
                      [("The evidence does not say where we host.", [], ClaimStatus.UNKNOWN.value)], mode="Ida")
    results = kit.verify(honest, evidence=pack, message="What changed lately?").evaluation.results
    assert not next(r for r in results if r.gate_id == "evidence_binding").failed
