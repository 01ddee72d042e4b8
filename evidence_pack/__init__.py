"""Building EvidencePacks: caller facts, retrieval, hashing, trust and credibility, spheres, budget-bound assembly.

Installed as ``controlplane.evidence_pack``.
"""

from .builder import (
    EvidenceError,
    build_pack,
    content_hash,
    extend_pack,
    parse_evidence_document,
    read_evidence_file,
)

__all__ = ["EvidenceError", "build_pack", "content_hash", "extend_pack", "parse_evidence_document", "read_evidence_file"]
