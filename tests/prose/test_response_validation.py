"""CFS-020 §8 response validation (issue 14): hallucination indicator phrases are warnings on the claim, and in
high rigor a failure with its own code (HALLUCINATION_PHRASE). The gate is tested alone with the harness, then
through the pipeline in prose mode."""

from __future__ import annotations

import pytest

from controlplane.api import ControlPlane
from controlplane.contracts import ReasonCode, RigorLevel
from controlplane.gates.response_validation import (
    SEED_PHRASES,
    ResponseValidationGate,
    hallucination_phrases,
    phrase_pattern,
)
from controlplane.policy_bundles.loader import load_bundle, parse_bundle

ORION = "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros."
EVIDENCE = [{"id": "E1", "title": "Orion", "text": ORION, "trust_tier": "authoritative"}]


@pytest.mark.parametrize("text", [
    "I recall that the Orion project ships in March.",
    "From my knowledge, Orion ships in 2027.",
    "Generally speaking, projects like Orion ship late.",
    "It's commonly known that Orion ships in March.",
    "It’s commonly known that Orion ships in March.",  # a typographic apostrophe is the same phrase
    "i RECALL that orion ships in march.",
])
def test_each_seed_phrase_is_found(text):
    assert len(hallucination_phrases(text)) == 1


def test_phrases_match_whole_words_only():
    assert hallucination_phrases("Nothing I recall thatched roofs say.") == []
    assert hallucination_phrases("The Orion project ships on 14 March 2027.") == []
    assert set(SEED_PHRASES) == {"I recall that", "From my knowledge", "Generally speaking", "It's commonly known"}


@pytest.mark.parametrize("text", [
    "I recall that it ships. From my knowledge it is late.",
    "Generally speaking, from my knowledge, it's commonly known.",
    "Nothing here.", "", "I recall thatched roofs.", "(I recall that) it ships",
])
def test_one_search_finds_what_each_phrase_finds(text):
    # the combined pre-check must never hide a phrase its own pattern finds, and the order is the listed one
    phrases = (*SEED_PHRASES, "c++ knowledge", "  ", "from MY knowledge")
    each = [p for p in dict.fromkeys(phrases) if p.strip() and phrase_pattern(p).search(text)]
    assert hallucination_phrases(text, phrases) == each
    assert hallucination_phrases(text, ()) == []


def _decision(gate_harness, level: RigorLevel):
    decision = gate_harness.decision("")
    return decision.model_copy(update={"rigorConfig": decision.rigorConfig.model_copy(update={"level": level})})


def _run_gate(gate_harness, text, level, params=None):
    envelope = gate_harness.envelope(text, claims=[(text, ["E1"])])
    return gate_harness.run(ResponseValidationGate(), envelope, evidence=EVIDENCE, mode=_decision(gate_harness, level),
                            params=params or {"fail_at_rigor": "high"})


def test_a_phrase_is_a_warning_below_high_rigor_and_a_failure_at_high(gate_harness):
    text = "From my knowledge, the Orion project ships on 14 March 2027. [E1]"
    low = _run_gate(gate_harness, text, RigorLevel.MEDIUM)
    assert low.outcome == "pass"
    assert low.details["warnings"] and "From my knowledge" in low.details["warnings"][0]
    high = _run_gate(gate_harness, text, RigorLevel.HIGH)
    assert high.outcome == "fail" and high.reason_codes == [ReasonCode.HALLUCINATION_PHRASE]
    assert high.details["claims"] == {"c1": ["HALLUCINATION_PHRASE"]}


def test_the_bundle_adds_its_own_phrases(gate_harness):
    text = "As far as I know, the Orion project ships on 14 March 2027. [E1]"
    assert _run_gate(gate_harness, text, RigorLevel.HIGH).outcome == "pass"
    extra = _run_gate(gate_harness, text, RigorLevel.HIGH, {"fail_at_rigor": "high", "phrases": ["As far as I know"]})
    assert extra.reason_codes == [ReasonCode.HALLUCINATION_PHRASE]
    broken = _run_gate(gate_harness, text, RigorLevel.HIGH, {"phrases": "As far as I know"})
    assert broken.outcome == "fail" and broken.reason_codes == [ReasonCode.PRECONDITION_FAILED]
    shipped = next(g for g in load_bundle().bundle.gates if g.gate_id == "response_validation")
    assert "As far as I know" in shipped.params["phrases"]


