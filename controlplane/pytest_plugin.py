"""pytest fixtures for gate authors and embedders (registered by the ``pytest11`` entry point ``controlplane``).

Fixtures
  gate_harness    run ONE gate (by id or object) on a hand-written envelope and evidence, through the real
                  GateRegistry (fail-closed: a gate that raises is a fail with GATE_ERROR, as in production); returns
                  a GateCheck with assertion helpers on reason codes.
  scripted_model  factory: write scripted-model outputs (dict = envelope, str = raw text) to a JSONL file and return
                  the real ScriptedModel adapter (``.path`` gives the file for ``model="scripted:PATH"``).
  trace_store     a temporary TraceStore (SQLite) closed after the test.
  control_plane   factory: a ``controlplane.ControlPlane`` on a scripted model and the temporary trace store.

Worked example: docs/testing-gates.md. Disable with ``-p no:controlplane``. Imports are lazy, so loading the
plugin costs nothing in test runs that do not use it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from controlplane.adapters.scripted import ScriptedModel
    from controlplane.api import ControlPlane
    from controlplane.contracts import GateResult
    from controlplane.traces.store import TraceStore


# -- the harness --------------------------------------------------------------------------------------------------
class GateCheck:
    """A GateResult plus assertions that print the whole verdict when they fail. Attribute access falls through to
    the GateResult (``check.details``, ``check.gate_id``, ``check.measured`` ...)."""

    def __init__(self, result: GateResult):
        self.result = result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.result, name)

    def __repr__(self) -> str:
        return f"GateCheck({self.result.gate_id}: {self.outcome} {sorted(self.codes)})"

    @property
    def outcome(self) -> str:
        return self.result.result.value

    @property
    def codes(self) -> set[str]:
        """Reason codes as plain strings."""
        return {c.value for c in self.result.reason_codes}

    def claim_codes(self, claim_id: str) -> set[str]:
        """Reason codes the gate attributed to one claim (``details["claims"][claim_id]``)."""
        per_claim = self.result.details.get("claims") or {}
        return {str(c) for c in per_claim.get(claim_id, [])}

    def _explain(self) -> str:
        return json.dumps(self.result.model_dump(mode="json"), indent=2, ensure_ascii=False, default=str)

    def assert_pass(self) -> GateCheck:
        assert self.outcome == "pass", f"expected {self.result.gate_id} to pass, got:\n{self._explain()}"
        return self

    def assert_skip(self, *codes: str) -> GateCheck:
        assert self.outcome == "skip", f"expected {self.result.gate_id} to skip, got:\n{self._explain()}"
        self._has(codes)
        return self

    def assert_fail(self, *codes: str, only: bool = False) -> GateCheck:
        """The gate failed with (at least) these reason codes; ``only=True``: with exactly these."""
        assert self.outcome == "fail", f"expected {self.result.gate_id} to fail, got:\n{self._explain()}"
        self._has(codes)
        if only:
            assert self.codes == {_code(c) for c in codes}, (
                f"expected exactly {sorted(_code(c) for c in codes)}, got {sorted(self.codes)}:\n{self._explain()}")
        return self

    def assert_claim(self, claim_id: str, *codes: str) -> GateCheck:
        """The gate blamed this claim for (at least) these codes."""
        found = self.claim_codes(claim_id)
        missing = {_code(c) for c in codes} - found
        assert found and not missing, (
            f"expected claim {claim_id} to carry {sorted(_code(c) for c in codes)}, it carries {sorted(found)}:\n"
            f"{self._explain()}")
        return self

    def _has(self, codes: Iterable[str]) -> None:
        missing = {_code(c) for c in codes} - self.codes
        assert not missing, f"missing reason code(s) {sorted(missing)}:\n{self._explain()}"


def _code(code: Any) -> str:
    return code.value if hasattr(code, "value") else str(code)


class GateHarness:
    """Runs one gate in isolation, on inputs written by hand, through the same GateRegistry as the pipeline."""

    def __init__(self, policy: Any = None, load_entry_points: bool = True):
        from controlplane.gates.registry import GateRegistry
        from controlplane.policy_source import PolicySource, signing_config

        # The same resolution as a ControlPlane without a trace store: policy=, else $CONTROLPLANE_POLICY, else the
        # shipped bundle. A harness tests gates and serves nobody, so no signature is asked for.
        self.policy = PolicySource(policy, None, signing_config(require_signed=False)).current
        self.registry = GateRegistry(load_entry_points=load_entry_points)

    def register(self, gate_or_plugin: Any) -> Any:
        """Register a gate object, or a plugin module with a ``controlplane_gates`` hookimpl (what an entry point
        does), so its gates can be run by id. Returns what it was given."""
        from controlplane.gates.interfaces import Gate

        if isinstance(gate_or_plugin, Gate):
            self.registry.register_gate(gate_or_plugin)
        else:
            self.registry.register_plugin(gate_or_plugin)
        return gate_or_plugin

    # -- inputs -------------------------------------------------------------------------------------------------
    @staticmethod
    def envelope(
        assistant_text: str,
        claims: Sequence[Mapping[str, Any] | Sequence[Any]] | None = None,
        mode: str = "System",
        domain_flags: Sequence[str] = (),
        spans: bool = False,
        **meta: Any,
    ) -> dict[str, Any]:
        """An OutputEnvelope dict. ``claims`` items are dicts, or tuples ``(text, [evidence ids])`` /
        ``(text, [ids], status)``; claim ids c1, c2, ... and citations/used ids are filled in. Without ``claims``,
        every sentence becomes a FACTUAL claim citing nothing. ``spans=True`` anchors each claim at the next place
        its text occurs in ``assistant_text`` (``span: {start_char, end_char}``). Any other keyword is a ``meta``
        field (``ignored_evidence_ids=[...]``, ``citations=[...]`` ...) and replaces the filled-in value.

        The test suite builds every envelope with this one function."""
        from controlplane.contracts.text import split_sentences

        if claims is None:
            claims = [(s.text, []) for s in split_sentences(assistant_text)]
        claim_map = []
        for index, claim in enumerate(claims, start=1):
            if isinstance(claim, Mapping):
                item = {"claim_id": f"c{index}", "evidence_ids": [], "status": "FACTUAL", **dict(claim)}
            else:
                text, ids, *rest = claim
                item = {"claim_id": f"c{index}", "text": text, "evidence_ids": list(ids),
                        "status": rest[0] if rest else "FACTUAL"}
            claim_map.append(item)
        if spans:
            cursor = 0
            for item in claim_map:
                start = assistant_text.find(item["text"], cursor)
                if start < 0:
                    raise ValueError(f"claim {item['claim_id']} text {item['text']!r} is not in assistant_text")
                cursor = start + len(item["text"])
                item["span"] = {"start_char": start, "end_char": cursor}
        used = list(dict.fromkeys(i for c in claim_map for i in c.get("evidence_ids", [])))
        body = {
            "modeLabel": mode,
            "domainFlags": list(domain_flags),
            "claim_map": claim_map,
            "citations": [{"claim_id": c["claim_id"], "evidence_ids": list(c["evidence_ids"])}
                          for c in claim_map if c.get("evidence_ids")],
            "used_evidence_ids": used,
        }
        body.update(meta)
        return {"assistant_text": assistant_text, "meta": body}

    def pack(self, evidence: Any = None, facts: Any = None):
        """An EvidencePack from a list of items (``{"text": ...}``, ids kept, missing ids become E1, E2, ...)."""
        from controlplane.contracts import EvidencePack
        from controlplane.evidence_pack import build_pack

        if isinstance(evidence, EvidencePack):
            return evidence
        return build_pack(caller_items=list(evidence or []), facts=list(facts or []), budget=self.policy.bundle.budgets)

    def decision(self, message: str = "", mode: Any = None):
        """The router's ModeDecision for ``message`` (no selector model), or ``mode`` (a ModeDecision or dict)."""
        from controlplane.contracts import ModeDecision
        from controlplane.router import normalize_text, route

        if isinstance(mode, ModeDecision):
            return mode
        if isinstance(mode, Mapping):
            return ModeDecision.model_validate(dict(mode))
        if mode is not None:
            raise TypeError("mode must be a ModeDecision or a dict (use message= to let the router decide)")
        return route(normalize_text(message) if message else "", self.policy.bundle)

    # -- running ------------------------------------------------------------------------------------------------
    def run(
        self,
        gate: Any,
        envelope: Mapping[str, Any] | str | None = None,
        evidence: Any = None,
        *,
        message: str = "",
        mode: Any = None,
        params: Mapping[str, Any] | None = None,
        facts: Any = None,
        raw_output: str | None = None,
        usage: Any = None,
        services: Any = None,
        respect_when: bool = False,
    ) -> GateCheck:
        """Run one gate (an id registered here, or a gate object) and return its GateCheck.

        ``envelope`` is a dict or JSON text; it is serialised and parsed exactly as a model's output is, so schema
        problems reach the gate as in production (``raw_output`` passes text as is, e.g. prose or broken JSON).
        ``params`` are the GateSpec params (default: the policy's spec for this gate id, else none). The gate runs
        even if the policy's ``when`` would skip it, unless ``respect_when``.
        """
        from controlplane.contracts import GateSpec
        from controlplane.gates.envelope_parsing import parse_envelope
        from controlplane.gates.interfaces import BudgetUsage, Gate, GateInput, GateServices
        from controlplane.gates.registry import PlannedGate, when_holds

        if isinstance(gate, str):
            known = self.registry.gates()
            if gate not in known:
                raise LookupError(f"no gate {gate!r} registered; known: {', '.join(sorted(known))} "
                                  "(pass the gate object, or gate_harness.register(gate) first)")
            gate_obj = known[gate]
        elif isinstance(gate, Gate):
            gate_obj = gate
        else:
            raise TypeError(f"{gate!r} is not a gate (gate_id, version, cost_class, stage, evaluate)")
        if raw_output is None and envelope is not None:
            raw_output = envelope if isinstance(envelope, str) else json.dumps(envelope, ensure_ascii=False)
        parsed = parse_envelope(raw_output) if raw_output is not None else None
        decision = self.decision(message, mode)
        spec = next((s for s in self.policy.bundle.gates if s.gate_id == gate_obj.gate_id), None)
        spec = spec or GateSpec(gate_id=gate_obj.gate_id)
        if params is not None:
            spec = spec.model_copy(update={"params": dict(params)})
        runs, why = True, "gate_harness"
        if respect_when:
            runs, why = when_holds(spec.when, decision, parsed.envelope if parsed else None, message or "")
        inp = GateInput(
            mode_decision=decision,
            evidence_pack=self.pack(evidence, facts),
            policy=self.policy.bundle,
            spec=spec,
            user_message=message,
            raw_output=raw_output,
            envelope=parsed.envelope if parsed else None,
            parse_issues=parsed.issues if parsed else (),
            parse_failure=parsed.failure if parsed else None,
            usage=usage or BudgetUsage(attempt=1),
            services=services or GateServices(),
        )
        return GateCheck(self.registry.run_one(PlannedGate(spec, gate_obj, runs, why), inp))


