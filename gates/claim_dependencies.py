"""claim_dependencies (cheap): cross-claim dependency checking (Smart Notes §2.5).

Educational answers have definitional dependencies: a later claim uses a term an earlier one introduced. A claim
that uses a term which only a *later* claim defines is a forward reference, hard to follow and a sign the answer
leans on something it has not yet said.

- Terms are extracted as in §2.5.1: capitalised phrases (leading function words such as "The" or "When" dropped:
  the first word of every sentence is capitalised), single capital letters (variables F, E, T), Greek letters and
  math notation like ``O(n)``; inline evidence markers ``[E1]`` are removed first.
- A claim *defines* a term when it introduces it explicitly: the term on the left of an equation ("Re = ρvL/μ"), the
  subject of a copula definition ("X is a/an/the/defined as ...", "X denotes/means/refers to ..."), named by
  "called/known as/denoted X", or given in parentheses after its name ("the Reynolds number (Re)"). As in §2.5.2, a
  term no claim defines explicitly counts as defined where it is first used, so it never warns.
- Claims are taken in reading order (their anchor in assistant_text; the claim map's order where one is not found).
  UNKNOWN claims state no fact and are left out.

Each forward reference is a DependencyWarning (``claim_id``, ``term``, ``first_definition_claim_id``, ``severity``)
in ``details["dependency_warnings"]`` and a sentence in ``details["warnings"]`` (the reply shows those). By default
the gate passes with its warnings (§2.5.3: warnings only, the extraction is heuristic). With the strict setting --
``params.strict_dependencies`` or the ``strict_dependencies`` of a domain profile the request falls under -- each
warned claim is downgraded to LOW_CONFIDENCE (confidence capped at 0.65): the gate fails it with
DEPENDENCY_FORWARD_REFERENCE and LOW_CONFIDENCE.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from controlplane.contracts import Claim, ClaimStatus, CostClass, GateResult, ReasonCode
from controlplane.contracts.text import memo_by_text, strip_markers

from .anchoring import anchor_claims
from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage

LOW_CONFIDENCE_CAP = 0.65  # Smart Notes §2.5.3: claim.confidence = min(claim.confidence, 0.65)

# §2.5.1, as written in the seed
_CAPITALIZED = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")
_VARIABLE = re.compile(r"\b[A-Z]\b")
_GREEK = re.compile(r"[α-ωΑ-Ω]")
_NOTATION = re.compile(r"\b[A-Z][a-z]*\([^)]*\)")
# Capitalised only because they open a sentence or clause: never a named concept on their own.
_FUNCTION_WORDS = frozenset(
    ["a", "an", "the", "this", "that", "these", "those", "when", "if", "in", "on", "at", "for", "from", "by", "with", "as", "since", "because", "while", "where", "whereas", "then", "thus", "hence", "therefore", "so", "but", "and", "or", "it", "its", "their", "there", "here", "each", "every", "any", "all", "some", "no", "not", "one", "two", "many", "most", "after", "before", "during", "under", "over", "between", "also", "only", "both", "either", "neither", "let", "given", "assume", "suppose"]
)
_EQUALS = re.compile(r"(?<![<>=!:])(?::?=|≡)(?!=)")
_CLAUSE_BREAK = re.compile(r"[,;:.!?]\s")
# what may stand between a term and its defining verb: "(Re)", ", denoted v,"
_APPOSITIVE = r"\s*(?:\([^)]*\)\s*|,[^,]{1,40},)?,?"


@dataclass(frozen=True)
class DependencyWarning:
    """Smart Notes §2.5.2 DependencyWarning."""

    claim_id: str
    term: str
    first_definition_claim_id: str
    severity: str = "warning"

    def as_dict(self) -> dict[str, str]:
        return {"claim_id": self.claim_id, "term": self.term,
                "first_definition_claim_id": self.first_definition_claim_id, "severity": self.severity}

    def sentence(self) -> str:
        return (f"Claim {self.claim_id} uses \"{self.term}\" before claim {self.first_definition_claim_id} defines "
                "it (cross-claim dependency).")


def extract_terms(claim_text: str) -> set[str]:
    """§2.5.1 term extraction, with the function words that open a sentence dropped from capitalised phrases."""
    return set(_terms_of(claim_text))


@memo_by_text  # the same claim texts come again (every attempt, replays): extracted once
def _terms_of(claim_text: str) -> frozenset[str]:
    text = strip_markers(claim_text)
    terms: set[str] = set()
    for phrase in _CAPITALIZED.findall(text):
        words = phrase.split()
        while words and words[0].lower() in _FUNCTION_WORDS:
            words.pop(0)
        if words:
            terms.add(" ".join(words))
    for match in _VARIABLE.finditer(text):
        after = text[match.end():match.end() + 2]
        if match.group() in ("A", "I") and re.match(r"\s[a-z]", after):
            continue  # the article "A" / the pronoun "I", not a variable
        if after.startswith("("):
            continue  # the head of a notation such as O(n), counted whole below
        terms.add(match.group())
    terms.update(_GREEK.findall(text))
    terms.update(_NOTATION.findall(text))
    return frozenset(terms)


def _word(term: str) -> str:
    return rf"(?<![\w]){re.escape(term)}(?![\w])"


@functools.lru_cache(maxsize=512)  # terms recur across claims and requests: compile their patterns once (bounded
# like re's own cache: terms come from model output)
def _definition_patterns(term: str) -> tuple[re.Pattern[str], tuple[re.Pattern[str], ...]]:
    """(the term as a word, the patterns of an explicit definition of it) -- see ``defines``."""
    t = _word(term)
    return re.compile(t), tuple(re.compile(p) for p in (
        rf"{t}{_APPOSITIVE}\s+(?:is|are)\s+(?:defined\s+as|called|given\s+by|the|a|an)\b",
        rf"{t}{_APPOSITIVE}\s+(?:denotes|means|refers\s+to|stands\s+for|is\s+short\s+for)\b",
        rf"\b(?:called|known\s+as|denoted(?:\s+by)?|named|termed|written\s+as)\s+(?:the\s+)?{t}",
        rf"\w\s*\(\s*{re.escape(term)}\s*\)",  # "the Reynolds number (Re)"
    ))


@memo_by_text  # a claim is asked about each of its terms: strip and split it once
def _equation_sides(claim_text: str) -> tuple[str, tuple[str, ...]]:
    """(the claim without evidence markers, the left-hand side of each equation in it, back to the clause start)"""
    text = strip_markers(claim_text)
    sides = []
    for equals in _EQUALS.finditer(text):
        left = text[:equals.start()]
        breaks = list(_CLAUSE_BREAK.finditer(left))
        sides.append(left[breaks[-1].end():] if breaks else left)
    return text, tuple(sides)


@memo_by_text  # asked per (claim, term) of every claim, request after request
def defines(claim_text: str, term: str) -> bool:
    """Whether the claim introduces ``term`` explicitly (see the module docstring)."""
    text, sides = _equation_sides(claim_text)
    word, patterns = _definition_patterns(term)
    if any(word.search(lhs) for lhs in sides):  # left-hand side of an equation
        return True
    return any(p.search(text) for p in patterns)


def check_dependencies(claims: Sequence[Claim], order: Sequence[str] | None = None) -> list[DependencyWarning]:
    """Forward references among ``claims`` taken in ``order`` (claim ids; default: as given)."""
    by_id = {c.claim_id: c for c in claims}
    ordered = [by_id[cid] for cid in (order or [c.claim_id for c in claims]) if cid in by_id]
    terms = [extract_terms(c.text) for c in ordered]
    first_definition: dict[str, int] = {}
    for index, (claim, found) in enumerate(zip(ordered, terms)):
        for term in found:
            if term not in first_definition and defines(claim.text, term):
                first_definition[term] = index
    warnings = []
    for index, (claim, found) in enumerate(zip(ordered, terms)):
        for term in sorted(found):
            defined_at = first_definition.get(term)
            if defined_at is not None and defined_at > index:
                warnings.append(DependencyWarning(claim.claim_id, term, ordered[defined_at].claim_id))
    return warnings


def reading_order(text: str, claims: Sequence[Claim]) -> list[str]:
    """Claim ids by their anchor's start in the text; claims that do not anchor keep their claim-map place."""
    anchors, _ = anchor_claims(text, list(claims))
    position = {c.claim_id: (anchors[c.claim_id].start if c.claim_id in anchors else None, i)
                for i, c in enumerate(claims)}
    anchored = sorted((p[0], p[1], cid) for cid, p in position.items() if p[0] is not None)
    if len(anchored) != len(claims):
        return [c.claim_id for c in claims]
    return [cid for _, _, cid in anchored]


