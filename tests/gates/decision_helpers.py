"""Shared builders for the decision-gate tests: a GateInput for one envelope, evidence and question."""

from __future__ import annotations

from typing import Any

from controlplane.contracts import GateSpec, OutputEnvelope
from controlplane.evidence_pack import build_pack
from controlplane.gates.interfaces import GateInput, GateServices
from controlplane.policy_bundles.loader import load_bundle
from controlplane.pytest_plugin import GateHarness
from controlplane.router import route

POLICY = load_bundle().bundle
NOW = "2026-06-01T12:00:00+00:00"


def envelope(claims: list[tuple], text: str | None = None, mode: str = "System") -> dict[str, Any]:
    """claims: (text, evidence_ids) or (text, evidence_ids, status); assistant_text = texts joined
    (GateHarness.envelope, the suite's one builder; every claim gets a citation entry)."""
    built = GateHarness.envelope(text if text is not None else " ".join(c[0] for c in claims), claims=claims,
                                 mode=mode)
    meta = built["meta"]
    meta["citations"] = [{"claim_id": c["claim_id"], "evidence_ids": c["evidence_ids"]} for c in meta["claim_map"]]
    meta["used_evidence_ids"] = sorted(meta["used_evidence_ids"])
    return built


def gate_input(gate_id: str, question: str, evidence: list[dict], env: dict, backend=None,
               params: dict | None = None, policy=POLICY) -> GateInput:
    spec = next((g for g in policy.gates if g.gate_id == gate_id), GateSpec(gate_id=gate_id))
    merged = {**spec.params, "now": NOW, **(params or {})}
    return GateInput(
        mode_decision=route(question, policy),
        evidence_pack=build_pack(evidence),
        policy=policy,
        spec=spec.model_copy(update={"params": merged}),
        user_message=question,
        envelope=OutputEnvelope.model_validate(env),
        services=GateServices(nli_backend=backend),
    )


def codes(result) -> list[str]:
    return [c.value for c in result.reason_codes]
