"""Worked example (docs/testing-gates.md): writing a gate and unit-testing it with the ``gate_harness`` fixture.

The gate: an answer may only contain e-mail addresses that its cited evidence contains, so the model can never
invent a contact address. In a real package the gate lives in its own module (``my_gates.py``) with the hookimpl,
registered by an entry point; here it sits above its tests so the example reads top to bottom.
"""

from __future__ import annotations

import re
import sys

from controlplane import BaseGate, CostClass, ReasonCode, hookimpl

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


class NoInventedEmailsGate(BaseGate):
    gate_id = "no_invented_emails"
    version = "v1"
    cost_class = CostClass.CHEAP

    def evaluate(self, inp):
        if (missing := self.needs_envelope(inp)) is not None:  # prose or broken JSON: fail closed
            return missing
        allowed_domains = set(inp.params.get("allowed_domains", []))
        texts = {item.id: item.text for item in inp.evidence_pack.evidence}
        per_claim = {}
        for claim in inp.envelope.meta.claim_map:
            cited = " ".join(texts.get(i, "") for i in claim.evidence_ids)
            invented = [a for a in EMAIL.findall(claim.text)
                        if a not in cited and a.split("@")[1] not in allowed_domains]
            if invented:
                per_claim[claim.claim_id] = [ReasonCode.UNSUPPORTED_CONTENT.value]
        if per_claim:
            return self.failing([ReasonCode.UNSUPPORTED_CONTENT], details={"claims": per_claim},
                                evidence_refs=[f"claim_map:{c}" for c in per_claim])
        return self.passing()


@hookimpl
def controlplane_gates():
    return [NoInventedEmailsGate()]


# -- the tests ----------------------------------------------------------------------------------------------------
EVIDENCE = [{"id": "E1", "text": "Security issues go to security@example.com within 24 hours."}]


def test_an_address_from_the_cited_evidence_passes(gate_harness):
    envelope = gate_harness.envelope(
        "Report it to security@example.com [E1].", claims=[("Report it to security@example.com [E1].", ["E1"])])
    gate_harness.run(NoInventedEmailsGate(), envelope, EVIDENCE).assert_pass()


def test_an_invented_address_fails_and_blames_its_claim(gate_harness):
    envelope = gate_harness.envelope(
        "Report it to security@example.com [E1]. Or mail boss@evil.test [E1].",
        claims=[("Report it to security@example.com [E1].", ["E1"]), ("Or mail boss@evil.test [E1].", ["E1"])],
    )
    check = gate_harness.run(NoInventedEmailsGate(), envelope, EVIDENCE)
    check.assert_fail("UNSUPPORTED_CONTENT", only=True).assert_claim("c2", "UNSUPPORTED_CONTENT")
    assert check.claim_codes("c1") == set()
    assert check.evidence_refs == ["claim_map:c2"]


def test_params_come_from_the_policy_spec(gate_harness):
    envelope = gate_harness.envelope("Mail help@corp.test.", claims=[("Mail help@corp.test.", [])])
    gate_harness.run(NoInventedEmailsGate(), envelope, EVIDENCE).assert_fail("UNSUPPORTED_CONTENT")
    gate_harness.run(NoInventedEmailsGate(), envelope, EVIDENCE,
                     params={"allowed_domains": ["corp.test"]}).assert_pass()


def test_prose_instead_of_an_envelope_fails_closed(gate_harness):
    check = gate_harness.run(NoInventedEmailsGate(), raw_output="Sure, mail boss@evil.test!", evidence=EVIDENCE)
    check.assert_fail("PRECONDITION_FAILED")


def test_registered_by_id_like_an_installed_plugin(gate_harness):
    gate_harness.register(sys.modules[__name__])  # the plugin module, as its entry point would register it
    envelope = gate_harness.envelope("Mail boss@evil.test.", claims=[("Mail boss@evil.test.", [])])
    gate_harness.run("no_invented_emails", envelope, EVIDENCE).assert_fail("UNSUPPORTED_CONTENT")


def test_in_the_whole_pipeline(control_plane, core_policy):
    """The same gate in a ControlPlane: the policy names it, the regen loop and degrade act on its verdict."""
    from controlplane.policy_bundles.loader import parse_bundle

    data = core_policy.bundle.model_dump(mode="json", exclude_none=True)
    data["gates"].append({"gate_id": "no_invented_emails", "when": {"always": True}})
    policy = parse_bundle(data, source="example")
    bad = {"assistant_text": "Report it to security@example.com [E1]. Or mail boss@evil.test [E1].",
           "meta": {"modeLabel": "System", "claim_map": [
               {"claim_id": "c1", "text": "Report it to security@example.com [E1].", "evidence_ids": ["E1"]},
               {"claim_id": "c2", "text": "Or mail boss@evil.test [E1].", "evidence_ids": ["E1"]}]}}
    plane = control_plane([bad] * 3, policy=policy, gates=[NoInventedEmailsGate()])
    reply = plane.respond("Who do I report a security issue to?", evidence=EVIDENCE)
    assert "no_invented_emails" in reply.failing_gates
    assert reply.status in ("degraded", "refused")
    invented = next(c for c in reply.claims if c.claim_id == "c2")
    assert invented.verdict == "FAIL" and not invented.shown  # never shown as an answer (only quoted as removed)
