"""bench/nli_eval.py: a calibration fitted on part of the dev sets (--fit --limit N) never overwrites the shipped one.
No model: the refusal comes before any backend is loaded."""

from __future__ import annotations

import hashlib

import pytest

from bench import nli_eval
from controlplane.nli.shipped import VERIFIER_DIR

SHIPPED_CALIBRATION = VERIFIER_DIR / "calibration.json"


@pytest.fixture
def no_model(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a backend was loaded before the arguments were checked")

    monkeypatch.setattr(nli_eval, "load_nli_backend", refuse)


def _fingerprint() -> tuple[str, int]:
    return hashlib.sha256(SHIPPED_CALIBRATION.read_bytes()).hexdigest(), SHIPPED_CALIBRATION.stat().st_mtime_ns


@pytest.mark.parametrize("extra", [[], ["--calibration-out", str(SHIPPED_CALIBRATION)],
                                   ["--backend", f"shipped:{VERIFIER_DIR}"],
                                   ["--backend", f"transformers:{VERIFIER_DIR}"]])
def test_a_partial_fit_may_not_write_the_shipped_calibration(extra, no_model, capsys):
    before = _fingerprint()
    with pytest.raises(SystemExit) as exited:
        nli_eval.main(["--fit", "--limit", "20", *extra])
    assert exited.value.code == 2
    assert "--limit" in capsys.readouterr().err
    assert _fingerprint() == before


def test_a_partial_fit_may_not_write_the_calibration_of_the_model_it_fits(tmp_path, no_model):
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    with pytest.raises(SystemExit) as exited:
        nli_eval.main(["--fit", "--limit", "20", "--backend", f"transformers:{model_dir}",
                       "--calibration-out", str(model_dir / "calibration.json")])
    assert exited.value.code == 2
    assert not (model_dir / "calibration.json").exists()


def test_a_partial_fit_may_write_a_file_of_its_own(tmp_path):
    assert nli_eval.partial_fit_refusal("shipped", tmp_path / "partial.json") is None
    assert nli_eval.partial_fit_refusal("shipped", None) is not None
