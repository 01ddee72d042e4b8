"""The follow-up benchmark (bench/follow_ups.py): its conversations, how a conversation is asked, and its counts. No
model: the plane is a stand-in that records the messages it is sent."""

from __future__ import annotations

from dataclasses import dataclass

from bench.ask import Question
from bench.follow_ups import Conversation, ask_conversation, load_conversations, summary_of


def test_the_conversations_hold_both_splits_and_unanswerable_follow_ups():
    conversations = load_conversations("all")
    assert {c.question.split for c in conversations} == {"dev", "test"}
    for split in ("dev", "test"):
        rows = load_conversations(split)
        assert all(c.previous for c in rows)
        assert any(not c.question.answerable for c in rows) and any(c.question.answerable for c in rows)
        assert all(c.question.answers for c in rows if c.question.answerable)


@dataclass
class Reply:
    assistant_text: str


class Recorder:
    def __init__(self):
        self.sent: list[list[dict[str, str]]] = []

    def respond(self, messages, retrieve):
        assert retrieve
        self.sent.append(messages)
        return Reply(f"answer {len(self.sent)}")


def test_each_earlier_question_is_asked_first_and_its_reply_becomes_the_assistant_turn():
    plane = Recorder()
    conversation = Conversation(("Q1?", "Q2?"), Question("And Q3?", True, ("x",), "dev"))
    reply, seconds = ask_conversation(plane, conversation)
    assert plane.sent == [
        [{"role": "user", "content": "Q1?"}],
        [{"role": "user", "content": "Q1?"}, {"role": "assistant", "content": "answer 1"},
         {"role": "user", "content": "Q2?"}],
        [{"role": "user", "content": "Q1?"}, {"role": "assistant", "content": "answer 1"},
         {"role": "user", "content": "Q2?"}, {"role": "assistant", "content": "answer 2"},
         {"role": "user", "content": "And Q3?"}],
    ]
    assert reply.assistant_text == "answer 3" and seconds >= 0


def test_the_counts_separate_answerable_and_unanswerable_follow_ups():
    rows = [
        {"answerable": True, "correct": True, "abstained": False, "unverified_displayed": 0, "rule": "fragment",
         "seconds": 1.0},
        {"answerable": True, "correct": False, "abstained": True, "unverified_displayed": 0, "rule": None,
         "seconds": 2.0},
        {"answerable": False, "correct": False, "abstained": True, "unverified_displayed": 0, "rule": "pronoun",
         "seconds": 3.0},
    ]
    summary = summary_of(rows)
    assert (summary["answered_correct"], summary["answerable"]) == (1, 2)
    assert (summary["abstained"], summary["unanswerable"]) == (1, 1)
    assert summary["read_with_previous"] == 2 and summary["unverified_displayed"] == 0
