"""The answerability scorer (issue 15): its features mark what SQuAD 2.0's unanswerable rewrites do (a swapped
entity, number or antonym, an added negation), its question model decides "nothing here answers", and a table row is
read under its header. Feature tests use lexical_features directly with made-up cosines (the features are plain
functions of the text); the scorer tests run the shipped file on real MiniLM vectors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from controlplane.answerability import (
    LEXICAL_FEATURES,
    SENTENCE_FEATURES,
    VERIFIER_FEATURES,
    AnswerabilityScorer,
    LinearModel,
    lexical_features,
    shipped_scorer,
    verifier_features,
)
from controlplane.contracts.errors import ConfigurationError
from controlplane.evidence_pack import build_pack
from controlplane.quote import evidence_sentences, label_item_reading, rank_candidates, table_row_text
from tests.answer_modes.asking import unknown_over, verified_single_claim
from tests.standins import RowwiseVerifier

ORION = "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. The team sits in Lyon."
RETENTION = """# Data retention

| data | retention | notes |
| --- | --- | --- |
| application logs | 30 days | no message bodies |
| HTTP access logs | 90 days | IP addresses truncated |
| database backups | 35 days | encrypted at rest |
"""


def feature(question: str, sentences: list[str], name: str, evidence: str | None = None) -> list[float]:
    cosines = np.linspace(0.6, 0.3, len(sentences))
    rows = lexical_features(question, sentences, cosines, evidence if evidence is not None else " ".join(sentences))
    return [float(v) for v in rows[:, LEXICAL_FEATURES.index(name)]]


# -- features ----------------------------------------------------------------------------------------------------------

def test_type_candidate_wants_an_answer_the_question_does_not_already_say():
    assert feature("When did the Orion project ship?", ["The Orion project shipped in 1998.",
                                                        "The Orion project was large."], "type_candidate") == [1.0, 0.0]
    # the only year of the sentence is the question's own: no answer of the asked type
    assert feature("When did the 1998 model ship?", ["The 1998 model shipped late."], "type_candidate") == [0.0]
    assert feature("How many people work on Orion?", ["Orion employs 40 people."], "type_candidate") == [1.0]
    # a month is capitalised but is not who did it
    assert feature("Who founded the Orion project?", ["The Orion project ships on 14 March 2027.",
                                                      "Ada Lovelace founded the Orion project."],
                   "type_candidate") == [0.0, 1.0]


def test_who_is_answered_by_a_role_as_well_as_a_name():
    """Runbooks and ADRs name roles, not people: "Who must approve ...?" is answered by "the platform team" (the
    example corpus's question ended UNKNOWN, 0.25 against the threshold 0.38). A role the question already names
    answers nothing, and neither does a month."""
    question = "Who must approve rate limit increases?"
    sentences = ["Increases need approval from the platform team.", "Increases are rare."]
    assert feature(question, sentences, "type_candidate") == [1.0, 0.0]
    assert feature(question, sentences, "answer_type_match") == [1.0, 0.0]
    assert feature("Which engineer leads the platform team?", ["The platform team meets weekly."],
                   "type_candidate") == [0.5]  # "which": no expectation
    assert feature("Who leads the platform team?", ["The platform team meets weekly."], "type_candidate") == [0.0]
    assert feature("Who founded it?", ["It was founded in March."], "answer_type_match") == [0.0]


@pytest.mark.models
def test_a_question_a_role_answers_ends_verified():
    """End to end on the example corpus's case, with the shipped scorer and verifier."""
    scorer = shipped_scorer()
    pack = build_pack([{"id": "E1", "text": "Enterprise keys get 3,000 requests per minute. Increases above 10,000 "
                                            "requests per minute need approval from the platform team."}])
    ranking = rank_candidates("Who must approve rate limit increases above 10,000 requests per minute?", pack, scorer)
    best = max(ranking.all_sentences, key=lambda c: c.answerability)
    assert "platform team" in best.text and best.answerability >= scorer.threshold


def test_a_date_is_not_an_amount():
    """"How much does the Orion project cost?" is not answered by the day it ships (the shipped scorer showed that
    sentence as the answer, because any number counted as an amount)."""
    sentences = ["The Orion project ships on 14 March 2027.", "Its budget is 2.4 million euros."]
    assert feature("How much does the Orion project cost?", sentences, "type_candidate") == [0.0, 1.0]
    assert feature("How much does the Orion project cost?", sentences, "answer_type_match") == [0.0, 1.0]
    assert feature("How many staff did it have in 1998?", ["In 1998 it had 3,000 staff."], "type_candidate") == [1.0]
    # "how long" may be answered by a date range, so there a date still counts
    assert feature("How long did the war last?", ["The war lasted from 1914 to 1918."], "type_candidate") == [1.0]


def test_a_swapped_entity_number_negation_or_antonym_is_marked():
    evidence = "Ford opened its first plant in Europe in 1911."
    assert feature("Where did Mazda open its first plant?", [evidence], "capitalised_missing_from_sentence") == [1.0]
    assert feature("Where did Ford open its first plant?", [evidence], "capitalised_missing_from_sentence") == [0.0]
    assert feature("What did Ford open in 1913?", [evidence], "numbers_missing_from_evidence") == [1.0]
    assert feature("What did Ford open in 1911?", [evidence], "numbers_missing_from_evidence") == [0.0]
    assert feature("Where did Ford not open a plant?", [evidence], "negation_mismatch") == [1.0]
    assert feature("Where did Ford open a plant?", [evidence], "negation_mismatch") == [0.0]
    assert feature("Where did Ford open its last plant?", [evidence], "antonym_swap") == [1.0]
    assert feature("Where did Ford open its first plant?", [evidence], "antonym_swap") == [0.0]


def test_how_long_before_is_an_idiom_not_an_antonym_to_swap():
    """"How long before X?" asks how long until X, and the answer says "after": no swap. A "before" that is a term of
    the question still is one ("What happened before the war?" against a sentence about after it)."""
    timeout = ["Connections time out after 30 seconds instead of 10."]
    for question in ("How long before a connection times out?", "How soon before the deadline are reminders sent?",
                     "How many days before expiry is a card renewed?"):
        assert feature(question, timeout, "antonym_swap") == [0.0], question
    assert feature("What happened before the war?", ["After the war, the city was rebuilt."], "antonym_swap") == [1.0]
    assert feature("How long did it last before the war?", ["After the war, it lasted a year."],
                   "antonym_swap") == [1.0]


@pytest.mark.models
def test_a_how_long_before_question_is_answered(scorer_decides):
    """The antonym feature alone held this answer at 0.10 against the 0.39 threshold."""
    result = scorer_decides.run("How long before a connection times out?", evidence=[
        {"id": "E1", "title": "Changelog", "trust_tier": "authoritative",
         "text": "- Connections now time out after 30 seconds instead of 10.\n- New export option."}])
    assert result.verified, result.assistant_text
    assert result.assistant_text == "- Connections now time out after 30 seconds instead of 10. [E1]"


def test_where_is_answered_by_a_path_a_url_or_a_code_name():
    """In technical documents a place is often a path, a URL or a region code. A command (a code span with spaces) is
    no place, and neither is a code name the question already holds."""
    where = "Where does quarry keep its configuration?"
    assert feature(where, ["quarry reads `~/.config/quarry/config.toml` at start."], "type_candidate") == [1.0]
    assert feature(where, ["The docs are at https://quarry.example/docs today."], "type_candidate") == [1.0]
    assert feature("Where is the primary region?", ["The primary region is `ams` (Amsterdam)."],
                   "type_candidate") == [1.0]
    assert feature(where, ["Run `quarry sync --dry-run` to see the changes."], "type_candidate") == [0.0]
    assert feature("Where does `ams` run?", ["Production runs in `ams` today."], "type_candidate") == [0.0]


@pytest.mark.models
def test_a_where_question_a_path_answers_is_answered(scorer_decides):
    """Without a path counting as a place, this answer stayed at 0.26 against the 0.39 threshold."""
    result = scorer_decides.run("Where does quarry keep its configuration?", evidence=[
        {"id": "E1", "title": "quarry FAQ", "trust_tier": "authoritative",
         "text": "quarry reads `~/.config/quarry/config.toml`; the `QUARRY_CONFIG` environment variable points it "
                 "elsewhere. quarry is open source under the Apache 2.0 licence."}])
    assert result.verified, result.assistant_text
    assert result.assistant_text.startswith("quarry reads `~/.config/quarry/config.toml`;"), result.assistant_text


def test_window_and_run_features_read_the_neighbours_and_word_order():
    sentences = ["Rollo led the Norse raiders.", "He agreed to swear fealty to King Charles.", "Normandy grew."]
    assert feature("Who led the raiders that swore fealty to King Charles?", sentences, "window_overlap")[0] > \
        feature("Who led the raiders that swore fealty to King Charles?", sentences, "sentence_overlap")[0]
    assert feature("Who swore fealty to King Charles?", sentences, "longest_run")[1] == pytest.approx(4 / 6)


# -- the scorer --------------------------------------------------------------------------------------------------------

def _model(features: tuple[str, ...], weights: list[float], bias: float) -> LinearModel:
    n = len(features)
    return LinearModel(np.asarray(weights, dtype=float), bias, np.zeros(n), np.ones(n), features)


def test_the_best_sentence_carries_the_question_probability_the_others_less():
    sentence_model = _model(("cosine",), [4.0], -2.0)
    question_model = _model(("best_logit",), [0.0], 0.0)  # P(answerable) = 0.5 whatever the sentences
    scorer = AnswerabilityScorer(sentence_model, 0.4, {}, question_model)
    lexical = np.zeros((3, len(LEXICAL_FEATURES)))
    lexical[:, LEXICAL_FEATURES.index("cosine")] = [0.2, 0.9, 0.5]
    scores = scorer.score_features(lexical)
    assert int(np.argmax(scores)) == 1 and scores[1] == pytest.approx(0.5)
    assert scores[0] < scores[2] < scores[1]


def _floor_scorer(floor: float | None) -> AnswerabilityScorer:
    """A scorer that passes every sentence (P = 0.88) unless its evidence overlap floor stops it."""
    return AnswerabilityScorer(_model(("cosine",), [0.0], 2.0), 0.4, {}, evidence_overlap_floor=floor)


def _floor_scores(scorer: AnswerabilityScorer, question: str, sentences: list[str]) -> list[float]:
    lexical = lexical_features(question, sentences, np.linspace(0.6, 0.3, len(sentences)), " ".join(sentences))
    return [round(float(p), 2) for p in scorer.score_features(lexical)]


def test_evidence_holding_at_most_a_quarter_of_the_questions_words_answers_nothing():
    """Seen on the example corpus's dev split: "Which payment provider does Harbor use?" was answered, verified, with
    "Applies to the public Harbor API `/api/v2`." (0.41 against 0.395): the item holds 1 of the question's 4 content
    words. The sentence model learnt from SQuAD 2.0 that more overlap means less answerable, so nothing in it stops
    this; the floor does."""
    question = "Which payment provider does Harbor use?"
    one_of_four = ["Applies to the public Harbor API.", "Last changed in August."]
    two_of_four = ["Harbor takes payments through the API.", "Last changed in August."]
    assert _floor_scores(_floor_scorer(None), question, one_of_four) == [0.88, 0.88]
    assert _floor_scores(_floor_scorer(0.25), question, one_of_four) == [0.0, 0.0]
    assert _floor_scores(_floor_scorer(0.25), question, ["Nothing of it here.", "Really."]) == [0.0, 0.0]
    assert _floor_scores(_floor_scorer(0.25), question, two_of_four) == [0.88, 0.88]
    # a question with no content word has nothing the evidence could hold: the floor does not apply
    assert _floor_scores(_floor_scorer(0.25), "What is it?", one_of_four) == [0.88, 0.88]


def test_the_shipped_scorer_has_the_evidence_overlap_floor_and_round_trips_it():
    scorer = shipped_scorer()
    assert scorer.evidence_overlap_floor == 0.25
    assert AnswerabilityScorer.from_dict(scorer.as_dict()).evidence_overlap_floor == 0.25
    data = scorer.as_dict()
    del data["evidence_overlap_floor"]  # a scorer file written before the floor: none
    assert AnswerabilityScorer.from_dict(data).evidence_overlap_floor is None


def test_a_scorer_file_naming_an_unknown_feature_is_refused():
    data = shipped_scorer().as_dict()
    data["sentence_model"]["features"][0] = "invented_feature"
    with pytest.raises(ValueError, match="invented_feature"):
        AnswerabilityScorer.from_dict(json.loads(json.dumps(data)))
    data = shipped_scorer().as_dict()
    data["sentence_model"]["weights"] = data["sentence_model"]["weights"][:-1]
    with pytest.raises(ValueError, match="weights for"):
        AnswerabilityScorer.from_dict(data)


def test_the_shipped_scorer_reads_every_feature_and_round_trips():
    scorer = shipped_scorer()
    # the variant chosen out of fold: every lexical feature and the verifier's three logits
    assert set(scorer.sentence_model.features) == set(LEXICAL_FEATURES) | set(VERIFIER_FEATURES)
    assert scorer.uses_verifier
    assert scorer.info["shipped_variant"] in scorer.info["out_of_fold_by_variant"]
    assert AnswerabilityScorer.from_dict(json.loads(json.dumps(scorer.as_dict()))).as_dict() == scorer.as_dict()


@pytest.mark.models
def test_a_swapped_entity_or_added_negation_lowers_answerability():
    scorer = shipped_scorer()
    pack = build_pack([{"id": "E1", "title": "Orion", "text": ORION}])

    def best(question: str) -> float:
        return max(c.answerability for c in rank_candidates(question, pack, scorer).all_sentences)

    answerable = best("When does the Orion project ship?")
    assert answerable >= scorer.threshold
    assert best("When did the Orion project not ship?") < scorer.threshold
    assert best("Who founded the Orion project?") < scorer.threshold
    # A swapped entity lowers it, though not always below the threshold (measured: 0.78 -> 0.42, threshold 0.39)
    assert best("When does the Apollo project ship?") < answerable - 0.2


@pytest.mark.models
def test_the_day_a_project_ships_is_not_shown_as_what_it_costs():
    """Seen as a new user: "How much does the Orion project cost?" was answered, verified, with "The Orion project
    ships on 14 March 2027." (0.45 against the threshold 0.375), because the date's numbers counted as an amount."""
    scorer = shipped_scorer()
    pack = build_pack([{"id": "E1", "title": "Orion", "text": ORION}])
    for question in ("How much does the Orion project cost?", "How much money does the Orion project have?"):
        scores = {c.text: c.answerability for c in rank_candidates(question, pack, scorer).all_sentences}
        assert scores["The Orion project ships on 14 March 2027."] < scorer.threshold, question


@pytest.mark.models  # MiniLM and the shipped verifier
def test_each_evidence_item_is_scored_as_the_only_evidence():
    """The scorer was trained on one paragraph per question: another retrieved chunk that shares the question's words
    must not move the scores of this item's sentences (it did when the features read the whole pack)."""
    scorer = shipped_scorer()
    question = "When does the Orion project ship?"
    alone = build_pack([{"id": "E1", "title": "Orion", "text": ORION}])
    crowded = build_pack([{"id": "E1", "title": "Orion", "text": ORION},
                          {"id": "E2", "title": "Projects", "text": "Every project ships a changelog. The project "
                                                                    "board meets when a release is due."}])
    scores = {c.text: c.answerability for c in rank_candidates(question, alone, scorer).all_sentences}
    beside = {c.text: c.answerability for c in rank_candidates(question, crowded, scorer).all_sentences
              if c.evidence_id == "E1"}
    # The verifier scores every sentence of the pack in one bf16 batch, and a longer batch pads differently: that moves
    # a score by a few 1e-4 (seen: 6e-4). The test guards against features read from the other item, not that rounding.
    assert beside == pytest.approx(scores, abs=2e-3)
    assert max(scores.values()) >= scorer.threshold


# -- tables ------------------------------------------------------------------------------------------------------------

HEADER = "| data | retention | notes |"


def test_a_table_row_is_quoted_under_its_header_line_and_read_under_its_header():
    pack = build_pack([{"id": "E1", "title": "Retention", "text": RETENTION}])
    candidates = evidence_sentences(pack)
    # the header and the separator are not offered on their own; each row is quoted with the header line above it
    # (a row alone has no column names: "| database backups | 35 days | ... |" reads as nothing)
    assert [c.text for c in candidates] == [f"{HEADER}\n| application logs | 30 days | no message bodies |",
                                            f"{HEADER}\n| HTTP access logs | 90 days | IP addresses truncated |",
                                            f"{HEADER}\n| database backups | 35 days | encrypted at rest |"]
    # read as a sentence about what its first cell names (as "name: cell" pairs it had no verb: see table_row_text)
    assert candidates[0].scored_text == ("For application logs, the retention is 30 days and the notes is no message "
                                         "bodies.")
    # the offsets are the row's (its identity in the item)
    assert RETENTION[candidates[2].start_char: candidates[2].end_char] == candidates[2].text.split("\n")[1]
    assert table_row_text(["a", "b"], "| one | two | three |") == "| one | two | three |"  # cells do not match
    assert table_row_text(["data", "retention"], "| invoices | 7 years |") == "For invoices, the retention is 7 years."
    # no first cell, no subject: the cells under their column names
    assert table_row_text(["data", "retention"], "| | 7 years |") == "retention: 7 years."


RATE_LIMITS = """| caller | limit | burst |
| --- | --- | --- |
| authenticated API key, Standard plan | 600 requests per minute per key | 100 |
| authenticated API key, Enterprise plan | 3,000 requests per minute per key | 500 |
| unauthenticated requests | 60 requests per minute per IP address | 20 |
"""




@pytest.mark.models
def test_a_question_a_table_row_answers_ends_verified_and_cited(scorer_decides):
    result, claim = verified_single_claim(scorer_decides, "How long are database backups kept?", RETENTION,
                                          "Retention")
    assert result.assistant_text == f"{HEADER}\n| database backups | 35 days | encrypted at rest | [E1]"
    assert claim.text == result.assistant_text  # one claim: the header line and the row


# -- label lines ("- Supersedes: ADR-004 ...") ---------------------------------------------------------------------

ADR = """# ADR-011: Client/server responsibility boundary

- Status: Accepted
- Deciders: Priya Natarajan (CTO) and Ilse de Wit (backend lead)
- Supersedes: ADR-004 "Thick mobile client" (2023-05)

## Decision

All client/server communication goes through the versioned JSON API. The server is the single source of truth for
business rules, and clients never compute prices or totals.
"""
SUPERSEDES = '- Supersedes: ADR-004 "Thick mobile client" (2023-05)'


def test_a_label_line_is_offered_only_to_a_question_that_names_its_label():
    pack = build_pack([{"id": "E1", "title": "ADR-011", "text": ADR}])

    def offered(question: str) -> list[str]:
        return [c.text for c in evidence_sentences(pack, question)]

    prose = ["All client/server communication goes through the versioned JSON API.",
             "The server is the single source of truth for business rules, and clients never compute prices or totals."]
    # A label says nothing about the question unless the question asks about that label: with every label line
    # offered, "- Supersedes: ..." led the answer to the README's own question (bench/results/ask.md).
    assert offered("What does ADR-011 say about the client/server boundary?") == prose
    assert offered("Which earlier decision did ADR-011 supersede?") == [SUPERSEDES, *prose]
    assert offered("Who were the deciders of ADR-011?") == [
        "- Deciders: Priya Natarajan (CTO) and Ilse de Wit (backend lead)", *prose]
    # a named label line answers however short its value: "Accepted" is the status (it was held back as too short
    # to answer anything, and "What is the status of ADR-011?" ended UNKNOWN)
    assert offered("What is the status of ADR-011?") == ["- Status: Accepted", *prose]
    assert offered("") == prose  # no question (prose attribution): no label line


def test_a_label_line_is_read_under_its_documents_title():
    pack = build_pack([{"id": "E1", "title": "Stack and hosting", "text": STACK_HEADER},
                       {"id": "E2", "title": "ADR-011: Client/server responsibility boundary › Decision",
                        "text": "- Status: Accepted\n\nAll client/server communication goes through the JSON API."}])
    read = {c.text: c.scored_text for c in evidence_sentences(pack, "Who owns it and what is its status?")}
    # "owns" names the label "Owner" (one stem the start of the other); the document title comes before the line
    assert read["Owner: platform team."] == "Stack and hosting. Owner: platform team."
    assert read["- Status: Accepted"] == "ADR-011: Client/server responsibility boundary. - Status: Accepted"
    assert read["All client/server communication goes through the JSON API."] == ""  # prose reads as itself
    # a longer label line has its own subject, its key: not read under the title, but as a sentence (below)
    adr = build_pack([{"id": "E1", "title": "ADR-011", "text": ADR}])
    deciders = {c.text: c.scored_text for c in evidence_sentences(adr, "Who were the deciders?")}
    assert deciders["- Deciders: Priya Natarajan (CTO) and Ilse de Wit (backend lead)"] == (
        "Deciders is Priya Natarajan (CTO) and Ilse de Wit (backend lead)")
    assert "Last reviewed: 2025-09-02." not in read  # a label the question does not name
    # a value is needed: a label alone answers nothing
    alone = build_pack([{"id": "E1", "title": "T", "text": "Owner:\n\nThe platform team runs the backups."}])
    assert [c.text for c in evidence_sentences(alone, "Who is the owner?")] == ["The platform team runs the backups."]


def test_a_key_value_list_item_is_read_as_a_sentence_with_its_key_as_subject():
    assert label_item_reading("- Object storage: Tigris, bucket `harbor-prod-assets`.") == (
        "Object storage is Tigris, bucket `harbor-prod-assets`.")
    assert label_item_reading("* Backend: Python 3.12 with FastAPI.") == "Backend is Python 3.12 with FastAPI."
    assert label_item_reading("- Primary region: `ams` (Amsterdam).") == "Primary region is `ams` (Amsterdam)."
    # a value in lower case is a clause or an instruction, not what the key is
    assert label_item_reading("- SEV1 pages: acknowledge within 5 minutes.") == ""
    # prose: a colon there ends a clause as often as a key ("How often does the European Council meet?" lost its
    # answer on a SQuAD train article when such lines were read this way)
    assert label_item_reading("The Council does this: In effect it is the governments.") == ""
    assert label_item_reading("Object storage: Tigris.") == ""
    assert label_item_reading("- Not a label line, though it has a colon: here.") == ""


STACK_BACKEND = """## Backend and clients

- Backend: Python 3.12 with FastAPI, served by Uvicorn, 4 workers per machine.
- Web client: SvelteKit, deployed as static assets behind the same Fly.io app.
- Object storage: Tigris, bucket `harbor-prod-assets`.
"""


BACKEND_TITLE, LIMITS_TITLE = "Stack and hosting › Backend and clients", "API rate limits › Limits"


@pytest.mark.models
@pytest.mark.parametrize("question, text, title, answer", [
    # each ended UNKNOWN read as it stands, a list item as "Key: value" (0.25 and 0.35 against the 0.39 threshold) and
    # a table row as "name: cell" pairs (0.37 and 0.31): no verb in either
    ("What language is the backend written in?", STACK_BACKEND, BACKEND_TITLE,
     "- Backend: Python 3.12 with FastAPI, served by Uvicorn, 4 workers per machine."),
    ("What object storage do we use?", STACK_BACKEND, BACKEND_TITLE,
     "- Object storage: Tigris, bucket `harbor-prod-assets`."),
    ("What is the rate limit for Enterprise plan keys?", RATE_LIMITS, LIMITS_TITLE,
     "| caller | limit | burst |\n| authenticated API key, Enterprise plan | 3,000 requests per minute per key | 500 |"),
    ("What is the burst for the Standard plan?", RATE_LIMITS, LIMITS_TITLE,
     "| caller | limit | burst |\n| authenticated API key, Standard plan | 600 requests per minute per key | 100 |"),
])
def test_a_list_item_or_table_row_read_as_a_sentence_answers_verified_and_cited(scorer_decides, question, text,
                                                                                  title, answer):
    result, _ = verified_single_claim(scorer_decides, question, text, title)
    assert result.assistant_text == f"{answer} [E1]"


@pytest.mark.models
@pytest.mark.parametrize("question, text, title", [
    ("What monitoring tool does the backend use?", STACK_BACKEND, BACKEND_TITLE),
    ("What is the rate limit for the Premium plan?", RATE_LIMITS, LIMITS_TITLE),
])
def test_a_list_item_or_table_row_does_not_answer_what_it_does_not_say(scorer_decides, question, text, title):
    unknown_over(scorer_decides, question, text, title)


STACK_HEADER = "# Stack and hosting\n\nOwner: platform team. Last reviewed: 2025-09-02.\n"
POLICY_HEADER = ("# Data retention policy\n\nTidewater Software B.V. Approved by the management board on 2025-01-20. "
                 "Reviewed yearly. Last changed 2025-08-11.\n")


def test_a_short_sentence_is_offered_when_the_question_names_it_and_it_adds_something():
    pack = build_pack([{"id": "E1", "title": "Data retention policy", "text": POLICY_HEADER}])

    def offered(question: str) -> dict[str, str]:
        return {c.text: c.scored_text for c in evidence_sentences(pack, question)}

    approved = "Approved by the management board on 2025-01-20."
    # read under the document's title, as a short label line is
    assert offered("How often is the policy reviewed?") == {
        approved: "", "Reviewed yearly.": "Data retention policy. Reviewed yearly."}
    assert "Last changed 2025-08-11." in offered("When was it last changed?")  # a date is something new
    # not named: too short to be offered on its own; an echo of the question's words answers nothing
    assert list(offered("Who approved it?")) == [approved]
    assert list(offered("What is Tidewater Software?")) == [approved]
    # a fragment the splitter cut off is no sentence, named or not
    fragment = build_pack([{"id": "E1", "title": "Oxygen", "text": "Solvents include acetone. Acetone ((CH"}])
    assert [c.text for c in evidence_sentences(fragment, "What is acetone?")] == ["Solvents include acetone."]


FAQ = ("# quarry FAQ\n\n## Does quarry send telemetry?\n\nNo. quarry never sends usage data; the only network "
       "traffic is to the databases you configure.\n\n## Support\n\nSupport is by e-mail only.\n\n"
       "## 3.1.0 (2026-05-20)\n\n- New `quarry export --format parquet` option.\n")


def test_a_sentence_is_read_under_its_sections_question_heading_only():
    """An FAQ answer answers its heading's question; a topic heading is not read with its sentences (measured on the
    dev splits, quote._under_heading). The quote is the sentence alone."""
    read = {c.text: c.scored_text for c in evidence_sentences(build_pack([{"id": "E1", "title": "quarry FAQ",
                                                                            "text": FAQ}]), "Telemetry?")}
    answer = "No. quarry never sends usage data; the only network traffic is to the databases you configure."
    assert read[answer] == f"Does quarry send telemetry? {answer}"
    assert read["Support is by e-mail only."] == ""
    # a version heading's entry is quoted after it (below), not read under the question before it
    assert read["## 3.1.0 (2026-05-20)\n- New `quarry export --format parquet` option."] == (
        "3.1.0 (2026-05-20): - New `quarry export --format parquet` option.")
    # the document's own title is no section heading, even when it asks
    titled = build_pack([{"id": "E1", "text": "# Why quarry?\n\nIt reads three databases without a server."}])
    assert [c.scored_text for c in evidence_sentences(titled, "Why?")] == [""]


@pytest.mark.models
def test_a_question_its_faq_answer_never_names_is_answered(scorer_decides):
    """Read alone, the answer names no telemetry, and the question ended UNKNOWN."""
    result = scorer_decides.run("Does quarry collect telemetry?", evidence=[
        {"id": "E1", "title": "quarry FAQ", "trust_tier": "authoritative", "text": FAQ}])
    assert result.verified, result.assistant_text
    assert "quarry never sends usage data" in result.assistant_text.split("[E1]")[0], result.assistant_text


CHANGES = ("# Changelog for quarry\n\n## 3.2.0 (2026-09-14)\n\n- Windows support is dropped.\n- The default page "
           "size went from 50 to 200 rows.\n\n## 3.1.0 (2026-05-20)\n\n- New `quarry export --format parquet` "
           "option.\n- Connections now time out after 30 seconds instead of 10.\n")


def test_a_changelog_entry_is_offered_after_its_version_heading_and_read_under_it():
    offered = {c.text: c.scored_text for c in evidence_sentences(build_pack([{"id": "E1", "text": CHANGES}]),
                                                                  "What changed?")}
    assert offered["## 3.1.0 (2026-05-20)\n- Connections now time out after 30 seconds instead of 10."] == (
        "3.1.0 (2026-05-20): - Connections now time out after 30 seconds instead of 10.")
    assert not any(text.startswith("- ") for text in offered)  # no entry without its release


@pytest.mark.models
@pytest.mark.parametrize("question", ["Which export formats were added in 3.1.0?", "When was the parquet export added?"])
def test_a_changelog_question_is_answered_with_the_entry_and_its_release(scorer_decides, question):
    """The entry alone says what changed but not in which release: "Which export formats were added in 3.1.0?" ended
    UNKNOWN, and read under its heading but quoted alone, "When was ...?" was answered without a date."""
    result = scorer_decides.run(question, evidence=[{"id": "E1", "title": "Changelog for quarry",
                                                     "trust_tier": "authoritative", "text": CHANGES}])
    assert result.verified, result.assistant_text
    assert result.assistant_text == "## 3.1.0 (2026-05-20)\n- New `quarry export --format parquet` option. [E1]"


def test_a_plain_text_documents_title_line_is_not_a_quote():
    text = ("Mobile release process (iOS and Android)\n\nHarbor's mobile apps are released every two weeks, on "
            "Tuesdays.\nA release needs a green CI run.\n")
    pack = build_pack([{"id": "E1", "title": "mobile-release-process", "text": text}])
    assert [c.text for c in evidence_sentences(pack, "What is the mobile release process?")] == [
        "Harbor's mobile apps are released every two weeks, on Tuesdays.", "A release needs a green CI run."]
    # a text's only paragraph is a fact even without a full stop, and so is a first line that ends as sentences do
    for fact in ("The Orion project ships on 14 March 2027", "The Orion project ships in March.\n\nIt costs 2 M."):
        offered = [c.text for c in evidence_sentences(build_pack([{"id": "E1", "text": fact}]), "When?")]
        assert offered[0] == fact.split("\n")[0]


def _header_of(question: str) -> tuple[str, str]:
    """The document head a metadata question is asked over, and its title."""
    if "ADR" in question:
        return ADR[:ADR.index("## Decision")], "ADR-011: Client/server responsibility boundary"
    if "policy" in question:
        return POLICY_HEADER, "Data retention policy"
    return STACK_HEADER, "Stack and hosting"


@pytest.mark.models
@pytest.mark.parametrize("question, answer", [
    ("What is the status of ADR-011?", "- Status: Accepted"),
    ("Who owns the stack and hosting document?", "Owner: platform team."),
    ("When was the stack and hosting document last reviewed?", "Last reviewed: 2025-09-02."),
    ("When was the data retention policy last changed?", "Last changed 2025-08-11."),
])
def test_a_question_about_a_documents_metadata_is_answered_by_its_label_line(scorer_decides, question, answer):
    header, title = _header_of(question)
    result, _ = verified_single_claim(scorer_decides, question, header, title)
    assert result.assistant_text == f"{answer} [E1]"


@pytest.mark.models
@pytest.mark.parametrize("question", ["What is the status of ADR-007?", "Who owns the billing runbook?"])
def test_a_label_line_about_another_document_does_not_answer(scorer_decides, question):
    header, title = _header_of(question)
    result = unknown_over(scorer_decides, question, header, title)  # the label line shown only as a closest passage
    assert result.assistant_text.startswith("The evidence does not answer this question.")


@pytest.mark.models
def test_a_question_a_label_line_answers_ends_verified_and_cited(scorer_decides):
    # the ADR's header section, the chunk the example corpus's index retrieves for this question
    header = ADR[:ADR.index("## Decision")]
    result, _ = verified_single_claim(scorer_decides, "Which earlier decision did ADR-011 supersede?", header,
                                      "ADR-011")
    assert result.assistant_text == f"{SUPERSEDES} [E1]"


# -- the verifier's logits as features --------------------------------------------------------------------------------

class _FixedVerifier:
    """Logits by sentence, in a label order other than the features' (contradiction, entailment, neutral)."""

    name = "fixed"

    def __init__(self, label_index: dict[str, int]) -> None:
        self.label_index = label_index
        self.seen: list[tuple[str, str]] = []

    def logits(self, rows):
        self.seen.extend(rows)
        return [[-1.0, 2.0, 0.5] if "ships" in premise else [3.0, -2.0, 0.0] for premise, _ in rows]


def test_verifier_features_read_the_logits_by_label_name_with_the_sentence_as_premise():
    verifier = _FixedVerifier({"contradiction": 0, "entailment": 1, "neutral": 2})
    rows = verifier_features(verifier, "When does Orion ship?", ["Orion ships in March.", "The team sits in Lyon."])
    assert [f for f in SENTENCE_FEATURES if f in VERIFIER_FEATURES] == list(VERIFIER_FEATURES)
    assert rows.tolist() == [[2.0, 0.5, -1.0], [-2.0, 0.0, 3.0]]  # entailment, neutral, contradiction
    assert verifier.seen == [("Orion ships in March.", "When does Orion ship?"),
                             ("The team sits in Lyon.", "When does Orion ship?")]


def test_a_verifier_without_the_three_labels_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="entailment, neutral and contradiction"):
        verifier_features(_FixedVerifier({"supported": 0, "unsupported": 1}), "Who?", ["Someone."])


