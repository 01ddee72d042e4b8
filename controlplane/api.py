"""The public Python API: embed the control plane in a chat app in a few lines.

    from controlplane import ControlPlane

    plane = ControlPlane(model="scripted:answers.jsonl", db="traces.db")
    reply = plane.respond("Where do we host?", evidence=[{"text": "We host on Fly.io."}])
    print(reply.assistant_text, reply.status, reply.verified, reply.trace_id)

This class is the one place a request is assembled: the CLI (``run``, ``ask``, ``verify``, ``serve``), the pytest
plugin and replay all build it. It resolves the policy (``controlplane.policy_source``: explicit bundle, else the
promoted one with its signature checked, else the shipped one), loads the model, registers the gates, and owns the
services the gates call: the NLI backend behind one score cache, the sync critic and the retriever. It then drives
``controlplane.pipeline.Pipeline`` (the engine: route, evidence, generate, gate, regen, degrade, trace), which keeps
no per-request state. It uses the CLI's vocabulary: ``model`` (``--model`` spec), ``policy`` (``--policy``), ``db``
(``--db``, the trace store), ``collection``/``index`` (``--collection``/``--index``, the vector index), ``critic``
(``--critic``), ``nli_backend`` (``--nli-backend``), ``require_signed`` (``--require-signed``), ``respond``
(``run``), ``verify`` (``verify``), ``trace``/``traces`` (``trace show``/``trace list``), ``serve`` (``serve``).

Threads: one ``ControlPlane`` may be shared by any number of threads. The trace store opens a connection per thread,
gates are stateless, and model calls go through a semaphore (``max_model_concurrency``, default 1) because local
runtimes such as llama.cpp must not be entered by two threads at once. ``arespond`` runs ``respond`` in the plane's
own thread pool, so an asyncio event loop is never blocked.

Sessions (CFS-020 §2.2): the model stays stateless. When ``respond`` gets a ``session_id``, the plane (not the model)
keeps that session's turns in memory — the user messages and the *gated* answers the user saw, never raw model
output — and puts them before the next message of the same session. ``end_session`` discards them; so do idle
expiry, eviction of the least recently used session beyond ``max_sessions``, and ``close``. Nothing of a session is
written anywhere except the trace of each request, which records the messages that request was answered from.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Self

from controlplane.answer_modes import parse_answer_mode
from controlplane.contracts import (
    AnswerMode,
    EnvelopeFormat,
    EvidencePack,
    PolicyBundle,
    TraceBundle,
    meets_retrieval_floor,
)
from controlplane.contracts.errors import ConfigurationError, InputError
from controlplane.follow_ups import read_question
from controlplane.gates.interfaces import Critic, Gate, GateServices, NliBackend, Retriever
from controlplane.gates.registry import GateRegistry, GateRegistryError
from controlplane.model_boundary import (
    AssembledContext,
    GenerationParams,
    IntelligenceModule,
    IntelligenceResponse,
    ModuleMetadata,
)
from controlplane.pipeline import Pipeline, RunResult, VerifyResult, validate_messages
from controlplane.policy_bundles.loader import LoadedPolicy
from controlplane.policy_source import PolicySource, signing_config
from controlplane.question_parts import question_parts
from controlplane.services import EmbeddingSimilarity
from controlplane.traces.store import TraceStore, TraceStoreError

__all__ = [
    "ClaimResult",
    "ControlPlane",
    "GateVerdict",
    "Response",
    "Usage",
]

MODEL_ENV = "CONTROLPLANE_MODEL"
POLICY_ENV = "CONTROLPLANE_POLICY"
DEFAULT_RETRIEVAL_K = 4


# -- the typed result ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClaimResult:
    """One claim of the final attempt and its verdict.

    ``span`` indexes ``Response.assistant_text`` (the text the user sees) and is None when the claim is not shown
    (suppressed or refused). ``source_span`` indexes ``Response.checked_text`` (the model's text that the gates
    checked). When the status is pass or regen_pass the two texts are the same.
    """

    claim_id: str
    text: str
    status: str
    evidence_ids: tuple[str, ...]
    verdict: str  # PASS | FAIL
    reason_codes: tuple[str, ...]
    span: tuple[int, int] | None
    source_span: tuple[int, int] | None

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    @property
    def shown(self) -> bool:
        return self.span is not None

    def as_json(self) -> dict[str, Any]:
        return {
            "claim_id": self.claim_id,
            "text": self.text,
            "status": self.status,
            "evidence_ids": list(self.evidence_ids),
            "verdict": self.verdict,
            "reason_codes": list(self.reason_codes),
            "span": list(self.span) if self.span else None,
            "source_span": list(self.source_span) if self.source_span else None,
        }


@dataclass(frozen=True)
class GateVerdict:
    """One gate's result. ``attempt`` is None for pre-generation gates (stage ``pre_generation``)."""

    gate_id: str
    result: str  # pass | fail | skip
    reason_codes: tuple[str, ...]
    attempt: int | None
    stage: str
    latency_ms: float
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def failed(self) -> bool:
        return self.result == "fail"

    def as_json(self) -> dict[str, Any]:
        return {
            "gate_id": self.gate_id,
            "result": self.result,
            "reason_codes": list(self.reason_codes),
            "attempt": self.attempt,
            "stage": self.stage,
            "latency_ms": self.latency_ms,
        }

    def summary(self) -> dict[str, Any]:
        """The short form (``pipeline.gate_summary``): gate_id, result, reason_codes, latency_ms."""
        return {"gate_id": self.gate_id, "result": self.result, "reason_codes": list(self.reason_codes),
                "latency_ms": self.latency_ms}


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Response:
    """What ``respond`` returns. ``assistant_text`` is the gated answer: only what passed, or a safe refusal."""

    assistant_text: str
    status: str  # pass | regen_pass | degraded | refused
    verified: bool
    claims: tuple[ClaimResult, ...]
    trace_id: str
    gate_results: tuple[GateVerdict, ...]
    attempts: int
    mode: str
    domain_flags: tuple[str, ...]
    evidence_ids: tuple[str, ...]
    checked_text: str
    model_id: str
    usage: Usage = Usage()
    degrade: dict[str, Any] | None = None
    session_id: str | None = None
    mode_decision: dict[str, Any] | None = None  # the final ModeDecision as JSON (mode, flags, rigor, confidence ...)
    verification: dict[str, Any] | None = None  # EBOM confidence and source warnings of the last attempt
    # A follow-up read with the previous question ({"message", "read_as", "rule", "previous", "focus"}, as
    # controlplane/follow_ups.Reading.as_dict gives it); None when the last message was read as sent.
    follow_up: dict[str, Any] | None = None
    # The pack the answer was checked against (items with provenance, to show sources); not part of as_json().
    evidence_pack: EvidencePack | None = field(default=None, compare=False, repr=False)
    # The request's trace as stored; as_ebom() renders the EBOM document from it alone (controlplane.ebom).
    trace_bundle: TraceBundle | None = field(default=None, compare=False, repr=False)

    def as_ebom(self) -> dict[str, Any]:
        """The EBOM structured response (response, metadata, audit_trail) rebuilt from this request's trace: the
        same document ``controlplane trace`` data yields after export and import (contracts/schemas/
        EbomDocument.schema.json)."""
        from controlplane.ebom import ebom_document

        if self.trace_bundle is None:
            raise ConfigurationError("this Response carries no trace bundle; render a stored trace with "
                                     "controlplane.ebom.ebom_document(plane.trace(trace_id))")
        return ebom_document(self.trace_bundle)

    @property
    def passed(self) -> bool:
        return self.status in ("pass", "regen_pass")

    @property
    def failing_gates(self) -> tuple[str, ...]:
        """Gates that failed on the final attempt (or before generation)."""
        last = max((g.attempt for g in self.gate_results if g.attempt is not None), default=None)
        return tuple(
            dict.fromkeys(g.gate_id for g in self.gate_results if g.failed and g.attempt in (last, None))
        )

    def gates_for(self, attempt: int | None) -> tuple[GateVerdict, ...]:
        return tuple(g for g in self.gate_results if g.attempt == attempt)

    def as_json(self) -> dict[str, Any]:
        return {
            "trace_id": self.trace_id,
            "status": self.status,
            "verified": self.verified,
            "assistant_text": self.assistant_text,
            "attempts": self.attempts,
            "mode": self.mode,
            "domain_flags": list(self.domain_flags),
            "evidence_ids": list(self.evidence_ids),
            "claims": [c.as_json() for c in self.claims],
            "gate_results": [g.as_json() for g in self.gate_results],
            "failing_gates": list(self.failing_gates),
            "checked_text": self.checked_text,
            "degrade": self.degrade,
            "model": self.model_id,
            "usage": {"prompt_tokens": self.usage.prompt_tokens, "completion_tokens": self.usage.completion_tokens,
                      "total_tokens": self.usage.total_tokens},
            "session_id": self.session_id,
            # the keys `controlplane run --json` has always printed (it prints exactly this object)
            "mode_decision": self.mode_decision,
            "pre_generation_gates": [g.summary() for g in self.gate_results if g.stage == "pre_generation"],
            "verification": self.verification or {"confidence": None, "warnings": []},
            "follow_up": self.follow_up,
        }


