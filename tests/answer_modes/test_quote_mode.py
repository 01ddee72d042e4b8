"""Quote-grounded answering through the real pipeline (issue 15): the scripted model makes the choices (a real
adapter), MiniLM ranks the sentences, the shipped answerability scorer decides where the bundle says so, and every
gate runs on the envelope the server composes. No NLI backend is configured unless a test says so: verbatim quotes
must pass without one."""

from __future__ import annotations

import json

import pytest

from controlplane.answer_modes import FALLBACK_NOTICE, SCORER_MODEL_ID, answer_mode_for, parse_answer_mode
from controlplane.contracts import AnswerMode, Phase, QuotePolicy, TraceStatus
from controlplane.contracts.errors import InputError
from controlplane.contracts.text import split_sentences, strip_markers
from controlplane.gates.interfaces import GateServices
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import load_bundle, parse_bundle
from controlplane.quote import Candidate, choice_schema, parse_choice
from controlplane.services import build_services

ORION = "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. The team sits in Lyon."
SHIP = "The Orion project ships on 14 March 2027."
EVIDENCE = [{"id": "E1", "title": "Orion", "text": ORION, "trust_tier": "authoritative"}]
SHIP_Q = "When does the Orion project ship?"
FOUNDER_Q = "Who founded the Orion project?"


def policy(answer_mode: str = "quote", **quote):
    base = load_bundle()
    settings = base.bundle.quote.model_copy(update=quote)
    bundle = base.bundle.model_copy(update={"answer_mode": AnswerMode(answer_mode), "quote": settings})
    return parse_bundle(bundle.model_dump(mode="json"), "test bundle")


def plane(model, answer_mode="quote", services=None, **quote) -> Pipeline:
    return Pipeline(model=model, policy=policy(answer_mode, **quote), services=services or GateServices())


def displayed_lines_all_covered(result) -> bool:
    """Every sentence shown is inside a passing claim (notices in brackets excepted)."""
    covered = [strip_markers(c.text) for c in result.claims if c.verdict == "PASS"]
    for line in result.assistant_text.splitlines():
        if not line.strip() or line.strip().startswith("["):
            continue
        for sentence in split_sentences(line):
            plain = strip_markers(sentence.text)
            if plain and not any(plain in claim or claim in plain for claim in covered):
                return False
    return True


def quote_records(result) -> list[dict]:
    return [e.payload for e in result.events if e.phase is Phase.MODEL_CALL]


# -- the bundle decides the mode ---------------------------------------------------------------------------------------

def test_embedded_models_answer_in_quote_mode_other_models_in_the_bundle_mode():
    shipped = load_bundle().bundle
    assert answer_mode_for(shipped, "smollm2-135m") is AnswerMode.QUOTE
    assert answer_mode_for(shipped, "gemma3-270m") is AnswerMode.QUOTE
    assert answer_mode_for(shipped, "gguf:llama-3-8b.gguf") is AnswerMode.ABSTRACTIVE
    assert answer_mode_for(shipped, "smollm2-135m", AnswerMode.ABSTRACTIVE) is AnswerMode.ABSTRACTIVE
    with pytest.raises(InputError, match="abstractive_then_quote"):
        parse_answer_mode("prose")


# -- the grammar and the choice ----------------------------------------------------------------------------------------

CANDIDATES = [Candidate(1, "E1", SHIP, 0, 41, 0.7, None), Candidate(2, "E2", "The team sits in Lyon.", 0, 22, 0.3, None)]


@pytest.mark.parametrize("settings", [QuotePolicy(), QuotePolicy(choice_by="verbatim"), QuotePolicy(max_sentences=2)])
def test_choice_grammar_is_enforceable_by_llama_cpp(settings):
    pytest.importorskip("llama_cpp")
    from controlplane.adapters.llama_cpp import schema_to_gbnf

    gbnf = schema_to_gbnf(choice_schema(CANDIDATES, settings))
    assert "UNKNOWN" in gbnf


def test_a_choice_is_exactly_an_offered_sentence_or_unknown():
    settings = QuotePolicy()
    assert parse_choice('{"answer": 2}', CANDIDATES, settings) == ([CANDIDATES[1]], None)
    assert parse_choice('{"answer": "UNKNOWN"}', CANDIDATES, settings) == ([], None)
    for bad in ('{"answer": 3}', '{"answer": true}', "Sentence 1.", '{"answer": 1, "why": "x"}', '{"answer": [1, 2]}'):
        chosen, problem = parse_choice(bad, CANDIDATES, settings)
        assert chosen == [] and problem, bad
    verbatim = QuotePolicy(choice_by="verbatim")
    assert parse_choice(json.dumps({"answer": SHIP}), CANDIDATES, verbatim) == ([CANDIDATES[0]], None)
    assert parse_choice('{"answer": "The Orion project ships soon."}', CANDIDATES, verbatim)[1]


