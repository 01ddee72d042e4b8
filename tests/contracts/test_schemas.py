"""The JSON Schemas and the pydantic models are one contract: committed files equal what the models generate, and
every example validates against both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from controlplane.contracts import GateResult, ModeDecision, OutputEnvelope, ReasonCode
from controlplane.contracts.schemas import SCHEMA_MODELS, generate_schema, load_schema, validate_instance

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "contracts" / "schemas"
REQUIRED = {"ModeDecision", "EvidenceItem", "EvidencePack", "OutputEnvelope", "GateResult", "RegenDelta",
            "BudgetConfig", "TraceEvent", "TraceBundle", "PolicyBundle", "CriticFinding"}


def test_every_contract_the_issue_names_has_a_schema():
    assert REQUIRED <= set(SCHEMA_MODELS)


@pytest.mark.parametrize("name", sorted(SCHEMA_MODELS))
def test_committed_schema_equals_generated(name):
    committed = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text())
    assert committed == json.loads(json.dumps(generate_schema(name))), (
        f"{name}: run `python -m controlplane.contracts.schemas` and commit the result"
    )


@pytest.mark.parametrize("name", sorted(SCHEMA_MODELS))
def test_schema_is_draft_2020_12_with_title_description_examples(name):
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"] == name
    assert schema["description"]
    assert schema["examples"]


@pytest.mark.parametrize("name", sorted(SCHEMA_MODELS))
def test_examples_validate_against_schema_and_model(name):
    for example in load_schema(name)["examples"]:
        assert validate_instance(name, example) == []
        SCHEMA_MODELS[name].model_validate(example)


def test_validation_error_names_the_json_path():
    envelope = OutputEnvelope.model_config["json_schema_extra"]["examples"][0]
    broken = json.loads(json.dumps(envelope))
    broken["meta"]["claim_map"][1]["status"] = "PROBABLY"
    problems = validate_instance("OutputEnvelope", broken)
    assert [p.path for p in problems] == ["$.meta.claim_map[1].status"]


def test_schema_and_model_reject_the_same_bad_envelope():
    bad = {"assistant_text": "x", "meta": {"modeLabel": "Ida", "claim_map": [{"claim_id": "c1", "text": "x",
                                                                              "evidence_ids": [7]}]}}
    assert validate_instance("OutputEnvelope", bad)
    with pytest.raises(ValueError):
        OutputEnvelope.model_validate(bad)


def test_gate_result_cannot_fail_without_a_reason():
    with pytest.raises(ValueError):
        GateResult(gate_id="g", gate_version="v1", result="fail", cost_class="cheap")
    result = GateResult.failing("g", "v1", "cheap", [ReasonCode.UNCITED_CLAIM, ReasonCode.UNCITED_CLAIM])
    assert result.reason_codes == [ReasonCode.UNCITED_CLAIM]
    with pytest.raises(ValueError):
        result.result = "pass"  # frozen


def test_reason_codes_are_a_closed_set():
    with pytest.raises(ValueError):
        GateResult.failing("g", "v1", "cheap", ["SOMETHING_I_MADE_UP"])


def test_mode_decision_confidence_is_bounded():
    example = ModeDecision.model_config["json_schema_extra"]["examples"][0]
    with pytest.raises(ValueError):
        ModeDecision.model_validate({**example, "confidence": 1.3})
