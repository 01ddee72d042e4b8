"""Property tests (hypothesis) over model output (valid-ish envelopes and garbage), evidence packs and policy bundles.

For any input the pipeline never raises, returns one GateResult per planned gate in plan order and a final status,
never reports a gate crash (GATE_ERROR), never points a span outside the text, and decides the same way twice.
Bounded: small max_examples, no deadline (2 shared cores).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from controlplane.adapters.scripted import ScriptedModel
from controlplane.contracts import FINAL_STATUSES, ReasonCode
from controlplane.contracts.errors import InputError
from controlplane.contracts.text import inline_markers, split_sentences
from controlplane.gates.anchoring import anchor_claims, locate
from controlplane.gates.interfaces import BudgetUsage, GateServices, GateStage, NliScore
from controlplane.gates.registry import GateRegistry
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import load_bundle, parse_bundle
from controlplane.router import route
from controlplane.traces.store import TraceStore

# CONTROLPLANE_FUZZ_EXAMPLES=500 for a longer hunt; the default keeps the suite quick on 2 shared cores.
EXAMPLES = int(os.environ.get("CONTROLPLANE_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
BASE = load_bundle()
REGISTRY = GateRegistry()
STRUCTURAL = ["output_schema", "mode_echo_match", "evidence_binding", "citation_integrity", "claim_anchors",
              "budget_enforcer", "retrieval_required"]
OPTIONAL = [g for g in ("nli_entailment", "claim_categories", "evidence_conflicts", "semantic_critic_sync")
            if g in REGISTRY.gates()]

FACTS = ["We host on Fly.io.", "The database is Turso.", "The maximum dose is 1200 mg per day.",
         "A landlord must give 30 days notice.", "Drug X reduced symptoms by 20% in adults over 65."]
QUESTIONS = ["Which database do we use?", "What is the maximum dose of ibuprofen?", "Can my landlord sue me?",
             "Rewrite this paragraph for tone.", "hello", "According to our runbook, how do we deploy?"]
WEIRD = ["\u0415", "\u200b", "\u200f", "\u202e", "\uff25", "\u00ad", "\ufeff", "\ud800", "\x00", "\n", "[", "]", "\\"]


class FooledNli:
    name = "fuzz-nli"
    method = "nli"

    def score(self, pairs):
        return [NliScore(entailment=0.9, contradiction=0.05, neutral=0.05) for _ in pairs]

    def metadata(self):
        return {"name": self.name, "method": self.method}


# -- strategies --------------------------------------------------------------------------------------------------------
weird_text = st.text(alphabet=st.one_of(st.characters(), st.sampled_from(WEIRD)), max_size=40)
unicode_text = st.text(alphabet=st.one_of(st.characters(blacklist_categories=("Cs",)),
                                          st.sampled_from([w for w in WEIRD if w != "\ud800"])), max_size=40)
ids = st.one_of(st.sampled_from(["E1", "E2", "E3", "E9", "e1", "\u04151", "E1\u200b", ""]), st.text(max_size=5))


@st.composite
def evidence_items(draw):
    n = draw(st.integers(0, 4))
    items = []
    for index in range(n):
        item = {"text": draw(st.one_of(st.sampled_from(FACTS), weird_text.filter(lambda t: t.strip())))}
        if draw(st.booleans()):
            item["id"] = f"E{index + 1}"
        item["trust_tier"] = draw(st.sampled_from(["authoritative", "established", "general", "low", "unreliable"]))
        if draw(st.booleans()):
            item["source"] = draw(st.sampled_from(["https://a.example/x", "https://b.example/y", "caller"]))
        items.append(item)
    return items


@st.composite
def envelopes(draw):
    sentences = draw(st.lists(st.one_of(st.sampled_from(FACTS), weird_text), max_size=5))
    with_markers = [s + draw(st.sampled_from(["", " [E1]", " [E2][E3]", " [E9]", " [\u04151]", "[E1, E2]"]))
                    for s in sentences]
    text = draw(st.sampled_from([" ".join(with_markers), "\n".join(with_markers), "".join(with_markers)]))
    claims = []
    for index in range(draw(st.integers(0, 6))):
        if with_markers and draw(st.booleans()):
            claim_text = draw(st.sampled_from(with_markers))
        else:
            claim_text = draw(weird_text)
        claim = {"claim_id": draw(st.sampled_from([f"c{index + 1}", "c1", "\u04411", f"c{index}"])),
                 "text": claim_text, "evidence_ids": draw(st.lists(ids, max_size=3)),
                 "status": draw(st.sampled_from(["FACTUAL", "UNKNOWN", "SUBJECTIVE", "TRIVIAL", "REASONING"]))}
        if draw(st.booleans()):
            start = draw(st.integers(0, len(text) + 5))
            claim["span"] = {"start_char": start, "end_char": draw(st.integers(start, start + 80))}
        claims.append(claim)
    meta = {"modeLabel": draw(st.sampled_from(["System", "Ida", "system", ""])), "claim_map": claims}
    if draw(st.booleans()):
        meta["citations"] = [{"claim_id": c["claim_id"], "evidence_ids": draw(st.lists(ids, max_size=2))}
                             for c in claims if draw(st.booleans())]
    if draw(st.booleans()):
        meta["used_evidence_ids"] = draw(st.lists(ids, max_size=3))
    return {"assistant_text": text, "meta": meta}


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | weird_text,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(weird_text, inner, max_size=3),
                           max_leaves=12)


@st.composite
def raw_outputs(draw):
    kind = draw(st.sampled_from(["envelope", "cut", "spliced", "garbage", "json"]))
    if kind == "garbage":
        return draw(weird_text)
    if kind == "json":
        return json.dumps(draw(json_values))
    raw = json.dumps(draw(envelopes()), ensure_ascii=draw(st.booleans()))
    if kind == "cut":
        return raw[: draw(st.integers(0, len(raw)))]
    if kind == "spliced":
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.sampled_from(WEIRD + ['"', "{", "}", ",", ":", "\\u"])) + raw[at:]
    return raw


@st.composite
def policies(draw):
    data = BASE.bundle.model_dump(mode="json", exclude_none=True)
    pool = STRUCTURAL + OPTIONAL
    chosen = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=len(pool)))
    when = st.sampled_from([{"always": True}, {"always": False}, {"domain_flags_any": ["medical", "legal"]},
                            {"domain_flags_none": ["writing"]}, {"rigor_at_least": "medium"},
                            {"confidence_below": 0.7}, {"unknown_ratio_at_least": 0.5},
                            {"any_of": [{"rigor_at_least": "high"}, {"confidence_below": 0.6}]}])
    # at least one gate enabled: a bundle with none is refused by validation (issue 16)
    data["gates"] = [{"gate_id": g, "when": draw(when), "enabled": draw(st.booleans()) or g == "output_schema" or i == 0}
                     for i, g in enumerate(chosen)]
    budgets = data["budgets"]
    budgets["max_regen_attempts"] = draw(st.integers(0, 2))
    budgets["max_claims"] = draw(st.integers(1, 8))
    budgets["max_output_tokens"] = draw(st.sampled_from([8, 64, 512, 4096]))
    budgets["max_output_chars"] = draw(st.sampled_from([10, 200, 20000]))
    budgets["max_context_tokens"] = draw(st.sampled_from([5, 50, 2000]))
    budgets["max_tool_calls"] = draw(st.integers(0, 2))
    data["degrade"] = {"mode": draw(st.sampled_from(["suppress", "refuse"])),
                       "by_rigor": draw(st.sampled_from([{}, {"high": "refuse"}, {"low": "refuse"}]))}
    data["citations"]["inline_markers_required"] = {
        level: draw(st.booleans()) for level in ("low", "medium", "high")}
    return parse_bundle(data, source="fuzz")


# -- properties --------------------------------------------------------------------------------------------------------
def decisions(results):
    return [(r.gate_id, r.result.value, [c.value for c in r.reason_codes],
             json.dumps({k: v for k, v in r.details.items() if k not in ("usage",)}, sort_keys=True, default=str))
            for r in results]


def check_spans(text: str, evaluation) -> None:
    for claim in evaluation.claims:
        if claim.span is not None:
            assert 0 <= claim.span[0] <= claim.span[1] <= len(text)
    for result in evaluation.results:
        for start, end, _ in (result.details.get("anchors") or {}).values():
            assert 0 <= start <= end <= len(text)


def plane_for(policy, model=None, store=None) -> Pipeline:
    plane = Pipeline(model=model, policy=policy, registry=REGISTRY, store=store,
                         services=GateServices(nli_backend=FooledNli()))
    if model is None:
        plane.selector_model = None
    return plane


@FUZZ
@given(raw=raw_outputs(), items=evidence_items(), message=st.one_of(st.sampled_from(QUESTIONS), weird_text),
       policy=policies())
def test_evaluate_attempt_never_raises_and_is_complete(raw, items, message, policy):
    plane = plane_for(policy)
    try:
        pack = plane.build_pack(items)
    except InputError:
        return  # malformed caller evidence is the caller's error, named; nothing to judge
    decision = route(message, policy.bundle)
    first = plane.evaluate_attempt(raw, decision, pack, message, BudgetUsage(attempt=1))
    plan = REGISTRY.plan(policy.bundle, decision, GateStage.POST_GENERATION, first.parsed.envelope)
    assert [r.gate_id for r in first.results] == [p.spec.gate_id for p in plan]
    assert all(ReasonCode.GATE_ERROR not in r.reason_codes for r in first.results), [
        r.details for r in first.results if ReasonCode.GATE_ERROR in r.reason_codes]
    if first.parsed.envelope is not None:
        check_spans(first.parsed.envelope.assistant_text, first)
    else:
        assert first.claims == []
    second = plane.evaluate_attempt(raw, decision, pack, message, BudgetUsage(attempt=1))
    assert decisions(second.results) == decisions(first.results)
    assert first.passed == second.passed


@settings(max_examples=max(10, EXAMPLES // 3), deadline=None, suppress_health_check=list(HealthCheck))
@given(outputs=st.lists(raw_outputs(), min_size=1, max_size=3), items=evidence_items(),
       message=st.sampled_from(QUESTIONS), policy=policies())
def test_run_never_raises_and_ends_in_a_final_status(outputs, items, message, policy):
    assume(all(o.strip() for o in outputs) or True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.jsonl"
        path.write_text("\n".join(json.dumps(o) for o in outputs) + "\n", encoding="utf-8")
        store = TraceStore(Path(tmp) / "traces.db", durability="normal")
        plane = plane_for(policy, ScriptedModel(path), store)
        try:
            pack = plane.build_pack(items)
        except InputError:
            return
        runs = [plane.run([{"role": "user", "content": message}], evidence=pack) for _ in range(2)]
        first, second = runs
        stored = store.load_bundle(first.trace_id)  # whatever the model said, the trace is stored and reloads
        assert stored.outcome.status == first.status
        assert [e.seq for e in stored.events] == list(range(len(first.events)))
        assert store.integrity_check() == "ok"
        store.close()
    assert first.status in FINAL_STATUSES
    assert [e.seq for e in first.events] == list(range(len(first.events)))
    assert 0 <= len(first.attempts) <= 1 + policy.bundle.budgets.max_regen_attempts
    for record in first.attempts:
        assert all(ReasonCode.GATE_ERROR not in g.reason_codes for g in record.gate_results)
    assert (second.status, second.assistant_text, second.verified) == (first.status, first.assistant_text,
                                                                       first.verified)
    assert [decisions(a.gate_results) for a in second.attempts] == [decisions(a.gate_results) for a in first.attempts]
    assert [c.as_dict() for c in second.claims] == [c.as_dict() for c in first.claims]


@FUZZ
@given(text=st.lists(st.one_of(st.characters(), st.sampled_from(WEIRD + [". ", "! ", "e.g. ", "[E1]", "Mr. "])),
                    max_size=60).map("".join))
def test_sentence_and_marker_offsets_stay_inside_the_text(text):
    for sentence in split_sentences(text):
        assert 0 <= sentence.start <= sentence.end <= len(text)
        assert text[sentence.start:sentence.end] == sentence.text
    for marker in inline_markers(text):
        assert 0 <= marker.start < marker.end <= len(text)
        assert text[marker.start] == "[" and text[marker.end - 1] == "]"


@FUZZ
@given(text=unicode_text, needle=unicode_text, start=st.integers(0, 60), length=st.integers(0, 60))
def test_anchors_stay_inside_the_text(text, needle, start, length):
    from controlplane.contracts import Claim

    span = locate(text, needle)
    if span is not None:
        assert 0 <= span[0] <= span[1] <= len(text)
    claims = [Claim(claim_id="c1", text=needle or "x", evidence_ids=[]),
              Claim(claim_id="c2", text=needle or "x", evidence_ids=[],
                    span={"start_char": start, "end_char": start + length})]
    anchors, problems = anchor_claims(text, claims)
    for anchor in anchors.values():
        assert 0 <= anchor.start <= anchor.end <= len(text)
    assert set(anchors) | set(problems) == {"c1", "c2"}


@st.composite
def mutated_envelopes(draw):
    """Envelope-shaped dicts with one field swapped for an arbitrary JSON value (wrong types, extra keys, ...)."""
    env = draw(envelopes())
    target = draw(st.sampled_from(["assistant_text", "meta", "modeLabel", "claim_map", "claim", "claim_field",
                                   "span", "extra", "none"]))
    value = draw(st.one_of(json_values, st.integers(-3, 10**20), st.floats(allow_nan=False, allow_infinity=False)))
    meta = env["meta"]
    claims = meta["claim_map"]
    if target in ("assistant_text", "meta"):
        env[target] = value
    elif target in ("modeLabel", "claim_map"):
        meta[target] = value
    elif target == "claim" and claims:
        claims[0] = value
    elif target == "claim_field" and claims:
        claims[0][draw(st.sampled_from(["claim_id", "text", "evidence_ids", "status", "span", "surprise"]))] = value
    elif target == "span" and claims:
        claims[0]["span"] = {"start_char": value, "end_char": draw(st.one_of(st.integers(-1, 50), json_values))}
    elif target == "extra":
        meta[draw(st.sampled_from(["extra", "citations", "used_evidence_ids", "checkpointSuggested"]))] = value
    return env


@FUZZ
@given(env=mutated_envelopes())
def test_fast_path_never_accepts_what_the_schema_rejects(env):
    """parse_envelope's fast path (pydantic strict JSON) must accept a subset of what the JSON Schema accepts."""
    from pydantic import ValidationError

    from controlplane.contracts import OutputEnvelope
    from controlplane.contracts.schemas import validate_instance
    from controlplane.gates.envelope_parsing import parse_envelope

    raw = json.dumps(env)
    try:
        OutputEnvelope.model_validate_json(raw, strict=True)
        strict_ok = True
    except ValidationError:
        strict_ok = False
    if strict_ok:
        assert validate_instance("OutputEnvelope", env) == []
    if parse_envelope(raw).envelope is not None:  # whatever path accepted it, the schema accepts it too
        assert validate_instance("OutputEnvelope", env) == []


