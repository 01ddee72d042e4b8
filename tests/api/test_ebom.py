"""The EBOM structured response (issue 13 item 1): Response.as_ebom() through the real pipeline (scripted model,
shipped bundle, a deterministic NLI backend), validated against contracts/schemas/EbomDocument.schema.json, rebuilt
from the trace alone (export -> import into a new store -> render -> the same document), in the HTTP reply's
verification metadata, and for verify."""

from __future__ import annotations

import httpx
import pytest

from controlplane.api import ControlPlane
from controlplane.contracts.schemas import validate_instance
from controlplane.ebom import ebom_document
from controlplane.policy_bundles.loader import load_bundle
from controlplane.traces.bundles import export_bundles, import_bundles
from controlplane.traces.store import TraceStore
from tests.gates.nli_backends import OverlapNliBackend
from tests.gates.test_reasoning_chain import LOW_Q, MEDIUM_Q, RAIN, RAIN_PREMISES, envelope_for, step

CHAIN = [*RAIN_PREMISES, step("Therefore heavy rain contributes to delays on bus route 4 [E1, E2].", ["c1", "c2"],
                              "transitive", ["E1", "E2"])]


@pytest.fixture
def plane(write_script, tmp_path, shipped_policy):
    made = []

    def make(outputs, **options):
        options.setdefault("policy", shipped_policy)
        options.setdefault("db", tmp_path / "traces.db")
        made.append(ControlPlane(model=write_script(outputs), nli_backend=OverlapNliBackend(), critic=False,
                                 **options))
        return made[-1]

    yield make
    for one in made:
        one.close()


def test_as_ebom_has_the_seed_fields_and_validates(plane):
    reply = plane([envelope_for(MEDIUM_Q, CHAIN)]).respond(MEDIUM_Q, evidence=RAIN)
    assert reply.status == "pass" and reply.verified
    doc = reply.as_ebom()
    assert validate_instance("EbomDocument", doc) == []
    assert set(doc) == {"format", "response", "metadata", "audit_trail"}
    assert {"answer", "claims", "sources", "reasoning_chain", "speculations", "conflicts"} <= set(doc["response"])
    assert {"domain", "risk_level", "verification_status", "confidence", "model_used", "verification_method",
            "generation_attempts"} <= set(doc["metadata"])
    assert {"query_classification", "sources_retrieved", "verification_results", "policy_applied"} <= set(
        doc["audit_trail"])

    response, meta, audit = doc["response"], doc["metadata"], doc["audit_trail"]
    assert response["answer"] == reply.assistant_text
    assert [(c["id"], c["type"], c["category"], c["support"]) for c in response["claims"]] == [
        ("c1", "VERIFIED", "FACTUAL", ["E1"]), ("c2", "VERIFIED", "FACTUAL", ["E2"]),
        ("c3", "INFERENTIAL", "REASONING", ["E1", "E2"])]
    assert all(0 < c["confidence"] <= 1 and c["shown"] for c in response["claims"])
    assert {s["id"]: (s["sphere"], s["credibility"]) for s in response["sources"]} == {
        "E1": ("INSIDE", 0.95), "E2": ("INSIDE", 0.95)}
    # caller evidence has no retrieval time: it entered the system with the request
    assert {s["timestamp"] for s in response["sources"]} == {meta_time := doc["metadata"]["timestamp"]} and meta_time
    assert response["reasoning_chain"] == [{
        "step": 1, "operation": "transitive", "inputs": ["c1", "c2"], "intermediate_claim": CHAIN[2]["text"],
        "output": "c3", "validity": "VALID", "tiers_checked": [1, 2], "reason_codes": []}]
    assert response["speculations"] == [] and response["conflicts"] == []

    assert (meta["domain"], meta["risk_level"], meta["verification_status"]) == ("architecture", "MEDIUM", "PASSED")
    assert meta["confidence"] == min(c["confidence"] for c in response["claims"])  # the weakest claim
    assert meta["verification_method"] == "nli:overlap-test" and meta["generation_attempts"] == 1
    assert meta["graph_metrics"]["support_depth"] == 2 and meta["trace_id"] == reply.trace_id

    assert audit["query_classification"]["detected_domain"] == "architecture"
    assert "architecture" in audit["query_classification"]["keywords_matched"]
    assert [(s["source_id"], s["origin"]) for s in audit["sources_retrieved"]] == [("E1", "caller"), ("E2", "caller")]
    results = {r["claim_id"]: r for r in audit["verification_results"]}
    assert results["c1"]["method"] == "nli" and results["c1"]["result"] == "PASS"
    # the architecture domain's thresholds in the shipped bundle (calibrated operating points: they move when the
    # verifier is retrained, so they are read, not copied)
    architecture = load_bundle().bundle.domains["architecture"].thresholds
    assert results["c1"]["score"] >= results["c1"]["threshold"] == architecture.min_entailment
    assert results["c3"]["method"] == "reasoning_chain"
    policy = audit["policy_applied"]
    assert (policy["min_sources"], policy["min_confidence"], policy["verification_tier"]) == (
        1, architecture.min_confidence, 2)
    assert policy["speculation_allowed"] is True  # medium exempts SUBJECTIVE: labelled speculation may stand
    assert {"reasoning_chain", "evidence_graph", "nli_entailment"} <= {g["gate_id"] for g in policy["gates"]}


