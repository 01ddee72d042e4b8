"""bench/squad2.question_table: the verifier scores many questions' sentences per call, with the same features as one
call per question. No model: a stand-in encoder and a verifier whose logits depend on the row alone."""

from __future__ import annotations

import hashlib

import numpy as np

from bench import squad2
from tests.standins import RowwiseVerifier

PARAGRAPHS = [
    "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. The team sits in Lyon.",
    "Lyon is a city in France. It lies where the Rhone and the Saone meet.",
    "The Apollo project shipped in 2019. Its team sat in Toulouse.",
]
QUESTIONS = ["When does the Orion project ship?", "Where does the team sit?", "Who founded the project?",
             "What is the budget?", "Which rivers meet in Lyon?"]


def _vector(text: str) -> np.ndarray:
    seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
    vector = np.random.default_rng(seed).normal(size=8)
    return vector / np.linalg.norm(vector)


def test_batching_the_verifier_over_questions_keeps_the_table(monkeypatch):
    monkeypatch.setattr(squad2, "_encode", lambda texts: np.stack([_vector(t) for t in texts]))
    questions = [squad2.Question(f"q{i}", "T", PARAGRAPHS[i % 3], question, ("2027",), (31,), i % 2 == 1)
                 for i, question in enumerate(QUESTIONS * 3)]
    one_each, batched = RowwiseVerifier(), RowwiseVerifier()
    before = squad2.question_table(questions, one_each, questions_per_call=1)
    after = squad2.question_table(questions, batched, questions_per_call=4)
    assert (one_each.calls, batched.calls) == (15, 4)
    assert len(before) == len(after) == 15
    for a, b in zip(before, after):
        assert a["q"] == b["q"] and a["x"].shape == b["x"].shape
        np.testing.assert_array_equal(a["x"], b["x"])
        np.testing.assert_array_equal(a["y"], b["y"])
        np.testing.assert_array_equal(a["contains"], b["contains"])
    assert squad2.question_table(questions)[0]["x"].shape[1] == before[0]["x"].shape[1] - 3  # no verifier: lexical
