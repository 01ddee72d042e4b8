"""Deterministic replay: router and gates re-run on a trace bundle's recorded outputs, no model call.

For each trace, in the recorded seq order: normalise the user message, route (``ControlPlane.decide``; a recorded
selector output is fed back by :class:`RecordedModel`), plan the gates, run the pre-generation gates (a recorded
retrieval is fed back by :class:`RecordedRetriever`), then for every recorded attempt run the post-generation gates
through ``ControlPlane.evaluate_attempt`` on the output exactly as received, and decide regen / pass / degrade with
the pipeline's own functions (the shared regen step ``regen.next_step``, ``degrade``, ``refuse``). Nothing here
reimplements a gate.

* Under the recorded policy (the bundle's ``policy.content``) every verdict must come out the same: gate result and
  reason codes per attempt and the final status. Any difference is a :class:`Difference` naming trace, attempt and
  gate: the determinism check (``controlplane replay`` exits 1).
* Under a candidate policy the differences are the changes the candidate would make. Where the candidate wants an
  attempt that was never recorded (a regen the original run did not need), the status is ``unresolved``: replay
  never calls a model to invent one.
* A gate that needs evidence text on a redacted bundle answers EVIDENCE_TEXT_REDACTED; replay reports it as
  ``could_not_run`` (not a difference) and carries the recorded verdict forward for the status decision.
* The sync critic (G7) gets the findings recorded in its GateResult back (:class:`RecordedCritic`).

The runner sits behind :class:`ReplayRunner` (DESIGN "Beyond one machine"): :class:`LocalReplayRunner` replays in
this process; a distributed engine can implement the same ``run`` over partitions of bundles.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from controlplane.api import ControlPlane
from controlplane.contracts import (
    EvidenceItem,
    EvidencePack,
    FinishReason,
    GateResult,
    ModeDecision,
    Phase,
    ReasonCode,
    TraceBundle,
    TraceStatus,
)
from controlplane.contracts.errors import ConfigurationError
from controlplane.degrade import DegradeResult, degrade, deliver
from controlplane.follow_ups import read_question
from controlplane.gates.interfaces import BudgetUsage, GateServices, GateStage
from controlplane.gates.registry import GateRegistry
from controlplane.model_boundary import IntelligenceResponse, ModuleMetadata
from controlplane.pipeline import EventRecorder
from controlplane.policy_bundles.loader import LoadedPolicy, PolicyBundleError, parse_bundle
from controlplane.regen import RegenAction, next_step
from controlplane.reverify import edit_passes
from controlplane.router import normalize_text
from controlplane.verdicts import claim_verdicts

UNRESOLVED = "unresolved"
SELECTOR_UNAVAILABLE = "selector:unavailable"
SELECTOR_ERROR = "selector:error"
CRITIC_GATE = "semantic_critic_sync"


class ReplayError(ValueError):
    """A bundle cannot be replayed (no policy content, tampered policy content). The message says what to do."""


# -- recorded services: no model, no retriever, no critic is ever called ------------------------------------------
class RecordedModel:
    """An IntelligenceModule that returns what was recorded (selector output) and refuses everything else."""

    def __init__(self, selector_output: str | None, model_meta: dict[str, Any], selector_failure: str | None = None,
                 selector_problem: str | None = None):
        self.selector_output = selector_output
        self.model_meta = model_meta
        # How the recorded selector call failed ("selector:unavailable": the backend answered with an error;
        # "selector:error": the call raised), so replay fails it the same way instead of parsing its empty text.
        self.selector_failure = selector_failure
        self.selector_problem = selector_problem or "the recorded selector call failed"

    def is_ready(self) -> bool:
        return True

    def metadata(self) -> ModuleMetadata:
        return ModuleMetadata(model_id=f"replay:{self.model_meta.get('model_id', '?')}",
                              model_hash=str(self.model_meta.get("model_hash", "")), max_context_length=1_000_000)

    def generate(self, query, context, params) -> IntelligenceResponse:
        if context.purpose == "selector" and self.selector_failure == SELECTOR_ERROR:
            raise RuntimeError(self.selector_problem)
        if context.purpose == "selector" and self.selector_failure == SELECTOR_UNAVAILABLE:
            return IntelligenceResponse(text=self.selector_output or "", tokens_used=0,
                                        finish_reason=FinishReason.ERROR, latency_ms=0.0, model_id="replay:recorded",
                                        error=self.selector_problem)
        if context.purpose == "selector" and self.selector_output is not None:
            return IntelligenceResponse(text=self.selector_output, tokens_used=0, finish_reason=FinishReason.STOP,
                                        latency_ms=0.0, model_id="replay:recorded")
        return IntelligenceResponse(text="", tokens_used=0, finish_reason=FinishReason.ERROR, latency_ms=0.0,
                                    model_id="replay:recorded",
                                    error=f"replay makes no model calls ({context.purpose} output was not recorded)")


class RecordedRetriever:
    name = "replay:recorded"

    def __init__(self, items: list[EvidenceItem]):
        self.items = items

    def retrieve(self, query: str, k: int) -> list[EvidenceItem]:
        return list(self.items[:k])


class RecordedCritic:
    """Returns the findings the sync critic gave when the trace was recorded."""

    def __init__(self, findings: list[dict[str, Any]]):
        self.findings = findings

    def critique(self, payload: dict[str, Any]) -> list[dict[str, Any]]:
        return [dict(f) for f in self.findings]


# -- results ------------------------------------------------------------------------------------------------------
def verdict_of(result: GateResult | dict[str, Any] | None) -> dict[str, Any] | None:
    if result is None:
        return None
    if isinstance(result, GateResult):
        return {"result": result.result.value, "reason_codes": [c.value for c in result.reason_codes]}
    return {"result": result.get("result"), "reason_codes": list(result.get("reason_codes") or [])}


def _fmt(verdict: dict[str, Any] | None) -> str:
    if verdict is None:
        return "(not run)"
    codes = ",".join(verdict["reason_codes"])
    return verdict["result"] + (f"[{codes}]" if codes else "")


@dataclass
class Difference:
    trace_id: str
    where: str  # "router", "pre", "attempt N", "status"
    gate_id: str | None
    recorded: Any
    replayed: Any

    def as_json(self) -> dict[str, Any]:
        return {"trace_id": self.trace_id, "where": self.where, "gate_id": self.gate_id, "recorded": self.recorded,
                "replayed": self.replayed}

    def line(self) -> str:
        if self.gate_id:
            rec = _fmt(self.recorded) if isinstance(self.recorded, dict) or self.recorded is None else self.recorded
            rep = _fmt(self.replayed) if isinstance(self.replayed, dict) or self.replayed is None else self.replayed
            return f"{self.trace_id}  {self.where}  gate {self.gate_id}: recorded {rec} -> replayed {rep}"
        return f"{self.trace_id}  {self.where}: recorded {self.recorded} -> replayed {self.replayed}"


@dataclass
class GateStep:
    """One gate on one attempt, for ``--gate`` step-through."""

    attempt: int | None
    gate_id: str
    inputs: dict[str, Any]
    recorded: dict[str, Any] | None
    replayed: dict[str, Any] | None
    details: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"attempt": self.attempt, "gate_id": self.gate_id, "inputs": self.inputs, "recorded": self.recorded,
                "replayed": self.replayed, "details": self.details}


@dataclass
class TraceReplay:
    trace_id: str
    policy_hash: str
    recorded_policy_hash: str
    recorded_status: str | None
    replayed_status: str
    recorded_attempts: int
    replayed_attempts: int
    differences: list[Difference] = field(default_factory=list)
    could_not_run: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    verdicts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # "pre"/"1"/"2" -> [{gate_id, ...}]
    steps: list[GateStep] = field(default_factory=list)
    mode_decision: dict[str, Any] | None = None
    error: str | None = None

    @property
    def reproduced(self) -> bool:
        return not self.differences and self.error is None

    @property
    def regenerated(self) -> bool:
        return self.replayed_attempts > 1 or (self.replayed_status == UNRESOLVED)

    def as_json(self) -> dict[str, Any]:
        return {
            "trace_id": self.trace_id, "policy_hash": self.policy_hash, "recorded_policy_hash": self.recorded_policy_hash,
            "recorded_status": self.recorded_status, "replayed_status": self.replayed_status,
            "recorded_attempts": self.recorded_attempts, "replayed_attempts": self.replayed_attempts,
            "reproduced": self.reproduced, "differences": [d.as_json() for d in self.differences],
            "could_not_run": self.could_not_run, "notes": self.notes, "verdicts": self.verdicts,
            "steps": [s.as_json() for s in self.steps], "error": self.error,
        }


@dataclass(frozen=True)
class ReplayOptions:
    gate: str | None = None  # step through one gate only
    registry_factory: Callable[[], GateRegistry] = GateRegistry
    # An NliBackend for nli_entailment. None: as recorded -- no backend when the trace ran without one (its
    # nli verdicts say VERIFIER_UNAVAILABLE, or its policy had no nli gate), else the policy's backend (lazy).
    nli_backend: Any = None


NLI_GATE = "nli_entailment"
_NLI_CACHE: dict[str, Any] = {}


def _recorded_nli_backend(bundle: TraceBundle, policy: LoadedPolicy) -> Any:
    recorded_gates = {s.get("gate_id") for s in (bundle.policy.content or {}).get("gates", [])}
    if NLI_GATE not in recorded_gates:
        return None
    for attempt in bundle.attempts:
        for result in attempt.gate_results:
            if result.gate_id == NLI_GATE and ReasonCode.VERIFIER_UNAVAILABLE in result.reason_codes:
                return None
    from controlplane.services import policy_backend_name, resolve_nli_backend

    name = policy_backend_name(policy.bundle) or "shipped"
    if name not in _NLI_CACHE:
        _NLI_CACHE[name] = resolve_nli_backend(None, policy.bundle)
    return _NLI_CACHE[name]


# -- the replay of one trace --------------------------------------------------------------------------------------
def recorded_policy(bundle: TraceBundle) -> LoadedPolicy:
    if bundle.policy.content is None:
        raise ReplayError(f"trace {bundle.trace_id}: the bundle carries no policy content; pass --policy FILE")
    try:
        loaded = parse_bundle(bundle.policy.content, source=f"bundle:{bundle.trace_id}")
    except PolicyBundleError as exc:
        raise ReplayError(f"trace {bundle.trace_id}: recorded policy is invalid: {exc}") from None
    if loaded.hash != bundle.policy.hash:
        raise ReplayError(f"trace {bundle.trace_id}: recorded policy content hashes to {loaded.hash[:19]}..., not the "
                          f"recorded {bundle.policy.hash[:19]}...; the bundle was edited")
    return loaded


def _gate_events(bundle: TraceBundle, attempt: int | None) -> list[dict[str, Any]]:
    return [e.payload for e in bundle.events if e.phase is Phase.GATE and e.metadata.attempt == attempt]


def _selector_output(bundle: TraceBundle) -> str | None:
    for event in bundle.events:
        if event.phase is Phase.GATE_INTENT_RISK:
            return (event.payload.get("selector") or {}).get("raw_output")
    return None


def _selector_failure(bundle: TraceBundle) -> tuple[str | None, str | None]:
    """(how the recorded selector call failed, its recorded problem), read from the recorded router decision."""
    for event in bundle.events:
        if event.phase is Phase.GATE_INTENT_RISK:
            reasons = (event.payload.get("final") or {}).get("reasons") or []
            problem = (event.payload.get("selector") or {}).get("problem")
            failure = next((r for r in reasons if r in (SELECTOR_UNAVAILABLE, SELECTOR_ERROR)), None)
            return failure, problem
    return None, None


def _user_edit(bundle: TraceBundle) -> dict[str, Any] | None:
    """The recorded user_edit event of a re-verified edit (controlplane.reverify), None for a model's answer."""
    return next((e.payload for e in bundle.events if e.phase is Phase.USER_EDIT), None)


