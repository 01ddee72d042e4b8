"""Faithful answers and one-fact lies over corpus n (bench/data/corpus_n: a driving school's lessons, bookings, tests
and in-car rules, a dog grooming salon's prices, appointments, health rules and payment, a rehearsal studio's rooms,
bookings, equipment and house rules), documents of kinds no earlier round of wordings was written over. Each goes
through the real pipeline: respond_over_pages with a scripted model and the shipped verifier, over its page's chunks
with their titles. Written on 2026-12-08 as an eighteenth round, by an author who had not read the checks, before any
of it was run and before any fix of the round: a held-out measure of the seventeen rounds before it. The author cited
sections; the ask path cuts most of them into two chunks, and each wording cites its section's chunks, as a model
shown those chunks would. README.md gives the figures of its first run and after the fixes it led to; the known gaps
(asserted still unverified) and the lies still shown are listed below, with their causes, filled in after the first
run."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_n"
PAGES = ["ashcombe-driving-school.md", "fernley-dog-grooming.md", "kestrel-lane-rehearsal-studios.md"]

# the question each chunk answers (E1 ... E24, in page order)
QUESTIONS = {
    "E1": "How much are driving lessons at Ashcombe Driving School, and when can I have them?",
    "E2": "How much are driving lessons at Ashcombe Driving School, and when can I have them?",
    "E3": "How do I book driving lessons, and what happens if I need to cancel one?",
    "E4": "How do I book driving lessons, and what happens if I need to cancel one?",
    "E5": "How does the driving school's test package work, and what does it cost?",
    "E6": "How does the driving school's test package work, and what does it cost?",
    "E7": "What are the rules during a lesson in the driving school's car?",
    "E8": "What are the rules during a lesson in the driving school's car?",
    "E9": "How much does it cost to have my dog groomed at the Fernley salon?",
    "E10": "How much does it cost to have my dog groomed at the Fernley salon?",
    "E11": "When is the grooming salon open, and when do I need to pick my dog up?",
    "E12": "When is the grooming salon open, and when do I need to pick my dog up?",
    "E13": "What health and vaccination rules does the grooming salon have?",
    "E14": "What health and vaccination rules does the grooming salon have?",
    "E15": "How do I pay at the grooming salon, and are there any discounts or loyalty rewards?",
    "E16": "How do I pay at the grooming salon, and are there any discounts or loyalty rewards?",
    "E17": "What rooms does Kestrel Lane Rehearsal Studios have, and how much do they cost?",
    "E18": "What rooms does Kestrel Lane Rehearsal Studios have, and how much do they cost?",
    "E19": "How do I book a rehearsal room at Kestrel Lane, and what if we need to cancel?",
    "E20": "How do I book a rehearsal room at Kestrel Lane, and what if we need to cancel?",
    "E21": "What equipment comes with the rehearsal rooms, and what can we hire?",
    "E22": "What equipment comes with the rehearsal rooms, and what can we hire?",
    "E23": "What are the house rules at Kestrel Lane Rehearsal Studios?",
    "E24": "What are the house rules at Kestrel Lane Rehearsal Studios?",
}

FAITHFUL = [
    "Lessons run from Monday to Saturday between 7 am and 8 pm, and there are none on Sundays or bank holidays. "
    "[E1, E2]",
    "A one-hour lesson is £38 in a manual or £42 in an automatic, so two separate hours in an automatic would cost "
    "£84, which is £2 more than a single two-hour automatic lesson. [E1, E2]",
    "A block of ten manual lessons costs £350, which works out at £35 an hour, but you have to use them within six "
    "months of paying or you lose whatever's left. [E1, E2]",
    "If you book an ordinary lesson that starts after 6 pm you'll pay a £4 supplement for each hour, though block "
    "lessons don't carry it. [E1, E2]",
    "You have to be at least 17 on the day of your first lesson, and if you forget your provisional licence the "
    "lesson won't go ahead but you'll still be charged in full. [E1, E2]",
    "You can book through the online diary, or phone the school between 9 am and 5 pm on a weekday. [E3, E4]",
    "Moving or cancelling a lesson costs nothing as long as you do it at least 48 hours beforehand. [E3, E4]",
    "If you cancel a £38 lesson with less than 48 hours' notice, you'll be charged half the price, which is £19. "
    "[E3, E4]",
    "If you miss a lesson without telling anyone you'll pay the full price, unless you have a doctor's note or you "
    "missed it because of a family bereavement. [E3, E4]",
    "If your instructor turns up more than 15 minutes late, you can have the lost time added on to the lesson or "
    "take £10 off instead. [E3, E4]",
    "To take your test in the school car you'll need either at least 20 hours of lessons with the school or your "
    "instructor's judgement, after a mock test, that you're ready. [E5, E6]",
    "The £95 test package covers the car for the test, a one-hour warm-up lesson just before it and the drive to "
    "and from the test centre, but you book and pay the DVSA test fee yourself. [E5, E6]",
    "If you pass first time you get £20 back, so the test package ends up costing you £75. [E5, E6]",
    "Booking Pass Plus within a month of passing saves you £30, since it costs £160 instead of £190. [E5, E6]",
    "You can't use your phone during a lesson, except to change the navigation app while the car is parked. [E7, E8]",
    "Water is fine, but you can't eat, smoke, vape or drink anything else in the school's cars. [E7, E8]",
    "A friend aged 16 or over can sit in the back and watch a lesson if the instructor agrees, but never during a "
    "mock test. [E7, E8]",
    "Flip-flops aren't allowed, but if you turn up in them the instructor can lend you a pair of driving shoes for "
    "£2. [E7, E8]",
    "A full groom covers a bath, a blow-dry, a haircut, nail clipping and ear cleaning. [E9, E10]",
    "A full groom for a medium dog between 10 and 25 kg is £48, and a full groom for a large husky would cost £77 "
    "once the £15 double-coat charge is added. [E9, E10]",
    "You can pop in for an £8 nail clip without booking, but only between 9 am and 11 am on a Tuesday or Thursday. "
    "[E9, E10]",
    "De-matting is charged at £10 per 15 minutes but never comes to more than £40, so an hour and a half of it "
    "would still cost £40. [E9, E10]",
    "Puppy introduction sessions are 30 minutes long, cost £20, and are for puppies between 12 weeks and six months "
    "old. [E9, E10]",
    "The salon is open from Tuesday to Saturday, 8:30 am to 5:30 pm, and is shut on Sundays and Mondays. [E11, E12]",
    "You need to drop your dog off by 2 pm at the latest, and most full grooms take two to three hours. [E11, E12]",
    "If you collect your dog an hour and 40 minutes after the text, you'll be 40 minutes late and pay £10 in late "
    "collection fees. [E11, E12]",
    "If it's your first time with the salon and you don't turn up, you won't be charged for that first no-show. "
    "[E11, E12]",
    "You'll need to show your dog's vaccination card on the first visit and again whenever a booster has fallen "
    "due. [E13, E14]",
    "A dog with fleas can still be groomed, but there's an extra £12 for a flea bath. [E13, E14]",
    "If your dog has kennel cough, ringworm or an open wound, it can't be groomed until a vet has signed it off. "
    "[E13, E14]",
    "Dogs over 12 are groomed only with your signed consent, and any rest breaks they're given aren't charged for. "
    "[E13, E14]",
    "If your dog gets too stressed for the groom to be finished, you'll pay only for the work done, with a minimum "
    "charge of £15. [E13, E14]",
    "You can pay by card or cash when you collect your dog, but not by cheque. [E15, E16]",
    "A first appointment needs a £10 deposit, which is taken off the final bill. [E15, E16]",
    "Book your dog's next appointment before you leave and you'll get 10% off it, as long as it's within eight "
    "weeks. [E15, E16]",
    "If three dogs from your household are groomed on the same day, the second and third each get £5 off, saving "
    "you £10 in total. [E15, E16]",
    "The small rooms, 1 and 2, hold up to four people and cost £12 an hour before 5 pm and £16 an hour from 5 pm. "
    "[E17, E18]",
    "A medium room for three hours in the evening would cost £66, at £22 an hour. [E17, E18]",
    "Room 5 is the big live room for up to ten people, at £30 an hour whatever the time, and it's the only room "
    "you're allowed to record in. [E17, E18]",
    "On a weekday before 5 pm you can book just a single hour, but otherwise the minimum booking is two hours. "
    "[E17, E18]",
    "If you book six daytime hours, all before 5 pm, in a medium room you only pay for five, so it would come to "
    "£80. [E17, E18]",
    "If it's your first time, you'll pay a £20 deposit that's then taken off the cost of the session. [E19, E20]",
    "Cancel 48 hours or more ahead and you get all your money back; cancel between 48 and 24 hours ahead and you "
    "get half back. [E19, E20]",
    "If you cancel with less than 24 hours' notice but someone else rebooks the room, you'll get 75% refunded. "
    "[E19, E20]",
    "Booking the same weekly slot for eight or more weeks gets you 15% off, though you have to pay for the whole "
    "block up front and won't get money back for weeks you miss. [E19, E20]",
    "Each room comes with a PA and four microphones, a bass amp and two guitar amps at no extra cost. [E21, E22]",
    "Drum kits are provided in Rooms 3, 4 and 5, but you'll need to bring your own cymbals or hire a set for £5. "
    "[E21, E22]",
    "Hiring a keyboard and two extra microphones for a session would cost £10 in total. [E21, E22]",
    "You can bring your own amps, but any mains-powered gear that isn't the studio's has to have passed a PAT test "
    "in the last 12 months. [E21, E22]",
    "If you find a fault, report it to reception in the first 15 minutes of your session, otherwise it may be "
    "treated as damage your band caused. [E21, E22]",
    "Alcohol isn't allowed in the rooms or corridors, and if you seem drunk you'll be asked to leave without a "
    "refund. [E23, E24]",
    "You can have a soft drink in a bottle with a lid in the room, but food has to be eaten in the lounge. [E23, "
    "E24]",
    "Guests and crew count towards a room's maximum, and anyone over the limit will be asked to wait in the lounge. "
    "[E23, E24]",
    "Locker storage is £3 a night, so leaving your gear there for four nights would cost £12. [E23, E24]",
]

LIES = [
    "A one-hour lesson costs £38 in an automatic and £42 in a manual. [E1, E2]",
    "A block of ten automatic lessons costs £350, and you can use it at any time within a year. [E1, E2]",
    "Lessons starting before 8 am carry a £4 supplement per hour, and that applies to block lessons as well. [E1, "
    "E2]",
    "New pupils can book an introductory lesson for £25 in either a manual or an automatic car. [E1, E2]",
    "Lessons are available seven days a week, including Sunday mornings. [E1, E2]",
    "You can cancel a lesson free of charge up to 24 hours before it starts. [E3, E4]",
    "If you live 5 miles from the school's office, you'll be picked up free of charge. [E3, E4]",
    "If the instructor cancels, you'll be offered a new slot, but no refund is available. [E3, E4]",
    "Pick-ups from addresses up to 12 miles away are available for £5 each way. [E3, E4]",
    "The instructor will pick you up from your school or college whenever you ask, without needing anything from a "
    "parent. [E3, E4]",
    "A mock test costs £45 and lasts an hour. [E5, E6]",
    "The £95 test package includes the DVSA test fee, so there's nothing else to pay. [E5, E6]",
    "You need at least 30 hours of lessons with the school before an instructor will take you to a test. [E5, E6]",
    "If the instructor refuses to take you to a test because you haven't had a lesson in 30 days, you'll always get "
    "the full £95 back. [E5, E6]",
    "If you pass at your first attempt, the whole £95 test package is refunded. [E5, E6]",
    "You're allowed to drive as long as you haven't had any alcohol in the previous 6 hours. [E7, E8]",
    "If the instructor ends the lesson because they think you're unfit to drive, you won't be charged for it. [E7, "
    "E8]",
    "Small, well-behaved pets can come along in the car as long as they stay in a carrier. [E7, E8]",
    "Complaints can be made by phone within 30 days, and the school replies within 5 working days. [E7, E8]",
    "A full groom for a small dog under 10 kg costs £25. [E9, E10]",
    "A bath and brush for a large dog costs £48. [E9, E10]",
    "Walk-in nail clipping is available any weekday morning from 9 am to 11 am. [E9, E10]",
    "De-matting is charged at £10 for every 30 minutes, with no upper limit. [E9, E10]",
    "Puppy introduction sessions are open to puppies from 8 weeks to a year old. [E9, E10]",
    "The salon is open on Mondays but closed on Saturdays. [E11, E12]",
    "You've got two hours after the text before any late collection fee starts. [E11, E12]",
    "Dogs still not collected by 6 pm stay overnight at the salon itself for a £30 fee. [E11, E12]",
    "You're welcome to stay with your dog during any grooming appointment. [E11, E12]",
    "Cancelling with less than 24 hours' notice costs you the full booked price. [E11, E12]",
    "Dogs whose vaccinations are up to two years out of date can still be groomed. [E13, E14]",
    "Female dogs in season can be groomed if they're booked into the last slot of the day. [E13, E14]",
    "The salon can lightly sedate anxious dogs as long as the owner gives consent. [E13, E14]",
    "Rest breaks for older dogs are charged at £5 each. [E13, E14]",
    "Every fifth full groom is free with the loyalty card. [E15, E16]",
    "Baths and nail clips also earn stamps on the loyalty card. [E15, E16]",
    "The free loyalty groom covers everything, including any double-coat and de-matting charges. [E15, E16]",
    "If you don't like the haircut you can have a full refund, provided you tell the salon within 48 hours. [E15, "
    "E16]",
    "You have a week to tell the salon you're unhappy with a haircut, and the re-trim will be done within the "
    "following month. [E15, E16]",
    "The studios are open every single day of the year, Christmas Day included, from 10 am to midnight. [E17, E18]",
    "The medium rooms, 3 and 4, hold up to eight people. [E17, E18]",
    "Solo musicians can get the £8 rate in Rooms 1 and 2 at any time on a weekday. [E17, E18]",
    "You can book a single hour on a Saturday afternoon. [E17, E18]",
    "The six-hours-for-the-price-of-five deal also applies to Room 5 and to evening bookings. [E17, E18]",
    "Regular customers also have to pay a £20 deposit on every booking. [E19, E20]",
    "If you overrun by 20 minutes, you'll only be charged for the extra 20 minutes. [E19, E20]",
    "Booking the same weekly slot for four weeks in advance gets you 15% off. [E19, E20]",
    "Under-16s can book a room on their own as long as a parent has given permission by phone. [E19, E20]",
    "Every room, including the small ones, has a drum kit. [E21, E22]",
    "Cymbals come with all the studio's drum kits, so drummers only need to bring sticks. [E21, E22]",
    "Reception sells drumsticks at £8 a pair and guitar strings at £9 a set. [E21, E22]",
    "Extra microphones can be borrowed from reception free of charge. [E21, E22]",
    "You have the first hour of a session to report any fault you find. [E21, E22]",
    "The volume limit in the rooms is 120 decibels. [E23, E24]",
    "If you go over the volume limit even once, the power to your room is cut for ten minutes. [E23, E24]",
    "Vaping is allowed in the toilets, though not in the rehearsal rooms. [E23, E24]",
    "Parking is free all day at weekends. [E23, E24]",
]
# Faithful answers still refused, asserted as such (README.md, "An eighteenth round")
KNOWN_GAPS = {
    # a value the wording works out in more than one step or from a value it does not state (£2 more than a
    # two-hour lesson, the test package less its refund, a groom plus the double-coat charge, a capped or a late
    # fee, a saving over several dogs, five hours at the daytime rate), or a price cited from another section (the
    # £38 lesson under the cancellation rules); the first run's NUMBER_MISMATCH
    'A one-hour lesson is £38 in a manual or £42 in an automatic, so two separate hours in an automatic would cost '
    '£84, which is £2 more than a single two-hour automatic lesson. [E1, E2]',
    'A block of ten manual lessons costs £350, which works out at £35 an hour, but you have to use them within six '
    "months of paying or you lose whatever's left. [E1, E2]",
    "If you cancel a £38 lesson with less than 48 hours' notice, you'll be charged half the price, which is £19. "
    '[E3, E4]',
    'If you pass first time you get £20 back, so the test package ends up costing you £75. [E5, E6]',
    'A full groom for a medium dog between 10 and 25 kg is £48, and a full groom for a large husky would cost £77 '
    'once the £15 double-coat charge is added. [E9, E10]',
    'De-matting is charged at £10 per 15 minutes but never comes to more than £40, so an hour and a half of it '
    'would still cost £40. [E9, E10]',
    "If you collect your dog an hour and 40 minutes after the text, you'll be 40 minutes late and pay £10 in late "
    'collection fees. [E11, E12]',
    "If your dog gets too stressed for the groom to be finished, you'll pay only for the work done, with a minimum "
    'charge of £15. [E13, E14]',
    'If three dogs from your household are groomed on the same day, the second and third each get £5 off, saving '
    'you £10 in total. [E15, E16]',
    'If you book six daytime hours, all before 5 pm, in a medium room you only pay for five, so it would come to '
    '£80. [E17, E18]',
    'Hiring a keyboard and two extra microphones for a session would cost £10 in total. [E21, E22]',
    # negation counted over more than the clause the wording restates (an exception, a ", but" clause, a denial
    # said by a word of the other polarity: "bring your own cymbals" for "cymbals are not provided", "aren't
    # charged for" for "which are not charged for"); the first run's NEGATION_MISMATCH
    'You have to be at least 17 on the day of your first lesson, and if you forget your provisional licence the '
    "lesson won't go ahead but you'll still be charged in full. [E1, E2]",
    "If you miss a lesson without telling anyone you'll pay the full price, unless you have a doctor's note or you "
    'missed it because of a family bereavement. [E3, E4]',
    'The £95 test package covers the car for the test, a one-hour warm-up lesson just before it and the drive to '
    'and from the test centre, but you book and pay the DVSA test fee yourself. [E5, E6]',
    "Water is fine, but you can't eat, smoke, vape or drink anything else in the school's cars. [E7, E8]",
    'A friend aged 16 or over can sit in the back and watch a lesson if the instructor agrees, but never during a '
    'mock test. [E7, E8]',
    "If it's your first time with the salon and you don't turn up, you won't be charged for that first no-show. "
    '[E11, E12]',
    "A dog with fleas can still be groomed, but there's an extra £12 for a flea bath. [E13, E14]",
    'Cancel 48 hours or more ahead and you get all your money back; cancel between 48 and 24 hours ahead and you '
    'get half back. [E19, E20]',
    "If you cancel with less than 24 hours' notice but someone else rebooks the room, you'll get 75% refunded. "
    '[E19, E20]',
    'Booking the same weekly slot for eight or more weeks gets you 15% off, though you have to pay for the whole '
    "block up front and won't get money back for weeks you miss. [E19, E20]",
    "Drum kits are provided in Rooms 3, 4 and 5, but you'll need to bring your own cymbals or hire a set for £5. "
    '[E21, E22]',
    # the verifier (HIGH_CONTRADICTION where no check finds fault), a hedge or a quantifier the wording drops
    # ("most full grooms", "may be given rest breaks"), a word the section does not use (UNSUPPORTED_CONTENT:
    # "locker storage ... your gear"), or "either ... or" read as a restriction widened
    'Lessons run from Monday to Saturday between 7 am and 8 pm, and there are none on Sundays or bank holidays. '
    '[E1, E2]',
    'Moving or cancelling a lesson costs nothing as long as you do it at least 48 hours beforehand. [E3, E4]',
    "To take your test in the school car you'll need either at least 20 hours of lessons with the school or your "
    "instructor's judgement, after a mock test, that you're ready. [E5, E6]",
    'You need to drop your dog off by 2 pm at the latest, and most full grooms take two to three hours. [E11, E12]',
    "Dogs over 12 are groomed only with your signed consent, and any rest breaks they're given aren't charged for. "
    '[E13, E14]',
    "If it's your first time, you'll pay a £20 deposit that's then taken off the cost of the session. [E19, E20]",
    'Each room comes with a PA and four microphones, a bass amp and two guitar amps at no extra cost. [E21, E22]',
    'You can have a soft drink in a bottle with a lid in the room, but food has to be eaten in the lounge. [E23, '
    'E24]',
    'Locker storage is £3 a night, so leaving your gear there for four nights would cost £12. [E23, E24]',
}
# Lies still shown verified (README.md names them; not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    # a condition the wording turns round ("whenever you ask, without needing anything from a parent" for "unless a
    # parent has agreed in writing"), a refund in the main clause after a condition that holds its own negation
    # ("If you don't like the haircut"), and "the first hour" for "the first 15 minutes" (no number read in "the
    # first hour")
    'The instructor will pick you up from your school or college whenever you ask, without needing anything from a '
    'parent. [E3, E4]',
    "If you don't like the haircut you can have a full refund, provided you tell the salon within 48 hours. [E15, "
    'E16]',
    'You have the first hour of a session to report any fault you find. [E21, E22]',
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)


# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_n_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_n_are_still_not_verified,
 test_a_lie_over_corpus_n_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_corpus_n) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                       respond)
