"""The OpenAI-compatible endpoint, end to end: the official ``openai`` client against uvicorn on loopback, answering
with the scripted model through the real pipeline."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import httpx
import openai
import pytest

from controlplane.pytest_plugin import GateHarness

EVIDENCE = [
    {"id": "E1", "title": "Stack", "text": "We host on Fly.io. DB is Turso (SQLite)."},
    {"id": "E2", "title": "Regions", "text": "The primary Fly.io region is ams (Amsterdam)."},
]
QUESTION = "What is our hosting architecture?"
JSON = {"content-type": "application/json"}  # the server refuses any other POST body (415)
GOOD = GateHarness.envelope(
    "We host on Fly.io [E1]. The primary region is ams [E2].",
    claims=[("We host on Fly.io [E1].", ["E1"]), ("The primary region is ams [E2].", ["E2"])],
    domain_flags=["architecture"],
)
BAD = GateHarness.envelope(
    "We host on Fly.io [E1]. The database runs in Tokyo [E9].",
    claims=[("We host on Fly.io [E1].", ["E1"]), ("The database runs in Tokyo [E9].", ["E9"])],
    domain_flags=["architecture"],
)


def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="not-needed", max_retries=0, timeout=30)


def ask(url: str, **kwargs):
    kwargs.setdefault("messages", [{"role": "user", "content": QUESTION}])
    return client(url).chat.completions.create(model="whatever-the-app-uses", **kwargs)


def test_a_chat_completion_carries_the_gated_answer_and_its_verification(serve, trace_store):
    url, plane = serve([GOOD])
    completion = ask(url, extra_body={"evidence": EVIDENCE})

    assert completion.object == "chat.completion"
    assert completion.choices[0].message.role == "assistant"
    assert completion.choices[0].message.content == "We host on Fly.io [E1]. The primary region is ams [E2]."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == f"controlplane:{plane.model_id}"
    meta = completion.model_extra["controlplane"]
    assert (meta["status"], meta["verified"], meta["attempts"]) == ("pass", True, 1)
    assert completion.id == f"chatcmpl-{meta['trace_id']}"
    assert [(c["claim_id"], c["verdict"], c["span"]) for c in meta["claims"]] == [
        ("c1", "PASS", [0, 23]), ("c2", "PASS", [24, 55])]
    assert {g["gate_id"] for g in meta["gate_results"]} >= {"output_schema", "evidence_binding", "claim_anchors"}
    assert meta["trace_url"] == f"/v1/traces/{meta['trace_id']}"
    assert completion.usage.completion_tokens > 0
    # the trace was stored and is served as JSON
    bundle = httpx.get(url + meta["trace_url"]).json()
    assert bundle["trace_id"] == meta["trace_id"]
    assert bundle["outcome"]["assistant_text"] == completion.choices[0].message.content
    assert [e["seq"] for e in bundle["events"]] == list(range(len(bundle["events"])))
    assert trace_store.exists(meta["trace_id"])


def test_evidence_in_the_controlplane_field_and_chat_history(serve, trace_store):
    url, _ = serve([GOOD])
    completion = ask(url, messages=[
        {"role": "developer", "content": "Answer briefly."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": [{"type": "text", "text": QUESTION}]},
    ], extra_body={"controlplane": {"evidence": EVIDENCE, "session_id": "chat-7"}})
    meta = completion.model_extra["controlplane"]
    assert meta["status"] == "pass" and meta["evidence_ids"] == ["E1", "E2"]
    bundle = trace_store.load_bundle(meta["trace_id"])
    assert [m["role"] for m in bundle.messages] == ["system", "user", "assistant", "user"]
    assert trace_store.db.execute("SELECT session_id FROM traces").fetchone()[0] == "chat-7"


def test_a_failing_answer_is_degraded_and_says_so(serve):
    url, _ = serve([BAD] * 3)
    completion = ask(url, extra_body={"evidence": EVIDENCE})
    meta = completion.model_extra["controlplane"]
    assert (meta["status"], meta["verified"], meta["attempts"]) == ("degraded", False, 3)
    assert "evidence_binding" in meta["failing_gates"]
    text = completion.choices[0].message.content
    assert text.startswith("We host on Fly.io [E1].\n\n[Not verified")
    assert [c["verdict"] for c in meta["claims"]] == ["PASS", "FAIL"] and meta["claims"][1]["span"] is None


def stream_text(url: str, **kwargs) -> tuple[list[str], list]:
    chunks = list(ask(url, stream=True, **kwargs))
    contents = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    return contents, chunks


def test_streaming_releases_checked_sentences_only(serve):
    url, _ = serve([GOOD])
    contents, chunks = stream_text(url, extra_body={"evidence": EVIDENCE})
    assert contents == ["We host on Fly.io [E1].", " The primary region is ams [E2]."]
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    final = chunks[-1]
    assert final.choices[0].finish_reason == "stop"
    assert final.model_extra["controlplane"]["status"] == "pass"
    assert len({c.id for c in chunks}) == 1


def test_streaming_a_degraded_answer_never_releases_the_failing_sentence(serve):
    url, _ = serve([BAD] * 3)
    contents, chunks = stream_text(url, extra_body={"evidence": EVIDENCE})
    plain = ask(url, extra_body={"evidence": EVIDENCE}).choices[0].message.content
    assert "".join(contents) == plain  # streaming changes the delivery, never the content
    failing = "The database runs in Tokyo [E9]."
    # released as a sentence: only the passing claim; the failing one appears only inside the server's removal note
    assert contents[0] == "We host on Fly.io [E1]."
    assert all(failing not in unit or unit.lstrip().startswith("[Not verified") for unit in contents)
    assert chunks[-1].model_extra["controlplane"]["failing_gates"]


def test_no_byte_is_streamed_before_every_gate_has_run(serve, scripted_model, trace_store):
    """With a model that takes 0.4 s, the first SSE byte arrives after the trace's final event was recorded."""

    class SlowModel:
        def __init__(self, inner):
            self.inner = inner

        def generate(self, query, context, params):
            time.sleep(0.4)
            return self.inner.generate(query, context, params)

        def is_ready(self):
            return True

        def metadata(self):
            return self.inner.metadata()

    url, _ = serve(None, model=SlowModel(scripted_model([GOOD])))
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": QUESTION}], "evidence": EVIDENCE}
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=30) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.iter_lines()
        first = next(line for line in lines if line)
        first_byte_at = datetime.now().astimezone()
        rest = [line for line in lines if line]
    assert first.startswith("data: ") and rest[-1] == "data: [DONE]"
    trace_id = response.headers["x-controlplane-trace-id"]
    final_event = trace_store.events(trace_id)[-1]
    assert final_event.phase.value == "final"
    assert datetime.fromisoformat(final_event.ts) <= first_byte_at


