"""Contradictions between evidence items, detected and resolved (EBOM "Contradiction Resolution"; grounded-
generation §9). Shared gate utility: the evidence_conflicts gate detects and resolves, nli_entailment resolves the
contradictions among the items a claim cites with the same :func:`resolve_pair`.

Detection is claim-centred: an item of the pack that the claim does *not* rely on conflicts with the claim's
supporting evidence when it contradicts an atomic claim it is about (it mentions every name the atomic claim uses and
some of its words) -- NLI P(contradiction) of (item, that atomic claim) above ``contradiction_threshold`` (EBOM: 0.7)
-- or, deterministically, states a different number or the opposite polarity in a sentence about the same subject
(the sentence holds >= ``same_subject_overlap``, default 0.85, of the claim's content words).

Resolution, in order (pure function :func:`resolve_pair`):

1. credibility difference > 0.3 -> the higher-credibility source wins (EBOM credibility tiebreaking);
2. an outdated source yields to a current one: one item stale for its volatility and the other not, or both dated
   and the older one more than ``outdated_gap_days`` older (EBOM temporal contradictions: USE_CURRENT);
3. otherwise unresolved (the gate applies the riskiest domain's ``conflict_policy``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from controlplane.contracts import EvidenceItem
from controlplane.contracts.text import MEANING_WORDS, content_stem_set, memo_by_text, stem, words
from controlplane.evidence_pack.staleness import dated, parse_time, staleness

from .atomic_claims import PRONOUN_SUBJECTS
from .claim_checks import (
    DOSE_UNITS,
    OTHER_UNITS,
    POLARITY_DETAILS,
    TIME_UNITS,
    CheckFinding,
    best_sentence,
    check_negation,
    check_numbers,
    is_negative_word,
    prefix_negated,
    quantities,
)
from .interfaces import NliBackend

CREDIBILITY_GAP = 0.3
CONTRADICTION_THRESHOLD = 0.7
OUTDATED_GAP_DAYS = 30
SAME_SUBJECT_OVERLAP = 0.85
CANDIDATE_OVERLAP = 0.3


def gate_now(params: dict[str, Any]) -> datetime:
    """The gate's clock: ``params.now`` (ISO-8601, for reproducible replays and tests) or the current UTC time."""
    return parse_time(params.get("now")) or datetime.now(UTC)


@dataclass(frozen=True)
class Resolution:
    kind: str  # favor_higher_credibility | use_current | unresolved
    winner: str | None
    loser: str | None
    explanation: str

    def as_dict(self) -> dict:
        return {"kind": self.kind, "winner": self.winner, "loser": self.loser, "explanation": self.explanation}


def resolve_pair(a: EvidenceItem, b: EvidenceItem, now: datetime, *, credibility_gap: float = CREDIBILITY_GAP,
                 outdated_gap_days: float = OUTDATED_GAP_DAYS, time_sensitive: bool = False) -> Resolution:
    """Which of two contradicting items prevails, if either (credibility first, then currency)."""
    if abs(a.credibility - b.credibility) > credibility_gap + 1e-9:
        hi, lo = (a, b) if a.credibility > b.credibility else (b, a)
        return Resolution(
            "favor_higher_credibility", hi.id, lo.id,
            f"Sources conflict. Higher-credibility source {hi.id} [credibility: {hi.credibility:.2f}] states: "
            f"\"{snippet(hi.text)}\". Lower-credibility source {lo.id} [credibility: {lo.credibility:.2f}] states: "
            f"\"{snippet(lo.text)}\". Favoring higher-credibility source.",
        )
    stale_a = staleness(a, now, time_sensitive=time_sensitive).stale
    stale_b = staleness(b, now, time_sensitive=time_sensitive).stale
    da, db = dated(a), dated(b)
    current = old = None
    if stale_a != stale_b:
        current, old = (b, a) if stale_a else (a, b)
    elif da and db and abs((da - db).total_seconds()) > timedelta(days=outdated_gap_days).total_seconds():
        current, old = (a, b) if da > db else (b, a)
    if current is not None and old is not None:
        when_old, when_new = dated(old), dated(current)
        return Resolution(
            "use_current", current.id, old.id,
            f"Older source {old.id}{_dated(when_old)} stated \"{snippet(old.text)}\", but current source "
            f"{current.id}{_dated(when_new)} states \"{snippet(current.text)}\". Using current information.",
        )
    return Resolution("unresolved", None, None,
                      f"Sources conflict: {a.id} states \"{snippet(a.text)}\", while {b.id} states "
                      f"\"{snippet(b.text)}\".")


def _dated(when: datetime | None) -> str:
    return f" (dated {when.date().isoformat()})" if when else ""


def snippet(text: str, limit: int = 140) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class Conflict:
    claim_id: str
    supporter: str
    opposer: str
    signal: str  # nli | numbers | negation
    score: float | None
    detail: str

    def as_dict(self) -> dict:
        return {"claim_id": self.claim_id, "supporter": self.supporter, "opposer": self.opposer,
                "signal": self.signal, "score": self.score, "detail": self.detail}


