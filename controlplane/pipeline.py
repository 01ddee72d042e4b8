"""The request pipeline: route, build evidence, generate, gate, regen, degrade, and record every step.

Every step is a TraceEvent with ``metadata.seq`` 0, 1, 2, ... per run. The first four phases keep the seed's order
contract (evidence_intake, gate_normalize_modality, gate_intent_risk, gate_lattice); later phases append.
The caller's messages and evidence are never mutated.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from controlplane.answer_modes import FALLBACK_NOTICE, QuoteAnswering, answer_mode_for
from controlplane.attempt_history import with_failure_history
from controlplane.contracts import (
    AnswerMode,
    AttemptRecord,
    ClaimStatus,
    EnvelopeFormat,
    EvidenceItem,
    EvidencePack,
    FinishReason,
    GateResult,
    ModeDecision,
    Phase,
    PolicyRef,
    ReasonCode,
    RegenDelta,
    TraceBundle,
    TraceEvent,
    TraceOutcome,
    TraceStatus,
)
from controlplane.contracts.clock import utc_now
from controlplane.contracts.errors import ConfigurationError, InputError
from controlplane.degrade import DegradeResult, degrade, deliver, refuse
from controlplane.evidence_pack import EvidenceError, build_pack, extend_pack
from controlplane.evidence_pack.staleness import parse_time
from controlplane.follow_ups import read_question, recorded_reading
from controlplane.gates.attempt import AttemptView
from controlplane.gates.envelope_parsing import ParsedOutput, parse_envelope
from controlplane.gates.interfaces import BudgetUsage, GateInput, GateServices, GateStage
from controlplane.gates.registry import GateRegistry, PlannedGate
from controlplane.gates.sufficiency import response_confidence
from controlplane.log import get_logger
from controlplane.model_boundary import GenerationParams, IntelligenceModule, IntelligenceResponse
from controlplane.policy_bundles.loader import LoadedPolicy, load_bundle
from controlplane.prompts import envelope_schema_for, main_context
from controlplane.prose_attribution import attribute_prose, prose_context, without_unfinished_tail
from controlplane.realtime import RealtimeReport, handle_realtime
from controlplane.regen import RegenAction, next_step
from controlplane.router import follow_evidence, needs_selector, normalize_text, route
from controlplane.selector import run_selector
from controlplane.substrate import substrate_roots
from controlplane.traces.store import TraceStore
from controlplane.verdicts import ClaimVerdict, claim_verdicts

ROLES = ("system", "user", "assistant")


def new_trace_id() -> str:
    """Time-ordered, unique across processes: milliseconds since the epoch plus 64 random bits."""
    return f"tr_{int(time.time() * 1000):012x}{secrets.token_hex(8)}"


class EventRecorder:
    """Assigns seq 0, 1, 2, ... and keeps the events of one trace run in order."""

    def __init__(self, trace_id: str):
        self.trace_id = trace_id
        self.events: list[TraceEvent] = []
        self._log = get_logger().bind(trace_id=trace_id)

    def emit(self, phase: Phase, payload: dict[str, Any], gate_id: str | None = None, attempt: int | None = None) -> TraceEvent:
        seq = len(self.events)
        event = TraceEvent(
            trace_id=self.trace_id, seq=seq, phase=phase, gate_id=gate_id, payload=payload, ts=utc_now(),
            metadata={"seq": seq, "attempt": attempt},
        )
        self.events.append(event)
        self._log.debug("trace_event", seq=seq, phase=phase.value, gate_id=gate_id, attempt=attempt)
        return event


@dataclass
class AttemptEvaluation:
    parsed: ParsedOutput
    results: list[GateResult]
    claims: list[ClaimVerdict]
    # the attempt derived once (sentences, anchors, atoms, NLI scores): what the gates read, verdicts and degrade read
    view: AttemptView | None = None

    @property
    def passed(self) -> bool:
        # Fail closed: output that did not parse never passes, even if the policy skipped every gate that says so.
        return self.parsed.envelope is not None and not any(result.failed for result in self.results)


@dataclass
class RunResult:
    trace_id: str
    status: TraceStatus
    assistant_text: str
    verified: bool
    mode_decision: ModeDecision
    evidence_pack: EvidencePack
    attempts: list[AttemptRecord]
    pre_generation: list[GateResult]
    claims: list[ClaimVerdict]
    degrade: dict[str, Any] | None
    model: dict[str, Any]
    events: list[TraceEvent] = field(default_factory=list)
    # The request's TraceBundle, exactly as stored (built even when nothing is stored): the EBOM document is
    # rendered from it (controlplane.ebom), so a reply and its stored or exported trace render alike.
    trace_bundle: TraceBundle | None = None
    realtime: dict[str, Any] | None = None  # EBOM real-time query handling (controlplane/realtime.py), if detected
    # How a follow-up was read with the question before it (controlplane/follow_ups.py); None when read as sent.
    follow_up: dict[str, Any] | None = None

    def as_ebom(self) -> dict[str, Any]:
        from controlplane.ebom import ebom_document

        if self.trace_bundle is None:
            raise ValueError("this run has no trace bundle to render")
        return ebom_document(self.trace_bundle)

    def gate_results_by_attempt(self) -> list[dict[str, Any]]:
        return [
            {
                "attempt": record.attempt,
                "finish_reason": record.finish_reason.value,
                "gates": [gate_summary(g) for g in record.gate_results],
            }
            for record in self.attempts
        ]

    def verification_summary(self) -> dict[str, Any]:
        """EBOM confidence and source warnings from the last attempt's gates, for display beside the answer."""
        if not self.attempts:
            return {"confidence": None, "warnings": [], **({"realtime": self.realtime} if self.realtime else {})}
        confidence, warnings = None, []
        for gate in self.attempts[-1].gate_results:
            if gate.gate_id == "nli_entailment" and isinstance(gate.details.get("confidence"), dict):
                confidence = gate.details["confidence"]
            warnings.extend(str(w) for w in gate.details.get("warnings", []) if isinstance(w, str))
        if confidence is not None and self.status is TraceStatus.DEGRADED:
            confidence = self._shown_confidence(confidence)
        if self.realtime:
            warnings.extend(self.realtime.get("staleness_warnings", []))
        summary: dict[str, Any] = {"confidence": confidence, "warnings": sorted(set(warnings))}
        if self.realtime:
            summary["realtime"] = self.realtime
        return summary

    def _shown_confidence(self, report: dict[str, Any]) -> dict[str, Any]:
        """The confidence of what a degraded answer shows: a removed claim's (often near 0) would put "answer
        refused" beside an answer that is shown (EBOM metadata.confidence counts shown claims too)."""
        shown = {claim.claim_id for claim in self.claims if claim.verdict == "PASS"}
        per_claim = {cid: value for cid, value in (report.get("claims") or {}).items() if cid in shown}
        return response_confidence(per_claim, report.get("domain_minimum", 0.0)).as_dict()

    def as_json(self) -> dict[str, Any]:
        return {
            "trace_id": self.trace_id,
            "status": self.status.value,
            "attempts": len(self.attempts),
            "assistant_text": self.assistant_text,
            "verified": self.verified,
            "mode_decision": self.mode_decision.model_dump(mode="json"),
            "evidence_ids": self.evidence_pack.ids(),
            "pre_generation_gates": [gate_summary(g) for g in self.pre_generation],
            "gate_results": self.gate_results_by_attempt(),
            "claims": [c.as_dict() for c in self.claims],
            "degrade": self.degrade,
            "verification": self.verification_summary(),
            "model": self.model.get("model_id"),
        }