# -- through the pipeline ------------------------------------------------------------------------------------------------



@pytest.mark.models
def test_model_choice_is_composed_into_a_verified_cited_answer(scripted_model):
    model = scripted_model([{"answer": SHIP}])
    result = plane(model, answerability="model", choice_by="verbatim").run(
        [{"role": "user", "content": SHIP_Q}], evidence=EVIDENCE)
    assert result.status is TraceStatus.PASS
    assert result.verified
    assert result.assistant_text == f"{SHIP} [E1]"
    [claim] = result.claims
    assert (claim.text, claim.evidence_ids, claim.status, claim.verdict) == (f"{SHIP} [E1]", ["E1"], "FACTUAL", "PASS")
    nli = next(g for g in result.attempts[0].gate_results if g.gate_id == "nli_entailment")
    assert nli.details["claim_records"]["c1"]["basis"] == "VERBATIM_QUOTE"  # passed with no NLI backend at all
    record = quote_records(result)[0]
    assert record["answer_mode"] == "quote"
    assert SHIP in [c["text"] for c in record["quote"]["offered"]]
    assert json.loads(result.attempts[0].raw_output)["meta"]["claim_map"][0]["span"] == {"start_char": 0,
                                                                                          "end_char": len(SHIP) + 5}


@pytest.mark.models
def test_unknown_says_so_names_the_evidence_needed_and_quotes_the_closest_passages(scripted_model):
    model = scripted_model([{"answer": "UNKNOWN"}])
    result = plane(model, answerability="model", closest_passages=2).run(
        [{"role": "user", "content": FOUNDER_Q}], evidence=EVIDENCE)
    assert result.status is TraceStatus.PASS
    assert not result.verified  # UNKNOWN is honest, not a verified answer
    text = result.assistant_text
    assert text.startswith("The evidence does not answer this question.")
    assert f'a source that answers "{FOUNDER_Q}"' in text
    shown, notice = text.split("\n\n")
    assert notice.startswith("[Not answered.") and notice.endswith("]")  # the system's notice, after the check
    passages = shown.splitlines()[1:]
    assert len(passages) == 2 and all(line.endswith("[E1]") and strip_markers(line) in ORION for line in passages)
    assert [c.status for c in result.claims] == ["UNKNOWN", "FACTUAL", "FACTUAL"]
    assert all(c.verdict == "PASS" for c in result.claims)
    assert displayed_lines_all_covered(result)


@pytest.mark.models
def test_an_invalid_choice_fails_the_gates_and_the_next_attempt_is_composed(scripted_model):
    model = scripted_model(["I think it is the first sentence.", {"answer": SHIP}])
    result = plane(model, answerability="model", choice_by="verbatim").run(
        [{"role": "user", "content": SHIP_Q}], evidence=EVIDENCE)
    assert result.status is TraceStatus.REGEN_PASS
    assert result.verified
    first = result.attempts[0]
    assert any(g.gate_id == "output_schema" and g.failed for g in first.gate_results)
    assert quote_records(result)[0]["quote"]["problem"] == "the model's choice is not JSON"
    assert "first sentence" not in result.assistant_text


@pytest.mark.models
def test_a_model_that_never_chooses_is_refused_with_every_attempts_failures(scripted_model):
    model = scripted_model(["The Orion project was founded by Ada Lovelace."] * 3)
    result = plane(model, answerability="model").run([{"role": "user", "content": FOUNDER_Q}], evidence=EVIDENCE)
    assert result.status is TraceStatus.REFUSED
    assert "Lovelace" not in result.assistant_text
    assert "What failed across the 3 attempts:" in result.assistant_text
    for attempt in (1, 2, 3):
        assert f"- attempt {attempt}: output_schema" in result.assistant_text
    assert {row["attempt"] for row in result.degrade["failures_by_attempt"]} == {1, 2, 3}


@pytest.mark.models
def test_scorer_decides_without_a_model_call(scripted_model):
    # The script has no main output: any call of the model would be an error attempt.
    model = scripted_model([{"output": "{}", "purpose": "critic"}])
    qp = plane(model, answerability="scorer")
    answered = qp.run([{"role": "user", "content": SHIP_Q}], evidence=EVIDENCE)
    assert answered.status is TraceStatus.PASS and answered.verified
    assert answered.assistant_text == f"{SHIP} [E1]"
    assert quote_records(answered)[0]["model_id"] == SCORER_MODEL_ID
    unknown = qp.run([{"role": "user", "content": "Who won the 1998 football world cup in Paris?"}], evidence=EVIDENCE)
    assert unknown.status is TraceStatus.PASS and not unknown.verified
    assert unknown.assistant_text.startswith("The evidence does not answer this question.")
    assert quote_records(unknown)[0]["quote"]["decided_without_model"]


