"""EvidencePack assembly: ids, hashes, budget, order, atomic facts, file formats, clear errors."""

from __future__ import annotations

import hashlib
import json

import pytest

from controlplane.contracts import BudgetConfig, EvidenceItem
from controlplane.evidence_pack import EvidenceError, build_pack, content_hash, extend_pack, read_evidence_file


def sha(text):
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def test_ids_hashes_and_rules():
    pack = build_pack([{"text": "alpha"}, {"id": "E1", "text": "beta"}, {"text": "gamma"}])
    assert pack.ids() == ["E2", "E1", "E3"]  # given ids kept, missing ones skip taken ids, caller order kept
    assert [i.hash for i in pack.evidence] == [sha("alpha"), sha("beta"), sha("gamma")]
    assert pack.rules.allowed_evidence_ids == ["E2", "E1", "E3"]
    assert pack.rules.must_cite_for_factual_claims and pack.rules.unknown_label_required
    assert not pack.truncated


def test_trust_tier_sets_default_credibility_and_sphere_defaults_inside():
    pack = build_pack([{"text": "a", "trust_tier": "authoritative"}, {"text": "b", "trust_tier": "low"},
                       {"text": "c", "credibility": 0.42}])
    assert [i.credibility for i in pack.evidence] == [0.95, 0.35, 0.42]
    assert {i.sphere.value for i in pack.evidence} == {"INSIDE"}
    assert pack.evidence[0].provenance.source == "caller"


def test_budget_drops_whole_items_and_flags_truncation():
    big = "x" * 400  # ~100 tokens
    pack = build_pack([{"text": big}, {"text": big}, {"text": "small"}], budget=BudgetConfig(max_context_tokens=120))
    assert pack.ids() == ["E1", "E3"] and pack.dropped_ids == ["E2"] and pack.truncated
    assert all(len(i.text) in (400, 5) for i in pack.evidence)  # never cut: the hash is of the exact text


def test_atomic_facts_are_first_class_evidence():
    fact = {"id": "FACT_012", "content": "Treatment X reduced symptom severity in adults over 65.", "source_type": "MANUAL",
            "source_span": {"document_id": "manual"}, "qualifiers": {"population": "adults over 65"}, "confidence": 0.9}
    pack = build_pack([{"text": "caller"}], facts=[fact])
    item = pack.get("FACT_012")
    assert item.type == "MANUAL_FACT" and item.qualifiers == {"population": "adults over 65"}
    assert item.credibility == 0.9 and item.provenance.source == "manual"


def test_retrieved_items_follow_in_score_order_and_are_renumbered():
    def snip(text, score, rid):
        return EvidenceItem(id=rid, type="RETRIEVAL_SNIPPET", text=text, hash=content_hash(text), retrieval_score=score)

    pack = build_pack([{"id": "E1", "text": "caller"}],
                      retrieved=[snip("low", 0.2, "Rb"), snip("high", 0.9, "Rz"), snip("tie", 0.2, "Ra")])
    assert [i.text for i in pack.evidence] == ["caller", "high", "tie", "low"]
    assert pack.ids() == ["E1", "E2", "E3", "E4"]
    extended = extend_pack(build_pack([{"text": "first"}]), [snip("more", 0.5, "Rq")], BudgetConfig())
    assert extended.ids() == ["E1", "E2"] and extended.evidence[1].retrieval_score == 0.5


def test_deterministic():
    items = [{"text": f"item {i}"} for i in range(10)]
    assert build_pack(items) == build_pack(items)


@pytest.mark.parametrize(
    "items, fragment",
    [
        ([{"title": "no text"}], "'text' must be a non-empty string"),
        ([{"text": "a", "colour": "red"}], "unknown field(s) colour"),
        ([{"id": "E1", "text": "a"}, {"id": "E1", "text": "b"}], "used twice"),
        ([{"id": "\u04151", "text": "homoglyph"}], "not a valid evidence id"),
        ([{"text": "a", "hash": "sha256:" + "0" * 64}], "'hash' does not match"),
        (["just a string"], "expected an object"),
        ([{"text": "a", "trust_tier": "legendary"}], "trust_tier"),
    ],
)
def test_bad_items_are_named(items, fragment):
    with pytest.raises(EvidenceError, match=None) as info:
        build_pack(items)
    assert fragment in str(info.value)


