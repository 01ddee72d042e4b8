"""The regen step (pass, regen or degrade) and its one delta builder, shared by the pipeline and replay.

``next_step`` decides, from one attempt's gate results and the budgets, whether the answer passes, is regenerated
with a targeted delta, or goes to degrade; ``controlplane.pipeline`` and ``controlplane.replay`` both ask it, so a replay
under the recorded policy decides exactly as the run did. The delta is built from the failing GateResults' reason
codes and structured details, never from error-message strings. Each instruction names exactly what to fix: claim ids, unknown evidence ids,
uncovered sentences, schema paths. The next prompt is rebuilt from the caller's original messages + evidence + this
delta (see prompts.main_context); failed transcripts are never appended and the caller's input is never mutated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from controlplane.contracts import BudgetConfig, EvidencePack, GateResult, ModeDecision, ReasonCode, RegenDelta

# Failures the model cannot fix by answering again: regenerating would only burn budget.
NOT_REGENERABLE = frozenset(
    {
        ReasonCode.RETRIES_EXCEEDED,
        ReasonCode.TOOL_CALLS_EXCEEDED,
        ReasonCode.WALL_TIME_EXCEEDED,
        ReasonCode.GATE_ERROR,
        ReasonCode.GATE_NOT_FOUND,
        ReasonCode.VERIFIER_UNAVAILABLE,
        ReasonCode.RETRIEVER_UNAVAILABLE,
        ReasonCode.RETRIEVAL_EMPTY,
        ReasonCode.RETRIEVAL_REQUIRED,
        ReasonCode.EVIDENCE_TEXT_REDACTED,
        ReasonCode.CRITIC_UNAVAILABLE,
        ReasonCode.INSUFFICIENT_SOURCES,
        ReasonCode.LOW_CREDIBILITY,
        ReasonCode.EVIDENCE_CONFLICT,
        ReasonCode.CONFIDENCE_NOT_PROPAGATED,  # the verifiers' numbers disagree: no new answer changes that
    }
)
_REASONING_CODES = {
    ReasonCode.PREMISE_MISSING,
    ReasonCode.PREMISE_UNVERIFIED,
    ReasonCode.UNSOURCED_REASONING_FACT,
    ReasonCode.UNSOURCED_ANTECEDENT,
    ReasonCode.NON_SEQUITUR,
    ReasonCode.CHERRY_PICKING,
    ReasonCode.FALSE_EQUIVALENCE,
    ReasonCode.OVERGENERALIZATION,
    ReasonCode.REASONING_NOT_ENTAILED,
    ReasonCode.CIRCULAR_REASONING,
    ReasonCode.CLAIM_NOT_GROUNDED,
}

_FORMAT_CODES = {ReasonCode.EMPTY_OUTPUT, ReasonCode.INVALID_JSON}
_ID_CODES = {
    ReasonCode.UNKNOWN_EVIDENCE_ID,
    ReasonCode.EVIDENCE_ID_NOT_ALLOWED,
    ReasonCode.CITATION_UNKNOWN_EVIDENCE_ID,
    ReasonCode.INLINE_MARKER_UNRESOLVED,
}
_ANCHOR_CODES = {ReasonCode.CLAIM_NOT_IN_TEXT, ReasonCode.SPAN_TEXT_MISMATCH, ReasonCode.SPAN_OUT_OF_BOUNDS}
_SUPPORT_CODES = {
    ReasonCode.LOW_ENTAILMENT,
    ReasonCode.HIGH_CONTRADICTION,
    ReasonCode.NUMBER_MISMATCH,
    ReasonCode.NEGATION_MISMATCH,
    ReasonCode.QUALIFIER_DRIFT,
    ReasonCode.STRENGTH_INFLATION,
    ReasonCode.UNSUPPORTED_CONTENT,
    ReasonCode.NO_EVIDENCE,
    ReasonCode.CONFLICTING_VERDICTS,
    ReasonCode.LOW_CONFIDENCE,
    ReasonCode.CRITIC_FINDING,
}


def failing(results: Sequence[GateResult]) -> list[GateResult]:
    return [result for result in results if result.failed]


def is_regenerable(results: Sequence[GateResult]) -> bool:
    """True when at least one failure is something a new answer could fix and none forbids trying again."""
    codes = {code for result in failing(results) for code in result.reason_codes}
    if not codes:
        return False
    return not (codes & NOT_REGENERABLE) and bool(codes - {ReasonCode.PRECONDITION_FAILED})


def _claims_with(results: Sequence[GateResult], codes: set[ReasonCode]) -> list[str]:
    found: list[str] = []
    for result in results:
        for claim_id, claim_codes in (result.details.get("claims") or {}).items():
            if any(ReasonCode(code) in codes for code in claim_codes if code in ReasonCode.__members__):
                found.append(claim_id)
    return sorted(set(found), key=found.index)


def _fmt(ids: Sequence[str]) -> str:
    return ", ".join(ids) if ids else "(none)"


def build_delta(next_attempt: int, results: Sequence[GateResult], pack: EvidencePack, decision: ModeDecision,
                max_claims: int, max_output_tokens: int) -> RegenDelta:
    failed = failing(results)
    codes = list(dict.fromkeys(code for result in failed for code in result.reason_codes))
    code_set = set(codes)
    allowed = pack.rules.allowed_evidence_ids or pack.ids()
    unknown_ids = sorted({i for r in failed for i in r.details.get("unknown_evidence_ids", [])})
    uncovered = [s for r in failed for s in r.details.get("uncovered_sentences", [])]
    schema_paths = sorted({p["path"] for r in failed for p in r.details.get("problems", []) if "path" in p})
    instructions: list[str] = []

    if code_set & _FORMAT_CODES or ReasonCode.SCHEMA_VIOLATION in code_set and not schema_paths:
        instructions.append("Return ONLY one JSON object matching the OutputEnvelope schema: no prose, no code fences.")
    if ReasonCode.TRUNCATED_OUTPUT in code_set:
        instructions.append(
            f"Your JSON was cut off. Write a shorter answer so the whole object fits in {max_output_tokens} tokens."
        )
    if schema_paths:
        instructions.append(f"Fix the fields at these JSON paths to match the schema: {_fmt(schema_paths[:10])}.")
    if ReasonCode.MODE_MISMATCH in code_set:
        instructions.append(f'Set meta.modeLabel to "{decision.modeLabel}".')
    uncited = _claims_with(failed, {ReasonCode.UNCITED_CLAIM})
    if uncited:
        instructions.append(
            f"Claims {_fmt(uncited)} state facts without evidence ids: cite one of {_fmt(allowed)} or set their "
            "status to UNKNOWN."
            if allowed
            else f"Claims {_fmt(uncited)} state facts but there is no evidence: set their status to UNKNOWN."
        )
    if code_set & _ID_CODES:
        instructions.append(f"Evidence ids {_fmt(unknown_ids)} do not exist; cite only {_fmt(allowed)}.")
    if code_set & {ReasonCode.CITATION_UNKNOWN_CLAIM, ReasonCode.CITATION_CLAIM_MISMATCH}:
        instructions.append("meta.citations may only list claim_ids of claim_map, each with exactly its evidence_ids.")
    if ReasonCode.USED_IDS_INCONSISTENT in code_set:
        instructions.append("used_evidence_ids and ignored_evidence_ids may only hold pack ids, each id in one list.")
    mismatched = _claims_with(failed, {ReasonCode.INLINE_MARKER_MISMATCH})
    if mismatched:
        instructions.append(f"The [id] markers inside claims {_fmt(mismatched)} must name only the ids those claims cite.")
    unmarked = _claims_with(failed, {ReasonCode.INLINE_MARKER_MISSING})
    if unmarked:
        instructions.append(f"End claims {_fmt(unmarked)} with their evidence markers, e.g. [{allowed[0] if allowed else 'E1'}].")
    if ReasonCode.DUPLICATE_CLAIM_ID in code_set:
        instructions.append("Give every claim a unique claim_id (c1, c2, ...).")
    misplaced = _claims_with(failed, _ANCHOR_CODES)
    if misplaced:
        instructions.append(f"The text of claims {_fmt(misplaced)} must be copied exactly from assistant_text.")
    overlapping = _claims_with(failed, {ReasonCode.SPAN_OVERLAP})
    if overlapping:
        instructions.append(f"Claims {_fmt(overlapping)} overlap; make each claim one sentence or one part of a sentence.")
    if uncovered:
        quoted = "; ".join(f'"{s[:120]}"' for s in uncovered[:6])
        instructions.append(f"Add a claim to meta.claim_map for each of these sentences, or delete them: {quoted}.")
    if code_set & {ReasonCode.CLAIMS_EXCEEDED, ReasonCode.OUTPUT_TOO_LARGE, ReasonCode.TOKENS_EXCEEDED}:
        instructions.append(f"Answer shorter: at most {max_claims} claims.")
    # a claim downgraded for a forward reference (LOW_CONFIDENCE too) gets the dependency instruction, not this one
    forward = set(_claims_with(failed, {ReasonCode.DEPENDENCY_FORWARD_REFERENCE}))
    unsupported = [c for c in _claims_with(failed, _SUPPORT_CODES) if c not in forward]
    if unsupported:
        instructions.append(
            f"Claims {_fmt(unsupported)} say more than their cited evidence: restate only what the evidence says "
            "(same numbers, qualifiers and strength) or set their status to UNKNOWN."
        )
    miscategorised = _claims_with(failed, {ReasonCode.CLAIM_CATEGORY_MISMATCH})
    if miscategorised:
        instructions.append(
            f"Claims {_fmt(miscategorised)} state facts but are labelled SUBJECTIVE, TRIVIAL or UNKNOWN: cite evidence "
            "for them as FACTUAL, or rewrite them to say the evidence does not state it."
        )
    reasoning = _claims_with(failed, _REASONING_CODES)
    if reasoning:
        instructions.append(
            f"Claims {_fmt(reasoning)} do not follow from what they rest on: a REASONING claim names as premises only "
            "verified claims or evidence ids of this answer (never itself, directly or in a circle), states nothing "
            "its premises do not, and neither widens, reverses nor one-sides them; cite evidence for any other claim. "
            "Fix them or drop them."
        )
    profile_claims = _profile_instructions(failed, instructions)
    if not instructions:
        instructions.append("Return one JSON object matching the OutputEnvelope schema that passes every rule.")
    wrong_ids = _claims_with(failed, _ID_CODES)
    claim_ids = sorted(set(uncited + wrong_ids + mismatched + unmarked + misplaced + overlapping + unsupported
                           + miscategorised + reasoning + profile_claims))
    return RegenDelta(
        attempt=next_attempt,
        failing_gate_ids=[r.gate_id for r in failed],
        reason_codes=codes,
        claim_ids=claim_ids,
        unknown_evidence_ids=unknown_ids,
        uncovered_sentences=uncovered,
        schema_paths=schema_paths,
        allowed_evidence_ids=list(allowed),
        expected_mode_label=decision.modeLabel,
        instructions=instructions,
    )


# Smart Notes domain profiles and dependency checks: code -> what the model should do about the claims it names.
_PROFILE_INSTRUCTIONS = (
    ({ReasonCode.DEPENDENCY_FORWARD_REFERENCE},
     "Claims {ids} use a term that only a later claim defines: put the defining claim first, or define the term "
     "in the claim that uses it."),
    ({ReasonCode.PROFILE_CLAIM_TYPE_NOT_ALLOWED, ReasonCode.PROFILE_OUT_OF_SCOPE},
     "Claims {ids} are outside this domain's profile (claim type or topic): leave them out or set their status to "
     "UNKNOWN."),
    ({ReasonCode.PROFILE_EVIDENCE_TYPE_MISSING, ReasonCode.MISSING_EQUATION, ReasonCode.MISSING_PROOF_STEPS,
      ReasonCode.MISSING_PSEUDOCODE},
     "Claims {ids} need evidence of the kind this domain expects (a measurement, the formula, proof steps or "
     "pseudocode): cite an item that holds it, or set their status to UNKNOWN."),
    ({ReasonCode.MISSING_UNITS}, "Give every number in claims {ids} its unit, as the evidence states it (e.g. 9.8 m/s²)."),
    ({ReasonCode.EQUATION_UNPARSEABLE},
     "Write the equations in claims {ids} so they parse: balanced brackets and something on both sides of '='."),
)


def _profile_instructions(failed: Sequence[GateResult], instructions: list[str]) -> list[str]:
    named: list[str] = []
    for codes, text in _PROFILE_INSTRUCTIONS:
        ids = _claims_with(failed, codes)
        if ids:
            instructions.append(text.format(ids=_fmt(ids)))
            named.extend(ids)
    return named


class RegenAction(Enum):
    PASS = "pass"
    REGEN = "regen"
    DEGRADE = "degrade"


@dataclass(frozen=True)
class RegenStep:
    """What follows one attempt, and why (the why is recorded in the degrade record as ``regen_stopped``)."""

    action: RegenAction
    why: str
    delta: RegenDelta | None = None

    def __post_init__(self) -> None:
        if (self.action is RegenAction.REGEN) != (self.delta is not None):
            raise ValueError("a regen step carries a delta, and only a regen step does")


def next_step(attempt: int, results: Sequence[GateResult], envelope_parsed: bool, budgets: BudgetConfig,
              elapsed_ms: float, pack: EvidencePack, decision: ModeDecision) -> RegenStep:
    """Pass, regen (with the delta for attempt + 1) or degrade, for attempt ``attempt`` (1-based).

    Fail closed: output that did not parse never passes, even if the policy skipped every gate that says so.
    """
    if envelope_parsed and not any(result.failed for result in results):
        return RegenStep(RegenAction.PASS, "every gate passed")
    if attempt >= 1 + budgets.max_regen_attempts:
        return RegenStep(RegenAction.DEGRADE, f"regen cap reached ({budgets.max_regen_attempts} regen attempt(s))")
    if elapsed_ms >= budgets.max_wall_time_ms:
        return RegenStep(RegenAction.DEGRADE, f"wall time spent ({budgets.max_wall_time_ms} ms)")
    if not is_regenerable(results):
        codes = sorted({code.value for result in failing(results) for code in result.reason_codes})
        return RegenStep(RegenAction.DEGRADE, "a new answer cannot fix: " + (", ".join(codes) or "unparsed output"))
    delta = build_delta(attempt + 1, results, pack, decision, budgets.max_claims, budgets.max_output_tokens)
    return RegenStep(RegenAction.REGEN, "failures a new answer can fix", delta)
