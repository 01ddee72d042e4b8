"""Faithful answers and one-fact lies over corpus e (bench/data/corpus_e: a dental clinic's patient information, a
co-working space's membership terms and a town's allotment garden rules), documents of kinds no earlier round of
wordings was written over (tests/nli/test_corpus_wordings.py, test_corpus_b_wordings.py, test_corpus_c_wordings.py,
test_corpus_d_wordings.py). Each goes through the real pipeline: ControlPlane.respond with a scripted model and the
shipped verifier, over its page's chunks with their titles, in the mode the router decides. Written on 2026-12-07 as a
ninth round, before any of it was run and before any fix of the round: the held-out measure of the eight rounds before
it. README.md gives the figures of its first run and after the fixes it led to, and names the known gaps (asserted
still unverified) and the lies still shown."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_e"
PAGES = ["dental-clinic-patient-info.md", "coworking-membership-terms.md", "allotment-garden-rules.md"]
# the question each chunk answers (E1 ... E12, in page order)
QUESTIONS = {
    "E1": "How do appointments work at Brightwater Dental Clinic?",
    "E2": "What happens if I cancel or miss a dental appointment?",
    "E3": "How do I pay at the dental clinic, and does it work with my insurance?",
    "E4": "What should I do in a dental emergency?",
    "E5": "What membership plans does Dockside Works offer and what do they cost?",
    "E6": "When can I get into Dockside Works?",
    "E7": "How do meeting rooms and guests work at Dockside Works?",
    "E8": "How do I cancel my Dockside Works membership?",
    "E9": "How much does an allotment plot in Millbrook cost?",
    "E10": "What can I grow or build on my allotment?",
    "E11": "What are the allotment rules on water, bonfires and noise?",
    "E12": "How are allotments inspected, and how can a tenancy end?",
}

FAITHFUL = [
    "The clinic is open Monday to Friday from 7:30 to 18:00. [E1]",
    "New patients should come 15 minutes early to complete a health questionnaire and need to bring photo ID. [E1]",
    "A hygienist cleaning lasts 45 minutes, while a check-up takes 30 minutes. [E1]",
    "Arriving more than 10 minutes late may mean rebooking, unless the dentist can still see you that day. [E1]",
    "Children under 16 need a parent or guardian with them at every appointment. [E1]",
    "Cancelling or moving an appointment is free if you do it at least 24 hours before it starts. [E2]",
    "Cancelling less than 24 hours ahead costs 25 euros, and a missed appointment without notice costs 40 euros. [E2]",
    "Your first late cancellation in a calendar year is free of charge. [E2]",
    "After three missed appointments within 12 months, a patient can only book same-day appointments. [E2]",
    "You can pay by card at the end of the visit or by bank transfer within 14 days, but not in cash. [E3]",
    "The clinic bills the Regional Health Fund directly, so fund members only pay a 10 euro co-payment per visit. [E3]",
    "With private insurance, you pay the clinic and claim the cost back yourself with the itemised receipt. [E3]",
    "Treatments over 500 euros can be spread over up to six monthly instalments with no interest. [E3]",
    "Before any treatment costing more than 200 euros, you get a free written cost estimate. [E3]",
    "If you are in severe pain or have knocked out a tooth, call before 10:00 to be seen the same day. [E4]",
    "The clinic keeps two emergency slots free between 8:00 and 9:00 every weekday morning. [E4]",
    "An emergency visit costs 60 euros plus any treatment, but registered patients under 18 pay nothing. [E4]",
    "If swelling spreads to the eye or makes breathing difficult, call 112 immediately instead of waiting. [E4]",
    "The Flex plan is 150 euros a month for any free desk in the open area on up to 10 days a month. [E5]",
    "For 290 euros a month, the Resident plan gives you a fixed desk with a lockable drawer and unlimited access. [E5]",
    "You don't need a membership to buy a 25 euro day pass at the reception. [E5]",
    "Wi-Fi, coffee and tea are included in all prices, but printing costs 10 cents per page. [E5]",
    "The 20% student discount applies only to the Flex plan. [E5]",
    "The reception is staffed on weekdays from 8:30 to 18:00. [E6]",
    "Resident members can use their key card to get in at any hour, every day of the year. [E6]",
    "Flex members and day pass holders can use the space only when the reception is staffed. [E6]",
    "A Resident who enters between 23:00 and 6:00 has to turn off the building alarm with their personal code. [E6]",
    "Meeting rooms are booked through the member app for no more than 4 hours at a time. [E7]",
    "The large meeting room seats 14 people and the small one 6. [E7]",
    "Residents get 8 free meeting room hours a month and Flex members 2; each extra hour costs 20 euros. [E7]",
    "If you cancel a booking less than 2 hours ahead, you pay for it in full even if nobody uses the room. [E7]",
    "Members can bring up to two guests a day for free, but the guests must be signed in and leave by 18:00. [E7]",
    "Memberships renew automatically on the first day of every month. [E8]",
    # STRENGTH_INFLATION: "Members may cancel with ..." read as a hedge the claim leaves out (the negation of the
    # clause after ", and notice given by phone is not accepted" no longer counts against it)
    "To cancel, give one full calendar month's notice in writing by email; notice by phone is not accepted. [E8]",
    "A Resident member on a 12-month contract can only cancel early if they move more than 50 km away. [E8]",
    "Residents get their 300 euro deposit back within 30 days of handing back their key card. [E8]",
    "A full 250 square metre plot costs 80 euros a year, and a half plot costs 45 euros a year. [E9]",
    "The rent has to be paid by 31 January. [E9]",
    "If you haven't paid by 1 March, you lose your plot. [E9]",
    "Residents aged 65 or older and holders of a town benefits card pay half the rent. [E9]",
    "Plots can only be rented by Millbrook residents, and each household can have at most one full plot. [E9]",
    "At least two thirds of a plot must be cultivated with fruit, vegetables or flowers. [E10]",
    "The only trees allowed are dwarf fruit trees up to 2.5 metres tall. [E10]",
    "Each plot may have one shed of up to 6 square metres and one greenhouse of up to 10 square metres. [E10]",
    # STRENGTH_INFLATION: "Chickens and rabbits may be kept only with ..." (the "may" read as a hedge)
    "You need the council's written permission to keep chickens or rabbits, and cockerels are not allowed. [E10]",
    "Mains water is available from April to October, and the rent covers its cost. [E11]",
    "Hoses may only be used to fill water butts, not to water plots directly. [E11]",
    "Sprinklers are never allowed. [E11]",
    "Bonfires of dry garden waste are allowed from November to February between 10:00 and 15:00. [E11]",
    "Power tools like strimmers cannot be used at all on Sundays, and on other days only from 9:00 to 19:00. [E11]",
    "Every plot is inspected twice a year, in May and August. [E12]",
    "A tenant with a neglected plot gets a written warning and then 28 days to cultivate it again. [E12]",
    "You can give up your plot at any time by writing to the council, as long as you leave it clear of rubbish. [E12]",
    "Tenants who leave within their first year get no rent back. [E12]",
]
LIES = [
    "The clinic is open Monday to Saturday from 7:30 to 18:00. [E1]",
    "New patients should arrive 30 minutes early to fill in a health questionnaire. [E1]",
    "A check-up takes 45 minutes. [E1]",
    "Patients who arrive more than 10 minutes late are always asked to rebook. [E1]",
    "Children under 12 must be accompanied by a parent or guardian. [E1]",
    "Appointments can be cancelled free of charge up to 12 hours before they start. [E2]",
    "A missed appointment without notice costs 25 euros. [E2]",
    "No cancellation fees are charged for children under 18. [E2]",
    "Every late cancellation is charged, including the first one in a calendar year. [E2]",
    "Patients who miss three appointments within 12 months can no longer book at the clinic. [E2]",
    "Payment can be made in cash at the end of each visit. [E3]",
    "Members of the Regional Health Fund pay a 20 euro co-payment per visit. [E3]",
    "The clinic bills private insurers directly. [E3]",
    "Treatments costing more than 200 euros can be paid in monthly instalments. [E3]",
    "Treatments over 500 euros can be paid in up to twelve interest-free monthly instalments. [E3]",
    "Patients in severe pain are seen on the same day if they call before noon. [E4]",
    "Three emergency slots are kept free every weekday morning. [E4]",
    "The emergency dental service at Harbour Hospital is open from 9:00 to 17:00 on weekends. [E4]",
    "Emergency visits are free for all patients under 18. [E4]",
    "Patients whose swelling spreads to the eye should call the clinic first. [E4]",
    "The Flex plan gives access on up to 15 days per calendar month. [E5]",
    "The Resident plan costs 250 euros a month. [E5]",
    "Day passes are only sold to members. [E5]",
    "Printing is included in all prices. [E5]",
    "Students get 20% off every plan. [E5]",
    "The reception is staffed from 8:30 to 18:00 every day, including weekends. [E6]",
    "Flex members can enter with their key card at any time. [E6]",
    "Residents who enter between 22:00 and 6:00 must switch off the building alarm. [E6]",
    "Lost key cards are replaced free of charge. [E6]",
    "Meeting rooms can be booked for up to 8 hours at a time. [E7]",
    "The large meeting room seats 20 people. [E7]",
    "Flex members get 8 free meeting room hours a month. [E7]",
    "A booking cancelled less than 2 hours ahead is not charged if the room stays empty. [E7]",
    "Each member may bring up to four guests a day free of charge. [E7]",
    "Members may cancel with two weeks' notice. [E8]",
    "Notice of cancellation can be given by phone. [E8]",
    "Resident members on a 12-month contract can cancel early if they move more than 20 km away. [E8]",
    "The deposit is returned within 60 days after the key card is handed back. [E8]",
    "A full plot costs 45 euros a year. [E9]",
    "Tenants who have not paid the rent by 31 January lose their plot. [E9]",
    "Residents aged 60 or over pay half the rent. [E9]",
    "Non-residents can rent a plot if nobody from Millbrook is on the waiting list. [E9]",
    "A household may hold up to two full plots. [E9]",
    "Tenants must cultivate at least half of their plot. [E10]",
    "Any fruit tree may be planted on a plot. [E10]",
    "A shed of up to 10 square metres is allowed per plot. [E10]",
    "Chickens and rabbits may be kept without permission. [E10]",
    "Mains water is turned on all year round. [E11]",
    "Hoses may be used to water plots directly. [E11]",
    "Sprinklers are allowed in the evening. [E11]",
    "Bonfires are allowed from November to February between 10:00 and 18:00. [E11]",
    "Power tools may be used on Sunday afternoons. [E11]",
    "Plots are inspected four times a year. [E12]",
    "After a written warning, the tenant has 14 days to bring the plot back into cultivation. [E12]",
    "The tenancy of a neglected plot ends at once, without notice. [E12]",
    "Tenants who leave within their first year get back the rent for each full unused month. [E12]",
]
# Faithful answers still refused, asserted as such (README.md, "A ninth round"): the dental pages run at rigor high,
# where the verifier's bar is higher; most others are held to a negation of another clause of the restated sentence
KNOWN_GAPS = {
    "A hygienist cleaning lasts 45 minutes, while a check-up takes 30 minutes. [E1]",  # LOW_ENTAILMENT at rigor high
    "Cancelling less than 24 hours ahead costs 25 euros, and a missed appointment without notice costs 40 euros. [E2]",
    # the atom before ", but not in cash" is held to "..., and cash is not accepted"
    "You can pay by card at the end of the visit or by bank transfer within 14 days, but not in cash. [E3]",
    # the clause after the restated one: ", and children under 18 in the fund pay nothing"
    "The clinic bills the Regional Health Fund directly, so fund members only pay a 10 euro co-payment per visit. [E3]",
    "With private insurance, you pay the clinic and claim the cost back yourself with the itemised receipt. [E3]",
    "Treatments over 500 euros can be spread over up to six monthly instalments with no interest. [E3]",
    "Before any treatment costing more than 200 euros, you get a free written cost estimate. [E3]",
    "If swelling spreads to the eye or makes breathing difficult, call 112 immediately instead of waiting. [E4]",
    "The 20% student discount applies only to the Flex plan. [E5]",  # QUALIFIER_DRIFT: "but not off the Resident plan"
    # STRENGTH_INFLATION: "Members may cancel with ..." read as a hedge the claim leaves out (the negation of the
    # clause after ", and notice given by phone is not accepted" no longer counts against it)
    "To cancel, give one full calendar month's notice in writing by email; notice by phone is not accepted. [E8]",
    # "is due" said as "has to be paid": "paid" is a word of the clause after ", and a tenant who has not paid by 1
    # March loses the plot", so the claim is compared with both clauses and their "not"
    "The rent has to be paid by 31 January. [E9]",
    "Plots can only be rented by Millbrook residents, and each household can have at most one full plot. [E9]",
    "Power tools like strimmers cannot be used at all on Sundays, and on other days only from 9:00 to 19:00. [E11]",
}
# Lies still shown verified (README.md names them; not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    "Meeting rooms can be booked for up to 8 hours at a time. [E7]",  # up to 4 hours; 8 is the Residents' free hours
    "A booking cancelled less than 2 hours ahead is not charged if the room stays empty. [E7]",  # "even if"
    "Tenants who have not paid the rent by 31 January lose their plot. [E9]",  # by 1 March
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)



# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_e_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_e_are_still_not_verified,
 test_a_lie_over_corpus_e_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_the_set) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                      respond)
