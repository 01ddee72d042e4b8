"""PolicyBundle: everything the code must not decide on its own (DESIGN: "Policy bundles").

Which gates run, when, in which order, with which thresholds; router lexicons; budgets; degrade mode; redaction.
"""

from __future__ import annotations

import hashlib
import json
from enum import Enum
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from ._base import Contract
from .budget import BudgetConfig
from .envelope import ClaimStatus
from .mode import RigorLevel
from .regex_safety import check_patterns


class ConflictPolicy(str, Enum):
    """EBOM contradiction resolution by domain risk."""

    PRESENT_BOTH = "present_both"
    PRESENT_WITH_ANALYSIS = "present_with_analysis"
    REFUSE = "refuse"


class DegradeMode(str, Enum):
    SUPPRESS = "suppress"
    REFUSE = "refuse"


class AnswerMode(str, Enum):
    """How the main model answers (issue 15). A model too small to write verified prose only chooses sentences."""

    ABSTRACTIVE = "abstractive"  # the model writes the envelope (prose and claim_map) under the grammar
    QUOTE = "quote"  # the model chooses evidence sentences or UNKNOWN; the server composes the envelope
    ABSTRACTIVE_THEN_QUOTE = "abstractive_then_quote"  # abstractive; after regen fails, the verified quotes


class EnvelopeFormat(str, Enum):
    """Who writes the OutputEnvelope: the model (JSON under the grammar) or the server, from the model's prose."""

    JSON = "json"
    PROSE = "prose"


class ProsePolicy(Contract):
    """Prose mode (issue 14): how the server attributes each sentence of a plain-text answer to evidence.

    Inline markers the model wrote ([E2]) come first; then CFS-020 §7 n-gram overlap; then the MiniLM embedding
    similarity to the best evidence sentence. Attribution only chooses what a sentence is checked against: the
    gates (evidence binding, NLI entailment ...) still decide whether it is shown."""

    ngram_n: int = Field(default=5, ge=2, le=12, description="Words per n-gram (CFS-020 §7: n = 5).")
    min_overlap_chars: int = Field(
        default=20, ge=0, le=500,
        description="An overlap counts when it is longer than this many characters (CFS-020 §7: > 20).",
    )
    min_similarity: float = Field(
        default=0.4, ge=0, le=1,
        description="MiniLM cosine similarity to the best evidence sentence needed for an embedding attribution; "
        "below it the sentence stays uncited (and is never shown).",
    )
    max_evidence_per_sentence: int = Field(default=3, ge=1, le=10, description="Ids one sentence is attributed to.")
    insert_markers: bool = Field(
        default=True,
        description="Write the attributed ids as inline markers ([E2]) after each sentence that had none, so the "
        "reader sees the attribution (grounded-generation contract §3) and strict rigor's marker rule holds.",
    )


class ReverifyPolicy(Contract):
    """Re-verification of user edits (grounded-generation contract §7.2)."""

    unsupported_edits: str = Field(
        default="block", pattern="^(block|flag)$",
        description="block: an edit with a failing sentence is not finalised, the failing sentences are suppressed "
        "from the returned text; flag: the whole edit is returned with each failing sentence marked unsupported.",
    )


class QuotePolicy(Contract):
    """Quote-grounded answering: which evidence sentences the model may choose among, and who decides answerability."""

    sentences_per_item: int = Field(
        default=3, ge=1, le=20,
        description="Sentences offered per evidence id, best first by relevance to the question."
    )
    max_candidates: int = Field(default=6, ge=1, le=40, description="Sentences offered in all (over every id).")
    choice_by: str = Field(
        default="number", pattern="^(number|verbatim)$",
        description="The model names a sentence by its number, or copies it verbatim (both grammar-constrained).",
    )
    max_sentences: int = Field(default=1, ge=1, le=5, description="Sentences one answer may quote.")
    answerability: str = Field(
        default="scorer", pattern="^(scorer|model|both)$",
        description="Who decides whether any sentence answers: the trained answerability scorer (no model call), "
        "the model (offered every candidate and UNKNOWN), or both (the scorer filters, the model chooses).",
    )
    min_answerability: float | None = Field(
        default=None, ge=0, le=1,
        description="Scorer probability a sentence needs to be offered as an answer (None: the scorer's own "
        "dev-tuned threshold).",
    )
    closest_passages: int = Field(
        default=2, ge=0, le=5, description="Closest passages quoted (verified, cited) when the answer is UNKNOWN."
    )
    statement_questions: list[str] = Field(
        default_factory=list,
        description="Regexes (case-insensitive) of questions that ask what the evidence says about a topic ('What "
        "does ADR-011 say about X?'): any on-topic sentence answers them, so the best sentences by relevance are "
        "quoted (up to statement_sentences, at least min_relevance) instead of asking the factoid answerability "
        "scorer, which was trained on questions with one answer.",
    )
    statement_sentences: int = Field(default=2, ge=1, le=5, description="Sentences quoted for a statement question.")
    split_questions: bool = Field(
        default=True,
        description="With the scorer deciding, a question that asks several things ('What database do we use and "
        "where is it hosted?') is cut into its parts, each answered or said to be unanswered on its own "
        "(controlplane/question_parts.py).",
    )
    min_relevance: float = Field(
        default=0.25, ge=0, le=1,
        description="MiniLM cosine similarity a sentence needs to be quoted for a statement question.",
    )


