"""Gaps found while measuring prose mode (bench/prose.py), kept as strict xfails: each turns into a failure the day
the gap is closed, so the fix is noticed and this marker removed. Not prose-specific: the same envelope written as
JSON meets the same verdict."""

from __future__ import annotations

import pytest

from controlplane.api import ControlPlane

SOCAL = ("The 8- and 10-county definitions are not used for the greater Southern California Megaregion, one of the "
         "11 megaregions of the United States. The megaregion's area is more expansive, extending east into Las "
         "Vegas, Nevada, and south across the Mexican border into Tijuana.")


@pytest.mark.xfail(strict=True, reason="nli_entailment's number check compares the sets of numbers of claim and "
                   "evidence: a number changed into another number the evidence holds elsewhere (8 -> 11, with "
                   "'11 megaregions' in the same sentence) is not caught, and the verifier entails it")
def test_a_number_changed_into_another_number_of_the_evidence_fails():
    with ControlPlane(model=False, db=False, critic=False, load_entry_points=False) as plane:
        result = plane.verify("The 11- and 10-county definitions are not used for the greater Southern California "
                              "Megaregion, one of the 11 megaregions of the United States.",
                              evidence=[{"id": "E1", "text": SOCAL}], prose=True)
    assert result.status == "fail"


@pytest.mark.xfail(strict=True, reason="replay: a trace whose selector call failed (reasons "
                   "'selector:unavailable', e.g. a backend without JSON mode) does not reproduce its recorded router "
                   "decision")
def test_a_trace_whose_selector_call_failed_replays(write_script, tmp_path):
    from controlplane.replay import replay_bundles

    answer = {"assistant_text": "Hello.", "meta": {"modeLabel": "Ida", "claim_map": []}}  # no selector line: it errs
    with ControlPlane(model=write_script([answer]), db=tmp_path / "t.db", critic=False,
                      load_entry_points=False) as plane:
        reply = plane.respond("When does the Orion project ship?",
                              evidence=[{"id": "E1", "text": "The Orion project ships on 14 March 2027."}])
        bundle = plane.trace(reply.trace_id)
    assert "selector:unavailable" in bundle.mode_decision.reasons
    assert replay_bundles([bundle]).traces[0].reproduced
