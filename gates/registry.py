"""GateRegistry: collects gates from plugins (built-ins, code, entry points) and runs them fail-closed.

Which gates run and in which order is the policy bundle's: ``plan`` evaluates every GateSpec's ``when`` condition
(the gate lattice), ``run`` executes the plan. A gate that raises, returns something that is not its own
GateResult, or is named by the policy but not registered, produces a failing GateResult — never a pass.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pluggy

from controlplane.contracts import (
    ClaimStatus,
    CostClass,
    GateResult,
    GateSpec,
    Measured,
    ModeDecision,
    OutputEnvelope,
    PolicyBundle,
    ReasonCode,
    WhenCondition,
)

from . import hookspec
from .attempt import AttemptView
from .interfaces import Gate, GateInput, GateStage

BUILTIN_GATE_MODULES = (
    "output_schema",
    "mode_echo_match",
    "evidence_binding",
    "citation_integrity",
    "claim_anchors",
    "budget_enforcer",
    "retrieval_required",
    "claim_categories",
    "evidence_conflicts",
    "reasoning_chain",
    "evidence_graph",
    "domain_profiles",
    "claim_dependencies",
    "response_validation",
)
OPTIONAL_GATE_MODULES = ("nli_entailment", "semantic_critic_sync")


class GateRegistryError(ValueError):
    """Two plugins claim one gate id, or a plugin returns something that is not a gate."""


_SPACES = re.compile(r"\s+")
# ASCII text: one byte per character, 0 where ``\s`` matches (the ASCII whitespace of a str pattern), else 1
_ASCII_COUNTED = bytes(0 if re.match(r"\s", chr(code)) else 1 for code in range(256))


def citation_density(envelope: OutputEnvelope, view: AttemptView | None = None) -> float:
    """Share of the answer's characters (markers and spaces aside) inside claims that cite evidence or are honestly
    UNKNOWN. Low density means the claim map covers little of what the user reads: binding passes only barely.
    ``view``: the attempt's derived view, when the caller has one (anchors and markers are then not derived again)."""
    if view is None or view.envelope is not envelope:
        view = AttemptView(envelope)
    text = envelope.assistant_text
    anchors = view.anchors
    backed = [anchors[c.claim_id] for c in envelope.meta.claim_map
              if c.claim_id in anchors and (c.evidence_ids or c.status is ClaimStatus.UNKNOWN)]
    # one byte per character: counted (not a space, not in a marker), and covered by a backed claim. Spans are set
    # slice by slice, so the cost is the text's length plus the spans', never characters x claims.
    if text.isascii():  # the usual case, in one C pass
        counted = bytearray(text.encode("ascii").translate(_ASCII_COUNTED))
    else:
        counted = bytearray(b"\x01") * len(text)
        for space in _SPACES.finditer(text):
            counted[space.start():space.end()] = bytes(space.end() - space.start())
    for marker in view.markers:
        counted[marker.start:marker.end] = bytes(marker.end - marker.start)
    total = counted.count(1)
    if not total:
        return 1.0
    covered = bytearray(len(text))
    for anchor in backed:
        covered[anchor.start:anchor.end] = b"\x01" * (anchor.end - anchor.start)
    both = int.from_bytes(counted, "little") & int.from_bytes(covered, "little")
    return both.bit_count() / total


