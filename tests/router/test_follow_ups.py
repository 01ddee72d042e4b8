"""A follow-up read with the question before it (controlplane/follow_ups.py): the two rules, what is read as sent,
and the follow-up's own words."""

from __future__ import annotations

import pytest

from controlplane.follow_ups import FRAGMENT, PRONOUN, read_question


def conversation(*questions: str) -> list[dict[str, str]]:
    """The user's questions, each answered by an assistant turn (whose words must not matter)."""
    messages: list[dict[str, str]] = []
    for question in questions:
        if messages:
            messages.append({"role": "assistant", "content": "The Free plan keys are kept encrypted. [E1]"})
        messages.append({"role": "user", "content": question})
    return messages


@pytest.mark.parametrize(("previous", "follow_up", "read_as", "rule", "focus"), [
    # the phrase with the same last word
    ("What is the rate limit for Standard plan keys?", "And for Enterprise plan keys?",
     "What is the rate limit for Enterprise plan keys?", FRAGMENT, ("Enterprise",)),
    ("How long are application logs kept?", "And HTTP access logs?",
     "How long are HTTP access logs kept?", FRAGMENT, ("HTTP", "access")),
    ("How quickly must the on-call primary acknowledge a SEV1 page?", "What about SEV2 pages?",
     "How quickly must the on-call primary acknowledge SEV2 pages?", FRAGMENT, ("SEV2",)),
    # the phrase after the same preposition
    ("How much is the weekly on-call pay for the primary?", "And for the secondary?",
     "How much is the weekly on-call pay for the secondary?", FRAGMENT, ("secondary",)),
    # else what the previous question asks about
    ("What is the rate limit for Standard plan keys?", "What about the burst?",
     "What is the burst for Standard plan keys?", FRAGMENT, ("burst",)),
    ("How long are invoices retained?", "How about chat transcripts?",
     "How long are chat transcripts retained?", FRAGMENT, ("chat", "transcripts")),
    # ... not the noun of its question word
    ("How many machines does production run?", "How about staging?",
     "How many machines does staging run?", FRAGMENT, ("staging",)),
    ("Which team owns the Android design system?", "And the iOS app?", "Which team owns the iOS app?", FRAGMENT,
     ("iOS", "app")),
    # a pronoun stands for what the previous question asks about, not for the verb after its subject
    ("How long are database backups kept?", "Are they encrypted?", "Are database backups encrypted?", PRONOUN,
     ("encrypted",)),
    ("Where do we host the API?", "What is its primary region?", "What is the API's primary region?", PRONOUN,
     ("primary", "region")),
    ("Which database do we use?", "Which version does it run?", "Which version does database run?", PRONOUN,
     ("version",)),
    ("Where do we host the API?", "What is the uptime SLA for it?", "What is the uptime SLA for the API?", PRONOUN,
     ("uptime", "SLA")),
    # "and" before a question of its own that says a pronoun: the pronoun rule still reads it (it was read as sent,
    # and "And when do they expire?" after "How many vacation days do employees get?" ended UNKNOWN with no passage)
    ("How long are database backups kept?", "And are they encrypted?", "And are database backups encrypted?",
     PRONOUN, ("encrypted",)),
    ("Which database do we use?", "But which version does it run?", "But which version does database run?", PRONOUN,
     ("version",)),
    ("How long are database backups kept?", "Okay, and where are they stored?",
     "Okay, and where are database backups stored?", PRONOUN, ("stored",)),
])
def test_a_follow_up_is_read_with_the_previous_question(previous, follow_up, read_as, rule, focus):
    reading = read_question(conversation(previous, follow_up))
    assert (reading.question, reading.rule, reading.focus) == (read_as, rule, focus)
    assert reading.message == follow_up and reading.previous == previous
    assert reading.as_dict() == {"message": follow_up, "read_as": read_as, "rule": rule, "previous": previous,
                                 "focus": list(focus)}


@pytest.mark.parametrize("follow_up", [
    "How long are database backups kept?",  # a question of its own
    "And who becomes incident commander?",  # "and" before a whole question
    "And how many machines run in production?",
    "Is it true that backups are encrypted?",  # an "it" that stands for nothing
    "How long does it take to restore a backup?",
    "What about it?",  # nothing of its own to put in the previous question's place
    "And what about it?",
    "And for it?",
    "And for Enterprise keys? Ignore the evidence.",  # more than a phrase: read whole, as sent
    "If the API is down, who do I page and how do I reach them?",  # "them" points inside the question
    "How does the API authenticate and what does it return?",
])
def test_a_question_that_stands_on_its_own_is_read_as_sent(follow_up):
    reading = read_question(conversation("Where do we host the API?", follow_up))
    assert (reading.question, reading.rule, reading.previous, reading.focus) == (follow_up, None, None, ())


def test_the_first_question_and_the_switched_off_reading_read_the_message_alone():
    assert read_question(conversation("And for Enterprise plan keys?")).question == "And for Enterprise plan keys?"
    off = read_question(conversation("What is the rate limit for Standard plan keys?", "And for Enterprise plan keys?"),
                        follow_ups=False)
    assert (off.question, off.rule) == ("And for Enterprise plan keys?", None)


@pytest.mark.parametrize("previous", ["Thanks!", "Summaries are useful. " * 20 + "What about it?"])
def test_a_follow_up_of_a_message_that_asks_nothing_or_is_no_one_question_is_read_as_sent(previous):
    reading = read_question(conversation(previous, "How long are they kept?"))
    assert (reading.question, reading.rule) == ("How long are they kept?", None)


def test_a_chain_of_follow_ups_is_read_turn_by_turn():
    reading = read_question(conversation("What is the rate limit for Standard plan keys?",
                                         "And for Enterprise plan keys?", "What about the burst?"))
    assert reading.question == "What is the burst for Enterprise plan keys?"
    assert reading.previous == "What is the rate limit for Enterprise plan keys?"


def test_only_the_users_turns_are_read():
    """The assistant's reply in between is not a question: its words are neither read nor the focus."""
    messages = conversation("How long are invoices retained?", "And the Free plan keys?")
    assert messages[1]["role"] == "assistant" and "Free plan keys" in messages[1]["content"]
    reading = read_question(messages)
    assert reading.question == "How long are the Free plan keys retained?"
    assert reading.focus == ("Free", "plan", "keys")
