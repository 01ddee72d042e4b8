"""The whole plugin contract of controlplane. A plugin author needs to read only this module.

A gate is an object with ``gate_id``, ``version``, ``cost_class``, ``stage`` and ``evaluate(GateInput) ->
GateResult``. A plugin module returns its gates from one ``controlplane_gates`` hookimpl and is registered either in
code (``GateRegistry.register_plugin(module)``) or by a ``controlplane`` entry point::

    [project.entry-points.controlplane]
    my_gates = "my_package.my_gates"

Which registered gates run, when and in which order is decided by the policy bundle, not by the plugin.
A gate must never raise to say "fail": it returns ``GateResult.failing(...)``. If it raises anyway, the registry
turns that into a fail with reason GATE_ERROR (fail closed).

The same entry-point group also carries NLI backends, retrievers and model adapters (their hooks are below).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .interfaces import Gate, NliBackendFactory, RetrieverFactory

PROJECT_NAME = "controlplane"
ENTRY_POINT_GROUP = "controlplane"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def controlplane_gates() -> Sequence[Gate]:
    """Return the gate objects this plugin provides. Gate ids must be unique across all plugins."""


@hookspec
def controlplane_nli_backends() -> dict[str, NliBackendFactory]:
    """Return NLI backend factories by name (e.g. ``{"my-nli": make_backend}``); a factory takes keyword options."""


@hookspec
def controlplane_retrievers() -> dict[str, RetrieverFactory]:
    """Return retriever factories by name; a factory takes keyword options."""


@hookspec
def controlplane_model_adapters() -> dict[str, Any]:
    """Return model adapter factories by spec prefix (``"myserver"`` handles ``--model myserver:...``)."""
