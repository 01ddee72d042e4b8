"""Durability and concurrency of the trace store with real pipeline runs (scripted model).

- 8 concurrent writers, as threads and as processes: no lost or duplicated trace or event, seq contiguous per
  trace, every trace complete. Sized to 8 x 63 = 504 traces per mode (durability "full", an fsync per commit) so the
  test stays well under a minute on 2 shared cores. ``CONTROLPLANE_DURABILITY_PER_WRITER=500`` runs the full
  8 x 500 real pipeline runs per mode (about 40 s each at load 4); the benchmark (``./run bench hardening``) writes
  8 x 500 real TraceBundles per mode.
- A writer killed with SIGKILL mid-trace and mid-write: integrity_check ok, no partial trace reported complete
  (in_progress, no events, no bundle), and the store keeps working (new traces, ``controlplane trace list``).
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.cli import main as cli_main
from controlplane.contracts import Phase
from controlplane.traces.store import TraceStore, TraceStoreError

WRITER_PATH = Path(__file__).with_name("writer.py")
_spec = importlib.util.spec_from_file_location("cp_durability_writer", WRITER_PATH)
writer = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = writer
_spec.loader.exec_module(writer)

WRITERS = 8
PER_WRITER = int(os.environ.get("CONTROLPLANE_DURABILITY_PER_WRITER", "63"))


def expected_events(tmp_path: Path) -> int:
    """Events of one run of the writer's request, measured on a private store."""
    store = TraceStore(tmp_path / "reference.db")
    plane = writer.make_plane(store, n_claims=5)
    result = plane.run([{"role": "user", "content": writer.QUESTION}], evidence=writer.evidence())
    store.close()
    return len(result.events)


def check_store(db: Path, trace_ids: list[str], n_events: int) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert len(trace_ids) == len(set(trace_ids)), "a trace id was handed out twice"
        rows = conn.execute("SELECT trace_id, status FROM traces").fetchall()
        assert len(rows) == len(trace_ids), "lost or extra traces"
        assert {r[0] for r in rows} == set(trace_ids)
        assert {r[1] for r in rows} == {"pass"}
        total = conn.execute("SELECT COUNT(*) FROM trace_events").fetchone()[0]
        assert total == len(trace_ids) * n_events, "lost or duplicated events"
        bad = conn.execute(
            "SELECT trace_id, COUNT(*), MIN(seq), MAX(seq), COUNT(DISTINCT seq) FROM trace_events GROUP BY trace_id "
            "HAVING COUNT(*) != ? OR MIN(seq) != 0 OR MAX(seq) != ? OR COUNT(DISTINCT seq) != ?",
            [n_events, n_events - 1, n_events],
        ).fetchall()
        assert bad == [], f"traces with missing, duplicated or non-contiguous seq: {bad[:3]}"
        last = conn.execute("SELECT COUNT(*) FROM trace_events WHERE seq = ? AND phase = ?",
                            [n_events - 1, Phase.FINAL.value]).fetchone()[0]
        assert last == len(trace_ids)
        attempts = conn.execute("SELECT COUNT(*) FROM regen_attempts").fetchone()[0]
        assert attempts == len(trace_ids)
    finally:
        conn.close()


def test_concurrent_threads(tmp_path):
    n_events = expected_events(tmp_path)
    db = tmp_path / "threads.db"
    TraceStore(db).close()
    results: list[list[str]] = [[] for _ in range(WRITERS)]
    errors: list[BaseException] = []
    shared = TraceStore(db)  # one store object shared by all threads: a connection per thread inside

    def work(index: int) -> None:
        try:
            plane = writer.make_plane(shared, n_claims=5, directory=tmp_path)
            pack = plane.build_pack(writer.evidence())
            for _ in range(PER_WRITER):
                results[index].append(plane.run([{"role": "user", "content": writer.QUESTION}],
                                                evidence=pack).trace_id)
        except BaseException as exc:  # reported below; a thread must not die silently
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors[:1]
    assert all(not t.is_alive() for t in threads)
    check_store(db, [t for ids in results for t in ids], n_events)


