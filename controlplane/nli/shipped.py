"""The verifier this project trains and ships: the transformers backend on ``controlplane/nli/verifier/`` with the
temperature and threshold fitted on dev splits (``calibration.json``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from controlplane.contracts.errors import ConfigurationError

VERIFIER_DIR = Path(__file__).resolve().parent / "verifier"
ENV_MODEL = "CONTROLPLANE_NLI_MODEL"
ENV_RUNTIME = "CONTROLPLANE_NLI_RUNTIME"
SETTING = f"--backend shipped (or {ENV_MODEL}=DIR)"
RUNTIMES = ("auto", "torch", "onnx-int8")


def verifier_dir() -> Path:
    """The packaged verifier, unless CONTROLPLANE_NLI_MODEL points elsewhere."""
    env = os.environ.get(ENV_MODEL)
    return Path(env) if env else VERIFIER_DIR


def read_calibration(model_dir: Path, *, setting: str = SETTING) -> dict[str, Any]:
    path = model_dir / "calibration.json"
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


def choose_runtime(model_dir: Path, calibration: dict[str, Any], runtime: str | None) -> str:
    """``torch`` or ``onnx-int8``. ``auto`` (default): the runtime calibration.json names as default (int8 only when
    its dev scores were within 0.5 points of fp32), provided its file and onnxruntime are present; else torch fp32,
    the same model slower -- never a weaker check."""
    from controlplane.nli.onnx_backend import ONNX_INT8_FILE, onnxruntime_available

    runtime = (runtime or os.environ.get(ENV_RUNTIME) or "auto").strip().lower()
    if runtime not in RUNTIMES:
        raise ConfigurationError(f"{SETTING}: runtime {runtime!r} is not one of {', '.join(RUNTIMES)} "
                                 f"(set {ENV_RUNTIME} or pass runtime=)")
    if runtime != "auto":
        return runtime
    wanted = calibration.get("default_runtime", "torch")
    if wanted == "onnx-int8" and (model_dir / ONNX_INT8_FILE).is_file() and onnxruntime_available():
        return "onnx-int8"
    return "torch"


def load_shipped(**options: Any):
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
    return backend_class(model_dir, name="shipped", setting=SETTING,
                         extra_metadata={"threshold": gate_floor(calibration), "calibration": calibration}, **options)


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
