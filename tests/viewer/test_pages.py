"""The trace viewer's HTML, read with a real HTML parser: the list, one trace's timeline and claim highlights, and
escaping of everything that comes from a trace."""

from __future__ import annotations

import html
from html.parser import HTMLParser

import pytest
from starlette.testclient import TestClient

from .conftest import XSS


class Page(HTMLParser):
    """Collects elements (tag, attrs, text inside) so tests can query the DOM the browser would build."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[dict] = []
        self._open: list[dict] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.elements.append(element)
        if tag not in ("meta", "img", "br", "input", "link"):
            self._open.append(element)

    def handle_endtag(self, tag):
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index]["tag"] == tag:
                del self._open[index:]
                break

    def handle_data(self, data):
        for element in self._open:
            element["text"] += data

    def find(self, tag=None, cls=None, **attrs):
        out = []
        for element in self.elements:
            if tag and element["tag"] != tag:
                continue
            if cls and cls not in (element["attrs"].get("class") or "").split():
                continue
            if any(element["attrs"].get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            out.append(element)
        return out


@pytest.fixture
def http(traces):
    plane, replies = traces
    with TestClient(plane.app(), base_url="http://localhost") as client:  # a served host name
        yield client, plane, replies


def test_the_list_shows_status_and_failing_gates(http):
    client, _, replies = http
    response = client.get("/traces")
    assert response.status_code == 200
    page = Page(response.text)
    rows = {r["attrs"]["data-trace-id"]: r for r in page.find("tr", cls="trace-row")}
    assert set(rows) == {r.trace_id for r in replies.values()}
    assert rows[replies["pass"].trace_id]["attrs"]["data-status"] == "pass"
    assert rows[replies["regen"].trace_id]["attrs"]["data-status"] == "regen_pass"
    degraded = rows[replies["degraded"].trace_id]
    assert degraded["attrs"]["data-status"] == "degraded"
    assert "evidence_binding" in degraded["text"]
    # status filter
    filtered = Page(client.get("/traces?status=degraded").text).find("tr", cls="trace-row")
    assert [r["attrs"]["data-trace-id"] for r in filtered] == [replies["degraded"].trace_id]


def test_one_trace_is_a_timeline_by_seq_with_gates_coloured(http):
    client, plane, replies = http
    reply = replies["regen"]
    page = Page(client.get(f"/traces/{reply.trace_id}").text)
    events = plane.trace(reply.trace_id).events
    items = page.find("li", cls=None)
    timeline = [li for li in items if "data-seq" in li["attrs"]]
    assert [int(li["attrs"]["data-seq"]) for li in timeline] == [e.seq for e in events] == list(range(len(events)))
    assert [li["attrs"]["data-phase"] for li in timeline][:4] == [
        "evidence_intake", "gate_normalize_modality", "gate_intent_risk", "gate_lattice"]
    assert "router decision: mode System" in timeline[2]["text"]
    gate_items = [li for li in timeline if li["attrs"]["data-phase"] == "gate"]
    assert any("result-fail" in li["attrs"]["class"] for li in gate_items)
    assert any("result-pass" in li["attrs"]["class"] for li in gate_items)
    # each attempt's gates, coloured by result, and the regen delta between them
    chips = {(c["attrs"]["data-gate-id"], c["attrs"]["data-result"]) for c in page.find("span", cls="gate")}
    assert ("evidence_binding", "fail") in chips and ("evidence_binding", "pass") in chips
    for chip in page.find("span", cls="gate"):
        assert chip["attrs"]["data-result"] in chip["attrs"]["class"].split()
    delta = page.find("div", cls="delta")
    assert len(delta) == 1 and "UNKNOWN_EVIDENCE_ID" in delta[0]["text"]
    assert any(li["attrs"]["data-phase"] == "regen" for li in timeline)


def test_claim_spans_are_highlighted_by_verdict_and_linked_to_evidence(http):
    client, _, replies = http
    for name in ("pass", "degraded"):
        reply = replies[name]
        page = Page(client.get(f"/traces/{reply.trace_id}").text)
        marks = page.find("mark", cls="claim")
        assert len(marks) == len(reply.claims)
        for mark, claim in zip(marks, reply.claims):
            start, end = claim.source_span
            assert mark["attrs"]["data-claim-id"] == claim.claim_id
            assert mark["attrs"]["data-verdict"] == claim.verdict
            assert (int(mark["attrs"]["data-start"]), int(mark["attrs"]["data-end"])) == (start, end)
            assert mark["text"] == reply.checked_text[start:end] == claim.text
            assert f"verdict-{claim.verdict.lower()}" in mark["attrs"]["class"]
            assert mark["attrs"]["data-evidence"] == " ".join(claim.evidence_ids)
        links = {a["attrs"]["href"] for a in page.find("a") if a["attrs"].get("href", "").startswith("#ev-")}
        anchors = {f"#{a['attrs']['id']}" for a in page.find("article", cls="evidence")}
        assert {"#ev-E1", "#ev-E2"} <= anchors
        assert links - anchors <= {"#ev-E9"}  # a cited id that is not in the pack links nowhere (it failed)
    degraded = Page(client.get(f"/traces/{replies['degraded'].trace_id}").text)
    assert degraded.find("div", id="delivered-text")[0]["text"] == replies["degraded"].assistant_text


def test_untrusted_text_is_escaped_and_scripts_need_the_nonce(http):
    client, _, replies = http
    reply = replies["hostile"]
    assert XSS in reply.checked_text
    response = client.get(f"/traces/{reply.trace_id}")
    text = response.text
    assert "<script>window.__xss" not in text and "<img src=x" not in text and "<b>facts</b>" not in text
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in text
    page = Page(text)
    scripts = page.find("script")
    assert len(scripts) == 1 and "__xss" not in scripts[0]["text"]
    assert not page.find("img")
    assert "Stack <b>facts</b>" in [e["text"] for e in page.elements if e["tag"] == "span"]  # the title, as text
    assert all("onerror" not in e["attrs"] for e in page.elements)
    nonce = scripts[0]["attrs"]["nonce"]
    policy = response.headers["content-security-policy"]
    assert f"script-src 'nonce-{nonce}'" in policy and "default-src 'none'" in policy
    assert XSS in page.find("div", id="checked-text")[0]["text"]  # shown as text, exactly
    listing = client.get("/traces").text
    assert "<script>window.__xss" not in listing and "&lt;script&gt;" in listing


def test_a_missing_trace_is_a_404_page(http):
    client, _, _ = http
    response = client.get("/traces/tr_does_not_exist")
    assert response.status_code == 404 and "Trace not found" in response.text
    assert "no trace 'tr_does_not_exist'" in html.unescape(response.text)


def test_the_normalize_line_says_how_a_follow_up_was_read_escaped():
    from controlplane.viewer import summarize

    line = summarize("gate_normalize_modality", {"modality": "text", "chars": 27, "changed": True, "follow_up": {
        "message": "What is its region?", "read_as": f"What is {XSS}'s region?", "rule": "pronoun"}})
    assert "follow-up read as" in line and "(pronoun)" in line
    assert XSS not in line and html.escape(XSS, quote=True) in line
    assert "follow-up" not in summarize("gate_normalize_modality", {"modality": "text", "chars": 5})
