"""NLI backends by name. Built-ins: ``shipped`` (the trained verifier), ``transformers:PATH`` (any local
cross-encoder directory, torch fp32), ``onnx:PATH`` (the same directory's int8 ONNX file on ONNX Runtime). Plugins add more through the pluggy hook ``controlplane_nli_backends`` (entry-point group ``controlplane``).

``shipped`` loads once per resolved set of options (:func:`controlplane.nli.shipped.load_shipped`): the gates and the
answerability scorer share one instance. ``fresh=True`` asks the built-ins for an instance of one's own (for code
that changes a backend's attributes); ``transformers:`` and ``onnx:`` always build a new one.
"""

from __future__ import annotations

from typing import Any

import pluggy

from controlplane.contracts.errors import ConfigurationError
from controlplane.gates import hookspec
from controlplane.gates.hookspec import ENTRY_POINT_GROUP, PROJECT_NAME, hookimpl

BACKEND_SETTING = "--backend"


def _make_transformers(path: str | None = None, **options: Any):
    from controlplane.nli.transformers_backend import TransformersNliBackend

    if not path:
        raise ConfigurationError(f"{BACKEND_SETTING}: use transformers:PATH with PATH a local model directory")
    options.pop("fresh", None)  # always a new instance
    return TransformersNliBackend(path, setting=f"{BACKEND_SETTING} transformers:{path}", **options)


def _make_onnx(path: str | None = None, **options: Any):
    from controlplane.nli.onnx_backend import OnnxNliBackend

    if not path:
        raise ConfigurationError(f"{BACKEND_SETTING}: use onnx:PATH with PATH a model directory holding model.int8.onnx")
    options.pop("runtime", None)
    options.pop("fresh", None)  # always a new instance
    return OnnxNliBackend(path, setting=f"{BACKEND_SETTING} onnx:{path}", **options)


def _make_shipped(path: str | None = None, **options: Any):
    from controlplane.nli.shipped import load_shipped

    if path:
        options["model_dir"] = path
    return load_shipped(**options)


class _BuiltinBackends:
    @hookimpl
    def controlplane_nli_backends(self):
        return {"shipped": _make_shipped, "transformers": _make_transformers, "onnx": _make_onnx}


def _plugin_manager(load_entry_points: bool = True) -> pluggy.PluginManager:
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspec)
    pm.register(_BuiltinBackends(), name="controlplane.nli.builtins")
    if load_entry_points:
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    return pm


def backend_factories(load_entry_points: bool = True) -> dict[str, Any]:
    factories: dict[str, Any] = {}
    for result in _plugin_manager(load_entry_points).hook.controlplane_nli_backends():
        for name, factory in (result or {}).items():
            factories.setdefault(name, factory)
    return factories


def available_backends() -> list[str]:
    return sorted(backend_factories())


def load_nli_backend(name: str, **options: Any):
    """Build the backend ``name`` (``shipped``, ``transformers:/path``, a plugin name, or ``plugin:arg``).

    Raises ConfigurationError naming ``--backend`` for an unknown name or a model that cannot be loaded.
    """
    kind, _, arg = name.partition(":")
    factories = backend_factories()
    if kind not in factories:
        raise ConfigurationError(f"{BACKEND_SETTING}: unknown NLI backend {name!r}; known: {', '.join(sorted(factories))}")
    return factories[kind](arg or None, **options)
