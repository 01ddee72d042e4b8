"""Answer modes (issue 15): which way the main model answers one request, and the quote turns of a request.

* ``abstractive``: the model writes the OutputEnvelope under the per-request grammar (prompts.main_context).
* ``quote``: the model only chooses evidence sentences (or UNKNOWN); the server composes the envelope (quote.py).
* ``abstractive_then_quote``: abstractive; when the answer still fails after regen, one quote turn replaces the bare
  refusal with the verified quotes that bear on the question.

The bundle's ``answer_mode`` applies unless ``answer_mode_by_model`` names the model (the small embedded models
answer in quote mode; ``--model gguf:PATH`` and ``openai:`` keep the bundle's mode). ``--answer-mode`` overrides both.

Who decides that nothing answers (``quote.answerability``), measured in bench/squad2.py:

* ``scorer``: the trained answerability scorer picks the best sentence, or UNKNOWN below its threshold; no model
  call at all;
* ``model``: the model chooses among the best-ranked sentences or says UNKNOWN;
* ``both``: the scorer filters (only sentences above its threshold are offered; none left: UNKNOWN without a model
  call) and the model chooses among them or says UNKNOWN.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controlplane.contracts import AnswerMode, EvidencePack, FinishReason, ModeDecision, PolicyBundle
from controlplane.contracts.errors import InputError
from controlplane.contracts.text import content_stem_set, strip_markers
from controlplane.gates.claim_checks import near_copies
from controlplane.gates.sufficiency import thresholds_for
from controlplane.model_boundary import AssembledContext, GenerationParams, IntelligenceResponse
from controlplane.question_parts import QuestionPart, question_parts
from controlplane.quote import (
    Candidate,
    Ranking,
    choice_schema,
    compose_answer,
    compose_partial,
    compose_unknown,
    numbered,
    parse_choice,
    partial_notice,
    quote_context,
    rank_candidates,
    unknown_notice,
)

SCORER_MODEL_ID = "answerability-scorer"
# A choice is a handful of tokens ({"answer": 12} is about 8); the bound only stops a runaway verbatim copy.
QUOTE_MAX_TOKENS = 160
FALLBACK_NOTICE = ("[The written answer could not be verified. Shown instead: the verified passages of the evidence "
                   "that bear on the question.]")


def parse_answer_mode(value: AnswerMode | str | None) -> AnswerMode | None:
    if value is None:
        return None
    try:
        return AnswerMode(value)
    except ValueError:
        modes = ", ".join(m.value for m in AnswerMode)
        raise InputError(f"answer mode must be one of {modes}, not {value!r}") from None


def answer_mode_for(policy: PolicyBundle, model_id: str, override: AnswerMode | None = None) -> AnswerMode:
    if override is not None:
        return override
    return policy.answer_mode_by_model.get(model_id, policy.answer_mode)


@dataclass
class QuoteTurn:
    """One quote attempt: what was offered, and either the model request or a decision taken without the model."""

    candidates: list[Candidate]
    context: AssembledContext | None = None
    params: GenerationParams | None = None
    decided: IntelligenceResponse | None = None  # set when no model call is needed
    why: str = ""
    record: dict[str, Any] = field(default_factory=dict)


def _word_starts(text: str) -> frozenset[str]:
    """The first four letters of each content stem: "caching" meets "cache" and "hosting" meets "hosted", which the
    five-letter stems keep apart ("cachi", "cache")."""
    return frozenset(stem[:4] for stem in content_stem_set(text))


class QuoteAnswering:
    """The quote turns of one request. The ranking is computed once; a regen offers the sentences whose claims have
    not failed yet."""

    def __init__(self, policy: PolicyBundle, question: str, pack: EvidencePack, decision: ModeDecision,
                 scorer: Any | None = None, nli_backend: Any | None = None, focus: Sequence[str] = ()):
        self.settings = policy.quote
        # A follow-up's own words (controlplane/follow_ups.py): a sentence that mentions none of them answers the
        # previous question again ("mobile apps are released every two weeks" for "And the desktop app?").
        self.focus = _word_starts(" ".join(focus)) if focus else frozenset()
        self.nli_backend = nli_backend
        # A high-stakes question needs several independent sources per claim (EBOM): a quote then also cites every
        # other item that states it, so that two sources saying the same thing are not refused as one.
        self.thresholds = thresholds_for(decision, policy)[1]  # min_sources from the question's domains
        self.question = question
        self.notice: str | None = None  # the system's notice to show after the last composed UNKNOWN envelope
        self.pack = pack
        self.decision = decision
        self.uses_scorer = self.settings.answerability in ("scorer", "both")
        started = time.perf_counter()
        self.ranking: Ranking = rank_candidates(question, pack, scorer if self.uses_scorer else None)
        self.failed: set[tuple[str, int, int]] = set()
        self.statement_question = any(re.search(p, question, re.IGNORECASE) for p in self.settings.statement_questions)
        # A question that asks several things ("What database do we use and where is it hosted?"): with the scorer
        # deciding, each part is ranked and answered (or said to be unanswered) on its own.
        self.parts: list[QuestionPart] = []
        self.part_rankings: list[Ranking] = []
        if self.settings.split_questions and self.settings.answerability == "scorer" and not self.statement_question:
            parts = question_parts(question)
            if len(parts) > 1:
                self.parts = parts
                self.part_rankings = [rank_candidates(part.read_as, pack, scorer) for part in parts]
        self.ranking_ms = (time.perf_counter() - started) * 1000

    # -- one attempt -------------------------------------------------------------------------------------------------
    def turn(self, messages: Sequence[Mapping[str, Any]], attempt: int) -> QuoteTurn:
        settings = self.settings
        exclude = frozenset(self.failed)
        if self.settings.answerability == "model":
            candidates = self.ranking.candidates(settings, exclude)
        else:
            candidates = self.ranking.candidates(settings, exclude, answerable_only=True)
        candidates = self._about_follow_up(candidates)
        record: dict[str, Any] = {"answerability": settings.answerability, "ranking_ms": round(self.ranking_ms, 1),
                                  "offered": [c.as_dict() for c in candidates],
                                  "scorer_threshold": self.ranking.scorer_threshold,
                                  "excluded_after_failure": sorted(f"{e}@{s}-{end}" for e, s, end in exclude),
                                  **({"follow_up_focus": sorted(self.focus)} if self.focus else {})}
        if self.statement_question:
            # "What does X say about Y?": the on-topic sentences are the answer (see QuotePolicy.statement_questions)
            offered = self._about_follow_up(self.ranking.candidates(settings, exclude, by_relevance=True))
            chosen = [c for c in offered if c.relevance >= settings.min_relevance]
            chosen = chosen[: settings.statement_sentences]
            record["statement_question"] = True
            if not chosen:
                return QuoteTurn([], decided=self._decided('{"answer": "UNKNOWN"}'),
                                 why=f"no sentence reaches relevance {settings.min_relevance}", record=record)
            return QuoteTurn(chosen, decided=self._decided(json.dumps({"answer": [c.number for c in chosen]})),
                             why="a statement question: the most relevant sentences", record=record)
        if self.part_rankings:
            chosen, unanswered = self._per_part(exclude, record)
            if chosen:
                offered = numbered(chosen)
                record["unanswered_parts"] = unanswered
                return QuoteTurn(offered, decided=self._decided(json.dumps({"answer": [c.number for c in offered]})),
                                 why="each part of the question: its best sentence", record=record)
            # no part is answered: as for any question (a sentence may still answer the question read whole)
        if not candidates:
            why = ("no evidence sentence reaches the answerability threshold" if self.uses_scorer
                   else "the evidence holds no sentence to quote")
            return QuoteTurn([], decided=self._decided('{"answer": "UNKNOWN"}'), why=why, record=record)
        if settings.answerability == "scorer":
            chosen = candidates[: settings.max_sentences]
            value = [c.number for c in chosen] if settings.max_sentences > 1 else chosen[0].number
            return QuoteTurn(candidates, decided=self._decided(json.dumps({"answer": value})),
                             why="the scorer's best sentence", record=record)
        context = quote_context(messages, candidates, self.decision, attempt, settings)
        params = GenerationParams(temperature=0.0, max_tokens=QUOTE_MAX_TOKENS,
                                  json_schema=choice_schema(candidates, settings))
        return QuoteTurn(candidates, context=context, params=params, record=record)

    def _about_follow_up(self, candidates: list[Candidate]) -> list[Candidate]:
        """The candidates that mention one of a follow-up's own words (all of them when the question is not one)."""
        if not self.focus:
            return candidates
        return [c for c in candidates if self.focus & _word_starts(c.text)]

    def _per_part(self, exclude: frozenset[tuple[str, int, int]], record: dict[str, Any],
                  ) -> tuple[list[Candidate], list[str]]:
        """Per part of the question, its best sentence the scorer passes; the parts none answers, as QuestionPart.phrase
        names them. A part whose best quote holds one chosen for an earlier part replaces it ("The Orion project
        ships on 14 March 2027. Its budget is 2.4 million euros." answers when and how much); one already inside a
        chosen quote is answered by it; one that straddles a chosen quote gives way to the part's next best."""
        chosen: list[Candidate] = []
        unanswered: list[str] = []
        parts_record = []
        for part, ranking in zip(self.parts, self.part_rankings, strict=True):
            best = None
            for candidate in ranking.candidates(self.settings, exclude, answerable_only=True):
                overlapping = [taken for taken in chosen if candidate.overlaps(taken)]
                if not overlapping:
                    chosen.append(candidate)
                elif any(candidate.within(taken) for taken in overlapping):
                    pass  # an earlier part's quote holds it already
                elif all(taken.within(candidate) for taken in overlapping):
                    position = chosen.index(overlapping[0])
                    chosen = [taken for taken in chosen if taken not in overlapping]
                    chosen.insert(position, candidate)
                else:
                    continue
                best = candidate
                break
            if best is None:
                unanswered.append(part.phrase)
            parts_record.append({"part": part.text, "read_as": part.read_as,
                                 "chosen": None if best is None else best.as_dict()})
        record["parts"] = parts_record
        return chosen, unanswered

    def envelope_text(self, turn: QuoteTurn, response: IntelligenceResponse) -> str:
        """The envelope the gates check: composed from a valid choice; else the model's own output (which then
        fails the output gates with a reason code: nothing is guessed)."""
        settings = self.settings
        unanswered = turn.record.get("unanswered_parts")
        if turn.record.get("statement_question"):
            settings = settings.model_copy(update={"max_sentences": settings.statement_sentences})
        elif unanswered is not None:  # one sentence per answered part
            settings = settings.model_copy(update={"max_sentences": max(settings.max_sentences, len(self.parts))})
        chosen, problem = parse_choice(response.text, turn.candidates, settings)
        self.notice = None  # set again only if this attempt's envelope is the UNKNOWN one
        turn.record.update({"model_output": response.text[:500], "decided_without_model": turn.decided is not None,
                            "why": turn.why or None, "problem": problem,
                            "chosen": [c.as_dict() for c in chosen]})
        if problem is not None or response.finish_reason is FinishReason.ERROR:
            return response.text
        if chosen:
            corroborating = self.corroborating(chosen, turn.record)
            if unanswered:
                self.notice = partial_notice(unanswered)
                return json.dumps(compose_partial(chosen, unanswered, self.decision, self.pack, corroborating),
                                  ensure_ascii=False)
            return json.dumps(compose_answer(chosen, self.decision, self.pack, corroborating), ensure_ascii=False)
        return json.dumps(self.unknown_envelope(record=turn.record), ensure_ascii=False)

    def corroborating(self, chosen: Sequence[Candidate], record: dict[str, Any]) -> dict[tuple[str, int, int], list[str]]:
        """Per chosen sentence, the other evidence items that entail it (the verifier, at the domain's
        min_entailment and max_contradiction), where the question needs more than one source; else none, and no
        verifier call. The gates still check every cited item: an item added here that they do not count as
        support only leaves the claim short of sources, as before."""
        if self.thresholds.min_sources <= 1 or self.nli_backend is None:
            return {}
        # a near copy with a swapped word says something else, however entailed (the gate does not count it either)
        pairs = [(candidate, item.id, item.text) for candidate in chosen for item in self.pack.evidence
                 if item.id != candidate.evidence_id and not item.redacted and item.text
                 and not near_copies(item.text, candidate.text)]
        if not pairs:
            return {}
        try:
            scores = self.nli_backend.score([(text, candidate.text) for candidate, _, text in pairs])
        except Exception as exc:  # the gates report an unavailable verifier; the quote stays on its own item
            record["corroborating_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
            return {}
        found: dict[tuple[str, int, int], list[str]] = {}
        for (candidate, evidence_id, _), score in zip(pairs, scores, strict=True):
            if score.entailment >= self.thresholds.min_entailment and \
                    score.contradiction <= self.thresholds.max_contradiction:
                found.setdefault(candidate.key, []).append(evidence_id)
        record["corroborating"] = {f"{e}@{s}-{end}": ids for (e, s, end), ids in found.items()}
        return found

    def unknown_envelope(self, lead: str | None = None, record: dict[str, Any] | None = None) -> dict[str, Any]:
        closest = self.ranking.closest(self.settings.closest_passages, exclude=frozenset(self.failed))
        self.notice = unknown_notice(self.question, with_passages=bool(closest))
        # the closest passages are quoted claims too: in a high-stakes domain they cite every item that states them
        corroborating = self.corroborating(closest, record if record is not None else {}) if closest else {}
        return compose_unknown(self.question, closest, self.decision, self.pack, lead=lead,
                               corroborating=corroborating)

    def after_failure(self, turn: QuoteTurn, envelope: Any, failed_claim_ids: Sequence[str]) -> None:
        """Sentences whose claims failed a gate are not offered (or quoted as closest passages) again. A composed
        claim is the sentence plus its ``[E#]`` marker, so the two are compared without markers."""
        if envelope is None:
            return
        failed = set(failed_claim_ids)
        for claim in envelope.meta.claim_map:
            if claim.claim_id in failed and claim.evidence_ids:
                quoted = strip_markers(claim.text)
                for candidate in self.ranking.all_sentences:
                    if candidate.evidence_id == claim.evidence_ids[0] and strip_markers(candidate.text) == quoted:
                        self.failed.add(candidate.key)

    @staticmethod
    def _decided(text: str) -> IntelligenceResponse:
        return IntelligenceResponse(text=text, tokens_used=0, finish_reason=FinishReason.STOP, latency_ms=0.0,
                                    model_id=SCORER_MODEL_ID)
