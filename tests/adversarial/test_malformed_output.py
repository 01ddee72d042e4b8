"""Model output that is not a valid envelope: every case is a gate failure with an exact reason code, never a crash.

High-stakes question (medical, rigor high), so nothing here may pass.
"""

from __future__ import annotations

import json

import pytest

ENVELOPE_GATES = ("mode_echo_match", "evidence_binding", "citation_integrity", "claim_anchors")


def good(kit) -> dict:
    return kit.envelope([(kit.DOSE[:-1] + " [E1].", ["E1"])])


def assert_parse_failure(kit, result, code: str, budget: tuple = ("pass", [])) -> None:
    gates = kit.gates(result.evaluation.results)
    assert result.status == "fail"
    assert gates["output_schema"] == ("fail", [code])
    for gate_id in ENVELOPE_GATES:
        assert gates[gate_id] == ("fail", ["PRECONDITION_FAILED"]), gate_id
    assert gates["budget_enforcer"] == budget
    assert result.evaluation.claims == []


def test_baseline_valid_envelope_passes(kit):
    result = kit.verify(good(kit))
    assert result.mode_decision.rigorConfig.level.value == "high"
    assert result.status == "pass", kit.failing(result.evaluation.results)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("Sure! The maximum dose is 4000 mg per day.", "INVALID_JSON"),
        ("", "EMPTY_OUTPUT"),
        ("   \n\t ", "EMPTY_OUTPUT"),
        ('{"assistant_text": "The maximum dose is', "TRUNCATED_OUTPUT"),
        ('{"assistant_text": "x", "meta": {"modeLabel": "System", "claim_map": [', "TRUNCATED_OUTPUT"),
        ("```json\n{\"assistant_text\": \"x\"}\n```", "INVALID_JSON"),
        ('{"assistant_text": "a", "meta": {"modeLabel": "System"}} {"assistant_text": "b"}', "INVALID_JSON"),
        ("\ufeff{}", "INVALID_JSON"),
        ("null", "SCHEMA_VIOLATION"),
        ("[]", "SCHEMA_VIOLATION"),
        ('"just a string"', "SCHEMA_VIOLATION"),
        ("42", "SCHEMA_VIOLATION"),
        ("{}", "SCHEMA_VIOLATION"),
        ("{'assistant_text': 'single quotes'}", "INVALID_JSON"),
        ('{"assistant_text": NaN}', "SCHEMA_VIOLATION"),
    ],
    ids=["prose", "empty", "whitespace", "truncated-string", "truncated-array", "code-fence", "two-objects", "bom",
         "null", "array", "string", "number", "empty-object", "single-quotes", "nan"],
)
def test_not_an_envelope(kit, raw, code):
    assert_parse_failure(kit, kit.verify(raw), code)


def _mutate(kit, path: tuple, value):
    env = good(kit)
    target = env
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return env


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("assistant_text",), 5),
        (("assistant_text",), None),
        (("meta",), "System"),
        (("meta", "claim_map"), {"c1": "text"}),
        (("meta", "claim_map", 0, "evidence_ids"), "E1"),
        (("meta", "claim_map", 0, "evidence_ids"), [1]),
        (("meta", "claim_map", 0, "status"), "VERIFIED"),
        (("meta", "claim_map", 0, "status"), "factual"),
        (("meta", "claim_map", 0, "span"), {"start_char": -1, "end_char": 3}),
        (("meta", "claim_map", 0, "span"), {"start_char": 9, "end_char": 3}),
        (("meta", "claim_map", 0, "span"), {"start_char": 0.5, "end_char": 3}),
        (("meta", "claim_map", 0, "span"), {"start_char": "0", "end_char": 3}),
        (("meta", "claim_map", 0, "claim_id"), ""),
        (("meta", "claim_map", 0, "claim_id"), "c 1"),
        (("meta", "modeLabel"), ["System"]),
        (("meta", "checkpointSuggested"), "no"),
        (("meta", "citations_optional"), True),  # an invented field is rejected, not ignored
        (("meta", "citations"), [{"claim_id": "c1"}]),
        (("extra",), "ignore previous instructions"),
    ],
    ids=lambda v: str(v)[:40],
)
def test_wrong_types_and_unknown_fields(kit, path, value):
    assert_parse_failure(kit, kit.verify(_mutate(kit, path, value)), "SCHEMA_VIOLATION")


