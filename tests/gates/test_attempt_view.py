"""Derive once (issue 12 item 2): one AttemptView per attempt, read by every gate, the verdicts and degrade; each
distinct NLI pair scored once per attempt; the gate lattice planned once per request; degrade records where the
kept sentences are, so the API and the server never search the text for them."""

from __future__ import annotations

from controlplane.contracts import GateResult, OutputEnvelope, TraceStatus
from controlplane.gates.attempt import AttemptView
from controlplane.gates.interfaces import BaseGate, GateInput, GateServices, GateStage
from controlplane.gates.registry import GateRegistry
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import parse_bundle
from controlplane.router import route
from tests.gates.decision_helpers import envelope
from tests.gates.nli_backends import OverlapNliBackend

QUESTION = "How is our hosting architecture set up?"
HOSTING = {"id": "E1", "text": "We host on Fly.io. The database is Turso.", "trust_tier": "authoritative"}
RATE = {"id": "E2", "text": "The public API allows 100 requests per minute per key.", "trust_tier": "authoritative"}
# not cited, about the same subject: evidence_conflicts asks the backend about it
OTHER = {"id": "E3", "text": "The public API allows 100 requests per minute per key for partners.",
         "trust_tier": "general"}
GOOD = envelope([("We host on Fly.io [E1].", ["E1"]),
                 ("The public API allows 100 requests per minute per key [E2].", ["E2"])])


class RecordingNli(OverlapNliBackend):
    """A real (overlap) NLI backend that keeps every pair it was asked to score."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, str]] = []

    def score(self, pairs):
        self.asked.extend(pairs)
        return super().score(pairs)


class ViewProbe(BaseGate):
    """Passes, and keeps the attempt view it was handed."""

    stage = GateStage.POST_GENERATION

    def __init__(self, gate_id: str) -> None:
        self.gate_id = gate_id
        self.views: list[AttemptView] = []

    def evaluate(self, inp: GateInput) -> GateResult:
        self.views.append(inp.view)
        return self.passing()


class CountingRegistry(GateRegistry):
    def __init__(self) -> None:
        super().__init__(load_entry_points=False)
        self.plans = 0

    def plan(self, *args, **kwargs):
        self.plans += 1
        return super().plan(*args, **kwargs)


def with_gates(policy, *extra: str):
    data = policy.bundle.model_dump(mode="json", exclude_none=True)
    data["gates"] += [{"gate_id": gate_id, "when": {"always": True}} for gate_id in extra]
    return parse_bundle(data, source="tests:view-probes")


def test_every_gate_verdicts_and_degrade_read_one_view_per_attempt(write_script, shipped_policy):
    first, second = ViewProbe("probe_a"), ViewProbe("probe_b")
    registry = GateRegistry(load_entry_points=False)
    registry.register_gate(first)
    registry.register_gate(second)
    wrong = envelope([("We host on Fly.io [E9].", ["E9"])])  # fails: a regen, so two attempts
    plane = Pipeline(model=write_script([wrong, GOOD]), policy=with_gates(shipped_policy, "probe_a", "probe_b"),
                     registry=registry, services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert len(result.attempts) == 2
    assert [id(v) for v in first.views] == [id(v) for v in second.views]  # the same object for both gates ...
    assert first.views[0] is not first.views[1]  # ... and a new one for each attempt
    assert [v.text for v in first.views] == [OutputEnvelope.model_validate(e).assistant_text for e in (wrong, GOOD)]


def test_a_pair_is_scored_once_per_attempt_by_all_gates_together(write_script, shipped_policy):
    backend = RecordingNli()
    plane = Pipeline(model=write_script([GOOD]), policy=shipped_policy,
                     services=GateServices(nli_backend=backend))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE, OTHER])
    gates = {g.gate_id: g for g in result.attempts[0].gate_results}
    assert gates["nli_entailment"].passed and gates["evidence_conflicts"].result.value != "skipped"
    assert backend.asked, "the NLI gates asked for no score"
    assert len(backend.asked) == len(set(backend.asked))  # no pair twice, though two gates read the claims' scores
    assert any(premise == OTHER["text"] for premise, _ in backend.asked)  # evidence_conflicts' own pairs are there


def test_the_view_scores_each_distinct_pair_once_and_keeps_nothing_of_a_failed_call():
    view = AttemptView(OutputEnvelope.model_validate(GOOD))
    backend = RecordingNli()
    pairs = [("premise one", "claim"), ("premise two", "claim"), ("premise one", "claim")]
    first = view.scores(backend, pairs)
    again = view.scores(backend, [("premise two", "claim")])
    assert backend.asked == [("premise one", "claim"), ("premise two", "claim")]
    assert first[0] == first[2] and again == [first[1]]

    class Short(OverlapNliBackend):
        def score(self, pairs):
            return super().score(pairs)[:-1]

    short = Short()
    try:
        view.scores(short, [("a", "b"), ("c", "d")])
    except ValueError as exc:
        assert "returned 1 scores for 2 pairs" in str(exc)
    else:
        raise AssertionError("a backend that answers too few scores must raise")
    assert all(key[0] != id(short) for key in view._scores)


def test_the_gate_lattice_is_planned_once_per_request(write_script, shipped_policy):
    registry = CountingRegistry()
    wrong = envelope([("We host on Fly.io [E9].", ["E9"])])
    plane = Pipeline(model=write_script([wrong, wrong, GOOD]), policy=shipped_policy, registry=registry,
                     services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert len(result.attempts) == 3
    assert registry.plans == 1


def test_a_stage_of_the_lattice_is_what_plan_gives_for_that_stage(shipped_policy):
    """Envelope conditions (citation density, unknown ratio) are decided again on each attempt's envelope."""
    registry = GateRegistry(load_entry_points=False)
    data = shipped_policy.bundle.model_dump(mode="json", exclude_none=True)
    for spec in data["gates"]:
        if spec["gate_id"] == "claim_categories":
            spec["when"] = {"any_of": [{"citation_density_below": 0.9}, {"unknown_ratio_at_least": 0.5}]}
    policy = parse_bundle(data, source="tests:envelope-conditions").bundle
    thin = OutputEnvelope.model_validate(envelope([("We host on Fly.io.", [])], text="We host on Fly.io. Also more."))
    for message in (QUESTION, "What changed lately?", "LLC liability law?"):
        decision = route(message, policy)
        lattice = registry.plan(policy, decision, message=message)
        for env in (None, thin, OutputEnvelope.model_validate(GOOD)):
            for stage in GateStage:
                expected = registry.plan(policy, decision, stage, env if stage is GateStage.POST_GENERATION else None,
                                         message)
                got = registry.stage_plan(lattice, stage, decision, env, message, AttemptView(env))
                assert [p.as_dict() for p in got] == [p.as_dict() for p in expected]


