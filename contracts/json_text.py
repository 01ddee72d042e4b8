"""Reading JSON text that crosses a boundary (model output, evidence, policy, bundle and scripted files, HTTP bodies).

``json.loads`` alone has three ways to crash a caller that only expects ``JSONDecodeError``: an integer longer than
Python's int/str conversion limit (4,300 digits) raises a plain ``ValueError``; nesting deeper than the interpreter's
recursion limit raises ``RecursionError``; and a structure nested just below that limit parses, then crashes the
first recursive consumer (schema validation, ``json.dumps`` in the trace store). Duplicate keys are silently
collapsed (the last one wins), so two readers of the same file can disagree about what it says.

:func:`loads` turns every one of these into :class:`JsonTextError`, whose message says what is wrong and where, so
a file or body gets exit 2 / HTTP 400 and a model output gets a gate failure, never an internal error.
"""

from __future__ import annotations

import json
from typing import Any

# Python refuses to convert longer integers to and from text (sys.int_info.default_max_str_digits); a value that
# cannot be printed cannot be stored in a trace either.
MAX_INT_DIGITS = 4300
# Deep enough for every contract we read (an envelope is about 5 levels, a trace bundle about 10, a policy's
# any_of chains a few more), far below the recursion limit of anything that walks the result.
MAX_DEPTH = 64


class JsonTextError(ValueError):
    """The text is not JSON we accept. The message is one readable line; ``reason`` is a machine tag: ``syntax``,
    ``integer_too_long``, ``duplicate_key``, ``undecodable_depth`` (too deep to decode at all), ``too_deep``
    (decoded, but deeper than ``max_depth``) or ``encoding``."""

    def __init__(self, message: str, reason: str, lineno: int | None = None, colno: int | None = None,
                 detail: str = ""):
        super().__init__(message)
        self.reason = reason
        self.detail = detail or message
        self.lineno = lineno
        self.colno = colno


class _DuplicateKey(ValueError):
    pass


class _IntegerTooLong(ValueError):
    pass


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _IntegerTooLong(str(len(digits.lstrip("-"))))
    return int(digits)


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    built = dict(pairs)  # called for every object of every document: the check is a length compare
    if len(built) == len(pairs):
        return built
    seen: set[str] = set()
    for key, _ in pairs:  # name the first key seen twice
        if key in seen:
            raise _DuplicateKey(key)
        seen.add(key)
    raise AssertionError("unreachable: fewer keys than pairs means a key repeats")


def depth_of(data: Any) -> int:
    """Nesting depth of decoded JSON (a scalar is 0, ``[]`` is 1), walked level by level without recursion (every
    model output is measured: one list per level, no tuple per value)."""
    depth, level = 0, [data]
    while True:
        below: list[Any] = []
        holds_container = False
        for value in level:
            if isinstance(value, dict):
                below.extend(value.values())
                holds_container = True
            elif isinstance(value, list):
                below.extend(value)
                holds_container = True
        if not holds_container:
            return depth
        depth += 1
        level = below


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, allow_duplicate_keys: bool = False) -> Any:
    """Decode JSON text, refusing over-long integers, excessive nesting and (by default) duplicate keys."""
    try:
        data = json.loads(text, parse_int=_parse_int,
                          object_pairs_hook=None if allow_duplicate_keys else _pairs_without_duplicates)
    except json.JSONDecodeError as exc:
        raise JsonTextError(f"is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})", "syntax",
                            exc.lineno, exc.colno, exc.msg) from None
    except _IntegerTooLong as exc:
        raise JsonTextError(f"holds an integer of {exc} digits; at most {MAX_INT_DIGITS} are accepted",
                            "integer_too_long") from None
    except _DuplicateKey as exc:
        raise JsonTextError(f"holds a duplicate key {str(exc)!r} (each key may appear once in an object)",
                            "duplicate_key") from None
    except RecursionError:  # deeper than the interpreter can even decode
        raise JsonTextError(f"nests deeper than {max_depth} levels", "undecodable_depth") from None
    except UnicodeDecodeError as exc:
        raise JsonTextError(f"is not UTF-8 text ({exc.reason})", "encoding") from None
    if depth_of(data) > max_depth:
        raise JsonTextError(f"nests deeper than {max_depth} levels", "too_deep")
    return data


__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "JsonTextError", "depth_of", "loads"]