def test_stream_options_include_usage(serve):
    url, _ = serve([GOOD])
    _, chunks = stream_text(url, extra_body={"evidence": EVIDENCE}, stream_options={"include_usage": True})
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens > 0


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"model": "m"}, "messages", "missing_required_parameter"),
        ({"model": "m", "messages": "hi"}, "messages", "invalid_value"),
        ({"model": "m", "messages": [{"role": "tool", "content": "x"}]}, "messages[0].role", "invalid_value"),
        ({"model": "m", "messages": [{"role": "user", "content": 7}]}, "messages[0].content", "invalid_type"),
        ({"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]},
         "messages[0].content[0]", "unsupported_value"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "n": 2}, "n", "unsupported_value"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "tools": [{"type": "function"}]}, "tools",
         "unsupported_parameter"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "stream": "yes"}, "stream", "invalid_type"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "evidence": {"text": "x"}}, "evidence",
         "invalid_type"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "evidence": [{"title": "no text"}]},
         "evidence[0]", "invalid_value"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}],
          "controlplane": {"evidence": [{"text": "x", "colour": "red"}]}}, "controlplane.evidence[0]", "invalid_value"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "controlplane": {"evidnce": []}},
         "controlplane.evidnce", "unknown_parameter"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "controlplane": {"collection": "nope"}},
         "controlplane.collection", "invalid_value"),
        ({"model": "m", "messages": [{"role": "assistant", "content": "q"}]}, "messages", "invalid_value"),
        # found by QA: a response_format or stream_options that is no object was accepted and ignored
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "response_format": "json_object"},
         "response_format", "invalid_type"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "stream": True, "stream_options": 5},
         "stream_options", "invalid_type"),
        # found by QA: these were HTTP 500 (TypeError / AttributeError in the pack builder)
        ({"model": "m", "messages": [{"role": "user", "content": "q"}], "evidence": [{"text": "x", "provenance": 5}]},
         "evidence[0].provenance", "invalid_value"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}],
          "evidence": [{"text": "x", "provenance": {"source": 5}}]}, "evidence[0].provenance.source", "invalid_value"),
        ({"model": "m", "messages": [{"role": "user", "content": "q"}],
          "evidence": [{"text": "x", "qualifiers": "adults"}]}, "evidence[0].qualifiers", "invalid_value"),
    ],
)
def test_bad_requests_get_400_with_the_field_named(serve, trace_store, body, param, code):
    url, _ = serve([GOOD])
    response = httpx.post(f"{url}/v1/chat/completions", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert (error["param"], error["code"], error["type"]) == (param, code, "invalid_request_error")
    assert error["message"]
    assert trace_store.list_traces() == []


def test_the_openai_client_sees_400_as_bad_request_error(serve):
    url, _ = serve([GOOD])
    with pytest.raises(openai.BadRequestError) as caught:
        ask(url, messages=[{"role": "user", "content": "q"}], n=2)
    assert caught.value.status_code == 400 and caught.value.body["param"] == "n"


def test_request_size_limit_413(serve):
    url, _ = serve([GOOD], app_options={"max_body_bytes": 4096})
    big = {"model": "m", "messages": [{"role": "user", "content": "x" * 5000}]}
    response = httpx.post(f"{url}/v1/chat/completions", json=big)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"

    def chunked():  # no Content-Length: the limit is enforced while reading
        yield b'{"model": "m", "messages": [{"role": "user", "content": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}]}'

    response = httpx.post(f"{url}/v1/chat/completions", content=chunked(), headers=JSON)
    assert response.status_code == 413 and response.json()["error"]["type"] == "invalid_request_error"
    with pytest.raises(openai.APIStatusError) as caught:
        ask(url, messages=[{"role": "user", "content": "z" * 5000}])
    assert caught.value.status_code == 413


def test_malformed_json_unknown_routes_and_methods_are_openai_errors(serve):
    url, _ = serve([GOOD])
    response = httpx.post(f"{url}/v1/chat/completions", content=b"{not json", headers=JSON)
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_json"
    response = httpx.post(f"{url}/v1/chat/completions", content=b"[1, 2]", headers=JSON)
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_json"
    response = httpx.get(f"{url}/v1/nothing")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    response = httpx.get(f"{url}/v1/chat/completions")
    assert response.status_code == 405 and "error" in response.json()
    response = httpx.get(f"{url}/v1/traces/tr_missing")
    assert response.status_code == 404 and response.json()["error"]["param"] == "trace_id"


def test_an_unknown_trace_status_filter_is_a_400_not_an_empty_list(serve):
    """Found by QA: GET /v1/traces?status=bogus answered 200 with no traces, which reads as an empty store (the CLI's
    `trace list --status bogus` exits 2 for that reason); the viewer's /traces?status=bogus did the same."""
    url, _ = serve([GOOD])
    response = httpx.get(f"{url}/v1/traces", params={"status": "bogus"})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["param"] == "status" and "degraded" in error["message"]
    page = httpx.get(f"{url}/traces", params={"status": "bogus"})
    assert page.status_code == 400 and "degraded" in page.text
    assert httpx.get(f"{url}/v1/traces", params={"status": "degraded"}).status_code == 200


def test_models_healthz_and_trace_list(serve):
    url, plane = serve([GOOD])
    models = client(url).models.list()
    assert [m.id for m in models.data] == [f"controlplane:{plane.model_id}"]
    health = httpx.get(f"{url}/healthz").json()
    assert health["status"] == "ok" and health["policy"]["hash"] == plane.policy.hash
    completion = ask(url, extra_body={"evidence": EVIDENCE})
    listed = httpx.get(f"{url}/v1/traces").json()["data"]
    assert [row["trace_id"] for row in listed] == [completion.model_extra["controlplane"]["trace_id"]]
    assert listed[0]["status"] == "pass"


def test_evidence_from_a_named_collection(serve, tmp_path):
    class Handbook:
        """A small real retriever: documents sharing a word with the question."""

        name = "handbook"

        def retrieve(self, query, k):
            from controlplane.contracts import EvidenceItem

            words = {w.strip("?").lower() for w in query.split()}
            docs = ["We host on Fly.io.", "The primary Fly.io region is ams (Amsterdam)."]
            return [EvidenceItem(id=f"H{n}", type="RETRIEVAL_SNIPPET", text=d, hash="sha256:" + "0" * 64,
                                 provenance={"source": "handbook"}, retrieval_score=0.9 - n / 10)
                    for n, d in enumerate(docs) if words & {w.strip(".()").lower() for w in d.split()}][:k]

    url, _ = serve([GOOD], collections={"handbook": Handbook()})
    completion = ask(url, messages=[{"role": "user", "content": "What is our hosting region on Fly.io?"}],
                     extra_body={"controlplane": {"collection": "handbook"}})
    meta = completion.model_extra["controlplane"]
    assert meta["evidence_ids"] == ["E1", "E2"] and meta["status"] == "pass"
    bundle = httpx.get(url + meta["trace_url"]).json()
    assert [i["type"] for i in bundle["evidence_pack"]["evidence"]] == ["RETRIEVAL_SNIPPET"] * 2


def test_concurrent_clients_and_throughput(serve, capsys):
    url, _ = serve([GOOD])
    n = 40

    def one(i: int) -> str:
        return ask(url, extra_body={"evidence": EVIDENCE}).model_extra["controlplane"]["status"]

    started = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(one, range(n)))
    elapsed = time.perf_counter() - started
    assert statuses == ["pass"] * n
    with capsys.disabled():
        print(f"\n[throughput] {n} requests, 8 concurrent clients, scripted model: {n / elapsed:.1f} requests/s")


