"""Asking a quote-mode plane one question over one evidence item (shared by the answer-mode tests)."""

from __future__ import annotations

from controlplane.contracts import TraceStatus
from controlplane.pipeline import Pipeline


def verified_single_claim(plane: Pipeline, question: str, text: str, title: str = "Evidence"):
    """Ask ``question`` over one authoritative evidence item; the run must pass, verified, with one passing claim.
    Returns the run and that claim."""
    evidence = [{"id": "E1", "title": title, "text": text, "trust_tier": "authoritative"}]
    result = plane.run([{"role": "user", "content": question}], evidence=evidence)
    assert result.status is TraceStatus.PASS and result.verified, result.assistant_text
    [claim] = result.claims
    assert claim.verdict == "PASS" and claim.evidence_ids == ["E1"]
    return result, claim


def unknown_over(plane: Pipeline, question: str, text: str, title: str = "Evidence"):
    """Ask ``question`` over one authoritative evidence item; the reply must be an UNKNOWN, not verified. Returns
    the run."""
    evidence = [{"id": "E1", "title": title, "text": text, "trust_tier": "authoritative"}]
    result = plane.run([{"role": "user", "content": question}], evidence=evidence)
    assert result.claims[0].status == "UNKNOWN" and not result.verified, result.assistant_text
    return result
