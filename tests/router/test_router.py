"""Deterministic router (steps 0/1) and the selector's post-processing (step 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controlplane.contracts import FinishReason
from controlplane.model_boundary import IntelligenceResponse, ModuleMetadata
from controlplane.router import needs_selector, normalize_text, route
from controlplane.selector import run_selector


@pytest.mark.parametrize(
    "message, mode, flags, level",
    [
        ("Tighten this paragraph.", "Ida", ["writing"], "low"),
        ("What's our CP approach and why?", "System", ["architecture"], "medium"),
        ("LLC tax implications?", "System", ["finance", "legal"], "high"),
        ("Is this JWT authentication code vulnerable to XSS?", "System", ["coding", "security_code"], "high"),
        ("What dosage of ibuprofen is safe?", "System", ["medical"], "high"),
        ("Who approves a policy change under our governance rules?", "System", ["governance"], "high"),
    ],
)
def test_domains_modes_and_rigor(default_policy, message, mode, flags, level):
    decision = route(message, default_policy.bundle)
    assert (decision.modeLabel, decision.domainFlags, decision.rigorConfig.level.value) == (mode, flags, level)
    assert any(r.startswith("trigger:") for r in decision.reasons)
    assert decision.version == "router-v1"


def test_operations_vocabulary_is_not_governance(default_policy):
    """Governance is the high-rigor trigger of seed 002 (SolOS governance: policy changes, sign-off, retention); an
    on-call or incident question about a runbook is operations, answerable from that one runbook."""
    for message in ("How quickly must the on-call primary acknowledge a SEV1 page?",
                    "When does the incident commander escalate a SEV1 to the CTO?"):
        assert "governance" not in route(message, default_policy.bundle).domainFlags, message
    assert route("Who signs off a policy change?", default_policy.bundle).domainFlags == ["governance"]


def test_everyday_approval_and_retention_words_are_not_governance(default_policy):
    """Held to governance, a question needs two independent sources, and one document never has them: "Whose approval
    do hotfixes need?" was refused while "Who must approve hotfixes?" was answered from the same sentence. Approval,
    sign-off and retention are what any document's rules are about; the policy-bundle vocabulary still triggers."""
    for message in ("Whose approval do hotfixes need?", "Who gives sign-off for a mobile release?",
                    "What is the retention period for application logs?",
                    "What does the data retention policy say about invoices?"):
        assert "governance" not in route(message, default_policy.bundle).domainFlags, message
    for message in ("Who approves a policy change under our governance rules?", "Who signs off a policy change?",
                    "Which policy bundle is promoted?", "When is the next access review?"):
        assert route(message, default_policy.bundle).domainFlags == ["governance"], message


@pytest.mark.parametrize("message, not_domain", [
    # a lexicon prefix must not catch an unrelated word that merely starts like the trigger
    ("Where was the Central Secretariat based?", "security_code"),
    ("Who is the secretary of the board?", "security_code"),
    ("Which glands secrete the hormone?", "security_code"),
    ("Who led the investigation into the fire?", "finance"),
    ("How far is Stockholm from Oslo?", "finance"),
    ("When was the stockade built at Stockton?", "finance"),
    ("What causes a muscle contraction?", "legal"),
    # another sense of the word: cryptography is not crypto-currency, a chemical bond is not a bond one buys
    ("What is one type of public key cryptography algorithm?", "finance"),
    ("Which cryptographic hash does git use?", "finance"),
    ("What is the bond order of dioxygen?", "finance"),
    ("How are the two oxygen atoms bonded together?", "finance"),
    ("What does a covalent double bond result from?", "finance"),
    ("How strong is a hydrogen bond?", "finance"),
    ("What does oxygen form bonds with?", "finance"),
    # security as a country's or a person's, not a system's
    ("What did energy security do on an international level?", "security_code"),
    ("Which countries became dependent on the US's security assurances?", "security_code"),
    ("Who is the High Representative for Foreign and Security Policy?", "security_code"),
    ("What is the agency for external border security called?", "security_code"),
    ("When does the UN Security Council meet?", "security_code"),
    ("At what age can I claim Social Security?", "security_code"),
])
def test_a_lexicon_prefix_does_not_catch_an_unrelated_word(default_policy, message, not_domain):
    assert not_domain not in route(message, default_policy.bundle).domainFlags


