"""The critic loop: batch critic -> findings -> accept -> suggest a draft -> review; the sync gate G7."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.adapters.scripted import ScriptedModel
from controlplane.cli import main
from controlplane.contracts import ModeDecision, OutputEnvelope, RigorConfig
from controlplane.critic import ModelCritic, RuleCritic, run_critic
from controlplane.gates.interfaces import GateInput, GateServices
from controlplane.gates.registry import GateRegistry, when_holds
from controlplane.gates.semantic_critic_sync import SemanticCriticSyncGate
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.lifecycle import PolicyLifecycle
from controlplane.policy_bundles.loader import load_bundle
from controlplane.traces.store import TraceStore
from tests.traces.flowkit import envelope, run


def cli(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def writing_trace(tmp_path: Path, gov_policy):
    """Two rewrite requests without evidence (the user's own text: the bundle's rewrite exemption skips
    evidence_binding for them, and the reply says it was not checked), so
    A: an uncited FACTUAL claim reaches the user (evidence_binding would not catch it either: writing needs no
       citations), and
    B: a claim citing evidence E9 that does not exist reaches the user (evidence_binding would have failed it)."""
    store = TraceStore(tmp_path / "critic.db")
    uncited = envelope([("Our servers are fast.", [])], mode="Ida", flags=["writing"])
    spoofed = envelope([("Our servers are fast.", ["E9"])], mode="Ida", flags=["writing"])
    spoofed["meta"]["citations"], spoofed["meta"]["used_evidence_ids"] = [], []
    message = "Tighten this paragraph: our servers are fast."
    a = run(store, gov_policy, tmp_path, "writing_a", [uncited], message)
    b = run(store, gov_policy, tmp_path, "writing_b", [spoofed], message)
    for result in (a, b):
        gates = {g.gate_id: g for g in result.attempts[0].gate_results}
        assert gates["evidence_binding"].result.value == "skip" and result.status.value == "pass"
    return store, a.trace_id, b.trace_id


def test_rules_find_the_uncited_claim_and_the_gate_that_should_have_fired(writing_trace):
    store, uncited_id, spoofed_id = writing_trace
    summary = run_critic(store, [RuleCritic()], since="2000-01-01")
    # A also misses evidence_binding: forced on, the pack rule unknown_label_required fails its uncited claim
    assert summary.traces == 2 and summary.by_type == {"UNCITED_CLAIM": 1, "MISSED_GATE": 2}
    found = {f["type"]: f for f in store.list_findings(trace_id=uncited_id)}
    uncited = found["UNCITED_CLAIM"]
    assert set(found) == {"UNCITED_CLAIM", "MISSED_GATE"}
    assert uncited["claim_id"] == "c1" and uncited["status"] == "proposed"
    [missed] = store.list_findings(trace_id=spoofed_id)
    assert missed["type"] == "MISSED_GATE" and "UNKNOWN_EVIDENCE_ID" in missed["explanation"]
    assert missed["suggested_gate_delta"]["gate_id"] == "evidence_binding"
    assert missed["suggested_gate_delta"]["patch"] == {"when": {"always": True}}
    again = run_critic(store, [RuleCritic()], since="2000-01-01")
    assert again.findings_added == 0 and again.duplicates == 3


def test_rules_stay_quiet_on_well_cited_answers(flows):
    store, ids = flows
    summary = run_critic(store, [RuleCritic()], trace_ids=[ids["pass"], ids["regen_pass"]])
    assert summary.findings_added == 0


def test_critic_cli_run_accept_suggest_then_review(writing_trace, tmp_path: Path, gov_policy):
    store, _, _ = writing_trace
    db = str(store.path)
    base = tmp_path / "base.json"
    base.write_text(json.dumps(gov_policy.bundle.model_dump(mode="json")))

    ran = cli("critic", "run", "--since", "2000-01-01", "--db", db)
    assert ran.exit_code == 0 and "3 new finding(s)" in ran.output
    listed = json.loads(cli("critic", "list", "--db", db, "--json").output)
    missed = next(r for r in listed if r["type"] == "MISSED_GATE")
    uncited = next(r for r in listed if r["type"] == "UNCITED_CLAIM")
    none_yet = cli("critic", "suggest", "--db", db, "-o", str(tmp_path / "d.json"), "--policy", str(base))
    assert none_yet.exit_code == 2 and "no accepted findings" in none_yet.output

    assert cli("critic", "accept", str(missed["id"]), "--db", db, "--by", "jam", "--why", "real miss").exit_code == 0
    assert cli("critic", "reject", uncited["finding_id"], "--db", db).exit_code == 0
    reviewed = store.get_finding(missed["id"])
    assert reviewed["status"] == "accepted" and reviewed["reviewed_by"] == "jam" and reviewed["review_note"] == "real miss"
    assert store.get_finding(uncited["id"])["status"] == "rejected"

    draft_path = tmp_path / "draft.json"
    suggested = cli("critic", "suggest", "--db", db, "-o", str(draft_path), "--policy", str(base), "--json")
    assert suggested.exit_code == 0, suggested.output
    data = json.loads(suggested.output)
    draft = load_bundle(draft_path)  # validates against the PolicyBundle schema
    assert data["hash"] == draft.hash and data["state"] == "draft" and draft.bundle.version == "1.0.1"
    spec = next(g for g in draft.bundle.gates if g.gate_id == "evidence_binding")
    assert spec.when.model_dump(exclude_none=True) == {"always": True}
    assert [g.gate_id for g in draft.bundle.gates] == [g.gate_id for g in gov_policy.bundle.gates]
    assert PolicyLifecycle(store).get(draft.hash).state == "draft"
    assert cli("policy", "validate", str(draft_path)).exit_code == 0

    review = cli("policy", "review", str(draft_path), "--db", db, "-o", str(tmp_path / "rev"), "--json")
    assert review.exit_code == 0, review.output
    changes = json.loads(review.output)["changes"]
    assert changes["gates"]["evidence_binding"]["counts"] == {"skip->fail": 2}  # both writing answers now fail it
    assert PolicyLifecycle(store).get(draft.hash).state == "candidate"


def test_model_critic_findings_are_stored_and_bad_output_is_an_error(writing_trace, tmp_path: Path):
    store, trace_id, _ = writing_trace
    finding = {"finding_id": "F1", "severity": "high", "type": "UNSUPPORTED_CLAIM", "claim_id": "c1",
               "explanation": "20 ms is stated nowhere.",
               "suggested_gate_delta": {"gate_id": "evidence_binding", "new_rule": "cite latency figures",
                                        "patch": {"when": {"always": True}}}}
    good = tmp_path / "critic_ok.jsonl"
    good.write_text(json.dumps({"purpose": "critic", "output": [finding]}) + "\n")
    out = cli("critic", "run", "--trace", trace_id, "--db", str(store.path), "--model", f"scripted:{good}",
              "--no-rules", "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["by_type"] == {"UNSUPPORTED_CLAIM": 1}
    row = store.list_findings(trace_id=trace_id)[0]
    assert row["source"] == "model:scripted:critic_ok.jsonl" and row["explanation"] == "20 ms is stated nowhere."

    bad = tmp_path / "critic_bad.jsonl"
    bad.write_text(json.dumps({"purpose": "critic", "output": "looks fine to me"}) + "\n")
    summary = run_critic(store, [ModelCritic(ScriptedModel(bad))], trace_ids=[trace_id])
    assert summary.findings_added == 0 and "not JSON" in summary.errors[0]["error"]


# -- G7 ------------------------------------------------------------------------------------------------------------
def _decision(level: str, confidence: float, flags=("legal",)) -> ModeDecision:
    return ModeDecision(modeLabel="System", domainFlags=list(flags), rigorConfig=RigorConfig(level=level),
                        confidence=confidence, version="t")


def _envelope(statuses: list[str]) -> OutputEnvelope:
    claims = [(f"Claim number {i} is here.", [] if s == "UNKNOWN" else ["E1"], s) for i, s in enumerate(statuses)]
    return OutputEnvelope.model_validate(envelope(claims, flags=["legal"]))


@pytest.mark.parametrize(
    ("level", "confidence", "statuses", "runs"),
    [
        ("high", 0.4, ["FACTUAL"], True),  # low router confidence
        ("high", 0.9, ["UNKNOWN", "UNKNOWN", "FACTUAL"], True),  # many UNKNOWNs
        ("high", 0.9, ["UNKNOWN", "FACTUAL"], False),  # half UNKNOWN is not "many"
        ("high", 0.9, ["FACTUAL"], False),  # confident, cited: the expensive critic is not called
        ("medium", 0.3, ["UNKNOWN", "UNKNOWN"], False),  # not high rigor
    ],
)
def test_g7_runs_only_when_the_bundle_conditions_hold(gov_policy, level, confidence, statuses, runs):
    spec = next(g for g in gov_policy.bundle.gates if g.gate_id == "semantic_critic_sync")
    holds, why = when_holds(spec.when, _decision(level, confidence), _envelope(statuses))
    assert holds is runs, why
    plan = GateRegistry(load_entry_points=False).plan(gov_policy.bundle, _decision(level, confidence),
                                                      envelope=_envelope(statuses))
    assert next(p for p in plan if p.spec.gate_id == "semantic_critic_sync").runs is runs


class ListCritic:
    name = "list"

    def __init__(self, findings):
        self.findings, self.payloads = findings, []

    def critique(self, payload):
        self.payloads.append(payload)
        return self.findings


def _g7_input(gov_policy, critic, redacted=False) -> GateInput:
    from controlplane.contracts import EvidencePack

    pack = EvidencePack.model_validate({"evidence": [{"id": "E1", "text": "LLCs are pass-through entities.",
                                                      "hash": "sha256:" + "0" * 64, "redacted": redacted}]})
    spec = next(g for g in gov_policy.bundle.gates if g.gate_id == "semantic_critic_sync")
    return GateInput(mode_decision=_decision("high", 0.3), evidence_pack=pack, policy=gov_policy.bundle, spec=spec,
                     envelope=_envelope(["FACTUAL", "UNKNOWN"]), services=GateServices(critic=critic))


def test_g7_fails_closed_and_reports_findings_per_claim(gov_policy):
    gate = SemanticCriticSyncGate()
    unavailable = gate.evaluate(_g7_input(gov_policy, None))
    assert unavailable.failed and [c.value for c in unavailable.reason_codes] == ["CRITIC_UNAVAILABLE"]

    clean_critic = ListCritic([])
    clean = gate.evaluate(_g7_input(gov_policy, clean_critic))
    assert clean.passed and clean.details["findings"] == []
    assert clean_critic.payloads[0]["evidence"][0]["text"] == "LLCs are pass-through entities."

    finding = {"finding_id": "F17", "severity": "high", "type": "UNSUPPORTED_CLAIM", "claim_id": "c1",
               "explanation": "not in E1"}
    flagged = gate.evaluate(_g7_input(gov_policy, ListCritic([finding])))
    assert flagged.failed and [c.value for c in flagged.reason_codes] == ["CRITIC_FINDING"]
    assert flagged.details["claims"] == {"c1": ["CRITIC_FINDING"]} and flagged.evidence_refs == ["claim_map:c1"]

    minor = gate.evaluate(_g7_input(gov_policy, ListCritic([{**finding, "severity": "low"}])))
    assert minor.passed  # below params.min_severity (medium)
    garbage = gate.evaluate(_g7_input(gov_policy, ListCritic([{"severity": "high"}])))
    assert garbage.failed and [c.value for c in garbage.reason_codes] == ["CRITIC_UNAVAILABLE"]
    not_a_list = gate.evaluate(_g7_input(gov_policy, ListCritic("fine")))
    assert not_a_list.failed and [c.value for c in not_a_list.reason_codes] == ["CRITIC_UNAVAILABLE"]
    redacted = gate.evaluate(_g7_input(gov_policy, ListCritic([]), redacted=True))
    assert redacted.failed and [c.value for c in redacted.reason_codes] == ["EVIDENCE_TEXT_REDACTED"]


def test_g7_in_the_pipeline_regenerates_on_a_finding(tmp_path: Path, gov_policy):
    store = TraceStore(tmp_path / "g7.db")
    answer = envelope([("LLCs never pay any tax [E1].", ["E1"]),
                       ("Whether the S-corp election helps is UNKNOWN.", [], "UNKNOWN"),
                       ("Whether franchise tax applies is UNKNOWN.", [], "UNKNOWN")])
    script = tmp_path / "critic.jsonl"
    finding = {"finding_id": "F1", "severity": "high", "type": "CONTRADICTED_CLAIM", "claim_id": "c1",
               "explanation": "E1 says pass-through, not tax-free."}
    script.write_text("\n".join(json.dumps(x) for x in (
        {"purpose": "critic", "output": [finding]}, {"purpose": "critic", "output": []})) + "\n")
    critic = ModelCritic(ScriptedModel(script))
    plane = Pipeline(model=ScriptedModel(_script(tmp_path, [answer, answer])), policy=gov_policy, store=store,
                         services=GateServices(critic=critic))
    result = plane.run("LLC tax implications?", evidence=[{"id": "E1", "text": "LLCs are pass-through entities."}])
    first = {g.gate_id: g for g in result.attempts[0].gate_results}["semantic_critic_sync"]
    assert first.failed and first.details["claims"] == {"c1": ["CRITIC_FINDING"]}
    assert result.attempts[1].regen_delta is not None and "c1" in result.attempts[1].regen_delta.claim_ids


def _script(tmp_path: Path, outputs) -> Path:
    path = tmp_path / "main.jsonl"
    path.write_text("\n".join(json.dumps(o) for o in outputs) + "\n")
    return path


def test_feedback_is_recorded(flows):
    store, ids = flows
    ok = cli("feedback", ids["degraded"], "--tag", "too_cautious", "--note", "the uptime claim was fine",
             "--db", str(store.path))
    assert ok.exit_code == 0
    rows = store.feedback(ids["degraded"])
    assert [(r["label"], r["comment"]) for r in rows] == [("too_cautious", "the uptime claim was fine")]
    bad = cli("feedback", ids["degraded"], "--tag", "Bad Tag", "--db", str(store.path))
    assert bad.exit_code == 2
    missing = cli("feedback", "tr_missing", "--tag", "good", "--db", str(store.path))
    assert missing.exit_code == 2 and "no trace" in missing.output


def _g7_unknown_input(gov_policy, critic, statuses=("FACTUAL", "UNKNOWN")) -> GateInput:
    texts = {"FACTUAL": ("LLCs are pass-through entities [E1].", ["E1"], "FACTUAL"),
             "UNKNOWN": ("The evidence does not say whether an LLC pays franchise tax.", [], "UNKNOWN")}
    return dataclasses.replace(_g7_input(gov_policy, critic), envelope=OutputEnvelope.model_validate(
        envelope([texts[s] for s in statuses], flags=["legal"])))


@pytest.mark.parametrize(("statuses", "claim_id", "blocked"), [
    (("FACTUAL", "UNKNOWN"), "c2", {}),  # a finding on the honest UNKNOWN claim: it asserts nothing to stop
    (("FACTUAL", "UNKNOWN"), "c1", {"c1": ["CRITIC_FINDING"]}),
    (("FACTUAL", "UNKNOWN"), None, {"c1": ["CRITIC_FINDING"]}),  # a finding on no claim marks the claims that assert
])
def test_g7_findings_on_honest_unknown_claims_do_not_block(gov_policy, statuses, claim_id, blocked):
    """Seen with the embedded model as critic: it flagged the honest "The evidence does not answer this question."
    of an UNKNOWN reply three times, and the reply became a refusal after 33 s. An honest UNKNOWN claim states no
    fact (as claim_dependencies and evidence_graph read it): the finding is recorded, not acted on."""
    finding = {"finding_id": "F1", "severity": "high", "type": "UNSUPPORTED_CLAIM", "claim_id": claim_id,
               "explanation": "no evidence"}
    result = SemanticCriticSyncGate().evaluate(_g7_unknown_input(gov_policy, ListCritic([finding]), statuses))
    assert result.details.get("claims", {}) == blocked
    assert result.passed is (not blocked)
    assert result.details["findings"][0]["finding_id"] == "F1"


@pytest.mark.parametrize("critic", [None, "list"])
def test_g7_does_not_call_a_critic_when_every_claim_is_an_honest_unknown(gov_policy, critic):
    """Nothing is asserted, so there is nothing to review: no critic call (8-15 s on the embedded model), and no
    CRITIC_UNAVAILABLE refusal of an honest UNKNOWN reply where no critic is configured."""
    listing = ListCritic([{"finding_id": "F1", "severity": "high", "type": "UNSUPPORTED_CLAIM", "claim_id": "c1",
                           "explanation": "x"}]) if critic else None
    result = SemanticCriticSyncGate().evaluate(_g7_unknown_input(gov_policy, listing, ("UNKNOWN",)))
    assert result.passed and result.details["critic_called"] is False
    assert listing is None or listing.payloads == []


@pytest.mark.parametrize(("finding_type", "claim_id", "params", "blocks"), [
    ("UNSUPPORTED_CLAIM", None, {}, True), ("CONTRADICTED_CLAIM", None, {}, True), ("UNCITED_CLAIM", None, {}, True),
    ("MISSED_GATE", None, {}, False), ("POLICY_SUGGESTION", None, {}, False), ("IGNORED_EVIDENCE", None, {}, False),
    ("MISSED_GATE", "c1", {}, True),  # names a claim that asserts something
    ("MISSED_GATE", None, {"blocking_types": ["MISSED_GATE"]}, True),
])
def test_g7_withholds_an_answer_only_for_findings_about_its_claims(gov_policy, finding_type, claim_id, params, blocks):
    """G7 asks the critic for uncited or contradicted claims (seed §4). The embedded model as critic answered a
    swapped host with three MISSED_GATE findings and no claim id, which marked every claim; findings about the policy
    and about no claim are for the review loop (recorded in details), unless the bundle lists their type."""
    finding = {"finding_id": "F1", "severity": "high", "type": finding_type, "claim_id": claim_id, "explanation": "x"}
    inp = _g7_unknown_input(gov_policy, ListCritic([finding]))
    inp = dataclasses.replace(inp, spec=inp.spec.model_copy(update={"params": {**inp.spec.params, **params}}))
    result = SemanticCriticSyncGate().evaluate(inp)
    assert result.failed is blocks
    assert result.details["findings"][0]["type"] == finding_type
