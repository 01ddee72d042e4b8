"""The model boundary (CFS-020 Intelligence Interface).

An IntelligenceModule is read-only and stateless: it receives a fully assembled, deterministic context and returns
text. It cannot see the trace store, cannot fetch more context and keeps nothing between calls; any memory lives in
the caller's messages. Everything the pipeline needs to know about a call is in the IntelligenceResponse.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from controlplane.contracts import FinishReason

Purpose = Literal["main", "selector", "critic"]


class ModelError(Exception):
    """A model could not be loaded or called. The message names the setting to change."""


@dataclass(frozen=True)
class ChatMessage:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class AssembledContext:
    """CFS-020 AssembledContext: the prompt the pipeline built, plus what it was built from."""

    purpose: Purpose
    messages: tuple[ChatMessage, ...]
    attempt: int = 1
    evidence_ids: tuple[str, ...] = ()
    total_tokens: int = 0
    truncated: bool = False
    query_hash: str = ""
    timestamp: str = ""


@dataclass(frozen=True)
class GenerationParams:
    """CFS-020 GenerationParams plus the JSON Schema the output must follow (compiled to a grammar if supported)."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    stop_sequences: tuple[str, ...] = ()
    system_prompt: str | None = None
    json_schema: dict[str, Any] | None = None
    seed: int = 0


@dataclass(frozen=True)
class IntelligenceResponse:
    text: str
    tokens_used: int
    finish_reason: FinishReason
    latency_ms: float
    model_id: str
    tokens_in: int = 0
    error: str | None = None
    citations: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class ModuleMetadata:
    model_id: str
    model_hash: str
    max_context_length: int
    supports_functions: bool = False
    supports_json_schema: bool = False
    local_only: bool = True
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "model_hash": self.model_hash,
            "max_context_length": self.max_context_length,
            "supports_functions": self.supports_functions,
            "supports_json_schema": self.supports_json_schema,
            "local_only": self.local_only,
            **({"details": self.details} if self.details else {}),
        }


@runtime_checkable
class IntelligenceModule(Protocol):
    def generate(self, query: str, context: AssembledContext, params: GenerationParams) -> IntelligenceResponse:
        ...

    def is_ready(self) -> bool:
        ...

    def metadata(self) -> ModuleMetadata:
        ...


def sha256_file(path: str, chunk_size: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def estimate_tokens(text: str) -> int:
    """Cheap, deterministic token estimate (~4 characters a token) used for budgets when no tokenizer is at hand."""
    return max(1, (len(text) + 3) // 4) if text else 0


def render_messages(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(f"{m.role}: {m.content}" for m in messages)