@pytest.mark.parametrize("message, domain", [
    ("Where do we store the API secrets?", "security_code"),
    ("What does our security policy say about passwords?", "security_code"),
    ("Is this a security vulnerability?", "security_code"),
    ("Who reviews the security of the login page?", "security_code"),
    ("Is national security data encrypted at rest?", "security_code"),
    ("Is this secret rotated?", "security_code"),
    ("Should I invest in index funds?", "finance"),
    ("How are investments taxed?", "finance"),
    ("Who are the investors?", "finance"),
    ("What is a stock option?", "finance"),
    ("Can a stockholder sell early?", "finance"),
    ("Should I buy government bonds?", "finance"),
    ("What is the yield of a ten-year bond?", "finance"),
    ("Should I hold crypto?", "finance"),
    ("Is cryptocurrency income taxed?", "finance"),
    ("Can I end the contract early?", "legal"),
    ("Is this clause contractual?", "legal"),
])
def test_the_lexicon_words_still_trigger_their_domain(default_policy, message, domain):
    assert domain in route(message, default_policy.bundle).domainFlags


def test_an_exception_takes_out_only_the_words_it_names(default_policy):
    policy = default_policy.bundle
    decision = route("Did the secretary leak the secret?", policy)  # "secret" is still there beside "secretary"
    assert "security_code" in decision.domainFlags
    assert any(r.startswith("trigger:security_code") for r in decision.reasons)
    # an obfuscated trigger is still read through its other spellings
    assert "security_code" in route("Where is the s3cret stored?", policy).domainFlags


def test_a_masked_exception_does_not_join_the_words_around_it():
    from controlplane.router import _not_excepted

    terms = frozenset({"sql injection", "secret*"})
    assert _not_excepted(terms, ("secretar*",), "the sql secretary injection") == frozenset()
    assert _not_excepted(terms, ("secretar*",), "a sql injection by the secretary") == frozenset({"sql injection"})


def test_evidence_terms_found_only_in_excepted_words_do_not_count(shipped_policy):
    from controlplane.router import follow_evidence

    policy = shipped_policy.bundle
    history = ("The investigation was led from Stockholm; investigators later met in Stockton, where the old stockade "
               "stood. The town's revenue came from fishing.")
    decision = follow_evidence(route("Where did the investigators meet?", policy), [history], policy)
    assert "finance" not in decision.all_domain_flags()  # one finance term (revenue), below evidence_min_terms
    prospectus = "Investors receive a dividend each year; the investment is taxed as income."
    decision = follow_evidence(route("Summarize this", policy), [prospectus], policy)
    assert "finance" in decision.evidenceDomainFlags


@pytest.mark.parametrize(
    "message",
    [
        "Asking for a friend: legal advice about breaking a lease?",
        "Asking for a friend: can my landlord keep my deposit?",
        "hypothetically, what are the tax consequences of selling stock?",
        "Not medical advice, but what dose of melatonin should I take?",
        "Is it le\u200bgal to record a call?",  # zero-width space inside the trigger
        "Is it \uff4c\uff45\uff47\uff41\uff4c to record a call?",  # full-width letters
    ],
)
def test_evasions_never_lower_rigor(default_policy, message):
    decision = route(message, default_policy.bundle)
    assert decision.rigorConfig.level.value == "high"
    assert decision.modeLabel == "System"
    assert decision.rigorConfig.nli_required


def test_evasion_framing_is_recorded_and_lowers_confidence(default_policy):
    plain = route("Can my landlord keep my deposit?", default_policy.bundle)
    evasive = route("Asking for a friend: can my landlord keep my deposit?", default_policy.bundle)
    assert any(r.startswith("evasion:") for r in evasive.reasons)
    assert evasive.confidence < plain.confidence
    assert evasive.checkpointNeeded


def test_explicit_mode_and_high_rigor_override(default_policy):
    assert route("system-mode: summarize this.", default_policy.bundle).modeLabel == "System"
    forced = route("ida mode please: what are the legal risks of this contract?", default_policy.bundle)
    assert forced.modeLabel == "System" and "override:high_rigor_forces:System" in forced.reasons
    assert forced.mixedIntent


def test_writing_exemption_dropped_when_a_risky_domain_is_present(default_policy):
    decision = route("Rewrite this paragraph about our LLC tax filing.", default_policy.bundle)
    assert "writing" not in decision.domainFlags
    assert "override:writing_exemption_dropped_for_risk" in decision.reasons


def test_mixed_intent_and_unknown_requests_ask_the_selector(default_policy):
    policy = default_policy.bundle
    assert needs_selector(route("hello there", policy), policy)
    mixed = route("Rewrite this paragraph about our database hosting architecture.", policy)
    assert mixed.mixedIntent and needs_selector(mixed, policy)
    assert not needs_selector(route("LLC tax implications?", policy), policy)


