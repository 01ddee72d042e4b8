"""Quote answering of a follow-up through the real pipeline, the shipped answerability scorer deciding: the follow-up
is answered as read with the previous question, and a quote that mentions none of its own words is not its answer."""

from __future__ import annotations

import pytest

from controlplane.contracts import Phase, TraceStatus

pytestmark = pytest.mark.models  # MiniLM and the shipped verifier, through the scorer

PROJECTS = "The Orion project ships on 14 March 2027. The Vega project ships on 2 June 2028."
EVIDENCE = [{"id": "E1", "title": "Projects", "text": PROJECTS, "trust_tier": "authoritative"}]
FIRST = "When does the Orion project ship?"


def ask(plane, follow_up):
    return plane.run([{"role": "user", "content": FIRST},
                      {"role": "assistant", "content": "The Orion project ships on 14 March 2027. [E1]"},
                      {"role": "user", "content": follow_up}], evidence=EVIDENCE)


def test_a_follow_up_is_answered_as_read_with_the_previous_question(scorer_decides):
    result = ask(scorer_decides, "And the Vega project?")
    assert result.follow_up["read_as"] == "When does the Vega project ship?"
    assert result.status is TraceStatus.PASS and result.verified
    assert result.assistant_text == "The Vega project ships on 2 June 2028. [E1]"


def test_a_quote_without_the_follow_ups_own_words_is_not_its_answer(scorer_decides):
    """Asked whole, "When does the Lyra project ship?" is answered with Orion's date: the scorer does not see the
    swapped name. As a follow-up, "Lyra" is what the question adds, and no sentence mentions it: UNKNOWN."""
    whole = scorer_decides.run([{"role": "user", "content": "When does the Lyra project ship?"}], evidence=EVIDENCE)
    assert whole.verified and "Orion" in whole.assistant_text  # the scorer's limit this rule guards against

    result = ask(scorer_decides, "What about the Lyra project?")
    assert result.follow_up["read_as"] == "When does the Lyra project ship?"
    assert result.follow_up["focus"] == ["Lyra"]
    assert not result.verified and result.assistant_text.startswith("The evidence does not answer this question.")
    assert "Orion project ships" not in result.assistant_text.split("\n")[0]
    [call] = [e for e in result.events if e.phase is Phase.MODEL_CALL]
    assert call.payload["quote"]["follow_up_focus"] == ["lyra"]
    # the notice names what is missing in the words the question was read with
    assert 'a source that answers "When does the Lyra project ship?"' in result.assistant_text


ADR = [{"id": "E1", "title": "ADR-011", "trust_tier": "authoritative",
        "text": "Prices are computed only by the backend. Clients may cache the public price list for 5 minutes. "
                "Feature flags are evaluated on the server."}]


def test_a_statement_follow_up_quotes_what_it_asks_about(scorer_decides):
    """"What does it say about caching?" after a statement question is one too, and its own word ("caching") is met
    by the sentence's "cache"."""
    result = scorer_decides.run([{"role": "user", "content": "What does ADR-011 say about prices?"},
                                 {"role": "assistant", "content": "Prices are computed only by the backend. [E1]"},
                                 {"role": "user", "content": "What does it say about caching?"}], evidence=ADR)
    assert result.follow_up["read_as"] == "What does ADR-011 say about caching?"
    assert result.verified, result.assistant_text
    assert "Clients may cache the public price list for 5 minutes." in result.assistant_text
    assert "Feature flags" not in result.assistant_text
