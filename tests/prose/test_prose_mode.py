"""Prose mode (issue 14): the model answers in plain text, the server attributes every sentence and builds the
envelope, and every gate runs on it as on any other. The scripted model is the real adapter answering in prose;
the NLI gate runs with the shipped verifier."""

from __future__ import annotations

import json

import pytest

from controlplane.api import ControlPlane
from controlplane.contracts import EnvelopeFormat, Phase, ProsePolicy
from controlplane.contracts.errors import ConfigurationError
from controlplane.contracts.text import split_sentences, strip_markers
from controlplane.pipeline import Pipeline as Engine
from controlplane.policy_bundles.loader import load_bundle, parse_bundle
from controlplane.prose_attribution import attribute_prose, ngram_overlaps, without_unfinished_tail

ORION = ("The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. "
         "The team sits in Lyon and reports to the platform group.")
HOSTING = "We host the public API on Fly.io in two regions. The database is a managed PostgreSQL cluster."
EVIDENCE = [{"id": "E1", "title": "Orion", "text": ORION, "trust_tier": "authoritative"},
            {"id": "E2", "title": "Hosting", "text": HOSTING, "trust_tier": "authoritative"}]
QUESTION = "When does the Orion project ship and where is the team?"


def prose_policy(**changes):
    base = load_bundle().bundle.model_dump(mode="json")
    base["envelope"] = "prose"
    base.update(changes)
    return parse_bundle(base, "tests:prose")


@pytest.fixture(scope="module")
def shipped_plane_factory():
    planes = []

    def make(model, **options):
        plane = ControlPlane(model=model, policy=options.pop("policy", prose_policy()), db=False, critic=False,
                             load_entry_points=False, **options)
        planes.append(plane)
        return plane

    yield make
    for plane in planes:
        plane.close()


def shown_sentences(text: str) -> list[str]:
    return [strip_markers(s.text) for s in split_sentences(text) if strip_markers(s.text)]


# -- attribution on its own ----------------------------------------------------------------------------------------

def test_ngram_overlap_needs_more_than_twenty_characters_of_shared_five_grams():
    long_run = ngram_overlaps("Reportedly the Orion project ships on 14 March 2027 or so", "E1", ORION, 5)
    assert [o.length > 20 for o in long_run] == [True]
    assert ngram_overlaps("Sits in Lyon, reports nowhere", "E1", ORION, 5) == []  # no five shared words in a row
    short = ngram_overlaps("So it is in a box now", "E3", "It is in a box.", 5)
    assert [o.length for o in short] == [14]  # a 5-gram, but 14 characters: not a citation (CFS-020: > 20)
    assert ngram_overlaps("Lyon is nice", "E1", ORION, 5) == []


def test_each_sentence_is_attributed_markers_first_then_ngrams_then_embeddings():
    decision = Engine(model=None).decide("")  # type: ignore[arg-type]
    pack = Engine(model=None).build_pack(EVIDENCE)  # type: ignore[arg-type]
    text = ("The public API runs on Fly.io [E2]. The Orion project ships on 14 March 2027, as planned. "
            "Orion's money is about 2.4 million euros. The evidence does not say who leads it.")
    built = attribute_prose(text, pack, decision, ProsePolicy())
    methods = [(a.method, a.evidence_ids) for a in built.attributions]
    assert methods[0] == ("marker", ("E2",))
    assert methods[1] == ("ngram", ("E1",))
    assert methods[2][0] == "embedding" and methods[2][1] == ("E1",)
    assert methods[3] == ("unknown", ())
    envelope = built.envelope
    claims = envelope["meta"]["claim_map"]
    assert [c["status"] for c in claims] == ["FACTUAL", "FACTUAL", "FACTUAL", "UNKNOWN"]
    for claim in claims:  # every span is exact in the text the user would see
        span = claim["span"]
        assert envelope["assistant_text"][span["start_char"]:span["end_char"]] == claim["text"]
    # ids the server attributed are written as markers after the sentence; the model's own marker is not doubled
    assert claims[1]["text"].endswith("as planned. [E1]")
    assert envelope["assistant_text"].count("[E2]") == 1
    assert envelope["meta"]["citations"] == [{"claim_id": c["claim_id"], "evidence_ids": c["evidence_ids"]}
                                             for c in claims if c["evidence_ids"]]


