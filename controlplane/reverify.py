"""Re-verification of a user edit (grounded-generation contract §7.2: "verification MUST re-run; unsupported edits
MUST be blocked or flagged").

The user edits an answer the plane gave. ``reverify`` checks the edited paragraph against the evidence pack of the
original trace -- the same evidence, never a new retrieval -- exactly as a prose answer is checked (issue 14):

1. each sentence is re-anchored to that pack: inline markers first ([E2] kept from the original or typed by the
   user), then n-gram overlap, then embedding similarity (``controlplane.prose_attribution``);
2. the policy's gates run on the envelope this builds, with the original trace's ModeDecision;
3. every sentence gets PASS or FAIL with its reason codes and, for a FAIL, what evidence would fix it: the closest
   evidence sentence in the pack and the statement a new source would have to make;
4. the bundle's ``reverify.unsupported_edits`` decides what a failing edit becomes: ``block`` returns only the
   sentences that pass (the edit is not finalised), ``flag`` returns the whole edit with each failing sentence
   marked ``[UNSUPPORTED: CODES]``. Either way ``verified`` is false.

The result is stored as a new trace whose ``parent_trace_id`` is the original (recorded in its ``user_edit`` event),
so the trace viewer can show the edit beside the original.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from controlplane.contracts import (
    AttemptRecord,
    EvidencePack,
    FinishReason,
    Phase,
    TraceBundle,
    TraceOutcome,
    TraceStatus,
)
from controlplane.contracts.clock import utc_now
from controlplane.contracts.errors import InputError
from controlplane.contracts.text import strip_markers
from controlplane.follow_ups import recorded_reading
from controlplane.gates.interfaces import BudgetUsage, GateStage
from controlplane.prose_attribution import SentenceEmbedder, attribute_prose
from controlplane.verdicts import global_failures

EDITOR_ID = "user-edit"
MAX_EDIT_CHARS = 20_000


@dataclass(frozen=True)
class SentenceCheck:
    """One sentence of the edit: PASS or FAIL, why, and what evidence would fix a FAIL."""

    text: str
    span: tuple[int, int]  # in the checked text (the edit with the attributed markers)
    verdict: str  # PASS | FAIL
    reason_codes: tuple[str, ...]
    evidence_ids: tuple[str, ...]
    attributed_by: str  # marker | ngram | embedding | unknown | none
    fix: str | None = None
    closest_evidence: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {"text": self.text, "span": list(self.span), "verdict": self.verdict,
                "reason_codes": list(self.reason_codes), "evidence_ids": list(self.evidence_ids),
                "attributed_by": self.attributed_by, "fix": self.fix, "closest_evidence": self.closest_evidence}


@dataclass
class ReverifyResult:
    trace_id: str
    parent_trace_id: str
    status: str  # pass | blocked | flagged
    verified: bool
    assistant_text: str  # what may be shown / finalised under the bundle's unsupported_edits setting
    edited_text: str  # the user's text as received
    checked_text: str  # the edit with the attributed markers: what the gates checked
    sentences: list[SentenceCheck] = field(default_factory=list)
    gates: list[dict[str, Any]] = field(default_factory=list)
    original_text: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def as_json(self) -> dict[str, Any]:
        return {"trace_id": self.trace_id, "parent_trace_id": self.parent_trace_id, "status": self.status,
                "verified": self.verified, "assistant_text": self.assistant_text, "edited_text": self.edited_text,
                "checked_text": self.checked_text, "original_text": self.original_text,
                "sentences": [s.as_json() for s in self.sentences], "gates": self.gates}


def check_edit_text(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InputError("the edited text is empty: give the paragraph as the user edited it (--text FILE / \"text\")")
    if len(text) > MAX_EDIT_CHARS:
        raise InputError(f"the edited text holds {len(text)} characters; at most {MAX_EDIT_CHARS} are re-verified: "
                         "split the edit")
    return text


def original_pack(bundle: TraceBundle) -> EvidencePack:
    pack = bundle.retrieved_evidence_pack or bundle.evidence_pack
    if pack is None:
        raise InputError(f"trace {bundle.trace_id} recorded no evidence pack, so an edit of it cannot be re-verified")
    return pack


def _fix(check_text: str, codes: list[str], evidence_ids: list[str], closest: dict[str, Any] | None) -> str:
    plain = " ".join(strip_markers(check_text).split())
    needed = f'a source that states "{plain[:300]}"'
    if closest is None:
        return f"No evidence in the original pack is near this sentence: add {needed}, or remove the sentence."
    quote = f'{closest["evidence_id"]} says: "{closest["sentence"][:300]}"'
    if not evidence_ids:
        return f"The sentence cites no evidence and none supports it. Closest: {quote}. Add {needed}, or reword it " \
               f"to what {closest['evidence_id']} says."
    if any(code in codes for code in ("NUMBER_MISMATCH", "NEGATION_MISMATCH", "QUALIFIER_DRIFT",
                                      "STRENGTH_INFLATION")):
        return f"The edit changes what the evidence says ({', '.join(codes)}). {quote}. Restore that, or add {needed}."
    return f"{', '.join(evidence_ids)} does not support the sentence ({', '.join(codes) or 'FAIL'}). Closest: " \
           f"{quote}. Add {needed}, or reword it to the evidence."


def reverify(pipeline: Any, parent: TraceBundle, edited_text: Any, trace_id: str) -> tuple[ReverifyResult,
                                                                                           TraceBundle]:
    """Check ``edited_text`` against ``parent``'s evidence; returns the result and the trace bundle to store."""
    from controlplane.pipeline import EventRecorder, gate_summary

    text = check_edit_text(edited_text)
    policy = pipeline.policy.bundle
    pack = original_pack(parent)
    decision = parent.mode_decision
    if decision is None:
        raise InputError(f"trace {parent.trace_id} recorded no ModeDecision; it cannot be re-verified")
    question = edit_question(parent)
    created_at = utc_now()
    started = time.perf_counter()
    recorder = EventRecorder(trace_id)
    recorder.emit(Phase.EVIDENCE_INTAKE, {"evidence": [{"id": i.id, "hash": i.hash} for i in pack.evidence],
                                          "from_trace": parent.trace_id, "truncated": pack.truncated})
    recorder.emit(Phase.GATE_NORMALIZE_MODALITY, {"modality": "text", "chars": len(text), "user_edit": True})
    # The original's routing, as recorded (selector output included), so a replay of this trace routes the same way.
    routing = next((e.payload for e in parent.events if e.phase is Phase.GATE_INTENT_RISK), None)
    recorder.emit(Phase.GATE_INTENT_RISK, {**(routing or {"final": decision.model_dump(mode="json"),
                                                          "selector": {"called": False}}),
                                           "recorded_in": parent.trace_id})
    recorder.emit(Phase.GATE_LATTICE, {"gates": [p.as_dict() for p in pipeline.registry.plan(policy, decision,
                                                                                            message=question)],
                                       "policy_hash": pipeline.policy.hash})
    # Pre-generation gates on the original pack, never a new retrieval: the edit is checked against what the
    # answer was checked against.
    pre_plan = pipeline.registry.plan(policy, decision, GateStage.PRE_GENERATION, message=question)
    pre_results = pipeline.run_stage(pre_plan, decision, pack, question, BudgetUsage(attempt=0), recorder, None)
    embedder = SentenceEmbedder(pack)
    built = attribute_prose(text, pack, decision, policy.prose, embedder)
    recorder.emit(Phase.USER_EDIT, {"parent_trace_id": parent.trace_id, "edited_text": text,
                                    "original_text": parent.outcome.assistant_text if parent.outcome else "",
                                    "prose": built.record()})
    raw = built.text()
    evaluation = pipeline.evaluate_attempt(raw, decision, pack, question,
                                           BudgetUsage(attempt=1, elapsed_ms=(time.perf_counter() - started) * 1000))
    for result in evaluation.results:
        recorder.emit(Phase.GATE, result.model_dump(mode="json"), gate_id=result.gate_id, attempt=1)
    everywhere = [code.value for code in global_failures(evaluation.results)]
    checked = built.envelope["assistant_text"]
    sentences: list[SentenceCheck] = []
    if len(evaluation.claims) != len(built.attributions):  # the envelope did not parse: every sentence fails
        for attribution in built.attributions:
            sentences.append(SentenceCheck(attribution.text, (attribution.start, attribution.end), "FAIL",
                                           tuple(everywhere or ["PRECONDITION_FAILED"]), attribution.evidence_ids,
                                           attribution.method, "The edit could not be checked as a whole: "
                                           + ", ".join(everywhere or ["PRECONDITION_FAILED"])))
    for claim, attribution in zip(evaluation.claims, built.attributions):
        if len(evaluation.claims) != len(built.attributions):
            break
        codes = list(dict.fromkeys([*claim.reason_codes, *everywhere]))
        verdict = sentence_verdict(claim, codes)
        fix = closest = None
        if verdict == "FAIL":
            best = embedder.best(strip_markers(claim.text))
            closest = ({"evidence_id": best[0], "sentence": best[1], "similarity": round(best[2], 4)}
                       if best is not None else None)
            fix = _fix(claim.text, codes, claim.evidence_ids, closest)
        span = claim.span or (0, 0)
        sentences.append(SentenceCheck(claim.text, span, verdict, tuple(codes), tuple(claim.evidence_ids),
                                       attribution.method, fix, closest))
    all_pass = edit_passes(evaluation, pre_results, len(built.attributions))
    verified = all_pass and all(c.status != "UNKNOWN" for c in evaluation.claims)
    mode = policy.reverify.unsupported_edits
    if all_pass:
        status, shown = "pass", checked
    elif mode == "flag":
        status, shown = "flagged", _flagged(checked, sentences)
    else:
        status, shown = "blocked", " ".join(s.text for s in sentences if s.verdict == "PASS")
    if status != "pass":
        recorder.emit(Phase.DEGRADE, {"mode": f"reverify_{status}", "failed_sentences": [
            {"text": s.text, "reason_codes": list(s.reason_codes), "fix": s.fix}
            for s in sentences if s.verdict == "FAIL"]})
    trace_status = TraceStatus.PASS if status == "pass" else TraceStatus.DEGRADED
    recorder.emit(Phase.FINAL, {"status": trace_status.value, "attempts": 1, "verified": verified,
                                "assistant_text_chars": len(shown), "reverify": status})
    result = ReverifyResult(trace_id, parent.trace_id, status, verified, shown, text, checked, sentences,
                            [gate_summary(g) for g in evaluation.results],
                            parent.outcome.assistant_text if parent.outcome else "")
    record = AttemptRecord(attempt=1, raw_output=raw,
                           envelope=evaluation.parsed.data if isinstance(evaluation.parsed.data, dict) else None,
                           finish_reason=FinishReason.STOP, tokens_in=0, tokens_out=0, latency_ms=0.0,
                           gate_results=evaluation.results, regen_delta=None)
    bundle = TraceBundle(
        trace_id=trace_id, created_at=created_at, messages=list(parent.messages), mode_decision=decision,
        evidence_pack=pack, attempts=[record],
        outcome=TraceOutcome(status=trace_status, assistant_text=shown, verified=verified,
                             claims=[c.as_dict() for c in evaluation.claims],
                             degrade=None if status == "pass" else {"mode": f"reverify_{status}"}),
        events=recorder.events, policy=pipeline.policy.ref(include_content=True),
        model={"model_id": EDITOR_ID, "model_hash": "", "max_context_length": 0},
        budgets=policy.budgets, redaction={"applied": False}, parent_trace_id=parent.trace_id,
    )
    return result, bundle


