"""claim_anchors (seed §6 option B): every claim sits inside assistant_text, anchors do not cross, and every
sentence is covered by at least one claim, in every rigor (grounded generation G-1: a sentence no claim covers was
never checked, so it may not be shown).

The one exception is the bundle's rewrite exemption (``citations.rewrite_exempt_domains``, e.g. ``writing``): the
router keeps that flag only when no evidence was given, i.e. the text being rewritten is the user's own. Then coverage
is not required, and the result says so in ``details["coverage_exemption"]`` (the run is then never "verified"). A
rewrite that adds numbers or names the user's message does not hold is not a rewrite: the exemption is refused
(``details["exemption_refused"]``) and every sentence needs a claim as usual.

A claim with a model-given span must match the text at that span; a claim without one is anchored by the server
by exact text match (``require_model_spans: true`` in the gate's params makes spans mandatory).
"""

from __future__ import annotations

import re

from controlplane.contracts import CostClass, GateResult, ReasonCode
from controlplane.contracts.text import split_sentences, strip_markers

from .anchoring import beyond_claims
from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage


class ClaimAnchorsGate(BaseGate):
    gate_id = "claim_anchors"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        text = inp.envelope.assistant_text
        claims = inp.envelope.meta.claim_map
        per_claim: dict[str, list[str]] = {}
        codes: list[ReasonCode] = []

        if inp.params.get("require_model_spans"):
            for claim in claims:
                if claim.span is None:
                    per_claim.setdefault(claim.claim_id, []).append(ReasonCode.SPAN_MISSING.value)

        anchors, problems = inp.view.anchors, inp.view.anchor_problems
        for claim_id, problem in problems.items():
            per_claim.setdefault(claim_id, []).append(problem)

        ordered = sorted(anchors.values(), key=lambda a: (a.start, -a.end))
        overlapping: set[str] = set()
        for index, first in enumerate(ordered):
            for second in ordered[index + 1 :]:
                if second.start >= first.end:
                    break
                nested = second.end <= first.end  # one claim inside another (an atomic part) is legal
                if not nested:
                    overlapping.update((first.claim_id, second.claim_id))
        for claim_id in sorted(overlapping):
            per_claim.setdefault(claim_id, []).append(ReasonCode.SPAN_OVERLAP.value)

        uncovered: list[str] = []
        exempt_by = sorted(set(inp.policy.citations.rewrite_exempt_domains) & set(inp.mode_decision.domainFlags))
        exemption = (f"rewrite exemption ({', '.join(exempt_by)}): the text is the user's own, so sentences need "
                     "no claim; nothing in it is verified") if exempt_by else None
        refused_exemption = None
        if exemption is not None and (added := added_facts(text, inp.user_message)):
            # a rewrite restates the user's text; numbers or names it does not hold are new facts, checked as such
            exemption = None
            refused_exemption = f"the rewrite adds {', '.join(added[:5])}, which the user's text does not hold"
        if exemption is None:
            cited = {claim.claim_id: bool(claim.evidence_ids) for claim in claims}
            by_sentence = inp.view.anchors_by_sentence
            for index, sentence in inp.view.content_sentences:
                inside = by_sentence[index]
                if not inside:
                    uncovered.append(sentence.text)
                elif not any(cited.get(a.claim_id) for a in inside) and beyond_claims(
                        text, sentence.start, sentence.end, [(a.start, a.end) for a in inside]):
                    # only uncited claims here (UNKNOWN, opinion, small talk), and the sentence says more than they
                    # do: nothing can check the rest, so it is not covered
                    uncovered.append(sentence.text)
            if uncovered:
                codes.append(ReasonCode.SENTENCE_UNCOVERED)

        for problem_codes in per_claim.values():
            codes.extend(ReasonCode(code) for code in problem_codes)
        anchor_map = {a.claim_id: [a.start, a.end, "model" if a.from_model else "server"] for a in ordered}
        if codes:
            return self.failing(
                codes,
                evidence_refs=[f"claim_map:{cid}" for cid in per_claim] + [f"sentence:{s[:40]}" for s in uncovered],
                details={
                    "claims": per_claim,
                    "uncovered_sentences": uncovered,
                    "anchors": anchor_map,
                    "global_reason_codes": [ReasonCode.SENTENCE_UNCOVERED.value] if uncovered else [],
                    **({"coverage_exemption": exemption} if exemption else {}),
                    **({"exemption_refused": refused_exemption} if refused_exemption else {}),
                },
            )
        return self.passing(details={"anchors": anchor_map, **({"coverage_exemption": exemption} if exemption else {})})


_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_WORD = re.compile(r"[A-Za-z][\w.'-]*")


def added_facts(rewrite: str, user_text: str) -> list[str]:
    """Numbers, and names (capitalised words not opening a sentence), of the rewrite that the user's text lacks."""
    source = user_text.lower()
    added: list[str] = []
    for sentence in split_sentences(strip_markers(rewrite)):
        added.extend(n for n in _NUMBER.findall(sentence.text) if n not in source)
        words = _WORD.findall(sentence.text)
        added.extend(w.rstrip(".") for w in words[1:] if w[0].isupper() and w != "I" and w.rstrip(".").lower()
                     not in source)
    return list(dict.fromkeys(added))


@hookimpl
def controlplane_gates():
    return [ClaimAnchorsGate()]
