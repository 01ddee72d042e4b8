"""G1 output_schema: the envelope parses and validates against the OutputEnvelope schema."""

from __future__ import annotations

from controlplane.contracts import CostClass, GateResult, ReasonCode

from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage


class OutputSchemaGate(BaseGate):
    gate_id = "output_schema"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if inp.envelope is not None and inp.parse_failure is None:
            return self.passing()
        failure = inp.parse_failure or ReasonCode.SCHEMA_VIOLATION
        issues = [{"path": issue.path, "message": issue.message} for issue in inp.parse_issues]
        return self.failing(
            [failure],
            evidence_refs=[f"schema:{issue.path}" for issue in inp.parse_issues][:20],
            details={"problems": issues},
        )


@hookimpl
def controlplane_gates():
    return [OutputSchemaGate()]
