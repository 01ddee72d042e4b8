"""Fixtures shared by the whole suite. Offline: the hub and chroma telemetry are off for every test."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from controlplane.adapters.scripted import ScriptedModel  # noqa: E402
from controlplane.policy_bundles.loader import LoadedPolicy, load_bundle  # noqa: E402
from controlplane.traces.store import TraceStore  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def default_policy() -> LoadedPolicy:
    return load_bundle()


@pytest.fixture
def write_script(tmp_path: Path) -> Callable[[Iterable[Any]], ScriptedModel]:
    """Write scripted-model outputs (strings are raw text, dicts are envelopes) and return the adapter."""
    counter = {"n": 0}

    def make(outputs: Iterable[Any]) -> ScriptedModel:
        counter["n"] += 1
        path = tmp_path / f"script_{counter['n']}.jsonl"
        path.write_text("\n".join(json.dumps(o) for o in outputs) + "\n", encoding="utf-8")
        return ScriptedModel(path)

    return make


@pytest.fixture
def store(tmp_path: Path) -> TraceStore:
    trace_store = TraceStore(tmp_path / "traces.db")
    yield trace_store
    trace_store.close()