@pytest.mark.models
def test_abstractive_then_quote_degrades_to_verified_quotes_not_a_bare_refusal(scripted_model):
    invented = {"assistant_text": "The Orion project is funded by NASA [E1].",
                "meta": {"modeLabel": "Ida", "claim_map": [{"claim_id": "c1", "text": "The Orion project is funded by NASA",
                                                            "evidence_ids": ["E1"], "status": "FACTUAL"}]}}
    model = scripted_model([invented] * 3)
    services = build_services(None, policy=load_bundle().bundle)  # the shipped NLI verifier judges the prose
    result = plane(model, "abstractive_then_quote", services=services, answerability="scorer").run(
        [{"role": "user", "content": SHIP_Q}], evidence=EVIDENCE)
    assert result.status is TraceStatus.DEGRADED
    assert "NASA" not in result.assistant_text
    assert result.assistant_text == f"{SHIP} [E1]\n\n{FALLBACK_NOTICE}"
    assert result.degrade["mode"] == "quote_fallback"
    assert result.attempts[-1].gate_results and not any(g.failed for g in result.attempts[-1].gate_results)
    assert displayed_lines_all_covered(result)


@pytest.mark.models
def test_a_statement_question_quotes_the_most_relevant_sentences(scripted_model):
    model = scripted_model([{"output": "{}", "purpose": "critic"}])  # never called
    result = plane(model, answerability="model", statement_sentences=2, min_relevance=0.1).run(
        [{"role": "user", "content": "Tell me about the Orion team and its city."}], evidence=EVIDENCE)
    assert result.status is TraceStatus.PASS and result.verified
    assert "The team sits in Lyon. [E1]" in result.assistant_text
    assert len(result.claims) == 2 and all(c.verdict == "PASS" for c in result.claims)
    record = quote_records(result)[0]["quote"]
    assert record["statement_question"] and record["decided_without_model"]


TENANCY = [
    {"id": "E1", "title": "Tenancy act", "text": "Tenants must give 30 days' written notice before moving out.",
     "trust_tier": "authoritative", "source": "https://law.example/tenancy-act"},
    {"id": "E2", "title": "Housing guide", "text": "A tenant has to give the landlord 30 days' written notice before "
     "moving out.", "trust_tier": "authoritative", "source": "https://gov.example/housing-guide"},
    {"id": "E3", "title": "Parking", "text": "Residents may park one car in the courtyard.", "trust_tier": "authoritative",
     "source": "https://gov.example/parking"},
]


@pytest.mark.models
def test_a_quote_in_a_high_stakes_domain_cites_every_source_that_states_it(scripted_model):
    """A legal question needs two independent sources per claim (EBOM). A quote cited only the item it came from, so
    with two authoritative sources saying the same thing the answer was refused (INSUFFICIENT_SOURCES): a faithful
    answer refused. The quote now also cites every other item that entails it; the gates still check each one."""
    from controlplane.critic import ModelCritic

    # an UNKNOWN reply at high rigor is reviewed by the critic (its citation density is low): one that finds nothing
    critic = ModelCritic(scripted_model([{"output": "[]", "purpose": "critic"}] * 3))
    qp = plane(scripted_model([{"output": "{}", "purpose": "critic"}]), answerability="scorer",
               services=build_services("shipped", critic=critic))
    result = qp.run([{"role": "user", "content": "How much notice must a tenant give before moving out?"}],
                    evidence=TENANCY)
    assert result.status is TraceStatus.PASS and result.verified, result.assistant_text
    [claim] = result.claims
    assert claim.verdict == "PASS" and sorted(claim.evidence_ids)[:2] == ["E1", "E2"] and "E3" not in claim.evidence_ids
    assert displayed_lines_all_covered(result)
    # an UNKNOWN reply's closest passages are quotes too: corroborated, they are shown instead of a refusal
    unknown = qp.run([{"role": "user", "content": "Does the landlord pay for repairs?"}],
                     evidence=TENANCY)
    assert unknown.status is TraceStatus.PASS and not unknown.verified, unknown.assistant_text
    assert unknown.assistant_text.startswith("The evidence does not answer this question.")
    assert all(c.verdict == "PASS" for c in unknown.claims) and displayed_lines_all_covered(unknown)


