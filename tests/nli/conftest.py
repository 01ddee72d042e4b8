"""Fixtures of the tests that send answers through the real pipeline (tests/nli/shipped_pipeline.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def plane_for(tmp_path_factory):
    """output -> a plane whose scripted model answers it (a fresh script in the module's own folder)."""
    from tests.nli.shipped_pipeline import plane_answering

    directory = tmp_path_factory.mktemp("answers")
    return lambda output: plane_answering(directory, output)
