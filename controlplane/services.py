"""Building the services gates may call (GateServices) from names.

``controlplane.ControlPlane`` (the one assembly, used by the CLI, ``serve``, the pytest plugin and replay) resolves
its NLI backend with ``resolve_nli_backend`` and puts one ``CachedNliBackend`` in front of it; ``build_services`` does
the same for code that drives the engine (``controlplane.pipeline.Pipeline``) directly, such as engine tests and
benchmarks.

``build_services(nli_backend=None)`` resolves the NLI backend by name through ``controlplane.nli.registry``:
an explicit name (``--nli-backend NAME``: ``shipped``, ``transformers:PATH``, a plugin name) is loaded now and a
failure is a ConfigurationError naming the option; with no name the policy bundle's nli_entailment ``params.backend``
is used, else the shipped verifier, loaded lazily on the first claim to verify. If that default cannot load, the
backend reports itself unavailable and nli_entailment fails closed with VERIFIER_UNAVAILABLE -- it never passes.
``none`` (or ``off``) configures no backend at all (same fail-closed result when a claim needs verifying).
The backend is wrapped in an LRU score cache (the decision gates and regen attempts repeat pairs).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from controlplane.contracts import PolicyBundle
from controlplane.contracts.errors import ConfigurationError
from controlplane.gates.interfaces import Critic, GateServices, NliBackend, NliScore, Retriever

V = TypeVar("V")

OPTION = "--nli-backend"
DEFAULT_BACKEND = "shipped"
NO_BACKEND = frozenset({"none", "off"})


class NliBackendUnavailable(RuntimeError):
    """The configured NLI backend cannot be loaded; the gate turns this into VERIFIER_UNAVAILABLE."""


class LazyNliBackend:
    """An NliBackend that loads the named backend on first use (torch is imported only when a claim needs it).

    A load failure is remembered and re-raised on every ``score`` as NliBackendUnavailable with the reason.
    """

    def __init__(self, name: str, **options: Any) -> None:
        self.name = name
        self._options = options
        self._backend: NliBackend | None = None
        self._error: str | None = None
        self._lock = threading.Lock()

    def _load(self) -> NliBackend:
        with self._lock:
            if self._backend is None and self._error is None:
                from controlplane.nli.registry import load_nli_backend

                try:
                    self._backend = load_nli_backend(self.name, **self._options)
                except Exception as exc:  # missing weights, torch absent, corrupt model: unavailable, never a pass
                    self._error = f"{type(exc).__name__}: {exc}"
            if self._backend is None:
                raise NliBackendUnavailable(f"NLI backend {self.name!r} cannot be loaded: {self._error}")
            return self._backend

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[NliScore]:
        return self._load().score(pairs)

    def metadata(self) -> dict[str, Any]:
        if self._backend is not None:
            return self._backend.metadata()
        return {"name": self.name, "loaded": False, "error": self._error}


class PairMemo(Generic[V]):
    """A bounded LRU of (text, text) -> value in front of a deterministic scorer: what is not known yet is computed
    in one call, in first-seen order, and every key asked gets its value even if the cache is smaller than the call."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._cache: OrderedDict[tuple[str, str], V] = OrderedDict()
        self._lock = threading.Lock()

    def values(self, keys: Sequence[tuple[str, str]],
               compute: Callable[[list[tuple[str, str]]], Sequence[V]]) -> tuple[list[V], int]:
        """The value of each key, in order, and how many distinct keys had to be computed."""
        with self._lock:
            known = {k: self._cache[k] for k in keys if k in self._cache}
            for k in known:
                self._cache.move_to_end(k)
        todo = list(dict.fromkeys(k for k in keys if k not in known))
        fresh = dict(zip(todo, compute(todo), strict=True)) if todo else {}
        with self._lock:
            for key, value in fresh.items():
                self._cache[key] = value
                while len(self._cache) > self.maxsize:
                    self._cache.popitem(last=False)
        found = {**known, **fresh}
        return [found[k] for k in keys], len(todo)