def response_from_run(result: RunResult, session_id: str | None = None) -> Response:
    last = result.attempts[-1] if result.attempts else None
    checked_text = ""
    if last is not None and isinstance(last.envelope, dict) and isinstance(last.envelope.get("assistant_text"), str):
        checked_text = last.envelope["assistant_text"]
    shown = _shown_offsets(result, checked_text)
    claims = []
    for verdict in result.claims:
        source = tuple(verdict.span) if verdict.span else None
        span = None
        if source is not None:
            moved = shown(source)
            if moved is not None and result.assistant_text[moved[0]:moved[1]] == checked_text[source[0]:source[1]]:
                span = moved
        claims.append(
            ClaimResult(
                claim_id=verdict.claim_id, text=verdict.text, status=verdict.status,
                evidence_ids=tuple(verdict.evidence_ids), verdict=verdict.verdict,
                reason_codes=tuple(verdict.reason_codes), span=span, source_span=source,
            )
        )
    gates = [_verdict(g, None, "pre_generation") for g in result.pre_generation]
    for record in result.attempts:
        gates.extend(_verdict(g, record.attempt, "post_generation") for g in record.gate_results)
    usage = Usage(
        prompt_tokens=sum(a.tokens_in for a in result.attempts),
        completion_tokens=sum(a.tokens_out for a in result.attempts),
    )
    return Response(
        assistant_text=result.assistant_text,
        status=result.status.value,
        verified=result.verified,
        claims=tuple(claims),
        trace_id=result.trace_id,
        gate_results=tuple(gates),
        attempts=len(result.attempts),
        mode=result.mode_decision.modeLabel,
        domain_flags=tuple(result.mode_decision.domainFlags),
        evidence_ids=tuple(result.evidence_pack.ids()),
        checked_text=checked_text,
        model_id=str(result.model.get("model_id", "")),
        usage=usage,
        degrade=result.degrade,
        session_id=session_id,
        mode_decision=result.mode_decision.model_dump(mode="json"),
        verification=result.verification_summary(),
        follow_up=result.follow_up,
        evidence_pack=result.evidence_pack,
        trace_bundle=result.trace_bundle,
    )


