"""Deterministic claim checks: a supported pair yields no finding of the check's code, a drifted pair yields one."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from controlplane.contracts.gate_result import ReasonCode
from controlplane.gates import claim_checks
from controlplane.gates.claim_checks import (
    NearCopy,
    _statements,
    absent_names,
    best_sentence,
    check_content,
    check_negation,
    check_numbers,
    check_qualifiers,
    check_strength,
    content_opposites,
    iso_months,
    lowercase_words,
    near_copies,
    quantities,
    run_checks,
    vetoes,
)


def codes(findings):
    return {f.code for f in findings}


# (check, evidence, claim that the evidence supports, claim that drifts, expected code)
CASES = [
    (check_numbers, "The drug reduced mortality by 25% in 300 patients.",
     "Mortality fell by 25% among 300 patients.", "Mortality fell by 40% among 300 patients.",
     ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Sales reached 2.5 million units in 2019.",
     "Sales reached 2,500,000 units in 2019.", "Sales reached 2.5 million units in 2018.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The bridge is 12 km long.", "The bridge is twelve km long.", "The bridge is 12 miles long.",
     ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Cases rose to 4,800 in March.", "Cases rose to about 5,000 in March.",
     "Cases rose to 5,000 in March.", ReasonCode.NUMBER_MISMATCH),
    # a value the evidence states, moved to another noun / date / place of the same passage
    (check_numbers, "The 8- and 10-county definitions are not used for the megaregion, one of the 11 megaregions.",
     "The megaregion is one of the 11 megaregions.", "The 11- and 10-county definitions are not used.",
     ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The company was founded in 1998 and expanded to Europe in 2005.",
     "In 2005, the company expanded to Europe.", "The company expanded to Europe in 1998.",
     ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Turnout was 62% in the north and 48 percent in the south.",
     "In the south, turnout reached 48%.", "Turnout was 48% in the north.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The school has 40 teachers and 600 students.",
     "The school's 600 students are taught by 40 teachers.", "The school has 600 teachers.",
     ReasonCode.NUMBER_MISMATCH),
    # a number in words is one quantity: "twenty-five" was read as 20 and refused "25 members"
    (check_numbers, "The club has twenty-five members and two hundred and five guests.",
     "The club's 25 members invited 205 guests.", "The club has 20 members.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Fifty-six percent of known cases are in New York.", "56% of known cases are in New York.",
     "50% of known cases are in New York.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Half of the staff work remotely.", "50% of the staff work remotely.",
     "40% of the staff work remotely.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "50% of the staff work remotely.", "Half of the staff work remotely.",
     "A dozen of the staff work remotely.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "One user complained about the change.", "A single user complained about the change.",
     "100% of users complained about the change.", ReasonCode.NUMBER_MISMATCH),
    # durations that convert exactly are one number; days and months do not convert
    (check_numbers, "Webhook deliveries are retried for 24 hours.", "Webhook deliveries are retried for one day.",
     "Webhook deliveries are retried for two days.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The trial ran for 18 months.", "The trial ran for 1.5 years.",
     "The trial ran for 2 years.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Logs are kept for 90 days.", "Logs are kept for 90 days.", "Logs are kept for three months.",
     ReasonCode.NUMBER_MISMATCH),
    # "5k" is 5,000 (it was read as 5); "1.5m" may be metres or a million, and either reading holds
    (check_numbers, "The app has 1.5 million users and 5,000 paying teams.", "The app has 1.5m users and 5k paying teams.",
     "The app has 2m users and 5k paying teams.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The app has 1.5m users.", "The app has 1.5 million users.", "The app has 15 million users.",
     ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The team has 5 members.", "The team has five members.", "The team has 5k members.",
     ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The wall is 1.5m high.", "The wall is 1.5 metres high.", "The wall is 1.5 km high.",
     ReasonCode.NUMBER_MISMATCH),
    # an "M" before a currency is a million, not metres; "mln" is the million of European writing
    (check_numbers, "Its budget is 2.4 million euros.", "Its budget is 2.4M euros.", "Its budget is 2.5M euros.",
     ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Its budget is 2.4 million euros.", "Its budget is 2.4 mln euros.", "Its budget is 24 mln euros.",
     ReasonCode.NUMBER_MISMATCH),
    # a one-sided bound must be borne out, not only be near the evidence's number (bench/prose's "number" case)
    (check_numbers, "Annual fees range to more than $45,000 at several schools.",
     "Fees reach more than $44,000 at several schools.", "Fees reach more than $48,000 at several schools.",
     ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The video has over 790 million views.", "The video has more than 780 million views.",
     "The video has under 800 million views.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The bridge carries 4,850 cars a day.", "The bridge carries fewer than 5,000 cars a day.",
     "The bridge carries at least 5,000 cars a day.", ReasonCode.NUMBER_MISMATCH),
    # a strict bound is not borne out by the evidence's own value: "less than 2.4 million" over "2.4 million" was
    # shown as verified; an inclusive one is ("at least", "no more than", which is not "more than")
    (check_numbers, "Its budget is 2.4 million euros.", "Its budget is at least 2.4 million euros.",
     "Its budget is less than 2.4 million euros.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Its budget is 2.4 million euros.", "Its budget is no more than 2.4 million euros.",
     "Its budget is more than 2.4 million euros.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The limit is at most 30 requests per minute.", "The limit is no more than 30 requests per minute.",
     "The limit is not less than 30 requests per minute.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Its budget is 2.4 million euros.", "Its budget is at most 2.4 million euros.",
     "Its budget is below 2.4 million euros.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Its budget is 2.4 million euros.", "Its budget reaches 2.4 million euros.",
     "Its budget exceeds 2.4 million euros.", ReasonCode.NUMBER_MISMATCH),
    # a comparative with "than" is a bound as "more than" is: "crossings of more than four hours" is the "crossings
    # longer than four hours" of the evidence, and "visitors younger than 18" its "visitors under 18"; the other side
    # of the bound is not
    (check_numbers, "On crossings longer than four hours, pets must stay in a pet cabin.",
     "On crossings of more than four hours, pets must stay in a pet cabin.",
     "On crossings shorter than four hours, pets must stay in a pet cabin.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Visitors under 18 enter free.", "Visitors younger than 18 enter free.",
     "Visitors older than 18 enter free.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The ferry takes 5 hours.", "The ferry takes no longer than 5 hours.",
     "The ferry takes longer than 5 hours.", ReasonCode.NUMBER_MISMATCH),
    # the comparative's line is the fact: "a year" is not the evidence's "6 months" (or any value it may restate)
    (check_numbers, "The API answers 426 Upgrade Required to app versions older than 6 months.",
     "The API answers 426 Upgrade Required to app versions older than half a year.",
     "The API answers 426 Upgrade Required to app versions older than a year.", ReasonCode.NUMBER_MISMATCH),
    # a value another sentence states of something else, given to the thing a sentence with another value names
    (check_numbers, "An adult ticket costs 18 euros. Visitors under 18 enter free. Students with a valid student card "
     "pay 9 euros.", "Adults pay 18 euros for a ticket.", "Students pay 18 euros.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "Foot passengers must check in at least 30 minutes before departure. Check-in closes 15 minutes "
     "before departure.", "Check-in closes 15 minutes before departure.",
     "Check-in closes 30 minutes before departure.", ReasonCode.NUMBER_MISMATCH),  # "check" is another's verb
    (check_numbers, "The primary is paid EUR 250 per week. The secondary is paid EUR 100 per week.",
     "The secondary gets EUR 100 a week.", "The secondary is paid EUR 250 per week.", ReasonCode.NUMBER_MISMATCH),
    # a day before or after is not the day: "ships before 14 March 2027" over "ships on 14 March 2027" was shown
    (check_numbers, "The Orion project ships on 14 March 2027.", "The Orion project ships by 14 March 2027.",
     "The Orion project ships before 14 March 2027.", ReasonCode.NUMBER_MISMATCH),
    (check_numbers, "The Orion project ships on 14 March 2027.", "The Orion project ships in March 2027.",
     "The Orion project ships after 14 March 2027.", ReasonCode.NUMBER_MISMATCH),
    # a clause after ", after which" is a statement of its own, whose "not" the first one does not carry
    (check_negation, "Check-in closes 15 minutes before departure, after which passengers are not allowed to board.",
     "Check-in closes 15 minutes before departure.", "Check-in does not close before departure.",
     ReasonCode.NEGATION_MISMATCH),
    (check_negation, "Check-in closes 15 minutes before departure, after which passengers are not allowed to board.",
     "After check-in closes, passengers may not board.", "After check-in closes, passengers may board.",
     ReasonCode.NEGATION_MISMATCH),
    (check_negation, "The vaccine was not effective in children under five.",
     "The vaccine did not work in children under five.", "The vaccine was effective in children under five.",
     ReasonCode.NEGATION_MISMATCH),
    (check_negation, "The policy increased unemployment in rural regions.",
     "The policy increased unemployment in rural regions.", "The policy decreased unemployment in rural regions.",
     ReasonCode.NEGATION_MISMATCH),
    (check_negation, "Smoking rates never fell below ten percent during the decade.",
     "Smoking rates never dropped below ten percent during the decade.",
     "Smoking rates fell below ten percent during the decade.", ReasonCode.NEGATION_MISMATCH),
    # a negative prefix negates as "not" does; a text that names both contrasts them ("runner" / "non-runner")
    (check_negation, "The service is not available on weekends.", "The service is unavailable on weekends.",
     "The service is available on weekends.", ReasonCode.NEGATION_MISMATCH),
    (check_negation, "The contract was not valid.", "The contract was invalid.", "The contract was valid.",
     ReasonCode.NEGATION_MISMATCH),
    # found by rewording refused lies: both were shown as verified
    (check_negation, "The office is closed on public holidays.", "The office is closed on every public holiday.",
     "The office is open on public holidays.", ReasonCode.NEGATION_MISMATCH),
    (check_negation, "Remote work is allowed up to two days a week.", "Remote work is permitted up to two days a week.",
     "Remote work is required two days a week.", ReasonCode.NEGATION_MISMATCH),
    (check_negation, "A runner's heart rate is lower than a non-runner's.",
     "The heart rate of a runner is lower than that of a non-runner.",
     "A runner's heart rate is not lower than a non-runner's.", ReasonCode.NEGATION_MISMATCH),
    # "un-" on a four-letter word negates too ("unused" is "not used"; "income" stays no negated "come")
    (check_negation, "Unused days expire on 31 March of the following year.",
     "Vacation days that are not used expire on 31 March of the next year.",
     "Used days expire on 31 March of the following year.", ReasonCode.NEGATION_MISMATCH),
    (check_negation, "Overtime is unpaid for managers.", "Overtime is not paid for managers.",
     "Overtime is paid for managers.", ReasonCode.NEGATION_MISMATCH),
    # "absence" as time away negates nothing; the absence of something does
    (check_negation, "Report sick leave before 09:30 on the first day of absence. A doctor's note is required from "
     "the fourth consecutive day of illness.", "You need a doctor's note from the fourth day of being sick.",
     "You need no doctor's note from the fourth day of being sick.", ReasonCode.NEGATION_MISMATCH),
    (check_negation, "The scan showed an absence of tumours in the liver.", "The scan showed no tumours in the liver.",
     "The scan showed tumours in the liver.", ReasonCode.NEGATION_MISMATCH),
    # "not only ... but also", "doesn't just": an addition, not a negation
    (check_negation, "Prosecutors represent not only society at large but also the victims of crimes.",
     "Prosecutors represent society at large and the victims of crimes.",
     "Prosecutors do not represent the victims of crimes.", ReasonCode.NEGATION_MISMATCH),
    (check_negation, "Domestic violence affects all who are exposed: perpetrators, victims and the children who "
     "witness it.", "Domestic violence doesn't just affect perpetrators and victims, but also the children who "
     "witness it.", "Domestic violence does not affect the children who witness it.", ReasonCode.NEGATION_MISMATCH),
    # "can" keeps the evidence's "may"; a denied "may" is a rule, not a hedge
    (check_strength, "Dogs and cats may travel on every route.", "Dogs and cats are allowed on every route.",
     "Dogs and cats travel on every route.", ReasonCode.STRENGTH_INFLATION),  # the "may" of a permission
    (check_strength, "The drug may cause drowsiness in adults.", "The drug can cause drowsiness in adults.",
     "The drug causes drowsiness in adults.", ReasonCode.STRENGTH_INFLATION),
    (check_strength, "Nobody may deploy to production on Fridays.", "Deploys to production are not allowed on Fridays.",
     "Deploys to production are proven unsafe on Fridays.", ReasonCode.STRENGTH_INFLATION),
    # so is a "may" that only a few are given ("only one person at a time may climb", over corpus h)
    (check_strength, "Nobody may walk, sit or stand on the bouldering mats under a climber, and only one person at a "
     "time may climb on each bouldering problem.", "You mustn't walk, sit or stand on the mats under someone who's "
     "bouldering.", "Walking on the bouldering mats under a climber is proven dangerous.", ReasonCode.STRENGTH_INFLATION),
    (check_strength, "Only members of the club may use the sauna.", "Only club members can use the sauna.",
     "Only club members are proven to use the sauna.", ReasonCode.STRENGTH_INFLATION),
    # "only" restricts what the evidence does not: one of the ways it lists, one of the animals it lets on board;
    # "anywhere" widens a place the evidence limits
    (check_qualifiers, "Tickets can be booked online, in the Nordkyst app or at the terminal.",
     "Tickets can be booked online.", "Tickets can only be booked online.", ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "Dogs and cats may travel on every route.", "Dogs may travel on every route.",
     "Only dogs may travel on every route.", ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "Food and drinks may only be consumed in the café on the first floor.",
     "Food and drinks may be consumed in the café only.", "Food and drinks may be consumed anywhere in the museum.",
     ReasonCode.QUALIFIER_DRIFT),
    # "only" where the sentence says "every"
    (check_qualifiers, "Assistance dogs are welcome in every room.", "Assistance dogs are welcome in all rooms.",
     "Assistance dogs are welcome only on the ground floor.", ReasonCode.QUALIFIER_DRIFT),
    # the evidence's own exclusion is the claim's "only"
    (check_qualifiers, "Use nothing but Brava descaling liquid.", "Use only Brava descaling liquid.",
     "Use any descaling liquid.", ReasonCode.QUALIFIER_DRIFT),
    # a weekday the sentence it restates leaves out of the days it gives ("Tuesday to Sunday")
    (check_qualifiers, "The museum is open from Tuesday to Sunday, 10:00 to 17:00. It is closed on Mondays.",
     "The museum is open on Saturdays.", "The museum is open on Mondays.", ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "Support answers from Friday to Monday.", "Support answers on Sunday.",
     "Support answers on Wednesday.", ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "Some patients improved after the treatment.", "Some patients improved after the treatment.",
     "All patients improved after the treatment.", ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "Exercise improved memory in older adults over 12 weeks.",
     "Exercise improved memory in older adults over 12 weeks.", "Exercise improved memory in adults over 12 weeks.",
     ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "Exercise improved memory in older adults over 12 weeks.",
     "Over twelve weeks, exercise improved memory in older adults.",
     "Exercise improved memory in older adults over 12 months.", ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "Patients took 10 mg of the drug daily.", "Patients took 10 mg of the drug every day.",
     "Patients took 10 g of the drug daily.", ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "Patients took 10 mg of the drug daily.", "Patients took 10 mg of the drug daily.",
     "Patients took 10 mg of the drug weekly.", ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "The compound reduced tumour growth in mice.", "The compound reduced tumour growth in mice.",
     "The compound reduced tumour growth in humans.", ReasonCode.QUALIFIER_DRIFT),
    (check_strength, "Coffee consumption is associated with a lower risk of diabetes.",
     "Coffee consumption is linked to a lower risk of diabetes.",
     "Coffee consumption causes a lower risk of diabetes.", ReasonCode.STRENGTH_INFLATION),
    (check_strength, "The treatment may reduce symptoms of migraine.", "The treatment might reduce symptoms of migraine.",
     "The treatment reduces symptoms of migraine.", ReasonCode.STRENGTH_INFLATION),
    (check_strength, "The trial results show a benefit of the vaccine.", "The trial shows a benefit of the vaccine.",
     "The trial proves a benefit of the vaccine.", ReasonCode.STRENGTH_INFLATION),
    (check_content, "Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.",
     "Marie Curie won the Nobel Prize in Chemistry.", "Marie Curie discovered insulin while teaching in Vienna.",
     ReasonCode.UNSUPPORTED_CONTENT),
    (check_content, "The river flows through three countries before reaching the sea.",
     "The river flows through three countries.", "The river flows through Hungary.", ReasonCode.UNSUPPORTED_CONTENT),
    # a possessive or a quoted name is the name; a hyphenated one is there when the evidence writes it with a space
    (check_content, "Nazir chairs the ASEAN council of the World Economic Forum.",
     "Nazir chairs the World Economic Forum's ASEAN council.", "Nazir chairs the Davos Forum's ASEAN council.",
     ReasonCode.UNSUPPORTED_CONTENT),
    (check_content, "The site tells the story of African Americans in the horse industry.",
     "The site tells the story of African-Americans in the horse industry.",
     "The site tells the story of Native-Americans in the horse industry.", ReasonCode.UNSUPPORTED_CONTENT),
    (check_content, "The band's first single was Dream, released in 1987.",
     "The band's first single, 'Dream', came out in 1987.", "The band's first single, 'Nightfall', came out in 1987.",
     ReasonCode.UNSUPPORTED_CONTENT),
    # misses found by the hand-written faithfulness set (tests/nli/data/faithfulness_cases.jsonl)
    (check_negation, "The city council approved the new cycling plan on Tuesday.",
     "On Tuesday the city council passed the new cycling plan.", "The city council rejected the new cycling plan.",
     ReasonCode.NEGATION_MISMATCH),
    (check_negation, "The court ruled that the contract was invalid.", "The court found the contract to be invalid.",
     "The court ruled that the contract was valid.", ReasonCode.NEGATION_MISMATCH),
    (check_qualifiers, "In a survey of 2,000 British adults, 62% work from home at least one day a week.",
     "In a survey of British adults, 62% work from home at least one day a week.",
     "In a survey of 2,000 British teenagers, 62% work from home at least one day a week.",
     ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "The trial enrolled 300 patients with asthma.", "The trial enrolled 300 asthma patients.",
     "The trial enrolled 300 participants with asthma.", ReasonCode.QUALIFIER_DRIFT),
    (check_numbers, "The tower is 330 metres tall.", "The tower has a height of 330 metres.",
     "The tower is 330 feet tall.", ReasonCode.NUMBER_MISMATCH),
    (check_qualifiers, "The API limits each key to 100 requests per minute.",
     "Each key may make at most 100 requests per minute.", "The API limits each key to 100 requests per second.",
     ReasonCode.QUALIFIER_DRIFT),
    (check_qualifiers, "The ship left Lisbon on 3 March. It reached Rio de Janeiro on 28 March.",
     "The ship left Lisbon on 3 March and reached Rio de Janeiro on 28 March.",
     "The ship left Lisbon on 3 March and reached Rio de Janeiro on 28 May.", ReasonCode.QUALIFIER_DRIFT),
]


@pytest.mark.parametrize(("check", "evidence", "good", "bad", "code"), CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_check_passes_supported_and_flags_drift(check, evidence, good, bad, code):
    assert code not in codes(check(evidence, good)), check(evidence, good)
    found = check(evidence, bad)
    assert code in codes(found)
    assert all(f.detail for f in found)


@pytest.mark.parametrize(("evidence", "claim"), [
    ("Although the crowd destroyed most statues, 67 were saved.", "Only 67 statues were saved."),
    ("The library has two reading rooms.", "The library has only two reading rooms."),
    ("Ask any employee with fewer than ten years of service.", "Ask employees with only a few years of service."),
    ("Tickets are valid for one visit on the chosen day only.", "Tickets are only valid on the chosen day."),
    ("The museum is open every day except Monday.", "The museum is open on every day but Monday only."),
])
def test_only_before_a_number_or_where_the_evidence_excludes_is_no_drift(evidence, claim):
    findings = check_qualifiers(evidence, claim)
    assert not [f for f in findings if f.check == "exclusive"], findings


def test_numbers_ignore_identifiers_and_ordinals():
    assert quantities("COVID-19 and H5N1 spread in the 2nd wave") == []
    values = sorted(q.value for q in quantities("$3m budget, 45 percent, two thousand people"))
    assert values == [45.0, 2000.0, 3e6]


@pytest.mark.parametrize(("evidence", "claim"), [
    ("Young fights Kedzie on April 9th in Albuquerque.", "Young fights Kedzie on April 9 in Albuquerque."),
    ("The vote is on the 9th of April.", "The vote is on April 9."),
    ("The vote is on April 9.", "The vote is on 9th April."),
])
def test_an_ordinal_day_of_a_month_is_the_day(evidence, claim):
    """Found in WiCE dev (a supported claim refused): "... on April 9, 2011 in Albuquerque" was a NUMBER_MISMATCH over
    "... on April 9th in Albuquerque": an ordinal is a rank and was left out, so the evidence stated no 9. A day of a
    month written as an ordinal is that day; another day is still a mismatch."""
    assert check_numbers(evidence, claim) == []
    assert codes(check_numbers(evidence, claim.replace("9", "19"))) == {ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize(("evidence", "claim"), [
    # "After the first failure ..." was shown over "After the fifth failure ...": the value check reads no ordinal
    ("After the fifth failure the endpoint is marked failing.", "After the first failure the endpoint is marked failing."),
    ("It is the third film in the series.", "It is the 2nd film in the series."),
])
def test_a_rank_the_evidence_gives_otherwise_is_a_number_mismatch(evidence, claim):
    assert codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}


ESCALATION = "If a SEV1 is not mitigated within 30 minutes, the IC escalates to the CTO by phone."
CANARY = "A deploy first updates 1 canary machine and watches its error rate for 15 minutes."


@pytest.mark.parametrize(("evidence", "claim"), [
    (ESCALATION, "If a SEV1 is not mitigated within half an hour, the IC escalates to the CTO by phone."),
    (ESCALATION, "If a SEV1 is not mitigated within a half hour, the IC escalates to the CTO by phone."),
    (CANARY, "A deploy watches the canary's error rate for a quarter of an hour."),
    ("The meeting lasts 45 minutes.", "The meeting lasts three quarters of an hour."),
    ("Staging is stopped for 12 hours each night.", "Staging is stopped for half a day each night."),
])
def test_a_fraction_of_a_unit_of_time_is_that_length(evidence, claim):
    """Found writing a fourth round of faithful answers over the example corpus (2026-12-06): "within half an hour"
    over "within 30 minutes" was refused (NUMBER_MISMATCH for "half an", and "an hour" read as a frequency), while
    "a quarter of a day" over "for 15 minutes" was shown verified (no length read at all). A fraction of a unit is
    that much of the unit, compared as any length of time is."""
    assert check_numbers(evidence, claim) == []
    assert not any(f.check == "frequency" for f in check_qualifiers(evidence, claim))
    assert near_copies(evidence, claim) == ()  # the same length, said otherwise: no swap
    other = claim.replace("half an hour", "a quarter of an hour").replace("a half hour", "an hour").replace(
        "a quarter of an hour", "a quarter of a day").replace("three quarters", "a quarter").replace("half a day",
                                                                                                   "half a week")
    assert codes(check_numbers(evidence, other)) == {ReasonCode.NUMBER_MISMATCH}, other


def test_a_length_of_time_the_evidence_gives_in_another_unit_is_no_timeframe_drift():
    """Found writing a fourth round of faithful answers over the example corpus (2026-12-06): "... over about a day"
    over "5 attempts over about 24 hours (after 1 minute, ...)" was QUALIFIER_DRIFT, the claim's 1 day being read
    against the evidence's "1 minute" while its "24 hours" is that day."""
    evidence = ("Webhook deliveries are retried with exponential backoff: 5 attempts over about 24 hours (after 1 "
                "minute, 10 minutes, 1 hour, 6 hours and 17 hours).")
    claim = "Webhook deliveries are attempted 5 times over about a day."
    assert not any(f.check == "timeframe" for f in check_qualifiers(evidence, claim))
    assert any(f.check == "timeframe" for f in check_qualifiers(evidence.replace("24 hours", "2 days"), claim))


EFFECTIVE = "Applies to the 6 engineers of the platform and backend teams. Effective 2025-04-01."


@pytest.mark.parametrize("claim", [
    "The on-call policy has been in effect since 1 May 2025.",
    "The on-call policy took effect on 4 January 2025.",  # the ISO date's day and month exchanged
    "The on-call policy took effect on April 2, 2025.",
    "The policy took effect on 1 April 2024.",
])
def test_a_date_the_evidence_dates_otherwise_is_a_number_mismatch(claim):
    """Found writing a fourth round of lies over the example corpus (2026-12-06): "The on-call policy has been in
    effect since 1 May 2025." was shown verified over "Effective 2025-04-01.": the value check found its 1 and 2025 in
    the ISO date, and the month check only compares months the evidence writes out. A day the claim dates is compared
    with the evidence's dates, in whatever form either writes them."""
    findings = check_numbers(EFFECTIVE, claim)
    assert codes(findings) == {ReasonCode.NUMBER_MISMATCH}
    assert any("2025-04-01" in f.detail for f in findings)


@pytest.mark.parametrize(("evidence", "claim"), [
    (EFFECTIVE, "The on-call policy has been in effect since 1 April 2025."),
    (EFFECTIVE, "The on-call policy took effect on April 1st, 2025."),
    (EFFECTIVE, "The on-call policy took effect on 2025-04-01."),
    (EFFECTIVE, "The on-call policy took effect in April 2025."),  # a month and year: the month check's to read
    ("The launch is on 14 March 2027.", "The launch is on 2027-03-14."),
    ("The launch is on 14 March 2027.", "The launch is on the 14th of March."),  # no year: the day and month agree
    ("Signed on 3 May 2020 and renewed on 2021-06-07.", "It was renewed on 7 June 2021."),  # one of two dates
    ("The policy was approved in 2025.", "The policy was approved on 1 April 2025."),  # no day-dated evidence
])
def test_a_date_the_evidence_gives_in_another_form_is_no_mismatch(evidence, claim):
    assert not any("dates" in f.detail for f in check_numbers(evidence, claim))


@pytest.mark.parametrize(("evidence", "claim"), [
    ("It is the third film in the series.", "It is the 3rd film in the series."),
    ("Its third film followed the second film.", "The second film came before the third."),  # both ranks stated
    ("The first season had ten episodes.", "The second episode was delayed."),  # another thing ranked
    ("The timeout is 10 seconds.", "A 10 second timeout applies."),  # a unit, not a rank
])
def test_a_rank_the_evidence_states_or_does_not_rank_is_no_mismatch(evidence, claim):
    assert check_numbers(evidence, claim) == []


@pytest.mark.parametrize(("evidence", "claim", "flagged"), [
    # "at most" for "at least" with no number after it was shown: no quantity for the bound check
    ("Clients must back off for at least the Retry-After value.",
     "Clients must back off for at most the Retry-After value.", True),
    ("Clients must back off for at most the Retry-After value.",
     "Clients must back off for at least the Retry-After value.", True),
    ("Clients must back off for at least the Retry-After value.",
     "Clients must wait at least the Retry-After value.", False),
    # superlatives are no bound: "the most" over "the least" is left to the verifier
    ("It is the least visited park and the most loved.", "It is the most loved park.", False),
])
def test_at_most_for_at_least_is_a_negation_mismatch(evidence, claim, flagged):
    assert (ReasonCode.NEGATION_MISMATCH in codes(check_negation(evidence, claim))) is flagged


def test_negation_needs_a_matching_evidence_sentence():
    # the evidence is about something else: no polarity comparison is made
    assert check_negation("The museum does not open on Mondays.", "Paris has many bridges over the Seine.") == []


WEBHOOKS = ("Webhook deliveries are retried on any non-2xx answer or a timeout of 10 seconds, with exponential backoff: "
            "5 attempts over about 24 hours (after 1 minute, 10 minutes, 1 hour, 6 hours and 17 hours). After the "
            "fifth failure the endpoint is marked failing and the account owner is notified.")


@pytest.mark.parametrize("claim", [
    # found by rewording the example corpus's rate-limit page: "failed" before the noun it describes says which
    # deliveries, it negates nothing the sentence states, and the faithful answer was refused as NEGATION_MISMATCH
    "Failed webhook deliveries are retried 5 times over about 24 hours with exponential backoff.",
    "Retries of failed webhook deliveries use exponential backoff.",
    # found with the same page: after an ordinal ("the fifth failed delivery")
    "After the fifth failed delivery, the endpoint is marked failing.",
    "Each failed delivery is retried with exponential backoff.",
])
def test_a_negative_participle_before_its_noun_negates_nothing_in_the_claim(claim):
    assert check_negation(WEBHOOKS, claim) == []


def test_a_negative_participle_before_its_noun_is_the_evidence_s_verb_said_as_a_description():
    # nli-train: "Bin Ladin and his associates' goals were revealed by their failed effort." over "But while the
    # effort failed, it shows what Bin Ladin and his associates hoped to do." (entailed)
    assert check_negation("But while the effort failed, it shows what Bin Ladin and his associates hoped to do.",
                          "Bin Ladin and his associates' goals were revealed by their failed effort.") == []


@pytest.mark.parametrize("evidence, claim", [
    # the participle as a verb still negates, and the evidence's own one still limits what it says: a claim that
    # leaves it out says more ("Deliveries are retried." over "Failed deliveries are retried.")
    (WEBHOOKS, "Webhook deliveries failed and are retried with exponential backoff."),
    (WEBHOOKS, "Webhook deliveries failed twice and are retried with exponential backoff."),
    (WEBHOOKS, "Failed webhook deliveries are not retried."),
    ("Failed deliveries are retried with exponential backoff.", "Deliveries are retried with exponential backoff."),
    ("Refused applications are appealed within 30 days.", "Applications are appealed within 30 days."),
    ("The delivery was retried and succeeded.", "The delivery was retried and failed."),
])
def test_a_negative_participle_still_negates_as_a_verb_or_where_only_the_evidence_has_it(evidence, claim):
    assert codes(check_negation(evidence, claim)) == {ReasonCode.NEGATION_MISMATCH}


EXPENSES = "Submit expense claims in Pleo within 30 days; claims older than 90 days are not paid."


SEV3_BULLET = "- Alerts that are not pages (SEV3) are handled during working hours, 09:00 to 18:00 CET, Monday to Friday."


def test_a_negated_description_the_evidence_names_is_no_negation_of_a_claim_that_uses_the_name():
    """Found by rewording the example corpus's on-call page: "SEV3 alerts are handled during working hours ..." was
    refused as NEGATION_MISMATCH for the "not" that defines what SEV3 is. A claim that uses the description's own
    words, or negates the statement, is still compared with the "not"."""
    assert check_negation(SEV3_BULLET, "SEV3 alerts are handled during working hours (09:00-18:00 CET, Monday to "
                                "Friday).") == []
    for claim in ("SEV3 alerts are pages handled during working hours.",
                  "SEV3 alerts are not handled during working hours, Monday to Friday.",
                  "Alerts are handled during working hours, 09:00 to 18:00 CET, Monday to Friday."):
        assert codes(check_negation(SEV3_BULLET, claim)) == {ReasonCode.NEGATION_MISMATCH}, claim


BACKUPS = ("Data held only in backups is not restored selectively; it expires with the backup after at most 35 "
           "days.")


def test_a_clause_that_opens_with_a_pronoun_after_a_semicolon_is_about_the_subject_before_it():
    """Found by rewording the example corpus's retention page: the faithful "Data that only exists in backups expires
    ..." was refused as NEGATION_MISMATCH for the "not" of the clause before the semicolon; the clause after it says
    "it", so neither clause alone held as much of the claim as the sentence."""
    assert check_negation(BACKUPS, "Data that only exists in backups expires with the backup after at most 35 "
                                   "days.") == []
    for flipped in ("Data held only in backups is restored selectively.",
                    "Data that only exists in backups does not expire with the backup."):
        assert codes(check_negation(BACKUPS, flipped)) == {ReasonCode.NEGATION_MISMATCH}, flipped


def test_a_semicolon_parts_two_statements_for_the_negation_check():
    """Found with a new user's handbook: the faithful "Expense claims must be submitted in Pleo within 30 days." was
    refused as NEGATION_MISMATCH for the "not" of the statement after the semicolon. A claim restating either
    statement is compared with that one; a flipped polarity on either is still caught."""
    for faithful in ("Expense claims must be submitted in Pleo within 30 days.",
                     "Claims older than 90 days are not paid."):
        assert check_negation(EXPENSES, faithful) == [], faithful
    for flipped in ("Claims older than 90 days are paid.", "Expense claims are not submitted in Pleo within 30 days."):
        assert codes(check_negation(EXPENSES, flipped)) == {ReasonCode.NEGATION_MISMATCH}, flipped
    # a claim that spans both statements is compared with the whole sentence
    assert codes(check_negation(EXPENSES, "Submit expense claims in Pleo within 30 days; claims older than 90 days "
                                          "are paid.")) == {ReasonCode.NEGATION_MISMATCH}


REPLICAS_LAG = "Writes always go to the primary; reads may be served by a replica and can lag the primary by 1 second."


