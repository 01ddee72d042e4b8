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

Served text is redacted like ``trace export``: the trace API and the viewer apply the policy bundle's ``redaction``
rules (emails, phone numbers, keys and tokens, custom patterns, evidence text -> hash + snippet) to everything they
serve; full text only with ``unredacted_traces=True`` (``serve --unredacted-traces``). Requests whose ``Host`` header
is not one of the configured names (default: the loopback names) get 421, so a DNS-rebinding page cannot read traces;
a POST must be ``Content-Type: application/json`` (415 otherwise), so a cross-site form or ``text/plain`` post is
refused before anything runs. Connections must send their request headers within ``header_timeout`` seconds and the
whole request within ``body_timeout`` seconds of connecting (or of the previous response), else they are closed.

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
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from controlplane.contracts import TraceStatus, json_text
from controlplane.contracts.errors import ConfigurationError, InputError
from controlplane.server_limits import (
    DEFAULT_BODY_TIMEOUT_S,
    DEFAULT_HEADER_TIMEOUT_S,
    DEFAULT_MAX_BODY_BYTES,
    LOOPBACK_HOST_NAMES,
)
from controlplane.traces.store import TraceStoreError

if TYPE_CHECKING:
    from controlplane.api import ControlPlane
    from controlplane.api import Response as PlaneResponse

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
               viewer: bool = True, allowed_hosts: Sequence[str] | None = None,
               unredacted_traces: bool = False) -> Starlette:
    """A Starlette app serving ``plane``. ``model_name`` is the id reported to clients (default: the model's id).

    ``allowed_hosts``: the host names (without port) clients may address this server by; None means the loopback
    names, ``["*"]`` accepts any. ``unredacted_traces``: serve trace text unredacted (local debugging only).
    """
    plane.check()  # a policy naming an unregistered gate fails at startup, not on the first request
    served_model = model_name or f"controlplane:{plane.model_id}"
    started = int(time.time())
    hosts = host_names(allowed_hosts)

    def redactor():
        """A fresh Redactor per response (it counts what it masked); None when full text was asked for."""
        if unredacted_traces:
            return None
        from controlplane.traces.redaction import Redactor

        return Redactor(plane.policy.bundle.redaction)

    def served_bundle(bundle):
        """The bundle as this server may show it: redacted unless full text was asked for (fail closed)."""
        from controlplane.contracts import TraceBundle
        from controlplane.traces.bundles import redact_bundle
        from controlplane.traces.redaction import RedactionError

        masker = redactor()
        if masker is None:
            return bundle
        try:
            return TraceBundle.model_validate(redact_bundle(bundle.model_dump(mode="json"), masker))
        except (RedactionError, ValueError) as exc:
            raise ApiError(500, f"trace {bundle.trace_id} cannot be served redacted ({str(exc)[:200]}); nothing was "
                           "shown", code="redaction_failed", type_="server_error") from None

    def served_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        masker = redactor()
        if masker is None:
            return rows
        return [{**row, "user_message": masker.text(row.get("user_message") or "")} for row in rows]

    async def read_json(request: Request) -> dict[str, Any]:
        require_json_content_type(request)
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
            data = json_text.loads(bytes(body))
        except json_text.JsonTextError as exc:
            raise ApiError(400, f"the request body {exc}; send one JSON object with 'messages'",
                           code="invalid_json") from None
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
                collection=call["collection"], keep_context=False, envelope=call["envelope"],
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
        shown = await plane.arun(served_bundle, bundle)  # redaction is CPU work: off the event loop
        return JSONResponse(shown.model_dump(mode="json"))

    async def trace_list_json(request: Request) -> Response:
        store = store_or_404()
        limit = _int_param(request, "limit", 50, 1, 1000)
        status = _status_param(request)
        rows = await plane.arun(store.list_traces, status=status, limit=limit)
        return JSONResponse({"object": "list", "data": await plane.arun(served_rows, rows)})

    async def viewer_list(request: Request) -> Response:
        from controlplane import viewer as pages

        if plane.store is None:
            return pages.html_response(pages.render_message("No trace store", "This server stores no traces."), 404)
        limit = _int_param(request, "limit", 100, 1, 1000)
        try:
            status = _status_param(request)
        except ApiError as exc:
            return pages.html_response(pages.render_message("Unknown status", exc.message), exc.status)
        rows = await plane.arun(plane.store.list_traces, status=status, limit=limit)
        return pages.html_response(pages.render_list(await plane.arun(served_rows, rows), status=status,
                                                     store_path=str(plane.store.path)))

    async def viewer_trace(request: Request) -> Response:
        from controlplane import viewer as pages

        trace_id = request.path_params["trace_id"]
        if plane.store is None:
            return pages.html_response(pages.render_message("No trace store", "This server stores no traces."), 404)
        try:
            bundle = await plane.arun(plane.store.load_bundle, trace_id)
        except TraceStoreError as exc:
            return pages.html_response(pages.render_message("Trace not found", str(exc)), 404)
        try:
            shown = await plane.arun(served_bundle, bundle)
        except ApiError as exc:
            return pages.html_response(pages.render_message("Trace not shown", exc.message), exc.status)
        return pages.html_response(pages.render_trace(shown))

    async def reverify(request: Request) -> Response:
        """POST /v1/reverify {"trace_id", "text"}: a user's edit of a stored answer, checked against its evidence."""
        body = await read_json(request)
        unknown = sorted(set(body) - {"trace_id", "text"})
        if unknown:
            raise ApiError(400, f"{unknown[0]} is not a known field (trace_id, text)", param=unknown[0],
                           code="unknown_parameter")
        for key in ("trace_id", "text"):
            if not isinstance(body.get(key), str) or not body[key].strip():
                raise ApiError(400, f"'{key}' must be a non-empty string", param=key,
                               code="missing_required_parameter" if key not in body else "invalid_type")
        store_or_404()
        try:
            result = await plane.arun(plane.reverify, body["trace_id"], body["text"])
        except InputError as exc:
            raise ApiError(400, str(exc), param="trace_id" if "trace" in str(exc) else "text",
                           code="invalid_value") from None
        data = result.as_json()
        masker = redactor()  # evidence text reaches this reply (closest sentences, fixes): redacted like a trace
        if masker is not None:
            data["original_text"] = masker.text(data["original_text"])
            for sentence in data["sentences"]:
                sentence["fix"] = masker.text(sentence["fix"]) if sentence["fix"] else None
                if sentence["closest_evidence"]:
                    sentence["closest_evidence"]["sentence"] = masker.text(sentence["closest_evidence"]["sentence"])
        return JSONResponse(data, headers={"x-controlplane-trace-id": result.trace_id})

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
        Route("/v1/reverify", reverify, methods=["POST"]),
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
        middleware=[Middleware(HostCheck, allowed=hosts)],
    )
    app.state.plane = plane
    app.state.max_body_bytes = max_body_bytes
    return app


