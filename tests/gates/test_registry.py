"""GateRegistry: plugins by code and by entry point, policy order and when-conditions, fail-closed execution."""

from __future__ import annotations

import sys
import textwrap

import pytest

from controlplane.contracts import CostClass, GateSpec, ReasonCode, WhenCondition
from controlplane.contracts.errors import ConfigurationError
from controlplane.evidence_pack import build_pack
from controlplane.gates.interfaces import BaseGate, GateInput, GateStage
from controlplane.gates.registry import GateRegistry, GateRegistryError, PlannedGate, when_holds
from controlplane.pipeline import Pipeline
from controlplane.router import route


class AlwaysFails(BaseGate):
    gate_id = "always_fails"
    cost_class = CostClass.CHEAP

    def evaluate(self, inp):
        return self.failing([ReasonCode.UNCITED_CLAIM])


class Raises(BaseGate):
    gate_id = "raises"

    def evaluate(self, inp):
        raise RuntimeError("bug in a gate")


class ReturnsJunk(BaseGate):
    gate_id = "junk"

    def evaluate(self, inp):
        return {"result": "pass"}


def inp(default_policy, message="Where is our hosting architecture?"):
    return GateInput(mode_decision=route(message, default_policy.bundle), evidence_pack=build_pack([]),
                     policy=default_policy.bundle, spec=GateSpec(gate_id="x"), user_message=message)


def test_builtins_are_registered():
    assert {"output_schema", "mode_echo_match", "evidence_binding", "citation_integrity", "claim_anchors",
            "budget_enforcer", "retrieval_required"} <= set(GateRegistry(load_entry_points=False).gates())


def test_registered_in_code_and_fail_closed(default_policy):
    registry = GateRegistry(load_entry_points=False)
    for gate in (AlwaysFails(), Raises(), ReturnsJunk()):
        registry.register_gate(gate)
    run = lambda gate_id: registry.run_one(
        PlannedGate(GateSpec(gate_id=gate_id), registry.gates()[gate_id], True, "always"), inp(default_policy))
    assert run("always_fails").reason_codes == [ReasonCode.UNCITED_CLAIM]
    crashed = run("raises")
    assert crashed.failed and crashed.reason_codes == [ReasonCode.GATE_ERROR]
    assert "bug in a gate" in crashed.details["error"]
    assert run("junk").reason_codes == [ReasonCode.GATE_ERROR]
    assert run("always_fails").measured.latency_ms >= 0


def test_duplicate_gate_ids_are_refused():
    registry = GateRegistry(load_entry_points=False)
    registry.register_gate(AlwaysFails())
    with pytest.raises(GateRegistryError, match="unique"):
        registry.register_gate(AlwaysFails())

    class Impostor(AlwaysFails):
        gate_id = "output_schema"

    registry.register_gate(Impostor())
    with pytest.raises(GateRegistryError, match="registered twice"):
        registry.gates()


def test_unknown_gate_in_policy_is_a_configuration_error_and_a_runtime_failure(default_policy, write_script):
    data = default_policy.bundle.model_dump(mode="json")
    data["gates"].append({"gate_id": "not_installed"})
    from controlplane.policy_bundles.loader import parse_bundle

    policy = parse_bundle(data, "test")
    with pytest.raises(ConfigurationError, match="not_installed"):
        Pipeline(model=write_script(["x"]), policy=policy)
    registry = GateRegistry(load_entry_points=False)
    planned = [p for p in registry.plan(policy.bundle, route("hi", policy.bundle)) if p.spec.gate_id == "not_installed"]
    assert registry.run_one(planned[0], inp(default_policy)).reason_codes == [ReasonCode.GATE_NOT_FOUND]


def test_policy_order_and_stages(default_policy):
    registry = GateRegistry(load_entry_points=False)
    decision = route("Where is our hosting architecture?", default_policy.bundle)
    post = [p.spec.gate_id for p in registry.plan(default_policy.bundle, decision, GateStage.POST_GENERATION)]
    assert post == [g.gate_id for g in default_policy.bundle.gates if g.gate_id != "retrieval_required"]
    pre = [p.spec.gate_id for p in registry.plan(default_policy.bundle, decision, GateStage.PRE_GENERATION)]
    assert pre == ["retrieval_required"]


@pytest.mark.parametrize(
    "when, message, expected",
    [
        (WhenCondition(always=True), "hi", True),
        (WhenCondition(domain_flags_any=["legal"]), "LLC law?", True),
        (WhenCondition(domain_flags_any=["legal"]), "hi", False),
        (WhenCondition(domain_flags_none=["writing"]), "Tighten this paragraph.", False),
        (WhenCondition(rigor_at_least="high"), "What's our hosting architecture?", False),
        (WhenCondition(rigor_at_least="medium"), "What's our hosting architecture?", True),
        (WhenCondition(confidence_below=0.6), "hi", True),
        (WhenCondition(any_of=[WhenCondition(domain_flags_any=["legal"]), WhenCondition(confidence_below=0.6)]), "hi", True),
        # validation refuses an empty condition; one built around it (model_construct) still switches nothing on
        (WhenCondition.model_construct(), "hi", False),
    ],
)
def test_when_conditions(default_policy, when, message, expected):
    holds, why = when_holds(when, route(message, default_policy.bundle))
    assert holds is expected and why


