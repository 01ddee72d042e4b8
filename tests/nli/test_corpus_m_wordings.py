"""Faithful answers and one-fact lies over corpus m (bench/data/corpus_m: a pottery studio's classes, membership and
firing charges, a laundrette's machines, service washes and rules, a bowling alley's prices, bookings, parties and
bar rules), documents of kinds no earlier round of wordings was written over. Each goes through the real pipeline:
respond_over_pages with a scripted model and the shipped verifier, over its page's chunks with their titles. Written
on 2026-12-07 as a seventeenth round, by an author who had not read the checks, before any of it was run and before
any fix of the round: a held-out measure of the sixteen rounds before it. The author cited sections; the ask path
cuts most of them into two chunks, and each wording cites its section's chunks, as a model shown those chunks would.
README.md gives the figures of its first run and after the fixes it led to; the known gaps (asserted still
unverified) and the lies still shown are listed below, with their causes, filled in after the first run."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_m"
PAGES = ["hollinsby-pottery-studio.md", "millbrook-laundrette.md", "castlegrove-bowling-alley.md"]

# the question each chunk answers (E1 ... E23, in page order)
QUESTIONS = {
    "E1": "How much are taster sessions and courses at the Hollinsby Pottery Studio, and who can take them?",
    "E2": "How much are taster sessions and courses at the Hollinsby Pottery Studio, and who can take them?",
    "E3": "How does Open Studio membership at the pottery studio work, and what does it cost?",
    "E4": "How does Open Studio membership at the pottery studio work, and what does it cost?",
    "E5": "How does firing work at the pottery studio, and what will it cost me?",
    "E6": "How does firing work at the pottery studio, and what will it cost me?",
    "E7": "How long do I have to collect my pots, and what happens if I cancel a class?",
    "E8": "How long do I have to collect my pots, and what happens if I cancel a class?",
    "E9": "What machines does the Millbrook Laundrette have, and how much does a wash and dry cost?",
    "E10": "What machines does the Millbrook Laundrette have, and how much does a wash and dry cost?",
    "E11": "How does the service wash at the laundrette work, and when will my laundry be ready?",
    "E12": "How does the service wash at the laundrette work, and when will my laundry be ready?",
    "E13": "How does the laundrette's loyalty card work, and are there any discounts?",
    "E14": "What are the rules at the laundrette, and what happens if something gets damaged?",
    "E15": "What are the rules at the laundrette, and what happens if something gets damaged?",
    "E16": "How much does bowling cost at Castlegrove Lanes, and when are they open?",
    "E17": "How much does bowling cost at Castlegrove Lanes, and when are they open?",
    "E18": "How do I book a lane at Castlegrove Lanes, and what if we're late or need to cancel?",
    "E19": "How do I book a lane at Castlegrove Lanes, and what if we're late or need to cancel?",
    "E20": "What's included in a children's bowling party at Castlegrove Lanes, and how much is it?",
    "E21": "What's included in a children's bowling party at Castlegrove Lanes, and how much is it?",
    "E22": "Can we get a drink at Castlegrove Lanes, and how late can teenagers stay?",
    "E23": "Can we get a drink at Castlegrove Lanes, and how late can teenagers stay?",
}

FAITHFUL = [
    "A taster session lasts two hours, runs on Friday evenings or Saturday mornings, and costs £38, which covers "
    "your clay, glazes and the firing of up to two finished pieces. [E1, E2]",
    "If you've done a taster at the studio in the last six months, the six-week wheel-throwing course costs you "
    "£175 instead of £195, a saving of £20. [E1, E2]",
    "Classes are capped at eight students, and a course will only run if at least four people have signed up a week "
    "before it starts. [E1, E2]",
    "You need to be 16 or older for the adult classes, but children aged 7 to 12 can join the Sunday hand-building "
    "class for £15. [E1, E2]",
    "If you miss a course session you won't get a refund or be able to carry it over to another course, though you "
    "can make up one missed session at a taster if there's a place free. [E1, E2]",
    "You can join Open Studio once you've finished a six-week course there, or if you can show the studio manager "
    "you're able to centre and throw a pot on your own. [E3, E4]",
    "For £60 a month you get up to 12 hours a week in the studio, between 10 am and 9 pm from Tuesday to Thursday, "
    "except when a class is using the main room. [E3, E4]",
    "Membership comes with one shelf and you can rent up to two more at £8 each, so having three shelves in total "
    "would cost £76 a month. [E3, E4]",
    "You can't bring in clay from elsewhere, since members have to buy the studio's own clay at £22 per 12.5 kg bag "
    "to protect the kilns. [E3, E4]",
    "Only studio staff load and unload the kilns, so you won't be putting your own work in. [E5, E6]",
    "Bisque firings happen on Mondays and glaze firings on Thursdays, and you can expect a piece to be ready "
    "roughly three weeks after you throw it. [E5, E6]",
    "A bisque firing is charged at 4p per square centimetre of shelf space, so a piece taking up just 20 square "
    "centimetres would be charged the £2 minimum rather than 80p. [E5, E6]",
    "Anything taller than 40 cm or wider than 35 cm can't be fired in the studio at all. [E5, E6]",
    "If you want to use a glaze from outside, the studio has to test it first at £5 per glaze; otherwise only the "
    "studio's own glazes are allowed. [E5, E6]",
    "Once you get the collection email you have four weeks to pick up your pieces, after which they're held for two "
    "more weeks and then recycled or given away without compensation. [E7, E8]",
    "Cancel a taster at least 72 hours before it starts and you'll get a full refund, but after that you'll only "
    "get a credit note for half the price, valid for six months. [E7, E8]",
    "Cancelling a course 14 days or more before the first class gets you a refund minus a £20 admin fee, so if "
    "you'd paid £195 you'd get £175 back. [E7, E8]",
    "You must wear closed-toe shoes in the studio at all times, tie long hair back at the wheel, and eat only in "
    "the kitchen area. [E7, E8]",
    "The laundrette is open from 7 am to 10 pm every day, but your last wash has to start by 9 pm. [E9, E10]",
    "A standard 8 kg wash is £4.50, a large 14 kg machine is £7, and the single 20 kg machine is £10. [E9, E10]",
    "If you're washing a duvet bigger than a double, you'll need the 20 kg machine, which takes around 50 minutes "
    "rather than the usual 35. [E9, E10]",
    "Drying costs £1 per 10 minutes, so 40 minutes in a dryer would come to £4. [E9, E10]",
    "The machines don't take cash, only contactless cards or the loyalty card, though you can turn cash into "
    "loyalty credit at the attendant's desk when someone's there. [E9, E10]",
    "A service wash is £14 for up to 6 kg, washed, dried and folded, and each extra kilogram or part of one adds "
    "£2, so a 7.5 kg bag would cost £18. [E11, E12]",
    "Drop your laundry off before 11 am on a weekday and it'll be ready after 5 pm the same day; otherwise, "
    "weekends included, it's ready after noon the next day. [E11, E12]",
    "For an extra £6 a bag you can have it back within three hours, but only on weekdays and only if you leave it "
    "before 2 pm. [E11, E12]",
    "Ironing is £1.50 for each shirt or blouse and £3 for each pair of trousers, and you'll need at least five "
    "items in the order. [E11, E12]",
    "The loyalty card is free, and you can top it up with £10 or more at a time. [E13]",
    "Top up £30 or more and you get 10% extra credit, rising to 15% for £50 or more, so a £50 top-up gives you "
    "£57.50 to spend. [E13]",
    "If you're 65 or over or a full-time student, you get 20% off self-service washes on Tuesdays and Wednesdays, "
    "though the discount doesn't cover drying or service washes. [E13]",
    "Use four or more washing machines on one visit and you'll get 20 minutes of drying thrown in free. [E13]",
    "Your credit never runs out, but you can't cash it in or move it to someone else's card. [E13]",
    "Children under 12 have to be supervised by an adult the whole time and aren't allowed to use the machines. "
    "[E14, E15]",
    "If you don't take your laundry out within 15 minutes of the cycle ending, someone else may move it to the "
    "shelves, and the laundrette won't be responsible for it. [E14, E15]",
    "You're not allowed to dye clothes, wash pet bedding or put anything with loose feathers or oil on it in the "
    "machines. [E14, E15]",
    "Claims for damaged service-wash items must be made within seven days of collection with your receipt, and "
    "they're capped at £30 an item and £150 a bag. [E14, E15]",
    "Before 5 pm on weekdays a game is £7.50 per person, and at all other times, bank holidays included, it's "
    "£9.50. [E16, E17]",
    "Children aged 4 to 15 pay £6 a game whatever time you go. [E16, E17]",
    "The family ticket is £28 for one game each for two adults and two children, or one adult and three children, "
    "but you can only use it before 5 pm. [E16, E17]",
    "Shoes are included in the price, and you have to wear the bowling shoes even if you've turned up in clean "
    "trainers. [E16, E17]",
    "On Monday evenings from 7 pm you can hire a lane for an hour for £45 and play as many games as you can fit in. "
    "[E16, E17]",
    "You can book a lane online or by phone up to eight weeks in advance, and you'll pay the full amount when you "
    "book. [E18, E19]",
    "Aim to arrive at least 15 minutes early to get your shoes, because if you haven't claimed your lane within 10 "
    "minutes of the start it can go to someone else and you won't get your money back. [E18, E19]",
    "You can move or cancel your booking for free as long as you do it at least 24 hours before your start time. "
    "[E18, E19]",
    "Bumpers can go up for under-12s and for anyone who needs them because of a disability, and they can be up for "
    "some players on a lane and down for others. [E18, E19]",
    "Parties are for children aged 5 to 14 and cost £14.50 each, which covers a game of bowling, a hot dog or "
    "nuggets with chips, unlimited soft drinks and a party bag. [E20, E21]",
    "You need at least eight children for a party, and if you have 16 or more, every child gets a second game free. "
    "[E20, E21]",
    "Parties only run at weekends and in the school holidays, with start times of 11 am, 1 pm or 3 pm. [E20, E21]",
    "The £40 deposit comes off your final bill, but you'll lose it if you cancel less than 14 days before the "
    "party. [E20, E21]",
    "Once you've confirmed numbers three days ahead, you'll pay for that many children even if some don't turn up. "
    "[E20, E21]",
    "You need to be 18 or over to buy alcohol, and if you look under 25 you'll be asked for photo ID. [E22, E23]",
    "Alcohol isn't sold before midday, and you can only take bar drinks to your lane in plastic cups. [E22, E23]",
    "Under-16s have to leave by 8 pm unless an adult is with them, and every under-18 must be gone by 10 pm "
    "regardless. [E22, E23]",
    "You can't use your own ball on the lanes unless you're a registered Castlegrove league member, and even then "
    "staff need to check it once a year. [E22, E23]",
]

LIES = [
    "Taster sessions cost £38 and include the firing of up to three finished pieces. [E1, E2]",
    "The six-week course costs £175 for anyone who has ever done a taster session at the studio. [E1, E2]",
    "A course needs at least six people booked a week before the first class, or it's cancelled. [E1, E2]",
    "The Sunday children's hand-building class is open to children aged 5 to 12. [E1, E2]",
    "Missed course sessions can be carried over to the next six-week course as long as you let the studio know in "
    "advance. [E1, E2]",
    "Open Studio membership costs £60 a month and gives you unlimited studio time during open hours. [E3, E4]",
    "Members can use the studio from Monday to Thursday, between 10 am and 9 pm. [E3, E4]",
    "You can bring your own clay as long as it's a stoneware body that suits the studio's kilns. [E3, E4]",
    "Wheels have to be booked at least 48 hours in advance, in slots of up to three hours. [E3, E4]",
    "If you miss two booked wheel slots in a month, your Open Studio membership is cancelled. [E3, E4]",
    "Members who have completed the kiln induction are allowed to load their own work into the kilns. [E5, E6]",
    "Glaze firings take place every Monday and bisque firings every Thursday. [E5, E6]",
    "Firing costs 6p per square centimetre for a bisque firing and 4p for a glaze firing. [E5, E6]",
    "If your glaze runs and sticks a piece to a kiln shelf, you'll be charged £5 for each damaged shelf. [E5, E6]",
    "Uncollected pieces are kept for eight weeks after the collection email before they're recycled or given away. "
    "[E7, E8]",
    "If you cancel a taster less than 72 hours beforehand, you get a credit note for the full price, valid for six "
    "months. [E7, E8]",
    "Course fees are refunded in full, with no admin fee, if you cancel at least 14 days before the first class. "
    "[E7, E8]",
    "Members may use the spray booth once a member of staff has shown them how. [E7, E8]",
    "You can cancel a course up to seven days before it starts and still get most of your money back. [E7, E8]",
    "The last wash of the day can start as late as 9.30 pm. [E9, E10]",
    "Any of the large 14 kg machines can be used for king-size duvets. [E9, E10]",
    "The tumble dryers cost £1 for every 15 minutes. [E9, E10]",
    "You can pay for the machines with coins as well as by contactless card. [E9, E10]",
    "If you bring your own detergent, you get £1 off the price of the wash. [E9, E10]",
    "A service wash costs £14 for a bag weighing up to 8 kg. [E11, E12]",
    "Laundry left before 11 am on a Saturday will be ready after 5 pm the same day. [E11, E12]",
    "Express service is available every day of the week for bags left before 2 pm. [E11, E12]",
    "Dry-clean-only items can be included in a service wash for a small extra charge. [E11, E12]",
    "A £30 top-up gives you £34.50 of credit thanks to the 15% bonus. [E13]",
    "Students and over-65s get 20% off all washes and drying on Tuesdays and Wednesdays. [E13]",
    "The 20% discount for students and over-65s applies on any day of the week. [E13]",
    "Loyalty card credit expires 12 months after your last top-up. [E13]",
    "If you lose your loyalty card, your balance is moved to a new card free of charge. [E13]",
    "Children under 16 must be supervised by an adult at all times in the laundrette. [E14, E15]",
    "You have 30 minutes after a cycle finishes to collect your washing before anyone can move it. [E14, E15]",
    "Well-behaved dogs on a lead are welcome inside the laundrette. [E14, E15]",
    "The attendant's desk is staffed on Sundays from 9 am to 1 pm, the same as Saturdays. [E14, E15]",
    "Lost property is kept for 90 days before it's disposed of. [E14, E15]",
    "On Sundays Castlegrove Lanes stays open until 11 pm, the same as the rest of the week. [E16, E17]",
    "Shoe hire costs an extra £1.50 on top of the price of the game. [E16, E17]",
    "Each lane can take up to eight players. [E16, E17]",
    "A Saturday afternoon game for two adults would cost £15 in total. [E16, E17]",
    "Lanes can be booked online or by phone up to twelve weeks ahead. [E18, E19]",
    "You only need to pay a deposit when you book, and the rest is due on the day. [E18, E19]",
    "If you're more than 10 minutes late, your booking is simply moved to the next free lane at no extra charge. "
    "[E18, E19]",
    "Bookings can be cancelled free of charge up to two hours before the start time. [E18, E19]",
    "Ball ramps are available on request for a small fee. [E18, E19]",
    "The minimum party size is ten children. [E20, E21]",
    "Parties can be booked on any day of the week, starting at 11 am, 1 pm or 3 pm. [E20, E21]",
    "The £40 deposit is refunded in full whenever you cancel, as long as you give at least three days' notice. "
    "[E20, E21]",
    "One adult needs to stay for every ten children at the party. [E20, E21]",
    "Adults who bowl with the children at a party play for free. [E20, E21]",
    "Under-18s can stay after 10 pm as long as they're with a parent. [E22, E23]",
    "The diner takes food orders right up until closing time. [E22, E23]",
    "Vaping is allowed in the bar area but not near the lanes. [E22, E23]",
    "Anyone asked to leave for bad behaviour gets a refund for any games they haven't played. [E22, E23]",
]
# Faithful answers still refused, asserted as such (README.md, "A seventeenth round")
KNOWN_GAPS = {
    # a value the wording computes or restates in other terms (three shelves a month, the firing minimum, a refund
    # less its fee, a top-up's bonus, a party's price for a group); the first run's NUMBER_MISMATCH (a course's
    # saving and 40 minutes of drying, worked out from the wording's own values, are verified since the eighteenth
    # round)
    'A taster session lasts two hours, runs on Friday evenings or Saturday mornings, and costs £38, which covers '
    'your clay, glazes and the firing of up to two finished pieces. [E1, E2]',
    'Membership comes with one shelf and you can rent up to two more at £8 each, so having three shelves in total '
    'would cost £76 a month. [E3, E4]',
    'A bisque firing is charged at 4p per square centimetre of shelf space, so a piece taking up just 20 square '
    'centimetres would be charged the £2 minimum rather than 80p. [E5, E6]',
    'Cancelling a course 14 days or more before the first class gets you a refund minus a £20 admin fee, so if '
    "you'd paid £195 you'd get £175 back. [E7, E8]",
    'A standard 8 kg wash is £4.50, a large 14 kg machine is £7, and the single 20 kg machine is £10. [E9, E10]',
    'A service wash is £14 for up to 6 kg, washed, dried and folded, and each extra kilogram or part of one adds '
    '£2, so a 7.5 kg bag would cost £18. [E11, E12]',
    'Top up £30 or more and you get 10% extra credit, rising to 15% for £50 or more, so a £50 top-up gives you '
    '£57.50 to spend. [E13]',
    "Use four or more washing machines on one visit and you'll get 20 minutes of drying thrown in free. [E13]",
    'Parties are for children aged 5 to 14 and cost £14.50 each, which covers a game of bowling, a hot dog or '
    'nuggets with chips, unlimited soft drinks and a party bag. [E20, E21]',
    # negation counted over more than the clause the wording restates (a sentence's ", but" clause, an exception),
    # or a denial said by a word of the other polarity ("have to wear the bowling shoes" for "may not bowl in their
    # own shoes"); the first run's NEGATION_MISMATCH (a list split into atoms without their denial, "Oil on it in the
    # machines.", is kept whole since the eighteenth round)
    'Classes are capped at eight students, and a course will only run if at least four people have signed up a week'
    ' before it starts. [E1, E2]',
    "Only studio staff load and unload the kilns, so you won't be putting your own work in. [E5, E6]",
    "Once you get the collection email you have four weeks to pick up your pieces, after which they're held for two"
    ' more weeks and then recycled or given away without compensation. [E7, E8]',
    "If you're 65 or over or a full-time student, you get 20% off self-service washes on Tuesdays and Wednesdays, "
    "though the discount doesn't cover drying or service washes. [E13]",
    "Your credit never runs out, but you can't cash it in or move it to someone else's card. [E13]",
    "If you don't take your laundry out within 15 minutes of the cycle ending, someone else may move it to the "
    "shelves, and the laundrette won't be responsible for it. [E14, E15]",
    "Shoes are included in the price, and you have to wear the bowling shoes even if you've turned up in clean "
    'trainers. [E16, E17]',
    'Bumpers can go up for under-12s and for anyone who needs them because of a disability, and they can be up for '
    'some players on a lane and down for others. [E18, E19]',
    "Once you've confirmed numbers three days ahead, you'll pay for that many children even if some don't turn up. "
    '[E20, E21]',
    # the verifier, EVIDENCE_CONFLICT, a hedge or a word the section does not use (UNSUPPORTED_CONTENT: "top it
    # up", "gone by 10 pm regardless", "pay the full amount when you book" with "booked" read as another stem)
    'You need to be 16 or older for the adult classes, but children aged 7 to 12 can join the Sunday hand-building '
    'class for £15. [E1, E2]',
    "You can join Open Studio once you've finished a six-week course there, or if you can show the studio manager "
    "you're able to centre and throw a pot on your own. [E3, E4]",
    "Cancel a taster at least 72 hours before it starts and you'll get a full refund, but after that you'll only "
    'get a credit note for half the price, valid for six months. [E7, E8]',
    'The laundrette is open from 7 am to 10 pm every day, but your last wash has to start by 9 pm. [E9, E10]',
    "The machines don't take cash, only contactless cards or the loyalty card, though you can turn cash into "
    "loyalty credit at the attendant's desk when someone's there. [E9, E10]",
    'The loyalty card is free, and you can top it up with £10 or more at a time. [E13]',
    'On Monday evenings from 7 pm you can hire a lane for an hour for £45 and play as many games as you can fit in.'
    ' [E16, E17]',
    "You can book a lane online or by phone up to eight weeks in advance, and you'll pay the full amount when you "
    'book. [E18, E19]',
    "Aim to arrive at least 15 minutes early to get your shoes, because if you haven't claimed your lane within 10 "
    "minutes of the start it can go to someone else and you won't get your money back. [E18, E19]",
    "You need to be 18 or over to buy alcohol, and if you look under 25 you'll be asked for photo ID. [E22, E23]",
    'Under-16s have to leave by 8 pm unless an adult is with them, and every under-18 must be gone by 10 pm '
    'regardless. [E22, E23]',
}

LIES_STILL_SHOWN = {
    # dry-clean-only items, which the page never mentions (the verifier entails the wording, and half of its content
    # words are the section's)
    'Dry-clean-only items can be included in a service wash for a small extra charge. [E11, E12]',
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)


# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_m_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_m_are_still_not_verified,
 test_a_lie_over_corpus_m_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_corpus_m) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                       respond)
