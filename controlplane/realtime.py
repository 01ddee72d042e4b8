"""Real-time query handling (EBOM "Real-Time Query Handling", "Staleness Warnings", knowledge spheres: LIMINAL).

The router marks a question time-sensitive when it holds one of the bundle's detection keywords
(``router.realtime_keywords``: today, now, current, latest, right now, as of 2026 ...; ModeDecision
``timeSensitiveQuery``). For such a question, after the pre-generation gates and before the model is called:

1. every evidence item's cache age is checked against its volatility's lifetime, capped at one hour for a
   time-sensitive question (evidence_pack/staleness.py; STATIC content never goes stale);
2. stale evidence is re-retrieved: the retriever is asked again ("force fresh retrieval") and what it returns fresh
   is merged into the pack. Without a retriever, or when nothing fresher comes back, the stale items stay, marked;
3. stale items become LIMINAL ("time-sensitive data past freshness threshold"), and an item that conflicts with
   older evidence (another number, or the opposite polarity, about the same subject: the evidence_conflicts gate's
   deterministic signal) becomes LIMINAL with the conflict as its reason. A claim that relies on a LIMINAL item
   gets its confidence multiplied by 0.8 (gates/sufficiency.py) and the item's reason among its warnings;
4. the reply carries the retrieval timestamp ("[As of ...]") and, when stale evidence is in the pack, the seed's
   staleness warning, as a system notice after the checked text (claim spans stay valid), and in
   ``verification.realtime`` (JSON, Response, HTTP).

Everything it did is one ``realtime`` trace event (Phase.REALTIME); items added by re-retrieval also get the usual
``retrieval`` event, so the trace bundle keeps the pack before and after retrieval.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from controlplane.contracts import BudgetConfig, EvidenceItem, EvidencePack, ModeDecision, Sphere
from controlplane.contracts.text import content_stems, split_sentences
from controlplane.evidence_pack import extend_pack
from controlplane.evidence_pack.staleness import cached_at, parse_time, staleness
from controlplane.gates.conflicts import SAME_SUBJECT_OVERLAP, deterministic_conflict

STALENESS_WARNING = ("[STALENESS WARNING: This information is from {timestamp}. "
                     "For time-sensitive decisions, verify current status.]")
NO_TIMESTAMP_NOTICE = "[The evidence carries no retrieval time: how current it is cannot be told.]"


@dataclass(frozen=True)
class RealtimeReport:
    """What real-time handling found and did for one request (the ``realtime`` trace event's payload)."""

    keywords: tuple[str, ...]
    checked_at: str
    retrieved_at: str | None
    stale: tuple[dict[str, Any], ...] = ()
    refresh: str = "not_needed"  # not_needed | performed | nothing_fresher | no_retriever | failed: ...
    refreshed_ids: tuple[str, ...] = ()
    liminal: tuple[dict[str, str], ...] = ()
    warnings: tuple[str, ...] = field(default=())

    @property
    def oldest_stale(self) -> str | None:
        stamps = [s["cached_at"] for s in self.stale if s.get("cached_at")]
        return min(stamps) if stamps else None

    def notice(self) -> str:
        """The system's own lines after the answer: the retrieval timestamp, and the staleness warning. Each in
        brackets, as every notice of the system is, so that no reader takes one for a checked sentence."""
        lines = [f"[As of {self.retrieved_at} (when the evidence was retrieved).]" if self.retrieved_at
                 else NO_TIMESTAMP_NOTICE]
        if self.stale:
            lines.append(STALENESS_WARNING.format(timestamp=self.oldest_stale or "an unknown time"))
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "time_sensitive_query": True, "keywords": list(self.keywords), "checked_at": self.checked_at,
            "retrieved_at": self.retrieved_at, "stale": [dict(s) for s in self.stale], "refresh": self.refresh,
            "refreshed_ids": list(self.refreshed_ids), "liminal": [dict(x) for x in self.liminal],
            "staleness_warnings": list(self.warnings), "notice": self.notice(),
        }


def retrieval_time(pack: EvidencePack) -> str | None:
    """The latest retrieval time of the pack's evidence (ISO-8601, as recorded), or None if none carries one."""
    stamped = [(parse_time(i.provenance.retrieved_at), i.provenance.retrieved_at) for i in pack.evidence]
    stamped = [(when, raw) for when, raw in stamped if when is not None]
    return max(stamped)[1] if stamped else None


def retrieve(retriever: Any, query: str, k: int, domains: Sequence[str] | None) -> list[EvidenceItem]:
    """Ask a retriever; one that takes ``domains`` (expert libraries) gets the request's domain flags."""
    if domains is not None and "domains" in inspect.signature(retriever.retrieve).parameters:
        return list(retriever.retrieve(query, k, domains=list(domains)))
    return list(retriever.retrieve(query, k))


