"""The int8 ONNX Runtime backend of the shipped verifier: same labels and chunking as torch, scores close to fp32.
Which runtime the loader picks: tests/nli/test_runtimes.py."""

from __future__ import annotations

import os
import shutil

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

pytest.importorskip("onnxruntime")
pytest.importorskip("transformers")

from controlplane.contracts.errors import ConfigurationError
from controlplane.nli.onnx_backend import ONNX_INT8_FILE
from controlplane.nli.shipped import VERIFIER_DIR, load_shipped

pytestmark = pytest.mark.skipif(not (VERIFIER_DIR / ONNX_INT8_FILE).is_file(), reason="int8 ONNX file not shipped")

PAIRS = [
    ("Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.",
     "Marie Curie won a Nobel Prize in Chemistry."),
    ("Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.",
     "Marie Curie never won a Nobel Prize."),
    (" ".join(["The harbour bridge carries eight lanes of traffic."] * 60) + " The bridge opened in 1932.",
     "The bridge opened in 1932."),
]


def test_int8_scores_follow_fp32():
    fp32 = load_shipped(runtime="torch")
    int8 = load_shipped(runtime="onnx-int8")
    assert int8.metadata()["runtime"] == "onnxruntime-int8" and fp32.metadata()["runtime"] == "torch-fp32"
    a, b = fp32.score(PAIRS), int8.score(PAIRS)
    for x, y in zip(a, b):
        assert abs(x.entailment - y.entailment) < 0.2, (x, y)
    assert b[0].entailment > b[1].entailment  # entailed above contradicted
    assert int8.chunk_pairs(PAIRS)[1] == fp32.chunk_pairs(PAIRS)[1]  # same windows for the long premise


def test_missing_onnx_file_is_a_configuration_error_naming_the_fix(tmp_path):
    model_dir = tmp_path / "verifier"
    shutil.copytree(VERIFIER_DIR, model_dir, ignore=shutil.ignore_patterns(ONNX_INT8_FILE, "model.safetensors"))
    with pytest.raises(ConfigurationError, match="export-onnx"):
        load_shipped(model_dir=str(model_dir), runtime="onnx-int8")
