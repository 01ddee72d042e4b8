"""G4 citation_integrity: citations, claim_map, inline markers and the pack agree with each other.

- citations[].claim_id exists in claim_map and its evidence ids equal that claim's evidence ids;
- every id in citations, used_evidence_ids and ignored_evidence_ids is in the pack;
- every inline marker ([E3]) in assistant_text names a pack id, and the markers inside a claim's anchor are ids
  that claim cites; in strict mode every cited claim carries a marker.
Ids are compared exactly: a homoglyph or zero-width character never resolves.
"""

from __future__ import annotations

from controlplane.contracts import ClaimStatus, CostClass, GateResult, ReasonCode

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
        pack_ids = set(inp.evidence_pack.ids())
        claims = {claim.claim_id: claim for claim in meta.claim_map}
        codes: list[ReasonCode] = []
        refs: list[str] = []
        details: dict = {}
        per_claim: dict[str, list[str]] = {}
        global_codes: list[ReasonCode] = []

        def blame(claim_id: str | None, code: ReasonCode) -> None:
            codes.append(code)
            if claim_id is not None and claim_id in claims:
                per_claim.setdefault(claim_id, []).append(code.value)
                refs.append(f"claim_map:{claim_id}")
            else:
                global_codes.append(code)

        for citation in meta.citations:
            claim = claims.get(citation.claim_id)
            if claim is None:
                blame(None, ReasonCode.CITATION_UNKNOWN_CLAIM)
                refs.append(f"citations:{citation.claim_id}")
                details.setdefault("unknown_claims", []).append(citation.claim_id)
            elif set(citation.evidence_ids) != set(claim.evidence_ids):
                blame(citation.claim_id, ReasonCode.CITATION_CLAIM_MISMATCH)
            strangers = sorted(set(citation.evidence_ids) - pack_ids)
            if strangers:
                blame(citation.claim_id, ReasonCode.CITATION_UNKNOWN_EVIDENCE_ID)
                details.setdefault("unknown_evidence_ids", []).extend(strangers)

        listed = set(meta.used_evidence_ids) | set(meta.ignored_evidence_ids)
        if listed - pack_ids or set(meta.used_evidence_ids) & set(meta.ignored_evidence_ids):
            blame(None, ReasonCode.USED_IDS_INCONSISTENT)
            details["used_or_ignored_not_in_pack"] = sorted(listed - pack_ids)

        markers = inp.view.markers
        anchors = inp.view.anchors
        unresolved = sorted({m.token for m in markers if m.token not in pack_ids})
        if unresolved:
            details["unresolved_markers"] = unresolved
            details.setdefault("unknown_evidence_ids", []).extend(unresolved)
            for marker in (m for m in markers if m.token not in pack_ids):
                owners = [cid for cid, a in anchors.items() if a.start <= marker.start and marker.end <= a.end]
                for owner in owners or [None]:
                    blame(owner, ReasonCode.INLINE_MARKER_UNRESOLVED)

        level = inp.mode_decision.rigorConfig.level
        markers_required = inp.policy.citations.inline_markers_required.get(level, False)
        for claim_id, anchor in anchors.items():
            claim = claims[claim_id]
            inside = {m.token for m in inp.view.markers_within(anchor.start, anchor.end)}
            if inside - set(claim.evidence_ids) - set(unresolved):
                blame(claim_id, ReasonCode.INLINE_MARKER_MISMATCH)
            if markers_required and claim.evidence_ids and claim.status is not ClaimStatus.UNKNOWN and not inside:
                blame(claim_id, ReasonCode.INLINE_MARKER_MISSING)

        if not codes:
            return self.passing(details={"markers": len(markers), "citations": len(meta.citations)})
        if "unknown_evidence_ids" in details:
            details["unknown_evidence_ids"] = sorted(set(details["unknown_evidence_ids"]))
        details["claims"] = {cid: list(dict.fromkeys(c)) for cid, c in per_claim.items()}
        details["global_reason_codes"] = list(dict.fromkeys(c.value for c in global_codes))
        return self.failing(codes, evidence_refs=list(dict.fromkeys(refs)), details=details)


@hookimpl
def controlplane_gates():
    return [CitationIntegrityGate()]
