"""Building an EvidencePack: caller evidence, atomic facts and retrieved snippets, hashed, within a token budget.

Order is deterministic: caller items in the order given, then atomic facts, then retrieved items: expert-library
items first, each group by (score desc, id). Items that do not fit the budget are dropped whole (never cut: the hash is of the exact text) and the pack is
marked ``truncated``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from controlplane.contracts import (
    AtomicFact,
    BudgetConfig,
    EvidenceItem,
    EvidencePack,
    EvidenceRules,
    Provenance,
    Sphere,
    TrustTier,
    json_text,
)
from controlplane.contracts.errors import first_validation_error
from controlplane.contracts.evidence import EVIDENCE_ID_PATTERN
from controlplane.contracts.user_files import read_user_file

from .credibility import TRUST_TIER_CREDIBILITY, estimate_credibility  # noqa: F401 (re-exported)

_ID_RE = re.compile(EVIDENCE_ID_PATTERN)
TRUST_TIERS = tuple(t.value for t in TrustTier)
_ITEM_KEYS = {
    "id", "text", "title", "type", "trust_tier", "sphere", "source", "provenance", "credibility", "volatility",
    "qualifiers", "hash", "retrieval_score", "liminal_reason", "redacted", "library", "retrieval_match",
}


_FIELD_EXAMPLES = {"provenance": '{"source": "docs/stack.md"}', "qualifiers": '{"population": "adults over 65"}'}


class EvidenceError(ValueError):
    """Caller evidence is malformed. The message names the item and field and says how to fix it."""


def _as_list(value: Any, name: str, example: str) -> list[Any]:
    """A caller's list of items. A single object, a string or a number is an error naming the field: iterating it
    would read its keys or characters as items and blame the wrong thing."""
    if value is None:
        return []
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise EvidenceError(f"'{name}' must be a list of {example}, not {type(value).__name__}")
    return list(value)


def _rules_mapping(rules: Any) -> dict[str, Any]:
    if rules is None:
        return {}
    if not isinstance(rules, Mapping):
        raise EvidenceError(f"'rules' must be an object like {{\"unknown_label_required\": true}}, "
                            f"not {type(rules).__name__}")
    return dict(rules)


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def ranking_score(item: EvidenceItem) -> float:
    """What orders retrieved items in a pack: the fused score of hybrid retrieval, else the retrieval score."""
    if item.retrieval_match is not None:
        return item.retrieval_match.fused_score
    return item.retrieval_score or 0.0


def estimate_tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4) if text else 0


def _item_from_mapping(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise EvidenceError(f"{where}: expected an object like {{\"text\": \"...\"}}, got {type(raw).__name__}")
    unknown = sorted(set(raw) - _ITEM_KEYS)
    if unknown:
        raise EvidenceError(f"{where}: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_ITEM_KEYS))}")
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        raise EvidenceError(f"{where}: 'text' must be a non-empty string")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise EvidenceError(f"{where}: 'text' is not valid Unicode (it holds an unpaired surrogate)") from None
    item: dict[str, Any] = {k: v for k, v in raw.items() if k not in ("source", "hash")}
    for field in ("provenance", "qualifiers"):  # objects: copying or reading them as anything else would crash
        if raw.get(field) is not None and not isinstance(raw[field], Mapping):
            raise EvidenceError(f"{where}.{field}: must be an object like {_FIELD_EXAMPLES[field]}, "
                                f"not {type(raw[field]).__name__}")
    provenance = dict(raw.get("provenance") or {})
    if raw.get("source") is not None:
        provenance.setdefault("source", raw["source"])
    provenance.setdefault("source", "caller")
    item["provenance"] = provenance
    given_hash = raw.get("hash")
    if given_hash is not None and given_hash != content_hash(text) and not raw.get("redacted"):
        raise EvidenceError(f"{where}: 'hash' does not match the text (remove the hash to have it computed)")
    item["hash"] = content_hash(text)
    return item


def fact_to_item(fact: AtomicFact) -> dict[str, Any]:
    span = fact.source_span
    return {
        "id": fact.id,
        "type": "MANUAL_FACT" if fact.source_type.value == "MANUAL" else "PDF_FACT",
        "title": None,
        "text": fact.content,
        "hash": content_hash(fact.content),
        "trust_tier": TrustTier.ESTABLISHED,
        "sphere": Sphere.INSIDE,
        "credibility": fact.confidence,
        "qualifiers": fact.qualifiers,
        "provenance": {
            "source": "manual" if fact.source_type.value == "MANUAL" else span.document_id,
            "document_id": span.document_id,
            "page": span.page,
            "start_char": span.start_char,
            "end_char": span.end_char,
            "quote": span.quote,
        },
    }


def _next_free_id(used: set[str], counter: list[int]) -> str:
    while True:
        counter[0] += 1
        candidate = f"E{counter[0]}"
        if candidate not in used:
            return candidate


def build_pack(
    caller_items: Sequence[Mapping[str, Any]] = (),
    facts: Sequence[AtomicFact | Mapping[str, Any]] = (),
    retrieved: Sequence[EvidenceItem] = (),
    budget: BudgetConfig | None = None,
    rules: Mapping[str, Any] | None = None,
) -> EvidencePack:
    """Assemble a pack. Given ids are kept; missing ids become E1, E2, ... skipping ids already taken."""
    budget = budget or BudgetConfig()
    caller_items = _as_list(caller_items, "evidence", 'evidence items like {"text": "..."}')
    facts = _as_list(facts, "facts", "AtomicFact objects")
    rules = _rules_mapping(rules)
    if len(caller_items) + len(facts) > budget.max_evidence_items:
        raise EvidenceError(
            f"{len(caller_items) + len(facts)} evidence items given; the policy allows at most "
            f"{budget.max_evidence_items} (budgets.max_evidence_items): send fewer or raise the cap"
        )
    drafts: list[dict[str, Any]] = []
    for index, raw in enumerate(caller_items):
        drafts.append(_item_from_mapping(raw, f"evidence[{index}]"))
    for index, raw_fact in enumerate(facts):
        try:
            fact = raw_fact if isinstance(raw_fact, AtomicFact) else AtomicFact.model_validate(raw_fact)
        except ValidationError as exc:
            loc, message = first_validation_error(exc)
            raise EvidenceError(f"facts[{index}].{loc}: {message}") from None
        drafts.append(fact_to_item(fact))
    total_chars = sum(len(d["text"]) for d in drafts)
    if total_chars > budget.max_evidence_chars:
        raise EvidenceError(
            f"caller evidence is {total_chars} characters; the policy allows {budget.max_evidence_chars} "
            "(budgets.max_evidence_chars): send less text or raise the cap"
        )
    # expert-library items first (EBOM: curated libraries are queried first and merged ahead of general retrieval),
    # then best first: by the fused score where hybrid retrieval ordered the items, else by the cosine (issue 15)
    ordered_retrieved = sorted(retrieved, key=lambda item: (item.library is None, -ranking_score(item), item.id))
    for item in ordered_retrieved:
        # The hash is ours to compute, of the exact text received: a retriever's own hash is never trusted (a
        # wrong one would make every bundle of the trace fail its integrity check as if it had been edited).
        rehashed = item.hash if item.redacted else content_hash(item.text)
        drafts.append(item.model_dump(mode="python", exclude={"id"}) | {"id": None, "_retrieved_id": item.id,
                                                                          "hash": rehashed})

    used: set[str] = set()
    for index, draft in enumerate(drafts):
        given = draft.get("id")
        if given is None:
            continue
        if not isinstance(given, str) or not _ID_RE.match(given):
            raise EvidenceError(
                f"evidence[{index}]: id {given!r} is not a valid evidence id (ASCII letters, digits, _ . : -; "
                "max 64 characters): fix it or leave it out to get E1, E2, ..."
            )
        if given in used:
            raise EvidenceError(f"evidence[{index}]: id {given!r} is used twice; evidence ids must be unique")
        used.add(given)
    counter = [0]
    for draft in drafts:
        if draft.get("id") is None:
            draft["id"] = _next_free_id(used, counter)
            used.add(draft["id"])

    kept: list[EvidenceItem] = []
    dropped: list[str] = []
    tokens = 0
    for index, draft in enumerate(drafts):
        draft.pop("_retrieved_id", None)
        tier_value = draft.get("trust_tier")
        if tier_value is not None and tier_value not in TRUST_TIERS:  # a TrustTier member equals its value
            raise EvidenceError(f"evidence[{index}].trust_tier: {tier_value!r} is not one of {', '.join(TRUST_TIERS)}")
        if draft.get("credibility") is None:  # EBOM scoring: trust tier, source URL domain, publication type
            draft["credibility"] = estimate_credibility(draft)
        try:
            item = EvidenceItem.model_validate({k: v for k, v in draft.items() if v is not None or k == "title"})
        except ValidationError as exc:
            loc, message = first_validation_error(exc)
            raise EvidenceError(f"evidence[{index}].{loc}: {message}") from None
        cost = estimate_tokens(item.text)
        if tokens + cost > budget.max_context_tokens:
            dropped.append(item.id)
            continue
        tokens += cost
        kept.append(item)

    rule_values = {
        "must_cite_for_factual_claims": True,
        "unknown_label_required": True,
        **rules,
        "allowed_evidence_ids": [item.id for item in kept],
    }
    try:
        pack_rules = EvidenceRules.model_validate(rule_values)
    except ValidationError as exc:
        loc, message = first_validation_error(exc)
        raise EvidenceError(f"rules.{loc}: {message} (see contracts/schemas/EvidencePack.schema.json)") from None
    return EvidencePack(
        evidence=kept,
        rules=pack_rules,
        truncated=bool(dropped),
        dropped_ids=dropped,
        token_count=tokens,
        token_budget=budget.max_context_tokens,
    )


def extend_pack(pack: EvidencePack, retrieved: Iterable[EvidenceItem], budget: BudgetConfig) -> EvidencePack:
    """The pack plus retrieved items (renumbered after the existing ids), rebuilt deterministically."""
    return build_pack(
        caller_items=[_as_caller(item) for item in pack.evidence],
        retrieved=list(retrieved),
        budget=budget,
        rules={k: v for k, v in pack.rules.model_dump().items() if k != "allowed_evidence_ids"},
    )


def _as_caller(item: EvidenceItem) -> dict[str, Any]:
    data = item.model_dump(mode="json")
    data.pop("hash", None)
    return data


def parse_evidence_document(data: Any, source: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict]:
    """Split an evidence file's JSON into (caller items, atomic facts, rules).

    Accepted shapes: a JSON array of items (AtomicFact-shaped entries with ``content`` + ``source_type`` count as
    facts), or an object with ``evidence`` (array) and optional ``facts`` and ``rules`` (a whole EvidencePack).
    """
    rules: dict = {}
    if isinstance(data, list):
        entries = data
        facts: list = []
    elif isinstance(data, dict) and ("evidence" in data or "facts" in data):
        entries = data.get("evidence") or []
        facts = _as_list(data.get("facts"), "facts", "AtomicFact objects")
        rules = {k: v for k, v in _rules_mapping(data.get("rules")).items() if k != "allowed_evidence_ids"}
        if not isinstance(entries, list):
            raise EvidenceError(f"{source}: 'evidence' must be an array of evidence items")
    else:
        raise EvidenceError(
            f"{source}: expected a JSON array of evidence items or an EvidencePack object with an 'evidence' array"
        )
    items = []
    for entry in entries:
        if isinstance(entry, dict) and "content" in entry and "source_type" in entry:
            facts.append(entry)
        else:
            items.append(entry)
    return items, facts, rules


def read_evidence_file(path: str | Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict]:
    file = Path(path)
    text = read_user_file(file, "evidence file", "pass --evidence with an existing JSON file", EvidenceError)
    try:
        data = json_text.loads(text)
    except json_text.JsonTextError as exc:
        raise EvidenceError(
            f"evidence file {file} {exc}; it must hold a JSON array of evidence items or an EvidencePack object"
        ) from None
    return parse_evidence_document(data, str(file))


__all__ = [
    "EvidenceError",
    "Provenance",
    "build_pack",
    "content_hash",
    "extend_pack",
    "fact_to_item",
    "parse_evidence_document",
    "read_evidence_file",
]
