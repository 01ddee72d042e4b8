"""The decision-gate tests import their shared helpers (decision_helpers, nli_backends) from this folder
(pytest runs with --import-mode=importlib, which does not put test folders on sys.path)."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
