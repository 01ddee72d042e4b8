"""Evidence sufficiency (Smart Notes §2.3 decision tree) and EBOM confidence semantics, as pure functions.

The decision tree, per claim, over the scores of its cited evidence (premise = evidence, hypothesis = claim)::

    no evidence                                   -> REJECTED       NO_EVIDENCE
    max entailment < min_entailment               -> REJECTED       LOW_ENTAILMENT
    independent supporting sources < min_sources  -> LOW_CONFIDENCE INSUFFICIENT_SOURCES
    one source entails, another contradicts       -> LOW_CONFIDENCE CONFLICTING_VERDICTS
    max contradiction > max_contradiction         -> LOW_CONFIDENCE HIGH_CONTRADICTION
    otherwise                                     -> VERIFIED

Smart Notes tests HIGH_CONTRADICTION before CONFLICTING_VERDICTS, which makes the latter unreachable (any strong
contradiction already trips the former); here CONFLICTING_VERDICTS is the case where the entailing and the
contradicting evidence come from *different* independent sources, HIGH_CONTRADICTION where the supporting sources
themselves contradict. Both are LOW_CONFIDENCE, as in the seed's table. A supporting source is one whose item
entails the claim (>= min_entailment); independent sources are distinct document_id, else distinct non-generic
source (URL without fragment), else distinct content hash -- never distinct evidence ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from controlplane.contracts import EvidenceItem, ModeDecision, PolicyBundle, ReasonCode, Sphere, Thresholds

GENERIC_SOURCES = frozenset({"", "caller", "user", "manual", "unknown", "none"})
LIMINAL_FACTOR = 0.8  # EBOM knowledge spheres: LIMINAL multiplies confidence by 0.8


class Sufficiency(str, Enum):
    VERIFIED = "VERIFIED"
    LOW_CONFIDENCE = "LOW_CONFIDENCE"
    REJECTED = "REJECTED"


def source_key(item: EvidenceItem) -> str:
    """Identity of the source an item comes from (Smart Notes: same transcript cited 3 times = 1 source)."""
    prov = item.provenance
    if prov.document_id:
        return f"doc:{prov.document_id}"
    source = (prov.source or "").strip()
    if source.lower() not in GENERIC_SOURCES:
        return f"src:{source.split('#', 1)[0].rstrip('/').lower()}"
    return f"hash:{item.hash}"


def count_independent(items: Iterable[EvidenceItem]) -> int:
    return len({source_key(item) for item in items})


@dataclass(frozen=True)
class EvidenceScore:
    """One cited item's scores against one (atomic) claim."""

    evidence_id: str
    source: str
    entailment: float
    contradiction: float


@dataclass(frozen=True)
class TreeDecision:
    status: Sufficiency
    reasons: tuple[ReasonCode, ...]
    max_entailment: float | None
    max_contradiction: float | None
    independent_sources: int
    supporting_ids: tuple[str, ...] = ()
    contradicting_ids: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"status": self.status.value, "reasons": [r.value for r in self.reasons],
                "max_entailment": self.max_entailment, "max_contradiction": self.max_contradiction,
                "independent_sources": self.independent_sources, "supporting_ids": list(self.supporting_ids),
                "contradicting_ids": list(self.contradicting_ids)}


def decide(scores: Sequence[EvidenceScore], min_entailment: float, max_contradiction: float,
           min_sources: int) -> TreeDecision:
    """The sufficiency tree. The first reason is the tree's; further applicable LOW_CONFIDENCE reasons follow."""
    if not scores:
        return TreeDecision(Sufficiency.REJECTED, (ReasonCode.NO_EVIDENCE,), None, None, 0)
    # one pass (it runs per atomic claim): the maxima as max() finds them (a later score replaces the best only when
    # greater), supporting and contradicting scores in order
    top_ent, top_con = scores[0].entailment, scores[0].contradiction
    supporting: list[EvidenceScore] = []
    contradicting: list[EvidenceScore] = []
    for s in scores:
        if s.entailment > top_ent:  # noqa: PLR1730  a comparison, not a max() call per score
            top_ent = s.entailment
        if s.contradiction > top_con:  # noqa: PLR1730
            top_con = s.contradiction
        if s.entailment >= min_entailment:
            supporting.append(s)
        if s.contradiction > max_contradiction:
            contradicting.append(s)
    sources = len({s.source for s in supporting})
    common = (round(top_ent, 4), round(top_con, 4), sources, tuple(s.evidence_id for s in supporting),
              tuple(s.evidence_id for s in contradicting))
    if top_ent < min_entailment:
        reasons = (ReasonCode.LOW_ENTAILMENT, ReasonCode.HIGH_CONTRADICTION) if contradicting else \
            (ReasonCode.LOW_ENTAILMENT,)
        return TreeDecision(Sufficiency.REJECTED, reasons, *common)
    reasons_found: list[ReasonCode] = []
    if sources < min_sources:
        reasons_found.append(ReasonCode.INSUFFICIENT_SOURCES)
    if contradicting:
        if any(a.source != b.source for a in supporting for b in contradicting):
            reasons_found.append(ReasonCode.CONFLICTING_VERDICTS)
        else:
            reasons_found.append(ReasonCode.HIGH_CONTRADICTION)
    if reasons_found:
        return TreeDecision(Sufficiency.LOW_CONFIDENCE, tuple(reasons_found), *common)
    return TreeDecision(Sufficiency.VERIFIED, (), *common)


