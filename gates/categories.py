"""Claim categories (EBOM "Claim Classification Rules"): a deterministic classifier, and what stating the absence
of information sounds like. Shared gate utility: claim_categories, evidence_binding and nli_entailment read it.

A deterministic classifier puts a claim in TRIVIAL, FACTUAL, SUBJECTIVE, CONSENSUS or REASONING with a confidence;
below EBOM's 0.7 it says FACTUAL ("if uncertain: default to FACTUAL_CLAIM, require citation").

TRIVIAL here means "asserts nothing checkable" (greetings, meta remarks, questions, offers to help). Whether a fact
is common knowledge cannot be decided deterministically, so "Paris is the capital of France" classifies FACTUAL;
the policy's exempt statuses decide whether a TRIVIAL label is accepted at low rigor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from controlplane.contracts import ClaimStatus
from controlplane.contracts.text import WORD, content_stem_set, memo_by_text, split_sentences, stem, strip_markers

from .claim_checks import absent_name, opening_name

CONFIDENCE_THRESHOLD = 0.7  # EBOM: classifier confidence threshold; below it, FACTUAL

_SUBJECTIVE = re.compile(
    r"\b(i think|i believe|i feel|i find|in my (?:view|opinion)|my (?:view|opinion|take)|personally|arguably|"
    r"to me|i(?:'d| would) (?:say|argue|prefer|recommend)|i prefer|i like|i love|i hate|subjectively)\b", re.IGNORECASE)
_EVALUATIVE = re.compile(
    r"\b(elegant|beautiful|ugly|uglier|nice|nicer|great|awesome|terrible|awful|clean|cleaner|cleanest|messy|messier|"
    r"readable|unreadable|pleasant|simpler|nicest|prettier|"
    r"enjoyable|boring|exciting|interesting|lovely|delightful|clunky|overkill|tasteful|better|worse|best|worst|"
    r"prefer(?:able|red)?|should|ought)\b", re.IGNORECASE)
_CONSENSUS = re.compile(
    r"\b(most (?:experts|developers|engineers|lawyers|doctors|physicians|researchers|people|users|teams|companies)|"
    r"(?:experts|scientists|researchers|practitioners) (?:agree|recommend|consider)|widely (?:accepted|used|regarded|"
    r"considered|believed)|generally (?:accepted|agreed|considered|recommended)|consensus|industry[- ]standard|"
    r"standard practice|best practice|common practice|prevailing (?:view|interpretation)|commonly (?:accepted|used|"
    r"recommended)|the majority of)\b", re.IGNORECASE)
_REASONING = re.compile(
    r"(?:^|[\s,;])(therefore|thus|hence|consequently|it follows that|which means|this means|we can infer|"
    r"so we can|implies that|given that|because of this|as a result)\b", re.IGNORECASE)
_TRIVIAL = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|yes|no|thanks|thank you|hello|hi|great question|good question|"
    r"here(?:'s| is| are) (?:a|an|the|what|how|my|some)|let me (?:explain|summari[sz]e|check|know)|"
    r"i hope (?:this|that) helps|hope (?:this|that) helps|feel free to|let me know|in summary|to summari[sz]e|"
    r"happy to help|i can help)\b", re.IGNORECASE)
_FACT_SIGNALS = re.compile(r"\d|%|\$|€|£|\b(?:is|are|was|were|has|have|had|will|must|requires?|uses?)\b", re.IGNORECASE)
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9.'-]*")


def _has_name(text: str) -> bool:
    """A capitalised word that does not start the sentence (a name, product, place)."""
    words = _WORDS.findall(text)
    return any(w[0].isupper() and w.lower() not in ("i",) for w in words[1:])


@dataclass(frozen=True)
class Category:
    category: ClaimStatus
    confidence: float
    signals: tuple[str, ...]


@memo_by_text
def classify(text: str) -> Category:
    """Deterministic EBOM category of one claim."""
    plain = strip_markers(text).strip()
    if not plain:
        return Category(ClaimStatus.TRIVIAL, 0.9, ("empty",))
    signals: list[str] = []
    facts = bool(re.search(r"\d", plain)) or _has_name(plain)
    if _TRIVIAL.search(plain) or plain.endswith("?"):
        rest = _TRIVIAL.sub("", plain).strip(" ,.!:")
        if plain.endswith("?") or len(rest.split()) <= 6 and not re.search(r"\d", rest):
            return Category(ClaimStatus.TRIVIAL, 0.9, ("meta_or_question",))
        signals.append("meta_prefix")
    if _CONSENSUS.search(plain):
        return Category(ClaimStatus.CONSENSUS, 0.9, (*signals, "consensus_marker"))
    if _REASONING.search(plain):
        if not facts:  # "Therefore we host on AWS in us-east-1" still asserts a checkable fact
            return Category(ClaimStatus.REASONING, 0.8, (*signals, "inference_connective"))
        signals.append("inference_connective_with_facts")
    if _SUBJECTIVE.search(plain):
        confidence = 0.75 if facts else 0.9  # "I think the limit is 100/min" is still a factual assertion
        if confidence >= CONFIDENCE_THRESHOLD and not facts:
            return Category(ClaimStatus.SUBJECTIVE, confidence, (*signals, "opinion_marker"))
        signals.append("opinion_marker_with_facts")
    if _EVALUATIVE.search(plain) and not facts:
        return Category(ClaimStatus.SUBJECTIVE, 0.75, (*signals, "evaluative_word"))
    if _FACT_SIGNALS.search(plain) or facts:
        return Category(ClaimStatus.FACTUAL, 0.9, (*signals, "factual_signal"))
    return Category(ClaimStatus.FACTUAL, 0.5, (*signals, "uncertain_default_factual"))


# What stating the absence of information sounds like. Deliberately narrow: "Nothing runs on Fly.io", "whether",
# "unclear" or a question mark do not say that information is missing (issue 16: they let facts pass as UNKNOWN).
_ABSENCE = re.compile(
    r"\b(unknown|not known|(?:do|does|did)(?: not|n't) (?:say|state|mention|specify|show|cover|answer|contain|include|"
    r"provide|give|tell|know|list|describe|indicate|have (?:any )?(?:evidence|information|data))|have no (?:evidence|"
    r"information|data)|(?:could|can)(?: ?not|n't) (?:find|tell|say|determine|confirm|"
    r"verify|answer)|no (?:evidence|information|data|source|mention|answer|details?)|not (?:stated|specified|"
    r"mentioned|provided|given|available|covered|listed|described|documented)|not in the (?:evidence|documents?|"
    r"sources?|context)|(?:is|are|remains?) unclear (?:from|in)|unable to (?:find|determine|tell|confirm|verify|answer)|"
    r"insufficient (?:evidence|information)|not enough (?:evidence|information)|nothing in the (?:evidence|documents?|"
    r"sources?|context)|(?:i am|i'm) not sure)\b", re.IGNORECASE)
# Where one clause ends and another assertion may begin: "The evidence does not say X; we host on AWS."
_CLAUSE = re.compile(r"\s*[;:\u2014]\s*|\s+-{1,2}\s+|,\s*(?:but|and|while|whereas|although|though|however|yet|so|"
                     r"which|who|because|since|as|though)\b\s*|\s+(?:but|however|whereas|although)\s+", re.IGNORECASE)


@memo_by_text
def states_absence(text: str) -> bool:
    """An UNKNOWN claim (issue 16): ONE sentence that states the absence of information and asserts nothing else.
    Every clause of it must say that something is not known / not in the evidence."""
    plain = strip_markers(text).strip()
    if not plain or plain.endswith("?") or len(split_sentences(plain)) != 1:
        return False
    clauses = [c for c in _CLAUSE.split(plain.rstrip(".!")) if c and c.strip(" ,.")]
    return bool(clauses) and all(_ABSENCE.search(clause) for clause in clauses)


def is_honest_unknown(claim: Any) -> bool:
    """A claim labelled UNKNOWN that only states the absence of information: it asserts nothing (gates read it so)."""
    return claim.status is ClaimStatus.UNKNOWN and states_absence(claim.text)


NEEDS_CITATION = frozenset({ClaimStatus.FACTUAL, ClaimStatus.CONSENSUS})
ESCAPE_LABELS = frozenset({ClaimStatus.SUBJECTIVE, ClaimStatus.TRIVIAL, ClaimStatus.REASONING})


# The words of saying that something is not known, and of the slot a question asks to fill: these are what an
# UNKNOWN claim may add to the question's and the evidence's words ("The evidence does not specify the date."). Whole
# words, not stems: the stem of "founded" is that of "found".
_ABSENCE_VOCABULARY = frozenset([
    "evidence", "information", "info", "data", "detail", "details", "document", "documents", "documentation", "source",
    "sources", "context", "text", "passage", "passages", "record", "records", "material", "mention", "mentions",
    "mentioned", "say", "says", "said", "state", "states", "stated", "specify", "specifies", "specified", "answer",
    "answers", "answered", "question", "questions", "know", "knows", "known", "unknown", "available", "provide",
    "provides", "provided", "give", "gives", "given", "tell", "tells", "list", "lists", "listed", "describe",
    "describes", "described", "indicate", "indicates", "indicated", "contain", "contains", "contained", "include",
    "includes", "included", "cover", "covers", "covered", "find", "found", "determine", "determined", "confirm",
    "confirmed", "verify", "verified", "sure", "clear", "clearly", "unclear", "insufficient", "enough", "nothing",
    "anything", "able", "unable", "exact", "exactly", "specific", "specifically", "explicit", "explicitly", "relevant",
    "show", "shows", "shown", "documented", "regarding", "related", "further", "date", "dates", "time", "times",
    "year", "years", "day", "days", "month", "months", "number", "numbers", "count", "amount", "name", "names",
    "person", "people", "place", "places", "location", "locations", "reason", "reasons", "cause", "causes", "way",
    "ways", "method", "methods", "value", "values", "figure", "figures", "size", "kind", "type", "itself", "himself",
    "herself", "themselves", "ourselves", "yourself", "yourselves", "myself"])
_INFLECTIONS = (("ied", "y"), ("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("d", ""))


def _roots(word: str) -> set[str]:
    """The word's stem and its stem with one inflection taken off ("died" -> "die", "carried" -> "carry"), so that
    an UNKNOWN sentence may inflect the question's words: "... where Harold II died." for "Where did Harold II
    die?" (seen in the embedded model's replies)."""
    lowered = word.lower()
    roots = {stem(lowered)}
    for suffix, replacement in _INFLECTIONS:
        if lowered.endswith(suffix) and len(lowered) - len(suffix) + len(replacement) >= 3:
            roots.add(stem(lowered[: -len(suffix)] + replacement))
    return roots


