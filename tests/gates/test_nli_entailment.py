"""nli_entailment: per-claim NLI over atomic claims with deterministic vetoes, per-sentence PASS/FAIL, fail-closed
cases, and end to end through Pipeline.run with the scripted model (an unsupported number is suppressed or
refused, with why and what evidence would fix it).

Backends: OverlapNliBackend / TableNliBackend (tests/gates/nli_backends.py, real NliBackend implementations); the
shipped verifier when its weights exist (controlplane/nli/verifier/config.json), else that test is skipped.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from controlplane.contracts import TraceStatus
from controlplane.gates.interfaces import GateServices, NliScore
from controlplane.gates.nli_entailment import NliEntailmentGate
from controlplane.gates.registry import GateRegistry
from controlplane.pipeline import Pipeline
from controlplane.services import LazyNliBackend, build_services
from tests.gates.decision_helpers import POLICY, codes, envelope, gate_input
from tests.gates.nli_backends import OverlapNliBackend, SimilarityOnlyBackend, TableNliBackend

ARCH_Q = "How is our hosting architecture set up?"
HIGH_Q = "LLC liability law?"
E_HOST = {"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite).", "trust_tier": "authoritative"}
E_RATE = {"id": "E2", "text": "The public API allows 100 requests per minute per key.", "trust_tier": "authoritative"}


def run_gate(question, evidence, env, backend=None, **params):
    return NliEntailmentGate().evaluate(gate_input("nli_entailment", question, evidence, env, backend, params=params))


class RecordingBackend(OverlapNliBackend):
    def __init__(self):
        super().__init__()
        self.seen: list[tuple[str, str]] = []

    def score(self, pairs):
        self.seen.extend(pairs)
        return super().score(pairs)


class BrokenBackend(OverlapNliBackend):
    name = "broken"

    def score(self, pairs):
        raise RuntimeError("CUDA out of memory")


class ShortBackend(OverlapNliBackend):
    def score(self, pairs):
        return super().score(pairs)[:-1]


# ---------------------------------------------------------------------------------------------------------------
# registration and policy
def test_registry_loads_the_decision_gates_and_the_bundle_orders_them():
    gates = GateRegistry(load_entry_points=False).gates()
    assert {"nli_entailment", "claim_categories", "evidence_conflicts"} <= set(gates)
    assert gates["nli_entailment"].cost_class.value == "expensive"
    order = [g.gate_id for g in POLICY.gates]
    assert order.index("claim_anchors") < order.index("nli_entailment") < order.index("budget_enforcer")
    spec = next(g for g in POLICY.gates if g.gate_id == "nli_entailment")
    assert spec.when.domain_flags_none == ["writing"] and spec.params["backend"] == "shipped"


# ---------------------------------------------------------------------------------------------------------------
# pass / veto
def test_supported_claims_pass_with_records_and_sentences():
    env = envelope([("We host on Fly.io [E1].", ["E1"]), ("The public API allows 100 requests per minute per key [E2].",
                                                         ["E2"])])
    result = run_gate(ARCH_Q, [E_HOST, E_RATE], env, OverlapNliBackend())
    assert result.passed, result.details
    record = result.details["claim_records"]["c2"]
    assert record["decision"] == "VERIFIED" and record["sources"] == 1 and record["checks"] == []
    assert [s["verdict"] for s in result.details["sentences"]] == ["PASS", "PASS"]
    assert result.details["confidence"]["response_confidence"] == min(result.details["confidence"]["claims"].values())


@pytest.mark.parametrize(
    ("claim", "code"),
    [
        ("The public API allows 500 requests per minute per key [E2].", "NUMBER_MISMATCH"),
        ("The public API does not allow 100 requests per minute per key [E2].", "NEGATION_MISMATCH"),
        ("The public API allows 100 requests per minute per key for all users [E2].", "QUALIFIER_DRIFT"),
    ],
)
def test_deterministic_checks_veto_even_a_confident_nli_entailment(claim, code):
    backend = TableNliBackend({E_RATE["text"]: (0.99, 0.0)})  # the NLI says "entailed"; the checks overrule it
    result = run_gate(ARCH_Q, [E_RATE], envelope([(claim, ["E2"])]), backend)
    assert result.failed and code in result.details["claims"]["c1"], result.details["claim_records"]["c1"]["checks"]
    record = result.details["claim_records"]["c1"]
    assert record["decision"] == "REJECTED" and record["confidence_factors"]["reasoning_validity"] == 0.1


@pytest.mark.parametrize(("scores", "fails"), [((0.18, 0.58), True), ((0.6, 0.7), True), ((0.9, 0.05), False),
                                              ((0.4, 0.3), False)])
def test_a_swapped_term_fails_only_where_the_verifier_leans_contradicted(scores, fails):
    # a swap can be a synonym the verifier is unsure of ("Pretend play" for "Make-believe play": 0.53), so only a
    # lean to contradiction fails it
    # "We host on aws" copies E1's sentence but for its host: the medium threshold alone passed it (0.18 >= 0.13)
    backend = TableNliBackend({E_HOST["text"]: scores})
    result = run_gate(ARCH_Q, [E_HOST], envelope([("We host on aws [E1].", ["E1"])]), backend)
    checks = result.details["claim_records"]["c1"]["checks"]
    assert result.failed is fails
    assert [c["check"] for c in checks if c["check"] == "swap"] == (["swap"] if fails else [])
    if fails:
        assert "UNSUPPORTED_CONTENT" in result.details["claims"]["c1"] and "'aws'" in checks[-1]["detail"]
        assert "in place of 'Fly io'" in checks[-1]["detail"]


@pytest.mark.parametrize(("entailment", "fails"), [(0.3, True), (0.56, True), (0.6, False)])
def test_an_added_detail_passes_only_when_entailed_with_high_rigor_confidence(entailment, fails):
    backend = TableNliBackend({E_HOST["text"]: (entailment, 0.1)})
    result = run_gate(ARCH_Q, [E_HOST], envelope([("We host on Fly.io for compliance reasons [E1].", ["E1"])]),
                      backend)
    checks = [c for c in result.details["claim_records"]["c1"]["checks"] if c["check"] == "addition"]
    assert result.failed is fails and len(checks) == int(fails)
    if fails:
        assert "'for compliance reasons'" in checks[0]["detail"]
    # the bar is the gate's param
    lowered = run_gate(ARCH_Q, [E_HOST], envelope([("We host on Fly.io for compliance reasons [E1].", ["E1"])]),
                       backend, near_copy_min_entailment=0.2)
    assert not lowered.failed


WEBHOOKS = {"id": "E1", "trust_tier": "authoritative",
            "text": "Webhook deliveries are retried on any non-2xx answer or a timeout of 10 seconds, with exponential "
                    "backoff: 5 attempts over about 24 hours. After the fifth failure the endpoint is marked failing "
                    "and the account owner is notified."}


@pytest.mark.parametrize(("scores", "fails"), [((0.16, 0.59), True), ((0.23, 0.55), True), ((0.4, 0.5), False),
                                               ((0.7, 0.2), False)])
def test_a_reworded_copy_fails_where_the_verifier_leans_contradicted_beyond_the_margin(scores, fails):
    """Shown verified over the example corpus (2026-12-06): "Webhook deliveries are retried with linear backoff." and
    "After the fifth failure the endpoint is deleted.", each its sentence with words left out and one word the
    evidence never uses, which the verifier read as contradicted (0.59 and 0.55 against 0.16 and 0.23) while the
    medium bar passed them. Too far from the sentence for a swap; a lean to contradiction beyond the margin fails it,
    a smaller one does not ("Shapour Bakhtiar died in 1991." over "... was assassinated in 1991")."""
    backend = TableNliBackend({WEBHOOKS["text"]: scores})
    result = run_gate(ARCH_Q, [WEBHOOKS], envelope([("Webhook deliveries are retried with linear backoff [E1].",
                                                     ["E1"])]), backend)
    checks = [c for c in result.details["claim_records"]["c1"]["checks"] if c["check"] == "reworded"]
    assert result.failed is fails and len(checks) == int(fails)
    if fails:
        assert "'linear'" in checks[0]["detail"] and "'exponential'" in checks[0]["detail"]


@pytest.mark.parametrize(("scores", "fails"), [((0.25, 0.56), True), ((0.13, 0.5), True), ((0.4, 0.5), False),
                                               ((0.2, 0.45), False), ((0.7, 0.2), False)])
def test_a_claim_the_verifier_leans_contradicted_on_beyond_the_margin_fails(scores, fails):
    """Shown verified over the example corpus (a sixth round): "After the fifth failed delivery, the endpoint is
    deleted." over "... After the fifth failure the endpoint is marked failing ...", no near copy of its sentence,
    which the verifier read as contradicted (0.56 against 0.25 entailed) while the low and medium bar (0.13) passed
    it. A claim whose contradiction exceeds its entailment by more than CONTRADICTION_MARGIN fails as
    HIGH_CONTRADICTION, under the bundle's max_contradiction too; a smaller lean does not."""
    backend = TableNliBackend({WEBHOOKS["text"]: scores})
    result = run_gate(ARCH_Q, [WEBHOOKS], envelope([("After the fifth failed delivery, the account owner gets an "
                                                     "e-mail [E1].", ["E1"])]), backend)
    record = result.details["claim_records"]["c1"]
    assert result.failed is fails, record
    assert ("HIGH_CONTRADICTION" in record["reason_codes"]) is fails
    # the bundle's gate params set the margin
    lowered = run_gate(ARCH_Q, [WEBHOOKS], envelope([("After the fifth failed delivery, the account owner gets an "
                                                      "e-mail [E1].", ["E1"])]), backend, contradiction_margin=1.0)
    assert "HIGH_CONTRADICTION" not in lowered.details["claim_records"]["c1"]["reason_codes"]