def strict_setting(inp: GateInput) -> tuple[bool, str]:
    """(strict, why): the gate's own parameter, or the strict_dependencies of a profile the request falls under."""
    if inp.params.get("strict_dependencies"):
        return True, "params.strict_dependencies"
    profiles = inp.policy.domain_profiles
    strict = [flag for flag in inp.mode_decision.domainFlags if flag in profiles and profiles[flag].strict_dependencies]
    return (True, f"domain_profiles.{strict[0]}.strict_dependencies") if strict else (False, "warnings only")


class ClaimDependenciesGate(BaseGate):
    gate_id = "claim_dependencies"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        envelope = inp.envelope
        claims = [c for c in envelope.meta.claim_map if c.status is not ClaimStatus.UNKNOWN]
        warnings = check_dependencies(claims, reading_order(envelope.assistant_text, claims))
        strict, why = strict_setting(inp)
        details: dict[str, Any] = {
            "dependency_warnings": [w.as_dict() for w in warnings],
            "warnings": [w.sentence() for w in warnings],
            "strict": strict, "strict_because": why,
        }
        if not warnings or not strict:
            return self.passing(details=details)
        codes = [ReasonCode.DEPENDENCY_FORWARD_REFERENCE.value, ReasonCode.LOW_CONFIDENCE.value]
        warned = list(dict.fromkeys(w.claim_id for w in warnings))
        details["claims"] = {cid: codes for cid in warned}
        details["downgraded"] = {cid: {"status": "LOW_CONFIDENCE", "confidence_cap": LOW_CONFIDENCE_CAP,
                                       "dependency_warning": True} for cid in warned}
        return self.failing([ReasonCode.DEPENDENCY_FORWARD_REFERENCE, ReasonCode.LOW_CONFIDENCE],
                            evidence_refs=[f"claim_map:{cid}" for cid in warned], details=details)


@hookimpl
def controlplane_gates():
    return [ClaimDependenciesGate()]