def test_caps_from_the_budget():
    with pytest.raises(EvidenceError, match="max_evidence_items"):
        build_pack([{"text": "a"}] * 3, budget=BudgetConfig(max_evidence_items=2))
    with pytest.raises(EvidenceError, match="max_evidence_chars"):
        build_pack([{"text": "a" * 50}], budget=BudgetConfig(max_evidence_chars=10))


def test_evidence_file_formats(tmp_path):
    array = tmp_path / "array.json"
    array.write_text(json.dumps([{"id": "E7", "text": "kept id"}, {"content": "fact", "source_type": "MANUAL",
                                                                   "id": "F1", "source_span": {"document_id": "m"}}]))
    items, facts, rules = read_evidence_file(array)
    assert [i["id"] for i in items] == ["E7"] and [f["id"] for f in facts] == ["F1"] and rules == {}

    pack_file = tmp_path / "pack.json"
    pack_file.write_text(json.dumps({"evidence": [{"text": "x"}], "rules": {"unknown_label_required": False,
                                                                           "allowed_evidence_ids": ["Z"]}}))
    items, facts, rules = read_evidence_file(pack_file)
    assert rules == {"unknown_label_required": False}  # allowed ids are always recomputed from the pack

    for content, fragment in [("{nope", "not valid JSON"), ('{"a": 1}', "expected a JSON array"),
                              ('{"evidence": 3}', "must be an array")]:
        bad = tmp_path / "bad.json"
        bad.write_text(content)
        with pytest.raises(EvidenceError, match=fragment):
            read_evidence_file(bad)
    with pytest.raises(EvidenceError, match="not found"):
        read_evidence_file(tmp_path / "missing.json")


def test_a_retrievers_own_hash_is_never_trusted():
    """The pack hashes the exact text it received; a retriever's wrong hash would otherwise make every bundle of
    the trace look edited to the integrity check (issue 16)."""
    from controlplane.contracts import BudgetConfig, EvidenceItem
    from controlplane.evidence_pack import build_pack, content_hash

    wrong = EvidenceItem(id="H1", type="RETRIEVAL_SNIPPET", text="We host on Fly.io.", hash="sha256:" + "0" * 64,
                         provenance={"source": "handbook"}, retrieval_score=0.9)
    pack = build_pack(retrieved=[wrong], budget=BudgetConfig())
    assert [item.hash for item in pack.evidence] == [content_hash("We host on Fly.io.")]


@pytest.mark.parametrize(
    "call, fragment",
    [
        # a field of the wrong type is named, never a TypeError/AttributeError (exit 1, HTTP 500): found by QA
        (lambda: build_pack([{"text": "a", "provenance": 5}]), "evidence[0].provenance"),
        (lambda: build_pack([{"text": "a", "provenance": {"source": 5}}]), "evidence[0].provenance.source"),
        (lambda: build_pack([{"text": "a", "source": 5}]), "evidence[0].provenance.source"),
        (lambda: build_pack([{"text": "a", "qualifiers": "adults"}]), "evidence[0].qualifiers"),
        (lambda: build_pack([{"text": "a"}], rules=5), "'rules' must be an object"),
        (lambda: build_pack([{"text": "a"}], rules=[1]), "'rules' must be an object"),
        (lambda: build_pack([{"text": "a"}], rules={"bogus": 1}), "rules.bogus"),
        # a single object, a string or a number is not a list of items (iterating it read keys or characters)
        (lambda: build_pack({"text": "a"}), "'evidence' must be a list"),
        (lambda: build_pack("We host on Fly.io."), "'evidence' must be a list"),
        (lambda: build_pack(5), "'evidence' must be a list"),
        (lambda: build_pack([], facts="x"), "'facts' must be a list"),
        (lambda: build_pack([], facts={"id": "F1"}), "'facts' must be a list"),
    ],
)
def test_malformed_fields_are_named_not_crashes(call, fragment):
    with pytest.raises(EvidenceError) as info:
        call()
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    "content, fragment",
    [
        ('{"evidence": [{"text": "a"}], "rules": 5}', "'rules' must be an object"),
        ('{"evidence": [{"text": "a"}], "facts": "x"}', "'facts' must be a list"),
    ],
)
def test_evidence_file_with_malformed_rules_or_facts_is_named(tmp_path, content, fragment):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(EvidenceError) as info:
        items, facts, rules = read_evidence_file(bad)
        build_pack(items, facts=facts, rules=rules)
    assert fragment in str(info.value)