class SentenceTableBackend(TableNliBackend):
    """Scores by the exact premise: the whole evidence and each sentence alone can differ (the splice rule's case)."""

    def score(self, pairs):
        out = []
        for premise, _ in pairs:
            ent, con = self.table.get(premise, self.default)
            out.append(NliScore(entailment=ent, contradiction=con, neutral=max(0.0, 1 - ent - con)))
        return out


@pytest.mark.parametrize(("alone", "fails"), [(0.16, True), (0.56, True), (0.75, False)])
def test_a_splice_is_judged_by_its_sentence_alone(alone, fails):
    # a description replaced by a name from the other sentence: faithful when that sentence alone entails the claim
    evidence = [{"id": "E1", "trust_tier": "authoritative",
                 "text": "Orion is our flagship project. The project ships on 14 March 2027."}]
    backend = SentenceTableBackend({evidence[0]["text"]: (0.9, 0.05), "The project ships on 14 March 2027.": (alone, 0.1)})
    result = run_gate(ARCH_Q, evidence, envelope([("Orion ships on 14 March 2027 [E1].", ["E1"])]), backend)
    checks = [c for c in result.details["claim_records"]["c1"]["checks"] if c["check"] == "splice"]
    assert result.failed is fails and len(checks) == int(fails)
    if fails:
        assert "'orion'" in checks[0]["detail"] and "'The project ships on 14 March 2027.'" in checks[0]["detail"]


