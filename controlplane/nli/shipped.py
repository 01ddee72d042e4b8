"""The verifier this project trains and ships: the transformers backend on ``controlplane/nli/verifier/`` with the
temperature and threshold fitted on dev splits (``calibration.json``)."""

from __future__ import annotations

import inspect
import json
import os
import threading
import weakref
from pathlib import Path
from typing import Any

from controlplane.contracts.errors import ConfigurationError

VERIFIER_DIR = Path(__file__).resolve().parent / "verifier"
ENV_MODEL = "CONTROLPLANE_NLI_MODEL"
ENV_RUNTIME = "CONTROLPLANE_NLI_RUNTIME"
SETTING = f"--backend shipped (or {ENV_MODEL}=DIR)"
RUNTIMES = ("auto", "torch", "torch-bf16", "onnx-int8")
# Reduced-precision runtimes, fastest first where the hardware serves them. Each is used by default only when its dev
# balanced accuracy, under the fp32 calibration, is within PRECISION_RULE_POINTS of fp32 (bench/nli_eval.py
# --precision-check-only writes the check into calibration.json).
REDUCED_PRECISION_RUNTIMES = ("torch-bf16", "onnx-int8")
PRECISION_RULE_POINTS = 0.5


def verifier_dir() -> Path:
    """The packaged verifier, unless CONTROLPLANE_NLI_MODEL points elsewhere."""
    env = os.environ.get(ENV_MODEL)
    return Path(env) if env else VERIFIER_DIR


CALIBRATION_FILE = "calibration.json"


def read_calibration(model_dir: Path, *, setting: str = SETTING) -> dict[str, Any]:
    return read_calibration_file(model_dir / CALIBRATION_FILE, setting=setting)


def read_calibration_file(path: Path, *, setting: str = SETTING) -> dict[str, Any]:
    if not path.is_file():
        return {"temperature": 1.0, "threshold": 0.5, "fitted": False}
    try:
        data = json.loads(path.read_text())
        temperature = float(data.get("temperature", 1.0))
        threshold = float(data.get("threshold", 0.5))
    except (ValueError, TypeError) as exc:
        raise ConfigurationError(f"{setting}: {path} is not valid calibration JSON: {exc}") from exc
    if not (temperature > 0 and 0.0 <= threshold <= 1.0):
        raise ConfigurationError(f"{setting}: {path} has temperature {temperature} / threshold {threshold} out of range")
    return {**data, "temperature": temperature, "threshold": threshold, "fitted": data.get("fitted", True)}


def native_bf16() -> bool:
    """Whether this CPU computes bfloat16 natively (AMX or AVX512-BF16). Elsewhere torch emulates bf16, slower than
    fp32, so ``auto`` does not pick it there."""
    try:
        import torch
    except ImportError:
        return False
    cpu = getattr(torch, "cpu", None)
    probes = ("_is_amx_tile_supported", "_is_avx512_bf16_supported")  # private in torch 2.x: absent means no
    return any(bool(getattr(cpu, name, lambda: False)()) for name in probes)


