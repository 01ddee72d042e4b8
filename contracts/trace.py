"""TraceEvent and TraceBundle: the numbered audit trail of one request, and its portable export (seed §5.4, §7)."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from ._base import Contract
from .budget import BudgetConfig
from .evidence import EvidencePack
from .gate_result import GateResult
from .mode import ModeDecision
from .regen import RegenDelta

BUNDLE_FORMAT = "controlplane.trace_bundle/v1"


class Phase(str, Enum):
    """Trace phases. The first four are the seed's v0 order contract; later phases append, never reorder."""

    EVIDENCE_INTAKE = "evidence_intake"
    GATE_NORMALIZE_MODALITY = "gate_normalize_modality"
    GATE_INTENT_RISK = "gate_intent_risk"
    GATE_LATTICE = "gate_lattice"
    SELECTOR = "selector"
    RETRIEVAL = "retrieval"
    MODEL_CALL = "model_call"
    GATE = "gate"
    REGEN = "regen"
    DEGRADE = "degrade"
    FINAL = "final"
    REALTIME = "realtime"  # EBOM real-time query handling: staleness checked, re-retrieval, LIMINAL marking
    USER_EDIT = "user_edit"  # re-verification: the edited text and the trace it edits (parent_trace_id)


ORDERED_PREFIX = (
    Phase.EVIDENCE_INTAKE,
    Phase.GATE_NORMALIZE_MODALITY,
    Phase.GATE_INTENT_RISK,
    Phase.GATE_LATTICE,
)


class TraceStatus(str, Enum):
    PASS = "pass"
    REGEN_PASS = "regen_pass"
    DEGRADED = "degraded"
    REFUSED = "refused"
    IN_PROGRESS = "in_progress"
    ERROR = "error"


FINAL_STATUSES = (TraceStatus.PASS, TraceStatus.REGEN_PASS, TraceStatus.DEGRADED, TraceStatus.REFUSED)


class EventMetadata(Contract):
    seq: int = Field(ge=0, description="0, 1, 2, ... per trace run, contiguous, assigned by the pipeline.")
    attempt: int | None = Field(default=None, ge=1, description="Model attempt the event belongs to, if any.")


class TraceEvent(Contract):
    model_config = ConfigDict(
        title="TraceEvent",
        json_schema_extra={
            "description": "One numbered step of a trace run.",
            "examples": [
                {
                    "trace_id": "tr_01J9Z7Q4W3",
                    "seq": 0,
                    "phase": "evidence_intake",
                    "gate_id": None,
                    "payload": {"evidence_ids": ["E1", "E2"], "truncated": False},
                    "ts": "2026-11-23T10:00:00.000000+00:00",
                    "metadata": {"seq": 0, "attempt": None},
                }
            ],
        },
    )

    trace_id: str = Field(description="Trace the event belongs to.")
    seq: int = Field(ge=0, description="Position in the trace run; equals metadata.seq.")
    phase: Phase = Field(description="Pipeline phase that emitted the event.")
    gate_id: str | None = Field(default=None, description="Gate id for gate events.")
    payload: dict[str, Any] = Field(default_factory=dict, description="Phase-specific content.")
    ts: str = Field(description="ISO-8601 UTC timestamp.")
    metadata: EventMetadata = Field(description="Sequencing metadata (seed §5.4).")

    @model_validator(mode="after")
    def _seq_agrees(self) -> TraceEvent:
        if self.metadata.seq != self.seq:
            raise ValueError("metadata.seq must equal seq")
        return self


class FinishReason(str, Enum):
    """CFS-020 FinishReason."""

    STOP = "stop"
    MAX_TOKENS = "max_tokens"
    STOP_SEQUENCE = "stop_sequence"
    INSUFFICIENT_CONTEXT = "insufficient_context"
    ERROR = "error"


