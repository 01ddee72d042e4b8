"""The trace store and trace bundles (replay, which re-runs the pipeline, is controlplane.replay). Installed as ``controlplane.traces`` (folder ``traces/``), so it never
clashes with the unrelated PyPI package named ``traces``."""

from .store import TraceStore, TraceStoreError

__all__ = ["TraceStore", "TraceStoreError"]
