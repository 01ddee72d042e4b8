"""Faithful answers and one-fact lies over corpus h (bench/data/corpus_h: an indoor climbing centre's membership and
safety rules, a city council's residential parking permit scheme and a concert hall's ticketing and venue terms),
documents of kinds no earlier round of wordings was written over (tests/nli/test_corpus_wordings.py and
test_corpus_b_wordings.py to test_corpus_g_wordings.py). Each goes through the real pipeline: respond_over_pages with a
scripted model and the shipped verifier, over its page's chunks with their titles. Written on 2026-12-07 as a twelfth
round, by an author who had not read the checks, before any of it was run and before any fix of the round: a held-out
measure of the eleven rounds before it. The author cited sections; this round's sections are longer than the chunks
the ask path cuts (about 800 characters), so most are two chunks, and each wording cites its section's chunks
("[E1, E2]" for the first section), as a model shown those chunks would. README.md gives the figures of its first
run and after the fixes it led to; the known gaps (asserted still unverified) and the lies still shown are listed
below, with their causes, filled in after the first run."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_h"
PAGES = ["climbing-gym-membership-and-safety.md", "residential-parking-permits.md", "concert-hall-tickets-and-venue.md"]

# the question each chunk answers (E1 ... E21, in page order: climbing centre, parking permits, concert hall)
QUESTIONS = {
    "E1": "When is Redstone Walls Climbing Centre open, and how much do a day pass and equipment hire cost?",
    "E2": "When is Redstone Walls Climbing Centre open, and how much do a day pass and equipment hire cost?",
    "E3": "How does membership at Redstone Walls Climbing Centre work, and can I freeze it or bring a guest?",
    "E4": "How does membership at Redstone Walls Climbing Centre work, and can I freeze it or bring a guest?",
    "E5": "What induction do I need at Redstone Walls Climbing Centre, and what are the age and supervision rules?",
    "E6": "What induction do I need at Redstone Walls Climbing Centre, and what are the age and supervision rules?",
    "E7": "What are the safety rules on the walls and mats at Redstone Walls Climbing Centre?",
    "E8": "What are the safety rules on the walls and mats at Redstone Walls Climbing Centre?",
    "E9": "Who can get a Tarnbury residential parking permit, and when and where do the zone controls apply?",
    "E10": "Who can get a Tarnbury residential parking permit, and when and where do the zone controls apply?",
    "E11": "How much does a Tarnbury residential parking permit cost, and are there discounts or refunds?",
    "E12": "How do visitor permits work in Tarnbury's residential parking scheme, and can a carer get a permit?",
    "E13": "How do visitor permits work in Tarnbury's residential parking scheme, and can a carer get a permit?",
    "E14": "How do I apply for a Tarnbury residential parking permit, and what happens if I park without one?",
    "E15": "How do I apply for a Tarnbury residential parking permit, and what happens if I park without one?",
    "E16": "How can I buy tickets for Aldergate Concert Hall, and what do they cost?",
    "E17": "How can I buy tickets for Aldergate Concert Hall, and what do they cost?",
    "E18": "Can I exchange, refund or resell a ticket for Aldergate Concert Hall?",
    "E19": "Can I exchange, refund or resell a ticket for Aldergate Concert Hall?",
    "E20": "When do the doors open at Aldergate Concert Hall, and what are the rules for children and latecomers?",
    "E21": "What are Aldergate Concert Hall's rules on photos, bags, drinks and phones?",
}

FAITHFUL = [
    "On weekdays the centre is open from 7:00 to 22:30, and on weekends and public holidays from 9:00 to 20:00, "
    "apart from 25 and 26 December, when it's closed. [E1, E2]",
    "An adult day pass is 16 euros, students and children aged 8 to 15 pay 11 euros, and you can leave and come back "
    "in on the same day. [E1, E2]",
    "For 12 euros you can get an off-peak pass, which is valid before 16:00 on weekdays, though not in the school "
    "holidays. [E1, E2]",
    "Harnesses and belay devices come free with any pass, but hiring shoes costs 4 euros and a chalk bag 2 euros. [E1, E2]",
    "You can share a ten-visit card, which costs 140 euros and lasts 12 months from your first visit, with your "
    "family, but not with friends. [E1, E2]",
    "Monthly membership is 58 euros, or 45 euros if you're a student with a valid card, and it gets you unlimited "
    "entry, free shoe hire and two free guest passes a year. [E3, E4]",
    "If you pay monthly by direct debit, you have to stay for at least 3 months, and after that you can cancel by "
    "giving 30 days' notice in writing. [E3, E4]",
    "The annual membership costs 590 euros up front and can't be cancelled or refunded unless you have a doctor's "
    "note showing medical grounds. [E3, E4]",
    "You can freeze your membership for 2 weeks to 3 months a year at 5 euros a month, as long as you ask at least 7 "
    "days before your next payment. [E3, E4]",
    "New members pay a one-off 25 euro joining fee, unless they join in January. [E3, E4]",
    "Before you climb for the first time you have to do a 20-minute safety induction, which costs nothing for "
    "bouldering but 15 euros for the roped walls. [E5, E6]",
    "To climb with ropes you also have to pass a belay test, and if you fail you can retake it once for free the "
    "same day. [E5, E6]",
    "Children under 8 can only climb in the children's area, with an adult staying within arm's reach. [E5, E6]",
    "An inducted adult can supervise up to 3 children aged 8 to 15, who may then climb anywhere in the centre. [E5, E6]",
    "You can't take the lead test until you're 14, and it costs 20 euros. [E5, E6]",
    "You mustn't walk, sit or stand on the mats under someone who's bouldering, and only one person can be on a "
    "problem at a time. [E7, E8]",
    "You have to clip in before every auto-belay climb and close the lane's gate whenever no one is using it. [E7, E8]",
    "You can use chalk balls or liquid chalk, but loose chalk is banned everywhere apart from the training room. [E7, E8]",
    "If you break a safety rule twice you can be asked to leave, and you won't get a refund. [E7, E8]",
    "In zones A to D the controls run from 8:00 to 20:00 Monday to Saturday, whereas in zones E and F they only run "
    "from 9:00 to 17:00 on weekdays. [E9, E10]",
    "Outside the controlled hours you can park in the permit bays for free, even without a permit. [E9, E10]",
    "To get a permit your main home has to be in the zone, and your car must either be registered at that address or "
    "be a company car backed by a letter from your employer. [E9, E10]",
    "A household can have no more than 3 resident permits, or 2 in zone A. [E9, E10]",
    "A zone C permit also lets you park in zone D and the other way round, but other permits only work in their own "
    "zone. [E9, E10]",
    "A household's first permit is 90 euros a year, a second one 150 euros and a third one 240 euros. [E11]",
    "If your car emits over 225 grams of CO2 per kilometre you pay 50% extra, but a fully electric car's permit is "
    "45 euros a year no matter whether it's your first, second or third. [E11]",
    "Except in zone A, where you can only buy a yearly permit, you can get a 6-month permit for 55% of the annual "
    "price. [E11]",
    "If you have a disabled parking badge, your first permit is free and you can also use it in the shared-use bays "
    "of any zone. [E11]",
    "Households can buy up to 60 visitor permits a year even if they don't have a resident permit. [E12, E13]",
    "Each visitor permit is 3 euros and lasts until midnight on the day you activate it, and it only works in your "
    "own zone. [E12, E13]",
    "If you're 70 or older, your first 20 visitor permits each year don't cost anything. [E12, E13]",
    "You can't use a visitor permit for a car registered at your own address or for a van over 3.5 tonnes. [E12, E13]",
    "You can only apply online, and while you wait up to 10 working days for your first permit, you can park in the "
    "zone if you display the printed confirmation email. [E14, E15]",
    "With your application you have to upload the car's registration certificate and a council tax bill or tenancy "
    "agreement from the last 3 months. [E14, E15]",
    "Changing the car on your permit costs 12 euros online, but if you move to a different zone you have to apply "
    "and pay again. [E14, E15]",
    "The fine for parking in a permit bay during controlled hours without a valid permit is 60 euros, or 30 euros if "
    "you pay within 14 days. [E14, E15]",
    "Your permit won't renew itself, though you'll get an email reminder 4 weeks before it runs out. [E14, E15]",
    "You can buy tickets online, by phone or at the box office, which opens from 11:00 to 18:00 Monday to Saturday "
    "and 90 minutes before each concert. [E16, E17]",
    "There's a 2.50 euro booking fee per ticket online and by phone, but none if you buy at the box office. [E16, E17]",
    "You can buy up to 8 tickets for a concert, but only 4 if it's marked as high demand. [E16, E17]",
    "If you're under 26 or a full-time student, any upper balcony seat costs 10 euros, but only from 7 days before "
    "the concert. [E16, E17]",
    "You can't get a refund on a ticket, but you can swap it for another concert in the same season up to 48 hours "
    "beforehand for 3 euros a ticket. [E18, E19]",
    "Friends of the hall can exchange their tickets for free until 24 hours before the performance. [E18, E19]",
    "If the concert is cancelled, you automatically get the ticket price and the booking fee back in full within 14 "
    "days. [E18, E19]",
    "You can only resell a ticket through the hall's resale service and not for more than face value, and the hall "
    "keeps 10% of the price. [E18, E19]",
    "The doors open an hour before the concert, and you can go into the auditorium from 30 minutes before it "
    "starts. [E20]",
    "Children under 5 can't come to evening concerts, though they may come to family concerts. [E20]",
    "Any child under 14 has to sit next to an adult from their own group. [E20]",
    "If you arrive late, you'll be let in only at a suitable break chosen by the staff, and you might not get the "
    "seat you booked. [E20]",
    "You need photo ID only if you have a reduced-price ticket. [E20]",
    "You can't take photos, film or record during the performance, but photos without flash are fine during the "
    "final applause. [E21]",
    "If your bag is larger than 40 by 30 centimetres you have to leave it in the cloakroom, which charges 2 euros per "
    "bag but nothing for coats. [E21]",
    "You can't bring food into the auditorium, and drinks are only allowed in the hall's plastic cups, apart from "
    "organ recitals, when you can't take any drinks in. [E21]",
    "You can order interval drinks before the concert and pick them up at the interval. [E21]",
]
LIES = [
    "On weekdays the centre is open from 7:00 to 23:30. [E1, E2]",
    "A day pass costs 16 euros for adults and 11 euros for students and children aged 8 to 15, and it allows "
    "re-entry on any day that week. [E1, E2]",
    "The off-peak pass is valid on weekdays before 16:00, school holidays included. [E1, E2]",
    "Harnesses and belay devices cost 2 euros each to hire. [E1, E2]",
    "A ten-visit card may be shared with friends as well as family members. [E1, E2]",
    "Monthly membership costs 58 euros, or 40 euros for students with a valid student card. [E3, E4]",
    "Monthly members can cancel at any time with 30 days' written notice. [E3, E4]",
    "An annual membership can be refunded if you cancel within the first month. [E3, E4]",
    "A membership may be frozen for up to 6 months a year. [E3, E4]",
    "Members may bring a guest for 10 euros on any day of the week. [E3, E4]",
    "The safety induction is free for both bouldering and the roped walls. [E5, E6]",
    "Children aged 8 to 15 may climb anywhere in the centre, but only under an inducted adult, who may supervise no "
    "more than 5 children at once. [E5, E6]",
    "Climbers aged 16 and 17 may climb without supervision, and no consent form is needed. [E5, E6]",
    "Under-18s may stay in the centre until 22:00. [E5, E6]",
    "Anyone who fails the belay test may retake it free as often as they like on the same day. [E5, E6]",
    "Climbing shoes must be worn on the walls, except in the children's area, where bare feet are allowed. [E7, E8]",
    "Food and drink are allowed only in the café, except water in glass bottles. [E7, E8]",
    "Two people may climb on the same bouldering problem at once if they start from opposite ends. [E7, E8]",
    "Anyone seen belaying unsafely gets a warning but does not have to retake the belay test. [E7, E8]",
    "You only need to clip into an auto-belay on your first climb of the day. [E7, E8]",
    "In zones E and F the controls apply from 9:00 to 17:00 Monday to Saturday. [E9, E10]",
    "A household in zone A can hold up to 3 resident permits. [E9, E10]",
    "Households in zone A buildings completed after 1 January 2020 can get at most one resident permit. [E9, E10]",
    "A permit is valid only in its own zone, except that permits for zones A and B are valid in both of those "
    "zones. [E9, E10]",
    "Anyone who works in a zone can get a resident permit for it. [E9, E10]",
    "The second permit in a household costs 240 euros a year. [E11]",
    "Six-month permits are available in every zone at 55% of the yearly price. [E11]",
    "Motorcycles need their own permit, which costs 30 euros a year and is valid in any resident bay. [E11]",
    "If you move out of the zone, you get back the price of each whole unused month with no fee deducted. [E11]",
    "Every household in a zone may buy up to 60 visitor permits a year, but only if it holds a resident permit. [E12, E13]",
    "A visitor permit costs 3 euros and is valid for 24 hours from activation. [E12, E13]",
    "Residents aged 65 or over get their first 20 visitor permits each year free. [E12, E13]",
    "Anyone can ask for paper scratch cards instead of activating visitor permits online. [E12, E13]",
    "Carers who visit a resident needing care at home may get a free carer's permit, valid for 6 months. [E12, E13]",
    "Applications can be made online or at the council offices. [E14, E15]",
    "The fine is reduced to 30 euros if paid within 28 days. [E14, E15]",
    "Permits are renewed automatically, and a reminder is emailed 4 weeks before a permit expires. [E14, E15]",
    "A lost permit is replaced free of charge. [E14, E15]",
    "The box office is open from 11:00 to 18:00 every day of the week. [E16, E17]",
    "A booking fee of 2.50 euros per ticket is charged for online, phone and box office sales. [E16, E17]",
    "People under 26 and full-time students pay 10 euros for any seat in the hall, but only from 7 days before the "
    "concert. [E16, E17]",
    "A wheelchair user's companion goes free and can be booked online. [E16, E17]",
    "Friends of the hall pay 50 euros a year. [E16, E17]",
    "Tickets can be exchanged for a concert in any season. [E18, E19]",
    "If a concert is cancelled, the ticket price is refunded within 14 days, but the booking fee is not. [E18, E19]",
    "You can get a refund whenever the programme changes. [E18, E19]",
    "Tickets may be resold only through the hall's own resale service, and the hall charges the buyer 10% on each "
    "resold ticket. [E18, E19]",
    "Doors open 90 minutes before the concert. [E20]",
    "Babies under 2 sit on a lap for free at every concert. [E20]",
    "Anyone who leaves the auditorium during the performance may come back in at any time. [E20]",
    "Tickets must be printed, as tickets on a phone are not accepted. [E20]",
    "Every child under 16 must sit next to an adult from their group. [E20]",
    "The cloakroom is free for both coats and bags. [E21]",
    "Drinks are allowed in the auditorium in the hall's plastic cups at every concert, organ recitals included. [E21]",
    "Anyone whose phone rings even once may be asked to leave without a refund. [E21]",
    "The hall is step-free everywhere, including the upper balcony. [E21]",
]
# Faithful answers still refused, asserted as such (README.md, "A twelfth round")
KNOWN_GAPS = {
    # a negation of another clause or of the next sentence read with the claim's: the reading that holds most of its
    # words is a pair ("lasts" finds "The last entry ..."; "permit" finds "Parking ... without a valid permit"), or
    # ties with other sentences on a short claim's words; the splitter reads "zone A. Households ..." as one sentence
    "You can share a ten-visit card, which costs 140 euros and lasts 12 months from your first visit, with your "
    "family, but not with friends. [E1, E2]",
    "If you break a safety rule twice you can be asked to leave, and you won't get a refund. [E7, E8]",
    "To get a permit your main home has to be in the zone, and your car must either be registered at that address or "
    "be a company car backed by a letter from your employer. [E9, E10]",
    "A household can have no more than 3 resident permits, or 2 in zone A. [E9, E10]",
    "Changing the car on your permit costs 12 euros online, but if you move to a different zone you have to apply "
    "and pay again. [E14, E15]",
    "You can only resell a ticket through the hall's resale service and not for more than face value, and the hall "
    "keeps 10% of the price. [E18, E19]",
    "If your bag is larger than 40 by 30 centimetres you have to leave it in the cloakroom, which charges 2 euros "
    "per bag but nothing for coats. [E21]",
    # a "may" of permission read as a hedge, from another sentence that ties with the one restated on the claim's
    # words (and is read, being shorter): "Tickets resold anywhere else may be cancelled without a refund." for "You
    # can't get a refund on a ticket"
    "A zone C permit also lets you park in zone D and the other way round, but other permits only work in their own "
    "zone. [E9, E10]",
    "Each visitor permit is 3 euros and lasts until midnight on the day you activate it, and it only works in your "
    "own zone. [E12, E13]",
    "There's a 2.50 euro booking fee per ticket online and by phone, but none if you buy at the box office. [E16, "
    "E17]",
    "You can't get a refund on a ticket, but you can swap it for another concert in the same season up to 48 hours "
    "beforehand for 3 euros a ticket. [E18, E19]",
    "You can't take photos, film or record during the performance, but photos without flash are fine during the "
    "final applause. [E21]",
    # numbers: a list whose last item has a verb of its own ("students and children aged 8 to 15 pay 11 euros"), a
    # second value in a gapped clause ("a second one 150 euros"), "an hour" and "30 minutes" read
    # against the 60 minutes of the doors, "90 minutes before each concert" against "every"
    "An adult day pass is 16 euros, students and children aged 8 to 15 pay 11 euros, and you can leave and come back "
    "in on the same day. [E1, E2]",
    "You can buy tickets online, by phone or at the box office, which opens from 11:00 to 18:00 Monday to Saturday "
    "and 90 minutes before each concert. [E16, E17]",
    "The doors open an hour before the concert, and you can go into the auditorium from 30 minutes before it starts. "
    "[E20]",
    "A household's first permit is 90 euros a year, a second one 150 euros and a third one 240 euros. [E11]",
    # no check finds fault since the costless and "free shoe hire" readings: the verifier reads "don't cost anything"
    # as contradicted (0.64), and evidence_conflicts flags the membership's chunk against another section's
    "If you're 70 or older, your first 20 visitor permits each year don't cost anything. [E12, E13]",
    "Monthly membership is 58 euros, or 45 euros if you're a student with a valid card, and it gets you unlimited "
    "entry, free shoe hire and two free guest passes a year. [E3, E4]",
}
# Lies still shown verified (README.md names them; not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    # "any seat in the hall" for "in the upper balcony" (a splice of the page's own name, which the verifier entails
    # over the sentence alone)
    "People under 26 and full-time students pay 10 euros for any seat in the hall, but only from 7 days before the "
    "concert. [E16, E17]",
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)


# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_h_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_h_are_still_not_verified,
 test_a_lie_over_corpus_h_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_corpus_h) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                       respond)
