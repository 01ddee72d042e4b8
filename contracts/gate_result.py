"""GateResult: one gate's verdict as a value that cannot be built in an impossible state (seed §5.2)."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from ._base import Contract


class GateOutcome(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"


class CostClass(str, Enum):
    CHEAP = "cheap"
    MEDIUM = "medium"
    EXPENSIVE = "expensive"


class ReasonCode(str, Enum):
    """Closed set of reasons a gate may give. Regen deltas are built from these, never from message strings."""

    # output_schema
    EMPTY_OUTPUT = "EMPTY_OUTPUT"
    INVALID_JSON = "INVALID_JSON"
    TRUNCATED_OUTPUT = "TRUNCATED_OUTPUT"
    SCHEMA_VIOLATION = "SCHEMA_VIOLATION"
    # mode_echo_match
    MODE_MISMATCH = "MODE_MISMATCH"
    # evidence_binding
    UNCITED_CLAIM = "UNCITED_CLAIM"
    UNKNOWN_EVIDENCE_ID = "UNKNOWN_EVIDENCE_ID"
    EVIDENCE_ID_NOT_ALLOWED = "EVIDENCE_ID_NOT_ALLOWED"
    EVIDENCE_REQUIRED_BUT_EMPTY = "EVIDENCE_REQUIRED_BUT_EMPTY"
    EXEMPT_STATUS_NOT_ALLOWED = "EXEMPT_STATUS_NOT_ALLOWED"
    DUPLICATE_CLAIM_ID = "DUPLICATE_CLAIM_ID"
    # citation_integrity
    CITATION_UNKNOWN_CLAIM = "CITATION_UNKNOWN_CLAIM"
    CITATION_UNKNOWN_EVIDENCE_ID = "CITATION_UNKNOWN_EVIDENCE_ID"
    CITATION_CLAIM_MISMATCH = "CITATION_CLAIM_MISMATCH"
    INLINE_MARKER_UNRESOLVED = "INLINE_MARKER_UNRESOLVED"
    INLINE_MARKER_MISMATCH = "INLINE_MARKER_MISMATCH"
    INLINE_MARKER_MISSING = "INLINE_MARKER_MISSING"
    USED_IDS_INCONSISTENT = "USED_IDS_INCONSISTENT"
    # claim_anchors
    CLAIM_NOT_IN_TEXT = "CLAIM_NOT_IN_TEXT"
    SPAN_MISSING = "SPAN_MISSING"
    SPAN_OUT_OF_BOUNDS = "SPAN_OUT_OF_BOUNDS"
    SPAN_TEXT_MISMATCH = "SPAN_TEXT_MISMATCH"
    SPAN_OVERLAP = "SPAN_OVERLAP"
    SENTENCE_UNCOVERED = "SENTENCE_UNCOVERED"
    # budget_enforcer
    TOKENS_EXCEEDED = "TOKENS_EXCEEDED"
    OUTPUT_TOO_LARGE = "OUTPUT_TOO_LARGE"
    RETRIES_EXCEEDED = "RETRIES_EXCEEDED"
    TOOL_CALLS_EXCEEDED = "TOOL_CALLS_EXCEEDED"
    WALL_TIME_EXCEEDED = "WALL_TIME_EXCEEDED"
    CLAIMS_EXCEEDED = "CLAIMS_EXCEEDED"
    # retrieval_required
    RETRIEVAL_REQUIRED = "RETRIEVAL_REQUIRED"
    RETRIEVAL_PERFORMED = "RETRIEVAL_PERFORMED"
    RETRIEVAL_EMPTY = "RETRIEVAL_EMPTY"
    RETRIEVER_UNAVAILABLE = "RETRIEVER_UNAVAILABLE"
    # nli_entailment and the evidence sufficiency tree (Smart Notes)
    NO_EVIDENCE = "NO_EVIDENCE"
    LOW_ENTAILMENT = "LOW_ENTAILMENT"
    INSUFFICIENT_SOURCES = "INSUFFICIENT_SOURCES"
    HIGH_CONTRADICTION = "HIGH_CONTRADICTION"
    CONFLICTING_VERDICTS = "CONFLICTING_VERDICTS"
    LOW_CREDIBILITY = "LOW_CREDIBILITY"
    LOW_CONFIDENCE = "LOW_CONFIDENCE"
    NUMBER_MISMATCH = "NUMBER_MISMATCH"
    NEGATION_MISMATCH = "NEGATION_MISMATCH"
    QUALIFIER_DRIFT = "QUALIFIER_DRIFT"
    STRENGTH_INFLATION = "STRENGTH_INFLATION"
    UNSUPPORTED_CONTENT = "UNSUPPORTED_CONTENT"
    EVIDENCE_CONFLICT = "EVIDENCE_CONFLICT"
    STALE_EVIDENCE = "STALE_EVIDENCE"
    VERIFIER_UNAVAILABLE = "VERIFIER_UNAVAILABLE"
    EVIDENCE_TEXT_REDACTED = "EVIDENCE_TEXT_REDACTED"
    # a claim that is whole sentences of the evidence it cites: entailed by construction (a basis, never a failure)
    VERBATIM_QUOTE = "VERBATIM_QUOTE"
    # claim_categories
    CLAIM_CATEGORY_MISMATCH = "CLAIM_CATEGORY_MISMATCH"
    # semantic_critic_sync
    CRITIC_FINDING = "CRITIC_FINDING"
    CRITIC_UNAVAILABLE = "CRITIC_UNAVAILABLE"
    # reasoning_chain (EBOM reasoning chain verification, tiers 1-3 and the common invalid patterns)
    PREMISE_MISSING = "PREMISE_MISSING"
    PREMISE_UNVERIFIED = "PREMISE_UNVERIFIED"
    UNSOURCED_REASONING_FACT = "UNSOURCED_REASONING_FACT"
    UNSOURCED_ANTECEDENT = "UNSOURCED_ANTECEDENT"
    NON_SEQUITUR = "NON_SEQUITUR"
    CHERRY_PICKING = "CHERRY_PICKING"
    FALSE_EQUIVALENCE = "FALSE_EQUIVALENCE"
    OVERGENERALIZATION = "OVERGENERALIZATION"
    REASONING_NOT_ENTAILED = "REASONING_NOT_ENTAILED"
    CIRCULAR_REASONING = "CIRCULAR_REASONING"
    # evidence_graph (EBOM graph constraints; acyclic is CIRCULAR_REASONING, support count INSUFFICIENT_SOURCES)
    CLAIM_NOT_GROUNDED = "CLAIM_NOT_GROUNDED"
    CONFIDENCE_NOT_PROPAGATED = "CONFIDENCE_NOT_PROPAGATED"
    # response_validation (CFS-020 §8: a hallucination indicator phrase in a claim; a warning below fail_at_rigor)
    HALLUCINATION_PHRASE = "HALLUCINATION_PHRASE"
    # any gate
    SKIPPED_BY_POLICY = "SKIPPED_BY_POLICY"
    NOT_APPLICABLE = "NOT_APPLICABLE"
    PRECONDITION_FAILED = "PRECONDITION_FAILED"
    GATE_ERROR = "GATE_ERROR"
    GATE_NOT_FOUND = "GATE_NOT_FOUND"
    # claim_dependencies (Smart Notes §2.5): a claim uses a term that only a later claim defines
    DEPENDENCY_FORWARD_REFERENCE = "DEPENDENCY_FORWARD_REFERENCE"
    # domain profiles (Smart Notes §2.3): pre-verification, evidence matching, post-verification hooks
    PROFILE_CLAIM_TYPE_NOT_ALLOWED = "PROFILE_CLAIM_TYPE_NOT_ALLOWED"
    PROFILE_OUT_OF_SCOPE = "PROFILE_OUT_OF_SCOPE"
    PROFILE_EVIDENCE_TYPE_MISSING = "PROFILE_EVIDENCE_TYPE_MISSING"
    MISSING_UNITS = "MISSING_UNITS"
    MISSING_EQUATION = "MISSING_EQUATION"
    EQUATION_UNPARSEABLE = "EQUATION_UNPARSEABLE"
    MISSING_PROOF_STEPS = "MISSING_PROOF_STEPS"
    MISSING_PSEUDOCODE = "MISSING_PSEUDOCODE"


class Measured(Contract):
    latency_ms: float = Field(default=0.0, ge=0.0, description="Wall time the gate took.")
    tokens_in: int = Field(default=0, ge=0, description="Model tokens the gate consumed (0 for code-only gates).")
    tokens_out: int = Field(default=0, ge=0, description="Model tokens the gate produced.")


class GateResult(Contract):
    """A gate's verdict. A fail or skip always says why; a result is frozen once built."""

    model_config = ConfigDict(
        frozen=True,
        title="GateResult",
        json_schema_extra={
            "description": "Verdict of one gate on one attempt, filled by server code even when the gate calls a model.",
            "examples": [
                {
                    "gate_id": "evidence_binding",
                    "gate_version": "v1",
                    "result": "fail",
                    "reason_codes": ["UNCITED_CLAIM"],
                    "evidence_refs": ["claim_map:c7"],
                    "cost_class": "cheap",
                    "measured": {"latency_ms": 0.04, "tokens_in": 0, "tokens_out": 0},
                    "details": {"claims": {"c7": ["UNCITED_CLAIM"]}},
                }
            ],
        },
    )

    gate_id: str = Field(description="Registered id of the gate.")
    gate_version: str = Field(description="Version of the gate's logic.")
    result: GateOutcome = Field(description="pass, fail or skip.")
    reason_codes: list[ReasonCode] = Field(default_factory=list, description="Why; required for fail and skip.")
    evidence_refs: list[str] = Field(
        default_factory=list, description="What the verdict points at, e.g. claim_map:c7, evidence:E3, schema:/meta."
    )
    cost_class: CostClass = Field(description="cheap, medium or expensive.")
    measured: Measured = Field(default_factory=Measured, description="Latency and model tokens.")
    details: dict = Field(default_factory=dict, description="Gate-specific structured detail (per claim, paths).")

    @model_validator(mode="after")
    def _explained(self) -> GateResult:
        if self.result in (GateOutcome.FAIL, GateOutcome.SKIP) and not self.reason_codes:
            raise ValueError(f"a {self.result.value} GateResult must carry at least one reason code")
        return self

    @property
    def passed(self) -> bool:
        return self.result is GateOutcome.PASS

    @property
    def failed(self) -> bool:
        return self.result is GateOutcome.FAIL

    @classmethod
    def passing(cls, gate_id: str, gate_version: str, cost_class: CostClass, **extra: Any) -> GateResult:
        return cls(gate_id=gate_id, gate_version=gate_version, result=GateOutcome.PASS, cost_class=cost_class, **extra)

    @classmethod
    def failing(
        cls, gate_id: str, gate_version: str, cost_class: CostClass, reason_codes: list[ReasonCode], **extra: Any
    ) -> GateResult:
        return cls(
            gate_id=gate_id,
            gate_version=gate_version,
            result=GateOutcome.FAIL,
            cost_class=cost_class,
            reason_codes=_unique(reason_codes),
            **extra,
        )

    @classmethod
    def skipped(
        cls, gate_id: str, gate_version: str, cost_class: CostClass, reason_codes: list[ReasonCode], **extra: Any
    ) -> GateResult:
        return cls(
            gate_id=gate_id,
            gate_version=gate_version,
            result=GateOutcome.SKIP,
            cost_class=cost_class,
            reason_codes=_unique(reason_codes),
            **extra,
        )


def _unique(codes: list[ReasonCode]) -> list[ReasonCode]:
    return list(dict.fromkeys(ReasonCode(code) for code in codes))
