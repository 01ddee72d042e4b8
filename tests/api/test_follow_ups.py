"""A follow-up is searched, routed and recorded as read with the previous question (controlplane/follow_ups.py), at
every surface that takes a conversation; ``router.follow_ups: false`` reads the last message alone."""

from __future__ import annotations

from click.testing import CliRunner

from controlplane import ControlPlane
from controlplane.cli import main
from controlplane.contracts import EvidenceItem, Phase
from controlplane.evidence_pack import content_hash
from controlplane.policy_bundles.loader import parse_bundle
from controlplane.pytest_plugin import GateHarness
from controlplane.replay import replay_bundles
from controlplane.reverify import edit_question

REGION = "The primary region of the API is ams."
CONVERSATION = [
    {"role": "user", "content": "Where do we host the API?"},
    {"role": "assistant", "content": "We host on Fly.io. [E1]"},
    {"role": "user", "content": "What is its primary region?"},
]
READ_AS = "What is the API's primary region?"


class Recording:
    """A real retriever over one passage that records each query it is asked."""

    name = "recording"

    def __init__(self):
        self.queries: list[str] = []

    def retrieve(self, query, k):
        self.queries.append(query)
        return [EvidenceItem(id="R1", type="RETRIEVAL_SNIPPET", text=REGION, hash=content_hash(REGION),
                             retrieval_score=0.9)]


def plane_with(scripted_model, core_policy, retriever, follow_ups=True, db=False):
    data = core_policy.bundle.model_dump(mode="json", exclude_none=True)
    data["router"] = {**data["router"], "follow_ups": follow_ups}
    policy = parse_bundle(data, source="tests:follow_ups")
    text = "The primary region of the API is ams [E1]."
    output = GateHarness.envelope(text, claims=[(text, ["E1"])], domain_flags=["architecture"])
    return ControlPlane(model=scripted_model([output] * 3), policy=policy, db=db, retriever=retriever,
                        retrieval_k=1)


def test_the_follow_up_is_searched_and_recorded_as_read(scripted_model, core_policy, tmp_path):
    retriever = Recording()
    plane = plane_with(scripted_model, core_policy, retriever, db=tmp_path / "traces.db")
    reply = plane.respond(CONVERSATION, retrieve=True)
    assert retriever.queries == [READ_AS]
    assert reply.passed and reply.verified, reply.assistant_text
    reading = {"message": "What is its primary region?", "read_as": READ_AS, "rule": "pronoun",
               "previous": "Where do we host the API?", "focus": ["primary", "region"]}
    assert reply.follow_up == reading and reply.as_json()["follow_up"] == reading
    # the trace keeps the messages as sent and the reading beside them
    stored = plane.trace(reply.trace_id)
    assert stored.messages[-1]["content"] == "What is its primary region?"
    [normalize] = [e for e in stored.events if e.phase is Phase.GATE_NORMALIZE_MODALITY]
    assert normalize.payload["follow_up"] == reading
    # the router read the reading ("API" is the coding lexicon's; the message alone names no domain), and replay
    # reads the recorded conversation the same way
    assert "coding" in reply.domain_flags
    assert replay_bundles([stored]).traces[0].reproduced
    assert edit_question(stored) == READ_AS  # a user's edit of the answer is checked under the same question
    shown = CliRunner().invoke(main, ["trace", "show", reply.trace_id, "--db", str(tmp_path / "traces.db")])
    assert f'gate_normalize_modality follow-up read as "{READ_AS}" (pronoun)' in shown.output


def test_a_question_of_its_own_and_the_switched_off_reading_search_the_message(scripted_model, core_policy):
    retriever = Recording()
    alone = plane_with(scripted_model, core_policy, retriever).respond(
        [*CONVERSATION[:2], {"role": "user", "content": "Where is the API hosted?"}], retrieve=True)
    off = plane_with(scripted_model, core_policy, retriever, follow_ups=False).respond(CONVERSATION, retrieve=True)
    assert retriever.queries == ["Where is the API hosted?", "What is its primary region?"]
    assert alone.follow_up is None and off.follow_up is None
    assert alone.as_json()["follow_up"] is None


def test_a_follow_up_in_a_session_is_read_with_the_sessions_previous_question(scripted_model, core_policy):
    """With session_id the plane keeps the turns: the app sends only the new message."""
    retriever = Recording()
    plane = plane_with(scripted_model, core_policy, retriever)
    plane.respond("Where do we host the API?", retrieve=True, session_id="s1")
    reply = plane.respond("What is its primary region?", retrieve=True, session_id="s1")
    assert retriever.queries == ["Where do we host the API?", READ_AS]
    assert reply.follow_up["read_as"] == READ_AS
