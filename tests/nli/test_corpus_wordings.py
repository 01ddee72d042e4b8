"""Faithful answers over the example corpus's other pages (rate limits, on-call, retention, hosting, incident runbook,
mobile releases), worded and laid out as chat models write them, each over its page's chunks with their titles (as
the ask path chunks them), through the real pipeline: ControlPlane.respond with a scripted model and the shipped
verifier. Found by writing these on 2026-12-06: 35 of the 43 were verified at c8f31a1, 37 at c9584e7 (the two
lead-in lists), 41 now (a participle describing its noun, "No one" read as the evidence's "Nobody", a pronoun clause
after a semicolon, a negated description named in parentheses); the 2 left are known gaps, asserted still
unverified, each named in README.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.nli.shipped_pipeline import needs_shipped_verifier

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
PAGES = ["api-rate-limits.md", "on-call-policy.md", "data-retention-policy.md", "stack-and-hosting.md",
         "incident-response-runbook.md", "mobile-release-process.txt"]
Q = {"stack": "How is our hosting set up?", "inc": "What do we do in an incident?", "mob": "How do mobile releases work?",
     "rate": "What are the API rate limits?", "oncall": "How does on-call work?", "ret": "How long do we keep data?"}


def corpus_evidence() -> tuple[list[dict], dict[str, str]]:
    """Every page's chunks as retrieved evidence (E1, E2 ... in page order), and the page of each id."""
    from controlplane.evidence_pack.chunking import chunk_document, read_document

    evidence, page_of = [], {}
    for page in PAGES:
        for chunk in chunk_document(read_document(CORPUS / page)):
            item_id = f"E{len(evidence) + 1}"
            evidence.append({"id": item_id, "title": chunk.title, "text": chunk.text, "type": "RETRIEVAL_SNIPPET",
                             "trust_tier": "authoritative"})
            page_of[item_id] = page
    return evidence, page_of


def one(text: str, *ids: str) -> tuple[str, list[tuple[str, list[str]]]]:
    return text, [(text, list(ids))]


