"""Where controlplane keeps its local state by default.

Everything lives under one home directory: ``$CONTROLPLANE_HOME`` when set, else ``.controlplane`` under the current
directory (per project, like ``.git``). Every command that touches state also takes an explicit path flag; these are
only the defaults.
"""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "CONTROLPLANE_HOME"


def home_dir() -> Path:
    """``$CONTROLPLANE_HOME`` if set (and non-empty), else ``./.controlplane``. Not created here."""
    configured = os.environ.get(HOME_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    return Path.cwd() / ".controlplane"


def default_index_dir() -> Path:
    """The chromadb directory used by ``controlplane index`` and retrieval when no ``--db`` is given."""
    return home_dir() / "index"


def default_trace_db() -> Path:
    """The SQLite trace store used when no ``--db`` is given to trace commands."""
    return home_dir() / "traces.db"
