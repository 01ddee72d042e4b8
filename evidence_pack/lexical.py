"""BM25 over the chunks of one collection: the lexical half of hybrid retrieval (issue 15).

MiniLM ranks by meaning and misses rare exact words: "Who is paged first when production is down?" names the words of
the on-call policy's chunk ("paged", "production") but its cosine to that chunk is 0.28. BM25 (Robertson/Sparck Jones,
k1 = 1.2, b = 0.75) scores the chunks that share the query's words, rare words weighing most.

Terms come from the project's one tokenizer and stemmer (``contracts.text``: ``words``, ``STOPWORDS``, ``stem``), with
numbers kept as they are ("ADR-011" gives "adr" and "011", and "011" is what tells ADR-011 from ADR-012). A chunk is
indexed with its title in front, as it is embedded (``vector_store.embedding_text``).

``LexicalIndex`` is built from exactly the chunks the vector store holds (ids, texts, titles read from chromadb), so
the two halves can never disagree about what exists. ``lexical_index(store, collection)`` keeps one per collection in
memory and rebuilds it when the collection changes: the vector store stamps a new ``content_generation`` on the
collection at every add and removal (``VectorStore.touch``), and a dropped and re-created collection has a new id.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from controlplane.contracts.text import STOPWORDS, stem, words

K1 = 1.2
B = 0.75
GENERATION_KEY = "content_generation"  # collection metadata the vector store renews on every add and removal


def lexical_terms(text: str) -> list[str]:
    """The terms BM25 matches on: stemmed content words and numbers (stopwords and one-letter words dropped)."""
    return [w if w[0].isdigit() else stem(w) for w in words(text)
            if w not in STOPWORDS and (len(w) > 1 or w[0].isdigit())]


def indexed_text(text: str, title: str | None) -> str:
    """What a chunk is matched on: its title, then its text (the title is embedded with it too)."""
    return f"{title}. {text}" if title else text


@dataclass(frozen=True)
class LexicalHit:
    """One chunk's lexical match: BM25 score, and the IDF-weighted share of the query's terms the chunk holds
    (``coverage``: 1.0 when every query term occurs in it, whatever the chunk's length)."""

    id: str
    score: float
    coverage: float


class LexicalIndex:
    """BM25 postings over a fixed list of chunks. Immutable once built; rebuild it to change it."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str], titles: Sequence[str | None] | None = None) -> None:
        if len(ids) != len(texts) or (titles is not None and len(titles) != len(ids)):
            raise ValueError("give one text (and title) per id")
        self.ids = list(ids)
        titles = list(titles) if titles is not None else [None] * len(self.ids)
        postings: dict[str, tuple[list[int], list[int]]] = {}
        lengths = np.zeros(len(self.ids), dtype=np.float64)
        for row, (text, title) in enumerate(zip(texts, titles, strict=True)):
            counts = Counter(lexical_terms(indexed_text(text, title)))
            lengths[row] = sum(counts.values())
            for term, tf in counts.items():
                docs, tfs = postings.setdefault(term, ([], []))
                docs.append(row)
                tfs.append(tf)
        n = len(self.ids)
        average = float(lengths.mean()) if n and lengths.sum() else 1.0
        norm = K1 * (1.0 - B + B * lengths / average)
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._idf: dict[str, float] = {}
        for term, (docs, tfs) in postings.items():
            rows = np.asarray(docs, dtype=np.int64)
            tf = np.asarray(tfs, dtype=np.float64)
            # BM25's IDF, floored at 0 (Lucene's +1 form): a term in every chunk scores nothing, never negative
            self._idf[term] = math.log(1.0 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            self._postings[term] = (rows, tf * (K1 + 1.0) / (tf + norm[rows]))

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: str, k: int) -> list[LexicalHit]:
        """The k chunks with the highest BM25 score (> 0), score descending then id."""
        terms = list(dict.fromkeys(lexical_terms(query)))  # a repeated query word counts once
        known = [t for t in terms if t in self._postings]
        if not known or k < 1:
            return []
        scores = np.zeros(len(self.ids), dtype=np.float64)
        covered = np.zeros(len(self.ids), dtype=np.float64)
        for term in known:
            rows, weights = self._postings[term]
            scores[rows] += self._idf[term] * weights
            covered[rows] += self._idf[term]
        # Coverage is over every query term, the unknown ones included (at the highest IDF a term can have): a
        # query whose main word occurs nowhere is not covered by a chunk that matches its minor words.
        unseen_idf = math.log(1.0 + (len(self.ids) + 0.5) / 0.5)
        total_idf = sum(self._idf[t] for t in known) + unseen_idf * (len(terms) - len(known))
        matched = np.flatnonzero(scores > 0)
        order = sorted(matched.tolist(), key=lambda row: (-scores[row], self.ids[row]))[:k]
        return [LexicalHit(self.ids[row], round(float(scores[row]), 6),
                           round(float(covered[row] / total_idf), 6) if total_idf > 0 else 0.0) for row in order]


# ------------------------------------------------------------------------------------------------- per collection

_CACHE: dict[tuple[str, str], tuple[tuple[Any, ...], LexicalIndex]] = {}
_CACHE_LOCK = threading.Lock()


def collection_signature(collection: Any) -> tuple[Any, ...]:
    """What identifies a collection's content without reading it: its id (new when re-created), the generation the
    vector store stamped at its last write, and its size (which also catches a writer that did not stamp)."""
    return (str(collection.id), (collection.metadata or {}).get(GENERATION_KEY), int(collection.count()))


def lexical_index(store: Any, collection: str) -> LexicalIndex:
    """The BM25 index of ``collection`` in ``store`` (a VectorStore), rebuilt only when the collection changed."""
    handle = store._collection(collection)
    signature = collection_signature(handle)
    key = (str(store.db_dir.resolve()), collection)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
    if cached is not None and cached[0] == signature:
        return cached[1]
    data = handle.get(include=["documents", "metadatas"])
    titles = [(meta or {}).get("title") or None for meta in data["metadatas"] or []]
    index = LexicalIndex(data["ids"], data["documents"] or [], titles)
    with _CACHE_LOCK:
        _CACHE[key] = (signature, index)
    return index


def forget_lexical_indexes() -> None:
    """Drop every cached index (tests and benchmarks measure the cold build with it)."""
    with _CACHE_LOCK:
        _CACHE.clear()