def test_a_marker_naming_an_id_outside_the_pack_is_kept_so_the_gates_fail_it():
    plane = Engine(model=None)  # type: ignore[arg-type]
    result = plane.verify("The Orion project ships on 14 March 2027. [E9]", evidence=EVIDENCE, prose=True)
    assert result.status == "fail"
    assert result.evaluation.claims[0].evidence_ids == ["E9"]
    assert "UNKNOWN_EVIDENCE_ID" in result.evaluation.claims[0].reason_codes


def test_an_answer_cut_by_the_token_limit_loses_its_unfinished_sentence():
    kept, cut = without_unfinished_tail("The Orion project ships on 14 March 2027. The team is safe unless")
    assert kept == "The Orion project ships on 14 March 2027."
    assert cut.strip() == "The team is safe unless"


# -- through the pipeline ------------------------------------------------------------------------------------------

def test_prose_with_markers_passes_and_is_verified(write_script, shipped_plane_factory):
    model = write_script(["The Orion project ships on 14 March 2027. [E1] We host the public API on Fly.io in two "
                          "regions. [E2]"])
    reply = shipped_plane_factory(model).respond(QUESTION, evidence=EVIDENCE)
    assert reply.status == "pass" and reply.verified
    assert [c.evidence_ids for c in reply.claims] == [("E1",), ("E2",)]


def test_prose_without_markers_is_attributed_by_the_server_and_verified(write_script, shipped_plane_factory):
    model = write_script(["The Orion project ships on 14 March 2027. The team sits in Lyon and reports to the "
                          "platform group."])
    plane = shipped_plane_factory(model)
    reply = plane.respond(QUESTION, evidence=EVIDENCE)
    assert reply.status == "pass" and reply.verified
    assert reply.assistant_text == ("The Orion project ships on 14 March 2027. [E1] The team sits in Lyon and "
                                    "reports to the platform group. [E1]")


def test_a_copied_sentence_passes_and_an_invented_one_is_never_shown(write_script, shipped_plane_factory):
    invented = "The Orion project employs 40 engineers in Berlin."
    model = write_script([f"The Orion project ships on 14 March 2027. {invented}"] * 3)
    plane = shipped_plane_factory(model)
    reply = plane.respond(QUESTION, evidence=EVIDENCE)
    assert not reply.verified
    shown = shown_sentences(reply.assistant_text)
    assert "The Orion project ships on 14 March 2027." in shown
    assert invented not in shown and "40 engineers" not in reply.assistant_text
    failing = [c for c in reply.claims if c.verdict == "FAIL"]
    assert [strip_markers(c.text) for c in failing] == [invented]
    assert failing[0].span is None  # not shown


def test_the_trace_records_how_each_sentence_was_attributed(write_script, tmp_path):
    model = write_script(["The Orion project ships on 14 March 2027. Bananas are yellow."] * 3)
    with ControlPlane(model=model, policy=prose_policy(), db=tmp_path / "t.db", critic=False,
                      load_entry_points=False) as plane:
        reply = plane.respond(QUESTION, evidence=EVIDENCE)
        bundle = plane.trace(reply.trace_id)
    calls = [e.payload for e in bundle.events if e.phase is Phase.MODEL_CALL]
    assert calls[0]["envelope"] == "prose"
    sentences = calls[0]["prose"]["sentences"]
    assert next(s["method"] for s in sentences) == "ngram"
    assert sentences[1]["text"] == "Bananas are yellow."
    assert "Bananas" not in reply.assistant_text
    # the envelope the gates checked is the recorded raw output: replay needs no model and no attribution
    assert json.loads(bundle.attempts[0].raw_output)["meta"]["claim_map"][0]["evidence_ids"] == ["E1"]


def test_json_bundle_with_prose_model_spec_option(write_script, tmp_path):
    model = write_script(["The Orion project ships on 14 March 2027."])
    spec = f"scripted:{model.path}?envelope=prose"  # the bundle says json; the model spec asks for prose
    with ControlPlane(model=spec, db=False, critic=False, load_entry_points=False) as plane:
        assert plane.envelope is EnvelopeFormat.PROSE
        reply = plane.respond(QUESTION, evidence=EVIDENCE)
    assert reply.verified and reply.claims[0].evidence_ids == ("E1",)


def test_request_envelope_overrides_and_bad_values_are_named(write_script, shipped_plane_factory):
    model = write_script(["The Orion project ships on 14 March 2027."])
    plane = shipped_plane_factory(model, policy=load_bundle())
    reply = plane.respond(QUESTION, evidence=EVIDENCE, envelope="prose")
    assert reply.verified
    from controlplane.contracts.errors import InputError

    with pytest.raises(InputError, match="envelope must be one of json, prose"):
        plane.respond(QUESTION, evidence=EVIDENCE, envelope="yaml")
    with pytest.raises(ConfigurationError, match="envelope=.*use one of json, prose"):
        ControlPlane(model="scripted:x.jsonl?envelope=xml", db=False)


