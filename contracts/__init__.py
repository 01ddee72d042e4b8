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
from .policy import EnvelopeFormat, ProsePolicy, ReverifyPolicy
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

__all__ = [name for name in dir() if not name.startswith("_")]