# -- who may talk to the server -----------------------------------------------------------------------------------
def host_names(allowed: Sequence[str] | None) -> frozenset[str]:
    """Lower-case host names without port or brackets; ``*`` means any."""
    names = LOOPBACK_HOST_NAMES if allowed is None else allowed
    return frozenset(name.strip().strip("[]").lower() for name in names if name.strip())


def host_of(header: str) -> str:
    """The name part of a Host header: ``[::1]:8080`` -> ``::1``, ``Example.COM:80`` -> ``example.com``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class HostCheck:
    """Refuse requests addressed to a host name this server was not configured for (421), before any route runs.

    A DNS-rebinding page makes the browser send its own host name with requests to 127.0.0.1; checking the name is
    what keeps such a page from reading traces or spending the model."""

    def __init__(self, app, allowed: frozenset[str]):
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and "*" not in self.allowed:
            headers = dict(scope.get("headers") or [])
            host = host_of(headers.get(b"host", b"").decode("latin-1"))
            if host not in self.allowed:
                response = error_response(
                    421, f"host name {host or '(none)'!r} is not served here; this server answers to "
                    f"{', '.join(sorted(self.allowed))} (serve --allowed-host NAME adds one)", param="Host",
                    code="host_not_allowed")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def require_json_content_type(request: Request) -> None:
    """A POST body must be declared application/json: a cross-site form or text/plain post (which browsers send
    without asking the server first) is refused before anything reads it."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        raise ApiError(415, f"Content-Type must be application/json, not {media_type or '(none)'!r}; send the body "
                       "as JSON with that header", param="Content-Type", code="unsupported_media_type")


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
    for key, example in (("response_format", '{"type": "text"}'), ("stream_options", '{"include_usage": true}')):
        if body.get(key) is not None and not isinstance(body[key], dict):
            raise ApiError(400, f"'{key}' must be an object like {example}", param=key, code="invalid_type")
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
    unknown = sorted(set(extra) - {"evidence", "facts", "collection", "session_id", "envelope"})
    if unknown:
        raise ApiError(400, f"controlplane.{unknown[0]} is not a known field (evidence, facts, collection, session_id, "
                       "envelope)", param=f"controlplane.{unknown[0]}", code="unknown_parameter")
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
    envelope = extra.get("envelope")
    if envelope is not None and envelope not in ("json", "prose"):
        raise ApiError(400, "'controlplane.envelope' must be \"json\" or \"prose\" (prose: the backend model answers "
                       "in plain text and the server attributes it)", param="controlplane.envelope",
                       code="invalid_value")
    return {"messages": clean, "evidence": evidence, "facts": facts, "collection": collection,
            "session_id": session_id, "stream": bool(stream), "evidence_param": evidence_param,
            "envelope": envelope}


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


