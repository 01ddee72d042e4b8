"""Custom gates, model adapters, retrievers and NLI backends: registered in code and by a real entry point (a
distribution on sys.path with an ``entry_points.txt`` in the ``controlplane`` group)."""

from __future__ import annotations

import json

import pytest

from controlplane import BaseGate, ConfigurationError, ControlPlane, InputError, ReasonCode
from controlplane.contracts import CostClass
from controlplane.policy_bundles.loader import parse_bundle
from controlplane.pytest_plugin import GateHarness

EVIDENCE = [{"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite)."}]
QUESTION = "Where do we host? (architecture)"


def answer(text: str = "We host on Fly.io [E1].", ids=("E1",)) -> dict:
    return GateHarness.envelope(text, claims=[(text, list(ids))], domain_flags=["architecture"])


class NoExclamationGate(BaseGate):
    gate_id = "no_exclamation"
    version = "v1"
    cost_class = CostClass.CHEAP

    def evaluate(self, inp):
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        if "!" in inp.envelope.assistant_text:
            return self.failing([ReasonCode.UNSUPPORTED_CONTENT], details={"why": "exclamation mark"})
        return self.passing()


def with_gate(policy, gate_id: str):
    data = policy.bundle.model_dump(mode="json", exclude_none=True)
    data["gates"].append({"gate_id": gate_id, "when": {"always": True}})
    return parse_bundle(data, source=f"tests:+{gate_id}")


def test_a_gate_registered_in_code_runs_where_the_policy_names_it(scripted_model, core_policy):
    policy = with_gate(core_policy, "no_exclamation")
    plane = ControlPlane(model=scripted_model([answer("We host on Fly.io [E1]!")] * 3), policy=policy, db=False)
    with pytest.raises(ConfigurationError, match="no_exclamation"):
        plane.check()  # the policy names a gate nobody registered yet: fail before any request
    with pytest.raises(ConfigurationError, match="no_exclamation"):
        plane.respond(QUESTION, evidence=EVIDENCE)
    plane.register_gate(NoExclamationGate())
    reply = plane.respond(QUESTION, evidence=EVIDENCE)
    assert "no_exclamation" in reply.failing_gates
    assert reply.status in ("degraded", "refused") and not reply.verified
    with pytest.raises(ConfigurationError, match="registered twice"):
        plane.register_gate(NoExclamationGate())

    ok = ControlPlane(model=scripted_model([answer()]), policy=policy, db=False, gates=[NoExclamationGate()])
    reply = ok.respond(QUESTION, evidence=EVIDENCE)
    assert reply.status == "pass"
    assert [g.result for g in reply.gates_for(1) if g.gate_id == "no_exclamation"] == ["pass"]


PLUGIN_SOURCE = '''
"""An installed third-party plugin: one gate, one model adapter prefix, one retriever, one NLI backend."""
import json
from pathlib import Path

from controlplane.adapters.scripted import ScriptedModel
from controlplane.contracts import CostClass, EvidenceItem, ReasonCode
from controlplane.gates.hookspec import hookimpl
from controlplane.gates.interfaces import BaseGate, NliScore


class NoShoutingGate(BaseGate):
    gate_id = "no_shouting"
    cost_class = CostClass.CHEAP

    def evaluate(self, inp):
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        loud = [w for w in inp.envelope.assistant_text.split() if len(w) > 3 and w.isalpha() and w.isupper()]
        if loud:
            return self.failing([ReasonCode.UNSUPPORTED_CONTENT], details={"loud": loud})
        return self.passing()


class KeywordRetriever:
    """Documents from a JSON file; a document matches when it shares a word of 4+ letters with the query."""

    def __init__(self, path):
        self.name = "keyword:" + str(path)
        self.docs = json.loads(Path(path).read_text())

    def retrieve(self, query, k):
        words = {w.strip("?.,()").lower() for w in query.split() if len(w.strip("?.,()")) >= 4}
        hits = []
        for n, doc in enumerate(self.docs):
            score = len(words & {w.strip(".,()").lower() for w in doc.split()}) / max(1, len(words))
            if score > 0:
                hits.append(EvidenceItem(id=f"K{n}", type="RETRIEVAL_SNIPPET", text=doc, hash="sha256:" + "0" * 64,
                                         provenance={"source": self.name, "document_id": f"doc{n}"},
                                         retrieval_score=round(score, 3)))
        return sorted(hits, key=lambda i: (-i.retrieval_score, i.id))[:k]


class EveryoneAgrees:
    name = "agreeable"

    def score(self, pairs):
        return [NliScore(0.99, 0.0, 0.01) for _ in pairs]

    def metadata(self):
        return {"name": self.name}


@hookimpl
def controlplane_gates():
    return [NoShoutingGate()]


@hookimpl
def controlplane_model_adapters():
    return {"canned": lambda argument, options: ScriptedModel(argument)}


@hookimpl
def controlplane_retrievers():
    return {"keyword": KeywordRetriever}


@hookimpl
def controlplane_nli_backends():
    return {"agreeable": lambda *args, **kwargs: EveryoneAgrees()}
'''