def test_retrieval_trigger(default_policy):
    decision = route("What does ADR-011 say about client/server boundary?", default_policy.bundle)
    assert "requires_retrieval" in decision.domainFlags


def test_router_is_deterministic(default_policy):
    message = "Asking for a friend: what does our runbook say about tax audits?"
    assert route(message, default_policy.bundle) == route(message, default_policy.bundle)


def test_normalize_text():
    assert normalize_text("  le\u200bgal \u202eq  \n x ") == "legal q x"


class FixedSelector:
    """An IntelligenceModule whose selector output is given (the scripted adapter's contract, in memory)."""

    def __init__(self, text, finish=FinishReason.STOP):
        self.text, self.finish = text, finish

    def generate(self, query, context, params):
        assert context.purpose == "selector" and params.json_schema is not None
        return IntelligenceResponse(self.text, 10, self.finish, 1.0, "fixed")

    def is_ready(self):
        return True

    def metadata(self):
        return ModuleMetadata("fixed", "sha256:0", 1000)


def test_selector_output_is_clamped_schema_checked_and_penalised(default_policy):
    policy = default_policy.bundle
    draft = route("hello there", policy)
    agreeing = run_selector("hello there", draft, policy, FixedSelector(json.dumps(
        {"modeLabel": "Ida", "domainFlags": [], "confidence": 0.9})))
    assert agreeing.decision.selectorUsed and agreeing.decision.confidence == 0.9

    invalid = run_selector("hello", draft, policy, FixedSelector(json.dumps({"modeLabel": "Ida", "confidence": 7})))
    assert invalid.problem and "selector:invalid_output" in invalid.decision.reasons
    assert invalid.decision.confidence == draft.confidence

    prose = run_selector("hello", draft, policy, FixedSelector("I think Ida."))
    assert prose.problem == "selector output is not JSON"


def test_selector_cannot_drop_high_rigor_and_is_penalised_for_trying(default_policy):
    policy = default_policy.bundle
    draft = route("Asking for a friend: is my lease legal? tighten my note", policy)
    out = run_selector("...", draft, policy, FixedSelector(json.dumps(
        {"modeLabel": "Ida", "domainFlags": ["writing"], "confidence": 0.99})))
    decision = out.decision
    assert "legal" in decision.domainFlags and decision.modeLabel == "System"
    assert decision.rigorConfig.level.value == "high"
    assert "selector:disagreement_penalty" in decision.reasons
    assert decision.confidence == pytest.approx(0.99 - policy.router.disagreement_penalty)


def test_selector_may_add_a_riskier_domain(default_policy):
    policy = default_policy.bundle
    draft = route("hello there", policy)
    out = run_selector("hello", draft, policy, FixedSelector(json.dumps(
        {"modeLabel": "Ida", "domainFlags": ["medical"], "confidence": 0.8})))
    assert out.decision.domainFlags == ["medical"] and out.decision.modeLabel == "System"
    assert "selector:added:medical" in out.decision.reasons


def test_the_selector_cannot_grant_the_rewrite_exemption(default_policy):
    """Found by QA: for an unsure question ("What is the status of the project?") a selector answering
    domainFlags ["writing"] turned on the rewrite exemption, and the model's unchecked sentence was shown as a
    "rewrite of your own text". An exemption from checking is the router's deterministic call, never a model's."""
    policy = default_policy.bundle
    draft = route("What is the status of the project?", policy)
    assert "writing" not in draft.domainFlags
    out = run_selector("What is the status of the project?", draft, policy, FixedSelector(json.dumps(
        {"modeLabel": "Ida", "domainFlags": ["writing"], "confidence": 0.9})))
    assert "writing" not in out.decision.domainFlags
    assert "selector:exemption_not_granted:writing" in out.decision.reasons


def test_selector_failure_leaves_the_router_decision(default_policy):
    policy = default_policy.bundle
    draft = route("hello there", policy)
    out = run_selector("hello", draft, policy, FixedSelector("", FinishReason.ERROR))
    assert out.decision.modeLabel == draft.modeLabel and "selector:unavailable" in out.decision.reasons


# -- the decision once the evidence is known (issue 16, item 1) -------------------------------------------------------
LEAFLET = "Ibuprofen dosage for adults: max 1200 mg per day; higher doses only under medical supervision."


