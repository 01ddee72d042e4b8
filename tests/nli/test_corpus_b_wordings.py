"""Faithful answers and one-fact lies over corpus b (bench/data/corpus_b: an employee handbook, a tool's changelog and
its FAQ), documents of other kinds than the example corpus that four earlier rounds of wordings were written over
(tests/nli/test_corpus_wordings.py). Each goes through the real pipeline: ControlPlane.respond with a scripted model
and the shipped verifier, over its page's chunks with their titles (as the ask path chunks them), in the mode the
router decides (most of these questions get no domain, so rigor low, where the verifier's bar is lowest and the
deterministic checks decide). Written on 2026-12-06 as a fifth round: of 42 faithful answers 34 were verified, and
13 of 61 lies were shown verified; after the fixes named in README.md, 36 and 5. A second set, written after those
fixes (below), checks them beyond the sentences they were made for, and a third, in other shapes, again. README.md
names the known gaps (asserted still unverified) and the lies still shown."""

from __future__ import annotations

from pathlib import Path

from tests.nli.shipped_pipeline import corpus_wordings_tests, needs_shipped_verifier, respond_over_pages

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "data" / "corpus_b"
PAGES = ["employee-handbook.md", "quarry-changelog.md", "quarry-faq.md"]
# the question each chunk answers (E1 ... E13, in page order)
QUESTIONS = {
    "E1": "What are the working hours?", "E2": "How much leave do employees get?",
    "E3": "What equipment do new hires get?", "E4": "How do expenses work?", "E5": "What are the security rules?",
    "E6": "What changed in quarry 3.2.0?", "E7": "What changed in quarry 3.1.4?", "E8": "What changed in quarry 3.1.0?",
    "E9": "Is quarry free?", "E10": "Which databases does quarry support?", "E11": "How do I install quarry?",
    "E12": "Where is quarry's configuration file?", "E13": "Does quarry send telemetry?",
}


