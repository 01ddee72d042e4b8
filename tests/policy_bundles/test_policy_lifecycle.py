"""Policy lifecycle: one promoted per name, promotion only on a fresh review, rollback, signatures, diff, review."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.cli import main
from controlplane.policy_bundles.diff import diff_bundles
from controlplane.policy_bundles.lifecycle import LifecycleError, PolicyLifecycle, current_policy
from controlplane.policy_bundles.loader import load_bundle
from controlplane.policy_bundles.signing import SignatureError, SigningConfig
from controlplane.review import run_review
from tests.traces.flowkit import ARCH_EVIDENCE, envelope, governance_policy, run, write_policy


def cli(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def base_file(tmp_path: Path, gov_policy) -> Path:
    return write_policy(gov_policy, tmp_path / "base.json")


@pytest.fixture
def tight_file(tmp_path: Path) -> Path:
    return write_policy(governance_policy(max_claims=1), tmp_path / "tight.json")


def test_diff_lists_the_changed_threshold(base_file: Path, tight_file: Path):
    changes = diff_bundles(load_bundle(base_file), load_bundle(tight_file))
    assert changes == [{"path": "budgets.max_claims", "change": "changed", "old": 64, "new": 1}]
    out = cli("policy", "diff", str(base_file), str(tight_file))
    assert out.exit_code == 0 and "~ budgets.max_claims: 64 -> 1" in out.output
    gate_change = governance_policy().bundle.model_dump(mode="json")
    gate_change["gates"][3]["when"] = {"always": True}
    other = write_policy(load_bundle_from(gate_change, base_file.parent / "g.json"), base_file.parent / "g.json")
    paths = [c["path"] for c in diff_bundles(load_bundle(base_file), load_bundle(other))]
    assert paths == ["gates.evidence_binding.when.always", "gates.evidence_binding.when.domain_flags_none"]


def load_bundle_from(data: dict, path: Path):
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_bundle(path)


def test_validate_names_the_bad_field(tmp_path: Path, base_file: Path):
    ok = cli("policy", "validate", str(base_file), "--json")
    assert ok.exit_code == 0 and json.loads(ok.output)["hash"] == load_bundle(base_file).hash
    data = json.loads(base_file.read_text())
    data["budgets"]["max_regen_attempts"] = -1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = cli("policy", "validate", str(bad))
    assert result.exit_code == 2 and "budgets.max_regen_attempts" in result.output


def test_review_report_counts_the_verdicts_a_threshold_changes(flows, tmp_path: Path, gov_policy, tight_file: Path):
    store, ids = flows
    report = run_review(store, load_bundle(tight_file), out_base=tmp_path / "rev", reviewer="ana", baseline=gov_policy)

    changes = report.data["changes"]
    assert changes["gates"] == {"budget_enforcer": {"counts": {"pass->fail": 3},
                                                    "examples": {"pass->fail": [ids["degraded"]]}}}
    assert changes["status_changes"]["counts"] == {"degraded->refused": 1}
    s = report.summary
    assert s["traces"] == 5 and s["changed_traces"] == 1
    assert s["baseline"]["refusal_rate"] == pytest.approx(2 / 5) and s["candidate"]["refusal_rate"] == pytest.approx(3 / 5)
    # regen_pass, degraded and the spoofed-citation refusal each needed more than one attempt
    assert s["baseline"]["regen_rate"] == pytest.approx(3 / 5) and s["candidate"]["regen_rate"] == pytest.approx(3 / 5)
    md = (tmp_path / "rev.md").read_text()
    assert "| budget_enforcer | pass->fail | 3 |" in md and ids["degraded"] in md
    assert "| refusal rate | 40.0% | 60.0% |" in md
    assert json.loads((tmp_path / "rev.json").read_text())["changes"] == changes


def test_promote_needs_a_fresh_review_of_that_exact_hash(flows, tmp_path: Path, base_file: Path, tight_file: Path,
                                                          gov_policy):
    store, _ = flows
    db = str(store.path)
    refused = cli("policy", "promote", str(base_file), "--db", db, "--why", "baseline")
    assert refused.exit_code == 2 and "no review of bundle" in refused.output
    assert PolicyLifecycle(store).promoted("default") is None

    assert cli("policy", "review", str(base_file), "--db", db, "-o", str(tmp_path / "r0")).exit_code == 0
    promoted = cli("policy", "promote", str(base_file), "--db", db, "--why", "baseline", "--by", "ana")
    assert promoted.exit_code == 0, promoted.output
    assert current_policy(store).hash == gov_policy.hash

    # a review of another bundle does not count for this one
    other = write_policy(governance_policy(max_claims=2), tmp_path / "other.json")
    assert cli("policy", "review", str(other), "--db", db, "-o", str(tmp_path / "r1")).exit_code == 0
    no_review = cli("policy", "promote", str(tight_file), "--db", db, "--why", "tighter")
    assert no_review.exit_code == 2 and "no review of bundle" in no_review.output

    review = cli("policy", "review", str(tight_file), "--db", db, "-o", str(tmp_path / "r2"), "--json")
    assert review.exit_code == 0
    assert json.loads(review.output)["changes"]["gates"]["budget_enforcer"]["counts"] == {"pass->fail": 3}

    # a trace stored after the review makes it stale
    run(store, gov_policy, tmp_path, "late", [envelope([("We host on Fly.io [E1].", ["E1"])])],
        "Where do we host our architecture?", ARCH_EVIDENCE)
    stale = cli("policy", "promote", str(tight_file), "--db", db, "--why", "tighter")
    assert stale.exit_code == 2 and "was stored after it" in stale.output

    assert cli("policy", "review", str(tight_file), "--db", db, "-o", str(tmp_path / "r3")).exit_code == 0
    ok = cli("policy", "promote", str(tight_file), "--db", db, "--why", "tighter", "--by", "bo")
    assert ok.exit_code == 0, ok.output
    assert current_policy(store).bundle.budgets.max_claims == 1


def _promote(life: PolicyLifecycle, store, loaded, tmp_path: Path, actor: str, why: str):
    life.register(loaded, actor, "new", state="candidate")
    run_review(store, loaded, out_base=tmp_path / f"rev-{loaded.hash[7:15]}", reviewer=actor)
    return life.promote(loaded.hash, actor, why, SigningConfig(False, None))


def test_exactly_one_promoted_per_name_and_rollback_restores_the_previous(store, tmp_path: Path):
    life = PolicyLifecycle(store)
    first, second = governance_policy(), governance_policy(max_claims=10)
    _promote(life, store, first, tmp_path, "ana", "first")
    _promote(life, store, second, tmp_path, "bo", "second")

    states = {v.hash: v.state for v in life.list("default")}
    assert states == {first.hash: "retired", second.hash: "promoted"}
    with pytest.raises(sqlite3.IntegrityError), store.transaction() as db:
        db.execute("UPDATE policy_versions SET state = 'promoted' WHERE hash = ?", [first.hash])

    # rollback meets the promotion bar: a fresh review of the bundle coming back, against the one it replaces
    run_review(store, first, out_base=tmp_path / "rev-back", reviewer="cy")
    back = cli("policy", "rollback", "default", "--db", str(store.path), "--why", "regen rate doubled", "--by", "cy")
    assert back.exit_code == 0, back.output
    assert current_policy(store).hash == first.hash
    assert {v.hash: v.state for v in life.list("default")} == {first.hash: "promoted", second.hash: "retired"}
    last = life.history("default")[-2:]
    assert [(m["hash"], m["from_state"], m["to_state"], m["actor"]) for m in last] == [
        (second.hash, "promoted", "retired", "cy"), (first.hash, "retired", "promoted", "cy")]
    assert all("regen rate doubled" in m["reason"] and m["at"] for m in last)

    listed = cli("policy", "list", "--db", str(store.path), "--history")
    assert "promoted" in listed.output and "by cy: rollback: regen rate doubled" in listed.output
    with pytest.raises(LifecycleError, match="already the promoted"):
        life.promote(first.hash, "x", "again", SigningConfig(False, None))


def test_rollback_without_a_previous_bundle_is_refused(store):
    result = cli("policy", "rollback", "default", "--db", str(store.path), "--why", "oops")
    assert result.exit_code == 2 and "nothing to roll back" in result.output


def test_signatures_valid_tampered_and_required(store, tmp_path: Path, base_file: Path, monkeypatch):
    keys = tmp_path / "keys" / "ops"
    assert cli("policy", "keygen", str(keys)).exit_code == 0
    private, public = Path(str(keys) + ".key"), Path(str(keys) + ".pub")
    assert private.stat().st_mode & 0o777 == 0o600

    signed = cli("policy", "sign", str(base_file), "--key", str(private))
    assert signed.exit_code == 0, signed.output
    verified = cli("policy", "validate", str(base_file), "--public-key", str(public), "--require-signed")
    assert verified.exit_code == 0 and "signed, verified" in verified.output

    # reformatting keeps the signature (it signs the content hash); changing content breaks it
    data = json.loads(base_file.read_text())
    base_file.write_text(json.dumps(data, indent=8))
    assert cli("policy", "validate", str(base_file), "--public-key", str(public), "--require-signed").exit_code == 0
    data["budgets"]["max_claims"] = 63
    base_file.write_text(json.dumps(data))
    tampered = cli("policy", "validate", str(base_file), "--public-key", str(public), "--require-signed")
    assert tampered.exit_code == 2 and "changed after signing" in tampered.output

    unsigned = write_policy(governance_policy(max_claims=5), tmp_path / "unsigned.json")
    life = PolicyLifecycle(store)
    version = life.register_file(unsigned, "ana", "try", state="candidate")
    run_review(store, load_bundle(unsigned), out_base=tmp_path / "rev", reviewer="ana")
    monkeypatch.setenv("CONTROLPLANE_REQUIRE_SIGNED_POLICY", "1")
    monkeypatch.setenv("CONTROLPLANE_POLICY_PUBLIC_KEY", str(public))
    refused = cli("policy", "promote", version.hash, "--db", str(store.path), "--why", "unsigned")
    assert refused.exit_code == 2 and "unsigned" in refused.output
    with pytest.raises(SignatureError, match="shipped default is unsigned"):
        current_policy(store)

    # sign it, register the signature, then promotion goes through and current_policy verifies it
    assert cli("policy", "sign", str(unsigned), "--key", str(private)).exit_code == 0
    life.register_file(unsigned, "ana", "signature")
    ok = cli("policy", "promote", version.hash, "--db", str(store.path), "--why", "signed")
    assert ok.exit_code == 0, ok.output
    assert current_policy(store).hash == version.hash

    # a signature by another key does not verify
    other = tmp_path / "keys" / "other"
    cli("policy", "keygen", str(other))
    monkeypatch.setenv("CONTROLPLANE_POLICY_PUBLIC_KEY", str(other) + ".pub")
    with pytest.raises(SignatureError, match="does not verify"):
        current_policy(store)


def test_traces_imported_after_the_review_make_it_stale_even_if_older(flows, tmp_path: Path, tight_file: Path):
    from controlplane.traces.bundles import export_bundles, import_bundles

    store, ids = flows
    db = str(store.path)
    assert cli("policy", "review", str(tight_file), "--db", db, "-o", str(tmp_path / "r")).exit_code == 0
    old = tmp_path / "old.jsonl"
    export_bundles(store, old, trace_ids=[ids["pass"]])
    import_bundles(store, old, on_conflict="rekey")  # same created_at as before: not "newer", but not reviewed
    stale = cli("policy", "promote", str(tight_file), "--db", db, "--why", "tighter")
    assert stale.exit_code == 2 and "1 trace(s) were stored (or imported) after the review" in stale.output


def test_a_candidate_naming_an_uninstalled_gate_cannot_be_reviewed_or_promoted(flows, tmp_path: Path):
    store, _ = flows
    data = governance_policy(max_claims=3).bundle.model_dump(mode="json")
    data["gates"].append({"gate_id": "gate_nobody_installed", "when": {"always": True}})
    path = tmp_path / "ghost.json"
    path.write_text(json.dumps(data))
    review = cli("policy", "review", str(path), "--db", str(store.path), "-o", str(tmp_path / "r"))
    assert review.exit_code == 2 and "gate_nobody_installed" in review.output
    promote = cli("policy", "promote", str(path), "--db", str(store.path), "--why", "x")
    assert promote.exit_code == 2 and "gate_nobody_installed" in promote.output  # refused before any review


def test_a_review_that_could_not_replay_every_trace_does_not_allow_promotion(flows, tmp_path: Path, tight_file: Path):
    store, _ = flows
    with store.transaction() as db:  # someone edited a stored policy snapshot: its content no longer matches its hash
        db.execute("UPDATE policy_snapshots SET content = json_set(content, '$.budgets.max_claims', 65)")
    review = cli("policy", "review", str(tight_file), "--db", str(store.path), "-o", str(tmp_path / "r"), "--json")
    assert review.exit_code == 0
    error = json.loads((tmp_path / "r.json").read_text())["errors"][0]["error"]
    assert "the bundle was edited" in error and "policy.content" in error
    promote = cli("policy", "promote", str(tight_file), "--db", str(store.path), "--why", "x")
    assert promote.exit_code == 2 and "could not replay 10 trace(s)" in promote.output
