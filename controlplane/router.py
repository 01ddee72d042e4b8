"""Deterministic router (routing ladder steps 0/1): explicit modes, domain triggers, evasions, mixed intent.

Everything it knows comes from the policy bundle's lexicons. It errs toward higher risk: a framing such as
"asking for a friend" never lowers rigor, a writing request that touches a risky domain loses its writing
exemption, and a high-rigor trigger forces the strict mode whatever else was asked.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from controlplane.contracts import ModeDecision, PolicyBundle, RigorConfig, RigorLevel
from controlplane.contracts.text import memo_by_text

# Zero-width and bidi control characters: invisible, and a classic way to split a trigger word ("le\u200bgal").
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad]")
_WHITESPACE = re.compile(r"\s+")
WRITING_DOMAIN = "writing"
RETRIEVAL_DOMAIN = "requires_retrieval"


@memo_by_text
def normalize_text(text: str) -> str:
    """NFKC (folds full-width and compatibility forms), invisible characters removed, whitespace collapsed."""
    folded = unicodedata.normalize("NFKC", text)
    return _WHITESPACE.sub(" ", _INVISIBLE.sub("", folded)).strip()


@lru_cache(maxsize=4096)
def _term_regex(term: str) -> re.Pattern[str]:
    escaped = re.escape(term.lower()).replace(r"\*", r"\w*").replace(r"\?", r"\w")
    escaped = escaped.replace(r"\ ", r"\s+")
    return re.compile(rf"(?<![\w]){escaped}(?![\w])")


@lru_cache(maxsize=1024)
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@lru_cache(maxsize=256)
def _lexicon_regex(lexicon: tuple[str, ...]) -> re.Pattern[str] | None:
    """All of a lexicon's terms in one pattern: matches iff some _term_regex(term) matches."""
    if not lexicon:
        return None
    return re.compile("|".join(f"(?:{_term_regex(term).pattern})" for term in lexicon))


@dataclass(frozen=True)
class RouterSignals:
    explicit_mode: str | None
    domain_hits: dict[str, tuple[str, ...]]
    evasions: tuple[str, ...]
    retrieval_hits: tuple[str, ...]
    realtime_hits: tuple[str, ...] = ()


