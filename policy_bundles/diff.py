"""Structural diff of two policy bundles: every changed field as a path (gates keyed by gate_id, not position)."""

from __future__ import annotations

from typing import Any

from .loader import LoadedPolicy, canonical_content


def _keyed(content: dict[str, Any]) -> dict[str, Any]:
    data = dict(content)
    gates = data.get("gates") or []
    data["gates"] = {f"{g['gate_id']}": {**g, "position": index} for index, g in enumerate(gates)}
    return data


def diff_values(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in old:
                out.append({"path": sub, "change": "added", "old": None, "new": new[key]})
            elif key not in new:
                out.append({"path": sub, "change": "removed", "old": old[key], "new": None})
            else:
                out.extend(diff_values(old[key], new[key], sub))
        return out
    if old != new:
        return [{"path": path, "change": "changed", "old": old, "new": new}]
    return []


def diff_bundles(old: LoadedPolicy, new: LoadedPolicy) -> list[dict[str, Any]]:
    return diff_values(_keyed(canonical_content(old.bundle)), _keyed(canonical_content(new.bundle)))


def render_diff(changes: list[dict[str, Any]]) -> str:
    import json

    if not changes:
        return "no differences"
    lines = []
    for c in changes:
        if c["change"] == "added":
            lines.append(f"+ {c['path']}: {json.dumps(c['new'], sort_keys=True)}")
        elif c["change"] == "removed":
            lines.append(f"- {c['path']}: {json.dumps(c['old'], sort_keys=True)}")
        else:
            lines.append(f"~ {c['path']}: {json.dumps(c['old'], sort_keys=True)} -> {json.dumps(c['new'], sort_keys=True)}")
    return "\n".join(lines)
