"""Safe degrade after regen is exhausted: suppress failing sentences, or refuse and say what evidence is needed.

Grounded-generation G-1 and G-5: no sentence that failed verification reaches the user unmarked, and a refusal
names the claims and the evidence that would let them through. A failure that is not attributable to claims
(unparseable output, wrong mode, missing gate) cannot be suppressed sentence by sentence, so it refuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from controlplane.contracts import (
    DegradeMode,
    EvidencePack,
    GateResult,
    ModeDecision,
    OutputEnvelope,
    PolicyBundle,
    ReasonCode,
    TraceStatus,
)
from controlplane.gates.attempt import AttemptView
from controlplane.verdicts import (
    ClaimVerdict,
    SentenceVerdict,
    coverage_exemption,
    global_failures,
    sentence_verdicts,
)

WHY = {
    "UNCITED_CLAIM": "it states a fact without citing evidence",
    "UNKNOWN_EVIDENCE_ID": "it cites evidence that does not exist",
    "EVIDENCE_ID_NOT_ALLOWED": "it cites evidence it may not use",
    "INLINE_MARKER_MISMATCH": "its inline markers disagree with its citations",
    "INLINE_MARKER_MISSING": "it carries no inline citation marker",
    "CLAIM_NOT_IN_TEXT": "it does not appear in the answer text",
    "SPAN_TEXT_MISMATCH": "its anchor does not match the answer text",
    "SPAN_OUT_OF_BOUNDS": "its anchor points outside the answer",
    "SPAN_OVERLAP": "it overlaps another claim",
    "LOW_ENTAILMENT": "its cited evidence does not entail it",
    "HIGH_CONTRADICTION": "its cited evidence contradicts it",
    "NUMBER_MISMATCH": "its numbers or units differ from the evidence",
    "NEGATION_MISMATCH": "it negates what the evidence says (or the reverse)",
    "QUALIFIER_DRIFT": "it changes a qualifier (population, setting, timeframe, dosage, quantity)",
    "STRENGTH_INFLATION": "it states more strongly than the evidence (e.g. correlation as causation)",
    "UNSUPPORTED_CONTENT": "it contains details the evidence does not mention",
    "INSUFFICIENT_SOURCES": "it has fewer independent sources than this domain requires",
    "LOW_CREDIBILITY": "its sources are not credible enough for this domain",
    "CONFLICTING_VERDICTS": "its sources disagree",
    "NO_EVIDENCE": "no evidence was cited for it",
    "SENTENCE_UNCOVERED": "it is not backed by any claim",
    "EVIDENCE_CONFLICT": "other evidence contradicts the evidence it relies on, and the conflict was not resolved "
                         "or presented as this domain requires",
    "STALE_EVIDENCE": "its evidence is older than this kind of information stays valid",
    "LOW_CONFIDENCE": "its confidence (weakest source x reasoning x entailment) is below what this domain requires",
    "VERIFIER_UNAVAILABLE": "the entailment verifier was not available, so it could not be checked",
    "EVIDENCE_TEXT_REDACTED": "its evidence text was redacted, so it could not be checked",
    "CLAIM_CATEGORY_MISMATCH": "its label (opinion, common knowledge or unknown) does not match its wording: it "
                               "states a fact that needs evidence",
    "CRITIC_FINDING": "a reviewing critic model found it unsupported or contradicted by its evidence",
    "CRITIC_UNAVAILABLE": "this question needs a review by a critic model, and none could review it",
}


SUPPRESSIBLE_GLOBAL = frozenset({ReasonCode.SENTENCE_UNCOVERED, ReasonCode.USED_IDS_INCONSISTENT})


def gate_notes(results: Sequence[GateResult]) -> str | None:
    """User-facing explanations failing gates put in ``details["user_notes"]`` (e.g. which sources conflict)."""
    notes = [n for r in results if r.failed for n in (r.details.get("user_notes") or []) if isinstance(n, str)]
    return "\n".join(dict.fromkeys(notes)) or None


def degrade_mode_for(policy: PolicyBundle, decision: ModeDecision) -> DegradeMode:
    return policy.degrade.by_rigor.get(decision.rigorConfig.level, policy.degrade.mode)


def _why(codes: Sequence[str]) -> str:
    reasons = [WHY.get(code, code.lower().replace("_", " ")) for code in codes]
    return "; ".join(dict.fromkeys(reasons)) or "it failed verification"


def _sources_asked(results: Sequence[GateResult], domain_sources: int) -> int:
    """How many independent sources the gates that failed a claim for INSUFFICIENT_SOURCES asked for: the graph's
    high-stakes floor (evidence_graph ``constraints.min_support``) can ask more than the domain's own thresholds
    (nli_entailment ``thresholds.min_sources``); a refusal that names the smaller number contradicts itself."""
    asked = [domain_sources]
    for result in results:
        if not result.failed or not any(ReasonCode.INSUFFICIENT_SOURCES.value in codes
                                        for codes in (result.details.get("claims") or {}).values()):
            continue
        for section, key in (("constraints", "min_support"), ("thresholds", "min_sources")):
            value = (result.details.get(section) or {}).get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                asked.append(value)
    return max(asked)


def _needed(codes: Sequence[str], policy_sources: int, evidence_ids: Sequence[str] = ()) -> str:
    """What evidence would let the statement through (G-5), said without restating the statement: removed text is
    unverified, so a notice never quotes it (the trace's degrade record keeps it in full)."""
    cited = f" ({', '.join(evidence_ids)} does not)" if len(evidence_ids) == 1 else (
        f" ({', '.join(evidence_ids)} do not)" if evidence_ids else "")
    if "INSUFFICIENT_SOURCES" in codes:
        return f"at least {policy_sources} independent sources that state it"
    if "LOW_CREDIBILITY" in codes:
        return "a credible source (official, peer-reviewed or authoritative) that states it"
    if "EVIDENCE_CONFLICT" in codes:
        return "an authoritative source that resolves the conflicting evidence"
    if "STALE_EVIDENCE" in codes:
        return "current evidence (within its freshness window) that states it"
    if "EVIDENCE_TEXT_REDACTED" in codes:
        return "the unredacted text of the evidence it cites"
    if "VERIFIER_UNAVAILABLE" in codes:
        return "a working NLI verifier (--nli-backend) and evidence that states it"
    return f"evidence that states it{cited}"


REMOVED_NOTICE = "[Not verified: some statements were removed.]"
REWRITE_NOTICE = ("[Not checked: this rewrites your own text; the policy exempts rewrites from evidence checks, so no "
                  "statement in it was verified.]")


@dataclass
class DegradeResult:
    status: TraceStatus
    assistant_text: str
    record: dict[str, Any] = field(default_factory=dict)


def refuse(
    decision: ModeDecision,
    failures: Sequence[ClaimVerdict],
    global_codes: Sequence[ReasonCode],
    pack: EvidencePack,
    min_sources: int,
    why_override: str | None = None,
) -> DegradeResult:
    lines = ["I can't give a verified answer from the evidence provided."]
    needed = []
    for claim in failures:
        need = _needed(claim.reason_codes, min_sources, claim.evidence_ids)
        needed.append({"claim_id": claim.claim_id, "text": claim.text, "why": _why(claim.reason_codes), "needed": need})
        cites = f" citing {', '.join(claim.evidence_ids)}" if claim.evidence_ids else ""
        lines.append(f"- A statement{cites} was not shown because {_why(claim.reason_codes)}. To state it I need "
                     f"{need}.")
    if why_override:
        lines.append(why_override)
    elif global_codes and not failures:
        reasons = "; ".join(dict.fromkeys(WHY[c.value] for c in global_codes if c.value in WHY))
        lines.append(f"The answer could not be checked ({', '.join(c.value for c in global_codes)})"
                     + (f": {reasons}." if reasons else "."))
    if not pack.evidence:
        lines.append("No evidence was provided or found for this question; supply documents or facts that answer it.")
    return DegradeResult(
        TraceStatus.REFUSED,
        "\n".join(lines),
        {"mode": "refuse", "claims": needed, "global_reason_codes": [c.value for c in global_codes],
         "rigor": decision.rigorConfig.level.value},
    )


def degrade(
    policy: PolicyBundle,
    decision: ModeDecision,
    pack: EvidencePack,
    envelope: OutputEnvelope | None,
    claims: Sequence[ClaimVerdict],
    results: Sequence[GateResult],
    view: AttemptView | None = None,
) -> DegradeResult:
    mode = degrade_mode_for(policy, decision)
    failing_claims = [c for c in claims if c.verdict == "FAIL"]
    codes = global_failures(results)
    # Uncovered sentences are sentence-level and used/ignored id lists are never shown, so suppress can still
    # handle them; any other global failure means the text itself cannot be trusted sentence by sentence.
    blocking = [c for c in codes if c not in SUPPRESSIBLE_GLOBAL]
    min_sources = _sources_asked(results, max(
        (policy.domains[d].thresholds.min_sources for d in decision.domainFlags if d in policy.domains),
        default=policy.general_thresholds.min_sources))
    if mode is DegradeMode.REFUSE or envelope is None or blocking:
        result = refuse(decision, failing_claims, codes, pack, min_sources, why_override=gate_notes(results))
        result.record["requested_mode"] = mode.value
        return result

    exemption = coverage_exemption(results)
    sentences = sentence_verdicts(envelope, claims, coverage_exempt=exemption is not None, view=view)
    kept = [s for s in sentences if s.verdict == "PASS"]
    removed = [s for s in sentences if s.verdict == "FAIL"]
    if not kept:
        result = refuse(decision, failing_claims, codes, pack, min_sources, why_override=gate_notes(results))
        result.record["requested_mode"] = mode.value
        result.record["removed_sentences"] = _removed_record(removed)
        unbacked = sum(1 for s in removed if not s.claim_ids)
        if unbacked and failing_claims:  # say that more was removed than the failed claims, without quoting it
            result.assistant_text += (f"\n- {unbacked} other statement{'s' if unbacked > 1 else ''} "
                                      f"{'were' if unbacked > 1 else 'was'} not shown: no claim backed "
                                      f"{'them' if unbacked > 1 else 'it'}, so nothing checked "
                                      f"{'them' if unbacked > 1 else 'it'} against the evidence.")
        return result
    text = " ".join(s.text for s in kept)
    cited = {c.claim_id: c.evidence_ids for c in claims}
    notes = []
    for sentence in removed:
        ids = list(dict.fromkeys(i for cid in sentence.claim_ids for i in cited.get(cid, [])))
        notes.append(
            f"- A statement was removed because {_why(sentence.reason_codes)}; to include it, provide "
            f"{_needed(sentence.reason_codes, min_sources, ids)}."
        )
    text += f"\n\n{REMOVED_NOTICE}\n" + "\n".join(notes)
    if extra := gate_notes(results):
        text += "\n" + extra
    record = {"mode": "suppress", "kept_sentences": [s.text for s in kept], "removed_sentences": _removed_record(removed),
              "kept_spans": _kept_spans(kept)}
    if exemption is not None:  # kept sentences no claim covers were shown only under the rewrite exemption: say so
        text += f"\n{REWRITE_NOTICE}"
        record["coverage_exemption"] = exemption
    return DegradeResult(TraceStatus.DEGRADED, text, record)


def _kept_spans(kept: Sequence[SentenceVerdict]) -> list[dict[str, int]]:
    """Where each kept sentence was in the checked text and where it is in the delivered one (joined by one space),
    so the API and the server place claims and stream units without searching the text again."""
    spans, shown = [], 0
    for sentence in kept:
        spans.append({"start": sentence.start, "end": sentence.end, "shown_start": shown})
        shown += len(sentence.text) + 1
    return spans


def _removed_record(removed: Sequence[SentenceVerdict]) -> list[dict[str, Any]]:
    return [{"text": s.text, "claim_ids": s.claim_ids, "reason_codes": s.reason_codes} for s in removed]


def deliver(
    policy: PolicyBundle,
    decision: ModeDecision,
    pack: EvidencePack,
    envelope: OutputEnvelope,
    claims: Sequence[ClaimVerdict],
    results: Sequence[GateResult],
    status: TraceStatus,
    view: AttemptView | None = None,
) -> DegradeResult:
    """What a passing attempt shows (G-1 at the last step, whatever the bundle's gates did).

    Every sentence must be covered by claims that all passed. The gates normally ensure it; if they did not (a bundle
    that skips claim_anchors, a gate with a hole), the attempt degrades like a failing one instead of showing
    unchecked text. Under the bundle's rewrite exemption the text is shown as it is, with a notice that it was not
    checked, and the record says so (the run is then never "verified").
    """
    exemption = coverage_exemption(results)
    if exemption is not None:
        return DegradeResult(status, f"{envelope.assistant_text}\n\n{REWRITE_NOTICE}",
                             {"mode": "rewrite_exempt", "coverage_exemption": exemption})
    sentences = sentence_verdicts(envelope, claims, view=view)
    if all(s.verdict == "PASS" for s in sentences):
        return DegradeResult(status, envelope.assistant_text, {})
    result = degrade(policy, decision, pack, envelope, claims, results, view=view)
    result.record["display_check"] = "the gates passed, but a sentence is not covered by a passing claim"
    return result
