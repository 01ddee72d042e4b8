"""response_validation: CFS-020 §8 hallucination indicators ("I recall that", "From my knowledge", ...).

A claim that leans on the model's own memory instead of the evidence is a warning on that claim; at or above
``fail_at_rigor`` (default high) it fails with HALLUCINATION_PHRASE, and the sentence is not shown. The seed's four
phrases always apply; the bundle adds its own in ``params.phrases``. Matching is case-insensitive, on word
boundaries, with any apostrophe ("It’s commonly known" is the same phrase).

The seed's other two checks have their homes already: a citation of a chunk that is not in the context is
evidence_binding's UNKNOWN_EVIDENCE_ID, and output over the token budget is budget_enforcer's TOKENS_EXCEEDED.
"""

from __future__ import annotations

import functools
import re

from controlplane.contracts import CostClass, GateResult, ReasonCode, RigorLevel

from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage

SEED_PHRASES = ("I recall that", "From my knowledge", "Generally speaking", "It's commonly known")
_APOSTROPHES = "'’`´"


@functools.lru_cache(maxsize=1024)  # a bundle's phrases are few and fixed: compile each once, not per claim
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    parts = []
    for char in phrase.strip():
        if char in _APOSTROPHES:
            parts.append(f"[{_APOSTROPHES}]")
        elif char.isspace():
            parts.append(r"\s+")
        else:
            parts.append(re.escape(char))
    return re.compile(r"(?<!\w)" + "".join(parts) + r"(?!\w)", re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def any_phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern that matches where any of ``phrases`` does: most texts hold none, and one search says so."""
    usable = [phrase_pattern(p).pattern for p in phrases if p.strip()]
    return re.compile("|".join(f"(?:{p})" for p in usable), re.IGNORECASE) if usable else None


@functools.lru_cache(maxsize=256)
def phrase_keys(phrases: tuple[str, ...]) -> tuple[str, ...] | None:
    """For each phrase, its longest run between spaces and apostrophes, lowercased: any text the phrase matches
    holds it. None when that cannot be relied on: a phrase that is not ASCII (case-insensitive matching folds some
    non-ASCII letters to ASCII ones, which ``str.lower`` does not) or has no such run."""
    keys = []
    for phrase in phrases:
        if not phrase.strip():
            continue  # never matches (any_phrase_pattern leaves it out)
        runs = "".join(" " if char in _APOSTROPHES else char for char in phrase.strip()).lower().split()
        if not phrase.isascii() or not runs:
            return None
        keys.append(max(runs, key=len))
    return tuple(keys)


def may_hold_a_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    """False only when no phrase can match ``text``: an ASCII text that lacks every phrase's key. A substring test
    over the lowercased text costs a fraction of the case-insensitive search it spares (the search, with a
    lookbehind at every alternative, tries each position of every claim)."""
    keys = phrase_keys(phrases)
    if keys is None or not text.isascii():  # non-ASCII letters may fold to ASCII ones: search those texts in full
        return True
    lower = text.lower()
    return any(key in lower for key in keys)


def hallucination_phrases(text: str, phrases: tuple[str, ...] | list[str] = SEED_PHRASES) -> list[str]:
    """The indicator phrases found in ``text``, as listed (not as written)."""
    listed = tuple(dict.fromkeys(phrases))
    anywhere = any_phrase_pattern(listed)
    if anywhere is None or not may_hold_a_phrase(text, listed) or not anywhere.search(text):
        return []
    return [phrase for phrase in listed if phrase.strip() and phrase_pattern(phrase).search(text)]


def phrase_warnings(found: dict[str, list[str]]) -> list[str]:
    """One warning line per claim from ``details["phrases_found"]`` (claim id -> phrases), failing or not."""
    return [f"{cid}: potential hallucination ({', '.join(repr(h) for h in hits)})" for cid, hits in found.items()]


class ResponseValidationGate(BaseGate):
    gate_id = "response_validation"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        extra = inp.params.get("phrases", [])
        if not isinstance(extra, list) or not all(isinstance(p, str) for p in extra):
            return self.failing([ReasonCode.PRECONDITION_FAILED],
                                details={"error": "params.phrases must be a list of strings"})
        phrases = tuple(dict.fromkeys([*SEED_PHRASES, *extra]))
        fail_at = RigorLevel(inp.params.get("fail_at_rigor", RigorLevel.HIGH.value))
        level = inp.mode_decision.rigorConfig.level
        evidence_text = {item.id: item.text for item in inp.evidence_pack.evidence}
        found: dict[str, list[str]] = {}
        for claim in inp.envelope.meta.claim_map:
            hits = hallucination_phrases(claim.text, phrases)
            if hits:  # a phrase the cited evidence itself says is a quote, not the model leaning on its memory
                cited = " ".join(evidence_text.get(eid, "") for eid in claim.evidence_ids)
                quoted = set(hallucination_phrases(cited, phrases)) if cited else set()
                hits = [hit for hit in hits if hit not in quoted]
            if hits:
                found[claim.claim_id] = hits
        warnings = phrase_warnings(found)
        details = {"phrases_found": found, "fail_at_rigor": fail_at.value}
        if found and level.rank >= fail_at.rank:
            return self.failing([ReasonCode.HALLUCINATION_PHRASE], evidence_refs=[f"claim_map:{c}" for c in found],
                                details={"claims": {c: [ReasonCode.HALLUCINATION_PHRASE.value] for c in found},
                                         **details})
        return self.passing(details={**details, "warnings": warnings})


@hookimpl
def controlplane_gates():
    return [ResponseValidationGate()]
