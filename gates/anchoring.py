"""Mapping text to structure: sentence boundaries, claim anchors and inline citation markers.

Shared by the gates that must agree on what a sentence is and where a claim sits, so two gates can never disagree
about the same text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from controlplane.contracts import Claim

from .claim_checks import meaning_stems

_ABBREVIATIONS = {
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "inc", "ltd", "co", "corp", "st", "no", "fig", "approx",
    "u.s", "u.k", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "cf", "al",
}
# Zero-width and bidi control characters. They are invisible, so a sentence boundary must not depend on them: a
# zero-width space after a full stop still ends the sentence. They are never removed from the text (offsets into
# assistant_text stay exact, and what the user is shown is what was checked).
INVISIBLE = "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad"
_BOUNDARY = re.compile(rf"[.!?]+[\"')\]]*(?=[\s{INVISIBLE}]|$)|\n+")
# A citation marker is exactly a marker: one or more ids ([E1], [FACT_012], [E1, E2]), each a run without spaces
# that holds a digit. "[Note: moved to AWS in 2024]" is prose, checked like any other text. Look-alike ids ("[Е1]"
# with a Cyrillic Е, "[E\u200b1]") are still markers, so citation_integrity reports them as unresolved.
_MARKER_ID = r"[^\s\[\],\d]{0,40}\d[^\s\[\],]{0,40}"  # the first digit fixes the split: no backtracking blow-up
_MARKER = rf"\[[ \t]*{_MARKER_ID}(?:[ \t]*,[ \t]*{_MARKER_ID})*[ \t]*\]"
_MARKER_GROUP = re.compile(_MARKER)
_MARKERS_ONLY = re.compile(rf"^(?:[\s{INVISIBLE}]*{_MARKER})+")
_BLANK = re.compile(rf"^[\s{INVISIBLE}]*$")
_SPACE = re.compile(r"\s+")


_WORD_BEFORE = re.compile(r"([\w.]+)\.*[\"')\]]*$")
_WORD_WINDOW = 64


def _word_before(text: str, end: int) -> re.Match[str] | None:
    """The word ending at ``end`` (what precedes a full stop). Searches a short window, not the whole prefix (which
    made sentence splitting quadratic in the text length); falls back to the prefix when the word fills the window."""
    start = max(0, end - _WORD_WINDOW)
    match = _WORD_BEFORE.search(text, start, end)
    if match is not None and match.start() == start and start > 0:
        match = _WORD_BEFORE.search(text, 0, end)
    return match


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str


def split_sentences(text: str) -> list[Sentence]:
    """Sentences with their offsets. Markers written after the full stop ("... Fly.io. [E1]") stay with it."""
    boundaries: list[int] = []
    for match in _BOUNDARY.finditer(text):
        end = match.end()
        if match.group().startswith((".",)) and not match.group().startswith("\n"):
            word = _word_before(text, match.start() + 1)
            token = (word.group(1) if word else "").rstrip(".").lower()
            if token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha()):
                continue
        trailing = _MARKERS_ONLY.match(text[end:])
        if trailing:
            end += trailing.end()
        boundaries.append(end)
    sentences = []
    start = 0
    for end in [*boundaries, len(text)]:
        if end <= start:
            continue
        chunk = text[start:end]
        stripped = chunk.strip()
        if not _BLANK.match(stripped) and not _MARKERS_ONLY.fullmatch(stripped):
            offset = start + (len(chunk) - len(chunk.lstrip()))
            sentences.append(Sentence(offset, offset + len(stripped), stripped))
        start = end
    return sentences


def normalize_space(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


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
    return None


@dataclass(frozen=True)
class Anchor:
    claim_id: str
    start: int
    end: int
    from_model: bool  # the model gave the span (True) or the server found it by text match (False)


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


@dataclass(frozen=True)
class Marker:
    token: str
    start: int
    end: int


def inline_markers(text: str) -> list[Marker]:
    """Bracketed citation markers: [E3], [E1][E2], [E1, E2], [FACT_012]. Any other bracketed text ([sic],
    [citation needed], [Note: ... 2024 ...]) is prose, not a marker."""
    markers = []
    for match in _MARKER_GROUP.finditer(text):
        for token in match.group()[1:-1].split(","):
            markers.append(Marker(token.strip(), match.start(), match.end()))
    return markers


def strip_markers(text: str) -> str:
    """The text without its citation markers; bracketed prose stays (it is content)."""
    return normalize_space(_MARKER_GROUP.sub("", text))


def beyond_claims(text: str, start: int, end: int, spans: Sequence[tuple[int, int]]) -> list[str]:
    """Content of the sentence ``text[start:end]`` outside every claim span in it, as stems: what the sentence says
    beyond its claims. Negations, quantifiers, modal words and numbers count ("no more" is not filler)."""
    mask = list(text[start:end])
    for span_start, span_end in spans:
        for pos in range(max(span_start, start), min(span_end, end)):
            mask[pos - start] = " "
    rest = strip_markers("".join(mask))
    claimed: set[str] = set()
    for span_start, span_end in spans:
        claimed.update(meaning_stems(text[span_start:span_end]))
    return [s for s in dict.fromkeys(meaning_stems(rest)) if s not in claimed]