@memo_by_text
def _text_roots(text: str) -> frozenset[str]:
    return frozenset().union(*(_roots(w) for w in WORD.findall(text) if not w[0].isdigit()))


def unknown_adds_details(text: str, question: str, evidence_text: str) -> list[str]:
    """What an UNKNOWN claim tells that neither the question nor the evidence does: its new names and numbers, and
    the words it presumes. Saying what is not known names at most what was asked and what the evidence holds: "No
    information is available on the Zanzibar outage of 2024." tells the user of an outage nobody checked (found by
    QA), "Zanzibar backups are not documented." presumes backups there, and "The evidence does not say why the
    project was cancelled." presumes a cancellation nobody checked. Besides the question's and the evidence's words
    it may use only the words of absence and of the slot asked for (_ABSENCE_VOCABULARY). "Whether" does not make
    a word safe: "... whether the data breach affected customers" tells of a breach."""
    known = f"{question}\n{evidence_text}"
    known_lower = known.lower()
    tokens = WORD.findall(strip_markers(text))
    added: list[str] = []
    for index, token in enumerate(tokens):
        if token[0].isdigit():
            new = re.search(rf"(?<![\d.,]){re.escape(token)}(?![\d])", known) is None
        elif index == 0:
            new = token.lower() not in _ABSENCE_VOCABULARY and opening_name(token, known_lower, content_stem_set(known))
        else:
            new = absent_name(token, known_lower)
        if new and token not in added:
            added.append(token)
    known_roots = frozenset().union(*(_text_roots(line) for line in known.splitlines()))
    lowered = {token.lower() for token in added}
    for word in tokens:
        if word[0].isdigit() or word.lower() in lowered or word.lower() in _ABSENCE_VOCABULARY:
            continue
        if content_stem_set(word) and not _roots(word) & known_roots:
            added.append(word)
            lowered.add(word.lower())
    return added