@pytest.mark.models
def test_a_quote_in_an_ordinary_domain_cites_only_its_own_item(scripted_model):
    """One source is enough outside high-stakes domains: no corroborating citations, no extra verifier calls."""
    model = scripted_model([{"output": "{}", "purpose": "critic"}])
    qp = plane(model, answerability="scorer", services=build_services("shipped"))
    result = qp.run([{"role": "user", "content": SHIP_Q}], evidence=[*EVIDENCE, {
        "id": "E2", "title": "Roadmap", "text": SHIP, "trust_tier": "authoritative"}])
    assert result.verified and [c.evidence_ids for c in result.claims] in ([["E1"]], [["E2"]])


@pytest.mark.models
@pytest.mark.parametrize("second", [
    "A tenant has to give the landlord 60 days' written notice before moving out.",  # another number
    "Landlords must give 30 days' written notice before ending a lease.",  # the other party (entailment 0.52 < 0.57)
    # one word swapped: the verifier entails it at 0.70, the near-copy rule reads the swap
    "Landlords must give 30 days' written notice before moving out.",
])
def test_a_source_that_says_something_else_does_not_corroborate_a_quote(scripted_model, second):
    """The second source says something else: it supports nothing, and the legal answer stays refused for want of a
    second source (fail closed)."""
    model = scripted_model([{"output": "{}", "purpose": "critic"}])
    qp = plane(model, answerability="scorer", services=build_services("shipped"))
    other = [TENANCY[0], {**TENANCY[1], "text": second}]
    result = qp.run([{"role": "user", "content": "How much notice must a tenant give before moving out?"}],
                    evidence=other)
    assert result.status is TraceStatus.REFUSED and not result.verified
    assert "fewer independent sources than this domain requires" in result.assistant_text
    assert [c.evidence_ids for c in result.claims] == [["E1"]]  # not cited as if it said the same


# -- a question that asks several things -------------------------------------------------------------------------------

def scorer_answer(scripted_model, question: str):
    """The shipped quote mode over EVIDENCE; the scorer decides, so any call of the main model would fail."""
    return plane(scripted_model([{"output": "{}", "purpose": "critic"}])).run(
        [{"role": "user", "content": question}], evidence=EVIDENCE)


@pytest.mark.models
def test_each_part_of_a_compound_question_is_answered_on_its_own(scripted_model):
    """Each part is ranked and decided by the scorer on its own ("its" read with the first part's words)."""
    result = scorer_answer(scripted_model, "When does the Orion project ship and what is its budget?")
    assert result.status is TraceStatus.PASS and result.verified
    # the budget's best quote is the pronoun pair, which holds the first part's sentence: one quote answers both
    assert result.assistant_text == f"{SHIP} Its budget is 2.4 million euros. [E1]"
    record = quote_records(result)[0]["quote"]
    assert [p["part"] for p in record["parts"]] == ["When does the Orion project ship?", "What is its budget?"]
    assert record["parts"][1]["read_as"] != "What is its budget?"  # "its" leans on the first part's words
    assert all(p["chosen"] for p in record["parts"])


@pytest.mark.models
def test_two_parts_answered_by_two_sentences_are_both_quoted(scripted_model):
    result = scorer_answer(scripted_model, "When does the Orion project ship? Where does the team sit?")
    assert result.status is TraceStatus.PASS and result.verified
    assert result.assistant_text == f"{SHIP} [E1] The team sits in Lyon. [E1]"
    assert [c.verdict for c in result.claims] == ["PASS", "PASS"]


@pytest.mark.models
def test_a_part_nothing_answers_is_said_to_be_unanswered_and_the_rest_is_answered(scripted_model):
    result = scorer_answer(scripted_model, "When does the Orion project ship and who won the 1998 world cup in Paris?")
    assert result.status is TraceStatus.PASS and not result.verified  # an UNKNOWN part is not a verified answer
    lines = result.assistant_text.splitlines()
    assert lines[0] == f"{SHIP} [E1]"
    assert lines[1] == 'The evidence does not answer "Who won the 1998 world cup in Paris".'
    assert lines[-1] == ('[Partly answered. To answer the rest I would need a source that answers "Who won the 1998 '
                         'world cup in Paris".]')
    assert [c.verdict for c in result.claims] == ["PASS", "PASS"]
    assert [c.status for c in result.claims] == ["FACTUAL", "UNKNOWN"]
    assert displayed_lines_all_covered(result)


@pytest.mark.models
def test_a_compound_question_nothing_answers_ends_unknown_as_any_question(scripted_model):
    result = scorer_answer(scripted_model, "Who won the 1998 world cup and where is the final played?")
    assert result.status is TraceStatus.PASS and not result.verified
    assert result.assistant_text.startswith("The evidence does not answer this question.")
