"""Re-verification of user edits (grounded-generation contract §7.2; issue 14): the edit is re-anchored to the
original trace's evidence, every gate runs (the shipped bundle, NLI included), each sentence gets PASS or FAIL
with reasons and a fix, and the result is a new trace linked to the original. CLI, Python API and HTTP."""

from __future__ import annotations

import json

import httpx
import pytest
from click.testing import CliRunner

from controlplane.api import ControlPlane
from controlplane.contracts.errors import InputError
from controlplane.policy_bundles.loader import load_bundle, parse_bundle

ORION = ("The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. "
         "The team sits in Lyon and reports to the platform group.")
EVIDENCE = [{"id": "E1", "title": "Orion", "text": ORION, "trust_tier": "authoritative"}]
QUESTION = "When does the Orion project ship and where is the team?"
ANSWER = "The Orion project ships on 14 March 2027. [E1] The team sits in Lyon and reports to the platform group. [E1]"
GROUNDED_EDIT = "The team sits in Lyon and reports to the platform group. [E1] The Orion project ships on 14 March 2027."
NUMBER_EDIT = "The Orion project ships on 14 March 2028. [E1] The team sits in Lyon and reports to the platform group."
UNCITED_EDIT = ("The Orion project ships on 14 March 2027. [E1] "
                "It is the most admired engineering project in all of Europe.")


def policy(unsupported_edits: str = "block"):
    data = load_bundle().bundle.model_dump(mode="json")
    data["reverify"] = {"unsupported_edits": unsupported_edits}
    return parse_bundle(data, f"tests:reverify-{unsupported_edits}")


@pytest.fixture
def answered(tmp_path, write_script):
    """A stored, verified answer: (db path, trace id)."""
    db = tmp_path / "traces.db"
    selector = {"purpose": "selector", "output": {"modeLabel": "System", "domainFlags": [], "confidence": 0.9,
                                                  "reasons": ["project facts"]}}
    with ControlPlane(model=write_script([selector, ANSWER]), policy=policy(), db=db, critic=False, envelope="prose",
                      load_entry_points=False) as plane:
        reply = plane.respond(QUESTION, evidence=EVIDENCE)
    assert reply.verified
    return db, reply.trace_id


def checker(db, mode="block"):
    return ControlPlane(model=False, policy=policy(mode), db=db, critic=False, load_entry_points=False)


def test_an_edit_that_stays_grounded_passes_and_is_a_new_linked_trace(answered):
    db, parent = answered
    with checker(db) as plane:
        result = plane.reverify(parent, GROUNDED_EDIT)
        stored = plane.trace(result.trace_id)
    assert (result.status, result.verified) == ("pass", True)
    assert [s.verdict for s in result.sentences] == ["PASS", "PASS"]
    assert [s.attributed_by for s in result.sentences] == ["marker", "ngram"]
    assert result.assistant_text == GROUNDED_EDIT + " [E1]"
    assert result.trace_id != parent and stored.parent_trace_id == parent
    assert stored.outcome.verified and stored.model["model_id"] == "user-edit"
    from controlplane.replay import replay_bundles

    # the original's routing and pre-generation gates are recorded too: the check replays without a model
    assert replay_bundles([stored]).traces[0].reproduced


def test_an_edit_that_changes_a_number_fails_and_says_what_would_fix_it(answered):
    db, parent = answered
    with checker(db) as plane:
        result = plane.reverify(parent, NUMBER_EDIT)
    first, second = result.sentences
    assert first.verdict == "FAIL" and "NUMBER_MISMATCH" in first.reason_codes
    assert "14 March 2027" in first.fix and "E1" in first.fix
    assert first.closest_evidence["evidence_id"] == "E1"
    assert second.verdict == "PASS"
    assert (result.status, result.verified) == ("blocked", False)
    assert "2028" not in result.assistant_text  # blocked: the unsupported sentence is not returned
    assert result.assistant_text.startswith("The team sits in Lyon")


def test_an_edit_that_adds_an_uncited_sentence_is_blocked_or_flagged_as_the_bundle_says(answered):
    db, parent = answered
    with checker(db, "block") as plane:
        blocked = plane.reverify(parent, UNCITED_EDIT)
    with checker(db, "flag") as plane:
        flagged = plane.reverify(parent, UNCITED_EDIT)
    for result in (blocked, flagged):
        added = result.sentences[1]
        assert added.verdict == "FAIL" and added.fix
        assert result.sentences[0].verdict == "PASS" and not result.verified
    assert blocked.status == "blocked" and "most admired" not in blocked.assistant_text
    assert flagged.status == "flagged"
    assert "Europe. [UNSUPPORTED: " in flagged.assistant_text  # shown, but marked, and never verified


