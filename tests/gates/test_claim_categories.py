"""EBOM claim categories: a deterministic classifier (uncertain -> FACTUAL) that catches a factual claim labelled
SUBJECTIVE or TRIVIAL to escape citation."""

from __future__ import annotations

import pytest

from controlplane.contracts import ClaimStatus
from controlplane.gates.categories import classify
from controlplane.gates.claim_categories import ClaimCategoriesGate
from tests.gates.decision_helpers import envelope, gate_input


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Qwen 2.5 14B has 14 billion parameters.", ClaimStatus.FACTUAL),
        ("Paris is the capital of France.", ClaimStatus.FACTUAL),
        ("Our API allows 100 requests per minute [E2].", ClaimStatus.FACTUAL),
        ("I think this code is elegant.", ClaimStatus.SUBJECTIVE),
        ("This design is cleaner.", ClaimStatus.SUBJECTIVE),
        ("Most developers prefer typed APIs.", ClaimStatus.CONSENSUS),
        ("Industry standard practice is to rotate keys yearly.", ClaimStatus.CONSENSUS),
        ("Therefore the cache must be invalidated on write.", ClaimStatus.REASONING),
        ("Here is a summary of the options.", ClaimStatus.TRIVIAL),
        ("Hope this helps!", ClaimStatus.TRIVIAL),
        ("Do you want the long version?", ClaimStatus.TRIVIAL),
        ("Blue sky thinking matters", ClaimStatus.FACTUAL),  # uncertain -> FACTUAL
    ],
)
def test_classifier(text, category):
    assert classify(text).category is category


def test_uncertain_defaults_to_factual_with_low_confidence():
    found = classify("Blue sky thinking matters")
    assert found.confidence < 0.7 and "uncertain_default_factual" in found.signals


def test_opinion_wrapped_facts_are_still_factual():
    assert classify("I think the limit is 100 requests per minute.").category is ClaimStatus.FACTUAL


MISLABELLED = envelope([("Our API allows 100 requests per minute.", [], "SUBJECTIVE"),
                        ("This design is cleaner.", [], "SUBJECTIVE"),
                        ("Here is a summary.", [], "TRIVIAL")])


def test_mislabelled_factual_claim_fails_at_medium_rigor():
    result = ClaimCategoriesGate().evaluate(gate_input("claim_categories", "What is the API rate limit of our endpoint?",
                                                       [], MISLABELLED))
    assert result.failed and result.details["claims"] == {"c1": ["CLAIM_CATEGORY_MISMATCH"]}
    assert result.details["categories"]["c1"]["classified"] == "FACTUAL"


def test_mislabelled_factual_claim_fails_at_low_rigor_unless_the_bundle_lowers_the_bar():
    result = ClaimCategoriesGate().evaluate(gate_input("claim_categories", "How many requests per minute?", [],
                                                       MISLABELLED))
    assert result.details["fail_at_rigor"] == "low" and result.details["claims"] == {"c1": ["CLAIM_CATEGORY_MISMATCH"]}
    lenient = ClaimCategoriesGate().evaluate(gate_input("claim_categories", "How many requests per minute?", [],
                                                        MISLABELLED, params={"fail_at_rigor": "medium"}))
    assert lenient.passed and lenient.details["warnings"] == ["c1 is labelled SUBJECTIVE but reads as FACTUAL"]


def test_cited_claims_are_not_escaping_citation():
    env = envelope([("Our API allows 100 requests per minute [E1].", ["E1"], "SUBJECTIVE")])
    result = ClaimCategoriesGate().evaluate(gate_input("claim_categories", "What is the API rate limit of our endpoint?",
                                                       [{"id": "E1", "text": "100 requests per minute."}], env))
    assert result.passed


LAUNDERED = "The maximum dose of ibuprofen is 4000 mg per day."


def test_an_unknown_label_on_a_confident_factual_sentence_fails():
    env = envelope([(LAUNDERED, [], "UNKNOWN"),
                    ("The evidence does not say what the maximum dose is.", [], "UNKNOWN"),
                    ("Whether there is a maximum dose is unknown from the evidence.", [], "UNKNOWN"),
                    ("I don't have evidence about the maximum dose.", [], "UNKNOWN"),
                    ("I could not find the maximum dose in the documents.", [], "UNKNOWN"),
                    ("The maximum dose is not in the evidence provided.", [], "UNKNOWN")])
    result = ClaimCategoriesGate().evaluate(gate_input("claim_categories", "What is the maximum ibuprofen dose?", [],
                                                       env))
    assert result.details["claims"] == {"c1": ["CLAIM_CATEGORY_MISMATCH"]}
    assert result.details["categories"]["c1"]["unknown_not_worded_as_unknown"] is True


