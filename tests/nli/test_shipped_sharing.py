"""One copy of the shipped verifier: loads that resolve to the same options share one instance (the gates' and the
answerability scorer's), different options or ``fresh=True`` give another. Tiny random BERT models stand in for the
shipped weights, except in the one test that checks the real gates and scorer share theirs."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

pytest.importorskip("torch")
pytest.importorskip("transformers")

from controlplane.nli import load_nli_backend
from controlplane.nli.shipped import VERIFIER_DIR, load_shipped
from controlplane.nli.transformers_backend import DEFAULT_BATCH_SIZE, DEFAULT_MAX_WINDOWS, default_threads
from tests.nli.test_transformers_backend import build_tiny_model

LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", LABELS)


def test_the_same_resolved_options_give_the_same_instance(tiny_dir):
    first = load_shipped(model_dir=str(tiny_dir), max_length=32)
    assert load_shipped(model_dir=tiny_dir, max_length=32) is first
    # the defaults spelt out, and the runtime auto picks (no precision check recorded: torch fp32), are the same load
    assert load_shipped(model_dir=str(tiny_dir), max_length=32, runtime="torch", batch_size=DEFAULT_BATCH_SIZE,
                        threads=default_threads(), max_windows=DEFAULT_MAX_WINDOWS, temperature=1.0) is first
    # through the registry, as the gates load it
    assert load_nli_backend(f"shipped:{tiny_dir}", max_length=32) is first


def test_different_options_give_different_instances(tiny_dir):
    base = load_shipped(model_dir=str(tiny_dir), max_length=32)
    others = [load_shipped(model_dir=str(tiny_dir), max_length=16),
              load_shipped(model_dir=str(tiny_dir), max_length=32, batch_size=4),
              load_shipped(model_dir=str(tiny_dir), max_length=32, max_windows=None),
              load_shipped(model_dir=str(tiny_dir), max_length=32, threads=default_threads() + 1)]
    assert all(other is not base for other in others)
    assert len({id(other) for other in others}) == len(others)
    assert (others[0].max_length, base.max_length) == (16, 32)


def test_fresh_gives_an_instance_of_ones_own(tiny_dir):
    shared = load_shipped(model_dir=str(tiny_dir), max_length=32)
    own = load_shipped(model_dir=str(tiny_dir), max_length=32, fresh=True)
    assert own is not shared
    own.max_length = 8  # what a benchmark may do to its own instance: the shared one does not change
    assert shared.max_length == 32 and load_shipped(model_dir=str(tiny_dir), max_length=32) is shared
    assert load_nli_backend(f"shipped:{tiny_dir}", max_length=32, fresh=True) is not shared
    assert load_nli_backend(f"transformers:{tiny_dir}", max_length=32, fresh=True) is not shared


def test_a_new_calibration_file_is_a_new_load(tmp_path):
    model_dir = build_tiny_model(tmp_path / "model", LABELS)
    before = load_shipped(model_dir=str(model_dir))
    (model_dir / "calibration.json").write_text(json.dumps({"temperature": 2.0, "threshold": 0.5}))
    after = load_shipped(model_dir=str(model_dir))
    assert after is not before and (before.temperature, after.temperature) == (1.0, 2.0)


@pytest.mark.models
@pytest.mark.skipif(not (VERIFIER_DIR / "config.json").is_file(), reason="the shipped verifier is not installed")
def test_the_answerability_scorer_reads_the_verifier_the_gates_load(shipped_policy):
    from controlplane.answerability import shipped_verifier
    from controlplane.services import LazyNliBackend, build_services

    services = build_services(None, policy=shipped_policy.bundle)
    lazy = services.nli_backend.backend
    assert isinstance(lazy, LazyNliBackend) and lazy.name == "shipped"
    assert lazy._load() is shipped_verifier()
