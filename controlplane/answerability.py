"""Does this evidence sentence answer the question? A small trained scorer, so that deciding "none answers" does not
rest on a 135M model (issue 15: SmolLM2 said "none" for 2 of 20 unanswerable questions).

A logistic regression over question-sentence features: MiniLM cosine similarity and its rank among the evidence
sentences, content-word overlap with the sentence and with all the evidence (an unanswerable question usually names
something the evidence never mentions), whether the sentence holds the kind of answer the question asks for (a year
for "when", a number for "how many", a name for "who"), negation in the question; optionally the element-wise
product of the two MiniLM vectors (measured: no better on dev, so the shipped file does without). Weights, feature
standardisation and the decision threshold are one small JSON file shipped in the package (``answerability.json``);
the MiniLM vectors are the ones the quote ranker already computed.

Measured (bench/results/squad2.md): 0.56 answered-and-correct / 0.55 abstained on the dev articles, 64% / 68% on the
test sample; it does not transfer to the example corpus's tables and runbooks (bench/results/ask.md), where it
rejects rows that hold the answer.

Training is reproducible (fixed seed, fixed article split): ``python -m controlplane.answerability train`` on the
SQuAD 2.0 file of the shared eval folder, articles split into train / dev / test; the threshold is tuned on dev, the
test articles are never used here (bench/squad2.py reports on them).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from controlplane.contracts.text import content_stems

WEIGHTS_FILE = "answerability.json"
QUESTION_WORDS = ("what", "who", "when", "where", "which", "why", "how many", "how much", "how")
_NEGATION = re.compile(r"\b(not|never|no|n't|none|neither|nor|without)\b|n't\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b")
_MONTH = re.compile(r"\b(january|february|march|april|may|june|july|august|september|october|november|december|"
                    r"century|centuries|decade|year|years|day|days)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|hundred|thousand|million|"
                     r"billion|dozen|half|twice|several)\b", re.IGNORECASE)
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z'-]+")
_BIGRAM_WORD = re.compile(r"[a-z0-9]+")

LEXICAL_FEATURES = (
    "cosine", "cosine_gap_to_best", "is_best", "cosine_margin_best_second", "sentence_overlap", "evidence_overlap",
    "missing_from_evidence", "capitalised_missing_from_evidence", "bigram_overlap", "question_negated",
    "answer_type_match", "sentence_words",
) + tuple(f"qword_{w.replace(' ', '_')}" for w in QUESTION_WORDS)


def question_word(question: str) -> str | None:
    lowered = question.lower()
    best, best_at = None, len(lowered) + 1
    for word in QUESTION_WORDS:
        match = re.search(rf"\b{word}\b", lowered)
        if match and (match.start() < best_at or (match.start() == best_at and len(word) > len(best or ""))):
            best, best_at = word, match.start()
    return best


def _answer_type_match(qword: str | None, question: str, sentence: str) -> float:
    if qword == "when" or (qword in ("what", "which") and re.search(r"\b(year|date|century|decade)\b", question, re.IGNORECASE)):
        return 1.0 if (_YEAR.search(sentence) or _MONTH.search(sentence)) else 0.0
    if qword in ("how many", "how much"):
        return 1.0 if _NUMBER.search(sentence) else 0.0
    if qword == "who":
        asked = {w.lower() for w in _CAPITALISED.findall(question)}
        return 1.0 if any(w.lower() not in asked for w in _CAPITALISED.findall(sentence)[1:]) else 0.0
    return 0.5  # no expectation for this kind of question


def _bigrams(text: str) -> set[tuple[str, str]]:
    words = _BIGRAM_WORD.findall(text.lower())
    return set(itertools.pairwise(words))


def lexical_features(question: str, sentences: Sequence[str], cosines: np.ndarray, evidence_text: str) -> np.ndarray:
    """One row of LEXICAL_FEATURES per sentence."""
    q_stems = set(content_stems(question))
    evidence_stems = set(content_stems(evidence_text))
    evidence_lower = evidence_text.lower()
    q_caps = {w.lower() for w in _CAPITALISED.findall(question)[1:]}
    q_bigrams = _bigrams(question)
    qword = question_word(question)
    negated = 1.0 if _NEGATION.search(question) else 0.0
    missing = len(q_stems - evidence_stems)
    caps_missing = sum(1 for w in q_caps if w not in evidence_lower)
    ordered = np.sort(cosines)[::-1]
    best = float(ordered[0]) if len(ordered) else 0.0
    margin = float(ordered[0] - ordered[1]) if len(ordered) > 1 else float(best)
    onehot = [1.0 if qword == w else 0.0 for w in QUESTION_WORDS]
    rows = []
    for sentence, cosine in zip(sentences, cosines):
        s_stems = set(content_stems(sentence))
        rows.append([
            float(cosine),
            float(cosine) - best,
            1.0 if float(cosine) >= best else 0.0,
            margin,
            len(q_stems & s_stems) / max(1, len(q_stems)),
            len(q_stems & evidence_stems) / max(1, len(q_stems)),
            min(missing, 5) / 5,
            min(caps_missing, 3) / 3,
            len(q_bigrams & _bigrams(sentence)) / max(1, len(q_bigrams)),
            negated,
            _answer_type_match(qword, question, sentence),
            min(len(sentence.split()), 80) / 80,
            *onehot,
        ])
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(LEXICAL_FEATURES))


def feature_matrix(question: str, sentences: Sequence[str], q_vec: np.ndarray, s_vecs: np.ndarray,
                   evidence_text: str, with_products: bool = True) -> np.ndarray:
    cosines = s_vecs @ q_vec
    lexical = lexical_features(question, sentences, cosines, evidence_text)
    if not with_products:
        return lexical
    return np.hstack([lexical, s_vecs * q_vec[None, :]])


@dataclass(frozen=True)
class AnswerabilityScorer:
    """P(this sentence answers the question) per sentence, from a shipped logistic regression."""

    weights: np.ndarray
    bias: float
    mean: np.ndarray
    std: np.ndarray
    threshold: float
    with_products: bool
    info: dict[str, Any]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AnswerabilityScorer:
        return cls(np.asarray(data["weights"], dtype=np.float64), float(data["bias"]),
                   np.asarray(data["mean"], dtype=np.float64), np.asarray(data["std"], dtype=np.float64),
                   float(data["threshold"]), bool(data["with_products"]), dict(data.get("info", {})))

    def as_dict(self) -> dict[str, Any]:
        return {"weights": [round(float(w), 6) for w in self.weights], "bias": round(self.bias, 6),
                "mean": [round(float(m), 6) for m in self.mean], "std": [round(float(s), 6) for s in self.std],
                "threshold": round(self.threshold, 4), "with_products": self.with_products, "info": self.info}

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        z = ((features - self.mean) / self.std) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-z))

    def score(self, question: str, sentences: Sequence[str], q_vec: np.ndarray, s_vecs: np.ndarray,
              evidence_text: str) -> np.ndarray:
        if not len(sentences):
            return np.zeros(0)
        return self.probabilities(feature_matrix(question, sentences, q_vec, s_vecs, evidence_text,
                                                 self.with_products))


@lru_cache(maxsize=1)
def shipped_scorer() -> AnswerabilityScorer:
    """The scorer shipped in the package. A missing or broken file is an error, never a silent 'always answerable'."""
    try:
        text = resources.files("controlplane").joinpath(WEIGHTS_FILE).read_text(encoding="utf-8")
        return AnswerabilityScorer.from_dict(json.loads(text))
    except (FileNotFoundError, KeyError, ValueError) as exc:
        from controlplane.contracts.errors import ConfigurationError

        raise ConfigurationError(
            f"the answerability scorer {WEIGHTS_FILE} is missing or unreadable ({exc}); reinstall controlplane, or "
            "set the bundle's quote.answerability to 'model'"
        ) from exc


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iterations: int = 50) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method (deterministic; no extra dependency)."""
    n, d = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + reg * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    return w[:-1], float(w[-1])
