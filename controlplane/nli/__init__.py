"""Claim verification: NLI backends (a local transformers cross-encoder, the verifier this project trains and ships),
training and evaluation.

Importing this package is cheap: torch and transformers load only when a backend is built or a model is trained.
Use :func:`controlplane.nli.registry.load_nli_backend` to get a backend by name (``shipped``, ``transformers:PATH``).
"""

from __future__ import annotations

from controlplane.nli.labels import LABELS, label_index_map
from controlplane.nli.registry import available_backends, load_nli_backend

__all__ = ["LABELS", "available_backends", "label_index_map", "load_nli_backend"]
