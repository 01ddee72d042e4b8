"""Evidence read with its title, for a claim that names what only the title says.

The ask path gives each chunk its document's heading as its title ("ADR-011: Client/server responsibility boundary ›
Decision") and not in its text. A claim that names the document ("ADR-011 states that the server is the single
source of truth ...", "The status of ADR-011 is Accepted.") then names a thing its evidence did not mention, and the
name check and the verifier (0.14 without the heading, 0.62 with it) refused a faithful answer. The title is the
document's own heading, so it is part of what the item states: a claim that uses a content word that only the cited
items' titles hold is read against "title\\ntext". Other claims read the text alone, as before, so a title never
changes a verdict that does not lean on it.

The title vouches for its own words and nothing else: the rest of the claim must be covered by the texts as before
(:func:`coverage_beside_titles`), or "ADR-011 was rejected." would pass on the strength of "ADR-011" alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from controlplane.contracts import EvidenceItem
from controlplane.contracts.text import content_stem_set, content_stems


def title_words(claim_text: str, items: Sequence[EvidenceItem]) -> frozenset[str]:
    """The claim's content stems that a cited item's title holds and no cited item's text does."""
    titles = [item.title for item in items if item.title]
    if not titles:
        return frozenset()
    missing = content_stem_set(claim_text).difference(*(content_stem_set(item.text) for item in items))
    return missing & frozenset().union(*(content_stem_set(title) for title in titles))


def with_titles(items: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    """The items, each with its title as its text's first line (an item without a title as it is)."""
    return [item.model_copy(update={"text": f"{item.title}\n{item.text}"}) if item.title else item for item in items]


def coverage_beside_titles(text: str, claim_text: str, vouched: frozenset[str]) -> tuple[float, list[str]]:
    """The share of the claim's content stems, other than those the titles vouch for, that ``text`` (the cited
    items' texts without their titles) holds, and the stems it lacks. A claim with no other content word is covered
    by nothing: a title alone states no fact."""
    stems = [stem for stem in dict.fromkeys(content_stems(claim_text)) if stem not in vouched]
    if not stems:
        return 0.0, []
    have = content_stem_set(text)
    missing = [stem for stem in stems if stem not in have]
    return 1 - len(missing) / len(stems), missing
