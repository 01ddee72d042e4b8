"""A claim that names the document it cites, as chat models write them ("ADR-011 states that ...", "According to
ADR-011, ..."), over chunks of that document. The ask path gives each chunk its document's heading as its title
("ADR-011: Client/server responsibility boundary › Decision") but not in its text, so the name was a detail the
evidence did not mention, and faithful answers were refused (found by rewording answers over ADR-011, 2026-12-06).
A claim that uses a word only a cited item's title holds is read with the titles (the title is the document's own
heading). Through the real pipeline: ControlPlane.respond with a scripted model and the shipped verifier."""

from __future__ import annotations

import pytest

from tests.nli.shipped_pipeline import needs_shipped_verifier, plane_answering

pytestmark = needs_shipped_verifier

TITLE = "ADR-011: Client/server responsibility boundary"
EVIDENCE = [
    {"id": "E1", "title": TITLE + " › Decision",
     "text": "The server is the single source of truth for business rules. Pricing, discounts, taxes, availability, "
             "permissions and booking validation are computed only by the backend."},
    {"id": "E2", "title": TITLE,
     "text": "- Status: Accepted\n- Date: 2025-03-14\n- Deciders: Priya Natarajan (CTO), Tomás Ferreira (mobile "
             "lead), Ilse de Wit (backend lead)"},
]
QUESTION = "What does ADR-011 say about the client/server boundary?"


def respond(tmp_path, claim: str, evidence_id: str, evidence=EVIDENCE):
    text = f"{claim} [{evidence_id}]"
    envelope = {"assistant_text": text, "meta": {
        "modeLabel": "System", "domainFlags": ["architecture", "requires_retrieval"],
        "claim_map": [{"claim_id": "c1", "text": text, "evidence_ids": [evidence_id], "status": "FACTUAL"}],
        "citations": [{"claim_id": "c1", "evidence_ids": [evidence_id]}], "used_evidence_ids": [evidence_id]}}
    return plane_answering(tmp_path, envelope).respond(QUESTION, evidence=evidence)


FAITHFUL = [
    ("ADR-011 was accepted on 2025-03-14.", "E2"),
    ("The status of ADR-011 is Accepted.", "E2"),
    ("According to ADR-011, the server is the single source of truth for business rules.", "E1"),
    ('ADR-011 states that "the server is the single source of truth for business rules."', "E1"),
    ("ADR-011 makes the server the single source of truth for business rules.", "E1"),
]


@pytest.mark.parametrize("claim, evidence_id", FAITHFUL, ids=[c for c, _ in FAITHFUL])
def test_a_claim_that_names_the_cited_document_is_verified(tmp_path, claim, evidence_id):
    response = respond(tmp_path, claim, evidence_id)
    assert response.status == "pass" and response.verified, response.assistant_text
    assert response.assistant_text == f"{claim} [{evidence_id}]"
    gate = next(g for g in response.gate_results if g.gate_id == "nli_entailment")
    assert gate.details["claim_records"]["c1"]["read_with_titles"]["ids"] == [evidence_id]


LIES = [
    ("ADR-012 states that the server is the single source of truth for business rules.", "E1"),
    ("ADR-011 was rejected.", "E2"),
    ("ADR-011 was accepted on 2024-03-14.", "E2"),
    ("According to ADR-011, clients compute prices and totals.", "E1"),
    ("ADR-011 supersedes ADR-009.", "E2"),
    ("ADR-011 is still a draft.", "E2"),
]


@pytest.mark.parametrize("claim, evidence_id", LIES, ids=[c for c, _ in LIES])
def test_the_title_does_not_make_a_lie_about_the_document_pass(tmp_path, claim, evidence_id):
    """The title vouches for its own words only: "ADR-011 was rejected." must still be covered by the text beside
    "ADR-011". (A lie the verifier and the coverage rule pass with any subject, "It was proposed by the mobile
    lead.", passes named after the document too: that weakness is not the title's.)"""
    response = respond(tmp_path, claim, evidence_id)
    assert not response.verified and claim not in response.assistant_text


def test_without_the_title_the_document_name_is_still_a_detail_the_evidence_does_not_mention(tmp_path):
    untitled = [{k: v for k, v in item.items() if k != "title"} for item in EVIDENCE]
    response = respond(tmp_path, "ADR-011 was accepted on 2025-03-14.", "E2", untitled)
    assert not response.verified
