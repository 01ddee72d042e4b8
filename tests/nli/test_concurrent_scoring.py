"""One loaded verifier serves every thread: the gates of concurrent HTTP requests and the answerability scorer share
it (controlplane.nli.shipped.load_shipped). Its tokenizer is reconfigured between calls (truncation on for a batch,
off to count a text's word-pieces), which a second thread must never see half-done."""

from __future__ import annotations

import threading

import pytest

from controlplane.nli.shipped import load_shipped

pytestmark = pytest.mark.models

PAIRS = [
    ("The museum opened in 1902 and has three floors of exhibits about local history. " * 30,
     "The museum opened in 1902."),
    ("Parking is free on Sundays.", "Parking costs nothing on Sundays."),
    ("The library opens at 9am on weekdays.", "The library opens at noon."),
    ("Treatment X lowered symptom scores by 12% versus placebo in adults aged 65 and older.",
     "Treatment X lowered symptom scores by 12%."),
]


def test_threads_scoring_at_once_get_the_scores_one_thread_gets():
    backend = load_shipped(fresh=True)
    expected = [s.entailment for s in backend.score(PAIRS)]
    many = PAIRS * 16
    errors: list[BaseException] = []
    results: list[list[float]] = []
    start = threading.Barrier(4)

    def score(offset: int) -> None:
        try:
            start.wait()
            for round_ in range(8):
                shift = (offset + round_) % len(PAIRS)
                scores = [s.entailment for s in backend.score(PAIRS[shift:] + PAIRS[:shift])]
                results.append(scores[len(PAIRS) - shift:] + scores[:len(PAIRS) - shift])
        except BaseException as exc:  # the test reports whatever a thread raised
            errors.append(exc)

    def chunk() -> None:  # word-piece counting: the tokenizer without padding or truncation, as fast as it goes
        try:
            start.wait()
            for _ in range(40):
                backend.chunk_pairs(many)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=score, args=(i,)) for i in range(2)] + [threading.Thread(target=chunk)
                                                                             for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(results) == 16
    for scores in results:
        assert scores == pytest.approx(expected, abs=0.02)
