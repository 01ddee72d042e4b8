"""ModeDecision: what the routing ladder decided about a request (control-plane seed §3.1)."""

from __future__ import annotations

from enum import Enum

from pydantic import ConfigDict, Field

from ._base import Contract


class RigorLevel(str, Enum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        return {"low": 0, "medium": 1, "high": 2}[self.value]


class RigorConfig(Contract):
    """How strictly the gates treat this request; derived from the riskiest domain flag."""

    level: RigorLevel = Field(description="Risk level of the riskiest detected domain.", examples=["high"])
    strict_sentences: bool = Field(
        default=False,
        description="Seed §6 strict mode, recorded as the router decides it (medium rigor and up). The gates no "
        "longer read it: every sentence must be covered by a claim anchor in every rigor (grounded generation G-1).",
    )
    require_citations: bool = Field(
        default=True, description="Factual claims must cite evidence ids or be labelled UNKNOWN."
    )
    nli_required: bool = Field(
        default=False,
        description="Entailment must be checked by an NLI backend; similarity alone never passes (EBOM high stakes).",
    )


class ModeDecision(Contract):
    """The routing ladder's decision (deterministic router, optionally refined by the selector)."""

    model_config = ConfigDict(
        title="ModeDecision",
        json_schema_extra={
            "description": "Decision of the routing ladder for one request: the mode the main model must echo, the "
            "detected domains, how strict the gates are, and how sure the router is.",
            "examples": [
                {
                    "modeLabel": "System",
                    "domainFlags": ["legal", "finance"],
                    "rigorConfig": {
                        "level": "high",
                        "strict_sentences": True,
                        "require_citations": True,
                        "nli_required": True,
                    },
                    "clusterIds": ["high_rigor"],
                    "checkpointNeeded": False,
                    "confidence": 0.92,
                    "reasons": ["trigger:legal:llc", "trigger:finance:tax"],
                    "version": "router-v1",
                    "mixedIntent": False,
                    "selectorUsed": False,
                }
            ],
        },
    )

    modeLabel: str = Field(description="Mode the answer is produced in; the envelope must echo it.", examples=["Ida"])
    domainFlags: list[str] = Field(
        default_factory=list,
        description="Detected domains, e.g. legal, finance, medical, security_code, architecture, governance, "
        "writing, requires_retrieval.",
        examples=[["architecture"]],
    )
    rigorConfig: RigorConfig = Field(description="Strictness the gates apply.")
    clusterIds: list[str] = Field(default_factory=list, description="Policy clusters this request falls into.")
    checkpointNeeded: bool = Field(
        default=False, description="A human checkpoint is advised before acting on the answer."
    )
    confidence: float = Field(ge=0.0, le=1.0, description="Calibrated confidence of the decision, 0..1.")
    reasons: list[str] = Field(default_factory=list, description="Machine-readable reasons, e.g. trigger:legal:llc.")
    version: str = Field(description="Version of the router/selector that produced the decision.")
    mixedIntent: bool = Field(default=False, description="Signals of more than one mode were present.")
    selectorUsed: bool = Field(default=False, description="The step-2 selector model was consulted.")
    timeSensitiveQuery: bool = Field(
        default=False,
        description="EBOM real-time query handling: the message holds a detection keyword (router.realtime_keywords: "
        "today, now, current, latest, right now, as of 2026 ...). Evidence older than an hour (or its volatility's "
        "lifetime) is re-retrieved or marked stale, and the reply carries the retrieval timestamp.",
    )
    realtimeKeywords: list[str] = Field(
        default_factory=list, description="The detection keywords found in the message, as written (lower-cased)."
    )
    evidenceDomainFlags: list[str] = Field(
        default_factory=list,
        description="Domains the evidence is about (router.evidence_domains matched in the retrieved or given "
        "evidence), apart from the question's own domainFlags. They raise rigor and the gates' strictness; the number "
        "of independent sources a claim needs comes from the question's domains only (a legal word inside a "
        "retention policy does not make a question about backups need two sources).",
        examples=[["legal"]],
    )

    def all_domain_flags(self) -> list[str]:
        """The question's domains, then those only the evidence brought: what rigor and strictness follow."""
        return list(dict.fromkeys([*self.domainFlags, *self.evidenceDomainFlags]))
