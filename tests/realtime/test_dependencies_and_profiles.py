"""Issue 13 item 6, Smart Notes: cross-claim dependency checking (§2.5, the Reynolds-number example) and domain
profiles (§2.3.1: physics, discrete_math, algorithms) at the seed's three validation hooks, through the real pipeline
with the scripted model."""

from __future__ import annotations

import pytest

from controlplane.contracts import Claim, TraceStatus
from controlplane.gates.claim_dependencies import check_dependencies, defines, extract_terms
from controlplane.policy_bundles.loader import PolicyBundleError, load_bundle, parse_bundle
from controlplane.router import route

from .conftest import codes, envelope, gate, policy_with

DEFINES_RE = "The Reynolds number Re = ρvL/μ characterizes flow regime"
USES_RE = "When Re > 4000, turbulence occurs"
REYNOLDS = [{"id": "E1", "text": f"{DEFINES_RE}. {USES_RE}.", "trust_tier": "authoritative"}]
FLOW_QUESTION = "Explain what the lecture notes tell us about flow regimes."  # no domain: dependencies only
PHYSICS_FLOW_QUESTION = "How does the Reynolds number predict turbulence?"  # physics


def mode_for(message: str) -> str:
    return route(message, load_bundle().bundle).modeLabel


def reynolds_envelope(first: str, second: str, message: str) -> dict:
    return envelope([(f"{first} [E1].", ["E1"]), (f"{second} [E1].", ["E1"])], mode=mode_for(message))


# -- §2.5.1 term extraction and definitions ----------------------------------------------------------------------------
def test_terms_are_extracted_as_the_seed_says():
    assert extract_terms(DEFINES_RE) == {"Reynolds", "Re", "ρ", "μ"}
    assert extract_terms(USES_RE) == {"Re"}  # "When" opens the sentence; it is not a concept
    assert extract_terms("Quicksort runs in O(n) extra space with pivot P [E3].") == {"Quicksort", "O(n)", "P"}
    assert defines(DEFINES_RE, "Re") and defines(DEFINES_RE, "Reynolds")
    assert not defines(DEFINES_RE, "ρ") and not defines(USES_RE, "Re")
    assert defines("Velocity, denoted v, is the rate of change of position.", "Velocity")


def test_check_dependencies_warns_only_on_a_forward_reference():
    later = [Claim(claim_id="c1", text=USES_RE, evidence_ids=["E1"]),
             Claim(claim_id="c2", text=DEFINES_RE, evidence_ids=["E1"])]
    (warning,) = check_dependencies(later)
    assert warning.as_dict() == {"claim_id": "c1", "term": "Re", "first_definition_claim_id": "c2",
                                 "severity": "warning"}
    assert check_dependencies(list(reversed(later))) == []


# -- the Reynolds-number example through the pipeline -------------------------------------------------------------------
def test_reynolds_forward_reference_is_warned_in_the_trace_and_the_reply(run):
    result = run(reynolds_envelope(USES_RE, DEFINES_RE, FLOW_QUESTION), FLOW_QUESTION, REYNOLDS)
    deps = gate(result, "claim_dependencies")
    assert deps.result.value == "pass"  # §2.5.3 default: warnings only
    assert deps.details["dependency_warnings"] == [
        {"claim_id": "c1", "term": "Re", "first_definition_claim_id": "c2", "severity": "warning"}]
    assert result.status is TraceStatus.PASS
    warning = 'Claim c1 uses "Re" before claim c2 defines it (cross-claim dependency).'
    assert warning in result.verification_summary()["warnings"]


def test_reynolds_in_definition_order_has_no_warning(run):
    result = run(reynolds_envelope(DEFINES_RE, USES_RE, FLOW_QUESTION), FLOW_QUESTION, REYNOLDS)
    assert gate(result, "claim_dependencies").details["dependency_warnings"] == []
    assert not any("cross-claim" in w for w in result.verification_summary()["warnings"])


def test_strict_setting_downgrades_the_warned_claim_to_low_confidence(run):
    strict = policy_with(gate_params={"claim_dependencies": {"strict_dependencies": True}})
    result = run(reynolds_envelope(USES_RE, DEFINES_RE, FLOW_QUESTION), FLOW_QUESTION, REYNOLDS, policy=strict)
    deps = gate(result, "claim_dependencies")
    assert deps.failed and codes(deps) == ["DEPENDENCY_FORWARD_REFERENCE", "LOW_CONFIDENCE"]
    assert deps.details["downgraded"] == {"c1": {"status": "LOW_CONFIDENCE", "confidence_cap": 0.65,
                                                 "dependency_warning": True}}
    verdicts = {c.claim_id: c for c in result.claims}
    assert verdicts["c1"].verdict == "FAIL" and "DEPENDENCY_FORWARD_REFERENCE" in verdicts["c1"].reason_codes
    assert verdicts["c2"].verdict == "PASS"
    assert USES_RE not in result.assistant_text  # a LOW_CONFIDENCE claim is not shown as verified