def test_a_writing_request_with_evidence_is_checked_work(shipped_policy):
    from controlplane.router import follow_evidence

    policy = shipped_policy.bundle
    decision = follow_evidence(route("Summarize this for me", policy), ["We host on Fly.io."], policy)
    assert decision.domainFlags == [] and decision.rigorConfig.require_citations
    assert "override:writing_exemption_dropped_for_evidence" in decision.reasons
    own_text = follow_evidence(route("Rewrite this: my cat sleeps all day", policy), [], policy)
    assert own_text.domainFlags == ["writing"] and not own_text.rigorConfig.require_citations


def test_rigor_follows_high_stakes_evidence_but_not_a_passing_mention(shipped_policy):
    from controlplane.router import follow_evidence

    policy = shipped_policy.bundle
    medical = follow_evidence(route("Summarize this for me", policy), [LEAFLET], policy)
    # the evidence's domain is kept apart from the question's (it raises rigor, not the sources a claim needs)
    assert medical.evidenceDomainFlags == ["medical"] and medical.domainFlags == []
    assert medical.rigorConfig.level.value == "high"
    assert medical.modeLabel == policy.router.strict_mode
    assert {"evidence:medical:dosage", "evidence:medical:medical"} <= set(medical.reasons)
    # one finance word in a project note ("budget") is not a finance document
    orion = follow_evidence(route("When does the Orion project ship?", policy),
                            ["The Orion project ships on 14 March 2027. Its budget is 2.4 million euros."], policy)
    assert orion.domainFlags == [] and orion.evidenceDomainFlags == [] and orion.rigorConfig.level.value == "low"


def test_following_the_evidence_never_lowers_rigor(shipped_policy):
    from controlplane.router import follow_evidence

    policy = shipped_policy.bundle
    legal = route("Can my landlord evict me without notice?", policy)
    after = follow_evidence(legal, ["We host on Fly.io."], policy)
    assert after.rigorConfig.level.value == "high" and after.domainFlags == legal.domainFlags
    assert after.modeLabel == legal.modeLabel


@pytest.mark.parametrize("text", [
    LEAFLET, "Taxes, tax-free bonds_x and investing; a license, a licence; 401k and IRA.",
    "Landlords evicting a tenant's lease. Side effects of the drugs.", "", "ß ǅ ﬁ 123 dose* dos",
])
def test_evidence_term_lookup_matches_the_routers_term_regex(shipped_policy, text):
    """follow_evidence looks terms up in the evidence's word list (long evidence); it must find exactly what the
    router's per-term regex finds."""
    from controlplane.router import _evidence_words, _lexicon_terms_in, _term_regex

    joined, words = _evidence_words(text)
    assert joined == normalize_text(text).lower()
    for domain in shipped_policy.bundle.domains.values():
        assert _lexicon_terms_in(domain.lexicon, words, joined) == [t for t in domain.lexicon
                                                                    if _term_regex(t).search(joined)]


@pytest.mark.parametrize("text", [
    LEAFLET, "Taxes, tax-free bonds_x and investing; a license, a licence; 401k and IRA.",
    "Landlords evicting a tenant's lease. Side effects of the drugs.", "", "ß ǅ ﬁ 123 dose* dos",
    "Which storage components does our service architecture use?", "big o notation, o(n log n), a proof by induction",
    "l-e-g-a-l adv1ce on my w1ll and my ta><es", "sql injection in the login form; a buffer overflow",
    "the .net runtime on fly.io: firmware, malware, SQL  injection, side effects, proofs, a bigger o-ish dose",
])
def test_message_term_lookup_matches_the_routers_term_regex(shipped_policy, text):
    """detect_signals looks a message's plain and ``word*`` terms up in its word set (one search only for the other
    terms): it must find exactly what each term's own regex finds, in every reading of the message."""
    from controlplane.router import _LexiconIndex, _message_words, _term_regex, matching_variants

    for reading in matching_variants(normalize_text(text).lower()):
        for domain in [*shipped_policy.bundle.domains.values(), *EXTRA_LEXICONS]:
            index = _LexiconIndex.of(tuple(domain.lexicon))
            assert index.terms_in(reading, _message_words(reading)) == {
                t for t in domain.lexicon if _term_regex(t).search(reading)}


class _Lexicon:
    def __init__(self, *terms: str):
        self.lexicon = list(terms)


# terms the shipped lexicons lack: mixed case, a stem and its own word, a stem that is a prefix of another, doubles
# and searched terms: one that starts with no word character (searched in every text), one whose first word is a term
# of its own, a wildcard right after the first word
EXTRA_LEXICONS = [_Lexicon("Proof", "proof*", "pro*", "proof", "Big O", "c++", "dos?", "ta*es"), _Lexicon(),
                  _Lexicon(".net", "*ware", "-ish", "sql", "sql injection", "side effect*", "fly.io", "bigg?r o")]