def gate_summary(result: GateResult) -> dict[str, Any]:
    return {
        "gate_id": result.gate_id,
        "result": result.result.value,
        "reason_codes": [c.value for c in result.reason_codes],
        "latency_ms": result.measured.latency_ms,
    }


def validate_messages(messages: Any, max_chars: int) -> list[dict[str, str]]:
    """A clean copy of the caller's messages, or an InputError naming the bad field."""
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    if not isinstance(messages, Sequence) or not messages:
        raise InputError("messages must be a non-empty list of {\"role\", \"content\"} objects")
    clean = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise InputError(f"messages[{index}] must be an object with 'role' and 'content'")
        role, content = message.get("role"), message.get("content")
        if role not in ROLES:
            raise InputError(f"messages[{index}].role must be one of {', '.join(ROLES)}, not {role!r}")
        if not isinstance(content, str):
            raise InputError(f"messages[{index}].content must be a string")
        if not _is_unicode(content):
            raise InputError(f"messages[{index}].content is not valid Unicode (it holds an unpaired surrogate)")
        clean.append({"role": role, "content": content})
    if clean[-1]["role"] != "user" or not clean[-1]["content"].strip():
        raise InputError("the last message must be a non-empty user message (the question to answer)")
    total = sum(len(m["content"]) for m in clean)
    if total > max_chars:
        raise InputError(
            f"messages hold {total} characters; the policy allows {max_chars} (budgets.max_message_chars): "
            "shorten the conversation or raise the cap"
        )
    return clean