TAX = ("The Orion project's tax filing is due on 14 March 2027. Its budget is 2.4 million euros.")


@pytest.mark.parametrize("question, high", [("When does the Orion project ship?", False),
                                            ("When is the Orion tax filing due?", True)])
def test_through_the_pipeline_a_warning_at_low_rigor_a_suppressed_sentence_at_high(write_script, question, high):
    data = load_bundle().bundle.model_dump(mode="json")
    data["envelope"] = "prose"
    evidence = [{"id": "E1", "title": "Orion", "text": TAX if high else ORION, "trust_tier": "authoritative"}]
    copied = ("The Orion project's tax filing is due on 14 March 2027." if high
              else "The Orion project ships on 14 March 2027.")
    sentence = f"Generally speaking, {copied[0].lower()}{copied[1:]}"
    with ControlPlane(model=write_script([sentence] * 3), policy=parse_bundle(data, "t"), db=False, critic=False,
                      load_entry_points=False) as plane:
        reply = plane.respond(question, evidence=evidence)
    assert (reply.mode_decision["rigorConfig"]["level"] == "high") is high
    gates = [g for g in reply.gate_results if g.gate_id == "response_validation"]
    if high:
        assert gates and all("HALLUCINATION_PHRASE" in g.reason_codes for g in gates)
        assert "Generally speaking" not in reply.assistant_text and not reply.verified
    else:
        assert gates and not any(g.failed for g in gates)
        assert any("potential hallucination" in w for w in reply.verification["warnings"])


def test_a_phrase_the_cited_evidence_says_is_a_quote_not_a_memory(gate_harness):
    said = "Generally speaking, the Orion project ships on time."
    evidence = [{"id": "E1", "title": "Orion", "text": said, "trust_tier": "authoritative"}]
    quoted = gate_harness.envelope(f"{said} [E1]", claims=[(said, ["E1"])])
    result = gate_harness.run(ResponseValidationGate(), quoted, evidence=evidence,
                              mode=_decision(gate_harness, RigorLevel.HIGH), params={"fail_at_rigor": "high"})
    assert result.outcome == "pass" and result.details["phrases_found"] == {}
    own = "I recall that the Orion project ships on time."
    added = gate_harness.envelope(f"{own} [E1]", claims=[(own, ["E1"])])
    result = gate_harness.run(ResponseValidationGate(), added, evidence=evidence,
                              mode=_decision(gate_harness, RigorLevel.HIGH), params={"fail_at_rigor": "high"})
    assert result.outcome == "fail" and result.reason_codes == [ReasonCode.HALLUCINATION_PHRASE]


def test_the_substring_prefilter_never_hides_a_phrase_the_search_would_find():
    """hallucination_phrases skips the case-insensitive search for an ASCII text that lacks a literal run of every
    phrase; on random texts built from the phrases' own words, cases and apostrophes, the answer must be the search's."""
    import random

    from controlplane.gates.response_validation import any_phrase_pattern

    phrases = (*SEED_PHRASES, "per my training", "K-9 units")
    words = ["I", "recall", "that", "From", "my", "knowledge", "Generally", "speaking", "It", "s", "commonly", "known",
             "per", "training", "K-9", "units", "Orion", "ships", "RECALL", "thatched", "knowledgeable"]
    joints = [" ", "  ", "\t", "'", "’", "`", "-", ", ", "\n", ""]
    rng = random.Random(7)
    pattern = any_phrase_pattern(phrases)
    found = 0
    for _ in range(3000):
        parts = [rng.choice(words) if rng.random() < 0.8 else  # a whole phrase, its spaces and apostrophe varied
                 rng.choice(phrases).replace(" ", rng.choice([" ", "  ", "\t", "\n"])).replace("'", rng.choice("'’`x"))
                 for _ in range(rng.randint(1, 8))]
        text = "".join(part + rng.choice(joints) for part in parts)
        if rng.random() < 0.2:  # letters that fold to ASCII ones under IGNORECASE, inside the words
            text = text.replace("s", "ſ").replace("k", "K").replace("i", rng.choice("ıİ"))
        if rng.random() < 0.5:
            text = text.lower() if rng.random() < 0.5 else text.upper()
        expected = [p for p in phrases if pattern.search(text) and phrase_pattern(p).search(text)]
        assert hallucination_phrases(text, phrases) == expected, text
        found += bool(expected)
    assert 300 < found < 2700  # both outcomes exercised
