"""Stand-ins for the real models where a test checks plumbing, not a model's judgement."""

from __future__ import annotations


class RowwiseVerifier:
    """An NLI verifier whose logits are a function of each (premise, hypothesis) row alone, whatever else is in the
    call: what a verifier free of batch noise would return. Counts its ``logits`` calls."""

    name = "rowwise"

    def __init__(self) -> None:
        self.label_index = {"entailment": 0, "neutral": 1, "contradiction": 2}
        self.calls = 0

    def logits(self, rows):
        self.calls += 1
        out = []
        for premise, hypothesis in rows:
            shared = len(set(premise.lower().split()) & set(hypothesis.lower().split()))
            out.append([shared - 1.5, 0.1 * len(premise.split()) - 1.0, 1.0 - 0.3 * shared])
        return out
