"""Scripted model adapter: replays canned outputs from a JSONL file, one per attempt.

It is a real IntelligenceModule (tests, replay and the CLI use it), not a mock: the pipeline cannot tell it from a
live model except by its metadata. It is stateless: the output for a call is chosen by the call's purpose and attempt
number, so the same script gives the same trace every time.

File format, one JSON value per line (blank lines and lines starting with # are ignored):

* a JSON string: the raw model text for the next main attempt (may be prose or broken JSON on purpose);
* a JSON object with ``"output"`` (a string = raw text, or an object = serialised as JSON), and optionally
  ``"purpose"`` (``main`` default, ``selector``, ``critic``) and ``"finish_reason"`` (``stop``, ``max_tokens``);
* any other JSON object: an OutputEnvelope-like object for the next main attempt, serialised as JSON.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from controlplane.contracts import FinishReason, json_text
from controlplane.contracts.user_files import read_user_file
from controlplane.model_boundary import (
    AssembledContext,
    GenerationParams,
    IntelligenceResponse,
    ModelError,
    ModuleMetadata,
    estimate_tokens,
    render_messages,
    sha256_file,
)


@dataclass(frozen=True)
class ScriptedOutput:
    purpose: str
    text: str
    finish_reason: FinishReason


def parse_script(path: Path) -> list[ScriptedOutput]:
    lines = read_user_file(path, "scripted model file", "set --model scripted:PATH to an existing JSONL file",
                           ModelError).splitlines()
    outputs = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            value = json_text.loads(stripped)
        except json_text.JsonTextError as exc:
            raise ModelError(
                f"{path}:{number}: not a JSON value we accept ({exc.detail if exc.reason == 'syntax' else exc}); "
                f'write raw model text as a JSON string, e.g. "I think so."'
            ) from None
        outputs.append(_to_output(value, path, number))
    if not outputs:
        raise ModelError(f"scripted model file {path} holds no outputs; add one JSON line per attempt")
    return outputs


def _to_output(value: object, path: Path, number: int) -> ScriptedOutput:
    if isinstance(value, str):
        return ScriptedOutput("main", value, FinishReason.STOP)
    if isinstance(value, dict) and "output" in value:
        output = value["output"]
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        purpose = value.get("purpose", "main")
        if purpose not in ("main", "selector", "critic"):
            raise ModelError(f"{path}:{number}: purpose must be main, selector or critic, not {purpose!r}")
        try:
            finish = FinishReason(value.get("finish_reason", "stop"))
        except ValueError:
            raise ModelError(f"{path}:{number}: unknown finish_reason {value.get('finish_reason')!r}")
        return ScriptedOutput(purpose, text, finish)
    if isinstance(value, dict):
        return ScriptedOutput("main", json.dumps(value, ensure_ascii=False), FinishReason.STOP)
    raise ModelError(f"{path}:{number}: expected a JSON string or object, got {type(value).__name__}")


class ScriptedModel:
    """IntelligenceModule that answers attempt n of a purpose with the n-th scripted output of that purpose."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._outputs = parse_script(self.path)
        self._hash = sha256_file(str(self.path))

    def is_ready(self) -> bool:
        return True

    def metadata(self) -> ModuleMetadata:
        return ModuleMetadata(
            model_id=f"scripted:{self.path.name}",
            model_hash=self._hash,
            max_context_length=1_000_000,
            supports_json_schema=False,
            local_only=True,
            details={"outputs": len(self._outputs)},
        )

    def generate(self, query: str, context: AssembledContext, params: GenerationParams) -> IntelligenceResponse:
        started = time.perf_counter()
        candidates = [o for o in self._outputs if o.purpose == context.purpose]
        index = context.attempt - 1
        prompt_tokens = estimate_tokens(render_messages(context.messages))
        if index >= len(candidates):
            return IntelligenceResponse(
                text="",
                tokens_used=0,
                tokens_in=prompt_tokens,
                finish_reason=FinishReason.ERROR,
                latency_ms=(time.perf_counter() - started) * 1000,
                model_id=self.metadata().model_id,
                error=f"script has {len(candidates)} {context.purpose} output(s); attempt {context.attempt} asked",
            )
        chosen = candidates[index]
        text = chosen.text
        finish = chosen.finish_reason
        max_chars = params.max_tokens * 4
        if estimate_tokens(text) > params.max_tokens:
            # Honour the token budget like a real model would: cut the output and say so.
            text, finish = text[:max_chars], FinishReason.MAX_TOKENS
        return IntelligenceResponse(
            text=text,
            tokens_used=estimate_tokens(text),
            tokens_in=prompt_tokens,
            finish_reason=finish,
            latency_ms=(time.perf_counter() - started) * 1000,
            model_id=self.metadata().model_id,
        )