def test_a_name_put_for_another_name_fails_whatever_the_verifier_says():
    evidence = [{"id": "E1", "trust_tier": "authoritative",
                 "text": "The economy of Victoria is diversified. Victoria is a state of Australia."}]
    backend = SentenceTableBackend({evidence[0]["text"]: (0.95, 0.01), "The economy of Victoria is diversified.": (0.95, 0.01)})
    result = run_gate(ARCH_Q, evidence, envelope([("The economy of Australia is diversified [E1].", ["E1"])]), backend)
    checks = [c for c in result.details["claim_records"]["c1"]["checks"] if c["check"] == "splice"]
    assert result.failed and "the name 'australia' where its sentence says 'Victoria'" in checks[0]["detail"]


def test_a_near_copy_is_judged_whole_when_the_atomic_split_garbles_it():
    # split into "... to search for gold.", "... to search for especially from Victoria." and "... for China.", no
    # atom copies a sentence; the claim as written puts Victoria where its sentence says Ireland
    evidence = [{"id": "E1", "trust_tier": "authoritative",
                 "text": "Immigrants came to search for gold, especially from Ireland and China. "
                         "Many Chinese miners worked in Victoria."}]
    claim = "Immigrants came to search for gold, especially from Victoria and China [E1]."
    result = run_gate(ARCH_Q, evidence, envelope([(claim, ["E1"])]), TableNliBackend({evidence[0]["text"]: (0.9, 0.05)}))
    record = result.details["claim_records"]["c1"]
    assert len(record["atoms"]) > 1 and result.failed
    whole = [c for c in record["checks"] if c["atom"] == "Immigrants came to search for gold, especially from Victoria and China."]
    assert [c["check"] for c in whole] == ["splice"]
    assert "'victoria' where its sentence says 'Ireland'" in whole[0]["detail"]


def test_the_splice_pair_goes_to_the_backend_in_the_same_call():
    seen = []

    class Recording(SentenceTableBackend):
        def score(self, pairs):
            seen.append(list(pairs))
            return super().score(pairs)

    backend = Recording({E_HOST["text"]: (0.78, 0.12), "DB is Turso (SQLite).": (0.16, 0.7)})
    run_gate(ARCH_Q, [E_HOST], envelope([("We host on Fly.io [E1].", ["E1"]), ("DB is Fly.io (SQLite) [E1].", ["E1"])]),
             backend)
    assert len(seen) == 1 and ("DB is Turso (SQLite).", "DB is Fly.io (SQLite).") in seen[0]