def when_holds(
    when: WhenCondition, decision: ModeDecision, envelope: OutputEnvelope | None = None, message: str = "",
    view: AttemptView | None = None,
) -> tuple[bool, str]:
    """Evaluate a when-condition; returns (holds, why) so the trace says why a gate ran or was skipped."""
    flags = set(decision.all_domain_flags())  # a domain the evidence brought selects its gates too
    checks: list[tuple[bool, str]] = []
    if when.always is not None:
        checks.append((bool(when.always), "always" if when.always else "always=false"))
    if when.domain_flags_any is not None:
        hit = sorted(flags & set(when.domain_flags_any))
        checks.append((bool(hit), f"domain_flags_any:{','.join(hit) or 'none'}"))
    if when.domain_flags_none is not None:
        hit = sorted(flags & set(when.domain_flags_none))
        checks.append((not hit, f"domain_flags_none:{','.join(hit) or 'clear'}"))
    if when.rigor_at_least is not None:
        level = decision.rigorConfig.level
        checks.append((level.rank >= when.rigor_at_least.rank, f"rigor:{level.value}>={when.rigor_at_least.value}"))
    if when.confidence_below is not None:
        checks.append((decision.confidence < when.confidence_below, f"confidence:{decision.confidence}<{when.confidence_below}"))
    if when.unknown_ratio_at_least is not None:
        claims = envelope.meta.claim_map if envelope else []
        ratio = sum(c.status is ClaimStatus.UNKNOWN for c in claims) / len(claims) if claims else 0.0
        checks.append((ratio >= when.unknown_ratio_at_least, f"unknown_ratio:{ratio:.2f}"))
    if when.citation_density_below is not None:
        if envelope is None:
            checks.append((False, "citation_density:no envelope"))
        else:
            density = citation_density(envelope, view)
            checks.append((density < when.citation_density_below, f"citation_density:{density:.2f}"))
    if when.message_matches_any is not None:
        hit = next((p for p in when.message_matches_any if re.search(p, message, re.IGNORECASE)), None)
        checks.append((hit is not None, f"message_matches:{hit or 'none'}"))
    if when.any_of is not None:
        results = [when_holds(sub, decision, envelope, message, view) for sub in when.any_of]
        checks.append((any(ok for ok, _ in results), "any_of(" + "|".join(why for _, why in results) + ")"))
    if not checks:
        return False, "empty condition"  # a condition that says nothing does not switch a gate on by accident
    failed = [why for ok, why in checks if not ok]
    return (not failed), "; ".join(failed or [why for _, why in checks])


def reads_envelope(when: WhenCondition) -> bool:
    """Whether the condition depends on the attempt's envelope (so it is decided again for every attempt)."""
    return (when.unknown_ratio_at_least is not None or when.citation_density_below is not None
            or any(reads_envelope(sub) for sub in when.any_of or ()))


@dataclass(frozen=True)
class PlannedGate:
    spec: GateSpec
    gate: Gate | None
    runs: bool
    why: str

    def as_dict(self) -> dict[str, Any]:
        return {"gate_id": self.spec.gate_id, "runs": self.runs, "why": self.why, "registered": self.gate is not None}


