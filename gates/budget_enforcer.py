"""G5 budget_enforcer: tokens, retries, tool calls, wall time and output size within the bundle's BudgetConfig.

It checks usage, not the envelope, so it still decides when the output did not parse.
"""

from __future__ import annotations

from controlplane.contracts import CostClass, GateResult, ReasonCode

from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage


class BudgetEnforcerGate(BaseGate):
    gate_id = "budget_enforcer"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        budget = inp.policy.budgets
        usage = inp.usage
        over: dict[str, dict[str, float]] = {}

        def check(code: ReasonCode, used: float, limit: float) -> None:
            if used > limit:
                over[code.value] = {"used": used, "limit": limit}

        check(ReasonCode.TOKENS_EXCEEDED, usage.tokens_out, budget.max_output_tokens)
        check(ReasonCode.RETRIES_EXCEEDED, usage.regen_attempts_used, budget.max_regen_attempts)
        check(ReasonCode.TOOL_CALLS_EXCEEDED, usage.tool_calls, budget.max_tool_calls)
        check(ReasonCode.WALL_TIME_EXCEEDED, usage.elapsed_ms, budget.max_wall_time_ms)
        if inp.raw_output is not None:
            check(ReasonCode.OUTPUT_TOO_LARGE, len(inp.raw_output), budget.max_output_chars * 4)
        if inp.envelope is not None:
            check(ReasonCode.OUTPUT_TOO_LARGE, len(inp.envelope.assistant_text), budget.max_output_chars)
            check(ReasonCode.CLAIMS_EXCEEDED, len(inp.envelope.meta.claim_map), budget.max_claims)
        usage_detail = {
            "tokens_out": usage.tokens_out,
            "regen_attempts_used": usage.regen_attempts_used,
            "tool_calls": usage.tool_calls,
            "elapsed_ms": round(usage.elapsed_ms, 3),
        }
        if over:
            return self.failing([ReasonCode(code) for code in over], details={"exceeded": over, "usage": usage_detail})
        return self.passing(details={"usage": usage_detail})


@hookimpl
def controlplane_gates():
    return [BudgetEnforcerGate()]
