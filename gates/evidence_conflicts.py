"""Contradictions between evidence items a claim relies on, handled per domain (EBOM "Contradiction Resolution";
grounded-generation §9).

Detection is claim-centred: an item of the pack that the claim does *not* rely on conflicts with the claim's
supporting evidence when it contradicts an atomic claim it is about (it mentions every name the atomic claim uses and
some of its words) -- NLI P(contradiction) of (item, that atomic claim) above ``contradiction_threshold`` (EBOM: 0.7)
-- or, deterministically, states a different number or the opposite polarity in a sentence about the same subject
(the sentence holds >= ``same_subject_overlap``, default 0.85, of the claim's content words: "allows 500 requests per
minute per key" against "allows 100 requests per minute per key" conflicts, "allows bursts of 20 requests per second"
does not). Without an NLI backend only the deterministic signals run (nli_entailment fails closed on its own).

Resolution, in order (gates/conflicts.py, shared with nli_entailment):

1. credibility difference > 0.3 -> the higher-credibility source wins (EBOM credibility tiebreaking);
2. an outdated source yields to a current one: one item stale for its volatility and the other not, or both dated
   and the older one more than ``outdated_gap_days`` older (EBOM temporal contradictions: USE_CURRENT);
3. otherwise unresolved -> the riskiest domain's ``conflict_policy``:
   present_both (the answer must cite the other side too, i.e. present both with attribution),
   present_with_analysis (cite both and say they conflict), refuse (EVIDENCE_CONFLICT; degrade refuses and names
   the conflicting sources). With no domain, ``default_conflict_policy`` (present_both, EBOM low-risk general).

A claim that relies on the losing side of a resolved conflict fails EVIDENCE_CONFLICT whatever the policy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from controlplane.contracts import ClaimStatus, ConflictPolicy, CostClass, EvidenceItem, GateResult, ReasonCode
from controlplane.evidence_pack.staleness import is_time_sensitive

from .attempt import AttemptView
from .conflicts import (
    CONTRADICTION_THRESHOLD,
    CREDIBILITY_GAP,
    OUTDATED_GAP_DAYS,
    SAME_SUBJECT_OVERLAP,
    Conflict,
    Resolution,
    detect_conflicts,
    gate_now,
    nli_pairs,
    resolve_pair,
    snippet,
    usable_and_candidates,
)
from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage, NliBackend
from .sufficiency import riskiest_domain


class AttemptScores:
    """The attempt's NLI scores as a backend (detect_conflicts asks one): each distinct pair is scored once per
    attempt, and the pairs nli_entailment already scored are not sent again."""

    def __init__(self, view: AttemptView, backend: NliBackend) -> None:
        self.name = getattr(backend, "name", "nli")
        self._view, self._backend = view, backend

    def score(self, pairs: Sequence[tuple[str, str]]) -> list:
        return self._view.scores(self._backend, pairs)


_ANALYSIS = re.compile(r"\b(conflict\w*|disagree\w*|differ\w*|contradict\w*|whereas|however|on the other hand|"
                       r"more recent|newer|older|outdated|higher[- ]credibility|while)\b", re.IGNORECASE)
# A literal every match of _ANALYSIS holds, lowercased: an ASCII answer that holds none of them cannot match, and
# the substring tests cost a fraction of the case-insensitive search over the whole answer.
_ANALYSIS_LITERALS = ("conflict", "disagree", "differ", "contradict", "whereas", "however", "on the other hand",
                      "more recent", "newer", "older", "outdated", "higher", "while")


def analyses_a_difference(text: str) -> bool:
    """Whether the answer uses a word that discusses a difference between sources (_ANALYSIS)."""
    if text.isascii():  # non-ASCII letters may fold to ASCII ones under IGNORECASE: search those texts in full
        lower = text.lower()
        if not any(literal in lower for literal in _ANALYSIS_LITERALS):
            return False
    return _ANALYSIS.search(text) is not None



class EvidenceConflictsGate(BaseGate):
    gate_id = "evidence_conflicts"
    version = "v1"
    cost_class = CostClass.EXPENSIVE
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        params = inp.params
        pack = inp.evidence_pack
        envelope = inp.envelope
        now = gate_now(params)
        time_sensitive = inp.mode_decision.timeSensitiveQuery or is_time_sensitive(inp.user_message)
        domain = riskiest_domain(inp.mode_decision, inp.policy)
        policy = (inp.policy.domains[domain].conflict_policy if domain
                  else ConflictPolicy(params.get("default_conflict_policy", ConflictPolicy.PRESENT_BOTH.value)))
        threshold = float(params.get("contradiction_threshold", CONTRADICTION_THRESHOLD))
        overlap = float(params.get("same_subject_overlap", SAME_SUBJECT_OVERLAP))
        gap = float(params.get("credibility_gap", CREDIBILITY_GAP))
        outdated_days = float(params.get("outdated_gap_days", OUTDATED_GAP_DAYS))
        backend = inp.services.nli_backend
        cited_anywhere = {eid for claim in envelope.meta.claim_map for eid in claim.evidence_ids}
        analysed = analyses_a_difference(envelope.assistant_text)

        per_claim: dict[str, list[str]] = {}
        records: list[dict] = []
        notes: list[str] = []
        disclosures: list[str] = []
        backend_error = None
        work = []
        items_by_id = pack.by_id()
        for claim in envelope.meta.claim_map:
            if claim.status is ClaimStatus.UNKNOWN or not claim.evidence_ids:
                continue
            cited = [item for eid in claim.evidence_ids if (item := items_by_id.get(eid)) is not None]
            if not cited:
                continue
            others = [item for item in pack.evidence if item.id not in claim.evidence_ids]
            atoms = inp.view.atom_texts(claim.text)
            work.append((claim, atoms, cited, others, usable_and_candidates(atoms, cited, others)))
        scored: AttemptScores | None = None
        if backend is not None:
            try:  # one backend call for the pairs of every claim that nli_entailment has not scored yet
                scored = AttemptScores(inp.view, backend)
                scored.score([p for _, atoms, cited, others, split in work
                              for p in nli_pairs(atoms, cited, others, split)])
            except Exception as exc:  # a backend that fails still leaves the deterministic signals
                scored, backend_error = None, f"{type(exc).__name__}: {str(exc)[:200]}"
        for claim, atoms, cited, others, split in work:  # usable and candidate items decided once per claim
            conflicts, _ = detect_conflicts(claim.claim_id, atoms, cited, others, scored, threshold=threshold,
                                            overlap=overlap, split=split)
            for conflict in conflicts:
                a, b = items_by_id.get(conflict.supporter), items_by_id.get(conflict.opposer)
                resolution = resolve_pair(a, b, now, credibility_gap=gap, outdated_gap_days=outdated_days,
                                          time_sensitive=time_sensitive)
                outcome, fails = self._handle(resolution, conflict, policy, cited_anywhere, analysed)
                records.append({**conflict.as_dict(), "resolution": resolution.as_dict(), "policy": policy.value,
                                "outcome": outcome})
                if fails:
                    per_claim.setdefault(claim.claim_id, []).append(ReasonCode.EVIDENCE_CONFLICT.value)
                    notes.append(self._note(resolution, policy, outcome, a, b))
                elif resolution.kind != "unresolved":
                    disclosures.append(resolution.explanation)
        details: dict[str, Any] = {
            "domain": domain, "conflict_policy": policy.value, "conflicts": records, "disclosures": disclosures,
            "nli": backend.name if backend is not None and backend_error is None else "unavailable",
        }
        if backend_error:
            details["backend_error"] = backend_error
        if per_claim:
            per_claim = {cid: list(dict.fromkeys(codes)) for cid, codes in per_claim.items()}
            return self.failing([ReasonCode.EVIDENCE_CONFLICT], evidence_refs=[f"claim_map:{c}" for c in per_claim],
                                details={"claims": per_claim, "user_notes": list(dict.fromkeys(notes)), **details})
        return self.passing(details=details)

    @staticmethod
    def _handle(resolution: Resolution, conflict: Conflict, policy: ConflictPolicy, cited_anywhere: set[str],
                analysed: bool) -> tuple[str, bool]:
        if resolution.kind != "unresolved":
            if resolution.winner == conflict.supporter:
                return f"resolved_for_claim:{resolution.kind}", False
            return f"claim_relies_on_overruled_source:{resolution.kind}", True
        if policy is ConflictPolicy.REFUSE:
            return "refused_by_domain_policy", True
        disclosed = conflict.opposer in cited_anywhere
        if policy is ConflictPolicy.PRESENT_BOTH:
            return ("presented_both", False) if disclosed else ("other_side_not_presented", True)
        if disclosed and analysed:
            return "presented_with_analysis", False
        return ("conflict_not_analysed" if disclosed else "other_side_not_presented"), True

    @staticmethod
    def _note(resolution: Resolution, policy: ConflictPolicy, outcome: str, a: EvidenceItem, b: EvidenceItem) -> str:
        if outcome.startswith("claim_relies_on_overruled_source"):
            return resolution.explanation
        if policy is ConflictPolicy.REFUSE:
            return (f"Cannot provide a verified answer. Sources contradict: {a.id}: \"{snippet(a.text)}\"; "
                    f"{b.id}: \"{snippet(b.text)}\". This requires expert consultation or an authoritative source "
                    "that resolves the conflict.")
        return (f"{resolution.explanation} The answer must present both with attribution"
                + (" and say how they differ." if policy is ConflictPolicy.PRESENT_WITH_ANALYSIS else "."))


@hookimpl
def controlplane_gates():
    return [EvidenceConflictsGate()]
