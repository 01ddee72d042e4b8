"""The EBOM document (controlplane/ebom.py) carries what the issue 13 items 4-6 and issue 14 parts record, through
the real pipeline with the scripted model: the realtime event's staleness warnings and keywords, claim_dependencies'
warnings and its confidence cap on a downgraded claim, response_validation's hallucination phrases (also when the
gate fails on them), and the expert library of a source. Every document is rebuilt identically after export/import."""

from __future__ import annotations

from controlplane.contracts import Phase
from controlplane.contracts.schemas import validate_instance
from controlplane.ebom import ebom_document
from controlplane.traces.bundles import export_bundles, import_bundles
from controlplane.traces.store import TraceStore

from .conftest import envelope, gate, policy_with
from .test_dependencies_and_profiles import DEFINES_RE, FLOW_QUESTION, REYNOLDS, USES_RE, reynolds_envelope
from .test_realtime_queries import CLAIM, EVIDENCE, QUESTION

LIBRARY = {"name": "pystd", "version": "3.12.0", "domain": "coding", "licence": "PSF-2.0"}
PHRASE_CLAIM = "As far as I know, the Orion project ships on 14 March 2027 [E1]."
ORION = [{"id": "E1", "text": "The Orion project ships on 14 March 2027.", "trust_tier": "authoritative"}]
ORION_QUESTION = "When does the Orion project ship?"


def document(result) -> dict:
    doc = ebom_document(result.trace_bundle)
    assert validate_instance("EbomDocument", doc) == []
    return doc


def round_trips(result, tmp_path) -> bool:
    """Stored, exported, imported into another store: the same document as the in-memory bundle's."""
    bundle = result.trace_bundle
    source, fresh = TraceStore(tmp_path / "source.db"), TraceStore(tmp_path / "fresh.db")
    try:
        source.begin(bundle.trace_id, bundle.messages, created_at=bundle.created_at)
        source.save(bundle)
        export_bundles(source, tmp_path / "bundle.jsonl", [bundle.trace_id])
        import_bundles(fresh, tmp_path / "bundle.jsonl")
        return ebom_document(fresh.load_bundle(bundle.trace_id)) == ebom_document(bundle)
    finally:
        source.close()
        fresh.close()


def test_staleness_warnings_and_real_time_keywords_are_in_the_document(run, tmp_path):
    result = run(envelope([(CLAIM, ["E1"])]), QUESTION, EVIDENCE)
    realtime = next(e.payload for e in result.events if e.phase is Phase.REALTIME)
    assert realtime["staleness_warnings"]
    doc = document(result)
    assert set(realtime["staleness_warnings"]) <= set(doc["metadata"]["warnings"])
    classification = doc["audit_trail"]["query_classification"]
    assert (classification["time_sensitive"], classification["realtime_keywords"]) == (True, ["latest"])
    assert round_trips(result, tmp_path)


def test_a_question_that_is_not_time_sensitive_has_no_real_time_keywords(run):
    result = run(envelope([(CLAIM, ["E1"])]), "Which stable Python version do we use?", EVIDENCE)
    classification = document(result)["audit_trail"]["query_classification"]
    assert (classification["time_sensitive"], classification["realtime_keywords"]) == (False, [])


def test_dependency_warnings_are_in_the_document_and_a_downgraded_claim_is_capped(run, tmp_path):
    warned = run(reynolds_envelope(USES_RE, DEFINES_RE, FLOW_QUESTION), FLOW_QUESTION, REYNOLDS)
    sentence = 'Claim c1 uses "Re" before claim c2 defines it (cross-claim dependency).'
    loose = document(warned)
    assert sentence in loose["metadata"]["warnings"]
    uncapped = {c["id"]: c["confidence"] for c in loose["response"]["claims"]}
    assert uncapped["c1"] > 0.65  # so the cap below changes something

    strict = policy_with(gate_params={"claim_dependencies": {"strict_dependencies": True}})
    downgraded = run(reynolds_envelope(USES_RE, DEFINES_RE, FLOW_QUESTION), FLOW_QUESTION, REYNOLDS, policy=strict)
    assert gate(downgraded, "claim_dependencies").details["downgraded"]["c1"]["confidence_cap"] == 0.65
    doc = document(downgraded)
    claims = {c["id"]: c for c in doc["response"]["claims"]}
    assert claims["c1"]["confidence"] == 0.65
    assert claims["c2"]["confidence"] == uncapped["c2"]  # only the downgraded claim is capped
    assert sentence in doc["metadata"]["warnings"]
    assert round_trips(downgraded, tmp_path)


def test_hallucination_phrase_warnings_are_in_the_document_whether_the_gate_passes_or_fails(run):
    claims = [(PHRASE_CLAIM, ["E1"])]
    warning = "c1: potential hallucination ('As far as I know')"
    passing = run(envelope(claims), ORION_QUESTION, ORION)
    assert not gate(passing, "response_validation").failed
    assert warning in document(passing)["metadata"]["warnings"]

    failing_policy = policy_with(gate_params={"response_validation": {"fail_at_rigor": "low"}})
    failing = run(envelope(claims), ORION_QUESTION, ORION, policy=failing_policy)
    assert gate(failing, "response_validation", attempt=0).failed
    assert warning in document(failing)["metadata"]["warnings"]


def test_a_library_source_shows_its_library(run, tmp_path):
    evidence = [{**ORION[0], "library": LIBRARY}, {"id": "E2", "text": "The Orion team sits in Lyon."}]
    result = run(envelope([("The Orion project ships on 14 March 2027 [E1].", ["E1"])]), ORION_QUESTION, evidence)
    sources = {s["id"]: s for s in document(result)["response"]["sources"]}
    assert sources["E1"]["library"] == {"name": "pystd", "version": "3.12.0", "licence": "PSF-2.0"}
    assert sources["E2"]["library"] is None
    assert round_trips(result, tmp_path)