def test_a_copied_sentence_moved_in_time_fails_however_entailed():
    backend = TableNliBackend({E_HOST["text"]: (0.95, 0.01)})
    result = run_gate(ARCH_Q, [E_HOST], envelope([("We used to host on Fly.io [E1].", ["E1"])]), backend)
    assert result.failed and "QUALIFIER_DRIFT" in result.details["claims"]["c1"]
    (finding,) = [c for c in result.details["claim_records"]["c1"]["checks"] if c["check"] == "tense"]
    assert "'used to'" in finding["detail"]


class TableSimilarity:
    """A TermSimilarity with set cosines (the real one is controlplane.services.EmbeddingSimilarity, MiniLM)."""

    def __init__(self, table=None, error=None):
        self.table, self.error, self.asked = dict(table or {}), error, []

    def similarity(self, pairs):
        self.asked.append(list(pairs))
        if self.error:
            raise RuntimeError(self.error)
        return [self.table.get(pair, 0.9) for pair in pairs]


E_REGION = {"id": "E1", "text": "Normandy is a region in France.", "trust_tier": "authoritative"}


def _swap_gate(similarity, claim="Normandy is a complexity in France [E1].", evidence=E_REGION, params=None):
    # the verifier entails the swap (as the shipped one does for long sentences) and does not lean contradicted
    inp = gate_input("nli_entailment", ARCH_Q, [evidence], envelope([(claim, ["E1"])]),
                     TableNliBackend({evidence["text"]: (0.7, 0.1)}), params=params)
    return NliEntailmentGate().evaluate(dataclasses.replace(inp, services=dataclasses.replace(inp.services,
                                                                                               similarity=similarity)))


# the words around the swap (NearCopy.in_context): as E_REGION has them, with the term put in, with the slot empty
IN_PLACE = ("Normandy is a region in France", "Normandy is a complexity in France")
SLOT_EMPTY = ("Normandy is a region in France", "Normandy is a in France")


@pytest.mark.parametrize(("cosine", "fails"), [(0.1, True), (0.19, True), (0.2, False), (0.6, False)])
def test_a_swapped_term_far_in_meaning_from_the_words_it_replaces_fails(cosine, fails):
    # the term fits its place (its words read closer to the sentence's than the empty slot's): only the first bar
    similarity = TableSimilarity({("region", "complexity"): cosine, IN_PLACE: 0.95, SLOT_EMPTY: 0.9})
    result = _swap_gate(similarity)
    assert similarity.asked == [[("region", "complexity"), IN_PLACE, SLOT_EMPTY]]  # asked once for the attempt
    checks = [c for c in result.details["claim_records"]["c1"]["checks"] if c["check"] == "swap"]
    assert result.failed is fails and len(checks) == int(fails)
    if fails:
        assert "far from it in meaning" in checks[0]["detail"] and "'region'" in checks[0]["detail"]


@pytest.mark.parametrize(("cosine", "in_place", "fails"), [(0.25, 0.8, True), (0.25, 0.9, True), (0.29, 0.85, True),
                                                        (0.25, 0.91, False), (0.3, 0.8, False), (0.6, 0.5, False)])
def test_a_swapped_term_that_is_not_close_must_fit_its_place(cosine, in_place, fails):
    # "California's southernmost 10 equal" for "... 10 counties" (cosine 0.23): the words read further from the
    # sentence's with "equal" put in than with no word there at all; "led" -> "headed" (0.34) is above the bar
    similarity = TableSimilarity({("region", "complexity"): cosine, IN_PLACE: in_place, SLOT_EMPTY: 0.9})
    checks = [c for c in _swap_gate(similarity).details["claim_records"]["c1"]["checks"] if c["check"] == "swap"]
    assert len(checks) == int(fails)
    if fails:
        assert "reads no closer to 'Normandy is a region in France'" in checks[0]["detail"]
        assert f"({in_place:.3f} <= 0.900)" in checks[0]["detail"]


def test_a_phrase_put_for_a_word_is_judged_by_the_first_bar_only():
    # "without warning" for "abruptly": the words around a phrase are read at another length; it is not asked
    evidence = {"id": "E1", "text": "The call ended abruptly in France.", "trust_tier": "authoritative"}
    similarity = TableSimilarity({("abruptly", "without warning"): 0.25})
    result = _swap_gate(similarity, "The call ended without warning in France [E1].", evidence)
    assert similarity.asked == [[("abruptly", "without warning")]]
    assert not [c for c in result.details["claim_records"]["c1"]["checks"] if c["check"] == "swap"]