def test_degrade_records_where_the_kept_sentences_were_and_are(write_script, default_policy, make_envelope):
    mixed = make_envelope([("We host on Fly.io [E1].", ["E1"]), ("We use Postgres [E9].", ["E9"]),
                           ("The public API allows 100 requests per minute per key [E2].", ["E2"])])
    plane = Pipeline(model=write_script([mixed] * 3), policy=default_policy)
    result = plane.run("Where is our hosting architecture?", evidence=[HOSTING, RATE])
    assert result.status is TraceStatus.DEGRADED
    checked = result.attempts[-1].envelope["assistant_text"]
    spans = result.degrade["kept_spans"]
    assert len(spans) == len(result.degrade["kept_sentences"]) == 2
    for span, kept in zip(spans, result.degrade["kept_sentences"], strict=True):
        assert checked[span["start"]:span["end"]] == kept
        assert result.assistant_text[span["shown_start"]:span["shown_start"] + len(kept)] == kept


def test_spans_by_sentence_finds_what_comparing_every_pair_finds():
    """The binary search that places claim spans in sentences (verdicts, claim_anchors, nli_entailment) against the
    plain comparison of every (sentence, span) pair: random texts, spans that straddle, touch, nest or are empty,
    and sentences out of order or overlapping (which take the plain path)."""
    import random
    from itertools import pairwise

    from controlplane.contracts.text import Sentence
    from controlplane.gates.anchoring import spans_by_sentence

    rng = random.Random(5)
    searched = 0
    for _ in range(2000):
        cuts = sorted(rng.sample(range(120), rng.randint(2, 12)))
        sentences = [(i, Sentence(a, b, "x" * (b - a))) for i, (a, b) in enumerate(pairwise(cuts))
                     if rng.random() < 0.8]
        if rng.random() < 0.2:  # out of order or overlapping: compared pair by pair
            rng.shuffle(sentences)
            sentences.append((99, Sentence(5, 60, "y" * 55)))
        else:
            searched += 1
        spans = []
        for _ in range(rng.randint(0, 10)):
            a = rng.randint(0, 125)
            spans.append(None if rng.random() < 0.1 else (a, a + rng.randint(0, 40)))
        expected = {index: [p for p, span in enumerate(spans) if span and span[0] < s.end and s.start < span[1]]
                    for index, s in sentences}
        assert spans_by_sentence(sentences, spans) == expected
    assert searched > 1000



