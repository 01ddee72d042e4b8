"""The hand-written faithfulness set, through the real nli_entailment gate at medium rigor: every faithful
paraphrase is kept and every minimal unfaithful edit is blocked.

Data: tests/nli/data/faithfulness_cases.jsonl (written for this test, never used for training, calibration or
threshold choice). Paraphrases are reordered, use synonyms, merge clauses, drop details or rewrite units without
changing them; edits change one thing: a number, a unit, a qualifier, a negation, the population, the timeframe,
or state a correlation as causation. Backend: the shipped verifier (real weights, the default runtime) plus the
deterministic checks of gates/claim_checks.py, exactly as the default bundle configures the gate, with the term
similarity service (MiniLM) an assembled plane gives it.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

pytest.importorskip("torch")
pytest.importorskip("transformers")

from controlplane.contracts import OutputEnvelope, RigorLevel
from controlplane.evidence_pack import build_pack
from controlplane.gates.interfaces import GateInput, GateServices
from controlplane.gates.nli_entailment import NliEntailmentGate
from controlplane.nli.shipped import verifier_dir
from controlplane.policy_bundles.loader import load_bundle
from controlplane.router import route
from controlplane.services import EmbeddingSimilarity

CASES_FILE = Path(__file__).parent / "data" / "faithfulness_cases.jsonl"
CASES = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
QUESTION = "What does the report say about this?"  # routes to a medium-rigor domain (asserted below)
POLICY = load_bundle().bundle
SIMILARITY = EmbeddingSimilarity()  # as every assembled plane has it (controlplane.ControlPlane.services)

pytestmark = pytest.mark.skipif(not (verifier_dir() / "config.json").is_file(),
                                reason="shipped verifier weights are missing")


def test_the_set_is_big_enough_and_covers_every_kind_of_edit():
    kinds = Counter(case["kind"] for case in CASES)
    assert kinds["paraphrase"] >= 40 and kinds["edit"] >= 40, kinds
    edit_types = {case["type"] for case in CASES if case["kind"] == "edit"}
    assert {"number", "unit", "qualifier", "negation", "population", "timeframe", "causation"} <= edit_types
    assert len({case["id"] for case in CASES}) == len(CASES)


@pytest.fixture(scope="module")
def shipped():
    from controlplane.nli import load_nli_backend

    return load_nli_backend("shipped")


def gate_verdict(case: dict, backend) -> tuple[bool, list[str], dict]:
    spec = next(g for g in POLICY.gates if g.gate_id == "nli_entailment")
    decision = route(QUESTION, POLICY)
    assert decision.rigorConfig.level is RigorLevel.MEDIUM
    envelope = {
        "assistant_text": f"{case['claim']} [E1]",
        "meta": {"modeLabel": "System",
                 "claim_map": [{"claim_id": "c1", "text": case["claim"], "evidence_ids": ["E1"], "status": "FACTUAL"}],
                 "citations": [{"claim_id": "c1", "evidence_ids": ["E1"]}], "used_evidence_ids": ["E1"]},
    }
    inp = GateInput(
        mode_decision=decision,
        evidence_pack=build_pack([{"id": "E1", "text": case["evidence"], "trust_tier": "authoritative"}]),
        policy=POLICY,
        spec=spec,
        user_message=QUESTION,
        envelope=OutputEnvelope.model_validate(envelope),
        services=GateServices(nli_backend=backend, similarity=SIMILARITY),
    )
    result = NliEntailmentGate().evaluate(inp)
    record = result.details["claim_records"]["c1"]
    return result.passed, [c.value for c in result.reason_codes], record


def test_issue_example_is_kept(shipped):
    case = next(c for c in CASES if c["id"] == "p01")
    assert "lowered" in case["claim"] and "versus placebo" in case["claim"] and "randomized" not in case["claim"]
    passed, codes, record = gate_verdict(case, shipped)
    assert passed, (codes, record.get("entailment"), record.get("checks"))


def test_every_paraphrase_is_kept_and_every_edit_is_blocked(shipped):
    wrong = []
    for case in CASES:
        passed, codes, record = gate_verdict(case, shipped)
        if passed != (case["kind"] == "paraphrase"):
            wrong.append(f"{case['id']} ({case['kind']}, {case['type']}): passed={passed} codes={codes} "
                         f"P(entailed)={record.get('entailment')} checks={[c['code'] for c in record.get('checks', [])]}")
    assert not wrong, f"{len(wrong)} of {len(CASES)} cases decided wrongly:\n" + "\n".join(wrong)
