"""ControlPlane.respond: the typed Response, regen and degrade, errors, verify, traces — through the real pipeline
with the scripted model adapter."""

from __future__ import annotations

import pytest

from controlplane import ClaimResult, ConfigurationError, ControlPlane, InputError, Response
from controlplane.pytest_plugin import GateHarness

EVIDENCE = [
    {"id": "E1", "title": "Stack", "text": "We host on Fly.io. DB is Turso (SQLite).", "trust_tier": "authoritative"},
    {"id": "E2", "title": "Regions", "text": "The primary Fly.io region is ams (Amsterdam)."},
]
QUESTION = "What is our hosting architecture?"
envelope = GateHarness.envelope


def good_answer() -> dict:
    return envelope(
        "We host on Fly.io [E1]. The primary region is ams [E2].",
        claims=[("We host on Fly.io [E1].", ["E1"]), ("The primary region is ams [E2].", ["E2"])],
        domain_flags=["architecture"],
    )


def bad_citation() -> dict:
    return envelope(
        "We host on Fly.io [E1]. The database runs in Tokyo [E9].",
        claims=[("We host on Fly.io [E1].", ["E1"]), ("The database runs in Tokyo [E9].", ["E9"])],
        domain_flags=["architecture"],
    )


def test_respond_returns_a_typed_response_whose_spans_index_the_answer(control_plane, core_policy, trace_store):
    plane = control_plane([good_answer()], policy=core_policy)
    reply = plane.respond(QUESTION, evidence=EVIDENCE)

    assert isinstance(reply, Response)
    assert (reply.status, reply.verified, reply.attempts, reply.mode) == ("pass", True, 1, "System")
    assert reply.assistant_text == "We host on Fly.io [E1]. The primary region is ams [E2]."
    assert reply.evidence_ids == ("E1", "E2")
    assert [c.claim_id for c in reply.claims] == ["c1", "c2"]
    for claim in reply.claims:
        assert isinstance(claim, ClaimResult) and claim.verdict == "PASS"
        start, end = claim.span
        assert reply.assistant_text[start:end] == claim.text
    assert reply.claims[1].evidence_ids == ("E2",)
    # gate results: the pre-generation gate, then every post-generation gate of attempt 1, all passing
    assert reply.gate_results[0].stage == "pre_generation" and reply.gate_results[0].attempt is None
    attempt1 = reply.gates_for(1)
    assert {g.gate_id for g in attempt1} >= {"output_schema", "evidence_binding", "citation_integrity", "claim_anchors"}
    assert not reply.failing_gates
    assert reply.usage.completion_tokens > 0
    # the trace is stored under the same id and says the same thing
    bundle = trace_store.load_bundle(reply.trace_id)
    assert bundle.outcome.assistant_text == reply.assistant_text
    assert [e.seq for e in bundle.events] == list(range(len(bundle.events)))
    data = reply.as_json()
    assert data["claims"][0]["span"] == [0, 23] and data["status"] == "pass"


def test_a_failing_first_attempt_is_regenerated_and_the_failure_is_reported(control_plane, core_policy):
    plane = control_plane([bad_citation(), good_answer()], policy=core_policy)
    reply = plane.respond(QUESTION, evidence=EVIDENCE)

    assert (reply.status, reply.attempts, reply.verified) == ("regen_pass", 2, True)
    failed_first = {g.gate_id for g in reply.gates_for(1) if g.failed}
    assert "evidence_binding" in failed_first
    binding = next(g for g in reply.gates_for(1) if g.gate_id == "evidence_binding")
    assert "UNKNOWN_EVIDENCE_ID" in binding.reason_codes
    assert not any(g.failed for g in reply.gates_for(2))


