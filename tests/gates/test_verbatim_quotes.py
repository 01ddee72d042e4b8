"""nli_entailment's verbatim-quote shortcut: a claim that is whole sentences of the evidence it cites is entailed by
construction, recorded with its own basis (VERBATIM_QUOTE), without an NLI model call; a fragment of a sentence, or
a sentence with one word changed, still goes to the verifier."""

from __future__ import annotations

import pytest

from controlplane.gates.nli_entailment import NliEntailmentGate
from controlplane.gates.verbatim import is_whole_sentences
from tests.gates.decision_helpers import codes, envelope, gate_input
from tests.gates.nli_backends import OverlapNliBackend

ORION = "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. Some claim the budget is too small."
E_ORION = {"id": "E1", "text": ORION, "trust_tier": "authoritative"}
QUESTION = "When does the Orion project ship?"


def run(claims, backend=None):
    return NliEntailmentGate().evaluate(gate_input("nli_entailment", QUESTION, [E_ORION], envelope(claims), backend))


def test_whole_sentences_are_verbatim_fragments_and_edits_are_not():
    assert is_whole_sentences("The Orion project ships on 14 March 2027.", ORION)
    assert is_whole_sentences("The Orion project ships on 14 March 2027. Its budget is 2.4 million euros.", ORION)
    assert is_whole_sentences("The Orion project ships on 14 March 2027. [E1]", ORION)  # our marker is not content
    assert not is_whole_sentences("the budget is too small.", ORION)  # a fragment can say the opposite
    assert not is_whole_sentences("The Orion project ships on 15 March 2027.", ORION)
    assert not is_whole_sentences("The Orion project ships on 14 March 2027. Some claim the budget is too small.", ORION)


def test_verbatim_claim_passes_without_any_nli_backend():
    result = run([("The Orion project ships on 14 March 2027.", ["E1"])], backend=None)
    assert result.result.value == "pass", codes(result)
    record = result.details["claim_records"]["c1"]
    assert record["basis"] == "VERBATIM_QUOTE"
    assert record["quoted_ids"] == ["E1"]
    assert record["entailment"] == 1.0


def test_verbatim_claim_is_not_sent_to_the_backend_but_a_paraphrase_is():
    backend = OverlapNliBackend()
    result = run([("The Orion project ships on 14 March 2027.", ["E1"])], backend)
    assert result.result.value == "pass"
    assert backend.pairs_scored == 0
    result = run([("Orion ships in March 2027.", ["E1"])], backend)
    assert backend.pairs_scored > 0
    assert "basis" not in result.details["claim_records"]["c1"]


def test_fragment_without_a_backend_fails_closed():
    result = run([("the budget is too small.", ["E1"])], backend=None)
    assert result.result.value == "fail"
    assert "VERIFIER_UNAVAILABLE" in codes(result)


def test_a_hard_line_wrap_is_not_a_sentence_end():
    wrapped = "Clients never access the\ndatabase directly. The replicas are private.\n\n- Status: Accepted"
    assert is_whole_sentences("Clients never access the database directly.", wrapped)
    assert not is_whole_sentences("Clients never access the", wrapped)
    assert is_whole_sentences("- Status: Accepted", wrapped)  # a list item is its own unit


def test_deterministic_checks_do_not_second_guess_a_verbatim_quote():
    # Measured on SQuAD 2.0: the qualifier check flagged this verbatim sentence (QUALIFIER_DRIFT) against its own
    # paragraph; a quote keeps every qualifier by construction.
    paragraph = ("The city had a population of 494,665 in 2010. Non-Hispanic Whites were 30.0% of the population in "
                 "2010, down from 72.6% in 1970. The Hispanic population grew.")
    claim = "Non-Hispanic Whites were 30.0% of the population in 2010, down from 72.6% in 1970."
    result = NliEntailmentGate().evaluate(gate_input(
        "nli_entailment", "What share of Fresno was non-Hispanic white in 2010?",
        [{"id": "E1", "text": paragraph, "trust_tier": "authoritative"}], envelope([(claim, ["E1"])]), None))
    assert result.result.value == "pass", codes(result)