def test_the_fit_bar_is_the_gates_param():
    similarity = TableSimilarity({("region", "complexity"): 0.25, IN_PLACE: 0.8, SLOT_EMPTY: 0.9})
    assert not _swap_gate(similarity, params={"swap_context_similarity": 0.2}).failed


def test_a_similarity_service_that_fails_fails_the_swap_closed():
    result = _swap_gate(TableSimilarity(error="model missing"))
    (check,) = [c for c in result.details["claim_records"]["c1"]["checks"] if c["check"] == "swap"]
    assert result.failed and "could not be checked: RuntimeError: model missing" in check["detail"]


def test_without_a_similarity_service_the_synonymy_rule_is_off():
    assert not _swap_gate(None).failed


def test_the_similarity_service_is_not_asked_when_no_claim_swaps_a_term():
    similarity = TableSimilarity()
    inp = gate_input("nli_entailment", ARCH_Q, [E_HOST], envelope([("We host on Fly.io [E1].", ["E1"])]),
                     TableNliBackend({E_HOST["text"]: (0.9, 0.05)}))
    NliEntailmentGate().evaluate(dataclasses.replace(inp, services=dataclasses.replace(inp.services,
                                                                                        similarity=similarity)))
    assert similarity.asked == []


def test_the_near_copy_rules_are_off_with_the_content_check():
    backend = TableNliBackend({E_HOST["text"]: (0.18, 0.58)})
    result = run_gate(ARCH_Q, [E_HOST], envelope([("We host on aws [E1].", ["E1"])]), backend,
                      checks=["numbers", "negation"])
    assert not any(c["check"] in ("swap", "addition") for c in result.details["claim_records"]["c1"]["checks"])


def test_strength_inflation_is_vetoed():
    evidence = [{"id": "E1", "text": "Coffee intake is associated with lower mortality in adults.",
                 "trust_tier": "authoritative"}]
    env = envelope([("Coffee intake causes lower mortality in adults [E1].", ["E1"])])
    result = run_gate(ARCH_Q, evidence, env, TableNliBackend({evidence[0]["text"]: (0.9, 0.0)}))
    assert "STRENGTH_INFLATION" in result.details["claims"]["c1"]


def test_each_atomic_claim_must_be_entailed():
    env = envelope([("We host on Fly.io and the database is Postgres [E1].", ["E1"])])
    result = run_gate(ARCH_Q, [E_HOST], env, OverlapNliBackend())
    atoms = result.details["claim_records"]["c1"]["atoms"]
    assert [a["text"] for a in atoms] == ["We host on Fly.io.", "The database is Postgres."]
    assert [a["status"] for a in atoms] == ["VERIFIED", "REJECTED"]
    assert result.failed and result.details["claims"]["c1"][0] == "LOW_ENTAILMENT"


def test_inline_markers_are_not_sent_to_the_backend():
    backend = RecordingBackend()
    run_gate(ARCH_Q, [E_HOST], envelope([("We host on Fly.io [E1].", ["E1"])]), backend)
    assert backend.seen and all("[E1]" not in hypothesis for _, hypothesis in backend.seen)


def test_facts_combined_from_two_items_can_entail_together():
    a, b = "We host on Fly.io.", "Our database is Turso."
    evidence = [{"id": "E1", "text": a, "trust_tier": "authoritative"}, {"id": "E2", "text": b, "trust_tier": "authoritative"}]
    class Joined(TableNliBackend):
        """Each fact alone is neutral; the two joined (the gate's combined premise) entail the claim."""

        def score(self, pairs):
            return [NliScore(0.92, 0.0, 0.08) if "\n" in p else NliScore(0.4, 0.0, 0.6) for p, _ in pairs]

    env = envelope([("Our app runs on Fly.io with a Turso database [E1][E2].", ["E1", "E2"])])
    result = run_gate(ARCH_Q, evidence, env, Joined({}), checks=[])
    record = result.details["claim_records"]["c1"]
    assert record["decision"] == "VERIFIED" and record["supporting_ids"] == ["E1", "E2"]


def test_two_cited_items_are_read_as_two_texts_not_one_wrapped_sentence():
    # two items joined by one line break read as one hard-wrapped sentence ("... in 2013 Nobody else was nominated"),
    # whose "Nobody" then negated a claim the first item states (a supported WiCE dev claim was refused so)
    evidence = [{"id": "E1", "text": "Contact us\nBakir won the Young Entrepreneur award in 2013",
                 "trust_tier": "authoritative"},
                {"id": "E2", "text": "Nobody else was nominated for the award\nthat year", "trust_tier": "authoritative"}]
    env = envelope([("Bakir won the Young Entrepreneur award in 2013 [E1][E2].", ["E1", "E2"])])
    result = run_gate(ARCH_Q, evidence, env, TableNliBackend({}, default=(0.9, 0.0)))
    assert "NEGATION_MISMATCH" not in codes(result), result.details["claim_records"]["c1"]


