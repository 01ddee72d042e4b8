"""The example-corpus benchmark's scoring (bench/ask.py): what counts as answered, abstained, unverified, and why a
question was missed. No model: replies are built by hand."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from bench.ask import CORPORA, Question, load_questions, render, score, split_summary


@dataclass
class Claim:
    text: str
    status: str = "FACTUAL"
    verdict: str = "PASS"


@dataclass
class Item:
    text: str


@dataclass
class Pack:
    evidence: list


@dataclass
class Reply:
    assistant_text: str
    status: str
    claims: list
    evidence: str = "Backups are kept for 35 days."
    failing_gates: tuple = ()
    evidence_pack: Pack = field(init=False)

    def __post_init__(self):
        self.evidence_pack = Pack([Item(self.evidence)])


BACKUPS = Question("How long are database backups kept?", True, ("35 days",), "dev")
CEO = Question("Who is the CEO?", False, (), "dev")


def test_a_verified_sentence_with_the_gold_string_is_answered_and_correct():
    reply = Reply("Backups are kept for 35 days. [E1]", "pass", [Claim("Backups are kept for 35 days. [E1]")])
    row = score(reply, BACKUPS)
    assert row["correct"] and row["gold_retrieved"] and row["miss_cause"] is None
    assert row["unverified_displayed"] == 0


@pytest.mark.parametrize("reply, cause", [
    (Reply("x", "pass", [Claim("The evidence does not answer this question.", "UNKNOWN")], evidence="Nothing."),
     "not retrieved"),
    (Reply("x", "pass", [Claim("The evidence does not answer this question.", "UNKNOWN")]),
     "retrieved but not chosen"),
    (Reply("I can't give a verified answer", "refused", [Claim("Backups ... [E1]", verdict="FAIL")],
           failing_gates=("nli_entailment",)), "refused by nli_entailment"),
    (Reply("Logs are kept. [E1]", "pass", [Claim("Logs are kept. [E1]")]), "answered wrong"),
])
def test_each_miss_has_its_cause(reply, cause):
    row = score(reply, BACKUPS)
    assert not row["correct"] and row["miss_cause"] == cause


def test_unknown_and_claimless_refusal_abstain_an_answer_does_not():
    unknown = Reply("The evidence does not answer this question.", "pass",
                    [Claim("The evidence does not answer this question.", "UNKNOWN")])
    assert score(unknown, CEO)["abstained"] and score(unknown, CEO)["miss_cause"] is None
    refused = Reply("I can't give a verified answer from the evidence provided.", "refused", [])
    assert score(refused, CEO)["abstained"]
    answered = Reply("Backups are kept for 35 days. [E1]", "pass", [Claim("Backups are kept for 35 days. [E1]")])
    assert not score(answered, CEO)["abstained"] and score(answered, CEO)["miss_cause"] == "answered"


def test_sentences_no_passing_claim_covers_are_counted_notices_are_not():
    text = "Backups are kept for 35 days. [E1] We also keep logs forever.\n[Not verified: some statements were removed.]"
    one = Reply(text, "pass", [Claim("Backups are kept for 35 days. [E1]")])
    assert score(one, BACKUPS)["unverified_displayed"] == 1
    both = Reply(text, "pass", [Claim("Backups are kept for 35 days. [E1]"), Claim("We also keep logs forever.")])
    assert score(both, BACKUPS)["unverified_displayed"] == 0


def test_the_question_set_has_both_splits_and_the_summary_counts_per_kind():
    dev, test = load_questions("dev"), load_questions("test")
    assert dev and test and len(load_questions("all")) == len(dev) + len(test)
    assert {q.split for q in dev} == {"dev"}
    rows = [{"answerable": True, "correct": True, "gold_retrieved": True, "abstained": False, "seconds": 1.0,
             "unverified_displayed": 0, "selector_used": False},
            {"answerable": False, "correct": False, "gold_retrieved": False, "abstained": True, "seconds": 3.0,
             "unverified_displayed": 0, "selector_used": True}]
    summary = split_summary(rows)
    assert (summary["answered_correct"], summary["abstained"], summary["selector_calls"]) == (1, 1, 1)
    assert summary["answerable"] == 1 and summary["unanswerable"] == 1 and summary["p90_s"] == 3.0


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_every_corpus_has_both_splits_and_its_gold_strings_are_in_its_documents(name):
    corpus = CORPORA[name]
    questions = load_questions("all", corpus.questions)
    assert {q.split for q in questions} == {"dev", "test"}
    assert any(not q.answerable for q in questions if q.split == "test")
    texts = {path.name: path.read_text(encoding="utf-8") for path in corpus.folder.iterdir()}
    for q in questions:
        if q.answerable:
            # an answer the corpus does not hold could never be found: a broken question, not a miss
            assert any(gold in texts[q.source] for gold in q.answers), q.question


def test_the_second_corpus_report_names_its_corpus_and_command():
    summary = {"corpus": "b", "split": "dev", "model": "m", "k": 5, "cpus": 2, "load_average": 0.5,
               "index_example_corpus_s": 1.0, "model_and_services_load_s": 0.3, "quickstart_first_run": None,
               "splits": {}, "rows": []}
    text = render(summary)
    assert text.startswith("# Main job end to end on a second corpus") and "`./run bench ask --corpus b`" in text
    assert "corpus_b_questions.jsonl" in text and "(bench/data/corpus_b, k=5)" in text
    # the example corpus is named as such, not by its folder's last name ("corpus corpus" before)
    example = render({**summary, "corpus": "example"})
    assert "the example corpus (examples/corpus, k=5)" in example and "corpus corpus" not in example