def precision_checks(calibration: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per reduced-precision runtime, its dev check under the fp32 calibration (older files: int8 only)."""
    checks = dict(calibration.get("precision_checks") or {})
    if "onnx-int8" not in checks and calibration.get("quantization_check"):
        checks["onnx-int8"] = calibration["quantization_check"]
    return checks


def within_rule(check: dict[str, Any] | None) -> bool:
    try:
        return check is not None and abs(float(check["delta_points"])) <= PRECISION_RULE_POINTS
    except (KeyError, TypeError, ValueError):
        return False


def runtime_usable(runtime: str, model_dir: Path) -> bool:
    from controlplane.nli.onnx_backend import ONNX_INT8_FILE, onnxruntime_available

    if runtime == "torch-bf16":
        return native_bf16()
    if runtime == "onnx-int8":
        return (model_dir / ONNX_INT8_FILE).is_file() and onnxruntime_available()
    return runtime == "torch"


def choose_runtime(model_dir: Path, calibration: dict[str, Any], runtime: str | None) -> str:
    """``torch`` (fp32), ``torch-bf16`` or ``onnx-int8``. ``auto`` (default): the fastest reduced-precision runtime
    whose dev check is within the rule and that this machine serves (bf16 needs AMX or AVX512-BF16; int8 needs its
    file and onnxruntime); else torch fp32, the same model slower -- never a weaker check. An explicit runtime is
    used as asked."""
    runtime = (runtime or os.environ.get(ENV_RUNTIME) or "auto").strip().lower()
    if runtime not in RUNTIMES:
        raise ConfigurationError(f"{SETTING}: runtime {runtime!r} is not one of {', '.join(RUNTIMES)} "
                                 f"(set {ENV_RUNTIME} or pass runtime=)")
    if runtime != "auto":
        return runtime
    checks = precision_checks(calibration)
    for candidate in REDUCED_PRECISION_RUNTIMES:
        if within_rule(checks.get(candidate)) and runtime_usable(candidate, model_dir):
            return candidate
    return "torch"


# One copy of each loaded verifier: the gates (through the registry) and the answerability scorer ask for the shipped
# verifier separately, and two instances of the same weights would cost the memory and load time twice. Weak values: a
# backend lives as long as someone holds it (a benchmark that walks through max_length values does not keep them all).
_LOADED: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
_LOADING = threading.Lock()


def load_shipped(*, fresh: bool = False, **options: Any):
    """The shipped verifier with ``options`` (model_dir, runtime, threads, max_length, batch_size, max_windows, ...).
    Loads that resolve to the same options -- defaults, the runtime ``auto`` picks and the calibration file's content
    filled in -- return the same object while it is held anywhere. ``fresh=True`` builds an unshared instance: for
    code that changes a backend's attributes, which would otherwise change them for every holder."""
    from controlplane.nli.onnx_backend import OnnxNliBackend
    from controlplane.nli.transformers_backend import TransformersNliBackend

    model_dir = Path(options.pop("model_dir", None) or verifier_dir())
    if not (model_dir / "config.json").is_file():
        raise ConfigurationError(
            f"{SETTING}: the shipped NLI verifier is missing at {str(model_dir)!r} (no config.json). Reinstall "
            f"controlplane, or set {ENV_MODEL} to a model directory, or pick another backend with --backend"
        )
    calibration = read_calibration(model_dir)
    options.setdefault("temperature", calibration["temperature"])
    options.setdefault("max_length", int(calibration.get("max_length", 256)))
    runtime = choose_runtime(model_dir, calibration, options.pop("runtime", None))
    backend_class = OnnxNliBackend if runtime == "onnx-int8" else TransformersNliBackend
    if runtime == "torch-bf16":
        options["precision"] = "bf16"

    def build():
        return backend_class(model_dir, name="shipped", setting=SETTING,
                             extra_metadata={"threshold": gate_floor(calibration), "calibration": calibration}, **options)

    if fresh:
        return build()
    key = _resolved_key(model_dir, calibration, runtime, options)
    with _LOADING:  # two threads asking at once get one instance, not two
        backend = _LOADED.get(key)
        if backend is None:
            backend = build()
            _LOADED[key] = backend
        return backend


def _resolved_key(model_dir: Path, calibration: dict[str, Any], runtime: str, options: dict[str, Any]) -> str:
    """What decides the loaded backend: the model directory, its calibration as read, the runtime, and every
    constructor option with its default filled in (threads and the device as the environment resolves them), so
    that an option left out and the same option given explicitly are the same load."""
    from controlplane.nli.onnx_backend import ONNX_INT8_FILE
    from controlplane.nli.transformers_backend import TransformersNliBackend, default_threads

    parameters = inspect.signature(TransformersNliBackend.__init__).parameters
    resolved = {name: p.default for name, p in parameters.items() if p.default is not inspect.Parameter.empty}
    if runtime == "onnx-int8":
        resolved["onnx_file"] = ONNX_INT8_FILE
    resolved.update(options)
    resolved["threads"] = resolved.get("threads") or default_threads()
    resolved["device"] = os.environ.get("CONTROLPLANE_NLI_DEVICE", "cpu")
    return json.dumps([str(model_dir.resolve()), calibration, runtime, resolved], sort_keys=True, default=repr)


def gate_floor(calibration: dict[str, Any]) -> float:
    """The lowest P(supported) the gate may accept with this model: the medium operating point fitted on dev (the
    bundle's thresholds sit at or above it). The balanced-accuracy ``threshold`` is for evaluation tables only: as a
    floor it would override the medium operating point and reject supported claims medium rigor promises to keep."""
    medium = (calibration.get("operating_points") or {}).get("medium") or {}
    value = medium.get("threshold", calibration["threshold"])
    try:
        value = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"{SETTING}: operating_points.medium.threshold {value!r} is not a number") from exc
    if not 0.0 <= value <= 1.0:
        raise ConfigurationError(f"{SETTING}: operating_points.medium.threshold {value} is outside 0..1")
    return value
