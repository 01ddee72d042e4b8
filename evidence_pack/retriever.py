"""ChromaRetriever: the vector store as a source of evidence items (the seed's flow 4, gate retrieval_required).

It satisfies ``gates.interfaces.Retriever`` structurally (a ``name`` and ``retrieve(query, k)``) without importing the
gates package. Each hit becomes a RETRIEVAL_SNIPPET whose text is the chunk exactly as stored, hashed, with
provenance (source path, document id, page, start/end offsets into the document text, the quote, the retrieval
time, the collection and its ``state_root``), the cosine similarity as ``retrieval_score``, sphere INSIDE (the user's own documents, EBOM knowledge
spheres), and the trust tier and credibility recorded when the documents were indexed. Ids are stable chunk ids
(``R`` + 16 hex); the pack builder renumbers them E1, E2, ….

Retrieval is hybrid (issue 15): candidates come from the dense index (MiniLM cosine) and from a BM25 index over the
same chunks (``lexical``), ``FusionSettings.depth`` from each, and are ordered by the fused score (``fusion``). The
cosine stays the item's ``retrieval_score``; the fused score, the BM25 score, the share of the query's terms the chunk
holds and both ranks are recorded in ``retrieval_match``. ``fusion=None`` is dense retrieval alone (the order before
issue 15, kept for comparison: ``index query --dense-only``).

Order is deterministic: fused (dense: cosine) score descending, then id.

Scores are cosine similarities. With all-MiniLM-L6-v2 on the example corpus, the best hit for an on-topic question
scores 0.47-0.71 and off-topic questions ("What is the capital of France?", "LLC tax implications?") stay at or below
0.25, so a ``min_score`` (here, or the retrieval_required gate's parameter) of about 0.3 drops noise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import partial
from pathlib import Path

from controlplane.contracts import EvidenceItem, Provenance, RetrievalMatch, Sphere, TrustTier, Volatility
from controlplane.contracts.clock import utc_now

from .embeddings import embed
from .fusion import FusionSettings, fuse
from .lexical import lexical_index
from .vector_store import DEFAULT_COLLECTION, Hit, VectorStore, check_collection_name

RETRIEVAL_SNIPPET = "RETRIEVAL_SNIPPET"
DEFAULT_K = 5


def hit_to_item(hit: Hit, retrieved_at: str, index: str | None = None, state_root: str | None = None,
                match: RetrievalMatch | None = None) -> EvidenceItem:
    return EvidenceItem(
        id=hit.id,
        type=RETRIEVAL_SNIPPET,
        title=hit.title,
        text=hit.text,
        hash="sha256:" + hashlib.sha256(hit.text.encode("utf-8")).hexdigest(),
        trust_tier=TrustTier(hit.trust_tier),
        sphere=Sphere.INSIDE,
        provenance=Provenance(
            source=hit.source,
            document_id=hit.document_id,
            page=hit.page,
            start_char=hit.start_char,
            end_char=hit.end_char,
            quote=hit.text,
            retrieved_at=retrieved_at,
            indexed_at=hit.indexed_at or None,
            index=index,
            state_root=state_root,
        ),
        credibility=hit.credibility,
        volatility=Volatility.LOW,
        retrieval_score=hit.score,
        retrieval_match=match,
    )


class ChromaRetriever:
    """Retrieve evidence from one collection of a chromadb directory. The store is opened on first use."""

    def __init__(
        self,
        db_dir: str | Path,
        collection: str = DEFAULT_COLLECTION,
        k: int = DEFAULT_K,
        *,
        min_score: float | None = None,
        clock: Callable[[], str] | None = None,
        fusion: FusionSettings | None = FusionSettings(),  # noqa: B008 (frozen, so one default is safe)
    ) -> None:
        self.db_dir = Path(db_dir)
        self.collection = check_collection_name(collection)
        self.k = k
        self.min_score = min_score
        self.fusion = fusion
        self.name = f"chroma:{collection}"
        self._clock = clock or partial(utc_now, timespec="seconds")
        self._store: VectorStore | None = None

    @property
    def store(self) -> VectorStore:
        if self._store is None:
            self._store = VectorStore(self.db_dir)
        return self._store

    def check(self) -> int:
        """Fail early (InputError/ConfigurationError) if the index or collection is missing; returns the chunk count."""
        return self.store.count(self.collection)

    def retrieve(self, query: str, k: int | None = None) -> list[EvidenceItem]:
        """Up to k RETRIEVAL_SNIPPET items for ``query``, score descending then id. Empty query, empty list."""
        if not query or not query.strip():
            return []
        k = k or self.k
        if self.fusion is None:
            ranked: list[tuple[Hit, RetrievalMatch | None]] = [(h, None) for h in self.store.query(self.collection,
                                                                                                   query, k)]
        else:
            ranked = self._hybrid(query, k, self.fusion)
        if self.min_score is not None:
            ranked = [(h, m) for h, m in ranked if h.score >= self.min_score]
        retrieved_at = self._clock()
        # The index state the chunks came from (CFS-020 ContextMetadata.state_root), so the trace says which
        # substrate answered and a replay can tell when the index has changed since.
        root = self.state_root() if ranked else None
        return [hit_to_item(hit, retrieved_at, self.name, root, match) for hit, match in ranked]

    def _hybrid(self, query: str, k: int, fusion: FusionSettings) -> list[tuple[Hit, RetrievalMatch]]:
        """The k best fused candidates of the dense and the lexical search, with their match records."""
        total = self.store.count(self.collection)
        if total == 0:
            return []
        vector = embed([query])[0]
        dense = self.store.query_vector(self.collection, vector, min(fusion.depth, total))
        lexical = {h.id: h for h in lexical_index(self.store, self.collection).search(query, fusion.depth)}
        hits = {h.id: h for h in dense}
        missing = [id_ for id_ in lexical if id_ not in hits]
        hits.update((h.id, h) for h in self.store.hits_for_ids(self.collection, missing, vector))
        ordered = fuse({id_: h.score for id_, h in hits.items()},
                       {id_: lexical[id_].score for id_ in lexical if id_ in hits},
                       frozenset(h.id for h in dense), fusion)
        return [(hits[c.id], RetrievalMatch(
            method=fusion.method, fused_score=c.fused, bm25=c.bm25,
            query_coverage=lexical[c.id].coverage if c.id in lexical else 0.0,
            lexical_rank=c.lexical_rank, dense_rank=c.dense_rank)) for c in ordered[:k]]

    def state_root(self) -> str:
        return self.store.state_root(self.collection)

    def __repr__(self) -> str:
        return (f"ChromaRetriever(db_dir={str(self.db_dir)!r}, collection={self.collection!r}, k={self.k}, "
                f"fusion={self.fusion!r})")
