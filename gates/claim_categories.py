"""The claim_categories gate (EBOM "Claim Classification Rules").

It uses the classifier of gates/categories.py to catch a model that labels a factual claim SUBJECTIVE or TRIVIAL to
escape citation, or labels a confident factual sentence UNKNOWN (an UNKNOWN claim must say that it does not know:
"The evidence does not say ...", naming no name or number that neither the question nor the evidence holds), since
the label is only in meta and the user would read the sentence as fact. Such
a claim fails with CLAIM_CATEGORY_MISMATCH at or above ``fail_at_rigor`` (default low) and is a warning below.
"""

from __future__ import annotations

from controlplane.contracts import ClaimStatus, CostClass, GateResult, ReasonCode, RigorLevel

from .categories import ESCAPE_LABELS, NEEDS_CITATION, classify, states_absence, unknown_adds_details
from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage


class ClaimCategoriesGate(BaseGate):
    """An uncited claim labelled SUBJECTIVE/TRIVIAL/REASONING whose text classifies as FACTUAL/CONSENSUS, or an
    UNKNOWN claim that does not only state the absence of information, is mislabelled. Fails in every rigor by
    default (``fail_at_rigor: low``): a mislabelled fact shown at low rigor would be an unchecked fact."""

    gate_id = "claim_categories"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        level = inp.mode_decision.rigorConfig.level
        fail_at = RigorLevel(inp.params.get("fail_at_rigor", RigorLevel.LOW.value))
        records: dict[str, dict] = {}
        per_claim: dict[str, list[str]] = {}
        warnings: list[str] = []
        evidence_text = "\n".join(item.text for item in inp.evidence_pack.evidence)
        for claim in inp.envelope.meta.claim_map:
            found = classify(claim.text)
            records[claim.claim_id] = {"labelled": claim.status.value, "classified": found.category.value,
                                       "confidence": found.confidence, "signals": list(found.signals)}
            laundered = claim.status is ClaimStatus.UNKNOWN and not states_absence(claim.text)
            if laundered:
                records[claim.claim_id]["unknown_not_worded_as_unknown"] = True
            elif claim.status is ClaimStatus.UNKNOWN:
                added = unknown_adds_details(claim.text, inp.user_message, evidence_text)
                if added:  # worded as UNKNOWN, but it tells the user of names or numbers nobody checked
                    records[claim.claim_id]["unknown_adds_details"] = added
                    laundered = True
            # a REASONING claim that names its premises is a reasoning step, not an escape label: reasoning_chain
            # checks that every fact it uses is sourced
            step = claim.status is ClaimStatus.REASONING and bool(claim.premises)
            if laundered or (claim.status in ESCAPE_LABELS and not claim.evidence_ids and not step
                             and found.category in NEEDS_CITATION):
                if level.rank >= fail_at.rank:
                    per_claim[claim.claim_id] = [ReasonCode.CLAIM_CATEGORY_MISMATCH.value]
                else:
                    warnings.append(f"{claim.claim_id} is labelled {claim.status.value} but reads as "
                                    f"{found.category.value}")
        details = {"categories": records, "warnings": warnings, "fail_at_rigor": fail_at.value}
        if per_claim:
            return self.failing([ReasonCode.CLAIM_CATEGORY_MISMATCH],
                                evidence_refs=[f"claim_map:{cid}" for cid in per_claim],
                                details={"claims": per_claim, **details})
        return self.passing(details=details)


@hookimpl
def controlplane_gates():
    return [ClaimCategoriesGate()]
