"""structlog configured once: JSON lines when stderr is not a terminal, pretty when it is.

Pipeline code binds trace_id (and seq, gate_id) so a log line can always be matched to its trace event.
Level from CONTROLPLANE_LOG (default WARNING, so --json output on stdout stays clean).
"""

from __future__ import annotations

import logging
import os
import sys

import structlog

_configured = False


def configure(level: str | None = None) -> None:
    global _configured
    name = (level or os.environ.get("CONTROLPLANE_LOG") or "WARNING").upper()
    numeric = getattr(logging, name, logging.WARNING)
    renderer = (
        structlog.dev.ConsoleRenderer(colors=False) if sys.stderr.isatty() else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    _configured = True


def get_logger(**bound):
    if not _configured:
        configure()
    return structlog.get_logger("controlplane").bind(**bound)
