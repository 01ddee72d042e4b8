"""What an NLI backend says about itself, read the same way by every gate that scores with it: whether it is a
similarity-only stand-in (never enough for high stakes) and the calibrated threshold its model card ships."""

from __future__ import annotations

from .interfaces import NliBackend

# Backends that score by vector similarity rather than entailment.
SIMILARITY_METHODS = frozenset({"similarity", "cosine", "embedding", "bi-encoder"})


def is_similarity_only(backend: NliBackend) -> bool:
    method = getattr(backend, "method", None)
    try:
        method = method or (backend.metadata() or {}).get("method")
    except Exception:
        method = method or None
    return str(method or "").lower() in SIMILARITY_METHODS


def backend_threshold(backend: NliBackend | None) -> float | None:
    if backend is None:
        return None
    try:
        value = (backend.metadata() or {}).get("threshold")
    except Exception:
        return None
    return float(value) if isinstance(value, (int, float)) and 0.0 <= value <= 1.0 else None