class Pipeline:
    """The engine of one request, built from parts it is given. Safe to share across threads: no per-request state.

    Requests are assembled in one place, ``controlplane.ControlPlane`` (controlplane/api.py): it resolves the policy
    (explicit, promoted with its signature checked, or shipped), loads the model and builds the gate services (NLI
    score cache, critic, retriever) and hands them to this class. Built directly (engine tests), it runs the shipped
    bundle with no services unless given others.
    """

    def __init__(
        self,
        model: IntelligenceModule,
        policy: LoadedPolicy | None = None,
        selector_model: IntelligenceModule | None = None,
        registry: GateRegistry | None = None,
        store: TraceStore | None = None,
        services: GateServices | None = None,
        answer_mode: AnswerMode | None = None,
        answerability_scorer: Any | None = None,
        envelope: EnvelopeFormat | None = None,
    ):
        self.policy = policy or load_bundle()
        self.envelope = envelope  # None: the bundle's ``envelope`` (json or prose, issue 14)
        self.answer_mode = answer_mode  # None: the bundle decides (answer_mode, answer_mode_by_model)
        self._scorer = answerability_scorer
        self.model = model
        self.selector_model = selector_model if selector_model is not None else model
        self.registry = registry or GateRegistry()
        self.store = store
        self.services = services or GateServices()
        missing = self.registry.missing_gates(self.policy.bundle)
        if missing:
            raise ConfigurationError(
                f"policy bundle {self.policy.source} names gate(s) {', '.join(missing)} that no plugin registers; "
                "install the plugin or remove them from the bundle's gates"
            )

    # -- pieces shared with verify and replay --------------------------------------------------------------------
    def build_pack(self, evidence: Any = None, facts: Any = None, rules: Mapping[str, Any] | None = None) -> EvidencePack:
        if isinstance(evidence, EvidencePack):
            return evidence
        try:
            return build_pack(
                caller_items=evidence, facts=facts, budget=self.policy.bundle.budgets, rules=rules
            )
        except EvidenceError as exc:
            raise InputError(str(exc)) from None

    def decide(self, message: str, recorder: EventRecorder | None = None,
               pack: EvidencePack | None = None) -> ModeDecision:
        policy = self.policy.bundle
        draft = route(message, policy)
        decision, selector_payload = draft, None
        if needs_selector(draft, policy) and self.selector_model is not None:
            outcome = run_selector(message, draft, policy, self.selector_model)
            decision = outcome.decision
            selector_payload = {
                "called": True,
                "problem": outcome.problem,
                "raw_output": outcome.response.text if outcome.response else None,
                "tokens_out": outcome.response.tokens_used if outcome.response else 0,
            }
        if decision is not draft:  # real-time detection is the router's, whatever the selector decided
            decision = decision.model_copy(update={"timeSensitiveQuery": draft.timeSensitiveQuery,
                                                   "realtimeKeywords": list(draft.realtimeKeywords)})
        if pack is not None:  # rigor follows the evidence too; the writing exemption is for the user's own text
            decision = follow_evidence(decision, [item.text for item in pack.evidence], policy)
        if recorder is not None:
            recorder.emit(
                Phase.GATE_INTENT_RISK,
                {
                    "draft": draft.model_dump(mode="json"),
                    "final": decision.model_dump(mode="json"),
                    "selector": selector_payload or {"called": False},
                },
            )
        return decision

    def evaluate_attempt(
        self,
        raw_output: str | None,
        decision: ModeDecision,
        pack: EvidencePack,
        user_message: str,
        usage: BudgetUsage,
        finish_reason: FinishReason = FinishReason.STOP,
        lattice: Sequence[PlannedGate] | None = None,
        seen_as: Callable[[GateResult], GateResult] | None = None,
    ) -> AttemptEvaluation:
        """Parse the output once, derive its view once, run the post-generation gates on it. ``lattice``: the
        request's gate plan (planned once per request); without it the gates are planned here. ``seen_as``: what the
        later gates see of a gate's result (GateRegistry.run; replay's recorded verdicts for redacted evidence)."""
        parsed = parse_envelope(raw_output, truncated_by_model=finish_reason is FinishReason.MAX_TOKENS)
        view = AttemptView.over(parsed.envelope, pack)
        if lattice is None:
            lattice = self.registry.plan(self.policy.bundle, decision, message=user_message)
        plan = self.registry.stage_plan(lattice, GateStage.POST_GENERATION, decision, parsed.envelope, user_message,
                                        view)
        inp = GateInput(
            mode_decision=decision,
            evidence_pack=pack,
            policy=self.policy.bundle,
            spec=plan[0].spec if plan else None,  # replaced per gate by the registry
            user_message=user_message,
            raw_output=raw_output,
            envelope=parsed.envelope,
            parse_issues=parsed.issues,
            parse_failure=parsed.failure,
            usage=usage,
            services=self.services,
            attempt=view,
        )
        results = self.registry.run(plan, inp, seen_as)
        return AttemptEvaluation(parsed, results, claim_verdicts(parsed.envelope, results, view), view)

    def run_pre_generation(self, decision: ModeDecision, pack: EvidencePack, user_message: str, usage: BudgetUsage,
                           recorder: EventRecorder, lattice: Sequence[PlannedGate] | None = None,
                           ) -> tuple[list[GateResult], EvidencePack, int]:
        """Pre-generation gates (retrieval_required). Retrieved evidence is merged and the gates run again once."""
        if lattice is None:
            lattice = self.registry.plan(self.policy.bundle, decision, message=user_message)
        plan = self.registry.stage_plan(lattice, GateStage.PRE_GENERATION, decision, message=user_message)
        tool_calls = 0
        results = self.run_stage(plan, decision, pack, user_message, usage, recorder, None)
        retrieved = [
            item for r in results if ReasonCode.RETRIEVAL_PERFORMED in r.reason_codes
            for item in r.details.get("retrieved", [])
        ]
        if any(ReasonCode.RETRIEVAL_PERFORMED in r.reason_codes or ReasonCode.RETRIEVAL_EMPTY in r.reason_codes
               for r in results):
            tool_calls += 1
        if retrieved:
            items = [EvidenceItem.model_validate(raw) for raw in retrieved]
            pack = extend_pack(pack, items, self.policy.bundle.budgets)
            recorder.emit(
                Phase.RETRIEVAL,
                {
                    "retrieved": [
                        {"id": i.id, "score": i.retrieval_score, "document_id": i.provenance.document_id,
                         "hash": i.hash, "index": i.provenance.index, "state_root": i.provenance.state_root,
                         **({"library": i.library.model_dump(mode="json")} if i.library else {})}
                        for i in pack.evidence
                    ],
                    "truncated": pack.truncated,
                    "tool_calls": tool_calls,
                },
            )
            results = self.run_stage(plan, decision, pack, user_message, dataclasses.replace(usage, tool_calls=tool_calls),
                                      recorder, None)
        return results, pack, tool_calls

    def run_stage(self, plan: list[PlannedGate], decision: ModeDecision, pack: EvidencePack, user_message: str,
                   usage: BudgetUsage, recorder: EventRecorder, attempt: int | None) -> list[GateResult]:
        results = []
        for planned in plan:
            inp = GateInput(
                mode_decision=decision, evidence_pack=pack, policy=self.policy.bundle, spec=planned.spec,
                user_message=user_message, usage=usage, services=self.services,
            )
            result = self.registry.run_one(planned, inp)
            results.append(result)
            recorder.emit(Phase.GATE, result.model_dump(mode="json"), gate_id=result.gate_id, attempt=attempt)
        return results

    # -- the request ---------------------------------------------------------------------------------------------
    def run(
        self,
        messages: Any,
        evidence: Any = None,
        facts: Any = None,
        session_id: str | None = None,
        trace_id: str | None = None,
        envelope: EnvelopeFormat | None = None,
    ) -> RunResult:
        policy = self.policy.bundle
        budgets = policy.budgets
        clean = validate_messages(messages, budgets.max_message_chars)  # before anything is stored
        pack = self.build_pack(evidence, facts)
        trace_id = trace_id or new_trace_id()
        created_at = utc_now()
        started = time.perf_counter()
        if self.store is not None:
            self.store.begin(trace_id, clean, created_at=created_at, session_id=session_id)
        try:
            result = self._run(trace_id, created_at, started, clean, pack, envelope)
        except Exception as exc:
            if self.store is not None:
                self.store.mark_error(trace_id, f"{type(exc).__name__}: {exc}"[:500])
            raise
        result.follow_up = recorded_reading(result.events)
        result.trace_bundle = self._bundle(trace_id, created_at, clean, result)
        if self.store is not None:
            self.store.save(result.trace_bundle, session_id=session_id)
        return result

    def _run(self, trace_id: str, created_at: str, started: float, messages: list[dict[str, str]],
             pack: EvidencePack, envelope: EnvelopeFormat | None = None) -> RunResult:
        policy = self.policy.bundle
        budgets = policy.budgets
        recorder = EventRecorder(trace_id)
        recorder.emit(
            Phase.EVIDENCE_INTAKE,
            {
                "evidence": [{"id": i.id, "hash": i.hash, "type": i.type, "trust_tier": i.trust_tier.value,
                              "sphere": i.sphere.value,
                              **({"library": i.library.model_dump(mode="json")} if i.library else {})}
                             for i in pack.evidence],
                "truncated": pack.truncated,
                "dropped_ids": pack.dropped_ids,
                "token_count": pack.token_count,
                "state_roots": substrate_roots(pack),
            },
        )
        # A follow-up ("And for Enterprise plan keys?") is read with the question before it (controlplane/follow_ups.py)
        reading = read_question(messages, follow_ups=policy.router.follow_ups)
        user_message = reading.question
        normalized = normalize_text(user_message)
        recorder.emit(
            Phase.GATE_NORMALIZE_MODALITY,
            {"modality": "text", "changed": normalized != user_message.strip(), "chars": len(user_message),
             "normalized_chars": len(normalized), **({"follow_up": reading.as_dict()} if reading.rule else {})},
        )
        # validate_messages made them {"role": str, "content": str}: a copy of each dict is a deep copy
        model_messages = [dict(message) for message in messages]
        model_messages[-1]["content"] = normalized
        decision = self.decide(normalized, recorder, pack)
        lattice = self.registry.plan(policy, decision, message=normalized)  # once per request; stages narrow it
        recorder.emit(Phase.GATE_LATTICE, {"gates": [p.as_dict() for p in lattice], "policy_hash": self.policy.hash})

        usage = BudgetUsage(attempt=0, elapsed_ms=_elapsed(started))
        pre_results, pack, tool_calls = self.run_pre_generation(decision, pack, normalized, usage, recorder, lattice)
        model_meta = self.model.metadata().as_dict()
        if any(r.failed for r in pre_results):
            failing = [r for r in pre_results if r.failed]
            codes = [c for r in failing for c in r.reason_codes]
            outcome = refuse(decision, [], codes, pack, 1, why_override=_pre_generation_reason(failing))
            return self._finish(recorder, trace_id, decision, pack, [], pre_results, outcome, [], model_meta)
        pack, realtime = self.handle_realtime(decision, pack, normalized, recorder)
        if realtime is not None and realtime.refreshed_ids:
            tool_calls += 1

        records: list[AttemptRecord] = []
        delta: RegenDelta | None = None
        evaluation: AttemptEvaluation | None = None
        max_attempts = 1 + budgets.max_regen_attempts
        answer_mode = answer_mode_for(policy, str(model_meta.get("model_id", "")), self.answer_mode)
        quoting = (self._quote_answering(normalized, pack, decision, reading.focus)
                   if answer_mode is AnswerMode.QUOTE else None)
        # Prose concerns the turns where the model writes; in quote mode the server composes the envelope anyway.
        prose = (envelope or self.envelope or policy.envelope) is EnvelopeFormat.PROSE and quoting is None
        prose_record: dict[str, Any] = {}
        for attempt in range(1, max_attempts + 1):
            if quoting is not None:  # the model only chooses; the server composes the envelope (controlplane/quote.py)
                turn = quoting.turn(model_messages, attempt)
                response = turn.decided or _generate(self.model, normalized, turn.context, turn.params)
                raw_output = quoting.envelope_text(turn, response)
            elif prose:  # plain text from the model; the server attributes it and writes the envelope
                response = _generate(self.model, normalized, prose_context(model_messages, pack, attempt, delta),
                                     GenerationParams(temperature=0.0, max_tokens=budgets.max_output_tokens))
                raw_output, prose_record = self._prose_envelope(response, pack, decision)
            else:
                context = main_context(model_messages, pack, decision, attempt, delta)
                params = GenerationParams(
                    temperature=0.0, max_tokens=budgets.max_output_tokens,
                    json_schema=envelope_schema_for(pack, decision, max_claims=budgets.max_claims),
                )
                response = _generate(self.model, normalized, context, params)
                raw_output = response.text
            recorder.emit(
                Phase.MODEL_CALL,
                {"attempt": attempt, "model_id": response.model_id, "finish_reason": response.finish_reason.value,
                 "tokens_in": response.tokens_in, "tokens_out": response.tokens_used,
                 "latency_ms": round(response.latency_ms, 3), "error": response.error,
                 "output_chars": len(response.text), "answer_mode": answer_mode.value,
                 **({"quote": turn.record} if quoting is not None else {}),
                 **({"envelope": "prose", "prose": prose_record} if prose and quoting is None else {})},
                attempt=attempt,
            )
            usage = BudgetUsage(
                attempt=attempt, regen_attempts_used=attempt - 1, tool_calls=tool_calls,
                tokens_in=response.tokens_in, tokens_out=response.tokens_used, elapsed_ms=_elapsed(started),
                finish_reason=response.finish_reason.value,
            )
            evaluation = self.evaluate_attempt(raw_output, decision, pack, normalized, usage, response.finish_reason,
                                               lattice)
            for result in evaluation.results:
                recorder.emit(Phase.GATE, result.model_dump(mode="json"), gate_id=result.gate_id, attempt=attempt)
            records.append(
                AttemptRecord(
                    attempt=attempt, raw_output=raw_output,
                    envelope=evaluation.parsed.data if isinstance(evaluation.parsed.data, dict) else None,
                    finish_reason=response.finish_reason, tokens_in=response.tokens_in,
                    tokens_out=response.tokens_used, latency_ms=round(response.latency_ms, 3),
                    gate_results=evaluation.results, regen_delta=delta,
                )
            )
            step = next_step(attempt, evaluation.results, evaluation.parsed.envelope is not None, budgets,
                             _elapsed(started), pack, decision)
            if step.action is RegenAction.PASS:
                status = TraceStatus.PASS if attempt == 1 else TraceStatus.REGEN_PASS
                outcome = deliver(policy, decision, pack, evaluation.parsed.envelope, evaluation.claims,
                                  evaluation.results, status, view=evaluation.view)
                if quoting is not None and quoting.notice and outcome.status is status:
                    # after the checked text, so claim spans stay valid; the system's own notice, not a claim
                    outcome = dataclasses.replace(outcome, assistant_text=f"{outcome.assistant_text}\n\n{quoting.notice}")
                if outcome.record:
                    recorder.emit(Phase.DEGRADE, outcome.record)
                return self._finish(recorder, trace_id, decision, pack, records, pre_results, outcome,
                                    evaluation.claims, model_meta, realtime)
            if quoting is not None:
                quoting.after_failure(turn, evaluation.parsed.envelope,
                                      [c.claim_id for c in evaluation.claims if c.verdict == "FAIL"])
            if step.action is RegenAction.DEGRADE:
                break
            delta = step.delta
            recorder.emit(Phase.REGEN, delta.model_dump(mode="json"), attempt=attempt + 1)

        assert evaluation is not None
        if answer_mode is AnswerMode.ABSTRACTIVE_THEN_QUOTE:
            fallback = self._quote_fallback(recorder, records, model_messages, normalized, pack, decision, started,
                                            tool_calls, lattice, reading.focus)
            if fallback is not None:
                outcome, claims = fallback
                return self._finish(recorder, trace_id, decision, pack, records, pre_results, outcome, claims,
                                    model_meta, realtime)
        outcome = degrade(policy, decision, pack, evaluation.parsed.envelope, evaluation.claims, evaluation.results,
                          view=evaluation.view)
        outcome.record.update({"final_attempt": len(records),
                               "failing_gates": [r.gate_id for r in evaluation.results if r.failed],
                               "regen_stopped": step.why})
        outcome = with_failure_history(outcome, records)
        recorder.emit(Phase.DEGRADE, outcome.record)
        return self._finish(recorder, trace_id, decision, pack, records, pre_results, outcome, evaluation.claims,
                            model_meta, realtime)

    def _prose_envelope(self, response: IntelligenceResponse, pack: EvidencePack,
                        decision: ModeDecision) -> tuple[str, dict[str, Any]]:
        """The envelope the gates check, built from the model's prose; a failed or empty call stays as it is (the
        output gates fail it with a reason code)."""
        if response.finish_reason is FinishReason.ERROR or not response.text.strip():
            return response.text, {"model_output": response.text[:2000], "built": False}
        text, cut = response.text, ""
        if response.finish_reason is FinishReason.MAX_TOKENS:
            text, cut = without_unfinished_tail(text)
            if not text.strip():
                return response.text, {"model_output": response.text[:2000], "built": False, "cut_tail": cut}
        built = attribute_prose(text, pack, decision, self.policy.bundle.prose)
        return built.text(), {**built.record(), "built": True, **({"cut_tail": cut} if cut else {})}

    def _quote_answering(self, question: str, pack: EvidencePack, decision: ModeDecision,
                         focus: Sequence[str] = ()) -> QuoteAnswering:
        scorer = None
        if self.policy.bundle.quote.answerability in ("scorer", "both"):
            if self._scorer is None:
                from controlplane.answerability import shipped_scorer

                self._scorer = shipped_scorer()
            scorer = self._scorer
        return QuoteAnswering(self.policy.bundle, question, pack, decision, scorer, self.services.nli_backend, focus)

    def _quote_fallback(self, recorder: EventRecorder, records: list[AttemptRecord], messages: list[dict[str, str]],
                        question: str, pack: EvidencePack, decision: ModeDecision, started: float, tool_calls: int,
                        lattice: Sequence[PlannedGate] | None = None, focus: Sequence[str] = (),
                        ) -> tuple[DegradeResult, list[ClaimVerdict]] | None:
        """abstractive_then_quote: one quote attempt after the written answer failed. Its envelope goes through
        every gate; only if it passes is it shown, marked as a degrade, instead of a bare refusal."""
        quoting = self._quote_answering(question, pack, decision, focus)
        attempt = len(records) + 1
        turn = quoting.turn(messages, attempt)
        response = turn.decided or _generate(self.model, question, turn.context, turn.params)
        raw_output = quoting.envelope_text(turn, response)
        recorder.emit(Phase.MODEL_CALL, {"attempt": attempt, "model_id": response.model_id, "answer_mode": "quote",
                                         "fallback": True, "finish_reason": response.finish_reason.value,
                                         "tokens_in": response.tokens_in, "tokens_out": response.tokens_used,
                                         "latency_ms": round(response.latency_ms, 3), "error": response.error,
                                         "quote": turn.record}, attempt=attempt)
        budgets = self.policy.bundle.budgets
        usage = BudgetUsage(attempt=attempt, regen_attempts_used=budgets.max_regen_attempts, tool_calls=tool_calls,
                            tokens_in=response.tokens_in, tokens_out=response.tokens_used,
                            elapsed_ms=_elapsed(started), finish_reason=response.finish_reason.value)
        evaluation = self.evaluate_attempt(raw_output, decision, pack, question, usage, response.finish_reason,
                                           lattice)
        for result in evaluation.results:
            recorder.emit(Phase.GATE, result.model_dump(mode="json"), gate_id=result.gate_id, attempt=attempt)
        records.append(AttemptRecord(
            attempt=attempt, raw_output=raw_output,
            envelope=evaluation.parsed.data if isinstance(evaluation.parsed.data, dict) else None,
            finish_reason=response.finish_reason, tokens_in=response.tokens_in, tokens_out=response.tokens_used,
            latency_ms=round(response.latency_ms, 3), gate_results=evaluation.results, regen_delta=None,
        ))
        if not evaluation.passed:
            return None
        # The same last display check as every passing attempt (G-1): quotes shown only if every sentence is covered
        # by a passing claim; otherwise the abstractive attempt's degrade stands.
        shown = deliver(self.policy.bundle, decision, pack, evaluation.parsed.envelope, evaluation.claims,
                        evaluation.results, TraceStatus.DEGRADED, view=evaluation.view)
        if shown.record:
            return None
        text = f"{shown.assistant_text}\n\n{FALLBACK_NOTICE}"  # after: claim spans stay valid
        outcome = with_failure_history(DegradeResult(TraceStatus.DEGRADED, text, {
            "mode": "quote_fallback", "final_attempt": attempt,
            "quoted": [c.text for c in evaluation.claims if c.status != "UNKNOWN"]}), records[:-1])
        recorder.emit(Phase.DEGRADE, outcome.record)
        return outcome, evaluation.claims

    def handle_realtime(self, decision: ModeDecision, pack: EvidencePack, question: str,
                        recorder: EventRecorder | None = None, retrieve: bool = True,
                        ) -> tuple[EvidencePack, RealtimeReport | None]:
        """EBOM real-time query handling (controlplane/realtime.py): staleness, re-retrieval, LIMINAL marking."""
        gates = self.policy.bundle.gates
        spec = next((g for g in gates if g.gate_id == "retrieval_required"), None)
        params = spec.params if spec else {}
        # the gates' clock (params.now, for reproducible tests and replays), so staleness here and there agrees
        clock = next((g.params["now"] for g in gates if g.params.get("now")), None)
        now = parse_time(clock) or datetime.now(UTC)
        before = set(pack.ids())
        pack, report = handle_realtime(decision, pack, now=now, query=question,
                                       retriever=self.services.retriever if retrieve else None,
                                       k=int(params.get("k", 4)), budget=self.policy.bundle.budgets)
        if report is None or recorder is None:
            return pack, report
        if report.refreshed_ids:
            recorder.emit(Phase.RETRIEVAL, {
                "reason": "realtime_refresh",
                "retrieved": [{"id": i.id, "score": i.retrieval_score, "document_id": i.provenance.document_id,
                               "hash": i.hash} for i in pack.evidence if i.id not in before],
                "truncated": pack.truncated,
            })
        recorder.emit(Phase.REALTIME, report.as_dict())
        return pack, report

    def _finish(self, recorder: EventRecorder, trace_id: str, decision: ModeDecision, pack: EvidencePack,
                records: list[AttemptRecord], pre_results: list[GateResult], outcome: DegradeResult,
                claims: list[ClaimVerdict], model_meta: dict[str, Any],
                realtime: RealtimeReport | None = None) -> RunResult:
        # An UNKNOWN claim passes the gates (it is the honest label) but is, by definition, not verified; text shown
        # under the rewrite exemption was not checked (deliver() records that), so it is never "verified" either.
        verified = (outcome.status in (TraceStatus.PASS, TraceStatus.REGEN_PASS) and bool(claims)
                    and not outcome.record.get("coverage_exemption")
                    and all(c.verdict == "PASS" and c.status != ClaimStatus.UNKNOWN.value for c in claims))
        if outcome.status is TraceStatus.REFUSED and not any(e.phase is Phase.DEGRADE for e in recorder.events):
            recorder.emit(Phase.DEGRADE, outcome.record)
        if realtime is not None and outcome.status is not TraceStatus.REFUSED and outcome.assistant_text:
            # EBOM: the retrieval timestamp and the staleness warning, after the checked text (spans stay valid)
            outcome = dataclasses.replace(outcome, assistant_text=f"{outcome.assistant_text}\n\n{realtime.notice()}")
        recorder.emit(
            Phase.FINAL,
            {"status": outcome.status.value, "attempts": len(records), "verified": verified,
             "assistant_text_chars": len(outcome.assistant_text)},
        )
        return RunResult(
            trace_id=trace_id, status=outcome.status, assistant_text=outcome.assistant_text, verified=verified,
            mode_decision=decision, evidence_pack=pack, attempts=records, pre_generation=pre_results,
            claims=claims, degrade=outcome.record or None, model=model_meta, events=recorder.events,
            realtime=realtime.as_dict() if realtime is not None else None,
        )

    def _bundle(self, trace_id: str, created_at: str, messages: list[dict[str, str]], result: RunResult) -> TraceBundle:
        first_pack = next(
            (e.payload for e in result.events if e.phase is Phase.EVIDENCE_INTAKE), None
        )
        retrieved = any(e.phase is Phase.RETRIEVAL for e in result.events)
        return TraceBundle(
            trace_id=trace_id,
            created_at=created_at,
            messages=messages,
            mode_decision=result.mode_decision,
            evidence_pack=result.evidence_pack if not retrieved else _pack_before_retrieval(result, first_pack),
            retrieved_evidence_pack=result.evidence_pack if retrieved else None,
            attempts=result.attempts,
            outcome=TraceOutcome(
                status=result.status, assistant_text=result.assistant_text, verified=result.verified,
                claims=[c.as_dict() for c in result.claims], degrade=result.degrade,
            ),
            events=result.events,
            policy=self.policy.ref(include_content=True),
            model=result.model,
            budgets=self.policy.bundle.budgets,
            redaction={"applied": False},
        )

    def verify(self, raw_output: str, evidence: Any = None, message: str = "", facts: Any = None,
               rules: Mapping[str, Any] | None = None, prose: bool = False) -> VerifyResult:
        """Router and gates on one envelope, no model call and nothing stored (``controlplane verify``). With
        ``prose``, ``raw_output`` is any model's plain-text answer: the server attributes it first (issue 14)."""
        pack = self.build_pack(evidence, facts, rules)
        text = normalize_text(message) if message else ""
        decision = self.decide(text, pack=pack) if text else follow_evidence(
            route("", self.policy.bundle), [item.text for item in pack.evidence], self.policy.bundle)
        # the same LIMINAL marking a run applies for a time-sensitive question (verify never retrieves)
        pack, _ = self.handle_realtime(decision, pack, text, retrieve=False)
        attribution = None
        if prose and raw_output.strip():
            built = attribute_prose(raw_output, pack, decision, self.policy.bundle.prose)
            raw_output, attribution = built.text(), built.record()
        evaluation = self.evaluate_attempt(raw_output, decision, pack, text, BudgetUsage(attempt=1))
        return VerifyResult(decision, pack, evaluation, raw_output=raw_output,
                            policy=self.policy.ref(include_content=True), message=text, attribution=attribution)