FAITHFUL = [
    "Core hours run from 10:00 to 16:00 CET on weekdays. [E1]",
    "Outside core hours, employees may organise their day freely. [E1]",
    "Staff in the Lisbon office follow Western European Time. [E1]",
    "Full-time employees get 27 days of paid annual leave each calendar year. [E2]",
    "Part-time employees get leave in proportion to their contracted hours. [E2]",
    "Up to five unused leave days can be carried over into the first quarter of the next year. [E2]",
    "Carried-over days expire on 31 March. [E2]",
    "The primary caregiver gets 16 weeks of parental leave at full pay. [E2]",
    "The secondary caregiver gets 6 weeks of parental leave. [E2]",
    "New hires get a laptop on their first day. [E3]",
    "Engineers can choose a 14-inch MacBook Pro or a ThinkPad X1 Carbon. [E3]",
    "Laptops are replaced every three years. [E3]",
    "A one-time home-office allowance of 600 euros is paid in the first month of employment. [E3]",
    "Expenses under 50 euros need no receipt approval. [E4]",
    "Anything above 50 euros must be approved by your manager before you buy it. [E4]",
    "Travel is booked through the Navan portal. [E4]",
    "Flights under six hours are booked in economy class. [E4]",
    "Every internal system requires two-factor authentication. [E5]",
    "Passwords need at least 14 characters. [E5]",
    "Lost or stolen devices must be reported to security@acme.example within an hour. [E5]",
    "quarry 3.2.0 added a `quarry sync --dry-run` flag that prints the changes without writing them. [E6]",
    "Since 3.2.0, quarry runs only on Linux and macOS. [E6]",
    "quarry 3.2.0 dropped Windows support. [E6]",
    "In 3.2.0 the default page size went up from 50 to 200 rows. [E6]",
    "Version 3.1.4 fixed a crash when a column name contained a tab character. [E7]",
    "Since 3.1.4, the minimum supported PostgreSQL version is 13. [E7]",
    "quarry 3.1.0 added a `quarry export --format parquet` option. [E8]",
    "Since 3.1.0, connections time out after 30 seconds instead of 10. [E8]",
    "quarry is open source under the Apache 2.0 licence. [E9]",
    "quarry Cloud, the hosted version, costs 12 dollars per user per month. [E9]",
    "quarry reads from PostgreSQL, MySQL and SQLite. [E10]",
    "There are no plans to support Microsoft SQL Server. [E10]",
    "You install quarry with `pipx install quarry-cli`. [E11]",
    "quarry needs Python 3.10 or later. [E11]",
    "quarry reads its configuration from `~/.config/quarry/config.toml`. [E12]",
    "The `QUARRY_CONFIG` environment variable points quarry to another configuration file. [E12]",
    "quarry never sends usage data. [E13]",
    "The only network traffic quarry makes is to the databases you configure. [E13]",
    "quarry 3.2.0 was released on 14 September 2026. [E6]",
    "Passwords must be 14 characters or longer. [E5]",
    "Laptops are replaced after three years. [E3]",
    "Connections time out after half a minute since 3.1.0. [E8]",
]
LIES = [
    "Core hours are 9:00 to 16:00 Central European Time, Monday to Friday. [E1]",
    "Core hours are 10:00 to 16:00 Central European Time, Monday to Saturday. [E1]",
    "Employees in the Lisbon office follow Central European Time. [E1]",
    "Employees in the Madrid office follow Western European Time instead. [E1]",
    "Full-time employees receive 25 days of paid annual leave per calendar year. [E2]",
    "Part-time employees receive the same leave as full-time employees. [E2]",
    "Up to ten unused days may be carried over into the first quarter of the next year. [E2]",
    "All unused days may be carried over into the next year. [E2]",
    "Days carried over expire on 30 June. [E2]",
    "Days carried over never expire. [E2]",
    "Parental leave is 16 weeks at half pay for the primary caregiver. [E2]",
    "The secondary caregiver gets 16 weeks of parental leave. [E2]",
    "Parental leave is 6 weeks for the primary caregiver and 16 weeks for the secondary caregiver. [E2]",
    "Every new hire receives a laptop after their first month. [E3]",
    "Every employee may choose between a 14-inch MacBook Pro and a ThinkPad X1 Carbon. [E3]",
    "Engineers may choose between a 16-inch MacBook Pro and a ThinkPad X1 Carbon. [E3]",
    "Laptops are replaced every two years. [E3]",
    "A home-office allowance of 600 euros is paid every year. [E3]",
    "A home-office allowance of 600 euros is paid every month. [E3]",
    "A home-office allowance of 600 dollars is paid once, in the first month of employment. [E3]",
    "Expenses under 50 euros need a receipt approval. [E4]",
    "Anything above 50 euros must be approved by your manager after you buy it. [E4]",
    "Anything above 50 euros must be approved by the finance team before you buy it. [E4]",
    "Expenses under 100 euros need no receipt approval. [E4]",
    "Business class is the rule for flights under six hours. [E4]",
    "Economy class is the rule for flights over six hours. [E4]",
    "Two-factor authentication is optional for internal systems. [E5]",
    "Passwords must be at least 12 characters long. [E5]",
    "Passwords must be at most 14 characters long. [E5]",
    "Lost or stolen devices must be reported to security@acme.example within one day. [E5]",
    "Lost or stolen devices must be reported to it@acme.example within one hour. [E5]",
    "The `quarry sync --dry-run` flag writes the changes without printing them. [E6]",
    "quarry 3.1.0 added the `quarry sync --dry-run` flag. [E6]",
    "quarry 3.2.0 added Windows support. [E6]",
    "quarry now runs on Windows and macOS only. [E6]",
    "The default page size went from 200 to 50 rows. [E6]",
    "The default page size is now 100 rows. [E6]",
    "Version 3.1.4 fixed a crash when a column name contained a space character. [E7]",
    "The minimum supported PostgreSQL version is now 12. [E7]",
    "The maximum supported PostgreSQL version is now 13. [E7]",
    "quarry 3.1.0 added a `quarry import --format parquet` option. [E8]",
    "Connections now time out after 10 seconds instead of 30. [E8]",
    "Connections now time out after 60 seconds. [E8]",
    "quarry is open source under the MIT licence. [E9]",
    "quarry Cloud costs 12 dollars per user per year. [E9]",
    "quarry Cloud is free. [E9]",
    "quarry Cloud costs 12 dollars per team per month. [E9]",
    "quarry reads from PostgreSQL, Oracle and SQLite. [E10]",
    "Support for Microsoft SQL Server is planned. [E10]",
    "quarry reads from Microsoft SQL Server. [E10]",
    "Install it with `pip install quarry`. [E11]",
    "Python 3.9 or later is required. [E11]",
    "quarry reads `~/.quarry/config.toml`. [E12]",
    "The `QUARRY_HOME` environment variable points quarry elsewhere. [E12]",
    "quarry sends anonymous usage data. [E13]",
    "The only network traffic quarry makes is to the quarry Cloud servers. [E13]",
    "quarry 3.2.0 was released on 14 August 2026. [E6]",
    "Laptops are replaced every three years to keep them under warranty. [E3]",
    "quarry now runs on Linux, macOS and FreeBSD. [E6]",
    "Two-factor authentication is mandatory for external systems. [E5]",
    "Employees in the Lisbon office follow Western European Time during core hours only. [E1]",
]
# Written after the fixes, as new wordings over the same pages (does what was fixed hold beyond the sentences it was
# fixed for?): 12 of 19 faithful verified, 23 of 28 lies refused; then 1 more faithful with an imperative before code.
FAITHFUL += [
    "Core hours are from 10:00 to 16:00 Central European Time, Monday to Friday. [E1]",
    "Lisbon office staff use Western European Time instead of Central European Time. [E1]",
    "Full-time staff receive 27 paid annual leave days per calendar year. [E2]",
    "At most five unused days can be carried over, and they expire on 31 March. [E2]",
    "Primary caregivers get 16 weeks of parental leave at full pay; secondary caregivers get 6 weeks. [E2]",
    "Engineers choose between a 14-inch MacBook Pro and a ThinkPad X1 Carbon. [E3]",
    "The 600-euro home-office allowance is paid once, in the first month of employment. [E3]",
    "Flights shorter than six hours are economy class. [E4]",
    "Your manager must approve anything above 50 euros before you buy it. [E4]",
    "Two-factor authentication is mandatory for every internal system. [E5]",
    "The `quarry sync --dry-run` flag prints the changes without writing them. [E6]",
    "Windows support was dropped in quarry 3.2.0. [E6]",
    "quarry 3.1.4 requires PostgreSQL 13 or later. [E7]",
    "Connections time out after 30 seconds since quarry 3.1.0; before, they timed out after 10. [E8]",
    "quarry Cloud costs 12 dollars per user per month. [E9]",
    "quarry does not plan to support Microsoft SQL Server. [E10]",
    "quarry requires Python 3.10 or later. [E11]",
    "Set `QUARRY_CONFIG` to point quarry at another configuration file. [E12]",
    "quarry does not send usage data. [E13]",
]
LIES += [
    "Core hours end at 17:00 Central European Time. [E1]",
    "Employees in the Lisbon office follow Central European Time during core hours. [E1]",
    "Part-time employees receive 27 days of paid annual leave per calendar year. [E2]",
    "Up to five unused days may be carried over into the second quarter of the next year. [E2]",
    "Days carried over expire on 31 May. [E2]",
    "Parental leave is 16 weeks at full pay for both caregivers. [E2]",
    "Every new hire receives a phone on their first day. [E3]",
    "Designers may choose between a 14-inch MacBook Pro and a ThinkPad X1 Carbon. [E3]",
    "Laptops are replaced every three months. [E3]",
    "A home-office allowance of 600 euros is paid in the last month of employment. [E3]",
    "Travel is booked through the Concur portal. [E4]",
    "Economy class is the rule for flights under eight hours. [E4]",
    "Passwords must be at least 14 characters long and changed every 90 days. [E5]",
    "Lost or stolen devices must be reported to your manager within one hour. [E5]",
    "quarry 3.2.0 added the `quarry sync --force` flag. [E6]",
    "The default page size went from 50 to 500 rows. [E6]",
    "The minimum supported PostgreSQL version is now 14. [E7]",
    "Version 3.1.4 fixed a crash when a table name contained a tab character. [E7]",
    "quarry 3.1.0 added a `quarry export --format csv` option. [E8]",
    "Connections now time out after 30 minutes instead of 10. [E8]",
    "quarry Cloud costs 15 dollars per user per month. [E9]",
    "quarry is open source under the GPL licence. [E9]",
    "quarry reads from PostgreSQL and MySQL only. [E10]",
    "Install it with `pipx install quarry`. [E11]",
    "Python 3.11 or later is required. [E11]",
    "quarry reads `~/.config/quarry/settings.toml`. [E12]",
    "quarry sends usage data to quarry Cloud. [E13]",
    "The `QUARRY_CONFIG` environment variable disables telemetry. [E12]",
]
# A third set, written on 2026-12-06 (session 46) before running any of it, in other shapes (a lead such as
# "According to the handbook," or "Yes,", the order of the sentence's parts changed, a fact taken from a clause):
# 26 of 31 faithful verified and 7 of 37 lies shown at first; after the fixes of that day 27 and 3.
FAITHFUL += [
    "According to the handbook, core hours are 10:00 to 16:00 Central European Time. [E1]",
    "Core hours apply Monday to Friday. [E1]",
    "Outside core hours you can organise your day as you like. [E1]",
    "The Lisbon office follows Western European Time. [E1]",
    "Each calendar year, full-time employees receive 27 days of paid annual leave. [E2]",
    "Leave for part-time employees is in proportion to their contracted hours. [E2]",
    "Unused days carried over into the next year expire on 31 March. [E2]",
    "The secondary caregiver receives 6 weeks of parental leave. [E2]",
    "Primary caregivers receive 16 weeks of parental leave at full pay. [E2]",
    "New hires receive their laptop on the first day. [E3]",
    "The home-office allowance is 600 euros, paid once. [E3]",
    "Laptops get replaced every three years. [E3]",
    "Your manager has to approve anything above 50 euros before you buy it. [E4]",
    "Travel is booked via the Navan portal. [E4]",
    "For flights under six hours, economy class is the rule. [E4]",
    "Passwords must be at least 14 characters long. [E5]",
    "Lost or stolen devices have to be reported to security@acme.example within one hour. [E5]",
    "The `--dry-run` flag of `quarry sync` prints the changes without writing them. [E6]",
    "quarry now runs on Linux and macOS only. [E6]",
    "The default page size is now 200 rows. [E6]",
    "quarry 3.1.4 was released on 2 July 2026. [E7]",
    "The minimum supported PostgreSQL version became 13 in quarry 3.1.4. [E7]",
    "quarry 3.1.0 can export to Parquet with `quarry export --format parquet`. [E8]",
    "Connections now time out after 30 seconds. [E8]",
    "Yes, quarry is open source, under the Apache 2.0 licence. [E9]",
    "The hosted version of quarry is called quarry Cloud. [E9]",
    "quarry supports PostgreSQL, MySQL and SQLite. [E10]",
    "Microsoft SQL Server support is not planned. [E10]",
    "quarry is installed with `pipx install quarry-cli` and requires Python 3.10 or later. [E11]",
    "By default quarry reads `~/.config/quarry/config.toml`. [E12]",
    "No, quarry does not send telemetry. [E13]",
]
LIES += [
    "According to the handbook, core hours are 10:00 to 18:00 Central European Time. [E1]",
    "Core hours apply Monday to Thursday. [E1]",
    "Inside core hours you may organise your day freely. [E1]",
    "The Porto office follows Western European Time. [E1]",
    "Each calendar year, part-time employees receive 27 days of paid annual leave. [E2]",
    "Leave for full-time employees is in proportion to their contracted hours. [E2]",
    "Unused days carried over into the next year expire on 31 December. [E2]",
    "Up to five unused days may be carried over into the last quarter of the next year. [E2]",
    "The secondary caregiver receives 6 weeks of parental leave at half pay. [E2]",
    "Primary caregivers receive 12 weeks of parental leave at full pay. [E2]",
    "New hires receive their laptop in the first week. [E3]",
    "The home-office allowance is 800 euros, paid once. [E3]",
    "The home-office allowance is paid every year. [E3]",
    "Laptops get replaced every four years. [E3]",
    "Managers may choose between a 14-inch MacBook Pro and a ThinkPad X1 Carbon. [E3]",
    "Your manager has to approve anything above 20 euros before you buy it. [E4]",
    "Expenses above 50 euros need no approval. [E4]",
    "Travel is booked via the TravelPerk portal. [E4]",
    "For flights over six hours, economy class is the rule. [E4]",
    "Passwords must be at least 16 characters long. [E5]",
    "Two-factor authentication is recommended for every internal system. [E5]",
    "Lost or stolen devices have to be reported to security@acme.example within one week. [E5]",
    "The `--dry-run` flag of `quarry sync` writes the changes without printing them. [E6]",
    "quarry now runs on Linux and Windows only. [E6]",
    "The default page size is now 50 rows. [E6]",
    "quarry 3.1.4 was released on 2 June 2026. [E7]",
    "The maximum supported PostgreSQL version became 13 in quarry 3.1.4. [E7]",
    "quarry 3.1.0 can import from Parquet with `quarry export --format parquet`. [E8]",
    "Connections now time out after 30 seconds instead of 60. [E8]",
    "quarry is proprietary software. [E9]",
    "quarry Cloud costs 12 euros per user per month. [E9]",
    "quarry supports PostgreSQL, MySQL and Oracle. [E10]",
    "Microsoft SQL Server support is planned for next year. [E10]",
    "quarry is installed with `pipx install quarry-cli` and requires Python 3.8 or later. [E11]",
    "By default quarry reads `/etc/quarry/config.toml`. [E12]",
    "quarry sends telemetry to the databases you configure. [E13]",
    "quarry sends usage data only to the databases you configure. [E13]",
]
# Faithful answers still refused, each named in README.md
KNOWN_GAPS = {
    # "CET" for "Central European Time", "weekdays" for "Monday to Friday", and the hedge of the sentence after
    "Core hours run from 10:00 to 16:00 CET on weekdays. [E1]",
    "Staff in the Lisbon office follow Western European Time. [E1]",  # an opening "Staff" read as a name
    # a security question asks for two independent sources at high rigor (the bundle's policy); one handbook is one
    "Every internal system requires two-factor authentication. [E5]",
    "Passwords need at least 14 characters. [E5]",
    "Lost or stolen devices must be reported to security@acme.example within an hour. [E5]",
    "Passwords must be 14 characters or longer. [E5]",  # the verifier entails it at 0.54, under the high bar
    # "they" is read as "At most five unused days", and "... unused days expire on 31 March." draws on both statements
    # of the sentence, so the hedge check holds it to the "may" of the first (the "can" of the first clause is read)
    "At most five unused days can be carried over, and they expire on 31 March. [E2]",
    "Engineers choose between a 14-inch MacBook Pro and a ThinkPad X1 Carbon. [E3]",  # the "may" left out
    "Two-factor authentication is mandatory for every internal system. [E5]",  # a security rule, one source
    "Windows support was dropped in quarry 3.2.0. [E6]",  # "was" for "is": the copy's tense rule
    "quarry 3.1.4 requires PostgreSQL 13 or later. [E7]",  # worded otherwise: "requires", "later"
    # "timed" and "time" stem apart: the clause after the semicolon holds none of the evidence's words
    "Connections time out after 30 seconds since quarry 3.1.0; before, they timed out after 10. [E8]",
    # the third set
    "Passwords must be at least 14 characters long. [E5]",  # security: two sources asked
    "Lost or stolen devices have to be reported to security@acme.example within one hour. [E5]",  # the same
    # a changelog heading's date is the release date, which no word of the evidence says ("released")
    "quarry 3.1.4 was released on 2 July 2026. [E7]",
    # evidence_conflicts: the verifier reads the FAQ's first chunk (licence and price) as contradicting it, 0.70
    "No, quarry does not send telemetry. [E13]",
}
# Lies still shown verified, each named in README.md (not asserted: a test does not assert that a lie is shown)
LIES_STILL_SHOWN = {
    "Part-time employees receive the same leave as full-time employees. [E2]",
    "Every new hire receives a laptop after their first month. [E3]",
    "Parental leave is 16 weeks at full pay for both caregivers. [E2]",
    "Version 3.1.4 fixed a crash when a table name contained a tab character. [E7]",
    # the third set
    "Each calendar year, part-time employees receive 27 days of paid annual leave. [E2]",
    "Leave for full-time employees is in proportion to their contracted hours. [E2]",
    "quarry 3.1.0 can import from Parquet with `quarry export --format parquet`. [E8]",
}


def respond(plane_for, text: str):
    return respond_over_pages(plane_for, text, CORPUS, PAGES, QUESTIONS)



# each faithful answer not a known gap verified and shown as written; each known gap still not verified; each lie not
# still shown neither verified nor shown; and the gap lists naming wordings of the set
(test_a_faithful_answer_over_corpus_b_is_verified_and_shown_as_written,
 test_the_known_gaps_over_corpus_b_are_still_not_verified,
 test_a_lie_over_corpus_b_is_not_verified_nor_shown,
 test_the_gap_lists_name_wordings_of_the_set) = corpus_wordings_tests(FAITHFUL, KNOWN_GAPS, LIES, LIES_STILL_SHOWN,
                                                                      respond)