def test_a_hedge_of_the_other_statement_after_a_semicolon_does_not_hedge_the_claim():
    """Found by rewording faithful answers over the example corpus's hosting page: "Writes always go to the primary
    database." was refused as STRENGTH_INFLATION for the "may" of the statement after the semicolon. As for negation,
    a claim restating one statement is held to that statement; dropping the hedge of the statement it restates is
    still caught."""
    assert check_strength(REPLICAS_LAG, "Writes always go to the primary database.") == []
    assert check_strength(REPLICAS_LAG, "Reads may be served by a replica.") == []
    assert codes(check_strength(REPLICAS_LAG, "Reads are served by a replica.")) == {ReasonCode.STRENGTH_INFLATION}


CARRY_OVER = ("Up to five unused days may be carried over into the first quarter of the next year; days carried "
              "over expire on 31 March.")


def test_a_hedged_verb_the_claim_only_describes_with_does_not_hedge_the_claim():
    """Found over corpus b's handbook (a third set): "Unused days carried over into the next year expire on 31
    March." states the expiry, which the sentence does not hedge; "carried over" only says which days, yet the claim
    draws on both statements and was held to the "may" of the first. Stating the hedged verb is still caught."""
    assert check_strength(CARRY_OVER, "Unused days carried over into the next year expire on 31 March.") == []
    assert codes(check_strength(CARRY_OVER, "Unused days are carried over into the next year and expire on 31 "
                                            "March.")) == {ReasonCode.STRENGTH_INFLATION}
    assert codes(check_strength(CARRY_OVER, "Up to five unused days are carried over into the first quarter of the "
                                            "next year.")) == {ReasonCode.STRENGTH_INFLATION}


GROUPS = ("Groups of 10 or more pay a 30% deposit when booking and may cancel free only up to 14 days before "
          "arrival.")
FINAL_TEST = ("A level certificate also requires passing the final test in week 12, which costs 30 euros and may be "
              "retaken once free within a month.")


@pytest.mark.parametrize(("evidence", "claim", "inflated"), [
    # over corpus g: a modal that opens a second predicate ("and may cancel", "which ... may be retaken") hedges that
    # predicate, not what the claim takes from the first
    (GROUPS, "If you book for a group of 10 or more, you pay a 30% deposit up front.", False),
    (FINAL_TEST, "For a level certificate you also have to pass the final test in week 12.", False),
    (FINAL_TEST, "The final test for a level certificate costs 30 euros.", False),
    # the hedged predicate itself, stated without a hedge, is still caught
    (GROUPS, "Groups of 10 or more pay a 30% deposit and cancel free up to 14 days before arrival.", True),
    (FINAL_TEST, "The final test is retaken once free within a month.", True),
    (FINAL_TEST, "The final test in week 12 is free of charge.", True),
    # a modal right after its subject hedges the whole sentence, whatever verb the claim puts for its own
    ("Coffee may reduce the risk of liver cancer.", "Coffee lowers the risk of liver cancer.", True),
])
def test_a_modal_that_opens_a_second_predicate_hedges_only_that_predicate(evidence, claim, inflated):
    assert (ReasonCode.STRENGTH_INFLATION in codes(check_strength(evidence, claim))) is inflated


LATECOMERS = ("Latecomers are admitted only at a suitable break chosen by the staff, and they may be seated somewhere "
              "other than their booked seat.")
BELAY = ("Roped climbing also requires passing a belay test, and anyone who fails it may retake it once free on the "
         "same day.")


@pytest.mark.parametrize(("evidence", "claim", "inflated"), [
    # over corpus h: a modal after "and" and a subject of its own ("and they may be seated", "and anyone who fails it
    # may retake it") hedges its own clause, not the one before it that the claim restates
    (LATECOMERS, "If you arrive late, you'll be let in only at a suitable break chosen by the staff.", False),
    (BELAY, "To climb with ropes you also have to pass a belay test.", False),
    # that clause stated without its hedge is still caught
    (LATECOMERS, "Latecomers are seated somewhere other than their booked seat.", True),
    (BELAY, "Anyone who fails the belay test retakes it once free on the same day.", True),
    # a report's hedge after a subject of its own hedges a claim that draws on it
    ("The drug lowers blood pressure, and it may cause drowsiness.", "The drug causes drowsiness.", True),
])
def test_a_modal_in_a_clause_with_its_own_subject_hedges_only_that_clause(evidence, claim, inflated):
    assert (ReasonCode.STRENGTH_INFLATION in codes(check_strength(evidence, claim))) is inflated


VALIDATION = ("They may run advisory validation for a better experience (for example, the format of an e-mail address "
              "or a required field), but the server re-validates every request and its answer wins.")


def test_a_clause_after_but_with_its_own_subject_is_its_own_statement():
    """Found by rewording faithful answers over ADR-011: "Clients render state and collect input; the server
    re-validates every request." was refused as STRENGTH_INFLATION for the "may" of the clients' advisory validation,
    which the server's clause after ", but the server ..." does not share. A clause after ", but" that names its own
    subject is a statement of its own; one that shares the first clause's subject ("..., but raise heart rate")
    keeps its hedge, and so does a claim that drops the hedge of the clause it restates. Only the strength check
    cuts there."""
    assert check_strength(VALIDATION, "The server re-validates every request.") == []
    assert check_strength(VALIDATION, "The server re-validates every request and its answer wins.") == []
    assert codes(check_strength(VALIDATION, "Clients run advisory validation for a better experience.")) == \
        {ReasonCode.STRENGTH_INFLATION}
    elliptic = "The drug may lower blood pressure, but raise the heart rate."
    assert codes(check_strength(elliptic, "The drug raises the heart rate.")) == {ReasonCode.STRENGTH_INFLATION}
    assert codes(check_strength(elliptic, "It raises the heart rate.")) == {ReasonCode.STRENGTH_INFLATION}
    # the negation check still reads the whole sentence (measured: see claim_checks._BUT_NEW_SUBJECT)
    rule = "Clients never compute prices, but the server returns the totals they display."
    assert codes(check_negation(rule, "The server returns the totals.")) == {ReasonCode.NEGATION_MISMATCH}


RETENTION_TABLE = ("| data | retention | notes |\n| --- | --- | --- |\n"
                   "| application logs | 30 days | must not contain message bodies or payment card data |")


def test_each_cell_of_a_table_row_is_a_statement_about_the_row_for_the_negation_check():
    """Found by rewording faithful answers over the example corpus's retention policy: "Application logs are kept
    for 30 days." was refused as NEGATION_MISMATCH for the "not" of the row's notes cell. A row states each of its
    cells of the thing its first cell names; a claim restating one cell is held to that one."""
    for faithful in ("Application logs are kept for 30 days.",
                     "Application logs must not contain message bodies or payment card data."):
        assert check_negation(RETENTION_TABLE, faithful) == [], faithful
    for flipped in ("Application logs may contain message bodies or payment card data.",
                    "Application logs are not kept for 30 days."):
        assert codes(check_negation(RETENTION_TABLE, flipped)) == {ReasonCode.NEGATION_MISMATCH}, flipped
    # two rows read together are no one row: the second row's cells are not statements about the first's thing
    two_rows = "| application logs | 30 days | kept | | access logs | 90 days | must not contain card data |"
    assert _statements(two_rows) == [two_rows]


DEPLOYS = ("A deploy first updates 1 canary machine and watches its error rate for 15 minutes. A user reported a crash "
           "after the deploy.")


@pytest.mark.parametrize("claim", [
    # found by rewording the example corpus's stack page: "A deploy first updates ..." says what every deploy does,
    # and "Each deploy first updates one canary machine." was refused as a stronger quantifier
    "Each deploy first updates one canary machine.", "Every deploy first updates 1 canary machine.",
    "Each deploy watches its error rate for 15 minutes.",
])
def test_each_for_a_generic_a_in_the_present_is_no_stronger_quantifier(claim):
    assert [f for f in check_qualifiers(DEPLOYS, claim) if f.check == "quantifier"] == []


def test_each_for_a_noun_after_per_is_no_stronger_quantifier():
    # found by rewording the example corpus's stack page: "Each machine runs 4 Uvicorn workers." over "... served by
    # Uvicorn, 4 workers per machine."
    backend = "Backend: Python 3.12 with FastAPI, served by Uvicorn, 4 workers per machine."
    assert check_qualifiers(backend, "Each machine runs 4 Uvicorn workers.") == []
    assert codes(check_qualifiers(backend, "Every backend runs 4 Uvicorn workers.")) == {ReasonCode.QUALIFIER_DRIFT}
    # a word between the quantifier and its noun (a sixth round over the example corpus)
    assert check_qualifiers(backend, "Each backend machine runs 4 Uvicorn workers.") == []


@pytest.mark.parametrize("claim", [
    "Every user reported a crash after the deploy.",  # "A user reported ...": one user, in the past
    "Each machine first updates 1 canary machine.",  # another noun than the evidence's
])
def test_each_for_an_a_that_is_not_generic_is_still_a_stronger_quantifier(claim):
    assert codes(check_qualifiers(DEPLOYS, claim)) == {ReasonCode.QUALIFIER_DRIFT}


DAY_PASS = ("A day pass costs 16 euros for adults and 11 euros for students and children aged 8 to 15, and it allows "
            "re-entry on the same day only.")


def test_the_generic_noun_of_a_compound_is_its_last_word():
    # shown verified over corpus h: "A day pass costs ..." made "day" the generic noun, so "any day that week" read as
    # "each day" of it
    assert codes(check_qualifiers(DAY_PASS, "A day pass allows re-entry on any day that week.")) == \
        {ReasonCode.QUALIFIER_DRIFT}
    assert check_qualifiers(DAY_PASS, "Each day pass allows re-entry on the same day.") == []


COMPENSATION = ("- On-call pay is EUR 250 per week as primary and EUR 100 per week as secondary.\n"
                "- Every page outside working hours is paid at EUR 50 per incident, plus time worked at 150% of the "
                "hourly rate.")
STACK_DEPLOYS = ("Deploys run from GitHub Actions on every merge to `main`. A deploy first updates 1 canary machine "
                 "and watches its error rate for 15 minutes; if the 5xx rate stays below 1%, the remaining machines "
                 "are updated with a rolling strategy.")


@pytest.mark.parametrize("evidence, claim", [
    # lies shown verified over the example corpus: the claim's words are spread over two sentences, and the "every"
    # that licensed its universal quantifies the other sentence's noun ("Every page", "every merge")
    (COMPENSATION, "Each engineer is paid EUR 250 per week."),
    (STACK_DEPLOYS, "Each deploy first updates every machine at once."),
])
def test_a_universal_from_the_other_sentence_of_a_pair_is_a_stronger_quantifier(evidence, claim):
    assert codes(check_qualifiers(evidence, claim)) == {ReasonCode.QUALIFIER_DRIFT}


ORGAN_RECITALS = ("Food may not be taken into the auditorium, and drinks are allowed there only in the hall's plastic "
                  "cups, except at organ recitals, when no drinks are allowed in the auditorium.")


@pytest.mark.parametrize(("claim", "drift"), [
    # refused over corpus h: "any" under a negation ("can't take any drinks") says none, and quantifies no one
    ("Drinks are only allowed in the hall's plastic cups, apart from organ recitals, when you can't take any drinks "
     "in.", False),
    ("At organ recitals you are not allowed to take any drinks into the auditorium.", False),
    # "any" said outright is still a universal the sentence does not give
    ("You can take any drinks into the auditorium at organ recitals.", True),
])
def test_any_under_a_negation_is_no_universal_quantifier(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(ORGAN_RECITALS, claim))) is drift


@pytest.mark.parametrize("evidence, claim", [
    # the universal stands in the sentence that names what the claim quantifies
    (COMPENSATION, "Every page outside working hours is paid at EUR 50 per incident."),
    (STACK_DEPLOYS, "Deploys run on every merge to `main`, and each deploy first updates 1 canary machine."),
    (STACK_DEPLOYS, "Each deploy first updates 1 canary machine, and deploys run on every merge to `main`."),
])
def test_a_universal_in_the_sentence_of_its_noun_holds_in_a_pair(evidence, claim):
    assert [f for f in check_qualifiers(evidence, claim) if f.check == "quantifier"] == []

ROTATION_PAGE = ("The rotation is weekly; the handover is on Monday at 10:00 CET, in a 15-minute call where the "
                 "outgoing primary walks through open incidents and alerts.")


@pytest.mark.parametrize("claim", [
    # found by rewording the example corpus's on-call page: "every Monday" read as the universal "every"
    "Handover happens every Monday at 10:00 CET in a 15-minute call.",
    "The handover is on Mondays at 10:00 CET, in a 15-minute call.",
])
def test_a_recurring_weekday_is_a_weekly_frequency(claim):
    assert check_qualifiers(ROTATION_PAGE, claim) == []


RELEASES = ("Harbor's mobile apps are released every two weeks, on Tuesdays, from the release branch cut on the "
            "previous Thursday.")


@pytest.mark.parametrize("claim", [
    # shown verified over the example corpus: the weekday of "every two weeks, on Tuesdays" was read as a weekly
    # frequency of its own, which "every week" matched
    "Harbor's mobile apps are released every week, on Tuesdays.",
    "The mobile apps are released weekly.",
    "The mobile apps are released every Tuesday.",
])
def test_the_weekday_of_another_frequency_is_not_weekly(claim):
    assert codes(check_qualifiers(RELEASES, claim)) == {ReasonCode.QUALIFIER_DRIFT}


@pytest.mark.parametrize("claim", [
    "The mobile apps are released every two weeks on Tuesdays.",
    "The mobile apps are released on Tuesdays.",  # which day, not how often
])
def test_the_weekday_of_a_frequency_restated_is_no_drift(claim):
    assert check_qualifiers(RELEASES, claim) == []


@pytest.mark.parametrize(("evidence", "claim"), [
    ("The handover is on Monday at 10:00 CET.", "The handover is every Monday at 10:00 CET."),  # once, said to recur
    ("The rotation is monthly; the handover is on Monday.", "The handover is every Monday."),  # another period
])
def test_a_recurring_weekday_the_evidence_does_not_repeat_is_a_frequency_drift(evidence, claim):
    assert codes(check_qualifiers(evidence, claim)) == {ReasonCode.QUALIFIER_DRIFT}


RECOVERY = ("To recover data, use Turso point-in-time recovery into a new database (never over the primary), verify "
            "it, then switch the `DATABASE_URL` secret.")


def test_an_aside_in_parentheses_is_a_statement_of_its_own():
    """Found by rewording the example corpus's runbook: "After verifying the recovered database, switch the
    DATABASE_URL secret." was refused as NEGATION_MISMATCH for the "never" of the aside "(never over the primary)"."""
    assert check_negation(RECOVERY, "After verifying the recovered database, switch the DATABASE_URL secret.") == []
    for flipped in ("Recover data with Turso point-in-time recovery over the primary.",
                    "Do not switch the DATABASE_URL secret after verifying the recovered database."):
        assert codes(check_negation(RECOVERY, flipped)) == {ReasonCode.NEGATION_MISMATCH}, flipped


ANALYTICS_ROW = "| product analytics events | 14 months | pseudonymised; no e-mail addresses or names |"


def test_a_claim_that_joins_cells_of_a_row_is_held_to_those_cells():
    """Found by rewording the example corpus's retention table: "Product analytics events are kept for 14 months and
    are pseudonymised." joins two cells, so no one cell held it, and the row's "no e-mail addresses" negated it. The
    statements a claim draws on (each cell, each part of a cell between semicolons) are what it is compared with; a
    statement none of whose own words the claim uses says nothing of it."""
    assert check_negation(ANALYTICS_ROW, "Product analytics events are kept for 14 months and are pseudonymised.") == []
    for flipped in ("Product analytics events are kept for 14 months and include e-mail addresses.",
                    "Product analytics events are not kept for 14 months and are pseudonymised."):
        assert codes(check_negation(ANALYTICS_ROW, flipped)) == {ReasonCode.NEGATION_MISMATCH}, flipped


MONITORS = "Monitors must be ordered through the IT service desk, not bought privately."


def test_a_contrast_after_a_comma_is_a_statement_of_its_own_for_the_negation_check():
    """Found with the same handbook: "Monitors must be ordered through the IT service desk." was refused as
    NEGATION_MISMATCH for the "not" of ", not bought privately", the contrast the sentence adds. A claim restating
    the part before the contrast is compared with that part; one that takes up the contrast is compared with the whole
    sentence, so a flipped polarity is still caught."""
    for faithful in ("Monitors must be ordered through the IT service desk.",
                     "Monitors must not be bought privately.",
                     "Monitors are ordered through the IT service desk, but not bought privately."):
        assert check_negation(MONITORS, faithful) == [], faithful
    for flipped in ("Monitors must be bought privately.", "Monitors may be bought privately.",
                    "Monitors must not be ordered through the IT service desk."):
        assert codes(check_negation(MONITORS, flipped)) == {ReasonCode.NEGATION_MISMATCH}, flipped
    payments = "Invoices are paid monthly, not weekly."
    assert check_negation(payments, "Invoices are paid monthly.") == []
    assert codes(check_negation(payments, "Invoices are paid weekly.")) == {ReasonCode.NEGATION_MISMATCH}
    # ", never" adds a contrast as ", not" does (found over ADR-011: "Clients receive resolved booleans, never the flag
    # rules." refused "Clients only receive resolved booleans.")
    flags = "Clients receive resolved booleans, never the flag rules."
    assert check_negation(flags, "Clients only receive resolved booleans.") == []
    assert codes(check_negation(flags, "Clients receive the flag rules.")) == {ReasonCode.NEGATION_MISMATCH}
    # no contrast: a comma before a negated verb of the same statement is not one ("..., is not paid")
    late = "A claim filed after 90 days, however justified, is not paid."
    assert codes(check_negation(late, "A claim filed after 90 days is paid.")) == {ReasonCode.NEGATION_MISMATCH}


@pytest.mark.parametrize(("evidence", "claim"), [
    ("The change will take place over the coming 2018-2019 academic year.",
     "The change is taking place during the 2018–19 academic year."),
    ("He played for Ajax in the 1999/2000 season.", "He played for Ajax in the 1999–00 season."),
    ("The 2010-11 season was his last.", "His last season was 2010–2011."),
])
def test_a_span_of_years_written_short_ends_in_the_full_year(evidence, claim):
    """Found in WiCE dev (a supported claim refused): "during the 2018–19 academic year" was a NUMBER_MISMATCH over
    "the coming 2018-2019 academic year": the short year read as 19. After a four-digit year and a dash or a slash,
    a two-digit year that follows it within ten years is that year; another year is still a mismatch."""
    assert check_numbers(evidence, claim) == []
    later = claim.replace("–19", "–21").replace("–00", "–03").replace("–2011", "–2013")
    assert codes(check_numbers(evidence, later)) == {ReasonCode.NUMBER_MISMATCH}


FLAG_NEWS = ("(meta data) PUBLISHED DATETIME: 2018-11-15 12:15:07 The People's Flag of Milwaukee could be headed "
             "back to the drawing board, the Arts Board said in a statement.")


def test_an_iso_date_names_its_month():
    """Found in WiCE dev (supported claims refused): "In November of that year the City of Milwaukee's Arts Board
    said ..." named a "November" the evidence does not mention, where the evidence is dated 2018-11-15; and "(June
    2018)" dated something in a month the evidence, dated 2018-06-30, did not name. A YYYY-MM-DD date names its
    month; another month is still absent, and a date alone does not make the evidence one that dates by month."""
    claim = "In November the Arts Board said the flag could go back to the drawing board."
    assert not any(f.check == "names" for f in check_content(FLAG_NEWS, claim))
    assert [f.check for f in check_content(FLAG_NEWS, claim.replace("November", "December"))] == ["names"]
    dated = "Updated 2018-06-30. The man has not been identified; police said in March the case remains open."
    assert not any(f.check == "timeframe" for f in check_qualifiers(dated, "The case remains open (June 2018)."))
    assert any(f.check == "timeframe" for f in check_qualifiers(dated, "The case remains open (July 2018)."))
    both = check_qualifiers(dated, "The case opened on 3 June 2018 and was reviewed on 4 July 2018.")
    assert [f.detail for f in both if f.check == "timeframe"] == [
        "claim dates something in ['July']; the evidence names ['March']"]  # June is the ISO date's
    undated = "Updated 2018-06-30. The man has not been identified and the case remains open."
    assert not any(f.check == "timeframe" for f in check_qualifiers(undated, "The case remains open (July 2018)."))
    assert iso_months("Released 2004-10-19; the 2010-11 season; 2019-13-01.") == {"October"}


SONGS = ("\"On 'Red' I did three songs with Max Martin and Shellback - 'We Are Never Ever Getting Back Together,' "
         "'I Knew You Were Trouble' and '22.'\"")


def test_a_negative_word_inside_a_quoted_title_negates_nothing():
    """Found in WiCE dev (a supported claim refused): "... with whom she had collaborated on three songs for "Red"."
    was a NEGATION_MISMATCH for the "Never" of the song title 'We Are Never Ever Getting Back Together'. A quoted
    title is a name, not a statement; a quoted sentence (not in title case) still counts, and so does a negation
    outside the quotes."""
    claim = "She had collaborated with Max Martin and Shellback on three songs for \"Red\"."
    assert check_negation(SONGS, claim) == []
    assert check_negation("Their last single, \"Nothing Else Matters\", reached number one in 1992.",
                          "Their last single reached number one in 1992.") == []
    assert codes(check_negation(SONGS.replace("I did three", "I did not write three"), claim)) == {
        ReasonCode.NEGATION_MISMATCH}
    quoted_statement = "The minister said: \"the plant will not close this year\"."
    assert codes(check_negation(quoted_statement, "The minister said the plant will close this year.")) == {
        ReasonCode.NEGATION_MISMATCH}
    # a title quoted on one side only is a title on both
    barton = "Bruce Barton's The Man Nobody Knows, a best seller in 1925, portrays Jesus as a businessman."
    assert check_negation(barton, "\"The Man Nobody Knows\", by Bruce Barton, was a best seller in 1925.") == []
    assert codes(check_negation(barton, "\"The Man Nobody Knows\", by Bruce Barton, was never a best seller.")) == {
        ReasonCode.NEGATION_MISMATCH}
    # a contraction's apostrophe opens no quote
    assert codes(check_negation("The plant isn't closing this year, the 'Gazette's' editor wrote.",
                                "The plant is closing this year.")) == {ReasonCode.NEGATION_MISMATCH}


def test_run_checks_and_veto():
    evidence = "A small observational study suggests that coffee is associated with lower diabetes risk in women."
    claim = "Coffee causes lower diabetes risk in all adults."
    found = run_checks(evidence, claim)
    assert ReasonCode.STRENGTH_INFLATION in codes(found)
    assert vetoes(found)
    assert not vetoes(found, [ReasonCode.NUMBER_MISMATCH])
    assert run_checks(evidence, "A small observational study suggests coffee is associated with lower diabetes "
                                "risk in women.") == []


def test_population_swap_is_qualifier_drift():
    evidence = "In a 12-week trial in adults over 65, drug X was associated with a 20% reduction in symptom severity."
    swapped = "In a 12-week trial in children, drug X was associated with a 20% reduction in symptom severity."
    codes = {f.code for f in run_checks(evidence, swapped)}
    assert ReasonCode.QUALIFIER_DRIFT in codes
    same = "Drug X was associated with a 20% reduction in symptom severity in adults over 65."
    assert ReasonCode.QUALIFIER_DRIFT not in {f.code for f in run_checks(evidence, same)}


VACATION = "Employees get 25 days of paid vacation per year. Unused days expire on 31 March of the following year."


def test_each_or_every_period_is_a_frequency_not_a_universal():
    """Found with a new user's handbook: "each year" was read as the universal "each", so a faithful restatement of
    "per year" was refused as QUALIFIER_DRIFT; a period the evidence does not give is still a drift."""
    for claim in ("Employees are given 25 paid vacation days each year.", "Employees get 25 vacation days every year."):
        assert check_qualifiers(VACATION, claim) == [], claim
    drift = check_qualifiers(VACATION, "Employees get 25 days of paid vacation each month.")
    assert [(f.code, f.check) for f in drift] == [(ReasonCode.QUALIFIER_DRIFT, "frequency")]
    # "each" of a noun is still a universal the evidence does not state
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(VACATION, "Each employee gets 25 vacation days."))


LAPTOPS = "Laptops are replaced every three years. Backups run every 24 hours and are checked twice a week."


def test_every_minute_and_nightly_are_frequencies_and_every_night_page_is_none():
    """"every night" is left out: "After every night page, ..." quantifies night pages, and read as a frequency it was
    refused against the page's "per week" for a reason it does not have."""
    evidence = "On-call pay is EUR 250 per week. After a night page, the engineer starts work at noon."
    assert [f for f in check_qualifiers(evidence, "After every night page, the engineer starts work at noon.")
            if f.check == "frequency"] == []
    for claim in ("Backups run nightly at 02:00.", "The bucket refills every minute."):
        assert [f.check for f in check_qualifiers(evidence, claim)] == ["frequency"], claim


def test_a_period_of_several_units_is_a_frequency_of_its_own():
    """Found by rewording refused lies: "Laptops are replaced every year." was shown as verified over "... every three
    years.": a period of several units was no frequency, so only a claim with another number was caught. Periods are
    compared by their length, so a period said another way holds."""
    for faithful in ("Laptops are replaced every 3 years.", "Laptops are replaced once every three years.",
                     "Backups run daily.", "Backups run every day and are checked two times a week.",
                     "Backups are checked twice weekly."):
        assert check_qualifiers(LAPTOPS, faithful) == [], faithful
    for drifted in ("Laptops are replaced every year.", "Laptops are replaced annually.",
                    "Laptops are replaced every other year.", "Backups run weekly.", "Backups run every 12 hours.",
                    "Backups are checked once a week."):
        assert [(f.code, f.check) for f in check_qualifiers(LAPTOPS, drifted)] == \
            [(ReasonCode.QUALIFIER_DRIFT, "frequency")], drifted
    # a claim that restates a sentence is held to that sentence's period, not to any period of the evidence
    handbook = LAPTOPS + " Employees get 25 days of paid vacation per year."
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(handbook, "Laptops are replaced annually."))
    assert check_qualifiers(handbook, "Employees get 25 days of paid vacation annually.") == []

RATE_LIMITS = ("Limits are 600 requests per minute per key. A key that keeps sending requests while limited is blocked "
               "for 1 hour. Webhook deliveries are retried 5 times over about 24 hours.")


def test_an_hour_or_a_day_after_for_over_or_within_is_a_length_of_time_not_a_frequency():
    """Found by rewording faithful answers over the example corpus's rate-limit page: "blocked for an hour" was
    read as the frequency "an hour" (hourly) and refused as QUALIFIER_DRIFT against the page's "per minute". After a
    word that measures out a length of time ("for", "over", "within", "about" ...) "a day" is that length; "600
    requests a minute" and "twice a day" stay frequencies."""
    for faithful in ("A key that keeps sending requests while limited is blocked for an hour.",
                     "Webhook deliveries are retried 5 times over about a day.",
                     "Webhook deliveries are retried within roughly a day.",
                     "A blocked key can send again after an hour."):
        assert [f for f in check_qualifiers(RATE_LIMITS, faithful) if f.check == "frequency"] == [], faithful
    for drifted in ("Limits are 600 requests an hour per key.", "Limits are 600 requests a second per key.",
                    "Webhook deliveries are retried twice a day."):
        assert [(f.code, f.check) for f in check_qualifiers(RATE_LIMITS, drifted)] == \
            [(ReasonCode.QUALIFIER_DRIFT, "frequency")], drifted


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over the example corpus: "a week" was no quantity, so "about a week" had no value to compare
    ("iOS builds are submitted to App Store review; review usually takes 1 to 2 days.",
     "App Store review usually takes about a week."),
    ("Tokens expire after 15 minutes.", "Tokens expire after an hour."),
    ("Logs are kept for 30 days.", "Logs are kept for a year."),
    ("The build takes 10-20 minutes.", "The build takes about 10 hours."),
])
def test_a_unit_of_time_after_a_length_word_is_one_of_that_unit(evidence, claim):
    """(and the first number of a range is in the range's unit: "1 to 2 days" is not the bare number 1)"""
    assert codes(run_checks(evidence, claim)) & {ReasonCode.NUMBER_MISMATCH, ReasonCode.QUALIFIER_DRIFT}


@pytest.mark.parametrize(("evidence", "claim"), [
    (RATE_LIMITS, "A key that keeps sending requests while limited is blocked for an hour."),
    ("Review takes 7 days.", "Review takes about a week."),
    ("Logs are kept for 12 months.", "Logs are kept for a year."),
    ("Webhook deliveries are retried over about 24 hours.", "Webhook deliveries are retried over about a day."),
    ("The call lasts 90 minutes.", "The call lasts an hour and a half."),
    ("Standups happen twice a week.", "Standups happen twice a week."),
    (RATE_LIMITS, "Limits are 600 requests a minute per key."),
    ("The build takes 10-20 minutes.", "The build takes 10 to 20 minutes."),
    ("Review usually takes 1 to 2 days.", "Review usually takes a day or two."),
    # a clock time the claim writes with "hrs" is the evidence's clock time, not a length of time
    ("At 02:15 on 20 January four men robbed the nightclub.", "At about 02:15 hrs on 20 January four men robbed the "
                                                              "nightclub."),
])
def test_a_unit_of_time_the_evidence_measures_alike_or_a_rate_is_no_number_mismatch(evidence, claim):
    assert not codes(run_checks(evidence, claim)) & {ReasonCode.NUMBER_MISMATCH, ReasonCode.QUALIFIER_DRIFT}


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over the example corpus: "an hour" took the value of "1 canary machine", "1%", the day of
    # "2025-06-01" or the "1." of a numbered list
    ("A deploy first updates 1 canary machine and watches its error rate for 15 minutes; if the 5xx rate stays below "
     "1%, the rest are updated.", "A deploy watches the canary's error rate for an hour."),
    ("Effective 2025-06-01. Every postmortem lists at least one action item and is written within 5 business days.",
     "A postmortem is written within a day."),
    ("First response:\n1. The IC escalates to the CTO if a SEV1 is not mitigated within 30 minutes.",
     "The IC escalates to the CTO if a SEV1 is not mitigated within an hour."),
    # shown verified over corpus d: "15 minutes" took the hour of "15:00"
    ("Bibs are collected on Friday from 15:00 to 20:00 at the community hall, or on race morning until 45 minutes "
     "before your start.", "On race morning, bibs can be collected until 15 minutes before your start."),
    ("The meeting starts at 9:30 and lasts 45 minutes.", "The meeting lasts 30 minutes."),
])
def test_a_length_of_time_is_not_a_count_a_share_a_date_a_clock_time_or_a_list_item_number(evidence, claim):
    assert codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}


HYGIENE = ("Any alert that paged twice in one rotation without needing action must be fixed or downgraded by the next "
           "handover.")


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over the example corpus: "once" was no number, and "one rotation" held the value 1 anyway
    (HYGIENE, "Any alert that paged once without needing action must be fixed by the next handover."),
    ("The job failed twice in one week.", "The job failed once."),
])
def test_a_count_of_times_is_not_the_value_of_a_counted_noun(evidence, claim):
    assert codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize(("evidence", "claim"), [
    (HYGIENE, "Any alert that paged twice in one rotation without needing action must be fixed by the next handover."),
    ("The job failed 1 time last week.", "The job failed once last week."),
    ("Once the key is blocked, the owner is e-mailed.", "Once the key is blocked, the owner is e-mailed."),
    ("Backups run once a day.", "Backups run once a day."),
    ("The team has five engineers.", "The team has 5 people."),
    ("Tickets cost 10 dollars.", "Tickets cost $10."),
    # "one club and $100" is no range: "one" is not in dollars (it was read so, the range starting after "club")
    ("$50 provides supplies for one club. $100 supports one child.", "$50 buys supplies for one club and $100 "
     "supports a child."),
])
def test_once_or_a_value_the_evidence_gives_is_no_number_mismatch(evidence, claim):
    assert check_numbers(evidence, claim) == []


@pytest.mark.parametrize(("evidence", "claim"), [
    ("The rollout takes 1 to 2 days.", "The rollout takes a day."),
    ("Pages are acknowledged within 15 minutes and escalated after 1 hour.", "Pages are escalated after an hour."),
    ("Retries happen after 1, 10 and 60 minutes.", "The first retry is after 1 minute."),
    ("Steps:\n1. Acknowledge the page.\n2. Open a channel within 10 minutes.", "Open a channel within 10 minutes."),
])
def test_a_length_of_time_the_evidence_gives_is_no_number_mismatch(evidence, claim):
    assert check_numbers(evidence, claim) == []


BUCKET = ("Limits use a token bucket per key, stored in Upstash Redis. The bucket refills continuously; the burst is "
          "the bucket size.")
STAGING = ("Staging runs on a single machine in ams and is stopped automatically outside working hours (19:00 to 07:00 "
           "CET).")