@dataclass
class VerifyResult:
    mode_decision: ModeDecision
    evidence_pack: EvidencePack
    evaluation: AttemptEvaluation
    raw_output: str = ""
    policy: PolicyRef | None = None
    message: str = ""
    attribution: dict[str, Any] | None = None  # prose verify: how each sentence was tied to evidence

    @property
    def status(self) -> str:
        return "pass" if self.evaluation.passed else "fail"

    def as_ebom(self) -> dict[str, Any]:
        """The EBOM document of this check: a one-attempt trace with no outcome (``verify --format ebom``)."""
        from controlplane.ebom import ebom_document, verify_bundle

        if self.policy is None:
            raise ValueError("this verify result carries no policy reference to render")
        return ebom_document(verify_bundle(self.raw_output, self.evaluation.parsed.data, self.evaluation.results,
                                           self.mode_decision, self.evidence_pack, self.policy, self.message))

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "mode_decision": self.mode_decision.model_dump(mode="json"),
            "evidence_ids": self.evidence_pack.ids(),
            "gates": [gate_summary(g) for g in self.evaluation.results],
            "claims": [
                {"claim_id": c.claim_id, "verdict": c.verdict, "reason_codes": c.reason_codes, "text": c.text,
                 "evidence_ids": c.evidence_ids, "span": list(c.span) if c.span else None}
                for c in self.evaluation.claims
            ],
            "problems": [{"path": i.path, "message": i.message} for i in self.evaluation.parsed.issues],
            **({"prose": self.attribution} if self.attribution is not None else {}),
        }



