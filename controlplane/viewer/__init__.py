"""The trace viewer: server-rendered HTML pages for the trace list and one trace as a timeline.

Offline by construction: one inline stylesheet, one small inline script, no fonts, images or CDNs. Everything that
comes from a trace (the model's text above all, but also messages, evidence, gate details and ids) is untrusted and
goes through ``html.escape`` exactly once, at the point it is written into the page; attribute values are quoted.
Pages are sent with a Content-Security-Policy that allows only the page's own nonce-tagged script, so even a
mistake in escaping could not run injected script.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from starlette.responses import HTMLResponse

from controlplane.contracts import TraceBundle

PAGE_CSS = """
:root{--pass:#137333;--pass-bg:#e6f4ea;--fail:#b3261e;--fail-bg:#fce8e6;--skip:#5f6368;--skip-bg:#f1f3f4;
--regen:#8a5300;--regen-bg:#fef3e0;--line:#dadce0;--ink:#202124;--muted:#5f6368;--accent:#1a56db}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);
background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:20px 24px 60px}
a{color:var(--accent)}
h1{font-size:22px;margin:6px 0 4px}h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid var(--line);
padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}
code,pre,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid var(--line);border-radius:6px;
padding:8px 10px;margin:4px 0;max-height:360px;overflow:auto}
.nav{font-size:14px}
.meta{display:flex;flex-wrap:wrap;gap:6px 18px;color:var(--muted);font-size:14px;margin:6px 0}
.meta b{color:var(--ink);font-weight:600}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12.5px;font-weight:600;line-height:20px;
border:1px solid transparent;white-space:nowrap}
.badge.pass,.badge.regen_pass,.badge.verified{background:var(--pass-bg);color:var(--pass);border-color:#b7dfc2}
.badge.fail,.badge.refused,.badge.error,.badge.unverified{background:var(--fail-bg);color:var(--fail);
border-color:#f4c2bd}
.badge.degraded,.badge.regen{background:var(--regen-bg);color:var(--regen);border-color:#f6d7a7}
.badge.skip,.badge.in_progress{background:var(--skip-bg);color:var(--skip);border-color:var(--line)}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line);border-radius:6px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #eee;vertical-align:top;font-size:14px}
th{background:#f5f5f5;font-weight:600}
td.when{white-space:nowrap}
tr:last-child td{border-bottom:0}
.answer{background:#fff;border:1px solid var(--line);border-radius:6px;padding:12px 14px;white-space:pre-wrap;
font-size:16px;line-height:1.8}
mark.claim{border-radius:3px;padding:1px 0;cursor:pointer;border-bottom:2px solid}
mark.claim a{color:inherit;text-decoration:none}
mark.verdict-pass{background:var(--pass-bg);border-color:var(--pass)}
mark.verdict-fail{background:var(--fail-bg);border-color:var(--fail)}
mark.claim.active,article.evidence.active{outline:2px solid var(--accent);outline-offset:1px}
.legend{font-size:13px;color:var(--muted);margin:6px 0}
.side-by-side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.legend mark{padding:0 4px;border-radius:3px;border-bottom:2px solid}
.evidence-list{display:grid;gap:8px}
article.evidence{background:#fff;border:1px solid var(--line);border-radius:6px;padding:8px 12px}
article.evidence header{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
article.evidence .eid{font-weight:700}
article.evidence .src{color:var(--muted);font-size:13px}
article.evidence p{margin:4px 0 0;white-space:pre-wrap}
.attempt{background:#fff;border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:8px 0}
.gates{display:flex;flex-wrap:wrap;gap:6px;margin:6px 0}
.gate{border-radius:6px;padding:2px 8px;font-size:13px;border:1px solid}
.gate.pass{background:var(--pass-bg);color:var(--pass);border-color:#b7dfc2}
.gate.fail{background:var(--fail-bg);color:var(--fail);border-color:#f4c2bd}
.gate.skip{background:var(--skip-bg);color:var(--skip);border-color:var(--line)}
.codes{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
.delta{background:var(--regen-bg);border:1px solid #f6d7a7;border-radius:6px;padding:6px 10px;margin:6px 0}
.delta ul{margin:4px 0;padding-left:20px}
ol.timeline{list-style:none;margin:0;padding:0;border-left:3px solid var(--line)}
ol.timeline li{position:relative;margin:0 0 8px 0;padding:4px 10px 4px 16px}
ol.timeline li::before{content:"";position:absolute;left:-8px;top:11px;width:13px;height:13px;border-radius:50%;
background:#fff;border:3px solid var(--line)}
ol.timeline li.result-pass::before{border-color:var(--pass)}
ol.timeline li.result-fail::before{border-color:var(--fail)}
ol.timeline li.result-skip::before{border-color:var(--skip)}
ol.timeline li.phase-regen::before,ol.timeline li.phase-degrade::before{border-color:var(--regen)}
.seq{display:inline-block;min-width:34px;font-family:ui-monospace,monospace;color:var(--muted)}
.phase{font-weight:600}
.summary-line{color:var(--ink)}
details summary{cursor:pointer;color:var(--muted);font-size:13px}
.msg{margin:4px 0}.msg .role{font-weight:600;color:var(--muted);margin-right:6px}
.filters a{margin-right:10px}
.empty{color:var(--muted);font-style:italic}
"""

PAGE_JS = """
(function(){
  function byEvidence(ids){return ids.split(' ').filter(Boolean).map(function(i){
    return document.getElementById('ev-'+i);}).filter(Boolean);}
  document.querySelectorAll('mark.claim').forEach(function(mark){
    mark.addEventListener('click',function(){
      document.querySelectorAll('.active').forEach(function(el){el.classList.remove('active');});
      mark.classList.add('active');
      var targets=byEvidence(mark.getAttribute('data-evidence')||'');
      targets.forEach(function(el){el.classList.add('active');});
      var row=document.getElementById('claim-'+mark.getAttribute('data-claim-id'));
      if(row){row.classList.add('active');}
    });
  });
})();
"""


def csp(nonce: str) -> str:
    return (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; img-src 'none'; "
            "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def html_response(page: str | tuple[str, str], status: int = 200) -> HTMLResponse:
    """Send a page made by a render_* function (it returns (html, nonce)) with a nonce-based CSP."""
    html, nonce = page if isinstance(page, tuple) else (page, "")
    return HTMLResponse(
        html, status_code=status,
        headers={"content-security-policy": csp(nonce or secrets.token_urlsafe(16)),
                 "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "cache-control": "no-store"},
    )


def e(value: Any) -> str:
    """Escape anything for HTML text or a double-quoted attribute."""
    return escape("" if value is None else str(value), quote=True)


def _trace_href(trace_id: str) -> str:
    return "/traces/" + quote(trace_id, safe="")


def _page(title: str, body: str) -> tuple[str, str]:
    nonce = secrets.token_urlsafe(16)
    html = (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        f"<title>{e(title)}</title><style>{PAGE_CSS}</style></head><body><main>{body}</main>"
        f"<script nonce=\"{nonce}\">{PAGE_JS}</script></body></html>"
    )
    return html, nonce


def _badge(value: str, label: str | None = None) -> str:
    return f"<span class=\"badge {e(value)}\">{e(label or value)}</span>"


def render_message(title: str, text: str) -> tuple[str, str]:
    return _page(title, f"<p class=\"nav\"><a href=\"/traces\">&larr; all traces</a></p><h1>{e(title)}</h1>"
                        f"<p>{e(text)}</p>")


# -- the list -----------------------------------------------------------------------------------------------------
STATUSES = ("pass", "regen_pass", "degraded", "refused", "in_progress", "error")


def render_list(rows: Sequence[Mapping[str, Any]], status: str | None = None, store_path: str = "") -> tuple[str, str]:
    filters = ["<a href=\"/traces\">all</a>"] + [
        f"<a href=\"/traces?status={quote(s)}\">{e(s)}</a>" for s in STATUSES
    ]
    out = [
        "<h1>Traces</h1>",
        f"<div class=\"meta\"><span>store <b class=\"mono\">{e(store_path)}</b></span>"
        f"<span>{len(rows)} shown{(' with status ' + e(status)) if status else ''}, newest first</span></div>",
        f"<p class=\"filters\">{' '.join(filters)}</p>",
    ]
    if not rows:
        out.append("<p class=\"empty\">No traces yet. Send a request to /v1/chat/completions.</p>")
        return _page("Traces", "".join(out))
    out.append("<table id=\"traces\"><thead><tr><th>trace</th><th>created (UTC)</th><th>status</th><th>verified</th>"
               "<th>mode</th><th>attempts</th><th>failing gates</th><th>question</th></tr></thead><tbody>")
    for row in rows:
        failing = row.get("failing_gates") or []
        failing_html = (" ".join(f"<span class=\"gate fail\">{e(g)}</span>" for g in failing)
                        or "<span class=\"empty\">none</span>")
        question = str(row.get("user_message") or "")
        if len(question) > 120:
            question = question[:117] + "..."
        flags = ", ".join(row.get("domain_flags") or [])
        out.append(
            f"<tr class=\"trace-row\" data-trace-id=\"{e(row['trace_id'])}\" data-status=\"{e(row.get('status'))}\">"
            f"<td><a class=\"mono\" href=\"{e(_trace_href(row['trace_id']))}\">{e(row['trace_id'])}</a></td>"
            f"<td class=\"mono when\">{e(str(row.get('created_at') or '')[:19].replace('T', ' '))}</td>"
            f"<td>{_badge(str(row.get('status')))}</td>"
            f"<td>{_badge('verified', 'yes') if row.get('verified') else _badge('unverified', 'no')}</td>"
            f"<td>{e(row.get('mode_label') or '-')}"
            f"{(' <span class=src>(' + e(flags) + ')</span>') if flags else ''}</td>"
            f"<td>{e(row.get('attempt_count') if row.get('attempt_count') is not None else '-')}</td>"
            f"<td class=\"failing\">{failing_html}</td>"
            f"<td>{e(question)}</td></tr>"
        )
    out.append("</tbody></table>")
    return _page("Traces", "".join(out))


# -- one trace ----------------------------------------------------------------------------------------------------
def render_trace(bundle: TraceBundle) -> tuple[str, str]:
    outcome = bundle.outcome
    status = outcome.status.value if outcome else "error"
    decision = bundle.mode_decision
    pack = bundle.retrieved_evidence_pack or bundle.evidence_pack
    last = bundle.attempts[-1] if bundle.attempts else None
    checked = ""
    if last is not None and isinstance(last.envelope, dict) and isinstance(last.envelope.get("assistant_text"), str):
        checked = last.envelope["assistant_text"]
    delivered = outcome.assistant_text if outcome else ""
    claims = list(outcome.claims) if outcome else []
    tid = bundle.trace_id
    out = [
        "<p class=\"nav\"><a href=\"/traces\">&larr; all traces</a> &middot; "
        f"<a href=\"/v1/traces/{e(quote(tid, safe=''))}\">JSON</a></p>",
        f"<h1>Trace <code id=\"trace-id\">{e(tid)}</code></h1>",
        "<div class=\"meta\">",
        f"<span>status {_badge(status)}</span>",
        "<span>" + (_badge("verified", "verified") if outcome and outcome.verified
                    else _badge("unverified", "not verified")) + "</span>",
        f"<span>attempts <b>{len(bundle.attempts)}</b></span>",
        f"<span>mode <b>{e(decision.modeLabel if decision else '-')}</b></span>",
        f"<span>domains <b>{e(', '.join(decision.domainFlags) if decision and decision.domainFlags else '-')}"
        "</b></span>",
        f"<span>rigor <b>{e(decision.rigorConfig.level.value if decision else '-')}</b></span>",
        f"<span>created <b class=\"mono\">{e(bundle.created_at[:19].replace('T', ' '))}</b></span>",
        f"<span>policy <b>{e(bundle.policy.name)}@{e(bundle.policy.version)}</b> "
        f"<span class=\"mono\">{e(bundle.policy.hash[:19])}</span></span>",
        f"<span>model <b class=\"mono\">{e(bundle.model.get('model_id', '-'))}</b></span>",
        "</div>",
    ]

    out.append("<h2>Request</h2><div id=\"messages\">")
    for message in bundle.messages:
        out.append(f"<div class=\"msg\"><span class=\"role\">{e(message.get('role'))}</span>"
                   f"<span class=\"content\">{e(message.get('content'))}</span></div>")
    out.append("</div>")

    if bundle.parent_trace_id:
        out.append(render_edit(bundle, checked, claims))
    out.append("<h2>Answer</h2>")
    if checked:
        out.append("<div class=\"legend\">claims: <mark class=\"key verdict-pass\">passed</mark> "
                   "<mark class=\"key verdict-fail\">failed</mark> &middot; click a claim to see its evidence</div>")
        out.append(f"<div class=\"answer\" id=\"checked-text\">{highlight(checked, claims)}</div>")
        if delivered != checked:
            out.append("<h3>Delivered to the user (after degrade)</h3>"
                       f"<div class=\"answer\" id=\"delivered-text\">{e(delivered)}</div>")
    else:
        out.append(f"<div class=\"answer\" id=\"delivered-text\">{e(delivered)}</div>")
    if claims:
        out.append("<h3>Claims</h3><table id=\"claims\"><thead><tr><th>claim</th><th>verdict</th><th>status</th>"
                   "<th>text</th><th>evidence</th><th>reason codes</th></tr></thead><tbody>")
        for claim in claims:
            verdict = str(claim.get("verdict", ""))
            links = " ".join(f"<a href=\"#ev-{e(i)}\">{e(i)}</a>" for i in claim.get("evidence_ids") or []) or "-"
            out.append(
                f"<tr id=\"claim-{e(claim.get('claim_id'))}\" data-verdict=\"{e(verdict)}\">"
                f"<td class=\"mono\">{e(claim.get('claim_id'))}</td>"
                f"<td>{_badge('pass' if verdict == 'PASS' else 'fail', verdict)}</td>"
                f"<td>{e(claim.get('status'))}</td><td>{e(claim.get('text'))}</td><td>{links}</td>"
                f"<td class=\"codes\">{e(', '.join(claim.get('reason_codes') or [])) or '-'}</td></tr>"
            )
        out.append("</tbody></table>")

    out.append("<h2>Evidence</h2>")
    out.append(render_evidence(pack.evidence if pack else []))

    out.append("<h2>Attempts and gates</h2>")
    pre = [ev for ev in bundle.events if ev.phase.value == "gate" and ev.metadata.attempt is None]
    if pre:
        out.append("<div class=\"attempt\" data-attempt=\"pre\"><b>before generation</b><div class=\"gates\">")
        out.extend(_gate_chip(ev.payload) for ev in pre)
        out.append("</div></div>")
    for record in bundle.attempts:
        passed = all(not g.failed for g in record.gate_results)
        out.append(f"<div class=\"attempt\" data-attempt=\"{record.attempt}\"><b>attempt {record.attempt}</b> "
                   f"{_badge('pass' if passed else 'fail', 'all gates passed' if passed else 'gates failed')} "
                   f"<span class=\"src\">finish {e(record.finish_reason.value)} &middot; "
                   f"{record.tokens_out} tokens out "
                   f"&middot; {record.latency_ms:.1f} ms</span>")
        if record.regen_delta is not None:
            delta = record.regen_delta
            out.append("<div class=\"delta\"><b>regen delta</b> from "
                       f"{e(', '.join(delta.failing_gate_ids))} <span class=\"codes\">"
                       f"[{e(', '.join(c.value for c in delta.reason_codes))}]</span><ul>"
                       + "".join(f"<li>{e(line)}</li>" for line in delta.instructions) + "</ul></div>")
        out.append("<div class=\"gates\">")
        out.extend(_gate_chip(g.model_dump(mode="json")) for g in record.gate_results)
        out.append("</div>")
        out.append(f"<details><summary>raw model output ({len(record.raw_output)} chars)</summary>"
                   f"<pre>{e(record.raw_output)}</pre></details></div>")

    out.append("<h2>Timeline</h2><ol class=\"timeline\" id=\"timeline\">")
    for event in bundle.events:
        payload = event.payload or {}
        result = payload.get("result") if event.phase.value == "gate" else None
        classes = f"phase-{e(event.phase.value)}" + (f" result-{e(result)}" if result else "")
        attempt = f" <span class=\"src\">attempt {event.metadata.attempt}</span>" if event.metadata.attempt else ""
        gate = f" <code>{e(event.gate_id)}</code>" if event.gate_id else ""
        out.append(
            f"<li class=\"{classes}\" data-seq=\"{event.seq}\" data-phase=\"{e(event.phase.value)}\">"
            f"<span class=\"seq\">#{event.seq}</span> "
            f"<span class=\"phase\">{e(event.phase.value)}</span>{gate}{attempt}"
            f" <span class=\"summary-line\">{summarize(event.phase.value, payload)}</span>"
            "<details><summary>payload</summary>"
            f"<pre>{e(json.dumps(payload, indent=2, ensure_ascii=False, default=str))}"
            "</pre></details></li>"
        )
    out.append("</ol>")
    return _page(f"Trace {tid}", "".join(out))


def render_edit(bundle: TraceBundle, checked: str, claims: Sequence[Mapping[str, Any]]) -> str:
    """A re-verification (issue 14): the original answer beside the user's edit, the edit's sentences marked by
    verdict, with a link to the original trace."""
    edit = next((ev.payload for ev in bundle.events if ev.phase.value == "user_edit"), {})
    parent = str(bundle.parent_trace_id)
    original = str(edit.get("original_text") or "")
    return ("<h2>User edit</h2>"
            f"<p>Re-verification of an edit of <a id=\"parent-trace\" href=\"{e(_trace_href(parent))}\">{e(parent)}"
            "</a>, checked against that trace's evidence.</p>"
            "<div class=\"side-by-side\">"
            f"<div><h3>Original answer</h3><div class=\"answer\" id=\"original-text\">{e(original)}</div></div>"
            f"<div><h3>Edited</h3><div class=\"answer\" id=\"edited-text\">{highlight(checked, claims)}</div>"
            "</div></div>")


def render_evidence(items: Iterable[Any]) -> str:
    items = list(items)
    if not items:
        return "<p class=\"empty\">No evidence: every factual claim had to be UNKNOWN.</p>"
    out = ["<div class=\"evidence-list\">"]
    for item in items:
        prov = item.provenance
        where = prov.source or ""
        if prov.document_id and prov.document_id != prov.source:
            where += f" · {prov.document_id}"
        if prov.page is not None:
            where += f" p.{prov.page}"
        if prov.start_char is not None and prov.end_char is not None:
            where += f" [{prov.start_char}:{prov.end_char}]"
        out.append(
            f"<article class=\"evidence\" id=\"ev-{e(item.id)}\" data-evidence-id=\"{e(item.id)}\"><header>"
            f"<span class=\"eid mono\">{e(item.id)}</span><span>{e(item.title or '')}</span>"
            f"<span class=\"src\">{e(item.type)} · {e(item.trust_tier.value)} · {e(item.sphere.value)}"
            f"{(' · score ' + format(item.retrieval_score, '.3f')) if item.retrieval_score is not None else ''}</span>"
            f"<span class=\"src mono\">{e(where)}</span></header>"
            f"<p>{e(item.text)}</p><div class=\"src mono\">{e(item.hash)}</div></article>"
        )
    out.append("</div>")
    return "".join(out)


def highlight(text: str, claims: Sequence[Mapping[str, Any]]) -> str:
    """The text with each anchored claim wrapped in a <mark> coloured by verdict and linked to its evidence.

    Spans index ``text`` (end exclusive). Overlapping spans (only possible on a failed attempt) keep the first.
    """
    spans = []
    for claim in claims:
        span = claim.get("span")
        if not span or len(span) != 2:
            continue
        start, end = int(span[0]), int(span[1])
        if 0 <= start < end <= len(text):
            spans.append((start, end, claim))
    spans.sort(key=lambda s: (s[0], s[1]))
    out, cursor = [], 0
    for start, end, claim in spans:
        if start < cursor:
            continue
        out.append(e(text[cursor:start]))
        verdict = str(claim.get("verdict", "")).upper()
        ids = [str(i) for i in claim.get("evidence_ids") or []]
        css = "verdict-pass" if verdict == "PASS" else "verdict-fail"
        tip = f"{claim.get('claim_id')} {verdict} " + (", ".join(claim.get("reason_codes") or []) or "") + (
            f" cites {', '.join(ids)}" if ids else " cites nothing")
        inner = e(text[start:end])
        if ids:
            inner = f"<a href=\"#ev-{e(ids[0])}\">{inner}</a>"
        out.append(
            f"<mark class=\"claim {css}\" data-claim-id=\"{e(claim.get('claim_id'))}\" data-verdict=\"{e(verdict)}\" "
            f"data-start=\"{start}\" data-end=\"{end}\" data-evidence=\"{e(' '.join(ids))}\" title=\"{e(tip)}\">"
            f"{inner}</mark>"
        )
        cursor = end
    out.append(e(text[cursor:]))
    return "".join(out)


def _gate_chip(payload: Mapping[str, Any]) -> str:
    result = str(payload.get("result", "skip"))
    codes = ", ".join(str(c) for c in payload.get("reason_codes") or [])
    latency = (payload.get("measured") or {}).get("latency_ms")
    ms = f" {latency:.2f} ms" if isinstance(latency, (int, float)) else ""
    return (f"<span class=\"gate {e(result)}\" data-gate-id=\"{e(payload.get('gate_id'))}\" "
            f"data-result=\"{e(result)}\" "
            f"title=\"{e(result)}{e(ms)}\">{e(payload.get('gate_id'))}"
            f"{(' <span class=codes>' + e(codes) + '</span>') if codes else ''}</span>")


def summarize(phase: str, payload: Mapping[str, Any]) -> str:
    """One escaped line per event: what a reader needs without opening the payload."""
    try:
        if phase == "evidence_intake":
            ids = [str(i.get("id")) for i in payload.get("evidence") or []]
            return e(f"{len(ids)} evidence item(s): {', '.join(ids) or 'none'}"
                     + (" (truncated)" if payload.get("truncated") else ""))
        if phase == "gate_normalize_modality":
            follow_up = payload.get("follow_up") or {}
            return e(f"{payload.get('modality')} · {payload.get('chars')} chars"
                     + (" · normalized" if payload.get("changed") else "")
                     + (f" · follow-up read as \u201c{follow_up.get('read_as')}\u201d ({follow_up.get('rule')})"
                        if follow_up else ""))
        if phase == "gate_intent_risk":
            final = payload.get("final") or {}
            selector = (payload.get("selector") or {}).get("called")
            flags = ", ".join(final.get("domainFlags") or []) or "-"
            return e(f"router decision: mode {final.get('modeLabel')} · domains {flags}"
                     f" · rigor {(final.get('rigorConfig') or {}).get('level')}"
                     f" · confidence {final.get('confidence')}"
                     + (" · selector consulted" if selector else "")
                     + (f" · reasons {', '.join(final.get('reasons') or [])}" if final.get("reasons") else ""))
        if phase == "gate_lattice":
            gates = payload.get("gates") or []
            running = [g.get("gate_id") for g in gates if g.get("runs")]
            return e(f"plan: {', '.join(str(g) for g in running)} run; "
                     f"{len(gates) - len(running)} skipped")
        if phase == "retrieval":
            ids = [str(i.get("id")) for i in payload.get("retrieved") or []]
            return e(f"retrieved {len(ids)}: {', '.join(ids)}")
        if phase == "model_call":
            text = (f"{payload.get('model_id')} · finish {payload.get('finish_reason')}"
                    f" · {payload.get('tokens_out')} tokens · {payload.get('latency_ms')} ms")
            if payload.get("error"):
                text += f" · error {payload.get('error')}"
            return e(text)
        if phase == "gate":
            result = str(payload.get("result"))
            codes = ", ".join(payload.get("reason_codes") or [])
            return _badge(result) + (f" <span class=\"codes\">{e(codes)}</span>" if codes else "")
        if phase == "regen":
            return e(f"regen for attempt {payload.get('attempt')}: fix {', '.join(payload.get('reason_codes') or [])}"
                     f" in {', '.join(payload.get('claim_ids') or []) or 'the envelope'}")
        if phase == "degrade":
            removed = payload.get("removed_sentences") or []
            return e(f"degrade: {payload.get('mode')}"
                     + (f" · removed {len(removed)} sentence(s)" if removed else "")
                     + (f" · failing {', '.join(payload.get('failing_gates') or [])}"
                        if payload.get("failing_gates") else ""))
        if phase == "final":
            return _badge(str(payload.get("status"))) + e(
                f" verified {payload.get('verified')} · {payload.get('attempts')} attempt(s)")
    except (AttributeError, TypeError, ValueError):
        pass
    return ""
