"""Faithful answers over ADR-011's paragraphs, laid out and worded as chat models write them (a lead-in line above a
list, label bullets, paraphrases, two sources, the document named), through the real pipeline: ControlPlane.respond
with a scripted model and the shipped verifier. The items carry their document's heading as their title, as the ask
path gives them. Found by writing these on 2026-12-06: 7 of the 20 faithful ones were refused or degraded then (a
lead-in line, the document's name, a hedge of another clause, a conflict with an unrelated paragraph)."""

from __future__ import annotations

import pytest

from controlplane.pytest_plugin import GateHarness
from tests.nli.shipped_pipeline import needs_shipped_verifier, one

pytestmark = needs_shipped_verifier

TITLE = "ADR-011: Client/server responsibility boundary"
EVIDENCE = [
    {"id": "E1", "title": f"{TITLE} › Decision",
     "text": "The server is the single source of truth for business rules. Pricing, discounts, taxes, availability, "
             "permissions and booking validation are computed only by the backend."},
    {"id": "E2", "title": f"{TITLE} › Decision",
     "text": "Clients render state and collect input. They may run advisory validation for a better experience (for "
             "example, the format of an e-mail address or a required field), but the server re-validates every "
             "request and its answer wins."},
    {"id": "E3", "title": f"{TITLE} › Decision",
     "text": "Clients never compute prices or totals. They display the `display_total` and `line_items` fields that "
             "the server returns, formatted for the user's locale. Currency formatting happens on the client; "
             "rounding never does."},
    {"id": "E4", "title": f"{TITLE} › Decision",
     "text": "All client/server communication goes through the versioned JSON API under `/api/v2`. Clients never "
             "access the database directly; the Turso read replicas are not reachable from client devices."},
    {"id": "E5", "title": f"{TITLE} › Offline mode",
     "text": "The iOS and Android clients may queue up to 50 mutations while offline, for at most 24 hours. On "
             "reconnect the client sends the queue in order and the server replays each mutation against current "
             "state."},
    {"id": "E6", "title": TITLE,
     "text": "- Status: Accepted\n- Date: 2025-03-14\n- Deciders: Priya Natarajan (CTO), Tomás Ferreira (mobile lead), "
             "Ilse de Wit (backend lead)"},
]
QUESTION = "What does ADR-011 say about the client/server boundary?"
S1 = "The server is the single source of truth for business rules."
S2 = "Clients render state and collect input."


def envelope(text: str, claims: list[tuple[str, list[str]]]) -> dict:
    """The answer as the ask path's model gives it: architecture, requiring retrieval."""
    return GateHarness.envelope(text, claims, mode="System", domain_flags=["architecture", "requires_retrieval"])


FAITHFUL = {
    "plain": one(f"{S1} [E1]", "E1"),
    "lead_in": (f"ADR-011 sets out the following boundary:\n- {S1} [E1]\n- {S2} [E2]",
                [(f"{S1} [E1]", ["E1"]), (f"{S2} [E2]", ["E2"])]),
    "according_lead_in": (f"**According to ADR-011:**\n- {S1} [E1]\n- {S2} [E2]",
                          [(f"{S1} [E1]", ["E1"]), (f"{S2} [E2]", ["E2"])]),
    "label_bullets": ("- **Status:** Accepted [E6]\n- **Date:** 2025-03-14 [E6]",
                      [("**Status:** Accepted [E6]", ["E6"]), ("**Date:** 2025-03-14 [E6]", ["E6"])]),
    "label_bullets_plain": ("- Business rules: computed only by the backend [E1]\n- Prices: never computed by clients "
                            "[E3]", [("Business rules: computed only by the backend [E1]", ["E1"]),
                                     ("Prices: never computed by clients [E3]", ["E3"])]),
    "paraphrase_prices": one("Clients never calculate prices or totals; they display the display_total and "
                             "line_items fields returned by the server. [E3]", "E3"),
    "two_sources": one(f"{S1[:-1]}, and all client/server communication goes through the versioned JSON API under "
                       "/api/v2. [E1][E4]", "E1", "E4"),
    "code_span": one("All client/server communication goes through `/api/v2`. [E4]", "E4"),
    "offline": one("Offline, the iOS and Android clients can queue up to 50 mutations for at most 24 hours. [E5]",
                   "E5"),
    "negation_paraphrase": one("Clients do not access the database directly. [E4]", "E4"),
    "summary_close": (f"{S1} [E1] In summary, business rules live on the server. [E1]",
                      [(f"{S1} [E1]", ["E1"]), ("In summary, business rules live on the server. [E1]", ["E1"])]),
    "only_backend": one("Only the backend computes pricing, discounts, taxes, availability, permissions and booking "
                        "validation. [E1]", "E1"),
    "server_wins": one("Clients may validate input for a better experience, but the server re-validates every "
                       "request and its answer wins. [E2]", "E2"),
    "deciders": one("The decision was made by Priya Natarajan (CTO), Tomás Ferreira (mobile lead) and Ilse de Wit "
                    "(backend lead). [E6]", "E6"),
    "accepted": one("ADR-011 was accepted on 2025-03-14. [E6]", "E6"),
    "status": one("The status of ADR-011 is Accepted. [E6]", "E6"),
    "rounding": one("Currency formatting is done on the client, but rounding is not. [E3]", "E3"),
    "replicas": one("The Turso read replicas cannot be reached from client devices. [E4]", "E4"),
    "quoted": one(f'ADR-011 states that "{S1[0].lower()}{S1[1:]}" [E1]', "E1"),
    "semicolon": one(f"{S2[:-1]}; the server re-validates every request. [E2]", "E2"),
}
# Not verified: a lie ("only": clients may also run advisory validation) and a known gap (the verifier reads "The
# backend alone computes: discounts." as contradicted, 0.70; "Only the backend computes ..." passes).
NOT_VERIFIED = {
    "only_render_lie": ("The server is the single source of truth [E1] and clients only render state and collect "
                        "input [E2].", [("The server is the single source of truth [E1]", ["E1"]),
                                        ("clients only render state and collect input [E2]", ["E2"])]),
    "alone_colon_gap": one("The backend alone computes: pricing, discounts, taxes, availability, permissions and "
                           "booking validation. [E1]", "E1"),
}


@pytest.mark.parametrize("name", sorted(FAITHFUL))
def test_a_faithful_answer_over_adr_011_is_verified_and_shown_as_written(name, plane_for):
    text, claims = FAITHFUL[name]
    response = plane_for(envelope(text, claims)).respond(QUESTION, evidence=EVIDENCE)
    assert response.status == "pass" and response.verified, (name, response.assistant_text)
    assert response.assistant_text == text


@pytest.mark.parametrize("name", sorted(NOT_VERIFIED))
def test_the_lie_and_the_known_gap_are_not_verified(name, plane_for):
    text, claims = NOT_VERIFIED[name]
    response = plane_for(envelope(text, claims)).respond(QUESTION, evidence=EVIDENCE)
    assert not response.verified
