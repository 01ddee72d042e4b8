"""G3 evidence_binding: every factual claim cites evidence of this pack, or is labelled UNKNOWN.

UNKNOWN is honest only when the claim states the absence of information and nothing else (claim_categories'
``states_absence``); any other UNKNOWN claim is a factual claim and needs evidence like one. The pack rule
``unknown_label_required`` makes the UNKNOWN label mandatory for uncited claims even where the rigor does not require
citations.

Which statuses besides UNKNOWN need no evidence is the policy's to say, per rigor level (high stakes: none).
"""

from __future__ import annotations

from collections import Counter

from controlplane.contracts import ClaimStatus, CostClass, GateResult, ReasonCode

from .categories import is_honest_unknown
from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage


class EvidenceBindingGate(BaseGate):
    gate_id = "evidence_binding"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        pack = inp.evidence_pack
        pack_ids = set(pack.ids())
        allowed = set(pack.rules.allowed_evidence_ids) if pack.rules.allowed_evidence_ids else pack_ids
        level = inp.mode_decision.rigorConfig.level
        exempt = set(inp.policy.citations.exempt_statuses.get(level, []))
        must_cite = pack.rules.must_cite_for_factual_claims and inp.mode_decision.rigorConfig.require_citations

        per_claim: dict[str, list[str]] = {}
        unknown_ids: set[str] = set()
        unlabelled: list[str] = []
        claims = inp.envelope.meta.claim_map
        duplicates = [cid for cid, count in Counter(c.claim_id for c in claims).items() if count > 1]
        for claim in claims:
            codes: list[ReasonCode] = []
            if claim.claim_id in duplicates:
                codes.append(ReasonCode.DUPLICATE_CLAIM_ID)
            honest_unknown = is_honest_unknown(claim)
            if not claim.evidence_ids and not honest_unknown:
                # An UNKNOWN label on a claim that asserts something is a factual claim, checked as one.
                status = ClaimStatus.FACTUAL if claim.status is ClaimStatus.UNKNOWN else claim.status
                if must_cite and status not in exempt:
                    codes.append(ReasonCode.UNCITED_CLAIM)
                elif pack.rules.unknown_label_required and status not in exempt:
                    # the pack's rule: a claim without evidence must be labelled UNKNOWN, even where citing is not
                    # required
                    codes.append(ReasonCode.UNCITED_CLAIM)
                    unlabelled.append(claim.claim_id)
            for evidence_id in claim.evidence_ids:
                if evidence_id not in pack_ids:
                    codes.append(ReasonCode.UNKNOWN_EVIDENCE_ID)
                    unknown_ids.add(evidence_id)
                elif evidence_id not in allowed:
                    codes.append(ReasonCode.EVIDENCE_ID_NOT_ALLOWED)
            if codes:
                per_claim[claim.claim_id] = list(dict.fromkeys(c.value for c in codes))

        if not per_claim:
            return self.passing(details={"claims_checked": len(claims),
                                         "exempt_statuses": sorted(s.value for s in exempt | {ClaimStatus.UNKNOWN})})
        reasons = [ReasonCode(code) for codes in per_claim.values() for code in codes]
        return self.failing(
            reasons,
            evidence_refs=[f"claim_map:{cid}" for cid in per_claim],
            details={"claims": per_claim, "unknown_evidence_ids": sorted(unknown_ids), "allowed_evidence_ids": sorted(allowed),
                     "unknown_label_required": unlabelled},
        )


@hookimpl
def controlplane_gates():
    return [EvidenceBindingGate()]
