"""A question that asks several things at once ("What database do we use and where is it hosted?"), cut into the
questions it asks, so each is answered, or said to be unanswered, on its own.

The answerability scorer was trained on questions with one answer; read whole, a compound question matches neither
of its answer sentences well, and a paragraph that answers both parts ended UNKNOWN (bench/compound_questions.py).
Only clear cuts are made: another question after a question mark, or "and" where a new question starts: a question
word, maybe after a preposition or a fronted phrase ("... and where is it hosted", "... and in what year ...", "...
and as of 2011, how many ..."), or an auxiliary and its subject ("... and does it return 429"). "Cats and dogs",
"how and why", "X or Y", "... and was exempt from ..." and "What is the difference between X and Y?" stay whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from controlplane.contracts.text import STOPWORDS

WH_WORDS = ("what", "which", "who", "whom", "whose", "when", "where", "why", "how")
AUXILIARIES = ("is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should", "has",
               "have", "had", "may", "must")
_WH = "|".join(WH_WORDS)
_STARTS = "|".join(WH_WORDS + AUXILIARIES)
# "..., and where ..." (a wh-word), or "and" with an auxiliary and then its subject ("and is it ...", "and does the
# API ..."): "and was exempt from ...", "may or may not be" and "and were Huguenots" go on the same question
_SUBJECT = r"(?:it|they|he|she|we|you|i|there|this|that|these|those|the|a|an|its|their|our|your)\b"
_PREPOSITION = r"(?:in|on|at|for|from|to|by|with|of|during|after|before|since|under|about)"
# ... or a question word after a preposition ("and in what year ...") or after a fronted phrase and its comma ("and
# as of 2011, how many ..."; not "cats and dogs, which are ...")
_JOIN = re.compile(rf",?\s+and\s+(?=(?:{_PREPOSITION}\s+)?(?:{_WH})\b|(?:{'|'.join(AUXILIARIES)})\s+{_SUBJECT}"
                   rf"|(?:{_PREPOSITION}|as|according|besides|apart|other|if|given|assuming|excluding|including)\b"
                   rf"[^,?]{{0,60}},\s*(?:{_WH})\b)", re.IGNORECASE)
_ASKS = re.compile(rf"\b(?:{_WH})\b", re.IGNORECASE)
_OPENS = re.compile(rf"^\W*(?:(?:{_PREPOSITION}|according to)\s+)?(?:{_STARTS})\b", re.IGNORECASE)
_REFERS_BACK = re.compile(r"\b(?:it|its|they|them|their|he|him|his|she|her|this|that|these|those|there)\b",
                          re.IGNORECASE)
_WORD = re.compile(r"[\w'-]+")


@dataclass(frozen=True)
class QuestionPart:
    text: str  # the part as asked, ending with "?"
    read_as: str  # what the ranker and the scorer read: the part, with the first part's words where it leans on them
    of: str = ""  # the part an elliptical one ("When?") leans on

    @property
    def phrase(self) -> str:
        """The part named in a reply, in the asker's words and without a question mark (an UNKNOWN claim is one
        statement): '"Where do we host the API"', '"When" of "Who founded Harbor"'."""
        named = f'"{self.text.rstrip("?")}"'
        return f'{named} of "{self.of.rstrip("?")}"' if self.of else named


def question_parts(question: str) -> list[QuestionPart]:
    """The questions ``question`` asks, in order; one part (the question itself) when it asks one thing."""
    text = " ".join(question.split())
    pieces = [p for p in re.split(r"(?<=\?)\s+", text) if p.strip()]
    parts: list[str] = []
    for piece in pieces:
        parts.extend(_split_joined(piece))
    if len(parts) < 2 or not all(_is_question(p) for p in parts):
        return [QuestionPart(text, text)]
    first = parts[0]
    out = []
    for index, part in enumerate(parts):
        asked = _as_question(part)
        read, of = asked, ""
        # a part without a word of its own ("... and when?") or with a pronoun leans on the first part
        elliptical = not _content_words(part)
        if index > 0 and (elliptical or _REFERS_BACK.search(part)):
            borrowed = [w for w in _content_words(first) if w.lower() not in part.lower()]
            read = " ".join([asked.rstrip("?"), *borrowed]) + "?"
            of = _as_question(first) if elliptical else ""
        out.append(QuestionPart(asked, read, of))
    return out


def _split_joined(piece: str) -> list[str]:
    cuts = list(_JOIN.finditer(piece))
    if not cuts:
        return [piece]
    parts, start = [], 0
    for match in cuts:
        left = piece[start:match.start()]
        if len(_WORD.findall(left)) < 2 or not (_ASKS.search(left) or _OPENS.search(left)):
            continue  # "How and why ...", "Is X and Y ...": the left side asks nothing of its own yet
        parts.append(left)
        start = match.end()
    parts.append(piece[start:])
    return [p.strip(" ,") for p in parts if p.strip(" ,?")]


def _is_question(part: str) -> bool:
    return bool(_OPENS.search(part) or _ASKS.search(part))


_LEADING_CONJUNCTION = re.compile(r"^(?:and|but|also|so|then|plus)(?:\s*,\s*|\s+)", re.IGNORECASE)


def _as_question(part: str) -> str:
    part = _LEADING_CONJUNCTION.sub("", part.strip().rstrip("?.! ").strip())  # "... ship? And who founded it?"
    return f"{part[0].upper()}{part[1:]}?" if part else part


def _content_words(text: str) -> list[str]:
    seen: list[str] = []
    for word in _WORD.findall(text):
        lowered = word.lower()
        if lowered in STOPWORDS or lowered in WH_WORDS or lowered in AUXILIARIES or _REFERS_BACK.fullmatch(word):
            continue
        if word not in seen:
            seen.append(word)
    return seen


__all__ = ["QuestionPart", "question_parts"]
