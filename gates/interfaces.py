"""What a gate receives and the services it may call. Gates import contracts, this module (with the attempt view
it hands on, gates/attempt.py) and the shared gate utilities.

Services (retriever, NLI backend, critic) are passed in, never imported: a gate stays testable alone and a missing
service is a fail with a reason code, not an ImportError.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from controlplane.contracts import (
    CostClass,
    EvidenceItem,
    EvidencePack,
    GateResult,
    GateSpec,
    ModeDecision,
    OutputEnvelope,
    PolicyBundle,
    ReasonCode,
)

from .attempt import AttemptView


class GateStage(str, Enum):
    PRE_GENERATION = "pre_generation"  # runs on the request and pack, before the main model is called
    POST_GENERATION = "post_generation"  # runs on each attempt's envelope


@dataclass(frozen=True)
class NliScore:
    """P(entailed), P(contradicted), P(neutral) of one (evidence, claim) pair; they sum to ~1."""

    entailment: float
    contradiction: float
    neutral: float


@runtime_checkable
class NliBackend(Protocol):
    name: str

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[NliScore]:
        """Score (premise=evidence text, hypothesis=claim) pairs, in order."""
        ...

    def metadata(self) -> dict[str, Any]:
        ...


@runtime_checkable
class Retriever(Protocol):
    name: str

    def retrieve(self, query: str, k: int) -> list[EvidenceItem]:
        """Up to k evidence items, deterministic order (score, then id). Ids are reassigned by the pack builder."""
        ...


@runtime_checkable
class Critic(Protocol):
    def critique(self, payload: dict[str, Any]) -> list[dict[str, Any]]:
        """CriticFinding dicts for one trace payload (mode decision, pack, envelope, gate results)."""
        ...


@runtime_checkable
class TermSimilarity(Protocol):
    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Cosine similarity of each (text, text) pair, in order: how close in meaning two short terms are (the
        near-copy rule asks it whether a swapped-in term could be a synonym of the one it replaces)."""
        ...


NliBackendFactory = Callable[..., NliBackend]
RetrieverFactory = Callable[..., Retriever]


@dataclass(frozen=True)
class BudgetUsage:
    attempt: int = 1
    regen_attempts_used: int = 0
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    elapsed_ms: float = 0.0
    finish_reason: str | None = None


@dataclass(frozen=True)
class GateServices:
    retriever: Retriever | None = None
    nli_backend: NliBackend | None = None
    critic: Critic | None = None
    similarity: TermSimilarity | None = None


@dataclass(frozen=True)
class SchemaIssue:
    path: str
    message: str


@dataclass(frozen=True)
class GateInput:
    """Everything a gate may look at for one attempt. Immutable: gates cannot change the request."""

    mode_decision: ModeDecision
    evidence_pack: EvidencePack
    policy: PolicyBundle
    spec: GateSpec
    user_message: str = ""
    raw_output: str | None = None
    envelope: OutputEnvelope | None = None
    parse_issues: tuple[SchemaIssue, ...] = ()
    parse_failure: ReasonCode | None = None
    usage: BudgetUsage = field(default_factory=BudgetUsage)
    services: GateServices = field(default_factory=GateServices)
    # Verdicts of the gates that ran before this one on the same attempt, in bundle order: gates that judge what other
    # gates established (reasoning_chain: "is each premise verified?"; evidence_graph) read them, never re-derive them.
    prior_results: tuple[GateResult, ...] = ()
    # The attempt derived once (gates/attempt.py), shared by every gate of the attempt. Built here when the caller
    # gives none, or one of another envelope (a copy with a different envelope gets its own view).
    attempt: AttemptView | None = None

    def __post_init__(self) -> None:
        if self.attempt is None or self.attempt.envelope is not self.envelope:
            object.__setattr__(self, "attempt", AttemptView.over(self.envelope, self.evidence_pack))

    def for_gate(self, spec: GateSpec, prior_results: tuple[GateResult, ...] | None = None) -> GateInput:
        """This input as one gate of the plan sees it: its own spec and, when given, the verdicts before it. A
        shallow copy (every other field is the same object, the attempt's view included), without the field-by-field
        rebuild of ``dataclasses.replace``: the registry makes one per gate per attempt."""
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy.__dict__["spec"] = spec
        if prior_results is not None:
            copy.__dict__["prior_results"] = prior_results
        return copy

    @property
    def params(self) -> dict[str, Any]:
        return self.spec.params

    @property
    def view(self) -> AttemptView:
        assert self.attempt is not None  # set in __post_init__
        return self.attempt


@runtime_checkable
class Gate(Protocol):
    gate_id: str
    version: str
    cost_class: CostClass
    stage: GateStage

    def evaluate(self, inp: GateInput) -> GateResult:
        ...


class BaseGate:
    """Convenience base: named constructors that fill id, version and cost class."""

    gate_id: str = ""
    version: str = "v1"
    cost_class: CostClass = CostClass.CHEAP
    stage: GateStage = GateStage.POST_GENERATION

    def passing(self, **extra: Any) -> GateResult:
        return GateResult.passing(self.gate_id, self.version, self.cost_class, **extra)

    def failing(self, reason_codes: Sequence[ReasonCode], **extra: Any) -> GateResult:
        return GateResult.failing(self.gate_id, self.version, self.cost_class, list(reason_codes), **extra)

    def skipped(self, reason_codes: Sequence[ReasonCode], **extra: Any) -> GateResult:
        return GateResult.skipped(self.gate_id, self.version, self.cost_class, list(reason_codes), **extra)

    def needs_envelope(self, inp: GateInput) -> GateResult | None:
        """Fail closed when there is no parsed envelope to check."""
        if inp.envelope is None:
            return self.failing([ReasonCode.PRECONDITION_FAILED], details={"why": "no parsed envelope"})
        return None

    def evaluate(self, inp: GateInput) -> GateResult:  # pragma: no cover - abstract
        raise NotImplementedError


def prior_records(results: Iterable[GateResult], gate_id: str, key: str) -> dict[str, dict[str, Any]] | None:
    """``details[key]`` of the named earlier gate when it ran (pass or fail), else None."""
    for result in results:
        if result.gate_id == gate_id and result.result.value != "skip":
            records = result.details.get(key)
            return dict(records) if isinstance(records, dict) else {}
    return None