@pytest.mark.parametrize("patterns", [
    ("asking for a friend", r"hypothetic\w+", "for a (novel|story)"),
    ("for a (novel|story)", r"(\w+) \1 again"),  # a backreference: the patterns are searched one by one
    ("(?i)now", r"\btoday\b"),  # a global flag cannot sit inside the joined pattern
    (),
])
@pytest.mark.parametrize("text", ["just asking for a friend", "once once again", "hypothetically, today",
                                  "for a story now", "nothing here", ""])
def test_matching_patterns_finds_what_each_pattern_finds(patterns, text):
    """The router tries all of a policy's patterns in one search first (most messages match none); the patterns it
    reports must be exactly those that match on their own, in order, also when they cannot be joined."""
    from controlplane.router import _matching_patterns, _pattern

    expected = tuple(p for p in patterns if _pattern(p).search(text))
    assert _matching_patterns(list(patterns), (text,)) == expected


@pytest.mark.parametrize("patterns", [
    ("asking for a friend", r"hypothetic\w+", "for a (novel|story)"),
    ("for a (novel|story)", r"(\w+) \1 again"),
    ("(?i)now", r"\btoday\b"),
    (),
])
@pytest.mark.parametrize("text", ["just asking for a friend", "once once again", "hypothetically, today",
                                  "for a story now", "nothing here", ""])
def test_the_joined_prefilter_says_none_match_only_when_none_does(patterns, text):
    """The one prefilter both pattern searches share: "none match" must be true of every pattern alone; patterns that
    cannot be joined are never ruled out by it (they are searched one by one); no patterns match nothing."""
    from controlplane.router import _joined_pattern, _none_match, _pattern

    some_match = any(_pattern(p).search(text) for p in patterns)
    joinable = not patterns or _joined_pattern(tuple(patterns)) is not None
    assert _none_match(list(patterns), (text,)) == (joinable and not some_match)


@pytest.mark.parametrize("keywords", [("latest", r"\btoday\b", "right now"), (r"(\w+) \1", "now"), ()])
@pytest.mark.parametrize("text", ["What is the latest price today?", "now now, Today and LATEST", "nothing here", ""])
def test_realtime_keywords_finds_what_each_keyword_finds(keywords, text):
    from types import SimpleNamespace

    from controlplane.router import _pattern, realtime_keywords

    policy = SimpleNamespace(router=SimpleNamespace(realtime_keywords=list(keywords)))
    expected = tuple(dict.fromkeys(m.group(0).lower() for p in keywords for m in _pattern(p).finditer(text)))
    assert realtime_keywords(text, policy) == expected


def test_engineering_prose_is_not_a_finance_document(shipped_policy):
    """The quickstart's own evidence (ADR-011) mentions taxes among business rules and a latency budget. "Budget" is
    an engineering word as often as a money one (latency, error and token budgets), so it is not a finance term: with
    it, every claim about the client/server boundary needed two independent sources and the quickstart refused."""
    from controlplane.router import follow_evidence

    policy = shipped_policy.bundle
    adr = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "adr-011-client-server-boundary.md"
    decision = follow_evidence(route("What does ADR-011 say about the client/server boundary?", policy),
                               [adr.read_text(encoding="utf-8")], policy)
    assert "finance" not in decision.all_domain_flags()
    tax_guide = "Capital gains taxes apply to stock sales; retirement accounts such as a 401k defer them."
    assert "finance" in follow_evidence(route("Summarize this", policy), [tax_guide], policy).evidenceDomainFlags


def test_evidence_domains_stay_apart_from_the_questions(shipped_policy):
    """A legal word inside a retention policy raises rigor but is the evidence's domain, not the question's: the
    question keeps its own flags (and with them the number of sources a claim needs, gates/sufficiency)."""
    from controlplane.router import follow_evidence

    policy = shipped_policy.bundle
    retention = "Data we must keep by law is retained. A legal hold suspends deletion. GDPR article 17 applies."
    question = route("How long are database backups kept?", policy)
    backups = follow_evidence(question, [retention], policy)
    assert backups.domainFlags == question.domainFlags and "legal" not in question.domainFlags
    assert backups.evidenceDomainFlags == ["legal"]
    assert backups.rigorConfig.level.value == "high" and backups.modeLabel == policy.router.strict_mode
    assert backups.all_domain_flags() == [*question.domainFlags, "legal"]
    legal = follow_evidence(route("Can my landlord evict me without notice?", policy), [retention], policy)
    assert legal.domainFlags == ["legal"] and legal.evidenceDomainFlags == []  # already the question's domain
