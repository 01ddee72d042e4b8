"""What the tests that send answers through the real pipeline with the shipped verifier share: the offline settings,
a mark that skips them where the verifier's weights are missing, a plane whose scripted model gives one answer, and
a one-claim answer over a corpus's pages."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

pytest.importorskip("torch")
pytest.importorskip("transformers")

from controlplane import ControlPlane  # after the offline settings and the skips
from controlplane.nli.shipped import verifier_dir
from controlplane.pytest_plugin import GateHarness

needs_shipped_verifier = pytest.mark.skipif(not (verifier_dir() / "config.json").is_file(),
                                            reason="shipped verifier weights are missing")


def plane_answering(directory: Path, output: dict) -> ControlPlane:
    """A plane (no trace store, no critic, the shipped bundle and verifier) whose model answers ``output`` on each of
    its three attempts."""
    from controlplane.adapters.scripted import ScriptedModel

    path = directory / f"script_{len(list(directory.iterdir()))}.jsonl"
    path.write_text("\n".join(json.dumps(output) for _ in range(3)) + "\n", encoding="utf-8")
    return ControlPlane(model=ScriptedModel(path), db=False, critic=False)


def one(text: str, *ids: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """An answer that is one claim, citing ``ids``: (assistant_text, [(claim text, ids)])."""
    return text, [(text, list(ids))]


def pages_as_evidence(folder: Path, pages: list[str]) -> tuple[list[dict], dict[str, str]]:
    """Every page's chunks as retrieved evidence (E1, E2 ... in page order, titles as the ask path chunks them), and
    the page of each id."""
    from controlplane.evidence_pack.chunking import chunk_document, read_document

    evidence, page_of = [], {}
    for page in pages:
        for chunk in chunk_document(read_document(folder / page)):
            item_id = f"E{len(evidence) + 1}"
            evidence.append({"id": item_id, "title": chunk.title, "text": chunk.text, "type": "RETRIEVAL_SNIPPET",
                             "trust_tier": "authoritative"})
            page_of[item_id] = page
    return evidence, page_of


def respond_over_pages(plane_for, text: str, folder: Path, pages: list[str], questions: dict[str, str]):
    """A one-claim answer over its page's chunks (``pages_as_evidence``), asked the question ``questions`` gives its
    first cited id, in the mode the router decides: learnt from a first reply, as a model is told it in its prompt."""
    ids = re.findall(r"E\d+", text)
    claims = [(text, ids)]
    evidence, page_of = pages_as_evidence(folder, pages)
    evidence = [item for item in evidence if page_of[item["id"]] == page_of[ids[0]]]
    question = questions[ids[0]]
    first = plane_for(GateHarness.envelope(text, claims, domain_flags=["requires_retrieval"])).respond(
        question, evidence=evidence)
    if first.mode == "System" and list(first.domain_flags) == ["requires_retrieval"]:
        return first
    return plane_for(GateHarness.envelope(text, claims, mode=first.mode, domain_flags=first.domain_flags)).respond(
        question, evidence=evidence)


def assert_shown_verified_as_written(response, text: str) -> None:
    """A faithful answer: passed, verified, and shown exactly as the model wrote it."""
    assert response.status == "pass" and response.verified, response.assistant_text
    assert response.assistant_text == text


def assert_neither_verified_nor_shown(response, text: str) -> None:
    """A lie: not verified, and its sentence (markers left out) nowhere in the reply."""
    assert not response.verified, response.assistant_text
    assert re.sub(r"\s*\[E\d+\]", "", text).rstrip(".") not in response.assistant_text, response.assistant_text


def assert_gap_lists_name_wordings(faithful: list[str], known_gaps: set[str], lies: list[str],
                                   lies_still_shown: set[str]) -> None:
    """A known gap or a lie still shown that names no wording of its set (a typo) would exempt nothing; and no
    wording is in a set twice or in both."""
    assert known_gaps <= set(faithful) and lies_still_shown <= set(lies)
    assert len(set(faithful)) == len(faithful) and len(set(lies)) == len(lies) and not set(faithful) & set(lies)


def corpus_wordings_tests(faithful: list[str], known_gaps: set[str], lies: list[str], lies_still_shown: set[str],
                          respond: Callable[[Any, str], Any]) -> tuple[Callable[..., None], ...]:
    """The four tests of a corpus's wordings, for its module to bind to names of its own: each faithful answer not a
    known gap is verified and shown as written, each known gap is still not verified, each lie not still shown is
    neither verified nor shown, and the gap lists name wordings of the set. ``respond(plane_for, text)`` answers one
    wording over the corpus."""

    @pytest.mark.parametrize("text", [t for t in faithful if t not in known_gaps])
    def faithful_answer_verified(text: str, plane_for: Any) -> None:
        assert_shown_verified_as_written(respond(plane_for, text), text)

    @pytest.mark.parametrize("text", sorted(known_gaps))
    def known_gap_still_not_verified(text: str, plane_for: Any) -> None:
        assert not respond(plane_for, text).verified

    @pytest.mark.parametrize("text", [t for t in lies if t not in lies_still_shown])
    def lie_neither_verified_nor_shown(text: str, plane_for: Any) -> None:
        assert_neither_verified_nor_shown(respond(plane_for, text), text)

    def gap_lists_name_wordings() -> None:
        assert_gap_lists_name_wordings(faithful, known_gaps, lies, lies_still_shown)

    return faithful_answer_verified, known_gap_still_not_verified, lie_neither_verified_nor_shown, \
        gap_lists_name_wordings