def test_third_party_gate_loads_by_entry_point(tmp_path, monkeypatch, default_policy):
    package = tmp_path / "acme_gates"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent('''
        from controlplane.contracts import CostClass, ReasonCode
        from controlplane.gates.hookspec import hookimpl
        from controlplane.gates.interfaces import BaseGate

        class NoShouting(BaseGate):
            gate_id = "no_shouting"
            cost_class = CostClass.CHEAP

            def evaluate(self, inp):
                if inp.envelope is None:
                    return self.failing([ReasonCode.PRECONDITION_FAILED])
                text = inp.envelope.assistant_text
                return self.failing([ReasonCode.SCHEMA_VIOLATION]) if text.isupper() else self.passing()

        @hookimpl
        def controlplane_gates():
            return [NoShouting()]
    '''))
    dist = tmp_path / "acme_gates-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-gates\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[controlplane]\nacme = acme_gates\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        gates = GateRegistry(load_entry_points=True).gates()
        assert "no_shouting" in gates
        assert GateRegistry(load_entry_points=False).gates().get("no_shouting") is None
    finally:
        sys.modules.pop("acme_gates", None)


def test_citation_density_and_message_conditions(default_policy, make_envelope):
    import json

    from controlplane.gates.envelope_parsing import parse_envelope

    decision = route("Should I sign this contract?", default_policy.bundle)
    dense = parse_envelope(json.dumps(make_envelope([("A is true [E1].", ["E1"]), ("B is unclear.", [], "UNKNOWN")]))).envelope
    long_sentence = "Fly.io hosts the API, which handles every payment and stores card data for seven years [E1]."
    thin_data = make_envelope([(long_sentence, ["E1"])])
    thin_data["meta"]["claim_map"] = [{"claim_id": "c1", "text": "Fly.io", "evidence_ids": ["E1"], "status": "FACTUAL"}]
    thin_data["meta"]["citations"] = [{"claim_id": "c1", "evidence_ids": ["E1"]}]
    thin = parse_envelope(json.dumps(thin_data)).envelope
    sparse = WhenCondition(citation_density_below=0.75)
    assert when_holds(sparse, decision, dense)[0] is False
    assert when_holds(sparse, decision, thin)[0] is True
    assert when_holds(sparse, decision, None)[0] is False
    consequential = WhenCondition(message_matches_any=[r"\b(sign|pay)\b"])
    assert when_holds(consequential, decision, None, "Should I sign this contract?")[0] is True
    assert when_holds(consequential, decision, None, "What is a contract?")[0] is False


def test_shipped_critic_gate_runs_on_the_four_seed_conditions(shipped_policy):
    spec = next(g for g in shipped_policy.bundle.gates if g.gate_id == "semantic_critic_sync")
    legal = route("Should I sign this lease with my landlord?", shipped_policy.bundle)
    assert legal.rigorConfig.level.value == "high"
    assert when_holds(spec.when, legal, None, "Should I sign this lease with my landlord?")[0] is True
    calm = route("What does our lease policy say?", shipped_policy.bundle)
    assert calm.rigorConfig.level.value == "high"
    assert when_holds(spec.when, calm, None, "What does our lease policy say?")[0] is (calm.confidence < 0.5)
    low_rigor = route("Tighten this paragraph; I will sign it.", shipped_policy.bundle)
    assert when_holds(spec.when, low_rigor, None, "Tighten this paragraph; I will sign it.")[0] is False


def test_for_gate_is_replace_without_the_rebuild(default_policy):
    """The registry hands each gate ``inp.for_gate(spec, prior)``: the same input dataclasses.replace gives, the
    attempt's view shared, the original untouched."""
    from dataclasses import replace

    from controlplane.contracts import GateResult

    base = inp(default_policy)
    spec = GateSpec(gate_id="other", params={"k": 1})
    prior = (GateResult.passing("x", "v1", CostClass.CHEAP),)
    made = base.for_gate(spec, prior)
    assert made == replace(base, spec=spec, prior_results=prior)
    assert made.view is base.view and made.spec is spec and made.prior_results is prior
    assert base.spec is not spec and base.prior_results == ()
    assert base.for_gate(spec) == replace(base, spec=spec)
    with pytest.raises(AttributeError):
        made.spec = base.spec  # still frozen


@pytest.mark.parametrize("separator", [" ", "\t", "\x1c ", "\v\n", "\u00a0", "\u2003 ", "  \r\n"])
def test_citation_density_counts_every_kind_of_space_alike(make_envelope, separator):
    """ASCII answers take a one-pass byte mask, others the per-space walk: both must count exactly what ``\\s``
    leaves out (checked against a character-by-character count)."""
    import json
    import re

    from controlplane.gates.attempt import AttemptView
    from controlplane.gates.envelope_parsing import parse_envelope
    from controlplane.gates.registry import citation_density

    data = make_envelope([("Fly.io hosts the API [E1].", ["E1"]), ("It stores card data.", []),
                          ("Nobody knows why.", [], "UNKNOWN")])
    text = separator.join(c["text"] for c in data["meta"]["claim_map"]) + separator + "Trailing words."
    data["assistant_text"] = text
    envelope = parse_envelope(json.dumps(data)).envelope
    view = AttemptView(envelope)
    in_marker = {i for m in view.markers for i in range(m.start, m.end)}
    counted = [i for i, ch in enumerate(text) if not re.match(r"\s", ch) and i not in in_marker]
    backed = [view.anchors[c.claim_id] for c in envelope.meta.claim_map
              if c.claim_id in view.anchors and (c.evidence_ids or c.status.value == "UNKNOWN")]
    covered = [i for i in counted if any(a.start <= i < a.end for a in backed)]
    assert 0 < len(covered) < len(counted)
    assert citation_density(envelope, view) == len(covered) / len(counted)