def test_a_degraded_answer_shows_only_passing_claims_and_their_spans_move_with_the_text(control_plane, core_policy):
    plane = control_plane([bad_citation()] * 3, policy=core_policy)
    reply = plane.respond(QUESTION, evidence=EVIDENCE)

    assert (reply.status, reply.verified, reply.attempts) == ("degraded", False, 3)
    assert set(reply.failing_gates) >= {"evidence_binding"}
    shown, hidden = reply.claims
    assert shown.passed and shown.span is not None
    assert reply.assistant_text[shown.span[0]:shown.span[1]] == shown.text
    assert not hidden.passed and hidden.span is None and "UNKNOWN_EVIDENCE_ID" in hidden.reason_codes
    start, end = hidden.source_span
    assert reply.checked_text[start:end] == hidden.text
    assert reply.assistant_text.startswith("We host on Fly.io [E1].\n\n[Not verified")


def test_prose_from_the_model_is_refused_not_crashed(control_plane, core_policy):
    plane = control_plane(["Sure! We host on Fly.io."] * 3, policy=core_policy)
    reply = plane.respond(QUESTION, evidence=EVIDENCE)
    assert reply.status == "refused" and not reply.verified and reply.claims == ()
    assert "output_schema" in reply.failing_gates
    assert "Sure! We host" not in reply.assistant_text


@pytest.mark.parametrize(
    ("messages", "evidence", "fragment"),
    [
        ([], None, "messages must be a non-empty list"),
        ([{"role": "robot", "content": "hi"}], None, "messages[0].role"),
        ([{"role": "user", "content": 42}], None, "messages[0].content"),
        ([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], None, "last message"),
        ({"role": "user", "content": "hi"}, None, "not one object"),
        (QUESTION, [{"title": "no text"}], "evidence[0]: 'text'"),
        (QUESTION, [{"text": "x", "colour": "red"}], "evidence[0]: unknown field"),
        # found by QA: these were TypeError/AttributeError, or blamed evidence[0] for a dict's key
        (QUESTION, 5, "'evidence' must be a list"),
        (QUESTION, {"text": "We host on Fly.io."}, "'evidence' must be a list"),
        (QUESTION, [{"text": "x", "provenance": 5}], "evidence[0].provenance"),
        (QUESTION, [{"text": "x", "qualifiers": "adults"}], "evidence[0].qualifiers"),
    ],
)
def test_bad_input_raises_input_error_naming_the_field(control_plane, core_policy, trace_store, messages, evidence,
                                                       fragment):
    plane = control_plane([good_answer()], policy=core_policy)
    with pytest.raises(InputError) as caught:
        plane.respond(messages, evidence=evidence)
    assert fragment in str(caught.value)
    assert trace_store.list_traces() == []  # nothing half-written for a rejected request


def test_caller_messages_and_evidence_are_not_mutated(control_plane, core_policy):
    plane = control_plane([good_answer()], policy=core_policy)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "  " + QUESTION}]
    evidence = [dict(item) for item in EVIDENCE]
    snapshot = (repr(messages), repr(evidence))
    plane.respond(messages, evidence=evidence)
    assert (repr(messages), repr(evidence)) == snapshot


def test_verify_checks_one_envelope_without_a_model_call_and_stores_nothing(control_plane, core_policy, trace_store):
    plane = control_plane([good_answer()], policy=core_policy)
    assert plane.verify(good_answer(), evidence=EVIDENCE, message=QUESTION).status == "pass"
    failing = plane.verify(bad_citation(), evidence=EVIDENCE, message=QUESTION)
    assert failing.status == "fail"
    assert {c["claim_id"]: c["verdict"] for c in failing.as_json()["claims"]} == {"c1": "PASS", "c2": "FAIL"}
    assert trace_store.list_traces() == []


def test_traces_and_trace_mirror_the_cli(control_plane, core_policy):
    plane = control_plane([good_answer()], policy=core_policy)
    first = plane.respond(QUESTION, evidence=EVIDENCE)
    second = plane.respond(QUESTION, evidence=EVIDENCE)
    listed = [row["trace_id"] for row in plane.traces()]
    assert set(listed) == {first.trace_id, second.trace_id}
    assert plane.trace(first.trace_id).trace_id == first.trace_id


