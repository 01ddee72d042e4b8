"""The one clock for timestamps that cross a boundary (trace events, stored rows, prompts, index entries): UTC,
ISO-8601, so every layer writes times the same way."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now(timespec: str = "auto") -> str:
    """Now in UTC as ISO-8601 (``timespec`` as for :meth:`datetime.isoformat`)."""
    return datetime.now(UTC).isoformat(timespec=timespec)