def _verdict(result, attempt: int | None, stage: str) -> GateVerdict:
    return GateVerdict(
        gate_id=result.gate_id, result=result.result.value, reason_codes=tuple(c.value for c in result.reason_codes),
        attempt=attempt, stage=stage, latency_ms=result.measured.latency_ms, details=dict(result.details),
    )


def _shown_offsets(result: RunResult, checked_text: str):
    """A function mapping a span of the checked text to the same characters in the delivered text, or None.

    pass/regen_pass deliver the checked text unchanged; suppress-degrade delivers the kept sentences joined by one
    space, and records where each was and where it is (controlplane.degrade, ``kept_spans``); a refusal shows no
    claim.
    """
    status = result.status.value
    if status in ("pass", "regen_pass") and result.assistant_text == checked_text:
        return lambda span: span
    spans = list((result.degrade or {}).get("kept_spans") or [])
    if status != "degraded" or not spans:
        return lambda span: None
    # (source start, source end, delivered start)
    placed = [(int(s["start"]), int(s["end"]), int(s["shown_start"])) for s in spans]

    def move(span: tuple[int, int]) -> tuple[int, int] | None:
        for start, end, delivered in placed:
            if start <= span[0] and span[1] <= end:
                return (delivered + span[0] - start, delivered + span[1] - start)
        return None

    return move


# -- sessions -----------------------------------------------------------------------------------------------------
@dataclass
class _Session:
    turns: list[dict[str, str]] = field(default_factory=list)
    last_used: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)
    ended: bool = False


class _Sessions:
    """Session-scoped context held by the plane (never by the model), bounded in count, turns and idle time."""

    def __init__(self, max_sessions: int, max_turns: int, idle_seconds: float):
        self.max_sessions = max_sessions
        self.max_turns = max_turns
        self.idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, _Session] = OrderedDict()

    def get(self, session_id: str) -> _Session:
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            session = self._sessions.get(session_id)
            if session is None:
                session = _Session()
                self._sessions[session_id] = session
                while len(self._sessions) > self.max_sessions:
                    _, evicted = self._sessions.popitem(last=False)
                    self._discard(evicted)
            self._sessions.move_to_end(session_id)
            session.last_used = now
            return session

    def end(self, session_id: str) -> int:
        with self._lock:
            session = self._sessions.pop(session_id, None)
        if session is None:
            return 0
        return self._discard(session)

    def end_all(self) -> int:
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        return sum(self._discard(s) for s in sessions)

    def ids(self) -> list[str]:
        with self._lock:
            self._expire(time.monotonic())
            return list(self._sessions)

    def turns(self, session_id: str) -> list[dict[str, str]]:
        with self._lock:
            session = self._sessions.get(session_id)
            return [dict(t) for t in session.turns] if session else []

    def _expire(self, now: float) -> None:
        stale = [sid for sid, s in self._sessions.items() if now - s.last_used > self.idle_seconds]
        for sid in stale:
            self._discard(self._sessions.pop(sid))

    @staticmethod
    def _discard(session: _Session) -> int:
        count = len(session.turns)
        session.ended = True
        session.turns = []
        return count


# -- model concurrency --------------------------------------------------------------------------------------------
class _BoundedModel:
    """Delegates to a model adapter with at most ``limit`` calls in flight (local runtimes are not reentrant)."""

    def __init__(self, model: IntelligenceModule, limit: int):
        self.inner = model
        self._slots = threading.BoundedSemaphore(limit)

    def generate(self, query: str, context: AssembledContext, params: GenerationParams) -> IntelligenceResponse:
        with self._slots:
            return self.inner.generate(query, context, params)

    def is_ready(self) -> bool:
        return self.inner.is_ready()

    def metadata(self) -> ModuleMetadata:
        return self.inner.metadata()


