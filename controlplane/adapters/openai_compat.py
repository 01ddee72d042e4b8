"""IntelligenceModule for a LOCAL OpenAI-compatible chat-completions server (llama.cpp server, Ollama, vLLM).

Spec: ``openai:http://127.0.0.1:8080/v1#MODEL`` (the fragment names the model; without it the first model the
server lists is used).

CFS-020 §2.4 allows local inference APIs only, so:

* the host must be a loopback address (``localhost``, ``127.0.0.0/8``, ``::1``) unless the user explicitly allows a
  remote one (``allow_remote=True`` or ``CONTROLPLANE_ALLOW_REMOTE_MODEL=1``); hostnames other than ``localhost`` are
  not resolved to find out (resolving is itself network traffic), they are refused;
* environment proxies are ignored (``HTTP_PROXY`` would otherwise carry a loopback request off the machine) and
  redirects are refused (a local server could otherwise bounce the request to a remote host);
* with a JSON schema the request carries ``response_format: {"type": "json_schema", ...}``. If the server rejects
  it the call fails; it is never retried without the schema. Whether the server *enforces* the schema is up to the
  server; the gates check the output either way.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from controlplane.contracts import FinishReason
from controlplane.contracts.errors import ConfigurationError
from controlplane.model_boundary import (
    AssembledContext,
    GenerationParams,
    IntelligenceResponse,
    ModelError,
    ModuleMetadata,
    estimate_tokens,
    render_messages,
)

from . import MODEL_SETTING

ALLOW_REMOTE_ENV = "CONTROLPLANE_ALLOW_REMOTE_MODEL"


def is_loopback_host(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _env_allows_remote() -> bool:
    return os.environ.get(ALLOW_REMOTE_ENV, "").strip().lower() in ("1", "true", "yes")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise urllib.error.HTTPError(req.full_url, code, f"redirect to {newurl} refused (local model only)", headers, fp)


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


class OpenAICompatModel:
    """Chat completions over HTTP to a local server. Stateless: each call sends the full context."""

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        allow_remote: bool | None = None,
        timeout: float = 120.0,
        api_key: str | None = None,
    ):
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ConfigurationError(
                f"openai model needs an http(s) URL such as openai:http://127.0.0.1:8080/v1#MODEL, got {base_url!r}; "
                f"set {MODEL_SETTING}"
            )
        allowed = _env_allows_remote() if allow_remote is None else allow_remote
        if not is_loopback_host(parsed.hostname) and not allowed:
            raise ConfigurationError(
                f"refusing non-loopback model server {parsed.hostname!r}: models must be local (CFS-020 no network). "
                f"Point {MODEL_SETTING} at http://127.0.0.1:PORT/v1, or allow a remote server explicitly with "
                f"{ALLOW_REMOTE_ENV}=1 (Python: allow_remote=True)"
            )
        self.base_url = base_url.rstrip("/")
        self.host = parsed.hostname
        self.remote = not is_loopback_host(parsed.hostname)
        self._model = model or None
        self.timeout = timeout
        self._api_key = api_key if api_key is not None else os.environ.get("CONTROLPLANE_MODEL_API_KEY")

    @classmethod
    def from_spec(cls, argument: str, **options: Any) -> OpenAICompatModel:
        if not argument:
            raise ConfigurationError(f"openai model needs a URL: set {MODEL_SETTING} to openai:http://127.0.0.1:8080/v1#MODEL")
        url, _, model = argument.partition("#")
        known = {"allow_remote", "timeout", "api_key"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ConfigurationError(f"unknown option(s) {', '.join(unknown)} for an openai model; known: {', '.join(sorted(known))}")
        return cls(url, model or None, **options)

    # -- HTTP ---------------------------------------------------------------------------------------------------
    def _request(self, method: str, path: str, body: dict[str, Any] | None = None, timeout: float | None = None) -> Any:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self._api_key:
            request.add_header("Authorization", f"Bearer {self._api_key}")
        with _OPENER.open(request, timeout=timeout or self.timeout) as response:
            return json.loads(response.read().decode("utf-8"))

    def model_name(self) -> str:
        if self._model is None:
            try:
                listing = self._request("GET", "/models", timeout=min(self.timeout, 10.0))
                self._model = str(listing["data"][0]["id"])
            except Exception as exc:
                raise ModelError(
                    f"no model named in {MODEL_SETTING} and {self.base_url}/models did not list one ({exc}); "
                    f"use openai:{self.base_url}#MODEL"
                ) from exc
        return self._model

    # -- protocol -----------------------------------------------------------------------------------------------
    def is_ready(self) -> bool:
        try:
            self._request("GET", "/models", timeout=min(self.timeout, 5.0))
        except Exception:
            return False
        return True

    def metadata(self) -> ModuleMetadata:
        name = self._model or "(first listed)"
        return ModuleMetadata(
            model_id=f"openai:{name}",
            # No weights to hash from here: identify the endpoint + model name instead (stated in details).
            model_hash="sha256:" + hashlib.sha256(f"{self.base_url}#{name}".encode()).hexdigest(),
            max_context_length=0,
            supports_functions=False,
            supports_json_schema=True,
            local_only=not self.remote,
            details={"base_url": self.base_url, "model_hash_of": "endpoint and model name, not weights",
                     "schema_enforced_by": "server (response_format json_schema)"},
        )

    def generate(self, query: str, context: AssembledContext, params: GenerationParams) -> IntelligenceResponse:
        started = time.perf_counter()
        messages = [{"role": m.role, "content": m.content} for m in context.messages]
        if params.system_prompt is not None:
            messages = [{"role": "system", "content": params.system_prompt}] + [
                m for m in messages if m["role"] != "system"
            ]
        try:
            model = self.model_name()
        except ModelError as exc:
            return self._error(started, context, str(exc))
        body: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_tokens,
            "seed": params.seed,
            "stream": False,
        }
        if params.stop_sequences:
            body["stop"] = list(params.stop_sequences)
        if params.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": f"{context.purpose}_output", "strict": True, "schema": params.json_schema},
            }
        try:
            data = self._request("POST", "/chat/completions", body)
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:300] if exc.fp else ""
            hint = " (does the server support response_format json_schema?)" if params.json_schema and exc.code in (400, 422) else ""
            return self._error(started, context, f"HTTP {exc.code} from {self.base_url}: {exc.reason} {detail}{hint}")
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            return self._error(started, context, f"model server {self.base_url} unreachable or invalid: {reason}; "
                                                 f"start it or change {MODEL_SETTING}")
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as exc:
            return self._error(started, context, f"not a chat-completions response ({type(exc).__name__}: {exc})")
        usage = data.get("usage") or {}
        reason = choice.get("finish_reason")
        finish = FinishReason.MAX_TOKENS if reason == "length" else FinishReason.STOP
        return IntelligenceResponse(
            text=text,
            tokens_used=int(usage.get("completion_tokens") or estimate_tokens(text)),
            tokens_in=int(usage.get("prompt_tokens") or estimate_tokens(render_messages(context.messages))),
            finish_reason=finish,
            latency_ms=(time.perf_counter() - started) * 1000,
            model_id=f"openai:{model}",
        )

    def _error(self, started: float, context: AssembledContext, message: str) -> IntelligenceResponse:
        return IntelligenceResponse(
            text="",
            tokens_used=0,
            tokens_in=estimate_tokens(render_messages(context.messages)),
            finish_reason=FinishReason.ERROR,
            latency_ms=(time.perf_counter() - started) * 1000,
            model_id=f"openai:{self._model or '?'}",
            error=message,
        )
