"""The trace store and trace bundles: stored, exported, imported, redacted, checked for integrity. Replay re-runs the
pipeline, so it lives above, in controlplane.replay. Installed as ``controlplane.traces`` (folder ``traces/``), so it
never clashes with the unrelated PyPI package named ``traces``."""

from .store import TraceStore, TraceStoreError

__all__ = ["TraceStore", "TraceStoreError"]
