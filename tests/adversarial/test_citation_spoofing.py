"""Citation spoofing and unicode tricks in ids and markers: every spoof is caught (100 % detection), with the exact
failing gates and reason codes. High-stakes question (medical): rigor high, inline markers required."""

from __future__ import annotations

import pytest

from controlplane.contracts import EvidencePack
from controlplane.contracts.errors import InputError
from controlplane.evidence_pack import build_pack


def claim(kit, ids, marker=None):
    marker = " ".join(f"[{m}]" for m in (marker if marker is not None else ids))
    return (kit.DOSE[:-1] + (f" {marker}" if marker else "") + ".", ids)


def fails(kit, env, expected: dict, **kw):
    result = kit.verify(env, **kw)
    assert result.status == "fail"
    assert kit.failing(result.evaluation.results) == expected
    return result


def test_cited_id_not_in_pack(kit):
    result = fails(kit, kit.envelope([claim(kit, ["E9"])]), {
        "evidence_binding": ["UNKNOWN_EVIDENCE_ID"],
        "citation_integrity": ["CITATION_UNKNOWN_EVIDENCE_ID", "USED_IDS_INCONSISTENT", "INLINE_MARKER_UNRESOLVED"],
    })
    binding = next(r for r in result.evaluation.results if r.gate_id == "evidence_binding")
    assert binding.details["unknown_evidence_ids"] == ["E9"]
    assert [c.verdict for c in result.evaluation.claims] == ["FAIL"]


def test_cited_id_when_the_pack_is_empty(kit):
    fails(kit, kit.envelope([claim(kit, ["E1"])]), {
        "evidence_binding": ["UNKNOWN_EVIDENCE_ID"],
        "citation_integrity": ["CITATION_UNKNOWN_EVIDENCE_ID", "USED_IDS_INCONSISTENT", "INLINE_MARKER_UNRESOLVED"],
    }, evidence=[])


def test_real_id_only_in_claim_map_spoofed_id_in_citations(kit):
    env = kit.envelope([claim(kit, ["E1"])], citations=[{"claim_id": "c1", "evidence_ids": ["E1", "E7"]}])
    fails(kit, env, {"citation_integrity": ["CITATION_CLAIM_MISMATCH", "CITATION_UNKNOWN_EVIDENCE_ID"]})


def test_citation_for_an_unknown_claim(kit):
    env = kit.envelope([claim(kit, ["E1"])], citations=[{"claim_id": "c1", "evidence_ids": ["E1"]},
                                                       {"claim_id": "c9", "evidence_ids": ["E1"]}])
    fails(kit, env, {"citation_integrity": ["CITATION_UNKNOWN_CLAIM"]})


def test_citations_disagree_with_the_claim_map(kit):
    env = kit.envelope([claim(kit, ["E1"])], citations=[{"claim_id": "c1", "evidence_ids": ["E2"]}])
    fails(kit, env, {"citation_integrity": ["CITATION_CLAIM_MISMATCH"]})


def test_inline_marker_disagrees_with_the_claim_map(kit):
    # the text shows [E2] (a real, authoritative id) while the claim map says E1
    fails(kit, kit.envelope([claim(kit, ["E1"], marker=["E2"])]), {"citation_integrity": ["INLINE_MARKER_MISMATCH"]})


def test_inline_marker_to_an_unknown_id(kit):
    fails(kit, kit.envelope([claim(kit, ["E1"], marker=["E1", "E42"])]),
          {"citation_integrity": ["INLINE_MARKER_UNRESOLVED"]})


def test_missing_inline_marker_in_high_stakes(kit):
    fails(kit, kit.envelope([claim(kit, ["E1"], marker=[])]), {"citation_integrity": ["INLINE_MARKER_MISSING"]})


def test_used_evidence_ids_spoofed(kit):
    fails(kit, kit.envelope([claim(kit, ["E1"])], used_evidence_ids=["E1", "E99"]),
          {"citation_integrity": ["USED_IDS_INCONSISTENT"]})


def test_uncited_factual_claim_in_high_stakes(kit):
    fails(kit, kit.envelope([claim(kit, [], marker=[])]), {"evidence_binding": ["UNCITED_CLAIM"]})


@pytest.mark.parametrize("status", ["SUBJECTIVE", "TRIVIAL", "CONSENSUS", "REASONING"])
def test_exempt_status_laundering_is_refused_in_high_stakes(kit, status):
    # labelling a factual sentence SUBJECTIVE to dodge citation: high rigor exempts nothing but UNKNOWN
    fails(kit, kit.envelope([claim(kit, [], marker=[])], status=status), {"evidence_binding": ["UNCITED_CLAIM"]})


def test_duplicate_claim_ids(kit):
    env = kit.envelope([claim(kit, ["E1"]), claim(kit, ["E1"])])
    env["meta"]["claim_map"][1]["claim_id"] = "c1"
    env["meta"]["citations"] = [{"claim_id": "c1", "evidence_ids": ["E1"]}]
    result = kit.verify(env)
    assert result.status == "fail"
    assert kit.failing(result.evaluation.results)["evidence_binding"] == ["DUPLICATE_CLAIM_ID"]


def test_id_allowed_by_the_pack_rules_only(kit):
    items = [{"id": "E1", "text": kit.DOSE}, {"id": "E2", "text": kit.LEASE}]
    pack = build_pack(items)
    pack = EvidencePack.model_validate(pack.model_dump() | {"rules": pack.rules.model_dump() | {
        "allowed_evidence_ids": ["E2"]}})
    fails(kit, kit.envelope([claim(kit, ["E1"])]), {"evidence_binding": ["EVIDENCE_ID_NOT_ALLOWED"]}, evidence=pack)