# -- one verifier call per question ------------------------------------------------------------------------------------

OTHER_ITEMS = [
    "Lyon is a city in France. It lies where the Rhone and the Saone meet. About half a million people live there.",
    "Every project ships a changelog. The project board meets when a release is due. Budgets are set in January.",
    "The Apollo project shipped in 2019. Its team sat in Toulouse and its budget was 1.1 million euros.",
]


def _groups(question: str, texts: list[str], rng: np.random.Generator):
    from controlplane.contracts.text import sentence_texts

    q_vec = rng.normal(size=8)
    q_vec /= np.linalg.norm(q_vec)
    groups = []
    for text in texts:
        sentences = sentence_texts(text)
        vectors = rng.normal(size=(len(sentences), 8))
        groups.append((sentences, vectors / np.linalg.norm(vectors, axis=1, keepdims=True), text))
    return q_vec, groups


def test_the_items_of_a_question_are_scored_with_one_verifier_call_and_the_same_scores():
    """score_groups (one verifier call for every item's sentences) against score per item with its own verifier call
    (as before), on the shipped weights: identical where the verifier's logits depend on the row alone."""
    scorer = shipped_scorer()
    question = "When does the Orion project ship?"
    q_vec, groups = _groups(question, [ORION, *OTHER_ITEMS, ""], np.random.default_rng(15))
    per_item_verifier = RowwiseVerifier()
    per_item = [scorer.score(question, s, q_vec, v, text, verifier_features(per_item_verifier, question, s))
                for s, v, text in groups]
    batched_verifier = RowwiseVerifier()
    batched = scorer.score_groups(question, groups, q_vec, verifier=batched_verifier)
    assert (per_item_verifier.calls, batched_verifier.calls) == (len(groups) - 1, 1)  # the empty item: no call
    assert [len(scores) for scores in batched] == [len(s) for s, _, _ in groups] and len(batched[-1]) == 0
    for one, many in zip(per_item, batched):
        np.testing.assert_allclose(many, one, rtol=0, atol=1e-9)


