"""Shared set-up of the answer-mode tests."""

from __future__ import annotations

import pytest

from controlplane.contracts import AnswerMode
from controlplane.gates.interfaces import GateServices
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import load_bundle, parse_bundle


@pytest.fixture
def scorer_decides(scripted_model) -> Pipeline:
    """The shipped bundle in quote mode with the shipped answerability scorer deciding. The script holds no main
    output, so any call of the model would be an error attempt: the answer is the scorer's alone."""
    base = load_bundle()
    bundle = base.bundle.model_copy(update={"answer_mode": AnswerMode.QUOTE, "quote": base.bundle.quote.model_copy(
        update={"answerability": "scorer"})})
    policy = parse_bundle(bundle.model_dump(mode="json"), "test bundle")
    return Pipeline(model=scripted_model([{"output": "{}", "purpose": "critic"}]), policy=policy,
                    services=GateServices())