class Thresholds(Contract):
    """EBOM verification thresholds (general / medium / high stakes)."""

    min_entailment: float = Field(default=0.6, ge=0, le=1, description="P(entailed) a claim needs.")
    max_contradiction: float = Field(default=0.7, ge=0, le=1, description="P(contradicted) that rejects a claim.")
    min_sources: int = Field(default=1, ge=0, description="Independent sources a factual claim needs.")
    min_credibility: float = Field(default=0.4, ge=0, le=1, description="Lowest credibility a source may have.")
    min_confidence: float = Field(default=0.6, ge=0, le=1, description="Lowest response confidence to present.")
    min_similarity: float = Field(default=0.6, ge=0, le=1, description="Retrieval similarity floor.")


class DomainPolicy(Contract):
    risk_level: RigorLevel = Field(description="low, medium or high stakes.")
    mode: str | None = Field(default=None, description="Mode label this domain routes to (None: router default).")
    requires_retrieval: bool = Field(default=False, description="Evidence must come from retrieval if none given.")
    thresholds: Thresholds = Field(default_factory=Thresholds)
    conflict_policy: ConflictPolicy = Field(default=ConflictPolicy.PRESENT_BOTH)
    lexicon: list[str] = Field(
        default_factory=list,
        description="Trigger terms (case-insensitive, whole words; a trailing * matches any word ending).",
    )
    lexicon_exceptions: list[str] = Field(
        default_factory=list,
        description="Words that a lexicon term would catch but that are not this domain's ('secretary' for "
        "'secret*'), in the lexicon's syntax: a term found only in such words does not count.",
    )

    @field_validator("lexicon", "lexicon_exceptions")
    @classmethod
    def _terms_with_a_word(cls, terms: list[str]) -> list[str]:
        # A term with no letter or digit of its own ("", "*", "?") matches everywhere: as a trigger it would make
        # every request this domain's, and as an exception it would mask every word, so the domain never triggers.
        for term in terms:
            if not any(c.isalnum() for c in term.replace("*", "").replace("?", "")):
                raise ValueError(f"lexicon term {term!r} has no letter or digit: write the word it stands for "
                                 "(a trailing * matches any ending, ? one letter)")
        return terms