SEV3 = "Alerts that are not pages (SEV3) are handled during working hours, 09:00 to 18:00 CET, Monday to Friday."
BLOCKED = ("A key that keeps sending requests while limited for more than 10 minutes is blocked for 1 hour and its "
           "owner is e-mailed.")


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over the example corpus: when, and for how long, the sentence the claim restates says otherwise
    (BUCKET, "The bucket refills once per minute."),
    (BUCKET, "The bucket refills every minute."),
    ("The export runs nightly at 02:00 UTC.", "The export runs continuously."),
    (STAGING, "Staging runs around the clock."),
    (STAGING, "Staging runs 24/7."),
    (SEV3, "SEV3 alerts are handled on weekends."),
    (BLOCKED, "A key that keeps sending requests while limited is blocked permanently."),
    (BLOCKED, "A key that keeps sending requests while limited is blocked indefinitely."),
    # a unit named alone, as what a value is given in
    ("The API answers with a Retry-After header in whole seconds.", "The Retry-After header is given in milliseconds."),
    ("Durations are stored in minutes.", "Durations are stored in hours."),
])
def test_another_time_scope_than_the_restated_sentence_is_a_timeframe_drift(evidence, claim):
    assert [(f.code, f.check) for f in check_qualifiers(evidence, claim)] == \
        [(ReasonCode.QUALIFIER_DRIFT, "timeframe")]


@pytest.mark.parametrize(("evidence", "claim"), [
    (BUCKET, "The bucket refills continuously."),
    (BUCKET, "The bucket refills all the time."),
    ("Support is staffed around the clock; pages outside working hours are paid extra.",
     "Support is staffed around the clock."),
    ("The service runs continuously and is restarted every week.", "The service is restarted every week."),
    ("The account is suspended for 30 days and then deleted permanently.", "The account is deleted permanently."),
    ("The account is suspended for 30 days and then deleted permanently.", "The account is suspended for 30 days."),
    ("The office is open Monday to Friday.", "The office is open on weekdays."),
    ("The shop is open on weekdays and on Saturdays.", "The shop is open on Saturdays."),
    (STAGING, "Staging is stopped outside working hours."),
    ("The API answers with a Retry-After header in whole seconds.", "The Retry-After header is given in seconds."),
    ("Durations are stored in minutes; the API converts them to seconds.", "Durations are given in seconds."),
])
def test_the_same_time_scope_or_one_the_evidence_also_states_is_no_drift(evidence, claim):
    assert [f for f in check_qualifiers(evidence, claim) if f.check == "timeframe"] == []


HOSTING = ("We host on Fly.io. The primary region is `ams` (Amsterdam) and the secondary region is `fra` "
           "(Frankfurt).")
REPLICAS = "Writes always go to the primary; reads may be served by a replica and can lag the primary by up to 1 second."


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over the example corpus: one clause's subject with what another clause says of its own
    (HOSTING, "The primary region is fra (Frankfurt)."),
    (HOSTING, "The secondary region is `ams`."),
    (REPLICAS, "Writes may go to a replica."),
    ("The front end is written in TypeScript and the back end is written in Python.",
     "The front end is written in Python."),
    # a phrase after ", with" is about the noun it opens with ("with read replicas in fra and iad")
    ("The primary database is in `ams`, with read replicas in `fra` and `iad`.", "The read replicas are in ams and iad."),
    ("The primary database is in `ams`, with read replicas in `fra` and `iad`.", "The primary database is in fra."),
    # a claim of two clauses, one of them given the other subject's predicate (a fourth round of lies, 2026-12-06)
    (REPLICAS, "Reads go to the primary, and writes may be served by a replica."),
    (HOSTING, "We host on Fly.io, with the primary region in Frankfurt (fra)."),
    (HOSTING, "We host on Fly.io; the secondary region is `ams`."),
])
def test_what_another_clause_says_of_its_own_subject_is_unsupported_content(evidence, claim):
    assert [(f.code, f.check) for f in check_content(evidence, claim)] == \
        [(ReasonCode.UNSUPPORTED_CONTENT, "clauses")]


@pytest.mark.parametrize(("evidence", "claim"), [
    (HOSTING, "The primary region is ams (Amsterdam)."),
    (HOSTING, "The secondary region is fra."),
    (REPLICAS, "Reads may be served by a replica."),
    (REPLICAS, "Reads may lag the primary by up to 1 second."),
    ("The API answers 429 and it is rate limited per key.", "The API is rate limited per key."),
    ("Staging is in ams and production is in ams and fra.", "Staging is in ams."),
    ("The primary database is in `ams`, with read replicas in `fra` and `iad`.", "The read replicas are in fra and iad."),
    ("The primary database is in `ams`, with read replicas in `fra` and `iad`.", "The primary database is in ams."),
    ("Paris is the capital of France, with about 2 million inhabitants.", "Paris has about 2 million inhabitants."),
    ("The front end is written in TypeScript and the back end is written in Python.",
     "The back end and the front end are written in TypeScript and Python."),
    (REPLICAS, "Writes go to the primary, and reads may be served by a replica."),
    (REPLICAS, "Reads may come from a replica, while writes always go to the primary."),
    (HOSTING, "We host on Fly.io, with the primary region in Amsterdam (ams) and the secondary in Frankfurt (fra)."),
    (HOSTING, "We host on Fly.io; the secondary region is `fra`."),
    (HOSTING, "The primary region is ams and the secondary region is fra."),
])
def test_what_a_clause_says_of_its_own_subject_is_no_clause_swap(evidence, claim):
    assert [f for f in check_content(evidence, claim) if f.check == "clauses"] == []


STATUS_PAGE = ("For SEV1, the status page is updated within 15 minutes of the acknowledgement, and then at least every 30 "
               "minutes until resolution.")


def test_every_half_hour_is_a_period_of_thirty_minutes():
    """Found by rewording faithful answers over the example corpus's incident runbook: "every half hour" was no
    period, so its "every" was read as a universal stronger than the evidence's and refused as QUALIFIER_DRIFT."""
    faithful = ("For a SEV1, the status page is updated within 15 minutes of the acknowledgement and then at least "
                "every half hour until resolution.")
    assert check_qualifiers(STATUS_PAGE, faithful) == []
    drifted = faithful.replace("every half hour", "every hour")
    assert [(f.code, f.check) for f in check_qualifiers(STATUS_PAGE, drifted)] == \
        [(ReasonCode.QUALIFIER_DRIFT, "frequency")]
    assert [(f.code, f.check) for f in check_qualifiers(STATUS_PAGE, faithful.replace("hour", "day"))] == \
        [(ReasonCode.QUALIFIER_DRIFT, "frequency")]


RUNBOOK = ("For SEV1 and SEV2 the first responder becomes incident commander (IC) until they hand over explicitly. "
           "If a SEV1 is not mitigated within 30 minutes, the IC escalates to the CTO by phone.")


def test_an_abbreviation_spelled_out_as_the_evidence_defines_it_is_no_splice():
    """Found by rewording faithful answers over the example corpus's incident runbook: "... the incident commander
    escalates to the CTO by phone." was refused as a splice of "incident commander" from another sentence into "...
    the IC escalates ...", though the runbook defines IC as that. Another sentence's words put in are still one."""
    assert near_copies(RUNBOOK, "If a SEV1 is not mitigated within 30 minutes, the incident commander escalates to "
                                "the CTO by phone.") == ()
    spliced = near_copies(RUNBOOK, "If a SEV1 is not mitigated within 30 minutes, the first responder escalates to the "
                                   "CTO by phone.")
    assert [(c.kind, c.words) for c in spliced] == [("splice", ("first", "responder"))]
    # and the other way: the abbreviation where the sentence spells it out
    spelled = RUNBOOK.replace("the IC escalates", "the incident commander escalates")
    assert near_copies(spelled, "If a SEV1 is not mitigated within 30 minutes, the IC escalates to the CTO by "
                                "phone.") == ()
    # initials alone are not a definition: "Chief Technology Officer" is not how this evidence names the CTO
    assert [c.kind for c in near_copies(RUNBOOK, "If a SEV1 is not mitigated within 30 minutes, the IC escalates to "
                                                 "the chief technology officer by phone.")] != []


@pytest.mark.parametrize(("evidence", "claim"), [
    ("Sales rose 5% in 2020 and 8% in 2021.", "In 2021, sales rose 8%."),  # ellipsis: "8%" has no verb of its own
    ("Revenue rose 5% to $20 million.", "Revenue reached $20 million, up 5%."),
    ("In 2019 the firm had 200 employees; by 2021 it had 350 employees.", "The firm had 350 employees in 2021."),
    ("The trial enrolled 120 adults for 12 weeks.", "Over 12 weeks, 120 adults took part in the trial."),
])
def test_a_reordered_sentence_keeps_its_numbers_bound(evidence, claim):
    """A number is only "moved" when the evidence gives the claim's word another number and the claim's number to
    another word: reordered clauses and shared verbs stay free."""
    assert not check_numbers(evidence, claim)


ROTATION = ("One primary and one secondary are on call at any time. New engineers shadow two rotations before their "
            "first primary week.")


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over the example corpus: "two" is the evidence's, but it counts rotations, not primaries
    (ROTATION, "Two primaries are on call at any time."),
    (ROTATION, "New engineers shadow one rotation before their first primary week."),
    ("The school has forty teachers and six hundred students.", "The school has six hundred teachers."),
    ("Each team has two coaches and twenty-five players.", "Each team has twenty-five coaches."),
])
def test_a_number_word_moved_to_another_noun_is_a_number_mismatch(evidence, claim):
    assert codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize(("evidence", "claim"), [
    (ROTATION, "One primary is on call at any time."),
    (ROTATION, "New engineers shadow 2 rotations before their first primary week."),
    (ROTATION, "Two people are on call at any time: one primary and one secondary."),
    (ROTATION + " Nobody is primary more than 1 week in 4.", "No one is primary more than one week in four."),
    ("One of the two pumps failed in March.", "One of the pumps failed in March."),
    ("The two teams met once; one team won.", "One of the two teams won."),
])
def test_a_number_word_on_its_own_noun_or_no_noun_is_no_mismatch(evidence, claim):
    assert check_numbers(evidence, claim) == []


ON_CALL_PAY = ("On-call pay is EUR 250 per week as primary and EUR 100 per week as secondary. Every page outside "
               "working hours is paid at EUR 50 per incident, plus time worked at 150% of the hourly rate.")


@pytest.mark.parametrize(("evidence", "claim"), [
    # "... EUR 50 per hour." was shown over "... EUR 50 per incident": the value is the evidence's, its rate is not
    (ON_CALL_PAY, "Every page outside working hours is paid at EUR 50 per hour."),
    (ON_CALL_PAY, "On-call pay is EUR 250 a month as primary."),
    (ON_CALL_PAY, "The primary is paid EUR 250 monthly."),
    ("The plan allows 600 requests per minute per key.", "The plan allows 600 requests per second."),
    ("Tickets cost $20 per person.", "Tickets cost $20/hour."),
])
def test_a_rate_per_another_thing_is_a_number_mismatch(evidence, claim):
    assert codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize(("evidence", "claim"), [
    (ON_CALL_PAY, "On-call pay is EUR 250 a week as primary."),  # "a week" is "per week"
    (ON_CALL_PAY, "The secondary gets EUR 100 weekly."),
    (ON_CALL_PAY, "A page outside working hours pays EUR 50."),  # no rate said: the value check's case
    ("The plan allows 600 requests per minute per key.", "Each key may send 600 requests a minute."),
    ("Lawyers make $32,000 per annum starting out.", "Lawyers make $32,000 per year starting out."),
    ("The fee is $20, charged per person.", "The fee is $20 per booking."),  # the evidence's value has no rate
    ("Time worked is paid at 150% of the hourly rate.", "Time worked is paid at 150% of the rate per hour."),
])
def test_the_same_rate_or_none_is_no_mismatch(evidence, claim):
    assert check_numbers(evidence, claim) == []


LIMITS_TABLE = ("| caller | limit | burst |\n| --- | --- | --- |\n"
                "| authenticated API key, Standard plan | 600 requests per minute per key | 100 |\n"
                "| authenticated API key, Enterprise plan | 3,000 requests per minute per key | 500 |\n"
                "| unauthenticated requests | 60 requests per minute per IP address | 20 |")
RETENTION_ROWS = ("| data | retention | notes |\n| --- | --- | --- |\n"
                  "| application logs | 30 days | must not contain message bodies or payment card data |\n"
                  "| HTTP access logs | 90 days | IP addresses truncated to /24 (IPv4) or /48 (IPv6) after 7 days |")
RESPONSE_LIST = ("- SEV1 pages: acknowledge within 5 minutes and be at a laptop with connectivity within 15 minutes.\n"
                 "- SEV2 pages: acknowledge within 15 minutes.")


@pytest.mark.parametrize(("evidence", "claim"), [
    # lies shown verified over the example corpus (the verifier entails them, 0.65-0.76): the value is the
    # evidence's, of another row or list item than the one the claim names
    (LIMITS_TABLE, "Enterprise plan keys get 600 requests per minute."),
    (LIMITS_TABLE, "The Standard plan allows a burst of 500 requests."),
    (LIMITS_TABLE, "Unauthenticated requests get a burst of 100."),
    (RETENTION_ROWS, "Application logs are kept for 90 days."),
    (RETENTION_ROWS, "HTTP access logs are kept for 30 days."),
    (RESPONSE_LIST, "SEV2 pages must be acknowledged within 5 minutes."),
])
def test_the_value_of_another_row_or_list_item_is_a_number_mismatch(evidence, claim):
    assert codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}


ROLLOUT = ("Android builds are rolled out through Google Play in stages: 10% of users on day 1, 50% on day 3 and 100% "
           "on day 5, if the crash-free session rate stays at or above 99.5%.")
PRICES = "Tickets cost $10 in 2019, $12 in 2020 and $15 in 2021."


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over the example corpus: each value is the sentence's, but of two of its parts
    (ROLLOUT, "Android builds are rolled out to 100% of users on day 1."),
    (ROLLOUT, "Android builds reach 50% of users on day 5."),
    (PRICES, "Tickets cost $15 in 2019."),
])
def test_two_values_each_of_another_part_of_the_sentence_are_a_number_mismatch(evidence, claim):
    assert codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize(("evidence", "claim"), [
    (ROLLOUT, "Android builds are rolled out to 100% of users on day 5."),
    (ROLLOUT, "Android builds reach 10% of users on day 1 and 50% on day 3."),
    (PRICES, "Tickets cost $12 in 2020."),
    (PRICES, "Tickets rose from $10 in 2019 to $15 in 2021."),
    (PRICES, "From 2019 to 2021 tickets went from $10 to $15."),
])
def test_values_paired_as_the_sentence_pairs_them_are_no_mismatch(evidence, claim):
    assert check_numbers(evidence, claim) == []


@pytest.mark.parametrize(("evidence", "claim"), [
    (LIMITS_TABLE, "On the Enterprise plan, an API key gets 3,000 requests per minute and a burst of 500."),
    (LIMITS_TABLE, "The Enterprise plan allows a burst of 500 requests."),
    (LIMITS_TABLE, "Standard plan keys get 600 requests per minute."),
    (RETENTION_ROWS, "Application logs are kept for 30 days."),
    (RETENTION_ROWS, "IP addresses in HTTP access logs are truncated after 7 days."),
    (RESPONSE_LIST, "SEV1 pages must be acknowledged within 5 minutes."),
    (RESPONSE_LIST, "For a SEV1 page you must be at a laptop within 15 minutes."),
    (RESPONSE_LIST, "SEV2 pages must be acknowledged within 15 minutes."),
])
def test_the_value_of_the_row_or_item_the_claim_names_is_no_mismatch(evidence, claim):
    assert check_numbers(evidence, claim) == []


ON_CALL_PAY_LINE = "On-call pay is EUR 250 per week as primary and EUR 100 per week as secondary."
TICKETS_ROW = ("| data | retention | notes |\n| --- | --- | --- |\n"
               "| support tickets | 2 years after the ticket is closed | attachments deleted after 6 months |")
HOSTING_LINE = ("Production runs at least 3 machines in `ams` and autoscales up to 8 machines when CPU stays above 70% "
                "for 5 minutes.")


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over the example corpus (the verifier entails it, 0.7): one sentence gives both roles a value
    (ON_CALL_PAY_LINE, "The secondary is paid EUR 250 per week."),
    (ON_CALL_PAY_LINE, "The primary gets EUR 100 per week."),
    # a table row's cells are its parts: "kept for 2 years" is the tickets', "6 months" the attachments'
    (TICKETS_ROW, "Support ticket attachments are kept for 2 years."),
    ("The photic zone extends 150 meters deep in clear water and 30 meters deep in coastal water.",
     "The photic zone extends 150 meters deep in coastal water."),
])
def test_the_value_of_another_part_of_the_sentence_is_a_number_mismatch(evidence, claim):
    assert codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize(("evidence", "claim"), [
    (ON_CALL_PAY_LINE, "The primary is paid EUR 250 per week."),
    (TICKETS_ROW, "Support ticket attachments are deleted after 6 months."),
    (TICKETS_ROW, "Support tickets are kept for 2 years after the ticket is closed."),
    (ON_CALL_PAY_LINE, "On-call pay is EUR 100 per week as secondary."),  # the sentence's subject is every part's
    (HOSTING_LINE, "Production autoscales up to 8 machines."),
    (HOSTING_LINE, "Production runs at least 3 machines in ams."),
    ("He was born in 1950 and died in 2001.", "He died in 2001."),
    # an nli-train pair (entailed) the rule first refused: the subject is what comes before "3 days", not before "One"
    ("One orbit around the star takes a little more than 3 days to complete, as compared to one year for the Earth "
     "around the Sun.", "It takes about one year for earth to orbit the sun."),
    # the faithful corpus wording this rule first refused: "at 10:00" is a clock time, not the claim's 10 minutes
    ("The handover is on Monday at 10:00 CET, in a 15-minute call where the outgoing primary walks through open "
     "incidents. The secondary takes over when the primary has not acknowledged a page within 10 minutes.",
     "If the primary hasn't acknowledged a page within 10 minutes, the secondary takes over."),
])
def test_the_value_of_the_part_the_claim_names_is_no_mismatch(evidence, claim):
    assert check_numbers(evidence, claim) == []


def test_a_status_class_is_no_number():
    # "A deploy watches the canary's error rate for 5 minutes." was shown verified over "... for 15 minutes; if the
    # 5xx rate stays below 1%": "5xx" (the HTTP 500s) was read as the number 5
    deploys = "A deploy watches its error rate for 15 minutes; if the 5xx rate stays below 1%, the rest follow."
    assert codes(check_numbers(deploys, "A deploy watches the canary's error rate for 5 minutes.")) == {
        ReasonCode.NUMBER_MISMATCH}
    assert check_numbers(deploys, "If the 5xx rate stays below 1%, the rest follow.") == []
    assert check_numbers("Deliveries are retried on any non-2xx answer.", "Any non-2xx answer is retried.") == []


def test_non_before_a_code_negates_it():
    # "Webhook deliveries are retried on any 2xx answer." over "... on any non-2xx answer": once "2xx" was no number,
    # only the "non-" told them apart, and the words split it off ("non-", "2", "xx")
    evidence = "Webhook deliveries are retried on any non-2xx answer or a timeout of 10 seconds."
    assert codes(check_negation(evidence, "Webhook deliveries are retried on any 2xx answer.")) == {
        ReasonCode.NEGATION_MISMATCH}
    assert check_negation(evidence, "Webhook deliveries are retried on any non-2xx answer.") == []


HOURLY = "Every page outside working hours is paid at EUR 50 per incident, plus time worked at 150% of the hourly rate."


@pytest.mark.parametrize("claim", [
    # "... at one and a half times the hourly rate." was refused: "one and" and "half times" were read as 1 and 0.5
    "Time worked is paid at one and a half times the hourly rate.",
    "Time worked is paid at 1.5 times the hourly rate.",
    "Time worked is paid at 150% of the hourly rate.",
])
def test_a_multiple_is_the_percentage_of_the_same_thing(claim):
    assert check_numbers(HOURLY, claim) == []


@pytest.mark.parametrize("claim", [
    "Time worked is paid at two and a half times the hourly rate.",
    "Time worked is paid at 1.6 times the hourly rate.",
    "Time worked is paid at 1.5% of the hourly rate.",
])
def test_another_multiple_is_a_number_mismatch(claim):
    assert codes(check_numbers(HOURLY, claim)) == {ReasonCode.NUMBER_MISMATCH}


def test_a_number_and_a_half_is_one_number_with_its_scale():
    assert check_numbers("The budget is 2.5 million euros.", "The budget is two and a half million euros.") == []
    assert codes(check_numbers("The budget is 3.5 million euros.", "The budget is two and a half million euros.")) == {
        ReasonCode.NUMBER_MISMATCH}


def test_a_multiple_is_not_a_percentage_increase():
    # "rose by 150%" is two and a half times what it was, not one and a half
    assert codes(check_numbers("Sales rose by 150% in 2020.", "Sales rose to 1.5 times their level in 2020.")) == {
        ReasonCode.NUMBER_MISMATCH}


