"""Faithful answers and one-fact lies over corpus l (bench/data/corpus_l: a village hall's hire rules, an escape-room
venue's booking and play rules, an independent cinema's tickets, ratings and membership), documents of kinds
no earlier round of wordings was written over. Each goes through the real pipeline: respond_over_pages with a scripted
model and the shipped verifier, over its page's chunks with their titles. Written on 2026-12-07 as a sixteenth round,
by an author who had not read the checks, before any of it was run and before any fix of the round: a held-out
measure of the fifteen rounds before it. The author cited sections; the ask path cuts most of them into two chunks,
and each wording cites its section's chunks, as a model shown those chunks would. README.md gives the figures of its
first run and after the fixes it led to; the known gaps (asserted still unverified) and the lies still shown are
listed below, with their causes, filled in after the first run."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_l"
PAGES = ["ashcombe-village-hall.md", "locked-lantern-escape-rooms.md", "rivermead-picturehouse.md"]

# the question each chunk answers (E1 ... E24, in page order)
QUESTIONS = {
    "E1": "How much does it cost to hire Ashcombe Village Hall, and when can I book it?",
    "E2": "How much does it cost to hire Ashcombe Village Hall, and when can I book it?",
    "E3": "What deposit do I need for the village hall, and what happens if I cancel?",
    "E4": "What deposit do I need for the village hall, and what happens if I cancel?",
    "E5": "How many people can we have at a party in the village hall, and are music and alcohol allowed?",
    "E6": "How many people can we have at a party in the village hall, and are music and alcohol allowed?",
    "E7": "Can we use the kitchen at the village hall, and what do we have to do when we leave?",
    "E8": "Can we use the kitchen at the village hall, and what do we have to do when we leave?",
    "E9": "What escape rooms does the Locked Lantern have, and how much does a game cost?",
    "E10": "What escape rooms does the Locked Lantern have, and how much does a game cost?",
    "E11": "How old do you have to be to play at the Locked Lantern, and do kids need an adult with them?",
    "E12": "How old do you have to be to play at the Locked Lantern, and do kids need an adult with them?",
    "E13": "What happens if we're late for our escape room, and can we take our phones in?",
    "E14": "What happens if we're late for our escape room, and can we take our phones in?",
    "E15": "Can I cancel or move my escape room booking, and how do the gift vouchers work?",
    "E16": "Can I cancel or move my escape room booking, and how do the gift vouchers work?",
    "E17": "How much are tickets at the Rivermead Picturehouse, and are there any discounts?",
    "E18": "How much are tickets at the Rivermead Picturehouse, and are there any discounts?",
    "E19":
        "Can I take my kids to see a 12A or 15 film at the Rivermead, and are there special screenings for children?",
    "E20":
        "Can I take my kids to see a 12A or 15 film at the Rivermead, and are there special screenings for children?",
    "E21": "Can I take food and drink into the film, and how does seating work at the Rivermead?",
    "E22": "Can I take food and drink into the film, and how does seating work at the Rivermead?",
    "E23": "What does Rivermead membership cost, and what do members get?",
    "E24": "What does Rivermead membership cost, and what do members get?",
}

FAITHFUL = [
    "The main hall is £18 an hour on weekdays and £24 an hour at weekends, while the committee room is £10 an hour "
    "whenever you book it. [E1, E2]",
    "You can hire the hall from 8 am until 11.30 pm on any day of the year apart from 25 and 26 December. [E1, E2]",
    "If you live in Ashcombe parish or you're a registered local charity, you get 25% off the hourly rates, though "
    "that discount doesn't apply to the Saturday evening package. [E1, E2]",
    "For a flat £150, the Saturday evening package gives you the main hall and the kitchen from 5 pm until 11.30 "
    "pm. [E1, E2]",
    "Bookings have to be at least two hours long, including your setting-up and clearing-away time, and the person "
    "booking must be 21 or over and be there for the whole booking. [E1, E2]",
    "There's a £100 damage deposit on every booking, or £250 if alcohol will be served or sold at your event. [E3, "
    "E4]",
    "You'll get the deposit back within 14 days of the event, minus anything charged for damage, extra cleaning or "
    "running over your time. [E3, E4]",
    "Overrunning costs £40 for every 30 minutes or part of it, so staying 40 minutes too long would cost you £80. "
    "[E3, E4]",
    "The hire fee has to be paid in full no later than 28 days before the event, or on the day you book if the "
    "event is less than 28 days away. [E3, E4]",
    "Cancel 28 days or more ahead and you get the whole hire fee back, between 8 and 27 days ahead you get half, "
    "and with a week's notice or less you get nothing back, although your deposit is always returned. [E3, E4]",
    "The main hall takes up to 120 people standing or 90 seated at tables, and the committee room takes 20 at most. "
    "[E5, E6]",
    "You can play amplified music until 11 pm, but if the red light on the sound meter by the stage stays on for "
    "more than 10 seconds, the stage sockets lose power. [E5, E6]",
    "At a private event you can give guests your own alcohol for free, but selling drinks, even through a ticket "
    "price that includes them, needs a Temporary Event Notice shown to the booking secretary at least 10 working "
    "days beforehand. [E5, E6]",
    "Bouncy castles are fine in the main hall if you can show a current safety certificate, but confetti, glitter, "
    "smoke machines, candles and any other naked flames are banned throughout the building. [E5, E6]",
    "The kitchen comes free with the main hall, but you can't have it if you've only booked the committee room. "
    "[E7, E8]",
    "Crockery and cutlery for up to 100 people are provided free, while the tea urn and the dishwasher are £5 each "
    "per booking, so £10 if you want both. [E7, E8]",
    "Before you go, you need to sweep the floors, wipe the tables and stack the tables and chairs on the trolleys, "
    "and the hall has to be empty and locked by the end of your booked time. [E7, E8]",
    "You pick the key up from the shop at 2 Church Row no earlier than the day before your booking, and you post it "
    "back through the hall letterbox that night. [E7, E8]",
    "There are three rooms: The Clockmaker's Study and The Sunken Chapel take two to six players, and The Night "
    "Train takes four to eight. [E9, E10]",
    "Games last an hour and start on the hour between 10 am and 9 pm, but only from Thursday to Sunday. [E9, E10]",
    "A team of two pays £60 altogether, a team of four would pay £88 at £22 each, and a team of six would pay £120 "
    "at £20 each. [E9, E10]",
    "Games starting before 1 pm on a Thursday or Friday are 10% cheaper, except during the school holidays. [E9, "
    "E10]",
    "You have to book online at least two hours ahead, and walk-ins are only possible if the room's free and the "
    "host says yes. [E9, E10]",
    "Nobody under 10 can play in any of the rooms. [E11, E12]",
    "Anyone aged 10 to 13 needs an adult of 18 or over playing in the same room, and one adult can have no more "
    "than three under-14s in the room with them, or two adults no more than six. [E11, E12]",
    "A team made up only of 14- to 17-year-olds can play without an adult, but only if a parent or guardian has "
    "signed the online consent form before the game. [E11, E12]",
    "You have to be 16 or older to play The Sunken Chapel, because parts of it are played in near darkness. [E11, "
    "E12]",
    "You should get there 15 minutes before your start time for the safety briefing. [E13, E14]",
    "If you're 10 minutes late you can still play, but you'll only get 50 minutes, because they can't push back the "
    "next booking. [E13, E14]",
    "If you turn up more than 15 minutes late, you lose both your slot and what you paid. [E13, E14]",
    "Phones, cameras and smartwatches have to go in the free lockers, though one phone per team is allowed in The "
    "Night Train if a player needs it for medical reasons. [E13, E14]",
    "You can ask for three hints without any penalty, and every hint after that adds 5 minutes to your finishing "
    "time. [E13, E14]",
    "You can move your booking to a different date once for free, as long as you do it at least 48 hours before the "
    "original start time. [E15, E16]",
    "Cancel seven or more days ahead and you get all your money back, between 48 hours and six days ahead you get "
    "half, and later than that you get nothing, unless the Locked Lantern cancels the game itself, in which case "
    "you always get a full refund. [E15, E16]",
    "If fewer people turn up than you booked for, you still pay the full booked price, but you can add extra "
    "players on the day at the per-player price as long as you stay within the room's maximum. [E15, E16]",
    "Gift vouchers come in £25, £50 and £100, last 18 months from when they're bought, and can't be swapped for "
    "cash. [E15, E16]",
    "An adult ticket is £11.50 and a child's ticket for ages 3 to 15 is £7.50, while under-3s go free if they sit "
    "on an adult's lap. [E17, E18]",
    "Students and over-60s pay £9, but only for screenings starting before 5 pm on weekdays; otherwise they pay the "
    "adult price. [E17, E18]",
    "On Tuesdays every seat is £6, apart from 3D screenings, special events and live broadcasts. [E17, E18]",
    "If you book three tickets online you'll pay £2.25 in fees, but the fee never goes over £3 per booking, and "
    "there's no fee at all at the box office. [E17, E18]",
    "You can't get a refund, but you can exchange your tickets for a different screening as long as you do it at "
    "least an hour before the original start time. [E17, E18]",
    "Children of any age can see U and PG films, though under-8s have to be with someone who's 16 or older. [E19, "
    "E20]",
    "An under-12 can only watch a 12A film if an adult aged 18 or over stays with them for the whole screening. "
    "[E19, E20]",
    "Under-15s can't see a 15 film even if a parent comes with them, and staff may ask anyone who looks under 25 "
    "for photo ID. [E19, E20]",
    "Kids' Club on Saturday mornings at 10.30 am costs £3 for adults and children alike, and it only shows U and PG "
    "films. [E19, E20]",
    "Seats are allocated when you book, and row A at the front is the last row to be sold. [E21, E22]",
    "You can take anything you buy at the bar into any screen, alcohol included, but you have to be 18 or over to "
    "buy alcohol and it can't go into Kids' Club or Parent and Baby screenings. [E21, E22]",
    "You're allowed to bring your own snacks as long as they're not hot food, but the only drinks you can bring in "
    "are water and baby milk. [E21, E22]",
    "The sofas in Screen 2 seat two and cost an extra £5 per sofa on top of both tickets, so two adults paying the "
    "standard price would spend £28 in total. [E21, E22]",
    "There are two wheelchair spaces in each screen, and because they can't be booked online, you need to book them "
    "by phone or at the box office. [E21, E22]",
    "It's £40 a year for a single membership, or £65 for a joint one covering two adults who live at the same "
    "address. [E23, E24]",
    "Members get £2 off every standard ticket for themselves, so an adult ticket would be £9.50, though the "
    "discount doesn't apply on Tuesdays or at special events. [E23, E24]",
    "Members get 10% off food and drink at the bar, not counting alcohol, and they don't pay the online booking "
    "fee. [E23, E24]",
    "A single member gets four free tickets a year and joint members get six to share, usable at any screening "
    "apart from special events and live broadcasts. [E23, E24]",
]

LIES = [
    "The main hall costs £18 an hour every day of the week, and the committee room is £10 an hour. [E1, E2]",
    "Parish residents and local charities get 25% off everything, including the Saturday evening package. [E1, E2]",
    "The minimum booking is two hours, not counting the time you need for setting up and clearing away. [E1, E2]",
    "You can book the hall up to six months in advance. [E1, E2]",
    "The person making the booking has to be at least 18 and must be there for the whole event. [E1, E2]",
    "The damage deposit is £100 for every booking, whether or not alcohol is served. [E3, E4]",
    "If you cancel between 8 and 27 days before the event, you'll get 75% of the hire fee back. [E3, E4]",
    "If you cancel with a week's notice or less, you lose both the hire fee and the deposit. [E3, E4]",
    "Regular hirers who book the same weekly slot for at least six weeks can pay monthly in advance. [E3, E4]",
    "Running over your booked time is charged at £40 per hour. [E3, E4]",
    "The main hall can hold up to 120 people seated at tables. [E5, E6]",
    "Amplified music is allowed until 11.30 pm, when the hire period ends. [E5, E6]",
    "You need a Temporary Event Notice even if you're only giving your own alcohol to guests for free. [E5, E6]",
    "Bouncy castles can go in either the main hall or the committee room, provided you show a current safety "
    "certificate. [E5, E6]",
    "Candles are allowed on the tables as long as they're in holders, but confetti and glitter aren't. [E5, E6]",
    "You can leave all your rubbish in the bins in the car park when you go. [E7, E8]",
    "The tea urn and the dishwasher are included free with the kitchen. [E7, E8]",
    "You can collect the key from 2 Church Row up to a week before your booking. [E7, E8]",
    "Leaving the hall unlocked costs £60, the same as losing the key. [E7, E8]",
    "The 10% discount applies to any game starting before 1 pm on any day the rooms are open. [E9, E10]",
    "A team of five pays £20 per player. [E9, E10]",
    "A team of three can book The Night Train as long as they pay for four players. [E9, E10]",
    "Games start every hour from 10 am to 9 pm, seven days a week. [E9, E10]",
    "Each game lasts 75 minutes. [E9, E10]",
    "Players aged 10 to 13 can play as long as an adult is on the premises, even if the adult isn't playing with "
    "them. [E11, E12]",
    "The Sunken Chapel is open to anyone aged 14 or over. [E11, E12]",
    "One adult can bring up to four players under 14 into a room. [E11, E12]",
    "If a player is turned away for being drunk, the team gets a refund for that player. [E11, E12]",
    "Teams arriving up to 15 minutes late still get the full 60 minutes. [E13, E14]",
    "You can take your phone into the room as long as it's switched to silent. [E13, E14]",
    "Water bottles are allowed in all three rooms. [E13, E14]",
    "Each team gets up to five free hints before any time penalty applies. [E13, E14]",
    "The lockers cost £1, which you get back afterwards. [E13, E14]",
    "Cancelling between 48 hours and six days beforehand gets you a 25% refund. [E15, E16]",
    "You can move your booking free of charge as many times as you like, provided it's at least 48 hours before the "
    "start. [E15, E16]",
    "If fewer players come than you booked for, the price is reduced to match. [E15, E16]",
    "You can use up to two gift vouchers on a single booking. [E15, E16]",
    "Students and over-60s pay £9 for any screening from Monday to Friday. [E17, E18]",
    "On Tuesdays every ticket is £6, including 3D screenings. [E17, E18]",
    "3D glasses cost an extra £1 on top of the 3D ticket price. [E17, E18]",
    "A carer goes free with a disabled customer, and no proof is needed. [E17, E18]",
    "Children under 5 get in free if they sit on an adult's lap. [E17, E18]",
    "Children under 12 can see a 12A film if they're with anyone aged 16 or over. [E19, E20]",
    "Under-15s can watch a 15 film as long as a parent or guardian comes with them. [E19, E20]",
    "At Kids' Club, children pay £3 and accompanying adults get in free. [E19, E20]",
    "Parent and Baby screenings are for adults with babies up to 18 months old. [E19, E20]",
    "Under-16s can't go to any screening starting after 9 pm, even with an adult. [E19, E20]",
    "You can bring your own drinks in, including soft drinks, as long as they're not alcoholic. [E21, E22]",
    "The sofa seats in Screen 2 cost £5 extra per person. [E21, E22]",
    "Wheelchair spaces can be booked online along with your tickets. [E21, E22]",
    "Adverts and trailers run for about 20 minutes before every film, Kids' Club included. [E21, E22]",
    "Seating is unallocated, so it's first come, first served. [E21, E22]",
    "A joint membership costs £65 a year and covers two adults and their children. [E23, E24]",
    "The members' 10% bar discount applies to everything, alcohol included. [E23, E24]",
    "Members can book new releases a week before they go on general sale. [E23, E24]",
    "You can cancel your membership within 14 days of joining for a full refund. [E23, E24]",
]
# Faithful answers still refused, asserted as such (README.md, "A sixteenth round")
KNOWN_GAPS = {
    # a value the wording computes (the cost of overrunning, of a team, of fees, of both extras, of a sofa, a member's
    # ticket; the minutes left to a late team)
    "Overrunning costs £40 for every 30 minutes or part of it, so staying 40 minutes too long would cost you £80. "
    "[E3, E4]",
    "A team of two pays £60 altogether, a team of four would pay £88 at £22 each, and a team of six would pay £120 "
    "at £20 each. [E9, E10]",
    "If you book three tickets online you'll pay £2.25 in fees, but the fee never goes over £3 per booking, and "
    "there's no fee at all at the box office. [E17, E18]",
    "Crockery and cutlery for up to 100 people are provided free, while the tea urn and the dishwasher are £5 each "
    "per booking, so £10 if you want both. [E7, E8]",
    "The sofas in Screen 2 seat two and cost an extra £5 per sofa on top of both tickets, so two adults paying the "
    "standard price would spend £28 in total. [E21, E22]",
    "Members get £2 off every standard ticket for themselves, so an adult ticket would be £9.50, though the "
    "discount doesn't apply on Tuesdays or at special events. [E23, E24]",
    "If you're 10 minutes late you can still play, but you'll only get 50 minutes, because they can't push back the "
    "next booking. [E13, E14]",
    # negation counted over more than the clause the wording restates (a sentence's ", but" or "because" clause, a
    # "which" clause, the next sentence of a pair): the first run's NEGATION_MISMATCH, not each read apart
    "The hire fee has to be paid in full no later than 28 days before the event, or on the day you book if the "
    "event is less than 28 days away. [E3, E4]",
    "Bouncy castles are fine in the main hall if you can show a current safety certificate, but confetti, glitter, "
    "smoke machines, candles and any other naked flames are banned throughout the building. [E5, E6]",
    "The kitchen comes free with the main hall, but you can't have it if you've only booked the committee room. "
    "[E7, E8]",
    "A team made up only of 14- to 17-year-olds can play without an adult, but only if a parent or guardian has "
    "signed the online consent form before the game. [E11, E12]",
    "Phones, cameras and smartwatches have to go in the free lockers, though one phone per team is allowed in The "
    "Night Train if a player needs it for medical reasons. [E13, E14]",
    "Gift vouchers come in £25, £50 and £100, last 18 months from when they're bought, and can't be swapped for "
    "cash. [E15, E16]",
    "You can't get a refund, but you can exchange your tickets for a different screening as long as you do it at "
    "least an hour before the original start time. [E17, E18]",
    "Under-15s can't see a 15 film even if a parent comes with them, and staff may ask anyone who looks under 25 "
    "for photo ID. [E19, E20]",
    "You can take anything you buy at the bar into any screen, alcohol included, but you have to be 18 or over to "
    "buy alcohol and it can't go into Kids' Club or Parent and Baby screenings. [E21, E22]",
    "You're allowed to bring your own snacks as long as they're not hot food, but the only drinks you can bring in "
    "are water and baby milk. [E21, E22]",
    "There are two wheelchair spaces in each screen, and because they can't be booked online, you need to book them "
    "by phone or at the box office. [E21, E22]",
    "A single member gets four free tickets a year and joint members get six to share, usable at any screening "
    "apart from special events and live broadcasts. [E23, E24]",
    # the verifier: too little entailment, or chunks that disagree, where no check finds fault ("Nobody under 10" is
    # read as a name too)
    "There are three rooms: The Clockmaker's Study and The Sunken Chapel take two to six players, and The Night "
    "Train takes four to eight. [E9, E10]",
    "You have to book online at least two hours ahead, and walk-ins are only possible if the room's free and the "
    "host says yes. [E9, E10]",
    "Nobody under 10 can play in any of the rooms. [E11, E12]",
    "If you turn up more than 15 minutes late, you lose both your slot and what you paid. [E13, E14]",
    "If fewer people turn up than you booked for, you still pay the full booked price, but you can add extra "
    "players on the day at the per-player price as long as you stay within the room's maximum. [E15, E16]",
    "Before you go, you need to sweep the floors, wipe the tables and stack the tables and chairs on the trolleys, "
    "and the hall has to be empty and locked by the end of your booked time. [E7, E8]",
    # the first run's strength, qualifier or number findings on a wording that says what its section says (a
    # hedge, a qualifier or a value read against another part of the section; not each read apart)
    "Bookings have to be at least two hours long, including your setting-up and clearing-away time, and the person "
    "booking must be 21 or over and be there for the whole booking. [E1, E2]",
    "You have to be 16 or older to play The Sunken Chapel, because parts of it are played in near darkness. [E11, "
    "E12]",
    "Members get 10% off food and drink at the bar, not counting alcohol, and they don't pay the online booking "
    "fee. [E23, E24]",
    "You'll get the deposit back within 14 days of the event, minus anything charged for damage, extra cleaning or "
    "running over your time. [E3, E4]",
    "On Tuesdays every seat is £6, apart from 3D screenings, special events and live broadcasts. [E17, E18]",
}
# Lies still shown verified (README.md names them; not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    # the 120 of "120 people standing or 90 seated at tables" given to the seated (every number of it is in the
    # sentence; reading the words after each value tells them apart here, but on the dev splits it flagged as many
    # entailed pairs as contradicted ones); candles allowed "in holders" where "naked flames, including candles, are
    # not allowed" (the wording's own "but ... aren't" evens the count); all rubbish in the car-park bins where only
    # glass and cans may go; the £60 of losing the key given to leaving the hall unlocked; a team of five at the
    # six-or-more price
    "Candles are allowed on the tables as long as they're in holders, but confetti and glitter aren't. [E5, E6]",
    "You can leave all your rubbish in the bins in the car park when you go. [E7, E8]",
    "Leaving the hall unlocked costs £60, the same as losing the key. [E7, E8]",
    "A team of five pays £20 per player. [E9, E10]",
    "The main hall can hold up to 120 people seated at tables. [E5, E6]",
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)


# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_l_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_l_are_still_not_verified,
 test_a_lie_over_corpus_l_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_corpus_l) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                       respond)
