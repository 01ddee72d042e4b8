"""Caps from the bundle's budgets: message size, evidence count and size, claims per envelope, regen attempts, wall
time, tool calls and output size. Exceeding one is a clear error naming the cap and its setting (InputError, CLI exit
2) or a budget gate failure -- never a hang, never a silent pass."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.adapters.scripted import ScriptedModel
from controlplane.cli import main
from controlplane.contracts import EvidenceItem, Phase
from controlplane.contracts.errors import InputError
from controlplane.gates.interfaces import GateServices
from controlplane.model_boundary import IntelligenceResponse
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import PolicyBundleError, load_bundle, parse_bundle

QUESTION = "Which database do we use for the service architecture?"  # architecture: medium rigor
FACT = "We host on Fly.io and the database is Turso."
EVIDENCE = [{"id": "E1", "text": FACT, "trust_tier": "authoritative"}]
STRUCTURAL = ("retrieval_required", "output_schema", "mode_echo_match", "evidence_binding", "citation_integrity",
              "claim_anchors", "budget_enforcer")


def bundle(**budgets) -> dict:
    data = load_bundle().bundle.model_dump(mode="json", exclude_none=True)
    data["gates"] = [g for g in data["gates"] if g["gate_id"] in STRUCTURAL]
    data["budgets"].update(budgets)
    return data


def policy(**budgets):
    return parse_bundle(bundle(**budgets), source="test:limits")


def envelope(n_claims: int = 1, cited: bool = True) -> dict:
    sentences = [f"Fact {i} is that the database is Turso [E1]." if cited else f"Fact {i} is unknown."
                 for i in range(1, n_claims + 1)]
    return {
        "assistant_text": " ".join(sentences),
        "meta": {
            "modeLabel": "System",
            "claim_map": [{"claim_id": f"c{i}", "text": s, "evidence_ids": ["E1"] if cited else [],
                           "status": "FACTUAL"} for i, s in enumerate(sentences, start=1)],
        },
    }


@pytest.fixture
def script(tmp_path):
    def make(outputs) -> Path:
        path = tmp_path / f"script_{len(list(tmp_path.glob('script_*')))}.jsonl"
        path.write_text("\n".join(json.dumps(o) for o in outputs) + "\n", encoding="utf-8")
        return path
    return make


def run(script, outputs, message=QUESTION, evidence=EVIDENCE, store=None, services=None, model=None, **budgets):
    model = model or ScriptedModel(script(outputs))
    plane = Pipeline(model=model, policy=policy(**budgets), store=store, services=services)
    return plane.run([{"role": "user", "content": message}], evidence=evidence)


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


# -- input caps: InputError naming the cap and the setting, nothing stored ----------------------------------------------
def test_message_over_the_cap(script, store):
    with pytest.raises(InputError, match=r"allows 100 \(budgets.max_message_chars\)"):
        run(script, [envelope()], message="x" * 101, store=store, max_message_chars=100)
    assert store.list_traces() == []  # refused before anything is written
    result = run(script, [envelope()], message="q" * 100, store=store, max_message_chars=100)
    assert result.status.value in ("pass", "degraded", "refused")  # at the cap: accepted and judged


def test_message_cap_counts_the_whole_conversation(script):
    messages = [{"role": "user", "content": "a" * 60}, {"role": "assistant", "content": "b" * 30},
                {"role": "user", "content": "c" * 20}]
    plane = Pipeline(model=ScriptedModel(script([envelope()])), policy=policy(max_message_chars=100))
    with pytest.raises(InputError, match="110 characters"):
        plane.run(messages, evidence=EVIDENCE)


def test_evidence_count_over_the_cap(script):
    items = [{"text": f"fact {i}"} for i in range(4)]
    with pytest.raises(InputError, match=r"at most 3 \(budgets.max_evidence_items\)"):
        run(script, [envelope()], evidence=items, max_evidence_items=3)


def test_evidence_size_over_the_cap(script):
    with pytest.raises(InputError, match=r"allows 50 \(budgets.max_evidence_chars\)"):
        run(script, [envelope()], evidence=[{"text": "x" * 30}, {"text": "y" * 21}], max_evidence_chars=50)


def test_evidence_over_the_context_budget_is_dropped_whole_and_marked(script):
    items = [{"id": "E1", "text": FACT}, {"id": "E2", "text": "z" * 400}]
    result = run(script, [envelope()], evidence=items, max_context_tokens=20)
    assert result.evidence_pack.ids() == ["E1"]
    assert result.evidence_pack.truncated and result.evidence_pack.dropped_ids == ["E2"]


# -- CLI: exit 2 and a one-line message naming the setting ----------------------------------------------------------
@pytest.fixture
def files(tmp_path, script):
    model = script([envelope()] * 3)
    tight = tmp_path / "tight.json"
    tight.write_text(json.dumps(bundle(max_message_chars=100, max_evidence_items=2, max_evidence_chars=60,
                                       max_claims=2)), encoding="utf-8")
    return {"model": f"scripted:{model}", "policy": tight, "db": tmp_path / "t.db", "tmp": tmp_path}


def test_cli_message_cap_exit_2(files):
    result = cli("run", "-m", "x" * 101, "--model", files["model"], "--policy", files["policy"], "--db", files["db"])
    assert result.exit_code == 2
    assert "budgets.max_message_chars" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(("items", "setting"), [
    ([{"text": "a"}, {"text": "b"}, {"text": "c"}], "budgets.max_evidence_items"),
    ([{"text": "a" * 61}], "budgets.max_evidence_chars"),
])
def test_cli_evidence_caps_exit_2(files, items, setting):
    path = files["tmp"] / "evidence.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    for command in (["run", "-m", QUESTION, "--model", files["model"], "--db", files["db"]],
                    ["verify", "--envelope", path, "-m", QUESTION]):
        result = cli(*command, "--evidence", path, "--policy", files["policy"])
        assert result.exit_code == 2, result.output
        assert setting in result.output


def test_cli_claims_cap_is_a_gate_failure(files):
    envelope_file = files["tmp"] / "envelope.json"
    envelope_file.write_text(json.dumps(envelope(3)), encoding="utf-8")
    evidence_file = files["tmp"] / "evidence.json"
    evidence_file.write_text(json.dumps(EVIDENCE), encoding="utf-8")
    result = cli("verify", "--envelope", envelope_file, "--evidence", evidence_file, "-m", QUESTION,
                 "--policy", files["policy"], "--json")
    assert result.exit_code == 1
    gates = {g["gate_id"]: g for g in json.loads(result.output)["gates"]}
    assert gates["budget_enforcer"]["result"] == "fail"
    assert gates["budget_enforcer"]["reason_codes"] == ["CLAIMS_EXCEEDED"]


def test_invalid_cap_in_a_bundle_names_the_field(files):
    bad = files["tmp"] / "bad.json"
    bad.write_text(json.dumps(bundle(max_claims=0)), encoding="utf-8")
    with pytest.raises(PolicyBundleError, match="budgets.max_claims"):
        load_bundle(bad)
    result = cli("verify", "--envelope", bad, "--policy", bad)
    assert result.exit_code == 2 and "budgets.max_claims" in result.output


# -- caps enforced by the budget gate ----------------------------------------------------------------------------------
def test_claims_per_envelope(script):
    result = run(script, [envelope(4)] * 3, max_claims=3)
    budget = next(g for g in result.attempts[0].gate_results if g.gate_id == "budget_enforcer")
    assert [c.value for c in budget.reason_codes] == ["CLAIMS_EXCEEDED"]
    assert budget.details["exceeded"]["CLAIMS_EXCEEDED"] == {"used": 4, "limit": 3}
    assert any("at most 3 claims" in i for i in result.attempts[1].regen_delta.instructions)
    assert result.status.value != "pass"


@pytest.mark.parametrize("cap", [0, 1, 2, 4])
def test_regen_attempts(script, store, cap):
    result = run(script, [envelope(cited=False)] * 10, store=store, max_regen_attempts=cap)
    assert len(result.attempts) == 1 + cap
    assert sum(e.phase is Phase.MODEL_CALL for e in store.events(result.trace_id)) == 1 + cap
    assert result.status.value in ("degraded", "refused")


def test_output_tokens(script):
    result = run(script, [envelope(3)] * 3, max_output_tokens=20)
    assert all(r.finish_reason.value == "max_tokens" for r in result.attempts)
    schema = next(g for g in result.attempts[0].gate_results if g.gate_id == "output_schema")
    assert [c.value for c in schema.reason_codes] == ["TRUNCATED_OUTPUT"]


def test_output_chars(script):
    result = run(script, [envelope(3)] * 3, max_output_chars=60)
    budget = next(g for g in result.attempts[0].gate_results if g.gate_id == "budget_enforcer")
    assert [c.value for c in budget.reason_codes] == ["OUTPUT_TOO_LARGE"]


class SlowModel:
    """The scripted adapter, slowed down: a real IntelligenceModule that takes ``delay`` seconds per call."""

    def __init__(self, inner: ScriptedModel, delay: float):
        self.inner, self.delay = inner, delay
        self.calls = 0

    def is_ready(self) -> bool:
        return True

    def metadata(self):
        return self.inner.metadata()

    def generate(self, query, context, params) -> IntelligenceResponse:
        self.calls += 1
        time.sleep(self.delay)
        return self.inner.generate(query, context, params)


def test_wall_time_with_a_slow_model(script, store):
    """A tiny wall-time budget and a slow model: the first attempt blows the budget, no regen is tried (it could only
    take longer), the answer -- even a correct one -- is not passed, and the request ends promptly."""
    model = SlowModel(ScriptedModel(script([envelope()] * 5)), delay=0.05)
    started = time.perf_counter()
    result = run(script, [], model=model, store=store, max_wall_time_ms=20)
    assert time.perf_counter() - started < 5
    assert model.calls == 1 and len(result.attempts) == 1
    budget = next(g for g in result.attempts[0].gate_results if g.gate_id == "budget_enforcer")
    assert [c.value for c in budget.reason_codes] == ["WALL_TIME_EXCEEDED"]
    assert budget.details["exceeded"]["WALL_TIME_EXCEEDED"]["limit"] == 20
    assert result.status.value == "refused"  # a global failure cannot be suppressed sentence by sentence
    assert store.require(result.trace_id)["status"] == "refused"


def test_wall_time_stops_regeneration_between_attempts(script):
    model = SlowModel(ScriptedModel(script([envelope(cited=False)] * 10)), delay=0.03)
    result = run(script, [], model=model, max_wall_time_ms=50, max_regen_attempts=8)
    assert model.calls < 9  # the loop stops once the budget is spent, not after eight more slow calls
    assert result.status.value != "pass"


class _Retriever:
    name = "fixed"

    def retrieve(self, query: str, k: int) -> list[EvidenceItem]:
        return [EvidenceItem(id="R1", text=FACT, hash="sha256:" + "0" * 64, retrieval_score=0.9)]


def test_tool_calls(script):
    question = "According to our runbook, which database do we use?"
    result = run(script, [envelope()] * 3, message=question, evidence=[], max_tool_calls=0,
                 services=GateServices(retriever=_Retriever()))
    budget = next(g for g in result.attempts[0].gate_results if g.gate_id == "budget_enforcer")
    assert [c.value for c in budget.reason_codes] == ["TOOL_CALLS_EXCEEDED"]
    assert len(result.attempts) == 1  # not regenerable
    assert result.status.value != "pass"
