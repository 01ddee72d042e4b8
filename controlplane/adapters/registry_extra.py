"""Registers the local-model adapters with the resolver in ``controlplane.adapters``.

Imports stay inside the factories: resolving ``scripted:`` never imports llama-cpp-python.

  gguf:PATH                         any local GGUF file (llama.cpp, grammar-constrained)
  default                           the embedded default model (see controlplane/adapters/embedded.py)
  gemma3-270m, smollm2-135m         the two embedded models by name
  openai:URL[#MODEL]                a local OpenAI-compatible server (loopback only unless allowed)
"""

from __future__ import annotations

from typing import Any

from controlplane.contracts.errors import ConfigurationError

from . import MODEL_SETTING, register_adapter

# Options the llama.cpp factories accept from load_model(spec, **options).
_LLAMA_OPTIONS = ("n_ctx", "n_threads", "seed", "prompt_format", "model_id")


def _llama_options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(_LLAMA_OPTIONS))
    if unknown:
        raise ConfigurationError(f"unknown option(s) {', '.join(unknown)} for a llama.cpp model; known: "
                                 f"{', '.join(_LLAMA_OPTIONS)}")
    return {k: options[k] for k in _LLAMA_OPTIONS if k in options}


def _gguf(argument: str, options: dict[str, Any]):
    from .llama_cpp import LlamaCppModel

    if not argument:
        raise ConfigurationError(f"gguf model needs a path: set {MODEL_SETTING} to gguf:PATH/TO/model.gguf")
    return LlamaCppModel(argument, **_llama_options(options))


def _embedded(name: str):
    def factory(argument: str, options: dict[str, Any]):
        from .embedded import embedded_model

        if argument:
            raise ConfigurationError(f"{name} takes no argument (got {name}:{argument}); set {MODEL_SETTING} to {name}")
        return embedded_model(name, **_llama_options(options))

    return factory


def _openai(argument: str, options: dict[str, Any]):
    from .openai_compat import OpenAICompatModel

    return OpenAICompatModel.from_spec(argument, **options)


register_adapter("gguf", _gguf)
register_adapter("default", _embedded("default"))
register_adapter("gemma3-270m", _embedded("gemma3-270m"))
register_adapter("smollm2-135m", _embedded("smollm2-135m"))
register_adapter("openai", _openai)
