"""Turning raw model text into an OutputEnvelope, or into a precise reason why not.

Strict on purpose: the output must be one JSON object and nothing else. Prose, a code fence, a second object,
duplicate keys or a truncated object are failures with a reason code and JSON paths, never a crash.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pydantic import ValidationError

from controlplane.contracts import OutputEnvelope, ReasonCode
from controlplane.contracts.json_text import JsonTextError, loads
from controlplane.contracts.schemas import validate_instance

from .interfaces import SchemaIssue

# A \uD800-\uDFFF escape may decode to an unpaired surrogate: not Unicode, so it cannot be stored, hashed or sent.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _not_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _holds_surrogate(data: object) -> bool:
    try:
        return _not_unicode(json.dumps(data, ensure_ascii=False))
    except (RecursionError, ValueError):
        return True


def _ends_inside_json(text: str) -> bool:
    """True when the text is a JSON object cut short: brackets still open (or a string unterminated) at the end,
    and no mismatched bracket before it."""
    stack: list[str] = []
    in_string = escaped = False
    pairs = {"}": "{", "]": "["}
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]" and (not stack or stack.pop() != pairs[char]):
            return False
    return in_string or bool(stack)


@dataclass(frozen=True)
class ParsedOutput:
    envelope: OutputEnvelope | None
    failure: ReasonCode | None
    issues: tuple[SchemaIssue, ...]
    data: object | None = None


def parse_envelope(raw: str | None, truncated_by_model: bool = False) -> ParsedOutput:
    if raw is None or not raw.strip():
        return ParsedOutput(None, ReasonCode.EMPTY_OUTPUT, (SchemaIssue("$", "the model returned no text"),))
    text = raw.strip()
    if _not_unicode(text):
        return ParsedOutput(None, ReasonCode.INVALID_JSON, (SchemaIssue("$", "output is not valid Unicode"),))
    try:
        data = loads(text)
    except JsonTextError as exc:
        if exc.reason in ("duplicate_key", "too_deep"):  # JSON, but not the shape of an envelope
            return ParsedOutput(None, ReasonCode.SCHEMA_VIOLATION, (SchemaIssue("$", f"output {exc}"),))
        if exc.reason != "syntax":  # an integer too long to print or nesting too deep: not JSON a reader can use
            return ParsedOutput(None, ReasonCode.INVALID_JSON, (SchemaIssue("$", f"output {exc}"),))
        looks_cut = text.startswith("{") and (truncated_by_model or _ends_inside_json(text))
        code = ReasonCode.TRUNCATED_OUTPUT if looks_cut else ReasonCode.INVALID_JSON
        where = f"line {exc.lineno} column {exc.colno}"
        what = "output ends before the JSON object is complete" if looks_cut else f"not JSON: {exc.detail} at {where}"
        return ParsedOutput(None, code, (SchemaIssue("$", what),))
    if _SURROGATE_ESCAPE.search(text) and _holds_surrogate(data):
        return ParsedOutput(
            None, ReasonCode.INVALID_JSON, (SchemaIssue("$", "a JSON string holds an unpaired surrogate escape"),)
        )
    if not isinstance(data, dict):
        return ParsedOutput(
            None, ReasonCode.SCHEMA_VIOLATION, (SchemaIssue("$", f"expected a JSON object, got {type(data).__name__}"),), data
        )
    try:  # fast path: the model in strict JSON mode accepts a subset of what the schema accepts (fuzz-tested)
        return ParsedOutput(OutputEnvelope.model_validate_json(text, strict=True), None, (), data)
    except ValidationError:
        pass  # the JSON Schema says precisely why (paths and messages), and decides
    problems = validate_instance("OutputEnvelope", data)
    if problems:
        return ParsedOutput(
            None, ReasonCode.SCHEMA_VIOLATION, tuple(SchemaIssue(p.path, p.message) for p in problems), data
        )
    try:
        envelope = OutputEnvelope.model_validate(data)
    except ValidationError as exc:  # the schema and the model agree (tested); this is a second line of defence
        issues = tuple(
            SchemaIssue("$." + ".".join(str(p) for p in err["loc"]), err["msg"]) for err in exc.errors()[:20]
        )
        return ParsedOutput(None, ReasonCode.SCHEMA_VIOLATION, issues, data)
    return ParsedOutput(envelope, None, (), data)
