"""The retrieval benchmark's best-sentence-pass section renders what the run wrote (its bars are JSON string keys)."""

from __future__ import annotations

import json

from bench.retrieval import SENTENCE_BARS, render_sentence_pass


def test_the_section_has_one_row_per_bar_after_the_shipped_floor():
    counts = {"gold_in_top_k": 10, "gold_kept": 8, "other_kept": 30,
              "gold_kept_with_pass": {bar: 8 + i for i, bar in enumerate(SENTENCE_BARS)},
              "other_kept_with_pass": {bar: 30 + 5 * i for i, bar in enumerate(SENTENCE_BARS)}}
    written = json.loads(json.dumps({"data": "squad2", "questions": 10, "paragraphs": 4, "sentences": 20, "k": 5,
                                     "floor": 0.3, "lexical_pass": None, "counts": counts}))
    lines = render_sentence_pass(written)
    rows = [line for line in lines if line.startswith("| shipped")]
    assert rows[0] == "| shipped | 8 | 30 |"
    assert rows[1:] == [f"| shipped + a sentence at or above {bar} | {8 + i} | {30 + 5 * i} |"
                        for i, bar in enumerate(SENTENCE_BARS)]
    assert "in the fused top 5 for 10 questions" in "\n".join(lines)
