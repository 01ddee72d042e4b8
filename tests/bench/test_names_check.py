"""bench/names_check.py: how the lower-case vocabulary is counted."""

from __future__ import annotations

from bench.names_check import count_cases, vocabulary


def test_only_words_that_do_not_open_a_sentence_are_counted():
    lower, capitalised = count_cases([
        "Remember the date. We remember it well; Remember nothing else.",  # "Remember" opens two sentences
        'She said: "Target the market." Target sells toys, and a target is set.',
        "The iPhone and AWS are not counted: mixed case and acronyms tell nothing about a word.",
    ])
    assert lower["remember"] == 1 and capitalised["remember"] == 0
    assert lower["target"] == 1 and capitalised["target"] == 0  # "Target sells" opens a sentence: not counted
    assert "iphone" not in lower and "iphone" not in capitalised and "aws" not in capitalised


def test_a_word_enters_the_vocabulary_when_mostly_written_in_lower_case():
    texts = ["it is a " + "sunny day, " * 6 + "we said"] + ["we met Sunny there"] * 2 + ["we met Paris there"] * 9
    texts += ["we saw paris"] * 5 + ["we went to the the"]
    words = vocabulary(*count_cases(texts))
    assert "sunny" in words  # 6 lower-case uses against 2 capitalised
    assert "paris" not in words  # 5 against 9
    assert "the" not in words  # a stopword is never a name anyway