def _retrieval(bundle: TraceBundle) -> tuple[bool, list[EvidenceItem]]:
    """(a retriever was configured, the items it returned) as recorded by the retrieval gate."""
    for payload in _gate_events(bundle, None):
        codes = set(payload.get("reason_codes") or [])
        if "RETRIEVER_UNAVAILABLE" in codes:
            return False, []
        if "RETRIEVAL_PERFORMED" in codes:
            return True, [EvidenceItem.model_validate(i) for i in (payload.get("details") or {}).get("retrieved", [])]
        if "RETRIEVAL_EMPTY" in codes:
            return True, []
    return bool(bundle.retrieved_evidence_pack), []


def _elapsed_ms(bundle: TraceBundle, attempt: int) -> float:
    """Elapsed time the budget gate saw: from its recorded details, else from event timestamps."""
    for payload in _gate_events(bundle, attempt):
        if payload.get("gate_id") == "budget_enforcer":
            usage = (payload.get("details") or {}).get("usage") or {}
            if "elapsed_ms" in usage:
                return float(usage["elapsed_ms"])
    try:
        start = datetime.fromisoformat(bundle.events[0].ts)
        call = next(e for e in bundle.events if e.phase is Phase.MODEL_CALL and e.metadata.attempt == attempt)
        return (datetime.fromisoformat(call.ts) - start).total_seconds() * 1000
    except (StopIteration, IndexError, ValueError):
        return 0.0


