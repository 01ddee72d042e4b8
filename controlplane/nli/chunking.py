"""Split long evidence into sentence windows that fit the model next to the whole claim.

The rule (used by every transformers backend, and in evaluation):

1. The claim (hypothesis) is kept whole, up to ``max_length - min(MIN_PREMISE_TOKENS, max_length // 2) - 3`` word-pieces; a longer claim
   is cut at that point (a cross-encoder cannot see more).
2. If the evidence fits in the remaining budget, it is one chunk.
3. Otherwise the evidence is split into sentences (controlplane.contracts.text, the one splitter), and
   consecutive sentences are packed greedily into windows of at most the budget. Each next window starts with the
   last sentence of the previous one (one sentence of overlap), so a fact spanning a sentence boundary is seen whole.
   A single sentence longer than the budget is cut into budget-sized word-piece slices.
4. Each window is scored against the claim; the pair's score is that of the *best chunk*: the window with the highest
   P(entailed). Its P(contradicted) and P(neutral) are reported with it (not a max over windows: in a long article an
   unrelated paragraph "contradicting" a claim is noise, and a claim is supported if some window supports it).
5. Cost bound: when a passage yields more than ``max_windows`` windows (default 4; long web articles give 30+),
   only the ``max_windows`` windows sharing the most content words with the claim are scored (ties: earlier first).
   This lexical pre-ranking is the only retrieval step; set ``max_windows=None`` to score every window.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controlplane.contracts.text import content_stems

MIN_PREMISE_TOKENS = 32


def pack_windows(sentences: Sequence[str], lengths: Sequence[int], budget: int,
                 slicer: Callable[[str, int], list[str]]) -> list[str]:
    """Greedy windows of whole sentences within ``budget`` tokens, one sentence of overlap between windows."""
    units: list[tuple[str, int]] = []
    for sentence, n in zip(sentences, lengths):
        if n <= budget:
            units.append((sentence, n))
        else:
            units.extend((piece, budget) for piece in slicer(sentence, budget))
    windows: list[str] = []
    i = 0
    while i < len(units):
        used, j = 0, i
        while j < len(units) and used + units[j][1] + (1 if j > i else 0) <= budget:
            used += units[j][1] + (1 if j > i else 0)
            j += 1
        if j == i:  # cannot happen (units fit the budget) but never loop forever
            j = i + 1
        windows.append(" ".join(u[0] for u in units[i:j]))
        if j >= len(units):
            break
        i = j - 1 if j - 1 > i else j  # one sentence of overlap
    return windows


def top_windows_by_overlap(windows: Sequence[str], claim: str, k: int) -> list[str]:
    """The k windows sharing most claim content words, in their original order."""
    claim_stems = set(content_stems(claim))
    scored = [(-len(claim_stems & set(content_stems(w))), i) for i, w in enumerate(windows)]
    keep = sorted(i for _, i in sorted(scored)[:k])
    return [windows[i] for i in keep]
