"""Every built-in gate on passing and failing inputs, through the same GateInput the pipeline builds."""

from __future__ import annotations

import json

import pytest

from controlplane.contracts import EvidenceItem, GateSpec, OutputEnvelope
from controlplane.evidence_pack import build_pack
from controlplane.gates.budget_enforcer import BudgetEnforcerGate
from controlplane.gates.citation_integrity import CitationIntegrityGate
from controlplane.gates.claim_anchors import ClaimAnchorsGate
from controlplane.gates.envelope_parsing import parse_envelope
from controlplane.gates.evidence_binding import EvidenceBindingGate
from controlplane.gates.interfaces import BudgetUsage, GateInput, GateServices
from controlplane.gates.mode_echo_match import ModeEchoMatchGate
from controlplane.gates.output_schema import OutputSchemaGate
from controlplane.gates.retrieval_required import RetrievalRequiredGate
from controlplane.router import route

EVIDENCE = [
    {"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite)."},
    {"id": "E2", "text": "Reads from a replica can lag the primary by up to 1 second."},
]


def gate_input(default_policy, envelope=None, raw=None, message="Describe our hosting architecture.", evidence=EVIDENCE,
               usage=None, services=None, params=None):
    raw = raw if raw is not None else (json.dumps(envelope) if envelope is not None else None)
    parsed = parse_envelope(raw)
    return GateInput(
        mode_decision=route(message, default_policy.bundle),
        evidence_pack=build_pack(evidence),
        policy=default_policy.bundle,
        spec=GateSpec(gate_id="x", params=params or {}),
        user_message=message,
        raw_output=raw,
        envelope=parsed.envelope,
        parse_issues=parsed.issues,
        parse_failure=parsed.failure,
        usage=usage or BudgetUsage(),
        services=services or GateServices(),
    )


def codes(result):
    return [c.value for c in result.reason_codes]


GOOD = [("We host on Fly.io [E1].", ["E1"]), ("Replica reads can lag by up to 1 second [E2].", ["E2"])]


# -- output_schema -------------------------------------------------------------------------------------------------
def test_output_schema_passes_a_valid_envelope(default_policy, make_envelope):
    assert OutputSchemaGate().evaluate(gate_input(default_policy, make_envelope(GOOD))).passed


@pytest.mark.parametrize(
    "raw, code",
    [
        ("", "EMPTY_OUTPUT"),
        ("Sure, here is the answer.", "INVALID_JSON"),
        ('{"assistant_text": "We host on Fly', "TRUNCATED_OUTPUT"),
        ("```json\n{}\n```", "INVALID_JSON"),
        ("[1, 2]", "SCHEMA_VIOLATION"),
        ('{"assistant_text": "a", "assistant_text": "b", "meta": {"modeLabel": "System"}}', "SCHEMA_VIOLATION"),
        ('{"assistant_text": 5, "meta": {"modeLabel": "System"}}', "SCHEMA_VIOLATION"),
        ('{"assistant_text": "x", "meta": {"modeLabel": "System"}, "note": "extra"}', "SCHEMA_VIOLATION"),
    ],
)
def test_output_schema_fails_with_the_precise_reason(default_policy, raw, code):
    result = OutputSchemaGate().evaluate(gate_input(default_policy, raw=raw))
    assert result.failed and codes(result) == [code]
    assert result.details["problems"]


def test_output_schema_names_the_json_path(default_policy, make_envelope):
    envelope = make_envelope(GOOD)
    envelope["meta"]["claim_map"][0]["evidence_ids"] = "E1"
    result = OutputSchemaGate().evaluate(gate_input(default_policy, envelope))
    assert [p["path"] for p in result.details["problems"]] == ["$.meta.claim_map[0].evidence_ids"]


# -- mode_echo_match -----------------------------------------------------------------------------------------------
def test_mode_echo_match(default_policy, make_envelope):
    assert ModeEchoMatchGate().evaluate(gate_input(default_policy, make_envelope(GOOD, mode="System"))).passed
    result = ModeEchoMatchGate().evaluate(gate_input(default_policy, make_envelope(GOOD, mode="Ida")))
    assert codes(result) == ["MODE_MISMATCH"] and result.details == {"expected": "System", "got": "Ida"}


