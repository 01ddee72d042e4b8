"""G-1 holes found by QA on the README's own hosting example, end to end through ``respond`` with the shipped
bundle and the shipped verifier (the worst case for the first: its medium-rigor threshold passes most unsupported
pairs, so the deterministic checks must veto):

* a claim whose first word is a name the evidence never mentions ("AWS hosts us [E1].") was shown as verified;
* a claim that copies the evidence but swaps one lowercase term ("We host on aws [E1].") passed the medium
  threshold;
* a claim that adds a detail to the evidence's sentence ("We host on Fly.io for compliance reasons [E1].") passed
  it too;
* an UNKNOWN sentence that tells of a place and a year nobody checked ("No information is available on the Zanzibar
  outage ... in 2024.") was shown as an honest UNKNOWN.
"""

from __future__ import annotations

import pytest

from controlplane.api import ControlPlane
from controlplane.nli.shipped import verifier_dir
from tests.conftest import build_envelope

EVIDENCE = [{"id": "E1", "title": "Stack facts", "text": "We host on Fly.io. DB is Turso (SQLite).",
             "trust_tier": "authoritative"}]
QUESTION = "Where do we host?"

pytestmark = [pytest.mark.models,
              pytest.mark.skipif(not (verifier_dir() / "config.json").is_file(), reason="shipped verifier missing")]


def _reply(write_script, claims):
    with ControlPlane(model=write_script([build_envelope(claims)] * 3), db=False, critic=False) as plane:
        return plane.respond(QUESTION, evidence=EVIDENCE)


@pytest.mark.parametrize("swapped", ["AWS hosts us [E1].", "Zanzibar hosts us [E1].", "Microsoft hosts the DB [E1]."])
def test_a_swapped_subject_is_never_shown(write_script, swapped):
    reply = _reply(write_script, [("We host on Fly.io [E1].", ["E1"]), (swapped, ["E1"])])
    assert reply.status == "degraded" and not reply.verified
    assert reply.assistant_text.startswith("We host on Fly.io [E1].")
    assert swapped.split()[0] not in reply.assistant_text


def test_the_faithful_answer_still_passes(write_script):
    reply = _reply(write_script, [("We host on Fly.io [E1].", ["E1"])])
    assert reply.status == "pass" and reply.verified


@pytest.mark.parametrize("unknown", [
    "No information is available on the Zanzibar outage that took our database down in 2024.",
    "The evidence does not say why we moved the database to Zanzibar.",
])
def test_an_unknown_that_tells_of_unchecked_things_is_not_shown(write_script, unknown):
    reply = _reply(write_script, [(unknown, [], "UNKNOWN")])
    assert "Zanzibar" not in reply.assistant_text and not reply.verified


def test_an_honest_unknown_is_still_shown(write_script):
    honest = "The evidence does not say where we host the backups."
    reply = _reply(write_script, [(honest, [], "UNKNOWN")])
    assert reply.assistant_text == honest and reply.status == "pass" and not reply.verified


@pytest.mark.parametrize(("swapped", "term"), [("We host on aws [E1].", "aws"), ("We host on heroku [E1].", "heroku"),
                                               ("DB is postgres (SQLite) [E1].", "postgres")])
def test_a_swapped_lowercase_term_is_never_shown(write_script, swapped, term):
    # the medium threshold alone passed the first (entailment 0.18 >= 0.13); claim_checks.swapped_terms and the
    # verifier's lean to contradiction now fail it (gates/nli_entailment.swap_findings)
    reply = _reply(write_script, [("We host on Fly.io [E1].", ["E1"]), (swapped, ["E1"])])
    assert reply.status == "degraded" and not reply.verified
    assert reply.assistant_text.startswith("We host on Fly.io [E1].")
    assert term not in reply.assistant_text


@pytest.mark.parametrize(("added", "detail"), [("We host on Fly.io for compliance reasons [E1].", "compliance"),
                                              ("We host on Fly.io with automatic failover [E1].", "failover")])
def test_a_detail_added_to_the_evidence_is_never_shown(write_script, added, detail):
    # "for compliance reasons" was shown as verified: entailment above the medium threshold, coverage 3 of 4
    reply = _reply(write_script, [("We host on Fly.io [E1].", ["E1"]), (added, ["E1"])])
    assert reply.status == "degraded" and not reply.verified
    assert detail not in reply.assistant_text