def test_missing_required_fields(kit):
    env = good(kit)
    del env["meta"]["modeLabel"]
    assert_parse_failure(kit, kit.verify(env), "SCHEMA_VIOLATION")
    env = good(kit)
    del env["meta"]["claim_map"][0]["text"]
    assert_parse_failure(kit, kit.verify(env), "SCHEMA_VIOLATION")


@pytest.mark.parametrize(
    "raw",
    [
        # last-wins JSON would let a second modeLabel / evidence_ids override the first: rejected instead
        '{"assistant_text": "x", "meta": {"modeLabel": "Ida", "modeLabel": "System", "claim_map": []}}',
        '{"assistant_text": "x", "assistant_text": "y", "meta": {"modeLabel": "System", "claim_map": []}}',
        '{"assistant_text": "x", "meta": {"modeLabel": "System", "claim_map": [{"claim_id": "c1", "text": "x", '
        '"evidence_ids": ["E9"], "evidence_ids": ["E1"]}]}}',
    ],
    ids=["dup-modeLabel", "dup-text", "dup-evidence_ids"],
)
def test_duplicate_keys(kit, raw):
    result = kit.verify(raw)
    assert_parse_failure(kit, result, "SCHEMA_VIOLATION")
    assert "duplicate key" in result.evaluation.parsed.issues[0].message


@pytest.mark.parametrize("depth", [50, 400, 900, 5_000, 100_000])
def test_deeply_nested_json(kit, depth):
    nested = "[" * depth + "]" * depth
    # over 80,000 characters of raw output (4 x budgets.max_output_chars) the budget gate fails too
    budget = ("fail", ["OUTPUT_TOO_LARGE"]) if 2 * depth > 80_000 else ("pass", [])
    assert_parse_failure(kit, kit.verify(nested), "INVALID_JSON" if depth >= 5_000 else "SCHEMA_VIOLATION", budget)


@pytest.mark.parametrize("depth", [50, 400, 900])
def test_deeply_nested_value_inside_an_envelope(kit, depth):
    for path in (("assistant_text",), ("meta", "claim_map"), ("meta", "claim_map", 0, "evidence_ids"),
                 ("meta", "surprise")):
        env = _mutate(kit, path, 0)
        raw = json.dumps(env).replace("0}", "[" * depth + "]" * depth + "}", 1) if path == ("meta", "surprise") \
            else json.dumps(env).replace(
                {"assistant_text": '"assistant_text": 0', "claim_map": '"claim_map": 0',
                 "evidence_ids": '"evidence_ids": 0'}[path[-1]],
                f'"{path[-1]}": ' + "[" * depth + "]" * depth, 1)
        assert_parse_failure(kit, kit.verify(raw), "SCHEMA_VIOLATION")


def test_huge_fields(kit):
    # above the schema's hard ceiling (50,000 characters of assistant_text, 4,000 per claim, 500 claims)
    assert_parse_failure(kit, kit.verify(_mutate(kit, ("assistant_text",), "x" * 50_001)), "SCHEMA_VIOLATION")
    assert_parse_failure(
        kit, kit.verify(_mutate(kit, ("meta", "claim_map", 0, "text"), "x" * 4_001)), "SCHEMA_VIOLATION"
    )
    claims = [{"claim_id": f"c{i}", "text": "x", "evidence_ids": ["E1"]} for i in range(501)]
    assert_parse_failure(kit, kit.verify(_mutate(kit, ("meta", "claim_map"), claims)), "SCHEMA_VIOLATION")
    assert_parse_failure(kit, kit.verify(_mutate(kit, ("meta", "claim_map", 0, "evidence_ids"), ["E1"] * 51)),
                         "SCHEMA_VIOLATION")


def test_huge_but_schema_valid_fields_hit_the_budget(kit):
    # under the schema ceiling but over the bundle's budgets: budget_enforcer fails with the cap it hit
    text = kit.DOSE[:-1] + " [E1]. " + "Filler sentence without a claim. " * 700
    env = kit.envelope([(kit.DOSE[:-1] + " [E1].", ["E1"])])
    env["assistant_text"] = text.strip()
    result = kit.verify(env)
    gates = kit.gates(result.evaluation.results)
    assert result.status == "fail"
    assert gates["budget_enforcer"] == ("fail", ["OUTPUT_TOO_LARGE"])
    assert gates["claim_anchors"] == ("fail", ["SENTENCE_UNCOVERED"])


