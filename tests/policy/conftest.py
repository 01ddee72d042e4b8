"""Fixtures for the governance tests: real traces recorded with the scripted model through the real pipeline."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "traces"))

from controlplane.traces.store import TraceStore
from flowkit import governance_policy, record_flows, write_policy


@pytest.fixture(scope="session")
def gov_policy():
    return governance_policy()


@pytest.fixture
def gov_policy_file(gov_policy, tmp_path: Path) -> Path:
    return write_policy(gov_policy, tmp_path / "gov-policy.json")


@pytest.fixture
def flows(tmp_path: Path, gov_policy):
    """A store holding pass, regen_pass, degraded, refused and a pre-generation refusal; returns (store, ids)."""
    store = TraceStore(tmp_path / "flows.db")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    ids = record_flows(store, gov_policy, scripts)
    yield store, ids
    store.close()
