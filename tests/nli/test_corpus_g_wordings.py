"""Faithful answers and one-fact lies over corpus g (bench/data/corpus_g: a city hostel's booking and house rules, a
municipal recycling centre's rules for visitors and an evening language school's course terms), documents of kinds no
earlier round of wordings was written over (tests/nli/test_corpus_wordings.py, test_corpus_b_wordings.py,
test_corpus_c_wordings.py, test_corpus_d_wordings.py, test_corpus_e_wordings.py, test_corpus_f_wordings.py). Each goes
through the real pipeline: respond_over_pages with a scripted model and the shipped verifier, over its page's chunks
with their titles. Written on 2026-12-07 as an eleventh round, by an author who had not read the checks, before any of
it was run and before any fix of the round: a held-out measure of the ten rounds before it. README.md gives the figures
of its first run and after the fixes it led to; the known gaps (asserted still unverified) and the lies still shown are
listed below, with their causes, filled in after the first run."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_g"
PAGES = ["hostel-booking-and-house-rules.md", "recycling-centre-rules.md", "evening-language-courses-terms.md"]
# the question each chunk answers (E1 ... E12, in page order)
QUESTIONS = {
    "E1": "When can I check in and out at Kellburg Harbour Hostel, and can I leave my luggage there?",
    "E2": "How do I book a bed at Kellburg Harbour Hostel, and what happens if I cancel?",
    "E3": "What are the hostel's rules on dormitories, quiet hours and children?",
    "E4": "How much does a night at Kellburg Harbour Hostel cost, and what extras are there?",
    "E5": "When is the Westmoor Recycling Centre open?",
    "E6": "Who can use the Westmoor Recycling Centre, and can I come with a van or a trailer?",
    "E7": "What can I bring to the recycling centre for free, and what do I have to pay for?",
    "E8": "How do I get rid of hazardous waste at the recycling centre, and what does it never take?",
    "E9": "Which languages and levels does Dunmere Evening Language School teach, and how big are the classes?",
    "E10": "How much do courses at Dunmere Evening Language School cost, and are there any discounts?",
    "E11": "How do I pay for a language course, and how do I get a certificate?",
    "E12": "Can I cancel a language course and get my money back, and when does a course run?",
}

FAITHFUL = [
    "If you will arrive after 23:00, you have to email reception at least 24 hours beforehand to get a door code. [E1]",
    "You must check out by 10:30, but except on Fridays and Saturdays you can stay until 13:00 for 8 euros. [E1]",
    "At check-in you have to show a passport or an identity card; you can't use a driving licence instead. [E1]",
    "Your luggage is kept for free until 18:00 on the day you leave, and after that each bag costs 3 euros a day. [E1]",
    "The hostel keeps bags for no longer than a week, and it has no storage for bicycles or surfboards. [E1]",
    "You get the 10% discount only if you book online, not when you book by phone or at reception. [E2]",
    "A standard booking can be cancelled at no cost up to 18:00 the day before you arrive; if you cancel later or "
    "don't turn up, you pay for the first night. [E2]",
    "A non-refundable booking saves you 15%, but you can't cancel it, change it or hand it over to someone else. [E2]",
    "If you book for a group of 10 or more, you pay a 30% deposit up front, and free cancellation is only possible "
    "until 14 days before arrival. [E2]",
    "You pay for your stay when you arrive, in cash or by card, unless your booking is non-refundable, in which case "
    "you are charged as soon as you book. [E2]",
    "You have to be 18 or older to sleep in a dormitory, and children aged 3 to 17 can only stay in a private room "
    "with a parent or guardian. [E3]",
    "Besides mixed dormitories of 6 or 8 beds and private double rooms, there is one female-only dormitory, which has "
    "6 beds. [E3]",
    "Between 22:00 and 7:00 you can't play music, make phone calls or gather in groups in the rooms or corridors. [E3]",
    "You may drink alcohol only in the bar and on the terrace, and smoking is banned everywhere indoors, e-cigarettes "
    "too. [E3]",
    "Every dormitory bed comes with a locker, but you have to bring your own padlock or buy one at reception for 5 "
    "euros. [E3]",
    "In a 6-bed dormitory a bed costs 32 euros a night from November to March and 40 euros from April to October. [E4]",
    "A private double room is 79 euros a night whatever the season, and guests aged 16 or over pay 2.50 euros tourist "
    "tax per night on top. [E4]",
    "Breakfast is served between 7:30 and 10:00 and costs 7.50 euros, while children under 12 pay 4 euros. [E4]",
    "You can use the guest kitchen for free between 7:00 and 22:30, but food left in the fridge without your name and "
    "departure date is thrown out on Mondays and Thursdays. [E4]",
    "If you are a member of the hostel association, a dormitory bed costs you 3 euros less per night, though there is "
    "no reduction on private rooms. [E4]",
    "Between 1 April and 30 September the centre is open from 8:00 to 19:00 on Mondays, Tuesdays, Thursdays and "
    "Fridays, and from 8:00 to 17:00 on Saturdays. [E5]",
    "From 1 October to 31 March the opening hours are 9:00 to 16:30, and Saturdays are no different. [E5]",
    "On public holidays the centre is closed, with the exception of Easter Monday, when you can come between 9:00 and "
    "13:00. [E5]",
    "Once the gates shut a quarter of an hour before closing time, no vehicle is let in, even if it is already in the "
    "queue. [E5]",
    "To use the centre you need to show photo ID together with either a council tax bill or a resident permit. [E6]",
    "If you are a tenant who moved in during the past 3 months, you can show a signed tenancy agreement instead of a "
    "council tax bill or resident permit. [E6]",
    "People from outside Westmoor are turned away, apart from Lowbridge residents, who can only bring garden waste. "
    "[E6]",
    "You can come by car as often as you want, but for a van or a car with a trailer you need a van permit, which is "
    "free and covers 12 visits a year. [E6]",
    "Paper, cardboard, glass, metal, textiles and electrical appliances cost nothing to drop off, and neither do up "
    "to 4 bags of household rubbish per visit. [E7]",
    "Rubble, soil and plasterboard are charged at 4 euros for each 40-litre bag, and you can bring no more than 10 "
    "bags in one visit. [E7]",
    "Leaving a tyre costs 5 euros, or 8 euros if it is still on its rim, and a household can bring at most 4 tyres a "
    "year. [E7]",
    "A sofa or a mattress costs 15 euros each, whereas a fridge or a freezer costs nothing. [E7]",
    "You can only pay by card, because the centre does not take cash. [E7]",
    "You can leave paint, solvents, weedkillers, engine oil and car batteries for free, provided no container holds "
    "more than 25 litres and you bring no more than 50 litres in one visit. [E8]",
    "Gas bottles must be empty to be accepted, and each household can bring at most 2 a year. [E8]",
    "You can bring asbestos only on the first Saturday of a month with an appointment, wrapped in heavy plastic, and "
    "no more than 5 sheets a year per household. [E8]",
    "The centre will not take explosives, fireworks, ammunition or fire extinguishers. [E8]",
    "If a contractor did your building work, the centre refuses the waste even when you come with it yourself. [E8]",
    "All five languages are taught from A1 to C2, apart from Italian, which only goes up to B2. [E9]",
    "You can't enrol in a course more than one level above your placement result, but within the first two weeks you "
    "can move down a level at no charge. [E9]",
    "A conversation class has no more than 8 students, while other classes can have up to 12. [E9]",
    "Each course lasts 12 weeks with one lesson of an hour and a half per week, starting at 18:00 or 19:45 on a "
    "weekday evening. [E9]",
    "A standard course is 240 euros and a conversation course 180 euros, and the course book, which costs 25 to 35 "
    "euros, is not included. [E10]",
    "If you are a full-time student or over 65, you pay 15% less, but you cannot also get the 20% discount for a "
    "second course in the same term. [E10]",
    "You save 20 euros if you pay before 1 August for the autumn term or before 1 December for the winter term. [E10]",
    "An employer who pays for at least 3 members of staff gets 10% off each course, though the registration fee is "
    "not reduced. [E10]",
    "Unless you pay a standard course in three monthly instalments of 85 euros by direct debit, the whole fee is due "
    "before the first lesson. [E11]",
    "To get an attendance certificate you must be present at no fewer than 10 of the 12 lessons. [E11]",
    "For a level certificate you also have to pass the final test in week 12, which costs 30 euros, and you can "
    "retake it once for free within a month. [E11]",
    "You can make up a missed lesson only by joining a parallel class at the same level, and no more than twice in a "
    "course. [E11]",
    "A course only goes ahead if 6 or more students have enrolled a week before it begins, and if it doesn't, you can "
    "choose between a full refund and another course. [E12]",
    "If you cancel in writing 14 or more days before the first lesson, you get your fee back except for 20 euros. "
    "[E12]",
    "Cancelling later but before the second lesson gets you half the fee back, and once the second lesson has taken "
    "place you get no refund. [E12]",
    "You can hand your place over to someone else free of charge, but only once and only before the third lesson. "
    "[E12]",
]
LIES = [
    "If you will arrive after 23:00, you have to email reception at least 48 hours beforehand to get a door code. [E1]",
    "Late check-out until 13:00 costs 8 euros and is available on every day of the week. [E1]",
    "At check-in you can show a passport, an identity card or a driving licence. [E1]",
    "Your luggage is kept for free until 20:00 on the day you leave. [E1]",
    "Reception is staffed day and night all year round. [E1]",
    "You get the 10% discount if you book online or by phone. [E2]",
    "A standard booking can be cancelled at no cost until 18:00 on the day you arrive. [E2]",
    "A non-refundable booking can't be cancelled, but you can hand it over to another guest. [E2]",
    "If you book for a group of 10 or more, you pay a 50% deposit up front. [E2]",
    "If you have neither arrived nor called by midnight, you lose the first night but keep the rest of the booking. "
    "[E2]",
    "You have to be 16 or older to sleep in a dormitory. [E3]",
    "Children aged 3 to 17 can stay in a dormitory if a parent or guardian sleeps in the same room. [E3]",
    "Quiet hours run from 23:00 to 7:00. [E3]",
    "You can buy a padlock at reception for 3 euros. [E3]",
    "You may drink alcohol in the dormitories, but not in the corridors. [E3]",
    "From April to October a bed in an 8-bed dormitory costs 38 euros a night. [E4]",
    "A bed in a 6-bed dormitory costs 4 euros less than one in an 8-bed dormitory. [E4]",
    "The tourist tax of 2.50 euros per night is added for every guest, children included. [E4]",
    "Breakfast is free for children under 12. [E4]",
    "Members of the hostel association get 3 euros off each night in a private room as well. [E4]",
    "The centre is closed on Mondays and Sundays all year. [E5]",
    "Between 1 April and 30 September the centre is open until 19:00 on Saturdays. [E5]",
    "From 1 October to 31 March the centre is closed on Saturdays. [E5]",
    "The centre opens on every public holiday from 9:00 to 13:00. [E5]",
    "Vehicles already queuing when the gates shut are still let in. [E5]",
    "You need to show a council tax bill, because a resident permit is not accepted. [E6]",
    "Lowbridge residents can bring any household waste to the centre. [E6]",
    "Charities may use the centre free of charge. [E6]",
    "A van permit costs 20 euros and covers 12 visits a year. [E6]",
    "With a van permit you can come in a van of up to 5 tonnes. [E6]",
    "You can drop off up to 6 bags of household rubbish per visit for free. [E7]",
    "Plasterboard is accepted free of charge. [E7]",
    "A tyre without its rim costs 8 euros to leave. [E7]",
    "Fridges and freezers cost 15 euros each. [E7]",
    "You can pay in cash or by card. [E7]",
    "Paint and engine oil are accepted in containers of up to 50 litres. [E8]",
    "If the hazardous waste cabin is closed, you may leave hazardous waste beside the containers. [E8]",
    "Full gas bottles are accepted if you hand them to a member of staff. [E8]",
    "You can bring asbestos on any Saturday without an appointment. [E8]",
    "Waste from building work done by a contractor is accepted if the householder comes along. [E8]",
    "Italian is taught at all six levels from A1 to C2. [E9]",
    "You can enrol in a course up to two levels above your placement result. [E9]",
    "A conversation class can have up to 12 students. [E9]",
    "Each weekly lesson lasts 60 minutes. [E9]",
    "The course book is included in the course fee. [E10]",
    "Full-time students can combine the 15% discount with the 20% discount for a second course in the same term. [E10]",
    "An employer who pays for at least 3 members of staff gets 10% off each course and off the registration fee. [E10]",
    "Returning students pay the 15 euro registration fee again for every course. [E10]",
    "A conversation course can also be paid in three monthly instalments. [E11]",
    "To get an attendance certificate you must attend at least 75% of the lessons. [E11]",
    "The final test in week 12 is free of charge. [E11]",
    "You can make up missed lessons in a parallel class as often as you need to. [E11]",
    "A course goes ahead if at least 4 students have enrolled a week before it begins. [E12]",
    "If you cancel in writing 14 or more days before the first lesson, you get the whole fee back. [E12]",
    "If you cancel after the second lesson, half the fee is still refunded. [E12]",
    "The registration fee is refunded if you cancel at least 14 days before the first lesson. [E12]",
]
# Faithful answers still refused, asserted as such (README.md, "An eleventh round")
KNOWN_GAPS = {
    # the recycling centre's questions (E5-E8) route to System mode, rigor high: the verifier's entailment of its
    # lists and hours falls below the bar of 0.57 (several lists split into broken atoms: "The centre will not take
    # explosives fireworks."), and the semantic critic this harness does not load answers CRITIC_UNAVAILABLE
    "Between 1 April and 30 September the centre is open from 8:00 to 19:00 on Mondays, Tuesdays, Thursdays and "
    "Fridays, and from 8:00 to 17:00 on Saturdays. [E5]",
    "From 1 October to 31 March the opening hours are 9:00 to 16:30, and Saturdays are no different. [E5]",
    "On public holidays the centre is closed, with the exception of Easter Monday, when you can come between 9:00 "
    "and 13:00. [E5]",
    "Once the gates shut a quarter of an hour before closing time, no vehicle is let in, even if it is already in "
    "the queue. [E5]",
    "People from outside Westmoor are turned away, apart from Lowbridge residents, who can only bring garden waste. "
    "[E6]",
    "You can come by car as often as you want, but for a van or a car with a trailer you need a van permit, which is "
    "free and covers 12 visits a year. [E6]",
    "Paper, cardboard, glass, metal, textiles and electrical appliances cost nothing to drop off, and neither do up "
    "to 4 bags of household rubbish per visit. [E7]",
    "Rubble, soil and plasterboard are charged at 4 euros for each 40-litre bag, and you can bring no more than 10 "
    "bags in one visit. [E7]",
    "Leaving a tyre costs 5 euros, or 8 euros if it is still on its rim, and a household can bring at most 4 tyres a "
    "year. [E7]",
    "A sofa or a mattress costs 15 euros each, whereas a fridge or a freezer costs nothing. [E7]",
    "You can only pay by card, because the centre does not take cash. [E7]",
    "You can leave paint, solvents, weedkillers, engine oil and car batteries for free, provided no container holds "
    "more than 25 litres and you bring no more than 50 litres in one visit. [E8]",
    "Gas bottles must be empty to be accepted, and each household can bring at most 2 a year. [E8]",
    "The centre will not take explosives, fireworks, ammunition or fire extinguishers. [E8]",
    "If a contractor did your building work, the centre refuses the waste even when you come with it yourself. [E8]",
    # the hostel's and the school's, at rigor low: a negation of another clause or of the next sentence read with the
    # claim's ("a one-off registration fee ..., which returning students do not pay again"), a claim split into
    # atoms at an "and" inside a list ("... without your name and departure date"), a rule's "may" read as a hedge
    # where the sentence states no rule word, numbers derived by arithmetic ("4 euros more": 32 and 40) or said
    # otherwise ("an hour and a half" for 90 minutes), and words the page does not use ("hand it over", "goes
    # ahead" and "a week" for "runs" and "7 days";
    # "keeps" for "kept", which stem apart: an irregular past read as its verb freed more contradicted and neutral
    # dev/nli-train pairs than entailed ones)
    "The hostel keeps bags for no longer than a week, and it has no storage for bicycles or surfboards. [E1]",
    "A non-refundable booking saves you 15%, but you can't cancel it, change it or hand it over to someone else. "
    "[E2]",
    "You pay for your stay when you arrive, in cash or by card, unless your booking is non-refundable, in which case "
    "you are charged as soon as you book. [E2]",
    "You have to be 18 or older to sleep in a dormitory, and children aged 3 to 17 can only stay in a private room "
    "with a parent or guardian. [E3]",
    "In a 6-bed dormitory a bed costs 32 euros a night from November to March and 40 euros from April to October. "
    "[E4]",
    "You can use the guest kitchen for free between 7:00 and 22:30, but food left in the fridge without your name "
    "and departure date is thrown out on Mondays and Thursdays. [E4]",
    "If you are a member of the hostel association, a dormitory bed costs you 3 euros less per night, though there "
    "is no reduction on private rooms. [E4]",
    "All five languages are taught from A1 to C2, apart from Italian, which only goes up to B2. [E9]",
    "Each course lasts 12 weeks with one lesson of an hour and a half per week, starting at 18:00 or 19:45 on a "
    "weekday evening. [E9]",
    "A standard course is 240 euros and a conversation course 180 euros, and the course book, which costs 25 to 35 "
    "euros, is not included. [E10]",
    "If you are a full-time student or over 65, you pay 15% less, but you cannot also get the 20% discount for a "
    "second course in the same term. [E10]",
    "To get an attendance certificate you must be present at no fewer than 10 of the 12 lessons. [E11]",
    "A course only goes ahead if 6 or more students have enrolled a week before it begins, and if it doesn't, you "
    "can choose between a full refund and another course. [E12]",
}
# Lies still shown verified (README.md names them; not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    # what the sentence says of the rest of a booking read as kept ("the rest of the booking is cancelled"); an
    # antonym read over two sentences ("closed" on Saturdays over "... Saturdays included. It is closed on public
    # holidays ..."); and "nothing is" after the second lesson, a clause with no words of its own (a
    # rule for it refused the faithful "Until the second lesson, half the fee is refunded.")
    "If you have neither arrived nor called by midnight, you lose the first night but keep the rest of the booking. "
    "[E2]",
    "From 1 October to 31 March the centre is closed on Saturdays. [E5]",
    "If you cancel after the second lesson, half the fee is still refunded. [E12]",
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)


# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_g_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_g_are_still_not_verified,
 test_a_lie_over_corpus_g_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_corpus_g) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                       respond)
