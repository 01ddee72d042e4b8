"""G-1 holes found by QA on the README's own hosting example, end to end through ``respond`` with the shipped
bundle and the shipped verifier (the worst case for the first: its medium-rigor threshold passes most unsupported
pairs, so the deterministic checks must veto):

* a claim whose first word is a name the evidence never mentions ("AWS hosts us [E1].") was shown as verified;
* a claim that copies the evidence but swaps one lowercase term ("We host on aws [E1].") passed the medium
  threshold;
* a claim that adds a detail to the evidence's sentence ("We host on Fly.io for compliance reasons [E1].") passed
  it too;
* words of one sentence spliced into the other ("DB is Fly.io (SQLite) [E1].") or roles swapped between two
  sentences ("The server renders state ..." over "... Clients render state ...") passed at any rigor: read with the
  whole evidence, the verifier entails them;
* an UNKNOWN sentence that tells of a place and a year nobody checked ("No information is available on the Zanzibar
  outage ... in 2024.") was shown as an honest UNKNOWN.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controlplane.api import ControlPlane
from controlplane.nli.shipped import verifier_dir
from tests.conftest import build_envelope


def one_item(title: str, text: str) -> list[dict[str, str]]:
    """The evidence of these tests: one authoritative item, E1."""
    return [{"id": "E1", "title": title, "trust_tier": "authoritative", "text": text}]


EVIDENCE = one_item("Stack facts", "We host on Fly.io. DB is Turso (SQLite).")
QUESTION = "Where do we host?"

pytestmark = [pytest.mark.models,
              pytest.mark.skipif(not (verifier_dir() / "config.json").is_file(), reason="shipped verifier missing")]


def _reply(write_script, claims, question=QUESTION, evidence=EVIDENCE):
    with ControlPlane(db=False, critic=False) as router:  # the envelope echoes the mode the router decides
        decision = router.pipeline.decide(question, pack=router.pipeline.build_pack(evidence))
    envelope = build_envelope(claims, mode=decision.modeLabel, domain_flags=list(decision.domainFlags))
    with ControlPlane(model=write_script([envelope] * 3), db=False, critic=False) as plane:
        return plane.respond(question, evidence=evidence)


@pytest.mark.parametrize("swapped", ["AWS hosts us [E1].", "Zanzibar hosts us [E1].", "Microsoft hosts the DB [E1]."])
def test_a_swapped_subject_is_never_shown(write_script, swapped):
    reply = _reply(write_script, [("We host on Fly.io [E1].", ["E1"]), (swapped, ["E1"])])
    assert reply.status == "degraded" and not reply.verified
    assert reply.assistant_text.startswith("We host on Fly.io [E1].")
    assert swapped.split()[0] not in reply.assistant_text


def test_the_faithful_answer_still_passes(write_script):
    reply = _reply(write_script, [("We host on Fly.io [E1].", ["E1"])])
    assert reply.status == "pass" and reply.verified


@pytest.mark.parametrize("unknown", [
    "No information is available on the Zanzibar outage that took our database down in 2024.",
    "The evidence does not say why we moved the database to Zanzibar.",
])
def test_an_unknown_that_tells_of_unchecked_things_is_not_shown(write_script, unknown):
    reply = _reply(write_script, [(unknown, [], "UNKNOWN")])
    assert "Zanzibar" not in reply.assistant_text and not reply.verified


@pytest.mark.parametrize(("unknown", "presumed"), [
    ("The evidence does not say why Fly.io was abandoned.", "abandoned"),
    ("The evidence does not say when the failed migration happened.", "migration"),
])
def test_an_unknown_that_presumes_unchecked_things_in_common_words_is_not_shown(write_script, unknown, presumed):
    reply = _reply(write_script, [(unknown, [], "UNKNOWN")])
    assert presumed not in reply.assistant_text and not reply.verified


def test_an_honest_unknown_is_still_shown(write_script):
    # in the words of the question and the evidence ("... where we host the backups" presumes backups nobody checked)
    honest = "The evidence does not say where we host Turso."
    reply = _reply(write_script, [(honest, [], "UNKNOWN")])
    assert reply.assistant_text == honest and reply.status == "pass" and not reply.verified


# Near copies of the hosting evidence that say something else: (the lie, words of it that must not be shown)
NEAR_COPY_LIES = [
    # a term the evidence never uses, where the verifier leans contradicted (the medium threshold alone passed "aws":
    # entailment 0.18 >= 0.13)
    ("We host on aws [E1].", "aws"), ("We host on heroku [E1].", "heroku"), ("DB is postgres (SQLite) [E1].", "postgres"),
    # words spliced from the other sentence: read with the whole evidence the verifier entails them (0.78, 0.76)
    ("DB is Fly.io (SQLite) [E1].", "DB is Fly.io"), ("We host on Turso [E1].", "host on Turso"),
    # a detail added: "for compliance reasons" was shown as verified (above the medium bar, 3 of 4 words covered)
    ("We host on Fly.io for compliance reasons [E1].", "compliance"),
    ("We host on Fly.io with automatic failover [E1].", "failover"),
    ("We host on Fly.io because it is cheaper [E1].", "cheaper"),
]


@pytest.mark.parametrize(("lie", "words"), NEAR_COPY_LIES)
def test_a_near_copy_that_says_something_else_is_never_shown(write_script, lie, words):
    reply = _reply(write_script, [("We host on Fly.io [E1].", ["E1"]), (lie, ["E1"])])
    assert reply.status == "degraded" and not reply.verified
    assert reply.assistant_text.startswith("We host on Fly.io [E1].") and words not in reply.assistant_text


ROLES = one_item("ADR-011",
                 "The server is the single source of truth for business rules. Clients render state and collect input.")


@pytest.mark.parametrize("swapped", ["The server renders state and collects input [E1].",
                                     "Clients are the single source of truth for business rules [E1]."])
def test_a_role_swap_between_two_sentences_is_never_shown(write_script, swapped):
    reply = _reply(write_script, [(swapped, ["E1"])], "What does the client do?", ROLES)
    assert not reply.verified and swapped.replace(" [E1]", "") not in reply.assistant_text


@pytest.mark.parametrize(("text", "question", "claim"), [
    ("The Orion project ships on 14 March 2027. Its budget is 2.4 million euros.", "What is the Orion budget?",
     "The Orion project's budget is 2.4 million euros [E1]."),
    ("Orion is our flagship project. The project ships on 14 March 2027.", "When does Orion ship?",
     "Orion ships on 14 March 2027 [E1]."),
    ("Paris is the capital. The city hosts the festival every June.", "Who hosts the festival?",
     "Paris hosts the festival every June [E1]."),
])
def test_a_name_given_for_what_its_sentence_calls_it_is_still_verified(write_script, text, question, claim):
    # the splice rule's faithful twin: the verifier on the sentence alone entails it (0.71-0.77)
    evidence = one_item("Notes", text)
    reply = _reply(write_script, [(claim, ["E1"])], question, evidence)
    assert reply.status == "pass" and reply.verified and reply.assistant_text == claim


ORION_NOTES = one_item("Notes", "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros.")


@pytest.mark.parametrize("changed", [
    "Its budget was cut to 2.4 million euros [E1].",
    # passed: naming the antecedent was a second change, so the swap went unseen, and the verifier alone entailed it
    "The Orion project's budget was cut to 2.4 million euros [E1].",
    # passed: a strict bound on the evidence's own value was read as inclusive, and "before" made no bound
    "The Orion project's budget is less than 2.4 million euros [E1].",
    "The Orion project ships before 14 March 2027 [E1].",
    # passed: the verb in another tense, which the verifier entails (a swap of near synonyms by the stems), or "was"
    # for "is", which was no near copy at all
    "The Orion project shipped on 14 March 2027 [E1].",
    "The Orion project's budget was 2.4 million euros [E1].",
    "The Orion project's budget was raised to 2.4 million euros [E1].",
])
def test_a_changed_budget_or_date_is_never_shown(write_script, changed):
    reply = _reply(write_script, [(changed, ["E1"])], "What is the Orion budget?", ORION_NOTES)
    assert not reply.verified and changed.replace(" [E1]", "") not in reply.assistant_text


@pytest.mark.parametrize("moved", ["We used to host on Fly.io [E1].", "We plan to host on Fly.io [E1].",
                                   "We hosted on Fly.io [E1].", "In the past we hosted on Fly.io [E1]."])
def test_a_statement_moved_in_time_is_never_shown(write_script, moved):
    # read with the evidence the verifier entails them (0.70, 0.62): only the marker differs
    reply = _reply(write_script, [(moved, ["E1"])])
    assert not reply.verified and moved.replace(" [E1]", "") not in reply.assistant_text


APPROVALS = one_item("Handbook", "Vacation longer than five days must be approved by the team lead.")
NORMANDY = one_item("Normans",
                    "The Normans gave their name to Normandy, a region in France. They were descended from Norse raiders.")
BUDGET = one_item("Minutes", "The committee approved the budget on Tuesday.")
ROTATION = one_item("On-call policy",
                    "The secondary takes over when the primary has not acknowledged a page within 10 minutes.")
ON_CALL = one_item("On-call policy",
                   "One primary and one secondary are on call at any time. New engineers shadow two rotations.")
WEBHOOKS = one_item("API rate limits",
                    "After the fifth failure the endpoint is marked failing and the account owner is notified.")
RETRIES = one_item("API rate limits",
                   "Webhook deliveries are retried on any non-2xx answer or a timeout of 10 seconds, with exponential "
                   "backoff: 5 attempts over about 24 hours (after 1 minute, 10 minutes, 1 hour, 6 hours and 17 hours).")
BACK_OFF = one_item("API rate limits", "Clients must back off for at least the Retry-After value.")
HANDOVER = one_item("On-call policy",
                    "The rotation is weekly; the handover is on Monday at 10:00 CET, in a 15-minute call where the "
                    "outgoing primary walks through open incidents and alerts.")
NIGHT_PAGE = one_item("On-call policy",
                      "After a night page (between 23:00 and 07:00 CET) that took more than 1 hour, the engineer starts "
                      "work at noon the next day, or takes the morning off.")
SEVERITIES = one_item("On-call policy",
                      "- SEV1 pages: acknowledge within 5 minutes and be at a laptop with connectivity within 15 "
                      "minutes.\n- SEV2 pages: acknowledge within 15 minutes.\n- Alerts that are not pages (SEV3) are "
                      "handled during working hours, 09:00 to 18:00 CET, Monday to Friday.")
MIGRATIONS = one_item("Stack and hosting",
                      "Database migrations run before the canary step and must be backwards compatible with the "
                      "previous release for at least one deploy.")
STAGES = one_item("Mobile release process",
                  "Android builds are rolled out in stages. A stage is halted when the crash-free rate drops below "
                  "that threshold.")
ROLLBACK = one_item("Incident response runbook",
                    "Prefer rollback over a forward fix. A rollback takes about 4 minutes.")
PAGE_PAY = one_item("On-call policy",
                    "Every page outside working hours is paid at EUR 50 per incident, plus time worked at 150% of the "
                    "hourly rate.")


@pytest.mark.parametrize(("claim", "question", "evidence", "lie"), [
    # the verifier entails it and does not lean contradicted; "complexity" for "region" is 0.10 by MiniLM cosine
    ("The Normans gave their name to Normandy, a complexity in France [E1].",
     "What did the Normans give their name to?", NORMANDY, "complexity"),
    # passed: the sentence with words left out says less, and the verifier entails it; but the words left out
    # limited whom the rule is for, so the claim says more
    ("Vacation must be approved by the team lead [E1].", "Who approves vacation?", APPROVALS,
     "Vacation must be approved"),
    # passed: a rank is no number to the value check, and the verifier reads "first" and "fifth" alike
    ("After the first failure the endpoint is marked failing and the account owner is notified [E1].",
     "When is a webhook endpoint marked failing?", WEBHOOKS, "first failure"),
    # passed: every word is the evidence's own, two of them exchanged
    ("The primary takes over when the secondary has not acknowledged a page within 10 minutes [E1].",
     "Who takes over an unacknowledged page?", ROTATION, "The primary takes over"),
    # passed: "two" is stated in the next sentence, so the value check found it
    ("One primary and two secondaries are on call at any time [E1].", "Who is on call?", ON_CALL, "two secondaries"),
    # passed: the value is the evidence's, and the moved-number check binds no noun after "50 per hour"
    ("Every page outside working hours is paid at EUR 50 per hour [E1].", "How are pages paid?", PAGE_PAY,
     "per hour"),
    # passed: "during" for "outside" changes no content word, and the verifier entails the copy
    ("Every page during working hours is paid at EUR 50 per incident [E1].", "How are pages paid?", PAGE_PAY,
     "during"),
    # passed: "may" for "must" makes the rule a permission, and changes no content word either
    ("Clients may back off for at least the Retry-After value [E1].", "How long must clients back off?", BACK_OFF,
     "may back off"),
    # passed: the claim stops where the sentence goes on, so the swap was a second change and no near copy was seen
    ("Webhook deliveries are retried on any non-2xx answer or a timeout of 10 seconds, with linear backoff [E1].",
     "How are webhook deliveries retried?", RETRIES, "linear"),
    # passed: a content word put for its antonym; MiniLM reads the two as close and the verifier entails the copy
    ("The handover is in a 15-minute call where the incoming primary walks through open incidents and alerts [E1].",
     "Who runs the handover call?", HANDOVER, "incoming"),
    ("After a day page that took more than 1 hour, the engineer starts work at noon the next day [E1].",
     "When does an engineer start work after a long page?", NIGHT_PAGE, "day page"),
    # passed: "SEV3" is "sev" and "3" to the words, so every content word was the SEV2 line's own
    ("SEV3 pages must be acknowledged within 15 minutes [E1].", "How fast must SEV3 pages be acknowledged?",
     SEVERITIES, "SEV3 pages must"),
    ("Alerts that are not pages (SEV2) are handled during working hours [E1].", "When are SEV2 alerts handled?",
     SEVERITIES, "(SEV2)"),
    # passed: two phrases exchanged, every word the sentence's own
    ("Prefer a forward fix over rollback [E1].", "Should we roll back or fix forward?", ROLLBACK, "forward fix over"),
    # passed: "next" for "previous", with the end left out; a function word of time, no content word changed
    ("Database migrations must be backwards compatible with the next release [E1].",
     "What must database migrations be compatible with?", MIGRATIONS, "next release"),
    # passed: two words, each put for its opposite, were a two-word swap the verifier entailed
    ("A stage is halted when the crash-free rate rises above that threshold [E1].", "When is a stage halted?",
     STAGES, "rises above"),
])
def test_a_swapped_word_rank_role_or_condition_is_never_shown(write_script, claim, question, evidence, lie):
    reply = _reply(write_script, [(claim, ["E1"])], question, evidence)
    assert not reply.verified and lie not in reply.assistant_text


TICKETS = one_item("Club report", "Ticket sales have declined steadily since the club moved stadiums.")


@pytest.mark.parametrize(("claim", "question", "evidence"), [
    ("The committee passed the budget on Tuesday [E1].", "When was the budget approved?", BUDGET),
    # "fallen" for "declined" is 0.28 by MiniLM cosine, under the fit bar: it fits its place
    ("Ticket sales have fallen steadily since the club moved stadiums [E1].", "How have ticket sales changed?",
     TICKETS),
    ("Every page outside working hours is paid at EUR 50 per incident [E1].", "How are pages paid?", PAGE_PAY),
    ("SEV2 pages must be acknowledged within 15 minutes [E1].", "How fast must SEV2 pages be acknowledged?",
     SEVERITIES),
    # the SEV2 line shares as many of its words as the SEV1 line: the code check reads both
    ("SEV1 pages must be acknowledged within 5 minutes [E1].", "How fast must SEV1 pages be acknowledged?",
     SEVERITIES),
    ("The handover is in a 15-minute call where the outgoing primary walks through open incidents and alerts [E1].",
     "Who runs the handover call?", HANDOVER),
    ("Database migrations must be backwards compatible with the previous release [E1].",
     "What must database migrations be compatible with?", MIGRATIONS),
    # refused: "one and a half" was split into two claims and read as the numbers 1 and 0.5, and 150% was no multiple
    ("Time worked on a page outside working hours is paid at one and a half times the hourly rate [E1].",
     "How is time worked on a page paid?", PAGE_PAY),
])
def test_a_near_synonym_or_a_faithful_rewording_is_still_verified(write_script, claim, question, evidence):
    reply = _reply(write_script, [(claim, ["E1"])], question, evidence)
    assert reply.status == "pass" and reply.verified and reply.assistant_text == claim


SOCAL = one_item("Southern California",
                 "Southern California, often abbreviated SoCal, is a geographic and cultural region that generally "
                 "comprises California's southernmost 10 counties.")


def test_a_swapped_word_that_does_not_fit_its_place_is_never_shown(write_script):
    # "equal" for "counties" is 0.23 by MiniLM cosine, above the first bar, and the verifier entails the claim; the
    # words around it read further from the sentence's with "equal" than with no word at all (bench/prose's swaps)
    claim = ("Southern California, often abbreviated SoCal, is a geographic and cultural region that generally "
             "comprises California's southernmost 10 equal [E1].")
    reply = _reply(write_script, [(claim, ["E1"])], "What does Southern California comprise?", SOCAL)
    assert not reply.verified and "equal" not in reply.assistant_text


RATE_LIMITS_PAGE = one_item("API rate limits",
                            (Path(__file__).parents[2] / "examples" / "corpus" / "api-rate-limits.md").read_text())


@pytest.mark.parametrize(("claim", "question", "lie"), [
    # shown: the page wraps its lines, and the checks read "... while limited for more" and "than 10 minutes is
    # blocked ..." as two sentences, so the copy with its condition left out copied neither
    ("A key that keeps sending requests while limited is blocked for 1 hour [E1].", "How long is a key blocked?",
     "while limited is blocked"),
    ("Increases need approval from the platform team [E1].", "Who approves limit increases?", "Increases need"),
])
def test_a_rule_without_its_condition_is_never_shown_over_a_hard_wrapped_page(write_script, claim, question, lie):
    reply = _reply(write_script, [(claim, ["E1"])], question, RATE_LIMITS_PAGE)
    assert reply.status != "pass" and not reply.verified and lie not in reply.assistant_text
    assert "QUALIFIER_DRIFT" in {code for result in reply.gate_results for code in result.reason_codes}


def test_a_wrapped_rule_copied_whole_is_still_verified(write_script):
    claim = "Increases above 10,000 requests per minute need approval from the platform team [E1]."
    reply = _reply(write_script, [(claim, ["E1"])], "Who approves limit increases?", RATE_LIMITS_PAGE)
    assert reply.status == "pass" and reply.verified and reply.assistant_text == claim
