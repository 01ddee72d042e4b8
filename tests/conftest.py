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

from controlplane.adapters.scripted import ScriptedModel
from controlplane.policy_bundles.loader import LoadedPolicy, load_bundle
from controlplane.pytest_plugin import GateHarness
from controlplane.traces.store import TraceStore

REPO = Path(__file__).resolve().parents[1]


CORE_GATES = ("retrieval_required", "output_schema", "mode_echo_match", "evidence_binding", "citation_integrity",
              "claim_anchors", "budget_enforcer")


@pytest.fixture(scope="session")
def shipped_policy() -> LoadedPolicy:
    """The default bundle exactly as shipped (includes the claim-verification gates)."""
    return load_bundle()


@pytest.fixture(scope="session")
def default_policy(shipped_policy: LoadedPolicy) -> LoadedPolicy:
    """The shipped bundle restricted to the core gates (issue 3), so core tests do not depend on the NLI verifier.

    Claim verification (nli_entailment and friends) is tested on its own, with the shipped bundle.
    """
    from controlplane.policy_bundles.loader import parse_bundle

    data = shipped_policy.bundle.model_dump(mode="json")
    data["gates"] = [g for g in data["gates"] if g["gate_id"] in CORE_GATES]
    return parse_bundle(data, source="tests:core-gates")


@pytest.fixture
def core_policy_file(default_policy: LoadedPolicy, tmp_path: Path) -> Path:
    path = tmp_path / "core-policy.json"
    path.write_text(json.dumps(default_policy.bundle.model_dump(mode="json")), encoding="utf-8")
    return path


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


def build_envelope(claims: list[tuple], mode: str = "System", domain_flags: list[str] | None = None,
                   citations: bool = True, extra_text: str = "") -> dict[str, Any]:
    """An OutputEnvelope dict whose assistant_text is the claims' texts joined by spaces (GateHarness.envelope, the
    suite's one builder). Each claim is (text, evidence_ids) or (text, evidence_ids, status); every claim gets a
    citation entry (an empty one when it cites nothing) unless ``citations=False``."""
    text = " ".join(claim[0] for claim in claims) + (f" {extra_text}" if extra_text else "")
    built = GateHarness.envelope(text, claims=claims, mode=mode, domain_flags=domain_flags or [],
                                 ignored_evidence_ids=[], checkpointSuggested=False)
    meta = built["meta"]
    meta["citations"] = ([{"claim_id": c["claim_id"], "evidence_ids": c["evidence_ids"]} for c in meta["claim_map"]]
                         if citations else [])
    meta["used_evidence_ids"] = sorted(meta["used_evidence_ids"])
    return built


@pytest.fixture
def make_envelope() -> Callable[..., dict[str, Any]]:
    return build_envelope


# -- shared by the embedding tests (api, plugin, server, viewer) ---------------------------------------------------
MODEL_GATES = {"nli_entailment", "semantic_critic_sync"}


@pytest.fixture(scope="session")
def core_policy(shipped_policy: LoadedPolicy) -> LoadedPolicy:
    """The shipped bundle without the gates that need a trained NLI model or a critic model, so the embedding layer
    is exercised with the deterministic gates; tests that need the NLI gate pass a real backend."""
    from controlplane.policy_bundles.loader import parse_bundle

    data = shipped_policy.bundle.model_dump(mode="json", exclude_none=True)
    data["name"] = "embedding-tests"
    data["gates"] = [g for g in data["gates"] if g["gate_id"] not in MODEL_GATES]
    return parse_bundle(data, source="tests:core_policy")


# -- shared by the governance tests (traces, policy, critic) ---------------------------------------------------------
# tests/traces/flowkit.py records real traces through the pipeline; the governance test modules import it as
# tests.traces.flowkit (tests/ is a package: no sys.path entry, so our folders never load under a second name).
def _flowkit():
    from tests.traces import flowkit

    return flowkit


@pytest.fixture(scope="session")
def gov_policy():
    return _flowkit().governance_policy()


@pytest.fixture
def gov_policy_file(gov_policy, tmp_path: Path) -> Path:
    return _flowkit().write_policy(gov_policy, tmp_path / "gov-policy.json")


@pytest.fixture
def flows(tmp_path: Path, gov_policy):
    """A store holding pass, regen_pass, degraded, refused and a pre-generation refusal; returns (store, ids)."""
    trace_store = TraceStore(tmp_path / "flows.db")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    ids = _flowkit().record_flows(trace_store, gov_policy, scripts)
    yield trace_store, ids
    trace_store.close()
