"""Faithful answers and one-fact lies over corpus d (bench/data/corpus_d: a city bike-share's rider rules, a public
library's borrowing guide and a trail race's runner information), documents of kinds no earlier round of wordings was
written over (tests/nli/test_corpus_wordings.py, test_corpus_b_wordings.py, test_corpus_c_wordings.py). Each goes
through the real pipeline: ControlPlane.respond with a scripted model and the shipped verifier, over its page's chunks
with their titles, in the mode the router decides. Written on 2026-12-06 as an eighth round, before any was run and
before any fix of the round: the held-out measure of the rounds before it. README.md gives the figures before and
after the fixes it led to, and names the known gaps (asserted still unverified) and the lies still shown."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_d"
PAGES = ["bike-share-rules.md", "library-borrowing-guide.md", "trail-race-runner-info.md"]
# the question each chunk answers (E1 ... E12, in page order)
QUESTIONS = {
    "E1": "How much does a Velo Lund ride cost?", "E2": "How do I take and return a Velo Lund bike?",
    "E3": "What are the safety rules for Velo Lund bikes?", "E4": "When can I ride Velo Lund bikes?",
    "E5": "How do I get an Ostby library card?", "E6": "How long can I borrow items from the Ostby library?",
    "E7": "What happens if I return a library item late?", "E8": "How do reservations and e-books work at the library?",
    "E9": "What distances does the Kestrel Ridge Trail Race have?", "E10": "How do I pick up my bib for the race?",
    "E11": "What are the race's cut-off times?", "E12": "Can I transfer or get a refund for my race entry?",
}

FAITHFUL = [
    "The first 30 minutes of a single ride cost 2 euros. [E1]",
    "Each additional 15 minutes of a single ride costs 1 euro. [E1]",
    "The monthly pass is 15 euros and includes unlimited rides of up to 45 minutes each. [E1]",
    "Riders aged 14 or 15 can ride with a parent's account. [E1]",
    "E-bikes cost 50 cents extra per ride. [E1]",
    "You can unlock a bike with the Velo Lund app or a registered transit card. [E2]",
    "A ride ends once the bike is locked at a station dock. [E2]",
    "If a station is full, the app adds 15 minutes to the ride for free. [E2]",
    "Leaving a bike outside a station costs a 20 euro relocation fee. [E2]",
    "Adults do not have to wear a helmet. [E3]",
    "Riders should check the brakes and tyres before each ride. [E3]",
    "A faulty bike reported within 10 minutes is not charged for that ride. [E3]",
    "Riders are liable for up to 300 euros of damage they cause. [E3]",
    "The bikes must not be taken onto trains. [E3]",
    "From March to November, bikes can be taken at any time of day. [E4]",
    "In winter, service stops at midnight and restarts at 6:00. [E4]",
    "E-bikes are withdrawn in winter when it is colder than minus 5 degrees. [E4]",
    "Customer service can be reached from 7:00 to 22:00 every day of the year. [E4]",
    "The library card is free for people who live, work or study in Ostby. [E5]",
    "A parent or guardian has to sign the application for children under 12. [E5]",
    "Replacing a lost card costs 3 euros. [E5]",
    "Cards have to be renewed every three years with a proof of address. [E5]",
    "Books and audiobooks can be borrowed for three weeks. [E6]",
    "DVDs and board games are lent for one week. [E6]",
    "New releases cannot be renewed. [E6]",
    "A loan cannot be renewed if another member has reserved the item. [E6]",
    "Members can have at most 5 DVDs at a time. [E6]",
    "Late fees for adult items are 20 cents a day, capped at 6 euros per item. [E7]",
    "There are no late fees on children's items. [E7]",
    "After 60 days overdue, an item counts as lost. [E7]",
    "Members who owe more than 10 euros cannot borrow. [E7]",
    "Placing a reservation is free. [E8]",
    "Members can reserve up to 15 items. [E8]",
    "Reserved items are kept on the pickup shelf for seven days after the member is notified. [E8]",
    "E-books are returned automatically after 14 days. [E8]",
    "Up to 10 e-books can be borrowed at the same time. [E8]",
    "The half marathon starts at 9:00. [E9]",
    "All three races start from the village square in Kestrel. [E9]",
    "Marathon runners must be at least 18 years old. [E9]",
    "Runners under 16 have to run with an adult. [E9]",
    "Bibs can be collected on Friday between 15:00 and 20:00 at the community hall. [E10]",
    "On race morning, bibs can be picked up until 45 minutes before your start. [E10]",
    "A photo ID is needed to collect a bib. [E10]",
    "Bags are taken from the start to the finish. [E10]",
    "Bags can weigh at most 8 kg. [E10]",
    "Marathon runners must reach the 30 km aid station within 4 hours. [E11]",
    "The marathon's finish cut-off is 7 hours. [E11]",
    "Runners who miss a cut-off are taken to the finish by shuttle bus. [E11]",
    "Aid stations serve water, an electrolyte drink and bananas. [E11]",
    "Runners must carry their own reusable cup of at least 150 ml. [E11]",
    "Transferring an entry to another runner costs 10 euros. [E12]",
    "Entries can be transferred until 1 May. [E12]",
    "If the organisers cancel the race, 80% of the entry fee is refunded. [E12]",
    "Deferring an entry to next year is free if the organisers are told at least two weeks before race day. [E12]",
]
LIES = [
    "A single ride costs 2 euros for the first 60 minutes. [E1]",
    "The monthly pass includes unlimited rides of any length. [E1]",
    "Riders must be at least 14 years old. [E1]",
    "E-bikes carry no surcharge on the monthly pass. [E1]",
    "Each additional 15 minutes costs 2 euros. [E1]",
    "Bikes can be unlocked with a credit card at the dock. [E2]",
    "A ride ends when the bike is parked anywhere in the city. [E2]",
    "If a station is full, the app adds 30 minutes to the ride at no charge. [E2]",
    "Bikes left outside a station are charged a relocation fee of 50 euros. [E2]",
    "Helmets are required for all riders. [E3]",
    "A faulty bike must be reported within 30 minutes. [E3]",
    "Riders are liable for all damage they cause, without limit. [E3]",
    "Bikes may be taken onto trains. [E3]",
    "Faulty bikes are reported by calling customer service. [E3]",
    "Bikes can be taken at any time of day all year round. [E4]",
    "From December to February, service stops at 22:00. [E4]",
    "E-bikes are withdrawn when the temperature is below zero. [E4]",
    "The customer service line answers around the clock. [E4]",
    "A library card costs 3 euros. [E5]",
    "Children under 16 need a parent or guardian to sign the application. [E5]",
    "Cards must be renewed every year. [E5]",
    "Only people who live in Ostby can get a library card. [E5]",
    "Books are lent for two weeks. [E6]",
    "A loan can be renewed three times. [E6]",
    "New releases can be renewed once. [E6]",
    "Members may borrow up to 30 DVDs at a time. [E6]",
    "DVDs are lent for three weeks. [E6]",
    "Overdue adult items cost 50 cents per day. [E7]",
    "Children's items are charged half the adult late fee. [E7]",
    "An item that is 30 days overdue is counted as lost. [E7]",
    "Borrowing is blocked while a member owes any money. [E7]",
    "The late fee has no maximum. [E7]",
    "Reservations cost 1 euro each. [E8]",
    "A reserved item is held for three days after the member is notified. [E8]",
    "E-books are borrowed for 21 days. [E8]",
    "E-books must be returned at the front desk. [E8]",
    "Up to 15 e-books can be borrowed at once. [E8]",
    "The marathon starts at 9:00. [E9]",
    "The fun run is 5 km long. [E9]",
    "Runners must be at least 16 for the half marathon. [E9]",
    "The fun run starts from the community hall. [E9]",
    "Bibs can only be collected on Friday. [E10]",
    "On race morning, bibs can be collected until 15 minutes before your start. [E10]",
    "A friend cannot collect your bib. [E10]",
    "Bags may weigh up to 12 kg. [E10]",
    "Bags are dropped at the finish and taken to the start. [E10]",
    "The marathon has a cut-off of 5 hours at the 30 km aid station. [E11]",
    "Runners who miss a cut-off may continue at their own risk. [E11]",
    "Aid stations are about every 3 km. [E11]",
    "Paper cups are handed out at every aid station. [E11]",
    "Aid stations serve energy gels. [E11]",
    "Entries can be transferred free of charge. [E12]",
    "Refunds are given up to two weeks before race day. [E12]",
    "If the organisers cancel the race, the full entry fee is returned. [E12]",
    "An entry can be deferred to next year's race twice. [E12]",
    "Entries can be transferred until 1 June. [E12]",
]
# Faithful answers still refused, each named in README.md
KNOWN_GAPS = {
    # a negation from another part of the restated sentence, or one that is part of a phrase saying the same
    "Riders should check the brakes and tyres before each ride. [E3]",  # "... and you will not be charged ..."
    "Late fees for adult items are 20 cents a day, capped at 6 euros per item. [E7]",  # the next sentence's "never"
    "Members who owe more than 10 euros cannot borrow. [E7]",  # "Borrowing is blocked": a negation said as a verb
    # "A runner who cannot start can defer ..."
    "Deferring an entry to next year is free if the organisers are told at least two weeks before race day. [E12]",
    "There are no late fees on children's items. [E7]",  # the verifier reads it as contradicted
    # evidence_conflicts: the verifier reads E6's "Members may borrow up to 30 items at a time" as contradicting it
    "Members can reserve up to 15 items. [E8]",
    # the quantifier check: "claim quantifier ['all'] is stronger than the evidence's ['all']" (the sentence's "all"
    # comes after the list it sums up)
    "All three races start from the village square in Kestrel. [E9]",
}
# Lies still shown verified, each named in README.md (not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    "Bikes can be unlocked with a credit card at the dock. [E2]",  # the app or a transit card
    "A ride ends when the bike is parked anywhere in the city. [E2]",  # "locked at a station dock"
    "Faulty bikes are reported by calling customer service. [E3]",  # the wrench button on the dock
    "Runners who miss a cut-off may continue at their own risk. [E11]",  # the shuttle bus; entailed at 0.39
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)



# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_d_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_d_are_still_not_verified,
 test_a_lie_over_corpus_d_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_the_set) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                      respond)