def test_markers_within_finds_what_comparing_every_marker_finds():
    """The binary search that citation_integrity uses to find the markers inside a claim's anchor, against checking
    every marker: random texts with single and grouped markers ([E1, E2]), anchors that start or end inside a
    group, hold none, or cover the whole text."""
    import random

    rng = random.Random(11)
    for _ in range(500):
        parts = []
        for _ in range(rng.randint(0, 8)):
            parts.append("word " * rng.randint(0, 3))
            ids = [f"E{rng.randint(1, 9)}" for _ in range(rng.randint(1, 3))]
            parts.append(f"[{', '.join(ids)}]" if rng.random() < 0.5 else "".join(f"[{i}]" for i in ids))
        text = "".join(parts) + "end."
        view = AttemptView(OutputEnvelope.model_validate(
            {"assistant_text": text, "meta": {"modeLabel": "Ida", "domainFlags": [], "claim_map": [],
                                              "citations": [], "used_evidence_ids": []}}))
        for _ in range(10):
            start = rng.randint(0, len(text))
            end = rng.randint(start, len(text))
            expected = [m for m in view.markers if start <= m.start and m.end <= end]
            assert list(view.markers_within(start, end)) == expected


NUMBERED = envelope([("We host on Fly.io [E1].", ["E1"]),
                     ("The public API allows 100 requests per minute per key [E2].", ["E2"])],
                    text="1. We host on Fly.io [E1].\n2. The public API allows 100 requests per minute per key [E2].")


def test_the_number_of_an_ordered_list_item_is_no_sentence_to_verify():
    # found by answering in a numbered list: "1." and "2." were sentences no claim covered, so a faithful answer
    # was degraded to its bare sentences
    view = AttemptView(OutputEnvelope.model_validate(NUMBERED))
    assert [s.text for _, s in view.content_sentences] == [
        "We host on Fly.io [E1].", "The public API allows 100 requests per minute per key [E2]."]
    inline = AttemptView(OutputEnvelope.model_validate(envelope([("It costs 2. [E1]", ["E1"])],
                                                                text="Items: 2. It costs 2. [E1]")))
    assert [s.text for _, s in inline.content_sentences] == ["Items: 2.", "It costs 2. [E1]"]  # not at a line start


def test_an_answer_in_a_numbered_list_is_verified_as_written(write_script, shipped_policy):
    plane = Pipeline(model=write_script([NUMBERED]), policy=shipped_policy,
                     services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert result.status is TraceStatus.PASS and result.verified
    assert result.assistant_text == OutputEnvelope.model_validate(NUMBERED).assistant_text


def test_an_invented_item_of_a_numbered_list_is_still_uncovered(write_script, shipped_policy):
    invented = dict(NUMBERED, assistant_text=NUMBERED["assistant_text"] + "\n3. The board cancelled the API.")
    plane = Pipeline(model=write_script([invented] * 3), policy=shipped_policy,
                     services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert result.status is not TraceStatus.PASS and not result.verified
    assert "cancelled" not in result.assistant_text


BOLD_LABELS = envelope([("Hosting: we host on Fly.io [E1].", ["E1"]),
                        ("API: the public API allows 100 requests per minute per key [E2].", ["E2"])],
                       text="- **Hosting:** we host on Fly.io [E1].\n"
                            "- **API**: the public API allows `100 requests per minute` per key [E2].")


def test_a_claim_is_found_in_text_that_sets_its_words_in_bold_or_as_code():
    # found by answering as chat models lay out answers (bold labels, code spans): the claim map writes the words
    # without the markdown, so no claim was found in the text and the answer was refused (CLAIM_NOT_IN_TEXT)
    view = AttemptView(OutputEnvelope.model_validate(BOLD_LABELS))
    assert view.anchor_problems == {}
    text = BOLD_LABELS["assistant_text"]
    assert [text[a.start:a.end] for a in view.anchors.values()] == [
        "**Hosting:** we host on Fly.io [E1].",
        "**API**: the public API allows `100 requests per minute` per key [E2]."]


def test_an_answer_with_bold_labels_is_verified_as_written(write_script, shipped_policy):
    plane = Pipeline(model=write_script([BOLD_LABELS]), policy=shipped_policy,
                     services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(QUESTION, evidence=[HOSTING, RATE])
    assert result.status is TraceStatus.PASS and result.verified
    assert result.assistant_text == BOLD_LABELS["assistant_text"]


def test_markdown_lets_no_other_words_into_a_claim():
    # the markers are all that may stand between the claim's characters: a word is still a word
    other = envelope([("Hosting: we host on Fly.io [E1].", ["E1"])], text="- **Hosting:** we never host on Fly.io [E1].")
    assert AttemptView(OutputEnvelope.model_validate(other)).anchor_problems == {"c1": "CLAIM_NOT_IN_TEXT"}
