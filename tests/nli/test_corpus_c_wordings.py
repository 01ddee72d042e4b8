"""Faithful answers and one-fact lies over corpus c (bench/data/corpus_c: a museum's visitor guide, a ferry operator's
travel conditions and an espresso machine's care manual), documents of kinds no earlier round of wordings was written
over (tests/nli/test_corpus_wordings.py, tests/nli/test_corpus_b_wordings.py). Each goes through the real pipeline:
ControlPlane.respond with a scripted model and the shipped verifier, over its page's chunks with their titles, in the
mode the router decides. Written on 2026-12-06 as a seventh round, before any was run; README.md gives the figures
before and after the fixes they led to, and names the known gaps (asserted still unverified) and the lies still
shown."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_c"
PAGES = ["museum-visitor-guide.md", "ferry-conditions.md", "espresso-machine-manual.md"]
# the question each chunk answers (E1 ... E12, in page order)
QUESTIONS = {
    "E1": "When is the museum open?", "E2": "How much are museum tickets?",
    "E3": "What are the rules during a museum visit?", "E4": "Is the museum accessible?",
    "E5": "How do I book and check in for the ferry?", "E6": "Can I change or cancel my ferry ticket?",
    "E7": "What do vehicles pay on the ferry?", "E8": "Can I bring my pet on the ferry?",
    "E9": "How do I care for the Brava E2 every day?", "E10": "How do I descale the Brava E2?",
    "E11": "When do I replace the Brava E2's water filter?", "E12": "What does the Brava E2 warranty cover?",
}

FAITHFUL = [
    "The museum is closed on Mondays unless it is a public holiday. [E1]",
    "On Thursdays the museum is open until 21:00. [E1]",
    "Last admission is 45 minutes before the museum closes. [E1]",
    "From Tuesday to Sunday the museum opens at 10:00. [E1]",
    "The museum is closed on Christmas Day and New Year's Day. [E1]",
    "Adults pay 18 euros for a ticket. [E2]",
    "Entry is free for visitors younger than 18. [E2]",
    "Students with a valid student card pay 9 euros. [E2]",
    "Online tickets cannot be refunded. [E2]",
    "An online ticket can be moved to another date up to 24 hours before the visit. [E2]",
    "Groups of 15 or more people have to book at least two weeks ahead. [E2]",
    "Large bags must be left in the free lockers on the ground floor. [E3]",
    "Photography is not allowed in temporary exhibitions. [E3]",
    "You can eat and drink only in the café on the first floor. [E3]",
    "English guided tours last about 90 minutes. [E3]",
    "On weekends, guided tours in English start at 11:00 and 14:00. [E3]",
    "Every floor is reachable by lift. [E4]",
    "Wheelchairs can be borrowed for free at the information desk. [E4]",
    "No deposit is needed to borrow a wheelchair. [E4]",
    "There is a quiet room on the second floor. [E4]",
    "Foot passengers need to check in at least 30 minutes before departure. [E5]",
    "Vehicles must be checked in no later than 60 minutes before departure. [E5]",
    "Check-in closes 15 minutes before departure. [E5]",
    "Tickets can also be booked in the Nordkyst app. [E5]",
    "Flex tickets can be cancelled free of charge until two hours before departure. [E6]",
    "Changing a Basic ticket costs 25 euros per booking. [E6]",
    "A cancelled Basic ticket is not refunded. [E6]",
    "When a sailing is cancelled because of the weather, passengers can ask for a full refund. [E6]",
    "Electric cars can only be charged on board on the Bergen route. [E7]",
    "The oversize fare is charged per metre. [E7]",
    "The crew straps down motorcycles. [E7]",
    "Dogs and cats are allowed on every route. [E8]",
    "On crossings of more than four hours, pets must stay in a pet cabin or in the owner's vehicle. [E8]",
    "On shorter crossings pets may stay on the outer deck if they are on a lead. [E8]",
    "The drip tray and the grounds container should be emptied daily. [E9]",
    "The portafilter must not go in the dishwasher. [E9]",
    "After each use, purge the steam wand for two seconds. [E9]",
    "With hard water, the machine should be descaled every month. [E10]",
    "Vinegar damages the seals. [E10]",
    "Descaling takes about 25 minutes. [E10]",
    "When descaling is due, the orange light flashes. [E10]",
    "The water filter is replaced every two months or after 60 litres, whichever comes first. [E11]",
    "Soak a new filter in cold water for five minutes before inserting it. [E11]",
    "The warranty lasts two years from the date of purchase. [E12]",
    "Damage caused by limescale is not covered by the warranty. [E12]",
    "Repairs are usually done within 10 working days. [E12]",
]
LIES = [
    "The museum is open on Mondays. [E1]",
    "On Thursdays the museum stays open until 22:00. [E1]",
    "The last admission is 30 minutes before closing. [E1]",
    "The museum is closed on Tuesdays. [E1]",
    "On Fridays the museum stays open until 21:00. [E1]",
    "Visitors under 12 enter free. [E2]",
    "Students pay 18 euros. [E2]",
    "Online tickets can be refunded up to 24 hours before the visit. [E2]",
    "Groups of 10 people or more must book in advance. [E2]",
    "Holders of a Halden city pass enter free. [E2]",
    "Photography without flash is allowed in temporary exhibitions. [E3]",
    "The lockers on the ground floor cost 2 euros. [E3]",
    "Food and drinks may be consumed anywhere in the museum. [E3]",
    "Guided tours in English start at 11:00 and 14:00 every day. [E3]",
    "Guided tours in English last about 60 minutes. [E3]",
    "A deposit is required to borrow a wheelchair. [E4]",
    "Assistance dogs are welcome only on the ground floor. [E4]",
    "The quiet room is on the first floor. [E4]",
    "Foot passengers must check in at least 60 minutes before departure. [E5]",
    "Check-in closes 30 minutes before departure. [E5]",
    "Tickets can only be booked online. [E5]",
    "Passengers who arrive after check-in has closed may still board. [E5]",
    "A Basic ticket can be cancelled free of charge until two hours before departure. [E6]",
    "Changing a Flex ticket costs 25 euros per booking. [E6]",
    "A Basic ticket is refunded if cancelled. [E6]",
    "If a sailing is cancelled because of weather, passengers are rebooked for a fee of 25 euros. [E6]",
    "Cars up to 6 metres long travel at the standard vehicle fare. [E7]",
    "Electric cars can be charged on board on every route. [E7]",
    "Motorcycle owners must strap down their motorcycles themselves. [E7]",
    "The oversize fare is a fixed amount per vehicle. [E7]",
    "On crossings longer than two hours, pets must stay in a pet cabin or in the owner's vehicle. [E8]",
    "Only dogs may travel on Nordkyst ferries. [E8]",
    "On crossings longer than four hours, pets may stay on the outer deck on a lead. [E8]",
    "The portafilter can be put in the dishwasher. [E9]",
    "Purge the steam wand for ten seconds after each use. [E9]",
    "Empty the drip tray once a week. [E9]",
    "Descale the machine every 3 months if your water is hard. [E10]",
    "Vinegar can be used to descale the machine. [E10]",
    "A descaling cycle takes about 45 minutes. [E10]",
    "The red light flashes when descaling is due. [E10]",
    "Replace the water filter every six months. [E11]",
    "A new filter must be soaked in warm water before it is inserted. [E11]",
    "The filter can be used with sparkling water. [E11]",
    "The machine has a three-year warranty. [E12]",
    "The warranty covers damage caused by limescale. [E12]",
    "Repairs are usually completed within 5 working days. [E12]",
    "To make a claim, no proof of purchase is needed. [E12]",
]
# Faithful answers still refused, each named in README.md
KNOWN_GAPS = {
    # a splice: "the museum is" for "it stays", and the verifier reads the evidence's sentence alone at 0.54 < 0.57
    "On Thursdays the museum is open until 21:00. [E1]",
    # the evidence's "may travel" put as "are allowed", words of another sentence; the verifier alone reads it at 0.53
    "Dogs and cats are allowed on every route. [E8]",
    "The museum is closed on Christmas Day and New Year's Day. [E1]",  # the holidays' dates, not their names
    "Entry is free for visitors younger than 18. [E2]",  # an opening "Entry" read as a name (the page says "enter")
    # the negation check does not cut at ", but": "... cannot be refunded, but they can be moved ..."
    "An online ticket can be moved to another date up to 24 hours before the visit. [E2]",
    # the statement restated with its pronoun's antecedent, "Photography without flash", whose "without" is counted
    "Photography is not allowed in temporary exhibitions. [E3]",
    "No deposit is needed to borrow a wheelchair. [E4]",  # the verifier reads it as contradicted, 0.76
    # the "no" of "no later than" counted as a negation (exempting it was measured: as many lies freed as faithful)
    "Vehicles must be checked in no later than 60 minutes before departure. [E5]",
    "Changing a Basic ticket costs 25 euros per booking. [E6]",  # the next sentence's "may" read with it
}
# Lies still shown verified, each named in README.md (not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    "Holders of a Halden city pass enter free. [E2]",  # "free" is another group's; they pay 9 euros
    "Motorcycle owners must strap down their motorcycles themselves. [E7]",  # "by the crew"
    "The oversize fare is a fixed amount per vehicle. [E7]",  # "charged per metre"
    # the condition of one sentence given the permission of the next
    "On crossings longer than four hours, pets may stay on the outer deck on a lead. [E8]",
    "Vinegar can be used to descale the machine. [E10]",  # "vinegar damages the seals"; the verifier entails it, 0.71
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)



# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_c_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_c_are_still_not_verified,
 test_a_lie_over_corpus_c_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_the_set) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                      respond)
