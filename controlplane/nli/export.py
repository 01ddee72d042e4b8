"""Export a trained checkpoint as the compact model that ships: fp16 safetensors + config + tokenizer files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from controlplane.errors import ConfigurationError

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
