"""Accepted critic findings -> a draft policy bundle (new version) that then goes through review like any other.

Each accepted finding's ``suggested_gate_delta.patch`` is applied to the gate's entry in the base bundle: top-level
keys of the patch replace the entry's (``when`` is replaced whole, never AND-merged into the old condition), except
``params``, which is merged key by key. A patch for a gate the bundle does not list adds the gate at the end.
The result is validated as a PolicyBundle before anything is written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .loader import LoadedPolicy, PolicyBundleError, canonical_content, parse_bundle

ALLOWED_PATCH_KEYS = frozenset({"enabled", "when", "params"})


@dataclass
class Suggestion:
    draft: LoadedPolicy
    applied: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)


def bump_version(version: str) -> str:
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(.*)", version)
    if match:
        major, minor, patch, _ = match.groups()
        return f"{major}.{minor}.{int(patch) + 1}"
    return version + ".1"


def apply_patch(content: dict[str, Any], gate_id: str, patch: dict[str, Any]) -> None:
    unknown = set(patch) - ALLOWED_PATCH_KEYS
    if unknown:
        raise PolicyBundleError(f"patch for {gate_id} has unsupported key(s) {sorted(unknown)}; allowed: "
                                f"{sorted(ALLOWED_PATCH_KEYS)}")
    gates = content.setdefault("gates", [])
    entry = next((g for g in gates if g.get("gate_id") == gate_id), None)
    if entry is None:
        entry = {"gate_id": gate_id}
        gates.append(entry)
    for key, value in patch.items():
        if key == "params":
            entry["params"] = {**(entry.get("params") or {}), **(value or {})}
        else:
            entry[key] = value


def suggest_draft(base: LoadedPolicy, findings: list[dict[str, Any]]) -> Suggestion:
    content = json.loads(json.dumps(canonical_content(base.bundle)))
    applied, skipped = [], []
    for row in findings:
        delta = row.get("suggested_gate_delta") or {}
        patch = delta.get("patch") or {}
        if not delta.get("gate_id") or not patch:
            skipped.append({"finding": row.get("finding_id"), "why": "no machine-readable patch"})
            continue
        try:
            apply_patch(content, delta["gate_id"], patch)
        except PolicyBundleError as exc:
            skipped.append({"finding": row.get("finding_id"), "why": str(exc)})
            continue
        applied.append({"finding": row.get("finding_id"), "id": row.get("id"), "gate_id": delta["gate_id"],
                        "patch": patch, "rule": delta.get("new_rule", "")})
    if not applied:
        raise PolicyBundleError("no accepted finding carries a usable suggested_gate_delta.patch; accept findings "
                                "with: controlplane critic accept FINDING")
    content["version"] = bump_version(base.bundle.version)
    note = "critic suggestions: " + ", ".join(str(a["finding"]) for a in applied)
    content["description"] = (content.get("description", "") + f" [draft from {base.bundle.version}; {note}]").strip()
    draft = parse_bundle(content, source="critic-suggest")
    return Suggestion(draft, applied, skipped)


def write_bundle(loaded: LoadedPolicy, path: str | Path) -> Path:
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(canonical_content(loaded.bundle), indent=2, ensure_ascii=False) + "\n",
                          encoding="utf-8")
    except OSError as exc:
        raise PolicyBundleError(f"cannot write {target}: {exc}") from None
    return target
