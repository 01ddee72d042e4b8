"""The SQLite trace store: WAL and durable settings, normalised tables, round trip, in-progress traces."""

from __future__ import annotations

import sqlite3

import pytest

from controlplane.contracts import TraceStatus
from controlplane.pipeline import Pipeline
from controlplane.traces.store import TraceStore, TraceStoreError

TABLES = {"traces", "trace_events", "gate_results", "regen_attempts", "critic_findings", "human_feedback",
          "trace_bundles"}


def test_tables_wal_and_durability(tmp_path):
    store = TraceStore(tmp_path / "t.db")
    names = set(store.db.table_names())
    assert TABLES <= names
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    with pytest.raises(TraceStoreError, match="synchronous=OFF"):
        TraceStore(tmp_path / "x.db", durability="off")


@pytest.mark.parametrize("durability", ["full", "extra", "normal"])
def test_only_the_finished_run_is_synced(tmp_path, write_script, default_policy, make_envelope, durability):
    """At durability full a request pays one fsync, not two: the in_progress row is committed as at normal (it
    survives a killed process, which is what it is for) and the finished run's commit is synced, which makes the
    earlier WAL frames durable with it. The connection is left at the store's setting."""
    store = TraceStore(tmp_path / "t.db", durability=durability)
    level = store.db.execute("PRAGMA synchronous").fetchone()[0]
    assert level == {"normal": 1, "full": 2, "extra": 3}[durability]
    commits: list[int] = []
    conn = store.db.conn

    def on_statement(sql: str) -> None:
        if sql.strip().upper() == "COMMIT":  # the level in force for this commit
            commits.append(conn.execute("PRAGMA synchronous").fetchone()[0])

    conn.set_trace_callback(on_statement)
    try:
        result = run_one(write_script, store, default_policy, make_envelope)
    finally:
        conn.set_trace_callback(None)
    assert commits == [1, level]  # begin (in_progress), then save (the whole run)
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == level
    assert store.load_bundle(result.trace_id).outcome.status is TraceStatus.REGEN_PASS


def test_a_failed_relaxed_transaction_restores_the_durability(tmp_path):
    store = TraceStore(tmp_path / "t.db", durability="full")
    with pytest.raises(RuntimeError), store.transaction(synced=False):
        raise RuntimeError("boom")
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2
    assert not store.db.conn.in_transaction


def run_one(write_script, store, default_policy, make_envelope, outputs=None):
    outputs = outputs or ["prose", make_envelope([("We host on Fly.io [E1].", ["E1"])])]
    plane = Pipeline(model=write_script(outputs), policy=default_policy, store=store)
    return plane.run("Where is our hosting architecture?", evidence=[{"id": "E1", "text": "We host on Fly.io."}])


def test_round_trip_of_a_whole_run(write_script, store, default_policy, make_envelope):
    result = run_one(write_script, store, default_policy, make_envelope)
    bundle = store.load_bundle(result.trace_id)
    assert bundle.outcome.status is TraceStatus.REGEN_PASS
    assert [a.attempt for a in bundle.attempts] == [1, 2]
    assert bundle.attempts[1].regen_delta.attempt == 2
    assert bundle.policy.hash == default_policy.hash and bundle.policy.content["name"] == "default"
    assert [e.seq for e in bundle.events] == list(range(len(result.events)))
    rows = list(store.db.query("SELECT gate_id, result FROM gate_results WHERE trace_id = ? AND attempt = 1 "
                               "ORDER BY position", [result.trace_id]))
    assert rows[0] == {"gate_id": "output_schema", "result": "fail"}
    listed = store.list_traces()
    assert listed[0]["trace_id"] == result.trace_id and listed[0]["status"] == "regen_pass"


def test_seq_must_be_contiguous(write_script, store, default_policy, make_envelope):
    result = run_one(write_script, store, default_policy, make_envelope)
    bundle = store.load_bundle(result.trace_id)
    broken = bundle.model_copy(update={"trace_id": "tr_other", "events": [e.model_copy(update={"trace_id": "tr_other"})
                                                                          for e in bundle.events[1:]]})
    with pytest.raises(TraceStoreError, match="contiguous"):
        store.save(broken)


def test_a_trace_is_in_progress_until_saved_and_never_overwritten(write_script, store, default_policy, make_envelope):
    store.begin("tr_started", [{"role": "user", "content": "hi"}])
    assert store.list_traces(status="in_progress")[0]["trace_id"] == "tr_started"
    with pytest.raises(TraceStoreError, match="in progress"):
        store.load_bundle("tr_started")
    result = run_one(write_script, store, default_policy, make_envelope)
    with pytest.raises(TraceStoreError, match="already stored"):
        store.save(store.load_bundle(result.trace_id))


def test_a_policy_snapshot_is_looked_up_until_this_store_has_committed_it(write_script, store, default_policy,
                                                                          make_envelope):
    """save skips the snapshot lookup for a policy hash it has committed, and only then: a save that rolled back
    (here: the trace is already complete) stored no snapshot, so the next save must still write it."""
    first = run_one(write_script, store, default_policy, make_envelope)
    bundle = store.load_bundle(first.trace_id)
    other = bundle.policy.model_copy(update={"hash": "sha256:" + "1" * 64})
    with pytest.raises(TraceStoreError, match="already stored"):
        store.save(bundle.model_copy(update={"policy": other}))  # rolled back, snapshot row included
    assert other.hash not in store._known_policies
    assert store.db.execute("SELECT count(*) FROM policy_snapshots WHERE hash = ?", [other.hash]).fetchone()[0] == 0
    again = bundle.model_copy(update={"trace_id": "tr_again", "policy": other,
                                      "events": [e.model_copy(update={"trace_id": "tr_again"}) for e in bundle.events]})
    store.save(again)
    assert store.load_bundle("tr_again").policy.content["name"] == "default"
    assert other.hash in store._known_policies
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    try:
        store.save(again.model_copy(update={"trace_id": "tr_third", "events": [
            e.model_copy(update={"trace_id": "tr_third"}) for e in bundle.events]}))
    finally:
        store.db.conn.set_trace_callback(None)
    assert not any("policy_snapshots" in sql for sql in statements)
    assert store.load_bundle("tr_third").policy.content["name"] == "default"


