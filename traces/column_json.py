"""The JSON text the trace store writes: sorted keys, no spaces, non-ASCII as is.

Every column holding JSON is written in one form, the canonical one the integrity map hashes
(``integrity.canonical_json``: ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``). A save
writes about 30 such values; orjson writes them several times faster than the json module (bench/hardening.py:
about 0.19 ms of a 1.9 ms request), and for the values a trace holds it writes the very same text. Where the two
could differ, the json module writes it:

* a float below 1e-4 in magnitude: orjson writes ``0.00001`` and ``1.5e-7`` where json writes ``1e-05`` and
  ``1.5e-07``. Such text (a digit then ``e-``, or ``0.0000``) is re-encoded with json; a string holding it costs
  the same fallback, never a wrong text;
* what orjson refuses: an int past 64 bits, a key that is not a string, a lone surrogate;
* a value JSON has no form for is written as ``str(value)`` by both (``default``), a datetime and a dataclass too
  (orjson would write its own forms); a float subclass (numpy.float64) is written as the number it is, as json does.

Two values differ on purpose: NaN and infinities are written as ``null`` (json writes ``NaN``, which is not JSON),
and a plain Enum member as its value (json wrote ``"Class.MEMBER"``). Either way the stored text is what is hashed,
and decoding it and encoding it canonically gives it back, which is all the integrity map needs.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_FALLBACK = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def _default(value: Any) -> Any:
    if isinstance(value, float):  # a float subclass (numpy.float64): json writes it as a number
        return float(value)
    return str(value)


def _may_hold_small_float(text: bytes) -> bool:
    """Whether ``text`` may hold a float orjson writes otherwise than json (``0.0000...`` or ``<digit>e-``). Literal
    searches, not one regular expression: a pattern without a literal start is tried at every byte (0.15 ms a save)."""
    if b"0.0000" in text:
        return True
    at = text.find(b"e-")
    while at != -1:
        if at and 48 <= text[at - 1] <= 57:  # a digit before "e-": an exponent
            return True
        at = text.find(b"e-", at + 2)
    return False


def dumps(value: Any) -> str:
    """``value`` as canonical JSON text (see the module docstring)."""
    try:
        text = orjson.dumps(value, default=_default, option=_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):
        return _FALLBACK.encode(value)
    if _may_hold_small_float(text):
        return _FALLBACK.encode(value)
    return text.decode("utf-8")


__all__ = ["dumps"]
