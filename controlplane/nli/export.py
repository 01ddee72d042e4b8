"""Export a trained checkpoint as the compact model that ships: fp16 safetensors + config + tokenizer files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from controlplane.contracts.errors import ConfigurationError

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def export_fp16(model_dir: Path, out: Path) -> dict[str, Any]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    if not (model_dir / "config.json").is_file():
        raise ConfigurationError(f"nli export: {model_dir} is not a model directory (no config.json)")
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir), local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    out.mkdir(parents=True, exist_ok=True)
    model.to(torch.float16).save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    config = json.loads((out / "config.json").read_text())
    weights = out / "model.safetensors"
    return {
        "out": str(out),
        "dtype": config.get("dtype") or config.get("torch_dtype"),
        "weights_bytes": weights.stat().st_size,
        "total_bytes": sum(p.stat().st_size for p in out.iterdir() if p.is_file()),
        "id2label": config.get("id2label"),
    }


def export_onnx_int8(model_dir: Path, out: Path | None = None, *, opset: int = 17) -> dict[str, Any]:
    """Write MODEL_DIR/model.int8.onnx (or OUT): the fp32 graph exported by torch, then dynamically quantized to int8
    by ONNX Runtime (per-channel weights: measurably closer to fp32 than per-tensor on this model; see the card)."""
    import tempfile

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
    except ImportError as exc:
        raise ConfigurationError("nli export-onnx: needs torch, transformers, onnx and onnxruntime "
                                 "(pip install 'controlplane[models]')") from exc
    from controlplane.nli.onnx_backend import ONNX_INPUTS, ONNX_INT8_FILE

    if not (model_dir / "config.json").is_file():
        raise ConfigurationError(f"nli export-onnx: {model_dir} is not a model directory (no config.json)")
    target = out or model_dir / ONNX_INT8_FILE
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir), local_files_only=True).float().eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    enc = tokenizer(["an example premise", "another"], ["a claim", "a second claim"], padding=True, return_tensors="pt")
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "model.fp32.onnx"
        axes = {name: {0: "batch", 1: "sequence"} for name in ONNX_INPUTS}
        torch.onnx.export(model, tuple(enc[name] for name in ONNX_INPUTS), str(fp32), input_names=list(ONNX_INPUTS),
                          output_names=["logits"], dynamic_axes={**axes, "logits": {0: "batch"}},
                          opset_version=opset, dynamo=False)
        quantize_dynamic(str(fp32), str(target), weight_type=QuantType.QInt8, per_channel=True)
    return {"out": str(target), "bytes": target.stat().st_size, "file": ONNX_INT8_FILE if out is None else target.name,
            "quantization": "ONNX Runtime dynamic int8, per-channel weights (QInt8), activations quantized per batch"}