def test_a_crash_inside_the_pipeline_marks_the_trace_error_and_keeps_it(default_policy, store):
    class Exploding:
        def generate(self, *a):
            raise RuntimeError("boom")

        def is_ready(self):
            return True

        def metadata(self):
            raise RuntimeError("metadata also broken")

    plane = Pipeline(model=Exploding(), policy=default_policy, store=store)
    with pytest.raises(RuntimeError):
        plane.run("Where is our hosting architecture?", evidence=[{"text": "We host on Fly.io."}])
    row = store.list_traces()[0]
    assert row["status"] == "error"


def test_missing_trace_and_unusable_paths(tmp_path, store):
    with pytest.raises(TraceStoreError, match="no trace"):
        store.require("tr_nope")
    not_db = tmp_path / "notes.txt"
    not_db.write_text("this is not sqlite " * 100)
    with pytest.raises(TraceStoreError, match="not a usable SQLite"):
        TraceStore(not_db)


def test_bad_input_is_rejected_before_anything_is_stored(write_script, store, default_policy):
    from controlplane.contracts.errors import InputError

    plane = Pipeline(model=write_script(["x"]), policy=default_policy, store=store)
    for messages in ([], [{"role": "robot", "content": "x"}], [{"role": "user", "content": ""}]):
        with pytest.raises(InputError):
            plane.run(messages)
    with pytest.raises(InputError, match="trust_tier"):
        plane.run("hi", evidence=[{"text": "x", "trust_tier": "legendary"}])
    assert store.list_traces() == []


def test_caller_input_is_never_mutated(write_script, store, default_policy, make_envelope):
    messages = [{"role": "user", "content": "Where is our hosting\u200b architecture?"}]
    evidence = [{"id": "E1", "text": "We host on Fly.io."}]
    snapshot = (repr(messages), repr(evidence))
    plane = Pipeline(model=write_script([make_envelope([("We host on Fly.io [E1].", ["E1"])])]),
                         policy=default_policy, store=store)
    plane.run(messages, evidence=evidence)
    assert (repr(messages), repr(evidence)) == snapshot


def test_integrity(store):
    assert store.integrity_check() == "ok"
    assert isinstance(store.db.conn, sqlite3.Connection)


@pytest.mark.parametrize("payload", [
    {"plain": {"b": [1, 2.5, None], "a": "x"}},  # string keys: the stored text is the text hashed
    {"by_number": {2: "two", 10: "ten"}},  # int keys sort as numbers in memory, as text once decoded
    {"flags": {True: "t", 2: "two"}, "nested": [{"k": {10.5: "x", 9.25: "y"}}]},
    {"values": ["10", "2", "Infinity"], "when": __import__("datetime").date(2026, 11, 26), "pair": (1, "a")},
], ids=["string-keys", "int-keys", "bool-and-float-keys", "digit-strings-and-non-json-values"])
def test_the_integrity_map_matches_the_stored_trace_whatever_the_payload_keys(write_script, store, default_policy,
                                                                             make_envelope, payload):
    """save hashes each event payload in the form load_bundle decodes it to. A payload whose keys are all strings
    is hashed from the text it stores; one with other keys (written as text, so sorted differently once decoded) is
    hashed from the decoded form: the stored map must match the trace read back either way."""
    from controlplane.traces.integrity import compute_integrity, integrity_problems

    bundle = run_one(write_script, None, default_policy, make_envelope).trace_bundle
    events = list(bundle.events)
    events[-1] = events[-1].model_copy(update={"payload": {**events[-1].payload, **payload}})
    bundle = bundle.model_copy(update={"events": events})
    store.begin(bundle.trace_id, bundle.messages, created_at=bundle.created_at)
    store.save(bundle)
    loaded = store.load_bundle(bundle.trace_id).model_dump(mode="json")
    assert integrity_problems(loaded) == []
    assert loaded["integrity"]["events"] == compute_integrity(loaded)["events"]


@pytest.mark.parametrize("values", [[], ["E1"], ["claim_map:c1", 'a "quoted", \\ back', "é\u2028\x00\x1f"],
                                    [TraceStatus.PASS, "x"]])  # a str subclass: the general encoder
def test_a_gate_rows_string_lists_are_encoded_as_every_other_column(values):
    from controlplane.traces.store import _json, _json_strings

    assert _json_strings(values) == _json(values)


def test_the_unused_gate_index_is_gone_and_the_read_paths_are_indexed(tmp_path):
    """No query reads gate_results by (gate_id, result); the index cost every save. A store written by an older
    version loses it when it is opened; the indexes the reads use stay."""
    path = tmp_path / "t.db"
    TraceStore(path).close()
    with sqlite3.connect(path) as conn:  # as an older version left it
        conn.execute("CREATE INDEX gate_results_gate ON gate_results(gate_id, result)")
    store = TraceStore(path)
    indexes = {row[0] for row in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "gate_results_gate" not in indexes
    assert {"gate_results_trace", "trace_events_seq", "regen_attempts_n", "traces_created", "traces_status"} <= indexes
