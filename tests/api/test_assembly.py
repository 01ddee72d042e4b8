"""One assembly path (issue 12 item 1, issue 16 item 9): the CLI, the Python API and HTTP build the same
``controlplane.ControlPlane``, so they resolve the same policy, own the same services, and print the same answer.

Everything runs through the real pipeline with the scripted model adapter; policies are promoted and rolled back
through the real lifecycle (review included) in a temporary trace store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from controlplane import ConfigurationError, ControlPlane
from controlplane.cli import main
from controlplane.policy_bundles.lifecycle import PolicyLifecycle
from controlplane.policy_bundles.loader import canonical_content, parse_bundle
from controlplane.policy_bundles.signing import SigningConfig, keygen, load_private_key, sign_hash, signature_path
from controlplane.pytest_plugin import GateHarness
from controlplane.review import run_review
from controlplane.server import BackgroundServer, free_port
from controlplane.traces.store import TraceStore

EVIDENCE = [
    {"id": "E1", "title": "Stack", "text": "We host on Fly.io. DB is Turso (SQLite).", "trust_tier": "authoritative"},
    {"id": "E2", "title": "Regions", "text": "The primary Fly.io region is ams (Amsterdam)."},
]
QUESTION = "What is our hosting architecture?"
TWO_CLAIMS = GateHarness.envelope(
    "We host on Fly.io [E1]. The primary region is ams [E2].",
    claims=[("We host on Fly.io [E1].", ["E1"]), ("The primary region is ams [E2].", ["E2"])],
    domain_flags=["architecture"],
)
# Values that differ between two runs of the same request by nature, not by assembly.
VOLATILE = {"trace_id", "latency_ms"}


@pytest.fixture(autouse=True)
def _no_ambient_policy(monkeypatch):
    for name in ("CONTROLPLANE_POLICY", "CONTROLPLANE_REQUIRE_SIGNED_POLICY", "CONTROLPLANE_POLICY_PUBLIC_KEY",
                 "CONTROLPLANE_POLICY_NAME", "CONTROLPLANE_MODEL"):
        monkeypatch.delenv(name, raising=False)


def cli(*args: Any):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_policy(loaded, path: Path) -> Path:
    return write_json(path, canonical_content(loaded.bundle))


def without(data: Any, keys: set[str]) -> Any:
    if isinstance(data, dict):
        return {k: without(v, keys) for k, v in data.items() if k not in keys}
    if isinstance(data, list):
        return [without(v, keys) for v in data]
    return data


def policy_with(base, **budgets):
    data = base.bundle.model_dump(mode="json")
    data["budgets"].update(budgets)
    return parse_bundle(data, source="tests:assembly")


@pytest.fixture
def files(tmp_path: Path):
    script = tmp_path / "answers.jsonl"
    script.write_text("\n".join(json.dumps(TWO_CLAIMS) for _ in range(3)) + "\n", encoding="utf-8")
    return {"script": script, "evidence": write_json(tmp_path / "evidence.json", EVIDENCE), "db": tmp_path / "t.db"}


# -- one shape ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("outputs", [[TWO_CLAIMS], ["Sure, Fly.io.", TWO_CLAIMS]], ids=["pass", "regen_pass"])
def test_run_json_is_respond_as_json(tmp_path: Path, files, default_policy, outputs):
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(json.dumps(o) for o in outputs) + "\n", encoding="utf-8")
    policy = write_policy(default_policy, tmp_path / "policy.json")
    out = cli("run", "-m", QUESTION, "--evidence", files["evidence"], "--model", f"scripted:{script}",
              "--policy", policy, "--db", tmp_path / "cli.db", "--nli-backend", "none", "--json")
    assert out.exit_code == 0, out.output
    printed = json.loads(out.output)

    with ControlPlane(model=f"scripted:{script}", policy=policy, db=tmp_path / "api.db", nli_backend="none") as plane:
        reply = plane.respond(QUESTION, evidence=EVIDENCE)
    expected = json.loads(json.dumps(reply.as_json()))
    assert without(printed, VOLATILE) == without(expected, VOLATILE)
    assert printed["status"] == ("pass" if len(outputs) == 1 else "regen_pass")
    # the keys `run --json` printed before it became respond().as_json() are all still there
    assert {"trace_id", "status", "attempts", "assistant_text", "verified", "mode_decision", "evidence_ids",
            "pre_generation_gates", "gate_results", "claims", "degrade", "verification", "model"} <= set(printed)


# -- one policy: promotion and rollback reach every surface -------------------------------------------------------
def promote(store: TraceStore, loaded, tmp_path: Path, why: str, signature: dict | None = None) -> None:
    life = PolicyLifecycle(store)
    life.register(loaded, "ana", "candidate for " + why, signature=signature, state="candidate")
    run_review(store, loaded, out_base=tmp_path / f"review-{loaded.hash[7:15]}", reviewer="ana")
    life.promote(loaded.hash, "ana", why, SigningConfig(False, None))


def statuses(files, plane: ControlPlane, url: str) -> dict[str, str]:
    ran = cli("run", "-m", QUESTION, "--evidence", files["evidence"], "--model", f"scripted:{files['script']}",
              "--db", files["db"], "--nli-backend", "none", "--json")
    assert ran.exit_code == 0, ran.output
    answered = httpx.post(f"{url}/v1/chat/completions", timeout=30,
                          json={"messages": [{"role": "user", "content": QUESTION}], "evidence": EVIDENCE})
    assert answered.status_code == 200, answered.text
    envelope = write_json(files["db"].parent / "envelope.json", TWO_CLAIMS)
    verified = cli("verify", "--envelope", envelope, "--evidence", files["evidence"], "-m", QUESTION, "--db",
                   files["db"], "--nli-backend", "none", "--json")
    return {"cli": json.loads(ran.output)["status"], "api": plane.respond(QUESTION, evidence=EVIDENCE).status,
            "http": answered.json()["controlplane"]["status"],
            "verify": "pass" if json.loads(verified.output)["status"] == "pass" else "not pass"}


def test_a_promoted_bundle_changes_the_verdict_on_cli_verify_api_and_http_and_a_rollback_changes_it_back(
        tmp_path: Path, files, default_policy):
    store = TraceStore(files["db"])
    baseline, tight = default_policy, policy_with(default_policy, max_claims=1)
    promote(store, baseline, tmp_path, "baseline")
    # one long-lived plane (no policy given: the promoted one) behind a running server: never rebuilt below
    plane = ControlPlane(model=f"scripted:{files['script']}", db=store, nli_backend="none")
    server = BackgroundServer(plane.app()).start()
    try:
        passing = {"cli": "pass", "api": "pass", "http": "pass", "verify": "pass"}
        assert statuses(files, plane, server.url) == passing

        promote(store, tight, tmp_path, "at most one claim")
        after = statuses(files, plane, server.url)
        assert after["verify"] == "not pass" and after["cli"] != "pass", after
        assert after["api"] == after["http"] == after["cli"], after
        last = plane.trace(plane.traces(limit=1)[0]["trace_id"])
        assert last.policy.hash == tight.hash
        assert any("CLAIMS_EXCEEDED" in [c.value for c in g.reason_codes] for g in last.attempts[0].gate_results)

        # rollback clears the promotion bar (issue 16 item 6): a fresh review against the bundle it replaces
        run_review(store, baseline, out_base=tmp_path / "review-rollback", reviewer="bo")
        PolicyLifecycle(store).rollback("default", "bo", "too tight")
        assert statuses(files, plane, server.url) == passing
        assert plane.policy.hash == baseline.hash
    finally:
        server.stop()
        plane.close()
        store.close()


# -- one signature bar on every surface (issue 16 item 9) ---------------------------------------------------------
@pytest.fixture
def signing(tmp_path: Path, monkeypatch):
    private, public = keygen(tmp_path / "keys" / "ops")
    monkeypatch.setenv("CONTROLPLANE_REQUIRE_SIGNED_POLICY", "1")
    monkeypatch.setenv("CONTROLPLANE_POLICY_PUBLIC_KEY", str(public))
    return private, public


def sign_file(path: Path, loaded, private: Path) -> dict:
    signature = sign_hash(loaded.hash, load_private_key(private))
    write_json(signature_path(path), signature)
    return signature


def surfaces(files, extra: list[Any]) -> dict[str, Any]:
    common = ["--evidence", files["evidence"], "--model", f"scripted:{files['script']}", "--db", files["db"],
              "--nli-backend", "none", *extra]
    envelope = write_json(files["db"].parent / "envelope.json", TWO_CLAIMS)
    return {
        "run": cli("run", "-m", QUESTION, *common),
        "ask": cli("ask", QUESTION, *common),
        "verify": cli("verify", "--envelope", envelope, "--evidence", files["evidence"], "--db", files["db"],
                      "--nli-backend", "none", *extra),
        "serve": serve(files, extra),
    }


@dataclass
class Finished:
    exit_code: int
    output: str


def serve(files, extra: list[Any]) -> Finished:
    """`controlplane serve` as a user starts it; if it came up (it must not), the timeout ends it and the test fails."""
    port = free_port()
    try:
        done = subprocess.run([sys.executable, "-c", "from controlplane.cli import main; main()", "serve", "--port",
                               str(port), "--model", f"scripted:{files['script']}", "--db", str(files["db"]),
                               "--nli-backend", "none", *map(str, extra)],
                              capture_output=True, text=True, timeout=60, env={**os.environ}, check=False)
    except subprocess.TimeoutExpired as exc:
        return Finished(-1, f"serve was still running after 60 s: {exc.stderr!r}")
    return Finished(done.returncode, done.stdout + done.stderr)


def assert_refused(results: dict[str, Any], fragment: str) -> None:
    for surface, result in results.items():
        # progress lines (`[controlplane] loading model ...`) may come first; the error is one line
        lines = [line for line in result.output.splitlines() if line.strip() and not line.startswith("[controlplane]")]
        assert result.exit_code == 2, (surface, result.output)
        assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], (surface, result.output)
        assert "serving" not in result.output, surface


def test_with_signatures_required_the_unsigned_shipped_default_is_refused_everywhere(files, signing):
    assert_refused(surfaces(files, []), "unsigned")
    with pytest.raises(ConfigurationError, match="unsigned"):
        ControlPlane(model=f"scripted:{files['script']}", db=files["db"], nli_backend="none")
    with pytest.raises(ConfigurationError, match="unsigned"):
        ControlPlane(model=f"scripted:{files['script']}", db=False, nli_backend="none")
    assert TraceStore(files["db"]).list_traces() == []  # nothing ran


def test_with_signatures_required_an_unsigned_explicit_bundle_is_refused_and_a_signed_one_runs(
        tmp_path: Path, files, default_policy, signing):
    private, _ = signing
    unsigned = write_policy(default_policy, tmp_path / "unsigned.json")
    assert_refused(surfaces(files, ["--policy", unsigned]), "unsigned")
    for policy in (unsigned, default_policy, default_policy.bundle.model_dump(mode="json")):
        with pytest.raises(ConfigurationError, match="unsigned|without a signature"):
            ControlPlane(model=f"scripted:{files['script']}", policy=policy, db=False, nli_backend="none")

    signed = write_policy(default_policy, tmp_path / "signed.json")
    sign_file(signed, default_policy, private)
    ran = cli("run", "-m", QUESTION, "--evidence", files["evidence"], "--model", f"scripted:{files['script']}",
              "--db", files["db"], "--nli-backend", "none", "--policy", signed, "--json")
    assert ran.exit_code == 0 and json.loads(ran.output)["status"] == "pass", ran.output
    with ControlPlane(model=f"scripted:{files['script']}", policy=signed, db=False, nli_backend="none") as plane:
        assert plane.respond(QUESTION, evidence=EVIDENCE).status == "pass"


def test_with_signatures_required_an_unsigned_promoted_bundle_is_refused_everywhere(
        tmp_path: Path, files, default_policy, signing, monkeypatch):
    monkeypatch.setenv("CONTROLPLANE_REQUIRE_SIGNED_POLICY", "0")  # promoted before the deployment required signing
    store = TraceStore(files["db"])
    promote(store, default_policy, tmp_path, "baseline")
    monkeypatch.setenv("CONTROLPLANE_REQUIRE_SIGNED_POLICY", "1")
    assert_refused(surfaces(files, []), "unsigned")
    with pytest.raises(ConfigurationError, match="unsigned"):
        ControlPlane(model=f"scripted:{files['script']}", db=store, nli_backend="none")
    assert store.list_traces() == []
    store.close()


def test_a_running_server_refuses_requests_once_an_unsigned_bundle_is_promoted_behind_it(
        tmp_path: Path, files, default_policy, signing, monkeypatch):
    private, public = signing
    store = TraceStore(files["db"])
    signed = write_policy(default_policy, tmp_path / "signed.json")
    monkeypatch.setenv("CONTROLPLANE_REQUIRE_SIGNED_POLICY", "0")  # the lifecycle runs in another process
    promote(store, default_policy, tmp_path, "signed baseline", signature=sign_file(signed, default_policy, private))
    plane = ControlPlane(model=f"scripted:{files['script']}", db=store, nli_backend="none", require_signed=True,
                         public_key=public)
    server = BackgroundServer(plane.app()).start()
    body = {"messages": [{"role": "user", "content": QUESTION}], "evidence": EVIDENCE}
    try:
        assert httpx.post(f"{server.url}/v1/chat/completions", json=body, timeout=30).json()[
            "controlplane"]["status"] == "pass"
        # someone promotes an unsigned bundle from a process that does not require signatures
        promote(store, policy_with(default_policy, max_claims=1), tmp_path, "unsigned change")
        refused = httpx.post(f"{server.url}/v1/chat/completions", json=body, timeout=30)
        assert refused.status_code == 500 and refused.json()["error"]["code"] == "configuration_error"
        assert "unsigned" in refused.json()["error"]["message"]
        assert len(store.list_traces()) == 1  # the refused request ran nothing
    finally:
        server.stop()
        plane.close()
        store.close()


# -- one set of services: the critic and the NLI cache --------------------------------------------------------------
class CountingNli:
    """A real NliBackend: entails what its evidence contains word for word, and counts every pair it scores."""

    name = "counting"
    method = "nli"

    def __init__(self):
        self.pairs: list[tuple[str, str]] = []

    def score(self, pairs):
        from controlplane.gates.interfaces import NliScore

        self.pairs.extend(pairs)
        return [NliScore(entailment=0.99 if all(w in p.lower() for w in h.lower().split()[:2]) else 0.01,
                         contradiction=0.0, neutral=0.01) for p, h in pairs]

    def metadata(self):
        return {"name": self.name, "method": self.method}


def test_the_plane_owns_the_nli_score_cache_so_no_pair_is_scored_twice(tmp_path: Path, files, shipped_policy):
    backend = CountingNli()
    policy = write_policy(shipped_policy, tmp_path / "shipped.json")
    with ControlPlane(model=f"scripted:{files['script']}", policy=policy, db=False, nli_backend=backend,
                      critic=False) as plane:
        plane.respond(QUESTION, evidence=EVIDENCE)
        plane.respond(QUESTION, evidence=EVIDENCE)
        assert backend.pairs, "the shipped bundle's NLI gates scored nothing"
        assert len(backend.pairs) == len(set(backend.pairs))
        assert plane.services.nli_backend.hits > 0


def test_the_plane_owns_the_sync_critic_so_the_critic_gate_can_run(tmp_path: Path, shipped_policy):
    data = shipped_policy.bundle.model_dump(mode="json")
    data["gates"] = [g for g in data["gates"] if g["gate_id"] in ("output_schema", "semantic_critic_sync")]
    for gate in data["gates"]:
        gate["when"] = {"always": True}
    policy = write_json(tmp_path / "critic-policy.json", data)
    finding = {"finding_id": "f1", "severity": "high", "type": "UNSUPPORTED_CLAIM", "claim_id": "c1",
               "explanation": "Fly.io is not in the evidence."}
    script = tmp_path / "with-critic.jsonl"
    script.write_text(json.dumps(TWO_CLAIMS) + "\n" + json.dumps({"output": [finding], "purpose": "critic"}) + "\n")
    with ControlPlane(model=f"scripted:{script}", policy=policy, db=False, nli_backend="none") as plane:
        reply = plane.respond(QUESTION, evidence=EVIDENCE)
        critic = [g for g in reply.gate_results if g.gate_id == "semantic_critic_sync"]
        assert critic and critic[0].reason_codes == ("CRITIC_FINDING",), reply.as_json()
        server = BackgroundServer(plane.app()).start()  # over HTTP the same plane, so the same critic
        try:
            answered = httpx.post(f"{server.url}/v1/chat/completions", timeout=30,
                                  json={"messages": [{"role": "user", "content": QUESTION}], "evidence": EVIDENCE})
        finally:
            server.stop()
        gates = answered.json()["controlplane"]["gate_results"]
        assert next(g["reason_codes"] for g in gates if g["gate_id"] == "semantic_critic_sync") == ["CRITIC_FINDING"]
    with ControlPlane(model=f"scripted:{script}", policy=policy, db=False, nli_backend="none", critic=False) as plane:
        critic = [g for g in plane.respond(QUESTION, evidence=EVIDENCE).gate_results
                  if g.gate_id == "semantic_critic_sync"]
        assert critic[0].reason_codes == ("CRITIC_UNAVAILABLE",)


def test_the_require_signed_flag_sets_the_same_bar_without_the_environment(tmp_path: Path, files):
    _, public = keygen(tmp_path / "keys" / "ops")
    flags = ["--require-signed", "--public-key", public]
    assert_refused(surfaces(files, flags), "unsigned")
    assert cli("run", "-m", QUESTION, "--evidence", files["evidence"], "--model", f"scripted:{files['script']}",
               "--db", files["db"], "--nli-backend", "none").exit_code == 0  # without the flag the default runs


def test_an_evidence_files_rules_reach_the_pack_on_the_cli_and_in_python(tmp_path: Path, default_policy):
    """The CLI hands an evidence file's rules to respond(rules=...): without the citation and UNKNOWN-label rules,
    an uncited claim passes evidence_binding; with the default rules it fails UNCITED_CLAIM."""
    uncited = GateHarness.envelope("We host on Fly.io.", claims=[("We host on Fly.io.", [])],
                                   domain_flags=["architecture"])
    script = tmp_path / "uncited.jsonl"
    script.write_text(json.dumps(uncited) + "\n", encoding="utf-8")
    rules = {"must_cite_for_factual_claims": False, "unknown_label_required": False}
    policy = write_policy(default_policy, tmp_path / "policy.json")

    def binding(data: dict) -> list:
        return [(g["result"], g["reason_codes"]) for g in data["gate_results"]
                if g["gate_id"] == "evidence_binding" and g["attempt"] == 1]

    for given, expected in ((rules, [("pass", [])]), ({}, [("fail", ["UNCITED_CLAIM"])])):
        pack_file = write_json(tmp_path / "pack.json", {"evidence": EVIDENCE, "rules": given})
        ran = cli("run", "-m", QUESTION, "--evidence", pack_file, "--model", f"scripted:{script}",
                  "--policy", policy, "--db", tmp_path / "t.db", "--nli-backend", "none", "--json")
        assert ran.exit_code == 0, ran.output
        with ControlPlane(model=f"scripted:{script}", policy=policy, db=False, nli_backend="none") as plane:
            reply = plane.respond(QUESTION, evidence=EVIDENCE, rules=given or None)
        assert binding(json.loads(ran.output)) == binding(reply.as_json()) == expected