# -- fixtures -----------------------------------------------------------------------------------------------------
@pytest.fixture
def gate_harness() -> GateHarness:
    """Run one gate on a hand-written envelope and evidence; assert on its reason codes (see GateCheck)."""
    return GateHarness()


@pytest.fixture
def scripted_model(tmp_path: Path) -> Callable[..., ScriptedModel]:
    """``scripted_model([envelope_dict, "raw text", {"output": ..., "purpose": "selector"}])`` -> ScriptedModel."""
    from controlplane.adapters.scripted import ScriptedModel

    directory = tmp_path / "controlplane-scripts"
    directory.mkdir(exist_ok=True)
    counter = {"n": 0}

    def make(outputs: Iterable[Any], name: str | None = None) -> ScriptedModel:
        counter["n"] += 1
        path = directory / (name or f"script_{counter['n']}.jsonl")
        path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in outputs), encoding="utf-8")
        return ScriptedModel(path)

    return make


@pytest.fixture
def trace_store(tmp_path: Path) -> Iterable[TraceStore]:
    """A fresh SQLite TraceStore in the test's temporary directory."""
    from controlplane.traces.store import TraceStore

    store = TraceStore(tmp_path / "controlplane-traces.db")
    yield store
    store.close()


@pytest.fixture
def control_plane(scripted_model, trace_store) -> Iterable[Callable[..., ControlPlane]]:
    """``control_plane(outputs, **options)`` -> a ControlPlane answering with those scripted outputs, storing traces
    in ``trace_store``. ``options`` are ControlPlane's (policy=, gates=, retriever=, db= ...); pass ``model=`` instead
    of outputs to use another adapter. Every plane made is closed after the test."""
    from controlplane.api import ControlPlane

    made: list[ControlPlane] = []

    def make(outputs: Iterable[Any] | None = None, **options: Any) -> ControlPlane:
        if outputs is not None:
            if "model" in options:
                raise TypeError("give scripted outputs or model=, not both")
            options["model"] = scripted_model(outputs)
        options.setdefault("db", trace_store)
        plane = ControlPlane(**options)
        made.append(plane)
        return plane

    yield make
    for plane in made:
        plane.close()


__all__ = ["GateCheck", "GateHarness"]
