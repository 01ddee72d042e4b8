"""Offline batch critic (seed §7): deterministic rules and/or a local model, over stored traces -> CriticFindings.

Python API mirrored by ``controlplane critic run``::

    summary = run_critic(store, since="2026-11-01", critics=[RuleCritic(), ModelCritic(load_model(spec))])

Rules (no model, deterministic):

* UNCITED_CLAIM: a FACTUAL claim without evidence ids in an answer that was shown (pass / regen_pass / degraded);
* MISSED_GATE: a gate the policy skipped (its ``when`` did not hold) that FAILS when the trace is replayed with that
  gate forced on (deterministic replay, no model) -> a suggested patch ``{"when": {"always": true}}`` for it;
* IGNORED_EVIDENCE: evidence the answer neither used nor cited while it labelled claims UNKNOWN;
* UNSUPPORTED_CLAIM: a cited claim that shares almost no content words with the evidence it cites (only when the
  evidence text is available, i.e. not redacted).

:class:`ModelCritic` prompts a local model (purpose ``critic``) with the trace and the CriticFinding JSON Schema; the
answer must be a JSON array of findings (or ``{"findings": [...]}``); anything else raises CriticError, so the sync
gate G7 (which uses the same class as ``services.critic``) fails closed with CRITIC_UNAVAILABLE.

Finding ids are deterministic per trace and rule, so re-running the critic over the same traces adds nothing twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import ValidationError

from controlplane.contracts import ClaimStatus, CriticFinding, OutputEnvelope, TraceBundle
from controlplane.contracts.schemas import generate_schema
from controlplane.contracts.text import content_stems
from controlplane.traces.store import TraceStore

SHOWN = ("pass", "regen_pass", "degraded")
UNAVAILABLE = frozenset({"CRITIC_UNAVAILABLE", "VERIFIER_UNAVAILABLE", "RETRIEVER_UNAVAILABLE", "EVIDENCE_TEXT_REDACTED",
                         "PRECONDITION_FAILED", "GATE_NOT_FOUND", "GATE_ERROR"})


class CriticError(RuntimeError):
    """A critic model answered with something that is not a list of CriticFindings."""


class BatchCritic(Protocol):
    name: str

    def findings(self, bundle: TraceBundle) -> list[CriticFinding]:
        ...


def _fid(prefix: str, *parts: str) -> str:
    return f"{prefix}-" + hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:12]


def _words(text: str) -> set[str]:
    return set(content_stems(text))


def _final(bundle: TraceBundle) -> tuple[OutputEnvelope | None, dict[str, Any]]:
    if not bundle.attempts:
        return None, {}
    last = bundle.attempts[-1]
    envelope = None
    if last.envelope is not None:
        try:
            envelope = OutputEnvelope.model_validate(last.envelope)
        except ValidationError:
            envelope = None
    return envelope, {g.gate_id: g for g in last.gate_results}


class RuleCritic:
    name = "rules"

    def __init__(self, min_overlap: float = 0.15):
        self.min_overlap = min_overlap

    def findings(self, bundle: TraceBundle) -> list[CriticFinding]:
        if bundle.outcome is None or bundle.outcome.status.value not in SHOWN:
            return []
        envelope, gates = _final(bundle)
        if envelope is None:
            return []
        pack = bundle.retrieved_evidence_pack or bundle.evidence_pack
        items = {i.id: i for i in (pack.evidence if pack else [])}
        out: list[CriticFinding] = []
        tid = bundle.trace_id
        for claim in envelope.meta.claim_map:
            if claim.status is ClaimStatus.FACTUAL and not claim.evidence_ids:
                out.append(CriticFinding(
                    finding_id=_fid("R-UNC", tid, claim.claim_id), severity="high", type="UNCITED_CLAIM",
                    claim_id=claim.claim_id,
                    explanation=f"FACTUAL claim {claim.text[:120]!r} has no evidence ids and was shown to the user.",
                ))
            elif claim.evidence_ids:
                texts = [items[i].text for i in claim.evidence_ids if i in items and not items[i].redacted]
                if len(texts) == len([i for i in claim.evidence_ids if i in items]) and texts:
                    claim_words = _words(claim.text)
                    if claim_words:
                        overlap = len(claim_words & set().union(*(_words(t) for t in texts))) / len(claim_words)
                        if overlap < self.min_overlap:
                            out.append(CriticFinding(
                                finding_id=_fid("R-UNS", tid, claim.claim_id), severity="medium",
                                type="UNSUPPORTED_CLAIM", claim_id=claim.claim_id, evidence_ids=claim.evidence_ids,
                                explanation=f"claim shares {overlap:.0%} of its content words with the evidence it "
                                "cites; it is probably not supported by it.",
                            ))
        cited = {i for c in envelope.meta.claim_map for i in c.evidence_ids} | set(envelope.meta.used_evidence_ids)
        has_unknown = any(c.status is ClaimStatus.UNKNOWN for c in envelope.meta.claim_map)
        ignored = [i for i in items if i not in cited]
        if has_unknown and ignored:
            out.append(CriticFinding(
                finding_id=_fid("R-IGN", tid, *ignored), severity="medium", type="IGNORED_EVIDENCE",
                evidence_ids=ignored,
                explanation=f"the answer labelled claims UNKNOWN while evidence {', '.join(ignored)} was neither used "
                "nor cited; check whether it answers them.",
            ))
        out.extend(self.missed_gates(bundle, gates))
        return out

    def missed_gates(self, bundle: TraceBundle, gates: dict[str, Any]) -> list[CriticFinding]:
        """Gates the policy skipped on the answer that was shown, which fail when replayed forced on."""
        from controlplane.policy_bundles.loader import PolicyBundleError, parse_bundle

        from .replay import ReplayOptions, replay_trace

        content = bundle.policy.content
        if not content:
            return []
        out = []
        last = bundle.attempts[-1].attempt
        for gate_id, result in gates.items():
            if result.result.value != "skip" or "SKIPPED_BY_POLICY" not in [c.value for c in result.reason_codes]:
                continue
            forced = json.loads(json.dumps(content))
            for spec in forced["gates"]:
                if spec["gate_id"] == gate_id:
                    spec["when"] = {"always": True}
            try:
                policy = parse_bundle(forced, source=f"critic:force:{gate_id}")
            except PolicyBundleError:
                continue
            trace = replay_trace(bundle, policy, ReplayOptions(gate=gate_id))
            step = next((s for s in trace.steps if s.attempt == last and s.gate_id == gate_id), None)
            if step is None or step.replayed is None or step.replayed["result"] != "fail":
                continue
            codes = step.replayed["reason_codes"]
            if set(codes) & UNAVAILABLE:
                continue  # it could not have judged (no critic, no verifier, redacted text): not a miss
            claims = sorted(step.details.get("claims") or {})
            when = json.dumps(result.details.get("when", "")) if isinstance(result.details, dict) else ""
            out.append(CriticFinding(
                finding_id=_fid("R-MISS", bundle.trace_id, gate_id), severity="high", type="MISSED_GATE",
                claim_id=claims[0] if len(claims) == 1 else None,
                explanation=f"{gate_id} was skipped by the policy (when: {when}) but fails with "
                f"{', '.join(codes)} when replayed on the answer the user saw.",
                suggested_gate_delta={
                    "gate_id": gate_id,
                    "new_rule": f"Run {gate_id} on every request: replayed, it catches {', '.join(codes)} here.",
                    "patch": {"when": {"always": True}},
                },
            ))
        return out


# Bounds on what the critic model may write (the grammar enforces them), so that a critique always ends within the
# critic's max_tokens: at most 3 findings of about 140 tokens each. Unbounded, SmolLM2 ran out of its 768 tokens
# mid-string after 38 s, and the gate could only fail CRITIC_UNAVAILABLE.
CRITIC_MAX_FINDINGS = 3
_CRITIC_STRING_LIMITS = {"finding_id": 16, "claim_id": 16, "explanation": 240, "gate_id": 40, "new_rule": 160}


def critic_schema() -> dict[str, Any]:
    """What the critic model must emit: a JSON array of at most CRITIC_MAX_FINDINGS CriticFinding objects, each
    string bounded and without the free-form ``patch`` (a CriticFinding without it is still valid; a reviewer writes
    the patch). The finding schema's $defs sit at the root, where its '#/$defs/...' references resolve (nested in
    "items" they did not, and the llama.cpp grammar refused every critique)."""
    finding = generate_schema("CriticFinding")
    defs = finding.pop("$defs", {})
    for name, limit in _CRITIC_STRING_LIMITS.items():
        for properties in (finding["properties"], defs.get("GateDelta", {}).get("properties", {})):
            if name in properties:
                bounded = {"type": "string", "maxLength": limit}
                properties[name] = ({"anyOf": [bounded, {"type": "null"}]} if "anyOf" in properties[name]
                                    else bounded)
    finding["properties"]["evidence_ids"] = {"type": "array", "items": {"type": "string", "maxLength": 40},
                                             "maxItems": 8}
    if "GateDelta" in defs:
        defs["GateDelta"]["properties"].pop("patch", None)
    schema: dict[str, Any] = {"type": "array", "items": finding, "maxItems": CRITIC_MAX_FINDINGS}
    return {"$defs": defs, **schema} if defs else schema


class ModelCritic:
    """The Critic protocol (G7) and the batch critic over one local model, prompted with the CriticFinding schema."""

    def __init__(self, model, max_tokens: int = 768):
        self.model = model
        self.max_tokens = max_tokens
        meta = model.metadata()
        self.name = f"model:{meta.model_id}"

    def critique(self, payload: dict[str, Any]) -> list[dict[str, Any]]:
        from controlplane.model_boundary import AssembledContext, ChatMessage, GenerationParams

        schema = critic_schema()
        system = (
            "You are a strict reviewer of an answer produced from evidence. Return ONLY a JSON array of CriticFinding "
            "objects (schema below), [] if nothing is wrong. Report claims that are uncited or not supported by the "
            "evidence they cite, evidence that was ignored, and gates that should have failed. Suggest a policy "
            "change in suggested_gate_delta when a rule would have caught it.\nSchema: " + json.dumps(schema)
        )
        context = AssembledContext(
            purpose="critic",
            messages=(ChatMessage("system", system),
                      ChatMessage("user", json.dumps(payload, ensure_ascii=False, sort_keys=True))),
        )
        params = GenerationParams(temperature=0.0, max_tokens=self.max_tokens, json_schema=schema)
        response = self.model.generate("critique", context, params)
        if response.error or not response.text.strip():
            raise CriticError(f"critic model gave no answer ({response.error or response.finish_reason.value})")
        try:
            data = json.loads(response.text)
        except json.JSONDecodeError as exc:
            raise CriticError(f"critic output is not JSON ({exc.msg})") from None
        if isinstance(data, dict) and isinstance(data.get("findings"), list):
            data = data["findings"]
        if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
            raise CriticError("critic output must be a JSON array of CriticFinding objects")
        return data

    def findings(self, bundle: TraceBundle) -> list[CriticFinding]:
        envelope, gates = _final(bundle)
        if envelope is None:
            return []
        pack = bundle.retrieved_evidence_pack or bundle.evidence_pack
        payload = {
            "user_message": next((m.get("content", "") for m in reversed(bundle.messages) if m.get("role") == "user"), ""),
            "mode_decision": bundle.mode_decision.model_dump(mode="json") if bundle.mode_decision else None,
            "evidence": [{"id": i.id, "title": i.title, "text": i.text, "redacted": i.redacted}
                         for i in (pack.evidence if pack else [])],
            "envelope": envelope.model_dump(mode="json"),
            "gate_results": [{"gate_id": g.gate_id, "result": g.result.value,
                              "reason_codes": [c.value for c in g.reason_codes]} for g in gates.values()],
        }
        out = []
        for index, item in enumerate(self.critique(payload)):
            try:
                finding = CriticFinding.model_validate(item)
            except ValidationError as exc:
                first = exc.errors()[0]
                raise CriticError(f"finding {index}: field '{'.'.join(map(str, first['loc']))}': {first['msg']}") from None
            # the model's ids are only unique per answer: make them unique per trace
            out.append(finding.model_copy(update={"finding_id": _fid("M", bundle.trace_id, finding.finding_id)}))
        return out


def critic_from_spec(spec: str) -> ModelCritic:
    """A Critic for ``GateServices(critic=...)`` (G7) from a model spec (``scripted:FILE``, ``gguf:PATH``, ...)."""
    from controlplane.adapters import load_model

    return ModelCritic(load_model(spec))


@dataclass
class CriticRunSummary:
    traces: int = 0
    findings_added: int = 0
    duplicates: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)
    by_type: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"traces": self.traces, "findings_added": self.findings_added, "duplicates": self.duplicates,
                "errors": self.errors, "by_type": self.by_type}


def run_critic(store: TraceStore, critics: Sequence[BatchCritic], since: str | None = None,
               trace_ids: Iterable[str] = (), limit: int | None = None) -> CriticRunSummary:
    ids = list(trace_ids) or [r["trace_id"] for r in store.list_traces(since=since, limit=limit, complete_only=True)]
    summary = CriticRunSummary()
    for trace_id in sorted(ids):
        bundle = store.load_bundle(trace_id)
        summary.traces += 1
        for critic in critics:
            try:
                found = critic.findings(bundle)
            except CriticError as exc:
                summary.errors.append({"trace_id": trace_id, "critic": critic.name, "error": str(exc)})
                continue
            known = store.finding_ids(trace_id)
            fresh = [f for f in found if f.finding_id not in known]
            summary.duplicates += len(found) - len(fresh)
            if fresh:
                store.add_findings(trace_id, fresh, source=critic.name)
                summary.findings_added += len(fresh)
                for f in fresh:
                    summary.by_type[f.type.value] = summary.by_type.get(f.type.value, 0) + 1
    return summary
