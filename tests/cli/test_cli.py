"""The CLI others script against: command names, JSON keys, exit codes, one-line errors."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from controlplane.cli import main

EVIDENCE = [{"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite).", "trust_tier": "authoritative"}]


@pytest.fixture
def files(tmp_path, make_envelope, core_policy_file, monkeypatch):
    monkeypatch.setenv("CONTROLPLANE_POLICY", str(core_policy_file))
    evidence = tmp_path / "evidence.json"
    evidence.write_text(json.dumps(EVIDENCE))
    good = make_envelope([("We host on Fly.io [E1].", ["E1"])])
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join([json.dumps("Sure, Fly.io."), json.dumps(good)]))
    envelope = tmp_path / "envelope.json"
    envelope.write_text(json.dumps(good))
    return {"evidence": evidence, "script": script, "envelope": envelope, "db": tmp_path / "t.db", "dir": tmp_path}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_run_json_keys_and_trace_show(files):
    out = invoke("run", "--message", "Where is our hosting architecture?", "--evidence", files["evidence"], "--model",
                 f"scripted:{files['script']}", "--db", files["db"], "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert {"trace_id", "status", "attempts", "assistant_text", "gate_results"} <= set(data)
    assert data["status"] == "regen_pass" and data["attempts"] == 2
    # one flat list, as respond().as_json() and the HTTP metadata: each gate with its attempt (None before generation)
    assert [g["attempt"] for g in data["gate_results"] if g["stage"] == "pre_generation"] == [None]
    assert sorted({g["attempt"] for g in data["gate_results"]} - {None}) == [1, 2]
    first = next(g for g in data["gate_results"] if g["attempt"] == 1)
    assert first == {
        "gate_id": "output_schema", "result": "fail", "reason_codes": ["INVALID_JSON"], "attempt": 1,
        "stage": "post_generation", "latency_ms": first["latency_ms"],
    }

    shown = invoke("trace", "show", data["trace_id"], "--db", files["db"], "--json")
    assert shown.exit_code == 0
    events = json.loads(shown.output)["events"]
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert all({"phase", "gate_id", "metadata"} <= set(e) for e in events)
    assert events[0]["phase"] == "evidence_intake"

    text = invoke("trace", "show", data["trace_id"], "--db", files["db"])
    assert "gate output_schema attempt=1 -> fail [INVALID_JSON]" in text.output


def test_run_human_output_has_answer_table_status_and_trace_command(files):
    out = invoke("run", "-m", "Where is our hosting architecture?", "--evidence", files["evidence"], "--model",
                 f"scripted:{files['script']}", "--db", files["db"])
    assert out.exit_code == 0
    assert out.output.startswith("We host on Fly.io [E1].")
    assert "status: regen_pass" in out.output and "controlplane trace show tr_" in out.output
    assert re.search(r"^1\s+output_schema\s+FAIL\s+INVALID_JSON", out.output, re.MULTILINE)


def test_verify_json(files):
    out = invoke("verify", "--evidence", files["evidence"], "--envelope", files["envelope"], "--message",
                 "Where is our hosting architecture?", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["status"] == "pass" and data["mode_decision"]["modeLabel"] == "System"
    assert {"gate_id", "result", "reason_codes"} <= set(data["gates"][0])
    assert data["claims"] == [{"claim_id": "c1", "verdict": "PASS", "reason_codes": [], "text": "We host on Fly.io [E1].",
                               "evidence_ids": ["E1"], "span": [0, 23]}]


def test_verify_accepts_raw_prose_as_a_failure_not_a_crash(files):
    prose = files["dir"] / "prose.txt"
    prose.write_text("I'm pretty sure we host on AWS.")
    out = invoke("verify", "--evidence", files["evidence"], "--envelope", prose, "--json")
    assert out.exit_code == 1
    data = json.loads(out.output)
    assert data["status"] == "fail" and data["gates"][0]["reason_codes"] == ["INVALID_JSON"]
    assert data["claims"] == []


def test_verify_accepts_a_whole_evidence_pack(files, tmp_path):
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps({"evidence": EVIDENCE, "rules": {"must_cite_for_factual_claims": True}}))
    out = invoke("verify", "--evidence", pack, "--envelope", files["envelope"], "--message", "hosting architecture?",
                 "--json")
    assert out.exit_code == 0 and json.loads(out.output)["evidence_ids"] == ["E1"]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["run", "-m", "hi", "--evidence", "{dir}/missing.json", "--model", "scripted:{script}", "--db", "{db}"],
         "evidence file not found"),
        (["run", "-m", "hi", "--evidence", "{bad}", "--model", "scripted:{script}", "--db", "{db}"], "not valid JSON"),
        (["run", "-m", "hi", "--model", "warp:drive", "--db", "{db}"], "unknown model spec 'warp:drive'"),
        (["run", "-m", "hi", "--model", "scripted:{dir}/nope.jsonl", "--db", "{db}"], "scripted model file not found"),
        (["run", "-m", "hi", "--model", "scripted:{script}", "--db", "{dir}/sub/file.txt/x.db"], "--db"),
        (["run", "-m", "hi", "--model", "scripted:{script}", "--db", "{db}", "--policy", "{dir}/none.json"],
         "policy bundle not found"),
        (["trace", "show", "tr_missing", "--db", "{db}"], "no trace 'tr_missing'"),
        (["verify", "--envelope", "{dir}/none.json"], "envelope file not found"),
        # found by QA: '--nli-backend bogus: --backend: unknown NLI backend' named the eval command's option too
        (["run", "-m", "hi", "--model", "scripted:{script}", "--nli-backend", "bogus", "--db", "{db}"],
         "--nli-backend bogus: unknown NLI backend 'bogus'; known:"),
        # found by QA: a bad --critic spec was blamed on --model
        (["run", "-m", "hi", "--model", "scripted:{script}", "--critic", "warp:drive", "--db", "{db}"],
         "--critic warp:drive: unknown model spec 'warp:drive'; use one of"),
        # found by QA: an empty question indexed the example corpus and loaded the model before it was refused
        (["ask", "  ", "--db", "{db}", "--index", "{dir}/never-created"], "the question is empty"),
        # found by QA: an evidence file's rules or an item's provenance of the wrong type was "internal error", exit 1
        (["run", "-m", "hi", "--evidence", "{badrules}", "--model", "scripted:{script}", "--db", "{db}"],
         "'rules' must be an object"),
        (["run", "-m", "hi", "--evidence", "{unknownrule}", "--model", "scripted:{script}", "--db", "{db}"],
         "rules.bogus"),
        (["run", "-m", "hi", "--evidence", "{badprov}", "--model", "scripted:{script}", "--db", "{db}"],
         "evidence[0].provenance"),
    ],
)
def test_bad_input_exits_2_with_one_line(files, args, fragment):
    bad = files["dir"] / "bad.json"
    bad.write_text("{not json")
    (files["dir"] / "sub").mkdir(exist_ok=True)
    (files["dir"] / "sub" / "file.txt").write_text("a file, not a directory")
    malformed = {"badrules": '{"evidence": [{"text": "a"}], "rules": 5}',
                 "unknownrule": '{"evidence": [{"text": "a"}], "rules": {"bogus": 1}}',
                 "badprov": '[{"text": "a", "provenance": 5}]'}
    for name, content in malformed.items():
        (files["dir"] / f"{name}.json").write_text(content)
    values = {"dir": files["dir"], "script": files["script"], "db": files["db"], "bad": bad,
              **{name: files["dir"] / f"{name}.json" for name in malformed}}
    result = CliRunner().invoke(main, [a.format(**values) for a in args])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]
    assert "Traceback" not in result.output


def test_bad_input_does_not_lose_stored_traces(files):
    ok = invoke("run", "-m", "Where is our hosting architecture?", "--evidence", files["evidence"], "--model",
                f"scripted:{files['script']}", "--db", files["db"], "--json")
    trace_id = json.loads(ok.output)["trace_id"]
    bad = files["dir"] / "bad.json"
    bad.write_text("[{\"title\": \"no text\"}]")
    failed = CliRunner().invoke(main, ["run", "-m", "hi", "--evidence", str(bad), "--model",
                                       f"scripted:{files['script']}", "--db", str(files["db"])])
    assert failed.exit_code == 2 and "'text' must be a non-empty string" in failed.output
    listed = json.loads(invoke("trace", "list", "--db", files["db"], "--json").output)
    assert [row["trace_id"] for row in listed] == [trace_id]
