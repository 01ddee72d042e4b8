"""One request as the EBOM structured response (``response``, ``metadata``, ``audit_trail``), rebuilt from its trace.

The only input is a TraceBundle: what ``run`` stores, ``trace export`` writes and ``trace import`` reads. Nothing is
taken from the live process, so a stored, exported or imported trace renders the same document
(``ebom_document(store.load_bundle(trace_id))``), and so does the in-memory bundle of a reply
(``Response.as_ebom()``). ``verify`` renders a bundle of its one attempt with no outcome.

What comes from where in the trace:

* ``response.answer``: the outcome's assistant_text (verify: the envelope's text);
* ``response.claims``: the final attempt's claim_map; verdicts from the outcome (or the gates); support, confidence
  and type from the evidence graph (gates/evidence_graph.py) rebuilt from the final attempt's gate results;
* ``response.sources``: the pack (after retrieval when there was one);
* ``response.reasoning_chain``: reasoning_chain's step records, premises first;
* ``response.conflicts``: evidence_conflicts' conflicts and the contradictions nli_entailment overruled;
* ``metadata.warnings``: every ``details.warnings`` of the pre-generation and final-attempt gate results, and every
  trace event's payload ``warnings`` list: a gate or an event that records a ``warnings`` list shows up here. Also
  the realtime event's ``staleness_warnings``, claim_dependencies' ``dependency_warnings`` and response_validation's
  hallucination phrases (which a failing gate records without a warnings list);
* a claim claim_dependencies downgraded (``details.downgraded``) has its confidence capped (0.65);
* a source from an expert library names it (name, version, licence);
* ``audit_trail``: the ModeDecision (query classification, with the real-time keywords matched), the pack and its
  retrieval timing, the per-claim verification records, the policy's thresholds and the gates that ran.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError

from controlplane.contracts import (
    AttemptRecord,
    ClaimStatus,
    EbomDocument,
    EvidencePack,
    GateResult,
    OutputEnvelope,
    Phase,
    PolicyBundle,
    PolicyRef,
    TraceBundle,
)
from controlplane.contracts.clock import utc_now
from controlplane.contracts.text import strip_markers
from controlplane.gates.claim_dependencies import DependencyWarning
from controlplane.gates.evidence_graph import build_graph, claim_node, claim_type, graph_metrics
from controlplane.gates.response_validation import phrase_warnings
from controlplane.gates.sufficiency import thresholds_for
from controlplane.verdicts import claim_verdicts

EXCERPT_CHARS = 500
_TIERS_BY_RIGOR = {"low": 1, "medium": 2, "high": 3}


def ebom_document(bundle: TraceBundle) -> dict[str, Any]:
    """The EBOM document of one trace, as JSON (validated against the EbomDocument contract)."""
    return render(bundle).model_dump(mode="json")


def render(bundle: TraceBundle) -> EbomDocument:
    pack = bundle.retrieved_evidence_pack or bundle.evidence_pack or EvidencePack()
    last = bundle.attempts[-1] if bundle.attempts else None
    envelope = _envelope(last)
    results = list(last.gate_results) if last is not None else []
    pre_results = _pre_generation_results(bundle)
    policy = _policy(bundle.policy)
    decision = bundle.mode_decision
    outcome = bundle.outcome

    verdicts = {c["claim_id"]: c for c in (outcome.claims if outcome is not None else [])}
    if outcome is None and envelope is not None:
        verdicts = {v.claim_id: v.as_dict() for v in claim_verdicts(envelope, results)}
    graph = build_graph(pack, envelope, results) if envelope is not None else None
    nli = _details(results, "nli_entailment")
    steps_details = _details(results, "reasoning_chain")
    thresholds = nli.get("thresholds") or {}
    domain = thresholds.get("domain")
    if domain is None and decision is not None and policy is not None:
        domain, _ = thresholds_for(decision, policy)
    answer = outcome.assistant_text if outcome is not None else (envelope.assistant_text if envelope else "")
    delivered = outcome is None or outcome.status.value != "refused"
    verify_passed = outcome is None and envelope is not None and not any(r.failed for r in results)

    claims, speculations, verification_results = [], [], []
    records = nli.get("claim_records") or {}
    steps = steps_details.get("steps") or {}
    caps = _confidence_caps(results)
    for claim in (envelope.meta.claim_map if envelope is not None else []):
        verdict = verdicts.get(claim.claim_id) or {"verdict": "FAIL", "reason_codes": []}
        node = graph.nodes[claim_node(claim.claim_id)] if graph is not None else {}
        support = list(node.get("support", []))
        confidence = node.get("confidence")
        if confidence is not None and claim.claim_id in caps:  # claim_dependencies downgraded it (strict setting)
            confidence = min(confidence, caps[claim.claim_id])
        # the outcome's verdict decides (a claim can fail a gate outside the graph's view, e.g. the sentence check)
        kind = claim_type(claim.status.value, verdict["verdict"], bool(support))
        shown = (verify_passed if outcome is None else
                 delivered and bool(strip_markers(claim.text).strip()) and _shown(claim.text, answer))
        claims.append({"id": claim.claim_id, "text": claim.text, "type": kind, "category": claim.status.value,
                       "support": support, "confidence": confidence, "verdict": verdict["verdict"],
                       "reason_codes": list(verdict.get("reason_codes") or []), "shown": shown})
        if kind == "SPECULATIVE":
            speculations.append({"id": claim.claim_id, "text": claim.text, "why": _why_speculative(claim, verdict)})
        verification_results.append(_verification_result(claim.claim_id, claim.status, verdict, records.get(
            claim.claim_id), steps.get(claim.claim_id), thresholds))

    shown_confidences = [c["confidence"] for c in claims if c["shown"] and c["confidence"] is not None]
    document = {
        "response": {
            "answer": answer,
            "claims": claims,
            "sources": [_source(item, bundle.created_at) for item in pack.evidence],
            "reasoning_chain": _reasoning_chain(envelope, steps_details),
            "speculations": speculations,
            "conflicts": _conflicts(results),
        },
        "metadata": {
            "domain": domain or "general",
            "risk_level": decision.rigorConfig.level.value.upper() if decision is not None else "LOW",
            "verification_status": _verification_status(bundle, verify_passed),
            "confidence": min(shown_confidences) if shown_confidences else None,
            "timestamp": bundle.created_at,
            "model_used": bundle.model.get("model_id"),
            "verification_method": f"nli:{thresholds.get('backend')}" if thresholds.get("backend") else (
                "nli" if nli else "none"),
            "generation_attempts": len(bundle.attempts),
            "trace_id": bundle.trace_id,
            "status": outcome.status.value if outcome is not None else None,
            "graph_metrics": graph_metrics(graph) if graph is not None else {},
            "warnings": _warnings(bundle, [*pre_results, *results]),
        },
        "audit_trail": {
            "query_classification": {
                "detected_domain": domain or "general",
                "confidence": decision.confidence if decision is not None else 0.0,
                "keywords_matched": _keywords(decision.reasons if decision is not None else []),
                "domain_flags": list(decision.domainFlags) if decision is not None else [],
                "mode": decision.modeLabel if decision is not None else None,
                "time_sensitive": bool(decision is not None and decision.timeSensitiveQuery),
                "realtime_keywords": list(decision.realtimeKeywords) if decision is not None else [],
            },
            "sources_retrieved": _sources_retrieved(pack, pre_results),
            "verification_results": verification_results,
            "policy_applied": _policy_applied(bundle.policy, policy, decision, thresholds, domain,
                                              [*pre_results, *results]),
        },
    }
    return EbomDocument.model_validate(document)


# -- pieces ----------------------------------------------------------------------------------------------------------
def _envelope(attempt: AttemptRecord | None) -> OutputEnvelope | None:
    if attempt is None or not isinstance(attempt.envelope, dict):
        return None
    try:
        return OutputEnvelope.model_validate(attempt.envelope)
    except ValidationError:
        return None


def _policy(ref: PolicyRef) -> PolicyBundle | None:
    if not ref.content:
        return None
    try:
        return PolicyBundle.model_validate(ref.content)
    except ValidationError:
        return None


def _pre_generation_results(bundle: TraceBundle) -> list[GateResult]:
    out = []
    for event in bundle.events:
        if event.phase is Phase.GATE and event.metadata.attempt is None:
            try:
                out.append(GateResult.model_validate(event.payload))
            except ValidationError:
                continue
    return out


def _details(results: Iterable[GateResult], gate_id: str) -> dict[str, Any]:
    return next((dict(r.details) for r in results if r.gate_id == gate_id and r.result.value != "skip"), {})


def _shown(claim_text: str, answer: str) -> bool:
    text = " ".join(strip_markers(claim_text).split())
    return bool(text) and text in " ".join(strip_markers(answer).split())


def _why_speculative(claim, verdict: dict[str, Any]) -> str:
    if verdict.get("verdict") != "PASS":
        return "failed its checks: " + ", ".join(verdict.get("reason_codes") or []) + "; not shown as fact"
    if claim.status is ClaimStatus.UNKNOWN:
        return "labelled UNKNOWN: the evidence does not say"
    return f"labelled {claim.status.value}: not a sourced fact"


def _verification_result(claim_id: str, status: ClaimStatus, verdict: dict[str, Any], record: dict | None,
                         step: dict | None, thresholds: dict[str, Any]) -> dict[str, Any]:
    result = {"claim_id": claim_id, "result": verdict.get("verdict", "FAIL"),
              "reason_codes": list(verdict.get("reason_codes") or []), "score": None, "threshold": None}
    if step is not None:
        score = step.get("entailment")
        if score is None:
            score = (step.get("confidence_factors") or {}).get("verification_score")
        return {**result, "method": "reasoning_chain", "score": score,
                "threshold": thresholds.get("min_entailment") if 3 in step.get("tiers_checked", []) else None}
    if record is None:
        return {**result, "method": "none"}
    decision = record.get("decision")
    if decision == "EXEMPT":
        return {**result, "method": "exempt"}
    if decision == "UNKNOWN" or status is ClaimStatus.UNKNOWN and "entailment" not in record:
        return {**result, "method": "unknown_label"}
    method = "verbatim_quote" if record.get("basis") == "VERBATIM_QUOTE" else "nli"
    return {**result, "method": method, "score": record.get("entailment"),
            "threshold": thresholds.get("min_entailment")}


def _source(item, request_time: str) -> dict[str, Any]:
    """A source of the pack. Its timestamp is when it was retrieved, else published, else when the request brought
    it into the system (EBOM inside sphere: the time the data entered the system)."""
    prov = item.provenance
    return {"id": item.id, "content": item.text[:EXCERPT_CHARS], "url": prov.source or prov.document_id,
            "sphere": item.sphere.value, "credibility": item.credibility,
            "timestamp": prov.retrieved_at or prov.published_at or request_time, "title": item.title,
            "type": item.type,
            "volatility": item.volatility.value, "hash": item.hash,
            "library": ({"name": item.library.name, "version": item.library.version, "licence": item.library.licence}
                        if item.library is not None else None)}


def _reasoning_chain(envelope: OutputEnvelope | None, details: dict[str, Any]) -> list[dict[str, Any]]:
    if envelope is None:
        return []
    steps = details.get("steps") or {}
    reasoning = [c for c in envelope.meta.claim_map if c.status is ClaimStatus.REASONING]
    order = [cid for cid in details.get("order", []) if cid in steps]
    order += [c.claim_id for c in reasoning if c.claim_id not in order]
    by_id = {c.claim_id: c for c in reasoning}
    out = []
    for index, claim_id in enumerate(order, start=1):
        step = steps.get(claim_id)
        claim = by_id.get(claim_id)
        if step is None:  # the reasoning_chain gate did not run: the step was not checked
            out.append({"step": index, "operation": (claim.operation.value if claim and claim.operation else
                                                     "entailment"),
                        "inputs": list(claim.premises or claim.evidence_ids) if claim else [],
                        "intermediate_claim": claim.text if claim else "", "output": claim_id,
                        "validity": "UNCERTAIN", "tiers_checked": [], "reason_codes": []})
            continue
        out.append({"step": index, "operation": step.get("operation", "entailment"),
                    "inputs": list(step.get("premises", [])), "intermediate_claim": step.get("text", ""),
                    "output": claim_id, "validity": step.get("validity", "UNCERTAIN"),
                    "tiers_checked": list(step.get("tiers_checked", [])),
                    "reason_codes": list(step.get("reason_codes", []))})
    return out


def _conflicts(results: Sequence[GateResult]) -> list[dict[str, Any]]:
    out = []
    for conflict in _details(results, "evidence_conflicts").get("conflicts", []):
        resolution = conflict.get("resolution") or {}
        out.append({"claim_id": conflict.get("claim_id"),
                    "sources": [s for s in (conflict.get("supporter"), conflict.get("opposer")) if s],
                    "resolution": resolution.get("kind"), "explanation": resolution.get("explanation") or
                    conflict.get("detail") or ""})
    for claim_id, record in (_details(results, "nli_entailment").get("claim_records") or {}).items():
        for overruled in record.get("overruled_contradictions", []) or []:
            out.append({"claim_id": claim_id, "sources": [overruled.get("by"), overruled.get("overruled")],
                        "resolution": "overruled",
                        "explanation": f"{overruled.get('overruled')} contradicts the claim but yields to "
                                       f"{overruled.get('by')} (credibility or currency)"})
    return out


def _verification_status(bundle: TraceBundle, verify_passed: bool) -> str:
    outcome = bundle.outcome
    if outcome is None:
        return "PASSED" if verify_passed else "FAILED"
    if outcome.verified:
        return "PASSED"
    status = outcome.status.value
    if status == "refused":
        return "REFUSED"
    if status == "degraded":
        return "PARTIAL"
    return "UNVERIFIED"


def _warnings(bundle: TraceBundle, results: Iterable[GateResult]) -> list[str]:
    found: list[str] = []
    for result in results:
        found.extend(str(w) for w in result.details.get("warnings", []) or [] if isinstance(w, str))
        if result.gate_id == "claim_dependencies":
            found.extend(_dependency_sentences(result.details.get("dependency_warnings")))
        if result.gate_id == "response_validation" and isinstance(result.details.get("phrases_found"), dict):
            # a failing gate records its phrases but no warnings list: the phrases are warnings all the same
            found.extend(phrase_warnings(result.details["phrases_found"]))
    for event in bundle.events:
        found.extend(str(w) for w in event.payload.get("warnings", []) or [] if isinstance(w, str))
        if event.phase is Phase.REALTIME:
            found.extend(str(w) for w in event.payload.get("staleness_warnings", []) or [] if isinstance(w, str))
    return sorted(set(found))


def _dependency_sentences(records: Any) -> list[str]:
    out = []
    for record in records if isinstance(records, list) else []:
        try:
            out.append(DependencyWarning(**record).sentence())
        except TypeError:  # a record of another shape: the gate's own warnings list still carries it
            continue
    return out


def _confidence_caps(results: Sequence[GateResult]) -> dict[str, float]:
    """claim id -> the confidence cap claim_dependencies put on a downgraded claim (Smart Notes §2.5.3: 0.65)."""
    downgraded = _details(results, "claim_dependencies").get("downgraded") or {}
    return {cid: float(d["confidence_cap"]) for cid, d in downgraded.items()
            if isinstance(d, dict) and isinstance(d.get("confidence_cap"), int | float)}


def _keywords(reasons: Sequence[str]) -> list[str]:
    words = [r.split(":", 2)[2] for r in reasons if r.startswith("trigger:") and r.count(":") >= 2]
    return list(dict.fromkeys(words))


def _sources_retrieved(pack: EvidencePack, pre_results: Sequence[GateResult]) -> list[dict[str, Any]]:
    retrieval_ms = next((r.measured.latency_ms for r in pre_results if r.gate_id == "retrieval_required"
                         and r.details.get("retrieved")), None)
    out = []
    for item in pack.evidence:
        retrieved = item.retrieval_score is not None
        out.append({"source_id": item.id, "retrieval_time_ms": retrieval_ms if retrieved else None,
                    "credibility": item.credibility, "origin": "retrieval" if retrieved else "caller",
                    "retrieval_score": item.retrieval_score})
    return out


def _policy_applied(ref: PolicyRef, policy: PolicyBundle | None, decision, thresholds: dict[str, Any],
                    domain: str | None, results: Sequence[GateResult]) -> dict[str, Any]:
    th = dict(thresholds)
    if not th and policy is not None and decision is not None:
        _, chosen = thresholds_for(decision, policy)
        th = chosen.model_dump(mode="json")
    level = decision.rigorConfig.level if decision is not None else None
    exempt = [s.value for s in (policy.citations.exempt_statuses.get(level, []) if policy and level else [])]
    high = level is not None and level.value == "high"
    return {
        "policy": {"name": ref.name, "version": ref.version, "hash": ref.hash},
        "domain": domain,
        "rigor": level.value if level is not None else None,
        "min_sources": th.get("min_sources"),
        "min_confidence": th.get("min_confidence"),
        "min_entailment": th.get("min_entailment"),
        "min_credibility": th.get("min_credibility"),
        "max_contradiction": th.get("max_contradiction"),
        "speculation_allowed": (not high) and bool({"SUBJECTIVE", "TRIVIAL"} & set(exempt)),
        "verification_tier": _TIERS_BY_RIGOR.get(level.value, 1) if level is not None else 1,
        "gates": [{"gate_id": r.gate_id, "result": r.result.value, "reason_codes": [c.value for c in r.reason_codes]}
                  for r in results],
    }


def verify_bundle(raw_output: str, envelope_data: Any, results: Sequence[GateResult], decision, pack: EvidencePack,
                  policy_ref: PolicyRef, message: str) -> TraceBundle:
    """The trace-shaped record of one ``verify`` (one attempt, no outcome, nothing stored) for rendering."""
    return TraceBundle(
        trace_id="verify", created_at=utc_now(),
        messages=[{"role": "user", "content": message}] if message else [],
        mode_decision=decision, evidence_pack=pack,
        attempts=[AttemptRecord(attempt=1, raw_output=raw_output if isinstance(raw_output, str) else json.dumps(
            raw_output), envelope=envelope_data if isinstance(envelope_data, dict) else None,
            gate_results=list(results))],
        outcome=None, events=[], policy=policy_ref, model={"model_id": None},
    )


__all__ = ["EXCERPT_CHARS", "ebom_document", "render", "verify_bundle"]
