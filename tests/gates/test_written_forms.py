"""A claim's numbers and dates read as its evidence writes them (gates/written_forms.py), and only those."""

from __future__ import annotations

import pytest

from controlplane.gates.written_forms import dates, in_evidence_terms

ORION = ("The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. Costs rose 58 percent. A grant of "
         "€24k came from the city on 4 May 2027.")


@pytest.mark.parametrize(("claim", "read_as"), [
    ("Its budget is 2,400,000 euros.", "Its budget is 2.4 million euros."),
    ("Its budget is about 2,400,000 euros [E1].", "Its budget is about 2.4 million euros [E1]."),
    ("Its budget is €2.4m.", "Its budget is 2.4 million euros."),  # the currency sign becomes the evidence's word
    ("Its budget is 2.4 mln euros.", "Its budget is 2.4 million euros."),
    # a currency code before the number is the currency ("EUR 2,400,000" is euros, as "€2,400,000" is)
    ("Its budget is EUR 2,400,000.", "Its budget is 2.4 million euros."),
    ("The project ships on 2027-03-14.", "The project ships on 14 March 2027."),
    ("The project ships on March 14th, 2027.", "The project ships on 14 March 2027."),
    ("The project ships on 14/03/2027.", "The project ships on 14 March 2027."),  # no month 14: day first
    ("The project ships on 3/14/2027.", "The project ships on 14 March 2027."),
    # the weekday the date falls on is the calendar's, not a name the evidence must hold
    ("The project ships on Sunday, 14 March 2027.", "The project ships on 14 March 2027."),
    ("The project ships on Sunday March 14, 2027.", "The project ships on 14 March 2027."),
])
def test_a_value_the_evidence_writes_another_way_is_read_its_way(claim, read_as):
    assert in_evidence_terms(ORION, claim) == read_as


@pytest.mark.parametrize("claim", [
    "Its budget is 2,500,000 euros.",  # another value: the number check finds it
    "The project ships on 2027-04-14.",  # another date
    "Its budget is $2.4m.", "The budget is £2,400,000.",  # another currency
    "The grant is worth USD 24,000.",  # a number with no unit of its own takes no currency sign from the evidence
    "Costs rose 58%.",  # the verifier reads "58%" and "58 percent" alike; the claim keeps its own words
    "Its budget is 2.4 million euros. [E1]",  # written as the evidence writes it
    "The project has twenty engineers and ships in March 2027.",  # no digits to rewrite, no full date
    "The grant came on 04/05/2027.",  # 4 May or April 5: which one is not known
    "The project ships on Monday, 14 March 2027.",  # 14 March 2027 is a Sunday: the name check finds "Monday"
])
def test_anything_else_is_read_as_written(claim):
    assert in_evidence_terms(ORION, claim) == claim


def test_a_number_without_a_unit_takes_no_unit_sign_from_the_evidence():
    # found in the final read: "1,500" over "1500%" would have been read as "1500%", so a number of no unit read as
    # the evidence's share
    evidence = "Remote work grew 1500% since 2019."
    assert in_evidence_terms(evidence, "Remote work grew by 1,500 since 2019.") == \
        "Remote work grew by 1,500 since 2019."


def test_a_value_the_evidence_writes_two_ways_is_left_as_the_claim_writes_it():
    evidence = "The grant was 2.4 million euros. The invoice says 2,400,000.00 euros."
    assert in_evidence_terms(evidence, "The grant was €2,400,000.") == "The grant was €2,400,000."
    once = "The grant was 2.4 million euros."
    assert in_evidence_terms(once, "The grant was €2,400,000.") == "The grant was 2.4 million euros."


def test_a_date_whose_day_and_month_cannot_be_told_apart_is_never_read_as_another():
    # found in the final read: 04/05/2027 and 04/06/2027 both read as "day 4 of an unknown month", so one was
    # rewritten as the other and a changed date would have reached the verifier as the evidence's own
    evidence = "The grant came on 04/06/2027."
    assert in_evidence_terms(evidence, "The grant came on 04/05/2027.") == "The grant came on 04/05/2027."
    assert in_evidence_terms(evidence, "The grant came on 4 June 2027.") == "The grant came on 4 June 2027."


def test_a_date_written_in_words_is_read_as_the_evidence_writes_it_in_digits():
    evidence = "The bridge reopened on 2021-06-30 after two years of repairs."
    assert in_evidence_terms(evidence, "It reopened on 30 June 2021.") == "It reopened on 2021-06-30."
    assert in_evidence_terms(evidence, "It reopened on 30 July 2021.") == "It reopened on 30 July 2021."


