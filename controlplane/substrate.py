"""The immutable substrate (CFS-020 §2.1, Desired properties 1 and 4): the vector index the evidence comes from.

A model, a gate, a regen or the critic only ever reads the index: retrieval returns copies of chunks, and nothing in
the request path writes to it. Each retrieved item carries the ``state_root`` of its collection at retrieval (a hash
of every chunk, ``VectorStore.state_root``), so the trace says which substrate answered. Replay re-runs the gates on
the recorded chunks; ``substrate_changes`` says when the index has changed since, instead of letting a replay pass
silently on chunks that the index no longer holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controlplane.contracts import EvidencePack, TraceBundle


def substrate_roots(pack: EvidencePack | None) -> dict[str, str]:
    """Collection -> state_root of the retrieved items of a pack (empty when nothing was retrieved)."""
    roots: dict[str, str] = {}
    for item in pack.evidence if pack is not None else []:
        if item.provenance.index and item.provenance.state_root:
            roots.setdefault(item.provenance.index, item.provenance.state_root)
    return roots


@dataclass(frozen=True)
class SubstrateChange:
    index: str
    recorded: str
    current: str | None  # None: the collection is gone
    why: str

    def as_json(self) -> dict[str, Any]:
        return {"index": self.index, "recorded_state_root": self.recorded, "current_state_root": self.current,
                "why": self.why}

    def line(self) -> str:
        return (f"index changed since this trace: {self.index} state_root {self.recorded[:19]} then, "
                f"{(self.current or 'gone')[:19]} now ({self.why}); the replay used the chunks the trace recorded")


def substrate_changes(bundle: TraceBundle, index_dir: str | Path) -> list[SubstrateChange]:
    """The collections a trace retrieved from whose state is not what it was at retrieval."""
    from controlplane.contracts.errors import InputError
    from controlplane.evidence_pack.vector_store import VectorStore

    recorded = substrate_roots(bundle.retrieved_evidence_pack) | substrate_roots(bundle.evidence_pack)
    if not recorded:
        return []
    store = VectorStore(index_dir)
    changes = []
    for index, root in sorted(recorded.items()):
        kind, _, collection = index.partition(":")
        if kind != "chroma":
            continue
        try:
            current = store.state_root(collection)
        except InputError:
            changes.append(SubstrateChange(index, root, None, "the collection no longer exists"))
            continue
        if current != root:
            changes.append(SubstrateChange(index, root, current, "chunks were added, removed or re-indexed"))
    return changes