def test_db_false_stores_nothing_but_still_answers(scripted_model, core_policy):
    with ControlPlane(model=scripted_model([good_answer()]), policy=core_policy, db=False) as plane:
        reply = plane.respond(QUESTION, evidence=EVIDENCE)
        assert reply.status == "pass" and reply.trace_id.startswith("tr_")
        with pytest.raises(ConfigurationError, match="stores no traces"):
            plane.traces()


def test_configuration_errors_name_the_setting(tmp_path, scripted_model):
    with pytest.raises(ConfigurationError, match="unknown model spec"):
        ControlPlane(model="nosuch:thing", db=False)
    with pytest.raises(ConfigurationError, match="scripted model file not found"):
        ControlPlane(model=f"scripted:{tmp_path / 'missing.jsonl'}", db=False)
    with pytest.raises(ConfigurationError, match="policy bundle not found"):
        ControlPlane(model=scripted_model([good_answer()]), policy=tmp_path / "nope.json", db=False)
    with pytest.raises(ConfigurationError, match="IntelligenceModule"):
        ControlPlane(model=object(), db=False)


def test_a_closed_plane_refuses_requests(scripted_model, core_policy):
    plane = ControlPlane(model=scripted_model([good_answer()]), policy=core_policy, db=False)
    plane.close()
    with pytest.raises(ConfigurationError, match="closed"):
        plane.respond(QUESTION, evidence=EVIDENCE)


@pytest.mark.parametrize(("facts", "rules", "fragment"), [
    ("x", None, "'facts' must be a list"),
    (None, 5, "'rules' must be an object"),
    (None, {"bogus": 1}, "rules.bogus"),
])
def test_malformed_facts_or_rules_raise_input_error(control_plane, core_policy, facts, rules, fragment):
    plane = control_plane([good_answer()], policy=core_policy)
    with pytest.raises(InputError) as caught:
        plane.respond(QUESTION, evidence=[{"text": "We host on Fly.io."}], facts=facts, rules=rules)
    assert fragment in str(caught.value)


def test_a_setting_or_trace_id_of_the_wrong_type_is_named(scripted_model, core_policy, control_plane):
    """Found by QA: ControlPlane(retrieval_k="5") raised TypeError and respond(trace_id=5) a pydantic
    ValidationError; each is a clear ConfigurationError / InputError naming the argument."""
    with pytest.raises(ConfigurationError, match="retrieval_k must be an integer"):
        ControlPlane(model=scripted_model([good_answer()]), policy=core_policy, db=False, retrieval_k="5")
    with pytest.raises(ConfigurationError, match="max_model_concurrency must be an integer"):
        ControlPlane(model=scripted_model([good_answer()]), policy=core_policy, db=False, max_model_concurrency=1.5)
    plane = control_plane([good_answer()], policy=core_policy)
    with pytest.raises(InputError, match="trace_id must be a non-empty string"):
        plane.respond(QUESTION, evidence=[{"text": "We host on Fly.io."}], trace_id=5)


def test_a_model_that_never_answers_is_named_in_the_refusal(control_plane, core_policy):
    """Found by QA: with --model openai:http://127.0.0.1:1/v1#m (nothing listening) the reply only said 'The answer
    could not be checked (EMPTY_OUTPUT, ...)', as if the model had answered with nothing. When every model call
    failed, the refusal says so (without quoting the error, which may hold a server's text: the trace has it)."""
    plane = control_plane([{"output": "{}", "purpose": "selector"}], policy=core_policy)  # no main output at all
    reply = plane.respond(QUESTION, evidence=[{"text": "We host on Fly.io."}])
    assert reply.status == "refused"
    assert "The model did not answer on any attempt" in reply.assistant_text
    answered = control_plane(["not json"] * 3, policy=core_policy).respond(QUESTION,
                                                                           evidence=[{"text": "We host on Fly.io."}])
    assert answered.status == "refused" and "did not answer" not in answered.assistant_text
