"""Vetting the regular expressions a policy bundle carries, before they ever meet a user message or a trace.

A policy's regexes run on every request (router triggers, evasion patterns, ``message_matches_any``) or on every
exported string (redaction). A pattern that cannot compile, that is empty or matches the empty string (so it fires
everywhere), or whose backtracking is exponential on a short hostile input (``(a+)+$``) is refused at validation.

The catastrophic check is structural and conservative, over Python's own parse of the pattern:

* a repetition that can run more than once around something that itself repeats a variable number of times
  (``(a+)+``, ``(\\w+\\s?)*``, ``(a{1,3})+``, ``(.*,){8}``): the input can be split among the iterations in
  exponentially many ways;
* a repetition around alternatives that can start with the same character, or that can match the empty string
  (``(a|ab)+``, ``(\\w|-)*``, ``(a|)+``): each character can be taken by either branch.

It may refuse a pattern that is in fact safe; the message says how to rewrite it. Where user patterns are applied
(redaction), matching time is bounded as well, since no static check catches everything.
"""

from __future__ import annotations

import re

try:  # Python 3.11+
    import re._constants as _sre
    from re import _parser
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _parser  # type: ignore[no-redef]

MAX_PATTERN_CHARS = 1000
_REPEATS = {_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", _sre.MAX_REPEAT)}
_UNBOUNDED = _sre.MAXREPEAT
_WILD = object()  # "any character": overlaps with every other first-character set


def _subpatterns(op, av) -> list:
    """The sub-pattern lists directly inside one parsed node."""
    if op in _REPEATS:
        return [av[2]]
    if op is _sre.SUBPATTERN:
        return [av[3]]
    if op is _sre.BRANCH:
        return list(av[1])
    if op in (_sre.ASSERT, _sre.ASSERT_NOT):
        return [av[1]]
    if op is getattr(_sre, "ATOMIC_GROUP", None):
        return [av]
    if op is _sre.GROUPREF_EXISTS:
        return [p for p in av[1:] if p is not None]
    return []


def _has_variable_repeat(items) -> bool:
    for op, av in items:
        if op in _REPEATS and av[1] != av[0]:
            return True
        if any(_has_variable_repeat(sub) for sub in _subpatterns(op, av)):
            return True
    return False


def _first_chars(items) -> set | None:
    """Characters a sub-pattern can start with (``_WILD`` for classes); None if it can match the empty string."""
    for op, av in items:
        if op is _sre.LITERAL:
            return {av}
        if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):
            continue  # zero-width: look at what follows
        if op is _sre.SUBPATTERN:
            inner = _first_chars(av[3])
            if inner is None:
                continue
            return inner
        if op is _sre.BRANCH:
            sets = [_first_chars(alt) for alt in av[1]]
            if any(s is None for s in sets):
                return None
            return set().union(*sets)
        if op in _REPEATS:
            inner = _first_chars(av[2])
            if av[0] == 0 or inner is None:
                return None
            return inner
        if op is _sre.IN and all(kind is _sre.LITERAL for kind, _ in av):
            return {value for _, value in av}
        return {_WILD}
    return None


def _overlap(sets: list[set | None]) -> bool:
    seen: set = set()
    for chars in sets:
        if chars is None:
            return True
        if _WILD in chars and (seen or len(sets) > 1):
            return True
        if _WILD in seen or seen & chars:
            return True
        seen |= chars
    return False


def _catastrophic(items) -> str | None:
    for op, av in items:
        if op in _REPEATS and (av[1] == _UNBOUNDED or av[1] > 1):
            body = av[2]
            if _has_variable_repeat(body):
                return "a repetition around another variable repetition (like (a+)+)"
            for inner_op, inner_av in body:
                branch = inner_av[3] if inner_op is _sre.SUBPATTERN else [(inner_op, inner_av)]
                for b_op, b_av in branch:
                    if b_op is _sre.BRANCH and _overlap([_first_chars(alt) for alt in b_av[1]]):
                        return "a repetition around alternatives that can match the same text (like (a|ab)+)"
        for sub in _subpatterns(op, av):
            found = _catastrophic(sub)
            if found:
                return found
    return None


def regex_problem(pattern: object) -> str | None:
    """Why ``pattern`` may not be used as a policy regex, or None when it may."""
    if not isinstance(pattern, str) or not pattern.strip():
        return "is empty; give a pattern that matches something specific"
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"is {len(pattern)} characters long; at most {MAX_PATTERN_CHARS} are accepted"
    try:
        compiled = re.compile(pattern)
        parsed = _parser.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:
        return f"is not a valid regex ({exc})"
    if compiled.fullmatch("") is not None:
        return "matches the empty string, so it would match everywhere; make every part of it required"
    why = _catastrophic(list(parsed))
    if why:
        return (f"can take exponential time on a short input: {why}; rewrite it without the nested repetition "
                "(e.g. a+ instead of (a+)+)")
    return None


def check_patterns(patterns: list[str] | None) -> list[str] | None:
    """For pydantic field validators: raise ValueError naming the first bad pattern by index."""
    for index, pattern in enumerate(patterns or []):
        problem = regex_problem(pattern)
        if problem:
            raise ValueError(f"pattern [{index}] {pattern!r} {problem}")
    return patterns


__all__ = ["MAX_PATTERN_CHARS", "check_patterns", "regex_problem"]
