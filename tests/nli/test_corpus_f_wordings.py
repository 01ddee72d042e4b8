"""Faithful answers and one-fact lies over corpus f (bench/data/corpus_f: a city swimming pool's rules and prices, a car
rental agreement summary and a pharmacy's prescription services), documents of kinds no earlier round of wordings was
written over (tests/nli/test_corpus_wordings.py, test_corpus_b_wordings.py, test_corpus_c_wordings.py,
test_corpus_d_wordings.py, test_corpus_e_wordings.py). Each goes through the real pipeline: respond_over_pages with a
scripted model and the shipped verifier, over its page's chunks with their titles. Written on 2026-12-07 as a tenth
round, by an author who had not read the checks, before any of it was run and before any fix of the round: a held-out
measure of the nine rounds before it. README.md gives the figures of its first run and after the fixes it led to; the
known gaps (asserted still unverified) and the lies still shown are listed below, each with its cause, filled in after
the first run."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_f"
PAGES = ["city-swimming-pool-rules.md", "car-rental-agreement-summary.md", "pharmacy-prescription-services.md"]
# the question each chunk answers (E1 ... E12, in page order)
QUESTIONS = {
    "E1": "When is Riverside City Pool open?",
    "E2": "How much does it cost to swim at Riverside City Pool?",
    "E3": "What are the pool's rules on lanes, children and diving?",
    "E4": "How do lockers, lost property and swimming lessons work at the pool?",
    "E5": "Who can drive a Northway rental car, and how does the deposit work?",
    "E6": "What are Northway's rules on fuel and mileage?",
    "E7": "What happens if I return a Northway car late, and what does the insurance cover?",
    "E8": "Can I take a Northway car abroad, and how do I cancel a booking?",
    "E9": "How do I order a repeat prescription at Elm Street Pharmacy?",
    "E10": "When can I collect my prescription, and who can collect it?",
    "E11": "Does Elm Street Pharmacy deliver medicines to my home?",
    "E12": "Can I get an emergency supply of my medicine, and what do prescriptions cost?",
}

FAITHFUL = [
    "From 1 May to 30 September, the pool opens at 6:30 and closes at 21:00 on weekdays. [E1]",
    "Between 1 October and 30 April you can swim on weekdays from 7:00 to 20:00 and at "
    "weekends from 9:00 to 17:00. [E1]",
    "The pool is closed on 25 December and 1 January, while other public holidays follow the weekend hours. [E1]",
    "The last entry is 45 minutes before closing, and you must be out of the water 15 "
    "minutes before the pool closes. [E1]",
    "The learner pool never opens before 10:00, and on weekdays before 9:00 the main pool "
    "is for lane swimming only. [E1]",
    "An adult pays 5.50 euros for a single swim, a child aged 4 to 15 pays 3 euros, and under-4s get in free. [E2]",
    "If you are 65 or older, or a student with a valid student card, a swim costs you 4 euros. [E2]",
    "A 10-swim card is 45 euros for an adult or 25 euros for a child, and it stays valid for "
    "12 months after you buy it. [E2]",
    "The 15 euro family ticket covers two adults and up to three children, and on weekdays "
    "it is only sold from 16:00. [E2]",
    "You can pay for tickets in cash or by card, although 10-swim cards can only be paid for by card. [E2]",
    "The main pool's six 25-metre lanes are marked slow, medium and fast, and you keep right and "
    "overtake only at the wall. [E3]",
    "An adult must be in the water with a child under 8 at all times, and one adult can look after no more "
    "than two children under 8. [E3]",
    "Children aged 8 to 11 can swim without an adult in the water only if they can swim 25 metres unaided, and an "
    "adult has to stay in the building. [E3]",
    "You may dive only at the deep end, which is 3.8 metres deep, and never during lane-swimming sessions. [E3]",
    "The lockers need a 1 euro coin, which you get back when you open the locker. [E4]",
    "Lost property is kept for 30 days before going to charity, but keys and bank cards go "
    "to the police after 7 days. [E4]",
    "Group lessons for children cost 80 euros for a 10-week term and are held on Wednesday "
    "afternoons and Saturday mornings. [E4]",
    "Adult lessons are on Monday evenings at 19:30, an 8-week course costs 95 euros, and a "
    "class has at most 6 learners. [E4]",
    "You must be at least 21 and have held a full driving licence for at least 2 years to drive the car. [E5]",
    "Drivers aged 21 to 24 pay an extra 12 euros a day as a young driver surcharge. [E5]",
    "If you are over 75, you can only rent with a doctor's letter confirming that you are fit to drive. [E5]",
    "The 300 euro deposit is blocked on a credit card in the main driver's name at collection, and it cannot be paid "
    "by debit card or in cash. [E5]",
    "You can add at most two additional drivers at 8 euros a day each, and the main driver's spouse or "
    "partner is added for free. [E5]",
    "You get the car with a full tank and must bring it back full, or you pay 2.40 euros a litre for the missing "
    "fuel plus a 25 euro service fee. [E6]",
    "Each rental includes 250 km a day, with no more than 1,500 km in total, and every extra "
    "kilometre costs 0.20 euros. [E6]",
    "If you rent for 14 days or more, mileage is unlimited, unless you rent a van. [E6]",
    "An electric car is handed over with at least 80% charge, and you pay no charging fee if you "
    "return it with at least 20%. [E6]",
    "If an electric car comes back with less than 20% charge, a flat 30 euro charging fee applies. [E6]",
    "Returning the car up to 29 minutes late costs nothing extra. [E7]",
    "If you are between 30 minutes and 3 hours late, you pay 15 euros for every started hour, and after 3 hours you "
    "pay for a full extra day. [E7]",
    "The car has to go back to the branch you collected it from, unless you booked a one-way rental for 90 euros. [E7]",
    "Basic cover comes with every rental, but it carries a 1,200 euro excess for damage and theft. [E7]",
    "For 18 euros a day, Full Cover brings the excess down to zero, though not for damage to the tyres, the "
    "windscreen or the underside of the car. [E7]",
    "You can drive the car in Germany, Austria, France, Belgium, the Netherlands and Luxembourg "
    "without telling the branch. [E8]",
    "Taking the car to another EU country or to Switzerland is only allowed if you register it at collection and pay "
    "a one-off fee of 35 euros. [E8]",
    "You can cancel a booking for free up to 48 hours before the collection time, and a later "
    "cancellation costs one day's rental. [E8]",
    "Saver rate prepaid bookings can't be cancelled or changed, and you get no refund for them. [E8]",
    "You can order repeat prescriptions through the pharmacy app, by email or at the "
    "counter, but not over the phone. [E9]",
    "Order at least 5 working days before you need the medicine, since the pharmacy has to request the "
    "prescription from your GP. [E9]",
    "You can order up to 3 months' supply at a time, but not more than 10 days before "
    "your current supply runs out. [E9]",
    "You get a text message when your medicine is ready, and if you don't collect it within 14 "
    "days it goes back into stock. [E9]",
    "On weekdays the pharmacy is open from 8:30 to 19:00, and on Saturdays from 9:00 to 13:00. [E10]",
    "On weekdays you can't collect prescriptions between 13:00 and 14:00, because the "
    "dispensary is closed for lunch. [E10]",
    "A relative or carer can pick up your prescription if they give your name, address and date of birth. [E10]",
    "Controlled drugs such as strong painkillers are only handed over to someone who shows photo ID, and "
    "never to anyone under 18. [E10]",
    "If you are 70 or over or housebound and live within 5 km of the pharmacy, delivery is free. [E11]",
    "Everyone else within 5 km pays 3.50 euros per delivery, and the pharmacy does not deliver beyond 5 km. [E11]",
    "Deliveries go out on weekdays between 10:00 and 16:00, and an order placed by 11:00 "
    "is delivered the same day. [E11]",
    "Medicines that need a fridge and controlled drugs are only delivered when someone is "
    "at home to sign for them. [E11]",
    "If you run out of a regular medicine while your GP surgery is closed, the pharmacist can give you up to 5 days' "
    "emergency supply, but not of controlled drugs. [E12]",
    "To get an emergency supply, you have to show proof of your earlier prescription, such as the repeat "
    "slip or the empty packaging. [E12]",
    "Each prescription item costs 9.90 euros, or you can buy a 12-month prepayment certificate covering "
    "every item for 114.50 euros. [E12]",
    "Children under 16, full-time students aged 16 to 18, people aged 60 or over, pregnant women and holders of a "
    "valid medical exemption certificate pay nothing. [E12]",
    "Unless you are exempt, an emergency supply costs the same as one prescription item. [E12]",
]
LIES = [
    "From 1 May to 30 September the pool opens at 7:00 on weekdays. [E1]",
    "From 1 October to 30 April the pool is open until 21:00 on weekdays. [E1]",
    "The pool is closed on all public holidays. [E1]",
    "The pool closes for maintenance during the last two weeks of March. [E1]",
    "Last entry is 15 minutes before closing time. [E1]",
    "A single adult swim costs 6.50 euros. [E2]",
    "Children under 5 swim free. [E2]",
    "Unused swims on a 10-swim card are refunded. [E2]",
    "The family ticket can be bought at any time on weekdays. [E2]",
    "Use of the sauna is included in the adult ticket. [E2]",
    "The main pool has eight 25-metre lanes. [E3]",
    "One adult may supervise up to three children under 8. [E3]",
    "Children aged 8 to 11 who can swim 25 metres unaided may come to the pool without an adult. [E3]",
    "Diving is allowed at the deep end during lane-swimming sessions. [E3]",
    "Food may be brought onto the poolside, but glass bottles may not. [E3]",
    "Lockers take a 2 euro coin, which is returned when the locker is opened. [E4]",
    "All lost property, including keys and bank cards, is kept for 30 days. [E4]",
    "Children's group lessons are held on Wednesday and Saturday mornings. [E4]",
    "Adult swimming classes take up to 10 learners. [E4]",
    "A missed lesson is refunded if a doctor's note is handed in within 14 days. [E4]",
    "Every driver must be at least 25 years old. [E5]",
    "The young driver surcharge of 12 euros a day applies to drivers aged 21 to 27. [E5]",
    "The deposit can be paid by debit card. [E5]",
    "The deposit is released within 5 working days after the car is returned undamaged. [E5]",
    "Missing fuel is charged at 2.40 euros a litre, with no service fee. [E6]",
    "Each rental includes 300 km a day. [E6]",
    "Rentals of 7 days or more have unlimited mileage. [E6]",
    "Vans have unlimited mileage on rentals of 14 days or more. [E6]",
    "Charging cards for public stations are included with electric cars. [E6]",
    "A car returned up to 59 minutes late is not charged extra. [E7]",
    "A car returned more than 3 hours late is charged 15 euros for each started hour. [E7]",
    "Basic cover has an excess of 1,500 euros for damage and theft. [E7]",
    "Full Cover reduces the excess to zero for all damage, including the tyres and the windscreen. [E7]",
    "Damage caused by a driver who is not named in the agreement is covered by Full Cover. [E7]",
    "The car may be driven in Switzerland without registering it at collection. [E8]",
    "Travel to other EU countries costs 35 euros a day. [E8]",
    "Bookings can be cancelled free of charge up to 24 hours before collection. [E8]",
    "A customer who does not turn up at all is charged one day's rental. [E8]",
    "Prepaid bookings at the Saver rate can be changed, but they are not refunded. [E8]",
    "Repeat prescriptions can be ordered by phone. [E9]",
    "Repeat orders must be placed at least 3 working days before the medicine is needed. [E9]",
    "Up to 6 months' supply can be ordered at once. [E9]",
    "Medicines that are not collected within 28 days are returned to stock. [E9]",
    "The pharmacy is open on Sunday mornings. [E10]",
    "On Saturdays the pharmacy is open from 9:00 to 17:00. [E10]",
    "Prescriptions cannot be collected between 12:00 and 13:00 on weekdays. [E10]",
    "Controlled drugs can be collected without photo ID if the patient's date of birth is given. [E10]",
    "A prescription for a controlled drug is valid for 6 months. [E10]",
    "Delivery is free for all patients aged 65 or over who live within 5 km of the pharmacy. [E11]",
    "Patients who live more than 5 km away can have medicines delivered for 3.50 euros. [E11]",
    "Orders placed by 14:00 are delivered the same day. [E11]",
    "Medicines that must be kept in a fridge are left at the door if nobody is at home. [E11]",
    "The pharmacist can give an emergency supply of up to 14 days. [E12]",
    "An emergency supply can include controlled drugs. [E12]",
    "A 12-month prescription prepayment certificate costs 104.50 euros. [E12]",
    "People aged 60 or over pay half the prescription charge. [E12]",
]
# empty until the first run (filled in by someone else afterwards)
# Faithful answers still refused, asserted as such (README.md, "A tenth round")
KNOWN_GAPS = {
    # the pharmacy's questions name prescriptions: the medical domain, where the shipped bundle needs two independent
    # sources (INSUFFICIENT_SOURCES) and the page is one; the reply says so. By policy, not by a check.
    "You can order repeat prescriptions through the pharmacy app, by email or at the counter, but not over the phone. "
    "[E9]",
    "Order at least 5 working days before you need the medicine, since the pharmacy has to request the prescription "
    "from your GP. [E9]",
    "You can order up to 3 months' supply at a time, but not more than 10 days before your current supply runs out. "
    "[E9]",
    "You get a text message when your medicine is ready, and if you don't collect it within 14 days it goes back into "
    "stock. [E9]",
    "On weekdays the pharmacy is open from 8:30 to 19:00, and on Saturdays from 9:00 to 13:00. [E10]",
    "On weekdays you can't collect prescriptions between 13:00 and 14:00, because the dispensary is closed for lunch. "
    "[E10]",
    "A relative or carer can pick up your prescription if they give your name, address and date of birth. [E10]",
    "Controlled drugs such as strong painkillers are only handed over to someone who shows photo ID, and never to "
    "anyone under 18. [E10]",
    "Everyone else within 5 km pays 3.50 euros per delivery, and the pharmacy does not deliver beyond 5 km. [E11]",
    "If you run out of a regular medicine while your GP surgery is closed, the pharmacist can give you up to 5 days' "
    "emergency supply, but not of controlled drugs. [E12]",
    "To get an emergency supply, you have to show proof of your earlier prescription, such as the repeat slip or the "
    "empty packaging. [E12]",
    "Each prescription item costs 9.90 euros, or you can buy a 12-month prepayment certificate covering every item for "
    "114.50 euros. [E12]",
    "Children under 16, full-time students aged 16 to 18, people aged 60 or over, pregnant women and holders of a valid "
    "medical exemption certificate pay nothing. [E12]",
    "Unless you are exempt, an emergency supply costs the same as one prescription item. [E12]",
    # NUMBER_MISMATCH: the binding check reads "weekdays" with the next sentence's "before 9:00"
    "Between 1 October and 30 April you can swim on weekdays from 7:00 to 20:00 and at weekends from 9:00 to 17:00. "
    "[E1]",
    # a broken atom ("Up to three children, and on weekdays it is only sold from 16:00.") draws on both clauses, and
    # "only sold from 16:00" says ", but it is not sold on weekdays before 16:00" without a "not"
    "The 15 euro family ticket covers two adults and up to three children, and on weekdays it is only sold from "
    "16:00. [E2]",
    # "One adult" read as a number the page does not state (the rules' "may" of the clause beside it no longer counts)
    "An adult must be in the water with a child under 8 at all times, and one adult can look after no more than two "
    "children under 8. [E3]",
    "The lockers need a 1 euro coin, which you get back when you open the locker. [E4]",  # 43% of its words
    # read over two sentences: "there is no charging fee if they are returned with at least 20%" is drawn on too
    "If an electric car comes back with less than 20% charge, a flat 30 euro charging fee applies. [E6]",
    # ", but from 30 minutes to 3 hours late ...": no subject and verb of its own, so read with the clause before and
    # its "not charged extra"
    "If you are between 30 minutes and 3 hours late, you pay 15 euros for every started hour, and after 3 hours you "
    "pay for a full extra day. [E7]",
    # each country an atom without "without telling the branch", whose "without" the sentence keeps
    "You can drive the car in Germany, Austria, France, Belgium, the Netherlands and Luxembourg without telling the "
    "branch. [E8]",
    # a broken atom ("... or to Switzerland pay a one-off fee") draws "car" from ", and the car may not be taken ..."
    "Taking the car to another EU country or to Switzerland is only allowed if you register it at collection and pay "
    "a one-off fee of 35 euros. [E8]",
}
# Lies still shown verified (README.md names them; not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    # "... may swim without an adult in the water if they can swim 25 metres unaided, but an adult must stay in the
    # building": "in the water" left out; the verifier entails it
    "Children aged 8 to 11 who can swim 25 metres unaided may come to the pool without an adult. [E3]",
    # "on Wednesday afternoons and Saturday mornings": "mornings" said of both days
    "Children's group lessons are held on Wednesday and Saturday mornings. [E4]",
    # "delivered only if someone is at home to sign for them"; the next sentence's "a card is left at the door"
    # holds the claim's words
    "Medicines that must be kept in a fridge are left at the door if nobody is at home. [E11]",
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)



# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_f_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_f_are_still_not_verified,
 test_a_lie_over_corpus_f_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_the_set) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                      respond)