def test_backend_calibrated_threshold_raises_the_bar():
    class Calibrated(TableNliBackend):
        def metadata(self):
            return {"name": "cal", "threshold": 0.9}

    env = envelope([("We host on Fly.io [E1].", ["E1"])])
    result = run_gate(ARCH_Q, [E_HOST], env, Calibrated({E_HOST["text"]: (0.85, 0.0)}))
    assert result.details["thresholds"]["min_entailment"] == 0.9
    assert result.failed and result.details["claims"]["c1"] == ["LOW_ENTAILMENT"]
    result = run_gate(ARCH_Q, [E_HOST], env, Calibrated({E_HOST["text"]: (0.85, 0.0)}), use_backend_threshold=False)
    assert result.passed


def test_high_stakes_counts_independent_sources_not_ids():
    text = "An LLC protects its members from personal liability for company debts."
    same_doc = [{"id": "E1", "text": text, "trust_tier": "authoritative", "provenance": {"document_id": "statute-1"}},
                {"id": "E2", "text": text + " (restated)", "trust_tier": "authoritative",
                 "provenance": {"document_id": "statute-1"}}]
    env = envelope([("An LLC protects its members from personal liability for company debts [E1][E2].", ["E1", "E2"])])
    backend = TableNliBackend({text: (0.97, 0.0), text + " (restated)": (0.97, 0.0)})
    result = run_gate(HIGH_Q, same_doc, env, backend, checks=[])
    assert result.details["claims"]["c1"] == ["INSUFFICIENT_SOURCES"]
    two_docs = [same_doc[0], {**same_doc[1], "provenance": {"document_id": "case-2"}}]
    assert run_gate(HIGH_Q, two_docs, env, backend, checks=[]).passed


# ---------------------------------------------------------------------------------------------------------------
# honest and exempt claims, fail closed
def test_unknown_claims_pass_and_exempt_statuses_follow_the_policy():
    env = envelope([("Whether we use a CDN is UNKNOWN from the evidence.", [], "UNKNOWN"),
                    ("This design is cleaner.", [], "SUBJECTIVE")])
    result = run_gate(ARCH_Q, [E_HOST], env, None)  # nothing needs the verifier: no backend needed
    assert result.passed
    assert result.details["claim_records"]["c1"]["decision"] == "UNKNOWN"
    assert result.details["claim_records"]["c2"]["decision"] == "EXEMPT"
    high = run_gate(HIGH_Q, [E_HOST], envelope([("This statute is clear.", [], "SUBJECTIVE")]), OverlapNliBackend())
    assert high.failed and high.details["claims"]["c1"] == ["NO_EVIDENCE"]  # high stakes exempts nothing


@pytest.mark.parametrize(
    "backend",
    [None, BrokenBackend(), ShortBackend(), LazyNliBackend("transformers:/nonexistent/model")],
    ids=["no-backend", "raises", "wrong-length", "cannot-load"],
)
def test_fail_closed_when_the_verifier_is_unavailable(backend):
    env = envelope([("We host on Fly.io [E1].", ["E1"])])
    result = run_gate(ARCH_Q, [E_HOST], env, backend)
    assert result.failed and codes(result) == ["VERIFIER_UNAVAILABLE"]
    assert result.details["claims"] == {"c1": ["VERIFIER_UNAVAILABLE"]} and result.details["verifier_unavailable"]


def test_similarity_alone_never_passes_in_high_stakes():
    text = "An LLC protects its members from personal liability."
    evidence = [{"id": "E1", "text": text, "trust_tier": "authoritative", "provenance": {"document_id": "a"}},
                {"id": "E2", "text": text + " Always.", "trust_tier": "authoritative", "provenance": {"document_id": "b"}}]
    env = envelope([("An LLC protects its members from personal liability [E1][E2].", ["E1", "E2"])])
    backend = SimilarityOnlyBackend({text: (0.99, 0.0), text + " Always.": (0.99, 0.0)})
    result = run_gate(HIGH_Q, evidence, env, backend, checks=[])
    assert codes(result) == ["VERIFIER_UNAVAILABLE"] and "similarity alone" in result.details["verifier_unavailable"]
    assert run_gate(ARCH_Q, evidence[:1], envelope([("An LLC protects its members from personal liability [E1].",
                                                     ["E1"])]), backend, checks=[]).passed