def _status_param(request: Request) -> str | None:
    """?status=: a trace status, or an error (a filter that matches nothing would read as an empty store)."""
    status = request.query_params.get("status") or None
    allowed = [s.value for s in TraceStatus]
    if status is not None and status not in allowed:
        raise ApiError(400, f"query parameter 'status' must be one of {', '.join(allowed)}, not {status!r}",
                       param="status", code="invalid_value")
    return status


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
                       "gate_results", "failing_gates", "degrade", "verification", "follow_up")


def verification_metadata(reply: PlaneResponse, request: Request | None = None) -> dict[str, Any]:
    quoted = quote(reply.trace_id, safe="")
    data = reply.as_json()
    return {
        **{field: data[field] for field in VERIFICATION_FIELDS},
        "trace_url": f"/v1/traces/{quoted}",
        "viewer_url": f"/traces/{quoted}",
        # EBOM structured response with audit trail, rebuilt from the request's trace (controlplane.ebom)
        "ebom": reply.as_ebom() if reply.trace_bundle is not None else None,
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
    from controlplane.contracts.text import split_sentences

    text = reply.assistant_text
    if not text:
        return []
    if reply.status == "refused":
        return text.splitlines(keepends=True)
    if reply.status == "degraded":  # degrade recorded where each kept sentence sits in the delivered text
        spans = (reply.degrade or {}).get("kept_spans") or []
        ends = [int(s["shown_start"]) + int(s["end"]) - int(s["start"]) for s in spans]
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


def guarded_protocol(header_timeout: float, body_timeout: float) -> type:
    """uvicorn's h11 protocol with request deadlines: headers within ``header_timeout`` seconds and the whole request
    within ``body_timeout`` seconds of the connection opening (or of the previous response ending); else the
    connection is closed. An idle connection counts as one that never sends its headers."""
    import asyncio

    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _waiting_since = 0.0

        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._waiting_since = self.loop.time()
            self._deadline = self.loop.call_later(header_timeout, self._check)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _check(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            state = self.conn.their_state
            if state is h11.IDLE:  # headers not (fully) received in time
                self._give_up()
            elif state is h11.SEND_BODY:  # headers arrived; the body has until body_timeout
                remaining = self._waiting_since + body_timeout - self.loop.time()
                if remaining <= 0:
                    self._give_up()
                else:
                    self._deadline = self.loop.call_later(remaining, self._check)

        def _give_up(self) -> None:
            if self.cycle is not None and not self.cycle.response_complete:
                self.cycle.disconnected = True
                self.cycle.message_event.set()
            self.transport.close()

    return GuardedH11Protocol


def uvicorn_config(app: Starlette, host: str, port: int, *, header_timeout: float = DEFAULT_HEADER_TIMEOUT_S,
                   body_timeout: float = DEFAULT_BODY_TIMEOUT_S, log_level: str = "warning", lifespan: str = "auto"):
    """The one uvicorn configuration every way of serving uses (CLI, ``ControlPlane.serve``, BackgroundServer)."""
    import uvicorn

    if not 0 < header_timeout <= body_timeout:
        raise InputError("timeouts must satisfy 0 < header timeout <= body timeout (serve --header-timeout / "
                         "--body-timeout)")
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan=lifespan,
                          http=guarded_protocol(header_timeout, body_timeout), timeout_keep_alive=5)


def bind_socket(host: str, port: int):
    """Bind the listening socket before anything says "serving": a busy port or an unknown address is a clear
    InputError here, not a uvicorn log line after the banner."""
    import socket

    host = host.strip("[]")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise InputError(f"cannot resolve --host {host!r} ({exc.strerror}); pass an address such as 127.0.0.1 or ::1"
                         ) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host} port {port}: {exc.strerror} (another process may use it; pass "
                         "--port with a free port)") from None
    sock.set_inheritable(True)
    return sock


def serve_app(app: Starlette, host: str = "127.0.0.1", port: int = 8080, sock=None, **timeouts: float) -> None:
    """Serve ``app`` until interrupted, with the request deadlines; ``sock`` is a socket already bound."""
    import uvicorn

    listening = sock or bind_socket(host, port)
    uvicorn.Server(uvicorn_config(app, host.strip("[]"), port, **timeouts)).run(sockets=[listening])


class BackgroundServer:
    """uvicorn in a background thread on loopback (tests, notebooks, embedding next to another app)."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int | None = None,
                 header_timeout: float = DEFAULT_HEADER_TIMEOUT_S, body_timeout: float = DEFAULT_BODY_TIMEOUT_S):
        import uvicorn

        self.host, self.port = host, port or free_port()
        config = uvicorn_config(app, self.host, self.port, header_timeout=header_timeout, body_timeout=body_timeout,
                                lifespan="off")
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

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["DEFAULT_BODY_TIMEOUT_S", "DEFAULT_HEADER_TIMEOUT_S", "ApiError", "BackgroundServer", "HostCheck", "bind_socket",
           "create_app", "free_port", "parse_chat_request", "release_units", "serve_app", "stream_events",
           "uvicorn_config", "verification_metadata"]
