"""RegenDelta: the targeted correction sent with the next attempt, built from reason codes only."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from ._base import Contract
from .gate_result import ReasonCode


class RegenDelta(Contract):
    model_config = ConfigDict(
        title="RegenDelta",
        json_schema_extra={
            "description": "What exactly the next attempt must fix. Built from the failing GateResults' reason codes "
            "and structured details, never from error-message text.",
            "examples": [
                {
                    "attempt": 2,
                    "failing_gate_ids": ["evidence_binding"],
                    "reason_codes": ["UNCITED_CLAIM", "UNKNOWN_EVIDENCE_ID"],
                    "claim_ids": ["c2"],
                    "unknown_evidence_ids": ["E9"],
                    "uncovered_sentences": [],
                    "schema_paths": [],
                    "allowed_evidence_ids": ["E1", "E2"],
                    "instructions": [
                        "Claims c2 make factual statements without evidence ids: cite one of E1, E2 or set status "
                        "UNKNOWN.",
                        "Evidence ids E9 do not exist; use only E1, E2.",
                    ],
                }
            ],
        },
    )

    attempt: int = Field(ge=2, description="The attempt number this delta is sent with (first regen is attempt 2).")
    failing_gate_ids: list[str] = Field(description="Gates that failed on the previous attempt.")
    reason_codes: list[ReasonCode] = Field(description="Reason codes the delta answers.")
    claim_ids: list[str] = Field(default_factory=list, description="Claims that must be fixed.")
    unknown_evidence_ids: list[str] = Field(default_factory=list, description="Cited ids that are not in the pack.")
    uncovered_sentences: list[str] = Field(default_factory=list, description="Sentences with no claim anchor.")
    schema_paths: list[str] = Field(default_factory=list, description="JSON paths that failed schema validation.")
    allowed_evidence_ids: list[str] = Field(default_factory=list, description="Ids the model may cite.")
    expected_mode_label: str | None = Field(default=None, description="Mode label the envelope must echo.")
    instructions: list[str] = Field(description="One instruction per problem, rendered from the fields above.")
