"""Faithful answers and one-fact lies over corpus i (bench/data/corpus_i: a veterinary practice's fees and
appointment policy, a self-storage company's rental terms and a paddle-sport hire's conditions), documents of kinds no
earlier round of wordings was written over (tests/nli/test_corpus_wordings.py and test_corpus_b_wordings.py to
test_corpus_h_wordings.py). Each goes through the real pipeline: respond_over_pages with a scripted model and the
shipped verifier, over its page's chunks with their titles. Written on 2026-12-07 as a thirteenth round, by an author
who had not read the checks, before any of it was run and before any fix of the round: a held-out measure of the
twelve rounds before it. The author cited sections; the ask path cuts most of them into two chunks, and each wording
cites its section's chunks, as a model shown those chunks would. README.md gives the figures of its first run and
after the fixes it led to; the known gaps (asserted still unverified) and the lies still shown are listed below, with
their causes, filled in after the first run."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_i"
PAGES = ["heronsgate-vet-fees-and-appointments.md", "keelbrook-self-storage-terms.md",
         "saltmere-paddle-hire-conditions.md"]

# the question each chunk answers (E1 ... E21, in page order: veterinary practice, self storage, paddle hire)
QUESTIONS = {
    "E1": "When can I book a routine appointment at Heronsgate vets, and how do I go about booking?",
    "E2": "When can I book a routine appointment at Heronsgate vets, and how do I go about booking?",
    "E3": "How much does a consultation, a vaccination or a prescription cost at Heronsgate?",
    "E4": "What does the Healthy Pet Plan cost, what does it cover, and can my pet join?",
    "E5": "What happens in an emergency out of hours, and what if I miss an appointment or need help paying?",
    "E6": "What sizes of storage unit does Keelbrook have, and how much do they cost?",
    "E7": "What sizes of storage unit does Keelbrook have, and how much do they cost?",
    "E8": "When can I get to my storage unit, and who is allowed access?",
    "E9": "When can I get to my storage unit, and who is allowed access?",
    "E10": "What am I not allowed to keep or do in a Keelbrook storage unit?",
    "E11": "What am I not allowed to keep or do in a Keelbrook storage unit?",
    "E12": "Do I need insurance for my stored goods, and what happens if I pay late or want to end the rental?",
    "E13": "Do I need insurance for my stored goods, and what happens if I pay late or want to end the rental?",
    "E14": "When is Saltmere Paddle Hire open and how much does it cost to hire a kayak, canoe or paddleboard?",
    "E15": "When is Saltmere Paddle Hire open and how much does it cost to hire a kayak, canoe or paddleboard?",
    "E16": "Are there age or swimming requirements, and can children and dogs come out on the water?",
    "E17": "Are there age or swimming requirements, and can children and dogs come out on the water?",
    "E18": "What happens if the weather is bad or I need to cancel my hire?",
    "E19": "What happens if the weather is bad or I need to cancel my hire?",
    "E20": "Where am I allowed to paddle, and what will I be charged if something is lost or damaged?",
    "E21": "Where am I allowed to paddle, and what will I be charged if something is lost or damaged?",
}

FAITHFUL = [
    "Routine appointments are given in 15-minute slots from 8:30 am to 6:30 pm on weekdays and from 9 am to 12:30 "
    "pm on Saturdays, but the practice isn't open on Sundays or public holidays except for emergency cover. [E1, E2]",
    "You can book by phone, at the front desk or online, though the online portal only takes bookings for pets that "
    "are already registered with the practice. [E1, E2]",
    "If you're a new client, you'll need to register at least 24 hours before your first visit and bring along any "
    "earlier vaccination records. [E1, E2]",
    "Second-opinion and behavioural consultations get a 30-minute slot, and you can't book them online. [E1, E2]",
    "Anyone who's 16 or older can bring a pet in, but only the registered owner, or someone with the owner's "
    "written consent, can authorise treatment that goes beyond a basic examination. [E1, E2]",
    "A standard consultation is £48, and if you come back about the same condition within 14 days the repeat visit "
    "costs £29. [E3]",
    "Dog boosters are £62 and cat boosters £58, which includes a health check but doesn't cover any medication "
    "prescribed at that visit. [E3]",
    "Nurse-clinic weight checks and post-operative wound checks cost nothing for registered pets, but nail clipping "
    "is £12 unless your pet is on the Healthy Pet Plan. [E3]",
    "A written prescription costs £18 per item, and you'll only get one if one of the practice's vets has examined "
    "your animal within the last 6 months. [E3]",
    "Prices already include VAT at 20%, you pay at the end of each visit, and a written surgery estimate stays "
    "valid for 30 days. [E3]",
    "It covers two routine health checks a year, yearly booster vaccinations and flea and worming treatment, and "
    "you also get 10% off other consultations and medicines. [E4]",
    "That 10% discount doesn't apply to prescription diets, cremation services or referrals to other hospitals. [E4]",
    "Pets can join from 8 weeks old, but a dog over 10 or a cat over 12 can't join as a new member, though pets "
    "that are already on the plan stay covered for life. [E4]",
    "There's a 12-month minimum term, and if you cancel before it's up you'll have to pay the difference between "
    "the plan price and the full cost of any treatment you've already had. [E4]",
    "Out of hours, emergencies are seen by Marrowby Pet Emergency Service at 4 Quarry Lane, where a consultation "
    "costs £165 before 11 pm and £210 between 11 pm and 8 am. [E5]",
    "You need to cancel at least 4 hours ahead or a £20 missed-appointment fee goes on your account, though it's "
    "waived the first time that happens in a calendar year. [E5]",
    "You can pay by debit card, credit card or cash, but cheques aren't accepted. [E5]",
    "Payment plans are only offered on bills over £500, and only if you've been registered with the practice for at "
    "least a year. [E5]",
    "Indoor units come in 25, 50, 75 and 100 square feet and cost £18, £32, £45 and £58 a week respectively. [E6, "
    "E7]",
    "A 160-square-foot outdoor drive-up container is £52 a week, and VAT at 20% is added on top of the quoted "
    "prices. [E6, E7]",
    "You pay rent four weeks in advance, the shortest you can rent for is two weeks, and there's no maximum period. "
    "[E6, E7]",
    "As a new customer booking for 12 weeks or more you get the first 8 weeks at half price, but not on a drive-up "
    "container or if you've rented with Keelbrook in the past 6 months. [E6, E7]",
    "You can get to your unit between 6 am and 10 pm every day apart from 25 and 26 December, using your own PIN at "
    "the gate. [E8, E9]",
    "The office is staffed from 8:30 am to 5:30 pm on weekdays and 9 am to 4 pm on Saturdays, and it's closed on "
    "Sundays. [E8, E9]",
    "Besides the customer named on the agreement, up to two authorised users listed on the account can be given a "
    "PIN, and you mustn't share PINs with anyone. [E8, E9]",
    "You fit your own padlock, and Keelbrook doesn't keep keys or spare keys for any unit. [E8, E9]",
    "CCTV records around the clock, but the footage is only kept for 31 days. [E8, E9]",
    "You can't store food or anything perishable, live animals or plants, firearms or ammunition, fireworks, gas "
    "bottles, flammable liquids such as paint thinners, or anything illegal. [E10, E11]",
    "Cars, motorbikes, lawnmowers and other petrol-powered machines are only allowed in drive-up containers, and "
    "only once the fuel tank has been drained and the battery disconnected. [E10, E11]",
    "You mustn't use a unit as an office, a workshop or somewhere to live, and the only electrical thing you can "
    "run is the ceiling light in indoor units. [E10, E11]",
    "Business customers can take deliveries at their unit only if they're there in person, since staff won't sign "
    "for parcels for anyone. [E10, E11]",
    "Your goods have to be insured for their full replacement value, either with Keelbrook's Protection Cover at "
    "£1.20 a week per £1,000 of value or with your own home or business policy, as long as you send them a copy of "
    "the schedule. [E12, E13]",
    "Protection Cover will insure at most £50,000 per unit. [E12, E13]",
    "Once rent is more than 7 days late there's a £15 late fee, and after 14 days your gate access is suspended. "
    "[E12, E13]",
    "You need to give at least 7 days' written notice to end the rental, and rent already paid for the current "
    "four-week period isn't refunded unless the agreement is being ended by the estate of a customer who has died. "
    "[E12, E13]",
    "If you don't leave the unit empty and swept clean, £40 is taken off your deposit for cleaning. [E12, E13]",
    "The season runs from 1 April to 31 October, and they're open 9:30 am to 6 pm Wednesday to Sunday, plus every "
    "day in the school summer holidays. [E14, E15]",
    "For the first hour, a single kayak is £16, a double kayak £24, a stand-up paddleboard £18 and a Canadian "
    "canoe, which takes up to three people, £30. [E14, E15]",
    "Every hour after the first is charged at half the first-hour rate, and a half-day of up to 4 hours is priced "
    "the same as three hours. [E14, E15]",
    "You can book online up to 14 days in advance with a 25% deposit taken when you book, or just turn up, though "
    "walk-up hires only happen if a craft is free. [E14, E15]",
    "Everyone going on the water has to be able to swim at least 50 metres and wear the buoyancy aid that's "
    "provided, and you can't swap it for your own. [E16, E17]",
    "Children under 8 can only go out in a double kayak or a canoe, sitting with an adult. [E16, E17]",
    "Kids aged 8 to 15 can take a single kayak or a paddleboard as long as an adult from their group is on the "
    "water too. [E16, E17]",
    "If you're 16 or 17 you can hire on your own, but a parent or guardian has to sign the hire form, whereas "
    "anyone 18 or over signs for themselves. [E16, E17]",
    "Dogs can only go in canoes, at most one per canoe, and they need a dog buoyancy aid, which you can hire for "
    "£5. [E16, E17]",
    "Staff check the forecast at 8 am and every two hours after that, and hire is stopped if winds over 20 mph are "
    "forecast or there's thunder or lightning within 10 miles. [E18, E19]",
    "If they cancel because of the weather, you can have a full refund or move to another date in the same season "
    "at no charge. [E18, E19]",
    "If you cancel yourself, you'll only get your deposit back in full if you give at least 48 hours' notice. [E18, "
    "E19]",
    "If you're called back to shore partway through a hire, you get a credit voucher for the unused time that's "
    "valid for 12 months, not cash back. [E18, E19]",
    "You have to stay in the marked area between the slipway and the yellow buoys at Heron Point, and nobody can "
    "land on Gull Island, which is shut to the public from March to August while birds are nesting. [E20, E21]",
    "You can't swim from the craft, except from canoes in the shallow bay next to the slipway. [E20, E21]",
    "Each hirer has to leave a debit or credit card as security, and cash isn't accepted for that. [E20, E21]",
    "Minor scratches count as normal wear, but a lost paddle is £35, a lost buoyancy aid £45, and damage that makes "
    "a craft unusable is charged at repair cost up to £400 per craft. [E20, E21]",
    "Groups of more than 10 need to book at least 7 days in advance, and they get 10% off. [E20, E21]",
]

LIES = [
    "Routine consultations are booked in 20-minute slots between 8:30 am and 6:30 pm, Monday to Friday. [E1, E2]",
    "On Saturdays you can get a routine appointment between 9 am and 12:30 pm, and on Sundays between 10 am and "
    "noon. [E1, E2]",
    "Behavioural and second-opinion consultations take 30 minutes and can be booked through the online portal like "
    "any other appointment. [E1, E2]",
    "Anyone aged 16 or over can bring a pet in and authorise whatever treatment the vet recommends. [E1, E2]",
    "A repeat consultation for the same problem costs £29 as long as it's within 28 days of the first one. [E3]",
    "Booster vaccinations are £62 for dogs and £58 for cats, and that price includes any medication prescribed "
    "during the visit. [E3]",
    "Nail clipping at the nurse clinic is free for every registered pet, whether or not it's on the Healthy Pet "
    "Plan. [E3]",
    "Written prescriptions cost £18 per item, and you can get one as long as your pet has seen one of the vets in "
    "the last 12 months. [E3]",
    "All fees are shown before VAT, which is added at 20% when you pay at the end of the visit. [E3]",
    "Members get 10% off other consultations and medicines, and that includes prescription diets. [E4]",
    "Pets can join from 8 weeks of age, and there's no upper age limit for joining. [E4]",
    "The plan has a minimum term of 6 months, and cancelling before then means paying the difference between the "
    "plan price and the full cost of treatment you've had. [E4]",
    "Rabbits can go on the plan, but ferrets and other small pets can't. [E4]",
    "An out-of-hours consultation costs £165 before 10 pm and £210 from then until 8 am. [E5]",
    "Out-of-hours consultations are £165 or £210 depending on the time, though Healthy Pet Plan members get their "
    "usual 10% off. [E5]",
    "If you don't cancel at least 4 hours before, you're charged £20 for the missed appointment, and that applies "
    "even the first time it happens. [E5]",
    "Payment plans are available on any bill over £500, no matter how long you've been a client. [E5]",
    "If your insurer agrees to pay the practice, they'll claim from it directly, and filling in the claim form is "
    "free. [E5]",
    "A 50-square-foot indoor unit costs £45 a week. [E6, E7]",
    "The prices you see for the units already include VAT. [E6, E7]",
    "The minimum rental period is four weeks, and rent is paid four weeks in advance. [E6, E7]",
    "New customers booking at least 12 weeks get 50% off the first 8 weeks, and that applies to drive-up containers "
    "as well. [E6, E7]",
    "Gate access runs from 6 am to 10 pm every day of the year, including Christmas Day and Boxing Day. [E8, E9]",
    "The office is open from 8:30 am to 5:30 pm on weekdays and from 9 am to 4 pm at weekends. [E8, E9]",
    "Apart from the customer named on the agreement, up to three authorised users can be given a PIN. [E8, E9]",
    "CCTV records 24 hours a day, and the footage is kept for 90 days. [E8, E9]",
    "Trolleys, the pallet truck and the forklift can all be borrowed free of charge during office hours. [E8, E9]",
    "Petrol-powered machines like lawnmowers can go in any unit as long as the fuel tank's drained and the "
    "battery's disconnected. [E10, E11]",
    "Cars and motorcycles can be kept in drive-up containers as long as the battery is disconnected; the fuel tank "
    "doesn't need to be drained. [E10, E11]",
    "You can't run any electrical equipment in a unit, apart from the ceiling light in the drive-up containers. "
    "[E10, E11]",
    "Any customer can have deliveries made to their unit, as long as they're there to accept them. [E10, E11]",
    "Keelbrook may open your unit without notice if your rent hasn't been paid. [E10, E11]",
    "Protection Cover costs £1.20 a week for every £1,000 of value and will insure at least £50,000 per unit. [E12, "
    "E13]",
    "You can use your own home or business insurance instead, and you don't need to send Keelbrook any paperwork "
    "for that. [E12, E13]",
    "If rent is more than 7 days late you'll pay a £15 late fee, and your gate access is suspended straight away. "
    "[E12, E13]",
    "To end the rental, you have to give at least 14 days' notice in writing. [E12, E13]",
    "If you give notice partway through a four-week period, you'll get back the rent for the weeks you don't use. "
    "[E12, E13]",
    "They're open from 9:30 am to 6 pm every day between 1 April and 31 October. [E14, E15]",
    "A Canadian canoe costs £30 for the first hour and seats up to four people. [E14, E15]",
    "A half-day hire of up to 4 hours costs the same as two hours. [E14, E15]",
    "Online bookings have to be made at least 14 days ahead, and a 25% deposit is taken when you book. [E14, E15]",
    "The last boat goes out at 5:30 pm, and everything has to be back on the slipway by 6 pm. [E14, E15]",
    "Everyone needs to be able to swim at least 25 metres, and you must wear a buoyancy aid. [E16, E17]",
    "You have to wear a buoyancy aid, but you're welcome to bring your own instead of using theirs. [E16, E17]",
    "16- and 17-year-olds can hire on their own and sign the hire form themselves. [E16, E17]",
    "Each adult can supervise up to four children. [E16, E17]",
    "Dogs are allowed in canoes and double kayaks, as long as they wear a dog buoyancy aid. [E16, E17]",
    "Hire stops whenever the wind is forecast above 15 mph or there's thunder or lightning within 10 miles. [E18, "
    "E19]",
    "If the weather forces them to cancel your booking, you'll get a credit voucher rather than a refund. [E18, E19]",
    "If you cancel with at least 24 hours' notice, your deposit is refunded in full. [E18, E19]",
    "If they call you back to shore during a hire, you get a cash refund for the time you didn't use. [E18, E19]",
    "You can paddle anywhere on the lake, but you mustn't land on Gull Island between March and August. [E20, E21]",
    "Swimming from any craft is allowed in the shallow bay beside the slipway. [E20, E21]",
    "You can leave either cash or a debit or credit card as security. [E20, E21]",
    "Damage that leaves a craft unusable is charged at the full repair cost, with no upper limit. [E20, E21]",
    "Alcohol isn't allowed on the water, but if you seem to have been drinking you'll be refused hire and given a "
    "refund. [E20, E21]",
]
# Faithful answers still refused, asserted as such (README.md, "A thirteenth round")
KNOWN_GAPS = {
    # the veterinary page's questions name vets, vaccinations and treatment: the medical domain, where the shipped
    # bundle needs two independent sources (INSUFFICIENT_SOURCES) and a higher entailment (LOW_ENTAILMENT,
    # CLAIM_NOT_GROUNDED), and the page is one; the reply says so. By policy, not by a check (some meet a check
    # too: "Prices" read as a name the page never uses, the atom "You cheques aren't accepted.", "free ..., except
    # nail clipping" read as a negation of the checks that are free)
    "Routine appointments are given in 15-minute slots from 8:30 am to 6:30 pm on weekdays and from 9 am to 12:30 "
    "pm on Saturdays, but the practice isn't open on Sundays or public holidays except for emergency cover. [E1, E2]",
    "If you're a new client, you'll need to register at least 24 hours before your first visit and bring along any "
    "earlier vaccination records. [E1, E2]",
    "A written prescription costs £18 per item, and you'll only get one if one of the practice's vets has examined "
    "your animal within the last 6 months. [E3]",
    "That 10% discount doesn't apply to prescription diets, cremation services or referrals to other hospitals. [E4]",
    "Prices already include VAT at 20%, you pay at the end of each visit, and a written surgery estimate stays "
    "valid for 30 days. [E3]",
    "Dog boosters are £62 and cat boosters £58, which includes a health check but doesn't cover any medication "
    "prescribed at that visit. [E3]",
    "A standard consultation is £48, and if you come back about the same condition within 14 days the repeat visit "
    "costs £29. [E3]",
    "Nurse-clinic weight checks and post-operative wound checks cost nothing for registered pets, but nail clipping "
    "is £12 unless your pet is on the Healthy Pet Plan. [E3]",
    "You can pay by debit card, credit card or cash, but cheques aren't accepted. [E5]",
    # checks over the same page: a "may" of the sentence's other clause read as a hedge of "Only the registered owner.";
    # "8 weeks old" bound to "old" where the page says "from 8 weeks of age" and "dogs over 10 years old"; the
    # condition "If you cannot attend an appointment" left out, its negation read as the claim's
    "Anyone who's 16 or older can bring a pet in, but only the registered owner, or someone with the owner's "
    "written consent, can authorise treatment that goes beyond a basic examination. [E1, E2]",
    "Pets can join from 8 weeks old, but a dog over 10 or a cat over 12 can't join as a new member, though pets "
    "that are already on the plan stay covered for life. [E4]",
    "You need to cancel at least 4 hours ahead or a £20 missed-appointment fee goes on your account, though it's "
    "waived the first time that happens in a calendar year. [E5]",
    # "the only electrical thing you can run is" for "you cannot run any electrical equipment ..., apart from"; "a
    # £15 late fee" for "a late fee of £15 is charged" (the binding check gives 15 to "charged"); a pair of
    # sentences read for "7 days' written notice" (the sentence before gives 42 days and "14 days' written notice");
    # another chunk's price of a craft read as conflicting (evidence_conflicts); "swap" against "swapped" (the
    # truncating stem); the opening "Kids" read as a name; "a parent or guardian" split into two atoms; a claim
    # restating a "which" clause ("Gull Island, which is closed to the public ...") read with the clause before it
    # ("no one may land")
    "You mustn't use a unit as an office, a workshop or somewhere to live, and the only electrical thing you can "
    "run is the ceiling light in indoor units. [E10, E11]",
    "Once rent is more than 7 days late there's a £15 late fee, and after 14 days your gate access is suspended. "
    "[E12, E13]",
    "You need to give at least 7 days' written notice to end the rental, and rent already paid for the current "
    "four-week period isn't refunded unless the agreement is being ended by the estate of a customer who has died. "
    "[E12, E13]",
    "For the first hour, a single kayak is £16, a double kayak £24, a stand-up paddleboard £18 and a Canadian "
    "canoe, which takes up to three people, £30. [E14, E15]",
    "Everyone going on the water has to be able to swim at least 50 metres and wear the buoyancy aid that's "
    "provided, and you can't swap it for your own. [E16, E17]",
    "Kids aged 8 to 15 can take a single kayak or a paddleboard as long as an adult from their group is on the "
    "water too. [E16, E17]",
    "If you're 16 or 17 you can hire on your own, but a parent or guardian has to sign the hire form, whereas "
    "anyone 18 or over signs for themselves. [E16, E17]",
    "You have to stay in the marked area between the slipway and the yellow buoys at Heron Point, and nobody can "
    "land on Gull Island, which is shut to the public from March to August while birds are nesting. [E20, E21]",
}
# Lies still shown verified (README.md names them; not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN: set[str] = set()


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)


# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_i_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_i_are_still_not_verified,
 test_a_lie_over_corpus_i_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_corpus_i) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                       respond)
