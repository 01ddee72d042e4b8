"""G2 mode_echo_match: the envelope's meta.modeLabel equals the final ModeDecision's modeLabel."""

from __future__ import annotations

from controlplane.contracts import CostClass, GateResult, ReasonCode

from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage


class ModeEchoMatchGate(BaseGate):
    gate_id = "mode_echo_match"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        expected = inp.mode_decision.modeLabel
        got = inp.envelope.meta.modeLabel
        if got != expected:
            return self.failing(
                [ReasonCode.MODE_MISMATCH], evidence_refs=["meta.modeLabel"], details={"expected": expected, "got": got}
            )
        return self.passing(details={"modeLabel": got})


@hookimpl
def controlplane_gates():
    return [ModeEchoMatchGate()]