def test_bad_input_is_named(answered):
    db, parent = answered
    with checker(db) as plane:
        with pytest.raises(InputError, match="no trace 'tr_nope'"):
            plane.reverify("tr_nope", GROUNDED_EDIT)
        with pytest.raises(InputError, match="the edited text is empty"):
            plane.reverify(parent, "   ")


def test_reverify_cli_and_viewer(answered, tmp_path):
    from controlplane.cli import main
    from controlplane.viewer import render_trace

    db, parent = answered
    edit = tmp_path / "edit.txt"
    edit.write_text(NUMBER_EDIT, encoding="utf-8")
    runner = CliRunner()
    failed = runner.invoke(main, ["reverify", parent, "--text", str(edit), "--db", str(db), "--json"])
    assert failed.exit_code == 1, failed.output
    data = json.loads(failed.stdout)
    assert data["parent_trace_id"] == parent and data["status"] == "blocked"
    assert data["sentences"][0]["verdict"] == "FAIL" and data["sentences"][0]["fix"]
    edit.write_text(GROUNDED_EDIT, encoding="utf-8")
    passed = runner.invoke(main, ["reverify", parent, "--text", str(edit), "--db", str(db)])
    assert passed.exit_code == 0 and "status: pass" in passed.output
    missing = runner.invoke(main, ["reverify", "tr_nope", "--text", str(edit), "--db", str(db)])
    assert missing.exit_code == 2 and "no trace 'tr_nope'" in missing.output and "Traceback" not in missing.output

    with checker(db) as plane:
        page, _ = render_trace(plane.trace(data["trace_id"]))
    assert 'id="original-text"' in page and 'id="edited-text"' in page
    assert f'href="/traces/{parent}"' in page
    assert "14 March 2028" in page and "verdict-fail" in page


def test_post_v1_reverify(answered):
    from controlplane.server import BackgroundServer

    db, parent = answered
    with ControlPlane(model=False, policy=policy(), db=db, critic=False, load_entry_points=False) as plane:
        server = BackgroundServer(plane.app()).start()
        try:
            ok = httpx.post(f"{server.url}/v1/reverify", json={"trace_id": parent, "text": GROUNDED_EDIT}, timeout=120)
            bad = httpx.post(f"{server.url}/v1/reverify", json={"trace_id": parent, "text": NUMBER_EDIT}, timeout=120)
            missing = httpx.post(f"{server.url}/v1/reverify", json={"trace_id": parent}, timeout=30)
            unknown = httpx.post(f"{server.url}/v1/reverify", json={"trace_id": "tr_x", "text": "A."}, timeout=30)
        finally:
            server.stop()
    assert ok.status_code == 200 and ok.json()["status"] == "pass"
    assert ok.headers["x-controlplane-trace-id"] == ok.json()["trace_id"]
    assert bad.status_code == 200 and bad.json()["sentences"][0]["verdict"] == "FAIL"
    assert missing.status_code == 400 and missing.json()["error"]["param"] == "text"
    assert unknown.status_code == 400 and "no trace" in unknown.json()["error"]["message"]


@pytest.mark.parametrize("mode", ["block", "flag"])
@pytest.mark.parametrize("edit", [NUMBER_EDIT, UNCITED_EDIT, GROUNDED_EDIT])
def test_a_stored_edit_check_replays_to_its_recorded_status(answered, mode, edit):
    """An edit is never regenerated: replay decides its status with reverify's own rule (pass, else degraded),
    not the regen loop's, whose missing attempt 2 would leave a failing edit `unresolved`."""
    from controlplane.replay import replay_bundles

    db, parent = answered
    with checker(db, mode) as plane:
        result = plane.reverify(parent, edit)
        stored = plane.trace(result.trace_id)
    replayed = replay_bundles([stored]).traces[0]
    assert replayed.replayed_status == stored.outcome.status.value
    assert replayed.replayed_status == ("pass" if result.passed else "degraded")
    assert replayed.reproduced, [d.line() for d in replayed.differences]


def test_replay_of_an_edit_check_sees_a_changed_verdict_under_a_candidate_policy(answered):
    """A failing edit replayed under a policy without the gates that failed it passes there: replay judges the
    recorded edit, it does not echo the recorded status."""
    from controlplane.replay import replay_bundles

    db, parent = answered
    with checker(db) as plane:
        result = plane.reverify(parent, NUMBER_EDIT)
        stored = plane.trace(result.trace_id)
    failing = {code for s in result.sentences for code in s.reason_codes}
    assert "NUMBER_MISMATCH" in failing
    lenient = policy().bundle.model_dump(mode="json")
    lenient["gates"] = [g for g in lenient["gates"] if g["gate_id"] in ("output_schema", "mode_echo_match")]
    candidate = parse_bundle(lenient, "tests:reverify-lenient")
    replayed = replay_bundles([stored], policy=candidate).traces[0]
    assert (stored.outcome.status.value, replayed.replayed_status) == ("degraded", "pass")