def _tool_calls(bundle: TraceBundle) -> int:
    for event in bundle.events:
        if event.phase is Phase.RETRIEVAL:
            return int(event.payload.get("tool_calls", 0))
    return 1 if any({"RETRIEVAL_EMPTY"} & set(p.get("reason_codes") or []) for p in _gate_events(bundle, None)) else 0


def _redacted(pack: EvidencePack | None) -> bool:
    return bool(pack and any(item.redacted for item in pack.evidence))


class _Replayer:
    def __init__(self, bundle: TraceBundle, policy: LoadedPolicy | None, options: ReplayOptions,
                 registry: GateRegistry):
        from controlplane.traces.bundles import tampering

        altered = tampering(bundle)
        if altered:  # a replay of edited content would "reproduce" whatever the editor wanted
            raise ReplayError(f"trace {bundle.trace_id}: the bundle was edited after it was written: "
                              + "; ".join(altered[:3]) + (f" (+{len(altered) - 3} more)" if len(altered) > 3 else ""))
        self.bundle = bundle
        self.recorded = recorded_policy(bundle) if bundle.policy.content is not None or policy is None else None
        self.policy = policy or self.recorded
        self.under_recorded = self.recorded is not None and self.policy.hash == self.recorded.hash
        self.options = options
        self.registry = registry
        self.model = RecordedModel(_selector_output(bundle), bundle.model, *_selector_failure(bundle))
        self.nli = options.nli_backend if options.nli_backend is not None else _recorded_nli_backend(bundle, self.policy)
        # Assembled like every request (controlplane.ControlPlane) from the recorded parts, with no signature bar (replay
        # judges recorded traces and serves nobody); replay then drives the engine step by step.
        self.plane = ControlPlane(model=self.model, policy=self._effective_policy(), db=False, registry=registry,
                                  nli_backend=self.nli if self.nli is not None else "none", critic=False,
                                  require_signed=False).pipeline
        self.similarity = self.plane.services.similarity  # the same deterministic cosines as the request read
        self.pre_results: list[GateResult] = []
        self.out = TraceReplay(
            trace_id=bundle.trace_id, policy_hash=self.policy.hash, recorded_policy_hash=bundle.policy.hash,
            recorded_status=bundle.outcome.status.value if bundle.outcome else None, replayed_status=UNRESOLVED,
            recorded_attempts=len(bundle.attempts), replayed_attempts=0,
        )

    def _effective_policy(self) -> LoadedPolicy:
        if not self.options.gate:
            return self.policy
        specs = [s for s in self.policy.bundle.gates if s.gate_id == self.options.gate]
        if not specs:
            raise ReplayError(f"gate {self.options.gate!r} is not in policy {self.policy.bundle.name} "
                              f"{self.policy.bundle.version}; gates: "
                              + ", ".join(s.gate_id for s in self.policy.bundle.gates))
        only = self.policy.bundle.model_copy(update={"gates": specs})
        return LoadedPolicy(bundle=only, hash=self.policy.hash, source=self.policy.source)

    def diff(self, where: str, gate_id: str | None, recorded: Any, replayed: Any) -> None:
        self.out.differences.append(Difference(self.bundle.trace_id, where, gate_id, recorded, replayed))

    # -- steps ------------------------------------------------------------------------------------------------
    def run(self) -> TraceReplay:
        bundle = self.bundle
        messages = bundle.messages
        # the question as the pipeline read it: a follow-up with the previous question (controlplane/follow_ups.py)
        user_message = read_question(messages, follow_ups=self.policy.bundle.router.follow_ups).question
        normalized = normalize_text(user_message)
        redacted_input = bool(bundle.redaction.get("applied"))
        decision = self.plane.decide(normalized, pack=bundle.evidence_pack or EvidencePack())
        recorded_decision = bundle.mode_decision
        if recorded_decision is not None and decision.model_dump(mode="json") != recorded_decision.model_dump(mode="json"):
            if redacted_input:
                self.out.notes.append("router ran on redacted messages and decided differently; the recorded "
                                      "ModeDecision is used")
                decision = recorded_decision
            else:
                self.diff("router", None, _decision_summary(recorded_decision), _decision_summary(decision))
        self.out.mode_decision = decision.model_dump(mode="json")
        pack = bundle.evidence_pack or EvidencePack()
        if _redacted(pack) or _redacted(bundle.retrieved_evidence_pack):
            self.out.notes.append("evidence text is redacted (hash + snippet); gates that need it report "
                                  "EVIDENCE_TEXT_REDACTED")

        edit = _user_edit(bundle)
        if edit is not None:
            status, final_attempts = self._user_edit(decision, pack, normalized, edit)
        else:
            status, final_attempts = self._pre_generation(decision, pack, normalized)
        if status is None:
            pack = bundle.retrieved_evidence_pack or pack
            status, final_attempts = self._attempts(decision, pack, normalized)
        self.out.replayed_status = status
        self.out.replayed_attempts = final_attempts
        if not self.options.gate and self.out.recorded_status != status:
            self.diff("status", None, self.out.recorded_status, status)
        return self.out

    def _pre_generation(self, decision: ModeDecision, pack: EvidencePack, normalized: str) -> tuple[str | None, int]:
        configured, items = _retrieval(self.bundle)
        self.plane.services = GateServices(retriever=RecordedRetriever(items) if configured else None,
                                           nli_backend=self.nli, similarity=self.similarity)
        recorder = EventRecorder(self.bundle.trace_id)
        usage = BudgetUsage(attempt=0, elapsed_ms=0.0)
        results, new_pack, _ = self.plane.run_pre_generation(decision, pack, normalized, usage, recorder)
        replayed = [e.payload for e in recorder.events if e.phase is Phase.GATE]
        recorded = _gate_events(self.bundle, None)
        if self.options.gate:
            recorded = [p for p in recorded if p.get("gate_id") == self.options.gate]
            for planned in self.plane.registry.plan(self.plane.policy.bundle, decision, GateStage.PRE_GENERATION,
                                                    message=normalized):
                rec = next((p for p in recorded), None)
                rep = next((p for p in replayed), None)
                self.out.steps.append(GateStep(None, planned.spec.gate_id, self._inputs(decision, pack, None, planned),
                                               verdict_of(rec), verdict_of(rep), (rep or {}).get("details", {})))
        self._compare("pre", recorded, replayed)
        self.pre_results = results
        if any(r.failed for r in results):
            return TraceStatus.REFUSED.value, 0  # the pipeline refuses before generation (controlplane.degrade.refuse)
        if self.bundle.retrieved_evidence_pack is not None and new_pack.ids() != self.bundle.retrieved_evidence_pack.ids():
            self.diff("pre", "retrieval", self.bundle.retrieved_evidence_pack.ids(), new_pack.ids())
        return None, 0

    def _attempts(self, decision: ModeDecision, pack: EvidencePack, normalized: str) -> tuple[str, int]:
        bundle = self.bundle
        budgets = self.policy.bundle.budgets
        max_attempts = 1 + budgets.max_regen_attempts
        tool_calls = _tool_calls(bundle)
        results: list[GateResult] = []
        evaluation = None
        for record in bundle.attempts:
            n = record.attempt
            if n > max_attempts:
                return self._finish_degrade(decision, pack, evaluation, results), n - 1
            recorded_gates = {g.gate_id: g for g in record.gate_results}
            critic_record = recorded_gates.get(CRITIC_GATE)
            findings = (critic_record.details.get("findings") if critic_record is not None else None)
            self.plane.services = GateServices(
                nli_backend=self.nli,
                critic=RecordedCritic(findings) if isinstance(findings, list) else None,
                similarity=self.similarity,
            )
            usage = BudgetUsage(attempt=n, regen_attempts_used=n - 1, tool_calls=tool_calls, tokens_in=record.tokens_in,
                                tokens_out=record.tokens_out, elapsed_ms=_elapsed_ms(bundle, n),
                                finish_reason=record.finish_reason.value)
            evaluation = self.plane.evaluate_attempt(record.raw_output, decision, pack, normalized, usage,
                                                     record.finish_reason, seen_as=_recorded_if_redacted(recorded_gates))
            results = self._carry_redacted(n, evaluation.results, recorded_gates)
            self._compare(f"attempt {n}", [g.model_dump(mode="json") for g in record.gate_results],
                          [g.model_dump(mode="json") for g in evaluation.results])
            if self.options.gate:
                planned = self.plane.registry.plan(self.plane.policy.bundle, decision, GateStage.POST_GENERATION,
                                                   evaluation.parsed.envelope, normalized)
                for p, result in zip(planned, evaluation.results):
                    self.out.steps.append(GateStep(n, result.gate_id, self._inputs(decision, pack, evaluation, p),
                                                   verdict_of(recorded_gates.get(result.gate_id)), verdict_of(result),
                                                   result.details))
                continue
            step = next_step(n, results, evaluation.parsed.envelope is not None, budgets, usage.elapsed_ms, pack,
                             decision)
            if step.action is RegenAction.PASS:
                passed = TraceStatus.PASS if n == 1 else TraceStatus.REGEN_PASS
                # the pipeline's last display check (G-1) may still degrade a passing attempt
                claims = claim_verdicts(evaluation.parsed.envelope, results, evaluation.view)
                shown = deliver(self.policy.bundle, decision, pack, evaluation.parsed.envelope, claims, results, passed,
                                view=evaluation.view)
                return shown.status.value, n
            if step.action is RegenAction.DEGRADE:
                return self._finish_degrade(decision, pack, evaluation, results), n
            delta = step.delta
            following = next((a for a in bundle.attempts if a.attempt == n + 1), None)
            if following is None:
                self.out.notes.append(f"the policy asks for attempt {n + 1}, which was never recorded; replay does not "
                                      "call a model, so the outcome is unresolved")
                return UNRESOLVED, n + 1
            if following.regen_delta is not None and self.under_recorded and (
                    following.regen_delta.model_dump(mode="json") != delta.model_dump(mode="json")):
                changed = sorted(k for k, v in delta.model_dump(mode="json").items()
                                 if following.regen_delta.model_dump(mode="json").get(k) != v)
                self.out.notes.append(f"attempt {n + 1}: the regen delta rebuilt today differs from the recorded one in "
                                      f"{', '.join(changed)} (delta code changed since; verdicts are what is checked)")
        if self.options.gate:
            return (self.out.recorded_status or UNRESOLVED), len(bundle.attempts)
        if not bundle.attempts:
            self.out.notes.append("no attempt was recorded, but the policy lets this trace reach the model; unresolved")
            return UNRESOLVED, 0
        return self._finish_degrade(decision, pack, evaluation, results), len(bundle.attempts)

    def _user_edit(self, decision: ModeDecision, pack: EvidencePack, normalized: str,
                   edit: dict[str, Any]) -> tuple[str, int]:
        """A re-verified user edit (controlplane.reverify): one attempt, the user's text, never regenerated nor
        refused; it passes when every gate and sentence does, else it is degraded (blocked or flagged)."""
        self._pre_generation(decision, pack, normalized)  # compared like any trace; a failure degrades the edit
        record = next((a for a in self.bundle.attempts if a.attempt == 1), None)
        if record is None:
            self.out.notes.append("a user edit without its recorded attempt; unresolved")
            return UNRESOLVED, 0
        recorded_gates = {g.gate_id: g for g in record.gate_results}
        critic_record = recorded_gates.get(CRITIC_GATE)
        findings = critic_record.details.get("findings") if critic_record is not None else None
        self.plane.services = GateServices(nli_backend=self.nli, similarity=self.similarity,
                                           critic=RecordedCritic(findings) if isinstance(findings, list) else None)
        usage = BudgetUsage(attempt=1, elapsed_ms=_elapsed_ms(self.bundle, 1))
        evaluation = self.plane.evaluate_attempt(record.raw_output, decision, pack, normalized, usage,
                                                 record.finish_reason, seen_as=_recorded_if_redacted(recorded_gates))
        self._carry_redacted(1, evaluation.results, recorded_gates)
        self._compare("attempt 1", [g.model_dump(mode="json") for g in record.gate_results],
                      [g.model_dump(mode="json") for g in evaluation.results])
        sentence_count = len((edit.get("prose") or {}).get("sentences") or [])
        passed = edit_passes(evaluation, self.pre_results, sentence_count)
        return (TraceStatus.PASS if passed else TraceStatus.DEGRADED).value, 1

    def _finish_degrade(self, decision, pack, evaluation, results) -> str:
        if evaluation is None:
            return UNRESOLVED
        claims = claim_verdicts(evaluation.parsed.envelope, results, evaluation.view)
        outcome: DegradeResult = degrade(self.policy.bundle, decision, pack, evaluation.parsed.envelope, claims, results,
                                         view=evaluation.view)
        return outcome.status.value

    def _carry_redacted(self, attempt: int, results: list[GateResult], recorded: dict[str, GateResult]) -> list[GateResult]:
        """A gate that could not run on redacted evidence keeps its recorded verdict for the status decision."""
        out = []
        for result in results:
            if ReasonCode.EVIDENCE_TEXT_REDACTED in result.reason_codes:
                self.out.could_not_run.append({"attempt": attempt, "gate_id": result.gate_id,
                                               "reason": "EVIDENCE_TEXT_REDACTED",
                                               "recorded": verdict_of(recorded.get(result.gate_id))})
                if result.gate_id in recorded:
                    out.append(recorded[result.gate_id])
                    continue
            out.append(result)
        return out

    def _compare(self, where: str, recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> None:
        key = where.split(" ")[-1] if where.startswith("attempt") else "pre"
        self.out.verdicts.setdefault(key, []).extend(
            {"gate_id": p.get("gate_id"), "recorded": verdict_of(_nth(recorded, p.get("gate_id"), _occurrence(replayed, i))),
             "replayed": verdict_of(p)} for i, p in enumerate(replayed)
        )
        if self.options.gate:
            recorded = [r for r in recorded if r.get("gate_id") == self.options.gate]
            replayed = [r for r in replayed if r.get("gate_id") == self.options.gate]
        rec_ids = [r.get("gate_id") for r in recorded]
        rep_ids = [r.get("gate_id") for r in replayed]
        for index in range(max(len(recorded), len(replayed))):
            rec = recorded[index] if index < len(recorded) else None
            rep = replayed[index] if index < len(replayed) else None
            gate_id = (rep or rec or {}).get("gate_id")
            if rec is not None and rep is not None and rec.get("gate_id") != rep.get("gate_id"):
                self.diff(where, gate_id, f"gate order {rec_ids}", f"gate order {rep_ids}")
                return
            if rep is not None and ReasonCode.EVIDENCE_TEXT_REDACTED.value in (rep.get("reason_codes") or []):
                continue
            if verdict_of(rec) != verdict_of(rep):
                self.diff(where, gate_id, verdict_of(rec), verdict_of(rep))

    def _inputs(self, decision: ModeDecision, pack: EvidencePack, evaluation, planned) -> dict[str, Any]:
        envelope = evaluation.parsed.envelope if evaluation is not None else None
        return {
            "mode_decision": _decision_summary(decision),
            "pack": [{"id": i.id, "hash": i.hash, "redacted": i.redacted, "chars": len(i.text)} for i in pack.evidence],
            "envelope_claims": [
                {"claim_id": c.claim_id, "status": c.status.value, "evidence_ids": c.evidence_ids, "text": c.text}
                for c in (envelope.meta.claim_map if envelope else [])
            ],
            "parse_failure": (evaluation.parsed.failure.value if evaluation is not None and evaluation.parsed.failure
                              else None),
            "params": planned.spec.params,
            "when": planned.spec.when.model_dump(mode="json", exclude_none=True),
            "planned": {"runs": planned.runs, "why": planned.why},
        }


def _recorded_if_redacted(recorded: dict[str, GateResult]) -> Callable[[GateResult], GateResult]:
    """What the gates after a gate see of it: its recorded verdict when it could not run on redacted evidence (the
    gates that read it, e.g. evidence_graph after nli_entailment, then judge what was recorded, not a gap)."""
    def seen_as(result: GateResult) -> GateResult:
        if ReasonCode.EVIDENCE_TEXT_REDACTED in result.reason_codes and result.gate_id in recorded:
            return recorded[result.gate_id]
        return result

    return seen_as


def _occurrence(items: list[dict[str, Any]], index: int) -> int:
    """How many earlier entries share items[index]'s gate id (a gate may run twice, e.g. retrieval_required)."""
    gate_id = items[index].get("gate_id")
    return sum(1 for item in items[:index] if item.get("gate_id") == gate_id)


def _nth(items: list[dict[str, Any]], gate_id: str | None, n: int) -> dict[str, Any] | None:
    matches = [item for item in items if item.get("gate_id") == gate_id]
    return matches[n] if n < len(matches) else None


def _decision_summary(decision: ModeDecision) -> dict[str, Any]:
    return {"modeLabel": decision.modeLabel, "domainFlags": decision.domainFlags,
            "rigor": decision.rigorConfig.level.value, "confidence": decision.confidence,
            "selectorUsed": decision.selectorUsed}


def replay_trace(bundle: TraceBundle, policy: LoadedPolicy | None = None, options: ReplayOptions | None = None,
                 registry: GateRegistry | None = None) -> TraceReplay:
    """Replay one bundle; ``policy=None`` replays under the bundle's recorded policy."""
    options = options or ReplayOptions()
    try:
        return _Replayer(bundle, policy, options, registry or options.registry_factory()).run()
    except (ReplayError, ConfigurationError) as exc:  # e.g. the recorded policy names a gate not installed here
        return TraceReplay(trace_id=bundle.trace_id, policy_hash=policy.hash if policy else "",
                           recorded_policy_hash=bundle.policy.hash,
                           recorded_status=bundle.outcome.status.value if bundle.outcome else None,
                           replayed_status=UNRESOLVED, recorded_attempts=len(bundle.attempts), replayed_attempts=0,
                           error=str(exc))


# -- runners ------------------------------------------------------------------------------------------------------
class ReplayRunner(Protocol):
    """Replays many bundles. A distributed engine implements this over partitions; results come back per trace."""

    def run(self, bundles: Iterable[TraceBundle], policy: LoadedPolicy | None = None,
            options: ReplayOptions | None = None) -> Iterator[TraceReplay]:
        ...


class LocalReplayRunner:
    """In-process, sequential; one GateRegistry shared by all traces (plugins load once)."""

    def __init__(self, registry: GateRegistry | None = None):
        self._registry = registry

    def run(self, bundles: Iterable[TraceBundle], policy: LoadedPolicy | None = None,
            options: ReplayOptions | None = None) -> Iterator[TraceReplay]:
        options = options or ReplayOptions()
        registry = self._registry or options.registry_factory()
        for bundle in bundles:
            yield replay_trace(bundle, policy, options, registry)


@dataclass
class ReplayReport:
    traces: list[TraceReplay]
    policy_hash: str | None
    seconds: float

    @property
    def differences(self) -> list[Difference]:
        return [d for t in self.traces for d in t.differences]

    @property
    def errors(self) -> list[TraceReplay]:
        return [t for t in self.traces if t.error]

    def as_json(self) -> dict[str, Any]:
        return {
            "policy_hash": self.policy_hash, "traces": len(self.traces),
            "reproduced": sum(t.reproduced for t in self.traces),
            "differences": [d.as_json() for d in self.differences],
            "errors": [{"trace_id": t.trace_id, "error": t.error} for t in self.errors],
            "results": [t.as_json() for t in self.traces],
        }


def replay_bundles(bundles: Iterable[TraceBundle], policy: LoadedPolicy | None = None,
                   options: ReplayOptions | None = None, runner: ReplayRunner | None = None) -> ReplayReport:
    started = time.perf_counter()
    traces = list((runner or LocalReplayRunner()).run(bundles, policy, options))
    return ReplayReport(traces, policy.hash if policy else None, time.perf_counter() - started)


__all__ = [
    "UNRESOLVED",
    "Difference",
    "LocalReplayRunner",
    "RecordedCritic",
    "RecordedModel",
    "RecordedRetriever",
    "ReplayError",
    "ReplayOptions",
    "ReplayReport",
    "ReplayRunner",
    "TraceReplay",
    "replay_bundles",
    "replay_trace",
]