def test_the_regen_delta_asks_to_reorder_not_to_restate_the_evidence(run):
    from controlplane.contracts import Phase

    strict = policy_with(gate_params={"claim_dependencies": {"strict_dependencies": True}})
    fixed = reynolds_envelope(DEFINES_RE, USES_RE, FLOW_QUESTION)
    result = run([reynolds_envelope(USES_RE, DEFINES_RE, FLOW_QUESTION), fixed], FLOW_QUESTION, REYNOLDS,
                 policy=strict)
    (regen,) = [e.payload for e in result.events if e.phase is Phase.REGEN]
    assert regen["claim_ids"] == ["c1"]
    assert any("only a later claim defines" in i for i in regen["instructions"])
    assert not any("say more than their cited evidence" in i for i in regen["instructions"])
    assert result.status is TraceStatus.REGEN_PASS  # the reordered answer passes


def test_a_profiles_strict_dependencies_applies_to_requests_of_its_domain(run):
    physics_strict = policy_with(profiles={"physics": {"strict_dependencies": True}})
    assert "physics" in route(PHYSICS_FLOW_QUESTION, physics_strict.bundle).domainFlags
    result = run(reynolds_envelope(USES_RE, DEFINES_RE, PHYSICS_FLOW_QUESTION), PHYSICS_FLOW_QUESTION, REYNOLDS,
                 policy=physics_strict)
    deps = gate(result, "claim_dependencies")
    assert deps.failed and deps.details["strict_because"] == "domain_profiles.physics.strict_dependencies"


