"""The readers' experiments: each rewrites its own section of the results file and keeps the others'; the
likelihood reader reads the embedded model's log-probabilities."""

from __future__ import annotations

import pytest

from bench.squad2_readers import question_log_probabilities, write_section


def test_each_run_rewrites_only_its_own_section(tmp_path):
    out = tmp_path / "squad2_readers.md"
    write_section(out, ["## Probe: pooled", "", "| a |", "| 1 |"])
    write_section(out, ["## Reader: fine-tuned", "", "| b |", "| 2 |"])
    write_section(out, ["## Probe: pooled", "", "| a |", "| 3 |"])
    text = out.read_text()
    assert text.startswith("# Answerability readers")
    assert text.count("## Probe: pooled") == 1 and text.count("## Reader: fine-tuned") == 1
    assert "| 3 |" in text and "| 1 |" not in text  # the probe's new figures replace its old ones
    assert "| 2 |" in text  # the reader's section is kept as it was
    assert text.index("## Probe") < text.index("## Reader")  # in the order they were first written


@pytest.mark.models  # the embedded SmolLM2
def test_the_embedded_model_reads_a_question_as_more_likely_after_the_sentence_that_answers_it(tmp_path):
    items = [("answers", "The Orion project ships on 14 March 2027.", "When does the Orion project ship?"),
             ("unrelated", "Bees make honey from the nectar of flowers.", "When does the Orion project ship?")]
    read = question_log_probabilities(tmp_path, items)
    for entry in read.values():
        assert len(entry["after_sentence"]) == len(entry["after_nothing"]) > 3
        assert (entry["after_sentence"] < 0).all() and (entry["after_nothing"] < 0).all()  # log-probabilities
    gain = {qid: float((entry["after_sentence"] - entry["after_nothing"]).mean()) for qid, entry in read.items()}
    assert gain["answers"] > gain["unrelated"] + 0.5
    assert gain["answers"] > 0
    # kept in the work folder: a second call reads what is there; the same question after another sentence is read
    # afresh, not taken from what the first sentence gave
    assert question_log_probabilities(tmp_path, items[:1])["answers"]["after_sentence"].tolist() == \
        read["answers"]["after_sentence"].tolist()
    other = question_log_probabilities(tmp_path, [("answers", items[1][1], items[1][2])])["answers"]
    assert other["after_sentence"].tolist() == read["unrelated"]["after_sentence"].tolist()


@pytest.mark.models  # MiniLM
def test_a_soft_match_finds_the_question_words_in_the_sentence_that_says_them(tmp_path):
    from types import SimpleNamespace

    from bench.squad2_readers import soft_match_features

    question = SimpleNamespace(id="q1", question="When does the Orion project launch?",
                               context="The Orion project ships on 14 March 2027. Bees make honey from nectar.")
    rows = soft_match_features(tmp_path, [{"q": question}])["q1"]
    assert rows.shape == (2, 3)
    orion, bees = rows
    assert orion[0] > bees[0] + 0.1  # mean best match
    assert orion[2] < bees[2]  # fewer question words not found
    assert (tmp_path / "softmatch.pkl").is_file()


def test_swap_features_mark_a_negative_prefix_and_a_swapped_name():
    from types import SimpleNamespace

    import numpy as np

    from bench.squad2 import _sentences
    from bench.squad2_readers import SWAP_FEATURES, swap_features
    from controlplane.answerability import lexical_features

    def row(qid: str, question: str, context: str) -> dict:
        sentences = [s for s, _, _ in _sentences(context)]
        x = lexical_features(question, sentences, np.zeros(len(sentences)), context)
        return {"q": SimpleNamespace(id=qid, question=question, context=context), "x": x}

    context = ("Mitsubishi rebranded its Forte as the Dodge D-50 a few years after the oil crisis. "
               "Geographical theories suggested that tropical environments created uncivilized people.")
    table = [row("swap", "What did Toyota rebrand its Forte as?", context),
             row("prefix", "Which theories suggested tropical environments created civilized people?", context),
             row("answerable", "What did Mitsubishi rebrand its Forte as?", context)]
    features = swap_features(table)
    assert all(f.shape == (2, len(SWAP_FEATURES)) for f in features.values())
    prefix, name = range(len(SWAP_FEATURES))
    assert features["swap"][0, name] == 1.0 and features["answerable"][0, name] == 0.0
    assert features["prefix"][1, prefix] == 1.0 and features["prefix"][0, prefix] == 0.0
    assert features["answerable"][0, prefix] == 0.0


@pytest.mark.parametrize(("question", "candidate", "claim"), [
    ("When did the Normans conquer England?", "1066", "the Normans conquer England in 1066."),
    ("Who founded the city of Fresno?", "the railroad", "the railroad founded the city of Fresno."),
    ("How many people live in Fresno?", "510,365", "510,365 people live in Fresno."),
    ("What is the capital of Victoria?", "Melbourne", "Melbourne is the capital of Victoria."),
    ("What year did the Yuan dynasty end?", "1368", "the Yuan dynasty end in 1368."),
    ("Where did Rollo come from?", "Norway", "Rollo come from Norway."),
    ("The Normans were in which country?", "France", "The Normans were in France."),
])
def test_a_question_becomes_a_claim_with_the_candidate_in_the_place_of_its_wh_phrase(question, candidate, claim):
    from bench.squad2_readers import filled_claim

    assert filled_claim(question, candidate) == claim


def test_the_candidates_are_the_answers_of_the_asked_type_the_question_does_not_already_say():
    from bench.squad2_readers import answer_candidates

    assert answer_candidates("When did the Normans conquer England?",
                             "In 1066 the Normans under William conquered England.") == (["1066"], True)
    assert answer_candidates("Who founded the city in 1872?",
                             "In 1872 the Central Pacific Railroad founded the city.") == (["Central Pacific Railroad"],
                                                                                           True)
    # no answer of the asked type: the runs of words the question does not use, trimmed of stopwords
    assert answer_candidates("What did the Normans conquer in 1066?",
                             "In 1066 the Normans conquered England.") == (["England"], False)
    # a "when" question over a sentence with no date has only the other words to offer
    assert answer_candidates("When did the Normans conquer England?", "The Normans conquered England.") == ([], False)
