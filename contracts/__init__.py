"""Contracts: every object that crosses a boundary, as pydantic models mirrored by JSON Schemas (draft 2020-12).

Installed as ``controlplane.contracts`` (the folder is ``contracts/``) so it can never clash with the unrelated
PyPI package named ``contracts``.
"""

from .budget import BudgetConfig
from .critic import CriticFinding, FindingType, GateDelta, Severity
from .envelope import Citation, Claim, ClaimStatus, EnvelopeMeta, OutputEnvelope, Span
from .evidence import (
    AtomicFact,
    EvidenceItem,
    EvidencePack,
    EvidenceRules,
    Provenance,
    SourceSpan,
    SourceType,
    Sphere,
    TrustTier,
    Volatility,
)
from .gate_result import CostClass, GateOutcome, GateResult, Measured, ReasonCode
from .mode import ModeDecision, RigorConfig, RigorLevel
from .policy import (
    AnswerMode,
    CitationPolicy,
    ConflictPolicy,
    DegradeMode,
    DegradePolicy,
    DomainPolicy,
    GateSpec,
    PolicyBundle,
    QuotePolicy,
    RedactionPolicy,
    RouterPolicy,
    Thresholds,
    WhenCondition,
)
from .regen import RegenDelta
from .trace import (
    FINAL_STATUSES,
    ORDERED_PREFIX,
    AttemptRecord,
    EventMetadata,
    FinishReason,
    Phase,
    PolicyRef,
    TraceBundle,
    TraceEvent,
    TraceOutcome,
    TraceStatus,
)

__all__ = [
    "FINAL_STATUSES",
    "ORDERED_PREFIX",
    "AnswerMode",
    "AtomicFact",
    "AttemptRecord",
    "BudgetConfig",
    "Citation",
    "CitationPolicy",
    "Claim",
    "ClaimStatus",
    "ConflictPolicy",
    "CostClass",
    "CriticFinding",
    "DegradeMode",
    "DegradePolicy",
    "DomainPolicy",
    "EnvelopeMeta",
    "EventMetadata",
    "EvidenceItem",
    "EvidencePack",
    "EvidenceRules",
    "FindingType",
    "FinishReason",
    "GateDelta",
    "GateOutcome",
    "GateResult",
    "GateSpec",
    "Measured",
    "ModeDecision",
    "OutputEnvelope",
    "Phase",
    "PolicyBundle",
    "PolicyRef",
    "Provenance",
    "QuotePolicy",
    "ReasonCode",
    "RedactionPolicy",
    "RegenDelta",
    "RigorConfig",
    "RigorLevel",
    "RouterPolicy",
    "Severity",
    "SourceSpan",
    "SourceType",
    "Span",
    "Sphere",
    "Thresholds",
    "TraceBundle",
    "TraceEvent",
    "TraceOutcome",
    "TraceStatus",
    "TrustTier",
    "Volatility",
    "WhenCondition",
]
