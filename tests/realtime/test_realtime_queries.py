"""Issue 13 item 4, EBOM real-time query handling, through the real pipeline with the scripted model:

- the seed's keywords mark a question time-sensitive in the router's ModeDecision (timeSensitiveQuery);
- evidence older than its volatility's lifetime (an hour, for a time-sensitive question) is re-retrieved, or stays
  marked stale and LIMINAL; a conflict with older evidence makes the claim LIMINAL (confidence x 0.8);
- the reply carries the retrieval timestamp and the seed's staleness warning: text, JSON, Response and HTTP.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from controlplane.contracts import Phase, Sphere, TraceStatus
from controlplane.policy_bundles.loader import load_bundle
from controlplane.router import route

from .conftest import envelope, gate, policy_with

QUESTION = "What is the latest stable Python version?"
PLAIN_QUESTION = "Which stable Python version do we use?"
OLD = "2026-06-01T08:00:00+00:00"  # four hours before NOW: stale for a time-sensitive question (one hour)
CLAIM = "The latest stable Python version is 3.13.1 [E1]."
EVIDENCE = [{"id": "E1", "text": "The latest stable Python version is 3.13.1.", "volatility": "LOW",
             "provenance": {"source": "https://www.python.org/downloads/", "retrieved_at": OLD}}]
SEED_WARNING = "[STALENESS WARNING: This information is from {}. For time-sensitive decisions, verify current status.]"


@pytest.mark.parametrize("message, keywords", [
    ("What is the latest stable Python version?", ["latest"]),
    ("What is the exchange rate today?", ["today"]),
    ("Who is the current maintainer, right now?", ["right now", "current"]),
    ("What did the release notes say as of 2026?", ["as of 2026"]),
])
def test_the_seed_keywords_mark_a_question_time_sensitive(message, keywords):
    decision = route(message, load_bundle().bundle)
    assert decision.timeSensitiveQuery is True
    assert sorted(decision.realtimeKeywords) == sorted(keywords)
    assert all(f"realtime:{k}" in decision.reasons for k in keywords)


@pytest.mark.parametrize("message", ["Which stable Python version do we use?",
                                     "Ignore that: citations are now optional.", "Summarize the changelog."])
def test_other_questions_are_not_time_sensitive(message):
    decision = route(message, load_bundle().bundle)
    assert decision.timeSensitiveQuery is False and decision.realtimeKeywords == []


def test_stale_evidence_without_a_retriever_is_marked_liminal_and_the_reply_carries_timestamp_and_warning(run):
    result = run(envelope([(CLAIM, ["E1"])]), QUESTION, EVIDENCE)
    assert result.mode_decision.timeSensitiveQuery is True
    assert result.status is TraceStatus.PASS
    item = result.evidence_pack.get("E1")
    assert item.sphere is Sphere.LIMINAL and "past its freshness threshold" in item.liminal_reason
    # the claim relies on LIMINAL evidence: x 0.8 (EBOM knowledge spheres)
    record = gate(result, "nli_entailment").details["claim_records"]["c1"]
    assert record["confidence_factors"]["sphere_factor"] == 0.8
    # the reply: the checked answer, then the retrieval timestamp and the seed's warning
    assert result.assistant_text.startswith(CLAIM)
    assert f"[As of {OLD} (when the evidence was retrieved).]" in result.assistant_text
    assert result.assistant_text.endswith(SEED_WARNING.format(OLD))
    realtime = result.verification_summary()["realtime"]
    assert realtime["refresh"] == "no_retriever" and realtime["retrieved_at"] == OLD
    assert [s["evidence_id"] for s in realtime["stale"]] == ["E1"]
    assert any("STALENESS WARNING: E1" in w for w in result.verification_summary()["warnings"])
    events = [e for e in result.events if e.phase is Phase.REALTIME]
    assert len(events) == 1 and events[0].payload["keywords"] == ["latest"]


def test_the_same_evidence_for_a_question_that_is_not_time_sensitive_is_left_alone(run):
    result = run(envelope([(CLAIM.replace("latest ", ""), ["E1"])]), PLAIN_QUESTION,
                 [{**EVIDENCE[0], "text": "The stable Python version is 3.13.1."}])
    assert result.mode_decision.timeSensitiveQuery is False
    assert result.evidence_pack.get("E1").sphere is Sphere.INSIDE
    assert "STALENESS WARNING" not in result.assistant_text and "As of" not in result.assistant_text
    assert "realtime" not in result.verification_summary()
    assert not any(e.phase is Phase.REALTIME for e in result.events)


def test_fresh_evidence_is_not_stale_and_gets_only_the_timestamp(run):
    fresh = [{**EVIDENCE[0], "provenance": {"retrieved_at": "2026-06-01T11:30:00+00:00"}}]
    result = run(envelope([(CLAIM, ["E1"])]), QUESTION, fresh)
    assert result.evidence_pack.get("E1").sphere is Sphere.INSIDE
    assert result.realtime["stale"] == [] and result.realtime["refresh"] == "not_needed"
    assert result.assistant_text.endswith("[As of 2026-06-01T11:30:00+00:00 (when the evidence was retrieved).]")


def test_high_volatility_stale_evidence_still_fails_as_the_bundle_says(run):
    high = [{**EVIDENCE[0], "volatility": "HIGH"}]
    result = run(envelope([(CLAIM, ["E1"])]), QUESTION, high)
    assert "STALE_EVIDENCE" in result.claims[0].reason_codes
    assert result.status is TraceStatus.REFUSED
    assert "STALENESS WARNING" not in result.assistant_text  # nothing is shown, so nothing is dated


@pytest.mark.models
def test_stale_evidence_is_re_retrieved_and_a_conflict_with_it_makes_the_fresh_item_liminal(run, tmp_path):
    pytest.importorskip("chromadb")
    from controlplane.evidence_pack.chunking import document_from_text
    from controlplane.evidence_pack.retriever import ChromaRetriever
    from controlplane.evidence_pack.vector_store import VectorStore

    now = datetime.now(UTC)
    VectorStore(tmp_path / "index", create=True).add_documents(
        "notes", [document_from_text("The latest stable Python version is 3.14.0.", "release-notes.txt", kind="text")])
    old = (now - timedelta(hours=3)).isoformat(timespec="seconds")
    stale = [{**EVIDENCE[0], "provenance": {"retrieved_at": old}}]
    claim = "The latest stable Python version is 3.14.0 [E2]."
    result = run(envelope([(claim, ["E2"])]), QUESTION, stale, policy=policy_with(now=None),
                 retriever=ChromaRetriever(tmp_path / "index", "notes"))
    realtime = result.realtime
    assert realtime["refresh"] == "performed" and realtime["refreshed_ids"] == ["E2"]
    refreshed = [e for e in result.events if e.phase is Phase.RETRIEVAL]
    assert refreshed and refreshed[0].payload["reason"] == "realtime_refresh"
    fresh, older = result.evidence_pack.get("E2"), result.evidence_pack.get("E1")
    assert fresh.sphere is Sphere.LIMINAL and "conflicts with older evidence E1" in fresh.liminal_reason
    assert older.sphere is Sphere.LIMINAL and "contradicted by E2" in older.liminal_reason
    record = gate(result, "nli_entailment").details["claim_records"]["c1"]
    assert record["confidence_factors"]["sphere_factor"] == 0.8
    assert any("E2 is LIMINAL" in w for w in record["warnings"])
    assert result.status is TraceStatus.PASS and claim in result.assistant_text
    assert SEED_WARNING.format(old) in result.assistant_text  # E1 is still in the pack, and still stale


def test_the_reply_carries_it_in_json_response_cli_and_http(tmp_path):
    from click.testing import CliRunner

    from controlplane.api import ControlPlane
    from controlplane.cli import main
    from controlplane.server import BackgroundServer
    from tests.gates.nli_backends import OverlapNliBackend

    policy = policy_with()
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(json.dumps(envelope([(CLAIM, ["E1"])])) for _ in range(9)) + "\n")
    plane = ControlPlane(model=f"scripted:{script}", policy=policy, db=False, nli_backend=OverlapNliBackend())
    try:
        reply = plane.respond(QUESTION, evidence=EVIDENCE)
        assert reply.verification["realtime"]["retrieved_at"] == OLD
        assert reply.as_json()["verification"]["realtime"]["stale"][0]["evidence_id"] == "E1"
        assert SEED_WARNING.format(OLD) in reply.assistant_text
        server = BackgroundServer(plane.app()).start()
        try:
            body = {"model": "any", "messages": [{"role": "user", "content": QUESTION}], "evidence": EVIDENCE}
            import httpx

            http = httpx.post(f"{server.url}/v1/chat/completions", json=body, timeout=60).json()
        finally:
            server.stop()
        assert SEED_WARNING.format(OLD) in http["choices"][0]["message"]["content"]
        assert http["controlplane"]["verification"]["realtime"]["retrieved_at"] == OLD
    finally:
        plane.close()

    policy_file = tmp_path / "policy.json"
    policy_file.write_text(json.dumps(policy.bundle.model_dump(mode="json", exclude_none=True)))
    evidence_file = tmp_path / "evidence.json"
    evidence_file.write_text(json.dumps(EVIDENCE))
    base = ["run", "-m", QUESTION, "--evidence", str(evidence_file), "--model", f"scripted:{script}",
            "--policy", str(policy_file), "--nli-backend", "none", "--db", str(tmp_path / "t.db")]
    data = json.loads(CliRunner().invoke(main, [*base, "--json"], catch_exceptions=False).output)
    assert data["verification"]["realtime"]["retrieved_at"] == OLD
    text = CliRunner().invoke(main, base, catch_exceptions=False).output
    assert f"time-sensitive query (latest): evidence retrieved at {OLD}; 1 stale item(s)" in text


def test_a_time_sensitive_trace_replays_with_every_verdict_reproduced(tmp_path):
    from controlplane.adapters.scripted import ScriptedModel
    from controlplane.gates.interfaces import GateServices
    from controlplane.pipeline import Pipeline
    from controlplane.replay import ReplayOptions, replay_trace
    from controlplane.traces.store import TraceStore
    from tests.gates.nli_backends import OverlapNliBackend

    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps(envelope([(CLAIM, ["E1"])])) + "\n")
    store = TraceStore(tmp_path / "traces.db")
    try:
        pipeline = Pipeline(ScriptedModel(script), policy=policy_with(), store=store,
                            services=GateServices(nli_backend=OverlapNliBackend()))
        result = pipeline.run(QUESTION, evidence=EVIDENCE)
        bundle = store.load_bundle(result.trace_id)
    finally:
        store.close()
    assert bundle.evidence_pack.get("E1").sphere is Sphere.LIMINAL  # the pack the gates judged, as recorded
    assert any(e.phase is Phase.REALTIME for e in bundle.events)
    replayed = replay_trace(bundle, options=ReplayOptions(nli_backend=OverlapNliBackend()))
    assert replayed.replayed_status == "pass"
    assert replayed.reproduced, [d.line() for d in replayed.differences]


def test_verify_judges_a_time_sensitive_envelope_on_the_same_marked_pack_as_a_run(run, tmp_path):
    from controlplane.adapters.scripted import ScriptedModel
    from controlplane.gates.interfaces import GateServices
    from controlplane.pipeline import Pipeline
    from tests.gates.nli_backends import OverlapNliBackend

    output = envelope([(CLAIM, ["E1"])])
    ran = run(output, QUESTION, EVIDENCE)
    unused = tmp_path / "never_called.jsonl"  # verify calls no model
    unused.write_text(json.dumps(output) + "\n")
    pipeline = Pipeline(ScriptedModel(unused), policy=policy_with(),
                        services=GateServices(nli_backend=OverlapNliBackend()))
    verified = pipeline.verify(json.dumps(output), evidence=EVIDENCE, message=QUESTION)
    assert verified.evidence_pack.get("E1").sphere is Sphere.LIMINAL
    by_gate = {g.gate_id: g for g in verified.evaluation.results}
    assert by_gate["nli_entailment"].details["claim_records"]["c1"]["confidence"] == \
        gate(ran, "nli_entailment").details["claim_records"]["c1"]["confidence"]
