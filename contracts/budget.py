"""BudgetConfig: the caps a request runs within (seed G5, CFS-020 §2.5, hardening limits)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from ._base import Contract


class BudgetConfig(Contract):
    model_config = ConfigDict(
        title="BudgetConfig",
        json_schema_extra={
            "description": "Token, retry, tool-call, time and size caps; exceeding one is a budget gate failure or "
            "a clear input error, never a hang.",
            "examples": [
                {
                    "max_context_tokens": 2000,
                    "max_output_tokens": 512,
                    "reserved_tokens": 256,
                    "max_regen_attempts": 2,
                    "max_tool_calls": 2,
                    "max_wall_time_ms": 120000,
                    "max_message_chars": 20000,
                    "max_evidence_items": 64,
                    "max_evidence_chars": 200000,
                    "max_claims": 64,
                    "max_output_chars": 20000,
                }
            ],
        },
    )

    max_context_tokens: int = Field(default=2000, ge=1, description="Evidence tokens packed into the prompt.")
    max_output_tokens: int = Field(default=512, ge=1, description="Tokens the main model may generate per attempt.")
    reserved_tokens: int = Field(default=256, ge=0, description="Tokens reserved for the system prompt.")
    max_regen_attempts: int = Field(default=2, ge=0, description="Regenerations after the first attempt.")
    max_tool_calls: int = Field(default=2, ge=0, description="Retrieval/tool calls per request.")
    max_wall_time_ms: int = Field(default=120_000, ge=1, description="Wall time of the whole request.")
    max_message_chars: int = Field(default=20_000, ge=1, description="Size of the user message.")
    max_evidence_items: int = Field(default=64, ge=0, description="Evidence items accepted from the caller.")
    max_evidence_chars: int = Field(default=200_000, ge=0, description="Total characters of caller evidence.")
    max_claims: int = Field(default=64, ge=1, description="Claims per envelope.")
    max_output_chars: int = Field(default=20_000, ge=1, description="Characters of assistant_text.")