def test_redacted_evidence_cannot_verify():
    redacted = {**E_HOST, "text": "sha256:abc… We host on", "redacted": True}
    result = run_gate(ARCH_Q, [redacted], envelope([("We host on Fly.io [E1].", ["E1"])]), OverlapNliBackend())
    assert codes(result) == ["EVIDENCE_TEXT_REDACTED"]


def test_no_envelope_is_a_precondition_failure():
    inp = gate_input("nli_entailment", ARCH_Q, [E_HOST], envelope([("x", [])]), OverlapNliBackend())
    from dataclasses import replace

    assert codes(NliEntailmentGate().evaluate(replace(inp, envelope=None))) == ["PRECONDITION_FAILED"]


# ---------------------------------------------------------------------------------------------------------------
# sentences (grounded-generation contract)
def test_strict_mode_sentence_without_claim_fails():
    env = envelope([("We host on Fly.io [E1].", ["E1"])], text="We host on Fly.io [E1]. It is the cheapest host.")
    result = run_gate(ARCH_Q, [E_HOST], env, OverlapNliBackend())
    assert [s["verdict"] for s in result.details["sentences"]] == ["PASS", "FAIL"]
    assert "SENTENCE_UNCOVERED" in codes(result) and result.details["uncovered_sentences"] == ["It is the cheapest host."]
    low = run_gate("hello, where is our app?", [E_HOST], env, OverlapNliBackend())  # low rigor: the same (G-1)
    assert not low.passed and low.details["uncovered_sentences"] == ["It is the cheapest host."]


def test_sentence_that_says_more_than_its_claims_is_verified_whole():
    env = envelope([("We host on Fly.io", ["E1"])], text="We host on Fly.io, which costs $5 a month [E1].")
    result = run_gate(ARCH_Q, [E_HOST], env, OverlapNliBackend())
    sentence = result.details["sentences"][0]
    assert sentence["verdict"] == "FAIL" and "cost" in sentence["beyond_claims"]
    assert result.details["claims"]["c1"]  # the sentence fails as a unit, through its claim


# ---------------------------------------------------------------------------------------------------------------
# end to end through Pipeline.run
DRIFT = envelope([("We host on Fly.io [E1].", ["E1"]),
                  ("The public API allows 500 requests per minute per key [E2].", ["E2"])])


