"""A question that asks several things is searched whole and part by part (controlplane/question_parts.py): the
passage that answers one part need not be among those closest to the whole question."""

from __future__ import annotations

from controlplane import ControlPlane
from controlplane.contracts import EvidenceItem
from controlplane.evidence_pack import content_hash
from controlplane.policy_bundles.loader import parse_bundle
from controlplane.pytest_plugin import GateHarness

HOSTING = "We host on Fly.io."
DATABASE = "The database is Turso."
REGION = "The primary region is ams."


class Handbook:
    """A small real retriever: the documents that share a word with the query, best first; it records each query."""

    name = "handbook"

    def __init__(self):
        self.queries: list[str] = []

    def retrieve(self, query, k):
        self.queries.append(query)
        words = {w.strip("?.,").lower() for w in query.split()}
        found = []
        for number, text in enumerate((DATABASE, HOSTING, REGION)):
            shared = words & {w.strip(".").lower() for w in text.split()} - {"the", "is", "we", "on"}
            if shared:
                found.append(EvidenceItem(id=f"H{number}", type="RETRIEVAL_SNIPPET", text=text,
                                          hash=content_hash(text), retrieval_score=0.5 + len(shared) / 10))
        return sorted(found, key=lambda item: -item.retrieval_score)[:k]


def envelope():
    text = "The database is Turso [E1]."
    return GateHarness.envelope(text, claims=[(text, ["E1"])], domain_flags=["architecture"])


def plane_with(scripted_model, core_policy, retriever, split=True):
    data = core_policy.bundle.model_dump(mode="json", exclude_none=True)
    data["quote"] = {**data.get("quote", {}), "split_questions": split}
    policy = parse_bundle(data, source="tests:split_questions")
    return ControlPlane(model=scripted_model([envelope()] * 3), policy=policy, db=False, retriever=retriever,
                        retrieval_k=1)


def test_each_part_of_a_compound_question_is_searched_too(scripted_model, core_policy):
    handbook = Handbook()
    reply = plane_with(scripted_model, core_policy, handbook).respond(
        "Which database do we use and what is the primary region?", retrieve=True)
    assert handbook.queries == ["Which database do we use and what is the primary region?",
                                "Which database do we use?", "What is the primary region?"]
    # one chunk per search (k=1): the whole question's best is the region; the first part's is the database
    assert [item.text for item in reply.evidence_pack.evidence] == [REGION, DATABASE]


def test_a_part_that_leans_on_the_first_is_searched_with_its_words(scripted_model, core_policy):
    handbook = Handbook()
    plane_with(scripted_model, core_policy, handbook).respond("Which database do we use and where do we host it?",
                                                              retrieve=True)
    assert handbook.queries[1:] == ["Which database do we use?", "Where do we host it database use?"]


def test_one_question_is_searched_once(scripted_model, core_policy):
    handbook = Handbook()
    plane_with(scripted_model, core_policy, handbook).respond("Which database do we use?", retrieve=True)
    assert handbook.queries == ["Which database do we use?"]


def test_the_bundle_can_turn_the_cut_off(scripted_model, core_policy):
    handbook = Handbook()
    reply = plane_with(scripted_model, core_policy, handbook, split=False).respond(
        "Which database do we use and what is the primary region?", retrieve=True)
    assert handbook.queries == ["Which database do we use and what is the primary region?"]
    assert [item.text for item in reply.evidence_pack.evidence] == [REGION]