# A name runs through "/" as through "-" and ".": "HTTP/2" is not "HTTP" (an item about an HTTP client is not about
# HTTP/2, and the verifier read "tern is a small HTTP client" as contradicting "tern does not support HTTP/2").
_NAME = re.compile(r"[A-Z][A-Za-z0-9.'/-]*")


_TOKEN = re.compile(r"[A-Za-z0-9.'/-]+")


@memo_by_text
def _names(text: str) -> frozenset[str]:
    """Capitalised tokens after the first word: the names that tell one subject from another ("Service A")."""
    return frozenset(_NAME.findall(text.split(" ", 1)[1])) if " " in text.strip() else frozenset()


@memo_by_text
def _tokens(text: str) -> frozenset[str]:
    return frozenset(_TOKEN.findall(text))


def _mentions_names(item_text: str, claim_text: str) -> bool:
    words = _tokens(item_text)
    return all(name in words or name.rstrip(".") in words for name in _names(claim_text))


# Words of amount and measure: an atomic claim made only of them ("Then at least every 30 minutes.", a fragment the
# splitter leaves of "... and then at least every 30 minutes") names no subject for another item to be about
_MEASURE_STEMS = frozenset(stem(w.lower()) for w in (*TIME_UNITS, *DOSE_UNITS, *OTHER_UNITS, *MEANING_WORDS, "every",
                                                     "then") if w.isalpha())
# How far after a negative word its scope reaches, in words: "never over the primary" negates "over the primary"
NEGATION_SCOPE = 3


# A subject that is a pronoun standing for something else ("It costs 20 euros.", split off "... the lead test ..., and
# it costs 20 euros"): what it stands for is not in the atomic claim, so no other item can be about the same thing
# (over corpus h, "costs" found the day passes' price, and the verifier read an unrelated chunk as contradicting it,
# 0.74). Not "we", "I" or "you", who are who they are in every item, nor the "there" of "there is".
_STANDS_FOR_ANOTHER = PRONOUN_SUBJECTS - {"we", "i", "you", "there"}


def _names_a_subject(claim_text: str) -> bool:
    opening = words(claim_text)[:1]
    return bool(content_stem_set(claim_text) - _MEASURE_STEMS) and not (opening and opening[0] in _STANDS_FOR_ANOTHER)


def _negates_the_other(text: str, other: str) -> bool:
    """Whether a negative word of ``text`` has a content word of ``other`` within NEGATION_SCOPE words after it
    ("Backups are never encrypted" negates "Backups are encrypted"; "... (never over the primary)" negates nothing
    "Database: Turso" says), or a word of ``text`` negates one of ``other`` by its prefix ("unavailable")."""
    ws, theirs = words(text), content_stem_set(other)
    return any((is_negative_word(w) and any(stem(n) in theirs for n in ws[i + 1:i + 1 + NEGATION_SCOPE]))
               or prefix_negated(w, set(theirs)) for i, w in enumerate(ws))


def _polarity_in_scope(finding: CheckFinding, sentence: str, claim_text: str) -> bool:
    """A negation finding stands when it is an opposite pair ("before" / "after", "largest" / "smallest"), or when
    its polarity difference ("claim negates ..." / "evidence negates ...") comes from a negation of the other side's
    words."""
    if not finding.detail.startswith(POLARITY_DETAILS):
        return True
    return _negates_the_other(sentence, claim_text) or _negates_the_other(claim_text, sentence)


def deterministic_conflict(item_text: str, claim_text: str, overlap: float = SAME_SUBJECT_OVERLAP) -> tuple[str, str] | None:
    """(signal, detail) when item_text talks about the claim's subject and states another number or polarity.

    Same subject: the item sentence holds ``overlap`` of the claim's content words and every name the claim uses
    (so "Service Beta handles 110" does not conflict with "Service Alpha handles 100"), and the claim names a subject
    at all (not only amounts and units). Opposite polarity: a negative word of one side negates words of the other."""
    if not _names_a_subject(claim_text):
        return None
    sentence, share = best_sentence(item_text, claim_text)
    if not sentence or share < overlap:
        return None
    if not _mentions_names(sentence, claim_text):
        return None
    if quantities(sentence) and quantities(claim_text):
        found = check_numbers(sentence, claim_text)
        if found:
            return "numbers", found[0].detail
    asserted = _without_conditions(sentence)
    found = [f for f in check_negation(asserted, claim_text) if _polarity_in_scope(f, asserted, claim_text)]
    if found:
        return "negation", found[0].detail
    return None


