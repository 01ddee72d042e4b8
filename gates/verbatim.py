"""Verbatim quotes: a claim that is whole sentences of the evidence it cites is entailed by construction.

Quote-grounded answering (issue 15) composes claims from evidence sentences, so the NLI verifier has nothing to
decide for them: a text entails each of its own sentences, with every number, negation and qualifier kept. Only
whole sentences count -- a fragment of a sentence ("the earth is flat" out of "Some claim the earth is flat.") can
say the opposite of its sentence, so it goes to the verifier like any other claim.

Comparison is after whitespace normalisation and with inline citation markers removed on both sides ("[12]" in a
Wikipedia sentence is a reference, not content; ``[E1]`` in a claim is ours).

A markdown table row alone ("| authenticated API key, Standard plan | 600 requests per minute per key | 100 |") has
no column names and reads as nothing; its quote is the table's header line followed by that row (``table_quotes``).
That pair is whole units of the evidence, read as one: exactly the header and one data row of the same table, so a
header glued to a row of another table, or two rows, is not verbatim. In the same way a unit of a section whose
heading names a version or a date is quoted after that heading line (``heading_quotes``): exactly the heading and one
unit of its own section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from controlplane.contracts import EvidenceItem
from controlplane.contracts.text import (
    Sentence,
    memo_by_text,
    normalize_space,
    split_sentences,
    strip_markers,
    unwrap_lines,
)


def evidence_sentences(text: str) -> list[Sentence]:
    """Sentences of an evidence text, hard-wrapped lines joined first (offsets are the original text's)."""
    return split_sentences(unwrap_lines(text))


_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")


def is_table_separator(line: str) -> bool:
    return bool(_TABLE_SEPARATOR.match(line.strip()))


def table_quotes(text: str) -> dict[int, str]:
    """Each data row of each markdown table in the text, by the start offset of its unit: the header line, a line
    break, then the row (markers removed, whitespace normalised within each line)."""
    units = evidence_sentences(text)
    quotes: dict[int, str] = {}
    header: str | None = None
    for index, unit in enumerate(units):
        plain = strip_markers(unit.text)
        if not plain.startswith("|"):
            header = None
            continue
        following = strip_markers(units[index + 1].text) if index + 1 < len(units) else ""
        if is_table_separator(plain):
            continue
        if is_table_separator(following):
            header = plain
            continue
        if header is not None:
            quotes[unit.start] = f"{header}\n{plain}"
    return quotes


@memo_by_text
def _table_quote_texts(text: str) -> frozenset[str]:
    return frozenset(normalize_space(quote) for quote in table_quotes(text).values())


def _version_heading(unit: str) -> str | None:
    """A section heading (below the document's title) that names a version or a date, "## 3.1.0 (2026-05-20)"; a
    question heading is not one, however many digits it holds."""
    level = len(unit) - len(unit.lstrip("#"))
    if level < 2 or unit.rstrip().endswith("?") or not any(c.isdigit() for c in unit):
        return None
    return unit


def heading_quotes(text: str) -> dict[int, str]:
    """Each unit of a section whose heading names a version or a date, by its start offset: the heading line, a line
    break, then the unit (markers removed, whitespace normalised within each line). A changelog entry ("- New
    `quarry export --format parquet` option.") says what changed but not in which release, which its heading holds;
    quoted alone it answers "Which export formats were added in 3.1.0?" without the 3.1.0 the question asks about,
    and "When was it added?" without the date. Any other heading ends the section (a table row keeps its own
    quote)."""
    quotes: dict[int, str] = {}
    heading: str | None = None
    for unit in evidence_sentences(text):
        plain = strip_markers(unit.text)
        if plain.startswith("#"):
            heading = _version_heading(plain)
        elif heading is not None and plain and not plain.startswith("|"):
            quotes[unit.start] = f"{heading}\n{plain}"
    return quotes


@memo_by_text
def _heading_quote_texts(text: str) -> frozenset[str]:
    return frozenset(normalize_space(quote) for quote in heading_quotes(text).values())


def sentence_texts(text: str) -> list[str]:
    """The sentences of an evidence text, markers removed and whitespace normalised (empty ones dropped)."""
    return [plain for sentence in evidence_sentences(text) if (plain := strip_markers(sentence.text))]


_MEMO_CLAIM_CHARS = 4096  # a longer claim is decided afresh: the cache never holds long texts


def is_whole_sentences(claim_text: str, evidence_text: str) -> bool:
    """True when the claim is one sentence, or a run of consecutive sentences, of the evidence text."""
    if len(claim_text) > _MEMO_CLAIM_CHARS:
        return _whole_sentences.__wrapped__(evidence_text, claim_text)
    return _whole_sentences(evidence_text, claim_text)


@memo_by_text  # asked for every cited item of every claim, attempt after attempt: decided once per pair (the
# evidence text first, so a long one is never kept)
def _whole_sentences(evidence_text: str, claim_text: str) -> bool:
    claim = strip_markers(claim_text)
    if not claim:
        return False
    if claim.startswith("|") and claim in _table_quote_texts(evidence_text):
        return True  # a table row under its header line
    if claim.startswith("#") and claim in _heading_quote_texts(evidence_text):
        return True  # a changelog entry under its version heading
    sentences = sentence_texts(evidence_text)
    for start, first in enumerate(sentences):
        if not claim.startswith(first):
            continue
        joined = first
        for sentence in sentences[start + 1:]:
            if joined == claim or len(joined) >= len(claim):
                break
            joined = f"{joined} {sentence}"
        if joined == claim:
            return True
    return False


def quoting_items(claim_text: str, items: Sequence[EvidenceItem]) -> list[str]:
    """Ids of the cited items the claim quotes verbatim (whole sentences); empty when it quotes none."""
    return [item.id for item in items if not item.redacted and is_whole_sentences(claim_text, item.text)]
