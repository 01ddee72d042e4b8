"""EvidenceItem, EvidencePack and AtomicFact: the only facts the model may treat as true (seed §4)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, Literal

from pydantic import ConfigDict, Field

from ._base import Contract
from .errors import ConfigurationError

# ASCII-only ids: a homoglyph ("Е1" with a Cyrillic Е) or a zero-width character can never name real evidence.
EVIDENCE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
HASH_PATTERN = r"^sha256:[0-9a-f]{64}$"


class Sphere(str, Enum):
    INSIDE = "INSIDE"
    OUTSIDE = "OUTSIDE"
    LIMINAL = "LIMINAL"


class TrustTier(str, Enum):
    AUTHORITATIVE = "authoritative"
    ESTABLISHED = "established"
    GENERAL = "general"
    LOW = "low"
    UNRELIABLE = "unreliable"


class Volatility(str, Enum):
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"
    STATIC = "STATIC"


class Provenance(Contract):
    """Where an evidence item came from (grounded-generation seed: source_span)."""

    source: str | None = Field(default=None, description="Origin: caller, a file path, a URL, a collection name.")
    document_id: str | None = Field(default=None, description="Identifier of the source document.")
    page: int | None = Field(default=None, ge=0, description="Page number for paged documents.")
    start_char: int | None = Field(default=None, ge=0, description="Start offset of the quote in the document.")
    end_char: int | None = Field(default=None, ge=0, description="End offset (exclusive) of the quote.")
    quote: str | None = Field(default=None, description="Verbatim quote the item was taken from.")
    retrieved_at: str | None = Field(default=None, description="ISO-8601 time the item was retrieved.")
    published_at: str | None = Field(default=None, description="ISO-8601 date the source was published.")
    indexed_at: str | None = Field(
        default=None,
        description="ISO-8601 time the content was captured into the local vector index: the cache age of a retrieved "
        "item (EBOM staleness), where retrieved_at is only the time of the query.",
    )
    index: str | None = Field(
        default=None, description="The vector index collection a retrieved item came from, e.g. chroma:docs."
    )
    state_root: str | None = Field(
        default=None,
        description="sha256 of the index state (every chunk id, text and metadata of the collection) at retrieval "
        "(CFS-020 ContextMetadata.state_root); a replay compares it with the index as it is now.",
    )


class RetrievalMatch(Contract):
    """How hybrid retrieval found an item: its fused score and the lexical half's part (issue 15). The item's
    ``retrieval_score`` stays the cosine similarity."""

    method: Literal["weighted", "rrf"] = Field(description="How the dense and lexical scores were fused.")
    fused_score: float = Field(description="The score the retrieved items were ordered by (higher first).")
    bm25: float = Field(ge=0.0, description="BM25 score of the chunk for the query (0: no query word in it).")
    query_coverage: float = Field(
        ge=0.0, le=1.0, description="IDF-weighted share of the query's terms that occur in the chunk."
    )
    lexical_rank: int | None = Field(
        default=None, ge=1, description="Rank among the lexical (BM25) candidates, 1 = best; null when not among them."
    )
    dense_rank: int | None = Field(
        default=None, ge=1, description="Rank among the dense (cosine) candidates, 1 = best; null when not among them."
    )


class EvidenceItem(Contract):
    """One hashed piece of evidence with id, trust, sphere and provenance."""

    model_config = ConfigDict(
        title="EvidenceItem",
        json_schema_extra={
            "description": "One piece of evidence the model may cite by id.",
            "examples": [
                {
                    "id": "E1",
                    "type": "CFB",
                    "title": "Stack facts",
                    "text": "We host on Fly.io. DB is Turso (SQLite).",
                    "hash": "sha256:" + "0" * 64,
                    "trust_tier": "authoritative",
                    "sphere": "INSIDE",
                    "provenance": {"source": "caller"},
                    "credibility": 0.95,
                    "volatility": "LOW",
                }
            ],
        },
    )

    id: str = Field(pattern=EVIDENCE_ID_PATTERN, description="Evidence id the model cites, e.g. E1.")
    type: str = Field(
        default="CFB",
        description="Kind of evidence: CFB (caller fact block), RETRIEVAL_SNIPPET, MANUAL_FACT, PDF_FACT, DOCUMENT.",
    )
    title: str | None = Field(default=None, description="Short human title.")
    text: str = Field(description="The evidence text itself (may be a redaction snippet in an exported bundle).")
    hash: str = Field(pattern=HASH_PATTERN, description="sha256 of the exact text, prefixed sha256:.")
    trust_tier: TrustTier = Field(default=TrustTier.GENERAL, description="Coarse trust tier of the source.")
    sphere: Sphere = Field(default=Sphere.INSIDE, description="INSIDE (user data), OUTSIDE (world), LIMINAL.")
    provenance: Provenance = Field(default_factory=Provenance, description="Where the item came from.")
    credibility: float = Field(default=0.6, ge=0.0, le=1.0, description="Source credibility 0..1 (EBOM).")
    volatility: Volatility = Field(default=Volatility.LOW, description="How fast the content goes stale.")
    retrieval_score: float | None = Field(default=None, description="Similarity score when retrieved.")
    qualifiers: dict[str, Any] = Field(
        default_factory=dict, description="Population, setting, timeframe, method, units the fact carries."
    )
    liminal_reason: str | None = Field(default=None, description="Why the item is LIMINAL, when it is.")
    redacted: bool = Field(default=False, description="Text was replaced by a snippet on export; hash is original.")
    library: LibraryRef | None = Field(
        default=None,
        description="Expert library provenance: set when the item came from a curated library, which is queried "
        "before general retrieval and merged ahead of it.",
    )
    retrieval_match: RetrievalMatch | None = Field(
        default=None,
        description="Hybrid retrieval's fused and lexical scores, when the item was retrieved that way.",
    )


def meets_retrieval_floor(item: EvidenceItem, min_score: float, lexical_pass: Mapping[str, Any] | None = None
                          ) -> tuple[bool, str]:
    """Whether a retrieved item is kept under the bundle's retrieval floor, and why (``cosine``, ``lexical_pass``,
    or ``below_floor``).

    The floor is on the cosine. ``lexical_pass`` (the retrieval_required gate's parameter of that name) lets a strong
    lexical match through below it: one of the ``max_lexical_rank`` (default 1) best BM25 matches that holds
    ``min_query_coverage`` of the query's terms (IDF-weighted share, see RetrievalMatch) and still reaches a lower
    cosine floor ``min_score``."""
    score = item.retrieval_score or 0.0
    if score >= min_score:
        return True, "cosine"
    rule = lexical_pass_rule(lexical_pass)
    match = item.retrieval_match
    if rule is not None and match is not None and match.lexical_rank is not None \
            and match.lexical_rank <= rule[2] and match.query_coverage >= rule[0] and score >= rule[1]:
        return True, "lexical_pass"
    return False, "below_floor"


def lexical_pass_rule(lexical_pass: Mapping[str, Any] | None) -> tuple[float, float, int] | None:
    """``(min_query_coverage, min_score, max_lexical_rank)`` of a ``lexical_pass`` setting (None or {} when it is off);
    a malformed one is a ConfigurationError that says what to write, never a silent pass."""
    if not lexical_pass:
        return None
    try:
        coverage, floor = float(lexical_pass["min_query_coverage"]), float(lexical_pass["min_score"])
        rank = int(lexical_pass.get("max_lexical_rank", 1))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ConfigurationError(
            f"retrieval_required lexical_pass {lexical_pass!r} is malformed; write "
            '{"min_query_coverage": 0..1, "min_score": COSINE, "max_lexical_rank": N (default 1)}, or null to turn '
            "it off"
        ) from None
    if not 0.0 <= coverage <= 1.0 or rank < 1:
        raise ConfigurationError(f"lexical_pass needs min_query_coverage in [0, 1] and max_lexical_rank >= 1 "
                                 f"(got {coverage}, {rank})")
    return coverage, floor, rank


class LibraryRef(Contract):
    """The expert library an evidence item came from (EBOM "Domain-Specific Expert Libraries")."""

    name: str = Field(description="Library name, e.g. python_stdlib_3_12.")
    version: str = Field(description="Version of the library's content, e.g. 3.12.0.")
    domain: str = Field(description="Policy domain the library serves, e.g. coding.")
    licence: str | None = Field(default=None, description="Licence of the library's content, e.g. PSF-2.0.")


class EvidenceRules(Contract):
    """Rules the gates enforce for this pack (seed §4.1)."""

    must_cite_for_factual_claims: bool = Field(default=True, description="Factual claims need evidence ids.")
    allowed_evidence_ids: list[str] = Field(default_factory=list, description="The only ids a claim may cite.")
    unknown_label_required: bool = Field(
        default=True, description="A claim without evidence must carry status UNKNOWN."
    )


class EvidencePack(Contract):
    """The evidence assembled for one request, within a token budget, in deterministic order."""

    model_config = ConfigDict(
        title="EvidencePack",
        json_schema_extra={
            "description": "All evidence for one request plus the citation rules the gates enforce.",
            "examples": [
                {
                    "evidence": [
                        {
                            "id": "E1",
                            "type": "CFB",
                            "title": "Stack facts",
                            "text": "We host on Fly.io.",
                            "hash": "sha256:" + "0" * 64,
                            "trust_tier": "authoritative",
                            "sphere": "INSIDE",
                        }
                    ],
                    "rules": {
                        "must_cite_for_factual_claims": True,
                        "allowed_evidence_ids": ["E1"],
                        "unknown_label_required": True,
                    },
                    "truncated": False,
                    "token_count": 5,
                    "token_budget": 2000,
                }
            ],
        },
    )

    evidence: list[EvidenceItem] = Field(default_factory=list, description="Evidence items in citation order.")
    rules: EvidenceRules = Field(default_factory=EvidenceRules, description="Citation rules for this pack.")
    truncated: bool = Field(default=False, description="Some evidence was dropped to fit the token budget.")
    dropped_ids: list[str] = Field(default_factory=list, description="Ids left out because of the budget.")
    token_count: int = Field(default=0, ge=0, description="Estimated tokens of the evidence text kept.")
    token_budget: int | None = Field(default=None, ge=0, description="Budget the pack was assembled within.")

    def ids(self) -> list[str]:
        return [item.id for item in self.evidence]

    def get(self, evidence_id: str) -> EvidenceItem | None:
        return next((item for item in self.evidence if item.id == evidence_id), None)

    def by_id(self) -> dict[str, EvidenceItem]:
        """Id -> item, as ``get`` finds them (the first item of an id), for a reader that looks up every claim's
        citations: one pass over the pack instead of one per citation. Built fresh on each call (never stale)."""
        index: dict[str, EvidenceItem] = {}
        for item in self.evidence:
            index.setdefault(item.id, item)
        return index


class SourceType(str, Enum):
    PDF = "PDF"
    MANUAL = "MANUAL"


class SourceSpan(Contract):
    document_id: str = Field(description="Document the fact was taken from ('manual' for user-entered facts).")
    page: int | None = Field(default=None)
    start_char: int | None = Field(default=None, ge=0)
    end_char: int | None = Field(default=None, ge=0)
    quote: str | None = Field(default=None)


class AtomicFact(Contract):
    """The grounded-generation seed's AtomicFact; MANUAL facts are first-class evidence."""

    model_config = ConfigDict(
        title="AtomicFact",
        json_schema_extra={
            "description": "Smallest indivisible fact with provenance and qualifiers.",
            "examples": [
                {
                    "id": "FACT_012",
                    "content": "Treatment X reduced symptom severity in adults over 65 in a 12-week trial.",
                    "source_type": "MANUAL",
                    "source_span": {"document_id": "manual"},
                    "qualifiers": {"population": "adults over 65", "timeframe": "12 weeks"},
                    "confidence": 0.9,
                }
            ],
        },
    )

    id: str = Field(pattern=EVIDENCE_ID_PATTERN, description="Fact id, cited like an evidence id.")
    content: str = Field(min_length=1, description="The fact.")
    source_type: SourceType = Field(description="PDF or MANUAL.")
    source_span: SourceSpan = Field(description="Where the fact was taken from.")
    qualifiers: dict[str, Any] = Field(default_factory=dict, description="Population, setting, timeframe, ...")
    confidence: float = Field(default=1.0, ge=0.0, le=1.0, description="Confidence in the fact's extraction.")
