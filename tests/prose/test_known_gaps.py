"""Gaps found while measuring prose mode (bench/prose.py), kept first as strict xfails and now closed: a number
moved to another noun of the evidence fails (gates/claim_checks.py compares each number with the word it binds),
and a trace whose selector call failed replays. Not prose-specific: the same envelope written as JSON meets the
same verdict."""

from __future__ import annotations

import pytest

from controlplane.api import ControlPlane

SOCAL = ("The 8- and 10-county definitions are not used for the greater Southern California Megaregion, one of the "
         "11 megaregions of the United States. The megaregion's area is more expansive, extending east into Las "
         "Vegas, Nevada, and south across the Mexican border into Tijuana.")


def test_a_number_changed_into_another_number_of_the_evidence_fails():
    with ControlPlane(model=False, db=False, critic=False, load_entry_points=False) as plane:
        result = plane.verify("The 11- and 10-county definitions are not used for the greater Southern California "
                              "Megaregion, one of the 11 megaregions of the United States.",
                              evidence=[{"id": "E1", "text": SOCAL}], prose=True)
    assert result.status == "fail"


SWAPS = [  # (evidence, faithful restatement, the same sentence with one number moved)
    ("The bridge was designed in 1927 and opened to traffic in 1932.",
     "The bridge opened to traffic in 1932.",
     "The bridge opened to traffic in 1927."),
    ("Turnout was 62% in the northern districts and 48% in the southern districts.",
     "In the southern districts, turnout was 48%.",
     "Turnout was 48% in the northern districts."),
    ("The school employs 40 teachers and enrols 600 students.",
     "The school's 600 students are taught by 40 teachers.",
     "The school employs 600 teachers."),
    ("The museum received $2 million from the city and $5 million from private donors.",
     "Private donors gave the museum $5 million.",
     "The museum received $5 million from the city."),
]


@pytest.mark.parametrize(("evidence", "faithful", "moved"), SWAPS)
def test_a_number_moved_within_the_evidence_fails_and_its_faithful_restatement_does_not(evidence, faithful, moved):
    with ControlPlane(model=False, db=False, critic=False, load_entry_points=False) as plane:
        lie = plane.verify(moved, evidence=[{"id": "E1", "text": evidence}], prose=True)
        truth = plane.verify(faithful, evidence=[{"id": "E1", "text": evidence}], prose=True)
    assert lie.status == "fail"
    assert "NUMBER_MISMATCH" in {code for claim in lie.evaluation.claims for code in claim.reason_codes}
    assert "NUMBER_MISMATCH" not in {code for claim in truth.evaluation.claims for code in claim.reason_codes}


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


@pytest.mark.parametrize(("recorded_failure", "replayed_reason"), [
    ("selector:unavailable", "selector:unavailable"), ("selector:error", "selector:error"), (None, "selector:invalid_output"),
])
def test_the_recorded_model_fails_a_selector_call_the_way_the_recorded_one_failed(recorded_failure, replayed_reason):
    from controlplane.policy_bundles.loader import load_bundle
    from controlplane.replay import RecordedModel
    from controlplane.router import route
    from controlplane.selector import run_selector

    policy = load_bundle().bundle
    question = "When does the Orion project ship?"
    model = RecordedModel("", {"model_id": "scripted"}, recorded_failure, "backend has no JSON mode")
    outcome = run_selector(question, route(question, policy), policy, model)
    assert outcome.decision.reasons[-1] == replayed_reason
