"""JSON Schema side of the contracts: generation from the models, loading, and path-naming validation.

The pydantic models are the single source; ``python -m controlplane.contracts.schemas`` writes the committed
``schemas/*.schema.json`` files and a test proves the committed files equal what the models generate, and that every
example validates against both.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

from ._base import SCHEMA_DIALECT, SCHEMA_ID_BASE
from .budget import BudgetConfig
from .critic import CriticFinding
from .ebom import EbomDocument
from .envelope import OutputEnvelope
from .evidence import AtomicFact, EvidenceItem, EvidencePack
from .gate_result import GateResult
from .mode import ModeDecision
from .policy import PolicyBundle
from .regen import RegenDelta
from .trace import TraceBundle, TraceEvent

SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "ModeDecision": ModeDecision,
    "EvidenceItem": EvidenceItem,
    "EvidencePack": EvidencePack,
    "AtomicFact": AtomicFact,
    "OutputEnvelope": OutputEnvelope,
    "GateResult": GateResult,
    "RegenDelta": RegenDelta,
    "BudgetConfig": BudgetConfig,
    "TraceEvent": TraceEvent,
    "TraceBundle": TraceBundle,
    "PolicyBundle": PolicyBundle,
    "CriticFinding": CriticFinding,
    "EbomDocument": EbomDocument,
}


class _Draft202012(GenerateJsonSchema):
    schema_dialect = SCHEMA_DIALECT


def generate_schema(name: str) -> dict[str, Any]:
    model = SCHEMA_MODELS[name]
    schema = model.model_json_schema(schema_generator=_Draft202012, mode="validation")
    return {"$schema": SCHEMA_DIALECT, "$id": f"{SCHEMA_ID_BASE}{name}.schema.json", **schema}


def schema_filename(name: str) -> str:
    return f"{name}.schema.json"


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The committed schema file (what third parties see), not a regenerated one."""
    if name not in SCHEMA_MODELS:
        raise KeyError(f"unknown contract {name!r}; known: {', '.join(SCHEMA_MODELS)}")
    text = resources.files(__package__).joinpath("schemas", schema_filename(name)).read_text(encoding="utf-8")
    return json.loads(text)


@cache
def validator_for(name: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(name))


@dataclass(frozen=True)
class SchemaProblem:
    """One schema violation, located by JSON path (``$.meta.claim_map[0].evidence_ids``)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def json_path(parts: Any) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def validate_instance(name: str, instance: Any, limit: int = 20) -> list[SchemaProblem]:
    """Validate against the committed schema; problems sorted by path so the output is deterministic."""
    errors = sorted(validator_for(name).iter_errors(instance), key=lambda e: (json_path(e.absolute_path), e.message))
    problems = []
    for error in errors[:limit]:
        message = error.message
        if len(message) > 300:
            message = message[:297] + "..."
        problems.append(SchemaProblem(json_path(error.absolute_path), message))
    return problems


def write_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SCHEMA_MODELS:
        path = directory / schema_filename(name)
        path.write_text(json.dumps(generate_schema(name), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(__file__).resolve().parent / "schemas"
    for written_path in write_schemas(target):
        print(written_path)
    sys.exit(0)
