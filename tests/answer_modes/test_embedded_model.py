"""Quote mode on the real embedded model (SmolLM2-135M through llama.cpp, the per-request choice grammar): the
README's quickstart question ends verified, and a choice the model makes is an offered sentence or UNKNOWN, shown
only as a verified, cited quote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controlplane.contracts import Phase, TraceStatus
from controlplane.contracts.text import strip_markers
from controlplane.gates.interfaces import GateServices
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import load_bundle, parse_bundle

pytestmark = pytest.mark.models

QUICKSTART = "What does ADR-011 say about the client/server boundary?"
ORION = "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. The team sits in Lyon."


def test_quickstart_question_ends_verified_and_cited(tmp_path: Path):
    env = {**os.environ, "CONTROLPLANE_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [str(Path(sys.executable).parent / "controlplane"), "ask", QUICKSTART, "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    assert data["model"] == "smollm2-135m"
    assert data["status"] == "pass" and data["verified"], data["assistant_text"]
    assert data["claims"] and all(c["verdict"] == "PASS" and c["evidence_ids"] for c in data["claims"])
    assert "[E" in data["assistant_text"]
    assert "server" in data["assistant_text"].lower()


def test_the_embedded_model_chooses_an_offered_sentence_or_unknown():
    from controlplane.adapters import load_model

    base = load_bundle().bundle
    bundle = base.model_copy(update={"quote": base.quote.model_copy(update={"answerability": "model"})})
    plane = Pipeline(model=load_model("default"), policy=parse_bundle(bundle.model_dump(mode="json"), "test"),
                         services=GateServices())
    result = plane.run([{"role": "user", "content": "When does the Orion project ship?"}],
                       evidence=[{"id": "E1", "text": ORION, "trust_tier": "authoritative"}])
    call = next(e.payload for e in result.events if e.phase is Phase.MODEL_CALL)
    assert call["model_id"] == "smollm2-135m" and call["answer_mode"] == "quote"
    assert call["quote"]["problem"] is None  # the grammar admits only valid choices
    assert result.status is TraceStatus.PASS
    factual = [c for c in result.claims if c.status == "FACTUAL"]
    assert factual and all(c.verdict == "PASS" and strip_markers(c.text) in ORION for c in factual)
    assert result.verified == (not any(c.status == "UNKNOWN" for c in result.claims))