@pytest.mark.models
def test_quote_ranking_calls_the_shipped_verifier_once_per_question_with_the_per_item_scores(monkeypatch):
    """Through rank_candidates with the real shipped verifier: one logits call for a pack of four items, and each
    item's scores as when the items were scored one call each. Not to 1e-9: on a CPU the verifier's logits move with
    the batch a row lands in (padding and batch size change the kernels' blocking), measured at most 8.5e-4 of a score
    in bf16 and 1.4e-7 in fp32 over 15 SQuAD packs of four paragraphs; no sentence crossed the threshold."""
    from controlplane import answerability
    from controlplane.evidence_pack.embeddings import load_model

    verifier = answerability.shipped_verifier()
    calls = []

    class Counting:
        label_index = verifier.label_index
        name = verifier.name

        def logits(self, rows):
            calls.append(len(rows))
            return verifier.logits(rows)

    monkeypatch.setattr(answerability, "shipped_verifier", Counting)
    scorer = shipped_scorer()
    texts = [ORION, *OTHER_ITEMS]
    pack = build_pack([{"id": f"E{i}", "title": f"T{i}", "text": text} for i, text in enumerate(texts, start=1)])
    for question in ("When does the Orion project ship?", "Where does the Orion team sit?",
                     "Who founded the Orion project?"):
        calls.clear()
        ranked = rank_candidates(question, pack, scorer).all_sentences
        assert len(calls) == 1 and calls[0] == len(ranked) and len({c.evidence_id for c in ranked}) == len(texts)
        vectors = load_model().encode([question] + [c.text for c in ranked], batch_size=64, normalize_embeddings=True,
                                      convert_to_numpy=True, show_progress_bar=False)
        for item in pack.evidence:
            rows = [i for i, c in enumerate(ranked) if c.evidence_id == item.id]
            alone = scorer.score(question, [ranked[i].text for i in rows], vectors[0], vectors[1:][rows], item.text,
                                 verifier_features(verifier, question, [ranked[i].text for i in rows]))
            together = np.asarray([ranked[i].answerability for i in rows])
            np.testing.assert_allclose(together, alone, rtol=0, atol=2e-3 if verifier.runtime == "torch-bf16" else 1e-6)
            assert ((together >= scorer.threshold) == (alone >= scorer.threshold)).all()
