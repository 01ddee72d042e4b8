"""HTTP front of a ControlPlane: an OpenAI-compatible chat endpoint, the trace API and the trace viewer.

Routes
  POST /v1/chat/completions   OpenAI chat completion; the message content is the gated answer, verification metadata
                              is in the extra field ``controlplane``. ``stream: true`` sends SSE
                              ``chat.completion.chunk`` events, one per sentence, only after every gate has run on
                              the whole envelope: no unchecked token ever leaves the server.
  GET  /v1/models             the one model this server answers with
  GET  /v1/traces             stored traces (JSON), newest first
  GET  /v1/traces/{id}        one TraceBundle (JSON)
  GET  /healthz               liveness plus model, policy and store
  GET  /traces, /traces/{id}  the trace viewer (HTML, no external resources)

Evidence rides in the request body as an extra field, either top-level ``"evidence": [...]`` or
``"controlplane": {"evidence": [...], "facts": [...], "collection": "NAME", "session_id": "..."}``; the official
``openai`` client sends it with ``extra_body=``. Every error is an OpenAI-style error object
``{"error": {"message", "type", "param", "code"}}``: 400 names the field, 413 means the body is over the limit.

The server is stateless across requests, like the OpenAI API: the client sends the whole conversation every time,
so a ``session_id`` only labels the traces. Pipeline work runs in the plane's thread pool; the event loop only
parses and writes.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from controlplane.errors import ConfigurationError, InputError
from controlplane.traces.store import TraceStoreError

if TYPE_CHECKING:
    from controlplane.api import ControlPlane
    from controlplane.api import Response as PlaneResponse

DEFAULT_MAX_BODY_BYTES = 1_000_000
ROLE_ALIASES = {"developer": "system"}  # newer OpenAI clients send system prompts as "developer"


class ApiError(Exception):
    """An OpenAI-style error: HTTP status, message, type, offending param and a machine code."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None,
                 type_: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.message, self.param, self.code, self.type = status, message, param, code, type_

    def response(self) -> JSONResponse:
        return error_response(self.status, self.message, self.param, self.code, self.type)


def error_response(status: int, message: str, param: str | None = None, code: str | None = None,
                   type_: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": type_, "param": param, "code": code}},
                        status_code=status)