def test_gates_fail_closed_without_an_envelope(default_policy):
    inp = gate_input(default_policy, raw="prose")
    for gate in (ModeEchoMatchGate(), EvidenceBindingGate(), CitationIntegrityGate(), ClaimAnchorsGate()):
        assert codes(gate.evaluate(inp)) == ["PRECONDITION_FAILED"]


# -- evidence_binding ----------------------------------------------------------------------------------------------
def test_evidence_binding_passes_cited_and_unknown_claims(default_policy, make_envelope):
    envelope = make_envelope([*GOOD, ("Our backup schedule is not in the evidence.", [], "UNKNOWN")])
    assert EvidenceBindingGate().evaluate(gate_input(default_policy, envelope)).passed


def test_evidence_binding_fails_uncited_and_unknown_ids(default_policy, make_envelope):
    envelope = make_envelope([("We host on Fly.io.", []), ("We use Postgres [E9].", ["E9"])])
    result = EvidenceBindingGate().evaluate(gate_input(default_policy, envelope))
    assert codes(result) == ["UNCITED_CLAIM", "UNKNOWN_EVIDENCE_ID"]
    assert result.details["claims"] == {"c1": ["UNCITED_CLAIM"], "c2": ["UNKNOWN_EVIDENCE_ID"]}
    assert result.details["unknown_evidence_ids"] == ["E9"]
    assert result.evidence_refs == ["claim_map:c1", "claim_map:c2"]


def test_evidence_binding_exempt_statuses_depend_on_rigor(default_policy, make_envelope):
    subjective = make_envelope([("This design is elegant.", [], "SUBJECTIVE")])
    low = gate_input(default_policy, subjective, message="Is this a nice design? Tighten the wording.")
    assert EvidenceBindingGate().evaluate(low).passed or low.mode_decision.rigorConfig.level.value != "low"
    high = gate_input(default_policy, make_envelope([("This contract is fine.", [], "SUBJECTIVE")]),
                      message="Is this contract legal?")
    assert codes(EvidenceBindingGate().evaluate(high)) == ["UNCITED_CLAIM"]
    trivial_escape = gate_input(default_policy, make_envelope([("LLCs pay no tax.", [], "TRIVIAL")]),
                                message="LLC tax question")
    assert codes(EvidenceBindingGate().evaluate(trivial_escape)) == ["UNCITED_CLAIM"]


def test_evidence_binding_rejects_ids_outside_allowed_list(default_policy, make_envelope):
    inp = gate_input(default_policy, make_envelope(GOOD))
    restricted = inp.evidence_pack.model_copy(
        update={"rules": inp.evidence_pack.rules.model_copy(update={"allowed_evidence_ids": ["E1"]})}
    )
    from dataclasses import replace

    result = EvidenceBindingGate().evaluate(replace(inp, evidence_pack=restricted))
    assert codes(result) == ["EVIDENCE_ID_NOT_ALLOWED"] and result.details["claims"] == {"c2": ["EVIDENCE_ID_NOT_ALLOWED"]}


def test_evidence_binding_duplicate_claim_ids(default_policy, make_envelope):
    envelope = make_envelope(GOOD)
    envelope["meta"]["claim_map"][1]["claim_id"] = "c1"
    envelope["meta"]["citations"] = []
    assert "DUPLICATE_CLAIM_ID" in codes(EvidenceBindingGate().evaluate(gate_input(default_policy, envelope)))


# -- citation_integrity --------------------------------------------------------------------------------------------
def test_citation_integrity_passes_consistent_citations(default_policy, make_envelope):
    assert CitationIntegrityGate().evaluate(gate_input(default_policy, make_envelope(GOOD))).passed


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda e: e["meta"]["citations"].append({"claim_id": "c9", "evidence_ids": ["E1"]}), "CITATION_UNKNOWN_CLAIM"),
        (lambda e: e["meta"]["citations"][0].update(evidence_ids=["E2"]), "CITATION_CLAIM_MISMATCH"),
        (lambda e: e["meta"]["citations"].append({"claim_id": "c1", "evidence_ids": ["E1", "E5"]}),
         "CITATION_UNKNOWN_EVIDENCE_ID"),
        (lambda e: e["meta"].update(used_evidence_ids=["E1", "E4"]), "USED_IDS_INCONSISTENT"),
        (lambda e: e["meta"].update(ignored_evidence_ids=["E1"]), "USED_IDS_INCONSISTENT"),
    ],
)
def test_citation_integrity_failures(default_policy, make_envelope, mutate, expected):
    envelope = make_envelope(GOOD)
    mutate(envelope)
    assert expected in codes(CitationIntegrityGate().evaluate(gate_input(default_policy, envelope)))


