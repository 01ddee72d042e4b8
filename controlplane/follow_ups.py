"""A follow-up question read with the question before it ("And for Enterprise plan keys?" after "What is the rate
limit for Standard plan keys?"), so retrieval, the router and the answerability scorer read a question that stands
on its own.

A chat app sends the whole conversation; read alone, "What about the burst?" names nothing to retrieve or to answer,
and ended UNKNOWN (bench/follow_ups.py). Two clear cases are read, each by a rule a reader can check in the trace:

* ``fragment``: an opener ("and", "what about", "how about", "what of", "same for") and a phrase with no question
  word or auxiliary of its own. The phrase takes the place of one phrase of the previous question: the one with the
  same last word ("Standard plan keys" for "Enterprise plan keys"), else the one after the same preposition ("for the
  primary" for "for the secondary"), else what the previous question asks about ("the rate limit" for "the burst"),
  not the noun of its question word ("machines" of "How many machines does production run?"). The replaced words go,
  so the reading does not lead back to the previous answer.
* ``pronoun``: a question that says it, its, they, them or their. The first such word stands for what the previous
  question asks about ("Are they encrypted?" after "How long are database backups kept?"), unless a clause of the
  question's own comes before it ("If the API is down, who do I page and how do I reach them?"). An opener before
  a question of its own is a connective: "And are they encrypted?" is read by this rule.

Anything else is read as sent, including a question that opens with "and" but asks something whole ("And who becomes
incident commander?"), and any message after one that is not a single question ("Thanks!", a pasted document). The
previous question is itself read first, so a chain of follow-ups resolves. What is read is never shown as the user's
words: the trace and the reply record the message and its reading. ``Reading.focus`` holds the follow-up's own
words; the quote modes do not answer it with a sentence that mentions none of them (controlplane/answer_modes.py),
which would answer the previous question again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controlplane.contracts import Phase, TraceEvent
from controlplane.contracts.text import STOPWORDS
from controlplane.question_parts import AUXILIARIES, WH_WORDS

FRAGMENT = "fragment"
PRONOUN = "pronoun"
# Turns looked back over: a chain of follow-ups longer than this is read from its last few questions.
_MAX_CHAIN = 4

# A previous message longer than this is not one question (a pasted document, a long instruction).
_MAX_QUESTION_WORDS = 40
_ASKING = re.compile(rf"\?|^\W*(?:{'|'.join((*WH_WORDS, *AUXILIARIES))}|tell me|summari[sz]e|explain|describe|list)\b",
                     re.IGNORECASE)
_OPENER = re.compile(
    r"^\W*(?:(?:and|but|also|so|ok(?:ay)?|then)[\s,]+)?(?:(?:what|how)\s+about|what\s+of|same\s+(?:for|with)|and)\s+"
    r"(?P<phrase>.+?)[\s?.!]*$", re.IGNORECASE)
_PREPOSITIONS = ("for", "in", "on", "at", "with", "of", "from", "to", "during", "after", "before", "under", "by")
_PRONOUN = re.compile(r"\b(it|its|they|them|their)\b", re.IGNORECASE)
# "it" that stands for nothing: "Is it true that ...", "Is it possible to ...", "How long does it take to ..."
_EXPLETIVE = re.compile(r"it(?:\s+\S+){0,2}?\s+(?:that|to)\b", re.IGNORECASE)
_CLAUSE_BOUNDARY = re.compile(r"[,;]|\s(?:and|or|but|if|when|because|so)\s", re.IGNORECASE)
_POSSESSIVE = frozenset({"its", "their"})
_DETERMINERS = frozenset({"the", "a", "an", "our", "your", "this", "that", "these", "those", "each", "every"})
# The word before the noun a question word asks for: "which database", "what language", "how many machines".
_ASKED_NOUN = frozenset({"which", "what", "whose", "many", "much"})
_SUBJECTS = frozenset({"we", "you", "they", "i", "he", "she", "it"})
# Words of a question's frame, never part of what it asks about: "how long", "usually", the auxiliaries, and the
# interjections a chat turn opens with ("Okay, and where are they stored?": no clause of its own before "they").
_FRAME = frozenset({*WH_WORDS, *AUXILIARIES, "long", "often", "quickly", "soon", "far", "usually", "typically",
                    "normally", "currently", "exactly", "still", "really", "actually", "ok", "okay", "thanks",
                    "great", "right", "well", "sure"})
# A last word that is the question's verb ("How long are database backups kept?"), split off its noun phrase.
_VERBS = frozenset({"use", "run", "take", "need", "cost", "get", "keep", "mean", "say", "work", "store", "host",
                    "handle", "include", "cover", "support", "require", "allow", "have", "do", "make", "last", "go",
                    "pay", "own", "contain", "hold", "happen", "start", "end", "apply", "kept", "held", "paid", "sent",
                    "built", "made", "done", "taken", "given", "set", "put", "seen", "known", "found", "shown", "spent",
                    "left", "lost", "written"})
_TOKEN = re.compile(r"[A-Za-z0-9][\w'/.-]*[\w]|[A-Za-z0-9]")


@dataclass(frozen=True)
class Reading:
    """The question a request reads, and how it came from the user's last message."""

    question: str  # what retrieval, the router and the answer modes read
    message: str  # the last user message as sent
    rule: str | None = None  # FRAGMENT or PRONOUN when read with the previous question, else None
    previous: str | None = None  # the previous question as read, when a rule applied
    # The follow-up's own words ("Enterprise plan keys", "encrypted"): what it adds to the previous question. An
    # answer that mentions none of them answers the previous question again, not this one.
    focus: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"message": self.message, "read_as": self.question, "rule": self.rule, "previous": self.previous,
                "focus": list(self.focus)}


