"""controlplane: a gate-pipeline control plane between a chat app and a local language model.

Public API (imported lazily, so ``import controlplane.contracts`` stays light)::

    from controlplane import ControlPlane, Response

See docs/embedding.md. Everything else lives in subpackages (contracts, gates, evidence_pack, traces,
policy_bundles, adapters, pipeline).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

_PUBLIC = {
    "ControlPlane": "controlplane.api",
    "Response": "controlplane.api",
    "ClaimResult": "controlplane.api",
    "GateVerdict": "controlplane.api",
    "Usage": "controlplane.api",
    "BaseGate": "controlplane.gates.interfaces",
    "GateInput": "controlplane.gates.interfaces",
    "GateStage": "controlplane.gates.interfaces",
    "GateServices": "controlplane.gates.interfaces",
    "hookimpl": "controlplane.gates.hookspec",
    "GateResult": "controlplane.contracts",
    "ReasonCode": "controlplane.contracts",
    "CostClass": "controlplane.contracts",
    "InputError": "controlplane.contracts.errors",
    "ConfigurationError": "controlplane.contracts.errors",
    "create_app": "controlplane.server",
}

# written out (not list(_PUBLIC)) so linters and readers see the public names
__all__ = [
    "BaseGate",
    "ClaimResult",
    "ConfigurationError",
    "ControlPlane",
    "CostClass",
    "GateInput",
    "GateResult",
    "GateServices",
    "GateStage",
    "GateVerdict",
    "InputError",
    "ReasonCode",
    "Response",
    "Usage",
    "create_app",
    "hookimpl",
]
assert set(__all__) == set(_PUBLIC)

if TYPE_CHECKING:  # pragma: no cover
    from controlplane.api import ClaimResult, ControlPlane, GateVerdict, Response, Usage
    from controlplane.contracts import CostClass, GateResult, ReasonCode
    from controlplane.contracts.errors import ConfigurationError, InputError
    from controlplane.gates.hookspec import hookimpl
    from controlplane.gates.interfaces import BaseGate, GateInput, GateServices, GateStage
    from controlplane.server import create_app


def __getattr__(name: str) -> Any:
    module_name = _PUBLIC.get(name)
    if module_name is None:
        raise AttributeError(f"module 'controlplane' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
