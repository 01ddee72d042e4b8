"""Faithful answers worded as chat models word them, over the issue's own Orion evidence, through the real pipeline
(ControlPlane.respond with a scripted model and the shipped verifier): each one ends pass, verified, and is shown as
written. Found by writing these wordings on 2026-12-05: 14 of the 44 were refused or degraded then (an ISO date,
"2,400,000 euros", a numbered list, "will ship", "In short, ...", "2.4M", "14/03/2027", "Sunday, 14 March 2027" ...);
three still are, below, and say why."""

from __future__ import annotations

import pytest

from controlplane.pytest_plugin import GateHarness
from tests.nli.shipped_pipeline import needs_shipped_verifier

pytestmark = needs_shipped_verifier

EVIDENCE = [{"id": "E1", "text": "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros."}]
QUESTION = "When does the Orion project ship?"
A = "The Orion project ships on 14 March 2027."
B = "Its budget is 2.4 million euros."


def envelope(text: str, claims: list[str]) -> dict:
    """Every claim cites E1."""
    return GateHarness.envelope(text, [(claim, ["E1"]) for claim in claims], mode="Ida")


def one(text: str) -> tuple[str, list[str]]:
    """An answer that is one claim."""
    return text, [text]


FAITHFUL = {
    "plain2": (A + " [E1] " + B + " [E1]", [A + " [E1]", B + " [E1]"]),
    "bullets": ("- " + A + " [E1]\n- " + B + " [E1]", [A + " [E1]", B + " [E1]"]),
    "numbered": ("1. " + A + " [E1]\n2. " + B + " [E1]", [A + " [E1]", B + " [E1]"]),
    "bold": one("**" + A + "** [E1]"),
    "bold_inner": one("The Orion project ships on **14 March 2027**. [E1]"),
    "para_ship": one("Orion is scheduled to ship on 14 March 2027. [E1]"),
    "para_budget": one("The Orion project has a budget of 2.4 million euros. [E1]"),
    "para_budget2": one("Orion's budget is EUR 2.4 million. [E1]"),
    "para_date": one("Orion ships in March 2027. [E1]"),
    "combined": one("The Orion project ships on 14 March 2027 and has a budget of 2.4 million euros. [E1]"),
    "marker_mid": ("The Orion project ships on 14 March 2027 [E1] and its budget is 2.4 million euros [E1].",
                   ["The Orion project ships on 14 March 2027 [E1]", "its budget is 2.4 million euros [E1]"]),
    "iso": one("The Orion project ships on 2027-03-14. [E1]"),
    "us_date": one("The Orion project ships on March 14, 2027. [E1]"),
    "million_num": one("The Orion budget is 2,400,000 euros. [E1]"),
    "eur_sign": one("Orion ships on 14 March 2027, with a budget of €2.4 million. [E1]"),
    "colon": one("The budget for Orion: 2.4 million euros. [E1]"),
    "release": one("Orion's release date is 14 March 2027. [E1]"),
    "paren_ok": one("Orion (budget: 2.4 million euros) ships on 14 March 2027. [E1]"),
    "yes_comma": one("Yes, the Orion project ships on 14 March 2027. [E1]"),
    "according": one("According to the evidence, the Orion project ships on 14 March 2027. [E1]"),
    "will_ship": one("The Orion project will ship on 14 March 2027. [E1]"),
    "scheduled": one("Orion is due to ship on 14 March 2027. [E1]"),
    "budget_of": one("Orion has a 2.4 million euro budget. [E1]"),
    "2point4m": one("Orion's budget is 2.4M euros. [E1]"),
    "mil": one("Orion's budget is EUR 2,400,000. [E1]"),
    "two_sent_one_claim": one("The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. [E1]"),
    "bold_label": one("**Answer:** " + A + " [E1]"),
    "bold_label_out": ("**Answer:** " + A + " [E1]", [A + " [E1]"]),
    "in_short": one("In short, the Orion project ships on 14 March 2027. [E1]"),
    "based_on": one("Based on the provided documents, the Orion project ships on 14 March 2027. [E1]"),
    "the_doc_says": one("The document states that the Orion project ships on 14 March 2027. [E1]"),
    "m_glued": one("Orion's budget is 2.4M euros. [E1]"),
    "mln": one("Orion's budget is 2.4 mln euros. [E1]"),
    "euro_sign_after": one("Orion's budget is 2.4 million €. [E1]"),
    "date_dmy_slash": one("Orion ships on 14/03/2027. [E1]"),
    "date_abbr": one("Orion ships on 14 Mar 2027. [E1]"),
    "date_weekday": one("Orion ships on Sunday, 14 March 2027. [E1]"),
    "marker_two": one("The Orion project ships on 14 March 2027 [E1][E1]."),
    "it_is": one("It ships on 14 March 2027. [E1]"),
    "set_to": one("The Orion project is set to ship on 14 March 2027. [E1]"),
    "shipping_date": one("The shipping date of the Orion project is 14 March 2027. [E1]"),
}
# Still not verified, on purpose or as known gaps: a bare "Yes." is a sentence no claim covers, a heading too when
# no cited item's title holds its words (this evidence has no title; "## Orion" over an item titled "Orion" is a
# lead-in, gates/lead_ins.py), and "planned to" is a word of plan added to a copied sentence.
STILL_REFUSED = {
    "heading_ok": ("## Orion\n" + A + " [E1]", [A + " [E1]"]),
    "yes": ("Yes. The Orion project ships on 14 March 2027. [E1]", ["The Orion project ships on 14 March 2027. [E1]"]),
    "planned": one("The Orion project is planned to ship on 14 March 2027. [E1]"),
}


@pytest.mark.parametrize("name", sorted(FAITHFUL))
def test_a_faithful_wording_is_verified_and_shown_as_written(name, plane_for):
    text, claims = FAITHFUL[name]
    response = plane_for(envelope(text, claims)).respond(QUESTION, evidence=EVIDENCE)
    assert response.status == "pass" and response.verified, (name, response.status)
    assert response.assistant_text == text


@pytest.mark.parametrize("name", sorted(STILL_REFUSED))
def test_the_known_gaps_are_still_not_verified(name, plane_for):
    text, claims = STILL_REFUSED[name]
    response = plane_for(envelope(text, claims)).respond(QUESTION, evidence=EVIDENCE)
    assert not response.verified