def _pack_before_retrieval(result: RunResult, intake: dict[str, Any] | None) -> EvidencePack:
    ids = {entry["id"] for entry in (intake or {}).get("evidence", [])}
    kept = [item for item in result.evidence_pack.evidence if item.id in ids]
    return result.evidence_pack.model_copy(update={"evidence": kept})


def _pre_generation_reason(failing: list[GateResult]) -> str:
    codes = {c for r in failing for c in r.reason_codes}
    if ReasonCode.RETRIEVER_UNAVAILABLE in codes:
        return ("This question must be answered from documents, but no document store is configured: index documents "
                "and pass --collection, or provide evidence with --evidence.")
    if ReasonCode.RETRIEVAL_EMPTY in codes:
        return ("This question must be answered from documents, but none in the collection matched it: add documents "
                "that cover it, or provide evidence with --evidence.")
    return "A pre-generation check failed: " + ", ".join(sorted(c.value for c in codes)) + "."


def _elapsed(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _generate(model: IntelligenceModule, query: str, context, params: GenerationParams) -> IntelligenceResponse:
    """A model failure is an attempt with no output (a gate failure), never a crash of the request."""
    started = time.perf_counter()
    try:
        response = model.generate(query, context, params)
        if not _is_unicode(response.text):  # unpaired surrogates cannot be stored or sent: replace them, judge the rest
            text = response.text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
            response = dataclasses.replace(response, text=text)
        return response
    except Exception as exc:
        if os.environ.get("CONTROLPLANE_RAISE_MODEL_ERRORS"):
            raise
        try:
            model_id = model.metadata().model_id
        except Exception:
            model_id = type(model).__name__
        return IntelligenceResponse(
            text="", tokens_used=0, finish_reason=FinishReason.ERROR, latency_ms=(time.perf_counter() - started) * 1000,
            model_id=model_id, error=f"{type(exc).__name__}: {str(exc)[:300]}",
        )