# Letters that look like Latin ones (Cyrillic, Greek, IPA), after lower-casing: "lеgal" with a Cyrillic е is "legal".
_CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ӏ": "l", "һ": "h", "ԛ": "q", "ԝ": "w",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "ω": "w", "ɡ": "g", "ı": "i", "ǀ": "l", "ɑ": "a",
})
# Single letters split by dots, dashes, stars or spaces: "l-e-g-a-l", "I.R.S.", "d o s e".
_SPACED_LETTERS = re.compile(r"(?<![\w])(?:[a-z][.\-_*\s]){2,}[a-z](?![a-z])")
_SEPARATORS = re.compile(r"[.\-_*\s]")
_TOKEN = re.compile(r"[a-z0-9@$]+")
_LEET = {"0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
OBFUSCATED_TRIGGER = "obfuscated_trigger"


def _deleet(token: str, one: str) -> str:
    if not (any(c.isalpha() for c in token) and any(not c.isalpha() for c in token)):
        return token
    return "".join(_LEET.get(c, one if c == "1" else c) for c in token)


def matching_variants(text: str) -> list[str]:
    return list(_matching_variants(text))


@memo_by_text
def _matching_variants(text: str) -> tuple[str, ...]:
    """The lower-cased, normalised text plus de-obfuscated readings of it (homoglyphs, spaced letters, digits for
    letters). Matching triggers on every reading only ever adds risk signals; it never removes one."""
    folded = _SPACED_LETTERS.sub(lambda m: _SEPARATORS.sub("", m.group()), text.translate(_CONFUSABLES))
    variants = [text]
    for one in ("i", "l"):
        variant = _TOKEN.sub(lambda m, one=one: _deleet(m.group(), one), folded)
        if variant not in variants:
            variants.append(variant)
    return tuple(variants)


def detect_signals(message: str, policy: PolicyBundle) -> RouterSignals:
    text = normalize_text(message).lower()
    variants = matching_variants(text)
    explicit = None
    for mode, phrases in policy.router.explicit_modes.items():
        if any(phrase.lower() in text for phrase in phrases):
            explicit = mode
            break
    hits: dict[str, tuple[str, ...]] = {}
    obfuscated = False
    words = [_message_words(v) for v in variants]  # each reading's words once, for every domain's lexicon
    for domain, domain_policy in policy.domains.items():
        lexicon = _LexiconIndex.of(tuple(domain_policy.lexicon))
        found = [lexicon.terms_in(v, w) for v, w in zip(variants, words, strict=True)]
        if not any(found):
            continue
        matched = tuple(term for term in lexicon.terms if term in found[0])
        hidden = tuple(term for term in lexicon.terms if term not in matched and any(term in f for f in found[1:]))
        obfuscated = obfuscated or bool(hidden)
        if matched or hidden:
            hits[domain] = matched + hidden
    evasions = tuple(p for p in policy.router.evasion_patterns if any(_pattern(p).search(v) for v in variants))
    if obfuscated:  # a trigger word written to dodge the lexicon is itself an evasion signal
        evasions += (OBFUSCATED_TRIGGER,)
    retrieval = tuple(p for p in policy.router.retrieval_triggers if _pattern(p).search(text))
    return RouterSignals(explicit, hits, evasions, retrieval, realtime_keywords(text, policy))


@memo_by_text
def _message_words(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The distinct words of one reading of a message: as a set, and sorted (for ``word*`` prefixes)."""
    distinct = frozenset(_EVIDENCE_WORD.findall(text))
    return distinct, tuple(sorted(distinct))


@dataclass(frozen=True)
class _LexiconIndex:
    """A lexicon split by how its terms are matched, with the same matches as ``_term_regex``: a plain word is a
    whole word of the text, ``word*`` a word that starts with it (both looked up, not searched), and any other
    term (spaces, ``?``, punctuation) is searched for, after one search of them all says some may occur."""

    terms: tuple[str, ...]
    words: frozenset[str]  # lower-cased plain-word terms
    stems: tuple[str, ...]  # lower-cased ``word*`` stems
    searched: tuple[str, ...]
    any_searched: re.Pattern[str] | None

    @staticmethod
    @lru_cache(maxsize=256)
    def of(lexicon: tuple[str, ...]) -> _LexiconIndex:
        words, stems, searched = set(), [], []
        for term in lexicon:
            bare = term.lower()
            if bare.endswith("*") and _EVIDENCE_WORD.fullmatch(bare[:-1]):
                stems.append(bare[:-1])
            elif _EVIDENCE_WORD.fullmatch(bare):
                words.add(bare)
            else:
                searched.append(term)
        return _LexiconIndex(lexicon, frozenset(words), tuple(dict.fromkeys(stems)), tuple(searched),
                             _lexicon_regex(tuple(searched)))

    def terms_in(self, text: str, words: tuple[frozenset[str], tuple[str, ...]]) -> frozenset[str]:
        """The terms of this lexicon that occur in ``text`` (lower case), given its words (``_message_words``)."""
        distinct, ordered = words
        hit_words = self.words & distinct
        hit_stems = set()
        for stem in self.stems:
            at = bisect.bisect_left(ordered, stem)
            if at < len(ordered) and ordered[at].startswith(stem):
                hit_stems.add(stem)
        searched_hits = ()
        if self.any_searched is not None and self.any_searched.search(text):
            searched_hits = tuple(t for t in self.searched if _term_regex(t).search(text))
        if not (hit_words or hit_stems or searched_hits):
            return frozenset()
        found = {t for t in self.terms if (bare := t.lower()) in hit_words
                 or (bare.endswith("*") and bare[:-1] in hit_stems)}
        found.update(searched_hits)
        return frozenset(found)


def realtime_keywords(text: str, policy: PolicyBundle) -> tuple[str, ...]:
    """EBOM real-time query handling: the detection keywords (router.realtime_keywords) found in the message, as
    written, lower-cased, in order of first appearance."""
    found = [m.group(0).lower() for p in policy.router.realtime_keywords for m in _pattern(p).finditer(text)]
    return tuple(dict.fromkeys(found))


def risk_of(domains: list[str], policy: PolicyBundle) -> RigorLevel:
    levels = [policy.domains[d].risk_level for d in domains if d in policy.domains]
    return max(levels, key=lambda level: level.rank, default=RigorLevel.LOW)


def rigor_for(level: RigorLevel, domains: list[str]) -> RigorConfig:
    writing_only = domains == [WRITING_DOMAIN]
    return RigorConfig(
        level=level,
        strict_sentences=level.rank >= RigorLevel.MEDIUM.rank,
        require_citations=not writing_only,
        nli_required=level is RigorLevel.HIGH,
    )


def high_rigor_domains(domains: list[str], policy: PolicyBundle) -> list[str]:
    return [d for d in domains if d in policy.domains and policy.domains[d].risk_level is RigorLevel.HIGH]


def route(message: str, policy: PolicyBundle) -> ModeDecision:
    """Step 0/1: a ModeDecision with confidence and machine-readable reasons."""
    router = policy.router
    signals = detect_signals(message, policy)
    reasons: list[str] = []
    domains = sorted(signals.domain_hits)
    for domain in domains:
        reasons.extend(f"trigger:{domain}:{term}" for term in signals.domain_hits[domain])
    if signals.retrieval_hits and RETRIEVAL_DOMAIN in policy.domains and RETRIEVAL_DOMAIN not in domains:
        domains.append(RETRIEVAL_DOMAIN)
        reasons.append("trigger:requires_retrieval")
    reasons.extend(f"evasion:{pattern}" for pattern in signals.evasions)
    reasons.extend(f"realtime:{keyword}" for keyword in signals.realtime_hits)

    # Mixed intent is judged on every signal, before the writing exemption is dropped below.
    domain_modes = {policy.domains[d].mode for d in domains if policy.domains[d].mode}
    risky = [d for d in domains if d != WRITING_DOMAIN and policy.domains[d].risk_level is not RigorLevel.LOW]
    if WRITING_DOMAIN in domains and risky:
        domains.remove(WRITING_DOMAIN)
        reasons.append("override:writing_exemption_dropped_for_risk")

    level = risk_of(domains, policy)
    mixed = len(domain_modes) > 1 or (signals.explicit_mode is not None and bool(domain_modes - {signals.explicit_mode}))

    if signals.explicit_mode:
        mode = signals.explicit_mode
        confidence = 0.95
        reasons.append(f"explicit:{mode}")
    elif domains:
        mode = max(
            (policy.domains[d].mode or router.default_mode for d in domains),
            key=lambda m: (m == router.strict_mode, m),
        )
        hit_count = sum(len(terms) for terms in signals.domain_hits.values()) + len(signals.retrieval_hits)
        confidence = min(0.95, 0.65 + 0.1 * hit_count)
    else:
        mode = router.default_mode
        confidence = 0.5
        reasons.append("no_signal:default_mode")

    if high_rigor_domains(domains, policy) and mode != router.strict_mode:
        reasons.append(f"override:high_rigor_forces:{router.strict_mode}")
        mode = router.strict_mode
    if mixed:
        confidence -= 0.2
        reasons.append("mixed_intent")
    if signals.evasions:
        confidence -= 0.15
    return ModeDecision(
        modeLabel=mode,
        domainFlags=domains,
        rigorConfig=rigor_for(level, domains),
        clusterIds=[f"rigor:{level.value}"],
        checkpointNeeded=level is RigorLevel.HIGH and bool(signals.evasions),
        confidence=round(max(0.0, min(1.0, confidence)), 4),
        reasons=reasons,
        version=router.version,
        mixedIntent=mixed,
        selectorUsed=False,
        timeSensitiveQuery=bool(signals.realtime_hits),
        realtimeKeywords=list(signals.realtime_hits),
    )


_EVIDENCE_WORD = re.compile(r"\w+")


def _terms_in(lexicon: Sequence[str], words: Sequence[str], text: str) -> list[str]:
    """The lexicon terms that occur in ``text`` (the same matches as ``_term_regex``), in the lexicon's order.
    Evidence can be long (up to budgets.max_evidence_chars), so plain words and ``word*`` prefixes are looked up in
    its sorted word list ``words``; only terms with spaces or other wildcards are searched for."""
    found = _LexiconIndex.of(tuple(lexicon)).terms_in(text, (frozenset(words), tuple(words)))
    return [term for term in lexicon if term in found]


@memo_by_text
def _evidence_words(text: str) -> tuple[str, tuple[str, ...]]:
    """The evidence text as matched (normalised, lower case) and its sorted distinct words: the same evidence comes
    with request after request, so it is read once."""
    joined = normalize_text(text).lower()
    return joined, tuple(sorted(set(_EVIDENCE_WORD.findall(joined))))


def follow_evidence(decision: ModeDecision, evidence_texts: Sequence[str], policy: PolicyBundle) -> ModeDecision:
    """The decision once the evidence is known (issue 16): routing reads the message, but what the answer rests on
    matters as much.

    - The writing exemption is for rewriting the user's own text. A request that comes with evidence ("summarize
      this" over a leaflet) is answered from that evidence, so its claims are checked: the writing flag is dropped.
    - High-stakes evidence raises rigor: the lexicons of ``router.evidence_domains`` are matched against the evidence
      text, and ``router.evidence_min_terms`` distinct terms of one add that domain to ``evidenceDomainFlags`` (its
      rigor, its thresholds' strictness, and the strict mode when it is high stakes). They stay apart from the
      question's ``domainFlags``: how many independent sources a claim needs follows the question
      (gates/sufficiency.required_sources), so a legal word inside a retention policy does not make "How long are
      database backups kept?" need two documents (bench/results/ask.md, before).
    Only ever adds risk; never lowers what the message decided.
    """
    texts = [t for t in evidence_texts if t and t.strip()]
    if not texts:
        return decision
    domains = list(decision.domainFlags)
    reasons = list(decision.reasons)
    if WRITING_DOMAIN in domains:
        domains.remove(WRITING_DOMAIN)
        reasons.append("override:writing_exemption_dropped_for_evidence")
    joined, words = _evidence_words(" ".join(texts))
    from_evidence = list(decision.evidenceDomainFlags)
    for domain in policy.router.evidence_domains:
        domain_policy = policy.domains.get(domain)
        if domain_policy is None or domain in domains or domain in from_evidence:
            continue
        terms = _terms_in(domain_policy.lexicon, words, joined)
        if len(terms) >= policy.router.evidence_min_terms:
            from_evidence.append(domain)
            reasons.extend(f"evidence:{domain}:{term}" for term in terms)
    if domains == list(decision.domainFlags) and from_evidence == list(decision.evidenceDomainFlags):
        return decision
    from_evidence.sort()
    every = domains + from_evidence
    level = max(risk_of(every, policy), decision.rigorConfig.level, key=lambda lv: lv.rank)
    mode = decision.modeLabel
    if high_rigor_domains(every, policy) and mode != policy.router.strict_mode:
        reasons.append(f"override:high_rigor_forces:{policy.router.strict_mode}")
        mode = policy.router.strict_mode
    rigor = rigor_for(level, domains)
    return decision.model_copy(update={
        "modeLabel": mode, "domainFlags": domains, "evidenceDomainFlags": from_evidence, "rigorConfig": rigor,
        "clusterIds": [f"rigor:{level.value}"], "reasons": reasons,
    })


def needs_selector(decision: ModeDecision, policy: PolicyBundle) -> bool:
    return decision.confidence < policy.router.selector_threshold or decision.mixedIntent