def create_app(plane: ControlPlane, *, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, model_name: str | None = None,
               viewer: bool = True) -> Starlette:
    """A Starlette app serving ``plane``. ``model_name`` is the id reported to clients (default: the model's id)."""
    plane.check()  # a policy naming an unregistered gate fails at startup, not on the first request
    served_model = model_name or f"controlplane:{plane.model_id}"
    started = int(time.time())

    async def read_json(request: Request) -> dict[str, Any]:
        declared = request.headers.get("content-length")
        if declared is not None:
            try:
                if int(declared) > max_body_bytes:
                    raise _too_large(int(declared), max_body_bytes)
            except ValueError:
                raise ApiError(400, "Content-Length is not a number", code="invalid_request") from None
        body = bytearray()
        async for chunk in request.stream():
            body.extend(chunk)
            if len(body) > max_body_bytes:
                raise _too_large(len(body), max_body_bytes)
        if not body:
            raise ApiError(400, "the request body is empty; send a JSON object with 'messages'", code="invalid_json")
        try:
            data = json.loads(bytes(body))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ApiError(400, f"the request body is not valid JSON ({exc})", code="invalid_json") from None
        except RecursionError:
            raise ApiError(400, "the request body nests too deeply", code="invalid_json") from None
        try:  # "\ud800" is valid JSON but not text: nothing downstream could hash, store or answer it
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ApiError(400, "the request body holds an unpaired surrogate (\\ud800-\\udfff escape); send valid "
                           "Unicode text", code="invalid_json") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object with 'messages'", code="invalid_json")
        return data

    async def chat_completions(request: Request) -> Response:
        body = await read_json(request)
        call = parse_chat_request(body)
        try:
            reply = await plane.arespond(
                call["messages"], call["evidence"], facts=call["facts"], session_id=call["session_id"],
                collection=call["collection"], keep_context=False,
            )
        except ConfigurationError as exc:
            raise ApiError(500, f"server configuration: {exc}", code="configuration_error",
                           type_="server_error") from None
        except InputError as exc:
            raise ApiError(400, str(exc), param=_param_for(str(exc), call), code="invalid_value") from None
        completion_id = f"chatcmpl-{reply.trace_id}"
        created = int(time.time())
        meta = verification_metadata(reply, request)
        if not call["stream"]:
            return JSONResponse(
                {
                    "id": completion_id,
                    "object": "chat.completion",
                    "created": created,
                    "model": served_model,
                    "system_fingerprint": plane.policy.hash[:23],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.assistant_text, "refusal": None},
                            "finish_reason": "stop",
                            "logprobs": None,
                        }
                    ],
                    "usage": _usage(reply),
                    "controlplane": meta,
                },
                headers={"x-controlplane-trace-id": reply.trace_id},
            )
        include_usage = bool((body.get("stream_options") or {}).get("include_usage")) if isinstance(
            body.get("stream_options"), Mapping) else False
        return StreamingResponse(
            stream_events(reply, completion_id, created, served_model, meta, include_usage),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-controlplane-trace-id": reply.trace_id},
        )

    async def models(request: Request) -> Response:
        return JSONResponse(
            {"object": "list", "data": [{"id": served_model, "object": "model", "created": started,
                                          "owned_by": "controlplane"}]}
        )

    async def healthz(request: Request) -> Response:
        ready = await plane.arun(plane.model.is_ready)
        return JSONResponse(
            {
                "status": "ok" if ready else "model_not_ready",
                "model": plane.model_id,
                "policy": {"name": plane.policy.bundle.name, "version": plane.policy.bundle.version,
                           "hash": plane.policy.hash},
                "trace_store": str(plane.store.path) if plane.store is not None else None,
                "collections": plane.collection_names(),
            },
            status_code=200 if ready else 503,
        )

    def store_or_404():
        if plane.store is None:
            raise ApiError(404, "this server stores no traces (started without a trace store)", code="no_trace_store")
        return plane.store

    async def trace_json(request: Request) -> Response:
        trace_id = request.path_params["trace_id"]
        store = store_or_404()
        try:
            bundle = await plane.arun(store.load_bundle, trace_id)
        except TraceStoreError as exc:
            raise ApiError(404, str(exc), param="trace_id", code="trace_not_found") from None
        return JSONResponse(bundle.model_dump(mode="json"))

    async def trace_list_json(request: Request) -> Response:
        store = store_or_404()
        limit = _int_param(request, "limit", 50, 1, 1000)
        status = request.query_params.get("status") or None
        rows = await plane.arun(store.list_traces, status=status, limit=limit)
        return JSONResponse({"object": "list", "data": rows})

    async def viewer_list(request: Request) -> Response:
        from controlplane import viewer as pages

        if plane.store is None:
            return pages.html_response(pages.render_message("No trace store", "This server stores no traces."), 404)
        limit = _int_param(request, "limit", 100, 1, 1000)
        status = request.query_params.get("status") or None
        rows = await plane.arun(plane.store.list_traces, status=status, limit=limit)
        return pages.html_response(pages.render_list(rows, status=status, store_path=str(plane.store.path)))

    async def viewer_trace(request: Request) -> Response:
        from controlplane import viewer as pages

        trace_id = request.path_params["trace_id"]
        if plane.store is None:
            return pages.html_response(pages.render_message("No trace store", "This server stores no traces."), 404)
        try:
            bundle = await plane.arun(plane.store.load_bundle, trace_id)
        except TraceStoreError as exc:
            return pages.html_response(pages.render_message("Trace not found", str(exc)), 404)
        return pages.html_response(pages.render_trace(bundle))

    async def root(request: Request) -> Response:
        return RedirectResponse("/traces" if viewer else "/healthz")

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return exc.response()

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return error_response(404, f"no route {request.method} {request.url.path}", code="not_found")
        if exc.status_code == 405:
            return error_response(405, f"method {request.method} is not allowed on {request.url.path}",
                                  code="method_not_allowed")
        return error_response(exc.status_code, str(exc.detail), code="http_error")

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        # Never a traceback to a client; the trace (if begun) is marked error by the pipeline.
        return error_response(500, f"internal error: {type(exc).__name__}", code="internal_error", type_="server_error")

    routes = [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/traces", trace_list_json, methods=["GET"]),
        Route("/v1/traces/{trace_id}", trace_json, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
    ]
    if viewer:
        routes += [
            Route("/", root, methods=["GET"]),
            Route("/traces", viewer_list, methods=["GET"]),
            Route("/traces/{trace_id}", viewer_trace, methods=["GET"]),
        ]
    app = Starlette(
        routes=routes,
        exception_handlers={ApiError: on_api_error, HTTPException: on_http_error, Exception: on_unexpected},
    )
    app.state.plane = plane
    app.state.max_body_bytes = max_body_bytes
    return app


# -- request parsing ----------------------------------------------------------------------------------------------
def parse_chat_request(body: dict[str, Any]) -> dict[str, Any]:
    """Validate an OpenAI chat request plus our extra fields; ApiError(400) names the first bad field."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "'messages' must be a non-empty array of {role, content} objects", param="messages",
                       code="invalid_value" if "messages" in body else "missing_required_parameter")
    clean = []
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise ApiError(400, f"{where} must be an object with 'role' and 'content'", param=where,
                           code="invalid_type")
        role = ROLE_ALIASES.get(message.get("role"), message.get("role"))
        if role not in ("system", "user", "assistant"):
            raise ApiError(400, f"{where}.role must be system, developer, user or assistant, not "
                           f"{message.get('role')!r} (tool and function messages are not supported)",
                           param=f"{where}.role", code="invalid_value")
        if message.get("tool_calls"):
            raise ApiError(400, f"{where}.tool_calls: tool calls are not supported", param=f"{where}.tool_calls",
                           code="unsupported_parameter")
        clean.append({"role": role, "content": _content_text(message.get("content"), f"{where}.content",
                                                              allow_null=role == "assistant")})
    n = body.get("n", 1)
    if n not in (None, 1):
        raise ApiError(400, "'n' must be 1: the control plane returns one verified answer", param="n",
                       code="unsupported_value")
    for key in ("tools", "functions"):
        if body.get(key):
            raise ApiError(400, f"'{key}' is not supported: answers are verified text, not tool calls", param=key,
                           code="unsupported_parameter")
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") not in (None, "text"):
        raise ApiError(400, "'response_format' must be text: the verified answer is prose", param="response_format",
                       code="unsupported_value")
    stream = body.get("stream", False)
    if stream is not None and not isinstance(stream, bool):
        raise ApiError(400, "'stream' must be true or false", param="stream", code="invalid_type")

    extra = body.get("controlplane")
    if extra is None:
        extra = {}
    if not isinstance(extra, dict):
        raise ApiError(400, "'controlplane' must be an object like {\"evidence\": [...]}", param="controlplane",
                       code="invalid_type")
    unknown = sorted(set(extra) - {"evidence", "facts", "collection", "session_id"})
    if unknown:
        raise ApiError(400, f"controlplane.{unknown[0]} is not a known field (evidence, facts, collection, session_id)",
                       param=f"controlplane.{unknown[0]}", code="unknown_parameter")
    if "evidence" in body and "evidence" in extra:
        raise ApiError(400, "evidence is given twice; use either 'evidence' or 'controlplane.evidence'",
                       param="evidence", code="invalid_value")
    evidence_param = "controlplane.evidence" if "evidence" in extra else "evidence"
    evidence = extra.get("evidence", body.get("evidence"))
    if evidence is not None and not isinstance(evidence, list):
        raise ApiError(400, f"'{evidence_param}' must be an array of evidence items like {{\"text\": \"...\"}}",
                       param=evidence_param, code="invalid_type")
    facts = extra.get("facts")
    if facts is not None and not isinstance(facts, list):
        raise ApiError(400, "'controlplane.facts' must be an array of AtomicFact objects", param="controlplane.facts",
                       code="invalid_type")
    collection = extra.get("collection")
    if collection is not None and (not isinstance(collection, str) or not collection.strip()):
        raise ApiError(400, "'controlplane.collection' must be a collection name", param="controlplane.collection",
                       code="invalid_type")
    session_id = extra.get("session_id")
    if session_id is not None and (not isinstance(session_id, str) or not session_id.strip() or len(session_id) > 200):
        raise ApiError(400, "'controlplane.session_id' must be a non-empty string of at most 200 characters",
                       param="controlplane.session_id", code="invalid_type")
    return {"messages": clean, "evidence": evidence, "facts": facts, "collection": collection,
            "session_id": session_id, "stream": bool(stream), "evidence_param": evidence_param}


def _content_text(content: Any, where: str, allow_null: bool) -> str:
    if isinstance(content, str):
        return content
    if content is None and allow_null:
        return ""
    if isinstance(content, list):
        parts = []
        for index, part in enumerate(content):
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                raise ApiError(400, f"{where}[{index}] must be a text part {{\"type\": \"text\", \"text\": \"...\"}}; "
                               "images, audio and files are not supported", param=f"{where}[{index}]",
                               code="unsupported_value")
            parts.append(part["text"])
        return "\n".join(parts)
    raise ApiError(400, f"{where} must be a string or an array of text parts", param=where, code="invalid_type")


def _param_for(message: str, call: dict[str, Any]) -> str | None:
    """The request field an InputError from the pipeline is about (its message starts with or names the field)."""
    head = message.split(":", 1)[0].split(" ", 1)[0]
    if head.startswith("evidence["):
        return call["evidence_param"] + head[len("evidence"):]
    if head.startswith("facts["):
        return "controlplane." + head
    if head.startswith("messages"):
        return head if head.startswith("messages[") else "messages"
    lowered = message.lower()
    if "collection" in lowered:
        return "controlplane.collection"
    if "evidence" in lowered:
        return call["evidence_param"]
    if "session_id" in lowered:
        return "controlplane.session_id"
    if "message" in lowered:
        return "messages"
    return None


def _too_large(size: int, limit: int) -> ApiError:
    return ApiError(413, f"the request body is {size} bytes; this server accepts at most {limit} "
                    "(serve --max-body-bytes)", code="request_too_large")


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, f"query parameter '{name}' must be an integer", param=name, code="invalid_type") from None
    return max(low, min(high, value))


# -- responses ----------------------------------------------------------------------------------------------------
# The part of Response.as_json() a chat client gets beside the gated answer (the text itself is the message).
VERIFICATION_FIELDS = ("trace_id", "status", "verified", "attempts", "mode", "domain_flags", "evidence_ids", "claims",
                       "gate_results", "failing_gates", "degrade")


def verification_metadata(reply: PlaneResponse, request: Request | None = None) -> dict[str, Any]:
    quoted = quote(reply.trace_id, safe="")
    data = reply.as_json()
    return {
        **{field: data[field] for field in VERIFICATION_FIELDS},
        "trace_url": f"/v1/traces/{quoted}",
        "viewer_url": f"/traces/{quoted}",
    }


def _usage(reply: PlaneResponse) -> dict[str, int]:
    return {"prompt_tokens": reply.usage.prompt_tokens, "completion_tokens": reply.usage.completion_tokens,
            "total_tokens": reply.usage.total_tokens}


def release_units(reply: PlaneResponse) -> list[str]:
    """The gated answer cut into release units; joined they are ``reply.assistant_text`` exactly.

    The cut happens after the gates have judged the whole envelope, on text that already passed: one unit per
    sentence of a passing answer; for a degraded answer one unit per kept sentence, then the server's "[Not
    verified ...]" note as one unit; a refusal (written by the server) line by line.
    """
    from controlplane.gates.anchoring import split_sentences

    text = reply.assistant_text
    if not text:
        return []
    if reply.status == "refused":
        return text.splitlines(keepends=True)
    if reply.status == "degraded":
        kept = [str(k) for k in (reply.degrade or {}).get("kept_sentences") or []]
        ends, cursor = [], 0
        for sentence in kept:
            found = text.find(sentence, cursor)
            if found < 0:
                break
            cursor = found + len(sentence)
            ends.append(cursor)
        bounds = [0, *ends, len(text)]
    else:
        sentences = split_sentences(text)
        bounds = [0, *(s.end for s in sentences[:-1]), len(text)]
    units = [text[a:b] for a, b in itertools.pairwise(bounds)]
    return [u for u in units if u]


async def stream_events(reply: PlaneResponse, completion_id: str, created: int, model: str, meta: dict[str, Any],
                        include_usage: bool) -> AsyncIterator[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        data = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **extra}
        return b"data: " + json.dumps(data, ensure_ascii=False).encode("utf-8") + b"\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for unit in release_units(reply):
        yield chunk({"content": unit})
    yield chunk({}, "stop", controlplane=meta)
    if include_usage:
        data = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [], "usage": _usage(reply)}
        yield b"data: " + json.dumps(data).encode("utf-8") + b"\n\n"
    yield b"data: [DONE]\n\n"


def free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class BackgroundServer:
    """uvicorn in a background thread on loopback (tests, notebooks, embedding next to another app)."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int | None = None):
        import uvicorn

        self.host, self.port = host, port or free_port()
        config = uvicorn.Config(app, host=self.host, port=self.port, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self._thread = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> BackgroundServer:
        import threading

        self._thread = threading.Thread(target=self.server.run, name=f"controlplane-http-{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the HTTP server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["ApiError", "BackgroundServer", "create_app", "free_port", "parse_chat_request", "release_units",
           "stream_events", "verification_metadata"]
