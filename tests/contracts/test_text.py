"""Evidence sentences: a document's hard-wrapped lines are one sentence; list items, table rows, headings and
paragraphs stay apart."""

from __future__ import annotations

from controlplane.contracts.text import sentence_texts, unwrap_lines

WRAPPED = """## When a limit is exceeded

Clients must back off for at least the `Retry-After` value. A key that keeps sending requests while limited for more
than 10 minutes is blocked for 1 hour and its owner is e-mailed.

- SEV1 pages: acknowledge within 5 minutes.
- SEV2 pages: acknowledge within 15 minutes.

| caller | limit |
| --- | --- |
"""


def test_a_hard_wrapped_sentence_is_one_sentence():
    # it was two, "... while limited for more" and "than 10 minutes is blocked ...", so a claim that copied the
    # sentence with its condition left out was compared with neither
    assert ("A key that keeps sending requests while limited for more than 10 minutes is blocked for 1 hour and its "
            "owner is e-mailed.") in sentence_texts(WRAPPED)


def test_list_items_table_rows_headings_and_paragraphs_stay_apart():
    assert sentence_texts(WRAPPED) == [
        "## When a limit is exceeded",
        "Clients must back off for at least the `Retry-After` value.",
        "A key that keeps sending requests while limited for more than 10 minutes is blocked for 1 hour and its owner "
        "is e-mailed.",
        "- SEV1 pages: acknowledge within 5 minutes.",
        "- SEV2 pages: acknowledge within 15 minutes.",
        "| caller | limit |",
        "| --- | --- |",
    ]


def test_unwrapping_keeps_every_offset():
    assert len(unwrap_lines(WRAPPED)) == len(WRAPPED)
    assert unwrap_lines("one\ntwo\n\nthree") == "one two\n\nthree"
