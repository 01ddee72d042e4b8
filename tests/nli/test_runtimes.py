"""Which runtime scores the shipped verifier: torch fp32, torch bf16 or int8 ONNX Runtime. ``auto`` takes the fastest
reduced-precision runtime that passed its dev check (within 0.5 balanced-accuracy points of fp32, recorded in
calibration.json) and that this machine serves; otherwise fp32. bf16 scores follow fp32 closely."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from controlplane.contracts.errors import ConfigurationError
from controlplane.nli import shipped
from controlplane.nli.onnx_backend import ONNX_INT8_FILE
from controlplane.nli.shipped import VERIFIER_DIR, choose_runtime, precision_checks, read_calibration

PASSED = {"delta_points": -0.2}
FAILED = {"delta_points": -0.57}


@pytest.fixture
def int8_dir(tmp_path: Path) -> Path:
    (tmp_path / ONNX_INT8_FILE).write_bytes(b"onnx")  # only its presence is looked at when choosing
    return tmp_path


@pytest.fixture(params=[True, False], ids=["native-bf16", "no-native-bf16"])
def bf16_hardware(request, monkeypatch) -> bool:
    monkeypatch.setattr(shipped, "native_bf16", lambda: request.param)
    return request.param


def test_auto_takes_bf16_only_where_the_cpu_computes_it(int8_dir, bf16_hardware):
    calibration = {"precision_checks": {"torch-bf16": PASSED, "onnx-int8": PASSED}}
    expected = "torch-bf16" if bf16_hardware else "onnx-int8"
    if expected == "onnx-int8":
        pytest.importorskip("onnxruntime")
    assert choose_runtime(int8_dir, calibration, None) == expected


def test_a_runtime_that_failed_its_dev_check_is_never_the_default(int8_dir, bf16_hardware):
    calibration = {"precision_checks": {"torch-bf16": FAILED, "onnx-int8": FAILED}}
    assert choose_runtime(int8_dir, calibration, None) == "torch"
    assert choose_runtime(int8_dir, {}, None) == "torch"  # no check recorded: fp32


def test_int8_needs_its_file(tmp_path, monkeypatch):
    monkeypatch.setattr(shipped, "native_bf16", lambda: False)
    assert choose_runtime(tmp_path, {"precision_checks": {"onnx-int8": PASSED}}, None) == "torch"


def test_older_calibration_files_keep_their_int8_check(int8_dir, monkeypatch):
    pytest.importorskip("onnxruntime")
    monkeypatch.setattr(shipped, "native_bf16", lambda: False)
    assert choose_runtime(int8_dir, {"quantization_check": PASSED}, None) == "onnx-int8"
    assert choose_runtime(int8_dir, {"quantization_check": FAILED}, None) == "torch"
    assert precision_checks({"quantization_check": PASSED}) == {"onnx-int8": PASSED}


def test_an_explicit_runtime_wins_and_unknown_names_are_refused(int8_dir, monkeypatch):
    calibration = {"precision_checks": {"torch-bf16": PASSED}}
    monkeypatch.setattr(shipped, "native_bf16", lambda: True)
    assert choose_runtime(int8_dir, calibration, "torch") == "torch"
    monkeypatch.setenv(shipped.ENV_RUNTIME, "onnx-int8")
    assert choose_runtime(int8_dir, calibration, None) == "onnx-int8"
    with pytest.raises(ConfigurationError, match="runtime 'fp8' is not one of"):
        choose_runtime(int8_dir, calibration, "fp8")


def test_native_bf16_agrees_with_the_cpu_flags():
    pytest.importorskip("torch")
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.is_file():
        pytest.skip("no /proc/cpuinfo on this system")
    flags = set(cpuinfo.read_text().split())
    assert shipped.native_bf16() == bool({"amx_tile", "avx512_bf16"} & flags)


def test_the_shipped_calibration_records_a_check_for_each_reduced_precision_runtime():
    checks = precision_checks(read_calibration(VERIFIER_DIR))
    for runtime in shipped.REDUCED_PRECISION_RUNTIMES:
        assert "delta_points" in checks[runtime], runtime


PAIRS = [
    ("Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.",
     "Marie Curie won a Nobel Prize in Chemistry."),
    ("Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.",
     "Marie Curie never won a Nobel Prize."),
    ("In a 12-week randomized trial of 240 adults aged 65 and older, treatment X reduced symptom severity scores by "
     "12% compared with placebo.",
     "In a 12-week trial of adults aged 65 and older, treatment X lowered symptom severity scores by 12% versus "
     "placebo."),
    ("In a 12-week randomized trial of 240 adults aged 65 and older, treatment X reduced symptom severity scores by "
     "12% compared with placebo.",
     "In a 12-week trial of adults aged 65 and older, treatment X lowered symptom severity scores by 21% versus "
     "placebo."),
]


@pytest.mark.models
def test_bf16_scores_follow_fp32():
    pytest.importorskip("transformers")
    fp32 = shipped.load_shipped(runtime="torch")
    bf16 = shipped.load_shipped(runtime="torch-bf16")
    assert (fp32.metadata()["runtime"], bf16.metadata()["runtime"]) == ("torch-fp32", "torch-bf16")
    floor = shipped.gate_floor(read_calibration(VERIFIER_DIR))
    for a, b in zip(fp32.score(PAIRS), bf16.score(PAIRS)):
        assert abs(a.entailment - b.entailment) < 0.03, (a, b)
        assert (a.entailment >= floor) == (b.entailment >= floor)
