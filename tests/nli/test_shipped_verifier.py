"""The verifier this project trains and ships: loads from the package and scores pairs in the right direction."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

pytest.importorskip("torch")
pytest.importorskip("transformers")

from controlplane.nli.shipped import VERIFIER_DIR

pytestmark = pytest.mark.skipif(not (VERIFIER_DIR / "model.safetensors").is_file(),
                                reason="shipped verifier weights not trained yet")

PAIRS = [
    # (evidence, entailed claim, contradicted / unsupported claim)
    ("The Eiffel Tower, completed in 1889, is 330 metres tall and stands in Paris.",
     "The Eiffel Tower is in Paris.", "The Eiffel Tower is in Rome."),
    ("Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.",
     "Marie Curie won a Nobel Prize in Chemistry.", "Marie Curie never won a Nobel Prize."),
    ("The company reported revenue of 4.2 billion dollars in 2021, up from 3.1 billion in 2020.",
     "The company's revenue grew from 2020 to 2021.", "The company's revenue fell from 2020 to 2021."),
    ("Aspirin was first synthesised by Felix Hoffmann at Bayer in 1897.",
     "Felix Hoffmann synthesised aspirin.", "Aspirin was first synthesised in 1950."),
]


@pytest.fixture(scope="module")
def backend():
    from controlplane.nli import load_nli_backend

    return load_nli_backend("shipped")


def test_shipped_verifier_scores_in_the_expected_direction(backend):
    rows = [(ev, good) for ev, good, _ in PAIRS] + [(ev, bad) for ev, _, bad in PAIRS]
    scores = backend.score(rows)
    n = len(PAIRS)
    for i in range(n):
        assert scores[i].entailment > scores[n + i].entailment, (PAIRS[i], scores[i], scores[n + i])
    assert sum(s.entailment for s in scores[:n]) / n > 0.5
    assert sum(s.contradiction for s in scores[n:]) / n > sum(s.contradiction for s in scores[:n]) / n


def test_shipped_verifier_ships_calibration_and_card():
    calibration = json.loads((VERIFIER_DIR / "calibration.json").read_text())
    assert calibration["temperature"] > 0 and 0 < calibration["threshold"] < 1
    assert set(calibration["dev_sources"]) and all("dev" in s for s in calibration["dev_sources"])
    card = (VERIFIER_DIR / "MODEL_CARD.md").read_text()
    for needle in ("ANLI", "SciFact", "licence", "controlplane nli train"):
        assert needle in card
    config = json.loads((VERIFIER_DIR / "config.json").read_text())
    assert {v.lower() for v in config["id2label"].values()} == {"entailment", "neutral", "contradiction"}
