"""Selector (routing ladder step 2): a model refines an unsure router decision, under the server's control.

The selector's JSON is schema-checked; its confidence is clamped to 0..1; it may add domains but never remove
the router's high-rigor ones (those force the strict mode) and never add a rewrite-exempt one (an exemption from
checking is the router's call); and it is penalised when it contradicts the router's deterministic signals. A
selector that fails to answer validly changes nothing: the router's decision stands.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from jsonschema import Draft202012Validator

from controlplane.contracts import FinishReason, ModeDecision, PolicyBundle
from controlplane.model_boundary import GenerationParams, IntelligenceModule, IntelligenceResponse
from controlplane.prompts import mode_decision_schema_for, selector_context
from controlplane.router import high_rigor_domains, rigor_for, risk_of

SELECTOR_MAX_TOKENS = 160


@dataclass(frozen=True)
class SelectorOutcome:
    decision: ModeDecision
    response: IntelligenceResponse | None
    problem: str | None


def _parse(text: str, schema: dict) -> tuple[dict | None, str | None]:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None, "selector output is not JSON"
    errors = sorted(Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        path = "$" + "".join(f".{p}" if isinstance(p, str) else f"[{p}]" for p in errors[0].absolute_path)
        return None, f"selector output invalid at {path}: {errors[0].message[:200]}"
    return data, None


def merge_selector_output(draft: ModeDecision, data: dict, policy: PolicyBundle) -> ModeDecision:
    """Apply the server's post-processing to a schema-valid selector answer."""
    router = policy.router
    reasons = list(draft.reasons)
    confidence = min(1.0, max(0.0, float(data["confidence"])))
    selector_domains = [d for d in data.get("domainFlags", []) if d in policy.domains]
    # An exemption from checking (the rewrite exemption's domains) is the router's deterministic call: a selector
    # that adds one would let the main model's unchecked text through as a "rewrite" (found by QA).
    exempting = set(policy.citations.rewrite_exempt_domains) - set(draft.domainFlags)
    refused = sorted(exempting & set(selector_domains))
    selector_domains = [d for d in selector_domains if d not in refused]
    domains = sorted(set(draft.domainFlags) | set(selector_domains))
    mode = data["modeLabel"]

    dropped = set(draft.domainFlags) - set(selector_domains)
    disagrees = bool(dropped) or (
        mode != draft.modeLabel and any(r.startswith(("trigger:", "explicit:")) for r in draft.reasons)
    )
    if disagrees:
        confidence = max(0.0, confidence - router.disagreement_penalty)
        reasons.append("selector:disagreement_penalty")
    if high_rigor_domains(domains, policy) and mode != router.strict_mode:
        mode = router.strict_mode
        reasons.append(f"override:high_rigor_forces:{router.strict_mode}")
    added = sorted(set(selector_domains) - set(draft.domainFlags))
    reasons.extend(f"selector:added:{d}" for d in added)
    reasons.extend(f"selector:exemption_not_granted:{d}" for d in refused)
    reasons.extend(f"selector:reason:{r}"[:120] for r in data.get("reasons", [])[:4])
    level = risk_of(domains, policy)
    return draft.model_copy(
        update={
            "modeLabel": mode,
            "domainFlags": domains,
            "rigorConfig": rigor_for(level, domains),
            "clusterIds": [f"rigor:{level.value}"],
            "confidence": round(confidence, 4),
            "reasons": reasons,
            "selectorUsed": True,
        }
    )


def run_selector(message: str, draft: ModeDecision, policy: PolicyBundle, model: IntelligenceModule) -> SelectorOutcome:
    schema = mode_decision_schema_for(policy)
    context = selector_context(message, draft, policy)
    params = GenerationParams(temperature=0.0, max_tokens=SELECTOR_MAX_TOKENS, json_schema=schema)
    try:
        response = model.generate(message, context, params)
    except Exception as exc:  # a selector failure must never take the request down: the router decision stands
        kept = draft.model_copy(update={"reasons": [*draft.reasons, "selector:error"]})
        return SelectorOutcome(kept, None, f"selector call failed: {type(exc).__name__}")
    if response.finish_reason is FinishReason.ERROR:
        kept = draft.model_copy(update={"reasons": [*draft.reasons, "selector:unavailable"]})
        return SelectorOutcome(kept, response, response.error or "selector returned an error")
    data, problem = _parse(response.text, schema)
    if data is None:
        kept = draft.model_copy(update={"reasons": [*draft.reasons, "selector:invalid_output"]})
        return SelectorOutcome(kept, response, problem)
    return SelectorOutcome(merge_selector_output(draft, data, policy), response, None)
