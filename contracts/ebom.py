"""EbomDocument: one request rendered as the EBOM seed's structured response (``response``, ``metadata``,
``audit_trail``), with the seed's field names.

It is rebuilt from a TraceBundle alone (``controlplane.ebom``), so a stored, exported or imported trace yields the
same document. Fields the seed does not name are added after the seed's own, never instead of them.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import ConfigDict, Field

from ._base import Contract

EBOM_FORMAT = "controlplane.ebom/v1"


class EbomClaimType(str, Enum):
    """EBOM transparency: verified (a passing claim with sources), inferential (a reasoning step) or speculative
    (anything else: labelled opinion, an honest UNKNOWN, or a claim that failed its checks)."""

    VERIFIED = "VERIFIED"
    INFERENTIAL = "INFERENTIAL"
    SPECULATIVE = "SPECULATIVE"


class Validity(str, Enum):
    VALID = "VALID"
    INVALID = "INVALID"
    UNCERTAIN = "UNCERTAIN"


class EbomClaim(Contract):
    id: str = Field(description="Claim id of the final attempt's claim_map.")
    text: str = Field(description="The claim text.")
    type: EbomClaimType = Field(description="VERIFIED, INFERENTIAL or SPECULATIVE.")
    category: str = Field(description="Claim category: FACTUAL, SUBJECTIVE, TRIVIAL, CONSENSUS, REASONING, UNKNOWN.")
    support: list[str] = Field(default_factory=list, description="Source ids the claim rests on (graph support).")
    confidence: float | None = Field(default=None, ge=0, le=1, description="EBOM claim confidence, when computed.")
    verdict: str = Field(description="PASS or FAIL: the gates' verdict on the claim.")
    reason_codes: list[str] = Field(default_factory=list, description="Why it failed (empty when it passed).")
    shown: bool = Field(description="The claim's text is part of the answer the user received.")


class EbomLibrary(Contract):
    name: str = Field(description="Expert library name, e.g. python_stdlib_3_12.")
    version: str = Field(description="Version of the library's content.")
    licence: str | None = Field(default=None, description="Licence of the library's content, e.g. PSF-2.0.")


class EbomSource(Contract):
    id: str = Field(description="Evidence id, e.g. E1.")
    content: str = Field(description="Excerpt of the evidence text (at most 500 characters).")
    url: str | None = Field(default=None, description="Where it came from (URL, file or collection), if known.")
    sphere: str = Field(description="INSIDE, OUTSIDE or LIMINAL.")
    credibility: float = Field(ge=0, le=1, description="Source credibility 0..1.")
    timestamp: str | None = Field(
        default=None, description="Retrieval time, else publication time, else when the request brought the item in "
        "(ISO-8601)."
    )
    title: str | None = Field(default=None, description="Short human title of the item.")
    type: str | None = Field(default=None, description="Evidence type (document, fact, ...).")
    volatility: str | None = Field(default=None, description="HIGH, MEDIUM, LOW or STATIC.")
    hash: str | None = Field(default=None, description="sha256 of the exact evidence text.")
    library: EbomLibrary | None = Field(default=None, description="The expert library the source came from, if any.")


class EbomReasoningStep(Contract):
    step: int = Field(ge=1, description="Position in the chain (premises before conclusions).")
    operation: str = Field(description="entailment, aggregation, contrast, transitive or conditional.")
    inputs: list[str] = Field(default_factory=list, description="Premises: claim ids and/or source ids.")
    intermediate_claim: str = Field(default="", description="The step's conclusion as stated.")
    output: str = Field(description="Claim id of the conclusion.")
    validity: Validity = Field(description="VALID, INVALID or UNCERTAIN.")
    tiers_checked: list[int] = Field(default_factory=list, description="Verification tiers run (1, 2, 3).")
    reason_codes: list[str] = Field(default_factory=list, description="Why the step is not VALID.")


class EbomConflict(Contract):
    claim_id: str | None = Field(default=None, description="Claim the conflict concerns.")
    sources: list[str] = Field(default_factory=list, description="Conflicting source ids.")
    resolution: str | None = Field(default=None, description="favor_higher_credibility, use_current, unresolved.")
    explanation: str = Field(default="")


class EbomMetadata(Contract):
    domain: str = Field(description="Riskiest detected domain, or 'general'.")
    risk_level: str = Field(description="LOW, MEDIUM or HIGH.")
    verification_status: str = Field(
        description="PASSED (every shown sentence verified), PARTIAL (degraded: only verified sentences shown), "
        "REFUSED, UNVERIFIED (shown but not every claim verified) or FAILED (verify: a gate failed)."
    )
    confidence: float | None = Field(default=None, ge=0, le=1, description="Response confidence: weakest claim.")
    timestamp: str = Field(description="When the request was made (the trace's created_at).")
    model_used: str | None = Field(default=None, description="Main model id.")
    verification_method: str = Field(description="How claims were checked: nli (backend), or none.")
    generation_attempts: int = Field(ge=0, description="Model attempts (regenerations included).")
    trace_id: str = Field(description="Trace the document was rebuilt from.")
    status: str | None = Field(default=None, description="Trace status: pass, regen_pass, degraded, refused.")
    graph_metrics: dict[str, Any] = Field(
        default_factory=dict, description="Smart Notes §4.1.3 evidence graph metrics (redundancy, diversity, "
        "support depth, centrality)."
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="Every gate's details.warnings of the final attempt and every trace event's warnings: "
        "staleness, LIMINAL, cross-claim dependency, hallucination phrases ...",
    )


class EbomQueryClassification(Contract):
    detected_domain: str = Field(description="Riskiest detected domain, or 'general'.")
    confidence: float = Field(ge=0, le=1, description="The router's (or selector's) confidence in its decision.")
    keywords_matched: list[str] = Field(default_factory=list, description="Lexicon terms that triggered a domain.")
    domain_flags: list[str] = Field(default_factory=list, description="Every detected domain.")
    mode: str | None = Field(default=None, description="Mode label the answer was produced in.")
    time_sensitive: bool = Field(default=False, description="The router marked the question time-sensitive.")
    realtime_keywords: list[str] = Field(default_factory=list, description="Real-time keywords the question "
                                         "matched (today, latest, as of 2026 ...).")


class EbomSourceRetrieved(Contract):
    source_id: str = Field(description="Evidence id.")
    retrieval_time_ms: float | None = Field(default=None, description="Retrieval latency when it was measured.")
    credibility: float = Field(ge=0, le=1, description="Source credibility 0..1.")
    origin: str = Field(description="caller (given with the request) or retrieval.")
    retrieval_score: float | None = Field(default=None, description="Similarity to the query, for retrieved items.")


class EbomVerificationResult(Contract):
    claim_id: str = Field(description="Claim id.")
    score: float | None = Field(default=None, description="Entailment probability the claim reached, if scored.")
    threshold: float | None = Field(default=None, description="What it needed.")
    result: str = Field(description="PASS or FAIL.")
    method: str = Field(description="nli, verbatim_quote, exempt, unknown_label, reasoning_chain or none.")
    reason_codes: list[str] = Field(default_factory=list, description="Why it failed (empty when it passed).")


class EbomAuditTrail(Contract):
    query_classification: EbomQueryClassification = Field(description="How the request was classified.")
    sources_retrieved: list[EbomSourceRetrieved] = Field(default_factory=list, description="Every source of the pack.")
    verification_results: list[EbomVerificationResult] = Field(default_factory=list, description="Per claim.")
    policy_applied: dict[str, Any] = Field(
        default_factory=dict, description="The bundle (name, version, hash), the thresholds of the riskiest domain, "
        "speculation_allowed, verification_tier and every gate's result on the final attempt."
    )


class EbomResponse(Contract):
    answer: str = Field(description="The answer the user received, inline citations included.")
    claims: list[EbomClaim] = Field(default_factory=list, description="Claims of the final attempt.")
    sources: list[EbomSource] = Field(default_factory=list, description="The evidence pack.")
    reasoning_chain: list[EbomReasoningStep] = Field(default_factory=list, description="REASONING steps, premises "
                                                     "first.")
    speculations: list[dict[str, Any]] = Field(default_factory=list, description="SPECULATIVE claims: id, text, why.")
    conflicts: list[EbomConflict] = Field(default_factory=list, description="Contradicting sources and how they "
                                          "were resolved.")


class EbomDocument(Contract):
    model_config = ConfigDict(
        title="EbomDocument",
        json_schema_extra={
            "description": "One request as the EBOM structured response with audit trail, rebuilt from its trace.",
            "examples": [
                {
                    "format": EBOM_FORMAT,
                    "response": {
                        "answer": "We host on Fly.io [E1].",
                        "claims": [{"id": "c1", "text": "We host on Fly.io [E1].", "type": "VERIFIED",
                                    "category": "FACTUAL", "support": ["E1"], "confidence": 0.87,
                                    "verdict": "PASS", "reason_codes": [], "shown": True}],
                        "sources": [{"id": "E1", "content": "We host on Fly.io.", "url": None, "sphere": "INSIDE",
                                     "credibility": 0.9, "timestamp": "2026-11-23T10:00:00+00:00"}],
                        "reasoning_chain": [],
                        "speculations": [],
                        "conflicts": [],
                    },
                    "metadata": {"domain": "architecture", "risk_level": "MEDIUM", "verification_status": "PASSED",
                                 "confidence": 0.87, "timestamp": "2026-11-23T10:00:00+00:00",
                                 "model_used": "scripted:answers.jsonl", "verification_method": "nli:shipped",
                                 "generation_attempts": 1, "trace_id": "tr_01J9Z7Q4W3", "status": "pass"},
                    "audit_trail": {
                        "query_classification": {"detected_domain": "architecture", "confidence": 0.9,
                                                 "keywords_matched": ["hosting"]},
                        "sources_retrieved": [{"source_id": "E1", "credibility": 0.9, "origin": "caller"}],
                        "verification_results": [{"claim_id": "c1", "score": 0.93, "threshold": 0.26,
                                                  "result": "PASS", "method": "nli"}],
                        "policy_applied": {"min_sources": 1, "min_confidence": 0.23, "speculation_allowed": False},
                    },
                }
            ],
        },
    )

    format: str = Field(default=EBOM_FORMAT, description="Document format version.")
    response: EbomResponse = Field(description="The answer, its claims, sources, reasoning chain, speculations and "
                                   "conflicts.")
    metadata: EbomMetadata = Field(description="Domain, risk, verification status, confidence, model, method.")
    audit_trail: EbomAuditTrail = Field(description="Classification, sources, per-claim results, policy applied.")