def test_numbers_take_superscripts_and_other_unicode_digits_without_failing():
    evidence = "The reserve covers 40 km² of forest and 12 km² of lakes."
    assert not check_numbers(evidence, "The reserve covers 40 km² of forest.")
    assert codes(check_numbers(evidence, "The reserve covers 12 km² of forest.")) == {ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize("claim", ["No one reads the logs.", "In practice no one will read the logs.",
                                   "No-one reads the logs."])
def test_no_one_is_nobody_not_the_number_one(claim):
    # found in nli-train: "No one will bug you." over "nobody's going to bother you" was a NUMBER_MISMATCH, "one"
    # read as 1 (with "will" for its unit)
    assert check_numbers("Nobody reads the logs.", claim) == []
    assert codes(check_numbers("Nobody reads the logs.", "One engineer reads the logs.")) == {
        ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize("evidence, claim, found", [
    # A number word written with a letter that case-folds to an ASCII one (the long s of old print, the Turkish
    # dotted capital I) is matched by the case-insensitive pattern, and its value was then looked up
    # under the unfolded spelling: KeyError, so the NLI gate failed with GATE_ERROR and a faithful answer was refused.
    ("The voyage took \u017fix weeks.", "The voyage took six weeks.", set()),
    ("The voyage took six weeks.", "The voyage took \u017fix weeks.", set()),
    ("The voyage took \u017fix weeks.", "The voyage took seven weeks.", {ReasonCode.NUMBER_MISMATCH}),
    ("ALL F\u0130VE CREW MEMBERS SURVIVED.", "All five crew members survived.", set()),
    ("ALL F\u0130VE CREW MEMBERS SURVIVED.", "All four crew members survived.", {ReasonCode.NUMBER_MISMATCH}),
    ("The budget is two M\u0130LLION euros.", "The budget is two million euros.", set()),
    ("The budget is two M\u0130LLION euros.", "The budget is two billion euros.", {ReasonCode.NUMBER_MISMATCH}),
    ("The fir\u017ft attempt failed.", "The first attempt failed.", set()),
    ("The fir\u017ft attempt failed.", "The second attempt failed.", {ReasonCode.NUMBER_MISMATCH}),
])
def test_number_words_in_letters_that_fold_to_ascii_are_read_without_failing(evidence, claim, found):
    assert codes(check_numbers(evidence, claim)) == found


HOSTING_AND_DB = "We host on Fly.io. DB is Turso (SQLite)."


@pytest.mark.parametrize("claim", [
    # found by QA: the name check skipped a claim's first word, so a swapped subject passed at medium rigor
    # (coverage 1 of 2 content words is not below 0.5) and "AWS hosts us [E1]." was shown as verified
    "AWS hosts us [E1].", "Zanzibar hosts us [E1].", "Microsoft hosts the DB [E1].", "DigitalOcean hosts us.",
    "Google's cloud hosts us [E1].", "Google’s cloud hosts us [E1].",  # a possessive is still the name
])
def test_a_name_that_opens_the_claim_is_checked_too(claim):
    assert ReasonCode.UNSUPPORTED_CONTENT in codes(check_content(HOSTING_AND_DB, claim))


@pytest.mark.parametrize("claim", [
    # sentence openers that are no name, and words the evidence has in another form
    "Based on the evidence, we host on Fly.io [E1].", "Currently we host on Fly.io.", "Yes, we host on Fly.io.",
    "Overall, the DB is Turso.", "Hosting is on Fly.io.", "Fly.io hosts us.", "Turso is the DB.",
    "Note that we host on Fly.io.", "Today we host on Fly.io.", "Spanning two providers, we host on Fly.io.",
    # quantifiers, number words, contractions and connectives (most of what the rule refused wrongly on MNLI's pairs)
    "Two hosts are on Fly.io.", "Every host is on Fly.io.", "Don't look further: we host on Fly.io.",
    "I'll say it: we host on Fly.io.", "There's one host: Fly.io.", "However, we host on Fly.io.",
])
def test_an_opening_word_that_is_no_name_is_not_flagged(claim):
    assert [f for f in check_content(HOSTING_AND_DB, claim) if f.check == "names"] == []


HANDBOOK = ("Every employee gets 25 vacation days per year. Unused days expire on 31 March of the following year. "
            "Submit expense claims in Pleo within 30 days. Requests of more than five consecutive days must be "
            "submitted at least four weeks in advance to your team lead.")


@pytest.mark.parametrize("claim", [
    # found with a new user's handbook: an answer that tells the user what to do opened with a verb the evidence does
    # not use, and the verb was read as a name the evidence lacks
    "Remember that unused days expire on 31 March of the following year.",
    "Make sure to submit expense claims in Pleo within 30 days.",
    "Ask your team lead four weeks in advance.", "- Keep the expense claims in Pleo.",
])
def test_an_opening_imperative_verb_is_no_name(claim):
    assert absent_names(HANDBOOK, claim) == []
    assert absent_names(HANDBOOK, claim, lowercase=frozenset()) != []  # the check as it was, without the vocabulary


@pytest.mark.parametrize("claim", [
    # found with the example corpus's rate-limit page: a participle that opens the claim before its noun, a form of
    # a verb the evidence uses ("failure", "failing"), was read as a name the evidence lacks
    "Failed webhook deliveries are retried with exponential backoff.",
])
def test_an_opening_participle_of_a_verb_the_evidence_uses_is_no_name(claim):
    assert absent_names(WEBHOOKS, claim) == []


@pytest.mark.parametrize(("evidence", "claim"), [
    # names that end like a participle: the evidence holds words that start alike, but no form of a verb
    ("Delta flies to Paris; its units are based in Atlanta.", "United flies to Paris."),
    ("Gerald founded the company; he allies with its rivals.", "Allied founded the company."),
    ("The engineer failed the test.", "Alfred failed the test."),
])
def test_a_name_that_ends_like_a_participle_is_still_a_name(evidence, claim):
    assert absent_names(evidence, claim)[:1] == [claim.split()[0]]


@pytest.mark.parametrize("claim", [
    # a name that is also a word, as the subject: followed by its verb, or by "with" / "in"; the verifier entails
    # these swaps, so the name check must refuse them
    "Target hosts us [E1].", "Stripe is our host.", "Square hosts the DB.", "Teams host us on Fly.io.",
    "Target with its partners hosts us.", "Google in Dublin hosts us.", "Stripe no longer hosts us.",
    "Teams all host us.", "Teams each host us.",
])
def test_a_name_that_is_also_a_word_is_still_a_name_as_subject(claim):
    assert absent_names(HOSTING_AND_DB, claim)[:1] == [claim.split()[0]]
    assert ReasonCode.UNSUPPORTED_CONTENT in codes(check_content(HOSTING_AND_DB, claim))


ROTA = ("The rotation is weekly; the handover is on Monday at 10:00 CET. SEV3 alerts are handled Monday to "
        "Friday. The Dutch team approves leave.")


@pytest.mark.parametrize("claim", [
    # found by rewording faithful answers over the example corpus's on-call page: "Mondays" was a name the page lacks
    "The handover happens on Mondays at 10:00 CET.", "SEV3 alerts are handled Mondays to Fridays.",
])
def test_a_name_in_the_plural_is_the_name_the_evidence_has(claim):
    assert absent_names(ROTA, claim) == []


@pytest.mark.parametrize(("claim", "absent"), [
    # (not "Tuesdays": the range "Monday to Friday" mentions it, and the days check reads the handover's Monday)
    ("The handover happens on Saturdays.", ["Saturdays"]), ("The Danes approve leave.", ["Danes"]),
    ("The Mondayss team approves leave.", ["Mondayss"]),  # one "s" off is the plural, not any ending
])
def test_a_plural_of_a_name_the_evidence_lacks_is_still_absent(claim, absent):
    assert absent_names(ROTA, claim) == absent


def test_the_lower_case_vocabulary_is_shipped_and_tells_words_from_names():
    vocabulary = lowercase_words()
    assert len(vocabulary) > 10_000
    assert {"remember", "establish", "ensure", "keep", "target", "square"} <= vocabulary
    assert not {"google", "march", "europe", "english", "amazon"} & vocabulary


ORION_SHIPS = "The Orion project ships on 14 March 2027."


@pytest.mark.parametrize(("evidence", "claim", "kind", "run", "sentence"), [
    (HOSTING_AND_DB, "We host on aws [E1].", "swap", ("aws",), "We host on Fly.io."),
    (HOSTING_AND_DB, "DB is postgres (SQLite).", "swap", ("postgres",), "DB is Turso (SQLite)."),
    ("The rollout takes two weeks.", "The rollout takes two sprints.", "swap", ("sprints",),
     "The rollout takes two weeks."),
    # a swap by form that is faithful: the NLI gate keeps it, since its verifier does not lean contradicted
    ("Marr sought authorization to scramble the fighters.", "Marr asked for permission to scramble the fighters.",
     "swap", ("asked", "for", "permission"), "Marr sought authorization to scramble the fighters."),
    # words of the other sentence spliced in: only the verifier on that sentence alone tells these from a name
    # given for a description ("Orion ships ..." over "Orion is ours. The project ships ...")
    (HOSTING_AND_DB, "DB is Fly.io (SQLite) [E1].", "splice", ("fly", "io"), "DB is Turso (SQLite)."),
    (HOSTING_AND_DB, "We host on Turso.", "splice", ("turso",), "We host on Fly.io."),
    ("The server is the source of truth. Clients render state and collect input.",
     "The server renders state and collects input.", "splice", ("the", "server"),
     "Clients render state and collect input."),  # aligned on stems: "renders" copies "render"
    ("Orion is our flagship. The project ships on 14 March 2027.", "Orion ships on 14 March 2027.", "splice",
     ("orion",), "The project ships on 14 March 2027."),
    ("We host on Fly.io.", "We host on Fly.io for compliance reasons [E1].", "addition",
     ("for", "compliance", "reasons"), "We host on Fly.io."),
    ("We host on Fly.io.", "We host our app on Fly.io.", "addition", ("our", "app"), "We host on Fly.io."),
    ("We host on Fly.io.", "We used to host on Fly.io.", "tense", ("used", "to"), "We host on Fly.io."),
    ("We host on Fly.io.", "We will host on Fly.io.", "tense", ("will",), "We host on Fly.io."),
    # a word of time with the verb in another form: a swap by the stems ("hosted" is not "host"), but a tense
    # ("We previously hosted on Fly.io." was shown as verified)
    ("We host on Fly.io.", "We previously hosted on Fly.io.", "tense", ("hosted",), "We host on Fly.io."),
    ("We host on Fly.io.", "We formerly hosted on Fly.io.", "tense", ("hosted",), "We host on Fly.io."),
    (ORION_SHIPS, "The Orion project used to ship on 14 March 2027.", "tense", ("used", "to"), ORION_SHIPS),
    # "will" for a dated past is a tense change (over a dated present it is not: below), and so is "will" over a
    # present whose sentence dates something else (found in the final read)
    ("The bridge reopened on 30 June 2021.", "The bridge will reopen on 30 June 2021.", "tense", ("will",),
     "The bridge reopened on 30 June 2021."),
    ("Founded in 1990, the company hosts on Fly.io.", "Founded in 1990, the company will host on Fly.io.", "tense",
     ("will",), "Founded in 1990, the company hosts on Fly.io."),
    ("We host on Fly.io.", "We are going to host on Fly.io.", "tense", ("are", "going", "to"), "We host on Fly.io."),
    # the verb itself in another tense: a swap by the stems that a verifier and the similarity bar both pass ("The
    # Orion project shipped on 14 March 2027." was shown as verified over "... ships on 14 March 2027.")
    (ORION_SHIPS, "The Orion project shipped on 14 March 2027.", "tense", ("shipped",), ORION_SHIPS),
    ("We host on Fly.io.", "We hosted on Fly.io.", "tense", ("hosted",), "We host on Fly.io."),
    ("We hosted on Fly.io.", "We host on Fly.io.", "tense", ("host",), "We hosted on Fly.io."),
    ("Unused days expire on 31 March.", "Unused days expired on 31 March.", "tense", ("expired",),
     "Unused days expire on 31 March."),
    ("The team applies the patch.", "The team applied the patch.", "tense", ("applied",), "The team applies the patch."),
    # "is" for "was" has no content word: it was no near copy at all
    ("Remote work is allowed two days a week.", "Remote work was allowed two days a week.", "tense", ("was",),
     "Remote work is allowed two days a week."),
    ("DB is Turso (SQLite).", "DB was Turso (SQLite).", "tense", ("was",), "DB is Turso (SQLite)."),
    ("Contractors were not eligible.", "Contractors are not eligible.", "tense", ("are",), "Contractors were not eligible."),
    ("Employees get 25 days of vacation.", "Employees got 25 days of vacation.", "tense", ("got",),
     "Employees get 25 days of vacation."),
    # the tense and one more change: read with its verb put back, the claim is a near copy
    (ORION_SHIPS, "The Orion project shipped in March 2027.", "tense", ("shipped",), ORION_SHIPS),
    ("We host on Fly.io.", "We hosted our app on Fly.io.", "tense", ("hosted",), "We host on Fly.io."),
    ("Its budget is 2.4 million euros.", "Its budget was raised to 2.4 million euros.", "tense", ("was",),
     "Its budget is 2.4 million euros."),
    # four words added to a five-word sentence: most of the claim is new, all of the sentence is kept
    ("We host on Fly.io.", "We host on Fly.io because it is cheaper.", "addition", ("because", "it", "is", "cheaper"),
     "We host on Fly.io."),
    # five: a purpose added (shown over corpus b)
    ("Laptops are replaced every three years.", "Laptops are replaced every three years to keep them under warranty.",
     "addition", ("to", "keep", "them", "under", "warranty"), "Laptops are replaced every three years."),
])
def test_a_near_copy_with_words_its_sentence_does_not_hold(evidence, claim, kind, run, sentence):
    assert [(c.kind, c.words, c.sentence) for c in near_copies(evidence, claim)] == [(kind, run, sentence)]


@pytest.mark.parametrize(("evidence", "claim"), [
    # a sentence in the present that is dated speaks of that date: "will" says the same of a date to come (the
    # issue's own Orion answer, reworded as a larger model writes it, was refused as a plan)
    (ORION_SHIPS, "The Orion project will ship on 14 March 2027."),
    ("The new terminal opens in 2026.", "The new terminal will open in 2026."),
    ("Registration closes on June 30, 2025.", "Registration will close on June 30, 2025."),
])
def test_will_over_a_dated_present_is_no_change_of_tense(evidence, claim):
    assert not near_copies(evidence, claim)


@pytest.mark.parametrize("opener", ["In short", "In summary", "Overall", "In brief", "To sum up", "In other words",
                                    "In fact", "Indeed"])
def test_a_summing_up_opener_is_no_added_detail(opener):
    # found by wording the Orion answer as chat models open one: "In short, the Orion project ships on 14 March
    # 2027." was an addition of "in short" the verifier had to entail at 0.57, and was refused
    assert not near_copies(ORION_SHIPS, f"{opener}, the Orion project ships on 14 March 2027.")


@pytest.mark.parametrize(("claim", "kind", "run"), [
    ("Reportedly, the Orion project ships on 14 March 2027.", "addition", ("reportedly",)),  # not a summing-up
    ("Soon, the Orion project ships on 14 March 2027.", "tense", ("soon",)),
    ("In short the Orion project ships on 14 March 2027.", "addition", ("in", "short")),  # no comma: not an opener
])
def test_other_openers_are_still_words_the_sentence_does_not_hold(claim, kind, run):
    assert [(c.kind, c.words) for c in near_copies(ORION_SHIPS, claim)] == [(kind, run)]


PAGE_PAY_RULE = "Every page outside working hours is paid at EUR 50 per incident, plus time worked at 150% of the hourly rate."


@pytest.mark.parametrize(("evidence", "claim", "said", "written"), [
    # shown: a function word put for its opposite changes no content word, so no near copy saw it, and the verifier
    # entails the copy
    (PAGE_PAY_RULE, "Every page during working hours is paid at EUR 50 per incident.", "during", "outside"),
    (PAGE_PAY_RULE, "Every page inside working hours is paid at EUR 50 per incident, plus time worked at 150% of the "
     "hourly rate.", "inside", "outside"),
    ("Changes originated outside the apparel industry.", "Changes originated within the apparel industry.", "within",
     "outside"),
    ("Minor League teams compete at levels below Major League Baseball.",
     "Minor League teams compete at levels above Major League Baseball.", "above", "below"),
    ("The ferry runs to Dover every morning.", "The ferry runs from Dover every morning.", "from", "to"),
    # shown over corpus b's handbook (a third set): "under" and "above" are a line's two sides too
    ("Expenses under 50 euros need no receipt approval; anything above 50 euros must be approved by your manager "
     "before you buy it.", "Expenses above 50 euros need no approval.", "above", "under"),
    ("Flights below six hours are booked in economy.", "Flights over six hours are booked in economy.", "over",
     "below"),
    # shown: a content word put for its antonym (WordNet's, gates/antonyms.txt): MiniLM reads the two as close and
    # the verifier entails the copy
    ("The outgoing primary files the ticket.", "The incoming primary files the ticket.", "incoming", "outgoing"),
    ("After a night page that took more than 1 hour, the engineer starts work at noon the next day.",
     "After a day page that took more than 1 hour, the engineer starts work at noon the next day.", "day", "night"),
    ("The handover is a 15-minute call where the outgoing primary walks through open incidents.",
     "The handover is a call where the incoming primary walks through open incidents.", "incoming", "outgoing"),
    ("The valve stays open during the test.", "The valve stays shut during the test.", "shut", "open"),
    # indirect: "fictional" is similar to "unreal", the antonym of "real"; the sentence's end left out besides
    ("Middle-earth is a real place in the country of Germany.", "Middle-earth is a fictional place.", "fictional",
     "real"),
    ("The bucket refills continuously.", "The bucket refills discontinuously.", "discontinuously", "continuously"),
    # a hyphenated word put for its hyphenated antonym (shown over corpus b: a near copy of kind "splice", for the
    # next sentence of the page opens with "Part-time")
    ("Full-time employees receive 27 days of paid annual leave per calendar year. Part-time employees receive leave "
     "in proportion to their contracted hours.",
     "Part-time employees receive 27 days of paid annual leave per calendar year.", "part-time", "Full-time"),
    ("The ticket is filed by a right-handed player.", "The ticket is filed by a left-handed player.", "left-handed",
     "right-handed"),
    # order in time, which WordNet gives no antonyms for
    ("Database migrations must be backwards compatible with the previous release for at least one deploy.",
     "Database migrations must be backwards compatible with the next release.", "next", "previous"),
])
def test_a_copy_with_a_word_put_for_its_opposite(evidence, claim, said, written):
    assert [(c.kind, c.words, c.replaced) for c in near_copies(evidence, claim)] == [("opposite", (said,), (written,))]


@pytest.mark.parametrize(("evidence", "claim", "said", "written"), [
    # shown: two words each put for its opposite were a swap of two words, and the verifier entailed it
    ("A stage is halted when the crash-free rate drops below that threshold.",
     "A stage is halted when the crash-free rate rises above that threshold.", ("rises", "above"), ("drops", "below")),
    ("The east gate closes before noon.", "The east gate opens after noon.", ("opens", "after"), ("closes", "before")),
])
def test_a_copy_with_several_words_each_put_for_its_opposite(evidence, claim, said, written):
    assert [(c.kind, c.words, c.replaced) for c in near_copies(evidence, claim)] == [("opposite", said, written)]


def test_words_of_which_only_one_is_an_opposite_are_a_swap():
    copies = near_copies("A stage is halted when the crash-free rate drops below that threshold.",
                         "A stage is halted when the crash-free rate falls under that threshold.")
    assert "opposite" not in {c.kind for c in copies}


BACK_OFF = "Clients must back off for at least the Retry-After value."


@pytest.mark.parametrize(("evidence", "claim", "said", "written"), [
    # shown: "may" for "must" turns a rule into a permission; both are function words, so no near copy saw it
    (BACK_OFF, "Clients may back off for at least the Retry-After value.", "may", "must"),
    (BACK_OFF, "Clients can back off for at least the Retry-After value.", "can", "must"),
    (BACK_OFF, "Clients should back off for at least the Retry-After value.", "should", "must"),
    ("Visitors shall register at the front desk.", "Visitors may register at the front desk.", "may", "shall"),
])
def test_a_copy_that_weakens_a_rule(evidence, claim, said, written):
    assert [(c.kind, c.words, c.replaced) for c in near_copies(evidence, claim)] == [("weaker", (said,), (written,))]


@pytest.mark.parametrize(("evidence", "claim"), [
    (BACK_OFF, "Clients must back off for at least the Retry-After value [E1]."),  # the rule as written
    (BACK_OFF, "Clients must wait for at least the Retry-After value."),  # not the modal: a swap, judged as one
    ("Clients may retry after the Retry-After value.", "Clients can retry after the Retry-After value."),
])
def test_the_same_force_is_no_weaker_copy(evidence, claim):
    assert "weaker" not in {copy.kind for copy in near_copies(evidence, claim)}


@pytest.mark.parametrize(("evidence", "claim"), [
    # the same side said otherwise, or another word changed with it
    ("Alerts are handled during working hours.", "Alerts are handled in working hours."),
    ("Alerts are handled during working hours.", "Alerts are handled within working hours."),
    ("The ferry runs from Calais to Dover.", "The ferry runs to Dover from Calais."),
    ("The ferry runs to Dover every morning.", "The bus runs from Dover every evening."),
    ("Pages outside working hours are paid.", "Pages outside working hours are paid [E1]."),
])
def test_the_same_side_or_more_than_one_change_is_no_opposite_copy(evidence, claim):
    assert "opposite" not in {copy.kind for copy in near_copies(evidence, claim)}


@pytest.mark.parametrize(("evidence", "claim"), [
    # a quantifier made weaker is check_qualifiers' ("all" entails "some"), and "here" / "there" depend on who speaks:
    # the table holds neither stop words nor quantifiers
    ("All gadgets are mirrors.", "Some gadgets are mirrors."),
    ("I was up here looking down.", "I was up there looking down."),
    # an antonym with another word changed besides, not to its opposite, is no opposite copy (a swap, judged as one)
    ("The outgoing primary files the ticket.", "The incoming engineer files the ticket."),
    # a synonym is no antonym
    ("The outgoing primary files the ticket.", "The departing primary files the ticket."),
])
def test_a_quantifier_a_place_word_or_a_second_change_is_no_antonym_copy(evidence, claim):
    assert "opposite" not in {copy.kind for copy in near_copies(evidence, claim)}


def test_the_antonym_table_is_read_from_the_package():
    opposites = content_opposites()
    assert "outgoing" in opposites["incoming"] and "night" in opposites["day"]
    assert "some" not in opposites.get("all", ()) and not any("_" in word for word in opposites)
    # hyphenated words too, each part a word of letters
    assert "part-time" in opposites["full-time"] and all(
        part.isalpha() for word in opposites for part in word.split("-"))


def test_every_word_list_the_checks_read_ships_in_the_wheel():
    # a list read next to the module (Path(__file__).with_name) that the wheel leaves out fails every claim closed
    gates_folder = Path(claim_checks.__file__).parent
    shipped = tomllib.loads((gates_folder.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = shipped["tool"]["setuptools"]["package-data"]["controlplane.gates"]
    assert sorted(p.name for p in gates_folder.glob("*.txt")) == sorted(listed)


RESPONSE = ("- SEV1 pages: acknowledge within 5 minutes and be at a laptop with connectivity within 15 minutes.\n"
            "- SEV2 pages: acknowledge within 15 minutes.\n"
            "- Alerts that are not pages (SEV3) are handled during working hours, 09:00 to 18:00 CET, Monday to Friday.")


@pytest.mark.parametrize(("evidence", "claim", "code"), [
    # shown: the words split "SEV3" into "sev" and "3", so every content word was the SEV1 and SEV2 lines' own
    (RESPONSE, "SEV3 pages must be acknowledged within 15 minutes.", "SEV3"),
    (RESPONSE, "Alerts that are not pages (SEV2) are handled during working hours.", "SEV2"),
    ("The M6 motorway is busy on Fridays.", "The M62 motorway is busy on Fridays.", "M62"),
    ("ADR-011 moves validation to the server.", "ADR-012 moves validation to the server.", "ADR-012"),
])
def test_a_code_the_evidence_gives_otherwise_is_a_number_mismatch(evidence, claim, code):
    findings = check_numbers(evidence, claim)
    assert [f.code for f in findings] == [ReasonCode.NUMBER_MISMATCH] and f"claim states {code!r}" in findings[0].detail


@pytest.mark.parametrize(("evidence", "claim"), [
    (RESPONSE, "SEV2 pages must be acknowledged within 15 minutes."),
    (RESPONSE, "SEV1 pages must be acknowledged within 5 minutes."),  # the SEV2 line ties with it: either may hold it
    (RESPONSE, "Alerts that are not pages (SEV3) are handled during working hours."),
    # a letter after the number is a variant or a plural, and "OCT3/4" names both numbers
    ("Omega-3s have been found to reduce blood pressure.", "Omega-3 has been found to reduce blood pressure."),
    ("The minor G allele of FOXO3A is related to less severe Crohn's disease.",
     "The minor G allele of FOXO3 is related to less severe Crohn's disease."),
    ("Pioneer factor Oct4 interacts with 4 chromatin remodeling factors.",
     "Pioneer factor OCT3/4 interacts with 4 chromatin remodeling factors."),
    # the claim names the sentence's code itself, beside its own
    ("UBC13 generates a K63-linked polyubiquitin moiety at PCNA.",
     "UBC13 generates a K63-linked polyubiquitin moiety at PCNA K164."),
    # no code of the family where the claim's words are: the other checks' business
    ("SEV2 is the second level. Pages are acknowledged within 15 minutes.", "SEV3 pages are acknowledged within 15 "
     "minutes."),
])
def test_the_same_code_a_variant_or_no_rival_code_is_no_mismatch(evidence, claim):
    assert check_numbers(evidence, claim) == []


WEBHOOK_RETRIES = ("Webhook deliveries are retried on any non-2xx answer or a timeout of 10 seconds, with exponential "
                   "backoff: 5 attempts over about 24 hours.")


@pytest.mark.parametrize(("evidence", "claim", "run", "replaced"), [
    # shown: the claim stops where the sentence goes on, so the swap was a second change and no near copy was seen
    (WEBHOOK_RETRIES, "Webhook deliveries are retried on any non-2xx answer or a timeout of 10 seconds, with linear "
     "backoff.", ("linear",), ("exponential",)),
    ("Middle-earth is a real place in the country of Germany.", "Middle-earth is a famous place.", ("famous",),
     ("real",)),
])
def test_a_word_swapped_before_a_dropped_end_is_a_near_copy(evidence, claim, run, replaced):
    assert [(c.kind, c.words, c.replaced) for c in near_copies(evidence, claim)] == [("swap", run, replaced)]


MIN_VERSION = ("The minimum supported app version is enforced by the server: the API answers 426 Upgrade Required to "
               "app versions older than 6 months, and the app then asks the user to update.")


HOTFIXES = ("Hotfixes that cannot wait for the next train use an expedited review request on iOS and a 100% rollout "
            "on Android, and need approval from the CTO.")


@pytest.mark.parametrize(("evidence", "claim", "run", "replaced"), [
    # shown verified over the example corpus: the claim reads as the sentence with words left out, but what it
    # leaves out is the object of "by the", which it joins to a word of the next clause
    (MIN_VERSION, "The minimum supported app version is enforced by the app.", ("app",), ("server",)),
    ("Invoices are approved by the finance team; the CEO signs contracts.", "Invoices are approved by the CEO.",
     ("CEO",), ("finance", "team")),
    # the object of one item of a coordination joined to the next item's (a fourth round of lies, 2026-12-06)
    (HOTFIXES, "Hotfixes that cannot wait for the next train use an expedited review request on Android.",
     ("Android",), ("iOS", "and", "a", "100", "rollout", "on")),
    ("He studied at Oxford and taught at Harvard.", "He studied at Harvard.", ("Harvard",),
     ("Oxford", "and", "taught", "at")),
    # the same after a copula: the first clause's condition given the second clause's (corpus c, a seventh round)
    ("Descale the machine every 3 months if your water is soft, and every month if it is hard.",
     "Descale the machine every 3 months if your water is hard.", ("hard",),
     ("soft", "and", "every", "month", "if", "it", "is")),
])
def test_an_object_left_out_for_a_word_of_the_next_clause_is_a_moved_copy(evidence, claim, run, replaced):
    assert [(c.kind, c.words, c.replaced) for c in near_copies(evidence, claim)] == [("moved", run, replaced)]


@pytest.mark.parametrize(("evidence", "claim"), [
    (MIN_VERSION, "The minimum supported app version is enforced by the server."),
    ("Logs are sent to the central, encrypted store.", "Logs are sent to the store."),
    ("The project, which started in 2019, ships in March.", "The project ships in March."),
    ("Invoices are approved by the finance team; the CEO signs contracts.", "Invoices are approved by the finance "
     "team."),
    # the claim's opening "The" read against the sentence's first one (tests/adversarial caught it)
    ("The rotation is weekly; the handover is on Monday at 10:00 CET, in a 15-minute call.",
     "The handover is in a 15-minute call."),
    (HOTFIXES, "Hotfixes that cannot wait for the next train use a 100% rollout on Android."),  # the second item
    ("The app is available on iOS and on Android.", "The app is available on Android."),  # one verb, two objects
    ("Pay goes to the primary and the secondary.", "Pay goes to the secondary."),
    ("The room is bright and is quiet.", "The room is quiet."),  # one subject, two predicates
])
def test_words_left_out_within_a_clause_or_after_its_object_are_no_moved_copy(evidence, claim):
    assert "moved" not in {copy.kind for copy in near_copies(evidence, claim)}


WEBHOOKS_PAGE = WEBHOOK_RETRIES + " After the fifth failure the endpoint is marked failing and the account owner is notified."


@pytest.mark.parametrize(("claim", "word", "replaced"), [
    ("Webhook deliveries are retried with linear backoff.", "linear", ("exponential",)),
    ("After the fifth failure the endpoint is deleted.", "deleted",
     ("marked", "failing", "and", "the", "account", "owner", "is", "notified")),
])
def test_a_sentence_with_words_left_out_and_one_word_put_in_is_a_reworded_copy(claim, word, replaced):
    """Shown verified over the example corpus: each is its sentence with words left out and one word the evidence
    never uses where some of them stood; too far from the sentence for a swap (the NLI gate fails it only where its
    verifier leans contradicted beyond a margin)."""
    copies = near_copies(WEBHOOKS_PAGE, claim)
    assert [(c.kind, c.words, c.replaced) for c in copies] == [("reworded", (word,), replaced)]


@pytest.mark.parametrize("claim", [
    "Webhook deliveries are retried with exponential backoff.",  # words left out only
    "Webhook deliveries are retried with linear or exponential backoff.",  # a word added beside, not in place
    "Deliveries are retried.",  # too short to be a copy of anything
])
def test_words_left_out_or_a_word_added_beside_them_is_no_reworded_copy(claim):
    assert "reworded" not in {copy.kind for copy in near_copies(WEBHOOKS_PAGE, claim)}


@pytest.mark.parametrize(("evidence", "claim"), [
    (WEBHOOK_RETRIES, "Webhook deliveries are retried on any non-2xx answer or a timeout of 10 seconds."),  # end left out
    # a function word reworded with the end left out, or words left out here and there with one reworded
    ("Architects move to a fixed-fee structure to ensure the calculation is done correctly.",
     "Architects move to a fixed-fee structure to ensure accurate calculations."),
    ('Mr. Inglethorp, said the Coroner, "you have heard your wife\'s dying words repeated here.',
     "Mr. Inglethorp, you have heard your wife's last words here."),
])
def test_a_dropped_end_alone_or_a_reworded_paraphrase_is_no_swap(evidence, claim):
    assert "swap" not in {copy.kind for copy in near_copies(evidence, claim)}


@pytest.mark.parametrize(("evidence", "claim"), [
    ("We host on Fly.io.", "We host on Fly.io [E1]."),  # the sentence itself
    ("We host on Fly.io.", "We host on Fly.io too."),  # an added word with no content
    ("We host on Fly.io in two regions.", "We host on Fly.io."),  # words left out: the claim says less
    ("We host on Fly.io.", "Fly.io is where our servers run."),  # a paraphrase, not a near copy
    ("The server is the single source of truth for business rules.",
     "The server owns every business rule and decides which client input is valid."),  # more than one change
    ("We host on Fly.io.", "We host it."),  # too short to be a copy of anything
    # a clause summarised, not a term swapped: "supported WWI" stands for fifteen words
    ("Most of France went enthusiastically into World War I, and came out of it victorious yet bled white.",
     "Most of France supported WWI."),
    ("The team ships the release on Fridays after review.",
     "The team publishes every new version on Fridays after review."),  # four words replaced: a rewrite
    ("We host on Fly.io.", "We host on Fly.io with failover across three regions and daily backups."),  # too long
    # a pronoun replaced by its antecedent is no splice: the verifier reads the pair as a whole
    ("The Orion project ships in March. Its budget is 2.4 million euros.",
     "The Orion project's budget is 2.4 million euros."),
])
def test_a_paraphrase_or_the_evidence_itself_is_no_near_copy(evidence, claim):
    assert near_copies(evidence, claim) == ()


@pytest.mark.parametrize(("evidence", "claim"), [
    # the participle of a present perfect or a passive, the bare verb after "did": another word carries the tense
    ("Keranen et al. show that the rise is caused by wastewater wells.",
     "Keranen et al. have shown that the rise is caused by wastewater wells."),
    ("Jakarta floods easily during the rainy season.", "Jakarta is easily flooded during the rainy season."),
    ("Greuze was not worried about protection.", "Greuze did not worry about protection."),
    # "was" for the "is" of another verb, the sentence's other words left out
    ("Toy Story 2 is a 1999 film produced by Pixar and released by Walt Disney Pictures.",
     "Toy Story 2 was released by Walt Disney Pictures."),
])
def test_a_verb_whose_tense_another_word_carries_is_no_tense_change(evidence, claim):
    assert "tense" not in {copy.kind for copy in near_copies(evidence, claim)}


@pytest.mark.parametrize(("evidence", "claim", "condition"), [
    # "Vacation must be approved by the team lead." was shown: the sentence with words left out says less, except
    # when the words left out limit whom or what the rule is for
    ("Vacation longer than five days must be approved by the team lead.",
     "Vacation must be approved by the team lead.", ("longer", "than", "five", "days")),
    ("Files larger than 10 MB are rejected.", "Files are rejected.", ("larger", "than", "10", "MB")),
    ("Patients over 65 should receive the vaccine.", "Patients should receive the vaccine.", ("over", "65")),
    # more words left out elsewhere ("... and its owner is e-mailed"), and a rule that "needs"
    ("A key that keeps sending requests while limited for more than 10 minutes is blocked for 1 hour and its owner "
     "is e-mailed.", "A key that keeps sending requests while limited is blocked for 1 hour.",
     ("for", "more", "than", "10", "minutes")),
    ("Increases above 10,000 requests per minute need approval from the platform team.",
     "Increases need approval from the platform team.", ("above", "10,000", "requests", "per", "minute")),
])
def test_a_copy_that_leaves_out_the_condition_of_a_rule(evidence, claim, condition):
    assert [(c.kind, c.words) for c in near_copies(evidence, claim)] == [("condition", condition)]


@pytest.mark.parametrize(("evidence", "claim"), [
    ("Employees get more than 25 days of paid vacation.", "Employees get paid vacation."),  # a detail left out
    ("The Titanic sank in 1912, when more than 1,500 people died.", "The Titanic sank in 1912."),
    # a long clause left out is no condition of a rule: "Yunus is the first person to win a Nobel Prize." over
    # "Yunus is the first person who was nominated for the peace prize at least twice before to win ..."
    ("Yunus is the first person who was nominated for the peace prize at least twice before to win a Nobel Prize.",
     "Yunus is the first person to win a Nobel Prize."),
])
def test_a_copy_that_leaves_out_no_condition(evidence, claim):
    assert "condition" not in {copy.kind for copy in near_copies(evidence, claim)}


ORION_TEXT = "The Orion project ships in March. Its budget is 2.4 million euros."


@pytest.mark.parametrize(("claim", "run", "sentence"), [
    ("The Orion project's budget reaches 2.4 million euros.", ("reaches",),
     "The Orion project's budget is 2.4 million euros."),
    ("Orion's budget totals 2.4 million euros.", ("totals",), "Orion's budget is 2.4 million euros."),
])
def test_a_claim_that_names_what_a_pronoun_refers_to_is_read_against_that_sentence(claim, run, sentence):
    """Found with a hand-written lie: "Its budget was cut to 2.4 million euros." was a near copy, refused as a swap;
    the same lie naming the antecedent ("The Orion project's budget ...") was two changes, no near copy, and the
    verifier alone passed it. The claim's words in the pronoun's place must be the evidence's own. ("was cut to" is
    a tense copy now, read the same way: these swaps keep the tense.)"""
    assert [(c.kind, c.words, c.sentence) for c in near_copies(ORION_TEXT, claim)] == [("swap", run, sentence)]


@pytest.mark.parametrize(("evidence", "claim"), [
    (ORION_TEXT, "The Orion project's budget is 2.4 million euros."),  # the antecedent named, nothing else changed
    (ORION_TEXT, "Its budget is 2.4 million euros."),
    # the words in the pronoun's place are not the evidence's: no reading of the sentence is made with them
    (ORION_TEXT, "The Lyra project's budget was cut to 2.4 million euros."),
    # "It was ...": the word after the pronoun anchors nothing
    ("The report came out in May. It was described as thorough.", "The audit was described as rushed."),
])
def test_no_reading_with_an_antecedent_where_the_claim_does_not_name_one(evidence, claim):
    assert near_copies(evidence, claim) == ()


ON_CALL = ("One primary and one secondary are on call at any time. Nobody is primary more than 1 week in 4. New "
           "engineers shadow two rotations before their first primary week.")


@pytest.mark.parametrize(("claim", "run", "replaced"), [
    # shown: "two" and "one" are stated elsewhere in the evidence, so the value check passed them
    ("One primary and two secondaries are on call at any time.", ("two",), ("one",)),
    ("New engineers shadow one rotation before their first primary week.", ("one",), ("two",)),
    ("Nobody is primary more than 1 week in 2.", ("2",), ("4",)),
])
def test_a_number_put_for_another_in_a_copy_is_a_number_copy(claim, run, replaced):
    assert [(c.kind, c.words, c.replaced) for c in near_copies(ON_CALL, claim)] == [("number", run, replaced)]


@pytest.mark.parametrize(("evidence", "claim"), [
    ("Case 4 covers production planning.", "Case four covers production planning."),  # the same number
    ("Treatment of COVID-19 patients is studied.", "Treatment of SARS-19 patients is studied."),  # part of a name
])
def test_the_same_number_or_a_name_is_no_number_copy(evidence, claim):
    assert "number" not in {c.kind for c in near_copies(evidence, claim)}


@pytest.mark.parametrize(("evidence", "claim", "exchanged"), [
    # "The primary takes over ..." was shown: every word is the sentence's own, the changed run is too long for a
    # swap, and the verifier entails it
    ("The secondary takes over when the primary has not acknowledged a page within 10 minutes.",
     "The primary takes over when the secondary has not acknowledged a page within 10 minutes.",
     ("primary", "secondary")),
    ("The landlord pays the tenant.", "The tenant pays the landlord.", ("tenant", "landlord")),
    ("Flights go from Paris to Berlin.", "Flights go from Berlin to Paris.", ("Berlin", "Paris")),
    # shown: two phrases exchanged, so more than two words differ
    ("Prefer rollback over a forward fix.", "Prefer a forward fix over rollback.", ("forward fix", "rollback")),
    # shown over the example corpus: an article added to a term ("a rollback") made the lengths differ (the terms
    # are read without their articles)
    ("Prefer rollback over a forward fix.", "Prefer a forward fix over a rollback.", ("forward fix", "rollback")),
    ("The landlord pays the tenant.", "A tenant pays the landlord.", ("tenant", "landlord")),
    ("Trains run from Central Station to the old harbour.", "Trains run from the old harbour to Central Station.",
     ("old harbour", "Central Station")),
])
def test_two_terms_of_the_sentence_exchanged_are_a_roles_copy(evidence, claim, exchanged):
    assert [(c.kind, c.words) for c in near_copies(evidence, claim)] == [("roles", exchanged)]


@pytest.mark.parametrize(("evidence", "claim"), [
    ("Cats chase dogs and mice.", "Cats chase mice and dogs."),  # only coordinated
    ("The plan covers both the tenant and the landlord.", "The plan covers both the landlord and the tenant."),
    ("The tenant pays the landlord.", "The tenant pays the landlord."),
    ("Some roads are rivers.", "Some rivers are roads."),  # an identity says the same both ways (nli.jsonl rows)
    ("We keep the logs and the backups.", "We keep the backups and the logs."),
    # two coordinated phrases whose shared noun stands between the exchanged words (a FEVER dev row)
    ("A player-coach may be a head coach or an assistant coach .", "A player-coach may be an assistant coach or head coach."),
    # clauses in another order, not terms (an nli.jsonl row)
    ("It is thought that a lesser share of rural deliveries are businesses, and that part of the difference is the "
     "weather.", "It is thought that part of the difference is the weather, and that a lesser share of rural "
     "deliveries are businesses."),
])
def test_coordinated_words_in_another_order_are_no_roles_copy(evidence, claim):
    assert "roles" not in {c.kind for c in near_copies(evidence, claim)}


def test_a_role_swap_can_be_a_near_copy_of_both_sentences():
    evidence = "The landlord pays for repairs. The tenant pays for utilities."
    assert near_copies(evidence, "The tenant pays for repairs.") == (
        NearCopy("splice", ("tenant",), "The landlord pays for repairs.", ("landlord",), False, ("The",),
                 ("pays", "for", "repairs")),
        NearCopy("splice", ("repairs",), "The tenant pays for utilities.", ("utilities",), False,
                 ("The", "tenant", "pays", "for")))


def test_a_near_copy_reads_its_change_in_place_with_the_words_around_it():
    (copy,) = near_copies("Southern California generally comprises California's southernmost 10 counties.",
                          "Southern California generally comprises California's southernmost 10 equal.")
    assert copy.in_context() == ("comprises California's southernmost 10 counties",
                                 "comprises California's southernmost 10 equal", "comprises California's southernmost 10")


@pytest.mark.parametrize(("evidence", "claim", "replaced", "name_for_name"), [
    ("The economy of Victoria is diversified. Victoria is a state of Australia.",
     "The economy of Australia is diversified.", ("Victoria",), True),
    ("We host on Fly.io. DB is Turso (SQLite).", "We host on Turso.", ("Fly", "io"), True),
    ("We host on Fly.io.", "We host on aws.", ("Fly", "io"), False),  # "aws" is not written as a name
    # the claim's name is the sentence's own: no name put for another
    ("The city's motto is Contemnit procellas, which means it defies the storms.",
     "The city's motto is, appropriately, Contemnit procellas, which means it defies the storms.", (), False),
    # a description replaced by a name: the verifier decides ("Orion ships ...")
    ("Orion is our flagship. The project ships on 14 March 2027.", "Orion ships on 14 March 2027.",
     ("The", "project"), False),
])
def test_what_a_near_copy_replaces_and_whether_it_puts_a_name_for_a_name(evidence, claim, replaced, name_for_name):
    (copy,) = near_copies(evidence, claim)
    assert copy.replaced == replaced and copy.name_for_name is name_for_name


@pytest.mark.parametrize(("evidence", "claim", "flagged"), [
    ("Acme signed the contract in May. The company will deliver the units.", "Acme will deliver the units.", False),
    ("The drug may reduce pain.", "The drug reduces pain.", True),
])
def test_the_month_may_is_no_hedge(evidence, claim, flagged):
    assert bool(check_strength(evidence, claim)) is flagged


@pytest.mark.parametrize("claim", ["On-call pay is $250 per week as primary.", "On-call pay is 250 dollars per week.",
                                   "On-call pay is USD 250 per week.", "On-call pay is 250 GBP per week."])
def test_a_currency_code_before_or_after_the_number_is_its_currency(claim):
    """"EUR 250" was a number of no unit, so "$250" or "250 dollars" over it passed the number check."""
    assert ReasonCode.NUMBER_MISMATCH in codes(check_numbers("On-call pay is EUR 250 per week as primary.", claim))
    for same in ("On-call pay is €250 per week.", "On-call pay is 250 euros per week.", "On-call pay is 250 EUR per week."):
        assert check_numbers("On-call pay is EUR 250 per week as primary.", same) == [], same


# -- corpus b (a handbook, a changelog, an FAQ): a fifth round, on documents the checks were not written against ------
_TELEMETRY = "## Does quarry send telemetry?\n\nNo. quarry never sends usage data; the only network traffic is to the " \
             "databases you configure."


def test_an_answer_s_opening_no_negates_nothing_in_the_statement_after_it():
    """"No. quarry never sends usage data" counted two negations, so the faithful "quarry never sends usage data."
    differed in polarity and the lie "quarry sends anonymous usage data." did not."""
    assert check_negation(_TELEMETRY, "quarry never sends usage data.") == []
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(_TELEMETRY, "quarry sends anonymous usage data."))
    assert check_negation("No, the office is not open on Sundays.", "The office is not open on Sundays.") == []
    # a "No." that abbreviates "number" negates nothing either
    assert check_negation("Form No. 5 is filed every year.", "Form No. 5 is filed every year.") == []
    assert check_negation("No staff member is on call at night.", "No staff member is on call at night.") == []
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation("No staff member is on call at night.",
                                                                "A staff member is on call at night."))


def test_a_ranked_time_unit_the_evidence_ranks_otherwise_is_a_number_mismatch():
    """Shown verified over corpus b's handbook: "in the first week" for "on their first day"."""
    equipment = "Every new hire receives a laptop on their first day. Laptops are replaced every three years."
    assert ReasonCode.NUMBER_MISMATCH in codes(check_numbers(equipment, "New hires receive their laptop in the first "
                                                                        "week."))
    assert check_numbers(equipment, "New hires receive their laptop on the first day.") == []
    # another ordinal is _other_ranks' as before; a unit the evidence does not rank is no rank of its own
    assert check_numbers("The office opens in the first week of May.", "The office opens in May.") == []
    assert check_numbers("Backups run every day; the first backup is kept for a year.",
                         "The first backup is kept for a year.") == []


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over corpus b's changelog: the value a change left behind, stated as the value now
    ("- The default page size went from 50 to 200 rows.", "The default page size is now 50 rows."),
    ("- Connections now time out after 30 seconds instead of 10.", "Connections time out after 10 seconds."),
    ("Our rate limit was raised from 100 to 500 requests per minute.", "The rate limit is 100 requests per minute."),
])
def test_the_value_a_change_replaced_is_not_the_value_now(evidence, claim):
    assert ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))


