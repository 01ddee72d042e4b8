"""Model adapters by spec string, so the CLI, the Python API and replay name models the same way.

Specs:
  scripted:FILE            replay canned outputs from a JSONL file (tests, replay, demos)
  gguf:PATH                any local GGUF file through llama-cpp-python
  default                  the embedded default model shipped by a PyPI package
  openai:URL[#MODEL]       a local OpenAI-compatible server (loopback only unless explicitly allowed)
Plugins add prefixes through the ``controlplane_model_adapters`` hook.

Any spec may end in ``?envelope=prose`` (issue 14): the model answers in plain text and the server builds the
envelope (controlplane/prose_attribution.py), for a model or server with no JSON mode, e.g.
``openai:http://127.0.0.1:11434/v1#llama3.2?envelope=prose``. ``?envelope=json`` asks for the JSON envelope.
"""

from __future__ import annotations

import os
import re
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


SPEC_OPTIONS = {"envelope": ("json", "prose")}
_SPEC_OPTIONS = re.compile(r"\?((?:[a-z_]+=[A-Za-z0-9_.-]*)(?:&[a-z_]+=[A-Za-z0-9_.-]*)*)$")


def split_spec_options(spec: str) -> tuple[str, dict[str, str]]:
    """``SPEC?envelope=prose`` -> (``SPEC``, {"envelope": "prose"}). Only a trailing query of known options is taken
    off, so a path or URL that holds a ``?`` of its own stays whole."""
    match = _SPEC_OPTIONS.search(spec)
    if match is None:
        return spec, {}
    options = dict(part.split("=", 1) for part in match.group(1).split("&"))
    if not set(options) <= set(SPEC_OPTIONS):
        return spec, {}
    for name, value in options.items():
        if value not in SPEC_OPTIONS[name]:
            raise ConfigurationError(f"model spec option {name}={value!r}: use one of "
                                     f"{', '.join(SPEC_OPTIONS[name])} (e.g. {spec[:match.start()]}?{name}=prose)")
    return spec[:match.start()], options


def load_model(spec: str, plugin_adapters: dict[str, AdapterFactory] | None = None, **options: Any) -> IntelligenceModule:
    """Build the adapter a spec names. Unknown specs and unusable models raise ConfigurationError (exit 2)."""
    from . import registry_extra  # noqa: F401  registers gguf/default/openai; their heavy imports stay in the factories

    adapters = {**BUILTIN_ADAPTERS, **(plugin_adapters or {})}
    spec, _ = split_spec_options(spec)  # the envelope option is the plane's to apply, not the adapter's
    prefix, _, argument = spec.partition(":")
    factory = adapters.get(prefix)
    if factory is None:
        known = ", ".join(sorted(f"{p}:" for p in adapters))
        raise ConfigurationError(f"unknown model spec {spec!r}; use one of {known} via {MODEL_SETTING}")
    try:
        return factory(argument, options)
    except ModelError as exc:
        raise ConfigurationError(f"{exc}") from exc

