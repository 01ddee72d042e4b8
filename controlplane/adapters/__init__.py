"""Model adapters by spec string, so the CLI, the Python API and replay name models the same way.

Specs:
  scripted:FILE            replay canned outputs from a JSONL file (tests, replay, demos)
  gguf:PATH                any local GGUF file through llama-cpp-python
  default                  the embedded default model shipped by a PyPI package
  openai:URL[#MODEL]       a local OpenAI-compatible server (loopback only unless explicitly allowed)
Plugins add prefixes through the ``controlplane_model_adapters`` hook.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from controlplane.contracts.errors import ConfigurationError
from controlplane.model_boundary import IntelligenceModule, ModelError

# llama.cpp's OpenMP threads must wait passively on a shared 2-core machine (measured: an answer took 13 s with
# passive waiting, 148 s with spinning threads under load). libgomp reads this once, when llama-cpp-python is first
# imported, so it is set here, before any adapter can import it. A user setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

MODEL_SETTING = "--model (or CONTROLPLANE_MODEL)"

AdapterFactory = Callable[[str, dict[str, Any]], IntelligenceModule]


def _scripted(argument: str, options: dict[str, Any]) -> IntelligenceModule:
    from .scripted import ScriptedModel

    if not argument:
        raise ConfigurationError("scripted model needs a file: use --model scripted:PATH/TO/outputs.jsonl")
    return ScriptedModel(argument)


BUILTIN_ADAPTERS: dict[str, AdapterFactory] = {"scripted": _scripted}


def register_adapter(prefix: str, factory: AdapterFactory) -> None:
    BUILTIN_ADAPTERS[prefix] = factory


def load_model(spec: str, plugin_adapters: dict[str, AdapterFactory] | None = None, **options: Any) -> IntelligenceModule:
    """Build the adapter a spec names. Unknown specs and unusable models raise ConfigurationError (exit 2)."""
    from . import registry_extra  # noqa: F401  registers gguf/default/openai; their heavy imports stay in the factories

    adapters = {**BUILTIN_ADAPTERS, **(plugin_adapters or {})}
    prefix, _, argument = spec.partition(":")
    factory = adapters.get(prefix)
    if factory is None:
        known = ", ".join(sorted(f"{p}:" for p in adapters))
        raise ConfigurationError(f"unknown model spec {spec!r}; use one of {known} via {MODEL_SETTING}")
    try:
        return factory(argument, options)
    except ModelError as exc:
        raise ConfigurationError(f"{exc}") from exc

