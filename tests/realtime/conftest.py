"""Helpers for the issue 13 (items 4-6) tests: requests through the real pipeline with the scripted model adapter.

The scripted model replays the envelopes a test writes; every gate of the bundle runs on them. Claim verification
uses the overlap NLI backend of the gate tests (a real NliBackend, not a mock), so these tests do not depend on the
shipped verifier's scores.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from controlplane.adapters.scripted import ScriptedModel
from controlplane.gates.interfaces import GateServices
from controlplane.pipeline import Pipeline, RunResult
from controlplane.policy_bundles.loader import LoadedPolicy, load_bundle, parse_bundle
from controlplane.pytest_plugin import GateHarness
from tests.gates.nli_backends import OverlapNliBackend

NOW = "2026-06-01T12:00:00+00:00"


def policy_with(now: str | None = NOW, gate_params: dict[str, dict] | None = None,
                profiles: dict[str, dict] | None = None) -> LoadedPolicy:
    """The shipped bundle with the gates' clock set (params.now), and gate params / profile fields changed."""
    data = load_bundle().bundle.model_dump(mode="json")
    for gate in data["gates"]:
        if now is not None and gate["gate_id"] in ("nli_entailment", "evidence_conflicts"):
            gate["params"]["now"] = now
        gate["params"].update((gate_params or {}).get(gate["gate_id"], {}))
    for name, changes in (profiles or {}).items():
        data["domain_profiles"][name].update(changes)
    return parse_bundle(data, source="tests:realtime")


def envelope(claims: list[tuple], mode: str = "System", text: str | None = None) -> dict[str, Any]:
    built = GateHarness.envelope(text if text is not None else " ".join(c[0] for c in claims), claims=claims,
                                 mode=mode)
    built["meta"]["used_evidence_ids"] = sorted(built["meta"]["used_evidence_ids"])
    return built


@pytest.fixture
def run(tmp_path: Path):
    """run(envelopes, message, evidence, policy=..., retriever=..., backend=...) -> RunResult."""
    counter = {"n": 0}

    def _run(outputs: Iterable[dict] | dict, message: str, evidence: list[dict] | None = None,
             policy: LoadedPolicy | None = None, retriever: Any = None, backend: Any = None) -> RunResult:
        counter["n"] += 1
        outputs = [outputs] * 3 if isinstance(outputs, dict) else list(outputs)
        script = tmp_path / f"script_{counter['n']}.jsonl"
        script.write_text("\n".join(json.dumps(o) for o in outputs) + "\n", encoding="utf-8")
        services = GateServices(retriever=retriever, nli_backend=backend or OverlapNliBackend())
        pipeline = Pipeline(ScriptedModel(script), policy=policy or policy_with(), services=services)
        return pipeline.run(message, evidence=evidence)

    return _run


def gate(result: RunResult, gate_id: str, attempt: int = -1):
    """The named gate's result on an attempt (default: the last)."""
    return next(g for g in result.attempts[attempt].gate_results if g.gate_id == gate_id)


def codes(result) -> list[str]:
    return [c.value for c in result.reason_codes]