@pytest.mark.parametrize(("evidence", "claim"), [
    ("- The default page size went from 50 to 200 rows.", "The default page size is now 200 rows."),
    ("- The default page size went from 50 to 200 rows.", "The default page size was 50 rows."),
    ("- The default page size went from 50 to 200 rows.", "The default page size went from 50 to 200 rows."),
    ("- Connections now time out after 30 seconds instead of 10.", "Connections used to time out after 10 seconds."),
    # a range or a span is no change ("from 1992 to 2015" is when, "from 200 to 1,000 meters" how deep)
    ("Tom DeLonge was a member of Blink-182 from 1992 to 2015.", "Tom DeLonge was in Blink-182 in 1992."),
    ("The twilight zone extends from 200 to 1000 meters.", "The twilight zone starts at 200 meters."),
])
def test_a_change_s_new_value_a_past_one_or_a_range_is_no_replaced_value(evidence, claim):
    assert not [f for f in check_numbers(evidence, claim) if "changed" in f.detail]


@pytest.mark.parametrize("claim", [
    # shown verified over corpus b's changelog (two sets): the two verbs of "A without B" exchanged
    "The `quarry sync --dry-run` flag writes the changes without printing them.",
    "The `--dry-run` flag of `quarry sync` writes the changes without printing them.",
])
def test_a_without_b_said_as_b_without_a_is_a_negation_mismatch(claim):
    dry_run = "- Added the `quarry sync --dry-run` flag, which prints the changes without writing them."
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(dry_run, claim))
    assert check_negation(dry_run, "The `quarry sync --dry-run` flag prints the changes without writing them.") == []


def test_a_question_is_no_statement_for_the_checks():
    """An FAQ's heading asks; it states nothing a claim could negate. "quarry does not send telemetry." was held to
    "## Does quarry send telemetry?" (all its words are the question's) and refused as a NEGATION_MISMATCH."""
    assert check_negation(_TELEMETRY, "quarry does not send telemetry.") == []
    assert check_negation(_TELEMETRY, "No, quarry does not send telemetry.") == []
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(_TELEMETRY, "quarry sends telemetry."))
    # the question is still read with its answer, as a pair of sentences
    assert best_sentence("## Is quarry free?\n\nYes.", "quarry is free.")[0].endswith("Yes.")
    # a question in running text may state what it asks (MNLI: "Don't you know that Venice is packed with visitors?")
    assert best_sentence("It's a world event. Don't you know that Venice is packed with visitors?",
                         "Venice is packed with visitors.")[1] == 1.0


@pytest.mark.parametrize(("evidence", "claim", "exchanged"), [
    ("- The default page size went from 50 to 200 rows.", "The default page size went from 200 to 50 rows.",
     ("200", "50")),
    ("- Connections now time out after 30 seconds instead of 10.",
     "Connections now time out after 10 seconds instead of 30.", ("10", "30")),
])
def test_two_numbers_of_the_sentence_exchanged_are_a_roles_copy(evidence, claim, exchanged):
    """Shown verified over corpus b's changelog: a number is a term as a word is."""
    assert [(c.kind, c.words) for c in near_copies(evidence, claim)] == [("roles", exchanged)]


@pytest.mark.parametrize(("evidence", "claim"), [
    ("Each review takes between 10 and 30 minutes.", "Each review takes between 30 and 10 minutes."),
    ("Plans cost 10 or 20 euros a month.", "Plans cost 20 or 10 euros a month."),
])
def test_numbers_only_coordinated_in_another_order_are_no_roles_copy(evidence, claim):
    assert "roles" not in {c.kind for c in near_copies(evidence, claim)}


_INSTALL = "## How do I install quarry?\n\nInstall it with `pipx install quarry-cli`. Python 3.10 or later is required."


@pytest.mark.parametrize("claim", ["Install it with `pip install quarry`.", "quarry reads `~/.quarry/config.toml`.",
                                   "Install quarry with `pipx install quarry`."])
def test_code_the_evidence_never_writes_is_unsupported_content(claim):
    """Code is literal: a command or a path in backticks that the evidence does not write, character for character,
    is another command or path, however close ("pip" for "pipx": shown verified over corpus b's FAQ)."""
    evidence = _INSTALL + "\n\nquarry reads `~/.config/quarry/config.toml`."
    assert "code" in {f.check for f in check_content(evidence, claim)}


@pytest.mark.parametrize("claim", ["You install quarry with `pipx install quarry-cli`.",
                                   "Run `pipx  install quarry-cli` to install it.",  # spaces are not the code
                                   "quarry installs with pipx install quarry-cli.",  # no code span: the words decide
                                   "Python 3.10 or later is required."])
def test_code_the_evidence_writes_is_no_finding(claim):
    assert "code" not in {f.check for f in check_content(_INSTALL, claim)}


def test_a_clause_after_a_colon_is_read_as_a_sentence_of_its_own():
    """"quarry now runs on Windows and macOS only." over "Windows support is dropped: quarry now runs on Linux and
    macOS only.": the run is a word of the sentence's other clause, so no swap was seen (shown verified)."""
    evidence = "- Windows support is dropped: quarry now runs on Linux and macOS only."
    found = {(c.kind, c.words) for c in near_copies(evidence, "quarry now runs on Windows and macOS only.")}
    assert ("splice", ("windows",)) in found
    assert near_copies(evidence, "quarry now runs on Linux and macOS only.") == ()


def test_a_claim_about_the_subject_of_a_negated_statement_alone_is_not_negated_by_it():
    """The claim takes only "quarry" from the negated statement before the semicolon: it restates the other one."""
    assert check_negation(_TELEMETRY, "The only network traffic quarry makes is to the databases you configure.") == []
    # a word of the negated statement's predicate draws on it: the polarity differs
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(
        "Deploys never run on Fridays; they run from GitHub Actions.", "Deploys run from GitHub Actions on Fridays."))


def test_paid_once_is_one_time():
    """"A one-time ... allowance" over "... is paid once": the irregular "paid" was no past form, so "once" was no
    number and "one-time" a number the evidence did not state."""
    evidence = "A home-office allowance of 600 euros is paid once, in the first month of employment."
    assert check_numbers(evidence, "A one-time home-office allowance of 600 euros is paid in the first month.") == []
    assert ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, "The allowance of 600 euros is paid twice."))


def test_quotes_written_with_a_backtick_are_no_code():
    evidence = "Almost everyone has heard of the World Wide Web."
    assert "code" not in {f.check for f in check_content(
        evidence, "The `home page' is the first screen of a `Web' site on the `Net'.")}


def test_a_colon_inside_parentheses_joins_no_clauses():
    """"(Bulgarian: ...)" glosses a name: read as a clause of its own, it made "... is Lebanese" a splice."""
    evidence = "Bashar Mounzer Rahal (Bulgarian: Башар Мунзер Рахал) is a Bulgarian actor of Lebanese descent."
    assert near_copies(evidence, "Bashar Mounzer Rahal is Lebanese") == ()


def test_a_subject_put_for_another_statement_s_subject_draws_on_both():
    """"Reads always go to the primary." takes "reads" from the hedged statement and the rest from the other: the hedge
    of the sentence still bears on it (a lie of the third round over the example corpus)."""
    evidence = "Writes always go to the primary; reads may be served by a replica and can lag the primary by 1 second."
    assert ReasonCode.STRENGTH_INFLATION in codes(check_strength(evidence, "Reads always go to the primary."))


def test_a_word_swapped_after_a_lead_is_a_near_copy():
    """"Version 3.1.4 fixed a crash when a column name contained a space character." over "- Fixed a crash when a
    column name contained a tab character.": a lead the heading gives, and one word put for another (shown over
    corpus b's changelog; the verifier leans contradicted, 0.51 against 0.40)."""
    evidence = "## 3.1.4 (2026-07-02)\n\n- Fixed a crash when a column name contained a tab character."
    claim = "Version 3.1.4 fixed a crash when a column name contained a space character."
    assert [(c.kind, c.words, c.replaced) for c in near_copies(evidence, claim)] == [("swap", ("space",), ("tab",))]
    assert near_copies(evidence, "In 3.1.4 a crash was fixed when a column name contained a tab character.") == ()


@pytest.mark.parametrize("claim", ["Set `QUARRY_CONFIG` to point quarry at another configuration file.",
                                   "Run `pipx install quarry-cli` to install it."])
def test_a_word_before_code_that_opens_a_claim_is_an_imperative_not_a_name(claim):
    evidence = ("quarry reads `~/.config/quarry/config.toml`; the `QUARRY_CONFIG` environment variable points it "
                "elsewhere. Install it with `pipx install quarry-cli`.")
    assert absent_names(evidence, claim) == []
    assert absent_names(evidence, "Redis `QUARRY_CONFIG` points it elsewhere.") == ["Redis"]  # a name stays one


RACE_STARTS = ("The marathon starts at 7:30, the half at 9:00 and the fun run at 10:30, all from the village square in "
               "Kestrel.")
LOANS = "Books and audiobooks are lent for three weeks, DVDs and board games for one week."


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown verified over corpus d: the value another part of a sentence gives its own subject, the verb left out
    (RACE_STARTS, "The marathon starts at 9:00."),
    (LOANS, "DVDs are lent for three weeks."),
    (LOANS, "Board games are lent for three weeks."),
    (LOANS, "Books are lent for one week."),
    # a time of day is one value: "9:30" is not the 9 of "9:00" and the 30 of "7:30"
    ("The museum is open from 9:00 to 17:30.", "The museum opens at 9:30."),
])
def test_a_value_of_another_part_whose_verb_is_left_out_is_a_number_mismatch(evidence, claim):
    assert codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize(("evidence", "claim"), [
    (RACE_STARTS, "The half marathon starts at 9:00."),
    (RACE_STARTS, "The half starts at 9:00."),
    (RACE_STARTS, "The marathon starts at 7:30."),
    (LOANS, "DVDs and board games are lent for one week."),
    (LOANS, "Books and audiobooks are lent for three weeks."),
    ("The museum is open from 9:00 to 17:30.", "The museum opens at 9:00."),
    ("On-call pay is EUR 250 per week as primary and EUR 100 per week as secondary.",
     "The primary is paid EUR 250 per week."),
])
def test_the_value_a_part_gives_its_own_subject_is_no_number_mismatch(evidence, claim):
    assert not codes(check_numbers(evidence, claim))


BAGS = "Bags can be dropped at the tent beside the start. Bags must not weigh more than 8 kg."
DVDS = "Members may borrow up to 30 items at a time, of which no more than 5 may be DVDs."


@pytest.mark.parametrize(("evidence", "claim"), [
    # refused over corpus d: the "not" of "must not weigh more than" and the "no" of "no more than" bound the value,
    # as "at most" does, and were counted as negations ("not weigh more than 8 kg" also read as above 8 kg)
    (BAGS, "Bags can weigh at most 8 kg."),
    (BAGS, "Bags may weigh up to 8 kg."),
    (DVDS, "Members can have at most 5 DVDs at a time."),
    ("Refunds are paid within no more than 14 days.", "Refunds are paid within at most 14 days."),
    ("Each guest may bring at most 2 bags.", "Each guest may bring no more than 2 bags."),
    ("The tank must not hold less than 10 litres.", "The tank holds at least 10 litres."),
])
def test_a_negated_bound_says_what_at_most_or_at_least_says(evidence, claim):
    assert not codes(run_checks(evidence, claim)) & {ReasonCode.NEGATION_MISMATCH, ReasonCode.NUMBER_MISMATCH}


@pytest.mark.parametrize(("evidence", "claim"), [
    (BAGS, "Bags can weigh more than 8 kg."),
    (BAGS, "Bags must weigh at least 8 kg."),
    (DVDS, "Members can have more than 5 DVDs at a time."),
    (DVDS, "Members can have at most 5 DVDs at a time, and no more than 10 books."),
    ("Each guest may bring at most 2 bags.", "Each guest may bring no fewer than 2 bags."),
    ("The tank must not hold less than 10 litres.", "The tank holds at most 10 litres."),
])
def test_a_bound_turned_the_other_way_is_still_refused(evidence, claim):
    assert codes(run_checks(evidence, claim)) & {ReasonCode.NEGATION_MISMATCH, ReasonCode.NUMBER_MISMATCH}


FULL_STATION = ("If a station is full, the app shows the nearest station with free docks and adds 15 minutes to the "
                "ride at no charge.")


@pytest.mark.parametrize(("evidence", "claim"), [
    # refused over corpus d (and corpus c's "at no cost"): the "no" of "at no charge" was counted as a negation
    (FULL_STATION, "If a station is full, the app adds 15 minutes to the ride for free."),
    ("Flex tickets can be cancelled at no cost until two hours before departure.",
     "Flex tickets can be cancelled free of charge until two hours before departure."),
    ("Wheelchairs can be borrowed free of charge.", "Wheelchairs can be borrowed at no extra cost."),
])
def test_at_no_charge_says_free(evidence, claim):
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(evidence, claim))


@pytest.mark.parametrize(("evidence", "claim"), [
    (FULL_STATION, "If a station is full, the app adds 15 minutes to the ride, but not for free."),
    ("Wheelchairs can be borrowed free of charge.", "Wheelchairs cannot be borrowed at no cost."),
    ("Flex tickets can be cancelled at no cost.", "Flex tickets cannot be cancelled for free."),
])
def test_a_negation_beside_at_no_charge_still_counts(evidence, claim):
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(evidence, claim))


CUPS = ("Aid stations are about every 7 km and serve water, an electrolyte drink and bananas. Cups are not handed out: "
        "every runner must carry a reusable cup of at least 150 ml.")


def test_a_clause_after_a_colon_is_a_statement_of_its_own():
    # refused over corpus d for the "not" of the clause before the colon
    assert ReasonCode.NEGATION_MISMATCH not in codes(
        check_negation(CUPS, "Runners must carry their own reusable cup of at least 150 ml."))
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(CUPS, "Cups are handed out at aid stations."))
    assert ReasonCode.NEGATION_MISMATCH in codes(
        check_negation(CUPS, "Runners do not need to carry a reusable cup of at least 150 ml."))


WINTER = ("Bikes can be taken at any time of day from March to November. From December to February, service stops at "
          "midnight and restarts at 6:00.")


@pytest.mark.parametrize("claim", [
    # shown over corpus d: "all year round" where the sentence restated gives months
    "Bikes can be taken at any time of day all year round.",
    "Bikes can be taken year-round at any time of day.",
    "Bikes can be taken at any time of day throughout the year.",
])
def test_all_year_where_the_sentence_gives_months_is_a_timeframe_drift(claim):
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(WINTER, claim))


@pytest.mark.parametrize(("evidence", "claim"), [
    (WINTER, "From March to November, bikes can be taken at any time of day."),
    ("The pool is open all year round, and in July and August until 22:00.", "The pool is open all year round."),
    ("The pool is open all year round.", "The pool is open year-round."),
])
def test_all_year_said_by_the_evidence_or_its_months_kept_is_no_drift(evidence, claim):
    assert ReasonCode.QUALIFIER_DRIFT not in codes(check_qualifiers(evidence, claim))


RIDE_PRICES = ("A single ride costs 2 euros for the first 30 minutes and 1 euro for every further 15 minutes.")


def test_two_values_paired_otherwise_whatever_order_the_sentence_gives_them():
    # shown over corpus d: the claim gives its two values in the other order than the sentence's parts
    assert codes(check_numbers(RIDE_PRICES, "Each additional 15 minutes costs 2 euros.")) == \
        {ReasonCode.NUMBER_MISMATCH}
    assert codes(check_numbers(RIDE_PRICES, "The first 30 minutes cost 1 euro.")) == {ReasonCode.NUMBER_MISMATCH}
    assert not codes(check_numbers(RIDE_PRICES, "Each additional 15 minutes of a single ride costs 1 euro."))
    assert not codes(check_numbers(RIDE_PRICES, "The first 30 minutes of a single ride cost 2 euros."))


def test_the_sentence_whose_values_a_claim_pairs_otherwise_is_the_one_stating_both():
    # shown over corpus d: the monthly pass's sentence tied on words and, shorter, was read instead
    evidence = RIDE_PRICES + " The monthly pass costs 15 euros and includes unlimited rides of up to 45 minutes each."
    assert codes(check_numbers(evidence, "Each additional 15 minutes costs 2 euros.")) == {ReasonCode.NUMBER_MISMATCH}
    assert not codes(check_numbers(evidence, "Each additional 15 minutes of a single ride costs 1 euro."))


BIBS = ("Bibs are collected on Friday from 15:00 to 20:00 at the community hall, or on race morning until 45 minutes "
        "before your start.")


def test_only_leaving_out_the_other_way_the_sentence_gives_is_a_qualifier_drift():
    # shown over corpus d: "only" where the sentence gives a second way after ", or"
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(BIBS, "Bibs can only be collected on Friday."))
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(BIBS, "Bibs can only be collected on race morning."))
    assert ReasonCode.QUALIFIER_DRIFT not in codes(
        check_qualifiers(BIBS, "Bibs can be collected on Friday at the community hall."))
    assert ReasonCode.QUALIFIER_DRIFT not in codes(
        check_qualifiers(BIBS, "Bibs can only be collected on Friday at the community hall or on race morning."))


CARDS = ("A library card is free for everyone who lives, works or studies in Ostby. A lost card can be replaced at the "
         "front desk for 3 euros.")


def test_a_price_for_what_the_evidence_says_is_free_is_a_number_mismatch():
    # shown over corpus d: the price of another thing ("a lost card can be replaced ... for 3 euros")
    assert codes(check_numbers(CARDS, "A library card costs 3 euros.")) == {ReasonCode.NUMBER_MISMATCH}
    assert not codes(check_numbers(CARDS, "Replacing a lost card costs 3 euros."))
    assert not codes(check_numbers(CARDS, "A lost library card can be replaced for 3 euros."))
    # a price with a condition of its own is not read against the free one
    assert not codes(check_numbers("Entry is free for children. Entry costs 18 euros for adults.",
                                   "Entry costs 18 euros for adults."))


WINTER_HOURS = ("From December to February, service stops at midnight and restarts at 6:00. The customer service line "
                "answers from 7:00 to 22:00 on every day of the year.")


def test_a_value_the_restated_sentence_gives_otherwise_taken_from_another_sentence_is_a_number_mismatch():
    # shown over corpus d: 22:00 is the phone line's, in the next sentence; the verifier entails the claim (0.73)
    assert codes(check_numbers(WINTER_HOURS, "From December to February, service stops at 22:00.")) == \
        {ReasonCode.NUMBER_MISMATCH}
    assert codes(check_numbers(WINTER_HOURS, "From December to February, service restarts at 7:00.")) == \
        {ReasonCode.NUMBER_MISMATCH}
    assert not codes(check_numbers(WINTER_HOURS, "From December to February, service restarts at 6:00."))
    assert not codes(check_numbers(WINTER_HOURS, "Customer service answers from 7:00 to 22:00 every day."))
    # a value the restated sentence states of another measure, or none, is not read against it
    assert not codes(check_numbers("The race has 400 runners. It starts at 9:00 in the square.",
                                   "The race starts at 9:00."))


LATE_FEES = ("Overdue adult items cost 20 cents per day, up to a maximum of 6 euros per item. Children's items are "
             "never charged late fees.")


def test_denying_what_the_evidence_gives_a_value_is_a_negation_mismatch():
    # shown over corpus d: the next sentence's "never" evened out the claim's "no" for the pair of sentences
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(LATE_FEES, "The late fee has no maximum."))
    assert ReasonCode.NEGATION_MISMATCH in codes(
        check_negation("A deposit of 50 euros is taken for each kayak.", "Kayaks are hired without a deposit."))
    assert ReasonCode.NEGATION_MISMATCH not in codes(
        check_negation(LATE_FEES, "Overdue adult items cost at most 6 euros per item."))
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(LATE_FEES, "Children's items have no late fees."))
    # the evidence denies it too, of something
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(
        "Deposits are a maximum of 50 euros. Fines have no maximum.", "Fines have no maximum."))


MONTHLY_PASS = "The monthly pass costs 15 euros and includes unlimited rides of up to 45 minutes each."

PHONES = ("Phones must be silent throughout the performance, and anyone whose phone rings twice may be asked to leave "
          "without a refund.")


@pytest.mark.parametrize(("evidence", "claim", "code"), [
    # shown over corpus h: how many times the sentence says a thing is done, said otherwise or lifted
    (BELAY, "Anyone who fails the belay test may retake it free as often as they like on the same day.",
     ReasonCode.QUALIFIER_DRIFT),
    (PHONES, "Anyone whose phone rings even once may be asked to leave without a refund.", ReasonCode.NUMBER_MISMATCH),
    (BELAY, "Anyone who fails the belay test may retake it twice on the same day.", ReasonCode.NUMBER_MISMATCH),
])
def test_the_times_a_thing_is_done_said_otherwise_is_a_finding(evidence, claim, code):
    assert code in codes(run_checks(evidence, claim))


@pytest.mark.parametrize(("evidence", "claim"), [
    (BELAY, "If you fail the belay test you can retake it once for free the same day."),
    # a title's words count nothing (vitaminc)
    ("You Only Live Twice is a 1967 spy film.", "In the film You Only Live Once, Bond fakes his death."),
    (PHONES, "If your phone rings twice you may be asked to leave, without a refund."),
    # "once" that opens a clause is no count
    ("Once the gates shut, no vehicle gets in, and the lights go off twice.", "Once the gates shut, no car gets in."),
])
def test_the_times_a_thing_is_done_said_alike_is_no_finding(evidence, claim):
    found = codes(run_checks(evidence, claim))
    assert ReasonCode.NUMBER_MISMATCH not in found and ReasonCode.QUALIFIER_DRIFT not in found


def test_a_bound_the_claim_lifts_is_a_qualifier_drift():
    # shown over corpus d: "of any length" where the sentence says "of up to 45 minutes each" (the verifier: 0.39)
    assert ReasonCode.QUALIFIER_DRIFT in codes(
        check_qualifiers(MONTHLY_PASS, "The monthly pass includes unlimited rides of any length."))
    assert ReasonCode.QUALIFIER_DRIFT in codes(
        check_qualifiers("Files of up to 2 GB can be uploaded to the portal.",
                         "Files of any size can be uploaded to the portal."))
    assert ReasonCode.QUALIFIER_DRIFT in codes(
        check_qualifiers("Guests may borrow at most 10 items at a time.", "Guests may borrow without a limit."))
    assert ReasonCode.QUALIFIER_DRIFT not in codes(
        check_qualifiers(MONTHLY_PASS, "The monthly pass includes unlimited rides of up to 45 minutes."))
    # the evidence lifts it too
    assert ReasonCode.QUALIFIER_DRIFT not in codes(
        check_qualifiers("Files of any size can be uploaded, in parts of up to 2 GB.",
                         "Files of any size can be uploaded."))


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown over corpus d: what is lent is what can be borrowed, and said of the thing, the two say the same
    ("Books and audiobooks are lent for three weeks.", "Books and audiobooks can be borrowed for three weeks."),
    ("The house was sold in 2019.", "The house was bought in 2019."),
])
def test_converse_verbs_said_of_the_thing_passed_on_are_no_opposites(evidence, claim):
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(evidence, claim))


@pytest.mark.parametrize(("evidence", "claim"), [
    ("The company acquired the startup.", "The company sold the startup."),  # who gives and who takes
    ("The startup was acquired by Orion.", "The startup was sold by Orion."),  # the agent said: its role swapped
    ("Books are lent by the library.", "Books are borrowed by the library."),
])
def test_converse_verbs_with_their_agent_are_still_opposites(evidence, claim):
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(evidence, claim))


CARD_FOR_EVERYONE = ("A library card is free for everyone who lives, works or studies in Ostby. Children under 12 need "
                     "a parent or guardian to sign the application.")


def test_people_for_everyone_is_no_other_population():
    # shown over corpus d: "people who live ..." for "everyone who lives ..." was read as a group the evidence never
    # names, beside the children it does
    assert ReasonCode.QUALIFIER_DRIFT not in codes(check_qualifiers(
        CARD_FOR_EVERYONE, "The library card is free for people who live, work or study in Ostby."))
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(
        CARD_FOR_EVERYONE, "The library card is free for students who live, work or study in Ostby."))


def test_only_one_of_a_list_of_verbs_is_a_qualifier_drift():
    # over corpus d: "live" for the list's "lives" (stemmed "liv") was not found among its members, so the "only"
    # left out nothing (the population check used to refuse it by chance: "people" beside the evidence's children)
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(
        CARD_FOR_EVERYONE, "Only people who live in Ostby can get a library card."))
    assert ReasonCode.QUALIFIER_DRIFT not in codes(check_qualifiers(
        CARD_FOR_EVERYONE, "Only people who live, work or study in Ostby get a free library card."))


def test_headings_alone_are_no_sentence_a_claim_restates():
    # over corpus d: the chunk's two headings, read as a pair, tied with the sentence on the claim's words and, being
    # shorter, were read instead, so the "only" check saw no list
    chunk = "# Ostby Public Library: borrowing guide\n\n## Library cards\n\n" + CARD_FOR_EVERYONE
    claim = "Only people who live in Ostby can get a library card."
    assert best_sentence(chunk, claim)[0] == CARD_FOR_EVERYONE.split(" Children")[0]
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(chunk, claim))
    # a number or a tag after "#" is no heading
    assert best_sentence("#1 priority is patching. Patching is weekly.", "The #1 priority is patching.")[0] == \
        "#1 priority is patching."


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown over corpus e: "not ... nor" counted as two negations, so the claim without one had the same parity
    ("Power tools must not be used before 9:00 or after 19:00, nor at any time on Sundays.",
     "Power tools may be used on Sunday afternoons."),
    ("Neither cats nor dogs are allowed in the rooms.", "Cats are allowed in the rooms."),
])
def test_a_nor_goes_on_with_the_negation_before_it(evidence, claim):
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(evidence, claim))


def test_neither_nor_is_one_negation():
    assert ReasonCode.NEGATION_MISMATCH not in codes(
        check_negation("Neither cats nor dogs are allowed in the rooms.", "Cats and dogs are not allowed in the rooms."))


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # shown over corpus e: two clauses of one sentence, each with its own subject and the same verb
    ("A check-up takes 30 minutes and a hygienist cleaning takes 45 minutes.", "A check-up takes 45 minutes.", True),
    ("A full plot of 250 square metres costs 80 euros a year and a half plot costs 45 euros a year.",
     "A full plot costs 45 euros a year.", True),
    ("A check-up takes 30 minutes and a hygienist cleaning takes 45 minutes.", "A check-up takes 30 minutes.", False),
    ("A full plot of 250 square metres costs 80 euros a year and a half plot costs 45 euros a year.",
     "A half plot costs 45 euros a year.", False),
])
def test_a_value_of_the_clause_beside_with_its_own_subject_is_a_number_mismatch(evidence, claim, mismatch):
    assert (codes(check_numbers(evidence, claim)) == {ReasonCode.NUMBER_MISMATCH}) is mismatch


RECEPTION = ("The reception is staffed from 8:30 to 18:00 on weekdays and is closed at weekends and on public "
             "holidays.")


@pytest.mark.parametrize(("evidence", "claim", "drift"), [
    # shown over corpus e: "every day" where the sentence restated says "on weekdays"
    (RECEPTION, "The reception is staffed from 8:30 to 18:00 every day, including weekends.", True),
    (RECEPTION, "The reception is staffed from 8:30 to 18:00 every day.", True),
    (RECEPTION, "The reception is staffed from 8:30 to 18:00 on weekdays.", False),
    ("The hall is open every day. The desk is staffed on weekdays.", "The hall is open every day.", False),
])
def test_every_day_where_the_sentence_says_weekdays_is_a_timeframe_drift(evidence, claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(evidence, claim))) is drift


def negation_mismatch(evidence: str, claim: str) -> bool:
    return ReasonCode.NEGATION_MISMATCH in codes(check_negation(evidence, claim))


HOSES = ("Hoses may be used only to fill water butts, never to water a plot directly, and sprinklers are banned at all "
         "times.")


def test_a_contrast_after_a_comma_has_no_subject_of_its_own():
    """Shown over corpus e: "Hoses may be used to water plots directly." The contrast ", never to water a plot
    directly, and sprinklers are ..." was read as a statement whose subject ran to its first verb, so the claim took
    "only its subject" from it and was compared with the first statement alone, which has no negation."""
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(HOSES, "Hoses may be used to water plots directly."))
    assert check_negation(HOSES, "Hoses may be used only to fill water butts.") == []
    assert check_negation(HOSES, "Hoses may never be used to water a plot directly.") == []


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # shown over corpus e: the other clause's negation refused a faithful claim, or evened out a dropped one
    ("Rent is due by 31 January, and a tenant who has not paid by 1 March loses the plot.",
     "The rent is due by 31 January.", False),
    ("Only Millbrook residents can rent a plot, and no household may hold more than one full plot.",
     "Plots can only be rented by Millbrook residents.", False),
    ("Chickens and rabbits may be kept only with the council's written permission, and cockerels are not allowed at "
     "all.", "You need the council's written permission to keep chickens.", False),
    ("Chickens and rabbits may be kept only with the council's written permission, and cockerels are not allowed at "
     "all.", "Chickens and rabbits may be kept without permission.", True),
    ("Chickens and rabbits may be kept only with the council's written permission, and cockerels are not allowed at "
     "all.", "Cockerels are allowed.", True),
    ("Rent is due by 31 January, and a tenant who has not paid by 1 March loses the plot.",
     "A tenant who has paid by 1 March loses the plot.", True),
    # a list's last member after ", and" is no clause of its own
    ("Carpets, tyres, and asbestos must never be brought onto the site.", "Tyres may be brought onto the site.", True),
])
def test_a_clause_after_and_with_its_own_subject_is_its_own_statement_for_the_negation_check(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


SPRINKLERS = "Sprinklers are banned at all times. Bonfires are allowed only from November to February."


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus e: "banned" says "not allowed"; read as no negation it evened out a lie's parity or refused the truth
    (SPRINKLERS, "Sprinklers are never allowed.", False),
    (SPRINKLERS, "Sprinklers are not permitted.", False),
    (SPRINKLERS, "Sprinklers are allowed in the evening.", True),
    ("Smoking is prohibited on the platforms.", "Smoking is not allowed on the platforms.", False),
    ("Smoking is allowed on the platforms.", "Smoking is forbidden on the platforms.", True),
    ("Smoking is not allowed on the platforms.", "Smoking is banned on the platforms.", False),
])
def test_banned_where_the_other_side_says_allowed_is_a_negation(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus e: "free of charge" says "not charged"
    ("The first late cancellation in each calendar year is not charged.",
     "Your first late cancellation in a calendar year is free of charge.", False),
    ("The first late cancellation in each calendar year is not charged.",
     "Your first late cancellation in a calendar year is free.", False),
    ("The first late cancellation in each calendar year is free of charge.",
     "Your first late cancellation in a calendar year is not charged.", False),
    ("The first late cancellation in each calendar year is free.",
     "Your first late cancellation in a calendar year is free of charge.", False),
    ("The first late cancellation in each calendar year is charged.",
     "Your first late cancellation in a calendar year is free of charge.", True),
    ("The first late cancellation in each calendar year is free of charge.",
     "Your first late cancellation in a calendar year is charged.", True),
])
def test_free_of_charge_says_not_charged(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


@pytest.mark.parametrize("evidence", ["Flash photography is not allowed inside the palace.",
                                      "Flash photography is forbidden inside the palace."])
def test_whether_or_not_negates_nothing(evidence):
    assert check_negation(evidence, "Whether or not it is dark, flash photography is not allowed inside the palace.") \
        == []
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(
        evidence, "Whether or not it is dark, flash photography is allowed inside the palace."))


LESSONS = "Adult lessons take place on Monday evenings at 19:30, cost 95 euros a course, and have no more than 6 learners."


@pytest.mark.parametrize(("claim", "mismatch"), [
    # over corpus f: the "no" of a bound whose value the claim does not state was read as the sentence's polarity
    ("Adult lessons are on Monday evenings at 19:30 and cost 95 euros a course.", False),
    ("Adult lessons have at most 6 learners.", False),
    ("Adult lessons have no more than 6 learners.", False),
    ("Adult lessons are not on Monday evenings.", True),
    ("Adult lessons have more than 6 learners.", True),
])
def test_the_negation_of_a_bound_the_claim_does_not_state_is_the_bound_s(claim, mismatch):
    assert negation_mismatch(LESSONS, claim) is mismatch