def _tiny_budget_policy():
    data = load_bundle().bundle.model_dump(mode="json")
    data["envelope"] = "prose"
    data["budgets"]["max_output_tokens"] = 14
    return parse_bundle(data, "tests:tiny-budget")


def test_a_prose_answer_cut_by_the_model_at_the_budget_never_shows_its_cut_sentence(write_script,
                                                                                  shipped_plane_factory):
    model = write_script(["The Orion project ships on 14 March 2027. The team sits in Lyon and reports to the "
                          "platform group."] * 3)
    reply = shipped_plane_factory(model, policy=_tiny_budget_policy()).respond(QUESTION, evidence=EVIDENCE)
    assert "The team sits" not in reply.assistant_text  # the scripted model stopped mid-sentence (max_tokens)
    assert all(c.text.rstrip(" [E1]").endswith(".") for c in reply.claims)


def test_prose_over_the_token_budget_is_a_validation_failure(shipped_plane_factory):
    from tests.prose.test_prose_backend_endpoint import ProseBackend

    # a server that ignores max_tokens and says so in its usage: the seed's "Output exceeded token budget"
    with ProseBackend(["The Orion project ships on 14 March 2027. The team sits in Lyon and reports to the "
                       "platform group."]) as backend:
        plane = shipped_plane_factory(f"openai:{backend.url}#prose-bot?envelope=prose", policy=_tiny_budget_policy())
        reply = plane.respond(QUESTION, evidence=EVIDENCE)
    assert not reply.verified and reply.status in ("degraded", "refused")
    budget = [g for g in reply.gate_results if g.gate_id == "budget_enforcer"]
    assert budget and all("TOKENS_EXCEEDED" in g.reason_codes for g in budget)


def test_a_prose_trace_replays_deterministically_without_a_model(write_script, tmp_path):
    from controlplane.replay import replay_bundles

    # the selector's answer is scripted too: an unparseable selector output does not replay today, prose or not
    selector = {"purpose": "selector", "output": {"modeLabel": "System", "domainFlags": [], "confidence": 0.9,
                                                  "reasons": ["project facts"]}}
    model = write_script([selector, *["The Orion project ships on 14 March 2027. The Orion team has 40 engineers."] * 3])
    with ControlPlane(model=model, policy=prose_policy(), db=tmp_path / "t.db", critic=False,
                      load_entry_points=False) as plane:
        reply = plane.respond(QUESTION, evidence=EVIDENCE)
        bundle = plane.trace(reply.trace_id)
    assert reply.attempts == 3 and not reply.verified  # regen ran, the invented sentence never passed
    report = replay_bundles([bundle])
    assert report.traces[0].error is None and report.traces[0].reproduced, report.as_json()


def test_verify_prose_cli(tmp_path):
    from click.testing import CliRunner

    from controlplane.cli import main

    evidence = tmp_path / "evidence.json"
    evidence.write_text(json.dumps(EVIDENCE), encoding="utf-8")
    answer = tmp_path / "answer.txt"
    answer.write_text("The Orion project ships on 14 March 2027. The Orion project has 40 engineers.",
                      encoding="utf-8")
    result = CliRunner().invoke(main, ["verify", "--prose", "--evidence", str(evidence), "--envelope", str(answer),
                                       "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [c["verdict"] for c in data["claims"]] == ["PASS", "FAIL"]
    assert data["prose"]["sentences"][0]["method"] == "ngram"
    text = CliRunner().invoke(main, ["verify", "--prose", "--evidence", str(evidence), "--envelope", str(answer)])
    assert "c1: PASS - (ngram)" in text.stdout


def test_model_spec_options_are_only_a_trailing_query_of_known_options():
    from controlplane.adapters import split_spec_options

    assert split_spec_options("openai:http://127.0.0.1:8080/v1#llama3?envelope=prose") == (
        "openai:http://127.0.0.1:8080/v1#llama3", {"envelope": "prose"})
    assert split_spec_options("gguf:/models/what?.gguf") == ("gguf:/models/what?.gguf", {})
    assert split_spec_options("openai:http://h:1/v1?key=abc") == ("openai:http://h:1/v1?key=abc", {})  # not ours
    with pytest.raises(ConfigurationError, match="use one of json, prose"):
        split_spec_options("default?envelope=yaml")
