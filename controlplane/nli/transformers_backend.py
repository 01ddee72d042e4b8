"""An NLI backend for any local cross-encoder directory (AutoModelForSequenceClassification), CPU, offline.

Label order comes from the model config's ``id2label`` (entailment / neutral / contradiction, any case); a config
that does not name its labels is refused, never guessed. Long evidence is scored by its best chunk (see
:mod:`controlplane.nli.chunking`). Temperature scaling (``temperature``) divides the logits before the softmax.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controlplane.contracts.errors import ConfigurationError
from controlplane.contracts.text import sentence_texts
from controlplane.evidence_pack.model_loading import quiet_model_loading
from controlplane.gates.interfaces import NliScore
from controlplane.nli.chunking import MIN_PREMISE_TOKENS, pack_windows, top_windows_by_overlap
from controlplane.nli.labels import label_index_map

DEFAULT_MAX_LENGTH = 256
DEFAULT_BATCH_SIZE = 32
# Padded tokens per forward batch at most: a batch of max_length windows holds batch_tokens // max_length rows (32 at
# 256 tokens, 16 at 512). Measured on 2 cores in bf16 (README, verifier runtimes): 512-token windows ran at 37-48
# windows/s sixteen to a batch against 30-42 thirty-two to a batch; short pairs are as fast at 32 as at 64.
DEFAULT_BATCH_TOKENS = 8192
DEFAULT_MAX_WINDOWS = 4  # per (evidence, claim): windows beyond this are pre-ranked by word overlap with the claim
PRECISIONS = ("fp32", "bf16")


def default_threads() -> int:
    """torch threads for this machine: CONTROLPLANE_TORCH_THREADS, else min(2, cores) (2-core CI boxes)."""
    env = os.environ.get("CONTROLPLANE_TORCH_THREADS")
    if env:
        return max(1, int(env))
    return max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class ChunkedPair:
    """One (evidence, claim) pair after chunking: which rows of the flat batch belong to it."""

    start: int
    stop: int


class TransformersNliBackend:
    """Scores (evidence, claim) pairs with a local sequence-classification cross-encoder."""

    def __init__(self, model_dir: str | os.PathLike[str], *, name: str | None = None, max_length: int = DEFAULT_MAX_LENGTH,
                 batch_size: int = DEFAULT_BATCH_SIZE, threads: int | None = None, temperature: float = 1.0,
                 setting: str = "--backend transformers:PATH", extra_metadata: dict[str, Any] | None = None,
                 max_windows: int | None = DEFAULT_MAX_WINDOWS, precision: str = "fp32",
                 batch_tokens: int = DEFAULT_BATCH_TOKENS) -> None:
        path = Path(model_dir)
        if precision not in PRECISIONS:
            raise ConfigurationError(f"{setting}: precision {precision!r} is not one of {', '.join(PRECISIONS)}")
        self.precision = precision
        self.setting = setting
        if not path.is_dir():
            raise ConfigurationError(f"{setting}: NLI model directory {str(path)!r} does not exist")
        if not (path / "config.json").is_file():
            raise ConfigurationError(f"{setting}: {str(path)!r} has no config.json; it is not a transformers model directory")
        if temperature <= 0 or not math.isfinite(temperature):
            raise ConfigurationError(f"{setting}: temperature must be a positive number, got {temperature!r}")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        self.threads = threads or default_threads()
        # One loaded verifier serves every thread (the gates of concurrent requests, the answerability scorer). The
        # fast tokenizer keeps its padding / truncation settings between calls, so one thread's "no padding" call
        # could land inside another's padded batch: tokenizing and the forward pass run one thread at a time (on two
        # cores a second forward pass at once gains nothing: each already uses both).
        self._lock = threading.RLock()
        config = self._load_runtime(path, setting)
        self.label_index = label_index_map(config.id2label, setting=f"{setting} ({path})")
        if config.num_labels != len(config.id2label):
            raise ConfigurationError(f"{setting}: num_labels and id2label disagree in {str(path)!r}")
        self.model_dir = path
        self.name = name or f"transformers:{path}"
        self.max_length = min(max_length, getattr(self.tokenizer, "model_max_length", max_length) or max_length,
                              getattr(config, "max_position_embeddings", max_length))
        self.batch_size = batch_size
        if batch_tokens < 1:
            raise ConfigurationError(f"{setting}: batch_tokens must be a positive number, got {batch_tokens!r}")
        self.batch_tokens = batch_tokens
        self.temperature = float(temperature)
        self.max_windows = max_windows if max_windows and max_windows > 0 else None
        self._extra = dict(extra_metadata or {})

    def _load_runtime(self, path: Path, setting: str):
        """Load tokenizer and model (torch, fp32 or bf16 weights); return the model config. Overridden by the ONNX
        Runtime backend. bf16 runs the whole forward pass in bfloat16 (logits are read back as fp32): on a CPU with
        AMX or AVX512-BF16 it is about 2.5x fp32 for the same decisions (see :func:`controlplane.nli.shipped.native_bf16`
        and the model card's precision check)."""
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:
            raise ConfigurationError(f"{setting}: torch and transformers are needed (pip install 'controlplane[models]')") from exc
        self._torch = torch
        torch.set_num_threads(self.threads)
        try:
            with quiet_model_loading():
                self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
                model = AutoModelForSequenceClassification.from_pretrained(str(path), local_files_only=True)
        except Exception as exc:  # corrupt weights, missing tokenizer, unknown architecture
            raise ConfigurationError(f"{setting}: cannot load the NLI model from {str(path)!r}: {exc}") from exc
        # Evaluating many checkpoints is where an accelerator helps; the product itself scores on the CPU.
        self.device = os.environ.get("CONTROLPLANE_NLI_DEVICE", "cpu")
        if self.device != "cpu" and not torch.cuda.is_available():
            raise ConfigurationError(f"CONTROLPLANE_NLI_DEVICE={self.device}: torch sees no CUDA device; unset it")
        dtype = torch.bfloat16 if self.precision == "bf16" else torch.float32
        self.model = model.to(dtype).eval().to(self.device)
        self.runtime = f"torch-{self.precision}"
        return model.config

    # ---- chunking -------------------------------------------------------------------------------------------
    def _hypothesis_budget(self) -> int:
        return self.max_length - min(MIN_PREMISE_TOKENS, self.max_length // 2) - 3

    def _slice(self, text: str, budget: int) -> list[str]:
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return [self.tokenizer.decode(ids[i:i + budget]) for i in range(0, len(ids), budget)]

    def chunk_pairs(self, pairs: Sequence[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[ChunkedPair]]:
        """Expand each pair into (window, claim) rows; return the rows and each pair's slice of them."""
        with self._lock:
            return self._chunk_pairs(pairs)

    def _chunk_pairs(self, pairs: Sequence[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[ChunkedPair]]:
        flat: list[tuple[str, str]] = []
        spans: list[ChunkedPair] = []
        tok = self.tokenizer
        # Word-pieces of every hypothesis and premise in two tokenizer calls, not two per pair (the same ids).
        texts = [(premise or "", hypothesis) for premise, hypothesis in pairs]
        all_hyp_ids = tok([h for _, h in texts], add_special_tokens=False)["input_ids"] if texts else []
        premise_lengths = [len(ids) for ids in tok([p for p, _ in texts], add_special_tokens=False)["input_ids"]] if texts else []
        for (premise, hypothesis), hyp_ids, prem_len in zip(texts, all_hyp_ids, premise_lengths, strict=True):
            if len(hyp_ids) > self._hypothesis_budget():
                hyp_ids = hyp_ids[: self._hypothesis_budget()]
                hypothesis = tok.decode(hyp_ids)
                hyp_len = len(tok(hypothesis, add_special_tokens=False)["input_ids"])
            else:
                hyp_len = len(hyp_ids)
            budget = self.max_length - hyp_len - 3
            start = len(flat)
            if not premise.strip():  # no evidence entails nothing: no window, scored as neutral 1.0
                spans.append(ChunkedPair(start, start))
                continue
            if prem_len <= budget:
                flat.append((premise, hypothesis))
            else:
                sentences = sentence_texts(premise)
                lengths = [len(x) for x in tok(sentences, add_special_tokens=False)["input_ids"]] if sentences else []
                windows = pack_windows(sentences, lengths, budget, self._slice)
                if self.max_windows and len(windows) > self.max_windows:
                    windows = top_windows_by_overlap(windows, hypothesis, self.max_windows)
                for window in windows:
                    flat.append((window, hypothesis))
            spans.append(ChunkedPair(start, len(flat)))
        return flat, spans

    # ---- scoring ----------------------------------------------------------------------------------------------
    def _forward(self, rows: Sequence[tuple[str, str]]) -> list[list[float]]:
        """Logits of one batch (the only step that differs between runtimes; see onnx_backend)."""
        enc = self.tokenizer([r[0] for r in rows], [r[1] for r in rows], truncation="only_first",
                             max_length=self.max_length, padding=True, return_tensors="pt").to(self.device)
        with self._torch.inference_mode():
            return self.model(**enc).logits.float().tolist()

    @property
    def rows_per_batch(self) -> int:
        """batch_size rows, fewer where that many max_length windows would pass batch_tokens padded tokens."""
        return max(1, min(self.batch_size, self.batch_tokens // self.max_length))

    def logits(self, rows: Sequence[tuple[str, str]]) -> list[list[float]]:
        """Raw logits of (premise, hypothesis) rows in model label order, batched by length."""
        order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]) + len(rows[i][1]))
        out: list[list[float] | None] = [None] * len(rows)
        step = self.rows_per_batch
        with self._lock:
            for s in range(0, len(order), step):
                idx = order[s:s + step]
                values = self._forward([rows[i] for i in idx])
                for i, v in zip(idx, values):
                    out[i] = v
        return out  # type: ignore[return-value]

    def probabilities(self, logit_row: Sequence[float], temperature: float | None = None) -> NliScore:
        t = self.temperature if temperature is None else temperature
        scaled = [x / t for x in logit_row]
        top = max(scaled)
        exps = [math.exp(x - top) for x in scaled]
        total = sum(exps)
        probs = [e / total for e in exps]
        li = self.label_index
        return NliScore(
            entailment=probs[li["entailment"]],
            contradiction=probs[li["contradiction"]] if "contradiction" in li else 0.0,
            neutral=probs[li["neutral"]] if "neutral" in li else 0.0,
        )

    def chunk_logits(self, pairs: Sequence[tuple[str, str]]) -> list[list[list[float]]]:
        """Per pair, the logits of each of its windows (for calibration fitting)."""
        flat, spans = self.chunk_pairs(pairs)
        values = self.logits(flat)
        return [values[sp.start:sp.stop] for sp in spans]

    def best_chunk(self, windows: Sequence[Sequence[float]], temperature: float | None = None) -> NliScore:
        if not windows:
            return NliScore(entailment=0.0, contradiction=0.0, neutral=1.0)
        return max((self.probabilities(w, temperature) for w in windows), key=lambda s: s.entailment)

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[NliScore]:
        return [self.best_chunk(w) for w in self.chunk_logits(pairs)]

    def metadata(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model_dir": str(self.model_dir),
            "labels": self.label_index,
            "max_length": self.max_length,
            "batch_size": self.batch_size,
            "batch_tokens": self.batch_tokens,
            "threads": self.threads,
            "runtime": self.runtime,
            "temperature": self.temperature,
            "chunking": "best chunk: sentence windows fitting max_length with the whole claim; max P(entailed)",
            "max_windows": self.max_windows,
            **self._extra,
        }
