"""Benchmarks, apart from the tests: `./run bench [name]` or `python -m bench.<name>`."""

import os
from pathlib import Path

# The shared data (evaluation and training sets) is laid beside the checkout: ../shared from the project root, on a
# developer's machine and in CI's fresh clone alike. The settings name another folder.
SHARED_DIR = Path(__file__).resolve().parents[1].parent / "shared"
EVAL_DIR = Path(os.environ.get("CONTROLPLANE_EVAL_DIR", SHARED_DIR / "eval"))
NLI_TRAIN_DIR = Path(os.environ.get("CONTROLPLANE_NLI_TRAIN_DATA", SHARED_DIR / "nli-train"))
