"""CriticFinding: what a critic (offline batch, or the sync G7 gate) says about one trace (seed §7-8)."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import ConfigDict, Field

from ._base import Contract


class Severity(str, Enum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class FindingType(str, Enum):
    UNSUPPORTED_CLAIM = "UNSUPPORTED_CLAIM"
    CONTRADICTED_CLAIM = "CONTRADICTED_CLAIM"
    UNCITED_CLAIM = "UNCITED_CLAIM"
    IGNORED_EVIDENCE = "IGNORED_EVIDENCE"
    MISSED_GATE = "MISSED_GATE"
    POLICY_SUGGESTION = "POLICY_SUGGESTION"


class GateDelta(Contract):
    gate_id: str = Field(description="Gate the suggestion is about.")
    new_rule: str = Field(description="The suggested rule in words.")
    patch: dict[str, Any] = Field(
        default_factory=dict, description="Machine-readable change to the gate's entry in the policy bundle."
    )


class CriticFinding(Contract):
    model_config = ConfigDict(
        title="CriticFinding",
        json_schema_extra={
            "description": "One finding of a critic about a stored trace.",
            "examples": [
                {
                    "finding_id": "F17",
                    "severity": "high",
                    "type": "UNSUPPORTED_CLAIM",
                    "claim_id": "c9",
                    "explanation": "Claim asserts X but no evidence ids support it.",
                    "suggested_gate_delta": {
                        "gate_id": "evidence_binding",
                        "new_rule": "In legal domain, disallow factual claims without evidence_ids and without "
                        "UNKNOWN label.",
                        "patch": {"when": {"domain_flags_any": ["legal"]}},
                    },
                }
            ],
        },
    )

    finding_id: str = Field(description="Finding id, unique per critic run.")
    severity: Severity = Field(description="low, medium, high or critical.")
    type: FindingType = Field(description="What kind of problem the critic found.")
    claim_id: str | None = Field(default=None, description="Claim the finding is about, if any.")
    evidence_ids: list[str] = Field(default_factory=list, description="Evidence the finding refers to.")
    explanation: str = Field(description="Why, in words.")
    suggested_gate_delta: GateDelta | None = Field(default=None, description="Suggested policy change.")
