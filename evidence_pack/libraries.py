"""Expert libraries (EBOM "Domain-Specific Expert Libraries"): curated, high-credibility collections per domain,
queried before general retrieval and merged ahead of it.

A library is a collection of the vector index named ``lib.<name>``, whose collection metadata says what it is
(``kind: expert_library``, domain, version, credibility, volatility, licence, source, created). Every chunk carries
the library's credibility. :class:`ExpertFirstRetriever` asks the libraries whose domain is one of the request's
domain flags first, then the general retriever; library items carry ``EvidenceItem.library`` (name, version, domain,
licence: the provenance the reply and the trace show), the library's credibility and volatility, and the time they
were indexed (their cache age), and the pack builder puts them ahead of general items.

This is the Python API behind ``controlplane library add|list|remove|build-stdlib``; the CLI is a thin layer over it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from controlplane.contracts import EvidenceItem, LibraryRef, TrustTier, Volatility
from controlplane.contracts.clock import utc_now
from controlplane.contracts.errors import InputError

from .chunking import Document, iter_document_paths, read_document
from .embeddings import embed
from .retriever import DEFAULT_K, hit_to_item
from .vector_store import AddReport, Progress, VectorStore

LIBRARY_PREFIX = "lib."
LIBRARY_KIND = "expert_library"
NAME_RULE = "2-50 characters: lower-case letters, digits, '_', '.' or '-', starting and ending with a letter or digit"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,48}[a-z0-9]$")
_DOMAIN = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


def _quiet(_: str) -> None:
    return None


def _seconds_now() -> str:
    return utc_now(timespec="seconds")


def tier_for_credibility(credibility: float) -> TrustTier:
    """The EBOM domain-authority tier whose range holds ``credibility``."""
    for floor, tier in ((0.9, TrustTier.AUTHORITATIVE), (0.7, TrustTier.ESTABLISHED), (0.5, TrustTier.GENERAL),
                        (0.2, TrustTier.LOW)):
        if credibility >= floor:
            return tier
    return TrustTier.UNRELIABLE


@dataclass(frozen=True)
class LibraryInfo:
    name: str
    domain: str
    version: str
    credibility: float
    volatility: str
    licence: str | None
    source: str | None
    created: str | None
    chunks: int = 0
    documents: int = 0

    @property
    def collection(self) -> str:
        return LIBRARY_PREFIX + self.name

    def ref(self) -> LibraryRef:
        return LibraryRef(name=self.name, version=self.version, domain=self.domain, licence=self.licence)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "collection": self.collection}


def check_library_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or ".." in name:
        raise InputError(f"invalid library name {name!r}; use {NAME_RULE}")
    return name


def check_library_settings(domain: str, version: str, credibility: float, volatility: str,
                           known_domains: Sequence[str] | None = None) -> None:
    """InputError naming the field and the fix for a bad domain, version, credibility or volatility."""
    if not isinstance(domain, str) or not _DOMAIN.match(domain):
        raise InputError(f"invalid domain {domain!r}: use a policy domain name (lower-case letters, digits, '_')")
    if known_domains is not None and domain not in known_domains:
        raise InputError(f"domain {domain!r} is not a domain of the policy ({', '.join(sorted(known_domains))}); a "
                         "library is queried only for requests routed to its domain, so pick one of those")
    if not isinstance(version, str) or not version.strip():
        raise InputError("version must be a non-empty string, e.g. --version 3.12.0")
    if not isinstance(credibility, (int, float)) or not 0.0 <= float(credibility) <= 1.0:
        raise InputError(f"credibility must be between 0 and 1 (got {credibility!r}); EBOM: 0.95 for official docs")
    if volatility not in {v.value for v in Volatility}:
        raise InputError(f"volatility must be one of {', '.join(v.value for v in Volatility)} (got {volatility!r})")


def add_library(
    store: VectorStore,
    name: str,
    sources: Sequence[str | Path] | Sequence[Document],
    *,
    domain: str,
    version: str,
    credibility: float,
    volatility: str = Volatility.LOW.value,
    licence: str | None = None,
    source: str | None = None,
    known_domains: Sequence[str] | None = None,
    progress: Progress = _quiet,
) -> AddReport:
    """Add documents (paths, or Documents already read) to library ``name``, creating it; re-adding a document
    replaces its chunks and the library's settings are updated. Everything is validated before anything is written."""
    check_library_name(name)
    check_library_settings(domain, version, credibility, volatility, known_domains)
    if not sources:
        raise InputError("give at least one file or folder to add to the library")
    if all(isinstance(s, Document) for s in sources):
        documents = list(sources)
    else:
        files = list(iter_document_paths([Path(s) for s in sources]))
        if not files:
            raise InputError(f"no .txt, .md, .markdown or .pdf files under {', '.join(map(str, sources))}; give "
                             "files of those types")
        documents = [read_document(path, display) for path, display in files]
    metadata = {
        "kind": LIBRARY_KIND, "library_name": name, "domain": domain, "version": version.strip(),
        "credibility": float(credibility), "volatility": volatility, "licence": licence or "unspecified",
        "source": source or "", "created": utc_now(timespec="seconds"),
    }
    return store.add_documents(LIBRARY_PREFIX + name, documents, trust_tier=tier_for_credibility(float(credibility)),
                               credibility=float(credibility), collection_metadata=metadata, progress=progress)


