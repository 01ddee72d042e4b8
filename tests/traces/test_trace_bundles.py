"""Trace bundles: export -> import round trip, no clobbering, schema per line, redaction of planted secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.cli import main
from controlplane.contracts import RedactionPolicy
from controlplane.contracts.schemas import validate_instance
from controlplane.replay import replay_bundles
from controlplane.traces.bundles import BundleError, export_bundles, import_bundles, read_bundles
from controlplane.traces.redaction import RedactionError, Redactor
from controlplane.traces.store import TraceStore
from tests.traces.flowkit import envelope, run

EMAIL = "jane.doe@acme-corp.example"
KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"
PHONE = "+1 415 555 0187"


def test_export_import_export_is_byte_for_byte_identical(flows, tmp_path: Path, gov_policy):
    store, ids = flows
    first = tmp_path / "first.jsonl"
    summary = export_bundles(store, first, trace_ids=list(ids.values()), redaction=gov_policy.bundle.redaction)
    assert summary.trace_ids == list(ids.values()) and summary.redacted

    other = TraceStore(tmp_path / "other.db")
    imported = import_bundles(other, first)
    assert sorted(imported.imported) == sorted(ids.values()) and not imported.skipped
    second = tmp_path / "second.jsonl"
    export_bundles(other, second, trace_ids=list(ids.values()), redaction=gov_policy.bundle.redaction)

    assert first.read_bytes() == second.read_bytes()
    before, after = replay_bundles(read_bundles(first)), replay_bundles(read_bundles(second))
    assert json.dumps(before.as_json(), sort_keys=True) == json.dumps(after.as_json(), sort_keys=True)
    assert all(t.reproduced for t in after.traces)
    for trace_id in ids.values():
        assert other.require(trace_id)["imported_from"] == str(first)
        assert other.load_bundle(trace_id).outcome.status == store.load_bundle(trace_id).outcome.status
    exported = [r for r in store.db.query("SELECT * FROM trace_bundles WHERE direction = 'export'")]
    assert exported[0]["trace_count"] == len(ids) and exported[0]["redacted"] == 1


def test_unredacted_round_trip_keeps_every_field(flows, tmp_path: Path):
    store, ids = flows
    path = tmp_path / "raw.jsonl"
    export_bundles(store, path, status="regen_pass")
    other = TraceStore(tmp_path / "other.db")
    import_bundles(other, path)
    original, copy = store.load_bundle(ids["regen_pass"]), other.load_bundle(ids["regen_pass"])
    assert copy.model_dump(mode="json") == original.model_dump(mode="json")
    assert copy.attempts[0].raw_output == "Sure! We host on Fly.io."


def test_every_line_validates_against_the_trace_bundle_schema(flows, tmp_path: Path, gov_policy):
    store, _ = flows
    path = tmp_path / "all.jsonl"
    export_bundles(store, path, since="2000-01-01", redaction=gov_policy.bundle.redaction)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 5
    for line in lines:
        assert validate_instance("TraceBundle", json.loads(line)) == []

    broken = json.loads(lines[1])
    del broken["policy"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + json.dumps(broken) + "\n", encoding="utf-8")
    target = TraceStore(tmp_path / "target.db")
    with pytest.raises(BundleError, match=r"bad\.jsonl:2: .*policy"):
        import_bundles(target, bad)
    assert target.list_traces() == []  # validated before anything was stored


def test_import_never_clobbers_and_says_what_it_did(flows, tmp_path: Path):
    store, ids = flows
    path = tmp_path / "b.jsonl"
    export_bundles(store, path, trace_ids=[ids["pass"], ids["refused"]])
    other = TraceStore(tmp_path / "other.db")
    runner = CliRunner()

    first = runner.invoke(main, ["trace", "import", str(path), "--db", str(other.path)])
    assert first.exit_code == 0, first.output
    assert "imported 2 trace(s)" in first.output and "skipped 0" in first.output
    again = runner.invoke(main, ["trace", "import", str(path), "--db", str(other.path)])
    assert "imported 0 trace(s)" in again.output and "skipped 2 already present" in again.output
    rekeyed = runner.invoke(main, ["trace", "import", str(path), "--db", str(other.path), "--rekey", "--json"])
    data = json.loads(rekeyed.output)
    assert set(data["rekeyed"]) == {ids["pass"], ids["refused"]}
    new_id = data["rekeyed"][ids["pass"]]
    assert new_id.startswith(ids["pass"] + "~")
    assert [e.trace_id for e in other.events(new_id)] == [new_id] * len(other.events(new_id))
    assert other.load_bundle(ids["pass"]).model_dump(mode="json") == store.load_bundle(ids["pass"]).model_dump(mode="json")


def test_export_cli_needs_a_selection_and_reports_one_line(flows, tmp_path: Path, gov_policy_file: Path):
    store, ids = flows
    runner = CliRunner()
    out = tmp_path / "x.jsonl"
    missing = runner.invoke(main, ["trace", "export", "--db", str(store.path), "-o", str(out)])
    assert missing.exit_code == 2 and "TRACE_ID" in missing.output and "Traceback" not in missing.output
    unknown = runner.invoke(main, ["trace", "export", "tr_nope", "--db", str(store.path), "-o", str(out)])
    assert unknown.exit_code == 2 and "no trace 'tr_nope'" in unknown.output
    ok = runner.invoke(main, ["trace", "export", "--status", "refused", "--db", str(store.path), "-o", str(out),
                              "--policy", str(gov_policy_file)])
    assert ok.exit_code == 0, ok.output
    assert "exported 2 trace(s)" in ok.output and "redacted" in ok.output
    assert {b.trace_id for b in read_bundles(out)} == {ids["refused"], ids["refused_pre"]}


@pytest.fixture
def secret_trace(tmp_path: Path, gov_policy):
    store = TraceStore(tmp_path / "secret.db")
    evidence = [
        {"id": "E1", "text": f"We host on Fly.io. The deploy key is {KEY} and on-call is {PHONE}."},
        {"id": "E2", "text": "The control plane rejects uncited factual claims."},
    ]
    good = envelope([("We host on Fly.io [E1].", ["E1"])])
    result = run(store, gov_policy, tmp_path, "secret", [good],
                 f"Where do we host our architecture? Mail {EMAIL} with the answer.", evidence)
    assert result.status.value == "pass"
    return store, result.trace_id


def test_redaction_removes_planted_secrets_and_the_bundle_still_replays(secret_trace, tmp_path: Path, gov_policy):
    store, trace_id = secret_trace
    raw = store.load_bundle(trace_id).model_dump_json()
    assert EMAIL in raw and KEY in raw  # planted where a careless export would leak them

    path = tmp_path / "redacted.jsonl"
    summary = export_bundles(store, path, trace_ids=[trace_id], redaction=gov_policy.bundle.redaction)
    text = path.read_text(encoding="utf-8")
    for planted in (EMAIL, KEY, PHONE, "acme-corp", "4f9a8b7c6d5e"):
        assert planted not in text
    assert summary.redaction_counts["email"] >= 1 and summary.redaction_counts["secret"] >= 1

    bundle = read_bundles(path)[0]
    message = bundle.messages[-1]["content"]
    assert len(message) == len(f"Where do we host our architecture? Mail {EMAIL} with the answer.")
    assert "REDACTED_EMAIL" in message
    item = bundle.evidence_pack.evidence[0]
    original = store.load_bundle(trace_id).evidence_pack.evidence[0]
    assert item.redacted and item.hash == original.hash and item.text.startswith("[redacted sha256:")
    assert bundle.redaction["applied"] is True

    report = replay_bundles([bundle])
    assert report.traces[0].reproduced, [d.line() for d in report.differences]
    assert report.traces[0].replayed_status == "pass"


def test_custom_patterns_and_keep_evidence(tmp_path: Path, secret_trace):
    store, trace_id = secret_trace
    policy = RedactionPolicy(custom_patterns=[r"Fly\.io"], evidence_text="keep", emails=True)
    path = tmp_path / "custom.jsonl"
    export_bundles(store, path, trace_ids=[trace_id], redaction=policy)
    text = path.read_text(encoding="utf-8")
    assert "Fly.io" not in text and "We host on REDACT [E1]." in text  # masks keep the length (6 chars here)
    bundle = read_bundles(path)[0]
    assert not bundle.evidence_pack.evidence[0].redacted  # kept (patterns still applied)
    assert KEY not in text
    assert replay_bundles([bundle]).traces[0].reproduced


def test_redactor_masks_keep_length_and_fail_closed_on_bad_regex():
    redactor = Redactor(RedactionPolicy())
    value = f"write to {EMAIL}, key {KEY}, api_key=abcd1234efgh5678, call {PHONE}; released 2024-01-15 v1.0.0"
    masked = redactor.text(value)
    assert len(masked) == len(value)
    assert EMAIL not in masked and KEY not in masked and "abcd1234efgh5678" not in masked and PHONE not in masked
    assert "2024-01-15" in masked and "v1.0.0" in masked  # dates and versions are not phone numbers
    with pytest.raises(ValueError, match="not a valid regex"):  # refused by the contract itself
        RedactionPolicy(custom_patterns=["(unclosed"])
    with pytest.raises(RedactionError, match="custom_patterns\\[0\\]"):  # and by the redactor, should one get past
        Redactor(RedactionPolicy.model_construct(**{**RedactionPolicy().model_dump(), "custom_patterns": ["(unclosed"]}))


def test_escaped_secret_inside_a_raw_json_output_is_caught():
    redactor = Redactor(RedactionPolicy())
    raw = json.dumps({"assistant_text": "mail jane\u0040example.com"}, ensure_ascii=True).replace("@", "\\u0040")
    assert "@" not in raw
    cleaned = redactor.raw_output(raw)
    assert "example.com" not in json.loads(cleaned)["assistant_text"]
    assert redactor.leaks({"raw_output": cleaned}) == []


def test_anything_left_unredacted_stops_the_export(flows, tmp_path: Path):
    store, ids = flows
    # a custom pattern that matches the masks themselves can never be satisfied: the export must refuse, not write
    policy = RedactionPolicy(custom_patterns=["REDACTED"])
    path = tmp_path / "never.jsonl"
    with pytest.raises(RedactionError, match="redaction left matches"):
        export_bundles(store, path, trace_ids=[ids["regen_pass"]], redaction=policy)
    assert not path.exists() and not list(tmp_path.glob(".never.jsonl.*"))  # no partial or temp file left
