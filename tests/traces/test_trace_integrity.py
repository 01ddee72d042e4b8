"""Issue 16 item 7: a bundle edited after it was written never replays as "reproduced" and is never imported.

The delivered text, the model output, the messages, an evidence text (its hash no longer matches) and the policy
content (its hash no longer matches) are each edited in an exported file; replay exits non-zero and import exits 2,
both naming the altered field, and nothing is stored. Unedited bundles, redacted or not, still replay and import.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.cli import main
from controlplane.contracts import RedactionPolicy
from controlplane.traces.bundles import export_bundles
from controlplane.traces.store import TraceStore
from tests.traces.flowkit import ARCH_EVIDENCE, envelope, run


def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def _edit_line(path: Path, edit) -> Path:
    data = json.loads(path.read_text().splitlines()[0])
    edit(data)
    edited = path.with_name("edited-" + path.name)
    edited.write_text(json.dumps(data, sort_keys=True) + "\n")
    return edited


def _delivered(d):
    d["outcome"]["assistant_text"] = "We host on AWS us-east-1 [E1]."


def _model_output(d):
    d["attempts"][0]["raw_output"] = d["attempts"][0]["raw_output"].replace("Fly.io", "AWS")


def _message(d):
    d["messages"][-1]["content"] = "Where do we host? Ignore the evidence."


def _evidence_text(d):
    d["evidence_pack"]["evidence"][0]["text"] = "We host on AWS. DB is Postgres."


def _policy_content(d):
    d["policy"]["content"]["gates"] = [g for g in d["policy"]["content"]["gates"] if g["gate_id"] == "output_schema"]


def _verified_flag(d):
    d["outcome"]["verified"] = not d["outcome"]["verified"]


def _integrity_dropped(d):
    d["integrity"] = {}


@pytest.mark.parametrize("edit, field", [
    (_delivered, "outcome"),
    (_model_output, "attempts[0].raw_output"),
    (_message, "messages"),
    (_evidence_text, "evidence_pack.evidence[0].text"),
    (_policy_content, "policy.content"),
    (_verified_flag, "outcome"),
    (_integrity_dropped, "no integrity hashes"),
], ids=["delivered-text", "model-output", "message", "evidence-text", "policy-content", "verified-flag",
        "integrity-dropped"])
@pytest.mark.parametrize("redacted", [False, True], ids=["plain", "redacted"])
def test_an_edited_bundle_is_refused_by_replay_and_import_naming_the_field(flows, tmp_path: Path, edit, field: str,
                                                                           redacted: bool):
    store, ids = flows
    exported = tmp_path / "one.jsonl"
    export_bundles(store, exported, trace_ids=[ids["pass"]],
                   redaction=RedactionPolicy(evidence_text="keep") if redacted else None)
    assert cli("replay", exported).exit_code == 0  # unedited: reproduced

    edited = _edit_line(exported, edit)
    replayed = cli("replay", edited)
    assert replayed.exit_code == 1, replayed.output
    assert "edited" in replayed.output and field in replayed.output

    other = TraceStore(tmp_path / "other.db")
    imported = cli("trace", "import", edited, "--db", other.path)
    assert imported.exit_code == 2 and field in imported.output and "altered" in imported.output
    assert other.list_traces() == []


def test_masked_evidence_text_is_vouched_for_by_the_redacted_bundle(tmp_path: Path, gov_policy):
    """Redaction with evidence_text: keep masks an email inside the evidence; its hash stays the original's, so the
    bundle's integrity map vouches for the masked text. It replays and imports; editing it is still caught."""
    store = TraceStore(tmp_path / "t.db")
    evidence = [{**ARCH_EVIDENCE[0], "text": "We host on Fly.io. Ops: ops@example.com. DB is Turso (SQLite)."}]
    trace_id = run(store, gov_policy, tmp_path, "mail", [envelope([("We host on Fly.io [E1].", ["E1"])])],
                   "Where do we host our architecture?", evidence).trace_id
    path = tmp_path / "mail.jsonl"
    export_bundles(store, path, trace_ids=[trace_id], redaction=RedactionPolicy(evidence_text="keep"))
    line = json.loads(path.read_text())
    assert "ops@example.com" not in path.read_text() and line["evidence_pack"]["evidence"][0]["redacted"] is False
    assert "evidence_pack.evidence[0].text" in line["integrity"]
    assert cli("replay", path).exit_code == 0
    assert cli("trace", "import", path, "--db", tmp_path / "b.db").exit_code == 0

    edited = _edit_line(path, lambda d: d["evidence_pack"]["evidence"][0].update(text="We host on AWS."))
    result = cli("replay", edited)
    assert result.exit_code == 1 and "evidence_pack.evidence[0].text" in result.output


def test_an_edit_in_the_trace_store_itself_is_caught_after_export(flows, tmp_path: Path):
    """The hashes are taken when the trace is stored: editing the delivered text in the database is caught too."""
    store, ids = flows
    with store.transaction() as db:
        row = db.execute("SELECT outcome FROM traces WHERE trace_id = ?", [ids["pass"]]).fetchone()
        outcome = json.loads(row[0])
        outcome["assistant_text"] = "We host on AWS [E1]."
        db.execute("UPDATE traces SET outcome = ?, assistant_text = ? WHERE trace_id = ?",
                   [json.dumps(outcome), outcome["assistant_text"], ids["pass"]])
    path = tmp_path / "db-edit.jsonl"
    export_bundles(store, path, trace_ids=[ids["pass"]])
    result = cli("replay", path)
    assert result.exit_code == 1 and "outcome" in result.output


def test_an_unedited_store_still_round_trips(flows, tmp_path: Path):
    store, _ = flows
    first = tmp_path / "a.jsonl"
    export_bundles(store, first, since="2000-01-01")
    other = tmp_path / "other.db"
    assert cli("trace", "import", first, "--db", other).exit_code == 0
    second = tmp_path / "b.jsonl"
    export_bundles(TraceStore(other), second, since="2000-01-01")
    assert first.read_bytes() == second.read_bytes()
    assert cli("replay", second).exit_code == 0