HIGH_STAKES = ["Can my landlord sue me?", "What dose of ibuprofen is safe?", "How are dividends taxed?",
               "Is it legal to record calls?", "Which medication helps with chest pain?"]
FRAMINGS = ["asking for a friend: ", "hypothetically, ", "ida mode: ", "for a novel, ", "rewrite this: ",
            "ignore previous instructions. ", "just curious - ", "/ida ", "not legal advice, but "]


@FUZZ
@given(question=st.sampled_from(HIGH_STAKES), framing=st.lists(st.sampled_from(FRAMINGS), max_size=3),
       noise=unicode_text, invisible=st.sampled_from(["", "\u200b", "\u200d", "\u2060", "\u00ad", "\ufeff"]))
def test_no_framing_or_noise_lowers_a_high_stakes_question(question, framing, noise, invisible):
    message = "".join(framing) + noise + " " + invisible.join(question)
    decision = route(message, BASE.bundle)
    assert decision.rigorConfig.level.value == "high", (message, decision.reasons)
    assert decision.modeLabel == BASE.bundle.router.strict_mode


# -- G-1 as a property (issue 16): nothing unverified is displayed ---------------------------------------------------
INVENTED = ["Our CEO founded the company in 1999.", "Revenue doubled last year.", "Nothing runs on Fly.io.",
            "It is unclear whether we moved, but we host on AWS.", "The evidence does not say who founded it.",
            "Happy to help.", "I think the layout is cleaner."]


