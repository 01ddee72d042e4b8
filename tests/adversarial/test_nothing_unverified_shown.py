"""Issue 15, item 1 (grounded generation G-1 in every path): the CLI text, ``--json`` assistant_text, the Python
Response, the HTTP reply and the stream show only sentences that passed verification, plus the system's own
notices. Sentences no claim covers are unverified in every rigor, through every degrade mode.

The first test is the issue's Orion example as it happened: a two-line document, "When does the Orion project
ship?", routed to low rigor; the model's one claim fails (it is not in the text, and the evidence does not entail
it) and the rest of the answer is invented sentences no claim covers. They used to reach the user under
"[Not verified: some statements were removed.]".
"""

from __future__ import annotations

import json

import httpx
import pytest

from controlplane.contracts import TraceStatus
from controlplane.gates.interfaces import GateServices
from controlplane.policy_bundles.loader import parse_bundle

from .conftest import PairTableNli

ORION = "The Orion project ships on 14 March 2027. Its budget is 2.4 million euros."
ORION_EVIDENCE = [{"id": "E1", "title": "Orion", "text": ORION, "trust_tier": "authoritative"}]
ORION_Q = "When does the Orion project ship?"
INVENTED = ("The evidence does not say who founded the Orion project, but the evidence says that the Orion project is "
            "funded by the Orion project. The evidence says that Orion project is supported by the Orion Project.")
INVENTED_WORDS = ("funded", "supported", "founded", "June 2026")
ORION_OUTPUT = {
    "assistant_text": INVENTED,
    "meta": {"modeLabel": "Ida", "domainFlags": [],
             "claim_map": [{"claim_id": "c1", "text": "The Orion project ships in June 2026.", "evidence_ids": ["E1"],
                            "status": "FACTUAL"}],
             "citations": [{"claim_id": "c1", "evidence_ids": ["E1"]}], "used_evidence_ids": ["E1"]},
}


def assert_only_notices(text: str) -> None:
    for word in INVENTED_WORDS:
        assert word not in text, text
    assert text.startswith("I can't give a verified answer"), text  # the system's own refusal notice


def streamed_chunks(url: str, body: dict) -> list[str]:
    """The content of each chunk the endpoint streams for ``body``."""
    chunks = []
    with httpx.stream("POST", f"{url}/v1/chat/completions", json={**body, "stream": True}, timeout=60) as response:
        for line in response.iter_lines():
            if line.startswith("data: {"):
                chunks.append(json.loads(line[6:])["choices"][0]["delta"].get("content") or "")
    return chunks


# -- the Orion example at every surface -------------------------------------------------------------------------------
def test_orion_python_pipeline(kit):
    result = kit.run([ORION_OUTPUT] * 3, message=ORION_Q, evidence=ORION_EVIDENCE, policy=kit.full,
                     services=GateServices(nli_backend=PairTableNli({})))
    assert result.mode_decision.rigorConfig.level.value == "low"
    assert result.status is TraceStatus.REFUSED and result.verified is False
    assert_only_notices(result.assistant_text)
    assert "- 2 other statements were not shown: no claim backed them" in result.assistant_text
    # the trace keeps what was removed, in full
    removed = [r["text"] for r in result.degrade["removed_sentences"]]
    assert any("funded by the Orion project" in r for r in removed)


def test_orion_cli_text_and_json(tmp_path, full_policy, monkeypatch):
    from click.testing import CliRunner

    from controlplane.cli import main

    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(full_policy.bundle.model_dump(mode="json", exclude_none=True)))
    monkeypatch.setenv("CONTROLPLANE_POLICY", str(policy))
    evidence = tmp_path / "evidence.json"
    evidence.write_text(json.dumps(ORION_EVIDENCE))
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(json.dumps(ORION_OUTPUT) for _ in range(3)) + "\n")
    base = ["run", "-m", ORION_Q, "--evidence", str(evidence), "--model", f"scripted:{script}", "--nli-backend",
            "none", "--db", str(tmp_path / "t.db")]
    as_json = CliRunner().invoke(main, [*base, "--json"], catch_exceptions=False)
    data = json.loads(as_json.output)
    assert (data["status"], data["verified"]) == ("refused", False)
    assert_only_notices(data["assistant_text"])
    text = CliRunner().invoke(main, base, catch_exceptions=False).output
    answer = text.split("\nmode: ")[0]
    assert_only_notices(answer)


