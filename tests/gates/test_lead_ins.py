"""A lead-in ("According to ADR-011:", "The key points are:") opens a list of claims and states nothing of its own:
it is no sentence to verify, and only then (gates/lead_ins.py). Found by rewording answers over ADR-011: a faithful
bulleted answer under "According to ADR-011:" was degraded to "[Not verified: some statements were removed.]"."""

from __future__ import annotations

import pytest

from controlplane.contracts import OutputEnvelope, TraceStatus
from controlplane.contracts.text import split_sentences
from controlplane.gates.attempt import AttemptView
from controlplane.gates.interfaces import GateServices
from controlplane.gates.lead_ins import list_after, states_nothing
from controlplane.pipeline import Pipeline
from tests.gates.decision_helpers import envelope
from tests.gates.nli_backends import OverlapNliBackend

TITLE = "ADR-011: Client/server responsibility boundary"
HOSTING = {"id": "E1", "title": "Stack and hosting", "text": "We host on Fly.io. The database is Turso.",
           "trust_tier": "authoritative"}
RATE = {"id": "E2", "title": "API rate limits", "text": "The public API allows 100 requests per minute per key.",
        "trust_tier": "authoritative"}
CLAIMS = [("We host on Fly.io [E1].", ["E1"]), ("The public API allows 100 requests per minute per key [E2].", ["E2"])]
LIST = "- We host on Fly.io [E1].\n- The public API allows 100 requests per minute per key [E2]."


@pytest.mark.parametrize("line", [
    "According to ADR-011:", "ADR-011 sets out the following boundary:", "The key points are:",
    "Here is what the document says about the client/server boundary:", "**According to ADR-011:**",
    "In summary, the evidence states the following:", "Key facts from the sources:",
])
def test_words_that_only_introduce_or_name_the_document_state_nothing(line):
    assert states_nothing(line, [TITLE])


@pytest.mark.parametrize("line", [
    "ADR-011 rejects the following:", "Clients compute:", "ADR-011 makes three decisions:", "ADR-011 does not say:",
    "According to ADR-012:", "The evidence says only:", "Our CEO founded the company in Berlin:", ":", "**:**",
    "According to the evidence, we may host on:",
    # an answer to a yes/no question affirms or denies it: "Yes:" above a verified list may still be wrong
    "Yes:", "Correct:", "No:", "Unfortunately:",
])
def test_a_line_that_says_something_is_not_a_lead_in(line):
    assert not states_nothing(line, [TITLE])


def test_without_the_title_the_document_name_is_a_word_to_verify():
    assert not states_nothing("According to ADR-011:", [])
    assert states_nothing("According to the evidence:", [])
    assert states_nothing("Our stack consists of:", ["Stack and hosting › Backend and clients"])
    assert not states_nothing("Our stack consists of:", [TITLE])


def sentence(text: str, index: int = 0):
    return split_sentences(text)[index]


def test_a_lead_in_ends_its_line_with_a_colon_before_a_list():
    text = "According to ADR-011:\n" + LIST
    assert list_after(text, sentence(text)) == (len("According to ADR-011:\n"), len(text))
    assert list_after("According to ADR-011:\n\n" + LIST, sentence("According to ADR-011:\n\n" + LIST)) is not None
    for not_before_a_list in ("According to ADR-011:\nWe host on Fly.io [E1].", "According to ADR-011:",
                              "According to ADR-011: we host on Fly.io [E1].\n" + LIST):
        assert list_after(not_before_a_list, sentence(not_before_a_list)) is None, not_before_a_list
    # the list ends at the first line that is not an item or an item's indented continuation
    text = "The key points are:\n- one [E1]\n  continued\n- two [E2]\nAfter the list."
    start, end = list_after(text, sentence(text))
    assert text[start:end] == "- one [E1]\n  continued\n- two [E2]"


def view_of(text: str, claims=CLAIMS, evidence=(HOSTING, RATE)) -> AttemptView:
    from controlplane.evidence_pack import build_pack

    return AttemptView.over(OutputEnvelope.model_validate(envelope(list(claims), text=text)), build_pack(list(evidence)))


def test_the_view_leaves_a_lead_in_out_of_the_sentences_to_verify():
    view = view_of("Here is what the sources say about stack and hosting:\n" + LIST)
    assert view.lead_ins == {0: ("c1", "c2")}
    assert [s.text for _, s in view.content_sentences] == [f"- {c}" for c, _ in CLAIMS]
    # a title of an item the list does not cite names nothing the list says
    only_rate = view_of("According to Stack and hosting:\n- The public API allows 100 requests per minute per key "
                        "[E2].", claims=CLAIMS[1:])
    assert only_rate.lead_ins == {}
    # a list without claims introduces nothing, and a line with a claim in it is verified as a claim
    assert view_of("The key points are:\n- We host somewhere.", claims=[]).lead_ins == {}
    claimed = view_of("We host on Fly.io [E1]:\n- The public API allows 100 requests per minute per key [E2].")
    assert claimed.lead_ins == {}


QUESTION = "How is our hosting architecture set up?"


