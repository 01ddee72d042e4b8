"""The per-request envelope schema (the grammar of a local model, the response format of an OpenAI-compatible one)
offers a reasoning step: a REASONING claim must name its operation and its premises (claim ids or ids of this pack),
so what the model emits is what the reasoning_chain gate can check."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from controlplane.adapters.llama_cpp import check_enforceable, schema_to_gbnf
from controlplane.contracts import OutputEnvelope
from controlplane.prompts import envelope_schema_for
from tests.adapters.test_llama_cpp import mode, pack


def envelope(*claims: dict) -> dict:
    return {"assistant_text": "Turso is our database. [doc-7] So the data lives in SQLite.",
            "meta": {"modeLabel": mode().modeLabel, "claim_map": list(claims)}}


FACT = {"claim_id": "c1", "text": "Turso is our database.", "evidence_ids": ["doc-7"], "status": "FACTUAL"}
STEP = {"claim_id": "c2", "text": "So the data lives in SQLite.", "evidence_ids": [], "status": "REASONING",
        "operation": "transitive", "premises": ["c1", "Q2"]}


def errors(data: dict) -> list[str]:
    return [e.message for e in Draft202012Validator(envelope_schema_for(pack(), mode())).iter_errors(data)]


def test_a_reasoning_step_with_operation_and_premises_is_offered_and_is_a_valid_envelope():
    data = envelope(FACT, STEP)
    assert errors(data) == []
    parsed = OutputEnvelope.model_validate(data)
    assert parsed.meta.claim_map[1].premises == ["c1", "Q2"]


def test_a_reasoning_claim_without_premises_or_operation_is_not_offered():
    bare = {k: v for k, v in STEP.items() if k not in ("operation", "premises")}
    assert errors(envelope(FACT, bare))
    assert errors(envelope(FACT, {**STEP, "premises": []}))
    assert errors(envelope(FACT, {**STEP, "operation": "intuition"}))
    assert errors(envelope(FACT, {**STEP, "premises": ["E9"]}))  # neither a claim id nor an id of this pack
    assert errors(envelope({**FACT, "operation": "entailment", "premises": ["Q2"]}))  # only REASONING has them


def test_the_step_shape_compiles_to_a_grammar():
    schema = envelope_schema_for(pack(), mode())
    check_enforceable(schema)
    grammar = schema_to_gbnf(schema)
    assert "premises" in grammar and "transitive" in grammar
