"""Deterministic NLI backends for the gate tests: real implementations of the NliBackend protocol
(gates/interfaces.py), not mocks. Used because the shipped verifier's weights are not in this checkout while the
tests are written; tests that can use the shipped verifier do so when ``controlplane/nli/verifier/config.json``
exists.

- :class:`OverlapNliBackend` derives P(entailed) from word overlap with its own tokenizer, independent of the gate's
  deterministic claim checks (an earlier backend computed its scores from those checks, so end-to-end tests could
  not tell "NLI works" from "a check fired"); contradictions come only from a table the test writes.
- :class:`TableNliBackend` returns the scores a test sets per premise text (to drive the sufficiency tree with the
  exact probabilities of the Smart Notes table).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from controlplane.gates.interfaces import NliBackend, NliScore


class OverlapNliBackend:
    """Scores from word overlap alone, computed here with its own tokenizer: it shares nothing with the gate's
    deterministic claim checks (gates/claim_checks.py), so a test can tell "NLI said so" from "a check vetoed".

    P(entailed) is high when the premise holds the hypothesis's content words, else neutral. It knows nothing of
    numbers or negation: "4000 mg" and "1200 mg" look alike to it, as they would to a fooled model. A contradiction
    comes only from the ``contradictions`` table the test writes: (premise fragment, hypothesis) pairs.
    """

    name = "overlap-test"
    method = "nli"
    _WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
    _FUNCTION = frozenset(["a", "an", "the", "of", "to", "in", "on", "at", "for", "by", "with", "from", "and", "or", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "as", "our", "we", "you", "they"])

    def __init__(self, contradictions: Sequence[tuple[str, str]] = ()) -> None:
        self.contradictions = [(premise, self._norm(hypothesis)) for premise, hypothesis in contradictions]
        self.calls = 0
        self.pairs_scored = 0

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[NliScore]:
        self.calls += 1
        self.pairs_scored += len(pairs)
        return [self._one(premise, hypothesis) for premise, hypothesis in pairs]

    @classmethod
    def _norm(cls, text: str) -> str:
        return " ".join(cls._WORD.findall(re.sub(r"\[[^\]]*\]", " ", text.lower())))

    def _one(self, premise: str, hypothesis: str) -> NliScore:
        if any(p in premise and h == self._norm(hypothesis) for p, h in self.contradictions):
            return NliScore(entailment=0.03, contradiction=0.92, neutral=0.05)
        wanted = {w for w in self._WORD.findall(self._norm(hypothesis)) if w not in self._FUNCTION}
        have = set(self._WORD.findall(self._norm(premise)))
        share = len(wanted & have) / len(wanted) if wanted else 0.0
        if share >= 0.8:
            return NliScore(entailment=0.95, contradiction=0.01, neutral=0.04)
        if share >= 0.6:
            return NliScore(entailment=0.7, contradiction=0.05, neutral=0.25)
        return NliScore(entailment=0.08, contradiction=0.04, neutral=0.88)

    def metadata(self) -> dict[str, Any]:
        return {"name": self.name, "method": self.method, "kind": "deterministic test backend (word overlap)"}


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


assert isinstance(OverlapNliBackend(), NliBackend) and isinstance(TableNliBackend({}), NliBackend)
