"""Loading transformers models quietly: a module of its own so that the NLI verifier's loader
(controlplane/nli/transformers_backend.py) does not import the embedding module, and chromadb with it (about 1 s on a
2-core machine), in a process that retrieves nothing (`verify`, `serve` without an index)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def quiet_model_loading() -> Iterator[None]:
    """transformers draws a 'Loading weights' bar on stderr for every model it loads, terminal or not; keep the CLI's
    stderr (and a server's log) for our own lines. The bar is off only for the while; the caller's setting comes back.
    Used for the embedding model (embeddings.py) and the NLI verifier (controlplane/nli/transformers_backend.py)."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()