def test_inline_markers_must_resolve_and_agree(default_policy, make_envelope):
    unresolved = make_envelope([("We host on Fly.io [E7].", ["E1"])])
    result = CitationIntegrityGate().evaluate(gate_input(default_policy, unresolved))
    assert "INLINE_MARKER_UNRESOLVED" in codes(result) and result.details["unresolved_markers"] == ["E7"]
    disagree = make_envelope([("We host on Fly.io [E2].", ["E1"]), ("Replica reads lag [E2].", ["E2"])])
    result = CitationIntegrityGate().evaluate(gate_input(default_policy, disagree))
    assert codes(result) == ["INLINE_MARKER_MISMATCH"] and result.details["claims"] == {"c1": ["INLINE_MARKER_MISMATCH"]}


def test_homoglyph_and_zero_width_markers_never_resolve(default_policy, make_envelope):
    cyrillic = make_envelope([("We host on Fly.io [\u04151].", ["E1"])])
    assert "INLINE_MARKER_UNRESOLVED" in codes(CitationIntegrityGate().evaluate(gate_input(default_policy, cyrillic)))
    zero_width = make_envelope([("We host on Fly.io [E\u200b1].", ["E1"])])
    assert "INLINE_MARKER_UNRESOLVED" in codes(CitationIntegrityGate().evaluate(gate_input(default_policy, zero_width)))


def test_inline_markers_required_in_high_rigor(default_policy, make_envelope):
    evidence = [{"id": "E1", "text": "A single-member LLC is taxed like a sole proprietorship by default."}]
    unmarked = make_envelope([("A single-member LLC is taxed like a sole proprietorship.", ["E1"])])
    result = CitationIntegrityGate().evaluate(gate_input(default_policy, unmarked, message="LLC tax?", evidence=evidence))
    assert codes(result) == ["INLINE_MARKER_MISSING"]
    marked = make_envelope([("A single-member LLC is taxed like a sole proprietorship [E1].", ["E1"])])
    assert CitationIntegrityGate().evaluate(gate_input(default_policy, marked, message="LLC tax?", evidence=evidence)).passed


def test_bracketed_prose_is_not_a_marker(default_policy, make_envelope):
    envelope = make_envelope([("The memo [sic] says we host on Fly.io [E1].", ["E1"])])
    assert CitationIntegrityGate().evaluate(gate_input(default_policy, envelope)).passed


# -- claim_anchors -------------------------------------------------------------------------------------------------
def test_claim_anchors_pass_and_record_server_anchors(default_policy, make_envelope):
    result = ClaimAnchorsGate().evaluate(gate_input(default_policy, make_envelope(GOOD)))
    assert result.passed and result.details["anchors"]["c1"] == [0, 23, "server"]


def test_claim_anchors_failures(default_policy, make_envelope):
    missing = make_envelope(GOOD)
    missing["meta"]["claim_map"][0]["text"] = "We host on AWS [E1]."
    assert "CLAIM_NOT_IN_TEXT" in codes(ClaimAnchorsGate().evaluate(gate_input(default_policy, missing)))

    out_of_bounds = make_envelope(GOOD)
    out_of_bounds["meta"]["claim_map"][0]["span"] = {"start_char": 0, "end_char": 999}
    assert "SPAN_OUT_OF_BOUNDS" in codes(ClaimAnchorsGate().evaluate(gate_input(default_policy, out_of_bounds)))

    wrong_text = make_envelope(GOOD)
    wrong_text["meta"]["claim_map"][0]["span"] = {"start_char": 3, "end_char": 26}
    assert "SPAN_TEXT_MISMATCH" in codes(ClaimAnchorsGate().evaluate(gate_input(default_policy, wrong_text)))

    crossing = make_envelope(GOOD)
    crossing["meta"]["claim_map"][0]["span"] = {"start_char": 0, "end_char": 23}
    crossing["meta"]["claim_map"][1]["text"] = "Fly.io [E1]. Replica"
    result = ClaimAnchorsGate().evaluate(gate_input(default_policy, crossing))
    assert "SPAN_OVERLAP" in codes(result)