# -- the facade ---------------------------------------------------------------------------------------------------
class ControlPlane:
    """The control plane as a library: policy bundle + model + gates + trace store.

    Parameters (the CLI flag each mirrors in brackets):

    * ``model`` [--model]: a spec string (``scripted:FILE``, ``gguf:PATH``, ``default``, ``openai:URL#MODEL`` or a
      plugin prefix from ``controlplane_model_adapters``) or any IntelligenceModule object. Default:
      $CONTROLPLANE_MODEL, else ``default``. ``False``: no model at all; the plane can ``verify``, not ``respond``.
    * ``policy`` [--policy]: a bundle file path, a LoadedPolicy, a PolicyBundle or a dict. Default:
      $CONTROLPLANE_POLICY, else the bundle promoted in ``db`` (looked up again on every request, so a promotion or
      rollback takes effect at once), else the shipped bundle. See ``controlplane.policy_source``.
    * ``require_signed``/``public_key`` [--require-signed/--public-key]: refuse any bundle without a valid signature
      (the shipped default and bundles given in code included). ``None`` follows
      $CONTROLPLANE_REQUIRE_SIGNED_POLICY and $CONTROLPLANE_POLICY_PUBLIC_KEY.
    * ``db`` [--db]: trace store path or TraceStore; ``None`` is the default store (``$CONTROLPLANE_HOME/traces.db``);
      ``False`` stores nothing (trace ids are still returned).
    * ``retriever``: a Retriever object, or a spec: ``chroma:COLLECTION`` or a ``controlplane_retrievers`` plugin name
      (``name`` or ``name:ARG``). ``collection``/``index`` [--collection/--index] are shorthand for
      ``chroma:COLLECTION`` in that vector index directory (``index_db`` is the old name of ``index``). The policy's
      ``retrieval_required`` gate uses it; requests without evidence are also answered from it (see ``respond``).
      ``retrieval_k`` [ask --k] overrides the policy's ``retrieval_required`` ``params.k``.
    * ``collections``: extra named retrievers (name -> Retriever or spec) a request may choose by name.
    * ``nli_backend`` [--nli-backend]: an NliBackend object or a backend name (``shipped``, ``transformers:PATH``, a
      plugin name, ``none``). Default: the policy's, else the shipped verifier, loaded on first use. Whatever it is,
      the plane puts one score cache in front of it (pairs repeat across gates and regen attempts).
    * ``critic`` [--critic]: the sync critic (G7): a Critic object or a model spec string; default: the main model;
      ``False``: none (the gate then fails CRITIC_UNAVAILABLE when the policy calls for it).
    * ``gates``/``plugins``: gate objects and pluggy plugins registered in code; ``load_entry_points`` also loads the
      ``controlplane`` entry-point group (gates, adapters, retrievers, NLI backends of installed packages).
      ``registry``: a GateRegistry to use instead (replay shares one across many traces).
    """

    def __init__(
        self,
        model: str | IntelligenceModule | None | bool = None,
        policy: str | Path | LoadedPolicy | PolicyBundle | Mapping[str, Any] | None = None,
        *,
        db: str | Path | TraceStore | None | bool = None,
        retriever: Retriever | str | None = None,
        collection: str | None = None,
        index: str | Path | None = None,
        index_db: str | Path | None = None,
        collections: Mapping[str, Retriever | str] | None = None,
        retrieval_k: int | None = None,
        nli_backend: NliBackend | str | None = None,
        critic: Critic | str | None | bool = None,
        selector_model: str | IntelligenceModule | None = None,
        gates: Iterable[Gate] = (),
        plugins: Iterable[ModuleType | object] = (),
        load_entry_points: bool = True,
        registry: GateRegistry | None = None,
        require_signed: bool | None = None,
        public_key: str | Path | None = None,
        max_model_concurrency: int = 1,
        max_workers: int | None = None,
        max_sessions: int = 1000,
        max_session_turns: int = 40,
        session_idle_seconds: float = 3600.0,
        answer_mode: AnswerMode | str | None = None,
        envelope: EnvelopeFormat | str | None = None,
    ):
        for name, value in (("max_model_concurrency", max_model_concurrency), ("retrieval_k", retrieval_k)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):  # "5" is no count
                raise ConfigurationError(f"{name} must be an integer, not {type(value).__name__} {value!r}")
        if max_model_concurrency < 1:
            raise ConfigurationError("max_model_concurrency must be at least 1")
        if retrieval_k is not None and retrieval_k < 1:
            raise ConfigurationError("retrieval_k must be at least 1")
        if index is not None and index_db is not None and Path(index) != Path(index_db):
            raise ConfigurationError("give index= (the vector index directory) once; index_db is its old name")
        # The store first: the policy may be the one promoted in it. Nothing else is loaded if the policy is refused.
        self.store = _open_store(db)
        self._owns_store = self.store is not None and not isinstance(db, TraceStore)
        # None: the bundle decides (answer_mode, answer_mode_by_model); a value here overrides it for every request.
        self.answer_mode = parse_answer_mode(answer_mode)
        try:
            # None: the model spec's ?envelope= option, else the bundle's ``envelope`` (json or prose, issue 14).
            self.envelope = parse_envelope_format(envelope) or _spec_envelope(model)
            self._assemble(model, policy, retriever, collection, index if index is not None else index_db,
                           collections, retrieval_k, nli_backend, critic, selector_model, gates, plugins,
                           load_entry_points, registry, require_signed, public_key, max_model_concurrency)
        except BaseException:
            self._close_owned_store()
            raise
        self._sessions = _Sessions(max_sessions, max_session_turns, session_idle_seconds)
        self._max_workers = max_workers or min(32, (os.cpu_count() or 1) + 4)
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._pipeline: Pipeline | None = None
        self._closed = False

    def _assemble(self, model, policy, retriever, collection, index, collections, retrieval_k, nli_backend, critic,
                  selector_model, gates, plugins, load_entry_points, registry, require_signed, public_key,
                  max_model_concurrency) -> None:
        """Policy, gates, model, retriever, NLI backend (behind the score cache) and critic, in that order."""
        self._policy_source = PolicySource(policy, self.store, signing_config(require_signed, public_key))
        self.policy = self._policy_source.current
        self.registry = registry if registry is not None else GateRegistry(load_entry_points=load_entry_points,
                                                                          plugins=plugins)
        if registry is not None:
            for plugin in plugins:
                self.registry.register_plugin(plugin)
        for gate in gates:
            self.registry.register_gate(gate)
        self._index = Path(index) if index is not None else None
        self._retrieval_k = retrieval_k
        self.model: _BoundedModel | None = (
            None if model is False else _BoundedModel(self._resolve_model(model), max_model_concurrency)
        )
        self.selector_model = (
            _BoundedModel(self._resolve_model(selector_model), max_model_concurrency)
            if selector_model is not None else self.model
        )
        if retriever is not None and collection is not None:
            raise ConfigurationError("give either retriever= or collection=, not both")
        self.retriever = self._resolve_retriever(f"chroma:{collection}" if collection else retriever)
        self._collections: dict[str, Retriever] = {
            name: self._resolve_retriever(spec) for name, spec in (collections or {}).items()
        }
        if collection and self.retriever is not None:
            self._collections.setdefault(collection, self.retriever)
        self._collections_lock = threading.Lock()
        self._nli_spec = nli_backend
        self.nli_backend = self._resolve_nli(nli_backend)
        self.critic = self._resolve_critic(critic)
        self.similarity = EmbeddingSimilarity()  # loaded on first use (a swapped term's synonymy: nli_entailment)

    def check(self) -> ControlPlane:
        """Fail now, not on the first request: raises ConfigurationError if the policy names a gate that no plugin
        registers. (Register code gates first; ``serve`` and ``create_app`` call this.) Returns the plane."""
        self._pipeline_now()
        return self

    # -- configuration ------------------------------------------------------------------------------------------
    def register_gate(self, gate: Gate) -> None:
        """Register a gate object in code. It runs where the policy bundle's ``gates`` list names its gate_id."""
        if not isinstance(gate, Gate):
            raise ConfigurationError(f"{gate!r} is not a gate (gate_id, version, cost_class, stage, evaluate)")
        with self._lock:
            if gate.gate_id in self.registry.gates():
                raise ConfigurationError(f"gate id {gate.gate_id!r} is registered twice; gate ids must be unique")
            self.registry.register_gate(gate)
            self._pipeline = None  # rebuilt (and re-checked) on next use

    def register_plugin(self, plugin: ModuleType | object, name: str | None = None) -> None:
        """Register a pluggy plugin (a module or object with ``controlplane_*`` hookimpls, see gates/hookspec.py).
        A plugin whose gates clash with registered ones is rejected and leaves the plane unchanged."""
        with self._lock:
            try:
                self.registry.register_plugin(plugin, name=name)
            except ValueError as exc:  # pluggy: the same plugin object or name twice
                raise ConfigurationError(f"plugin {name or plugin!r} is already registered ({str(exc)[:80]})") from None
            try:
                self.registry.gates()
            except GateRegistryError as exc:
                self.registry.plugin_manager.unregister(plugin)
                self.registry._gates = None
                raise ConfigurationError(str(exc)) from None
            self._pipeline = None

    @property
    def pipeline(self) -> Pipeline:
        """The engine this plane drives (router, evidence, model, gates, regen, degrade, traces)."""
        return self._pipeline_now()

    @property
    def retrieval_k(self) -> int:
        """Chunks a retrieving request asks for: ``retrieval_k=`` if given, else the policy's retrieval_required k."""
        return self._retrieval_params(self.pipeline.policy)[0]

    @property
    def services(self) -> GateServices:
        """What the gates may call: the retriever, the NLI backend (behind the plane's score cache), the critic, the
        term similarity."""
        return GateServices(retriever=self.retriever, nli_backend=self.nli_backend, critic=self.critic,
                            similarity=self.similarity)

    def _pipeline_now(self) -> Pipeline:
        policy = self._policy_source.refresh()  # a promotion or rollback since the last request takes effect here
        with self._lock:
            if policy is not self.policy:
                previous, self.policy = self.policy, policy
                if self._nli_spec is None and _policy_nli_name(previous) != _policy_nli_name(policy):
                    self.nli_backend = self._resolve_nli(None)
                self._pipeline = None
            if self._pipeline is None:
                try:
                    self._pipeline = Pipeline(
                        model=self.model,  # type: ignore[arg-type]  # None only on a verify-only plane
                        policy=self.policy,
                        selector_model=self.selector_model,
                        registry=self.registry,
                        store=self.store,
                        services=self.services,
                        answer_mode=self.answer_mode,
                        envelope=self.envelope,
                    )
                except GateRegistryError as exc:
                    raise ConfigurationError(str(exc)) from None
            return self._pipeline

    @property
    def model_id(self) -> str:
        return self.model.metadata().model_id if self.model is not None else "none"

    def gate_ids(self) -> list[str]:
        return sorted(self.registry.gates())

    def collection_names(self) -> list[str]:
        with self._collections_lock:
            return sorted(self._collections)

    # -- requests -----------------------------------------------------------------------------------------------
    def respond(
        self,
        messages: str | Sequence[Mapping[str, Any]],
        evidence: Sequence[Mapping[str, Any]] | EvidencePack | None = None,
        *,
        facts: Sequence[Mapping[str, Any]] | None = None,
        session_id: str | None = None,
        collection: str | None = None,
        retrieve: bool | None = None,
        keep_context: bool = True,
        trace_id: str | None = None,
        rules: Mapping[str, Any] | None = None,
        envelope: EnvelopeFormat | str | None = None,
    ) -> Response:
        """Answer the last user message through the whole gate pipeline; the trace is stored under ``trace_id``.

        ``messages`` is a string (one user message) or chat messages ``[{"role", "content"}, ...]``. ``evidence`` is a
        list of items (``{"text", "title"?, "id"?, "source"?, "trust_tier"?, ...}``) or an EvidencePack; ``facts``
        are AtomicFacts. Evidence is also retrieved up front for the question when ``collection`` names one
        (``collections=`` or a chroma collection in ``index_db``), or when the plane has a retriever and the request
        carries no evidence; ``retrieve=False`` leaves retrieval to the policy's retrieval_required gate, ``True``
        forces it. ``rules`` are the pack's EvidencePack rules (an evidence file's ``"rules"``). With ``session_id``
        (and ``keep_context``) the session's earlier turns are put before ``messages``; send only the new
        message(s). ``envelope`` (``json`` or ``prose``) overrides the plane's envelope format for this request.
        Raises InputError (a caller mistake, message names the field) or ConfigurationError.
        """
        if self._closed:
            raise ConfigurationError("this ControlPlane is closed")
        if self.model is None:
            raise ConfigurationError("this ControlPlane has no model (model=False): it can verify, not respond")
        pipeline = self._pipeline_now()
        new_messages = _as_messages(messages)
        if session_id is not None and (not isinstance(session_id, str) or not session_id.strip()):
            raise InputError("session_id must be a non-empty string")
        if trace_id is not None and (not isinstance(trace_id, str) or not trace_id.strip()):
            raise InputError("trace_id must be a non-empty string (or None for a new id)")
        request_envelope = parse_envelope_format(envelope)
        if session_id is None or not keep_context:
            pack = self._pack_for(pipeline, new_messages, evidence, facts, collection, retrieve, rules)
            result = pipeline.run(new_messages, evidence=pack, session_id=session_id, trace_id=trace_id,
                                  envelope=request_envelope)
            return response_from_run(result, session_id)
        validate_messages(new_messages, pipeline.policy.bundle.budgets.max_message_chars)  # before the session
        session = self._sessions.get(session_id)
        with session.lock:  # one request at a time per session, so turns never interleave
            history = [dict(t) for t in session.turns]
            full = self._with_history(history, new_messages)
            # retrieval reads the question as the pipeline will: a follow-up with the session's previous question
            pack = self._pack_for(pipeline, full, evidence, facts, collection, retrieve, rules)
            result = pipeline.run(full, evidence=pack, session_id=session_id, trace_id=trace_id,
                                  envelope=request_envelope)
            if not session.ended:
                turns = [m for m in full if m["role"] != "system"]
                turns.append({"role": "assistant", "content": result.assistant_text})
                session.turns = turns[-self._sessions.max_turns:]
        return response_from_run(result, session_id)

    async def arespond(self, messages: str | Sequence[Mapping[str, Any]], evidence: Any = None,
                       **options: Any) -> Response:
        """``respond`` in the plane's thread pool: awaiting it never blocks the event loop."""
        loop = asyncio.get_running_loop()
        call = functools.partial(self.respond, messages, evidence, **options)
        return await loop.run_in_executor(self._pool(), call)

    async def arun(self, function, *args: Any, **kwargs: Any) -> Any:
        """Run any blocking call of this plane (trace reads, verify) in its thread pool."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool(), functools.partial(function, *args, **kwargs))

    def verify(self, envelope: str | Mapping[str, Any], evidence: Any = None, message: str = "",
               facts: Any = None, rules: Mapping[str, Any] | None = None, prose: bool = False) -> VerifyResult:
        """Router and gates on one envelope, no model call and nothing stored (CLI ``verify``). ``prose=True``
        (``verify --prose``): ``envelope`` is any model's plain-text answer, attributed by the server first."""
        import json

        raw = envelope if isinstance(envelope, str) else json.dumps(envelope, ensure_ascii=False)
        pipeline = self._pipeline_now()
        # verify never calls a model: no main model, no selector (the router's decision stands), no critic model.
        checker = Pipeline(model=None, policy=pipeline.policy, selector_model=None,  # type: ignore[arg-type]
                           registry=self.registry, services=dataclasses.replace(pipeline.services, critic=None))
        checker.selector_model = None
        return checker.verify(raw, evidence=evidence, message=message, facts=facts, rules=rules, prose=prose)

    def reverify(self, trace_id: str, text: str, *, new_trace_id: str | None = None):
        """Re-verify a user's edit of a stored answer (grounded-generation contract §7.2; CLI ``reverify``).

        The edited paragraph is re-anchored to the evidence pack of ``trace_id`` (markers first, then attribution
        as in prose mode), every gate of the policy runs, and each sentence gets PASS or FAIL with its reasons and
        what evidence would fix it. The check is stored as a new trace with ``parent_trace_id`` = ``trace_id``. No
        model is called. Returns a ``controlplane.reverify.ReverifyResult``."""
        from controlplane.pipeline import new_trace_id as make_trace_id
        from controlplane.reverify import reverify

        store = self._require_store()
        if not isinstance(trace_id, str) or not trace_id.strip():
            raise InputError("trace_id must name the stored trace whose answer was edited")
        if not store.exists(trace_id):
            raise InputError(f"no trace {trace_id!r} in {getattr(store, 'path', 'the trace store')}: "
                             "give the trace id of the answer that was edited (see `controlplane trace list`)")
        parent = store.load_bundle(trace_id)
        pipeline = self._pipeline_now()
        child_id = new_trace_id or make_trace_id()
        result, bundle = reverify(pipeline, parent, text, child_id)
        store.begin(child_id, bundle.messages, created_at=bundle.created_at)
        store.save(bundle)
        return result

    # -- sessions -----------------------------------------------------------------------------------------------
    def end_session(self, session_id: str) -> int:
        """Discard the session's context now (CFS-020 §2.2). Returns how many turns were dropped."""
        return self._sessions.end(session_id)

    def session_turns(self, session_id: str) -> list[dict[str, str]]:
        """A copy of the turns kept for a session (empty once it has ended)."""
        return self._sessions.turns(session_id)

    def active_sessions(self) -> list[str]:
        return self._sessions.ids()

    # -- traces -------------------------------------------------------------------------------------------------
    def trace(self, trace_id: str) -> TraceBundle:
        """The stored TraceBundle of one request (CLI ``trace show``)."""
        return self._require_store().load_bundle(trace_id)

    def traces(self, since: str | None = None, status: str | None = None,
               limit: int | None = 50) -> list[dict[str, Any]]:
        """Stored traces, newest first (CLI ``trace list``)."""
        return self._require_store().list_traces(since=since, status=status, limit=limit)

    def _require_store(self) -> TraceStore:
        if self.store is None:
            raise ConfigurationError("this ControlPlane stores no traces (db=False); pass db=PATH")
        return self.store

    # -- serving and lifetime -----------------------------------------------------------------------------------
    def app(self, **options: Any):
        """The Starlette app (OpenAI-compatible endpoint, trace API, viewer) serving this plane."""
        from controlplane.server import create_app

        return create_app(self, **options)

    def serve(self, host: str = "127.0.0.1", port: int = 8080, header_timeout: float | None = None,
              body_timeout: float | None = None, **options: Any) -> None:
        """Serve this plane over HTTP until interrupted, with the server's request deadlines (see server.py)."""
        from controlplane.server import serve_app

        timeouts = {k: v for k, v in (("header_timeout", header_timeout), ("body_timeout", body_timeout)) if v}
        serve_app(self.app(**options), host=host, port=port, **timeouts)

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._closed:
                raise ConfigurationError("this ControlPlane is closed")
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self._max_workers, thread_name_prefix="controlplane")
            return self._executor

    def close(self) -> None:
        """End every session, stop the thread pool, close this thread's store connection. Idempotent."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        self._sessions.end_all()
        if executor is not None:
            executor.shutdown(wait=True)
        self._close_owned_store()

    def _close_owned_store(self) -> None:
        if self.store is not None and self._owns_store:
            self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers ------------------------------------------------------------------------------------------------
    def _with_history(self, history: list[dict[str, str]], new: list[dict[str, str]]) -> list[dict[str, str]]:
        system = [m for m in new if m["role"] == "system"]
        rest = [m for m in new if m["role"] != "system"]
        limit = self.policy.bundle.budgets.max_message_chars
        fixed = sum(len(m["content"]) for m in system + rest)
        kept = list(history)
        # Oldest turns go first when the conversation outgrows the policy's message budget.
        while kept and fixed + sum(len(m["content"]) for m in kept) > limit:
            kept.pop(0)
        while kept and kept[0]["role"] != "user":
            kept.pop(0)
        return system + kept + rest

    def _pack_for(self, pipeline: Pipeline, messages: list[dict[str, str]], evidence: Any, facts: Any,
                  collection: str | None, retrieve: bool | None, rules: Mapping[str, Any] | None) -> EvidencePack:
        # Validate the new messages before any retrieval, so a bad request costs nothing.
        validate_messages(messages, pipeline.policy.bundle.budgets.max_message_chars)
        if isinstance(evidence, EvidencePack):
            if collection is not None or retrieve:
                raise InputError("a prebuilt EvidencePack is used as is; pass evidence as a list to add retrieval")
            return evidence
        caller_given = bool(evidence) or bool(facts)
        retriever = self.collection(collection) if collection is not None else self.retriever
        wanted = retrieve if retrieve is not None else (collection is not None or not caller_given)
        if not wanted or retriever is None:
            return pipeline.build_pack(evidence, facts, rules)
        query = read_question(messages, follow_ups=pipeline.policy.bundle.router.follow_ups).question
        k, min_score, lexical_pass = self._retrieval_params(pipeline.policy)
        from controlplane.realtime import retrieve as retrieve_for
        from controlplane.router import normalize_text, route

        domains = route(normalize_text(query), pipeline.policy.bundle).domainFlags  # expert libraries per domain
        # A question that asks several things is also searched part by part: the passages that answer "where is
        # it hosted" need not be among those closest to the whole question.
        parts = question_parts(query) if pipeline.policy.bundle.quote.split_questions else []
        queries = [query, *(part.read_as for part in parts)] if len(parts) > 1 else [query]
        try:
            items = retrieve_for(retriever, query, k, domains)
            seen = {(item.id, item.hash) for item in items}  # a chunk found again for a part is not added twice
            for text in queries[1:]:
                for item in retrieve_for(retriever, text, k, domains):
                    if (item.id, item.hash) not in seen:
                        seen.add((item.id, item.hash))
                        items.append(item)
        except InputError:
            raise
        except Exception as exc:  # a broken retriever is the deployment's problem, said clearly
            raise ConfigurationError(
                f"retriever {getattr(retriever, 'name', retriever)!r} failed: {type(exc).__name__}: {exc}"
            ) from exc
        items = [i for i in items if meets_retrieval_floor(i, min_score, lexical_pass)[0]]
        from controlplane.evidence_pack import EvidenceError, build_pack

        try:
            return build_pack(caller_items=evidence, facts=facts, retrieved=items,
                              budget=pipeline.policy.bundle.budgets, rules=rules)
        except EvidenceError as exc:
            raise InputError(str(exc)) from None

    def _retrieval_params(self, policy: LoadedPolicy) -> tuple[int, float, dict[str, Any] | None]:
        """k, the cosine floor and its lexical exception, as the retrieval_required gate reads them."""
        spec = next((g for g in policy.bundle.gates if g.gate_id == "retrieval_required"), None)
        params = spec.params if spec else {}
        k = self._retrieval_k or int(params.get("k", DEFAULT_RETRIEVAL_K))
        return k, float(params.get("min_score", 0.0)), params.get("lexical_pass")

    def collection(self, name: str) -> Retriever:
        """The retriever a request names: one of ``collections=``, else a chroma collection of ``index``."""
        if not isinstance(name, str) or not name.strip():
            raise InputError("collection must be a non-empty string")
        with self._collections_lock:
            known = self._collections.get(name)
        if known is not None:
            return known
        if self._index is None:
            raise InputError(
                f"unknown collection {name!r}; known: {', '.join(self.collection_names()) or 'none'} "
                "(serve --index DIR to answer from any collection of an index)"
            )
        from controlplane.evidence_pack.libraries import ExpertFirstRetriever
        from controlplane.evidence_pack.retriever import ChromaRetriever

        try:
            k = self._retrieval_k or DEFAULT_RETRIEVAL_K
            # the index's expert libraries (of the request's domains) are asked first, merged ahead
            retriever = ExpertFirstRetriever(self._index, ChromaRetriever(self._index, name, k), k)
            retriever.check()  # fails when the index or the collection does not exist
        except InputError as exc:  # the request named it, so it is the request's mistake (400), not the server's
            raise InputError(f"collection {name!r} cannot be used: {exc}") from None
        with self._collections_lock:
            return self._collections.setdefault(name, retriever)

    def _resolve_model(self, model: str | IntelligenceModule | None) -> IntelligenceModule:
        if model is None:
            model = os.environ.get(MODEL_ENV) or "default"
        if isinstance(model, str):
            from controlplane.adapters import load_model

            return load_model(model, plugin_adapters=self.registry.hook_results("controlplane_model_adapters"))
        if not isinstance(model, IntelligenceModule):
            raise ConfigurationError(
                f"model must be a spec string or an IntelligenceModule (generate, is_ready, metadata), not {model!r}"
            )
        return model

    def _resolve_retriever(self, spec: Retriever | str | None) -> Retriever | None:
        if spec is None:
            return None
        if not isinstance(spec, str):
            if not isinstance(spec, Retriever):
                raise ConfigurationError(
                    f"retriever must be a spec string or a Retriever (name, retrieve), not {spec!r}")
            return spec
        kind, _, argument = spec.partition(":")
        if kind == "chroma":
            from controlplane.evidence_pack.libraries import ExpertFirstRetriever
            from controlplane.evidence_pack.retriever import ChromaRetriever
            from controlplane.paths import default_index_dir

            if not argument:
                raise ConfigurationError("retriever chroma:COLLECTION needs a collection name")
            index, k = self._index or default_index_dir(), self._retrieval_k or DEFAULT_RETRIEVAL_K
            return ExpertFirstRetriever(index, ChromaRetriever(index, argument, k), k)
        factories = self.registry.hook_results("controlplane_retrievers")
        factory = factories.get(kind)
        if factory is None:
            known = ", ".join(sorted(["chroma", *factories]))
            raise ConfigurationError(f"unknown retriever {spec!r}; known: {known}")
        made = factory(argument) if argument else factory()
        if not isinstance(made, Retriever):
            raise ConfigurationError(f"retriever factory {kind!r} returned {made!r}, which is not a Retriever")
        return made

    def _resolve_nli(self, spec: NliBackend | str | None) -> NliBackend | None:
        """As the CLI's --nli-backend: an object or name is used as given (``none`` for no backend); without one, the
        policy's nli_entailment ``params.backend`` (else the shipped verifier) is loaded lazily on first use. The
        result sits behind one score cache, shared by every gate and attempt of this plane."""
        from controlplane.services import CachedNliBackend, resolve_nli_backend

        backend: NliBackend | None
        if spec is not None and not isinstance(spec, str):
            backend = spec
        else:
            backend = None
            if isinstance(spec, str):
                kind, _, argument = spec.partition(":")
                factories = self.registry.hook_results("controlplane_nli_backends")
                if kind in factories:  # plugins registered in code or by entry point on this plane
                    backend = factories[kind](argument) if argument else factories[kind]()
            if backend is None:
                backend = resolve_nli_backend(spec, self.policy.bundle)
        if backend is None or isinstance(backend, CachedNliBackend):
            return backend
        return CachedNliBackend(backend)

    def _resolve_critic(self, spec: Critic | str | None | bool) -> Critic | None:
        """As the CLI's --critic: a model spec or Critic object; default the main model; False for none."""
        if spec is False:
            return None
        if spec is None or spec is True:
            if self.model is None:
                return None
            from controlplane.critic import ModelCritic

            return ModelCritic(self.model)
        if isinstance(spec, str):
            from controlplane.adapters import MODEL_SETTING
            from controlplane.critic import ModelCritic

            try:
                critic_model = self._resolve_model(spec)
            except ConfigurationError as exc:  # the adapters name --model; here the setting is --critic
                raise ConfigurationError(f"--critic {spec}: {str(exc).replace(MODEL_SETTING, '--critic')}") from None
            return ModelCritic(_BoundedModel(critic_model, 1))
        if not isinstance(spec, Critic):
            raise ConfigurationError(f"critic must be a model spec string or a Critic (critique), not {spec!r}")
        return spec


