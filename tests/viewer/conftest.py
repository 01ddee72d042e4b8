"""Fixtures of this test folder (``core_policy`` is shared, in tests/conftest.py)."""

from __future__ import annotations

import pytest

EVIDENCE = [
    {"id": "E1", "title": "Stack <b>facts</b>", "text": "We host on Fly.io. DB is Turso (SQLite)."},
    {"id": "E2", "title": "Regions", "text": "The primary Fly.io region is ams (Amsterdam)."},
]
QUESTION = "What is our hosting architecture?"
XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'


def envelope(text, claims):
    from controlplane.pytest_plugin import GateHarness

    return GateHarness.envelope(text, claims=claims, domain_flags=["architecture"])


GOOD = envelope("We host on Fly.io [E1]. The primary region is ams [E2].",
                [("We host on Fly.io [E1].", ["E1"]), ("The primary region is ams [E2].", ["E2"])])
BAD = envelope("We host on Fly.io [E1]. The database runs in Tokyo [E9].",
               [("We host on Fly.io [E1].", ["E1"]), ("The database runs in Tokyo [E9].", ["E9"])])
HOSTILE = envelope(f"We host on Fly.io {XSS} [E1].", [(f"We host on Fly.io {XSS} [E1].", ["E1"])])


@pytest.fixture
def traces(control_plane, core_policy):
    """Real traces made by the scripted model: pass, regen_pass, degraded and one whose answer carries an XSS
    payload. Returns (plane, {name: Response})."""
    replies = {
        "pass": control_plane([GOOD], policy=core_policy).respond(QUESTION, evidence=EVIDENCE),
        "regen": control_plane([BAD, GOOD], policy=core_policy).respond(QUESTION, evidence=EVIDENCE),
        "degraded": control_plane([BAD] * 3, policy=core_policy).respond(QUESTION, evidence=EVIDENCE),
    }
    plane = control_plane([HOSTILE] * 3, policy=core_policy)
    replies["hostile"] = plane.respond(f"{QUESTION} {XSS}", evidence=EVIDENCE)
    return plane, replies
