"""Issue 16 item 6: a bundle that cannot check anything is not a valid bundle, and rollback meets the promotion bar.

Zero gates, no enabled gate, an empty or misspelt when-condition, an unregistered gate id, and an invalid, empty or
catastrophic regex are refused at validation (exit 2, the field named); a bundle that is no longer valid, or that
has no fresh review against the bundle it would replace, cannot come back by rollback.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.cli import main
from controlplane.policy_bundles.lifecycle import LifecycleError, PolicyLifecycle, current_policy
from controlplane.policy_bundles.loader import PolicyBundleError, canonical_content, load_bundle, parse_bundle
from controlplane.policy_bundles.signing import SigningConfig
from controlplane.review import run_review
from tests.traces.flowkit import governance_policy


def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def shipped() -> dict:
    return json.loads(json.dumps(canonical_content(load_bundle().bundle)))


def gate(data: dict, gate_id: str) -> dict:
    return next(g for g in data["gates"] if g["gate_id"] == gate_id)


def _no_gates(d):
    d["gates"] = []


def _all_disabled(d):
    for g in d["gates"]:
        g["enabled"] = False


def _empty_when(d):
    gate(d, "evidence_binding")["when"] = {}


def _unknown_when_key(d):
    gate(d, "evidence_binding")["when"] = {"sometimes": True}


def _empty_any_of(d):
    gate(d, "semantic_critic_sync")["when"]["any_of"] = []


def _empty_nested_when(d):
    gate(d, "semantic_critic_sync")["when"]["any_of"] = [{}]


def _misspelt_flag(d):
    gate(d, "evidence_binding")["when"] = {"domain_flags_none": ["writting"]}


def _invalid_regex(d):
    d["router"]["evasion_patterns"].append("(unclosed")


def _empty_regex(d):
    d["router"]["retrieval_triggers"].append("")


def _matches_everything(d):
    d["redaction"]["custom_patterns"] = ["x*"]


def _catastrophic_redaction(d):
    d["redaction"]["custom_patterns"] = ["(a+)+$"]


def _catastrophic_when(d):
    gate(d, "semantic_critic_sync")["when"]["any_of"][3]["message_matches_any"] = ["(\\w+\\s?)+$"]


def _catastrophic_alternation(d):
    d["router"]["evasion_patterns"].append("(a|ab)+c")


def _exception_masks_everything(d):
    d["domains"]["medical"]["lexicon_exceptions"] = ["*"]  # would mask every word: medical would never trigger


def _empty_lexicon_term(d):
    d["domains"]["legal"]["lexicon"].append("")


@pytest.mark.parametrize("mutate, field, fragment", [
    (_no_gates, "gates", "at least 1"),
    (_exception_masks_everything, "domains.medical.lexicon_exceptions", "has no letter or digit"),
    (_empty_lexicon_term, "domains.legal.lexicon", "has no letter or digit"),
    (_all_disabled, "(root)", "no gate is enabled"),
    (_empty_when, "gates.3.when", "empty when-condition"),
    (_unknown_when_key, "gates.3.when.sometimes", "Extra inputs"),
    (_empty_any_of, "gates", "any_of is an empty list"),
    (_empty_nested_when, "gates", "empty when-condition"),
    (_misspelt_flag, "(root)", "'writting'"),
    (_invalid_regex, "router.evasion_patterns", "not a valid regex"),
    (_empty_regex, "router.retrieval_triggers", "is empty"),
    (_matches_everything, "redaction.custom_patterns", "empty string"),
    (_catastrophic_redaction, "redaction.custom_patterns", "exponential"),
    (_catastrophic_when, "gates", "exponential"),
    (_catastrophic_alternation, "router.evasion_patterns", "exponential"),
])
def test_a_bundle_that_cannot_check_is_refused_naming_the_field(tmp_path: Path, mutate, field: str, fragment: str):
    data = shipped()
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(PolicyBundleError) as caught:
        load_bundle(path)
    assert f"field '{field}" in str(caught.value) and fragment in str(caught.value)
    out = cli("policy", "validate", path)
    assert out.exit_code == 2 and fragment in out.output and len(out.output.strip().splitlines()) == 1


def test_the_shipped_bundle_and_its_hash_are_unchanged_by_the_stricter_validation():
    assert load_bundle().hash == parse_bundle(shipped(), "again").hash
    assert cli("policy", "validate", Path(__file__).parents[2] / "policy_bundles" / "default.json").exit_code == 0


def test_an_unregistered_gate_id_is_refused_by_validate(tmp_path: Path):
    data = shipped()
    data["gates"].append({"gate_id": "fact_checker_9000", "when": {"always": True}})
    path = tmp_path / "unknown-gate.json"
    path.write_text(json.dumps(data))
    out = cli("policy", "validate", path)
    assert out.exit_code == 2 and "fact_checker_9000" in out.output and "not registered" in out.output


def _promote(life: PolicyLifecycle, store, loaded, tmp_path: Path, actor: str):
    life.register(loaded, actor, "new", state="candidate")
    run_review(store, loaded, out_base=tmp_path / f"rev-{loaded.hash[7:15]}", reviewer=actor)
    return life.promote(loaded.hash, actor, "because", SigningConfig(False, None))


def test_rollback_needs_a_fresh_review_against_the_bundle_it_replaces(store, tmp_path: Path):
    life = PolicyLifecycle(store)
    first, second = governance_policy(), governance_policy(max_claims=10)
    _promote(life, store, first, tmp_path, "ana")
    _promote(life, store, second, tmp_path, "bo")

    refused = cli("policy", "rollback", "default", "--db", store.path, "--why", "regen rate doubled")
    assert refused.exit_code == 2 and "refusing to roll back to" in refused.output
    assert "compared against" in refused.output and "policy review" in refused.output
    assert current_policy(store).hash == second.hash

    run_review(store, first, out_base=tmp_path / "rev-back", reviewer="cy")
    back = cli("policy", "rollback", "default", "--db", store.path, "--why", "regen rate doubled", "--by", "cy")
    assert back.exit_code == 0, back.output
    assert current_policy(store).hash == first.hash


def test_rollback_never_restores_a_bundle_that_no_longer_validates(store, tmp_path: Path):
    """A zero-gate bundle promoted before validation refused it (here: written straight into the db, under its
    true content hash) cannot be rolled back to, with or without a review."""
    import hashlib

    life = PolicyLifecycle(store)
    gateless = shipped()
    gateless["gates"] = []
    content = json.dumps(gateless, sort_keys=True)
    digest = "sha256:" + hashlib.sha256(json.dumps(gateless, sort_keys=True, separators=(",", ":"),
                                                   ensure_ascii=False).encode()).hexdigest()
    with store.transaction() as db:
        db["policy_versions"].insert({"hash": digest, "name": "default", "version": "0.0.1", "state": "retired",
                                      "source": "old", "signature": None, "content": content, "created_at": "2026",
                                      "created_by": "old", "updated_at": "2026"})
        db["policy_transitions"].insert({"name": "default", "hash": digest, "from_state": "candidate",
                                         "to_state": "promoted", "actor": "old", "reason": "old", "at": "2026"})
    _promote(life, store, governance_policy(), tmp_path, "ana")
    with pytest.raises(LifecycleError, match="refusing to roll back to .*gates"):
        life.rollback("default", "cy", "try", SigningConfig(False, None))
    assert current_policy(store).hash == governance_policy().hash


def test_a_catastrophic_redaction_regex_is_bounded_where_it_runs_and_leaves_no_tmp_file(flows, tmp_path: Path):
    """Validation refuses (a+)+$; should a pattern get past it, matching time is still bounded and the export
    fails closed without a stray .tmp file."""
    from controlplane.contracts import RedactionPolicy
    from controlplane.traces.bundles import export_bundles
    from controlplane.traces.redaction import RedactionError

    store, ids = flows
    slow = RedactionPolicy.model_construct(**{**RedactionPolicy().model_dump(), "custom_patterns": ["(a|aa)+$"]})
    with store.transaction() as db:  # a message the pattern backtracks on
        db.execute("UPDATE traces SET messages = ? WHERE trace_id = ?",
                   [json.dumps([{"role": "user", "content": "a" * 64 + "!"}]), ids["pass"]])
    out = tmp_path / "export" / "case.jsonl"
    started = time.monotonic()
    with pytest.raises(RedactionError, match=r"custom_patterns\[0\]"):
        export_bundles(store, out, trace_ids=[ids["pass"]], redaction=slow)
    assert time.monotonic() - started < 10
    assert list(out.parent.iterdir()) == []
