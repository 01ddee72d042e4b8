"""Real traces for replay tests: the scripted model through the real pipeline (no mocks of our components)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controlplane.adapters.scripted import ScriptedModel
from controlplane.pipeline import Pipeline
from controlplane.pytest_plugin import GateHarness

ARCH_EVIDENCE = [
    {"id": "E1", "title": "Stack facts", "text": "We host on Fly.io. DB is Turso (SQLite).", "trust_tier": "authoritative"},
    {"id": "E2", "title": "CP approach",
     "text": "The control plane rejects uncited factual claims and forces a regeneration.", "trust_tier": "authoritative"},
    {"id": "E3", "title": "Unrelated", "text": "The office plants are watered on Fridays."},
]


def envelope(claims: list[tuple], mode: str = "System", flags: list[str] | None = None,
              ignored: list[str] | None = None) -> dict[str, Any]:
    """claims: (text, evidence_ids[, status]); text is joined with spaces and every claim gets its span
    (GateHarness.envelope, the suite's one builder)."""
    built = GateHarness.envelope(" ".join(claim[0] for claim in claims), claims=claims, mode=mode,
                                 domain_flags=flags or [], spans=True, ignored_evidence_ids=ignored or [],
                                 checkpointSuggested=False)
    built["meta"]["used_evidence_ids"] = sorted(built["meta"]["used_evidence_ids"])
    return built


def scripted(directory: Path, name: str, outputs: list[Any]) -> ScriptedModel:
    path = directory / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(o) for o in outputs) + "\n", encoding="utf-8")
    return ScriptedModel(path)


def run(store, policy, directory: Path, name: str, outputs: list[Any], message: str, evidence=None, services=None):
    plane = Pipeline(model=scripted(directory, name, outputs), policy=policy, store=store,
                         **({"services": services} if services is not None else {}))
    return plane.run(message, evidence=evidence)


def record_flows(store, policy, directory: Path) -> dict[str, str]:
    """Four flows: pass, regen_pass, degraded, refused (+ a pre-generation refusal). Returns name -> trace id."""
    good = envelope([("We host on Fly.io [E1].", ["E1"])])
    ids = {}
    ids["pass"] = run(store, policy, directory, "pass", [good], "Where do we host our architecture?",
                      ARCH_EVIDENCE).trace_id
    ids["regen_pass"] = run(store, policy, directory, "regen", ["Sure! We host on Fly.io.", good],
                            "Where do we host our architecture? Contact ops@example.com", ARCH_EVIDENCE).trace_id
    half = envelope([("We host on Fly.io [E1].", ["E1"]), ("Our database has 99.999% uptime.", [])])
    ids["degraded"] = run(store, policy, directory, "degraded", [half, half, half],
                          "What is our architecture stack?", ARCH_EVIDENCE).trace_id
    spoofed = envelope([("LLC members always owe self-employment tax [E7].", ["E7"])])
    ids["refused"] = run(store, policy, directory, "refused", [spoofed] * 3, "LLC tax implications?",
                         [{"id": "E1", "text": "LLCs are pass-through entities."}]).trace_id
    ids["refused_pre"] = run(store, policy, directory, "pre", ["never used"],
                             "What does ADR-011 say about client/server boundary?").trace_id
    return ids


GOVERNANCE_GATES = ("retrieval_required", "output_schema", "mode_echo_match", "evidence_binding", "citation_integrity",
                    "claim_anchors", "budget_enforcer", "semantic_critic_sync")


def governance_policy(**budget_changes):
    """The shipped bundle with the gates these tests reason about (the NLI verifier is tested on its own)."""
    from controlplane.policy_bundles.loader import load_bundle, parse_bundle

    data = load_bundle().bundle.model_dump(mode="json")
    data["gates"] = [g for g in data["gates"] if g["gate_id"] in GOVERNANCE_GATES]
    if not any(g["gate_id"] == "semantic_critic_sync" for g in data["gates"]):
        raise AssertionError("the shipped bundle must list semantic_critic_sync (G7)")
    data["budgets"].update(budget_changes)
    return parse_bundle(data, source="tests:governance")


def write_policy(loaded, path: Path) -> Path:
    from controlplane.policy_bundles.loader import canonical_content

    path.write_text(json.dumps(canonical_content(loaded.bundle), indent=2), encoding="utf-8")
    return path