@dataclass(frozen=True)
class _Token:
    text: str
    start: int  # character offsets into the question
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower()


@dataclass(frozen=True)
class _Phrase:
    """A run of content words of a question, with the frame words just before it ("for the" of "for the primary")."""

    words: tuple[_Token, ...]
    before: tuple[_Token, ...]  # up to two frame words before the run, nearest last

    @property
    def start(self) -> int:
        """Where the phrase starts, with its determiner ("the API", "a SEV1 page")."""
        if self.before and self.before[-1].lower in _DETERMINERS:
            return self.before[-1].start
        return self.words[0].start

    @property
    def end(self) -> int:
        return self.words[-1].end

    @property
    def after(self) -> str:
        """The word before the phrase ("we" of "do we host"), ignoring a determiner ("for" of "for the primary")."""
        words = [t.lower for t in self.before]
        if words and words[-1] in _DETERMINERS:
            words.pop()
        return words[-1] if words else ""


def read_question(messages: Sequence[Mapping[str, str]], *, follow_ups: bool = True) -> Reading:
    """The last user message, read with the user's previous question when it is a follow-up."""
    asked = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    if not asked:
        return Reading("", "")
    message = asked[-1]
    if not follow_ups or len(asked) < 2:
        return Reading(message, message)
    chain = asked[-_MAX_CHAIN - 1:-1]  # the questions before the last message, each read with the one before it
    previous = chain[0]
    for earlier in chain[1:]:
        previous = read_follow_up(earlier, previous) or earlier
    question, rule, own = _read(message, previous)
    if rule is None:
        return Reading(message, message)
    return Reading(question, message, rule, previous, _focus(own, previous))


def recorded_reading(events: Iterable[TraceEvent]) -> dict[str, Any] | None:
    """How a request's follow-up was read, from its trace (the normalize event's ``follow_up``); None when its last
    message was read as sent."""
    return next((e.payload["follow_up"] for e in events
                 if e.phase is Phase.GATE_NORMALIZE_MODALITY and "follow_up" in e.payload), None)


def read_follow_up(message: str, previous: str) -> str | None:
    """``message`` made to stand on its own with ``previous``; None when it is not a follow-up it can read."""
    question, rule, _ = _read(message, previous)
    return question if rule else None


def _read(message: str, previous: str) -> tuple[str, str | None, str]:
    """The reading, its rule (None: read as sent) and the words the follow-up says itself (its phrase, or the
    message without its pronouns)."""
    text = " ".join(message.split())
    before = " ".join(previous.split())
    phrases = _phrases(before) if _asks(before) else []
    if not phrases:  # nothing to lean on: "Thanks!", a pasted document
        return text, None, text
    fragment = _OPENER.match(text)
    if fragment and _is_phrase(fragment.group("phrase")):
        replaced = _replaced(fragment.group("phrase"), before, phrases)
        if replaced is not None:
            return replaced, FRAGMENT, fragment.group("phrase")
    pronoun = _PRONOUN.search(text)
    # an opener before a question of its own ("And are they encrypted?") is a connective, not a fragment: its pronoun
    # is read as any other; after "What about it?" there is no question of its own, so nothing is read
    whole_after_opener = fragment is not None and _ASKING.match(fragment.group("phrase")) is not None
    if pronoun and (not fragment or whole_after_opener) and not _EXPLETIVE.match(text, pronoun.start()) \
            and not _points_inside(text[:pronoun.start()]):
        topic = _topic(before, phrases)
        word = pronoun.group(1).lower()
        stands_for = f"{topic}'s" if word in _POSSESSIVE else topic
        return text[:pronoun.start()] + stands_for + text[pronoun.end():], PRONOUN, _PRONOUN.sub(" ", text)
    return text, None, text


def _focus(own: str, previous: str) -> tuple[str, ...]:
    """The follow-up's own words the previous question does not have ("desktop" of "the desktop app" after "mobile
    apps"), its nouns when it has any ("version", not "run", of "Which version does it run?")."""
    asked_before = {_singular(w) for w in _TOKEN.findall(previous)}
    new = [w for w in _content_words(own) if _singular(w) not in asked_before]
    nouns = [w for w in new if not _is_verb(w)]
    return tuple(dict.fromkeys(nouns or new))


