"""Deterministic NLI backends for the gate tests: real implementations of the NliBackend protocol
(gates/interfaces.py), not mocks. Used because the shipped verifier's weights are not in this checkout while the
tests are written; tests that can use the shipped verifier do so when ``controlplane/nli/verifier/config.json``
exists.

- :class:`ClaimCheckNliBackend` derives P(entailed) / P(contradicted) from the deterministic claim checks and word
  overlap (gates/claim_checks.py): a contradiction when the best-matching evidence sentence states another number or
  the opposite polarity, entailment when it covers the claim's content words with no check finding, else neutral.
- :class:`TableNliBackend` returns the scores a test sets per premise text (to drive the sufficiency tree with the
  exact probabilities of the Smart Notes table).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from controlplane.contracts import ReasonCode
from controlplane.gates.claim_checks import best_sentence, run_checks
from controlplane.gates.interfaces import NliBackend, NliScore


class ClaimCheckNliBackend:
    name = "claim-checks-test"
    method = "nli"

    def __init__(self) -> None:
        self.calls = 0
        self.pairs_scored = 0

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[NliScore]:
        self.calls += 1
        self.pairs_scored += len(pairs)
        return [self._one(premise, hypothesis) for premise, hypothesis in pairs]

    @staticmethod
    def _one(premise: str, hypothesis: str) -> NliScore:
        sentence, share = best_sentence(premise, hypothesis)
        findings = {f.code for f in run_checks(premise, hypothesis)}
        if share >= 0.5 and findings & {ReasonCode.NUMBER_MISMATCH, ReasonCode.NEGATION_MISMATCH}:
            return NliScore(entailment=0.03, contradiction=0.92, neutral=0.05)
        if not findings and share >= 0.8:
            return NliScore(entailment=0.95, contradiction=0.01, neutral=0.04)
        if not findings and share >= 0.6:
            return NliScore(entailment=0.7, contradiction=0.05, neutral=0.25)
        return NliScore(entailment=0.08, contradiction=0.04, neutral=0.88)

    def metadata(self) -> dict[str, Any]:
        return {"name": self.name, "method": self.method, "kind": "deterministic test backend"}


class TableNliBackend:
    name = "table-test"
    method = "nli"

    def __init__(self, table: Mapping[str, tuple[float, float]], default: tuple[float, float] = (0.05, 0.05)):
        self.table = dict(table)
        self.default = default

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[NliScore]:
        out = []
        for premise, _ in pairs:
            hits = [self.table[p] for p in premise.split("\n") if p in self.table]
            ent, con = max(hits, key=lambda s: s[0]) if hits else self.default
            out.append(NliScore(entailment=ent, contradiction=con, neutral=max(0.0, 1 - ent - con)))
        return out

    def metadata(self) -> dict[str, Any]:
        return {"name": self.name, "method": self.method}


class SimilarityOnlyBackend(TableNliBackend):
    """A backend that only measures similarity: high stakes must not accept it."""

    name = "similarity-test"
    method = "similarity"


assert isinstance(ClaimCheckNliBackend(), NliBackend) and isinstance(TableNliBackend({}), NliBackend)
