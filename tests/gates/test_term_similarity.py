"""controlplane.services.EmbeddingSimilarity, the term-similarity service every assembled plane gives its gates
(nli_entailment asks it whether a word swapped into a copied evidence sentence could mean the word it replaces)."""

from __future__ import annotations

import pytest

from controlplane.api import ControlPlane
from controlplane.gates.interfaces import TermSimilarity
from controlplane.services import EmbeddingSimilarity, build_services

pytestmark = pytest.mark.models  # the real MiniLM embedder


def test_a_near_synonym_is_closer_than_an_unrelated_word_and_the_bar_lies_between():
    similarity = EmbeddingSimilarity()
    near, far = similarity.similarity([("approved", "passed"), ("region", "complexity")])
    assert near > far and far < 0.2 <= near  # the nli_entailment bar (SWAP_MIN_SIMILARITY)


def test_answers_are_in_order_cached_and_repeatable():
    similarity = EmbeddingSimilarity()
    first = similarity.similarity([("region", "area"), ("region", "complexity"), ("region", "area")])
    assert first[0] == first[2] and len(first) == 3
    assert similarity.similarity([("region", "complexity")]) == [first[1]]
    assert EmbeddingSimilarity().similarity([("region", "area")]) == [first[0]]  # deterministic: replays read it


def test_every_assembled_plane_and_built_services_carry_one():
    assert isinstance(build_services(nli_backend="none").similarity, TermSimilarity)
    with ControlPlane(model=False, db=False, critic=False) as plane:
        assert isinstance(plane.services.similarity, EmbeddingSimilarity)


def test_the_pair_memo_answers_every_key_even_past_its_size_and_computes_each_once():
    from controlplane.services import PairMemo

    calls = []

    def lengths(pairs):
        calls.append(list(pairs))
        return [len(a) + len(b) for a, b in pairs]

    memo = PairMemo(2)
    keys = [("a", "bb"), ("ccc", "d"), ("a", "bb"), ("ee", "ff")]
    assert memo.values(keys, lengths) == ([3, 4, 3, 4], 3)  # three distinct keys, a cache of two
    assert calls == [[("a", "bb"), ("ccc", "d"), ("ee", "ff")]]
    assert memo.values([("ee", "ff")], lengths) == ([4], 0) and len(calls) == 1  # kept: the most recent
    assert memo.values([("a", "bb")], lengths) == ([3], 1)  # evicted: the least recent
