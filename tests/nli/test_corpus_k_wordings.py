"""Faithful answers and one-fact lies over corpus k (bench/data/corpus_k: a city farm's visiting rules, an ice rink's
public sessions, lessons and hire, a youth football league's registration and match rules), documents of kinds
no earlier round of wordings was written over. Each goes through the real pipeline: respond_over_pages with a scripted
model and the shipped verifier, over its page's chunks with their titles. Written on 2026-12-07 as a fifteenth round,
by an author who had not read the checks, before any of it was run and before any fix of the round: a held-out
measure of the fourteen rounds before it. The author cited sections; the ask path cuts most of them into two chunks,
and each wording cites its section's chunks, as a model shown those chunks would. README.md gives the figures of its
first run and after the fixes it led to; the known gaps (asserted still unverified) and the lies still shown are
listed below, with their causes, filled in after the first run."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_k"
PAGES = ["fernhollow-city-farm.md", "glenmoor-ice-rink.md", "larkspur-youth-football-league.md"]

# the question each chunk answers (E1 ... E24, in page order)
QUESTIONS = {
    "E1": "When is Fernhollow City Farm open, and how much does it cost to get in?",
    "E2": "When is Fernhollow City Farm open, and how much does it cost to get in?",
    "E3": "Can we feed or hold the animals at the farm?",
    "E4": "Can we feed or hold the animals at the farm?",
    "E5": "Can I bring my dog to the farm, and how do group visits and birthday parties work?",
    "E6": "Can I bring my dog to the farm, and how do group visits and birthday parties work?",
    "E7": "How do I become a volunteer at Fernhollow City Farm, and what do volunteers get?",
    "E8": "How do I become a volunteer at Fernhollow City Farm, and what do volunteers get?",
    "E9": "When are the public skating sessions at Glenmoor, and how much do they cost?",
    "E10": "When are the public skating sessions at Glenmoor, and how much do they cost?",
    "E11": "What are the rules on skate hire, helmets and safety on the ice?",
    "E12": "What are the rules on skate hire, helmets and safety on the ice?",
    "E13": "How do the Learn to Skate courses and private lessons work?",
    "E14": "How do the Learn to Skate courses and private lessons work?",
    "E15": "Can I hire the whole rink or have a birthday party there?",
    "E16": "Can I hire the whole rink or have a birthday party there?",
    "E17": "Which age group would my child play in, and how do they register for the Larkspur league?",
    "E18": "Which age group would my child play in, and how do they register for the Larkspur league?",
    "E19": "How much does it cost to play in the league, and what kit do we need?",
    "E20": "How much does it cost to play in the league, and what kit do we need?",
    "E21": "When are league matches played, and what are the playing rules?",
    "E22": "When are league matches played, and what are the playing rules?",
    "E23": "What happens if a match is called off, and what are the rules for spectators?",
    "E24": "What happens if a match is called off, and what are the rules for spectators?",
}

FAITHFUL = [
    "The farm's open Wednesday to Sunday, 9.30 am to 4.30 pm from April to September and 10 am to 3.30 pm from "
    "October to March. [E1, E2]",
    "It's free to get in, though they suggest a £3 donation per adult at the gate. [E1, E2]",
    "It's normally shut on Mondays and Tuesdays, but during local school holidays it opens on Tuesdays as well. "
    "[E1, E2]",
    "Under-12s have to be with an adult aged 18 or over the whole time, and one adult can look after up to four "
    "children. [E1, E2]",
    "Last entry is 45 minutes before closing, so between April and September that's 3.45 pm. [E1, E2]",
    "You can only feed the animals with feed from the farm shop, which is £1.50 a bag, and you can buy up to two "
    "bags per visit. [E3, E4]",
    "You can't bring your own food for the animals, not even bread or vegetables. [E3, E4]",
    "You're not allowed to hand-feed the pigs or the cattle; their feed has to be dropped into the troughs from the "
    "viewing platform. [E3, E4]",
    "There are free rabbit and guinea pig handling sessions at 11 am and 2 pm at weekends, for up to 15 children "
    "each, and places are handed out at the barn door 10 minutes beforehand. [E3, E4]",
    "Children need to be at least 3 to hold an animal, and they have to be sitting down while they do. [E3, E4]",
    "Dogs aren't allowed on the farm at all, apart from assistance dogs, which have to stay on a lead and can't go "
    "into the barns or the handling area. [E5, E6]",
    "You're welcome to picnic in the orchard picnic area, but barbecues and glass bottles aren't allowed anywhere "
    "on site. [E5, E6]",
    "Groups of 10 or more, schools and nurseries included, have to book at least two weeks in advance. [E5, E6]",
    "A guided visit for 20 children would cost £80, and four adults could come free with them, with any extra "
    "adults paying £2 each. [E5, E6]",
    "Birthday parties are Saturday-only, for up to 20 children, and cost £120 for two hours in the party barn, "
    "including a private handling session. [E5, E6]",
    "You need to be 16 or older to volunteer, though 14- and 15-year-olds can help on Saturday mornings if a parent "
    "or guardian volunteers with them. [E7, E8]",
    "Before your first shift you'll have to go to a free two-hour induction, which is held on the first Wednesday "
    "of every month. [E7, E8]",
    "Shifts are either 9 am to 1 pm or 1 pm to 5 pm, and they ask you to commit to at least one shift every two "
    "weeks for three months or more. [E7, E8]",
    "Volunteers get a free hot drink each shift and 10% off in the café and farm shop, though not on animal feed. "
    "[E7, E8]",
    "Public sessions last an hour and a half, at 12 noon and 6.30 pm on weekdays and at 10 am, 1 pm and 4 pm at "
    "weekends. [E9, E10]",
    "It's £8 for adults and £6 for children aged 4 to 15 and for anyone 65 or older, and under-4s skate free with a "
    "paying adult. [E9, E10]",
    "Skate hire isn't included and is £3 a pair, so an adult who needs skates pays £11 in total. [E9, E10]",
    "The Friday disco at 8.30 pm costs £9 with skate hire included, and it's only for skaters aged 14 or over. [E9, "
    "E10]",
    "A family ticket covers two adults and two children for £24, but you can only use it at weekend sessions. [E9, "
    "E10]",
    "All children under 12 have to wear a helmet, but they can borrow one free, and adults can borrow one too if "
    "they like. [E11, E12]",
    "Gloves are a must for everyone on the ice, and if you haven't got any you can buy a pair at the kiosk for £2. "
    "[E11, E12]",
    "The penguin skating aids are £4 a session, they're only for children aged 3 to 10, and there are just 20 of "
    "them per session. [E11, E12]",
    "You have to skate anticlockwise, and racing, playing tag and carrying another person aren't allowed. [E11, E12]",
    "If you bring your own skates and had them sharpened somewhere else, the blades need to be checked at the "
    "kiosk. [E11, E12]",
    "An eight-week Learn to Skate course costs £72 for children aged 4 to 15 and £88 for adults, with skate hire "
    "for the lessons and one public session a week included. [E13, E14]",
    "Children's classes are on Saturdays at 9 am and Wednesdays at 4.30 pm, and the adult class is on Tuesday "
    "evenings at 8 pm. [E13, E14]",
    "There are never more than 12 skaters per coach in a class. [E13, E14]",
    "You won't get a refund for a missed lesson, but you can make up one per course in another class if there's "
    "room. [E13, E14]",
    "Private lessons are £22 for 20 minutes and you book them directly with the coach; cancel with less than 24 "
    "hours' notice and you'll pay the full fee. [E13, E14]",
    "You can hire the whole rink for £450 an hour, either after 9.30 pm on weekdays or from 7 to 9 am on Sundays. "
    "[E15, E16]",
    "Hire includes skates for up to 60 people, and each skater beyond that pays £3. [E15, E16]",
    "Parties are £14 per child for a public session plus 45 minutes in the party room with food, for 8 to 25 "
    "children, and you need to book at least 10 days ahead. [E15, E16]",
    "You can bring your own birthday cake, but no other food from outside is allowed in the party room. [E15, E16]",
    "Mixed teams run from Under-7 to Under-16, and your child's age group depends on how old they are on 31 August "
    "before the season starts. [E17, E18]",
    "As well as the mixed teams, girls can play in girls-only sections at Under-10, Under-12 and Under-14. [E17, "
    "E18]",
    "Registration's open from 1 June to 15 August, and after that a late registration is only accepted if a club "
    "still has room in its squad. [E17, E18]",
    "To register you'll need a birth certificate or passport plus a recent photo, and players who are 13 or older "
    "have to sign the code of conduct themselves. [E17, E18]",
    "It's £65 a season per player, or £40 for Under-7s and Under-8s. [E19, E20]",
    "The third child and any more from the same family pay just £20 each. [E19, E20]",
    "Families getting free school meals don't pay anything, as long as they show their club proof by 30 September. "
    "[E19, E20]",
    "The fee doesn't cover kit, so you'll need the £18 league shirt and £6 socks, £24 altogether, but any plain "
    "black shorts will do. [E19, E20]",
    "Under-7 to Under-11 matches are on Saturday mornings, kicking off at 9.30 am or 11 am, and Under-12 to "
    "Under-16 matches are on Sunday mornings at 10 am. [E21, E22]",
    "The girls' section plays on Sunday afternoons, with kick-off at 2 pm. [E21, E22]",
    "Everyone in the squad has to play at least half of each match, unless they turn up after kick-off or they're "
    "injured. [E21, E22]",
    "Under-9s and Under-10s play 7-a-side, and teams don't move up to 11-a-side until Under-13. [E21, E22]",
    "A match can only be called off for weather after the home club inspects the pitch, which has to happen by 8 "
    "am, and the away club must be told by 8.30 am. [E23, E24]",
    "Weather postponements get rearranged within three weeks, but if a team cancels for any other reason it loses "
    "3-0 and is fined £25. [E23, E24]",
    "Spectators have to stay behind the rope on the far side from the coaches, and they can't stand behind the "
    "goals. [E23, E24]",
    "Nobody can smoke, vape or have a dog within 20 metres of the pitch, although assistance dogs are allowed. "
    "[E23, E24]",
]

LIES = [
    "Last entry is 30 minutes before closing time. [E1, E2]",
    "Entry costs £3 per adult, and children get in free. [E1, E2]",
    "Each adult can supervise up to six children under 12. [E1, E2]",
    "The café takes both cash and card. [E1, E2]",
    "The farm is closed on Christmas Eve, Christmas Day and Boxing Day, but it's open as usual on New Year's Day. "
    "[E1, E2]",
    "Feed bags are £1.50 each, and you can buy as many as you like. [E3, E4]",
    "Handling sessions run at 11 am and 2 pm on every day the farm is open. [E3, E4]",
    "You can book places on the handling sessions in advance online. [E3, E4]",
    "Children aged 2 and over can hold the rabbits and guinea pigs, as long as they're sitting down. [E3, E4]",
    "Visitors who are pregnant can't go into the lambing shed at any time of year. [E3, E4]",
    "Assistance dogs are welcome everywhere on the farm, including the animal barns, as long as they're on a lead. "
    "[E5, E6]",
    "Groups of 10 or more need to book at least a week ahead. [E5, E6]",
    "On a guided group visit, one adult goes free for every ten children. [E5, E6]",
    "You can bring your own party food and decorations, including balloons. [E5, E6]",
    "Birthday parties can be booked on Saturdays or Sundays for up to 20 children. [E5, E6]",
    "Volunteers aged 14 and 15 can do any shift, as long as a parent or guardian volunteers alongside them. [E7, E8]",
    "You can help with mucking out the cattle once you've done five shifts. [E7, E8]",
    "Travel costs are repaid up to £6 per shift, and you don't need to show a ticket or receipt. [E7, E8]",
    "The 10% volunteer discount covers everything in the farm shop, animal feed included. [E7, E8]",
    "Volunteer inductions are held on the first Saturday of each month. [E7, E8]",
    "The family ticket costs £24 and can be used at any public session. [E9, E10]",
    "Skaters aged 60 and over pay the £6 concession price. [E9, E10]",
    "Tickets can be bought online up to 14 days in advance. [E9, E10]",
    "Skate hire is included in the standard admission price. [E9, E10]",
    "Spectators can watch from the balcony for free. [E9, E10]",
    "Helmets are compulsory for children under 12, and they cost £2 to hire. [E11, E12]",
    "Children under 10 have to be accompanied on the ice by a paying adult. [E11, E12]",
    "Phones are allowed on the ice as long as they're kept in a zipped pocket. [E11, E12]",
    "The penguin skating aids can be hired by skaters of any age for £4 a session. [E11, E12]",
    "If a steward removes you for ignoring a warning, you'll get a refund for the rest of the session. [E11, E12]",
    "Adult classes run on Thursday evenings at 8 pm. [E13, E14]",
    "You can make up as many missed lessons as you need in other classes, as long as there's space. [E13, E14]",
    "Private lessons with a coach cost £22 for 30 minutes. [E13, E14]",
    "Skaters need to pass Level 3 before joining the figure skating or ice hockey taster groups. [E13, E14]",
    "Children can start the course as long as they turn 4 at some point during the eight weeks. [E13, E14]",
    "The £150 deposit is refunded if you cancel at least 14 days before the date. [E15, E16]",
    "Parties need a minimum of 10 children and can have up to 25. [E15, E16]",
    "At a party, every accompanying adult can go on the ice for free. [E15, E16]",
    "Alcohol isn't permitted at any party or hire, even if you book the rink bar. [E15, E16]",
    "You can hire the whole rink on Saturday evenings after 9.30 pm. [E15, E16]",
    "Players can move to a different club at any point up to 31 March. [E17, E18]",
    "Players can play up to two age groups above their own. [E17, E18]",
    "Under-7 and Under-8 teams play in a full league with tables. [E17, E18]",
    "Registration opens on 1 July and closes on 15 August. [E17, E18]",
    "The second and any further child from the same family can register for £20. [E19, E20]",
    "Fees can be paid in four instalments spread across the season. [E19, E20]",
    "Boots with metal studs are banned in every age group. [E19, E20]",
    "Fees are refunded in full if you withdraw before 1 November. [E19, E20]",
    "Under-11 and Under-12 matches are 7-a-side. [E21, E22]",
    "Once a substitute has been taken off, they can't come back on. [E21, E22]",
    "The away team provides the match ball. [E21, E22]",
    "Teams must arrive at least 15 minutes before kick-off. [E21, E22]",
    "A team that cancels for a reason other than weather loses the match 3-0, but there's no fine. [E23, E24]",
    "Parents may give instructions from the touchline as long as they don't shout at the referee. [E23, E24]",
    "A club is fined £50 the first time its spectators are reported. [E23, E24]",
    "Spectators should stand behind the rope on the same side of the pitch as the coaches. [E23, E24]",
]
# Faithful answers still refused, asserted as such (README.md, "A fifteenth round")
KNOWN_GAPS = {
    # a value the wording computes: the last entry time, the cost of a group, skates and admission, the kit
    "Last entry is 45 minutes before closing, so between April and September that's 3.45 pm. [E1, E2]",
    "A guided visit for 20 children would cost £80, and four adults could come free with them, with any extra adults "
    "paying £2 each. [E5, E6]",
    "Skate hire isn't included and is £3 a pair, so an adult who needs skates pays £11 in total. [E9, E10]",
    "The fee doesn't cover kit, so you'll need the £18 league shirt and £6 socks, £24 altogether, but any plain black "
    "shorts will do. [E19, E20]",
    # negation counted over more than the clause the wording restates: a sentence's second denial ("..., which must
    # stay on a lead and may not enter ..."), a pair of sentences each negated ("... is not allowed. The pigs ... must
    # never be fed by hand"), "must not race, play tag or carry" read with "may not take phones", "not even" split
    # into an atom of its own ("You vegetables."), "don't move up ... until" over "from Under-13 upwards", "lent free"
    # read as a denial, and a clause without a verb of its own ("which has to happen by 8 am") atomised as "The pitch
    # has to happen by 8 am." and read against the next sentence
    "You can't bring your own food for the animals, not even bread or vegetables. [E3, E4]",
    "You're not allowed to hand-feed the pigs or the cattle; their feed has to be dropped into the troughs from the "
    "viewing platform. [E3, E4]",
    "Dogs aren't allowed on the farm at all, apart from assistance dogs, which have to stay on a lead and can't go "
    "into the barns or the handling area. [E5, E6]",
    "You have to skate anticlockwise, and racing, playing tag and carrying another person aren't allowed. [E11, E12]",
    "All children under 12 have to wear a helmet, but they can borrow one free, and adults can borrow one too if they "
    "like. [E11, E12]",
    "Under-9s and Under-10s play 7-a-side, and teams don't move up to 11-a-side until Under-13. [E21, E22]",
    "A match can only be called off for weather after the home club inspects the pitch, which has to happen by 8 am, "
    "and the away club must be told by 8.30 am. [E23, E24]",
    # a bound said the other way round ("cancel with less than 24 hours' notice and you'll pay the full fee" for "must
    # be cancelled with at least 24 hours' notice, otherwise the full fee is charged"), "every two weeks" for "a
    # fortnight" (no number to the value check) beside the "two-hour" induction, "20 of them per session" read as
    # the 20 of "available", and "Under-7s" atomised as a claim of its own ("It's £65 a season per Under-8s.")
    "Private lessons are £22 for 20 minutes and you book them directly with the coach; cancel with less than 24 "
    "hours' notice and you'll pay the full fee. [E13, E14]",
    "Shifts are either 9 am to 1 pm or 1 pm to 5 pm, and they ask you to commit to at least one shift every two weeks "
    "for three months or more. [E7, E8]",
    "The penguin skating aids are £4 a session, they're only for children aged 3 to 10, and there are just 20 of them "
    "per session. [E11, E12]",
    "It's £65 a season per player, or £40 for Under-7s and Under-8s. [E19, E20]",
    # the verifier: "never more than 12" against "no more than 12" (contradicted by one chunk, entailed by the other),
    # "you won't get a refund" with "may be made up" (a hedge the claim drops, and "room" for "space"), "Nobody can
    # smoke, vape" atomised without its place, "your child's age group" read as another population than the
    # section's "girls", and the bagged feed ("two bags per visit") read against another chunk's sentence
    "There are never more than 12 skaters per coach in a class. [E13, E14]",
    "You won't get a refund for a missed lesson, but you can make up one per course in another class if there's "
    "room. [E13, E14]",
    "Nobody can smoke, vape or have a dog within 20 metres of the pitch, although assistance dogs are allowed. "
    "[E23, E24]",
    "Mixed teams run from Under-7 to Under-16, and your child's age group depends on how old they are on 31 August "
    "before the season starts. [E17, E18]",
    "You can only feed the animals with feed from the farm shop, which is £1.50 a bag, and you can buy up to two "
    "bags per visit. [E3, E4]",
}
# Lies still shown verified (README.md names them; not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    # the sentence that bears on each is not the one that shares most of its words: "must be at least 4 years old on
    # the first day of the course" for "as long as they turn 4 at some point during the eight weeks" (the course
    # sentence says "eight weeks"), and "Fees are not refunded after 1 October" for "refunded in full ... before 1
    # November" (the instalments sentence says "1 November")
    "Children can start the course as long as they turn 4 at some point during the eight weeks. [E13, E14]",
    "Fees are refunded in full if you withdraw before 1 November. [E19, E20]",
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)


# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_k_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_k_are_still_not_verified,
 test_a_lie_over_corpus_k_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_corpus_k) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                       respond)