CASES = {
 "std_plan": ("rate", one("The Standard plan allows 600 requests per minute per key, with a burst of 100. [E2]", "E2")),
 "ent_plan": ("rate", one("On the Enterprise plan, an API key gets 3,000 requests per minute and a burst of 500. [E2]", "E2")),
 "unauth": ("rate", one("Unauthenticated requests are limited to 60 requests per minute per IP address. [E2]", "E2")),
 "bookings": ("rate", one("POST /api/v2/bookings is limited to 30 requests per minute per user on every plan. [E2]", "E2")),
 "lead_table": ("rate", ("The rate limits are:\n- Standard plan: 600 requests per minute per key [E2]\n- Enterprise plan: 3,000 requests per minute per key [E2]",
     [("Standard plan: 600 requests per minute per key [E2]", ["E2"]), ("Enterprise plan: 3,000 requests per minute per key [E2]", ["E2"])])),
 "429": ("rate", one("When a limit is exceeded, the API returns 429 Too Many Requests with a Retry-After header. [E3]", "E3")),
 "backoff": ("rate", one("Clients must wait at least the Retry-After value before retrying. [E3]", "E3")),
 "blocked": ("rate", one("A key that keeps sending requests while limited for more than 10 minutes is blocked for an hour, and its owner gets an e-mail. [E3]", "E3")),
 "token_bucket": ("rate", one("The limits are enforced with a token bucket per key, stored in Upstash Redis. [E2]", "E2")),
 "webhooks": ("rate", one("Failed webhook deliveries are retried 5 times over about 24 hours with exponential backoff. [E4]", "E4")),
 "raise": ("rate", one("Enterprise customers can request a higher limit from their account manager; increases above 10,000 requests per minute need the platform team's approval. [E5]", "E5")),
 "rotation": ("oncall", one("The on-call rotation is weekly, with the handover on Mondays at 10:00 CET. [E7]", "E7")),
 "sev1": ("oncall", one("For SEV1 pages, you must acknowledge within 5 minutes and be at a laptop within 15 minutes. [E8]", "E8")),
 "pay": ("oncall", one("Primary on-call is paid EUR 250 per week and secondary EUR 100 per week. [E9]", "E9")),
 "pay_euro": ("oncall", one("On-call pay is €250 a week for the primary and €100 a week for the secondary. [E9]", "E9")),
 "six": ("oncall", one("The policy applies to the six engineers of the platform and backend teams. [E6]", "E6")),
 "sev3": ("oncall", one("SEV3 alerts are handled during working hours (09:00-18:00 CET, Monday to Friday). [E8]", "E8")),
 "one_in_four": ("oncall", one("No one is primary more than one week in four. [E7]", "E7")),
 "invoices": ("ret", one("Booking records and invoices are kept for 7 years after the end of the financial year. [E12]", "E12")),
 "erasure": ("ret", one("Erasure requests are confirmed within 3 business days and completed within 30 days. [E13]", "E13")),
 "backups": ("ret", one("Data that only exists in backups expires with the backup after at most 35 days. [E13]", "E13")),
 "legal_hold": ("ret", one("A legal hold must be approved in writing by the management board and is reviewed every 6 months. [E14]", "E14")),
 "approved": ("ret", one("The data retention policy was approved by the management board on 2025-01-20. [E11]", "E11")),
}
CASES.update({
 "regions": ("stack", one("Our primary region is Amsterdam (ams) and the secondary is Frankfurt (fra). [E16]", "E16")),
 "machines": ("stack", one("Production runs at least three machines in ams and autoscales to up to eight. [E16]", "E16")),
 "autoscale": ("stack", one("Production autoscales up to 8 machines when CPU stays above 70% for 5 minutes. [E16]", "E16")),
 "staging_off": ("stack", one("Staging is stopped automatically outside working hours, from 19:00 to 07:00 CET. [E16]", "E16")),
 "turso": ("stack", one("We use Turso, a fork of SQLite, as our database. [E17]", "E17")),
 "replicas": ("stack", one("Read replicas are in fra and iad, and reads can lag the primary by up to 1 second. [E17]", "E17")),
 "pitr": ("stack", one("Turso's point-in-time recovery covers the last 30 days. [E17]", "E17")),
 "backend": ("stack", one("The backend is written in Python 3.12 with FastAPI and served by Uvicorn with 4 workers per machine. [E18]", "E18")),
 "lead_stack": ("stack", ("Our stack consists of:\n- Backend: Python 3.12 with FastAPI [E18]\n- Database: Turso [E17]",
     [("Backend: Python 3.12 with FastAPI [E18]", ["E18"]), ("Database: Turso [E17]", ["E17"])])),
 "sev1_def": ("inc", one("A SEV1 is when Harbor is down, when bookings fail for more than 5% of requests, or when customer data may be exposed. [E21]", "E21")),
 "ic": ("inc", one("For SEV1 and SEV2 incidents, the first responder becomes the incident commander until they explicitly hand over. [E22]", "E22")),
 "escalate": ("inc", one("If a SEV1 isn't mitigated within 30 minutes, the IC escalates to the CTO by phone. [E22]", "E22")),
 "rollback": ("inc", one("Rolling back the backend takes about 4 minutes. [E23]", "E23")),
 "rollback_pref": ("inc", one("The runbook prefers a rollback over a forward fix. [E23]", "E23")),
 "status_page": ("inc", one("For a SEV1, the status page must be updated within 15 minutes of acknowledgement and then at least every 30 minutes. [E22]", "E22")),
 "biweekly": ("mob", one("Mobile apps are released every two weeks on Tuesdays. [E25]", "E25")),
 "review": ("mob", one("App Store review usually takes one to two days. [E25]", "E25")),
 "stages": ("mob", one("Android rollouts go to 10% of users on day 1, 50% on day 3 and 100% on day 5. [E25]", "E25")),
 "hotfix": ("mob", one("Hotfixes need approval from the CTO. [E26]", "E26")),
 "min_version": ("mob", one("The API returns 426 Upgrade Required for app versions older than six months. [E26]", "E26")),
})

KNOWN_GAPS = {"sev1_def", "hotfix"}


def envelope(text: str, claims, mode: str, flags) -> dict:
    claim_map = [{"claim_id": f"c{i}", "text": c, "evidence_ids": ids, "status": "FACTUAL"}
                 for i, (c, ids) in enumerate(claims, 1)]
    return {"assistant_text": text, "meta": {
        "modeLabel": mode, "domainFlags": list(flags), "claim_map": claim_map,
        "citations": [{"claim_id": c["claim_id"], "evidence_ids": c["evidence_ids"]} for c in claim_map],
        "used_evidence_ids": sorted({e for _, ids in claims for e in ids})}}


def respond(plane_for, name: str):
    """The answer over its page's chunks, in the mode the router decides (learnt from a first reply, as a model is
    told it in its prompt)."""
    topic, (text, claims) = CASES[name]
    evidence, page_of = corpus_evidence()
    pages = {page_of[e] for _, ids in claims for e in ids}
    evidence = [item for item in evidence if page_of[item["id"]] in pages]
    first = plane_for(envelope(text, claims, "System", ["requires_retrieval"])).respond(Q[topic], evidence=evidence)
    if first.mode == "System" and list(first.domain_flags) == ["requires_retrieval"]:
        return first
    return plane_for(envelope(text, claims, first.mode, first.domain_flags)).respond(Q[topic], evidence=evidence)


@pytest.mark.parametrize("name", sorted(set(CASES) - KNOWN_GAPS))
def test_a_faithful_answer_over_the_corpus_is_verified_and_shown_as_written(name, plane_for):
    response = respond(plane_for, name)
    assert response.status == "pass" and response.verified, (name, response.assistant_text)
    assert response.assistant_text == CASES[name][1][0]


@pytest.mark.parametrize("name", sorted(KNOWN_GAPS))
def test_the_known_gaps_over_the_corpus_are_still_not_verified(name, plane_for):
    assert not respond(plane_for, name).verified
