"""Mapping claims to text: where each claim of the claim map sits in assistant_text, and what a sentence says
beyond its claims. Sentences and citation markers are cut by controlplane.contracts.text.

Shared by the gates that must agree on where a claim sits, so two gates can never disagree about the same text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from controlplane.contracts import Claim
from controlplane.contracts.text import Sentence, meaning_stems, normalize_space, strip_markers

T = TypeVar("T")


def locate(text: str, needle: str, taken: set[tuple[int, int]] | None = None) -> tuple[int, int] | None:
    """First occurrence of needle in text not already taken; exact first, then whitespace-insensitive."""
    if not needle.strip():
        return None
    taken = taken or set()
    start = text.find(needle)
    while start != -1:
        span = (start, start + len(needle))
        if span not in taken:
            return span
        start = text.find(needle, start + 1)
    pattern = r"\s+".join(re.escape(part) for part in needle.split())
    for match in re.finditer(pattern, text):
        span = (match.start(), match.end())
        if span not in taken:
            return span
    if "*" in text or "`" in text:
        for match in re.finditer(_with_markup(needle), text):
            span = (match.start(), match.end())
            if span not in taken:
                return span
    return None


# Markdown emphasis and code marks, which chat models set around a claim's words ("- **Pay:** EUR 250 per week",
# "with `fly releases`") and leave out of the claim map's text: nothing else may stand between its characters
_MARKUP = r"[*`]{0,3}"


def _with_markup(needle: str) -> str:
    """A pattern for ``needle`` with markdown marks allowed around and inside its words, any spaces between them."""
    words_ = [_MARKUP.join(re.escape(character) for character in word) for word in needle.split()]
    return _MARKUP + (_MARKUP + r"\s+" + _MARKUP).join(words_) + _MARKUP


@dataclass(frozen=True)
class Anchor:
    claim_id: str
    start: int
    end: int
    from_model: bool  # the model gave the span (True) or the server found it by text match (False)


def spans_by_sentence(sentences: Sequence[tuple[int, Sentence]], spans: Sequence[tuple[int, int] | None],
                      values: Sequence[T] | None = None) -> dict[int, list[T]]:
    """For each ``(index, sentence)``, the spans that overlap it (``start < sentence.end and sentence.start <
    end``), in span order, as their positions in ``spans`` or, given ``values`` (one per span), as those values; a
    None span overlaps nothing. Each span is placed by binary search over the sentences when they are in text order
    and do not overlap (as the splitter cuts them), not compared with every sentence; otherwise every pair is
    compared."""
    out: dict[int, list] = {index: [] for index, _ in sentences}
    starts = [sentence.start for _, sentence in sentences]
    ends = [sentence.end for _, sentence in sentences]
    in_order = True
    previous_end = None
    for start, end in zip(starts, ends, strict=True):
        if end < start or (previous_end is not None and start < previous_end):
            in_order = False
            break
        previous_end = end
    count = len(starts)
    for position, span in enumerate(spans):
        if span is None:
            continue
        start, end = span
        value = position if values is None else values[position]
        if not in_order:
            for index, sentence in sentences:
                if start < sentence.end and sentence.start < end:
                    out[index].append(value)
            continue
        i = bisect_right(ends, start)  # the first sentence that ends after the span starts
        while i < count and starts[i] < end:
            out[sentences[i][0]].append(value)
            i += 1
    return out


def anchor_claims(text: str, claims: Sequence[Claim]) -> tuple[dict[str, Anchor], dict[str, str]]:
    """Anchors for claims that can be anchored, and a problem code per claim that cannot.

    Problem codes: SPAN_OUT_OF_BOUNDS, SPAN_TEXT_MISMATCH, CLAIM_NOT_IN_TEXT.
    """
    anchors: dict[str, Anchor] = {}
    problems: dict[str, str] = {}
    taken: set[tuple[int, int]] = set()
    for claim in claims:
        if claim.span is not None:
            start, end = claim.span.start_char, claim.span.end_char
            if end > len(text) or start > len(text):
                problems[claim.claim_id] = "SPAN_OUT_OF_BOUNDS"
                continue
            if normalize_space(text[start:end]) != normalize_space(claim.text):
                problems[claim.claim_id] = "SPAN_TEXT_MISMATCH"
                continue
            anchors[claim.claim_id] = Anchor(claim.claim_id, start, end, True)
            taken.add((start, end))
            continue
        span = locate(text, claim.text, taken)
        if span is None:
            problems[claim.claim_id] = "CLAIM_NOT_IN_TEXT"
            continue
        anchors[claim.claim_id] = Anchor(claim.claim_id, span[0], span[1], False)
        taken.add(span)
    return anchors, problems


def beyond_claims(text: str, start: int, end: int, spans: Sequence[tuple[int, int]]) -> list[str]:
    """Content of the sentence ``text[start:end]`` outside every claim span in it, as stems: what the sentence says
    beyond its claims. Negations, quantifiers, modal words and numbers count ("no more" is not filler)."""
    mask = list(text[start:end])
    for span_start, span_end in spans:
        low, high = max(span_start, start), min(span_end, end)
        if low < high:  # blank the span's part inside the sentence, one slice
            mask[low - start:high - start] = " " * (high - low)
    rest = meaning_stems(strip_markers("".join(mask)))
    if not rest:  # the claims say the whole sentence (the usual case): their own stems need not be read
        return []
    claimed: set[str] = set()
    for span_start, span_end in spans:
        claimed.update(meaning_stems(text[span_start:span_end]))
    return [s for s in dict.fromkeys(rest) if s not in claimed]
