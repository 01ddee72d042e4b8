"""G4 citation_integrity: citations, claim_map, inline markers and the pack agree with each other.

- citations[].claim_id exists in claim_map and its evidence ids equal that claim's evidence ids;
- every id in citations, used_evidence_ids and ignored_evidence_ids is in the pack;
- every inline marker ([E3]) in assistant_text names a pack id, and the markers inside a claim's anchor are ids
  that claim cites; in strict mode every cited claim carries a marker.
Ids are compared exactly: a homoglyph or zero-width character never resolves.
"""

from __future__ import annotations

from controlplane.contracts import ClaimStatus, CostClass, GateResult, ReasonCode

from .anchoring import anchor_claims, inline_markers
from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage


class CitationIntegrityGate(BaseGate):
    gate_id = "citation_integrity"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        meta = inp.envelope.meta
        text = inp.envelope.assistant_text
        pack_ids = set(inp.evidence_pack.ids())
        claims = {claim.claim_id: claim for claim in meta.claim_map}
        codes: list[ReasonCode] = []
        refs: list[str] = []
        details: dict = {}

        for citation in meta.citations:
            claim = claims.get(citation.claim_id)
            if claim is None:
                codes.append(ReasonCode.CITATION_UNKNOWN_CLAIM)
                refs.append(f"citations:{citation.claim_id}")
                details.setdefault("unknown_claims", []).append(citation.claim_id)
            elif set(citation.evidence_ids) != set(claim.evidence_ids):
                codes.append(ReasonCode.CITATION_CLAIM_MISMATCH)
                refs.append(f"citations:{citation.claim_id}")
                details.setdefault("mismatched_claims", []).append(citation.claim_id)
            strangers = sorted(set(citation.evidence_ids) - pack_ids)
            if strangers:
                codes.append(ReasonCode.CITATION_UNKNOWN_EVIDENCE_ID)
                details.setdefault("unknown_evidence_ids", []).extend(strangers)

        listed = set(meta.used_evidence_ids) | set(meta.ignored_evidence_ids)
        if listed - pack_ids or set(meta.used_evidence_ids) & set(meta.ignored_evidence_ids):
            codes.append(ReasonCode.USED_IDS_INCONSISTENT)
            details["used_or_ignored_not_in_pack"] = sorted(listed - pack_ids)

        markers = inline_markers(text)
        unresolved = sorted({m.token for m in markers if m.token not in pack_ids})
        if unresolved:
            codes.append(ReasonCode.INLINE_MARKER_UNRESOLVED)
            details["unresolved_markers"] = unresolved
            details.setdefault("unknown_evidence_ids", []).extend(unresolved)

        anchors, _ = anchor_claims(text, meta.claim_map)
        level = inp.mode_decision.rigorConfig.level
        markers_required = inp.policy.citations.inline_markers_required.get(level, False)
        mismatched, unmarked = [], []
        for claim_id, anchor in anchors.items():
            claim = claims[claim_id]
            inside = {m.token for m in markers if anchor.start <= m.start and m.end <= anchor.end}
            if inside - set(claim.evidence_ids) - set(unresolved):
                mismatched.append(claim_id)
            if markers_required and claim.evidence_ids and claim.status is not ClaimStatus.UNKNOWN and not inside:
                unmarked.append(claim_id)
        if mismatched:
            codes.append(ReasonCode.INLINE_MARKER_MISMATCH)
            details["marker_mismatch_claims"] = mismatched
            refs.extend(f"claim_map:{cid}" for cid in mismatched)
        if unmarked:
            codes.append(ReasonCode.INLINE_MARKER_MISSING)
            details["unmarked_claims"] = unmarked
            refs.extend(f"claim_map:{cid}" for cid in unmarked)

        if "unknown_evidence_ids" in details:
            details["unknown_evidence_ids"] = sorted(set(details["unknown_evidence_ids"]))
        if codes:
            per_claim: dict[str, list[str]] = {}
            for cid in mismatched:
                per_claim.setdefault(cid, []).append(ReasonCode.INLINE_MARKER_MISMATCH.value)
            for cid in unmarked:
                per_claim.setdefault(cid, []).append(ReasonCode.INLINE_MARKER_MISSING.value)
            for cid in details.get("mismatched_claims", []):
                per_claim.setdefault(cid, []).append(ReasonCode.CITATION_CLAIM_MISMATCH.value)
            details["claims"] = per_claim
            return self.failing(codes, evidence_refs=list(dict.fromkeys(refs)), details=details)
        return self.passing(details={"markers": len(markers), "citations": len(meta.citations)})


@hookimpl
def controlplane_gates():
    return [CitationIntegrityGate()]