REFUNDS = "Rent is refunded for each full unused month, except to tenants who leave within their first year."
VANS = "Rentals of 14 days or more have unlimited mileage, except vans, which always include only 200 km a day."
EMERGENCY = ("An emergency visit costs a flat fee of 60 euros plus any treatment, except for registered patients under "
             "18, who pay nothing.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpora e and f: the excepted said to have what the sentence gives all others, or denied it
    (REFUNDS, "Tenants who leave within their first year get no rent back.", False),
    (REFUNDS, "Tenants who leave within their first year get back the rent for each full unused month.", True),
    (REFUNDS, "Rent is refunded for each full unused month.", False),
    (VANS, "Vans have unlimited mileage on rentals of 14 days or more.", True),
    (VANS, "Vans always include only 200 km a day.", False),
    (VANS, "Rentals of 14 days or more have unlimited mileage.", False),
    (EMERGENCY, "An emergency visit costs 60 euros plus any treatment.", False),
    (EMERGENCY, "Registered patients under 18 pay nothing for an emergency visit.", False),
    ("The Full Cover option reduces the excess to zero, except for damage to the tyres and the windscreen.",
     "Full Cover brings the excess down to zero, though not for damage to the tyres or the windscreen.", False),
])
def test_what_a_sentence_excepts_is_negated_for_a_claim_that_names_it(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


RENEWALS = "A loan can be renewed twice online or at the desk, unless another member has reserved the item."


@pytest.mark.parametrize(("claim", "mismatch"), [
    # over corpus d: what a sentence allows "unless" something, denied where that something holds
    ("A loan cannot be renewed if another member has reserved the item.", False),
    ("You can't renew a loan once another member has reserved the item.", False),
    ("A loan can be renewed twice online or at the desk.", False),
    ("A loan cannot be renewed online.", True),
    ("A loan can be renewed twice unless another member has reserved the item.", False),
])
def test_what_a_sentence_allows_unless_something_is_denied_where_it_holds(claim, mismatch):
    assert negation_mismatch(RENEWALS, claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim"), [
    # the "unless" clause not last, or a denial said of what it excepts: the claim's negation is its own
    ("Unless the trespass is aggravated in some way, it will only be a civil wrong, and trespassers are prosecuted.",
     "Aggravated trespass is a civil wrong and offenders cannot be prosecuted."),
    ("Refunds are not given, unless the course is cancelled.", "Refunds are not given if the course is cancelled."),
])
def test_an_unless_clause_is_no_negation_for_a_claim_it_does_not_end(evidence, claim):
    assert negation_mismatch(evidence, claim)


LATE_CHECK_OUT = "Check-out is by 10:30, and late check-out until 13:00 costs 8 euros, but not on Fridays or Saturdays."


@pytest.mark.parametrize(("claim", "mismatch"), [
    # over corpus g: the claim's "except X" says what the sentence's "but not X" says
    ("Except on Fridays and Saturdays you can stay until 13:00 for 8 euros.", False),
    ("Late check-out until 13:00 costs 8 euros, except on Fridays or Saturdays.", False),
    # what the sentence denies, said to hold, or only part of it excepted
    ("Late check-out until 13:00 costs 8 euros on Fridays and Saturdays.", True),
    ("Late check-out until 13:00 costs 8 euros, except on Saturdays.", True),
])
def test_a_claim_s_except_says_the_sentence_s_but_not(claim, mismatch):
    assert negation_mismatch(LATE_CHECK_OUT, claim) is mismatch


def test_another_day_excepted_is_still_refused():
    assert run_checks(LATE_CHECK_OUT, "Except on Sundays you can stay until 13:00 for 8 euros.")


def test_an_opening_except_is_no_name():
    claim = "Except on Fridays and Saturdays you can stay until 13:00 for 8 euros."
    assert [f for f in check_content(LATE_CHECK_OUT, claim) if f.check == "names"] == []


SAME_DAY = "Patients in severe pain are seen on the same day if they call before 10:00."


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus e: "noon", "midday" and "midnight" are clock times, for a page that gives other ones
    (SAME_DAY, "Patients in severe pain are seen on the same day if they call before noon.", True),
    ("The last ferry leaves at 23:00.", "The last ferry leaves at midnight.", True),
    (SAME_DAY, "Patients in severe pain are seen the same day if they call before 10:00.", False),
    ("The office closes at 12:00 on Saturdays.", "The office closes at noon on Saturdays.", False),
    ("The office closes at noon on Saturdays.", "The office closes at midday on Saturdays.", False),
    ("Service stops at 24:00 and restarts at 6:00.", "Service stops at midnight.", False),
    ("Guests arriving after midnight must call ahead.", "Guests who arrive after midnight must call ahead.", False),
])
def test_a_named_hour_is_a_clock_time(evidence, claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


@pytest.mark.parametrize(("claim", "mismatch"), [
    # over corpus f: a one-off fee said to be paid a day
    ("Travel to other EU countries costs 35 euros a day.", True),
    ("Travel to other EU countries costs a one-off fee of 35 euros.", False),
    ("Travel to other EU countries costs 35 euros.", False),
])
def test_a_one_off_fee_is_no_fee_a_day(claim, mismatch):
    evidence = "Travel to other EU countries is allowed only if it is registered, for a one-off fee of 35 euros."
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


SWITZERLAND = ("Travel to other EU countries and to Switzerland is allowed only if it is registered at collection, for "
               "a one-off fee of 35 euros, and the car may not be taken to any other country.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus f: "without" what the sentence makes the condition, its polarity evened out by another clause's "not"
    (SWITZERLAND, "The car may be driven in Switzerland without registering it at collection.", True),
    (SWITZERLAND, "Travel to Switzerland is allowed only if it is registered at collection.", False),
    ("Chickens may be kept only with the council's written permission.", "Chickens may be kept without permission.",
     True),
    ("Chickens may be kept without permission, but only with a fence.", "Chickens may be kept without permission.",
     False),
])
def test_without_what_the_sentence_makes_the_condition_is_a_negation_mismatch(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


NEGLECTED = "If the plot is still neglected after that, the tenancy ends with one month's notice and no rent is refunded."
NOTICE = "If the plot is still neglected after that, the tenancy ends with one month's notice."


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus e: "without" what the sentence says it is done with (the other clause's "no" had evened out the
    # claim's "without")
    (NEGLECTED, "The tenancy of a neglected plot ends at once, without notice.", True),
    (NOTICE, "The tenancy of a neglected plot ends without any notice.", True),
    (NOTICE, "The tenancy of a neglected plot ends with one month's notice.", False),
    (NOTICE, "If the plot is still neglected, the tenancy ends after a month's notice.", False),
    ("Members may cancel without a fee, with one month's notice.", "Members can cancel without a fee.", False),
    ("They can imagine objects with little or no support from the real world.",
     "They can imagine objects without support from the real world.", False),
])
def test_without_what_the_sentence_says_it_is_done_with_is_a_negation_mismatch(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus f: the clause before ", and" has a verb of its own that is no auxiliary
    ("A later cancellation costs one day's rental, and a customer who does not turn up is charged three days' rental.",
     "A later cancellation costs one day's rental.", False),
    ("A later cancellation costs one day's rental, and a customer who does not turn up is charged three days' rental.",
     "A customer who does not turn up is not charged.", True),
    # "except X, when ...": what follows X is what the sentence says of it
    ("Public holidays follow the weekend hours, except 25 December and 1 January, when the pool is closed.",
     "The pool is closed on 1 January.", False),
    ("Public holidays follow the weekend hours, except 25 December and 1 January, when the pool is closed.",
     "On 1 January public holidays follow the weekend hours.", True),
])
def test_more_statements_of_corpus_f_for_the_negation_check(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


CANCEL_FREE = "Bookings can be cancelled free of charge up to 48 hours before the collection time."


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpora e and f: "up to N hours before" is a deadline, at least N hours before
    (CANCEL_FREE, "Bookings can be cancelled free of charge up to 24 hours before collection.", True),
    (CANCEL_FREE, "You can cancel a booking for free at least 48 hours before the collection time.", False),
    (CANCEL_FREE, "You can cancel a booking for free up to 48 hours before the collection time.", False),
    ("An appointment can be cancelled or moved free of charge up to 24 hours before it starts.",
     "Cancelling or moving an appointment is free if you do it at least 24 hours before it starts.", False),
    # not a deadline: "up to 45 minutes" of a ride, "for up to 30 days" that something lasts before another thing
    ("Rides of up to 45 minutes are included.", "Rides of at least 45 minutes are included.", True),
    ("Logs are kept for up to 30 days before they are deleted.", "Logs are kept for up to 30 days.", False),
    ("Logs are kept for up to 30 days before they are deleted.", "Logs are kept for at least 30 days.", True),
])
def test_up_to_a_length_of_time_before_is_a_deadline(evidence, claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


def test_a_subject_of_five_words_after_and_opens_a_clause():
    # over corpus f: "charging cards for public stations are not included" was read as part of the clause before,
    # whose "no charging fee" evened out the "not" the lie leaves out
    evidence = ("Electric cars are handed over charged to at least 80%, and there is no charging fee if they are "
                "returned with at least 20%. Below 20%, a flat charging fee of 30 euros applies, and charging cards "
                "for public stations are not included.")
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(
        evidence, "Charging cards for public stations are included with electric cars."))
    assert check_negation(evidence, "Charging cards for public stations are not included with electric cars.") == []


@pytest.mark.parametrize(("claim", "mismatch"), [
    # over corpus d: "the full entry fee" had been refused only by chance, by the other clause's "not"
    ("If the organisers cancel the race, the full entry fee is returned.", True),
    ("If the organisers cancel the race, the entire fee is returned.", True),
    ("If the organisers cancel the race, 80% of the entry fee is returned.", False),
    ("The full race is cancelled by the organisers.", False),
])
def test_the_whole_of_what_the_evidence_gives_a_share_of_is_a_number_mismatch(claim, mismatch):
    evidence = ("Refunds are not given, except when the race is cancelled by the organisers, in which case 80% of the "
                "entry fee is returned.")
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


RACE_REFUNDS = ("Refunds are not given, except when the race is cancelled by the organisers, in which case 80% of the "
                "entry fee is returned.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus d: an exception to a negated clause is what the sentence does not deny
    (RACE_REFUNDS, "If the organisers cancel the race, 80% of the entry fee is refunded.", False),
    (RACE_REFUNDS, "Refunds are given if the race is moved to another day.", True),
    ("Nothing except knowing that you are helping to protect the Earth's resources.",
     "Knowledge that you are helping to protect the Earth's resources, and nothing more.", False),
])
def test_an_exception_to_a_negated_clause(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim"), [
    # measured on nli-train: "except" for "but" before a description, and a question, except nothing
    ("It was like looking into a mirror, except infinitely more realistic.",
     "It was more realistic than looking in a mirror."),
    ("What can one do with a language like English except come up with absurdities?",
     "There is more one can do with English than come up with absurdities."),
])
def test_an_except_that_names_no_thing_is_no_exception(evidence, claim):
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(evidence, claim))


DAY_PASS_PRICES = ("A day pass costs 25 euros and can be bought at the reception without a membership. All prices include VAT, "
          "Wi-Fi, coffee and tea, but printing is charged at 10 cents a page.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus e: the clause after ", but" with its own subject and verb is a statement of its own
    (DAY_PASS_PRICES, "Printing costs 10 cents per page.", False),
    (DAY_PASS_PRICES, "Printing is not charged at 10 cents a page.", True),
    ("Tenants may give up their plot at any time, but must not leave rubbish behind.",
     "Tenants may give up their plot at any time.", True),  # no subject of its own: one statement
])
def test_a_clause_after_but_with_its_own_subject_and_verb_is_its_own_statement(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


RESALE = ("Tickets may be resold only through the hall's own resale service and at no more than face value, and the hall "
          "keeps 10% of the price of each resold ticket from the seller.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus h: a clause after ", and" whose verb is one the splitter knows in its present form ("the hall
    # keeps"), or after words whose verb is one ("Roped climbing also requires ..."; "Roped" had been read as the
    # verb), is a statement of its own: the other clause's "no more than" and "fails" deny nothing of it
    (RESALE, "The hall keeps 10% of the price.", False),
    (RESALE, "The hall doesn't keep any of the price.", True),
    (BELAY, "To climb with ropes you also have to pass a belay test.", False),
    (BELAY, "To climb with ropes you don't have to pass a belay test.", True),
])
def test_a_clause_whose_verb_is_known_is_its_own_statement(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


LATE_SEATS = "Latecomers may be seated somewhere other than their booked seat."


@pytest.mark.parametrize(("claim", "mismatch"), [
    # over corpus h: "somewhere other than their booked seat" is not in it
    ("You might not get the seat you booked.", False),
    ("Latecomers may not sit in their booked seat.", False),
    ("Latecomers will always get the seat they booked.", True),
])
def test_somewhere_other_than_says_not(claim, mismatch):
    assert negation_mismatch(LATE_SEATS, claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim", "inflated"), [
    # over corpus e: a "may" that grants leave only so far is a rule, which a claim may state with "need" or "must"
    ("Chickens and rabbits may be kept only with the council's written permission.",
     "You need the council's written permission to keep chickens.", False),
    ("Hoses may only be used to fill water butts.", "Hoses must only be used to fill water butts.", False),
    ("Aspirin may lower the risk of a stroke.", "Aspirin lowers the risk of a stroke.", True),
])
def test_a_may_that_grants_leave_only_so_far_is_no_hedge(evidence, claim, inflated):
    assert (ReasonCode.STRENGTH_INFLATION in codes(check_strength(evidence, claim))) is inflated


def test_may_before_the_only_one_is_still_a_hedge():
    # measured on nli-train: "may be the only ..." supposes; it grants no leave
    evidence = "Wing Chun may be the only type of Kung-Fu created by a woman."
    assert check_strength(evidence, "Wing Chun may be the only type of Kung-Fu created by a woman.") == []
    assert ReasonCode.STRENGTH_INFLATION in codes(check_strength(
        evidence, "Wing Chun is the only type of Kung-Fu created by a woman."))


POOL_CHILDREN = ("Children aged 8 to 11 may swim without an adult in the water only if they can swim 25 metres "
                 "unaided, and an adult must stay in the building while they swim.")


@pytest.mark.parametrize(("evidence", "claim", "inflated"), [
    # over corpora e and f: in a sentence of rules, a clause after ", and" / ", but" is held to its own strength, not to
    # the "may" of the clause beside it
    (POOL_CHILDREN, "An adult has to stay in the building.", False),
    ("Children under 8 must be accompanied in the water by an adult at all times, and no adult may supervise more "
     "than two children under 8.", "An adult must be in the water with a child under 8 at all times.", False),
    ("Each member may bring up to two guests a day free of charge, but guests must be signed in at the reception "
     "and cannot stay after 18:00.", "Guests must be signed in at the reception.", False),
    # the clause the claim restates keeps its own "may"
    (POOL_CHILDREN, "Children aged 8 to 11 swim without an adult in the water.", True),
    # not in a sentence that states no rule: "and there may be sharks" is a hedge of a report (nli-train)
    ("In Mumbai, both beaches are definitely a bad idea, and though the beaches in Chennai are cleaner, there may "
     "be sharks.", "There are sharks at the beaches in Chennai.", True),
])
def test_a_clause_of_a_sentence_of_rules_is_held_to_its_own_strength(evidence, claim, inflated):
    assert (ReasonCode.STRENGTH_INFLATION in codes(check_strength(evidence, claim))) is inflated


CANCELLATION = ("A course runs only if at least 6 students have enrolled, and if it does not run, students choose a full "
                "refund or another course. Cancelling in writing at least 14 days before the first lesson brings the "
                "fee back minus 20 euros.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # shown over corpus g: the whole of what the evidence gives back less an amount; its "full refund" is of another
    # thing (a course that does not run)
    ("If you cancel in writing 14 or more days before the first lesson, you get the whole fee back.", True),
    ("If you cancel in writing 14 or more days before the first lesson, you get the fee back minus 20 euros.", False),
    ("If a course does not run, students can choose a full refund.", False),
])
def test_the_whole_of_what_the_evidence_gives_less_an_amount_is_a_number_mismatch(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(CANCELLATION, claim))) is mismatch


LOCKERS = ("Dormitory guests must be at least 18, children aged 3 to 17 may stay only in a private room, and children "
           "under 3 stay free. Each dormitory bed has a locker, but guests must bring a padlock or buy one at "
           "reception for 5 euros.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # shown over corpus g: an amount of money is not borne out by a bare number of something else (an age) where the
    # evidence states its amounts in that currency
    (LOCKERS, "You can buy a padlock at reception for 3 euros.", True),
    (LOCKERS, "You can buy a padlock at reception for 5 euros.", False),
    # a bare number that shares the currency of the amount beside it
    ("Course books cost 3 or 5 euros each.", "Course books cost 3 euros.", False),
    ("Towels cost $4-6 a day.", "Towels cost $6 a day.", False),
    # nor a count by a length of time, where the evidence counts the same thing otherwise
    ("You may not join a course more than one level above your result, but you may move down a level within the "
     "first two weeks.", "You can join a course up to two levels above your result.", True),
    # the word after a number is not always what it counts (nli-train: "at age 57 due to" over "57 years of age")
    ("She died last Friday due to complications with diabetes; she was only 57 years of age.",
     "She passed away at age 57 due to complications with diabetes.", False),
])
def test_a_number_of_another_measure_does_not_bear_out_a_claimed_value(evidence, claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


PRICES_INCLUDE = "All prices include VAT, Wi-Fi, coffee and tea, but printing is charged at 10 cents a page."


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # shown over corpus g: "extra" says "not included" where the other side says "included"
    ("A standard course costs 240 euros, and course books, from 25 to 35 euros, are extra.",
     "The course book is included in the course fee.", True),
    ("A standard course costs 240 euros, and course books, from 25 to 35 euros, are extra.",
     "Course books are not included in the course fee.", False),
    # where the sentence says "not included" in so many words, its "extra" restates it (corpus f's lie was shown when
    # the two counted as two negations)
    ("The sauna is not included in any ticket and costs 6 euros extra.",
     "Use of the sauna is included in the adult ticket.", True),
    # shown over corpus e: "charged" says so too ("..., but printing is charged at 10 cents a page")
    (PRICES_INCLUDE, "Printing is included in all prices.", True),
    (PRICES_INCLUDE, "Printing isn't included in the prices.", False),
    (PRICES_INCLUDE, "All prices include VAT, Wi-Fi, coffee and tea.", False),
    ("Breakfast is included in the room rate; parking is charged at 12 euros a night.", "Breakfast is included in "
     "the room rate.", False),
])
def test_extra_says_not_included(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim", "drift"), [
    # shown over corpus g: "as often as you need" where the sentence bounds it
    ("Missed lessons cannot be made up, except by joining a parallel class at the same level, at most twice per "
     "course.", "You can make up missed lessons in a parallel class as often as you need to.", True),
    # the evidence says so itself
    ("Cars may come as often as they like, but vans need a permit.", "You can come by car as often as you want.",
     False),
])
def test_as_often_as_you_like_where_the_sentence_bounds_it_is_qualifier_drift(evidence, claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(evidence, claim))) is drift


FEES = ("Employers paying for 3 or more staff get 10% off each course, but not off the registration fee. Each new "
        "student pays a one-off registration fee of 15 euros, which returning students do not pay again.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # shown over corpus g: read over two sentences, each negated, one "not" evened out the other's
    (FEES, "Returning students pay the 15 euro registration fee again for every course.", True),
    (FEES, "An employer who pays for at least 3 members of staff gets 10% off each course and off the registration "
           "fee.", True),
    (FEES, "Returning students do not pay the registration fee again.", False),
    # where only one of the two is negated, the pair's polarity stands: "can be renewed ..., unless another member
    # has reserved the item" is the "cannot ... if" of the claim (corpus d), and the claim draws on both sentences
    ("A loan can be renewed twice online or at the desk, unless another member has reserved the item. New releases "
     "are lent for two weeks and cannot be renewed.", "A loan cannot be renewed if another member has reserved the "
                                                       "item.", False),
    ("All of the houses on Reynolds Road have roofs made of shingles. No shingles are purple.",
     "None of the houses on Reynolds Road have purple roofs.", False),
])
def test_the_sentence_of_a_pair_that_holds_the_claim_is_held_to_its_own_polarity(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


@pytest.mark.parametrize(("claim", "mismatch"), [
    # refused over corpus g: a bound in another unit of time is compared in the claim's unit
    ("The hostel keeps bags for no longer than a week.", False),
    ("The hostel keeps bags for up to 7 days.", False),
    ("The hostel keeps bags for no longer than two weeks.", True),
    ("Bags are kept for up to 10 days.", True),
])
def test_a_bound_in_another_unit_of_time_is_compared_in_the_claims_unit(claim, mismatch):
    evidence = "Bags are kept for at most 7 days, and neither bicycles nor surfboards can be stored."
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


def test_a_length_in_another_unit_that_bounds_nothing_bears_out_no_bound():
    # corpus f's lie, shown by the first version of the unit comparison: the "one day" is a day's rental
    evidence = ("Bookings can be cancelled free of charge up to 48 hours before the collection time. A later "
                "cancellation costs one day's rental.")
    assert ReasonCode.NUMBER_MISMATCH in codes(check_numbers(
        evidence, "Bookings can be cancelled free of charge up to 24 hours before collection."))


def test_the_sentence_of_a_pair_that_holds_the_claim_frees_it_of_the_other_sentences_negation():
    # over corpus g: the pair's two negations ("not a complete beginner", "may not join") evened out, and the claim's
    # own "can't" was read against them; the sentence it restates has one, as the claim does (the wording is still
    # refused, by an atom read over the pair)
    evidence = ("Everyone who is not a complete beginner takes a free 45-minute placement test, online or at the "
                "school. You may not join a course more than one level above your result, but you may move down a "
                "level free within the first two weeks.")
    assert not negation_mismatch(evidence, "You can't enrol in a course more than one level above your placement "
                                           "result, but within the first two weeks you can move down a level at no "
                                           "charge.")
    assert negation_mismatch(evidence, "You can enrol in a course more than one level above your placement result, "
                                       "and within the first two weeks you can move down a level at no charge.")


BREAKFAST = "Breakfast, served from 7:30 to 10:00, costs 7.50 euros, or 4 euros for children under 12."


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # shown over corpus g: "free" where the sentence gives a price and calls nothing free
    (BREAKFAST, "Breakfast is free for children under 12.", True),
    (BREAKFAST, "Breakfast costs nothing for children under 12.", True),
    (BREAKFAST, "Children under 12 pay 4 euros for breakfast.", False),
    ("A single swim costs 5.50 euros for adults, and children under 4 swim free.", "Under-4s swim free.", False),
    ("Towels cost 2 euros, and guests may bring their own.", "You are free to bring your own towels.", False),
    # corpus f: "is not charged extra" says it costs nothing
    ("A car returned up to 29 minutes late is not charged extra, but from 30 minutes to 3 hours late each started "
     "hour costs 15 euros.", "Returning the car up to 29 minutes late costs nothing extra.", False),
])
def test_free_where_the_sentence_gives_a_price_is_a_number_mismatch(evidence, claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


INDUCTION = ("Everyone must complete a 20-minute safety induction before climbing for the first time, which is free for "
             "bouldering but costs 15 euros for the roped walls.")
CLOAKROOM = "Bags larger than 40 by 30 centimetres must be left in the cloakroom, which is free for coats but costs 2 euros per bag."
LOST_PERMIT = ("A lost permit is replaced for 12 euros, but a stolen one is replaced free if it was reported to the "
               "police with a reference number.")
MONTHLY = ("Monthly membership costs 58 euros, or 45 euros for students with a valid student card, and includes "
           "unlimited entry, free shoe hire and two free guest passes a year.")
HIRE = ("Climbing shoes cost 4 euros to hire and a chalk bag 2 euros, while harnesses and belay devices are lent free "
        "with every pass.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # shown over corpus h: "free" said of what the sentence prices in a clause of its own, beside what it calls free
    (INDUCTION, "The safety induction is free for both bouldering and the roped walls.", True),
    (CLOAKROOM, "The cloakroom is free for both coats and bags.", True),
    (LOST_PERMIT, "A lost permit is replaced free of charge.", True),
    (HIRE, "Climbing shoes can be hired free of charge.", True),
    # what the sentence calls free, said free; the price said of what it prices
    (INDUCTION, "The safety induction is free for bouldering.", False),
    (INDUCTION, "Before you climb for the first time you have to do a 20-minute safety induction, which costs nothing "
                "for bouldering but 15 euros for the roped walls.", False),
    (CLOAKROOM, "The cloakroom charges 2 euros per bag but nothing for coats.", False),
    (LOST_PERMIT, "A stolen permit is replaced free if it was reported to the police.", False),
    (HIRE, "Harnesses and belay devices come free with any pass, but hiring shoes costs 4 euros and a chalk bag 2 "
           "euros.", False),
    # "free" before a noun calls that noun free, not the subject the sentence prices (refused over corpus h)
    (MONTHLY, "Monthly membership gets you unlimited entry, free shoe hire and two free guest passes a year.", False),
    (MONTHLY, "Students with a valid card get free monthly membership.", True),
    (MONTHLY, "Monthly membership is free for students with a valid student card.", True),
])
def test_free_where_the_sentence_prices_it_beside_what_it_calls_free_is_a_number_mismatch(evidence, claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


SENIOR_VISITORS = ("A visitor permit costs 3 euros and can be used only in the household's own zone. Residents aged 70 "
                   "or over get their first 20 visitor permits each year free.")


@pytest.mark.parametrize(("evidence", "claim"), [
    # refused over corpus h: "costs nothing", "don't cost anything" say free, and the sentence's "free" denies nothing
    (INDUCTION, "A 20-minute safety induction costs nothing for bouldering."),
    (SENIOR_VISITORS, "If you're 70 or older, your first 20 visitor permits each year don't cost anything."),
    (SENIOR_VISITORS, "Residents aged 70 or over pay nothing for their first 20 visitor permits each year."),
    ("Children under 4 travel at no cost.", "Children under 4 travel free."),
    # corpus f: "is not charged extra" says so too
    ("A car returned up to 29 minutes late is not charged extra, but from 30 minutes to 3 hours late each started "
     "hour costs 15 euros.", "Returning the car up to 29 minutes late costs nothing extra."),
])
def test_costs_nothing_says_free(evidence, claim):
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(evidence, claim))


@pytest.mark.parametrize(("claim", "mismatch"), [
    # refused over corpus h: "can't ... until you're 14" says what "only ... aged 14 or over" says
    ("You can't take the lead test until you're 14.", False),
    ("Climbers cannot take the lead test until they are 14.", False),
    # a denial without "until" still denies
    ("You can't take the lead test.", True),
    ("Lead climbing is not allowed after passing the lead test.", True),
])
def test_not_until_restates_only(claim, mismatch):
    assert negation_mismatch(LEAD_TEST, claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim"), [
    # said free of what the sentence prices: the number check reads it, having no negation to read
    (SENIOR_VISITORS, "Visitor permits don't cost anything."),
    (SENIOR_VISITORS, "A visitor permit costs nothing."),
    (INDUCTION, "The safety induction doesn't cost anything for the roped walls."),
])
def test_costs_nothing_of_what_the_sentence_prices_is_still_caught(evidence, claim):
    assert codes(run_checks(evidence, claim)) & {ReasonCode.NUMBER_MISMATCH, ReasonCode.NEGATION_MISMATCH}


LEAD_TEST = ("Lead climbing is allowed only after passing a separate lead test, which costs 20 euros and is open only "
             "to climbers aged 14 or over.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # refused over corpus h: the lead test's "20 euros" made euros a unit of the claim's "20-minute", and the
    # induction's "15 euros" another value of it
    ("A 20-minute safety induction costs nothing for bouldering.", False),
    ("A 20-minute safety induction costs 15 euros for the roped walls.", False),
    ("A 15-minute safety induction costs nothing for bouldering.", True),
    ("The lead test costs 15 euros.", True),
])
def test_the_same_number_in_another_unit_gives_the_claimed_value_no_unit(claim, mismatch):
    evidence = f"## Induction and age limits\n{INDUCTION} {LEAD_TEST}"
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


CHECK_OUT = ("Check-out is by 10:30, and late check-out until 13:00 costs 8 euros, but not on Fridays or Saturdays.")


@pytest.mark.parametrize("claim", [
    # shown over corpus g: every day where the sentence restated leaves days out
    "Late check-out until 13:00 costs 8 euros and is available on every day of the week.",
    "Late check-out until 13:00 is possible any day for 8 euros.",
    "Late check-out until 13:00 costs 8 euros, seven days a week.",
])
def test_every_day_where_the_sentence_leaves_days_out_is_a_timeframe_drift(claim):
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(CHECK_OUT, claim))


@pytest.mark.parametrize(("evidence", "claim"), [
    (CHECK_OUT, "Late check-out until 13:00 costs 8 euros, except on Fridays and Saturdays."),
    ("The museum is open from Monday to Sunday, 9:00 to 17:00.", "The museum is open every day of the week."),
    ("The pool is open every day, and on Sundays until 14:00.", "The pool is open every day."),
    ("The cafe opens every day at 8:00, including Saturdays and Sundays.", "The cafe opens at 8:00 every day."),
])
def test_every_day_said_by_the_evidence_or_its_days_kept_is_no_drift(evidence, claim):
    assert ReasonCode.QUALIFIER_DRIFT not in codes(check_qualifiers(evidence, claim))


BOOKING = "You can book online, by phone or at reception, but the 10% discount applies only to online bookings."
INSTALMENTS = ("The fee is due in full before the first lesson, unless you pay in three monthly instalments of 85 "
               "euros, which is allowed only for standard courses and only by direct debit.")
CHILDREN = ("Dormitory guests must be at least 18, children aged 3 to 17 may stay only in a private room with a "
            "parent or guardian, and children under 3 stay free.")


@pytest.mark.parametrize(("evidence", "claim"), [
    # shown over corpus g: what the sentence allows only one way, said of another too or instead
    (BOOKING, "You get the 10% discount if you book online or by phone."),
    (BOOKING, "The 10% discount applies to bookings made by phone or online."),
    (INSTALMENTS, "A conversation course can also be paid in three monthly instalments."),
    (CHILDREN, "Children aged 3 to 17 can stay in a dormitory if a parent or guardian sleeps in the same room."),
])
def test_what_the_sentence_allows_only_one_way_said_of_another_is_a_qualifier_drift(evidence, claim):
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(evidence, claim))


@pytest.mark.parametrize(("evidence", "claim"), [
    (BOOKING, "You get the 10% discount only if you book online, not when you book by phone or at reception."),
    (BOOKING, "You can book online, by phone or at reception."),
    (BOOKING, "The 10% discount applies to online bookings."),
    (INSTALMENTS, "A standard course can be paid in three monthly instalments of 85 euros by direct debit."),
    (CHILDREN, "Children aged 3 to 17 can stay in a private room with a parent or guardian."),
    ("Alcohol is allowed only in the bar and on the terrace.", "You can drink alcohol in the bar or on the terrace."),
    ("Parking is free only for electric cars.", "Electric cars park free."),
])
def test_what_the_sentence_allows_only_one_way_said_so_is_no_drift(evidence, claim):
    assert ReasonCode.QUALIFIER_DRIFT not in codes(check_qualifiers(evidence, claim))


APPLYING = ("Applications can be made only online, and a first permit is issued within 10 working days, during which the "
            "applicant may park in the zone by displaying the printed confirmation email. Applicants must upload a "
            "council tax bill or tenancy agreement dated within the last 3 months, together with the car's "
            "registration certificate. A change of car costs 12 euros and is made online, but a move to another zone "
            "needs a new application and a new fee.")


VISITOR_PERMITS = ("Every household in a zone may buy up to 60 visitor permits a year, whether or not it holds a "
                   "resident permit.")


