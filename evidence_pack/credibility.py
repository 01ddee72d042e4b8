"""Source credibility (EBOM "Source Credibility Scoring"): domain-authority tiers and publication-type weights.

``estimate_credibility`` scores an item that arrived without an explicit credibility: from its trust tier, the
domain of its source URL and its publication type. With nothing but the default tier it returns exactly the tier's
default (so packs built before this module keep their scores). Imports only controlplane.contracts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from controlplane.contracts import TrustTier

# EBOM domain-authority tiers (score ranges) and the point score used for each.
TIER_RANGES = {
    TrustTier.AUTHORITATIVE: (0.9, 1.0),
    TrustTier.ESTABLISHED: (0.7, 0.9),
    TrustTier.GENERAL: (0.5, 0.7),
    TrustTier.LOW: (0.2, 0.5),
    TrustTier.UNRELIABLE: (0.0, 0.2),
}
TRUST_TIER_CREDIBILITY = {
    TrustTier.AUTHORITATIVE: 0.95,
    TrustTier.ESTABLISHED: 0.8,
    TrustTier.GENERAL: 0.6,
    TrustTier.LOW: 0.35,
    TrustTier.UNRELIABLE: 0.1,
}
# EBOM publication-type weighting.
PUBLICATION_TYPES = {
    "primary_research": 1.0,
    "systematic_review": 1.0,
    "official_documentation": 0.95,
    "expert_consensus": 0.9,
    "technical_manual": 0.85,
    "expert_opinion": 0.7,
    "technical_blog": 0.6,
    "forum_answer": 0.4,
    "social_media": 0.2,
}
# Host suffixes -> tier. Longest match wins; a TLD entry starts with a dot.
HOST_TIERS: dict[str, TrustTier] = {
    ".gov": TrustTier.AUTHORITATIVE, ".gov.uk": TrustTier.AUTHORITATIVE, ".mil": TrustTier.AUTHORITATIVE,
    ".edu": TrustTier.AUTHORITATIVE, ".ac.uk": TrustTier.AUTHORITATIVE, "europa.eu": TrustTier.AUTHORITATIVE,
    "who.int": TrustTier.AUTHORITATIVE, "nih.gov": TrustTier.AUTHORITATIVE, "docs.python.org": TrustTier.AUTHORITATIVE,
    "law.cornell.edu": TrustTier.AUTHORITATIVE, "legislation.gov.uk": TrustTier.AUTHORITATIVE,
    "eur-lex.europa.eu": TrustTier.AUTHORITATIVE, "pubmed.ncbi.nlm.nih.gov": TrustTier.AUTHORITATIVE,
    "doi.org": TrustTier.AUTHORITATIVE, "nature.com": TrustTier.AUTHORITATIVE, "thelancet.com": TrustTier.AUTHORITATIVE,
    "nejm.org": TrustTier.AUTHORITATIVE, "bmj.com": TrustTier.AUTHORITATIVE, "datatracker.ietf.org": TrustTier.AUTHORITATIVE,
    "rfc-editor.org": TrustTier.AUTHORITATIVE, "w3.org": TrustTier.AUTHORITATIVE,
    "developer.mozilla.org": TrustTier.ESTABLISHED, "acm.org": TrustTier.ESTABLISHED, "ieee.org": TrustTier.ESTABLISHED,
    "americanbar.org": TrustTier.ESTABLISHED, "oreilly.com": TrustTier.ESTABLISHED, "manning.com": TrustTier.ESTABLISHED,
    "reuters.com": TrustTier.ESTABLISHED, "apnews.com": TrustTier.ESTABLISHED, "wikipedia.org": TrustTier.ESTABLISHED,
    "britannica.com": TrustTier.ESTABLISHED, "arxiv.org": TrustTier.ESTABLISHED,
    "github.com": TrustTier.GENERAL, "stackoverflow.com": TrustTier.GENERAL, "stackexchange.com": TrustTier.GENERAL,
    "readthedocs.io": TrustTier.GENERAL,
    "medium.com": TrustTier.LOW, "substack.com": TrustTier.LOW, "blogspot.com": TrustTier.LOW,
    "wordpress.com": TrustTier.LOW, "reddit.com": TrustTier.LOW, "quora.com": TrustTier.LOW,
    "twitter.com": TrustTier.UNRELIABLE, "x.com": TrustTier.UNRELIABLE, "facebook.com": TrustTier.UNRELIABLE,
    "tiktok.com": TrustTier.UNRELIABLE, "instagram.com": TrustTier.UNRELIABLE,
}
TYPE_PUBLICATION = {"RETRIEVAL_SNIPPET": None, "CFB": None, "MANUAL_FACT": None, "PDF_FACT": None, "DOCUMENT": None}


@dataclass(frozen=True)
class Credibility:
    score: float
    tier: TrustTier
    basis: tuple[str, ...]  # what the score was computed from, for the trace


def host_of(source: str | None) -> str | None:
    if not source or "://" not in source:
        return None
    host = (urlparse(source).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host or None


def tier_for_host(host: str | None) -> TrustTier | None:
    if not host:
        return None
    best: tuple[int, TrustTier] | None = None
    for suffix, tier in HOST_TIERS.items():
        hit = host.endswith(suffix) if suffix.startswith(".") else host == suffix or host.endswith("." + suffix)
        if hit and (best is None or len(suffix) > best[0]):
            best = (len(suffix), tier)
    return best[1] if best else None


def publication_type_of(qualifiers: Mapping[str, Any] | None) -> str | None:
    if not isinstance(qualifiers, Mapping):  # malformed qualifiers are named by the item's validation, not here
        return None
    value = qualifiers.get("publication_type")
    return value if isinstance(value, str) and value in PUBLICATION_TYPES else None


def score_credibility(
    trust_tier: TrustTier | str | None,
    source: str | None = None,
    publication_type: str | None = None,
) -> Credibility:
    """EBOM credibility: domain authority (an explicit non-default trust tier beats the URL's), blended 60/40 with
    the publication-type weight when one is known."""
    tier = TrustTier(trust_tier or TrustTier.GENERAL)
    basis = [f"trust_tier:{tier.value}"]
    host_tier = tier_for_host(host_of(source))
    if host_tier is not None and tier is TrustTier.GENERAL:
        tier = host_tier
        basis.append(f"host:{host_of(source)}:{host_tier.value}")
    authority = TRUST_TIER_CREDIBILITY[tier]
    if publication_type in PUBLICATION_TYPES:
        weight = PUBLICATION_TYPES[publication_type]
        score = 0.6 * authority + 0.4 * weight
        basis.append(f"publication_type:{publication_type}:{weight}")
    else:
        score = authority
    return Credibility(round(min(1.0, max(0.0, score)), 4), tier, tuple(basis))


def estimate_credibility(draft: Mapping[str, Any]) -> float:
    """Credibility for an evidence draft (a dict as the pack builder holds it) that has none."""
    provenance = draft.get("provenance") or {}
    source = provenance.get("source") if isinstance(provenance, Mapping) else getattr(provenance, "source", None)
    return score_credibility(
        draft.get("trust_tier"), source if isinstance(source, str) else None,  # a non-string is named by validation
        publication_type_of(draft.get("qualifiers"))
    ).score


__all__ = [
    "HOST_TIERS",
    "PUBLICATION_TYPES",
    "TRUST_TIER_CREDIBILITY",
    "Credibility",
    "estimate_credibility",
    "host_of",
    "score_credibility",
    "tier_for_host",
]