def test_claim_text_not_in_the_answer(kit):
    env = kit.envelope([claim(kit, ["E1"])])
    env["meta"]["claim_map"][0]["text"] = "Ibuprofen is safe at any dose [E1]."
    fails(kit, env, {"claim_anchors": ["SENTENCE_UNCOVERED", "CLAIM_NOT_IN_TEXT"]})


def test_span_that_points_at_other_text(kit):
    env = kit.envelope([claim(kit, ["E1"])])
    env["meta"]["claim_map"][0]["span"] = {"start_char": 0, "end_char": 10}
    fails(kit, env, {"claim_anchors": ["SENTENCE_UNCOVERED", "SPAN_TEXT_MISMATCH"]})


# -- unicode tricks: ids are compared exactly, so a lookalike never resolves -----------------------------------------
LOOKALIKES = {
    "cyrillic-E": "\u04151",  # Cyrillic capital IE
    "greek-E": "\u03951",  # Greek capital epsilon
    "fullwidth": "\uff25\uff11",
    "zero-width-space": "E\u200b1",
    "zero-width-joiner": "E\u200d1",
    "rtl-mark": "\u200fE1",
    "ltr-override": "\u202dE1",
    "bom": "\ufeffE1",
    "soft-hyphen": "E\u00ad1",
    "trailing-space": "E1 ",
    "lowercase": "e1",
    "nbsp": "E1\u00a0",
    "combining-mark": "E\u03011",
}


@pytest.mark.parametrize("spoof", LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_lookalike_id_in_claim_map_and_marker(kit, spoof):
    result = kit.verify(kit.envelope([claim(kit, [spoof], marker=[spoof])]))
    failing = kit.failing(result.evaluation.results)
    assert result.status == "fail"
    assert failing["evidence_binding"] == ["UNKNOWN_EVIDENCE_ID"]
    assert "CITATION_UNKNOWN_EVIDENCE_ID" in failing["citation_integrity"]
    assert "USED_IDS_INCONSISTENT" in failing["citation_integrity"]
    assert [c.verdict for c in result.evaluation.claims] == ["FAIL"]


@pytest.mark.parametrize("spoof", [v for k, v in LOOKALIKES.items() if k not in ("trailing-space", "nbsp")],
                         ids=[k for k in LOOKALIKES if k not in ("trailing-space", "nbsp")])
def test_lookalike_marker_next_to_a_real_citation(kit, spoof):
    # the claim map is honest (E1), the visible marker is a lookalike: the reader sees a citation that resolves nowhere
    result = kit.verify(kit.envelope([claim(kit, ["E1"], marker=[spoof])]))
    failing = kit.failing(result.evaluation.results)
    assert result.status == "fail"
    assert set(failing) == {"citation_integrity"}
    assert failing["citation_integrity"][0] in ("INLINE_MARKER_UNRESOLVED", "INLINE_MARKER_MISSING")


@pytest.mark.parametrize("spoof", ["\u04151", "E\u200b1", "\uff25\uff11", "\u200fE1", "E1 "])
def test_lookalike_ids_cannot_enter_the_pack(spoof):
    with pytest.raises(Exception) as info:
        build_pack([{"id": spoof, "text": "x"}])
    assert "not a valid evidence id" in str(info.value)


def test_lookalike_ids_in_caller_evidence_are_input_errors(kit):
    with pytest.raises(InputError, match="not a valid evidence id"):
        kit.run([kit.envelope([claim(kit, ["E1"])])], evidence=[{"id": "\u04151", "text": kit.DOSE}])


@pytest.mark.parametrize("claim_id", ["\u04411", "c\u200b1", "c1\u200f", "\uff431"])
def test_lookalike_claim_ids_are_schema_violations(kit, claim_id):
    env = kit.envelope([claim(kit, ["E1"])])
    env["meta"]["claim_map"][0]["claim_id"] = claim_id
    result = kit.verify(env)
    assert kit.gates(result.evaluation.results)["output_schema"] == ("fail", ["SCHEMA_VIOLATION"])


def test_rtl_override_hiding_an_uncited_sentence(kit):
    # U+202E reverses what the reader sees; it is still text the gates check: an uncovered sentence
    env = kit.envelope([claim(kit, ["E1"])])
    env["assistant_text"] += " \u202e.yad rep gm 0004 si esod ehT"
    fails(kit, env, {"claim_anchors": ["SENTENCE_UNCOVERED"]})


def test_zero_width_characters_between_claim_and_text(kit):
    # the claim text differs from the shown text by a zero-width space: not the same text, not anchored
    env = kit.envelope([claim(kit, ["E1"])])
    env["meta"]["claim_map"][0]["text"] = env["meta"]["claim_map"][0]["text"].replace("dose", "do\u200bse")
    fails(kit, env, {"claim_anchors": ["SENTENCE_UNCOVERED", "CLAIM_NOT_IN_TEXT"]})


def test_every_spoof_is_caught_through_the_whole_pipeline(kit, store):
    """Spoofed output on every attempt: regen, then refusal (high stakes); nothing unverified reaches the user."""
    spoof = kit.envelope([claim(kit, ["\u04151"], marker=["\u04151"])])
    result = kit.run([spoof] * 3, store=store)
    assert result.status.value == "refused"
    assert len(result.attempts) == 3
    assert "1200 mg" not in result.assistant_text.split("\n")[0]
    assert not result.verified
    assert store.require(result.trace_id)["status"] == "refused"
