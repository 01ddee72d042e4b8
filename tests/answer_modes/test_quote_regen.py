"""A regen in quote mode never offers again a sentence whose claim failed (controlplane/answer_modes.py). No model:
the ranking is built by hand, so this runs in the fast loop."""

from __future__ import annotations

from controlplane.answer_modes import QuoteAnswering, QuoteTurn
from controlplane.contracts import OutputEnvelope
from controlplane.policy_bundles.loader import load_bundle
from controlplane.quote import Candidate, Ranking, compose_answer
from controlplane.router import route

FIRST = "Backups are kept for 35 days."
SECOND = "Snapshots are copied to a second region."
TEXT = f"{FIRST} {SECOND}"


def answering() -> QuoteAnswering:
    bundle = load_bundle().bundle
    quoting = QuoteAnswering.__new__(QuoteAnswering)  # no MiniLM: the ranking below stands in for rank_candidates
    quoting.settings = bundle.quote
    quoting.failed = set()
    quoting.ranking = Ranking("How long are backups kept?", (
        Candidate(0, "E1", FIRST, 0, len(FIRST), 0.9, 0.9),
        Candidate(0, "E1", SECOND, len(FIRST) + 1, len(TEXT), 0.5, 0.5),
    ), 0.4)
    return quoting


def test_a_failed_quote_is_not_offered_again():
    quoting = answering()
    bundle = load_bundle().bundle
    decision = route("How long are backups kept?", bundle)
    best = quoting.ranking.candidates(quoting.settings)[0]
    assert best.text == FIRST
    envelope = OutputEnvelope.model_validate(compose_answer([best], decision, _pack()))
    assert envelope.meta.claim_map[0].text == f"{FIRST} [E1]"  # the claim carries its marker; the sentence does not
    quoting.after_failure(QuoteTurn([best]), envelope, ["c1"])
    assert quoting.failed == {("E1", 0, len(FIRST))}
    offered = quoting.ranking.candidates(quoting.settings, frozenset(quoting.failed))
    assert [c.text for c in offered] == [SECOND]


def _pack():
    from controlplane.evidence_pack.builder import build_pack

    return build_pack([{"id": "E1", "text": TEXT, "source": "retention.md"}])


def test_a_failed_table_quote_is_not_offered_again():
    """A table row's quote spans two lines (header and row); the claim holds it with its marker."""
    quoting = answering()
    row = "| data | retention |\n| database backups | 35 days |"
    quoting.ranking = Ranking("How long are backups kept?", (Candidate(0, "E2", row, 40, 70, 0.9, 0.9),), 0.4)
    decision = route("How long are backups kept?", load_bundle().bundle)
    pack = _pack_with("E2", "| data | retention |\n| --- | --- |\n| database backups | 35 days |\n")
    envelope = OutputEnvelope.model_validate(compose_answer(quoting.ranking.candidates(quoting.settings), decision, pack))
    quoting.after_failure(QuoteTurn([]), envelope, ["c1"])
    assert quoting.failed == {("E2", 40, 70)}


def _pack_with(evidence_id, text):
    from controlplane.evidence_pack.builder import build_pack

    return build_pack([{"id": evidence_id, "text": text, "source": "retention.md"}])