@pytest.fixture
def api_plane(tmp_path, full_policy):
    from controlplane.api import ControlPlane

    script = tmp_path / "orion.jsonl"
    script.write_text("\n".join(json.dumps(ORION_OUTPUT) for _ in range(12)) + "\n")
    plane = ControlPlane(model=f"scripted:{script}", policy=full_policy, db=False, nli_backend=PairTableNli({}))
    yield plane
    plane.close()


def test_orion_python_response(api_plane):
    reply = api_plane.respond([{"role": "user", "content": ORION_Q}], evidence=ORION_EVIDENCE)
    assert (reply.status, reply.verified) == ("refused", False)
    assert_only_notices(reply.assistant_text)
    assert all(claim.span is None for claim in reply.claims)


def test_orion_http_reply_and_stream(api_plane):
    from controlplane.server import BackgroundServer

    server = BackgroundServer(api_plane.app()).start()
    try:
        body = {"model": "any", "messages": [{"role": "user", "content": ORION_Q}], "evidence": ORION_EVIDENCE}
        reply = httpx.post(f"{server.url}/v1/chat/completions", json=body, timeout=60).json()
        assert_only_notices(reply["choices"][0]["message"]["content"])
        assert reply["controlplane"]["verified"] is False
        assert_only_notices("".join(streamed_chunks(server.url, body)))
    finally:
        server.stop()


# -- uncovered invented sentences at each rigor, through each degrade mode ---------------------------------------------
EVIDENCE = [{"id": "E1", "text": "We host on Fly.io. The database is Turso.", "trust_tier": "authoritative"}]
RIGOR_MESSAGES = {"low": "What changed lately?", "medium": "Where do we host?",
                  "high": "Where do we host? Is it GDPR compliant?"}


def _policy(full, mode: str):
    data = full.bundle.model_dump(mode="json", exclude_none=True)
    data["degrade"] = {"mode": mode, "by_rigor": {}}
    return parse_bundle(data, source=f"test:degrade-{mode}")


@pytest.mark.parametrize("degrade_mode", ["suppress", "refuse"])
@pytest.mark.parametrize("rigor", ["low", "medium", "high"])
def test_uncovered_invented_sentences_are_never_shown(kit, rigor, degrade_mode):
    claim = "We host on Fly.io [E1]."
    text = f"{claim} Our CEO founded the company in Berlin in 1999. Revenue doubled last year."
    output = {"assistant_text": text,
              "meta": {"modeLabel": "Ida" if rigor == "low" else "System", "domainFlags": [],
                       "claim_map": [{"claim_id": "c1", "text": claim, "evidence_ids": ["E1"], "status": "FACTUAL"}],
                       "citations": [{"claim_id": "c1", "evidence_ids": ["E1"]}], "used_evidence_ids": ["E1"]}}
    nli = PairTableNli({("We host on Fly.io.", claim): (0.97, 0.01)})
    result = kit.run([output] * 3, message=RIGOR_MESSAGES[rigor], evidence=EVIDENCE,
                     policy=_policy(kit.full, degrade_mode), services=GateServices(nli_backend=nli))
    assert result.mode_decision.rigorConfig.level.value == rigor
    for invented in ("CEO", "Berlin", "Revenue"):
        assert invented not in result.assistant_text
    assert result.verified is False
    if degrade_mode == "suppress" and rigor != "high":  # high stakes need two sources: the claim fails there too
        assert result.status is TraceStatus.DEGRADED, ([c.as_dict() for c in result.claims], result.degrade)
        assert result.assistant_text.startswith(claim + "\n\n[Not verified")
    else:
        assert result.status is TraceStatus.REFUSED


