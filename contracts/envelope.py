"""OutputEnvelope: the strict JSON the main model must answer with (control-plane seed §3.2, §6 option B)."""

from __future__ import annotations

from enum import Enum

from pydantic import ConfigDict, Field, model_validator

from ._base import Contract
from .evidence import EVIDENCE_ID_PATTERN

CLAIM_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
# Hard ceilings of the schema itself; the policy bundle's budgets are usually far lower.
MAX_TEXT_CHARS = 50_000
MAX_CLAIMS = 500


class ClaimStatus(str, Enum):
    """EBOM claim categories plus UNKNOWN (seed §0: "if it can't tie a claim to evidence, mark it UNKNOWN")."""

    FACTUAL = "FACTUAL"
    UNKNOWN = "UNKNOWN"
    SUBJECTIVE = "SUBJECTIVE"
    TRIVIAL = "TRIVIAL"
    CONSENSUS = "CONSENSUS"
    REASONING = "REASONING"


class ReasoningOperation(str, Enum):
    """EBOM reasoning-chain operations: how a REASONING claim derives its conclusion from its premises."""

    ENTAILMENT = "entailment"  # the premises say it (restated or combined)
    AGGREGATION = "aggregation"  # several premises summed up in one statement
    CONTRAST = "contrast"  # premises set against each other (X, whereas Y)
    TRANSITIVE = "transitive"  # A->B and B->C, so A->C
    CONDITIONAL = "conditional"  # if the (sourced) antecedent holds, the consequent follows


class Span(Contract):
    """Character anchor of a claim inside assistant_text, end exclusive."""

    start_char: int = Field(ge=0, description="Offset of the first character of the claim in assistant_text.")
    end_char: int = Field(ge=0, description="Offset one past the last character (exclusive).")

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end_char < self.start_char:
            raise ValueError("end_char must be >= start_char")
        return self


class Claim(Contract):
    claim_id: str = Field(pattern=CLAIM_ID_PATTERN, description="Claim id, unique in the envelope, e.g. c1.")
    text: str = Field(max_length=4000, description="The claim as it appears in assistant_text.")
    evidence_ids: list[str] = Field(
        default_factory=list,
        max_length=50,
        description="Evidence ids supporting the claim; empty only when status is UNKNOWN (or exempt by policy).",
    )
    status: ClaimStatus = Field(default=ClaimStatus.FACTUAL, description="Claim category, or UNKNOWN.")
    span: Span | None = Field(
        default=None,
        description="Anchor in assistant_text. When absent the server anchors the claim by exact text match.",
    )
    operation: ReasoningOperation | None = Field(
        default=None,
        description="REASONING claims only: how the conclusion follows from the premises (EBOM reasoning chain).",
    )
    premises: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="REASONING claims only: the claim ids and/or evidence ids the step reasons from, in order.",
    )

    @model_validator(mode="after")
    def _reasoning_fields_on_reasoning_claims(self) -> Claim:
        if (self.operation is not None or self.premises) and self.status is not ClaimStatus.REASONING:
            raise ValueError("operation and premises belong to REASONING claims only; set status to REASONING or "
                             "drop them")
        return self


class Citation(Contract):
    claim_id: str = Field(pattern=CLAIM_ID_PATTERN, description="Claim this citation belongs to.")
    evidence_ids: list[str] = Field(max_length=50, description="Evidence ids cited for the claim.")


class EnvelopeMeta(Contract):
    modeLabel: str = Field(description="Must equal the ModeDecision's modeLabel.")
    domainFlags: list[str] = Field(default_factory=list, description="Echo of the ModeDecision's domain flags.")
    claim_map: list[Claim] = Field(default_factory=list, max_length=MAX_CLAIMS, description="Every claim made.")
    citations: list[Citation] = Field(default_factory=list, max_length=MAX_CLAIMS, description="Claim citations.")
    used_evidence_ids: list[str] = Field(default_factory=list, description="Evidence ids the answer used.")
    ignored_evidence_ids: list[str] = Field(
        default_factory=list, description="Evidence ids deliberately not used (a tuning signal)."
    )
    checkpointSuggested: bool = Field(default=False, description="The model suggests a human checkpoint.")


class OutputEnvelope(Contract):
    model_config = ConfigDict(
        title="OutputEnvelope",
        json_schema_extra={
            "description": "The main model's answer: the text the user sees plus a checkable claim map.",
            "examples": [
                {
                    "assistant_text": "We use Fly.io for hosting [E2]. Turso is our SQLite provider [E5].",
                    "meta": {
                        "modeLabel": "System",
                        "domainFlags": ["architecture"],
                        "claim_map": [
                            {
                                "claim_id": "c1",
                                "text": "We use Fly.io for hosting [E2].",
                                "evidence_ids": ["E2"],
                                "status": "FACTUAL",
                                "span": {"start_char": 0, "end_char": 31},
                            },
                            {
                                "claim_id": "c2",
                                "text": "Turso is our SQLite provider [E5].",
                                "evidence_ids": ["E5"],
                                "status": "FACTUAL",
                                "span": {"start_char": 32, "end_char": 66},
                            },
                        ],
                        "citations": [
                            {"claim_id": "c1", "evidence_ids": ["E2"]},
                            {"claim_id": "c2", "evidence_ids": ["E5"]},
                        ],
                        "used_evidence_ids": ["E2", "E5"],
                        "ignored_evidence_ids": ["E7"],
                        "checkpointSuggested": False,
                    },
                }
            ],
        },
    )

    assistant_text: str = Field(max_length=MAX_TEXT_CHARS, description="What the user sees.")
    meta: EnvelopeMeta = Field(description="Checkable structure behind the text.")


__all__ = [
    "CLAIM_ID_PATTERN",
    "EVIDENCE_ID_PATTERN",
    "Citation",
    "Claim",
    "ClaimStatus",
    "EnvelopeMeta",
    "OutputEnvelope",
    "ReasoningOperation",
    "Span",
]