class GateRegistry:
    def __init__(self, load_entry_points: bool = True, plugins: Iterable[ModuleType | object] = ()):
        self._pm = pluggy.PluginManager(hookspec.PROJECT_NAME)
        self._pm.add_hookspecs(hookspec)
        import importlib

        for name in BUILTIN_GATE_MODULES:
            self._pm.register(importlib.import_module(f"{__package__}.{name}"), name=f"builtin:{name}")
        for name in OPTIONAL_GATE_MODULES:
            try:
                module = importlib.import_module(f"{__package__}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{__package__}.{name}":
                    raise
                continue
            self._pm.register(module, name=f"builtin:{name}")
        if load_entry_points:
            self._pm.load_setuptools_entrypoints(hookspec.ENTRY_POINT_GROUP)
        for plugin in plugins:
            self._pm.register(plugin)
        self._gates: dict[str, Gate] | None = None

    @property
    def plugin_manager(self) -> pluggy.PluginManager:
        return self._pm

    def register_plugin(self, plugin: ModuleType | object, name: str | None = None) -> None:
        try:
            self._pm.register(plugin, name=name)
        except ValueError as exc:  # pluggy refuses a second plugin of the same name
            raise GateRegistryError(f"{exc}; gate ids and plugin names must be unique") from None
        self._gates = None

    def register_gate(self, gate: Gate) -> None:
        """Register one gate object in code (wraps it in a tiny plugin)."""

        class _Single:
            @hookspec.hookimpl
            def controlplane_gates(self):
                return [gate]

        self.register_plugin(_Single(), name=f"code:{gate.gate_id}")

    def gates(self) -> dict[str, Gate]:
        if self._gates is None:
            collected: dict[str, Gate] = {}
            for batch in self._pm.hook.controlplane_gates():
                for gate in batch or ():
                    if not isinstance(gate, Gate):
                        raise GateRegistryError(f"plugin returned {gate!r}, which is not a gate (see gates/hookspec.py)")
                    if gate.gate_id in collected:
                        raise GateRegistryError(f"gate id {gate.gate_id!r} is registered twice; gate ids must be unique")
                    collected[gate.gate_id] = gate
            self._gates = collected
        return self._gates

    def hook_results(self, hook_name: str) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for result in getattr(self._pm.hook, hook_name)():
            merged.update(result or {})
        return merged

    def missing_gates(self, policy: PolicyBundle) -> list[str]:
        known = self.gates()
        return [spec.gate_id for spec in policy.gates if spec.enabled and spec.gate_id not in known]

    def plan(
        self,
        policy: PolicyBundle,
        decision: ModeDecision,
        stage: GateStage | None = None,
        envelope: OutputEnvelope | None = None,
        message: str = "",
    ) -> list[PlannedGate]:
        planned = []
        known = self.gates()
        for spec in policy.gates:
            gate = known.get(spec.gate_id)
            if stage is not None and gate is not None and gate.stage is not stage:
                continue
            if stage is GateStage.PRE_GENERATION and gate is None:
                continue  # an unregistered gate is failed once, at the post-generation stage
            if not spec.enabled:
                planned.append(PlannedGate(spec, gate, False, "disabled"))
                continue
            holds, why = when_holds(spec.when, decision, envelope, message)
            planned.append(PlannedGate(spec, gate, holds, why))
        return planned

    def stage_plan(
        self,
        lattice: Sequence[PlannedGate],
        stage: GateStage,
        decision: ModeDecision,
        envelope: OutputEnvelope | None = None,
        message: str = "",
        view: AttemptView | None = None,
    ) -> list[PlannedGate]:
        """The request's lattice (``plan`` without a stage, run once per request) narrowed to one stage, as ``plan``
        would give it: the gates of that stage in the policy's order, and an unregistered gate at the
        post-generation stage only. Of the post-generation gates, only a ``when`` that reads the envelope is
        decided again, on this attempt's envelope; every other decision is the lattice's."""
        planned_now = []
        for planned in lattice:
            gate = planned.gate
            if gate is not None and gate.stage is not stage:
                continue
            if stage is GateStage.PRE_GENERATION and gate is None:
                continue
            if stage is GateStage.POST_GENERATION and planned.spec.enabled and reads_envelope(planned.spec.when):
                holds, why = when_holds(planned.spec.when, decision, envelope, message, view)
                planned = PlannedGate(planned.spec, gate, holds, why)
            planned_now.append(planned)
        return planned_now

    def run_one(self, planned: PlannedGate, inp: GateInput) -> GateResult:
        spec = planned.spec
        if planned.gate is None:
            return GateResult.failing(
                spec.gate_id, "unknown", CostClass.CHEAP, [ReasonCode.GATE_NOT_FOUND],
                details={"why": f"policy names gate {spec.gate_id!r} but no plugin registers it"},
            )
        gate = planned.gate
        if not planned.runs:
            return GateResult.skipped(
                gate.gate_id, gate.version, gate.cost_class, [ReasonCode.SKIPPED_BY_POLICY], details={"when": planned.why}
            )
        started = time.perf_counter()
        try:
            result = gate.evaluate(inp if inp.spec is spec else inp.for_gate(spec))
        except Exception as exc:  # fail closed: a gate that crashes has not shown the output is fine
            result = GateResult.failing(
                gate.gate_id, gate.version, gate.cost_class, [ReasonCode.GATE_ERROR],
                details={"error": f"{type(exc).__name__}: {str(exc)[:300]}"},
            )
        if not isinstance(result, GateResult) or result.gate_id != gate.gate_id:
            result = GateResult.failing(
                gate.gate_id, gate.version, gate.cost_class, [ReasonCode.GATE_ERROR],
                details={"error": "gate returned something other than its own GateResult"},
            )
        elapsed = (time.perf_counter() - started) * 1000
        measured = Measured(
            latency_ms=round(elapsed, 4), tokens_in=result.measured.tokens_in, tokens_out=result.measured.tokens_out
        )
        return result.model_copy(update={"measured": measured})

    def run(self, plan: Sequence[PlannedGate], inp: GateInput,
            seen_as: Callable[[GateResult], GateResult] | None = None) -> list[GateResult]:
        """Each gate's result, in plan order. ``seen_as`` maps a result to what the gates after it see as its verdict
        (replay: a gate that could not run on redacted evidence is seen with its recorded verdict, so the gates that
        read it judge what was recorded); the list returned holds what each gate itself returned."""
        results: list[GateResult] = []
        seen: list[GateResult] = []
        for planned in plan:  # each gate sees the verdicts before it (GateInput.prior_results)
            result = self.run_one(planned, inp.for_gate(planned.spec, tuple(seen)))
            results.append(result)
            seen.append(seen_as(result) if seen_as is not None else result)
        return results
