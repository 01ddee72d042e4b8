"""The local OpenAI-compatible adapter against a real HTTP server on 127.0.0.1 speaking chat completions.

The peer is a small stdlib http.server that records every request and answers with canned completions: the adapter's
real HTTP code (urllib, no proxies, no redirects) runs end to end.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from controlplane.adapters import load_model
from controlplane.adapters.openai_compat import ALLOW_REMOTE_ENV, OpenAICompatModel, is_loopback_host
from controlplane.contracts import FinishReason
from controlplane.contracts.errors import ConfigurationError
from controlplane.model_boundary import AssembledContext, ChatMessage, GenerationParams

ENVELOPE = {"assistant_text": "We use Turso [E2].", "meta": {"modeLabel": "System", "claim_map": []}}
SCHEMA = {"type": "object", "properties": {"assistant_text": {"type": "string"}}, "required": ["assistant_text"]}


class Peer:
    """A chat-completions server: records requests; ``replies`` maps a path to (status, body, headers)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: dict[str, tuple[int, Any, dict[str, str]]] = {}
        peer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                peer.requests.append({"method": method, "path": self.path, "body": body,
                                      "headers": dict(self.headers)})
                status, payload, headers = peer.replies.get(self.path, (404, {"error": "not found"}, {}))
                data = json.dumps(payload).encode()
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._answer("GET")

            def do_POST(self) -> None:
                self._answer("POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def completion(self, content: str, finish: str = "stop", usage: dict[str, int] | None = None) -> None:
        self.replies["/v1/chat/completions"] = (200, {
            "id": "cmpl-1", "object": "chat.completion", "model": "tiny",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": usage or {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
        }, {})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def peer() -> Iterator[Peer]:
    server = Peer()
    yield server
    server.close()


def context() -> AssembledContext:
    return AssembledContext(
        purpose="main",
        messages=(ChatMessage("system", "Answer from evidence."), ChatMessage("user", "EVIDENCE: [E2] Turso.\nQ?")),
        evidence_ids=("E2",),
    )


def test_generate_sends_messages_and_json_schema_and_reads_the_completion(peer: Peer) -> None:
    peer.completion(json.dumps(ENVELOPE))
    model = load_model(f"openai:{peer.url}#tiny")
    response = model.generate("Q?", context(), GenerationParams(max_tokens=99, json_schema=SCHEMA, seed=7))

    assert json.loads(response.text) == ENVELOPE
    assert response.finish_reason is FinishReason.STOP
    assert (response.tokens_in, response.tokens_used) == (42, 7)
    assert response.model_id == "openai:tiny"
    [request] = peer.requests
    assert (request["method"], request["path"]) == ("POST", "/v1/chat/completions")
    body = request["body"]
    assert body["model"] == "tiny"
    assert body["messages"] == [{"role": "system", "content": "Answer from evidence."},
                                {"role": "user", "content": "EVIDENCE: [E2] Turso.\nQ?"}]
    assert (body["temperature"], body["max_tokens"], body["seed"], body["stream"]) == (0.0, 99, 7, False)
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert body["response_format"]["json_schema"]["strict"] is True


def test_no_schema_sends_no_response_format_and_length_is_max_tokens(peer: Peer) -> None:
    peer.completion("partial", finish="length")
    model = OpenAICompatModel(peer.url, "tiny")
    response = model.generate("Q?", context(), GenerationParams(max_tokens=3))
    assert response.finish_reason is FinishReason.MAX_TOKENS
    assert "response_format" not in peer.requests[0]["body"]


def test_model_name_comes_from_the_server_listing_when_the_spec_has_none(peer: Peer) -> None:
    peer.replies["/v1/models"] = (200, {"object": "list", "data": [{"id": "qwen-local", "object": "model"}]}, {})
    peer.completion("{}")
    model = load_model(f"openai:{peer.url}")
    assert model.is_ready()
    response = model.generate("Q?", context(), GenerationParams())
    assert response.model_id == "openai:qwen-local"
    assert peer.requests[-1]["body"]["model"] == "qwen-local"
    meta = model.metadata()
    assert meta.local_only and meta.supports_json_schema and meta.model_id == "openai:qwen-local"


def test_a_rejected_schema_is_an_error_and_never_retried_without_it(peer: Peer) -> None:
    peer.replies["/v1/chat/completions"] = (400, {"error": {"message": "response_format not supported"}}, {})
    model = OpenAICompatModel(peer.url, "tiny")
    response = model.generate("Q?", context(), GenerationParams(json_schema=SCHEMA))
    assert response.finish_reason is FinishReason.ERROR
    assert "json_schema" in (response.error or "") and "HTTP 400" in (response.error or "")
    assert len(peer.requests) == 1  # no second request without the schema


def test_environment_proxies_are_ignored(peer: Peer, monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy would carry the loopback request off the machine; here it points nowhere, so using it would fail.
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    peer.completion("{}")
    response = OpenAICompatModel(peer.url, "tiny").generate("Q?", context(), GenerationParams())
    assert response.finish_reason is FinishReason.STOP, response.error
    assert len(peer.requests) == 1


def test_redirects_are_refused(peer: Peer) -> None:
    elsewhere = Peer()
    try:
        peer.replies["/v1/chat/completions"] = (307, {}, {"Location": f"{elsewhere.url}/chat/completions"})
        response = OpenAICompatModel(peer.url, "tiny").generate("Q?", context(), GenerationParams())
        assert response.finish_reason is FinishReason.ERROR
        assert "redirect" in (response.error or "")
        assert elsewhere.requests == []
    finally:
        elsewhere.close()


def test_unreachable_server_is_an_error_naming_the_setting() -> None:
    probe = Peer()
    url = probe.url
    probe.close()  # nothing listens on that port any more
    response = OpenAICompatModel(url, "tiny", timeout=5).generate("Q?", context(), GenerationParams())
    assert response.finish_reason is FinishReason.ERROR
    assert "--model (or CONTROLPLANE_MODEL)" in (response.error or "")


@pytest.mark.parametrize("url", ["http://example.com/v1#m", "http://10.0.0.5:8080/v1#m", "https://192.168.1.2/v1",
                                 "http://127.0.0.1.nip.io/v1#m", "http://[2001:db8::1]:8080/v1#m"])
def test_non_loopback_hosts_are_refused(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ALLOW_REMOTE_ENV, raising=False)
    with pytest.raises(ConfigurationError) as caught:
        load_model(f"openai:{url}")
    message = str(caught.value)
    assert "non-loopback" in message and ALLOW_REMOTE_ENV in message and "--model (or CONTROLPLANE_MODEL)" in message


def test_remote_host_only_when_explicitly_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ALLOW_REMOTE_ENV, raising=False)
    allowed = load_model("openai:http://10.0.0.5:8080/v1#m", allow_remote=True)
    assert allowed.metadata().local_only is False  # constructing makes no request
    monkeypatch.setenv(ALLOW_REMOTE_ENV, "1")
    assert load_model("openai:http://10.0.0.5:8080/v1#m").metadata().local_only is False
    monkeypatch.setenv(ALLOW_REMOTE_ENV, "0")
    with pytest.raises(ConfigurationError):
        load_model("openai:http://10.0.0.5:8080/v1#m")


@pytest.mark.parametrize("host,loopback", [("localhost", True), ("127.0.0.1", True), ("127.8.9.10", True),
                                           ("::1", True), ("[::1]", True), ("0.0.0.0", False), ("10.1.1.1", False),
                                           ("localhost.example.com", False)])
def test_is_loopback_host(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_bad_specs_are_configuration_errors() -> None:
    for spec in ("openai:", "openai:ftp://127.0.0.1/v1", "openai:127.0.0.1:8080"):
        with pytest.raises(ConfigurationError):
            load_model(spec)