@pytest.mark.parametrize(("claim", "drift"), [
    # over corpus h: a condition on what the sentence says makes no difference (a broken atom had caught it)
    ("Every household in a zone may buy up to 60 visitor permits a year, but only if it holds a resident permit.", True),
    ("A household can buy visitor permits if it has a resident permit.", True),
    ("Households can buy up to 60 visitor permits a year even if they don't have a resident permit.", False),
    ("A household may buy visitor permits whether or not it holds a resident permit.", False),
    ("A household can buy up to 60 visitor permits a year if it is in a zone.", False),
])
def test_a_condition_on_what_the_sentence_says_makes_no_difference_is_a_qualifier_drift(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(VISITOR_PERMITS, claim))) is drift


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus h: a concession ("even if they don't ...", "even without ...") restates "whether or not" and what
    # anyone may do; its negation is no denial
    (VISITOR_PERMITS, "Households can buy up to 60 visitor permits a year even if they don't have a resident permit.",
     False),
    (VISITOR_PERMITS, "Households cannot buy visitor permits, even if they don't have a resident permit.", True),
    ("Outside controlled hours anyone may park in the permit bays free of charge.",
     "Outside the controlled hours you can park in the permit bays for free, even without a permit.", False),
    ("Outside controlled hours anyone may park in the permit bays free of charge.",
     "Outside the controlled hours you cannot park in the permit bays, even without a permit.", True),
    # not where the sentence leaves nobody free to ("only residents may park")
    ("Outside controlled hours only residents may park in the permit bays.",
     "Outside the controlled hours you can park in the permit bays, even without a permit.", True),
])
def test_a_concession_s_negation_is_no_denial(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


def test_no_matter_whether_is_no_negation():
    # over corpus h: the "no" of "no matter whether" denied the claim
    evidence = ("Cars emitting more than 225 grams of CO2 per kilometre pay 50% more, while fully electric cars pay 45 "
                "euros a year whether the permit is the first, second or third.")
    assert not negation_mismatch(evidence, "A fully electric car's permit is 45 euros a year no matter whether it's "
                                           "your first, second or third.")
    assert negation_mismatch(evidence, "A fully electric car's permit is not 45 euros a year, no matter whether it's "
                                       "your first, second or third.")
    # nor that of "it doesn't make any difference", which says the same (MNLI: it had evened out "no matter")
    assert not negation_mismatch("You ski adjacent to the cliffs, and it doesn't make any difference how windy it is, "
                                 "you don't notice it.", "No matter how windy it is, you won't notice as you ski "
                                                         "adjacent to the cliffs.")


WHEELCHAIR = ("Wheelchair users pay the standard price and bring one companion free, but the companion's seat must be "
              "booked by phone or at the box office.")
SCRATCH_CARDS = ("Visitor permits are activated online or by text message before the car is parked, and paper scratch "
                 "cards are available only to residents aged 70 or over or to those without a mobile phone.")


@pytest.mark.parametrize(("evidence", "claim", "drift"), [
    # shown over corpus h: a way of doing it the sentence's "must" leaves out, and anyone where "only" names a group
    (WHEELCHAIR, "A wheelchair user's companion goes free and can be booked online.", True),
    (WHEELCHAIR, "The companion's seat can be booked at the ticket desk.", True),
    (WHEELCHAIR, "The companion's seat has to be booked by phone or at the box office.", False),
    (WHEELCHAIR, "A wheelchair user's companion goes free.", False),
    # a verb with its particle ("signed in") is not done another way (corpus e: a first version read "in ... leave")
    ("Each member may bring up to two guests a day free of charge, but guests must be signed in at the reception and "
     "cannot stay after 18:00.", "Members can bring up to two guests a day for free, but the guests must be signed in "
                                 "and leave by 18:00.", False),
    (SCRATCH_CARDS, "Anyone can ask for paper scratch cards instead of activating visitor permits online.", True),
    (SCRATCH_CARDS, "Paper scratch cards are available to residents aged 70 or over and to those without a mobile "
                    "phone.", False),
])
def test_a_way_or_a_group_the_sentence_leaves_out_is_a_qualifier_drift(evidence, claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(evidence, claim))) is drift


ZONES = ("Tarnbury has six permit zones, A to F, and in zones A to D the controls apply from 8:00 to 20:00 Monday to "
         "Saturday, while in zones E and F they apply from 9:00 to 17:00 on weekdays only.")


@pytest.mark.parametrize(("claim", "drift"), [
    # shown over corpus h: the days of the other clause given to the clause that holds the claim's times
    ("In zones E and F the controls apply from 9:00 to 17:00 Monday to Saturday.", True),
    ("In zones E and F the controls apply from 9:00 to 17:00 on Saturdays too.", True),
    ("In zones A to D the controls run from 8:00 to 20:00 Monday to Saturday, whereas in zones E and F they only run "
     "from 9:00 to 17:00 on weekdays.", False),
    ("In zones A to D the controls apply from 8:00 to 20:00 Monday to Saturday.", False),
    ("In zones E and F the controls apply from 9:00 to 17:00 from Monday to Friday.", False),
])
def test_a_day_the_clause_holding_the_claims_times_leaves_out_is_a_timeframe_drift(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(ZONES, claim))) is drift


ZONE_PERMITS = ("A permit is valid only in its own zone, except that permits for zones C and D are valid in both of "
                "those zones.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # shown over corpus h: things named by a letter ("zones C and D") given other letters; the name check reads no
    # single letter, and the verifier entails it
    (ZONE_PERMITS, "A permit is valid only in its own zone, except that permits for zones A and B are valid in both of "
                   "those zones.", True),
    (ZONE_PERMITS, "A zone C permit also lets you park in zone D.", False),
    (ZONE_PERMITS, "Permits for zones C and D are valid in both zones.", False),
    (ZONES, "In zone B the controls apply from 8:00 to 20:00 Monday to Saturday.", False),
    (ZONES, "In zone G the controls apply from 8:00 to 20:00 Monday to Saturday.", True),
])
def test_a_thing_named_by_another_letter_is_a_number_mismatch(evidence, claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


JOINING = "Every new member pays a one-off joining fee of 25 euros, except those who join in January, who pay none."


@pytest.mark.parametrize(("claim", "mismatch"), [
    # over corpus h: the claim's own exception restates the sentence's, whose "none" is said of the excepted only
    ("New members pay a one-off 25 euro joining fee, unless they join in January.", False),
    ("Every new member pays a joining fee of 25 euros, except those who join in January.", False),
    ("New members pay no joining fee, unless they join in January.", True),
    ("New members do not pay a joining fee, except those who join in January.", True),
])
def test_an_exception_the_claim_shares_with_the_sentence_is_read_apart(claim, mismatch):
    assert negation_mismatch(JOINING, claim) is mismatch


def test_what_the_claim_says_of_the_excepted_is_still_read():
    # a first version read the claim's exception apart whatever followed it, and showed this lie of corpus h
    assert negation_mismatch("Climbing shoes must be worn on the walls, except in the children's area, where clean "
                             "trainers are allowed, and bare feet are never allowed.",
                             "Climbing shoes must be worn on the walls, except in the children's area, where bare feet "
                             "are allowed.")


def test_a_restriction_of_another_sentence_than_the_best_one_is_still_read():
    # shown over corpus h: "council" and "made online" drew the claim to two pairs of sentences alike, and the pair
    # read was the one without the sentence that allows applications only online
    assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(
        APPLYING, "Applications can be made online or at the council offices."))
    assert ReasonCode.QUALIFIER_DRIFT not in codes(check_qualifiers(APPLYING, "You can only apply online."))
    assert ReasonCode.QUALIFIER_DRIFT not in codes(check_qualifiers(
        APPLYING, "A change of car is made online or at the council offices."))


CLASS_SIZES = "Classes have at most 12 students, and conversation classes at most 8."


def test_a_count_given_to_the_subject_of_a_part_without_a_verb_that_gives_another_is_a_number_mismatch():
    # shown over corpus g: the 12 of classes given to the conversation classes, whose part gives 8
    for evidence in (CLASS_SIZES, f"{CLASS_SIZES} A course runs for 12 weeks."):  # a 12 of another measure beside
        assert ReasonCode.NUMBER_MISMATCH in codes(
            check_numbers(evidence, "A conversation class can have up to 12 students.")), evidence


@pytest.mark.parametrize("claim", [
    "A conversation class has no more than 8 students.",
    "Classes can have up to 12 students.",
    "A class has at most 12 students.",
])
def test_a_count_given_to_the_part_that_gives_it_is_no_mismatch(claim):
    assert ReasonCode.NUMBER_MISMATCH not in codes(check_numbers(CLASS_SIZES, claim))


HOSTEL_CANCELLATION = ("Standard bookings can be cancelled free until 18:00 on the day before arrival, and a later "
                "cancellation or a no-show costs the first night.")


def test_the_day_of_what_the_evidence_gives_the_day_before_is_a_timeframe_drift():
    # shown over corpus g: "the day you arrive" for "the day before arrival"
    for claim in ("A standard booking can be cancelled at no cost until 18:00 on the day you arrive.",
                  "Standard bookings can be cancelled free until 18:00 on the day of arrival."):
        assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(HOSTEL_CANCELLATION, claim)), claim


@pytest.mark.parametrize(("evidence", "claim"), [
    (HOSTEL_CANCELLATION, "A standard booking can be cancelled at no cost up to 18:00 the day before you arrive."),
    (HOSTEL_CANCELLATION + " Check-in on the day of arrival is from 14:00.", "You can check in from 14:00 on the day you "
                                                                     "arrive."),
])
def test_the_day_before_kept_or_the_day_of_said_too_is_no_drift(evidence, claim):
    assert ReasonCode.QUALIFIER_DRIFT not in codes(check_qualifiers(evidence, claim))


LESSON_REFUNDS = ("Cancelling in writing at least 14 days before the first lesson brings the fee back minus 20 euros. After "
           "that and until the second lesson, half the fee is refunded, and after the second lesson nothing is. The "
           "registration fee and books are never refunded, and books written in cannot be returned.")


def test_what_another_sentence_says_is_never_done_said_of_its_subject_is_a_negation_mismatch():
    # shown over corpus g: read over the sentence of the 14 days, the sentence that denies it not read
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(
        LESSON_REFUNDS, "The registration fee is refunded if you cancel at least 14 days before the first lesson."))


@pytest.mark.parametrize(("evidence", "claim"), [
    (LESSON_REFUNDS, "If you cancel in writing at least 14 days before the first lesson, you get your fee back except for "
              "20 euros."),
    (LESSON_REFUNDS, "Until the second lesson, half the fee is refunded."),
    (LESSON_REFUNDS, "The registration fee is never refunded."),
    ("Bikes are allowed in the yard. The shed is locked at night, and bikes are never allowed in the rooms.",
     "Bikes are allowed in the yard."),
    ("Deposits are refunded within a week. Deposits are never refunded, unless the room is damaged.",
     "Deposits are refunded within a week."),
])
def test_what_another_sentence_denies_only_so_far_or_the_claim_denies_too_is_no_mismatch(evidence, claim):
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(evidence, claim))


def test_a_no_show_is_not_turning_up():
    # refused over corpus g: "don't turn up" for "a no-show", each a negation
    evidence = HOSTEL_CANCELLATION
    for claim in ("If you cancel later or don't turn up, you pay for the first night.",
                  "A no-show costs the first night."):
        assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(evidence, claim)), claim
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(evidence, "A no-show does not cost the first night."))


MAKE_UP = ("Missed lessons cannot be made up, except by joining a parallel class at the same level, at most twice per "
           "course.")


def test_the_exception_of_a_denial_restated_with_a_bound_of_its_own_is_no_negation_mismatch():
    # refused over corpus g: the claim's "no more than" is the sentence's "at most", not a negation of the claim
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(
        MAKE_UP, "You can make up a missed lesson only by joining a parallel class at the same level, and no more than "
                 "twice in a course."))
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(
        MAKE_UP, "You can make up a missed lesson only by joining a parallel class at the same level."))
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(MAKE_UP, "Missed lessons can be made up."))


LEVELS = ("Everyone who is not a complete beginner takes a free 45-minute placement test, online or at the school. You "
          "may not join a course more than one level above your result, but you may move down a level free within the "
          "first two weeks.")


def test_the_sentence_of_a_negated_pair_is_found_by_the_claims_words_less_its_negation():
    # refused over corpus g: the claim's "can't" counted as one of the words the sentence must hold
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(
        LEVELS, "You can't enrol in a course more than one level above your placement result."))
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(
        LEVELS, "You can enrol in a course more than one level above your placement result."))


def test_a_no_show_says_not_only_where_the_other_side_says_turning_up():
    # the clause of a rule beside a no-show is read on its own; and "neither arrived nor called" is the no-show's own
    # negation, which the sentence states itself
    no_show = ("A guest who has neither arrived nor called by midnight is a no-show, and the rest of the booking is "
               "cancelled.")
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(
        HOSTEL_CANCELLATION, "A standard booking can be cancelled at no cost up to 18:00 the day before you arrive."))
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(
        no_show, "Guests who have neither arrived nor called by midnight lose the rest of their booking."))


def test_what_a_claims_only_leaves_out_said_with_not_is_no_second_negation_where_the_sentence_restricts_too():
    # refused over corpus g: ", not when you book by phone" restates what the sentence's "only" leaves out
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(
        BOOKING, "You get the 10% discount only if you book online, not when you book by phone or at reception."))
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(
        "You can book online, by phone or at reception, and the 10% discount applies to online bookings.",
        "You get the 10% discount only if you book online, not when you book by phone or at reception."))


def test_what_a_claims_only_leaves_out_said_with_not_counts_where_the_sentence_says_it_with_never():
    # corpus e's faithful wording, refused by a first version
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(
        "Hoses may be used only to fill water butts, never to water a plot directly, and sprinklers are banned at all "
        "times.", "Hoses may only be used to fill water butts, not to water plots directly."))


TOURIST_TAX = "A private double room costs 79 euros a night all year. A tourist tax of 2.50 euros per night is added for "\
              "each guest aged 16 or over."


def test_every_one_of_whom_the_sentence_gives_an_age_limit_is_a_population_drift():
    # shown over corpus g: "every guest" where the sentence adds the tax for each guest aged 16 or over
    for claim in ("The tourist tax of 2.50 euros per night is added for every guest, children included.",
                  "All guests pay a tourist tax of 2.50 euros per night."):
        assert ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(TOURIST_TAX, claim)), claim


@pytest.mark.parametrize("claim", [
    "Guests aged 16 or over pay 2.50 euros tourist tax per night on top.",
    "Every guest aged 16 or over pays a tourist tax of 2.50 euros per night.",
    "A tourist tax of 2.50 euros a night is added for each guest who is 16 or older.",
])
def test_the_age_limit_kept_is_no_population_drift(claim):
    assert ReasonCode.QUALIFIER_DRIFT not in codes(check_qualifiers(TOURIST_TAX, claim))


EMERGENCY_FEE = ("An emergency visit costs a flat fee of 60 euros plus any treatment, except for registered patients "
                 "under 18, who pay nothing.")


@pytest.mark.parametrize(("claim", "drift"), [
    # over corpus e: "all patients under 18" where the sentence says it of registered patients under 18
    ("Emergency visits are free for all patients under 18.", True),
    ("Every patient under 18 gets an emergency visit free of charge.", True),
    ("Emergency visits are free for registered patients under 18.", False),
    ("All registered patients under 18 pay nothing for an emergency visit.", False),
    ("An emergency visit costs a flat fee of 60 euros plus any treatment.", False),
])
def test_every_one_of_whom_the_sentence_says_it_of_some_is_a_population_drift(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(EMERGENCY_FEE, claim))) is drift


MEETING_HOURS = ("Flex members get 2 free meeting room hours a month and Resident members get 8, and every further "
                 "hour costs 20 euros.")


def test_a_count_given_to_the_subject_of_the_clause_beside_is_a_number_mismatch():
    # shown over corpus e: the 8 of the Resident members' clause given to Flex members
    assert ReasonCode.NUMBER_MISMATCH in codes(check_numbers(MEETING_HOURS,
                                                             "Flex members get 8 free meeting room hours a month."))


@pytest.mark.parametrize("claim", [
    "Resident members get 8 free meeting room hours a month.",
    "Flex members get 2 free meeting room hours a month.",
    "Every meeting room hour beyond the free ones costs 20 euros.",
])
def test_a_count_given_to_the_subject_of_its_own_clause_is_no_mismatch(claim):
    assert ReasonCode.NUMBER_MISMATCH not in codes(check_numbers(MEETING_HOURS, claim))


def test_a_denying_word_for_another_of_its_kind_is_no_negation_where_the_sentence_allows_something_else():
    # refused over corpus g: "banned" counted as "not allowed" for the sentence's "allowed" (of alcohol), while the
    # sentence's own "forbidden" (of smoking) was not
    evidence = ("Alcohol is allowed only in the bar and on the terrace, and smoking, e-cigarettes included, is forbidden "
                "everywhere indoors.")
    assert ReasonCode.NEGATION_MISMATCH not in codes(check_negation(
        evidence, "Smoking is banned everywhere indoors, e-cigarettes too."))
    assert ReasonCode.NEGATION_MISMATCH in codes(check_negation(
        evidence, "Smoking is allowed everywhere indoors, e-cigarettes too."))


TEN_VISIT = ("A ten-visit card costs 140 euros, is valid for 12 months from the first visit and may be shared with "
             "family members but not with friends.")
ANNUAL = ("An annual membership costs 590 euros paid at once and cannot be cancelled or refunded, except on medical "
          "grounds with a doctor's note.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # over corpus h: the negation of another verb phrase of the subject ("... and may be shared ... but not with
    # friends", "... and cannot be cancelled") was read as the claim's
    (TEN_VISIT, "A ten-visit card costs 140 euros.", False),
    (TEN_VISIT, "A ten-visit card lasts 12 months from your first visit.", False),
    (TEN_VISIT, "A ten-visit card may be shared with family members but not with friends.", False),
    (TEN_VISIT, "A ten-visit card may be shared with friends.", True),
    (TEN_VISIT, "A ten-visit card does not cost 140 euros.", True),
    (ANNUAL, "The annual membership costs 590 euros up front.", False),
    (ANNUAL, "An annual membership can be cancelled.", True),
    (ANNUAL, "An annual membership cannot be cancelled.", False),
    # two verb phrases that hold as much of the claim (its subject) tell nothing apart: the sentence is read whole, and
    # its "unpredictable" still says what the claim's "predictable" denies (nli-train)
    ("The Santa Clause 2: The site 's consensus is that `` Though it 's harmless as family entertainment and has "
     "moments of charm , The Santa Clause 2 is also unpredictable and unforgettable . ''",
     "The Santa Clause 2 has been described as predictable .", True),
])
def test_the_negation_of_another_verb_phrase_of_the_subject_is_not_the_claims(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


# ---- corpus i (the thirteenth held-out round): lies shown verified on its first run

UNIT_PRICES = ("Keelbrook Self Storage offers indoor units of 25, 50, 75 and 100 square feet, which cost £18, £32, "
               "£45 and £58 a week respectively, and outdoor containers of 160 square feet, which cost £52 a week.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    ("A 50-square-foot indoor unit costs £45 a week.", True),
    ("A 50-square-foot indoor unit costs £32 a week.", False),
    ("The 100 square foot units cost £58 a week.", False),
    ("The 25 square foot units cost £58 a week.", True),
    ("Indoor units cost from £18 to £58 a week.", False),  # values of one list only: nothing paired
])
def test_values_given_respectively_are_paired_by_their_place_in_the_lists(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(UNIT_PRICES, claim))) is mismatch


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # booking opens a window ("booked up to 14 days ahead": at most 14 days ahead); cancelling meets a deadline
    ("Craft can be booked online up to 14 days ahead, and a 25% deposit is taken at the time of booking.",
     "Online bookings have to be made at least 14 days ahead.", True),
    ("Craft can be booked online up to 14 days ahead, and a 25% deposit is taken at the time of booking.",
     "You can book online up to 14 days ahead.", False),
    ("Craft can be booked online up to 14 days ahead, and a 25% deposit is taken at the time of booking.",
     "You can book online at most 14 days ahead.", False),
    ("You can cancel a booking free of charge up to 48 hours before the start.",
     "You can cancel for free as long as you do it at least 48 hours before the start.", False),
    # "the most ... is", "a maximum of": at most; "the minimum ... is", "a minimum of": at least
    ("The most our Protection Cover will insure is £50,000 per unit.",
     "Protection Cover will insure at least £50,000 per unit.", True),
    ("The most our Protection Cover will insure is £50,000 per unit.",
     "Protection Cover will insure up to £50,000 per unit.", False),
    ("Each room sleeps a maximum of 4 guests.", "Each room sleeps at least 4 guests.", True),
    ("Each room sleeps a maximum of 4 guests.", "Each room sleeps no more than 4 guests.", False),
    ("The minimum age for the lead course is 14.", "The lead course is open to climbers aged at least 14.", False),
    ("The minimum age for the lead course is 14.", "The lead course is open to climbers aged up to 14.", True),
])
def test_a_bound_the_evidence_words_otherwise_still_has_its_side(evidence, claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


VOUCHER = ("If we call craft back to shore during a hire, you receive a credit voucher for the unused time, valid for "
           "12 months, but not a cash refund.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "unused" negates "use" as "didn't use" does: their two negations pair off, and the cash refund stays denied
    ("If they call you back to shore during a hire, you get a cash refund for the time you didn't use.", True),
    ("If they call you back to shore, you get a credit voucher for the time you didn't use, but not a cash refund.",
     False),
    ("If you're called back to shore, you get a credit voucher for the unused time, but no cash refund.", False),
])
def test_a_negative_prefix_on_a_short_participle_negates_its_verb(claim, mismatch):
    assert negation_mismatch(VOUCHER, claim) is mismatch


@pytest.mark.parametrize(("claim", "mismatch"), [
    ("The prices you see for the units already include VAT.", True),
    ("The prices you see for the units don't include VAT.", False),
    ("Prices are quoted excluding VAT.", False),
])
def test_including_is_the_opposite_of_excluding(claim, mismatch):
    assert negation_mismatch("Prices are quoted excluding VAT, which is charged at 20% on all units.", claim) is mismatch


DOGS = ("Dogs are allowed in canoes only and must wear a dog buoyancy aid, which we hire out at £5, and no more than "
        "one dog may travel in each canoe.")
STORE_RULES = ("You must not store food or anything perishable, live animals or plants, firearms or ammunition, "
               "fireworks, gas bottles, paint thinners or any other flammable liquid, or anything illegal. ")
PETROL = ("Petrol-powered vehicles and machines such as cars, motorcycles and lawnmowers may be kept only in drive-up "
          "containers, and only if the fuel tank has been drained and the battery disconnected.")
NO_OFFICE = ("No unit may be used as an office, a workshop or a place to live, and you cannot run any electrical "
             "equipment in it, apart from the ceiling light fitted in indoor units.")


@pytest.mark.parametrize(("evidence", "claim", "drift"), [
    # "in canoes only": the restriction after what it restricts
    (DOGS, "Dogs are allowed in canoes and double kayaks, as long as they wear a dog buoyancy aid.", True),
    (DOGS, "Dogs are allowed in canoes, as long as they wear a dog buoyancy aid.", False),
    (DOGS, "Dogs can only go in canoes.", False),
    # "in any unit" where the sentence allows only "in drive-up containers"
    (PETROL, "Lawnmowers can be kept in any unit as long as the fuel tank's drained.", True),
    (PETROL, "Lawnmowers can be kept in every unit.", True),
    # read over the sentence and the next, whose "No unit" ties it with the sentence alone (corpus i)
    (f"{STORE_RULES}{PETROL} {NO_OFFICE}",
     "Petrol-powered machines like lawnmowers can go in any unit as long as the fuel tank's drained.", True),
    (PETROL, "Lawnmowers can be kept in drive-up containers as long as the fuel tank's drained.", False),
])
def test_a_claim_that_allows_more_than_the_one_way_the_sentence_allows_drifts(evidence, claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(evidence, claim))) is drift


OPENING = ("Saltmere Paddle Hire operates from the slipway at Saltmere Lake between 1 April and 31 October, opening "
           "from 9:30 am to 6:00 pm from Wednesday to Sunday and every day during the school summer holidays.")


@pytest.mark.parametrize(("claim", "drift"), [
    # the sentence's "every day" is of the summer holidays only
    ("They're open from 9:30 am to 6 pm every day between 1 April and 31 October.", True),
    ("They're open every day during the school summer holidays.", False),
    ("They're open from 9:30 am to 6 pm from Wednesday to Sunday.", False),
    ("Between April and October they open Wednesday to Sunday, and every day in the school summer holidays.", False),
])
def test_every_day_is_not_borne_out_by_an_every_day_of_another_time(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(OPENING, claim))) is drift


LATE_RENT = ("If rent is more than 7 days late, a late fee of £15 is charged, and after 14 days your gate access is "
             "suspended, while after 42 days we may sell or dispose of the contents after giving 14 days' written "
             "notice.")
NO_WORKSHOP = ("No unit may be used as an office, a workshop or a place to live, and you cannot run any electrical "
               "equipment in it, apart from the ceiling light fitted in indoor units.")


@pytest.mark.parametrize(("evidence", "claim", "inflated"), [
    # a modal after ", while" hedges its own clause (corpus i)
    (LATE_RENT, "After 14 days your gate access is suspended.", False),
    (LATE_RENT, "After 42 days they sell the contents.", True),
    (LATE_RENT, "After 42 days they may sell the contents.", False),
    # "No X may" is a rule, as "Nobody may" is
    (NO_WORKSHOP, "You mustn't use a unit as an office, a workshop or somewhere to live.", False),
    ("Dogs are allowed in canoes only, and no more than one dog may travel in each canoe.",
     "Only one dog can travel in each canoe.", False),
])
def test_a_modal_of_another_clause_or_of_a_rule_is_no_hedge(evidence, claim, inflated):
    assert (ReasonCode.STRENGTH_INFLATION in codes(check_strength(evidence, claim))) is inflated


@pytest.mark.parametrize(("evidence", "claim", "code", "found"), [
    # "24 hours a day" is around the clock, not a frequency
    ("The site is covered by CCTV recorded 24 hours a day, but recordings are kept for 31 days only.",
     "CCTV records around the clock, but the footage is only kept for 31 days.", ReasonCode.QUALIFIER_DRIFT, False),
    ("The site is covered by CCTV recorded during office hours, and recordings are kept for 31 days.",
     "CCTV records around the clock.", ReasonCode.QUALIFIER_DRIFT, True),
    # "X, otherwise Y": if not X, Y
    ("The unit must be left empty and swept clean, otherwise a cleaning charge of £40 is deducted from your deposit.",
     "If you don't leave the unit empty and swept clean, £40 is taken off your deposit for cleaning.",
     ReasonCode.NEGATION_MISMATCH, False),
    ("Start them in the spring, otherwise it gets too hot in the summer.",
     "You should start them in the spring if you want them to be cool in the summer.",
     ReasonCode.NEGATION_MISMATCH, False),  # a purpose, no "if not" (MNLI)
    # "closed" says "not open"
    ("Routine consultations are booked from Monday to Friday, while the practice is closed on Sundays and public "
     "holidays apart from emergency cover.", "The practice isn't open on Sundays.", ReasonCode.NEGATION_MISMATCH, False),
    ("Routine consultations are booked from Monday to Friday, while the practice is closed on Sundays and public "
     "holidays apart from emergency cover.", "The practice is open on Sundays.", ReasonCode.NEGATION_MISMATCH, True),
    # "in person" names no population
    ("Business customers may receive deliveries at their unit, but only if they are present to accept them, as our "
     "staff will not sign for parcels on anyone's behalf, and no live animals may be stored.",
     "Business customers can take deliveries at their unit only if they're there in person.",
     ReasonCode.QUALIFIER_DRIFT, False),
])
def test_corpus_i_wordings_of_the_same_fact(evidence, claim, code, found):
    assert (code in codes(run_checks(evidence, claim))) is found


PADDLE_AGES = ("Children under 8 may only go out in a double kayak or a canoe, sitting with an adult, and children aged "
               "8 to 15 may use a single kayak or a paddleboard only if an adult from their group is also on the water.")
PRICES_PER_HOUR = ("A single kayak costs £16 for the first hour, and each additional hour is charged at half the "
                   "first-hour price. The centre opens every day during the school summer holidays.")


@pytest.mark.parametrize(("evidence", "claim", "code", "found"), [
    # a negated "which" clause or a ", with no ..." the claim says nothing of is a statement of its own
    ("Every person going on the water must wear the buoyancy aid we provide, which cannot be swapped for one of "
     "their own.", "Everyone going on the water has to wear the buoyancy aid that's provided.",
     ReasonCode.NEGATION_MISMATCH, False),
    ("Every person going on the water must wear the buoyancy aid we provide, which cannot be swapped for one of "
     "their own.", "Everyone going on the water doesn't have to wear the buoyancy aid that's provided.",
     ReasonCode.NEGATION_MISMATCH, True),
    ("Emergencies are handled by Marrowby Pet Emergency Service, and a consultation there costs £165 before 11:00 pm, "
     "with no discount for plan members.", "A consultation at Marrowby Pet Emergency Service costs £165 before 11 pm.",
     ReasonCode.NEGATION_MISMATCH, False),
    ("Emergencies are handled by Marrowby Pet Emergency Service, and a consultation there costs £165 before 11:00 pm, "
     "with no discount for plan members.", "Plan members get a discount on a consultation there.",
     ReasonCode.NEGATION_MISMATCH, True),
    # "every hour after the first" is each further hour, no frequency
    (PRICES_PER_HOUR, "Every hour after the first is charged at half the first-hour rate.",
     ReasonCode.QUALIFIER_DRIFT, False),
    # a modifier of another noun across "and" is not the population's; "kids" are children
    (PADDLE_AGES, "Children under 8 can only go out in a double kayak or a canoe, sitting with an adult.",
     ReasonCode.QUALIFIER_DRIFT, False),
    (PADDLE_AGES, "Kids aged 8 to 15 can take a single kayak as long as an adult from their group is on the water too.",
     ReasonCode.QUALIFIER_DRIFT, False),
    (PADDLE_AGES, "Teenagers aged 8 to 15 can take a single kayak as long as an adult is on the water.",
     ReasonCode.QUALIFIER_DRIFT, True),
])
def test_corpus_i_wordings_of_the_same_fact_second_pass(evidence, claim, code, found):
    assert (code in codes(run_checks(evidence, claim))) is found


# ---- corpus j (the fourteenth held-out round): lies shown verified on its first run

DOGS_PER_PITCH = ("Dogs are welcome on touring pitches, with a maximum of two dogs per pitch at £3 per dog per night, "
                  "but no dogs may stay in the glamping pods.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # a count of a noun is no amount of money: "three dogs" is not borne out by "£3 per dog"
    ("Up to three dogs are allowed per touring pitch, at £3 per dog per night.", True),
    ("Up to two dogs are allowed per touring pitch, at £3 per dog per night.", False),
    ("Each dog costs £3 a night.", False),
])
def test_a_count_of_a_noun_is_not_borne_out_by_an_amount_of_money(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(DOGS_PER_PITCH, claim))) is mismatch


FLATS = "Residents of flats must leave their items in the bin store unless the building manager has agreed another spot."


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "unless X" exempts where X holds; "even if X" says it does not
    ("If you live in a flat, you have to leave your items in the bin store, even if the building manager has agreed "
     "another spot.", True),
    ("If you live in a flat, you have to leave your items in the bin store unless the building manager has agreed "
     "another spot.", False),
    ("Flat residents leave their items in the bin store, except where the building manager has agreed another spot.",
     False),
])
def test_even_if_is_the_opposite_of_unless(claim, mismatch):
    assert negation_mismatch(FLATS, claim) is mismatch


WORKSHOP_HOURS = ("The workshop is open Tuesday to Friday from 10 am to 9 pm and on Saturday and Sunday from 9 am to 5 pm, "
                  "and it is closed on Mondays and public holidays.")


@pytest.mark.parametrize(("claim", "drift"), [
    # a day the sentence says it is closed on is not a day it gives
    ("The workshop is open Monday to Friday from 10 am to 9 pm and from 9 am to 5 pm at weekends.", True),
    ("The workshop is open on Mondays from 10 am to 9 pm.", True),
    ("The workshop is open Tuesday to Friday from 10 am to 9 pm.", False),
    ("The workshop is closed on Mondays.", False),
])
def test_a_day_the_sentence_says_it_is_closed_is_no_day_it_gives(claim, drift):
    found = codes(run_checks(WORKSHOP_HOURS, claim))
    assert bool(found & {ReasonCode.QUALIFIER_DRIFT, ReasonCode.UNSUPPORTED_CONTENT}) is drift


LATEST_BOOKING = ("Collections take place on Tuesdays, Wednesdays and Fridays, and you can book up to four weeks ahead, "
                  "though the latest you can book is 12 noon two working days before the collection day.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "the working day before" is one, where the sentence says two
    ("You can book as late as 12 noon on the working day before your collection.", True),
    ("You can book as late as 12 noon two working days before your collection.", False),
])
def test_the_day_before_is_one_day_before(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(LATEST_BOOKING, claim))) is mismatch


JOINING_FEE = ("There is a one-off joining fee of £20, which is waived for annual members. Monthly members can cancel "
               "with 30 days' notice.")


@pytest.mark.parametrize(("claim", "drift"), [
    # a group the page names beside the one the sentence names ("monthly members" for "annual members")
    ("The £20 joining fee is waived for monthly members.", True),
    ("The £20 joining fee is waived for annual members.", False),
    ("Monthly members can cancel with 30 days' notice.", False),
])
def test_another_group_the_page_names_is_a_swapped_group(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(JOINING_FEE, claim))) is drift


@pytest.mark.parametrize(("claim", "drift"), [
    # "as often as you like" over "once free of charge": the claim's own number (the notice) is the sentence's too
    ("You can change your dates for free as often as you like, provided you give at least 7 days' notice.", True),
    ("You can change your dates once for free, provided you give at least 7 days' notice.", False),
])
def test_as_often_as_you_like_lifts_a_count_the_sentence_gives(claim, drift):
    evidence = ("You can change your dates once free of charge as long as you tell us at least 7 days before arrival, "
                "and every further change costs £5.")
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(evidence, claim))) is drift


CHARITY_FURNITURE = ("Charities registered in Calder Bridge can ask us to collect donated furniture for free, as long as "
                     "it is in a condition they can reuse.")


@pytest.mark.parametrize(("claim", "drift"), [
    # "whatever condition it's in" says the condition the sentence sets makes no difference
    ("Registered charities in Calder Bridge can have donated furniture collected for free, whatever condition it's "
     "in.", True),
    ("Registered charities can have donated furniture collected for free, regardless of its condition.", True),
    ("Registered charities can have donated furniture collected for free if it's in a condition they can reuse.",
     False),
    ("Registered charities can have donated furniture collected for free, whatever day they choose.", False),
])
def test_whatever_makes_the_sentences_condition_no_difference(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(CHARITY_FURNITURE, claim))) is drift