@pytest.mark.parametrize("rigor", ["low", "medium"])
def test_uncovered_invented_sentence_never_reaches_the_http_reply_or_the_stream(tmp_path, full_policy, rigor):
    """The degraded path at the HTTP surfaces: the checked sentence and the notice are released, the invented one
    never is, in the reply or in any stream chunk."""
    from controlplane.api import ControlPlane
    from controlplane.server import BackgroundServer

    claim = "We host on Fly.io [E1]."
    output = {"assistant_text": f"{claim} Our CEO founded the company in Berlin in 1999.",
              "meta": {"modeLabel": "Ida" if rigor == "low" else "System", "domainFlags": [],
                       "claim_map": [{"claim_id": "c1", "text": claim, "evidence_ids": ["E1"], "status": "FACTUAL"}],
                       "citations": [{"claim_id": "c1", "evidence_ids": ["E1"]}], "used_evidence_ids": ["E1"]}}
    script = tmp_path / "uncovered.jsonl"
    script.write_text("\n".join(json.dumps(output) for _ in range(12)) + "\n")
    plane = ControlPlane(model=f"scripted:{script}", policy=full_policy, db=False,
                         nli_backend=PairTableNli({("We host on Fly.io.", claim): (0.97, 0.01)}))
    server = BackgroundServer(plane.app()).start()
    try:
        body = {"model": "any", "messages": [{"role": "user", "content": RIGOR_MESSAGES[rigor]}],
                "evidence": EVIDENCE}
        reply = httpx.post(f"{server.url}/v1/chat/completions", json=body, timeout=60).json()
        content = reply["choices"][0]["message"]["content"]
        assert content.startswith(claim) and "Berlin" not in content and "CEO" not in content
        assert reply["controlplane"]["status"] == "degraded" and reply["controlplane"]["verified"] is False
        chunks = streamed_chunks(server.url, body)
        assert "".join(chunks) == content and not any("Berlin" in c for c in chunks)
    finally:
        server.stop()
        plane.close()


# -- a lead-in line before a list (gates/lead_ins.py) -------------------------------------------------------------------
LEAD_IN_CLAIMS = [("We host on Fly.io [E1].", ["E1"]), ("The database is Turso [E1].", ["E1"])]
LEAD_IN_NLI = {("We host on Fly.io.", "We host on Fly.io [E1]."): (0.97, 0.01),
               ("The database is Turso.", "The database is Turso [E1]."): (0.97, 0.01)}


def _listed(first_line: str) -> dict:
    return {"assistant_text": f"{first_line}\n- We host on Fly.io [E1].\n- The database is Turso [E1].",
            "meta": {"modeLabel": "System", "domainFlags": [],
                     "claim_map": [{"claim_id": f"c{i}", "text": c, "evidence_ids": ids, "status": "FACTUAL"}
                                   for i, (c, ids) in enumerate(LEAD_IN_CLAIMS, 1)],
                     "citations": [{"claim_id": f"c{i}", "evidence_ids": ids}
                                   for i, (_, ids) in enumerate(LEAD_IN_CLAIMS, 1)],
                     "used_evidence_ids": ["E1"]}}


@pytest.mark.parametrize("degrade_mode", ["suppress", "refuse"])
@pytest.mark.parametrize("line", ["Our CEO founded the company in Berlin:", "According to the board, in 1999:",
                                  "The evidence does not say:"])
def test_a_line_before_a_list_that_states_something_is_never_shown(kit, line, degrade_mode):
    result = kit.run([_listed(line)] * 3, message=RIGOR_MESSAGES["medium"], evidence=EVIDENCE,
                     policy=_policy(kit.full, degrade_mode), services=GateServices(nli_backend=PairTableNli(LEAD_IN_NLI)))
    assert line not in result.assistant_text and result.verified is False


def test_a_lead_in_and_its_verified_list_reach_the_http_reply_and_the_stream_as_written(tmp_path, full_policy):
    from controlplane.api import ControlPlane
    from controlplane.server import BackgroundServer

    output = _listed("According to the evidence:")
    script = tmp_path / "lead_in.jsonl"
    script.write_text("\n".join(json.dumps(output) for _ in range(6)) + "\n")
    plane = ControlPlane(model=f"scripted:{script}", policy=full_policy, db=False,
                         nli_backend=PairTableNli(LEAD_IN_NLI))
    server = BackgroundServer(plane.app()).start()
    try:
        body = {"model": "any", "messages": [{"role": "user", "content": RIGOR_MESSAGES["medium"]}],
                "evidence": EVIDENCE}
        reply = httpx.post(f"{server.url}/v1/chat/completions", json=body, timeout=60).json()
        assert reply["choices"][0]["message"]["content"] == output["assistant_text"]
        assert reply["controlplane"]["status"] == "pass" and reply["controlplane"]["verified"] is True
        chunks = streamed_chunks(server.url, body)
        assert "".join(chunks) == output["assistant_text"]
    finally:
        server.stop()
        plane.close()