# -- domain profiles: each rule at its hook -------------------------------------------------------------------------------
PHYSICS_Q = "Explain the physics of falling objects and momentum."
CASES = {
    # name: (question, claim, evidence text, gate, expected codes on failure or None for a pass)
    "units_missing": (PHYSICS_Q, "The acceleration due to gravity on Earth is 9.8",
                      "The acceleration due to gravity on Earth is 9.8 m/s².", "domain_profile_post_verification",
                      ["MISSING_UNITS"]),
    "units_given": (PHYSICS_Q, "The acceleration due to gravity on Earth is 9.8 m/s²",
                    "The acceleration due to gravity on Earth is 9.8 m/s².", "domain_profile_post_verification", None),
    "claim_type_not_allowed": (PHYSICS_Q, "Sorting a deck of cards takes O(n log n) comparisons",
                               "Sorting a deck of cards takes O(n log n) comparisons.",
                               "domain_profile_pre_verification", ["PROFILE_CLAIM_TYPE_NOT_ALLOWED"]),
    "out_of_scope": (PHYSICS_Q, "Quantum tunnelling lets an electron cross a barrier",
                     "Quantum tunnelling lets an electron cross a barrier.", "domain_profile_pre_verification",
                     ["PROFILE_OUT_OF_SCOPE"]),
    "equation_missing_in_evidence": (PHYSICS_Q, "Kinetic energy is given by KE = ½mv²",
                                     "Kinetic energy is given by one half of the mass times the speed squared.",
                                     "domain_profile_evidence_matching",
                                     ["PROFILE_EVIDENCE_TYPE_MISSING", "MISSING_EQUATION"]),
    "equation_in_evidence": (PHYSICS_Q, "Kinetic energy is given by KE = ½mv²", "Kinetic energy is given by KE = ½mv².",
                             "domain_profile_evidence_matching", None),
    "equation_unparseable": (PHYSICS_Q, "Momentum is given by p = (m v", "Momentum is given by p = (m v.",
                             "domain_profile_post_verification", ["EQUATION_UNPARSEABLE"]),
    "proof_steps_missing": ("State the handshaking theorem of graph theory.",
                            "For any graph G, the sum of all vertex degrees equals twice the number of edges",
                            "For any graph G, the sum of all vertex degrees equals twice the number of edges.",
                            "domain_profile_evidence_matching", ["PROFILE_EVIDENCE_TYPE_MISSING", "MISSING_PROOF_STEPS"]),
    "proof_steps_given": ("State the handshaking theorem of graph theory.",
                          "For any graph G, the sum of all vertex degrees equals twice the number of edges",
                          "Handshaking Lemma: for any graph G, the sum of all vertex degrees equals twice the number of "
                          "edges. Proof: each edge adds 2 to the sum.", "domain_profile_evidence_matching", None),
    "math_numeric_not_allowed": ("Count the bijections in this graph theory exercise.",
                                 "The exercise graph has 6 edges", "The exercise graph has 6 edges.",
                                 "domain_profile_pre_verification", ["PROFILE_CLAIM_TYPE_NOT_ALLOWED"]),
    "pseudocode_missing": ("How does merge sort work?",
                           "Merge sort divides the array into halves, recursively sorts each half, then merges them",
                           "Merge sort divides the array into halves, recursively sorts each half, then merges them.",
                           "domain_profile_evidence_matching", ["MISSING_PSEUDOCODE"]),
    "pseudocode_given": ("How does merge sort work?",
                         "Merge sort divides the array into halves, recursively sorts each half, then merges them",
                         "Merge sort divides the array into halves, recursively sorts each half, then merges them.\n"
                         "procedure merge_sort(A):\n  if length(A) <= 1: return A\n  mid := length(A) / 2\n"
                         "  return merge(merge_sort(A[0..mid]), merge_sort(A[mid..]))",
                         "domain_profile_evidence_matching", None),
    # faithful answers the profiles must not refuse: a definition or a complexity claim about an algorithm needs no
    # pseudocode, and a theorem worded without "theorem" (or with an inequality) is still a math claim
    "algorithm_definition_needs_no_pseudocode": ("How does quicksort work as a sorting algorithm?",
                                                 "Quicksort is a sorting algorithm",
                                                 "Quicksort is a sorting algorithm.",
                                                 "domain_profile_evidence_matching", None),
    "algorithm_definition_allowed": ("How does quicksort work as a sorting algorithm?",
                                     "Quicksort is a sorting algorithm", "Quicksort is a sorting algorithm.",
                                     "domain_profile_pre_verification", None),
    "complexity_needs_no_pseudocode": ("How does binary search work?",
                                       "Binary search finds an item of a sorted array in logarithmic time",
                                       "Binary search finds an item of a sorted array in logarithmic time.",
                                       "domain_profile_evidence_matching", None),
    "math_statement_allowed": ("State the pigeonhole principle of discrete math.",
                               "If n items are put into m containers with n > m, at least one container holds more "
                               "than one item",
                               "If n items are put into m containers with n > m, at least one container holds more "
                               "than one item.", "domain_profile_pre_verification", None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_profile_rule_at_its_hook(run, case):
    question, claim, evidence, gate_id, expected = CASES[case]
    result = run(envelope([(f"{claim} [E1].", ["E1"])], mode=mode_for(question)), question,
                 [{"id": "E1", "text": evidence, "trust_tier": "authoritative"}])
    checked = gate(result, gate_id)
    if expected is None:
        assert checked.result.value == "pass" and not checked.reason_codes, checked.details
        return
    assert checked.failed and sorted(codes(checked)) == sorted(expected), checked.details
    assert checked.details["claims"]["c1"] == codes(checked)
    (verdict,) = result.claims
    assert verdict.verdict == "FAIL" and set(expected) <= set(verdict.reason_codes)
    regen = [e.payload for e in result.events if e.phase.value == "regen"]
    assert regen and "c1" in regen[0]["claim_ids"]  # the delta names the claim and what the domain wants


def test_profiles_do_not_run_outside_their_domains(run):
    question = "Which HTTP library does our Python code use?"
    result = run(envelope([("Our Python code uses httpx [E1].", ["E1"])], mode=mode_for(question)), question,
                 [{"id": "E1", "text": "Our Python code uses httpx.", "trust_tier": "authoritative"}])
    for hook in ("pre_verification", "evidence_matching", "post_verification"):
        assert gate(result, f"domain_profile_{hook}").result.value == "skip"
    assert result.status is TraceStatus.PASS


def test_profile_hooks_run_around_verification_in_bundle_order():
    order = [g.gate_id for g in load_bundle().bundle.gates]
    assert (order.index("domain_profile_pre_verification") < order.index("domain_profile_evidence_matching")
            < order.index("nli_entailment") < order.index("domain_profile_post_verification"))


@pytest.mark.parametrize("change, says", [
    ({"domain_profiles": {"chemistry": {"name": "chemistry"}}}, "'chemistry' is not a domain of this bundle"),
    ({"domain_profiles": {"physics": {"name": "physics", "allowed_claim_types": ["POETRY"]}}}, "unknown claim type"),
    ({"domain_profiles": {"physics": {"name": "physics", "evidence_type_expectations": {"NUMERIC": ["vibes"]}}}},
     "evidence types for NUMERIC"),
])
def test_bad_profiles_are_refused_with_the_field_named(change, says):
    data = load_bundle().bundle.model_dump(mode="json")
    data.update(change)
    with pytest.raises(PolicyBundleError, match=says):
        parse_bundle(data, source="tests:bad-profile")
