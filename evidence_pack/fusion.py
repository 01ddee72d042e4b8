"""Fusing dense (MiniLM cosine) and lexical (BM25) candidates into one order (issue 15).

Candidates come from both halves (``FusionSettings.depth`` each); a candidate only one half found still gets both
scores (its cosine is computed from its stored vector, its BM25 is 0 when it shares no query word). Two ways to fuse:

- ``weighted`` (the default): ``cosine_weight * cosine + (1 - cosine_weight) * bm25 / best_bm25``, the BM25 divided by
  the best BM25 among the candidates so that both parts run on [0, 1]; with no lexical match at all it is the cosine
  order. ``cosine_weight = 1`` is dense retrieval.
- ``rrf``: reciprocal-rank fusion, ``1 / (rrf_k + dense rank) + 1 / (rrf_k + lexical rank)`` (Cormack et al. 2009,
  rrf_k = 60), which ignores the scores' scales altogether.

The fused score orders the evidence; it never replaces the cosine, which stays the item's ``retrieval_score`` (the
retrieval floor and the gates read it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from controlplane.contracts.errors import ConfigurationError

FUSION_METHODS = ("weighted", "rrf")

# Chosen on the SQuAD train and dev articles only (bench/retrieval.py --quality; the rule, written before the numbers:
# the fusion with the best MRR, ties to the higher cosine weight): 0.6 had MRR 0.902 there (dense 0.783, RRF 0.861, the
# neighbours 0.5 and 0.7 0.896 and 0.900). Test articles, read once after the choice: bench/results/retrieval.md.
DEFAULT_COSINE_WEIGHT = 0.6
DEFAULT_DEPTH = 50
RRF_K = 60


@dataclass(frozen=True)
class FusionSettings:
    method: str = "weighted"
    cosine_weight: float = DEFAULT_COSINE_WEIGHT
    depth: int = DEFAULT_DEPTH  # candidates drawn from each half
    rrf_k: int = RRF_K

    def __post_init__(self) -> None:
        if self.method not in FUSION_METHODS:
            raise ConfigurationError(f"fusion method {self.method!r} is not one of {', '.join(FUSION_METHODS)}")
        if not 0.0 <= self.cosine_weight <= 1.0:
            raise ConfigurationError(f"cosine_weight must lie in [0, 1] (got {self.cosine_weight})")
        if self.depth < 1 or self.rrf_k < 1:
            raise ConfigurationError("fusion depth and rrf_k must be at least 1")


@dataclass(frozen=True)
class FusedCandidate:
    id: str
    fused: float
    cosine: float
    bm25: float
    dense_rank: int | None  # 1-based rank among the dense candidates, None when only BM25 found it
    lexical_rank: int | None  # 1-based rank among the lexical candidates, None when BM25 did not find it


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    ordered = sorted(scores, key=lambda id_: (-scores[id_], id_))
    return {id_: rank for rank, id_ in enumerate(ordered, start=1)}


def fuse(cosine: Mapping[str, float], bm25: Mapping[str, float], dense_ids: set[str] | frozenset[str],
         settings: FusionSettings) -> list[FusedCandidate]:
    """Every candidate (the keys of ``cosine``, which holds a cosine for each), best fused first, then id.

    ``bm25`` holds the lexical candidates' scores (absent means 0); ``dense_ids`` says which candidates the dense
    search itself returned (their dense rank counts for RRF; a candidate only BM25 found has none)."""
    dense_rank = _ranks({id_: cosine[id_] for id_ in cosine if id_ in dense_ids})
    lexical_rank = _ranks({id_: score for id_, score in bm25.items() if score > 0 and id_ in cosine})
    best = max(bm25.values(), default=0.0)
    fused: list[FusedCandidate] = []
    for id_, cos in cosine.items():
        lexical = bm25.get(id_, 0.0)
        if settings.method == "rrf":
            score = sum(1.0 / (settings.rrf_k + rank) for rank in (dense_rank.get(id_), lexical_rank.get(id_))
                        if rank is not None)
        else:
            share = lexical / best if best > 0 else 0.0
            score = settings.cosine_weight * cos + (1.0 - settings.cosine_weight) * share
        fused.append(FusedCandidate(id_, round(score, 6), cos, lexical, dense_rank.get(id_), lexical_rank.get(id_)))
    fused.sort(key=lambda c: (-c.fused, c.id))
    return fused