SEASON = "Pitches can be booked from 1 March for the season, which runs from 28 March to 31 October."


@pytest.mark.parametrize(("claim", "mismatch"), [
    # a range of dates is one value: its start moved from another date of the sentence is another range
    ("The campsite's season runs from 1 March until 31 October.", True),
    ("The campsite's season runs from 28 March until 31 October.", False),
    ("You can book pitches from 1 March, and the season runs from 28 March to 31 October.", False),
    ("The season runs from 28 March to 30 October.", True),
])
def test_a_range_of_dates_with_another_end_is_another_range(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(SEASON, claim))) is mismatch


def test_a_participle_after_a_group_names_no_group():
    # "people aged 65" against "anyone aged 65", where the page says "young people aged 14 to 17" elsewhere
    evidence = ("The woodshop is open to anyone aged 18 or over, and young people aged 14 to 17 can join as junior "
                "members. A concession rate of £30 per month is available to students and to anyone aged 65 or over.")
    findings = check_qualifiers(evidence, "Students and people aged 65 or over can get a concession rate of £30 a month.")
    assert not [f for f in findings if f.check == "group"]


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # "don't pay anything" says free, as "don't cost anything" does
    ("Each extra adult is £8 per night, while children aged 4 to 15 pay £4 and children under 4 stay free.",
     "Children under 4 don't pay anything, while children aged 4 to 15 pay £4.", False),
    # "waived" says "not paid" where the other side says "pay"
    ("There is a one-off joining fee of £20, which is waived for annual members.",
     "There's a one-off £20 joining fee, but you don't pay it if you take out annual membership.", False),
    ("There is a one-off joining fee of £20, which is waived for annual members.",
     "Annual members pay the one-off £20 joining fee too.", True),
])
def test_what_says_nothing_is_paid_in_other_words(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


HANDLING = ("Handling sessions with the rabbits and guinea pigs run at 11 am and 2 pm on Saturdays and Sundays, are "
            "free, and are limited to 15 children per session. Only children aged 3 or over may hold an animal, and "
            "they must be sitting down to do so.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # an age is no clock time: the 2 of "2 pm" does not bear out "aged 2"
    ("Children aged 2 and over can hold the rabbits and guinea pigs, as long as they're sitting down.", True),
    ("Children aged 3 and over can hold the rabbits and guinea pigs, as long as they're sitting down.", False),
    ("Handling sessions run at 2 pm at weekends.", False),
])
def test_an_age_is_not_borne_out_by_a_clock_time(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(HANDLING, claim))) is mismatch
    # nor by a count of something else, where the evidence gives ages (corpus k: "no more than two bags")
    with_bags = "Visitors may buy no more than two bags of feed per visit. " + HANDLING
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(with_bags, claim))) is mismatch


GROUP_VISITS = ("Groups of 10 or more people, including schools and nurseries, must book at least two weeks ahead, and "
                "a guided group visit costs £4 per child, with one adult going free for every five children and any "
                "extra adults paying £2 each.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "a week" is one week where the sentence says two
    ("Groups of 10 or more need to book at least a week ahead.", True),
    ("Groups of 10 or more need to book at least two weeks ahead.", False),
    ("Groups of 10 or more need to book at least a fortnight ahead.", False),
    # a ratio's count of its noun is the sentence's, whatever other number the sentence gives
    ("On a guided group visit, one adult goes free for every ten children.", True),
    ("On a guided group visit, one adult goes free for every five children.", False),
    ("Every single child on a guided group visit pays £4.", False),
])
def test_one_of_a_unit_and_a_ratio_are_numbers_of_the_sentence(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(GROUP_VISITS, claim))) is mismatch


PARTY_ICE = "At a party, one adult for every five children may go on the ice free of charge."


@pytest.mark.parametrize(("claim", "drift"), [
    # every adult is more than one adult for every five children
    ("At a party, every accompanying adult can go on the ice for free.", True),
    ("At a party, all the adults can skate for free.", True),
    ("At a party, one adult for every five children can go on the ice for free.", False),
])
def test_every_one_where_the_sentence_allows_one_in_so_many(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(PARTY_ICE, claim))) is drift


def test_any_of_the_noun_the_sentence_says_too_is_no_drift_from_its_ratio():
    findings = check_qualifiers(GROUP_VISITS, "Four adults could come free with them, with any extra adults paying £2 "
                                              "each.")
    assert not [f for f in findings if "one adult going free" in f.detail]


LAMBING = ("Everyone must wash their hands at the outdoor sinks after touching any animal, and visitors who are "
           "pregnant may not enter the lambing shed in March and April.")


@pytest.mark.parametrize(("claim", "drift"), [
    # a rule of two months is no rule of the whole year
    ("Visitors who are pregnant can't go into the lambing shed at any time of year.", True),
    ("Pregnant visitors can never go into the lambing shed, all year round.", True),
    ("Visitors who are pregnant can't go into the lambing shed in March and April.", False),
    ("Everyone has to wash their hands at the outdoor sinks after touching any animal.", False),
])
def test_any_time_of_year_where_the_sentence_names_months(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(LAMBING, claim))) is drift


ASSISTANCE_DOGS = ("Dogs are not allowed anywhere on the farm, with the exception of assistance dogs, which must stay "
                   "on a lead and may not enter the animal barns or the handling area.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # what the claim includes is what the sentence keeps them out of
    ("Assistance dogs are welcome everywhere on the farm, including the animal barns, as long as they're on a lead.",
     True),
    ("Assistance dogs are allowed, including in the handling area.", True),
    ("Assistance dogs must stay on a lead and may not enter the animal barns or the handling area.", False),
    ("Dogs aren't allowed anywhere on the farm, including the animal barns.", False),
])
def test_including_what_the_sentence_keeps_out(claim, mismatch):
    # (the sentence's two denials make the claim's one read as the opposite by count: a gap of its own, so only the
    # finding about what is included is asserted)
    kept_out = [f for f in check_negation(ASSISTANCE_DOGS, claim) if "including" in f.detail]
    assert bool(kept_out) is mismatch


MISSED_LESSONS = "Missed lessons are not refunded, but one missed lesson per course may be made up in another class if there is space."


@pytest.mark.parametrize(("claim", "drift"), [
    # "as many as you need" lifts the sentence's one
    ("You can make up as many missed lessons as you need in other classes, as long as there's space.", True),
    ("You can make up one missed lesson per course in another class if there's space.", False),
])
def test_as_many_as_you_need_lifts_a_count(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(MISSED_LESSONS, claim))) is drift


RINK_BAR = ("Bookings are not accepted from anyone under 18, and alcohol is not permitted at any party or hire unless "
            "the rink bar is booked for an extra £80.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "book" is the "booked" of the sentence's condition: "even if" says the opposite of its "unless"
    ("Alcohol isn't permitted at any party or hire, even if you book the rink bar.", True),
    ("Alcohol isn't allowed at parties or hires unless you book the rink bar for an extra £80.", False),
])
def test_even_if_reads_the_verb_of_unless_in_another_form(claim, mismatch):
    assert negation_mismatch(RINK_BAR, claim) is mismatch


STUDS = ("Shin pads are compulsory at every match and training session, and boots with metal studs are not allowed "
         "in the Under-7 to Under-11 age groups.")


@pytest.mark.parametrize(("claim", "drift"), [
    # every age group where the sentence names some
    ("Boots with metal studs are banned in every age group.", True),
    ("Metal-studded boots aren't allowed in any age group.", True),
    ("Boots with metal studs aren't allowed from Under-7 to Under-11.", False),
    ("Shin pads have to be worn at every match and training session.", False),
])
def test_every_group_of_a_kind_where_the_sentence_names_some(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(STUDS, claim))) is drift


COACHES = ("Only a team's two registered coaches may give instructions during play, and parents must not shout at "
           "referees, many of whom are under 16 themselves.")


@pytest.mark.parametrize(("claim", "drift"), [
    # who may do what only the coaches may
    ("Parents may give instructions from the touchline as long as they don't shout at the referee.", True),
    ("Only the two registered coaches can give instructions during play.", False),
])
def test_another_group_doing_what_only_one_may(claim, drift):
    assert (ReasonCode.QUALIFIER_DRIFT in codes(check_qualifiers(COACHES, claim))) is drift


FINED = "A club whose spectators are reported twice in one season is fined £50."


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "the first time" is once
    ("A club is fined £50 the first time its spectators are reported.", True),
    ("A club is fined £50 if its spectators are reported twice in one season.", False),
])
def test_the_first_time_is_once(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(FINED, claim))) is mismatch


ROPE = ("Spectators must stand behind the rope on the opposite side of the pitch from the coaches and may not stand "
        "behind the goals.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    ("Spectators should stand behind the rope on the same side of the pitch as the coaches.", True),
    ("Spectators have to stay behind the rope on the other side of the pitch from the coaches.", False),
])
def test_the_same_side_is_not_the_opposite_one(claim, mismatch):
    assert negation_mismatch(ROPE, claim) is mismatch


SIDES = ("Under-7 and Under-8 matches are 5-a-side, Under-9 and Under-10 matches are 7-a-side, Under-11 and Under-12 "
         "matches are 9-a-side, and from Under-13 upwards teams play 11-a-side.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # a clause of a list of parallel clauses, given another clause's value
    ("Under-11 and Under-12 matches are 7-a-side.", True),
    ("Under-11 and Under-12 matches are 9-a-side.", False),
    ("Under-9s and Under-10s play 7-a-side.", False),
])
def test_a_value_of_another_parallel_clause(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(SIDES, claim))) is mismatch


ONLINE = ("Handling sessions are limited to 15 children per session, with places given out at the barn door 10 "
          "minutes before the start.")


@pytest.mark.parametrize(("claim", "unsupported"), [
    # a way of doing it the evidence never mentions
    ("You can book places on the handling sessions in advance online.", True),
    ("Places on the handling sessions are given out at the barn door 10 minutes before they start.", False),
])
def test_online_where_the_evidence_never_says_it(claim, unsupported):
    assert (ReasonCode.UNSUPPORTED_CONTENT in codes(check_content(ONLINE, claim))) is unsupported


def test_a_distributive_each_is_no_stronger_quantifier():
    # a trailing "each" shares a number out ("for up to 15 children each"); it says "every" of nothing
    evidence = "Handling sessions are free and are limited to 15 children per session."
    findings = check_qualifiers(evidence, "The handling sessions are free, for up to 15 children each.")
    assert not [f for f in findings if f.check == "quantifier"]


@pytest.mark.parametrize(("evidence", "claim", "absent"), [
    # an age group written with a hyphen ("Under-12s") and a day with its restriction ("Saturday-only") name nothing
    ("Children under 12 must be accompanied by an adult aged 18 or over at all times.",
     "Under-12s have to be with an adult aged 18 or over the whole time.", []),
    ("Birthday parties can be booked on Saturdays only, for up to 20 children.",
     "Birthday parties are Saturday-only, for up to 20 children.", []),
    ("Birthday parties can be booked on Saturdays only, for up to 20 children.",
     "Birthday parties are Sunday-only, for up to 20 children.", ["Sunday-only"]),
    # a name whose parts the text writes in other names is still not written
    ("The island was split into two departments: Haute-Couture and Corse-du-Sud.", "Corsica contains Haute-Corse.",
     ["Corsica", "Haute-Corse"]),
])
def test_a_hyphenated_age_group_or_day_is_read_by_its_parts(evidence, claim, absent):
    assert absent_names(evidence, claim) == absent


@pytest.mark.parametrize(("claim", "mismatch"), [
    # ", not even X" after a denial carries the denial on to X: no second negation
    ("You can't bring your own food for the animals, not even bread.", False),
    ("You can bring your own food for the animals, even bread.", True),
])
def test_not_even_carries_a_denial_on(claim, mismatch):
    evidence = "Bringing your own food for the animals, including bread and vegetables, is not allowed."
    assert negation_mismatch(evidence, claim) is mismatch


def test_an_age_bound_before_to_is_no_modifier_of_the_noun_after_it():
    evidence = ("Volunteers must be aged 16 or over, although young people aged 14 and 15 can volunteer on Saturday "
                "mornings only, and only if a parent or guardian volunteers alongside them.")
    findings = check_qualifiers(evidence, "You need to be 16 or older to volunteer.")
    assert not [f for f in findings if f.check == "population"]


def test_a_population_word_of_the_sentence_before_modifies_nothing():
    # "... by a paying adult. Children under 8 ..." does not say "adult children"
    evidence = ("Children under 8 must be accompanied on the ice by a paying adult. Children under 8 must be "
                "accompanied on the ice by a paying adult. Skating aids can be hired for £4 per session, but only for "
                "children aged 3 to 10.")
    findings = check_qualifiers(evidence, "The skating aids are £4 a session, and they're only for children aged 3 to 10.")
    assert not [f for f in findings if f.check == "population"]


@pytest.mark.parametrize(("evidence", "claim"), [
    # "online" of a thing is no way of doing what the evidence governs
    ("Saw II was only released digitally on Netflix.", "The film Saw II was released online."),
    # a sentence's "each" or "all" after other words names no ones of the kind
    ("The primary screen must be the responsibility of the staff to administer to all patients.",
     "The primary screen is the responsibility of the staff to be given to all patients."),
    ("Eighty percent of the allowances available for allocation each year go to coal units.",
     "80% of the allowance for each year goes to coal units."),
])
def test_what_the_channel_and_every_ones_rules_leave_alone(evidence, claim):
    assert not [f for f in check_content(evidence, claim) + check_qualifiers(evidence, claim)
                if f.check in ("channel", "quantifier")]


@pytest.mark.parametrize("claim", [
    "New Zealand refused entry to all foreigners including previously excluded Pacific Islands.",
    "During play, Alison considers paint colors including those that are not the color of her room.",
])
def test_including_under_a_denial_of_the_claim_is_the_denial_again(claim):
    evidence = ("New Zealand will not permit any new arrivals to non-citizens including the previously excluded "
                "Pacific Islands. In play, Alison thinks about paint colors, which need not be the color of her room.")
    assert not [f for f in check_negation(evidence, claim) if "including" in f.detail]


AGES_12A = ("The cinema follows the BBFC age ratings strictly. Children of any age may see U and PG films, but children "
            "under 8 must be with someone aged 16 or over. Children under 12 may see a 12A film only if they are "
            "accompanied by an adult aged 18 or over for the whole screening. Nobody under 15 may see a 15 film and "
            "nobody under 18 may see an 18 film, even with a parent.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # the age of the sentence the claim restates, not another sentence's
    ("Children under 12 can see a 12A film if they're with anyone aged 16 or over.", True),
    ("Children under 12 can see a 12A film if they're with an adult aged 18 or over.", False),
    ("Children under 8 have to be with someone aged 16 or over.", False),
])
def test_an_age_of_another_sentence_does_not_bear_out_the_restated_one(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(AGES_12A, claim))) is mismatch


LATE_SCREENINGS = "Under-16s may not attend any screening that starts after 9 pm unless an adult is with them."


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "even with an adult" says the adult makes no difference; "unless an adult is with them" that it does
    ("Under-16s can't go to any screening starting after 9 pm, even with an adult.", True),
    ("Under-16s can't go to a screening starting after 9 pm unless an adult is with them.", False),
])
def test_even_with_is_the_opposite_of_unless_with(claim, mismatch):
    assert negation_mismatch(LATE_SCREENINGS, claim) is mismatch


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "20 at most" is the "no more than 20" of the sentence: its "no" is the bound's
    ("The committee room takes 20 at most.", False),
    ("The committee room takes 20 people or fewer.", False),
    ("The committee room takes at least 20.", True),
])
def test_an_upper_bound_after_its_value_is_the_sentences_negated_bound(claim, mismatch):
    evidence = "The main hall holds no more than 120 people, and the committee room holds no more than 20."
    assert (negation_mismatch(evidence, claim) or
            ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


LAUNDRETTE = ("The six tumble dryers cost £1 for every 10 minutes and run in 10-minute blocks only. All machines take "
              "contactless cards, but not cash. Detergent is added automatically at no extra cost, but customers who "
              "want to use their own detergent must press the \"no detergent\" button, which takes 50p off the price.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "50p" is half a pound; the £1 of the dryers' sentence, which shares none of its words, does not bear it out
    ("If you bring your own detergent, you get £1 off the price of the wash.", True),
    ("Pressing the no detergent button takes £1 off the price.", True),
    ("Pressing the no detergent button takes 50p off the price.", False),
    ("The no detergent button takes £0.50 off.", False),
    ("The dryers cost £1 for every 10 minutes.", False),
])
def test_pence_are_an_amount_of_money(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(LAUNDRETTE, claim))) is mismatch


def test_a_number_glued_to_p_from_100_up_is_no_amount_in_pence():
    assert [(q.value, q.unit) for q in quantities("It records 720p video for 4p a minute.")] == [(720.0, ""),
                                                                                            (0.04, "£")]


FIRING = ("Firing is charged by shelf space, at 4p per square centimetre for a bisque firing and 6p per square "
          "centimetre for a glaze firing. Bisque firings take place every Monday and glaze firings every Thursday, so "
          "a finished piece is usually ready about three weeks after it is thrown.")


@pytest.mark.parametrize(("claim", "drift"), [
    # two words of the sentence put in each other's place
    ("Glaze firings take place every Monday and bisque firings every Thursday.", True),
    ("Bisque firings take place every Monday and glaze firings every Thursday.", False),
    # joined by "and" alone, their order says nothing
    ("Glaze and bisque firings are charged by shelf space.", False),
])
def test_two_words_exchanged_with_each_other(claim, drift):
    assert any(f.check == "exchanged" for f in check_qualifiers(FIRING, claim)) is drift


@pytest.mark.parametrize(("evidence", "claim", "drift"), [
    ("Mitch, in contrast, scores low on fearful distress and high on positive mood.",
     "Mitch scores high on fearful distress and low on positive mood.", True),
    # no parallel word after the two: a list's order, or a relation that holds both ways (nli-train, entailed)
    ("He cut out a square and a circle with help today.",
     "Today, he was able to cut out a circle and a square with some assistance.", False),
    ("Most architects are writers. No writer is a driver. All drivers are architects.", "No driver is a writer.",
     False),
])
def test_exchanged_words_are_read_in_parallel_phrases_only(evidence, claim, drift):
    assert any(f.check == "exchanged" for f in check_qualifiers(evidence, claim)) is drift


def test_a_price_in_pence_given_to_the_other_firing():
    assert ReasonCode.NUMBER_MISMATCH in codes(check_numbers(FIRING, "Firing costs 6p per square centimetre for a "
                                                                     "bisque firing."))
    assert not check_numbers(FIRING, "A bisque firing costs 4p per square centimetre.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    ("Ball ramps are available on request for a small fee.", True),
    ("Ball ramps cost extra.", True),
    ("Ball ramps are available free on request.", False),
    ("Ball ramps are available at no charge on request.", False),
])
def test_a_fee_where_the_sentence_says_free_of_charge(claim, mismatch):
    assert negation_mismatch("Ball ramps are available free of charge on request.", claim) is mismatch


MISSED_SESSIONS = ("Missed course sessions cannot be refunded or carried over to another course, but a student may "
                   "make up one missed session by attending a taster session instead, if a place is free.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # the main clause read where a condition the claim adds leaves it too few shared words
    ("Missed course sessions can be carried over to the next six-week course as long as you let the studio know in "
     "advance.", True),
    ("Missed course sessions cannot be carried over, as long as the studio's current published booking terms still "
     "apply this year.", False),
    ("Missed course sessions cannot be refunded or carried over to another course.", False),
])
def test_the_main_clause_before_a_condition_the_claim_adds(claim, mismatch):
    assert negation_mismatch(MISSED_SESSIONS, claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim", "drift"), [
    # hours in "am" / "pm" tie a clause to its days as clock times do
    ("Castlegrove Lanes is open from 10 am to 11 pm from Monday to Saturday and from 10 am to 9 pm on Sundays.",
     "On Sundays Castlegrove Lanes stays open until 11 pm.", True),
    ("Castlegrove Lanes is open from 10 am to 11 pm from Monday to Saturday and from 10 am to 9 pm on Sundays.",
     "On Sundays Castlegrove Lanes stays open until 9 pm.", False),
    # "the same day" names no other day
    ("Laundry left before 11 am from Monday to Friday is ready the same day after 5 pm; laundry left later, or at "
     "any time on a Saturday or Sunday, is ready after 12 noon the next day.",
     "Laundry left before 11 am on a Saturday will be ready after 5 pm the same day.", True),
    ("Laundry left before 11 am from Monday to Friday is ready the same day after 5 pm; laundry left later, or at "
     "any time on a Saturday or Sunday, is ready after 12 noon the next day.",
     "Laundry left on a Saturday is ready after 12 noon the next day.", False),
])
def test_a_day_given_the_hours_of_another_clause(evidence, claim, drift):
    assert any("other days" in f.detail for f in check_qualifiers(evidence, claim)) is drift


@pytest.mark.parametrize(("claim", "mismatch"), [
    ("The diner takes food orders right up until closing time.", True),
    ("You can order food until one hour before closing.", False),
])
def test_until_the_moment_where_the_sentence_says_a_length_of_time_before_it(claim, mismatch):
    evidence = "Food orders from the diner are taken until one hour before closing and can be served at the lane."
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "no later than 9 pm" is "by 9 pm": its "no" is the deadline's
    ("Your last wash has to start by 9 pm.", False),
    ("Your last wash can start after 9 pm.", True),
])
def test_no_later_than_a_time_is_by_that_time(claim, mismatch):
    assert negation_mismatch("The laundrette is open every day from 7 am to 10 pm, and the last wash must start no "
                             "later than 9 pm.", claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # losing a deposit is its not being refunded
    ("A £40 deposit is taken off the final bill, but it is not refunded if the party is cancelled less than 14 days "
     "before.", "The £40 deposit comes off your final bill, but you'll lose it if you cancel less than 14 days before "
     "the party.", False),
    ("A £40 deposit is taken off the final bill and is refunded if the party is cancelled 14 days before or more.",
     "You'll lose the £40 deposit if the party is cancelled 14 days before or more.", True),
    # where the claim says "returned" itself, "lost" names the thing
    ("Property left behind is returned to its owner after a week.", "Lost property is returned after a week.", False),
])
def test_losing_what_is_not_refunded(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


@pytest.mark.parametrize("text", ["Bathers may leave at any time before 6p. m.", "It closes at 6p.m. sharp.",
                                  "miR-142-5p is a temperature-sensitive microRNA."])
def test_a_p_after_a_number_that_is_no_amount_in_pence(text):
    assert all(q.unit != "£" for q in quantities(text))


def test_lost_a_match_denies_no_return():
    evidence = ("Son Heung-min: He led the team to the quarterfinals, where they defeated Kyrgyzstan, but Son returned "
                "to London following a defeat in the semifinals to Qatar.")
    assert not negation_mismatch(evidence, "Son Heung-min's team won in the quarterfinals against Kyrgyzstan and lost "
                                           "in the semifinals to Qatar.")


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # coins are cash: the claim names a kind of what the sentence keeps out
    ("All machines take contactless cards and the loyalty card, but not cash; cash can be turned into card credit.",
     "You can pay for the machines with coins as well as by contactless card.", True),
    ("No pets are allowed in the rooms, except assistance dogs.", "Assistance dogs are allowed in the rooms.", False),
    ("Guests may bring cats to the garden, but no dogs.", "Cats are welcome in the garden.", False),
])
def test_a_kind_of_what_the_sentence_keeps_out(evidence, claim, mismatch):
    kind_kept_out = [f for f in check_negation(evidence, claim)
                     if f.detail.startswith("claim says") and "where the evidence says" in f.detail and
                     any(word in f.detail.lower() for word in ("'not", "'no", "except"))]
    assert bool(kind_kept_out) is mismatch


@pytest.mark.parametrize(("claim", "drift"), [
    ("The six-week course costs £175 for anyone who has ever done a taster session at the studio.", True),
    ("The six-week course costs £175 if you've done a taster session there in the last six months.", False),
])
def test_ever_where_the_sentence_gives_a_window_of_time(claim, drift):
    evidence = ("Six-week courses cost £195, or £175 for anyone who has done a taster session at the studio within the "
                "previous six months.")
    assert any(f.detail.startswith("claim says 'ever'") for f in check_qualifiers(evidence, claim)) is drift


def test_a_weekday_within_a_range_of_days_is_mentioned():
    evidence = "Laundry left before 11 am from Monday to Friday is ready the same day after 5 pm."
    assert not absent_names(evidence, "Laundry left on a Tuesday before 11 am is ready the same day.")
    assert absent_names(evidence, "Laundry left on a Tuesday in Leeds is ready the same day.") == ["Leeds"]
    # a day the range mentions is still not one the sentence restated gives
    assert any("other days" in f.detail for f in check_qualifiers(ROTA, "The handover is on Tuesdays."))


@pytest.mark.parametrize(("claim", "inflated"), [
    # the "may" of another clause, its subject a plural without a determiner, hedges nothing the claim takes
    ("Alcohol isn't sold before midday.", False),
    ("Drinks bought at the bar are taken to the lanes in plastic cups.", True),
])
def test_a_may_of_a_clause_with_a_bare_plural_subject(claim, inflated):
    evidence = "Alcohol is not sold before 12 noon, and drinks bought at the bar may be taken to the lanes in cups."
    assert bool(check_strength(evidence, claim)) is inflated


@pytest.mark.parametrize(("claim", "mismatch"), [
    ("Your visitors can park next to your pitch.", True),
    ("Visitors can leave their cars in the overflow car park.", False),
])
def test_a_place_other_than_the_one_a_thing_must_be_left_in(claim, mismatch):
    evidence = "Day visitors are welcome until 9 pm. Visitors' cars have to be left in the overflow car park."
    assert negation_mismatch(evidence, claim) is mismatch


def test_provided_as_a_verb_adds_no_condition():
    # "are provided free" is what the claim says, not a condition after it: no main clause "Spare swimming towels are."
    # is read against the sentence's "cannot"
    assert not negation_mismatch("Spare swimming towels cannot be hired at the pool.",
                                 "Spare swimming towels are provided free for everyone who swims in the mornings.")


# the eighteenth round (corpus n): lies the verifier entailed and no check read

INTRODUCTORY_LESSON = ("Pupils must be at least 17 on the day of their first lesson. New pupils can book one "
                       "introductory lesson for £25, but only once and only in a manual car.")


@pytest.mark.parametrize(("claim", "widened"), [
    # a restriction joined to another ("only once and only in ...") restricts the clause both follow
    ("New pupils can book an introductory lesson for £25 in either a manual or an automatic car.", True),
    ("New pupils can have one introductory lesson for £25, in a manual car.", False),
])
def test_a_restriction_after_another_restricts_the_same_clause(claim, widened):
    assert any(f.check == "restriction" for f in check_qualifiers(INTRODUCTORY_LESSON, claim)) is widened


GROOMING = ("A full groom costs £35 for small dogs under 10 kg, £48 for medium dogs from 10 to 25 kg and £62 for large "
            "dogs over 25 kg. A bath and brush without a haircut costs £25, £32 or £40 according to size.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "25 kg" of the sentence restated is no "£25": the price is the bath's
    ("A full groom for a small dog under 10 kg costs £25.", True),
    ("A full groom for a small dog under 10 kg costs £35.", False),
])
def test_a_value_in_another_unit_is_not_the_claimed_one(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(GROOMING, claim))) is mismatch


MOCK_TEST = ("The test package costs £95 and covers a one-hour warm-up lesson just before the test. A mock test lasts 90 "
             "minutes and costs £45.")


@pytest.mark.parametrize(("claim", "mismatch"), [
    # "an hour" is the evidence's (the warm-up lesson), but not what the mock test lasts
    ("A mock test lasts an hour.", True),
    ("A mock test lasts an hour and a half.", False),
    ("A mock test lasts 90 minutes.", False),
    ("The warm-up lesson lasts an hour.", False),
])
def test_another_value_given_to_the_same_subject(claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(MOCK_TEST, claim))) is mismatch


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # a condition the claim adds without a comma, over two sentences that each deny something
    ("Dogs with ringworm or an open wound cannot be groomed until a vet has signed them off. Female dogs in season "
     "are not accepted.", "Female dogs in season can be groomed if they're booked into the last slot of the day.",
     True),
    ("Dogs with ringworm or an open wound cannot be groomed until a vet has signed them off. Female dogs in season "
     "are not accepted.", "Female dogs in season aren't accepted, even if they're booked into the last slot.", False),
    # what the claim denies of another thing after its main clause is not the main clause's denial
    ("Smoking and vaping are banned everywhere in the building, including the toilets.",
     "Vaping is allowed in the toilets, though not in the rehearsal rooms.", True),
    ("Smoking is banned in the rehearsal rooms, but it is allowed in the yard.",
     "Smoking is allowed in the yard, though not in the rehearsal rooms.", False),
    # the sentence read speaks of the condition the claim adds ("Below 20%"): the claim is read whole (corpus f)
    ("Electric cars are handed over charged to at least 80%, and there is no charging fee if they are returned with at "
     "least 20%. Below 20%, a flat charging fee of 30 euros applies, and charging cards are not included.",
     "You pay no charging fee if you return it with at least 20%.", False),
])
def test_the_main_clause_of_a_claim_with_a_condition_or_a_denial_after_it(evidence, claim, mismatch):
    assert negation_mismatch(evidence, claim) is mismatch


@pytest.mark.parametrize(("evidence", "claim", "mismatch"), [
    # a value the claim works out from its own values, and says it does, each operand the evidence's or a count or
    # a length of time it supposes
    ("Rooms 3 and 4 cost £16 an hour before 5 pm and £22 an hour from 5 pm.",
     "A medium room for three hours in the evening would cost £66, at £22 an hour.", False),
    ("Rooms 3 and 4 cost £16 an hour before 5 pm and £22 an hour from 5 pm.",
     "A medium room for three hours in the evening would cost £60, at £22 an hour.", True),
    ("Those who book a Pass Plus course within one month of passing pay £160 instead of £190.",
     "Booking Pass Plus within a month of passing saves you £30, since it costs £160 instead of £190.", False),
    ("Those who book a Pass Plus course within one month of passing pay £160 instead of £190.",
     "Booking Pass Plus within a month of passing saves you £40, since it costs £160 instead of £190.", True),
    ("The six tumble dryers cost £1 for every 10 minutes and run in 10-minute blocks only.",
     "Drying costs £1 per 10 minutes, so 40 minutes in a dryer would come to £4.", False),
    ("Cancellations made with less than 48 hours' notice are charged at half the lesson price, £38.",
     "A late cancellation costs half the £38 price, which is £19.", False),
    # no working out said: a value of its own
    ("Rooms 3 and 4 cost £16 an hour before 5 pm and £22 an hour from 5 pm.",
     "A medium room costs £66 for three hours in the evening and £22 an hour.", True),
    # a price the claim supposes is no operand ("£25" is nowhere in the evidence)
    ("Rooms 3 and 4 cost £16 an hour before 5 pm and £22 an hour from 5 pm.",
     "A medium room at £25 an hour would cost £47 with a £22 hour added.", True),
    # a price times hours only where the price is a rate of hours
    ("The deposit is £20 and sessions last 3 hours.", "A session would cost £60, with the £20 deposit for 3 hours.",
     True),
])
def test_a_value_the_claim_works_out(evidence, claim, mismatch):
    assert (ReasonCode.NUMBER_MISMATCH in codes(check_numbers(evidence, claim))) is mismatch


@pytest.mark.parametrize(("claim", "widened"), [
    # the one place the sentence allows is some rooms by their numbers: "every room" is more
    ("Every room, including the small ones, has a drum kit.", True),
    ("Only Rooms 3, 4 and 5 have a drum kit.", False),
    ("Drum kits come with Rooms 3, 4 and 5.", False),
])
def test_every_one_where_the_sentence_allows_some_by_their_numbers(claim, widened):
    evidence = "Every room has a PA system. Drum kits are included in Rooms 3, 4 and 5 only, and cymbals are not provided."
    assert any(f.check == "restriction" for f in check_qualifiers(evidence, claim)) is widened


@pytest.mark.parametrize(("claim", "mismatch"), [
    # alone, where the sentence lets it happen only in an adult's company
    ("Under-16s can book a room on their own as long as a parent has given permission by phone.", True),
    ("Under-16s can book a room, but only if an adult stays for the whole session.", False),
    ("Adults can book a room on their own.", False),
])
def test_alone_where_the_sentence_asks_for_company(claim, mismatch):
    evidence = "Bookings can be made online or by phone. Under-16s may book a room only if an adult is present."
    assert negation_mismatch(evidence, claim) is mismatch


def test_a_clause_reached_over_a_joint_must_share_more_than_a_verb():
    # "it opens ... daily, but only until 1 pm on Sundays" restricts the shop's hours, which "The laundry room's open
    # 8 am to 9 pm" does not restate (it shares "open" and "pm"): no restriction widened (corpus j)
    evidence = ("The laundry room is open from 8 am to 9 pm, with a wash costing £4.50. The site shop sells milk and "
                "bread, and it opens from 8 am to 6 pm daily, but only until 1 pm on Sundays.")
    assert not [f for f in check_qualifiers(evidence, "The laundry room's open 8 am to 9 pm, and a wash costs £4.50.")
                if f.check == "restriction"]
