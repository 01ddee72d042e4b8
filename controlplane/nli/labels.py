"""The three NLI labels and how a model config's ``id2label`` maps onto them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controlplane.contracts.errors import ConfigurationError

LABELS = ("entailment", "neutral", "contradiction")

# Lower-cased label names seen in public NLI checkpoints -> our label.
_ALIASES = {
    "entailment": "entailment",
    "entails": "entailment",
    "entailed": "entailment",
    "supports": "entailment",
    "supported": "entailment",
    "support": "entailment",
    "neutral": "neutral",
    # a 2-way head's second output (controlplane nli train --head 2way): the not-entailed mass, read as neutral
    "not_entailment": "neutral",
    "not_entailed": "neutral",
    "not_enough_info": "neutral",
    "not enough info": "neutral",
    "nei": "neutral",
    "contradiction": "contradiction",
    "contradicts": "contradiction",
    "contradicted": "contradiction",
    "refutes": "contradiction",
    "refuted": "contradiction",
    "refute": "contradiction",
}


def label_index_map(id2label: Mapping[Any, str] | None, *, setting: str = "the model directory") -> dict[str, int]:
    """Map each of entailment/neutral/contradiction to its output index, reading ``id2label`` case-insensitively.

    A 2-label model with entailment and contradiction (or entailment and neutral) is accepted; the missing label then
    gets no index. Anything else raises ConfigurationError: guessing the label order would silently invert scores.
    """
    if not id2label:
        raise ConfigurationError(f"{setting}: the model config has no id2label; cannot tell which output is entailment")
    found: dict[str, int] = {}
    for raw_index, raw_name in id2label.items():
        name = _ALIASES.get(str(raw_name).strip().lower().replace("-", "_"))
        if name is None:
            name = _ALIASES.get(str(raw_name).strip().lower())
        if name is None:
            raise ConfigurationError(
                f"{setting}: unknown label {raw_name!r} in id2label {dict(id2label)!r}; expected names like "
                "entailment / neutral / contradiction"
            )
        if name in found:
            raise ConfigurationError(f"{setting}: label {name!r} appears twice in id2label {dict(id2label)!r}")
        found[name] = int(raw_index)
    if "entailment" not in found or len(found) < 2:
        raise ConfigurationError(
            f"{setting}: id2label {dict(id2label)!r} must name an entailment output and at least one other label"
        )
    return found
