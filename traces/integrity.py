"""Content hashes of a trace bundle, and the check that nothing was altered since they were taken.

A bundle already carries two kinds of hash: each evidence item's ``hash`` (sha256 of its exact text) and the
policy's ``hash`` (of its canonical content). What the client received, the model outputs and the messages had
none, so an edited delivered text or model output replayed as "reproduced". ``integrity`` closes that: a map from
field path to the sha256 of that field's canonical JSON, taken when the trace is stored and re-taken over the
masked content when a bundle is redacted:

* ``messages``, ``outcome`` (status, delivered text, verified, claims, degrade record), ``events``;
* ``attempts[N].raw_output`` for every model output exactly as received;
* ``<pack>.evidence[N].text`` only for evidence whose text redaction masked in place (``evidence_text: keep``):
  its ``hash`` stays the hash of the original text, so the masked text is vouched for here instead.

:func:`integrity_problems` names every altered field: import refuses such a bundle and replay reports it as an
error. These are checksums against editing, not signatures against a forger who recomputes them; a bundle's
authenticity is a matter for the file's own signature or the channel it came through.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

PACK_KEYS = ("evidence_pack", "retrieved_evidence_pack")


def sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical_hash(value: Any) -> str:
    return sha256_text(canonical_json(value))


def _evidence(data: dict[str, Any]):
    for key in PACK_KEYS:
        for index, item in enumerate(((data.get(key) or {}).get("evidence")) or []):
            yield f"{key}.evidence[{index}]", item


def canonical_json(value: Any) -> str:
    """The text the map hashes for a JSON value: sorted keys, no spaces, non-ASCII as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def compute_integrity(data: dict[str, Any], events_json: str | None = None, messages_json: str | None = None,
                      outcome_json: str | None = None) -> dict[str, str]:
    """The integrity map of a bundle dict (``TraceBundle.model_dump(mode="json")``) as it is now. ``events_json``,
    ``messages_json``, ``outcome_json``: the canonical JSON text (:func:`canonical_json`) of ``data["events"]``,
    ``data["messages"]`` and ``data["outcome"]``, when the caller has it already (the trace store writes those texts
    and hashes them as written); that part of ``data`` is not read then."""
    def hashed(text: str | None, key: str, empty: Any) -> str:
        return sha256_text(text) if text is not None else _canonical_hash(data.get(key) or empty)

    hashes = {
        "messages": hashed(messages_json, "messages", []),
        "outcome": hashed(outcome_json, "outcome", None),
        "events": hashed(events_json, "events", []),
    }
    for index, attempt in enumerate(data.get("attempts") or []):
        hashes[f"attempts[{index}].raw_output"] = sha256_text(attempt.get("raw_output") or "")
    if (data.get("redaction") or {}).get("applied"):
        for path, item in _evidence(data):
            text = item.get("text") or ""
            if not item.get("redacted") and sha256_text(text) != item.get("hash"):
                hashes[f"{path}.text"] = sha256_text(text)
    return hashes


def integrity_problems(data: dict[str, Any]) -> list[str]:
    """Every field whose content no longer matches its recorded hash, named by path; [] when all match."""
    recorded = data.get("integrity") or {}
    if not recorded:
        return ["the bundle carries no integrity hashes, so its delivered text and model outputs cannot be checked "
                "(export it again from the store with this version)"]
    problems = []
    current = compute_integrity(data)
    for field in sorted(set(recorded) | set(current)):
        if field.endswith(".text") and field.split(".evidence[")[0] in PACK_KEYS:
            continue  # evidence text: checked below, against the item's own hash unless redaction vouched for it
        if field not in current:
            problems.append(f"{field}: recorded in the integrity map but missing from the bundle")
        elif field not in recorded:
            problems.append(f"{field}: present in the bundle but not in its integrity map (added after export)")
        elif current[field] != recorded[field]:
            problems.append(f"{field}: content hashes to {current[field][:19]}..., not the recorded "
                            f"{recorded[field][:19]}...")
    for path, item in _evidence(data):
        if item.get("redacted"):
            continue  # a snippet; gates that need the text say EVIDENCE_TEXT_REDACTED
        actual = sha256_text(item.get("text") or "")
        expected = recorded.get(f"{path}.text") if (data.get("redaction") or {}).get("applied") else None
        if actual != (expected or item.get("hash")):
            problems.append(f"{path}.text (id {item.get('id')}): the text hashes to {actual[:19]}..., not its "
                            f"recorded hash {str(expected or item.get('hash'))[:19]}...")
    return problems


__all__ = ["canonical_json", "compute_integrity", "integrity_problems", "sha256_text"]
