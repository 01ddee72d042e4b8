"""Issue 16, "Messages that mislead": each is exit 2 with one line naming the problem and the fix, never a silent
empty result, a traceback or "internal error"."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.cli import main
from controlplane.traces.store import TraceStore
from tests.traces.flowkit import ARCH_EVIDENCE, envelope, run

CLI = [sys.executable, "-c", "from controlplane.cli import main; main()"]


def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def one_line_exit_2(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    for fragment in fragments:
        assert fragment in result.output, (fragment, result.output)


@pytest.fixture
def stored(tmp_path: Path, gov_policy):
    store = TraceStore(tmp_path / "t.db")
    trace_id = run(store, gov_policy, tmp_path, "one", [envelope([("We host on Fly.io [E1].", ["E1"])])],
                   "Where do we host our architecture?", ARCH_EVIDENCE).trace_id
    return store, trace_id


@pytest.mark.parametrize("args, fragments", [
    (("trace", "export", "--since", "yesterday", "-o", "{dir}/x.jsonl"), ("'yesterday'", "ISO date", "2026-11-01")),
    (("trace", "list", "--since", "notadate"), ("'notadate'", "ISO date")),
    (("trace", "list", "--status", "bogus"), ("'bogus'", "regen_pass")),
    (("trace", "export", "--status", "bogus", "-o", "{dir}/x.jsonl"), ("'bogus'", "degraded")),
    (("trace", "export", "--since", "2999-01-01", "-o", "{dir}/x.jsonl"), ("no complete trace", "2999-01-01")),
    # found by QA: stats and critic run took any --since and reported 0 traces; a --limit below 1 was taken as no limit
    (("stats", "--since", "bogus"), ("'bogus'", "ISO date")),
    (("critic", "run", "--since", "bogus"), ("'bogus'", "ISO date")),
    (("trace", "list", "--limit", "-1"), ("--limit", "at least 1")),
    (("trace", "export", "--since", "2000-01-01", "--limit", "0", "-o", "{dir}/x.jsonl"), ("--limit", "at least 1")),
    (("critic", "run", "--since", "2000-01-01", "--limit", "-3"), ("--limit", "at least 1")),
])
def test_a_filter_that_cannot_match_is_an_error_not_an_empty_result(stored, tmp_path: Path, args, fragments):
    store, _ = stored
    result = cli(*[a.format(dir=tmp_path) for a in args], "--db", store.path)
    one_line_exit_2(result, *fragments)
    assert not (tmp_path / "x.jsonl").exists() and not list(tmp_path.glob(".x.jsonl.*"))


def test_a_valid_since_still_filters(stored, tmp_path: Path):
    store, trace_id = stored
    listed = cli("trace", "list", "--since", "2000-01-01T00:00:00Z", "--db", store.path)
    assert listed.exit_code == 0 and trace_id in listed.output
    exported = cli("trace", "export", "--since", "2000-01-01", "-o", tmp_path / "ok.jsonl", "--db", store.path)
    assert exported.exit_code == 0 and "exported 1 trace" in exported.output


def test_trace_list_into_a_closed_pipe_is_quiet(tmp_path: Path):
    store = TraceStore(tmp_path / "many.db")
    with store.transaction() as db:  # enough rows to overflow the pipe buffer after `head` has exited
        db.conn.executemany("INSERT INTO traces (trace_id, created_at, status, user_message, messages) "
                            "VALUES (?, ?, 'in_progress', ?, '[]')",
                            [(f"tr_{i:05d}", f"2026-11-23T10:{i // 60 % 60:02d}:{i % 60:02d}", "q" * 80)
                             for i in range(3000)])
    command = " ".join([*(f"'{c}'" for c in CLI), "trace", "list", "--limit", "3000", "--db", str(store.path)])
    result = subprocess.run(f"{command} | head -1", shell=True, capture_output=True, text=True, timeout=120)
    assert result.stdout.count("\n") == 1
    assert "BrokenPipe" not in result.stderr and "Traceback" not in result.stderr, result.stderr


def _without_root_override() -> list[str]:
    """Root writes through any file mode; as root, run the child without the capabilities that let it."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def test_a_read_only_db_can_still_be_listed_shown_and_exported(stored, tmp_path: Path):
    store, trace_id = stored
    store.close()
    readonly = tmp_path / "ro"
    readonly.mkdir()
    db = readonly / "t.db"
    db.write_bytes(Path(store.path).read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    os.chmod(db, 0o444)
    os.chmod(readonly, 0o555)
    env = {**os.environ, "CONTROLPLANE_HOME": str(out / "home")}
    try:
        for args, expect in ((("trace", "list", "--db", db), trace_id), (("trace", "show", trace_id, "--db", db), "status"),
                             (("trace", "export", trace_id, "--db", db, "-o", out / "x.jsonl"), "exported 1")):
            result = subprocess.run([*_without_root_override(), *CLI, *map(str, args)], capture_output=True, text=True,
                                    env=env, timeout=120)
            assert result.returncode == 0, (args, result.stderr)
            assert expect in result.stdout
        write = subprocess.run([*_without_root_override(), *CLI, "feedback", trace_id, "--tag", "wrong_fact", "--db",
                                str(db)], capture_output=True, text=True, env=env, timeout=120)
        assert write.returncode == 2 and "read-only" in write.stderr and "Traceback" not in write.stderr
    finally:
        os.chmod(readonly, 0o755)


def test_a_foreign_traces_table_is_refused_and_left_alone(tmp_path: Path):
    foreign = tmp_path / "app.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE traces (id INTEGER PRIMARY KEY, route TEXT)")
        conn.execute("INSERT INTO traces (route) VALUES ('/home')")
    before = foreign.read_bytes()
    one_line_exit_2(cli("trace", "list", "--db", foreign), "not a controlplane trace table", "--db")
    with sqlite3.connect(foreign) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"traces"} and foreign.read_bytes() == before


def test_eval_on_a_binary_file_is_one_line(tmp_path: Path):
    binary = tmp_path / "model.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    one_line_exit_2(cli("eval", binary), "not UTF-8", str(binary))


def test_export_with_a_catastrophic_redaction_regex_is_refused_before_any_file(stored, tmp_path: Path):
    from controlplane.policy_bundles.loader import canonical_content, load_bundle

    store, trace_id = stored
    data = canonical_content(load_bundle().bundle)
    data["redaction"]["custom_patterns"] = ["(a+)+$"]
    policy = tmp_path / "slow.json"
    policy.write_text(json.dumps(data))
    out = tmp_path / "exports"
    out.mkdir()
    result = cli("trace", "export", trace_id, "--db", store.path, "--policy", policy, "-o", out / "x.jsonl")
    one_line_exit_2(result, "custom_patterns", "exponential")
    assert list(out.iterdir()) == []