def edit_question(parent: TraceBundle) -> str:
    """The question the edit is checked under: the parent's last user message as the parent read it (a follow-up
    with the previous question, controlplane/follow_ups.py), normalised as every request's is."""
    from controlplane.router import normalize_text

    reading = recorded_reading(parent.events)
    return normalize_text(reading["read_as"] if reading else next((str(m.get("content", "")) for m in reversed(parent.messages)
                                           if m.get("role") == "user"), ""))


def sentence_verdict(claim: Any, codes: list[str]) -> str:
    """PASS or FAIL for one sentence of the edit (``codes``: its reason codes and the attempt-wide failures)."""
    if not claim.evidence_ids and claim.status == "UNKNOWN" and not codes:
        return "PASS"  # states that the evidence is silent: honest, but never "verified"
    return "FAIL" if codes or claim.verdict != "PASS" else "PASS"


def edit_passes(evaluation: Any, pre_results: list[Any], sentence_count: int) -> bool:
    """Whether the whole edit passes: every gate, and every one of its ``sentence_count`` sentences. Replay decides
    a recorded edit's status with this same rule (an edit is never regenerated)."""
    if not evaluation.passed or any(r.failed for r in pre_results) or not sentence_count:
        return False
    if len(evaluation.claims) != sentence_count:  # the envelope did not parse: every sentence fails
        return False
    everywhere = [code.value for code in global_failures(evaluation.results)]
    return all(sentence_verdict(claim, list(dict.fromkeys([*claim.reason_codes, *everywhere]))) == "PASS"
               for claim in evaluation.claims)


def _flagged(checked: str, sentences: list[SentenceCheck]) -> str:
    out, cursor = "", 0
    for sentence in sentences:
        _start, end = sentence.span
        out += checked[cursor:end]
        if sentence.verdict == "FAIL":
            out += f" [UNSUPPORTED: {', '.join(sentence.reason_codes) or 'FAIL'}]"
        cursor = end
    return out + checked[cursor:]