def test_nested_claims_are_legal(default_policy, make_envelope):
    envelope = make_envelope([("We host on Fly.io [E1].", ["E1"])])
    envelope["meta"]["claim_map"].append({"claim_id": "c2", "text": "Fly.io", "evidence_ids": ["E1"], "status": "FACTUAL"})
    assert ClaimAnchorsGate().evaluate(gate_input(default_policy, envelope)).passed


def test_every_sentence_must_be_covered_in_every_rigor(default_policy, make_envelope):
    envelope = make_envelope(GOOD, extra_text="Also, Postgres is our database.")
    result = ClaimAnchorsGate().evaluate(gate_input(default_policy, envelope))
    assert codes(result) == ["SENTENCE_UNCOVERED"]
    assert result.details["uncovered_sentences"] == ["Also, Postgres is our database."]
    low = ClaimAnchorsGate().evaluate(gate_input(default_policy, make_envelope(GOOD, mode="Ida",
                                                 extra_text="Also, it reads well."), message="What changed lately?"))
    assert codes(low) == ["SENTENCE_UNCOVERED"]  # low rigor too (grounded generation G-1)


def test_the_rewrite_exemption_covers_the_users_own_text_only(default_policy):
    rewrite = {"assistant_text": "Our servers are fast. They rarely go down.",
               "meta": {"modeLabel": "Ida", "domainFlags": [], "claim_map": [], "citations": []}}
    message = "Tighten this: our servers are fast and they rarely go down."
    exempt = ClaimAnchorsGate().evaluate(gate_input(default_policy, rewrite, message=message, evidence=[]))
    assert exempt.passed and "rewrite exemption (writing)" in exempt.details["coverage_exemption"]
    rewrite["assistant_text"] += " Our uptime is 99.99% on AWS."
    added = ClaimAnchorsGate().evaluate(gate_input(default_policy, rewrite, message=message, evidence=[]))
    assert codes(added) == ["SENTENCE_UNCOVERED"] and "99.99" in added.details["exemption_refused"]


def test_model_spans_can_be_required(default_policy, make_envelope):
    result = ClaimAnchorsGate().evaluate(gate_input(default_policy, make_envelope(GOOD),
                                                    params={"require_model_spans": True}))
    assert codes(result) == ["SPAN_MISSING"]


# -- budget_enforcer -----------------------------------------------------------------------------------------------
def test_budget_enforcer_passes_within_budget(default_policy, make_envelope):
    inp = gate_input(default_policy, make_envelope(GOOD), usage=BudgetUsage(tokens_out=100, elapsed_ms=10))
    assert BudgetEnforcerGate().evaluate(inp).passed


@pytest.mark.parametrize(
    "usage, code",
    [
        (BudgetUsage(tokens_out=10_000), "TOKENS_EXCEEDED"),
        (BudgetUsage(regen_attempts_used=9), "RETRIES_EXCEEDED"),
        (BudgetUsage(tool_calls=9), "TOOL_CALLS_EXCEEDED"),
        (BudgetUsage(elapsed_ms=10_000_000), "WALL_TIME_EXCEEDED"),
    ],
)
def test_budget_enforcer_failures(default_policy, make_envelope, usage, code):
    result = BudgetEnforcerGate().evaluate(gate_input(default_policy, make_envelope(GOOD), usage=usage))
    assert codes(result) == [code] and code in result.details["exceeded"]


def test_budget_enforcer_counts_claims_and_decides_without_an_envelope(default_policy, make_envelope):
    many = make_envelope([(f"Fact {i} [E1].", ["E1"]) for i in range(80)])
    assert codes(BudgetEnforcerGate().evaluate(gate_input(default_policy, many))) == ["CLAIMS_EXCEEDED"]
    assert BudgetEnforcerGate().evaluate(gate_input(default_policy, raw="prose")).passed


