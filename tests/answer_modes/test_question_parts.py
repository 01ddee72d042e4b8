"""Cutting a question that asks several things into the questions it asks (controlplane/question_parts.py)."""

from __future__ import annotations

import pytest

from controlplane.question_parts import question_parts


def texts(question: str) -> list[str]:
    return [part.text for part in question_parts(question)]


@pytest.mark.parametrize(("question", "parts"), [
    ("What database does the project use and where is it hosted?",
     ["What database does the project use?", "Where is it hosted?"]),
    ("What is the rate limit? Who approves increases?", ["What is the rate limit?", "Who approves increases?"]),
    ("Is the API rate limited and does it return 429?", ["Is the API rate limited?", "Does it return 429?"]),
    ("What is X, and what is Y, and who made Z?", ["What is X?", "What is Y?", "Who made Z?"]),
    ("Who discovered this and where did they come from?", ["Who discovered this?", "Where did they come from?"]),
    ("When does it ship?? And who founded it?", ["When does it ship?", "Who founded it?"]),
    ("What town was granted to them and in what year was it abandoned?",
     ["What town was granted to them?", "In what year was it abandoned?"]),
    ("Which theorem states it and as of February 2011, how many numbers has it been proven to?",
     ["Which theorem states it?", "As of February 2011, how many numbers has it been proven to?"]),
])
def test_a_question_that_asks_several_things_is_cut_where_a_new_question_starts(question, parts):
    assert texts(question) == parts


@pytest.mark.parametrize("question", [
    "What is the difference between cats and dogs?",
    "What do cats and dogs, which are pets, eat?",
    "How and why did it fail?",
    "Is it free or is it paid?",
    "Who agreed to sign the Social Charter and was exempt from the legislation covering Social Charter issues?",
    "What prominent South African family distilled brandy and were Huguenots?",
    "What are two factors that directly effect how powerful a Turing machine may or may not be?",
    "What does ADR-011 say about the client/server boundary?",
    "Where do we host the API?",
    "Tell me about the rate limits and the plans.",
])
def test_one_question_stays_whole(question):
    assert texts(question) == [" ".join(question.split())]


def test_a_part_that_leans_on_the_first_is_read_with_its_words_and_named_with_it():
    first, hosted = question_parts("What database does the project use and where is it hosted?")
    assert first.read_as == first.text  # the first part stands alone
    assert hosted.read_as == "Where is it hosted database project use?"  # "it": the first part's words
    assert hosted.phrase == '"Where is it hosted"'  # named as asked, with no question mark (one statement)
    _, when = question_parts("Who founded Harbor and when?")
    assert when.text == "When?" and when.read_as == "When founded Harbor?"
    assert when.phrase == '"When" of "Who founded Harbor"'


def test_a_part_with_its_own_subject_is_read_as_asked():
    parts = question_parts("When does the Orion project ship and where does the team sit?")
    assert [p.read_as for p in parts] == [p.text for p in parts]