class CachedNliBackend:
    """An LRU cache of (premise, hypothesis) -> NliScore in front of a backend. nli_entailment and
    evidence_conflicts score many of the same pairs, and a regen attempt repeats most of the previous one; the
    backends are deterministic, so a cached score is the score."""

    def __init__(self, backend: NliBackend, maxsize: int = 8192) -> None:
        self.backend = backend
        self.name = getattr(backend, "name", "nli")
        self.maxsize = maxsize
        self._memo: PairMemo[NliScore] = PairMemo(maxsize)
        self.hits = 0
        self.misses = 0

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[NliScore]:
        keys = [(p, h) for p, h in pairs]
        scores, computed = self._memo.values(keys, self._score_fresh)
        self.hits += len(keys) - computed
        self.misses += computed
        return scores

    def _score_fresh(self, pairs: list[tuple[str, str]]) -> list[NliScore]:
        fresh = list(self.backend.score(pairs))
        if len(fresh) != len(pairs):
            raise ValueError(f"NLI backend {self.name!r} returned {len(fresh)} scores for {len(pairs)} pairs")
        return fresh

    def metadata(self) -> dict[str, Any]:
        return {**(self.backend.metadata() or {}), "cache": {"hits": self.hits, "misses": self.misses,
                                                             "maxsize": self.maxsize}}

    def __getattr__(self, item: str) -> Any:  # method, threshold ... of the wrapped backend
        return getattr(self.backend, item)


class EmbeddingSimilarity:
    """TermSimilarity from the evidence embedder (MiniLM, the one the pack and prose attribution use), loaded on the
    first call: most requests never ask (only a claim that swaps a term into a copied sentence does). Deterministic,
    so a replay reads the same cosines. A model that cannot load raises ConfigurationError naming its setting, and the
    gate that asked fails closed."""

    name = "minilm-cosine"

    def __init__(self, maxsize: int = 4096) -> None:
        self._memo: PairMemo[float] = PairMemo(maxsize)

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._memo.values([(a, b) for a, b in pairs], self._cosines)[0]

    @staticmethod
    def _cosines(pairs: list[tuple[str, str]]) -> list[float]:
        from controlplane.evidence_pack.embeddings import load_model

        # One text per forward pass: in a batch a text's vector moves with what else is in it (the padding changes
        # the kernels' blocking; seen on an AMD EPYC host: "area" beside "complexity" read 6e-8 away from "area"
        # alone), and a cosine that moved with the request could flip a verdict on replay. A request asks for a few
        # words, rarely: the extra passes cost milliseconds.
        model = load_model()
        vectors = {text: model.encode([text], normalize_embeddings=True, convert_to_numpy=True)[0]
                   for text in dict.fromkeys(text for pair in pairs for text in pair)}
        return [float(vectors[a] @ vectors[b]) for a, b in pairs]


def policy_backend_name(policy: PolicyBundle | None) -> str | None:
    if policy is None:
        return None
    for spec in policy.gates:
        if spec.gate_id == "nli_entailment":
            value = spec.params.get("backend")
            return str(value) if value else None
    return None


def resolve_nli_backend(name: str | None, policy: PolicyBundle | None = None, **options: Any) -> NliBackend | None:
    """The NLI backend for a run: explicit name (loaded now, errors raised), else policy/default (lazy)."""
    if name is not None:
        if name.strip().lower() in NO_BACKEND:
            return None
        from controlplane.nli.registry import load_nli_backend

        try:
            return load_nli_backend(name, **options)
        except ConfigurationError as exc:  # the backends name `eval`'s --backend; here the option is --nli-backend
            detail = re.sub(r"^--backend(?: \S+)?: ", "", str(exc)).replace("--backend ", f"{OPTION} ")
            raise ConfigurationError(f"{OPTION} {name}: {detail}") from None
        except Exception as exc:
            raise ConfigurationError(f"{OPTION} {name}: cannot load the NLI backend: {type(exc).__name__}: {exc}") from None
    default = policy_backend_name(policy) or DEFAULT_BACKEND
    if default.strip().lower() in NO_BACKEND:
        return None
    return LazyNliBackend(default, **options)


def build_services(nli_backend: str | None = None, retriever: Retriever | None = None, critic: Critic | None = None,
                   policy: PolicyBundle | None = None, **nli_options: Any) -> GateServices:
    """GateServices for ControlPlane(services=...): NLI backend by name, plus an optional retriever and critic."""
    backend = resolve_nli_backend(nli_backend, policy, **nli_options)
    return GateServices(retriever=retriever, nli_backend=CachedNliBackend(backend) if backend is not None else None,
                        critic=critic, similarity=EmbeddingSimilarity())


__all__ = ["CachedNliBackend", "EmbeddingSimilarity", "LazyNliBackend", "NliBackendUnavailable", "build_services",
           "resolve_nli_backend"]
