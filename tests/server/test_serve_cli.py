"""`controlplane serve` as a user runs it: a separate process on a free loopback port."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import openai

from controlplane.pytest_plugin import GateHarness
from controlplane.server import free_port

ENVELOPE = GateHarness.envelope("We host on Fly.io [E1].", claims=[("We host on Fly.io [E1].", ["E1"])],
                                domain_flags=["architecture"])
CLI = [sys.executable, "-c", "from controlplane.cli import main; main()"]


def test_serve_answers_openai_clients_and_serves_the_viewer(tmp_path: Path, core_policy):
    script = tmp_path / "answers.jsonl"
    script.write_text(json.dumps(ENVELOPE) + "\n")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(core_policy.bundle.model_dump(mode="json", exclude_none=True)))
    port = free_port()
    env = {**os.environ, "CONTROLPLANE_HOME": str(tmp_path / "home")}
    process = subprocess.Popen(
        [*CLI, "serve", "--port", str(port), "--model", f"scripted:{script}", "--db", str(tmp_path / "t.db"),
         "--policy", str(policy), "--nli-backend", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "server did not come up"
            time.sleep(0.2)
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="x", max_retries=0)
        completion = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "Where do we host? (architecture)"}],
            extra_body={"evidence": [{"text": "We host on Fly.io."}]},
        )
        assert completion.choices[0].message.content == "We host on Fly.io [E1]."
        trace_id = completion.model_extra["controlplane"]["trace_id"]
        page = httpx.get(f"{url}/traces")
        assert page.status_code == 200 and trace_id in page.text
    finally:
        process.terminate()
        _, err = process.communicate(timeout=20)
    assert "serving" in err


def test_serve_refuses_a_public_host_without_allow_remote(tmp_path: Path):
    result = subprocess.run([*CLI, "serve", "--host", "0.0.0.0", "--model", "scripted:x.jsonl"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "--allow-remote" in result.stderr
