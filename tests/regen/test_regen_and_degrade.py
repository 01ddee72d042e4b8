"""Regen deltas come from reason codes and details only; degrade suppresses or refuses and says what is needed."""

from __future__ import annotations

from controlplane.contracts import CostClass, GateResult, ReasonCode, TraceStatus
from controlplane.evidence_pack import build_pack
from controlplane.pipeline import Pipeline
from controlplane.regen import build_delta, is_regenerable
from controlplane.router import route


def fail(gate_id, codes, **details):
    return GateResult.failing(gate_id, "v1", CostClass.CHEAP, codes, details=details)


def test_delta_names_exactly_what_to_fix(default_policy):
    pack = build_pack([{"id": "E1", "text": "a"}, {"id": "E2", "text": "b"}])
    decision = route("What's our hosting architecture?", default_policy.bundle)
    results = [
        fail("evidence_binding", [ReasonCode.UNCITED_CLAIM, ReasonCode.UNKNOWN_EVIDENCE_ID],
             claims={"c2": ["UNCITED_CLAIM"], "c3": ["UNKNOWN_EVIDENCE_ID"]}, unknown_evidence_ids=["E9"]),
        fail("claim_anchors", [ReasonCode.SENTENCE_UNCOVERED], claims={}, uncovered_sentences=["Postgres too."]),
        fail("mode_echo_match", [ReasonCode.MODE_MISMATCH], expected="System", got="Ida"),
        GateResult.passing("budget_enforcer", "v1", CostClass.CHEAP),
    ]
    delta = build_delta(2, results, pack, decision, max_claims=10, max_output_tokens=100)
    assert delta.failing_gate_ids == ["evidence_binding", "claim_anchors", "mode_echo_match"]
    assert delta.claim_ids == ["c2", "c3"]
    assert delta.unknown_evidence_ids == ["E9"]
    assert delta.uncovered_sentences == ["Postgres too."]
    assert delta.allowed_evidence_ids == ["E1", "E2"]
    text = "\n".join(delta.instructions)
    assert "Claims c2 state facts without evidence ids: cite one of E1, E2" in text
    assert "Evidence ids E9 do not exist; cite only E1, E2." in text
    assert '"Postgres too."' in text and 'Set meta.modeLabel to "System".' in text


def test_delta_ignores_message_strings(default_policy):
    """Two results with the same codes and details but different free text give the same delta."""
    pack = build_pack([{"id": "E1", "text": "a"}])
    decision = route("x", default_policy.bundle)
    a = fail("output_schema", [ReasonCode.SCHEMA_VIOLATION], problems=[{"path": "$.meta", "message": "one wording"}])
    b = fail("output_schema", [ReasonCode.SCHEMA_VIOLATION], problems=[{"path": "$.meta", "message": "other wording"}])
    assert build_delta(2, [a], pack, decision, 10, 100) == build_delta(2, [b], pack, decision, 10, 100)


def test_not_regenerable_failures():
    assert not is_regenerable([fail("budget_enforcer", [ReasonCode.WALL_TIME_EXCEEDED])])
    assert not is_regenerable([fail("x", [ReasonCode.GATE_NOT_FOUND])])
    assert is_regenerable([fail("output_schema", [ReasonCode.INVALID_JSON])])


def test_regen_is_capped_by_the_bundle(write_script, store, default_policy):
    plane = Pipeline(model=write_script(["prose"] * 10), policy=default_policy, store=store)
    result = plane.run("Where is our hosting architecture?", evidence=[{"text": "We host on Fly.io."}])
    assert len(result.attempts) == 1 + default_policy.bundle.budgets.max_regen_attempts
    assert result.status is TraceStatus.REFUSED  # nothing checkable: refuse even under suppress
    assert "could not be checked" in result.assistant_text


