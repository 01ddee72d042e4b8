"""Contradictions between evidence items, handled per domain conflict_policy (EBOM), with the credibility
difference rule (> 0.3 favours the higher) and the outdated-source rule (an outdated source yields to a current one)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controlplane.evidence_pack import build_pack
from controlplane.gates.conflicts import deterministic_conflict, resolve_pair
from controlplane.gates.evidence_conflicts import EvidenceConflictsGate
from controlplane.gates.nli_entailment import NliEntailmentGate
from tests.gates.decision_helpers import codes, envelope, gate_input
from tests.gates.nli_backends import OverlapNliBackend, TableNliBackend

NOW_DT = datetime(2026, 6, 1, 12, tzinfo=UTC)
A = "The public API allows 100 requests per minute per key."
B = "The public API allows 500 requests per minute per key."

# one question per conflict policy of the default bundle
QUESTIONS = {
    "present_both": "How many requests per minute are allowed?",  # no domain: default_conflict_policy
    "present_with_analysis": "What is the API rate limit of our endpoint?",  # coding (medium)
    "refuse": "What rate limit does our security token endpoint enforce?",  # security_code (high)
}


def items(**extra_b):
    return [{"id": "E1", "text": A, "trust_tier": "authoritative"},
            {"id": "E2", "text": B, "trust_tier": "authoritative", **extra_b}]


def run_conflicts(question, env, evidence=None, backend=None, **params):
    return EvidenceConflictsGate().evaluate(gate_input("evidence_conflicts", question, evidence or items(), env,
                                                       backend, params=params))


ONE_SIDED = envelope([("The public API allows 100 requests per minute per key [E1].", ["E1"])])
BOTH = envelope([("One source says the public API allows 100 requests per minute per key [E1].", ["E1"]),
                 ("Another says the public API allows 500 requests per minute per key [E2].", ["E2"])])
ANALYSED = envelope(
    [("The public API allows 100 requests per minute per key [E1].", ["E1"]),
     ("The public API allows 500 requests per minute per key [E2].", ["E2"])],
    text="Sources conflict on this. The public API allows 100 requests per minute per key [E1]. "
         "The public API allows 500 requests per minute per key [E2].")


def test_deterministic_conflict_needs_the_same_subject():
    assert deterministic_conflict(B, "The public API allows 100 requests per minute per key.")[0] == "numbers"
    assert deterministic_conflict("The office plants are watered on Fridays at 5.", "The API allows 100 requests.") is None
    burst = "The public API allows bursts of 20 requests per second."
    assert deterministic_conflict(burst, "The public API allows 100 requests per minute per key.") is None
    other_subject = "Service Beta handles 110 requests per minute."
    assert deterministic_conflict(other_subject, "Service Alpha handles 100 requests per minute.") is None
    assert deterministic_conflict("Service B handles 110 requests per minute.", "Service A handles 100 requests per minute.") is None
    assert deterministic_conflict("Service A handles 110 requests per minute.", "Service A handles 100 requests per minute.")
    assert deterministic_conflict("Backups are not encrypted at rest.", "Backups are encrypted at rest.")[0] == "negation"


@pytest.mark.parametrize("backend", [None, OverlapNliBackend()], ids=["deterministic", "nli"])
def test_present_both_fails_one_sided_answer_and_passes_when_both_sides_are_cited(backend):
    one_sided = run_conflicts(QUESTIONS["present_both"], ONE_SIDED, backend=backend)
    assert one_sided.failed and one_sided.details["claims"] == {"c1": ["EVIDENCE_CONFLICT"]}
    assert one_sided.details["conflict_policy"] == "present_both"
    assert one_sided.details["conflicts"][0]["outcome"] == "other_side_not_presented"
    assert "present both with attribution" in one_sided.details["user_notes"][0]
    both = run_conflicts(QUESTIONS["present_both"], BOTH, backend=backend)
    assert both.passed, both.details
    assert {c["outcome"] for c in both.details["conflicts"]} == {"presented_both"}


def test_present_with_analysis_needs_both_sides_and_an_analysis():
    assert run_conflicts(QUESTIONS["present_with_analysis"], ONE_SIDED).failed
    not_analysed = run_conflicts(QUESTIONS["present_with_analysis"],
                                 envelope([("The public API allows 100 requests per minute per key [E1].", ["E1"]),
                                           ("The public API allows 500 requests per minute per key [E2].", ["E2"])]))
    assert not_analysed.failed and not_analysed.details["conflicts"][0]["outcome"] == "conflict_not_analysed"
    analysed = run_conflicts(QUESTIONS["present_with_analysis"], ANALYSED)
    assert analysed.details["conflict_policy"] == "present_with_analysis"
    assert analysed.passed, analysed.details


def test_refuse_policy_fails_even_when_both_sides_are_presented():
    result = run_conflicts(QUESTIONS["refuse"], ANALYSED)
    assert result.details["conflict_policy"] == "refuse"
    assert codes(result) == ["EVIDENCE_CONFLICT"] and set(result.details["claims"]) == {"c1", "c2"}
    assert "Cannot provide a verified answer. Sources contradict" in result.details["user_notes"][0]


def test_credibility_difference_above_point_three_favours_the_higher():
    evidence = [{"id": "E1", "text": A, "trust_tier": "authoritative"},  # 0.95
                {"id": "E2", "text": B, "trust_tier": "low"}]  # 0.35
    ok = run_conflicts(QUESTIONS["refuse"], ONE_SIDED, evidence)
    assert ok.passed and ok.details["conflicts"][0]["resolution"]["kind"] == "favor_higher_credibility"
    assert "Favoring higher-credibility source" in ok.details["disclosures"][0]
    relies_on_loser = envelope([("The public API allows 500 requests per minute per key [E2].", ["E2"])])
    bad = run_conflicts(QUESTIONS["present_both"], relies_on_loser, evidence)
    assert bad.failed and bad.details["conflicts"][0]["outcome"].startswith("claim_relies_on_overruled_source")


def test_credibility_difference_of_point_three_or_less_is_unresolved():
    a = build_pack([{"id": "E1", "text": A, "credibility": 0.9}, {"id": "E2", "text": B, "credibility": 0.6}]).evidence
    assert resolve_pair(a[0], a[1], NOW_DT).kind == "unresolved"
    b = build_pack([{"id": "E1", "text": A, "credibility": 0.91}, {"id": "E2", "text": B, "credibility": 0.6}]).evidence
    assert resolve_pair(b[0], b[1], NOW_DT).winner == "E1"


def test_outdated_source_yields_to_a_current_one():
    evidence = [{"id": "E1", "text": A, "trust_tier": "authoritative", "provenance": {"published_at": "2026-05-01"}},
                {"id": "E2", "text": B, "trust_tier": "authoritative", "provenance": {"published_at": "2023-01-10"}}]
    result = run_conflicts(QUESTIONS["refuse"], ONE_SIDED, evidence)
    assert result.passed
    resolution = result.details["conflicts"][0]["resolution"]
    assert resolution["kind"] == "use_current" and resolution["winner"] == "E1"
    assert "Using current information" in resolution["explanation"]
    stale = [{"id": "E1", "text": A, "volatility": "HIGH", "provenance": {"retrieved_at": "2026-06-01T08:00:00Z"}},
             {"id": "E2", "text": B, "volatility": "HIGH", "provenance": {"retrieved_at": "2026-06-01T11:30:00Z"}}]
    pack = build_pack(stale).evidence
    assert resolve_pair(pack[0], pack[1], NOW_DT).winner == "E2"  # E1 is 4 h old, past HIGH volatility's 1 h


def test_both_recent_is_a_standard_contradiction():
    evidence = [{"id": "E1", "text": A, "provenance": {"published_at": "2026-05-20"}},
                {"id": "E2", "text": B, "provenance": {"published_at": "2026-05-25"}}]
    pack = build_pack(evidence).evidence
    assert resolve_pair(pack[0], pack[1], NOW_DT).kind == "unresolved"


def test_nli_contradiction_between_items_is_detected_without_shared_numbers():
    claim = "Backups are encrypted at rest [E1]."
    evidence = [{"id": "E1", "text": "Backups are encrypted at rest with AES-256."},
                {"id": "E2", "text": "Backups are stored unencrypted on the storage volume."}]
    backend = TableNliBackend({evidence[0]["text"]: (0.95, 0.01), evidence[1]["text"]: (0.02, 0.9)})
    result = run_conflicts(QUESTIONS["present_both"], envelope([(claim, ["E1"])]), evidence, backend)
    assert result.failed and result.details["conflicts"][0]["signal"] == "nli"


def test_cited_contradiction_overruled_by_credibility_does_not_fail_the_claim():
    evidence = [{"id": "E1", "text": A, "trust_tier": "authoritative", "provenance": {"document_id": "d1"}},
                {"id": "E2", "text": B, "trust_tier": "low", "provenance": {"document_id": "d2"}}]
    env = envelope([("The public API allows 100 requests per minute per key [E1][E2].", ["E1", "E2"])])
    backend = TableNliBackend({A: (0.95, 0.01), B: (0.02, 0.95)})
    result = NliEntailmentGate().evaluate(gate_input("nli_entailment", QUESTIONS["present_both"], evidence, env, backend,
                                                     params={"checks": []}))
    record = result.details["claim_records"]["c1"]
    assert record["overruled_contradictions"][0]["overruled"] == "E2"
    assert result.passed, record
    same = [dict(e, trust_tier="authoritative") for e in evidence]
    result = NliEntailmentGate().evaluate(gate_input("nli_entailment", QUESTIONS["present_both"], same, env, backend,
                                                     params={"checks": []}))
    assert result.failed and result.details["claims"]["c1"] == ["CONFLICTING_VERDICTS"]



def test_an_item_about_another_entity_is_not_a_conflict_even_if_the_nli_says_contradiction():
    evidence = [{"id": "E1", "text": "Service Alpha handles 100 requests per minute."},
                {"id": "E2", "text": "Service Beta handles 900 requests per minute."}]
    backend = TableNliBackend({evidence[0]["text"]: (0.95, 0.01), evidence[1]["text"]: (0.01, 0.95)})
    env = envelope([("Service Alpha handles 100 requests per minute [E1].", ["E1"])])
    result = run_conflicts(QUESTIONS["refuse"], env, evidence, backend)
    assert result.passed and result.details["conflicts"] == []


def test_a_name_runs_through_a_slash_so_an_item_about_http_is_not_about_http_2():
    """The shipped verifier read "tern is a small HTTP client" as contradicting "tern does not support HTTP/2", and
    the faithful quote was refused as one side of a conflict. An item that says something about HTTP/2 still is."""
    claim = envelope([("tern does not support HTTP/2 [E1].", ["E1"])])
    client = [{"id": "E1", "text": "tern does not support HTTP/2."},
              {"id": "E2", "text": "tern is a small HTTP client for Python with retries built in."}]
    backend = TableNliBackend({client[0]["text"]: (0.95, 0.01), client[1]["text"]: (0.01, 0.95)})
    result = run_conflicts(QUESTIONS["present_both"], claim, client, backend)
    assert result.passed and result.details["conflicts"] == []
    supports = [client[0], {"id": "E2", "text": "Since 2.0 tern supports HTTP/2 for every request."}]
    backend = TableNliBackend({supports[0]["text"]: (0.95, 0.01), supports[1]["text"]: (0.01, 0.95)})
    result = run_conflicts(QUESTIONS["present_both"], claim, supports, backend)
    assert result.failed and [c["opposer"] for c in result.details["conflicts"]] == ["E2"]


def test_an_item_is_held_only_to_the_atomic_claims_it_is_about():
    """Over ADR-011's paragraphs, "Currency formatting is done on the client, but rounding is not." was refused as one
    side of a conflict: the offline-mode paragraph shares words with the first atomic claim ("client", "current"),
    which made it a candidate, and the shipped verifier read it as contradicting the second, "Rounding is not.", which
    it says nothing about (P(contradiction) 0.74). An item that is about the atomic claim it contradicts still
    conflicts."""
    prices = ("Clients never compute prices or totals. Currency formatting happens on the client; rounding never "
              "does.")
    offline = ("The iOS and Android clients may queue up to 50 mutations while offline. On reconnect the client "
               "sends the queue in order and the server replays each mutation against current state.")
    claim = envelope([("Currency formatting is done on the client, but rounding is not [E1].", ["E1"])])
    backend = OverlapNliBackend(contradictions=[("queue up to 50 mutations", "Rounding is not.")])
    evidence = [{"id": "E1", "text": prices}, {"id": "E2", "text": offline}]
    result = run_conflicts(QUESTIONS["present_with_analysis"], claim, evidence, backend)
    assert result.passed and result.details["conflicts"] == [], result.details
    rounding = "Rounding is done on the client as well, to the nearest cent."
    backend = OverlapNliBackend(contradictions=[("to the nearest cent", "Rounding is not.")])
    evidence = [{"id": "E1", "text": prices}, {"id": "E2", "text": rounding}]
    result = run_conflicts(QUESTIONS["present_with_analysis"], claim, evidence, backend)
    assert result.failed and [c["opposer"] for c in result.details["conflicts"]] == ["E2"]


def test_a_fragment_or_a_negation_of_something_else_is_no_deterministic_conflict():
    """Found by rewording answers over the example corpus: "For a SEV1, the status page must be updated within 15
    minutes of acknowledgement and then at least every 30 minutes." was refused as conflicting with the deploys
    paragraph, whose sentence holds every word of the atomic claim "Then at least every 30 minutes." ("every",
    "minutes") but not its number; and "Database: Turso" with the runbook's "use Turso point-in-time recovery into a
    new database (never over the primary)", whose "never" negates "over the primary". An atomic claim that names
    nothing but amounts and units is about no subject, and a negation conflicts only where it negates the claim's
    own words."""
    deploys = ("Deploys run from GitHub Actions on every merge to `main`. A deploy first updates 1 canary machine "
               "and watches its error rate for 15 minutes.")
    assert deterministic_conflict(deploys, "Then at least every 30 minutes.") is None
    recovery = ("To recover data, use Turso point-in-time recovery into a new database (never over the primary), "
                "verify it, then switch the `DATABASE_URL` secret.")
    assert deterministic_conflict(recovery, "Database: Turso.") is None
    # what still conflicts: the same subject with another number, or its own words negated
    assert deterministic_conflict("The status page is updated every 60 minutes.",
                                  "The status page is updated every 30 minutes.")[0] == "numbers"
    assert deterministic_conflict("Backups are never encrypted.", "Backups are encrypted.")[0] == "negation"
    assert deterministic_conflict("No backups are encrypted.", "Backups are encrypted.")[0] == "negation"
    assert deterministic_conflict("We don't use Turso.", "We use Turso.")[0] == "negation"
    assert deterministic_conflict("Backups are encrypted at rest.", "Backups are not encrypted.")[0] == "negation"
    # opposites and a negative prefix are no negative word, and still conflict
    long = "The public Harbor booking API and the admin dashboard are {} on Sundays during the maintenance window."
    assert deterministic_conflict(long.format("unavailable"), long.format("available"))[0] == "negation"
    copied = "Every nightly database export of the booking service is copied to object storage {} 02:00 UTC."
    assert deterministic_conflict(copied.format("before"), copied.format("after"))[0] == "negation"


LEAD_TEST = ("Lead climbing is allowed only after passing a separate lead test, which costs 20 euros and is open only "
             "to climbers aged 14 or over.")
DAY_PASSES = ("The centre is open from 7:00 to 22:30 on weekdays. A day pass costs 16 euros for adults and 11 euros for "
              "students and children aged 8 to 15.")


def test_an_atomic_claim_whose_subject_is_a_pronoun_is_about_nothing_another_item_says():
    """Refused over corpus h: "You can't take the lead test until you're 14, and it costs 20 euros." splits off "It
    costs 20 euros.", whose one word "costs" every price of the page holds: the day passes' sentence was read as
    the same subject with another number, and the verifier's P(contradiction) of an unrelated ten-visit card's chunk
    (0.74) as a conflict. What "it" is, another item cannot say."""
    assert deterministic_conflict(DAY_PASSES, "It costs 20 euros.") is None
    claim = envelope([("You can't take the lead test until you're 14, and it costs 20 euros [E1].", ["E1"])])
    evidence = [{"id": "E1", "text": LEAD_TEST, "trust_tier": "authoritative"},
                {"id": "E2", "text": DAY_PASSES, "trust_tier": "authoritative"}]
    backend = OverlapNliBackend(contradictions=[("day pass", "It costs 20 euros.")])
    result = run_conflicts(QUESTIONS["present_both"], claim, evidence, backend)
    assert not result.failed, result.details["conflicts"]
    # a subject named in so many words still conflicts
    assert deterministic_conflict(DAY_PASSES, "A day pass costs 20 euros for adults.")[0] == "numbers"


def test_a_condition_of_the_other_item_states_nothing_it_could_conflict_with():
    """Found while reading conflicts over the example LLC tax notes: a condition's words were read as stated, so
    "The item was used." conflicted with "Refunds are issued within 14 days if the item was not used.", and the
    condition's "not" cancelled the claim's, so "Refunds are not issued within 14 days." did not. A condition ("if
    ...", "unless ...") asserts nothing; the rule itself still can conflict. (The tax notes' own false conflict,
    "The LLC has not filed Form 8832 ..." against "... unless it files Form 8832 ...", is the verifier's, P(contradiction)
    0.76, and is left as it is.)"""
    irs = ("An LLC with at least two members is classified as a partnership for federal income tax purposes unless "
           "it files Form 8832 and elects to be treated as a corporation.")
    assert deterministic_conflict(irs, "The LLC has not filed Form 8832 or Form 2553.") is None
    refunds = "Refunds are issued within 14 days if the item was not used."
    assert deterministic_conflict(refunds, "The item was used.") is None
    assert deterministic_conflict(refunds, "Refunds are not issued within 14 days.")[0] == "negation"
    assert deterministic_conflict(irs, "An LLC with at least two members is not classified as a partnership for "
                                       "federal income tax purposes.")[0] == "negation"


def test_all_claims_are_scored_in_one_backend_call_and_no_pair_twice():
    backend = OverlapNliBackend()
    env = envelope([("The public API allows 100 requests per minute per key [E1].", ["E1"]),
                    ("The public API allows 500 requests per minute per key [E2].", ["E2"]),
                    ("The public API allows 100 requests per minute per key [E1].", ["E1"])])
    result = run_conflicts(QUESTIONS["present_both"], env, backend=backend)
    assert result.details["nli"] == backend.name
    assert backend.calls == 1
    # claims 1 and 3 repeat the same atomic claim and evidence: their two pairs are scored once (4 pairs, not 6)
    assert backend.pairs_scored == 4


def test_a_cached_backend_lets_evidence_conflicts_reuse_the_entailment_gate_scores():
    from controlplane.services import CachedNliBackend

    counting = OverlapNliBackend()
    cached = CachedNliBackend(counting)
    env = envelope([("The public API allows 100 requests per minute per key [E1].", ["E1"])])
    NliEntailmentGate().evaluate(gate_input("nli_entailment", QUESTIONS["present_both"], items(), env, cached))
    scored_by_entailment = counting.pairs_scored
    run_conflicts(QUESTIONS["present_both"], env, backend=cached)
    # evidence_conflicts needs (E1, atom) again, which is served from the cache; only the candidate E2 is new
    assert counting.pairs_scored - scored_by_entailment == 1


def test_the_analysis_prefilter_agrees_with_the_search():
    """evidence_conflicts skips the case-insensitive _ANALYSIS search for an ASCII answer that holds none of its
    literals; on random answers built from those words (and near misses, and letters that fold to ASCII) the
    answer must be the search's."""
    import random

    from controlplane.gates.evidence_conflicts import _ANALYSIS, analyses_a_difference

    words = ["Conflicting", "DISAGREES", "differ", "contradicts", "whereas", "However", "on the other hand",
             "more recent", "newer", "older", "outdated", "higher-credibility", "higher credibility", "while",
             "meanwhile", "indifferent", "holder", "Orion", "ships", "in", "March",
             "whereaſ", "hıgher", "dİffer", "ſtill", "whıle"]  # letters that fold to ASCII ones under IGNORECASE
    rng = random.Random(11)
    seen = set()
    for _ in range(3000):
        text = "".join(rng.choice(words) + rng.choice([" ", "", ", ", "\n"]) for _ in range(rng.randint(1, 6)))
        expected = _ANALYSIS.search(text) is not None
        assert analyses_a_difference(text) == expected, text
        seen.add(expected)
    assert seen == {True, False}


