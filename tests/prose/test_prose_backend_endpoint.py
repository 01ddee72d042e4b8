"""The OpenAI-compatible endpoint in front of a backend with no JSON mode (issue 14).

Two loopback servers: a stdlib chat-completions stub that answers in prose and refuses ``response_format`` (as a
chat model without JSON mode does), and the control plane's own uvicorn server, which the official ``openai``
client asks. The plane talks to the stub through the real ``openai:`` adapter with the ``?envelope=prose`` spec
option; the shipped bundle's gates (NLI included) judge the envelope the server builds from the prose.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import httpx
import openai
import pytest

from controlplane.api import ControlPlane
from controlplane.contracts.text import split_sentences, strip_markers
from controlplane.prose_attribution import PROSE_SYSTEM_PROMPT
from controlplane.server import BackgroundServer

ORION = ("The Orion project ships on 14 March 2027. Its budget is 2.4 million euros. "
         "The team sits in Lyon and reports to the platform group.")
EVIDENCE = [{"id": "E1", "title": "Orion", "text": ORION, "trust_tier": "authoritative"}]
QUESTION = "When does the Orion project ship?"
INVENTED = "The Orion project was founded by Marie Curie in 1921."


class ProseBackend:
    """A chat model without JSON mode: answers every chat completion with the next canned prose reply."""

    def __init__(self, replies: list[str]):
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "prose-bot", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                backend.requests.append(body)
                if "response_format" in body:
                    self._send(400, {"error": {"message": "response_format is not supported by this model"}})
                    return
                text = backend.replies.pop(0) if len(backend.replies) > 1 else backend.replies[0]
                self._send(200, {"id": "x", "object": "chat.completion", "model": "prose-bot",
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": text}}],
                                 "usage": {"prompt_tokens": 50, "completion_tokens": len(text) // 4}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def served(tmp_path):
    """``served(replies)`` -> (control plane base url, backend): both servers stopped after the test."""
    stack = []

    def start(replies: list[str]):
        backend = ProseBackend(replies).__enter__()
        plane = ControlPlane(model=f"openai:{backend.url}#prose-bot?envelope=prose", db=tmp_path / "traces.db",
                             critic=False, load_entry_points=False)
        server = BackgroundServer(plane.app()).start()
        stack.append((backend, plane, server))
        return server.url, backend

    yield start
    for backend, plane, server in stack:
        server.stop()
        plane.close()
        backend.__exit__()


def ask(url: str):
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="not-needed", max_retries=0, timeout=120)
    return client.chat.completions.create(model="any", messages=[{"role": "user", "content": QUESTION}],
                                          extra_body={"evidence": EVIDENCE})


def test_a_prose_backend_answers_through_the_endpoint_verified(served):
    url, backend = served(["The Orion project ships on 14 March 2027."])
    completion = ask(url)
    meta = completion.model_extra["controlplane"]
    assert (meta["status"], meta["verified"]) == ("pass", True)
    assert completion.choices[0].message.content == "The Orion project ships on 14 March 2027. [E1]"
    answers = [r for r in backend.requests if r["messages"][0]["content"] == PROSE_SYSTEM_PROMPT]
    assert answers and all("response_format" not in r for r in answers)  # the answer was asked for as plain text
    bundle = httpx.get(url + meta["trace_url"]).json()
    call = next(e for e in bundle["events"] if e["phase"] == "model_call")
    assert call["payload"]["envelope"] == "prose"
    assert call["payload"]["prose"]["sentences"][0]["method"] == "ngram"


def test_a_prose_backend_that_mixes_a_copied_and_an_invented_sentence(served):
    url, _ = served([f"The Orion project ships on 14 March 2027. {INVENTED}"])
    completion = ask(url)
    meta = completion.model_extra["controlplane"]
    content = completion.choices[0].message.content
    shown = [strip_markers(s.text) for s in split_sentences(content)]
    assert "The Orion project ships on 14 March 2027." in shown
    assert "Marie Curie" not in content and "1921" not in content
    assert meta["verified"] is False
    failing = [c for c in meta["claims"] if c["verdict"] == "FAIL"]
    assert failing and all("Marie Curie" in c["text"] for c in failing)