def list_libraries(store: VectorStore, *, sizes: bool = True) -> list[LibraryInfo]:
    """The index's libraries; ``sizes=False`` reads only their metadata (no per-passage scan: what retrieval needs)."""
    infos = []
    collections = ({c.name: c for c in store.list_collections()} if sizes else
                   {name: None for name in store.collection_names()})
    for name, collection in collections.items():
        if not name.startswith(LIBRARY_PREFIX):
            continue
        meta = store.collection_metadata(name)
        if meta.get("kind") != LIBRARY_KIND:
            continue
        infos.append(LibraryInfo(
            name=str(meta.get("library_name") or name[len(LIBRARY_PREFIX):]),
            domain=str(meta.get("domain")), version=str(meta.get("version")),
            credibility=float(meta.get("credibility", 0.0)), volatility=str(meta.get("volatility", "LOW")),
            licence=meta.get("licence") or None, source=meta.get("source") or None, created=meta.get("created"),
            chunks=collection.chunks if collection else 0, documents=len(collection.documents) if collection else 0,
        ))
    return infos


def remove_library(store: VectorStore, name: str) -> int:
    """Drop a library; returns the chunks removed. An unknown name is an InputError listing the libraries."""
    check_library_name(name)
    known = [info.name for info in list_libraries(store)]
    if name not in known:
        raise InputError(f"no library {name!r} in {store.db_dir} (libraries: {', '.join(known) or 'none'}); see "
                         f"them with `controlplane library list --index {store.db_dir}`")
    return store.remove(LIBRARY_PREFIX + name)


class ExpertFirstRetriever:
    """Expert libraries of one index first (those of the request's domains), then the general retriever.

    Satisfies ``gates.interfaces.Retriever``; ``retrieve`` also takes ``domains`` (the request's domain flags; None
    asks every library). Library hits below ``min_score`` are dropped; at most ``k`` come from the libraries and at
    most ``k`` from the general retriever, library items first, an item the general retriever also returns once.
    """

    def __init__(self, db_dir: str | Path, general: Any = None, k: int = DEFAULT_K, *,
                 min_score: float | None = None, clock: Callable[[], str] = _seconds_now) -> None:
        self.db_dir = Path(db_dir)
        self.general = general
        self.k = k
        self.min_score = min_score
        self.name = getattr(general, "name", None) or "expert_libraries"
        self._clock = clock
        self._store: VectorStore | None = None

    @property
    def store(self) -> VectorStore | None:
        if self._store is None and (self.db_dir / "chroma.sqlite3").is_file():
            self._store = VectorStore(self.db_dir)
        return self._store

    def check(self) -> int:
        return self.general.check() if hasattr(self.general, "check") else 0

    def libraries(self, domains: Sequence[str] | None = None) -> list[LibraryInfo]:
        store = self.store
        if store is None:
            return []
        return [lib for lib in list_libraries(store, sizes=False) if domains is None or lib.domain in domains]

    def retrieve(self, query: str, k: int | None = None, domains: Sequence[str] | None = None) -> list[EvidenceItem]:
        if not query or not query.strip():
            return []
        k = k or self.k
        retrieved_at = self._clock()
        expert: list[EvidenceItem] = []
        libraries = self.libraries(domains)
        vector = embed([query])[0] if libraries else None  # one embedding for every library
        for lib in libraries:
            hits = self.store.query_vector(lib.collection, vector, k)
            if self.min_score is not None:
                hits = [h for h in hits if h.score >= self.min_score]
            expert.extend(library_item(hit_to_item(hit, retrieved_at), lib) for hit in hits)
        expert = sorted(expert, key=lambda item: (-(item.retrieval_score or 0.0), item.id))[:k]
        general = list(self.general.retrieve(query, k)) if self.general is not None else []
        seen = {item.hash for item in expert}
        return expert + [item for item in general if item.hash not in seen]

    def __repr__(self) -> str:
        return f"ExpertFirstRetriever(db_dir={str(self.db_dir)!r}, general={self.general!r}, k={self.k})"


def library_item(item: EvidenceItem, lib: LibraryInfo) -> EvidenceItem:
    """A retrieved item as an expert-library item: the library's credibility, tier, volatility and provenance."""
    return item.model_copy(update={
        "credibility": lib.credibility, "trust_tier": tier_for_credibility(lib.credibility),
        "volatility": Volatility(lib.volatility), "library": lib.ref(),
    })


__all__ = [
    "LIBRARY_KIND",
    "LIBRARY_PREFIX",
    "ExpertFirstRetriever",
    "LibraryInfo",
    "add_library",
    "check_library_name",
    "check_library_settings",
    "library_item",
    "list_libraries",
    "remove_library",
    "tier_for_credibility",
]