def test_the_regen_prompt_is_rebuilt_not_appended(write_script, store, default_policy, make_envelope):
    seen = []

    class Recording:
        def __init__(self, inner):
            self.inner = inner

        def generate(self, query, context, params):
            seen.append(context)
            return self.inner.generate(query, context, params)

        def is_ready(self):
            return True

        def metadata(self):
            return self.inner.metadata()

    good = make_envelope([("We host on Fly.io [E1].", ["E1"])])
    plane = Pipeline(model=Recording(write_script(["first answer is prose", good])), policy=default_policy, store=store)
    plane.run("Where is our hosting architecture?", evidence=[{"id": "E1", "text": "We host on Fly.io."}])
    first, second = seen
    assert len(first.messages) == len(second.messages)
    assert first.messages[:-1] == second.messages[:-1]  # same system prompt and examples: nothing appended
    assert all("first answer is prose" not in m.content for m in second.messages)
    assert second.messages[-1].content.startswith(first.messages[-1].content)
    assert "YOUR PREVIOUS ANSWER WAS REJECTED" in second.messages[-1].content
    assert second.attempt == 2


def test_suppress_removes_failing_sentences_and_says_why(write_script, store, default_policy, make_envelope):
    mixed = make_envelope([("We host on Fly.io [E1].", ["E1"]), ("We use Postgres [E9].", ["E9"])])
    plane = Pipeline(model=write_script([mixed] * 3), policy=default_policy, store=store)
    result = plane.run("Where is our hosting architecture?", evidence=[{"id": "E1", "text": "We host on Fly.io."}])
    assert result.status is TraceStatus.DEGRADED and not result.verified
    assert result.assistant_text.startswith("We host on Fly.io [E1].")
    assert "A statement was removed because it cites evidence that does not exist" in result.assistant_text
    assert "evidence that states it (E9 does not)" in result.assistant_text
    assert "Postgres" not in result.assistant_text  # the notice never restates the removed, unverified sentence
    assert result.degrade["removed_sentences"][0]["text"] == "We use Postgres [E9]."
    assert result.degrade["mode"] == "suppress"
    assert [c.verdict for c in result.claims] == ["PASS", "FAIL"]


def test_refuse_in_high_rigor_names_the_claims_and_the_evidence_needed(write_script, store, default_policy, make_envelope):
    bad = make_envelope([("LLC members owe self-employment tax on all profits.", [])])
    plane = Pipeline(model=write_script([bad] * 3), policy=default_policy, store=store)
    result = plane.run("LLC tax implications?", evidence=[{"id": "E1", "text": "LLCs are pass-through entities."}])
    assert result.status is TraceStatus.REFUSED
    assert "self-employment" not in result.assistant_text
    assert "it states a fact without citing evidence" in result.assistant_text
    assert result.degrade["claims"][0]["claim_id"] == "c1"


def test_delta_for_a_miscategorised_claim(default_policy):
    pack = build_pack([{"id": "E1", "text": "a"}])
    decision = route("LLC tax?", default_policy.bundle)
    result = fail("claim_categories", [ReasonCode.CLAIM_CATEGORY_MISMATCH], claims={"c4": ["CLAIM_CATEGORY_MISMATCH"]})
    delta = build_delta(2, [result], pack, decision, 10, 100)
    assert delta.claim_ids == ["c4"] and "labelled SUBJECTIVE, TRIVIAL or UNKNOWN" in delta.instructions[0]


def test_the_refusal_says_why_a_critic_finding_or_a_missing_critic_stopped_a_statement():
    """Seen through `ask`: "A statement was not shown because critic finding." and "The answer could not be checked
    (CRITIC_UNAVAILABLE)." name a code, not a reason."""
    from controlplane.degrade import WHY

    assert WHY["CRITIC_FINDING"].startswith("a reviewing critic model")
    assert "critic" in WHY["CRITIC_UNAVAILABLE"] and "CRITIC" not in WHY["CRITIC_UNAVAILABLE"]


def test_a_refusal_for_a_global_code_gives_the_code_and_its_reason(default_policy):
    from controlplane.degrade import refuse

    decision = route("Is this contract clause enforceable?", default_policy.bundle)
    text = refuse(decision, [], [ReasonCode.CRITIC_UNAVAILABLE, ReasonCode.TRUNCATED_OUTPUT],
                  build_pack([]), 2).assistant_text
    assert ("The answer could not be checked (CRITIC_UNAVAILABLE, TRUNCATED_OUTPUT): this question needs a review "
            "by a critic model, and none could review it.") in text
    assert "No evidence was provided or found for this question" in text