class RouterPolicy(Contract):
    version: str = Field(default="router-v1", description="Recorded on every ModeDecision.")
    default_mode: str = Field(description="Mode for requests with no stronger signal.")
    strict_mode: str = Field(description="Mode forced by high-rigor triggers.")
    explicit_modes: dict[str, list[str]] = Field(
        default_factory=dict, description="Mode label -> phrases that request it explicitly (e.g. 'system-mode')."
    )
    evasion_patterns: list[str] = Field(
        default_factory=list,
        description="Regexes of framings that try to lower rigor ('asking for a friend'); they never lower it and "
        "count as a risk signal.",
    )
    retrieval_triggers: list[str] = Field(
        default_factory=list, description="Regexes meaning the answer must come from the document store."
    )
    selector_threshold: float = Field(
        default=0.6, ge=0, le=1, description="Below this router confidence the step-2 selector is consulted."
    )
    follow_ups: bool = Field(
        default=True,
        description="Read a follow-up ('And for Enterprise plan keys?', 'Are they encrypted?') with the user's "
        "previous question, so retrieval, the router and the answer modes read a question that stands on its own "
        "(controlplane/follow_ups.py; the trace records the message and its reading). False: read the last user "
        "message alone.",
    )
    disagreement_penalty: float = Field(
        default=0.25, ge=0, le=1, description="Confidence removed when the selector contradicts router signals."
    )
    evidence_domains: list[str] = Field(
        default_factory=list,
        description="Domains whose lexicon is also matched against the evidence text: when the evidence is high "
        "stakes (medical, legal, finance), rigor follows the evidence too, not only the message.",
    )
    evidence_min_terms: int = Field(
        default=2, ge=1,
        description="Distinct lexicon terms of an evidence domain the evidence must contain before rigor follows it "
        "(one passing mention, a project's 'budget', is not a finance document).",
    )

    realtime_keywords: list[str] = Field(
        default_factory=list,
        description="EBOM real-time query handling: regexes (case-insensitive) of the detection keywords (today, now, "
        "current, latest, right now, as of 2026). A match sets ModeDecision.timeSensitiveQuery.",
    )

    @field_validator("evasion_patterns", "retrieval_triggers", "realtime_keywords")
    @classmethod
    def _vetted_patterns(cls, patterns: list[str]) -> list[str]:
        return check_patterns(patterns)


class WhenCondition(Contract):
    """When a gate runs. Every field that is set must hold; any_of holds if one of its conditions holds.

    A condition must say something: ``{}`` (or an empty list) would never hold and silently switch the gate off, so
    both are refused (``enabled: false`` or ``always: false`` say it openly).
    """

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    always: bool | None = Field(default=None, description="Run unconditionally.")
    domain_flags_any: list[str] | None = Field(default=None, description="Run if any of these flags is set.")
    domain_flags_none: list[str] | None = Field(default=None, description="Skip if any of these flags is set.")
    rigor_at_least: RigorLevel | None = Field(default=None, description="Run at or above this rigor.")
    confidence_below: float | None = Field(default=None, description="Run if router confidence is below this.")
    unknown_ratio_at_least: float | None = Field(
        default=None, description="Run if this share of claims (or more) is UNKNOWN."
    )
    citation_density_below: float | None = Field(
        default=None,
        description="Run if the share of sentences carrying a cited claim is below this (evidence binding only "
        "barely passing by density).",
    )
    message_matches_any: list[str] | None = Field(
        default=None,
        description="Run if the user message matches any of these regexes (e.g. a consequential action: pay, "
        "sign, delete, deploy).",
    )
    any_of: list[WhenCondition] | None = Field(default=None, description="Alternatives; one must hold.")

    @field_validator("message_matches_any")
    @classmethod
    def _vetted_patterns(cls, patterns: list[str] | None) -> list[str] | None:
        return check_patterns(patterns)

    @model_validator(mode="after")
    def _says_something(self) -> WhenCondition:
        given = {name: getattr(self, name) for name in type(self).model_fields if getattr(self, name) is not None}
        if not given:
            raise ValueError("an empty when-condition never holds and would silently disable the gate; say when it "
                             "runs, e.g. {\"always\": true}, or set \"enabled\": false")
        empty = sorted(name for name, value in given.items() if isinstance(value, list) and not value)
        if empty:
            raise ValueError(f"{empty[0]} is an empty list, which never holds; name at least one entry or drop it")
        return self


class GateSpec(Contract):
    gate_id: str = Field(description="Registered gate id.")
    enabled: bool = Field(default=True)
    when: WhenCondition = Field(default_factory=lambda: WhenCondition(always=True))
    params: dict[str, Any] = Field(default_factory=dict, description="Gate-specific parameters.")


class DegradePolicy(Contract):
    mode: DegradeMode = Field(default=DegradeMode.SUPPRESS, description="Default degrade mode.")
    by_rigor: dict[RigorLevel, DegradeMode] = Field(
        default_factory=dict, description="Override per rigor level (e.g. high -> refuse)."
    )


class RedactionPolicy(Contract):
    emails: bool = Field(default=True)
    phone_numbers: bool = Field(default=True)
    secrets: bool = Field(default=True, description="API keys, tokens, private key blocks.")
    custom_patterns: list[str] = Field(default_factory=list, description="Extra regexes to redact.")
    evidence_text: Literal["keep", "hash_snippet"] = Field(
        default="hash_snippet", description="'keep' or 'hash_snippet' (text replaced by its hash and a snippet)."
    )
    snippet_chars: int = Field(default=80, ge=0)

    @field_validator("custom_patterns")
    @classmethod
    def _vetted_patterns(cls, patterns: list[str]) -> list[str]:
        return check_patterns(patterns)