# A condition asserts nothing: "Refunds are issued within 14 days if the item was not used." states that refunds are
# issued (on a condition), not that any item was or was not used; its "not" would cancel the "not" of "Refunds are
# not issued ...", and its words would be read as stated. The item's polarity is its sentence's without them: a
# clause opened by "if" / "unless" / "provided (that)" up to the next comma, semicolon or the end.
_CONDITION = re.compile(r"(?:,\s*|\s+)\b(?:if|unless|provided(?:\s+that)?)\b[^,;.]*", re.IGNORECASE)


def _without_conditions(sentence: str) -> str:
    kept = _CONDITION.sub("", sentence)
    return kept if content_stem_set(kept) else sentence


def _overlap(item_text: str, claim_text: str) -> float:
    claim = content_stem_set(claim_text)
    if not claim:
        return 0.0
    return len(claim & content_stem_set(item_text)) / len(claim)


Candidate = tuple[EvidenceItem, tuple[str, ...]]


def usable_and_candidates(atoms: Sequence[str], cited: Sequence[EvidenceItem],
                          others: Sequence[EvidenceItem]) -> tuple[list[EvidenceItem], list[Candidate]]:
    """The cited items that can support the claim, and the other items that can oppose it, each with the atomic
    claims it is about (every name the atomic claim uses, and some of its words). An item is held only to those: one
    that shares words with "Currency formatting is done on the client." says nothing of "Rounding is not.", and the
    verifier's P(contradiction) for that pair (0.74 for ADR-011's offline-mode paragraph) is noise."""
    usable = [item for item in cited if not item.redacted]
    candidates: list[Candidate] = []
    for other in others:
        if not other.redacted and (about := tuple(a for a in atoms if _about_the_same(other.text, a))):
            candidates.append((other, about))
    return usable, candidates


@memo_by_text
def _about_the_same(item_text: str, atom: str) -> bool:
    # asked for every (other item, atom) by nli_pairs and detect_conflicts alike: decided once
    return _names_a_subject(atom) and _overlap(item_text, atom) >= CANDIDATE_OVERLAP and _mentions_names(item_text, atom)


def nli_pairs(atoms: Sequence[str], cited: Sequence[EvidenceItem], others: Sequence[EvidenceItem],
              split: tuple[list[EvidenceItem], list[Candidate]] | None = None) -> list[tuple[str, str]]:
    """The (evidence text, atomic claim) pairs :func:`detect_conflicts` asks the backend about for one claim: each
    usable item with every atomic claim, each candidate with the atomic claims it is about. ``split``:
    :func:`usable_and_candidates` of the same arguments, when the caller has it already."""
    usable, candidates = split or usable_and_candidates(atoms, cited, others)
    if not atoms:
        return []
    return [(item.text, atom) for item in usable for atom in atoms] + \
        [(item.text, atom) for item, about in candidates for atom in about]


def detect_conflicts(claim_id: str, atoms: Sequence[str], cited: Sequence[EvidenceItem], others: Sequence[EvidenceItem],
                     backend: NliBackend | None, *, threshold: float = CONTRADICTION_THRESHOLD,
                     min_entailment: float = 0.5, overlap: float = SAME_SUBJECT_OVERLAP,
                     split: tuple[list[EvidenceItem], list[Candidate]] | None = None,
                     ) -> tuple[list[Conflict], list[str]]:
    """Conflicts of one claim, and the ids of its supporting items (cited items that entail it; all cited items
    when there is no backend). ``split``: as for :func:`nli_pairs`."""
    usable, candidates = split or usable_and_candidates(atoms, cited, others)
    supporters: list[EvidenceItem] = list(usable)
    nli_against: dict[str, float] = {}
    if backend is not None and atoms and (usable or candidates):
        pairs = nli_pairs(atoms, cited, others, (usable, candidates))
        scores = backend.score(pairs)
        if len(scores) != len(pairs):
            raise ValueError(f"NLI backend returned {len(scores)} scores for {len(pairs)} pairs")
        supported = scores[:len(usable) * len(atoms)]
        supporters = [item for index, item in enumerate(usable)
                      if max(r.entailment for r in supported[index * len(atoms):(index + 1) * len(atoms)])
                      >= min_entailment]
        start = len(supported)
        for item, about in candidates:
            against = max(r.contradiction for r in scores[start:start + len(about)])
            start += len(about)
            if against > threshold:
                nli_against[item.id] = against
    conflicts: list[Conflict] = []
    for opposer, _ in candidates:
        signal = None
        if opposer.id in nli_against:
            signal = ("nli", round(nli_against[opposer.id], 4), f"P(contradiction)={nli_against[opposer.id]:.2f}")
        else:
            for atom in atoms:
                found = deterministic_conflict(opposer.text, atom, overlap)
                if found:
                    signal = (found[0], None, found[1])
                    break
        if signal is None:
            continue
        for supporter in supporters:
            if supporter.id != opposer.id:
                conflicts.append(Conflict(claim_id, supporter.id, opposer.id, signal[0], signal[1], signal[2]))
    return conflicts, [s.id for s in supporters]