def test_sse_wire_format(serve):
    url, _ = serve([GOOD])
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": QUESTION}], "evidence": EVIDENCE}
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body) as response:
        raw = response.read().decode()
    events = [block for block in raw.split("\n\n") if block]
    assert all(block.startswith("data: ") for block in events)
    assert events[-1] == "data: [DONE]"
    payloads = [json.loads(block[6:]) for block in events[:-1]]
    assert "".join(p["choices"][0]["delta"].get("content", "") for p in payloads) == GOOD["assistant_text"]


def test_a_broken_deployment_is_a_500_error_object_without_a_traceback(serve):
    class BrokenIndex:
        name = "broken"

        def retrieve(self, query, k):
            raise RuntimeError("index file is corrupt at /secret/path")

    url, _ = serve([GOOD], collections={"broken": BrokenIndex()})
    response = httpx.post(f"{url}/v1/chat/completions", json={
        "model": "m", "messages": [{"role": "user", "content": QUESTION}], "controlplane": {"collection": "broken"}})
    assert response.status_code == 500
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("server_error", "configuration_error")
    assert "Traceback" not in response.text and "retriever 'broken' failed" in error["message"]


@pytest.mark.parametrize("raw", [
    b'{"model": "m", "messages": [{"role": "user", "content": "q"}], "evidence": [{"text": "\\ud800"}]}',
    b'{"model": "m", "messages": [{"role": "user", "content": "\\udfff"}]}',
    b'{"model": "m", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
])
def test_hostile_json_is_a_400_not_a_crash(serve, raw):
    url, _ = serve([GOOD], app_options={"max_body_bytes": 1_000_000})
    response = httpx.post(f"{url}/v1/chat/completions", content=raw, headers=JSON)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "invalid_json"


def test_a_follow_up_is_read_with_the_previous_question_over_http(serve, trace_store):
    """A chat client sends the whole conversation; the reply says how its follow-up was read."""
    url, _ = serve([GOOD, GOOD])
    conversation = [{"role": "user", "content": "Where do we host the API?"},
                    {"role": "assistant", "content": "We host on Fly.io [E1]."},
                    {"role": "user", "content": "What is its primary region?"}]
    meta = ask(url, messages=conversation, extra_body={"evidence": EVIDENCE}).model_extra["controlplane"]
    assert meta["follow_up"]["read_as"] == "What is the API's primary region?"
    assert meta["follow_up"]["rule"] == "pronoun"
    alone = ask(url, extra_body={"evidence": EVIDENCE}).model_extra["controlplane"]
    assert alone["follow_up"] is None