class CitationPolicy(Contract):
    exempt_statuses: dict[RigorLevel, list[ClaimStatus]] = Field(
        default_factory=dict,
        description="Claim statuses that need no evidence ids, per rigor. UNKNOWN is always exempt.",
    )
    inline_markers_required: dict[RigorLevel, bool] = Field(
        default_factory=dict, description="Every cited claim must carry an inline [Ex] marker (strict mode)."
    )
    rewrite_exempt_domains: list[str] = Field(
        default_factory=list,
        description="Domain flags under which a sentence no claim covers may be shown: the rewrite flow, where the "
        "text is the user's own. The router keeps such a flag only when no evidence was given; the answer is then "
        "never 'verified' and the reply says it was not checked.",
    )


CLAIM_TYPES = ("DEFINITIONAL", "EQUATION", "NUMERIC", "CONCEPTUAL", "THEOREM", "PROOF_STEP", "CLASSIFICATION",
               "ALGORITHMIC", "COMPLEXITY", "CORRECTNESS", "PSEUDOCODE")
EVIDENCE_TYPES = ("measurement", "equation", "definition", "proof", "theorem", "pseudocode", "complexity")


class DomainProfile(Contract):
    """Smart Notes §2.3.1 DomainProfile: the epistemological norms of one domain, checked by the domain-profile
    gates at the seed's three hooks (pre-verification, evidence matching, post-verification). A profile applies when
    its name is one of the request's domain flags."""

    name: str = Field(description="Profile name, equal to the domain flag it serves: physics, discrete_math, ...")
    display_name: str = Field(default="", description="Human-readable name.")
    allowed_claim_types: list[str] = Field(
        default_factory=list, description=f"Claim types this domain accepts; one of {', '.join(CLAIM_TYPES)}."
    )
    evidence_type_expectations: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Claim type -> evidence types of which the cited evidence must hold at least one "
        f"({', '.join(EVIDENCE_TYPES)}).",
    )
    require_units: bool = Field(default=False, description="Numbers in claims carry units (physics).")
    require_proof_steps: bool = Field(
        default=False, description="Theorem claims cite evidence with proof steps or a named standard result (math)."
    )
    require_pseudocode: bool = Field(default=False, description="Algorithmic claims cite pseudocode or code (CS).")
    require_equations: bool = Field(
        default=False, description="Equation claims cite evidence holding a formula, and the equation must parse."
    )
    strict_dependencies: bool = Field(
        default=False,
        description="Enforce term definition order: a claim using a term a later claim defines is downgraded to "
        "LOW_CONFIDENCE (confidence <= 0.65) instead of only warned about.",
    )
    out_of_scope_terms: list[str] = Field(
        default_factory=list,
        description="Terms (case-insensitive, whole words, trailing * for any ending) outside the profile's scope; "
        "a claim using one fails PROFILE_OUT_OF_SCOPE (Smart Notes threat model: the intro-physics profile rejects "
        "quantum mechanics claims).",
    )

    @field_validator("allowed_claim_types")
    @classmethod
    def _known_claim_types(cls, types: list[str]) -> list[str]:
        unknown = sorted(set(types) - set(CLAIM_TYPES))
        if unknown:
            raise ValueError(f"unknown claim type(s) {', '.join(unknown)}; use {', '.join(CLAIM_TYPES)}")
        return types

    @field_validator("evidence_type_expectations")
    @classmethod
    def _known_evidence_types(cls, expectations: dict[str, list[str]]) -> dict[str, list[str]]:
        for claim_type, kinds in expectations.items():
            if claim_type not in CLAIM_TYPES:
                raise ValueError(f"unknown claim type {claim_type!r}; use {', '.join(CLAIM_TYPES)}")
            unknown = sorted(set(kinds) - set(EVIDENCE_TYPES))
            if unknown or not kinds:
                raise ValueError(f"evidence types for {claim_type} must be a non-empty list of "
                                 f"{', '.join(EVIDENCE_TYPES)}")
        return expectations


