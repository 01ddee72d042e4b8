"""Confidence gaming and claim drift: cases only the NLI / evidence-sufficiency gate (issue 5) can decide.

Written against the policy behaviour, with the shipped default bundle and an NLI backend that is fooled on purpose
(it says every pair is entailed): what must fail here must fail for the credibility, source-count and deterministic
claim checks, not because a model happened to score low. While the gate or its bundle entry is missing these are
strict xfails; the moment both land they run as ordinary tests (an unexpected pass of a strict xfail fails).
"""

from __future__ import annotations

import pytest

from controlplane.gates.interfaces import GateServices
from controlplane.gates.registry import GateRegistry
from controlplane.policy_bundles.loader import load_bundle

NLI_PRESENT = "nli_entailment" in GateRegistry().gates() and any(
    spec.gate_id == "nli_entailment" and spec.enabled for spec in load_bundle().bundle.gates
)
needs_nli = pytest.mark.xfail(
    condition=not NLI_PRESENT, strict=True,
    reason="needs the nli_entailment gate (issue 5) registered and in the default bundle; without it a "
           "high-stakes claim is only checked for binding, so these false negatives are expected",
)

TRIAL = "In a 12-week trial in adults over 65, drug X was associated with a 20% reduction in symptom severity."
DOSE = "The maximum over-the-counter dose of ibuprofen for adults is 1200 mg per day."
QUESTION = "What did the clinical trial of drug X show for symptom severity?"


def two_sources(text: str, tier: str = "authoritative") -> list[dict]:
    return [
        {"id": "E1", "text": text, "trust_tier": tier, "source": "https://registry-a.example/trial"},
        {"id": "E2", "text": text, "trust_tier": tier, "source": "https://journal-b.example/paper"},
    ]


def answer(kit, sentence: str, ids=("E1", "E2")) -> dict:
    return kit.envelope([(sentence[:-1] + " " + "".join(f"[{i}]" for i in ids) + ".", list(ids))])


def verify(kit, sentence: str, evidence: list[dict], message: str = QUESTION):
    services = GateServices(nli_backend=kit.AlwaysEntailsNli())
    return kit.verify(answer(kit, sentence, [e["id"] for e in evidence]), evidence=evidence, message=message,
                      policy=kit.full, services=services)


def nli_codes(kit, result) -> list[str]:
    return kit.failing(result.evaluation.results).get("nli_entailment", [])


def test_control_faithful_claim_with_two_credible_sources_passes(kit):
    result = verify(kit, TRIAL, two_sources(TRIAL))
    assert result.mode_decision.rigorConfig.level.value == "high"
    assert result.status == "pass", kit.failing(result.evaluation.results)


@needs_nli
@pytest.mark.parametrize("tier", ["low", "unreliable"])
def test_confidence_gaming_low_credibility_sources_are_refused(kit, tier):
    result = verify(kit, TRIAL, two_sources(TRIAL, tier))
    assert result.status == "fail"
    assert "LOW_CREDIBILITY" in nli_codes(kit, result)


@needs_nli
def test_confidence_gaming_one_source_where_two_are_required(kit):
    result = verify(kit, TRIAL, two_sources(TRIAL)[:1])
    assert result.status == "fail"
    assert "INSUFFICIENT_SOURCES" in nli_codes(kit, result)


@needs_nli
def test_confidence_gaming_is_refused_through_the_pipeline(kit, store):
    evidence = two_sources(TRIAL, "unreliable")
    result = kit.run([answer(kit, TRIAL)] * 3, message=QUESTION, evidence=evidence, policy=kit.full, store=store,
                     services=GateServices(nli_backend=kit.AlwaysEntailsNli()))
    assert result.status.value == "refused"
    assert not result.verified
    assert "credible source" in result.assistant_text


DRIFT = {
    "numeric": (TRIAL, TRIAL.replace("20%", "40%"), {"NUMBER_MISMATCH"}),
    "unit": (DOSE, DOSE.replace("1200 mg", "1200 g"), {"NUMBER_MISMATCH", "QUALIFIER_DRIFT"}),
    "timeframe": (TRIAL, TRIAL.replace("12-week", "12-month"), {"QUALIFIER_DRIFT", "NUMBER_MISMATCH"}),
    "population": (TRIAL, TRIAL.replace("adults over 65", "children"), {"QUALIFIER_DRIFT", "UNSUPPORTED_CONTENT"}),
    "population-widened": (TRIAL, TRIAL.replace("in adults over 65", "in all adults"), {"QUALIFIER_DRIFT"}),
    "strength": (TRIAL, "Drug X causes a 20% reduction in symptom severity in adults over 65.",
                 {"STRENGTH_INFLATION"}),
    "certainty": (TRIAL, "A 12-week trial proves that drug X reduces symptom severity by 20% in adults over 65.",
                  {"STRENGTH_INFLATION"}),
}


# Cases the deterministic checks are known to miss when the NLI model is fooled (strict xfail, so a fix is noticed).
# The population swap found by this suite ("adults over 65" -> "children") is now caught by check_qualifiers.
KNOWN_MISSES: dict[str, str] = {}


@needs_nli
@pytest.mark.parametrize(
    ("evidence_text", "claim", "expected"),
    [pytest.param(*case, id=key, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[key])]
                  if key in KNOWN_MISSES and NLI_PRESENT else []) for key, case in DRIFT.items()],
)
def test_drift_is_rejected_even_when_the_nli_model_is_fooled(kit, evidence_text, claim, expected):
    result = verify(kit, claim, two_sources(evidence_text))
    assert result.status == "fail"
    codes = set(nli_codes(kit, result))
    assert codes & expected, codes


@needs_nli
def test_a_partial_claim_cannot_carry_an_unchecked_sentence(kit):
    """The claim covers only the harmless start of the sentence; the wrong number sits outside every claim."""
    sentence = "The maximum dose of ibuprofen is 4000 mg per day [E1][E2]."
    env = kit.envelope([(sentence, ["E1", "E2"])])
    env["meta"]["claim_map"][0]["text"] = "The maximum dose of ibuprofen"
    services = GateServices(nli_backend=kit.AlwaysEntailsNli())
    result = kit.verify(env, evidence=two_sources(DOSE), message="What is the maximum dose of ibuprofen?",
                        policy=kit.full, services=services)
    assert result.status == "fail"
    assert "NUMBER_MISMATCH" in nli_codes(kit, result)


@needs_nli
def test_extra_content_beside_a_faithful_claim_is_caught(kit):
    sentence = ("The maximum over-the-counter dose of ibuprofen for adults is 1200 mg per day, and doubling it is "
                "safe [E1][E2].")
    env = kit.envelope([(sentence, ["E1", "E2"])])
    env["meta"]["claim_map"][0]["text"] = DOSE[:-1]
    services = GateServices(nli_backend=kit.AlwaysEntailsNli())
    result = kit.verify(env, evidence=two_sources(DOSE), message="What is the maximum dose of ibuprofen?",
                        policy=kit.full, services=services)
    assert result.status == "fail"
    assert "UNSUPPORTED_CONTENT" in nli_codes(kit, result)