# -- retrieval_required --------------------------------------------------------------------------------------------
class ListRetriever:
    """A real Retriever over an in-memory list (keyword overlap), for gate tests that must not load a model."""

    name = "list"

    def __init__(self, items):
        self.items = items
        self.queries = []

    def retrieve(self, query, k):
        self.queries.append(query)
        return self.items[:k]


def snippet(text, score):
    from controlplane.evidence_pack import content_hash

    return EvidenceItem(id=f"R{abs(hash(text)) % 1000}", type="RETRIEVAL_SNIPPET", text=text, hash=content_hash(text),
                        retrieval_score=score)


ADR = "What does ADR-011 say about the client/server boundary?"


def test_retrieval_required_not_applicable_and_satisfied(default_policy):
    result = RetrievalRequiredGate().evaluate(gate_input(default_policy, message="Tighten this paragraph."))
    assert result.passed and codes(result) == ["NOT_APPLICABLE"]
    assert RetrievalRequiredGate().evaluate(gate_input(default_policy, message=ADR)).passed  # pack already has evidence


def test_retrieval_required_retrieves_when_pack_is_empty(default_policy):
    retriever = ListRetriever([snippet("The server is the single source of truth.", 0.7)])
    result = RetrievalRequiredGate().evaluate(
        gate_input(default_policy, message=ADR, evidence=[], services=GateServices(retriever=retriever), params={"k": 2})
    )
    assert codes(result) == ["RETRIEVAL_REQUIRED", "RETRIEVAL_PERFORMED"]
    assert [item["text"] for item in result.details["retrieved"]] == ["The server is the single source of truth."]
    assert retriever.queries == [ADR]


def test_retrieval_required_lexical_pass_keeps_the_best_lexical_match_below_the_cosine_floor(default_policy):
    from controlplane.contracts import RetrievalMatch

    def matched(text, cosine, rank, coverage):
        return snippet(text, cosine).model_copy(update={"retrieval_match": RetrievalMatch(
            method="weighted", fused_score=0.5, bm25=2.0, query_coverage=coverage, lexical_rank=rank)})

    lexical = matched("The on-call primary is paged first.", 0.28, 1, 1.0)
    weak = matched("Production runs on Fly.io.", 0.25, 2, 0.4)
    services = GateServices(retriever=ListRetriever([lexical, weak]))
    strict = RetrievalRequiredGate().evaluate(gate_input(default_policy, message=ADR, evidence=[], services=services,
                                                         params={"k": 4, "min_score": 0.3}))
    assert codes(strict) == ["RETRIEVAL_REQUIRED", "RETRIEVAL_EMPTY"]
    rule = {"min_query_coverage": 0.6, "min_score": 0.2}
    passing = RetrievalRequiredGate().evaluate(gate_input(default_policy, message=ADR, evidence=[], services=services,
                                                          params={"k": 4, "min_score": 0.3, "lexical_pass": rule}))
    assert codes(passing) == ["RETRIEVAL_REQUIRED", "RETRIEVAL_PERFORMED"]
    assert [item["text"] for item in passing.details["retrieved"]] == [lexical.text]
    assert passing.details["kept_by"] == {lexical.id: "lexical_pass"}


@pytest.mark.parametrize(
    "services, code",
    [
        (GateServices(), "RETRIEVER_UNAVAILABLE"),
        (GateServices(retriever=ListRetriever([])), "RETRIEVAL_EMPTY"),
    ],
)
def test_retrieval_required_fails_closed(default_policy, services, code):
    result = RetrievalRequiredGate().evaluate(gate_input(default_policy, message=ADR, evidence=[], services=services))
    assert codes(result) == ["RETRIEVAL_REQUIRED", code]


def test_retrieval_required_survives_a_broken_retriever(default_policy):
    class Broken:
        name = "broken"

        def retrieve(self, query, k):
            raise OSError("index is gone")

    result = RetrievalRequiredGate().evaluate(
        gate_input(default_policy, message=ADR, evidence=[], services=GateServices(retriever=Broken()))
    )
    assert codes(result) == ["RETRIEVAL_REQUIRED", "RETRIEVER_UNAVAILABLE"] and "index is gone" in result.details["error"]


def test_parsed_envelope_round_trips(make_envelope):
    envelope = make_envelope(GOOD)
    assert parse_envelope(json.dumps(envelope)).envelope == OutputEnvelope.model_validate(envelope)