def test_an_unknown_claim_that_names_what_neither_question_nor_evidence_holds_fails():
    """Found by QA: "No information is available on the Zanzibar outage that took our database down in 2024." passed
    as an honest UNKNOWN and was shown: saying what is not known names at most what was asked and what the evidence
    holds, so a new name or number in it is a fact nobody checked."""
    question = "Where do we host?"
    evidence = [{"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite)."}]
    env = envelope([
        ("No information is available on the Zanzibar outage that took our database down in 2024.", [], "UNKNOWN"),
        ("The evidence does not say why we moved the database to Zanzibar.", [], "UNKNOWN"),
        ("Zanzibar backups are not documented.", [], "UNKNOWN"),
        ("The evidence does not say whether an outage hit us in 2024.", [], "UNKNOWN"),
        # honest: only what was asked and what the evidence names
        ("The evidence does not say where we host Turso.", [], "UNKNOWN"),
        ("The evidence does not say whether Turso is on Fly.io.", [], "UNKNOWN"),
        ("No information is available.", [], "UNKNOWN"),
    ])
    result = ClaimCategoriesGate().evaluate(gate_input("claim_categories", question, evidence, env))
    assert result.details["claims"] == {cid: ["CLAIM_CATEGORY_MISMATCH"] for cid in ("c1", "c2", "c3", "c4")}
    assert result.details["categories"]["c1"]["unknown_adds_details"][:2] == ["Zanzibar", "2024"]


ORION_QUESTION = "When does the Orion project ship?"
ORION = [{"id": "E1", "text": "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros."}]


@pytest.mark.parametrize("text, presumed", [
    ("The evidence does not say why the Orion project was cancelled.", ["cancelled"]),
    ("The evidence does not say who founded the Orion project.", ["founded"]),
    ("No information is available on the delays that moved the launch.", ["delays", "moved", "launch"]),
    ("The evidence does not say where we host the backups.", ["host", "backups"]),
    # "whether" does not make a word safe: the sentence still tells of a breach, or raises a cancellation
    ("The evidence does not say whether the data breach affected customers.", ["breach", "affected", "customers"]),
    ("The evidence does not say whether the Orion project was cancelled.", ["cancelled"]),
])
def test_an_unknown_claim_that_presumes_what_nobody_checked_fails(text, presumed):
    """An UNKNOWN sentence in common words can still tell the user something: "... why the Orion project was
    cancelled" tells of a cancellation that neither the question nor the evidence holds (left open since issue 16's
    name-and-number rule)."""
    result = ClaimCategoriesGate().evaluate(gate_input("claim_categories", ORION_QUESTION, ORION,
                                                       envelope([(text, [], "UNKNOWN")])))
    assert result.details["claims"] == {"c1": ["CLAIM_CATEGORY_MISMATCH"]}
    assert result.details["categories"]["c1"]["unknown_adds_details"] == presumed


@pytest.mark.parametrize("text", [
    "The evidence does not say when the Orion project ships.",
    "The documents do not specify the exact date.",
    "Insufficient evidence is available to answer this question.",
    "I could not find the date in the documents.",
    "Nothing in the evidence gives the budget of the Orion project.",
])
def test_an_unknown_claim_in_the_words_of_the_question_the_evidence_and_absence_passes(text):
    result = ClaimCategoriesGate().evaluate(gate_input("claim_categories", ORION_QUESTION, ORION,
                                                       envelope([(text, [], "UNKNOWN")])))
    assert result.passed, result.details


def test_laundered_unknown_is_refused_end_to_end_in_high_stakes(write_script, store, shipped_policy):
    from controlplane.contracts import TraceStatus
    from controlplane.gates.interfaces import GateServices
    from controlplane.pipeline import Pipeline
    from tests.gates.nli_backends import OverlapNliBackend

    dose = "The maximum over-the-counter dose of ibuprofen for adults is 1200 mg per day."
    evidence = [{"id": "E1", "text": dose, "trust_tier": "authoritative", "source": "https://label.example/ibuprofen"},
                {"id": "E2", "text": dose, "trust_tier": "authoritative", "source": "https://pharma.example/nsaids"}]
    env = envelope([(dose[:-1] + " [E1][E2].", ["E1", "E2"]), (LAUNDERED, [], "UNKNOWN")])
    plane = Pipeline(model=write_script([env] * 3), policy=shipped_policy, store=store,
                         services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run("What is the maximum dose of this medication?", evidence=evidence)
    assert result.status in (TraceStatus.REFUSED, TraceStatus.DEGRADED)
    assert LAUNDERED not in result.assistant_text.split("\n")[0]
    assert "does not match its wording" in result.assistant_text


@pytest.mark.parametrize(("question", "text"), [
    # the embedded model's honest UNKNOWN replies in bench/results/squad2_full200.json: inflected question words
    ("Where did Harold II die?", "The evidence does not say where Harold II died."),
    ("Who carved out a state for himself from Moorish lands?",
     "The evidence does not say who carved out a state for themselves from Moorish lands."),
    ("What kind of sediment particles are there?",
     "The evidence does not say what is the type of sediment particles that are there."),
])
def test_an_unknown_claim_may_inflect_the_questions_words(question, text):
    result = ClaimCategoriesGate().evaluate(gate_input("claim_categories", question, [], envelope([(text, [], "UNKNOWN")])))
    assert result.passed, result.details


def test_the_few_shot_unknown_copied_onto_another_question_fails():
    """The same replies: SmolLM2 copied the prompt's worked example ("The evidence does not say who founded the
    museum.") onto unrelated questions; it tells the user of a museum that nobody asked about."""
    result = ClaimCategoriesGate().evaluate(gate_input(
        "claim_categories", "How does Melbourne rank as to population?", [],
        envelope([("The evidence does not say who founded the museum.", [], "UNKNOWN")])))
    assert result.details["categories"]["c1"]["unknown_adds_details"] == ["founded", "museum"]