# ----------------------------------------------------------------------------------------------------------------
# thresholds
def riskiest_domain(decision: ModeDecision, policy: PolicyBundle, question_only: bool = False) -> str | None:
    """The flagged domain with the highest risk level (ties: the stricter thresholds, then the name). The question's
    and the evidence's domains, or the question's alone with ``question_only``."""
    flags = decision.domainFlags if question_only else decision.all_domain_flags()
    known = [d for d in flags if d in policy.domains]
    if not known:
        return None

    def strictness(name: str) -> tuple:
        dp = policy.domains[name]
        t = dp.thresholds
        return (dp.risk_level.rank, t.min_entailment, t.min_sources, t.min_credibility, t.min_confidence,
                -t.max_contradiction, name)

    return max(known, key=strictness)


@dataclass(frozen=True)
class RequiredSources:
    """How many independent sources a claim needs, and where that number comes from."""

    count: int
    domain: str | None  # the question's riskiest domain; None: the bundle's general thresholds

    @property
    def reason(self) -> str:
        return f"sources_from_question:{self.domain or 'general'}:{self.count}"


def required_sources(decision: ModeDecision, policy: PolicyBundle) -> RequiredSources:
    """Independent sources per claim follow the question's domains (and the bundle), never the evidence's: a domain
    found only in the evidence (ModeDecision.evidenceDomainFlags) raises rigor and strictness, but one document about
    backups that mentions a legal hold is still one source that answers a question about backups. A legal question
    still needs the legal domain's sources, whatever the evidence."""
    domain = riskiest_domain(decision, policy, question_only=True)
    thresholds = policy.domains[domain].thresholds if domain else policy.general_thresholds
    return RequiredSources(thresholds.min_sources, domain)


def thresholds_for(decision: ModeDecision, policy: PolicyBundle) -> tuple[str | None, Thresholds]:
    """The riskiest flagged domain's thresholds (question and evidence domains), with ``min_sources`` from the
    question alone (``required_sources``)."""
    domain = riskiest_domain(decision, policy)
    thresholds = policy.domains[domain].thresholds if domain else policy.general_thresholds
    sources = required_sources(decision, policy).count
    if sources != thresholds.min_sources:
        thresholds = thresholds.model_copy(update={"min_sources": sources})
    return domain, thresholds


# ----------------------------------------------------------------------------------------------------------------
# EBOM confidence semantics
def source_confidence(credibility: float, retrieval_quality: float, freshness: float, verification_status: float) -> float:
    """EBOM: 0.4 credibility + 0.3 retrieval quality + 0.2 temporal freshness + 0.1 verification status."""
    value = 0.4 * credibility + 0.3 * retrieval_quality + 0.2 * freshness + 0.1 * verification_status
    return round(min(1.0, max(0.0, value)), 4)


def sphere_factor(items: Iterable[EvidenceItem]) -> float:
    return LIMINAL_FACTOR if any(item.sphere is Sphere.LIMINAL for item in items) else 1.0


def claim_confidence(source_confidences: Sequence[float], reasoning_validity: float, verification_score: float,
                     sphere: float = 1.0) -> float:
    """EBOM: min(supporting source confidences) x reasoning validity x verification score (x 0.8 if LIMINAL)."""
    if not source_confidences:
        return 0.0
    return round(min(source_confidences) * reasoning_validity * verification_score * sphere, 4)


ACTIONS = (  # EBOM action thresholds, lower bound inclusive
    (0.85, "high_confidence"),
    (0.7, "present_confidently"),
    (0.6, "present_with_warning"),
    (0.5, "present_with_strong_warning"),
    (0.0, "refuse_to_answer"),
)


def action_for(confidence: float) -> str:
    if confidence > 0.85:
        return "high_confidence"
    return next(name for bound, name in ACTIONS[1:] if confidence >= bound)


def interpretation(confidence: float) -> str:
    """EBOM display interpretation map."""
    if confidence >= 0.9:
        return "High confidence"
    if confidence >= 0.7:
        return "Moderate confidence"
    if confidence >= 0.5:
        return "Low confidence - verify independently"
    return "Insufficient confidence - answer refused"


def display_line(confidence: float) -> str | None:
    """EBOM: shown to the user when confidence < 0.8."""
    return f"Confidence: {confidence:.2f}/1.0 - {interpretation(confidence)}" if confidence < 0.8 else None


@dataclass
class ConfidenceReport:
    response_confidence: float | None
    action: str | None
    display: str | None
    minimum: float
    per_claim: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"response_confidence": self.response_confidence, "action": self.action, "display": self.display,
                "domain_minimum": self.minimum, "claims": self.per_claim}


def response_confidence(per_claim: dict[str, float], minimum: float) -> ConfidenceReport:
    """EBOM: the response is as confident as its weakest claim."""
    if not per_claim:
        return ConfidenceReport(None, None, None, minimum, {})
    value = min(per_claim.values())
    return ConfidenceReport(value, action_for(value), display_line(value), minimum, dict(per_claim))