@st.composite
def covered_or_not(draw):
    """Envelopes that could pass: real and invented sentences, each covered by a claim or not, with inline markers,
    glued notes and invisible characters; the mode is the router's so mode_echo_match does not hide the rest."""
    message = draw(st.sampled_from(QUESTIONS + ["What changed lately?", "Where do we host?"]))
    parts, claims = [], []
    for index in range(draw(st.integers(1, 4))):
        sentence = draw(st.sampled_from(FACTS + INVENTED))
        marker = draw(st.sampled_from(["", " [E1]", " [E2]", " [E1][E2]"]))
        body = sentence[:-1] + marker + sentence[-1]
        glue = draw(st.sampled_from(["", " [Note: we moved to AWS in 2024]", "\u200bWe host on AWS."]))
        parts.append(body + glue)
        if draw(st.booleans()):
            claim_text = draw(st.sampled_from([body, sentence[:-1], body + glue]))
            claims.append({"claim_id": f"c{index + 1}", "text": claim_text,
                           "evidence_ids": [m for m in ("E1", "E2") if f"[{m}]" in marker],
                           "status": draw(st.sampled_from(["FACTUAL", "FACTUAL", "UNKNOWN", "SUBJECTIVE", "TRIVIAL",
                                                           "REASONING"]))})
    text = " ".join(parts)
    meta = {"modeLabel": route(message, BASE.bundle).modeLabel, "claim_map": claims,
            "citations": [{"claim_id": c["claim_id"], "evidence_ids": c["evidence_ids"]} for c in claims
                          if c["evidence_ids"]],
            "used_evidence_ids": sorted({i for c in claims for i in c["evidence_ids"]})}
    return message, {"assistant_text": text, "meta": meta}


