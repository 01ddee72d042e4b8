"""A sentence that opens with a pronoun ("Its budget is 2.4 million euros.") is also offered with the sentence before
it, as one verbatim quote (controlplane/quote.py pronoun_pairs): alone it names nothing the question asks about, and
"What is the Orion budget?" ended UNKNOWN over the issue's own two-line document. The ranking tests build the
ranking by hand (no MiniLM), so they run in the fast loop; the last test runs the shipped scorer and verifier."""

from __future__ import annotations

import json

import pytest

from controlplane.evidence_pack import build_pack
from controlplane.gates.verbatim import is_whole_sentences
from controlplane.policy_bundles.loader import load_bundle
from controlplane.quote import Candidate, Ranking, evidence_sentences, pronoun_pairs
from tests.answer_modes.asking import verified_single_claim

SHIP = "The Orion project ships on 14 March 2027."
BUDGET = "Its budget is 2.4 million euros."
ORION = f"{SHIP} {BUDGET}"


def units(text: str) -> list[tuple[str, int, int]]:
    return [(c.text, c.start_char, c.end_char) for c in evidence_sentences(build_pack([{"id": "E1", "text": text}]))
            if c.sentences == 1]


def test_a_pronoun_led_sentence_is_paired_with_the_sentence_just_before_it():
    assert pronoun_pairs(ORION, units(ORION)) == [(ORION, 0, len(ORION))]
    assert is_whole_sentences(ORION, ORION)  # verbatim: entailed by construction, no NLI call
    wrapped = "The Orion project ships\non 14 March 2027. Its budget is 2.4 million euros."
    assert [start for _, start, _ in pronoun_pairs(wrapped, units(wrapped))] == [0]  # a hard wrap is not a break


@pytest.mark.parametrize("text", [
    f"{SHIP}\n\n{BUDGET}",  # another paragraph
    f"- {SHIP}\n- {BUDGET}",  # another list item
    f"{SHIP} Yes, really. {BUDGET}",  # a sentence in between that is not offered (too short): not consecutive
    f"{SHIP} The budget is 2.4 million euros.",  # no pronoun
])
def test_no_pair_across_a_break_or_a_skipped_sentence(text):
    assert pronoun_pairs(text, units(text)) == []


def test_the_pair_is_a_candidate_beside_its_sentences():
    candidates = evidence_sentences(build_pack([{"id": "E1", "text": ORION}]))
    assert [(c.text, c.sentences) for c in candidates] == [(SHIP, 1), (BUDGET, 1), (ORION, 2)]
    assert candidates[2].as_dict()["sentences"] == 2 and "sentences" not in candidates[0].as_dict()


def ranking(pair_score: float) -> Ranking:
    return Ranking("What is the Orion budget?", (
        Candidate(0, "E1", SHIP, 0, len(SHIP), 0.5, 0.5),
        Candidate(0, "E1", BUDGET, len(SHIP) + 1, len(ORION), 0.6, 0.3),
        Candidate(0, "E1", ORION, 0, len(ORION), 0.7, pair_score, "", 2),
    ), 0.4)


def test_a_pair_and_its_own_sentences_are_never_offered_together():
    settings = load_bundle().bundle.quote
    # the better-scored wins; what overlaps it is not offered (or shown as a closest passage) beside it
    assert [c.text for c in ranking(0.9).candidates(settings)] == [ORION]
    assert [c.text for c in ranking(0.1).candidates(settings)] == [SHIP, BUDGET]
    assert [c.text for c in ranking(0.9).closest(2)] == [ORION]
    # a failed pair is excluded by its own span, not by where its first sentence starts
    assert [c.text for c in ranking(0.9).candidates(settings, frozenset({("E1", 0, len(ORION))}))] == [SHIP, BUDGET]


def test_a_statement_question_quotes_single_sentences_only():
    """"What does X say about Y?" quotes the most similar sentences; ranked by similarity a pair, which holds more
    words, would crowd out the sentences beside it (it did so on the quickstart question)."""
    offered = ranking(0.9).candidates(load_bundle().bundle.quote, by_relevance=True)
    assert [c.text for c in offered] == [BUDGET, SHIP]


@pytest.mark.models
def test_the_issue_budget_question_ends_verified_with_the_pair(scorer_decides):
    result, _ = verified_single_claim(scorer_decides, "What is the Orion budget?", ORION, "Orion")
    assert result.assistant_text == f"{ORION} [E1]"
    nli = next(g for g in result.attempts[-1].gate_results if g.gate_id == "nli_entailment")
    assert "VERBATIM_QUOTE" in json.dumps(nli.details)  # whole sentences: entailed by construction, no model call
    # and a question the two sentences do not answer still ends UNKNOWN
    unknown = scorer_decides.run([{"role": "user", "content": "Who founded the Orion project?"}],
                                 evidence=[{"id": "E1", "title": "Orion", "text": ORION, "trust_tier": "authoritative"}])
    assert not unknown.verified and unknown.assistant_text.startswith("The evidence does not answer this question.")