@pytest.fixture
def installed_plugin(tmp_path, monkeypatch):
    """A distribution 'cp-example-plugin' whose entry point ``controlplane`` group names the module above."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "cp_example_plugin.py").write_text(PLUGIN_SOURCE)
    info = site / "cp_example_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cp-example-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[controlplane]\nexample = cp_example_plugin\n")
    monkeypatch.syspath_prepend(str(site))
    docs = tmp_path / "docs.json"
    docs.write_text(json.dumps(["We host on Fly.io in ams.", "Lunch is served at noon."]))
    return docs


def test_gate_adapter_and_retriever_from_an_entry_point(installed_plugin, scripted_model, core_policy):
    policy = with_gate(core_policy, "no_shouting")
    script = scripted_model([answer("We host on Fly.io [K1].", ids=["K1"]),
                             answer("We HOST on Fly.io [E1].")] * 3).path
    plane = ControlPlane(model=f"canned:{script}", retriever=f"keyword:{installed_plugin}", policy=policy, db=False)
    assert "no_shouting" in plane.gate_ids()
    assert plane.model_id.startswith("scripted:")
    # no evidence in the request: the question is answered from the plugin retriever, evidence renumbered E1..
    reply = plane.respond("Where do we host? (architecture)")
    assert reply.evidence_ids == ("E1",)
    failing = {g.gate_id for g in reply.gates_for(1) if g.failed}
    assert "evidence_binding" in failing  # K1 is not an id of the pack: ids are the pack's, never the retriever's
    assert {g.gate_id for g in reply.gates_for(2) if g.failed} == {"no_shouting"}
    assert "no_shouting" not in ControlPlane(model=f"scripted:{script}", policy=core_policy, db=False,
                                             load_entry_points=False).gate_ids()


def test_loading_entry_points_can_be_switched_off(installed_plugin, scripted_model, core_policy):
    with pytest.raises(ConfigurationError, match="unknown model spec"):
        ControlPlane(model="canned:x", policy=core_policy, db=False, load_entry_points=False)


def test_nli_backend_by_plugin_name_drives_the_nli_gate(installed_plugin, scripted_model, core_policy):
    from controlplane.policy_bundles.loader import load_bundle

    full = load_bundle()  # the shipped bundle, nli_entailment included
    if not any(g.gate_id == "nli_entailment" for g in full.bundle.gates):
        pytest.skip("the shipped policy has no nli_entailment gate in this checkout")
    model = scripted_model([answer()] * 3)
    plane = ControlPlane(model=model, policy=full, db=False, nli_backend="agreeable")
    reply = plane.respond(QUESTION, evidence=EVIDENCE)
    nli = [g for g in reply.gates_for(1) if g.gate_id == "nli_entailment"]
    assert nli and nli[0].result == "pass", reply.as_json()
    # with no backend at all the same claim cannot be verified: the gate fails closed
    closed = ControlPlane(model=model, policy=full, db=False, nli_backend="none")
    reply = closed.respond(QUESTION, evidence=EVIDENCE)
    assert "nli_entailment" in reply.failing_gates and not reply.verified


def test_named_collections_and_unknown_ones(installed_plugin, scripted_model, core_policy):
    plane = ControlPlane(model=scripted_model([answer()]), policy=core_policy, db=False,
                         collections={"handbook": f"keyword:{installed_plugin}"})
    assert plane.collection_names() == ["handbook"]
    reply = plane.respond("Where do we host? (architecture)", collection="handbook")
    assert reply.status == "pass" and reply.evidence_ids == ("E1",)
    with pytest.raises(InputError, match="unknown collection 'nope'"):
        plane.respond(QUESTION, collection="nope")
    # caller evidence and no collection: no retrieval, the caller's evidence is the pack
    plain = ControlPlane(model=scripted_model([answer()]), policy=core_policy, db=False,
                         retriever=f"keyword:{installed_plugin}")
    given = [{"text": "We host on Fly.io."}, {"text": "x"}]
    assert plain.respond(QUESTION, evidence=given).evidence_ids == ("E1", "E2")
    with pytest.raises(ConfigurationError, match="unknown retriever"):
        ControlPlane(model=scripted_model([answer()]), policy=core_policy, db=False, retriever="nosuch:thing")


def test_a_retriever_object_in_code(scripted_model, core_policy, installed_plugin):
    import cp_example_plugin

    retriever = cp_example_plugin.KeywordRetriever(installed_plugin)
    plane = ControlPlane(model=scripted_model([answer()]), policy=core_policy, db=False, retriever=retriever)
    assert plane.respond("Where do we host? (architecture)").status == "pass"
    assert plane.respond("Where do we host? (architecture)", retrieve=False).status != "pass"  # no evidence at all

