"""reasoning_chain: EBOM reasoning chain verification, tiers 1 to 3, and the seed's common invalid patterns.

A reasoning step is a claim of status REASONING. It names its ``premises`` (claim ids and/or evidence ids, in
order) and its ``operation`` (entailment, aggregation, contrast, transitive, conditional). A REASONING claim that
names no premises but cites evidence is read as an implicit entailment step from that evidence; one that names
neither has nothing to reason from: PREMISE_MISSING.

Tiers (EBOM "Verification Tiers"; the rigor of the request decides which run):

* tier 1, every rigor (basic grounding): every premise exists (PREMISE_MISSING) and is itself verified
  (PREMISE_UNVERIFIED: a premise claim must have been VERIFIED by nli_entailment and failed by no earlier gate, a
  premise step must be VALID); no fact of the conclusion -- a number or a name -- is missing from every premise and
  every source under them (UNSOURCED_REASONING_FACT); below medium rigor, where tier 2 does not run, so is a content
  word that no premise or source has, directly or through a relation family.
* tier 2, medium rigor and up (logical structure, rule based): an if-then needs a sourced antecedent
  (UNSOURCED_ANTECEDENT: some premise must assert it, not only as the if-clause of a conditional); a therefore or a
  because needs premises that explain it -- every content word of the conclusion is in the premises or in the same
  relation family as one of their words (``contributes`` after ``causes``), a because-clause is among the premises,
  the premises of a transitive step chain -- else NON_SEQUITUR. The seed's patterns, each with its own code (the
  specific one replaces NON_SEQUITUR for the words it explains): FALSE_EQUIVALENCE (causal language from premises that
  only report correlation), OVERGENERALIZATION (a universal quantifier or a population the premises do not have),
  CHERRY_PICKING (a source under the step also says something contrary -- a however/but/risk clause about the same
  subject -- that no premise and not the conclusion addresses).
* tier 3, high stakes (entailment): the NLI backend (``inp.services.nli_backend``, as nli_entailment uses it) scores
  (joined premises, conclusion); below the bundle's min_entailment (or the backend's calibrated threshold, whichever
  is higher) is REASONING_NOT_ENTAILED. No backend, or a similarity-only one: VERIFIER_UNAVAILABLE (fail closed).

The chain must be acyclic: every step on a cycle of premises (a step that rests, directly or not, on itself) fails
CIRCULAR_REASONING. Steps are checked premises first, so a step resting on an invalid step is PREMISE_UNVERIFIED.

Confidence (EBOM): min(premise confidences) x reasoning validity x verification score, where a premise claim's
confidence is nli_entailment's (or the premise step's), an evidence premise's is its EBOM source confidence,
validity is 1.0 VALID, 0.5 UNCERTAIN, 0.1 INVALID, and the verification score is the tier-3 entailment, else the
step's own nli_entailment score, else the weakest premise's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controlplane.contracts import (
    Claim,
    ClaimStatus,
    CostClass,
    EvidenceItem,
    GateResult,
    ReasonCode,
    ReasoningOperation,
    RigorLevel,
)
from controlplane.contracts.text import content_stems, stem, strip_markers, words
from controlplane.contracts.text import sentence_texts as sentences
from controlplane.evidence_pack.staleness import staleness

from .claim_checks import CAUSAL, CORRELATIONAL, POPULATION_NOUNS
from .conflicts import gate_now
from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage, prior_records
from .nli_calibration import backend_threshold, is_similarity_only
from .sufficiency import count_independent, source_confidence, thresholds_for

VALIDITY_SCORE = {"VALID": 1.0, "UNCERTAIN": 0.5, "INVALID": 0.1}  # EBOM: invalid reasoning -> near zero
COVERAGE = 0.6  # share of an antecedent's or a because-clause's content words the premises must hold

# Relation families: a conclusion may name a relation with another word of the family its premises use (a causal
# chain "contributes"; a cut build time "helps"). Correlational words are deliberately in no family with causal ones.
_FAMILIES = [
    "cause causes caused lead leads result results contribute contributes produce produces drive drives induce "
    "induces trigger triggers affect affects influence influences responsible",
    "help helps benefit benefits improve improves better faster speed speeds cut cuts reduce reduces lower lowers "
    "save saves advantage good gain gains boost boosts shorten shortens",
    "contain contains include includes comprise comprises part member belong belongs consist consists within inside",
    "require requires need needs depend depends rely relies",
    "same equal equals identical match matches",
]
_FAMILY_OF: dict[str, int] = {stem(w): index for index, family in enumerate(_FAMILIES) for w in family.split()}
_CONNECTIVES = frozenset(stem(w) for w in ["therefore", "thus", "hence", "so", "consequently", "follows", "follow", "means", "mean", "conclude", "overall", "together", "both", "combined", "taken", "which", "implies", "imply"])
_UNIVERSAL = frozenset({"all", "every", "everyone", "everybody", "always", "universally", "never", "nobody",
                        "everything", "any", "whole", "entire"})
_CONTRARY = re.compile(r"\b(however|but|although|though|whereas|except|risks?|drawbacks?|downsides?|"
                       r"disadvantages?|side effects?|harms?|harmful|adverse|limitations?|caveats?|worse)\b",
                       re.IGNORECASE)
_ACKNOWLEDGES = re.compile(r"\b(but|although|though|however|despite|whereas|while|yet|at the cost|trade-?off|"
                           r"even though|downside|drawback|risk\w*)\b", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(r"(?:,|;)?\s+(?=\b(?:but|however|although|though|yet|whereas|except)\b)", re.IGNORECASE)
_IF_THEN = re.compile(r"\bif\b\s+(?P<a>.+?)(?:,\s*(?:then\s+)?|\s+then\s+)(?P<b>.+)", re.IGNORECASE | re.DOTALL)
_BECAUSE = re.compile(r"\b(?:because|since|due to|as a result of)\b\s+(?P<r>[^.;]+)", re.IGNORECASE)
_LEAD = re.compile(r"^\s*(?:therefore|thus|hence|so|consequently|as a result|it follows that|this means that|"
                   r"this means|which means)\b[,:]?\s*", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NAME = re.compile(r"[A-Z][A-Za-z0-9.'-]*")


@dataclass
class Step:
    claim: Claim
    premises: list[str]
    implicit: bool
    operation: str
    codes: list[str] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)
    tiers: list[int] = field(default_factory=list)
    validity: str = "VALID"
    confidence: float | None = None
    factors: dict[str, Any] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    entailment: float | None = None

    def fail(self, code: ReasonCode, tier: int | None, detail: str) -> None:
        self.codes.append(code.value)
        self.findings.append({"code": code.value, "tier": tier, "detail": detail})

    def record(self) -> dict[str, Any]:
        return {"operation": self.operation, "premises": self.premises, "implicit": self.implicit,
                "tiers_checked": self.tiers, "validity": self.validity,
                "reason_codes": list(dict.fromkeys(self.codes)), "findings": self.findings,
                "sources": self.sources, "entailment": self.entailment, "confidence": self.confidence,
                "confidence_factors": self.factors, "text": self.claim.text}


def prior_claim_failures(results: Iterable[GateResult]) -> dict[str, list[str]]:
    """Claim id -> reason codes, from every earlier gate that failed it (details["claims"])."""
    failed: dict[str, list[str]] = {}
    for result in results:
        if result.failed:
            for claim_id, codes in (result.details.get("claims") or {}).items():
                failed.setdefault(claim_id, []).extend(codes)
    return failed


def step_premises(claim: Claim) -> tuple[list[str], bool]:
    """Explicit premises, else the cited evidence (an implicit entailment step)."""
    if claim.premises:
        return list(dict.fromkeys(claim.premises)), False
    return list(dict.fromkeys(claim.evidence_ids)), True


def chain_cycles(steps: dict[str, Step]) -> set[str]:
    """Steps that rest on themselves through premise steps (self-premise included)."""
    import networkx as nx

    graph = nx.DiGraph()
    for claim_id, step in steps.items():
        graph.add_node(claim_id)
        for premise in step.premises:
            if premise in steps:
                graph.add_edge(claim_id, premise)
    on_cycle: set[str] = set()
    for component in nx.strongly_connected_components(graph):
        if len(component) > 1 or any(graph.has_edge(n, n) for n in component):
            on_cycle |= component
    return on_cycle


def premise_order(steps: dict[str, Step], skip: set[str]) -> list[str]:
    """Steps, premises first (a topological order of the acyclic part)."""
    import networkx as nx

    graph = nx.DiGraph()
    for claim_id, step in steps.items():
        if claim_id in skip:
            continue
        graph.add_node(claim_id)
        for premise in step.premises:
            if premise in steps and premise not in skip:
                graph.add_edge(premise, claim_id)
    return list(nx.lexicographical_topological_sort(graph))


# -- the tier-2 parser ------------------------------------------------------------------------------------------------
def body_of(text: str) -> str:
    """The conclusion without inline markers or its leading connective ("Therefore, ...")."""
    return re.sub(r"\s+([.,;:!?])", r"\1", _LEAD.sub("", strip_markers(text))).strip()


def _covered(part: str, corpus_stems: set[str]) -> float:
    wanted = set(content_stems(part))
    return 1.0 if not wanted else len(wanted & corpus_stems) / len(wanted)


def unexplained_words(conclusion: str, premise_text: str) -> list[str]:
    """Content stems of the conclusion that no premise has, directly or through a relation family."""
    said = set(content_stems(premise_text))
    families = {_FAMILY_OF[s] for s in said if s in _FAMILY_OF}
    out = []
    for s in dict.fromkeys(content_stems(conclusion)):
        if s in said or s in _CONNECTIVES or (s in _FAMILY_OF and _FAMILY_OF[s] in families):
            continue
        out.append(s)
    return out


def _phrases(text: str, vocabulary: Iterable[str]) -> set[str]:
    lowered = " " + " ".join(words(text)) + " "
    return {v for v in vocabulary if f" {v} " in lowered}


def conclusion_facts(conclusion: str) -> tuple[list[str], list[str]]:
    """Numbers and names (capitalised tokens after the first word) the conclusion states."""
    numbers = _NUMBER.findall(conclusion)
    tokens = conclusion.split()
    names = [m.group(0).rstrip(".") for t in tokens[1:] for m in [_NAME.match(t.strip("\"'(["))] if m]
    names = [n for n in names if len(n) > 2 and n.lower() not in {"if", "then", "therefore", "thus", "the"}]
    return list(dict.fromkeys(numbers)), list(dict.fromkeys(names))


def contrary_clauses(item: EvidenceItem) -> list[str]:
    """Clauses of a source that say something against the rest: a however/but clause, a risk or drawback."""
    out = []
    for sentence in sentences(item.text):
        parts = [p.strip() for p in _CLAUSE_SPLIT.split(sentence) if p.strip()]
        out.extend(p for p in parts if _CONTRARY.search(p))
    return out


# Groups a claim can be about: the claim checks' population nouns and the groups of this field's questions.
_POPULATION_STEMS = frozenset(stem(p) for p in POPULATION_NOUNS) | frozenset(stem(w) for w in ["developer", "programmer", "engineer", "customer", "client", "physician", "clinician", "scientist", "researcher", "manager", "lawyer", "attorney", "member", "owner", "reader", "player", "driver", "buyer", "seller", "investor", "taxpayer", "company", "business", "team", "organization", "organisation", "firm", "everyone", "everybody", "people"])


def _is_population(word: str) -> bool:
    """A word naming a group (of people or organisations) a finding may be about."""
    return stem(word) in _POPULATION_STEMS


class ReasoningChainGate(BaseGate):
    gate_id = "reasoning_chain"
    version = "v1"
    cost_class = CostClass.MEDIUM
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        claims = {c.claim_id: c for c in inp.envelope.meta.claim_map}
        steps = {cid: Step(c, *step_premises(c), operation=(c.operation or ReasoningOperation.ENTAILMENT).value)
                 for cid, c in claims.items() if c.status is ClaimStatus.REASONING}
        if not steps:
            return self.passing(details={"steps": {}, "order": [], "why": "no REASONING claim in the envelope"})
        decision, policy = inp.mode_decision, inp.policy
        domain, th = thresholds_for(decision, policy)
        level = decision.rigorConfig.level
        high_stakes = decision.rigorConfig.nli_required or (
            domain is not None and policy.domains[domain].risk_level is RigorLevel.HIGH)
        tiers = [1] + ([2] if level.rank >= RigorLevel.MEDIUM.rank or high_stakes else []) + ([3] if high_stakes else [])
        params = inp.params
        failed_before = prior_claim_failures(inp.prior_results)
        nli_records = prior_records(inp.prior_results, "nli_entailment", "claim_records")
        now = gate_now(params)

        cyclic = chain_cycles(steps)
        for claim_id in sorted(cyclic):
            step = steps[claim_id]
            step.tiers = [1]
            step.fail(ReasonCode.CIRCULAR_REASONING, 1,
                      f"{claim_id} rests on itself through {', '.join(p for p in step.premises if p in steps)}")
        order = premise_order(steps, cyclic)
        for claim_id in order:
            self._check(steps[claim_id], steps, claims, inp, tiers, th, failed_before, nli_records, now, params)
        for step in steps.values():
            step.codes = list(dict.fromkeys(step.codes))
            if step.codes:
                step.validity = "UNCERTAIN" if set(step.codes) == {ReasonCode.VERIFIER_UNAVAILABLE.value} else "INVALID"
            if step.claim.claim_id in cyclic:
                step.confidence, step.factors = 0.0, {"reasoning_validity": VALIDITY_SCORE["INVALID"]}
        failing = {cid: step.codes for cid, step in steps.items() if step.codes}
        details: dict[str, Any] = {
            "steps": {cid: step.record() for cid, step in steps.items()},
            "order": [*order, *sorted(cyclic)],
            "tiers": tiers,
            "thresholds": {"domain": domain, "rigor": level.value, "high_stakes": high_stakes,
                           "min_entailment": th.min_entailment, "min_confidence": th.min_confidence},
            "warnings": [],
        }
        if failing:
            codes = [ReasonCode(c) for codes in failing.values() for c in codes]
            return self.failing(codes, evidence_refs=[f"claim_map:{cid}" for cid in failing],
                                details={"claims": failing, **details})
        return self.passing(details=details)

    # -- one step -------------------------------------------------------------------------------------------------
    def _check(self, step: Step, steps: dict[str, Step], claims: dict[str, Claim], inp: GateInput,
               tiers: list[int], th, failed_before: dict[str, list[str]],
               nli_records: dict[str, dict] | None, now, params: dict[str, Any]) -> None:
        pack = inp.evidence_pack
        step.tiers = list(tiers)
        claim = step.claim
        if not step.premises:
            step.fail(ReasonCode.PREMISE_MISSING, 1, "a reasoning step must name its premises (claim or evidence ids) "
                                                     "or cite the evidence it reasons from")
            step.confidence, step.factors = 0.0, {"reasoning_validity": VALIDITY_SCORE["INVALID"]}
            return
        premise_texts: list[str] = []
        claim_texts: list[str] = []  # what the step's premise claims say (citing a whole source addresses nothing)
        evidence_premises: list[EvidenceItem] = []
        sources: dict[str, EvidenceItem] = {}
        premise_confidences: dict[str, float] = {}
        premise_scores: list[float] = []
        for premise in step.premises:
            if premise == claim.claim_id:
                continue  # self-premise: reported as CIRCULAR_REASONING
            if premise in claims:
                other = claims[premise]
                premise_texts.append(body_of(other.text))
                claim_texts.append(body_of(other.text))
                ok, why, confidence, score = self._premise_claim(premise, other, steps, failed_before, nli_records)
                if not ok:
                    step.fail(ReasonCode.PREMISE_UNVERIFIED, 1, f"premise {premise}: {why}")
                premise_confidences[premise] = confidence
                premise_scores.append(score)
                for source_id in self._sources_of(premise, claims, steps):
                    if (item := pack.get(source_id)) is not None:
                        sources[item.id] = item
            elif (item := pack.get(premise)) is not None:
                premise_texts.append(item.text)
                sources[item.id] = item
                if item.redacted:
                    step.fail(ReasonCode.PREMISE_UNVERIFIED, 1, f"premise {premise}: its text was redacted")
                evidence_premises.append(item)
                premise_scores.append(1.0)
            else:
                step.fail(ReasonCode.PREMISE_MISSING, 1, f"premise {premise} is neither a claim of this answer nor an "
                                                         "evidence id of the pack")
        for evidence_id in claim.evidence_ids:  # what the step cites is under it too
            if (item := pack.get(evidence_id)) is not None:
                sources.setdefault(item.id, item)
        step.sources = sorted(sources)
        for item in evidence_premises:
            premise_confidences[item.id] = self._source_confidence(item, th, now, sources.values())
        conclusion = body_of(claim.text)
        premises_joined = "\n".join(premise_texts)
        grounds = "\n".join([premises_joined, *(item.text for item in sources.values())])

        # tier 1: no fact that no source has
        numbers, names = conclusion_facts(conclusion)
        lowered = grounds.lower()
        unsourced = [n for n in numbers if n not in grounds] + [n for n in names if n.lower() not in lowered]
        if 2 not in step.tiers:  # below medium rigor tier 1 also checks the words; tier 2 checks them stricter
            unsourced += unexplained_words(conclusion, grounds)
        if unsourced:
            step.fail(ReasonCode.UNSOURCED_REASONING_FACT, 1,
                      f"the step states {unsourced[:6]}, which no premise and no source under them has")
        if 2 in step.tiers and premise_texts:
            self._tier2(step, conclusion, premise_texts, claim_texts, list(sources.values()))
        if 3 in step.tiers and premise_texts:
            self._tier3(step, conclusion, premises_joined, inp, th)
        # confidence (EBOM): weakest premise x validity x verification score
        validity = VALIDITY_SCORE["VALID" if not step.codes else (
            "UNCERTAIN" if set(step.codes) == {ReasonCode.VERIFIER_UNAVAILABLE.value} else "INVALID")]
        own = (nli_records or {}).get(claim.claim_id, {})
        if step.entailment is not None:
            verification = step.entailment
        elif isinstance(own.get("entailment"), (int, float)):
            verification = float(own["entailment"])
        else:
            verification = min(premise_scores) if premise_scores else 0.0
        weakest = min(premise_confidences.values()) if premise_confidences else 0.0
        step.confidence = round(weakest * validity * verification, 4)
        step.factors = {"premise_confidences": premise_confidences, "reasoning_validity": validity,
                        "verification_score": round(verification, 4)}
        if (not step.codes and params.get("enforce_min_confidence", True)
                and step.confidence < th.min_confidence):
            step.fail(ReasonCode.LOW_CONFIDENCE, None,
                      f"confidence {step.confidence} is below this domain's minimum {th.min_confidence}")

    @staticmethod
    def _premise_claim(premise: str, other: Claim, steps: dict[str, Step], failed_before: dict[str, list[str]],
                       nli_records: dict[str, dict] | None) -> tuple[bool, str, float, float]:
        """(verified, why not, confidence, verification score) of a premise claim."""
        if premise in steps:
            inner = steps[premise]
            if inner.codes or inner.confidence is None:
                return False, f"the premise step is {inner.validity if inner.codes else 'unchecked'}", 0.0, 0.0
            return True, "", inner.confidence, float(inner.factors.get("verification_score", 0.0))
        if failed_before.get(premise):
            return False, f"failed {sorted(set(failed_before[premise]))}", 0.0, 0.0
        if nli_records is None:
            return False, "no claim verifier (nli_entailment) ran on this attempt", 0.0, 0.0
        record = nli_records.get(premise) or {}
        if record.get("decision") != "VERIFIED":
            return False, f"not VERIFIED by nli_entailment (decision {record.get('decision', 'none')})", 0.0, 0.0
        return True, "", float(record.get("confidence") or 0.0), float(record.get("entailment") or 0.0)

    @staticmethod
    def _sources_of(claim_id: str, claims: dict[str, Claim], steps: dict[str, Step], seen: set[str] | None = None
                    ) -> list[str]:
        """Evidence ids under a claim: its citations, and for a step everything under its premises."""
        seen = seen if seen is not None else set()
        if claim_id in seen or claim_id not in claims:
            return []
        seen.add(claim_id)
        out = list(claims[claim_id].evidence_ids)
        if claim_id in steps:
            for premise in steps[claim_id].premises:
                out.extend(ReasoningChainGate._sources_of(premise, claims, steps, seen) if premise in claims
                           else [premise])
        return list(dict.fromkeys(out))

    @staticmethod
    def _source_confidence(item: EvidenceItem, th, now, all_sources: Iterable[EvidenceItem]) -> float:
        freshness = staleness(item, now).freshness
        quality = 1.0 if item.retrieval_score is None or th.min_similarity <= 0 else min(
            1.0, max(0.0, float(item.retrieval_score)) / th.min_similarity)
        verification_status = 1.0 if count_independent(all_sources) >= 2 else 0.5
        return source_confidence(item.credibility, quality, freshness, verification_status)

    # -- tier 2 ---------------------------------------------------------------------------------------------------
    def _tier2(self, step: Step, conclusion: str, premise_texts: list[str], claim_texts: list[str],
               sources: Sequence[EvidenceItem]) -> None:
        joined = "\n".join(premise_texts)
        said = set(content_stems(joined))
        explained: set[str] = set()  # words a specific pattern accounts for (they are not also a non sequitur)
        specific = False

        # if-then: the antecedent must be asserted by a premise, not only be the if-clause of a conditional
        conditional = _IF_THEN.search(conclusion)
        conditional_premise = None
        if conditional is None:
            for index, text in enumerate(premise_texts):
                for sentence in sentences(text):
                    if (found := _IF_THEN.search(sentence)) is not None:
                        conditional, conditional_premise = found, (index, sentence)
                        break
                if conditional is not None:
                    break
        if conditional is not None:
            antecedent = conditional.group("a")
            asserting = [t.replace(conditional_premise[1], " ") if conditional_premise and i == conditional_premise[0]
                         else t for i, t in enumerate(premise_texts)]
            if conditional_premise is None:  # the conclusion is the if-then: its antecedent must be sourced
                asserting = premise_texts
            share = _covered(antecedent, set(content_stems("\n".join(asserting))))
            if share < COVERAGE:
                step.fail(ReasonCode.UNSOURCED_ANTECEDENT, 2,
                          f"the antecedent '{antecedent.strip()[:80]}' is asserted by no premise ({share:.0%} of "
                          "its content words)")
                specific = True
            if conditional_premise is not None:
                said |= set(content_stems(conditional.group("b")))
        elif step.operation == ReasoningOperation.CONDITIONAL.value:
            step.fail(ReasonCode.UNSOURCED_ANTECEDENT, 2, "a conditional step needs an if-then among its premises or "
                                                          "as its conclusion")
            specific = True

        # because: the stated reason must be among the premises
        for reason in _BECAUSE.finditer(conclusion):
            share = _covered(reason.group("r"), said)
            if share < COVERAGE:
                step.fail(ReasonCode.NON_SEQUITUR, 2, f"the stated reason '{reason.group('r').strip()[:80]}' is not "
                                                      f"among the premises ({share:.0%} of its content words)")
                specific = True

        # false equivalence: causation concluded from correlation
        causal_claimed = _phrases(conclusion, CAUSAL)
        if causal_claimed and _phrases(joined, CORRELATIONAL) and not _phrases(joined, CAUSAL):
            step.fail(ReasonCode.FALSE_EQUIVALENCE, 2, f"the step states causation {sorted(causal_claimed)}; its "
                                                       "premises report only correlation")
            explained |= {s for phrase in causal_claimed for s in content_stems(phrase)}
            specific = True

        # overgeneralisation: a universal quantifier or a population the premises do not have
        conclusion_words, premise_words = set(words(conclusion)), set(words(joined))
        universal = sorted((conclusion_words & _UNIVERSAL) - premise_words)
        widened = sorted(w for w in conclusion_words if _is_population(w) and stem(w) not in said)
        if universal or (widened and any(_is_population(w) for w in premise_words)):
            step.fail(ReasonCode.OVERGENERALIZATION, 2,
                      f"the step widens the population ({', '.join(universal + widened)}) beyond its premises")
            explained |= {stem(w) for w in widened + universal}
            specific = True

        # cherry picking: a source under the step says something contrary that the step ignores
        if not _ACKNOWLEDGES.search(conclusion):
            addressed = set(content_stems("\n".join(claim_texts))) | set(content_stems(conclusion))
            subject = set(content_stems(conclusion))
            for item in sources:
                for clause in contrary_clauses(item):
                    stems = set(content_stems(clause))
                    if not stems or not (stems & subject):
                        continue
                    if len(stems & addressed) / len(stems) >= 0.75:
                        continue  # a premise or the conclusion says it
                    step.fail(ReasonCode.CHERRY_PICKING, 2, f"{item.id} also says '{clause[:100]}', which the step "
                                                            "ignores")
                    specific = True
                    break

        # therefore: every content word explained by the premises; a transitive chain links its premises
        novel = [w for w in unexplained_words(conclusion, joined) if w not in explained]
        if novel and not specific:
            step.fail(ReasonCode.NON_SEQUITUR, 2, f"the conclusion's {novel[:6]} follow from no premise")
        elif not (set(content_stems(conclusion)) & said) and not specific:
            step.fail(ReasonCode.NON_SEQUITUR, 2, "the conclusion shares nothing with its premises")
        if step.operation == ReasoningOperation.TRANSITIVE.value:
            stems = [set(content_stems(t)) for t in premise_texts]
            broken = [i for i in range(len(stems) - 1) if not stems[i] & stems[i + 1]]
            if len(stems) < 2 or broken:
                step.fail(ReasonCode.NON_SEQUITUR, 2, "a transitive step needs premises that chain (each shares a "
                                                      "term with the next)")

    # -- tier 3 ---------------------------------------------------------------------------------------------------
    def _tier3(self, step: Step, conclusion: str, premises: str, inp: GateInput, th) -> None:
        backend = inp.services.nli_backend
        if backend is None:
            step.fail(ReasonCode.VERIFIER_UNAVAILABLE, 3, "no NLI backend is configured; tier 3 cannot run")
            return
        if is_similarity_only(backend):
            step.fail(ReasonCode.VERIFIER_UNAVAILABLE, 3, f"backend {getattr(backend, 'name', '?')!r} measures "
                                                          "similarity only; high stakes need NLI")
            return
        try:
            scores = list(backend.score([(premises, conclusion)]))
            if len(scores) != 1:
                raise ValueError(f"returned {len(scores)} scores for 1 pair")
        except Exception as exc:
            step.fail(ReasonCode.VERIFIER_UNAVAILABLE, 3, f"NLI backend failed: {type(exc).__name__}: "
                                                          f"{str(exc)[:200]}")
            return
        threshold = th.min_entailment
        calibrated = backend_threshold(backend)
        if inp.params.get("use_backend_threshold", True) and calibrated is not None:
            threshold = max(threshold, calibrated)
        step.entailment = round(float(scores[0].entailment), 4)
        if step.entailment < threshold:
            step.fail(ReasonCode.REASONING_NOT_ENTAILED, 3,
                      f"P(premises entail the conclusion) = {step.entailment} < {threshold}")


@hookimpl
def controlplane_gates():
    return [ReasoningChainGate()]


__all__ = ["VALIDITY_SCORE", "ReasoningChainGate", "chain_cycles", "prior_claim_failures", "prior_records"]