def parse_envelope_format(value: EnvelopeFormat | str | None) -> EnvelopeFormat | None:
    if value is None or isinstance(value, EnvelopeFormat):
        return value
    try:
        return EnvelopeFormat(value)
    except ValueError:
        raise InputError(f"envelope must be one of {', '.join(e.value for e in EnvelopeFormat)}, not {value!r}") from None


def _spec_envelope(model: Any) -> EnvelopeFormat | None:
    """The ``?envelope=`` option of a model spec string (or of $CONTROLPLANE_MODEL when no model is given)."""
    spec = model if isinstance(model, str) else (os.environ.get(MODEL_ENV) if model is None else None)
    if not spec:
        return None
    from controlplane.adapters import split_spec_options

    value = split_spec_options(spec)[1].get("envelope")
    return EnvelopeFormat(value) if value else None


def _policy_nli_name(policy: LoadedPolicy) -> str | None:
    from controlplane.services import policy_backend_name

    return policy_backend_name(policy.bundle)


def _as_messages(messages: Any) -> list[dict[str, str]]:
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if isinstance(messages, Mapping):
        raise InputError("messages must be a list of {\"role\", \"content\"} objects (or one string), not one object")
    if not isinstance(messages, Sequence) or not messages:
        raise InputError("messages must be a non-empty list of {\"role\", \"content\"} objects")
    out = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise InputError(f"messages[{index}] must be an object with 'role' and 'content'")
        out.append({"role": message.get("role"), "content": message.get("content")})
    return out  # roles and contents are checked by the pipeline (validate_messages)


def _open_store(db: Any) -> TraceStore | None:
    if db is False:
        return None
    if isinstance(db, TraceStore):
        return db
    if db is True or db is None:
        from controlplane.paths import default_trace_db

        db = default_trace_db()
    try:
        return TraceStore(db)
    except TraceStoreError as exc:
        raise ConfigurationError(str(exc)) from None