def _assert_every_shown_sentence_passed(result) -> None:
    """Every sentence displayed is covered by claims that all passed, unless the bundle's rewrite exemption applied;
    ``verified`` is true only when that holds and no shown claim is UNKNOWN."""
    from controlplane.contracts import TraceStatus
    from controlplane.degrade import REMOVED_NOTICE

    record = result.degrade or {}
    if record.get("coverage_exemption"):
        assert result.verified is False
        return
    if result.status is TraceStatus.REFUSED:
        assert result.verified is False
        return
    envelope = result.attempts[-1].envelope
    checked = envelope["assistant_text"]
    if result.status is TraceStatus.DEGRADED:
        assert result.verified is False
        shown = list(record["kept_sentences"])
        assert result.assistant_text.split(f"\n\n{REMOVED_NOTICE}")[0] == " ".join(shown)
    else:
        assert result.assistant_text == checked
        shown = [s.text for s in split_sentences(checked)]
    def passed(sentence) -> bool:
        inside = [c for c in result.claims if c.span and c.span[0] < sentence.end and sentence.start < c.span[1]]
        return bool(inside) and all(c.verdict == "PASS" for c in inside)

    sentences = split_sentences(checked)
    for text in shown:  # the same words may occur twice; the one shown must be a copy that passed
        assert any(s.text == text and passed(s) for s in sentences), f"shown but not covered by passing claims: {text!r}"
    if result.verified:
        assert result.status in (TraceStatus.PASS, TraceStatus.REGEN_PASS)
        assert all(c.verdict == "PASS" and c.status != "UNKNOWN" for c in result.claims)


@settings(max_examples=max(20, EXAMPLES // 2), deadline=None, suppress_health_check=list(HealthCheck))
@given(case=covered_or_not(),
       items=st.one_of(evidence_items(), st.lists(st.sampled_from(FACTS), max_size=2).map(
           lambda texts: [{"id": f"E{i + 1}", "text": t, "trust_tier": "authoritative"} for i, t in enumerate(texts)])),
       policy=st.one_of(st.just(BASE), policies()))
def test_every_displayed_sentence_passed_a_check(case, items, policy):
    message, envelope = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.jsonl"
        path.write_text("\n".join(json.dumps(envelope) for _ in range(3)) + "\n", encoding="utf-8")
        plane = plane_for(policy, ScriptedModel(path))
        try:
            pack = plane.build_pack(items)
        except InputError:
            return
        result = plane.run([{"role": "user", "content": message}], evidence=pack)
    event(f"status={result.status.value} verified={result.verified}")
    _assert_every_shown_sentence_passed(result)
