"""Staleness by volatility (EBOM "Temporal Dynamics"): cache lifetimes, staleness warnings, time-sensitive queries.

HIGH volatility lives 1 hour, MEDIUM 24 hours, LOW 7 days, STATIC forever. Age is the cache age: measured from
``indexed_at`` (when a retrieved item's content entered the local index; its ``retrieved_at`` is only the query
time), else ``retrieved_at``, else ``published_at``. An item with no timestamp has an unknown age: never stale, but
the result says so. A time-sensitive question ("today", "latest", ...) makes anything older than an hour stale.
Imports only controlplane.contracts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from controlplane.contracts import EvidenceItem, Volatility

LIFETIMES: dict[Volatility, timedelta | None] = {
    Volatility.HIGH: timedelta(hours=1),
    Volatility.MEDIUM: timedelta(hours=24),
    Volatility.LOW: timedelta(days=7),
    Volatility.STATIC: None,
}
TIME_SENSITIVE_LIFETIME = timedelta(hours=1)
STALE_FRESHNESS = 0.5  # temporal_freshness factor of a stale item in EBOM's source confidence
# EBOM real-time keywords ("today", "now", "current", "latest", "right now", "as of 2026"); a bare "now" is too
# common in ordinary prose ("citations are now optional"), so only "right now" / "as of now" / "now?" count.
_TIME_SENSITIVE = re.compile(r"\b(today|right now|as of now|now\?|current(?:ly)?|latest|as of \d{4}|"
                             r"this (?:week|month|year))(?=\W|$)", re.IGNORECASE)


def parse_time(value: str | None) -> datetime | None:
    """ISO-8601 date or datetime -> aware UTC datetime; None for missing or unparseable values."""
    if not value:
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        try:
            parsed = datetime.strptime(text[:10], "%Y-%m-%d")
        except ValueError:
            return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def is_time_sensitive(question: str) -> bool:
    return bool(_TIME_SENSITIVE.search(question or ""))


def dated(item: EvidenceItem) -> datetime | None:
    """When the content dates from, for 'which source is current': published_at, else retrieved_at."""
    return parse_time(item.provenance.published_at) or parse_time(item.provenance.retrieved_at)


@dataclass(frozen=True)
class Staleness:
    evidence_id: str
    stale: bool
    age_seconds: float | None
    lifetime_seconds: float | None
    freshness: float  # EBOM temporal_freshness, 0..1
    warning: str | None

    def as_dict(self) -> dict:
        return {"evidence_id": self.evidence_id, "stale": self.stale, "age_seconds": self.age_seconds,
                "lifetime_seconds": self.lifetime_seconds, "freshness": self.freshness, "warning": self.warning}


def cached_at(item: EvidenceItem) -> datetime | None:
    """When the item's content was captured (its cache age starts): indexed_at, retrieved_at, published_at."""
    prov = item.provenance
    return parse_time(prov.indexed_at) or parse_time(prov.retrieved_at) or parse_time(prov.published_at)


def staleness(item: EvidenceItem, now: datetime, *, time_sensitive: bool = False) -> Staleness:
    stamp = cached_at(item)
    lifetime = LIFETIMES[item.volatility]
    if time_sensitive and item.volatility is not Volatility.STATIC:
        lifetime = min(lifetime, TIME_SENSITIVE_LIFETIME) if lifetime else TIME_SENSITIVE_LIFETIME
    if stamp is None:
        return Staleness(item.id, False, None, lifetime.total_seconds() if lifetime else None, 1.0, None)
    age = max(0.0, (now - stamp).total_seconds())
    if lifetime is None or age <= lifetime.total_seconds():
        return Staleness(item.id, False, age, lifetime.total_seconds() if lifetime else None, 1.0, None)
    warning = (f"[STALENESS WARNING: {item.id} is from {stamp.date().isoformat()} "
               f"({_human(age)} old; {item.volatility.value} volatility allows {_human(lifetime.total_seconds())}). "
               "For time-sensitive decisions, verify current status.]")
    return Staleness(item.id, True, age, lifetime.total_seconds(), STALE_FRESHNESS, warning)


def _human(seconds: float) -> str:
    if seconds >= 86400:
        return f"{seconds / 86400:.0f} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.0f} hours"
    return f"{seconds / 60:.0f} minutes"


__all__ = ["LIFETIMES", "Staleness", "cached_at", "dated", "is_time_sensitive", "parse_time", "staleness"]