# -- a table row is quoted under its header line ------------------------------------------------------------------------
TABLES = """| data | retention |
| --- | --- |
| application logs | 30 days |
| database backups | 35 days |

| plan | limit |
| --- | --- |
| Standard | 600 requests per minute |
"""


def test_table_quotes_are_the_header_line_and_one_row():
    from controlplane.gates.verbatim import table_quotes

    quotes = list(table_quotes(TABLES).values())
    assert quotes == ["| data | retention |\n| application logs | 30 days |",
                      "| data | retention |\n| database backups | 35 days |",
                      "| plan | limit |\n| Standard | 600 requests per minute |"]


def test_exactly_a_header_and_one_row_of_the_same_table_is_verbatim():
    assert is_whole_sentences("| data | retention |\n| database backups | 35 days | [E1]", TABLES)
    assert is_whole_sentences("| plan | limit | | Standard | 600 requests per minute |", TABLES)  # whitespace
    assert not is_whole_sentences("| plan | limit |\n| database backups | 35 days |", TABLES)  # another table's header
    assert not is_whole_sentences("| data | retention |\n| database backups | 36 days |", TABLES)  # edited
    assert not is_whole_sentences(
        "| data | retention |\n| application logs | 30 days |\n| database backups | 35 days |", TABLES)  # two rows


# -- a changelog entry is quoted under its version heading ---------------------------------------------------------------
CHANGELOG = """# Changelog

## 3.2.0 (2026-09-14)

- Windows support is dropped.
- The default page size went from 50 to 200 rows.

## 3.1.0 (2026-05-20)

- New `quarry export --format parquet` option.

## Does it still run on Windows?

No, not since 3.2.0.

## Upgrading

Read the notes first.
"""


def test_heading_quotes_are_a_version_heading_and_one_unit_of_its_section():
    from controlplane.gates.verbatim import heading_quotes

    assert list(heading_quotes(CHANGELOG).values()) == [
        "## 3.2.0 (2026-09-14)\n- Windows support is dropped.",
        "## 3.2.0 (2026-09-14)\n- The default page size went from 50 to 200 rows.",
        "## 3.1.0 (2026-05-20)\n- New `quarry export --format parquet` option."]  # no question or topic heading


def test_exactly_a_version_heading_and_one_unit_of_its_own_section_is_verbatim():
    # the second entry, not next to its heading in the text (the first one is: consecutive units always were a quote)
    assert is_whole_sentences("## 3.2.0 (2026-09-14)\n- The default page size went from 50 to 200 rows. [E1]",
                              CHANGELOG)
    # another release's heading would date the change wrongly: not a quote, so the verifier must read it
    assert not is_whole_sentences("## 3.1.0 (2026-05-20)\n- Windows support is dropped.", CHANGELOG)
    assert not is_whole_sentences("## 3.2.0 (2026-09-14)\n- Windows support is dropped in 3.1.0.", CHANGELOG)
    assert not is_whole_sentences("# Changelog\n- Windows support is dropped.", CHANGELOG)


@pytest.mark.parametrize("question, text, claim", [
    ("How long are database backups kept?", TABLES, "| data | retention |\n| database backups | 35 days |"),
    ("When was the parquet export added?", CHANGELOG,
     "## 3.1.0 (2026-05-20)\n- New `quarry export --format parquet` option."),
], ids=["table row under its header", "changelog entry under its version heading"])
def test_a_two_line_quote_passes_as_a_verbatim_quote_without_a_backend(question, text, claim):
    gate = NliEntailmentGate().evaluate(gate_input(
        "nli_entailment", question, [{"id": "E1", "text": text, "trust_tier": "authoritative"}],
        envelope([(claim, ["E1"])]), None))
    assert gate.result.value == "pass", codes(gate)
    assert gate.details["claim_records"]["c1"]["basis"] == "VERBATIM_QUOTE"