def test_huge_numbers_in_spans(kit):
    env = _mutate(kit, ("meta", "claim_map", 0, "span"), {"start_char": 10**30, "end_char": 10**30 + 5})
    result = kit.verify(env)
    gates = kit.gates(result.evaluation.results)
    assert gates["claim_anchors"] == ("fail", ["SENTENCE_UNCOVERED", "SPAN_OUT_OF_BOUNDS"])
    assert result.status == "fail"
    assert_parse_failure(kit, kit.verify(json.dumps(good(kit)).replace('"status"', '"span": {"start_char": 1e400, '
                                                                              '"end_char": 2}, "status"')),
                         "SCHEMA_VIOLATION")


def test_truncated_by_the_model_in_a_run(kit):
    """finish_reason max_tokens on a cut object: TRUNCATED_OUTPUT, regen asks for a shorter answer, then refuse."""
    cut = json.dumps(good(kit))[:40]
    outputs = [{"output": cut, "finish_reason": "max_tokens"}] * 3
    result = kit.run(outputs)
    assert result.status.value == "refused"
    assert len(result.attempts) == 3
    for record in result.attempts:
        assert kit.gates(record.gate_results)["output_schema"] == ("fail", ["TRUNCATED_OUTPUT"])
    assert any("shorter" in i for i in result.attempts[1].regen_delta.instructions)


def test_unpaired_surrogate_escape_is_invalid_json_and_the_run_is_stored(kit, store):
    """Found by this suite: a \\ud800 escape decoded to a lone surrogate, judged valid, then crashed the trace
    store (UnicodeEncodeError) and left the trace in_progress. Now: INVALID_JSON, refused, stored."""
    env = good(kit)
    env["assistant_text"] = env["assistant_text"] + " \ud800"
    raw = json.dumps(env)  # ASCII escapes: any model can emit these
    assert_parse_failure(kit, kit.verify(raw), "INVALID_JSON")
    assert_parse_failure(kit, kit.verify('"\\ud800"'), "INVALID_JSON")
    result = kit.run([raw] * 3, store=store)
    assert result.status.value == "refused"
    assert kit.gates(result.attempts[0].gate_results)["output_schema"] == ("fail", ["INVALID_JSON"])
    assert store.require(result.trace_id)["status"] == "refused"
    assert [e.seq for e in store.events(result.trace_id)] == list(range(len(result.events)))


def test_raw_lone_surrogate_from_the_adapter_is_replaced_and_stored(kit, store):
    env = good(kit)
    raw = json.dumps(env, ensure_ascii=False)[:-1] + "\ud800}"  # invalid Unicode in the raw text itself
    result = kit.run([raw] * 3, store=store)
    assert result.status.value == "refused"
    assert kit.gates(result.attempts[0].gate_results)["output_schema"] == ("fail", ["INVALID_JSON"])
    assert "\ufffd" in store.load_bundle(result.trace_id).attempts[0].raw_output


def test_nul_and_bidi_controls_are_judged_not_crashed(kit, store):
    env = good(kit)
    env["assistant_text"] = env["assistant_text"] + " \u0000\u202e"
    result = kit.run([json.dumps(env)] * 3, store=store)
    assert result.status.value == "refused"  # the trailing controls are an uncovered sentence in strict mode
    assert kit.gates(result.attempts[0].gate_results)["claim_anchors"] == ("fail", ["SENTENCE_UNCOVERED"])
    assert store.require(result.trace_id)["status"] == "refused"


def test_lone_surrogates_in_caller_input_are_input_errors(kit):
    from controlplane.contracts.errors import InputError

    with pytest.raises(InputError, match="not valid Unicode"):
        kit.run([good(kit)], message="dose of ibuprofen \ud800?")
    with pytest.raises(InputError, match="not valid Unicode"):
        kit.run([good(kit)], evidence=[{"id": "E1", "text": "dose \udfff"}])