def handle_realtime(decision: ModeDecision, pack: EvidencePack, *, now: datetime, query: str,
                    retriever: Any = None, k: int = 4, budget: BudgetConfig | None = None,
                    ) -> tuple[EvidencePack, RealtimeReport | None]:
    """The pack a time-sensitive question is answered from, and the report; (pack, None) for any other question."""
    if not decision.timeSensitiveQuery:
        return pack, None
    budget = budget or BudgetConfig()
    stale = [s for s in (staleness(i, now, time_sensitive=True) for i in pack.evidence) if s.stale]
    refresh, refreshed = "not_needed", ()
    if stale:
        if retriever is None:
            refresh = "no_retriever"
        else:
            try:
                fresh = retrieve(retriever, query, k, decision.domainFlags)
            except Exception as exc:  # the retriever is outside our control: the stale items stay, marked
                fresh, refresh = [], f"failed: {type(exc).__name__}: {str(exc)[:200]}"
            known = {i.hash for i in pack.evidence}
            fresh = [i for i in fresh if i.hash not in known and not staleness(i, now, time_sensitive=True).stale]
            if fresh:
                before = set(pack.ids())
                pack = extend_pack(pack, fresh, budget)
                refreshed = tuple(i for i in pack.ids() if i not in before)
                refresh = "performed" if refreshed else "nothing_fresher"
            elif not refresh.startswith("failed"):
                refresh = "nothing_fresher"
        # re-check over the merged pack: the items kept their ids, the fresh ones were numbered after them
        stale = [s for s in (staleness(i, now, time_sensitive=True) for i in pack.evidence) if s.stale]
    stale_ids = {s.evidence_id for s in stale}
    reasons = _liminal_reasons(pack.evidence, stale_ids)
    items = [item.model_copy(update={"sphere": Sphere.LIMINAL, "liminal_reason": reasons[item.id]})
             if item.id in reasons else item for item in pack.evidence]
    pack = pack.model_copy(update={"evidence": items})
    by_id = {i.id: i for i in items}
    report = RealtimeReport(
        keywords=tuple(decision.realtimeKeywords),
        checked_at=now.isoformat(timespec="seconds"),
        retrieved_at=retrieval_time(pack),
        stale=tuple({**s.as_dict(), "cached_at": _stamp(by_id[s.evidence_id])} for s in stale),
        refresh=refresh,
        refreshed_ids=refreshed,
        liminal=tuple({"id": i, "reason": r} for i, r in reasons.items()),
        warnings=tuple(s.warning for s in stale if s.warning),
    )
    return pack, report


def _stamp(item: EvidenceItem) -> str | None:
    when = cached_at(item)
    return when.isoformat(timespec="seconds") if when else None


def _liminal_reasons(items: Sequence[EvidenceItem], stale_ids: set[str]) -> dict[str, str]:
    """Item id -> why it is LIMINAL: stale for a time-sensitive question, or in conflict with older evidence."""
    reasons: dict[str, str] = {}
    for item in items:
        if item.id in stale_ids:
            reasons[item.id] = ("time-sensitive query: evidence past its freshness threshold "
                                f"(cached {_stamp(item) or 'at an unknown time'})")
    stems = {item.id: set(content_stems(item.text)) for item in items}
    sentences = {item.id: [(s.text, set(content_stems(s.text))) for s in split_sentences(item.text)] for item in items}
    for newer in items:
        for older in items:
            if newer.id == older.id or not _is_older(older, newer, stale_ids) or newer.redacted or older.redacted:
                continue
            if _conflicts(sentences[newer.id], older.text, stems[older.id]):
                reasons[newer.id] = (f"time-sensitive query: conflicts with older evidence {older.id} "
                                     f"(cached {_stamp(older) or 'at an unknown time'})")
                reasons[older.id] = (f"time-sensitive query: older evidence contradicted by {newer.id} "
                                     f"(cached {_stamp(newer) or 'at an unknown time'})")
    return reasons


def _is_older(older: EvidenceItem, newer: EvidenceItem, stale_ids: set[str]) -> bool:
    if older.id in stale_ids and newer.id not in stale_ids:
        return True
    a, b = cached_at(older), cached_at(newer)
    return a is not None and b is not None and a < b


def _conflicts(newer_sentences: list[tuple[str, set[str]]], older_text: str, older_stems: set[str]) -> bool:
    """A sentence of the newer item conflicts with the older item. deterministic_conflict needs SAME_SUBJECT_OVERLAP
    of the sentence's content words in one older sentence, so a sentence whose words the older item does not hold
    in that share is skipped without the (costly) sentence-by-sentence comparison."""
    for text, words in newer_sentences:
        if not words or len(words & older_stems) < SAME_SUBJECT_OVERLAP * len(words):
            continue
        if deterministic_conflict(older_text, text):
            return True
    return False


__all__ = ["NO_TIMESTAMP_NOTICE", "STALENESS_WARNING", "RealtimeReport", "handle_realtime", "retrieval_time"]