class PolicyBundle(Contract):
    model_config = ConfigDict(
        title="PolicyBundle",
        json_schema_extra={
            "description": "A versioned, content-hashed policy: router lexicons, domains and thresholds, the gate "
            "list with when-conditions and order, budgets, degrade mode and redaction.",
            "examples": [
                {
                    "name": "default",
                    "version": "1.0.0",
                    "description": "Minimal example.",
                    "modes": {"Ida": "conversational", "System": "evidence-bound"},
                    "router": {"default_mode": "Ida", "strict_mode": "System"},
                    "domains": {"legal": {"risk_level": "high", "lexicon": ["statute", "llc"]}},
                    "gates": [{"gate_id": "output_schema", "when": {"always": True}}],
                }
            ],
        },
    )

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$", description="Bundle name; one promoted per name.")
    version: str = Field(description="Version of this bundle (semver recommended).")
    description: str = Field(default="")
    modes: dict[str, str] = Field(description="Mode label -> what it means.")
    router: RouterPolicy
    domains: dict[str, DomainPolicy] = Field(default_factory=dict)
    gates: list[GateSpec] = Field(min_length=1, description="Gates in execution order (at least one enabled).")
    citations: CitationPolicy = Field(default_factory=CitationPolicy)
    budgets: BudgetConfig = Field(default_factory=BudgetConfig)
    degrade: DegradePolicy = Field(default_factory=DegradePolicy)
    redaction: RedactionPolicy = Field(default_factory=RedactionPolicy)
    general_thresholds: Thresholds = Field(default_factory=Thresholds, description="Thresholds with no domain.")
    answer_mode: AnswerMode = Field(default=AnswerMode.ABSTRACTIVE, description="How the main model answers.")
    answer_mode_by_model: dict[str, AnswerMode] = Field(
        default_factory=dict,
        description="Model id -> answer mode, overriding answer_mode for that model (e.g. the small embedded models "
        "answer in quote mode).",
    )
    quote: QuotePolicy = Field(default_factory=QuotePolicy, description="Settings of the quote answer modes.")
    domain_profiles: dict[str, DomainProfile] = Field(
        default_factory=dict,
        description="Smart Notes domain profiles by domain flag (physics, discrete_math, algorithms).",
    )
    envelope: EnvelopeFormat = Field(
        default=EnvelopeFormat.JSON,
        description="json: the model writes the OutputEnvelope; prose: the model answers in plain text and the "
        "server builds the envelope (claim_map, citations, spans) by attribution (issue 14).",
    )
    prose: ProsePolicy = Field(default_factory=ProsePolicy, description="Settings of prose mode.")
    reverify: ReverifyPolicy = Field(default_factory=ReverifyPolicy, description="Re-verification of user edits.")

    @model_validator(mode="after")
    def _gates_can_check_something(self) -> PolicyBundle:
        if not any(spec.enabled for spec in self.gates):
            raise ValueError("no gate is enabled: a bundle without gates would pass anything; enable at least one")
        for index, spec in enumerate(self.gates):
            for flag in sorted(_flags_named(spec.when) - set(self.domains)):
                raise ValueError(f"gates[{index}] ({spec.gate_id}): when names domain flag {flag!r}, which is not a "
                                 f"domain of this bundle ({', '.join(sorted(self.domains)) or 'none'}); a misspelt "
                                 "flag never matches")
        for key, profile in self.domain_profiles.items():
            if profile.name != key:
                raise ValueError(f"domain_profiles.{key}: name is {profile.name!r}; it must equal its key")
            if key not in self.domains:
                raise ValueError(f"domain_profiles.{key}: {key!r} is not a domain of this bundle; a profile applies "
                                 "through its domain flag, so add the domain (with a lexicon) or drop the profile")
        return self


def _flags_named(when: WhenCondition) -> set[str]:
    flags = set(when.domain_flags_any or []) | set(when.domain_flags_none or [])
    for alternative in when.any_of or []:
        flags |= _flags_named(alternative)
    return flags


# -- the bundle's identity: the hash every trace records (PolicyRef.hash), defined with the contract so the trace
# store can check a recorded policy without the policy layer above it
def canonical_content(bundle: PolicyBundle) -> dict[str, Any]:
    return bundle.model_dump(mode="json", exclude_none=True)


def canonical_json(bundle: PolicyBundle) -> str:
    return json.dumps(canonical_content(bundle), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def bundle_hash(bundle: PolicyBundle) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(bundle).encode("utf-8")).hexdigest()
