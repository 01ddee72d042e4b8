"""Evaluation metrics and the dev-only calibration rule (pure Python parts of controlplane.nli.evaluate)."""

from __future__ import annotations

import pytest

from controlplane.contracts.errors import InputError
from controlplane.nli import evaluate as ev


def test_auroc_and_binary_metrics():
    labels = [1, 1, 0, 0]
    assert ev.auroc(labels, [0.9, 0.8, 0.2, 0.1]) == 1.0
    assert ev.auroc(labels, [0.1, 0.2, 0.8, 0.9]) == 0.0
    assert ev.auroc(labels, [0.5, 0.5, 0.5, 0.5]) == 0.5
    assert ev.auroc([1, 1], [0.2, 0.3]) is None
    m = ev.binary_metrics(labels, [0.9, 0.4, 0.6, 0.1], [1, 0, 1, 0])
    assert m["balanced_accuracy"] == 50.0
    assert m["unsupported_recall"] == 50.0 and m["unsupported_precision"] == 50.0
    assert m["auroc"] == 75.0
    assert m["brier"] == pytest.approx((0.01 + 0.36 + 0.36 + 0.01) / 4, abs=1e-4)


def test_ece_is_zero_when_calibrated_and_large_when_not():
    assert ev.ece([1, 0], [1.0, 0.0]) == 0.0
    assert ev.ece([0, 0, 0, 0], [0.95, 0.95, 0.95, 0.95]) == pytest.approx(0.95)


class _Probs:
    """The real TransformersNliBackend softmax and best-chunk rules, without loading a model (calibration maths only)."""

    def probabilities(self, logit_row, temperature=None):
        from controlplane.nli.transformers_backend import TransformersNliBackend

        backend = object.__new__(TransformersNliBackend)
        backend.temperature = 1.0
        backend.label_index = {"entailment": 0, "neutral": 1, "contradiction": 2}
        return TransformersNliBackend.probabilities(backend, logit_row, temperature)

    def best_chunk(self, windows, temperature=None):
        return max((self.probabilities(w, temperature) for w in windows), key=lambda s: s.entailment)


def _row(label, ent_logit, split="dev"):
    return ev.ScoredRow(id=str(ent_logit), label=label, dataset="X", split=split, sentences=["c"],
                        windows=[[[ent_logit, 0.0, 0.0]]], window_texts=[["e"]], findings=[[]])


def test_calibration_fits_on_dev_and_refuses_test_rows():
    rows = [_row(1, 3.0), _row(1, 2.0), _row(1, 0.5), _row(0, -1.0), _row(0, 0.2), _row(0, -2.0)]
    cal = ev.fit_calibration(_Probs(), rows, sources=["x:dev"])
    assert cal["dev_balanced_accuracy"] == 100.0
    probs = [ev.row_probability(_Probs(), r, cal["temperature"]) for r in rows]
    assert all((p >= cal["threshold"]) == bool(r.label) for p, r in zip(probs, rows))
    with pytest.raises(InputError, match="dev splits"):
        ev.fit_calibration(_Probs(), rows + [_row(1, 1.0, split="test")])


def test_claim_is_split_into_sentences_and_the_weakest_sentence_decides():
    assert ev.claim_sentences("Paris is in France. It has 2 million people.") == [
        "Paris is in France.", "It has 2 million people."]
    row = ev.ScoredRow(id="r", label=0, dataset="X", split="dev", sentences=["a", "b"],
                       windows=[[[4.0, 0.0, 0.0]], [[-4.0, 0.0, 0.0]]], window_texts=[["e"], ["e"]],
                       findings=[[], []])
    assert ev.row_probability(_Probs(), row, 1.0) < 0.05


def test_operating_points_keep_95_percent_at_medium_and_are_stricter_at_high():
    from controlplane.nli.evaluate import operating_points

    labels = [1] * 100 + [0] * 100
    probs = [i / 100 for i in range(100)] + [i / 200 for i in range(100)]  # supported 0..0.99, unsupported 0..0.495
    points = operating_points(labels, probs, balanced_threshold=0.3)
    medium, high = points["medium"], points["high"]
    assert medium["supported_kept"] >= 0.95 and medium["threshold"] == 0.05
    assert high["threshold"] >= medium["threshold"] and high["unsupported_passed"] <= 0.10
    assert high["supported_kept"] >= 0.5
