"""Replay: recorded verdicts reproduce exactly, tampering is caught and named, candidates list their changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.adapters.scripted import ScriptedModel
from controlplane.cli import main
from controlplane.contracts import TraceStatus
from controlplane.critic import ModelCritic
from controlplane.gates.interfaces import GateServices
from controlplane.replay import replay_bundles, replay_trace
from controlplane.traces.bundles import export_bundles, read_bundles
from controlplane.traces.store import TraceStore
from tests.traces.flowkit import envelope, governance_policy, run, write_policy


def _export(store, tmp_path: Path, name: str = "flows.jsonl", **kw) -> Path:
    path = tmp_path / name
    export_bundles(store, path, since="2000-01-01", **kw)
    return path


def test_replay_reproduces_every_recorded_verdict_without_a_model(flows, tmp_path: Path):
    store, ids = flows
    path = _export(store, tmp_path)
    for script in (tmp_path / "scripts").glob("*.jsonl"):
        script.unlink()  # the scripted model's outputs are gone: replay can only use what the bundle recorded

    report = replay_bundles(read_bundles(path))

    by_id = {t.trace_id: t for t in report.traces}
    assert {name: by_id[tid].replayed_status for name, tid in ids.items()} == {
        "pass": "pass", "regen_pass": "regen_pass", "degraded": "degraded", "refused": "refused",
        "refused_pre": "refused"}
    for trace in report.traces:
        assert trace.reproduced, [d.line() for d in trace.differences]
        bundle = store.load_bundle(trace.trace_id)
        assert trace.replayed_attempts == len(bundle.attempts)
        for record in bundle.attempts:
            recorded = [(g.gate_id, g.result.value, [c.value for c in g.reason_codes]) for g in record.gate_results]
            replayed = [(v["gate_id"], v["replayed"]["result"], v["replayed"]["reason_codes"])
                        for v in trace.verdicts[str(record.attempt)]]
            assert replayed == recorded
    assert by_id[ids["degraded"]].replayed_attempts == 3


def test_replay_is_deterministic_run_to_run(flows, tmp_path: Path):
    store, _ = flows
    bundles = read_bundles(_export(store, tmp_path))
    first = replay_bundles(bundles).as_json()
    second = replay_bundles(bundles).as_json()
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def _tamper(path: Path, trace_id: str, gate_id: str) -> Path:
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        data = json.loads(line)
        if data["trace_id"] == trace_id:
            for gate in data["attempts"][0]["gate_results"]:
                if gate["gate_id"] == gate_id:
                    assert gate["result"] == "pass"
                    gate["result"], gate["reason_codes"] = "fail", ["UNCITED_CLAIM"]
        out.append(json.dumps(data))
    tampered = path.with_name("tampered.jsonl")
    tampered.write_text("\n".join(out) + "\n", encoding="utf-8")
    return tampered


def test_a_tampered_verdict_exits_1_and_names_trace_and_gate(flows, tmp_path: Path):
    store, ids = flows
    path = _tamper(_export(store, tmp_path), ids["pass"], "citation_integrity")
    runner = CliRunner()

    result = runner.invoke(main, ["replay", str(path)])

    assert result.exit_code == 1, result.output
    line = next(l for l in result.output.splitlines() if "gate citation_integrity" in l)
    assert ids["pass"] in line and "attempt 1" in line and "recorded fail [UNCITED_CLAIM]" in line.replace("fail[", "fail [")
    assert "1 difference(s)" in result.output or "difference(s)" in result.output
    as_json = json.loads(runner.invoke(main, ["replay", str(path), "--json"]).output)
    assert as_json["exit_code"] == 1
    assert [(d["trace_id"], d["gate_id"]) for d in as_json["differences"]] == [(ids["pass"], "citation_integrity")]

    clean = runner.invoke(main, ["replay", str(tmp_path / "flows.jsonl")])
    assert clean.exit_code == 0 and "all recorded verdicts reproduced" in clean.output


def test_a_tampered_status_or_policy_is_caught(flows, tmp_path: Path):
    store, ids = flows
    bundle = store.load_bundle(ids["degraded"])
    wrong_status = bundle.model_copy(update={"outcome": bundle.outcome.model_copy(update={"status": TraceStatus.PASS})})
    tampered = replay_trace(wrong_status)  # the outcome no longer matches its hash: named, never "reproduced"
    assert not tampered.reproduced and "edited" in tampered.error and "outcome" in tampered.error

    content = dict(bundle.policy.content)
    content["budgets"] = {**content["budgets"], "max_claims": 1}
    edited = bundle.model_copy(update={"policy": bundle.policy.model_copy(update={"content": content})})
    assert "the bundle was edited" in replay_trace(edited).error


def test_candidate_policy_lists_what_changes(flows, tmp_path: Path):
    store, ids = flows
    path = _export(store, tmp_path)
    candidate = write_policy(governance_policy(max_claims=1), tmp_path / "candidate.json")
    runner = CliRunner()

    result = runner.invoke(main, ["replay", str(path), "--policy", str(candidate), "--json"])

    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["mode"] == "candidate"
    changes = {(d["trace_id"], d["where"], d["gate_id"]) for d in data["differences"]}
    degraded = ids["degraded"]
    assert (degraded, "attempt 1", "budget_enforcer") in changes
    assert (degraded, "status", None) in changes
    assert {t for t, _, _ in changes} == {degraded}  # only the trace with two claims per answer changes
    status = next(d for d in data["differences"] if d["where"] == "status")
    assert (status["recorded"], status["replayed"]) == ("degraded", "refused")

    strict = runner.invoke(main, ["replay", str(path), "--policy", str(candidate), "--strict"])
    assert strict.exit_code == 1 and "budget_enforcer" in strict.output


def test_candidate_that_needs_an_unrecorded_attempt_is_unresolved(flows, tmp_path: Path):
    store, ids = flows
    bundle = store.load_bundle(ids["pass"])
    trace = replay_trace(bundle, governance_policy(max_output_tokens=1))
    assert trace.replayed_status == "unresolved"
    assert any("never recorded" in n for n in trace.notes)


def test_gate_step_through_prints_the_gate_inputs(flows, tmp_path: Path):
    store, ids = flows
    path = _export(store, tmp_path)
    runner = CliRunner()

    result = runner.invoke(main, ["replay", str(path), "--gate", "evidence_binding", "--trace", ids["degraded"]])

    assert result.exit_code == 0, result.output
    out = result.output
    assert out.count("gate evidence_binding") == 3  # one step per recorded attempt
    assert "mode decision:" in out and '"modeLabel": "System"' in out
    assert "pack: E1, E2, E3" in out
    assert "claim c2 FACTUAL ids=[]" in out and "Our database has 99.999% uptime." in out
    assert "recorded: fail [UNCITED_CLAIM]   replayed: fail [UNCITED_CLAIM]" in out
    assert "params=" in out and "planned: runs=True" in out
    unknown = runner.invoke(main, ["replay", str(path), "--gate", "no_such_gate"])
    assert unknown.exit_code == 1 and "is not in policy" in unknown.output


def test_bad_bundle_file_is_one_line_exit_2(tmp_path: Path):
    runner = CliRunner()
    missing = runner.invoke(main, ["replay", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "bundle file not found" in missing.output
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{not json\n", encoding="utf-8")
    bad = runner.invoke(main, ["replay", str(junk)])
    assert bad.exit_code == 2 and "junk.jsonl:1: not JSON" in bad.output and "Traceback" not in bad.output


@pytest.fixture
def critic_trace(tmp_path: Path, gov_policy):
    """A high-rigor answer with many UNKNOWNs: the policy runs G7, here with a local (scripted) critic model."""
    store = TraceStore(tmp_path / "g7.db")
    answer = envelope([
        ("LLCs are pass-through entities [E1].", ["E1"]),
        ("Whether the S-corp election helps is UNKNOWN.", [], "UNKNOWN"),
        ("Whether state franchise tax applies is UNKNOWN.", [], "UNKNOWN"),
    ])
    critic_script = tmp_path / "critic.jsonl"
    critic_script.write_text(json.dumps({"purpose": "critic", "output": []}) + "\n", encoding="utf-8")
    services = GateServices(critic=ModelCritic(ScriptedModel(critic_script)))
    result = run(store, gov_policy, tmp_path, "g7", [answer], "LLC tax implications?",
                 [{"id": "E1", "text": "LLCs are pass-through entities for federal income tax.",
                   "trust_tier": "authoritative"}], services=services)
    gates = {g.gate_id: g for g in result.attempts[0].gate_results}
    assert gates["semantic_critic_sync"].result.value == "pass", gates["semantic_critic_sync"]
    assert result.status.value == "pass"
    return store, result.trace_id


def test_redacted_bundle_replays_and_says_which_gate_could_not_run(critic_trace, tmp_path: Path, gov_policy):
    store, trace_id = critic_trace
    plain = tmp_path / "plain.jsonl"
    export_bundles(store, plain, trace_ids=[trace_id])
    (tmp_path / "critic.jsonl").unlink()  # the critic model is gone: replay feeds back the recorded findings
    unredacted = replay_bundles(read_bundles(plain)).traces[0]
    assert unredacted.reproduced and unredacted.could_not_run == []

    redacted_path = tmp_path / "redacted.jsonl"
    export_bundles(store, redacted_path, trace_ids=[trace_id], redaction=gov_policy.bundle.redaction)
    trace = replay_bundles(read_bundles(redacted_path)).traces[0]

    assert trace.reproduced and trace.replayed_status == "pass"
    assert trace.could_not_run == [{"attempt": 1, "gate_id": "semantic_critic_sync", "reason": "EVIDENCE_TEXT_REDACTED",
                                    "recorded": {"result": "pass", "reason_codes": []}}]
    replayed = {v["gate_id"]: v["replayed"] for v in trace.verdicts["1"]}
    assert replayed["semantic_critic_sync"] == {"result": "fail", "reason_codes": ["EVIDENCE_TEXT_REDACTED"]}
    out = CliRunner().invoke(main, ["replay", str(redacted_path)])
    assert out.exit_code == 0 and "could not run (evidence text redacted)" in out.output


def test_a_recorded_policy_naming_a_gate_not_installed_is_a_per_trace_error(flows, tmp_path: Path):
    store, ids = flows
    bundle = store.load_bundle(ids["pass"])
    content = json.loads(json.dumps(bundle.policy.content))
    content["gates"].append({"gate_id": "not_installed_gate", "when": {"always": True}})
    from controlplane.policy_bundles.loader import parse_bundle

    loaded = parse_bundle(content, source="t")
    foreign = bundle.model_copy(update={"policy": bundle.policy.model_copy(update={"content": content,
                                                                                     "hash": loaded.hash})})
    report = replay_bundles([foreign, store.load_bundle(ids["refused"])])
    assert "not_installed_gate" in report.traces[0].error and not report.traces[0].reproduced
    assert report.traces[1].reproduced  # the other trace still replays


class StaticRetriever:
    """A document store with two fixed passages (implements the Retriever protocol; no model, no index)."""

    name = "static"

    def retrieve(self, query: str, k: int):
        from controlplane.contracts import EvidenceItem
        from controlplane.traces.redaction import content_hash

        texts = ["ADR-011: the server owns the client/server boundary; clients never call the model directly.",
                 "ADR-011 was accepted in March. Questions go to arch-team@example.org."]
        return [EvidenceItem(id=f"R{i}", type="RETRIEVAL_SNIPPET", text=t, hash=content_hash(t), retrieval_score=0.9 - i / 10)
                for i, t in enumerate(texts[:k])]


def test_a_retrieval_flow_replays_from_the_recorded_retrieval(tmp_path: Path, gov_policy):
    store = TraceStore(tmp_path / "r.db")
    answer = envelope([("The server owns the client/server boundary [E1].", ["E1"])])
    result = run(store, gov_policy, tmp_path, "retrieval", [answer],
                 "What does ADR-011 say about client/server boundary?", services=GateServices(retriever=StaticRetriever()))
    assert [g.result.value for g in result.pre_generation] == ["pass"]  # after the retrieval it asked for
    bundle = store.load_bundle(result.trace_id)
    assert bundle.retrieved_evidence_pack is not None and result.status.value == "pass"
    for redaction in (None, gov_policy.bundle.redaction):
        path = tmp_path / f"r-{redaction is None}.jsonl"
        export_bundles(store, path, trace_ids=[result.trace_id], redaction=redaction)
        assert ("arch-team@example.org" in path.read_text()) is (redaction is None)
        trace = replay_bundles(read_bundles(path)).traces[0]
        assert trace.reproduced, [d.line() for d in trace.differences]
        assert [(v["recorded"], v["replayed"]) for v in trace.verdicts["pre"]] == [
            ({"result": "fail", "reason_codes": ["RETRIEVAL_REQUIRED", "RETRIEVAL_PERFORMED"]},) * 2,
            ({"result": "pass", "reason_codes": []},) * 2,
        ]
        assert read_bundles(path)[0].retrieved_evidence_pack.ids() == ["E1", "E2"]


def test_replay_reproduces_the_display_check_and_the_evidence_driven_decision(tmp_path: Path, gov_policy):
    """G-1 at the last step: a bundle without claim_anchors lets an uncovered sentence through the gates, the
    pipeline's display check degrades it, and replay (no model) reaches the same status; a writing request with
    evidence is routed as checked work, and replay rebuilds that decision from the recorded pack."""
    from controlplane.policy_bundles.loader import parse_bundle

    data = gov_policy.bundle.model_dump(mode="json", exclude_none=True)
    data["gates"] = [g for g in data["gates"] if g["gate_id"] in ("output_schema", "mode_echo_match",
                                                                  "evidence_binding", "citation_integrity")]
    lax = parse_bundle(data, source="test:no-anchors")
    store = TraceStore(tmp_path / "display.db")
    uncovered = envelope([("We host on Fly.io [E1].", ["E1"])])
    uncovered["assistant_text"] += " Our CEO founded the company in 1999."
    uncovered["meta"]["modeLabel"] = "Ida"  # the router's mode once the writing flag is dropped
    result = run(store, lax, tmp_path, "display", [uncovered], "Summarize this for me",
                 [{"id": "E1", "text": "We host on Fly.io."}])
    assert result.status is TraceStatus.DEGRADED and "CEO" not in result.assistant_text
    assert "override:writing_exemption_dropped_for_evidence" in result.mode_decision.reasons
    replayed = replay_trace(store.load_bundle(result.trace_id))
    assert replayed.replayed_status == "degraded" and replayed.reproduced, [d.line() for d in replayed.differences]
    store.close()


def test_a_redacted_bundle_of_an_unedited_trace_reproduces_the_gates_after_one_that_could_not_run(write_script,
                                                                                                   tmp_path: Path):
    """Found by QA: `trace export` (redacted by default) then `replay` said DIFFERS and exited 1 for an unedited
    trace: nli_entailment could not run on the redacted evidence, and evidence_graph, reading its verdict, went from
    recorded fail [CLAIM_NOT_GROUNDED] to pass. The gates after one that could not run now see its recorded verdict."""
    from controlplane.api import ControlPlane
    from controlplane.policy_bundles.loader import load_bundle
    from tests.conftest import build_envelope

    policy = load_bundle()
    glued = "We host on Fly.io [E1] [Note: also Zanzibar]."
    script = write_script([build_envelope([(glued, ["E1"])])] * 3)
    store = TraceStore(tmp_path / "t.db")
    evidence = [{"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite).", "trust_tier": "authoritative"}]
    with ControlPlane(model=script, policy=policy, db=store, critic=False) as plane:  # the shipped verifier
        reply = plane.respond("Where do we host?", evidence=evidence)
    recorded = {g.gate_id: g.result for g in reply.gate_results if g.attempt == 1}
    assert recorded["nli_entailment"] == "fail" and recorded["evidence_graph"] == "fail"

    path = tmp_path / "redacted.jsonl"
    export_bundles(store, path, trace_ids=[reply.trace_id], redaction=policy.bundle.redaction)
    trace = replay_bundles(read_bundles(path)).traces[0]
    assert {c["gate_id"] for c in trace.could_not_run} == {"nli_entailment"}
    assert trace.reproduced, [d.line() for d in trace.differences]


@pytest.mark.models
def test_a_swap_refused_by_the_term_similarity_replays_the_same(write_script, tmp_path: Path):
    """The near-copy rule asks the plane's term similarity (MiniLM) whether a swapped-in word could mean the one it
    replaces; a replay must ask the same service, or its nli_entailment verdict would differ."""
    from controlplane.api import ControlPlane
    from tests.conftest import build_envelope

    evidence = [{"id": "E1", "trust_tier": "authoritative",
                 "text": "The Normans gave their name to Normandy, a region in France."}]
    question = "What did the Normans give their name to?"
    with ControlPlane(db=False, critic=False) as router:
        decision = router.pipeline.decide(question, pack=router.pipeline.build_pack(evidence))
    claim = "The Normans gave their name to Normandy, a complexity in France [E1]."
    script = write_script([build_envelope([(claim, ["E1"])], mode=decision.modeLabel,
                                          domain_flags=list(decision.domainFlags))] * 3)
    store = TraceStore(tmp_path / "t.db")
    with ControlPlane(model=script, db=store, critic=False) as plane:
        reply = plane.respond(question, evidence=evidence)
    nli = next(g for g in reply.gate_results if g.gate_id == "nli_entailment" and g.attempt == 1)
    assert nli.result == "fail" and not reply.verified
    replayed = replay_trace(store.load_bundle(reply.trace_id))
    assert replayed.reproduced, [d.line() for d in replayed.differences]
    store.close()
