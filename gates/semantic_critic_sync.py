"""G7 semantic_critic_sync (expensive, rare): a critic model reviews the claims against the evidence (seed §8).

When it runs is the policy's: the shipped bundle runs it only for high-rigor requests with low router confidence
or many UNKNOWN claims (its ``when``). The gate calls ``inp.services.critic`` (the Critic protocol) with the mode
decision, the evidence (with text), the envelope and the user message, and validates every returned item as a
CriticFinding. Fail closed:

* no critic configured, the critic raises, or it returns something that is not a list of CriticFindings
  -> fail CRITIC_UNAVAILABLE (never a pass);
* evidence the claims cite is redacted (an exported bundle) -> fail EVIDENCE_TEXT_REDACTED: the critic cannot judge
  support from a snippet (replay reports this as "could not run");
* findings at or above ``params.min_severity`` (default ``medium``) that name a claim, or are of a claim type
  (``params.blocking_types``, default UNSUPPORTED_CLAIM, CONTRADICTED_CLAIM, UNCITED_CLAIM; other findings about no
  claim are recorded for the review loop) -> fail CRITIC_FINDING with
  ``details["claims"][claim_id] = ["CRITIC_FINDING"]`` per claim, so regen and degrade act per claim (a finding
  that names no known claim marks every claim that asserts something: fail closed). An honest UNKNOWN claim (one
  sentence that only states the absence of information) asserts nothing: a finding on it is recorded, not acted on,
  and a reply of honest UNKNOWN claims alone passes without calling the critic (nothing to review).

``details["findings"]`` always holds the findings as validated, so a replay can feed them back without a model.
"""

from __future__ import annotations

from pydantic import ValidationError

from controlplane.contracts import CostClass, CriticFinding, GateResult, ReasonCode

from .categories import is_honest_unknown
from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage

SEVERITY_RANK = {"low": 0, "medium": 1, "high": 2, "critical": 3}
CLAIM_FINDING_TYPES = ("UNSUPPORTED_CLAIM", "CONTRADICTED_CLAIM", "UNCITED_CLAIM")


class SemanticCriticSyncGate(BaseGate):
    gate_id = "semantic_critic_sync"
    version = "v1"
    cost_class = CostClass.EXPENSIVE
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        missing = self.needs_envelope(inp)
        if missing is not None:
            return missing
        envelope = inp.envelope
        # An honest UNKNOWN claim states no fact (as claim_dependencies and evidence_graph read it): a finding on it
        # is recorded, not acted on, and a reply of nothing else gives a critic nothing to review. The embedded model
        # as critic flagged "The evidence does not answer this question." and turned an honest UNKNOWN reply into a
        # refusal after 33 s.
        honest_unknown = {c.claim_id for c in envelope.meta.claim_map if is_honest_unknown(c) and not c.evidence_ids}
        if envelope.meta.claim_map and len(honest_unknown) == len(envelope.meta.claim_map):
            return self.passing(details={"why": "every claim is an honest UNKNOWN: nothing for a critic to review",
                                         "honest_unknown_claims": sorted(honest_unknown), "critic_called": False})
        critic = inp.services.critic
        if critic is None:
            return self.failing([ReasonCode.CRITIC_UNAVAILABLE],
                                details={"why": "no critic configured (services.critic); the policy requires one here"})
        cited = {i for claim in envelope.meta.claim_map for i in claim.evidence_ids}
        needed = [item for item in inp.evidence_pack.evidence if item.id in cited or not cited]
        redacted = sorted(item.id for item in needed if item.redacted)
        if redacted:
            return self.failing([ReasonCode.EVIDENCE_TEXT_REDACTED],
                                evidence_refs=[f"evidence:{i}" for i in redacted],
                                details={"why": "evidence text was redacted; the critic cannot judge support",
                                         "redacted_ids": redacted})
        payload = {
            "user_message": inp.user_message,
            "mode_decision": inp.mode_decision.model_dump(mode="json"),
            "evidence": [{"id": i.id, "title": i.title, "text": i.text, "hash": i.hash}
                         for i in inp.evidence_pack.evidence],
            "envelope": envelope.model_dump(mode="json"),
        }
        try:
            raw = critic.critique(payload)
        except Exception as exc:
            return self.failing([ReasonCode.CRITIC_UNAVAILABLE],
                                details={"error": f"{type(exc).__name__}: {str(exc)[:300]}"})
        if not isinstance(raw, list):
            return self.failing([ReasonCode.CRITIC_UNAVAILABLE],
                                details={"error": f"critic returned {type(raw).__name__}, not a list of findings"})
        findings = []
        for index, item in enumerate(raw):
            try:
                findings.append(CriticFinding.model_validate(item))
            except ValidationError as exc:
                first = exc.errors()[0]
                return self.failing([ReasonCode.CRITIC_UNAVAILABLE], details={
                    "error": f"finding {index}: field '{'.'.join(map(str, first['loc']))}': {first['msg']}"})
        floor = SEVERITY_RANK.get(str(inp.params.get("min_severity", "medium")), 1)
        claim_ids = {c.claim_id for c in envelope.meta.claim_map}
        asserting = claim_ids - honest_unknown
        # What G7 is for (seed §4): uncited or contradicted claims. A finding of another type (MISSED_GATE,
        # POLICY_SUGGESTION, IGNORED_EVIDENCE) withholds the answer only when it names a claim that asserts
        # something; about no claim, it is for the review loop. The bundle may widen the types (params.blocking_types).
        blocking_types = set(inp.params.get("blocking_types", CLAIM_FINDING_TYPES))
        blocking = [f for f in findings if SEVERITY_RANK[f.severity.value] >= floor and f.claim_id not in honest_unknown
                    and (f.type.value in blocking_types or f.claim_id in asserting)]
        dumped = [f.model_dump(mode="json") for f in findings]
        details = {"findings": dumped, "critic": getattr(critic, "name", type(critic).__name__)}
        if honest_unknown:  # findings on these are recorded, not acted on
            details["honest_unknown_claims"] = sorted(honest_unknown)
        per_claim: dict[str, list[str]] = {}
        global_findings = [f for f in blocking if f.claim_id not in claim_ids]
        for claim_id in sorted(asserting) if global_findings else sorted({f.claim_id for f in blocking}):
            per_claim[claim_id] = [ReasonCode.CRITIC_FINDING.value]  # a finding on no known claim marks them all
        if not per_claim:
            return self.passing(details=details)
        details["claims"] = per_claim
        return self.failing([ReasonCode.CRITIC_FINDING],
                            evidence_refs=[f"claim_map:{c}" for c in sorted(per_claim)], details=details)


@hookimpl
def controlplane_gates():
    return [SemanticCriticSyncGate()]
