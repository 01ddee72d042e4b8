"""AttemptView: one attempt's output, derived once and read by every gate, the verdicts, degrade and the API.

An attempt is parsed once (gates/envelope_parsing.py) and handed to every gate in ``GateInput.attempt``. What the
gates need of its text is derived here, on first use, and kept: sentences with their offsets, claim anchors, inline
markers, atomic claims, and the NLI scores of (evidence, claim) pairs. A gate that needs no NLI triggers none; two
gates that score the same pair call the backend for it once. Like a request object built once and handed on,
nobody re-derives the same thing from the same text.

The view is frozen: what it derives is a pure function of the envelope (and, for scores, of the backend), so a
value, once derived, never changes. One view belongs to one attempt and is used from one thread.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from controlplane.contracts import EvidencePack, OutputEnvelope
from controlplane.contracts.text import Marker, Sentence, inline_markers, split_sentences, strip_markers

from .anchoring import Anchor, anchor_claims, spans_by_sentence
from .atomic_claims import AtomicClaim, split_atomic
from .lead_ins import introduced_span, states_nothing

_ITEM_NUMBER = re.compile(r"\d{1,3}\.")


def _is_item_number(text: str, sentence: Sentence) -> bool:
    """Whether ``sentence`` is an ordered list's item number: "12." alone, with nothing before it on its line."""
    if not (len(sentence.text) <= 4 and _ITEM_NUMBER.fullmatch(sentence.text)):
        return False
    line_start = text.rfind("\n", 0, sentence.start) + 1
    return not text[line_start:sentence.start].strip()


@dataclass(frozen=True, eq=False)
class AttemptView:
    """The derived facts of one attempt's envelope (None: the output did not parse; every view is then empty)."""

    envelope: OutputEnvelope | None
    # evidence id -> title, of the items that have one: the words a lead-in may use to name the cited document
    titles: Mapping[str, str] = field(default_factory=dict)
    _atoms: dict[str, tuple[AtomicClaim, ...]] = field(default_factory=dict, repr=False)
    _scores: dict[tuple[int, str, str], Any] = field(default_factory=dict, repr=False)

    @classmethod
    def over(cls, envelope: OutputEnvelope | None, pack: EvidencePack | None) -> AttemptView:
        """The view of an attempt over its evidence pack (the pack's titles name the documents a lead-in may name)."""
        titles = {item.id: item.title for item in pack.evidence if item.title} if pack is not None else {}
        return cls(envelope, titles)

    @property
    def text(self) -> str:
        return self.envelope.assistant_text if self.envelope is not None else ""

    @cached_property
    def sentences(self) -> tuple[Sentence, ...]:
        """The sentences of assistant_text with their offsets (the one splitter, controlplane.contracts.text)."""
        return tuple(split_sentences(self.text))

    @cached_property
    def content_sentences(self) -> tuple[tuple[int, Sentence], ...]:
        """(index, sentence) of the sentences that hold more than citation markers, or than the number of an ordered
        list's item ("1." at a line's start, which the splitter parts from its item's text), and that are no lead-in
        (``lead_ins``): the ones a verdict is for."""
        text, lead_ins = self.text, self.lead_ins
        return tuple((index, s) for index, s in enumerate(self.sentences)
                     if strip_markers(s.text) and not _is_item_number(text, s) and index not in lead_ins)

    @cached_property
    def lead_ins(self) -> dict[int, tuple[str, ...]]:
        """Sentence index -> the claims it introduces, for each sentence that is a lead-in (gates/lead_ins.py): it ends
        its line with a colon before a list item, or is a markdown heading; no claim sits in it, the list or section
        holds claims, and its words only introduce them or name a document those claims cite."""
        found: dict[int, tuple[str, ...]] = {}
        if self.envelope is None:
            return found
        text = self.text
        spans = [(index, sentence, span) for index, sentence in enumerate(self.sentences)
                 if (span := introduced_span(text, sentence)) is not None]
        if not spans:  # the usual answer: no line that introduces, nothing more to derive
            return found
        anchors = self.anchors.values()
        cited = {claim.claim_id: claim.evidence_ids for claim in self.envelope.meta.claim_map}
        for index, sentence, span in spans:
            if any(a.start < sentence.end and sentence.start < a.end for a in anchors):
                continue
            introduced = tuple(a.claim_id for a in anchors if span[0] <= a.start < span[1])
            titles = [self.titles[eid] for cid in introduced for eid in cited.get(cid, ()) if eid in self.titles]
            if introduced and states_nothing(strip_markers(sentence.text), titles):
                found[index] = introduced
        return found

    @cached_property
    def _anchoring(self) -> tuple[dict[str, Anchor], dict[str, str]]:
        if self.envelope is None:
            return {}, {}
        return anchor_claims(self.text, self.envelope.meta.claim_map)

    @property
    def anchors(self) -> dict[str, Anchor]:
        """Where each anchorable claim sits in assistant_text (read-only: shared by every reader)."""
        return self._anchoring[0]

    @property
    def anchor_problems(self) -> dict[str, str]:
        """A problem code per claim that cannot be anchored (SPAN_OUT_OF_BOUNDS, SPAN_TEXT_MISMATCH, ...)."""
        return self._anchoring[1]

    @cached_property
    def anchors_by_sentence(self) -> dict[int, list[Anchor]]:
        """Content sentence index -> the anchors that overlap that sentence, in anchor order (read-only: shared by
        every reader)."""
        anchors = list(self.anchors.values())
        return spans_by_sentence(self.content_sentences, [(a.start, a.end) for a in anchors], anchors)

    @cached_property
    def markers(self) -> tuple[Marker, ...]:
        return tuple(inline_markers(self.text))

    @cached_property
    def _marker_starts(self) -> list[int]:
        return [marker.start for marker in self.markers]

    def markers_within(self, start: int, end: int) -> tuple[Marker, ...]:
        """The markers that lie wholly inside ``[start, end)``, found by binary search: markers come in text order
        and do not overlap (the ids of one group share its offsets), so their ends are in order too."""
        first = bisect_left(self._marker_starts, start)
        last = first
        while last < len(self.markers) and self.markers[last].end <= end:
            last += 1
        return self.markers[first:last]

    def atoms(self, text: str) -> tuple[AtomicClaim, ...]:
        """The atomic claims of a claim (or sentence) text, split once per attempt (gates/atomic_claims.py)."""
        found = self._atoms.get(text)
        if found is None:
            found = self._atoms[text] = tuple(split_atomic(text))
        return found

    def atom_texts(self, text: str) -> list[str]:
        return [atom.text for atom in self.atoms(text)]

    def scores(self, backend: Any, pairs: Sequence[tuple[str, str]]) -> list[Any]:
        """NLI scores of (premise, hypothesis) pairs, in order. Each distinct pair goes to the backend once per
        attempt: one call for every pair not scored yet. A backend that fails or answers with the wrong number of
        scores raises, and nothing of that call is kept."""
        key = id(backend)
        missing = list(dict.fromkeys(pair for pair in pairs if (key, *pair) not in self._scores))
        if missing:
            scored = list(backend.score(missing))
            if len(scored) != len(missing):
                raise ValueError(f"returned {len(scored)} scores for {len(missing)} pairs")
            for pair, score in zip(missing, scored, strict=True):
                self._scores[(key, *pair)] = score
        return [self._scores[(key, *pair)] for pair in pairs]
