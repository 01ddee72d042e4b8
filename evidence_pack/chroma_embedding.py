"""chromadb's embedding function over the project's encoder (embeddings.py). Only the vector store imports this
module, so a process that embeds without an index never imports chromadb (about 1 s on a 2-core machine).

``MiniLMEmbeddingFunction`` implements chromadb's EmbeddingFunction interface in full (``name``, ``get_config``,
``build_from_config``, spaces), so chroma stores a *known* function instead of a legacy one. chromadb rebuilds the
function from its saved config several times per collection create; construction is therefore free and the model is
loaded on the first call only. The saved config holds no path, only the model's identity: the model is always
resolved in the running process, never from a path recorded on another machine.
"""

from __future__ import annotations

from typing import Any

from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function

from .embeddings import DEFAULT_BATCH_SIZE, embed, model_id

EMBEDDING_FUNCTION_NAME = "controlplane-sentence-transformer"


@register_embedding_function
class MiniLMEmbeddingFunction(EmbeddingFunction[Documents]):
    """chromadb EmbeddingFunction over the configured local sentence-transformers model."""

    def __init__(self, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        # Construction must stay free: chroma rebuilds the function from its config several times per create.
        self.batch_size = batch_size

    def __call__(self, input: Documents) -> Embeddings:
        import numpy as np

        return [np.asarray(v, dtype=np.float32) for v in embed(list(input), batch_size=self.batch_size)]

    @staticmethod
    def name() -> str:
        return EMBEDDING_FUNCTION_NAME

    def get_config(self) -> dict[str, Any]:
        # No absolute path: the model is resolved where the collection is opened.
        return {"model": model_id(), "batch_size": self.batch_size}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbeddingFunction:
        return MiniLMEmbeddingFunction(batch_size=int(config.get("batch_size", DEFAULT_BATCH_SIZE)))

    @staticmethod
    def validate_config(config: dict[str, Any]) -> None:
        return None

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "ip", "l2"]
