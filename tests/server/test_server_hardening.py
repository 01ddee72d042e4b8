"""Issue 16 items 8 and "Crashes": the trace API and viewer redact, only configured host names are served, POST
needs application/json, hostile bodies are a 400, and half-sent or idle connections are closed on a deadline.

Everything goes through uvicorn on loopback with the real pipeline and a scripted model.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from controlplane.pytest_plugin import GateHarness

HUGE_INT = "9" * 5001
DEEP = "[" * 100_000 + "]" * 100_000
SHALLOW_DEEP = "[" * 900 + "]" * 900
GOOD = GateHarness.envelope("We host on Fly.io [E1].", claims=[("We host on Fly.io [E1].", ["E1"])],
                            domain_flags=["architecture"])
EVIDENCE = [{"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite)."}]
CHAT = "/v1/chat/completions"

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
SK_TOKEN = "sk-proj-abcdefghijklmnopqrstuvwx1234"
EMAIL = "jane.doe@example.com"
PHONE = "+1 415 555 0134"
SECRET_MESSAGE = (f"Where do we host our architecture? My key is {AWS_KEY}, token {SK_TOKEN}, mail {EMAIL}, "
                  f"call {PHONE}.")
SECRETS = (AWS_KEY, SK_TOKEN, EMAIL, PHONE)


def body(**extra) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": "Where do we host our architecture?"}],
            "evidence": EVIDENCE, **extra}


@pytest.mark.parametrize("raw, fragment", [
    ('{"messages": [{"role": "user", "content": "hi"}], "n": ' + HUGE_INT + "}", "5001 digits"),
    ('{"messages": [{"role": "user", "content": "hi"}], "x": ' + DEEP + "}", "nests deeper"),
    ('{"messages": [{"role": "user", "content": "hi"}], "x": ' + SHALLOW_DEEP + "}", "nests deeper"),
    ('{"messages": [{"role": "user", "content": "hi"}], "messages": []}', "duplicate key 'messages'"),
], ids=["huge-int", "deep", "deep-below-recursion-limit", "duplicate-key"])
def test_hostile_http_body_is_a_400(serve, raw: str, fragment: str):
    url, _ = serve([GOOD])
    reply = httpx.post(url + CHAT, content=raw.encode(), headers={"content-type": "application/json"}, timeout=30)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["code"] == "invalid_json" and fragment in error["message"]


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
def test_a_post_that_is_not_application_json_is_refused_before_anything_runs(serve, trace_store, content_type):
    url, _ = serve([GOOD])
    headers = {"content-type": content_type} if content_type else {}
    reply = httpx.post(url + CHAT, content=json.dumps(body()).encode(), headers=headers, timeout=30)
    assert reply.status_code == 415, reply.text
    assert reply.json()["error"]["code"] == "unsupported_media_type"
    assert "application/json" in reply.json()["error"]["message"]
    assert trace_store.list_traces() == []
    accepted = httpx.post(url + CHAT, content=json.dumps(body()).encode(),
                          headers={"content-type": "application/json; charset=utf-8"}, timeout=30)
    assert accepted.status_code == 200, accepted.text


def test_only_configured_host_names_are_served(serve):
    url, _ = serve([GOOD, GOOD])
    port = url.rsplit(":", 1)[1]
    for host in ("attacker.example", f"attacker.example:{port}", "127.0.0.1.nip.io"):
        for method, path in (("GET", "/v1/traces"), ("GET", "/traces"), ("POST", CHAT), ("GET", "/healthz")):
            reply = httpx.request(method, url + path, headers={"host": host}, json=body())
            assert reply.status_code == 421, (host, path, reply.text)
            assert reply.json()["error"]["code"] == "host_not_allowed"
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", "[::1]:" + port):
        assert httpx.get(url + "/healthz", headers={"host": host}).status_code == 200, host
    named_url, _ = serve([GOOD], app_options={"allowed_hosts": ["cp.internal"]})
    assert httpx.get(named_url + "/healthz", headers={"host": "cp.internal:8080"}).status_code == 200
    assert httpx.get(named_url + "/healthz", headers={"host": "localhost"}).status_code == 421


def _secret_trace(url: str) -> str:
    payload = body(messages=[{"role": "user", "content": SECRET_MESSAGE}],
                   evidence=[{"id": "E1", "text": f"We host on Fly.io. Ops contact: {EMAIL}, key {AWS_KEY}."}])
    reply = httpx.post(url + CHAT, json=payload, timeout=30)
    assert reply.status_code == 200, reply.text
    return reply.json()["controlplane"]["trace_id"]


def test_the_trace_api_and_viewer_serve_what_the_export_redacts(serve):
    url, _ = serve([GOOD])
    trace_id = _secret_trace(url)
    for path in (f"/v1/traces/{trace_id}", f"/traces/{trace_id}", "/v1/traces", "/traces"):
        reply = httpx.get(url + path)
        assert reply.status_code == 200, (path, reply.text)
        leaked = [s for s in SECRETS if s in reply.text]
        assert leaked == [], (path, leaked)
    bundle = httpx.get(f"{url}/v1/traces/{trace_id}").json()
    assert bundle["redaction"]["applied"] is True
    assert "REDACTED_SECRET" in bundle["messages"][0]["content"]


def test_full_trace_text_only_behind_the_explicit_setting(serve):
    url, _ = serve([GOOD], app_options={"unredacted_traces": True})
    trace_id = _secret_trace(url)
    raw = httpx.get(f"{url}/v1/traces/{trace_id}").text
    assert AWS_KEY in raw and EMAIL in raw


def _closed_within(sock: socket.socket, seconds: float) -> float:
    """Seconds until the server closes ``sock`` (recv returns b''), failing after ``seconds``."""
    started = time.monotonic()
    sock.settimeout(seconds)
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return time.monotonic() - started
    except TimeoutError:
        pytest.fail(f"the server still held the connection after {seconds} s")
    except ConnectionResetError:
        return time.monotonic() - started


@pytest.mark.parametrize("sent", [
    b"",  # connected, never sends anything
    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # headers never finished (slowloris)
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 500\r\n\r\n{\"messages\":",  # body never finished
], ids=["idle", "half-sent-headers", "half-sent-body"])
def test_idle_and_half_sent_connections_are_closed_on_a_deadline(control_plane, core_policy, sent: bytes):
    from controlplane.server import BackgroundServer

    plane = control_plane([GOOD], policy=core_policy)
    with BackgroundServer(plane.app(), header_timeout=1.0, body_timeout=2.0) as server, \
            socket.create_connection((server.host, server.port)) as sock:
        sock.sendall(sent)
        held = _closed_within(sock, 10)
    assert held < 5


def test_default_timeouts_are_well_under_the_90_seconds_the_issue_saw():
    from controlplane.server import DEFAULT_BODY_TIMEOUT_S, DEFAULT_HEADER_TIMEOUT_S

    assert 0 < DEFAULT_HEADER_TIMEOUT_S <= 30 and 0 < DEFAULT_BODY_TIMEOUT_S <= 60


CLI = [sys.executable, "-c", "from controlplane.cli import main; main()"]


def _serve(tmp_path: Path, core_policy, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    script = tmp_path / "answers.jsonl"
    script.write_text(json.dumps(GOOD) + "\n")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(core_policy.bundle.model_dump(mode="json", exclude_none=True)))
    return subprocess.run([*CLI, "serve", "--model", f"scripted:{script}", "--db", str(tmp_path / "t.db"),
                           "--nli-backend", "none", *(("--policy", str(policy)) if "--policy" not in args else ()),
                           *args], capture_output=True, text=True, timeout=timeout)


def test_serve_on_a_busy_port_fails_before_saying_serving(tmp_path: Path, core_policy):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _serve(tmp_path, core_policy, "--port", str(port))
    assert result.returncode == 2, result.stderr
    assert "serving" not in result.stderr and "Traceback" not in result.stderr
    assert f"port {port}" in result.stderr and "--port" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_serve_with_a_bad_policy_fails_before_saying_serving(tmp_path: Path, core_policy):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "default"}')
    result = _serve(tmp_path, core_policy, "--port", "0", "--policy", str(bad))
    assert result.returncode == 2 and "serving" not in result.stderr and str(bad) in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_accepts_a_bracketed_ipv6_loopback(tmp_path: Path, core_policy):
    from controlplane.server import free_port

    port = free_port()
    script = tmp_path / "answers.jsonl"
    script.write_text(json.dumps(GOOD) + "\n")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(core_policy.bundle.model_dump(mode="json", exclude_none=True)))
    process = subprocess.Popen([*CLI, "serve", "--host", "[::1]", "--port", str(port), "--model", f"scripted:{script}",
                                "--db", str(tmp_path / "t.db"), "--policy", str(policy), "--nli-backend", "none"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://[::1]:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "server did not come up on [::1]"
            time.sleep(0.2)
    finally:
        process.terminate()
        _, err = process.communicate(timeout=20)
    assert "serving" in err and f"http://[::1]:{port}" in err