def _asks(text: str) -> bool:
    """One question a follow-up can lean on: short, and asked ("...?", "How ...", "Tell me about ...")."""
    return len(text.split()) <= _MAX_QUESTION_WORDS and bool(_ASKING.search(text))


def _points_inside(before: str) -> bool:
    """A pronoun after a clause that names something of its own ("If the API is down, who do I page and how do I
    reach them?", "How does the API authenticate and what does it return?") points inside the question."""
    boundary = _CLAUSE_BOUNDARY.search(before)
    return boundary is not None and bool(_content_words(before[:boundary.start()]))


def _content_words(text: str) -> list[str]:
    return [w for w in _TOKEN.findall(text) if w.lower() not in STOPWORDS and w.lower() not in _FRAME]


def _is_phrase(text: str) -> bool:
    """A noun phrase, maybe after a preposition: one clause (no sentence ends inside it), no question word or
    auxiliary, no pronoun, a word of its own."""
    if re.search(r"[?!;:]|\.\s", text):
        return False
    words = [w.lower() for w in _TOKEN.findall(text)]
    if not words or len(words) > 8:
        return False
    if any(w in WH_WORDS or w in AUXILIARIES or w in _SUBJECTS for w in words) or _PRONOUN.search(text):
        return False
    return any(w not in STOPWORDS for w in words)


def _replaced(phrase: str, before: str, phrases: list[_Phrase]) -> str | None:
    words = _TOKEN.findall(phrase)
    preposition = words[0].lower() if words and words[0].lower() in _PREPOSITIONS else None
    if preposition:
        phrase = phrase[phrase.lower().index(preposition) + len(preposition):].strip()
    content = [w for w in _TOKEN.findall(phrase) if w.lower() not in STOPWORDS]
    if not content:
        return None
    head = _singular(content[-1])
    for candidate in phrases:  # the phrase with the same last word: "Standard plan keys" for "Enterprise plan keys"
        for word in candidate.words:
            if _singular(word.text) == head:
                return _swap(before, candidate.start, word.end, phrase)
    if preposition:  # the phrase after the same preposition: "for the primary" for "for the secondary"
        for candidate in phrases:
            if candidate.after == preposition:
                return _swap(before, candidate.start, candidate.end, phrase)
    # else what the previous question asks about ("the rate limit" for "the burst"), passing over the noun of its
    # question word ("machines" of "How many machines does production run?" for "staging")
    subject = next((p for p in phrases if p.after not in _ASKED_NOUN), phrases[0])
    return _swap(before, subject.start, subject.end, phrase)


def _topic(before: str, phrases: list[_Phrase]) -> str:
    """What a question asks about: its first phrase that is not the verb after a subject ("do we host ...")."""
    chosen = next((p for p in phrases if p.after not in _SUBJECTS), phrases[0])
    return before[chosen.start:chosen.end]


def _swap(text: str, start: int, end: int, phrase: str) -> str:
    return f"{text[:start]}{phrase}{text[end:]}"


def _phrases(question: str) -> list[_Phrase]:
    """The runs of content words of a question, each with the frame words before it; a verb that ends a run is split
    off it ("database backups" and "kept" of "How long are database backups kept?", "ADR-011" and "say" of "What
    does ADR-011 say about prices?")."""
    phrases: list[_Phrase] = []
    run: list[_Token] = []
    frame: list[_Token] = []
    for match in _TOKEN.finditer(question):
        token = _Token(match.group(0), match.start(), match.end())
        # "how" and the word after it frame the question ("how long", "how many", "how quickly")
        if token.lower in STOPWORDS or token.lower in _FRAME or (frame and not run and frame[-1].lower == "how"):
            if run:
                phrases.append(_Phrase(tuple(run), tuple(frame[-2:])))
                run, frame = [], []
            frame.append(token)
        else:
            run.append(token)
    if run:
        phrases.append(_Phrase(tuple(run), tuple(frame[-2:])))
    split: list[_Phrase] = []
    for phrase in phrases:
        if len(phrase.words) > 1 and _is_verb(phrase.words[-1].text):
            split += [_Phrase(phrase.words[:-1], phrase.before), _Phrase(phrase.words[-1:], phrase.words[-2:-1])]
        else:
            split.append(phrase)
    return split


def _is_verb(word: str) -> bool:
    lowered = word.lower()
    return lowered in _VERBS or (lowered.endswith("ed") and len(lowered) > 4)


def _singular(word: str) -> str:
    """The word without a plural ending ("pages" -> "page", "replies" -> "reply"), for matching a phrase's head."""
    lowered = word.lower()
    if lowered.endswith("ies") and len(lowered) > 4:
        return lowered[:-3] + "y"
    if lowered.endswith("s") and not lowered.endswith("ss") and len(lowered) > 3:
        return lowered[:-1]
    return lowered


__all__ = ["FRAGMENT", "PRONOUN", "Reading", "read_follow_up", "read_question", "recorded_reading"]