def test_dates_reads_the_three_ways_a_full_date_is_written_and_no_impossible_day():
    found = dates("Born 2021-06-30, moved on the 4th of July, 2022, left on August 1 2023; not 40 May 2020.")
    assert [(d.year, d.month, d.day, d.text) for d in found] == [
        (2021, 6, 30, "2021-06-30"), (2022, 7, 4, "4th of July, 2022"), (2023, 8, 1, "August 1 2023")]


PAY = "On-call pay is EUR 250 per week as primary and EUR 100 per week as secondary."


def test_a_currency_code_and_a_currency_sign_are_one_currency():
    """Found by rewording answers over the example corpus's on-call policy: "On-call pay is €250 a week for the
    primary." over "EUR 250 per week" was refused (the verifier reads "€250" against "EUR 250" as contradicted, 0.61;
    read as "EUR 250", 0.78): "EUR" before a number was no currency at all."""
    assert in_evidence_terms(PAY, "On-call pay is €250 a week for the primary.") == \
        "On-call pay is EUR 250 a week for the primary."
    assert in_evidence_terms("The fee is €40.", "The fee is EUR 40.") == "The fee is €40."
    assert in_evidence_terms(PAY, "On-call pay is $250 a week for the primary.") == \
        "On-call pay is $250 a week for the primary."  # another currency is left for the number check
    assert in_evidence_terms(PAY, "On-call pay is 250 a week for the primary.") == \
        "On-call pay is 250 a week for the primary."  # a number of no unit takes no currency


ROTATION = "Nobody is primary more than 1 week in 4. Everyone shadows two rotations first."


@pytest.mark.parametrize(("claim", "read_as"), [
    # found by rewording the example corpus's on-call page: the verifier read "No one is primary ..." against the
    # page's "Nobody is primary ..." as contradicted (0.70, entailed 0.23; "Nobody ..." 0.58 entailed): one pronoun,
    # spelled two ways
    ("No one is primary more than 1 week in 4.", "Nobody is primary more than 1 week in 4."),
    ("In practice no one is primary more than 1 week in 4.", "In practice nobody is primary more than 1 week in 4."),
    ("No-one is primary more than 1 week in 4.", "Nobody is primary more than 1 week in 4."),
    ("Everybody shadows two rotations first.", "Everyone shadows two rotations first."),
])
def test_a_pronoun_spelled_another_way_is_read_as_the_evidence_spells_it(claim, read_as):
    assert in_evidence_terms(ROTATION, claim) == read_as


@pytest.mark.parametrize("claim", [
    "Someone is primary more than 1 week in 4.",  # another pronoun: the checks and the verifier judge it
    "Nobody is primary more than 1 week in 4.",  # spelled as the evidence spells it
    "There is no one rotation for all engineers.",  # "no one" before its noun is no pronoun
])
def test_a_pronoun_the_evidence_does_not_spell_the_other_way_is_read_as_written(claim):
    assert in_evidence_terms(ROTATION, claim) == claim


def test_a_pronoun_the_evidence_spells_both_ways_is_read_as_written():
    assert in_evidence_terms("Nobody and no one are both here.", "No one is here.") == "No one is here."


STATUS = ("4. For SEV1, the status page is updated within 15 minutes of the acknowledgement, and then at least every 30 "
          "minutes until resolution.")


@pytest.mark.parametrize(("claim", "read_as"), [
    # the verifier read "every half hour" as contradicting "every 30 minutes" (0.58 against 0.20 entailed)
    ("The status page is updated at least every half hour until resolution.",
     "The status page is updated at least every 30 minutes until resolution."),
    ("The status page is updated at least every half an hour.", "The status page is updated at least every 30 minutes."),
    ("It is updated within a quarter of an hour of the acknowledgement.",
     "It is updated within 15 minutes of the acknowledgement."),
])
def test_a_fraction_of_a_unit_of_time_is_read_as_the_length_the_evidence_writes(claim, read_as):
    assert in_evidence_terms(STATUS, claim) == read_as


@pytest.mark.parametrize("claim", [
    "The status page is updated at least every hour.",  # a whole unit: another length, the checks find it
    "The status page is updated at least every half a minute.",  # a length the evidence does not write
])
def test_a_length_the_evidence_does_not_write_is_read_as_written(claim):
    assert in_evidence_terms(STATUS, claim) == claim