class AttemptRecord(Contract):
    attempt: int = Field(ge=1, description="1 for the first call, 2.. for regenerations.")
    raw_output: str = Field(description="Model output exactly as received (may be prose or truncated JSON).")
    envelope: dict[str, Any] | None = Field(default=None, description="Parsed envelope, when it parsed.")
    finish_reason: FinishReason = Field(default=FinishReason.STOP, description="Why generation stopped.")
    tokens_in: int = Field(default=0, ge=0)
    tokens_out: int = Field(default=0, ge=0)
    latency_ms: float = Field(default=0.0, ge=0.0)
    gate_results: list[GateResult] = Field(default_factory=list, description="Verdicts in bundle order.")
    regen_delta: RegenDelta | None = Field(default=None, description="Delta this attempt was generated with.")


class PolicyRef(Contract):
    name: str
    version: str
    hash: str = Field(description="sha256 of the canonical bundle JSON.")
    content: dict[str, Any] | None = Field(default=None, description="The whole bundle, for replay.")


class TraceOutcome(Contract):
    status: TraceStatus
    assistant_text: str = Field(default="", description="What the client received.")
    verified: bool = Field(default=False, description="Every displayed sentence passed verification.")
    claims: list[dict[str, Any]] = Field(default_factory=list, description="Per-claim verdicts of the last attempt.")
    degrade: dict[str, Any] | None = Field(default=None, description="Degrade record when the answer was degraded.")


class TraceBundle(Contract):
    model_config = ConfigDict(
        title="TraceBundle",
        json_schema_extra={
            "description": "Everything needed to replay one trace offline; one JSON object per line of a bundle "
            "file.",
            "examples": [
                {
                    "format": BUNDLE_FORMAT,
                    "trace_id": "tr_01J9Z7Q4W3",
                    "created_at": "2026-11-23T10:00:00+00:00",
                    "messages": [{"role": "user", "content": "Tighten this paragraph."}],
                    "mode_decision": ModeDecision.model_config["json_schema_extra"]["examples"][0],
                    "evidence_pack": {"evidence": [], "rules": {}},
                    "attempts": [
                        {
                            "attempt": 1,
                            "raw_output": '{"assistant_text": "..."}',
                            "envelope": None,
                            "finish_reason": "stop",
                            "gate_results": [],
                        }
                    ],
                    "outcome": {"status": "pass", "assistant_text": "...", "verified": True},
                    "events": [],
                    "policy": {"name": "default", "version": "1.0.0", "hash": "sha256:" + "0" * 64},
                    "model": {"model_id": "scripted:flow.jsonl"},
                    "budgets": {},
                    "redaction": {"applied": False},
                }
            ],
        },
    )

    format: str = Field(default=BUNDLE_FORMAT, description="Bundle format version.")
    trace_id: str
    created_at: str
    messages: list[dict[str, Any]] = Field(description="The caller's messages as received.")
    mode_decision: ModeDecision | None = Field(default=None, description="Final ModeDecision.")
    evidence_pack: EvidencePack | None = Field(default=None, description="Pack as first built (before retrieval).")
    retrieved_evidence_pack: EvidencePack | None = Field(default=None, description="Pack after retrieval, if any.")
    attempts: list[AttemptRecord] = Field(default_factory=list)
    outcome: TraceOutcome | None = Field(default=None)
    events: list[TraceEvent] = Field(default_factory=list, description="All events in seq order.")
    policy: PolicyRef
    model: dict[str, Any] = Field(default_factory=dict, description="ModuleMetadata of the main model.")
    budgets: BudgetConfig | dict[str, Any] = Field(default_factory=dict)
    redaction: dict[str, Any] = Field(default_factory=dict, description="Which redaction rules were applied.")
    integrity: dict[str, str] = Field(
        default_factory=dict,
        description="Field path -> sha256 of that field's canonical JSON (messages, outcome, events, each "
        "attempts[N].raw_output; masked evidence text after redaction), taken when the trace was stored and again "
        "when it was redacted. Import and replay refuse a bundle whose content no longer matches.",
    )
    parent_trace_id: str | None = Field(
        default=None,
        description="For a re-verification of a user edit (grounded-generation contract §7.2): the trace whose "
        "answer was edited. Its evidence pack is the one the edit is checked against.",
    )