def _corpus_chunks():
    from pathlib import Path

    from controlplane.evidence_pack.chunking import chunk_document, read_document

    corpus = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    return [chunk.text for path in sorted(corpus.iterdir()) for chunk in chunk_document(read_document(path))]


def test_the_example_corpus_does_not_conflict_with_itself_and_its_edits_do():
    """The example corpus states no contradiction: each of its sentences (split into atomic claims) against every
    other chunk about the same thing raises only the two known false conflicts, both fragments the splitter leaves
    ("No e-mail addresses.", "Effective 2025-04-01."; 3 before the subject and negation-scope rules). Its sentences
    with a number changed, or "not" put after is/are/must/may/can/will, conflict with their own chunk as before (but
    for the heading "## When a limit is exceeded", which a heading made claim no longer restates: a heading alone
    is no sentence a claim restates)."""
    import re

    from controlplane.contracts.text import sentence_texts
    from controlplane.gates.atomic_claims import split_atomic
    from controlplane.gates.conflicts import _about_the_same

    chunks = _corpus_chunks()
    false = set()
    for i, text in enumerate(chunks):
        for atom in (a.text for s in sentence_texts(text) for a in split_atomic(s)):
            for j, other in enumerate(chunks):
                if j != i and _about_the_same(other, atom) and deterministic_conflict(other, atom):
                    false.add(atom)
    assert false == {"No e-mail addresses.", "Effective 2025-04-01."}
    found = {"numbers": [0, 0], "negation": [0, 0]}
    for text in chunks:
        for sentence in sentence_texts(text):
            if m := re.search(r"(?<![\w.-])(\d+)(?![\w.-])", sentence):
                edited = sentence[:m.start()] + str(int(m.group(1)) + 7) + sentence[m.end():]
                found["numbers"][0] += 1
                found["numbers"][1] += bool(deterministic_conflict(text, edited))
            if m := re.search(r"\b(is|are|must|may|can|will)\b(?! not)", sentence):
                found["negation"][0] += 1
                found["negation"][1] += bool(deterministic_conflict(text, sentence[:m.end()] + " not" + sentence[m.end():]))
    # (47 of 52 negations since an atomic claim whose subject is a pronoun is about nothing another item says: "They
    # may not run advisory validation ...", ADR-011's clients, which only the chunk itself tells)
    assert found == {"numbers": [59, 55], "negation": [52, 47]}