def test_a_bulleted_answer_under_a_lead_in_is_verified_as_written(write_script, shipped_policy):
    answer = envelope(CLAIMS, text="According to the sources:\n" + LIST)
    plane = Pipeline(model=write_script([answer]), policy=shipped_policy,
                     services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert result.status is TraceStatus.PASS and result.verified
    assert result.assistant_text == "According to the sources:\n" + LIST


def test_a_lead_in_that_states_a_fact_is_never_shown(write_script, shipped_policy):
    for line in ("Our CEO founded the company in Berlin:", "The sources are outdated:"):
        answer = envelope(CLAIMS, text=f"{line}\n" + LIST)
        plane = Pipeline(model=write_script([answer] * 3), policy=shipped_policy,
                         services=GateServices(nli_backend=OverlapNliBackend()))
        result = plane.run(QUESTION, evidence=[HOSTING, RATE])
        assert not result.verified and line not in result.assistant_text, line


def test_a_lead_in_is_not_shown_without_the_claims_it_introduces(write_script, shipped_policy):
    claims = [("We host on Fly.io [E1].", ["E1"]), ("The public API allows 900 requests per minute per key [E2].",
                                                     ["E2"])]
    answer = envelope(claims, text="According to the sources:\n- We host on Fly.io [E1].\n- The public API allows "
                                   "900 requests per minute per key [E2].")
    plane = Pipeline(model=write_script([answer] * 3), policy=shipped_policy,
                     services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert not result.verified and "According to the sources" not in result.assistant_text
    assert "900" not in result.assistant_text


def test_a_markdown_heading_introduces_its_section():
    """"## Orion" above a verified answer was a sentence no claim covered (the answer degraded). A heading is a
    lead-in for the claims of its section when its words only introduce or name a document they cite."""
    from controlplane.gates.lead_ins import section_after

    text = "## Stack and hosting\nWe host on Fly.io [E1].\n\n## Limits\n- The public API allows 100 requests per minute per key [E2]."
    first, second = sentence(text, 0), sentence(text, 2)
    assert text[slice(*section_after(text, first))] == "We host on Fly.io [E1].\n\n"
    assert text[slice(*section_after(text, second))].startswith("- The public API")
    assert section_after("We host on Fly.io [E1].", sentence("We host on Fly.io [E1].")) is None
    # "Stack and hosting" is E1's title, "API rate limits" E2's: an item without a title names nothing
    assert view_of(text).lead_ins == {0: ("c1",), 2: ("c2",)}
    untitled = {k: v for k, v in RATE.items() if k != "title"}
    assert view_of(text, evidence=(HOSTING, untitled)).lead_ins == {0: ("c1",)}
    assert view_of("## Summary\n" + LIST).lead_ins == {0: ("c1", "c2")}
    for asserting in ("## We moved to AWS", "## Hosting is cancelled", "## 3 regions"):
        assert view_of(f"{asserting}\n" + LIST).lead_ins == {}, asserting


def test_an_answer_under_a_heading_is_verified_as_written(write_script, shipped_policy):
    text = "## Stack and hosting\nWe host on Fly.io [E1]."
    answer = envelope(CLAIMS[:1], text=text)
    plane = Pipeline(model=write_script([answer]), policy=shipped_policy,
                     services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert result.status is TraceStatus.PASS and result.verified and result.assistant_text == text
    asserting = envelope(CLAIMS[:1], text="## Hosting moved to AWS\nWe host on Fly.io [E1].")
    plane = Pipeline(model=write_script([asserting] * 3), policy=shipped_policy,
                     services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert not result.verified and "AWS" not in result.assistant_text


@pytest.mark.parametrize("line", [
    # found by laying out answers over the example corpus's on-call page as chat models do
    "On-call works like this:", "Here is how the stack and hosting work:",
])
def test_how_a_thing_works_introduces_it(line):
    assert states_nothing(line, ["On-call policy › Rotation", "Stack and hosting"])


def test_an_opening_here_is_sentence_introduces_the_answer_after_it():
    """"Here is how rate limiting works." opened a prose answer over the rate-limit page; no claim covered it, and
    the answer degraded. The answer's first sentence, when it opens with "Here is" / "Here's" / "Here are" and
    states nothing (the words of states_nothing), introduces the claims after it; anywhere else, or stating
    something, it is a sentence to verify."""
    prose = " ".join(c for c, _ in CLAIMS)
    view = view_of("Here is how the API rate limits work. " + prose)
    assert view.lead_ins == {0: ("c1", "c2")}
    assert view_of("Here’s what the sources say. " + prose).lead_ins == {0: ("c1", "c2")}
    for not_a_lead_in in ("Here is how our API rate limits were cut last year. " + prose,  # a fact: verify it
                          "The API rate limits work like this. " + prose,  # no "here is": verify it
                          prose + " Here is how the API rate limits work."):  # not the first sentence
        assert view_of(not_a_lead_in).lead_ins == {}, not_a_lead_in


def test_a_prose_answer_after_here_is_is_verified_as_written(write_script, shipped_policy):
    text = "Here is how our stack and hosting work. " + " ".join(c for c, _ in CLAIMS)
    plane = Pipeline(model=write_script([envelope(CLAIMS, text=text)]), policy=shipped_policy,
                     services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert result.status is TraceStatus.PASS and result.verified and result.assistant_text == text
