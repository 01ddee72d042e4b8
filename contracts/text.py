"""Text as every layer reads it: sentences with their offsets, inline citation markers, words and content stems.

The one sentence splitter of the code (gates, verdicts, degrade, the API, the server and the NLI chunker all cut
text here), so two parts can never disagree about what a sentence is. Pure stdlib; sits at the bottom with the
contracts, so evidence_pack, gates and controlplane/ all import it downward.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any, TypeVar

T = TypeVar("T")

# Memoised: the same evidence and claim texts are cut again and again (per claim, per atom, per check, per gate,
# per request); each function below is pure, so its result for a text is computed once and shared. Only texts up to
# _MEMO_CHARS are kept (claims, sentences, evidence items), so a long document never stays in memory. The public
# functions hand out fresh lists, so no caller can change what the cache holds.
_CACHED = 16384
_MEMO_CHARS = 4096


_MEMOISED: list[Any] = []


def memo_by_text(function: Callable[..., T]) -> Callable[..., T]:
    """Memoise a pure function of a text (and hashable options); its result must not be changed by callers."""
    cached = lru_cache(maxsize=_CACHED)(function)
    _MEMOISED.append(cached)

    @wraps(function)
    def call(text: str, *args: Any) -> T:
        return cached(text, *args) if len(text) <= _MEMO_CHARS else function(text, *args)

    call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return call


_ABBREVIATIONS = {
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "inc", "ltd", "co", "corp", "st", "no", "fig", "approx",
    "u.s", "u.k", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "cf", "al",
}
# Zero-width and bidi control characters. They are invisible, so a sentence boundary must not depend on them: a
# zero-width space after a full stop still ends the sentence. They are never removed from the text (offsets into
# assistant_text stay exact, and what the user is shown is what was checked).
INVISIBLE = "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad"
_BOUNDARY = re.compile(rf"[.!?]+[\"')\]]*(?=[\s{INVISIBLE}]|$)|\n+")
# In a source document lines wrap inside a sentence: there a line break ends a sentence only before a list item or
# a table row.
_DOCUMENT_BOUNDARY = re.compile(rf"[.!?]+[\"')\]]*(?=[\s{INVISIBLE}]|$)|\r?\n(?=[ \t]*(?:[-*+]|\d+[.)]|\|)[ \t])")
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


def split_sentences(text: str, *, wrapped_lines: bool = False) -> list[Sentence]:
    """Sentences with their offsets (see :func:`_split_sentences`)."""
    return list(_split_sentences(text, wrapped_lines))


@memo_by_text
def _split_sentences(text: str, wrapped_lines: bool) -> tuple[Sentence, ...]:
    """Sentences with their offsets. Markers written after the full stop ("... Fly.io. [E1]") stay with it.

    A line break ends a sentence (an answer's list items are sentences of their own); with ``wrapped_lines`` (a
    source document, whose lines wrap mid-sentence) only one before a list item or table row does."""
    boundaries: list[int] = []
    for match in (_DOCUMENT_BOUNDARY if wrapped_lines else _BOUNDARY).finditer(text):
        end = match.end()
        if match.group().startswith("."):
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
    return tuple(sentences)


# A single line break inside a paragraph is a hard wrap, not a sentence end ("Clients never access the\ndatabase
# directly."); a blank line, a list item, a heading, a quote or a table row still starts a new unit.
_HARD_WRAP = re.compile(r"(?<!\n)\n(?!\s*(?:\n|[-*+#>|]|\d+[.)]\s))")


def unwrap_lines(text: str) -> str:
    """The text with hard line wraps replaced by spaces (same length, so offsets still point into the original)."""
    return _HARD_WRAP.sub(" ", text)


def sentence_texts(text: str) -> list[str]:
    """The sentences of an evidence text (or a claim), without offsets, hard-wrapped lines joined as the quotes and
    the verbatim check join them: evidence sentences for the checks, premises for NLI windows."""
    return [sentence.text for sentence in _split_sentences(unwrap_lines(text), False)]


def normalize_space(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


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


@memo_by_text
def strip_markers(text: str) -> str:
    """The text without its citation markers; bracketed prose stays (it is content)."""
    return normalize_space(_MARKER_GROUP.sub("", text))



# ----------------------------------------------------------------------------------------------------------------
# words and stems (the deterministic checks, the sentence re-check, chunk pre-ranking and the critic share them)
WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:[.,]\d+)*")

STOPWORDS = frozenset(["a", "an", "the", "and", "or", "but", "if", "then", "than", "that", "this", "these", "those", "there", "their", "they", "them", "it", "its", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "doing", "have", "has", "had", "having", "of", "in", "on", "at", "by", "for", "with", "from", "to", "into", "onto", "over", "under", "about", "as", "up", "down", "out", "off", "per", "via", "so", "such", "both", "either", "each", "other", "another", "same", "own", "which", "who", "whom", "whose", "what", "when", "where", "why", "how", "also", "not", "no", "nor", "never", "very", "just", "only", "too", "more", "most", "less", "least", "much", "many", "some", "any", "all", "few", "several", "i", "me", "my", "we", "our", "you", "your", "he", "him", "his", "she", "her", "hers", "us", "one", "can", "will", "would", "shall", "should", "may", "might", "must", "could", "s", "t", "don't", "isn't", "aren't", "wasn't", "weren't", "doesn't", "didn't", "can't", "cannot", "won't", "wouldn't", "couldn't", "shouldn't", "mustn't", "hasn't", "haven't", "hadn't", "its", "it's", "he's", "she's", "they're", "we're", "i'm", "than", "then", "while", "during", "after", "before", "between", "among", "through", "within", "without", "again", "further", "once", "here", "however", "although", "though", "because", "since", "until", "whether", "yet", "still", "even", "ever", "however", "thus", "hence", "therefore", "upon", "across", "along", "around", "against", "toward", "towards", "behind", "beyond", "like", "unlike", "near", "according"])


@memo_by_text
def _words(text: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in WORD.findall(text))


def words(text: str) -> list[str]:
    return list(_words(text))


def clear_text_caches() -> None:
    """Forget every memoised text result (benchmarks measure the cold path with it)."""
    for cached in _MEMOISED:
        cached.cache_clear()
    stem.cache_clear()


@lru_cache(maxsize=_CACHED)
def stem(word: str) -> str:
    w = word.lower().strip("'-")
    for suffix in ("'s", "ies", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return w[:5] if len(w) > 5 else w


@memo_by_text
def _content_stems(text: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in _words(text) if w not in STOPWORDS and not w[0].isdigit() and len(w) > 1)


def content_stems(text: str) -> list[str]:
    return list(_content_stems(text))


def content_stem_set(text: str) -> frozenset[str]:
    """The content stems of text as a set (overlap measures ask for this most)."""
    return _content_stem_set(text)


@memo_by_text
def _content_stem_set(text: str) -> frozenset[str]:
    return frozenset(_content_stems(text))


# Negations, quantifiers, modal and temporal words carry meaning: "We host on Fly.io no more" says the opposite of
# "We host on Fly.io". The sentence re-check ("says more than its claims") counts them, and numbers, as content.
MEANING_WORDS = frozenset(["not", "no", "nor", "never", "none", "without", "don't", "isn't", "aren't", "wasn't",
                           "weren't", "more", "most", "less", "least", "much", "many", "some", "any", "all", "few",
                           "several", "both", "either", "each", "only", "can", "will", "would", "shall", "should",
                           "may", "might", "must", "could", "again", "once", "still", "yet", "ever", "even", "until",
                           "since", "before", "after", "during", "while", "against", "unlike", "however", "although",
                           "though"])


def meaning_stems(text: str) -> list[str]:
    """Content stems for the sentence re-check: like content_stems, but negations, quantifiers, modal words and
    numbers are kept."""
    return list(_meaning_stems(text))


@memo_by_text
def _meaning_stems(text: str) -> tuple[str, ...]:
    return tuple(w if w[0].isdigit() else stem(w) for w in _words(text)
                 if (w not in STOPWORDS or w in MEANING_WORDS) and (len(w) > 1 or w[0].isdigit()))