def test_the_document_is_rebuilt_from_the_trace_alone(plane, tmp_path):
    reply = plane([envelope_for(MEDIUM_Q, CHAIN)]).respond(MEDIUM_Q, evidence=RAIN)
    source = TraceStore(tmp_path / "traces.db")
    path = tmp_path / "bundle.jsonl"
    export_bundles(source, path, [reply.trace_id])
    fresh = TraceStore(tmp_path / "elsewhere.db")
    import_bundles(fresh, path)
    imported = fresh.load_bundle(reply.trace_id)
    assert ebom_document(imported) == reply.as_ebom()
    assert ebom_document(source.load_bundle(reply.trace_id)) == reply.as_ebom()
    source.close()
    fresh.close()


def test_a_degraded_answer_marks_the_failed_claim_speculative_and_not_shown(plane):
    claims = [RAIN_PREMISES[0], ("Heavy rain closes the harbour [E1].", ["E1"])]
    reply = plane([envelope_for(LOW_Q, claims)] * 3).respond(LOW_Q, evidence=RAIN)
    assert reply.status == "degraded"
    doc = reply.as_ebom()
    assert validate_instance("EbomDocument", doc) == []
    by_id = {c["id"]: c for c in doc["response"]["claims"]}
    assert (by_id["c1"]["type"], by_id["c1"]["shown"]) == ("VERIFIED", True)
    assert (by_id["c2"]["type"], by_id["c2"]["shown"], by_id["c2"]["verdict"]) == ("SPECULATIVE", False, "FAIL")
    assert [s["id"] for s in doc["response"]["speculations"]] == ["c2"]
    assert doc["metadata"]["verification_status"] == "PARTIAL" and doc["metadata"]["generation_attempts"] == 3
    assert doc["metadata"]["confidence"] == by_id["c1"]["confidence"]  # only what was shown counts


def test_the_confidence_shown_beside_a_degraded_answer_is_that_of_the_shown_claims(plane):
    """Found by QA: the CLI printed "Confidence: 0.00/1.0 - Insufficient confidence - answer refused" under a degraded
    answer it did show, because the removed claim's confidence counted; EBOM (and this) count only what is shown."""
    claims = [RAIN_PREMISES[0], ("Heavy rain closes the harbour [E1].", ["E1"])]
    reply = plane([envelope_for(LOW_Q, claims)] * 3).respond(LOW_Q, evidence=RAIN)
    assert reply.status == "degraded"
    confidence = reply.verification["confidence"]
    assert set(confidence["claims"]) == {"c1"}
    assert confidence["response_confidence"] == confidence["claims"]["c1"]
    assert (confidence["display"] or "").find("answer refused") == -1


def test_a_refusal_is_refused_in_the_document(plane):
    reply = plane(["not json"] * 3).respond(LOW_Q, evidence=RAIN)
    doc = reply.as_ebom()
    assert reply.status == "refused" and doc["metadata"]["verification_status"] == "REFUSED"
    assert doc["response"]["claims"] == [] and doc["metadata"]["confidence"] is None
    assert validate_instance("EbomDocument", doc) == []


def test_gate_warnings_reach_the_metadata(plane):
    liminal = [{**RAIN[0], "sphere": "LIMINAL", "liminal_reason": "forecast, not observed"}, RAIN[1]]
    reply = plane([envelope_for(LOW_Q, RAIN_PREMISES)]).respond(LOW_Q, evidence=liminal)
    warnings = reply.as_ebom()["metadata"]["warnings"]
    assert any("E1 is LIMINAL (forecast, not observed)" in w for w in warnings), warnings


def test_verify_renders_a_document_without_an_outcome(plane):
    checker = plane(["unused: verify calls no model"])
    good = checker.verify(envelope_for(MEDIUM_Q, CHAIN), evidence=RAIN, message=MEDIUM_Q).as_ebom()
    assert validate_instance("EbomDocument", good) == []
    assert good["metadata"]["verification_status"] == "PASSED" and good["metadata"]["status"] is None
    assert [s["validity"] for s in good["response"]["reasoning_chain"]] == ["VALID"]
    bad_chain = [*RAIN_PREMISES, step("Therefore heavy rain contributes to 40 minute delays on bus route 4 [E1, E2].",
                                      ["c1", "c2"], "transitive", ["E1", "E2"])]
    bad = checker.verify(envelope_for(MEDIUM_Q, bad_chain), evidence=RAIN, message=MEDIUM_Q).as_ebom()
    assert bad["metadata"]["verification_status"] == "FAILED"
    assert bad["response"]["reasoning_chain"][0]["validity"] == "INVALID"
    assert "UNSOURCED_REASONING_FACT" in bad["response"]["reasoning_chain"][0]["reason_codes"]


def test_the_http_reply_carries_the_document(plane):
    from controlplane.server import BackgroundServer

    served = plane([envelope_for(MEDIUM_Q, CHAIN)])
    server = BackgroundServer(served.app()).start()
    try:
        reply = httpx.post(server.url + "/v1/chat/completions", json={
            "model": "any", "messages": [{"role": "user", "content": MEDIUM_Q}], "evidence": RAIN}, timeout=60)
    finally:
        server.stop()
    assert reply.status_code == 200, reply.text
    meta = reply.json()["controlplane"]
    doc = meta["ebom"]
    assert validate_instance("EbomDocument", doc) == []
    assert doc["metadata"]["trace_id"] == meta["trace_id"]
    assert doc == ebom_document(served.trace(meta["trace_id"]))