def _process_writer(db: str, count: int, queue) -> None:
    try:
        queue.put(("ok", writer.write_traces(db, count)))
    except BaseException as exc:
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def test_concurrent_processes(tmp_path):
    n_events = expected_events(tmp_path)
    db = tmp_path / "processes.db"
    TraceStore(db).close()
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    processes = [ctx.Process(target=_process_writer, args=(str(db), PER_WRITER, queue)) for _ in range(WRITERS)]
    for process in processes:
        process.start()
    reports = [queue.get(timeout=180) for _ in processes]
    for process in processes:
        process.join(timeout=60)
    assert [p.exitcode for p in processes] == [0] * WRITERS
    assert [kind for kind, _ in reports] == ["ok"] * WRITERS, [r for r in reports if r[0] != "ok"]
    check_store(db, [t for _, ids in reports for t in ids], n_events)


# -- SIGKILL -----------------------------------------------------------------------------------------------------------
def spawn(db: Path, mode: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, str(WRITER_PATH), str(db), mode], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def kill(process: subprocess.Popen) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def assert_store_sound(db: Path) -> dict[str, int]:
    """integrity ok; complete traces are whole; in_progress traces have nothing that could pass for a result."""
    store = TraceStore(db)
    try:
        assert store.integrity_check() == "ok"
        counts: dict[str, int] = {}
        for row in store.list_traces():
            counts[row["status"]] = counts.get(row["status"], 0) + 1
            events = store.events(row["trace_id"])
            if row["status"] == "in_progress":
                assert events == []
                assert not row["verified"]
                with pytest.raises(TraceStoreError, match="in progress"):
                    store.load_bundle(row["trace_id"])
            else:
                assert row["status"] == "pass"
                assert [e.seq for e in events] == list(range(len(events)))
                assert events[-1].phase is Phase.FINAL
                assert store.load_bundle(row["trace_id"]).outcome.status.value == "pass"
        complete = {r["trace_id"] for r in store.list_traces(complete_only=True)}
        assert all(r["status"] == "pass" for r in store.list_traces() if r["trace_id"] in complete)
        return counts
    finally:
        store.close()


def test_sigkill_mid_trace_leaves_an_in_progress_trace_and_a_working_store(tmp_path):
    db = tmp_path / "killed.db"
    TraceStore(db).close()
    process = spawn(db, "hang")
    try:
        line = process.stdout.readline()  # printed by the model, after the trace was begun
        assert line.strip() == "generating", process.stderr.read() if process.poll() is not None else line
    finally:
        kill(process)
    counts = assert_store_sound(db)
    assert counts == {"in_progress": 1}

    # the store keeps working: new traces, listing (API and CLI)
    new_ids = writer.write_traces(db, 3)
    counts = assert_store_sound(db)
    assert counts == {"in_progress": 1, "pass": 3}
    result = CliRunner().invoke(cli_main, ["trace", "list", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert result.output.count("in_progress") == 1 and all(i in result.output for i in new_ids)
    result = CliRunner().invoke(cli_main, ["trace", "list", "--db", str(db), "--status", "pass", "--json"])
    assert result.exit_code == 0 and "in_progress" not in result.output


def test_sigkill_during_heavy_writes(tmp_path):
    """Kill a busy writer at random moments (inside a transaction more often than not), three times over."""
    db = tmp_path / "busy.db"
    TraceStore(db).close()
    rng = random.Random(8)
    saved_total = 0
    for _ in range(3):
        process = spawn(db, "loop")
        try:
            saved = 0
            deadline = time.monotonic() + 60
            while saved < 5 and time.monotonic() < deadline:  # let it get going
                line = process.stdout.readline()
                if not line:
                    pytest.fail(f"writer died: {process.stderr.read()[-2000:]}")
                saved += line.startswith("saved")
            time.sleep(rng.uniform(0.0, 0.05))
        finally:
            kill(process)
        counts = assert_store_sound(db)
        assert counts.get("pass", 0) >= saved_total + saved  # nothing reported saved was lost
        assert counts.get("in_progress", 0) <= 3  # at most the trace each killed writer was on
        saved_total = counts.get("pass", 0)
    writer.write_traces(db, 2)
    assert assert_store_sound(db)["pass"] == saved_total + 2
