"""Faithful answers and one-fact lies over corpus j (bench/data/corpus_j: a campsite's booking and site rules, a
community woodshop's membership and safety rules, a council's bulky-waste collection service), documents of kinds
no earlier round of wordings was written over. Each goes through the real pipeline: respond_over_pages with a scripted
model and the shipped verifier, over its page's chunks with their titles. Written on 2026-12-07 as a fourteenth round,
by an author who had not read the checks, before any of it was run and before any fix of the round: a held-out
measure of the thirteen rounds before it. The author cited sections; the ask path cuts most of them into two chunks,
and each wording cites its section's chunks, as a model shown those chunks would. README.md gives the figures of its
first run and after the fixes it led to; the known gaps (asserted still unverified) and the lies still shown are
listed below, with their causes, filled in after the first run."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_j"
PAGES = ["heronsford-meadow-campsite.md", "birchwell-community-woodshop.md", "calder-bridge-bulky-waste-collection.md"]

# the question each chunk answers (E1 ... E23, in page order)
QUESTIONS = {
    "E1": "How much does a pitch cost at Heronsford Meadow, and when can I arrive and leave?",
    "E2": "How much does a pitch cost at Heronsford Meadow, and when can I arrive and leave?",
    "E3": "What happens if I need to cancel or change my campsite booking?",
    "E4": "What happens if I need to cancel or change my campsite booking?",
    "E5": "Can I bring my dog to the campsite, and what are the rules on fires and noise?",
    "E6": "Can I bring my dog to the campsite, and what are the rules on fires and noise?",
    "E7": "What facilities does the campsite have, and can friends come and visit me there?",
    "E8": "What facilities does the campsite have, and can friends come and visit me there?",
    "E9": "Who can join the Birchwell woodshop, and how much does membership cost?",
    "E10": "Who can join the Birchwell woodshop, and how much does membership cost?",
    "E11": "When is the woodshop open, and how do I book the machines?",
    "E12": "When is the woodshop open, and how do I book the machines?",
    "E13": "What inductions do I need at the woodshop, and what are the safety rules?",
    "E14": "What inductions do I need at the woodshop, and what are the safety rules?",
    "E15": "Where do I get materials at the woodshop, can I store things there, and can I bring a guest?",
    "E16": "Where do I get materials at the woodshop, can I store things there, and can I bring a guest?",
    "E17": "What will the Calder Bridge bulky waste service collect?",
    "E18": "What will the Calder Bridge bulky waste service collect?",
    "E19": "How much does a bulky waste collection cost, and are there any discounts?",
    "E20": "On which days are bulky waste collections, and how do I book and put my items out?",
    "E21": "On which days are bulky waste collections, and how do I book and put my items out?",
    "E22": "What if I need to cancel my bulky waste collection or the collection goes wrong?",
    "E23": "What if I need to cancel my bulky waste collection or the collection goes wrong?",
}

FAITHFUL = [
    "A standard grass pitch is £24 a night for up to two adults, and every extra adult adds £8 a night. [E1, E2]",
    "Children under 4 don't pay anything, while children aged 4 to 15 pay £4. [E1, E2]",
    "You can arrive between 2 pm and 8 pm, and you'll need to leave by 11 am unless reception has agreed a late "
    "checkout, which costs £10 and lets you stay until 3 pm. [E1, E2]",
    "You pay a 30% deposit when you book and the rest is due when you arrive. [E1, E2]",
    "Electric hook-up is an extra £5 a night, but you can only get it on pitches 1 to 40. [E1, E2]",
    "If you cancel 14 days or more before you arrive, you'll get your deposit back minus a £10 admin fee. [E3, E4]",
    "Cancelling less than 14 days before arrival normally means no refund, but if the pitch can be re-let you'll "
    "get half your deposit back. [E3, E4]",
    "You can move your dates once for free as long as you let them know at least 7 days before arrival, and after "
    "that each change is £5. [E3, E4]",
    "If the site has to close because of flooding or a storm warning, you can choose between a full refund and a "
    "credit note that's valid for 12 months, but bad weather on its own won't get you a refund while the site's "
    "still open. [E3, E4]",
    "Dogs are allowed on touring pitches, up to two per pitch, and each one costs £3 a night. [E5, E6]",
    "Dogs can't stay in the glamping pods, apart from registered assistance dogs, which stay at no charge. [E5, E6]",
    "You'll need to keep your dog on a lead of 2 metres or shorter everywhere on site except the fenced exercise "
    "field behind the shower block. [E5, E6]",
    "You can't light a fire on the ground, but you can hire a fire pit from reception for £7 a night. [E5, E6]",
    "Quiet hours are 10:30 pm to 7:30 am every night, and generators aren't allowed at any time. [E5, E6]",
    "Hot showers are included in your pitch price, and the shower block's open round the clock. [E7, E8]",
    "The laundry room's open 8 am to 9 pm, and a wash costs £4.50 while a dryer cycle is £2. [E7, E8]",
    "Day visitors can come between 10 am and 9 pm for £3 per adult, with under-16s free, but they have to sign in "
    "at reception and can't use the showers or the laundry. [E7, E8]",
    "The shop's open from 8 am to 6 pm every day apart from Sunday, when it shuts at 1 pm. [E7, E8]",
    "Anyone who's 18 or older can join, and 14- to 17-year-olds can become junior members as long as a parent or "
    "guardian signs the form. [E9, E10]",
    "Full membership is £45 a month, or £480 if you pay for the year. [E9, E10]",
    "Students and people aged 65 or over can get a concession rate of £30 a month. [E9, E10]",
    "Junior membership is half the full monthly rate, which works out at £22.50 a month. [E9, E10]",
    "There's a one-off £20 joining fee, but you don't pay it if you take out annual membership. [E9, E10]",
    "It's open Tuesday to Friday from 10 am to 9 pm and from 9 am to 5 pm at weekends, but it's closed on Mondays "
    "and public holidays. [E11, E12]",
    "You can book the table saw, bandsaw, planer-thicknesser or lathe in slots of up to two hours, with no more "
    "than two bookings a week, and bookings open seven days ahead at 8 am. [E11, E12]",
    "If you haven't started your booking 15 minutes after its start time, it's released to the waiting list. [E11, "
    "E12]",
    "Using the laser cutter costs £6 per half hour on top of your membership, whereas the other machines are "
    "included. [E11, E12]",
    "You can't use a powered machine until you've passed its induction, and each induction is £25, apart from the "
    "general safety one, which everyone has to do and which is free. [E13, E14]",
    "Inductions are held on Tuesday and Thursday evenings at 6:30 pm, take roughly 90 minutes and have a maximum of "
    "four people per group. [E13, E14]",
    "Safety glasses have to be worn in the machine room all the time, and you'll need ear defenders whenever the "
    "planer or the dust extractor is running. [E13, E14]",
    "You mustn't work alone on a powered machine, so at least one other inducted member or a member of staff has to "
    "be in the room. [E13, E14]",
    "If you break a safety rule, your machine access is suspended for 14 days, and a second breach within a year "
    "ends your membership with no refund. [E13, E14]",
    "You bring your own timber, though you're welcome to take offcuts from the green bin for free, and sheet "
    "materials are sold at the front desk at cost plus 10%. [E15, E16]",
    "Pressure-treated wood and painted reclaimed timber aren't allowed, and you can only use MDF if it's from the "
    "woodshop's own stock. [E15, E16]",
    "Full members get a 60 by 40 cm storage shelf and can rent a bigger locker for £8 a month, but there's no "
    "storage for junior members or day-pass holders. [E15, E16]",
    "As a full member you can bring one guest per visit, up to twice a month, and they have to be at least 16, sign "
    "a waiver and stick to watching and using hand tools. [E15, E16]",
    "They'll collect large household items that won't fit in your wheelie bin, like sofas, beds, mattresses, "
    "wardrobes, tables, carpets and garden furniture. [E17, E18]",
    "Fridges, freezers, washing machines and cookers are collected too, but they're charged as electrical items. "
    "[E17, E18]",
    "They can't take building rubble, soil, car parts, tyres, paint tins or gas bottles, and nothing from business "
    "premises is collected. [E17, E18]",
    "Items can't be longer than 2.5 metres and must be light enough for two people to carry, which is why pianos, "
    "hot tubs and safes aren't accepted. [E17, E18]",
    "Garden waste is only taken if it's bagged, and then up to a maximum of five bags. [E17, E18]",
    "Up to three items costs £30, and each item after that is £8, with a maximum of ten items per collection. [E19]",
    "If you've got a valid Calder Bridge Leisure Card you pay half price for the first three items, but extra items "
    "and electrical items are at the full rate. [E19]",
    "If you're 75 or older you get one free collection of up to three items a year, though it can't include "
    "electrical items. [E19]",
    "You have to pay online or by phone when you book, and the crew doesn't accept cash on the day. [E19]",
    "Collections happen on Tuesdays, Wednesdays and Fridays, and you can book up to four weeks in advance. [E20, "
    "E21]",
    "The latest you can book is 12 noon two working days before your collection day. [E20, E21]",
    "You'll need to put your items out by 7 am on the day, at the front edge of your property or somewhere agreed "
    "with the booking team, but never on the pavement or road where they'd block the way. [E20, E21]",
    "The crew won't come into your home to fetch things unless you're 75 or over or have a disability, in which "
    "case you can ask for items to be collected from a ground-floor room. [E20, E21]",
    "Collections usually happen between 7 am and 4 pm, and the crew can't give you a specific time slot. [E20, E21]",
    "You can cancel for free until 12 noon on the working day before your collection and you'll get a full refund "
    "within 10 working days, but if you cancel any later you won't get anything back. [E22, E23]",
    "If the crew can't find or get to your items, it still counts as a completed collection and you won't be "
    "refunded. [E22, E23]",
    "If they miss a collection that was booked correctly, they'll come back within three working days at no extra "
    "cost. [E22, E23]",
    "Each household can have at most four collections a year, though the free collection for residents aged 75 or "
    "over doesn't count towards that limit. [E22, E23]",
]

LIES = [
    "A standard grass pitch costs £24 a night for up to four adults, with each extra adult charged at £8. [E1, E2]",
    "Electric hook-up is an extra £5 per night, and you can have it on any pitch on the site. [E1, E2]",
    "You'll pay a 30% deposit when you book, and the balance is due two weeks before you arrive. [E1, E2]",
    "Between June and August you can't book a single night on a Saturday, though one-night Friday stays are fine. "
    "[E1, E2]",
    "The campsite's season runs from 1 March until 31 October. [E1, E2]",
    "If you cancel at least 14 days ahead, you get the whole deposit back with no fee taken off. [E3, E4]",
    "If you cancel within 14 days of arrival and the pitch gets re-let, you'll get your full deposit back. [E3, E4]",
    "You can change your dates for free as often as you like, provided you give at least 7 days' notice. [E3, E4]",
    "If you leave early, the nights you don't use are refunded. [E3, E4]",
    "Groups booking more than four pitches pay a 50% deposit instead of 30%, though they can still change their "
    "dates once for free. [E3, E4]",
    "Up to three dogs are allowed per touring pitch, at £3 per dog per night. [E5, E6]",
    "Dogs are welcome in the glamping pods as well as on touring pitches, at £3 per dog per night. [E5, E6]",
    "Raised barbecues are allowed provided they stand at least 50 cm off the grass and you never leave them "
    "unattended. [E5, E6]",
    "Quiet hours run from 10:30 pm to 7:30 am, and you're free to use a generator outside those hours. [E5, E6]",
    "Dogs have to be on a lead everywhere on the site, including the fenced exercise field behind the shower block. "
    "[E5, E6]",
    "The shop sells milk, bread, gas canisters, firewood and ice packs, and it's open 8 am to 6 pm every day of the "
    "week, Sundays included. [E7, E8]",
    "Wi-Fi is free and reaches every part of the site, including the far field. [E7, E8]",
    "Day visitors pay £3 per adult, while children under 12 get in free. [E7, E8]",
    "Children visiting for the day can use the play area, as long as they're 12 or under. [E7, E8]",
    "Your visitors can park next to your pitch, but they'll need to sign in at reception first. [E7, E8]",
    "You have to be at least 16 to join as a junior member, and you'll need a parent or guardian to sign the form. "
    "[E9, E10]",
    "A day pass is £15 and lets you use the powered machines as well as the hand tools and bench sanders. [E9, E10]",
    "The £20 joining fee is waived for monthly members. [E9, E10]",
    "You can pause your membership for up to six months a year without paying anything. [E9, E10]",
    "Monthly members can cancel with 30 days' notice, and annual fees aren't refunded once the first 30 days have "
    "passed. [E9, E10]",
    "The workshop is open Monday to Friday from 10 am to 9 pm and from 9 am to 5 pm at weekends. [E11, E12]",
    "Machine slots can be up to three hours long, and each member can make at most two bookings a week. [E11, E12]",
    "You can book the CNC router on any day of the week, provided you've held the CNC induction for at least a "
    "month. [E11, E12]",
    "Junior members can come in on Saturdays and Sundays between 9 am and 1 pm, as long as a member of staff is "
    "there to supervise. [E11, E12]",
    "The laser cutter is £6 an hour on top of your membership fee, and the other machines are included. [E11, E12]",
    "Every induction costs £25, and that includes the general safety induction everyone has to do. [E13, E14]",
    "Inductions run on Monday and Thursday evenings at 6:30 pm and last about 90 minutes. [E13, E14]",
    "Induction groups are capped at six people, and each session takes about 90 minutes. [E13, E14]",
    "Gloves are fine at the lathe, but you mustn't wear loose sleeves or scarves there. [E13, E14]",
    "Once you've passed a machine's induction, you're allowed to use it on your own. [E13, E14]",
    "Sheet materials are sold at the front desk at cost plus 20%, and offcuts from the green bin are free. [E15, "
    "E16]",
    "Junior members get a storage shelf too, but day-pass holders don't get any storage. [E15, E16]",
    "Anything left on the shared benches is cleared away after 24 hours. [E15, E16]",
    "Guests have to be at least 18 and sign a waiver, and they can only watch or use hand tools. [E15, E16]",
    "Members can sell their finished work at the open days in April and November without paying a fee. [E15, E16]",
    "Tyres and car parts can be collected, but building rubble, soil, paint tins and gas bottles can't. [E17, E18]",
    "Each item can be up to 3.5 metres long, as long as two people can carry it. [E17, E18]",
    "Garden waste is collected as long as it's bagged, with a limit of ten bags. [E17, E18]",
    "Mattresses and upholstered furniture will still be taken even if they've got wet. [E17, E18]",
    "Each electrical item costs £25, whatever else you're having collected. [E19]",
    "Leisure Card holders get half price on the whole collection, extra items included. [E19]",
    "Residents aged 65 or over get one free collection of up to three items a year. [E19]",
    "Registered charities in Calder Bridge can have donated furniture collected for free, whatever condition it's "
    "in. [E19]",
    "Collections run on Mondays, Wednesdays and Fridays, and you can book up to four weeks ahead. [E20, E21]",
    "You can book as late as 12 noon on the working day before your collection. [E20, E21]",
    "The crew will take any extra items you leave out, even if they aren't on your booking. [E20, E21]",
    "If you live in a flat, you have to leave your items in the bin store, even if the building manager has agreed "
    "another spot. [E20, E21]",
    "If the crew misses a correctly booked collection, they'll come back within five working days at no extra cost. "
    "[E22, E23]",
    "You can cancel free of charge up to 12 noon on the day of your collection, and you'll get a full refund within "
    "10 working days. [E22, E23]",
    "Leaving items out on the street after the crew has been can get you a £50 fine for fly-tipping. [E22, E23]",
    "If the crew refuses an item because it's on the list of things they can't collect, you get the fee for that "
    "item back. [E22, E23]",
]
# Faithful answers still refused, asserted as such (README.md, "A fourteenth round")
KNOWN_GAPS = {
    # negation read where the wording says the same without it: "2 metres or shorter" for "no longer than 2 metres";
    # "at no charge" for "free"; a clause's own negation read with the sentence's other one ("If the crew cannot find
    # ..., no refund is given", "We cannot collect ..., and no items from business premises will be taken", "Nobody
    # may work alone ...: ... has to be in the room", "... not refunded, unless we can re-let the pitch"); and the
    # verifier reads "Children under 4 don't pay anything, ..." as contradicted (0.75) over "children under 4 stay
    # free", which no check finds fault with since "don't pay anything" reads as free
    "Children under 4 don't pay anything, while children aged 4 to 15 pay £4. [E1, E2]",
    "You'll need to keep your dog on a lead of 2 metres or shorter everywhere on site except the fenced exercise "
    "field behind the shower block. [E5, E6]",
    "Dogs can't stay in the glamping pods, apart from registered assistance dogs, which stay at no charge. [E5, E6]",
    "If the crew can't find or get to your items, it still counts as a completed collection and you won't be "
    "refunded. [E22, E23]",
    "They can't take building rubble, soil, car parts, tyres, paint tins or gas bottles, and nothing from business "
    "premises is collected. [E17, E18]",
    "You mustn't work alone on a powered machine, so at least one other inducted member or a member of staff has to "
    "be in the room. [E13, E14]",
    "Cancelling less than 14 days before arrival normally means no refund, but if the pitch can be re-let you'll "
    "get half your deposit back. [E3, E4]",
    "You can cancel for free until 12 noon on the working day before your collection and you'll get a full refund "
    "within 10 working days, but if you cancel any later you won't get anything back. [E22, E23]",
    # a sentence of another rule read for the claim's words (a pair whose next sentence says "Stays of fewer than two
    # nights cannot be booked" for "lets you stay until 3 pm"; "their dates cannot be changed after booking" for
    # "after that each change is £5"; "never" of "never on the pavement" with "Somewhere" read as a name)
    "You can arrive between 2 pm and 8 pm, and you'll need to leave by 11 am unless reception has agreed a late "
    "checkout, which costs £10 and lets you stay until 3 pm. [E1, E2]",
    "You can move your dates once for free as long as you let them know at least 7 days before arrival, and after "
    "that each change is £5. [E3, E4]",
    "You'll need to put your items out by 7 am on the day, at the front edge of your property or somewhere agreed "
    "with the booking team, but never on the pavement or road where they'd block the way. [E20, E21]",
    # atoms split where a clause has no verb of its own ("The crew have a disability ...", "Carry is why pianos.", "As a
    # full member you have to be at least 16 ..."), "each one costs" read as a number, "young people aged 14 to 17"
    # read as the population of "people aged 65", a value the wording computes (half of £45: £22.50), and "only ...
    # from the woodshop's own stock" read as leaving out what the sentence lists
    "The crew won't come into your home to fetch things unless you're 75 or over or have a disability, in which "
    "case you can ask for items to be collected from a ground-floor room. [E20, E21]",
    "Items can't be longer than 2.5 metres and must be light enough for two people to carry, which is why pianos, "
    "hot tubs and safes aren't accepted. [E17, E18]",
    "As a full member you can bring one guest per visit, up to twice a month, and they have to be at least 16, sign "
    "a waiver and stick to watching and using hand tools. [E15, E16]",
    "Dogs are allowed on touring pitches, up to two per pitch, and each one costs £3 a night. [E5, E6]",
    "Students and people aged 65 or over can get a concession rate of £30 a month. [E9, E10]",
    "Junior membership is half the full monthly rate, which works out at £22.50 a month. [E9, E10]",
    "Pressure-treated wood and painted reclaimed timber aren't allowed, and you can only use MDF if it's from the "
    "woodshop's own stock. [E15, E16]",
}
# Lies still shown verified (README.md names them; not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    # "one-night Friday stays are fine" where the sentence denies Friday or Saturday; "free to use a generator" (the
    # truncating stem keeps "use" from "used", and the atom shares too few words with "generators cannot be used at
    # any time" to be compared); "every day ..., Sundays included" until 6 pm where Sundays close at 1 pm; "at least
    # 16" for a range of 14 to 17 (borne out by "anyone aged 18 or over"); "Junior members get a storage shelf too"
    # where the sentence gives it to full members and denies it to junior ones; a list split between what is
    # collected and what is not; "will still be taken" for "will be left behind"
    "Between June and August you can't book a single night on a Saturday, though one-night Friday stays are fine. "
    "[E1, E2]",
    "Quiet hours run from 10:30 pm to 7:30 am, and you're free to use a generator outside those hours. [E5, E6]",
    "The shop sells milk, bread, gas canisters, firewood and ice packs, and it's open 8 am to 6 pm every day of the "
    "week, Sundays included. [E7, E8]",
    "You have to be at least 16 to join as a junior member, and you'll need a parent or guardian to sign the form. "
    "[E9, E10]",
    "Junior members get a storage shelf too, but day-pass holders don't get any storage. [E15, E16]",
    "Tyres and car parts can be collected, but building rubble, soil, paint tins and gas bottles can't. [E17, E18]",
    "Mattresses and upholstered furniture will still be taken even if they've got wet. [E17, E18]",
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)


# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_j_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_j_are_still_not_verified,
 test_a_lie_over_corpus_j_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_corpus_j) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                       respond)
