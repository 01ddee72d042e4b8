"""A lead-in: the line that introduces a list ("According to ADR-011:", "The key points are:") or a section (a
markdown heading, "## Offline mode").

Chat models open a list with such a line. No claim covers it, so it was a sentence nobody verified, and a faithful
bulleted answer degraded to "[Not verified: some statements were removed.]" (found by rewording answers over
ADR-011, 2026-12-06). A lead-in states nothing of its own only when it says so in words that state nothing, so the
check is on its words, and it is strict:

- it ends its line with a colon and the next line that is not blank is a list item, whose claims it introduces; or
  it is a markdown heading, which introduces the claims of its section (up to the next heading); or it is the
  answer's first sentence and opens with "Here is" / "Here's" / "Here are" ("Here is how rate limiting works."),
  which introduces the rest of the answer;
- every content word is a word of introduction (``LEAD_IN_WORDS``: according, following, key points, the evidence
  says ...) or a word of the title of an item those claims cite (the document's own name: "ADR-011", "Client/server
  responsibility boundary");
- it holds no negation, quantifier, modal or number of its own (a title's number, the "011" of "ADR-011", excepted).

"ADR-011 rejects the following:", "Clients compute:", "ADR-011 makes three decisions:" and "ADR-011 does not say:"
are not lead-ins: they are sentences to verify like any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from controlplane.contracts.text import Sentence, content_stems, meaning_stems

LEAD_IN_WORDS = (
    "according following follows below here key main points summary summarize summarise overview highlights details "
    "answer evidence document documents source sources text context says say states stated notes lists sets set out "
    "describes explains specifies mentions provided given based items facts findings relevant information includes "
    "regarding concerning rules consists consist comprises contains works work like how"
)
_VOCABULARY = frozenset(content_stems(LEAD_IN_WORDS))
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+\S")
_HEADING = re.compile(r"^[ ]{0,3}#{1,6}[ \t]+\S", re.MULTILINE)  # at a line's start


def _ends_with_colon(sentence_text: str) -> bool:
    return sentence_text.rstrip().rstrip("*_").rstrip().endswith(":")  # markdown emphasis aside: "**Key points:**"


def list_after(text: str, sentence: Sentence) -> tuple[int, int] | None:
    """The span of the list that ``sentence`` opens: it ends its line with a colon (markdown emphasis aside) and the
    next line that is not blank is a list item. The list runs over the item lines and their indented continuations
    that follow, up to the first other line."""
    if not _ends_with_colon(sentence.text):
        return None
    line_end = text.find("\n", sentence.end)
    if line_end == -1 or text[sentence.end:line_end].strip():
        return None
    start = position = line_end + 1
    end = None
    while position < len(text):
        next_end = text.find("\n", position)
        next_end = len(text) if next_end == -1 else next_end
        line = text[position:next_end]
        if _LIST_ITEM.match(line) or (end is not None and line[:1] in (" ", "\t") and line.strip()):
            end = next_end
        elif line.strip() or end is not None:
            break
        position = next_end + 1
    return (start, end) if end is not None else None


def section_after(text: str, sentence: Sentence) -> tuple[int, int] | None:
    """The span of the section that ``sentence`` heads: it is a markdown heading alone on its line ("## Offline
    mode"); the section runs from the next line to the next heading, or to the end of the text."""
    line_start = text.rfind("\n", 0, sentence.start) + 1
    line_end = text.find("\n", sentence.end)
    if not _HEADING.match(text, line_start) or text[line_start:sentence.start].strip(" #") or line_end == -1 or \
            text[sentence.end:line_end].strip():
        return None
    following = _HEADING.search(text, line_end + 1)
    return line_end + 1, following.start() if following else len(text)


# The answer's opening "Here is how ... works." introduces all that follows it
_HERE_IS = re.compile(r"[*_]*here(?:'s|\u2019s|\s+is|\s+are)\b", re.IGNORECASE)
_LEADING_SPACE = re.compile(r"\s*")


def introduced_span(text: str, sentence: Sentence) -> tuple[int, int] | None:
    """What ``sentence`` introduces, if it is a line that introduces: a list (``list_after``) or a section
    (``section_after``); or, as the answer's first sentence opening with "Here is" / "Here's" / "Here are", the rest
    of the answer."""
    if _ends_with_colon(sentence.text) and (span := list_after(text, sentence)) is not None:
        return span
    if _HERE_IS.match(sentence.text.lstrip()) and sentence.end < len(text) and \
            _LEADING_SPACE.match(text).end() >= sentence.start:  # the first sentence, without copying what precedes it
        return sentence.end, len(text)
    return section_after(text, sentence) if sentence.text.lstrip(" ").startswith("#") else None


def states_nothing(sentence_text: str, titles: Iterable[str]) -> bool:
    """Whether every word of the sentence introduces (``LEAD_IN_WORDS``) or names the cited document (``titles``),
    with no negation, quantifier, modal or number that the titles do not hold."""
    title_text = " ".join(titles)
    allowed = _VOCABULARY | frozenset(content_stems(title_text))
    stems = content_stems(sentence_text)
    if not stems and not sentence_text.strip(" \t*_:#"):
        return False
    if any(stem not in allowed for stem in stems):
        return False
    meaning_only = set(meaning_stems(sentence_text)) - set(stems)
    return meaning_only <= set(meaning_stems(title_text))