def test_number_drift_is_suppressed_with_why_and_what_evidence_is_needed(write_script, store, shipped_policy):
    plane = Pipeline(model=write_script([DRIFT] * 3), policy=shipped_policy, store=store,
                         services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(ARCH_Q, evidence=[E_HOST, E_RATE])
    assert result.status is TraceStatus.DEGRADED and not result.verified
    assert len(result.attempts) == 3  # regenerated twice with a targeted delta, then degraded
    assert "c2" in result.attempts[1].regen_delta.claim_ids
    nli = next(g for g in result.attempts[0].gate_results if g.gate_id == "nli_entailment")
    assert "NUMBER_MISMATCH" in nli.details["claims"]["c2"]
    text = result.assistant_text
    assert text.startswith("We host on Fly.io [E1].")
    assert "500 requests" not in text.split("[Not verified")[0]
    assert "its numbers or units differ from the evidence" in text
    # the notice names what was removed and what would fix it, without restating the unverified sentence
    assert "provide evidence that states it (E2 does not)" in text and "500" not in text
    assert result.degrade["removed_sentences"][0]["text"] == "The public API allows 500 requests per minute per key [E2]."
    assert [c.verdict for c in result.claims] == ["PASS", "FAIL"]


def test_high_stakes_number_drift_is_refused_with_explanation(write_script, store, shipped_policy):
    legal = [{"id": "E1", "text": "The filing fee for an LLC is 50 dollars.", "trust_tier": "authoritative"}]
    bad = envelope([("The filing fee for an LLC is 500 dollars [E1].", ["E1"])])
    plane = Pipeline(model=write_script([bad] * 3), policy=shipped_policy, store=store,
                         services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run("What is the LLC filing fee under state law?", evidence=legal)
    assert result.status is TraceStatus.REFUSED
    assert "500" not in result.assistant_text  # the refusal never restates the unverified claim...
    assert "A statement citing E1 was not shown" in result.assistant_text
    assert "numbers or units differ" in result.assistant_text and "To state it I need" in result.assistant_text
    assert result.degrade["claims"][0]["text"] == "The filing fee for an LLC is 500 dollars [E1]."  # ...the trace does


def test_run_without_a_loadable_verifier_never_passes(write_script, store, shipped_policy):
    good = envelope([("We host on Fly.io [E1].", ["E1"])])
    services = build_services("none", policy=shipped_policy.bundle)
    plane = Pipeline(model=write_script([good]), policy=shipped_policy, store=store, services=services)
    result = plane.run(ARCH_Q, evidence=[E_HOST])
    assert result.status is not TraceStatus.PASS and not result.verified
    assert "the entailment verifier was not available" in result.assistant_text


def test_supported_answer_passes_end_to_end(write_script, store, shipped_policy):
    good = envelope([("We host on Fly.io [E1].", ["E1"]),
                     ("The public API allows 100 requests per minute per key [E2].", ["E2"])])
    plane = Pipeline(model=write_script([good]), policy=shipped_policy, store=store,
                         services=GateServices(nli_backend=OverlapNliBackend()))
    result = plane.run(ARCH_Q, evidence=[E_HOST, E_RATE])
    assert result.status is TraceStatus.PASS and result.verified, [
        (g.gate_id, g.reason_codes) for g in result.attempts[0].gate_results if g.failed]


VERIFIER = Path(__file__).resolve().parents[2] / "controlplane" / "nli" / "verifier" / "config.json"


@pytest.mark.models
@pytest.mark.skipif(not VERIFIER.is_file(), reason="shipped verifier weights not present in this checkout")
def test_shipped_verifier_separates_supported_from_drifted_claims():
    services = build_services("shipped")
    good = run_gate(ARCH_Q, [E_RATE], envelope([("The public API allows 100 requests per minute per key [E2].",
                                                 ["E2"])]), services.nli_backend, checks=[])
    bad = run_gate(ARCH_Q, [E_RATE], envelope([("The public API does not limit requests [E2].", ["E2"])]),
                   services.nli_backend, checks=[])
    assert good.details["claim_records"]["c1"]["entailment"] > bad.details["claim_records"]["c1"]["entailment"]
    assert bad.failed


def test_build_services_caches_scores_across_the_decision_gates(write_script, store, shipped_policy):
    from controlplane.services import CachedNliBackend

    inner = OverlapNliBackend()
    services = GateServices(nli_backend=CachedNliBackend(inner))
    plane = Pipeline(model=write_script([DRIFT] * 3), policy=shipped_policy, store=store, services=services)
    plane.run(ARCH_Q, evidence=[E_HOST, E_RATE])
    cache = services.nli_backend.metadata()["cache"]
    assert cache["hits"] > cache["misses"] == inner.pairs_scored  # attempts 2 and 3 repeat attempt 1's pairs


def test_a_lazily_loaded_backends_threshold_applies_from_the_first_request():
    class Calibrated(TableNliBackend):
        def metadata(self):
            return {"name": "cal", "threshold": 0.9}

    class LazyTable(LazyNliBackend):
        def _load(self):
            self._backend = self._backend or Calibrated({E_HOST["text"]: (0.85, 0.0)})
            return self._backend

    backend = LazyTable("table")
    assert "threshold" not in backend.metadata()  # not loaded yet
    result = run_gate(ARCH_Q, [E_HOST], envelope([("We host on Fly.io [E1].", ["E1"])]), backend)
    assert result.details["thresholds"]["backend_threshold"] == 0.9 and result.failed


def test_every_pair_of_an_attempt_goes_to_the_backend_in_one_call():
    backend = OverlapNliBackend()
    env = envelope([("We host on Fly.io [E1].", ["E1"]),
                    ("The public API allows 100 requests per minute per key [E2].", ["E2"]),
                    ("The DB is Turso and the API allows 100 requests per minute per key [E1][E2].", ["E1", "E2"])])
    result = run_gate(ARCH_Q, [E_HOST, E_RATE], env, backend)
    assert len(result.details["claim_records"]) == 3
    assert backend.calls == 1 and backend.pairs_scored >= 5


def test_beyond_claims_blanks_only_the_part_of_each_span_inside_the_sentence():
    from controlplane.gates.anchoring import beyond_claims

    text = "Turso stores tier data. It never stores 12 logs. Done."
    start, end = text.index("It"), text.index("Done") - 1
    never = text.index("never")
    # a span reaching into the sentence from before it hides the sentence's words it covers ("It"), and what it
    # says is claimed ("stores"); the rest of the sentence is beyond it
    assert beyond_claims(text, start, end, []) == ["never", "stor", "12", "log"]
    assert beyond_claims(text, start, end, [(0, never)]) == ["never", "12", "log"]
    assert beyond_claims(text, start, end, [(start, end)]) == []
    assert beyond_claims(text, start, end, [(end, len(text))]) == beyond_claims(text, start, end, [])
    assert beyond_claims(text, start, end, [(never, never)]) == beyond_claims(text, start, end, [])
