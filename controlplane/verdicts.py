"""Per-claim and per-sentence verdicts from one attempt's GateResults (grounded-generation: PASS or FAIL, no
partial support)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from controlplane.contracts import GateResult, OutputEnvelope, ReasonCode
from controlplane.gates.anchoring import beyond_claims, spans_by_sentence
from controlplane.gates.attempt import AttemptView


@dataclass
class ClaimVerdict:
    claim_id: str
    text: str
    status: str
    evidence_ids: list[str]
    verdict: str  # PASS | FAIL
    reason_codes: list[str] = field(default_factory=list)
    span: tuple[int, int] | None = None

    def as_dict(self) -> dict:
        return {
            "claim_id": self.claim_id,
            "text": self.text,
            "status": self.status,
            "evidence_ids": self.evidence_ids,
            "verdict": self.verdict,
            "reason_codes": self.reason_codes,
            "span": list(self.span) if self.span else None,
        }


def global_failures(results: Sequence[GateResult]) -> list[ReasonCode]:
    """Failure codes not attributed to any claim (schema, mode, budget, uncovered sentences ...).

    A gate that fails for some claims and also globally lists the latter in details["global_reason_codes"].
    """
    codes: list[ReasonCode] = []
    for result in results:
        if not result.failed:
            continue
        if not (result.details.get("claims") or {}):
            codes.extend(result.reason_codes)
        else:
            codes.extend(ReasonCode(code) for code in result.details.get("global_reason_codes", []))
    return list(dict.fromkeys(codes))


def _view_of(envelope: OutputEnvelope | None, view: AttemptView | None) -> AttemptView:
    """The attempt's view when the caller has it (derived once), else one derived here."""
    return view if view is not None and view.envelope is envelope else AttemptView(envelope)


def claim_verdicts(envelope: OutputEnvelope | None, results: Sequence[GateResult],
                   view: AttemptView | None = None) -> list[ClaimVerdict]:
    if envelope is None:
        return []
    per_claim: dict[str, list[str]] = {}
    for result in results:
        if not result.failed:
            continue
        for claim_id, codes in (result.details.get("claims") or {}).items():
            per_claim.setdefault(claim_id, []).extend(codes)
    anchors = _view_of(envelope, view).anchors
    verdicts = []
    for claim in envelope.meta.claim_map:
        codes = list(dict.fromkeys(per_claim.get(claim.claim_id, [])))
        anchor = anchors.get(claim.claim_id)
        verdicts.append(
            ClaimVerdict(
                claim_id=claim.claim_id,
                text=claim.text,
                status=claim.status.value,
                evidence_ids=list(claim.evidence_ids),
                verdict="FAIL" if codes else "PASS",
                reason_codes=codes,
                span=(anchor.start, anchor.end) if anchor else None,
            )
        )
    return verdicts


@dataclass
class SentenceVerdict:
    start: int
    end: int
    text: str
    verdict: str
    claim_ids: list[str]
    reason_codes: list[str]


def sentence_verdicts(envelope: OutputEnvelope, claims: Sequence[ClaimVerdict],
                      coverage_exempt: bool = False, view: AttemptView | None = None) -> list[SentenceVerdict]:
    """Grounded generation G-1/G-2: a sentence passes only if at least one claim is anchored in it and every claim
    anchored in it passes; one failing claim fails the whole sentence. A sentence no claim covers fails in every
    rigor, and so does one whose claims are all uncited and which says more than they do, unless the bundle's
    rewrite exemption applied (``coverage_exempt``: the text is the user's own)."""
    out = []
    sentences = _view_of(envelope, view).content_sentences
    # each claim placed by binary search over the sentences, not compared with every one (a long answer's cost)
    by_sentence = spans_by_sentence(sentences, [c.span or None for c in claims], claims)
    for index, sentence in sentences:
        inside = by_sentence[index]
        codes = [code for c in inside for code in c.reason_codes]
        if not coverage_exempt and (not inside or (not any(c.evidence_ids for c in inside) and beyond_claims(
                envelope.assistant_text, sentence.start, sentence.end, [c.span for c in inside if c.span]))):
            # no claim, or only uncited claims (UNKNOWN, opinion, small talk) and more than they say: unchecked
            codes = [*codes, ReasonCode.SENTENCE_UNCOVERED.value]
        failed = bool(codes) or any(c.verdict != "PASS" for c in inside)
        out.append(
            SentenceVerdict(
                sentence.start, sentence.end, sentence.text, "FAIL" if failed else "PASS",
                [c.claim_id for c in inside], list(dict.fromkeys(codes)),
            )
        )
    return out


def coverage_exemption(results: Sequence[GateResult]) -> str | None:
    """Why the bundle's rewrite exemption applied to this attempt (claim_anchors records it), or None."""
    for result in results:
        why = result.details.get("coverage_exemption")
        if isinstance(why, str) and why:
            return why
    return None
