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
    lexicons = _DomainLexicons.of(tuple((domain, tuple(p.lexicon)) for domain, p in policy.domains.items()))
    # every domain's terms looked up at once in each reading; a domain is then only the terms of it that were found
    found = [lexicons.index.terms_in(v, _message_words(v)) for v in variants]
    touched = {domain for terms in found for term in terms for domain in lexicons.domains_of[term]}
    for domain, lexicon in lexicons.lexicons:
        if domain not in touched:
            continue
        exceptions = tuple(policy.domains[domain].lexicon_exceptions)
        readings = [_not_excepted(frozenset(term for term in lexicon if term in f), exceptions, variant)
                    for f, variant in zip(found, variants)]
        matched = tuple(term for term in lexicon if term in readings[0])
        hidden = tuple(term for term in lexicon if term not in matched and any(term in f for f in readings[1:]))
        obfuscated = obfuscated or bool(hidden)
        if matched or hidden:
            hits[domain] = matched + hidden
    evasions = _matching_patterns(policy.router.evasion_patterns, variants)
    if obfuscated:  # a trigger word written to dodge the lexicon is itself an evasion signal
        evasions += (OBFUSCATED_TRIGGER,)
    retrieval = _matching_patterns(policy.router.retrieval_triggers, (text,))
    return RouterSignals(explicit, hits, evasions, retrieval, realtime_keywords(text, policy))


def _matching_patterns(patterns: Sequence[str], texts: Sequence[str]) -> tuple[str, ...]:
    """The patterns (in their order) that match one of ``texts``. Most messages match none: one search of them all
    says so, instead of one search per pattern."""
    if _none_match(patterns, texts):
        return ()
    return tuple(p for p in patterns if any(_pattern(p).search(text) for text in texts))


def _none_match(patterns: Sequence[str], texts: Sequence[str]) -> bool:
    """True when there are no ``patterns``, or one search of them joined says that none matches any of ``texts``.
    False means "may match": search them one by one (also when they cannot be joined, see _joined_pattern)."""
    if not patterns:
        return True
    joined = _joined_pattern(tuple(patterns))
    return joined is not None and not any(joined.search(text) for text in texts)


# A backreference or a conditional counts groups, and the joined pattern numbers them differently: such a list is
# searched pattern by pattern. (An escaped backslash before a digit also lands here: slower, never wrong.)
_GROUP_NUMBERS = re.compile(r"\\[1-9]|\(\?\(")


@lru_cache(maxsize=256)
def _joined_pattern(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern that matches where any of ``patterns`` (as ``_pattern`` compiles them) matches, or None when they
    cannot be joined (see _GROUP_NUMBERS; a global inline flag such as ``(?i)`` is refused inside the join)."""
    if any(_GROUP_NUMBERS.search(p) for p in patterns):
        return None
    try:
        return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
    except re.error:
        return None


@dataclass(frozen=True)
class _DomainLexicons:
    """A policy's domain lexicons, with one index of all their terms (a term found is found for every domain that
    lists it: whether a term occurs depends on the term and the text only)."""

    lexicons: tuple[tuple[str, tuple[str, ...]], ...]  # (domain, its lexicon), in the policy's order
    index: _LexiconIndex
    domains_of: dict[str, tuple[str, ...]]  # term -> the domains that list it

    @staticmethod
    @lru_cache(maxsize=64)
    def of(lexicons: tuple[tuple[str, tuple[str, ...]], ...]) -> _DomainLexicons:
        domains_of: dict[str, list[str]] = {}
        for domain, lexicon in lexicons:
            for term in lexicon:
                listed = domains_of.setdefault(term, [])
                if domain not in listed:
                    listed.append(domain)
        return _DomainLexicons(lexicons, _LexiconIndex.of(tuple(domains_of)),
                               {term: tuple(domains) for term, domains in domains_of.items()})


def _distinct_words(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The distinct words of ``text``: as a set, and sorted (for ``word*`` prefixes); what _LexiconIndex.terms_in
    takes."""
    distinct = frozenset(_EVIDENCE_WORD.findall(text))
    return distinct, tuple(sorted(distinct))


@memo_by_text
def _message_words(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The distinct words of one reading of a message (see _distinct_words)."""
    return _distinct_words(text)


@dataclass(frozen=True)
class _LexiconIndex:
    """A lexicon arranged so that a text's terms are looked up, not searched for, with the same matches as
    ``_term_regex``: a plain word is a whole word of the text, ``word*`` a word that starts with it. Any other term
    (spaces, ``?``, punctuation) is searched for, but only when the text holds the word it starts with: "sql
    injection" needs the word "sql", "licen?e" a word that starts with "licen". Only a term that starts with no word
    character is searched for in every text."""

    terms: tuple[str, ...]
    # whole word -> (the plain-word terms it is, the searched terms that start with it)
    by_word: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
    # word start -> (the ``word*`` terms of that stem, the searched terms that start with it then a wildcard)
    by_prefix: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
    words: frozenset[str]  # the keys of by_word
    prefixes: tuple[str, ...]  # the keys of by_prefix, sorted
    prefix_lengths: tuple[int, ...]  # their distinct lengths, ascending
    searched_always: tuple[str, ...]

    @staticmethod
    @lru_cache(maxsize=256)
    def of(lexicon: tuple[str, ...]) -> _LexiconIndex:
        by_word: dict[str, tuple[dict[str, None], dict[str, None]]] = {}
        by_prefix: dict[str, tuple[dict[str, None], dict[str, None]]] = {}
        always: dict[str, None] = {}
        for term in lexicon:
            bare = term.lower()
            if bare.endswith("*") and _EVIDENCE_WORD.fullmatch(bare[:-1]):
                by_prefix.setdefault(bare[:-1], ({}, {}))[0][term] = None
            elif _EVIDENCE_WORD.fullmatch(bare):
                by_word.setdefault(bare, ({}, {}))[0][term] = None
            elif (first := _EVIDENCE_WORD.match(bare)) is None:
                always[term] = None
            elif bare[first.end()] in "?*":  # the wildcard goes on with word characters: the word starts so
                by_prefix.setdefault(first.group(), ({}, {}))[1][term] = None
            else:  # a literal non-word character (or a space) follows: the text holds exactly this word
                by_word.setdefault(first.group(), ({}, {}))[1][term] = None

        def frozen(index: dict[str, tuple[dict[str, None], dict[str, None]]]):
            return {key: (tuple(plain), tuple(searched)) for key, (plain, searched) in index.items()}

        return _LexiconIndex(lexicon, frozen(by_word), frozen(by_prefix), frozenset(by_word), tuple(sorted(by_prefix)),
                             tuple(sorted({len(prefix) for prefix in by_prefix})), tuple(always))

    def terms_in(self, text: str, words: tuple[frozenset[str], tuple[str, ...]]) -> frozenset[str]:
        """The terms of this lexicon that occur in ``text`` (lower case), given its words (``_message_words``)."""
        distinct, ordered = words
        found: set[str] = set()
        searched = list(self.searched_always)
        for word in self.words & distinct:
            plain, starting = self.by_word[word]
            found.update(plain)
            searched.extend(starting)
        for prefix in self._prefixes_in(ordered):
            plain, starting = self.by_prefix[prefix]
            found.update(plain)
            searched.extend(starting)
        found.update(term for term in searched if _term_regex(term).search(text))
        return frozenset(found)

    def _prefixes_in(self, ordered: tuple[str, ...]) -> list[str]:
        """The keys of by_prefix that some word of the text starts with (``ordered``: its distinct words, sorted)."""
        if not self.prefixes:
            return []
        if len(ordered) * len(self.prefix_lengths) <= 4 * len(self.prefixes):  # a short text: slice its words
            by_prefix, lengths, found = self.by_prefix, self.prefix_lengths, {}
            for word in ordered:
                size = len(word)
                for n in lengths:  # ascending
                    if n > size:
                        break
                    if (start := word[:n]) in by_prefix:
                        found[start] = None
            return list(found)
        hits = []
        for prefix in self.prefixes:  # a long one: look each prefix up among the sorted words
            at = bisect.bisect_left(ordered, prefix)
            if at < len(ordered) and ordered[at].startswith(prefix):
                hits.append(prefix)
        return hits


def realtime_keywords(text: str, policy: PolicyBundle) -> tuple[str, ...]:
    """EBOM real-time query handling: the detection keywords (router.realtime_keywords) found in the message, as
    written, lower-cased, in order of first appearance."""
    patterns = policy.router.realtime_keywords
    if _none_match(patterns, (text,)):
        return ()
    found = [m.group(0).lower() for p in patterns for m in _pattern(p).finditer(text)]
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


def _lexicon_terms_in(lexicon: Sequence[str], words: tuple[frozenset[str], tuple[str, ...]], text: str) -> list[str]:
    """The lexicon terms that occur in ``text`` (the same matches as ``_term_regex``), in the lexicon's order, given
    the text's words (_distinct_words). Evidence can be long (up to budgets.max_evidence_chars), so plain words and
    ``word*`` prefixes are looked up in its words; only terms with spaces or other wildcards are searched for."""
    found = _LexiconIndex.of(tuple(lexicon)).terms_in(text, words)
    return [term for term in lexicon if term in found]


def _not_excepted(terms: frozenset[str], exceptions: tuple[str, ...], text: str) -> frozenset[str]:
    """Of ``terms`` (found in ``text``), those still found once the words that match an exception are taken out:
    "secret*" found only in "secretariat" is not found. Runs only for a domain that lists exceptions and was hit."""
    if not terms or not exceptions:
        return terms
    masked = _exceptions_regex(exceptions).sub(" . ", text)  # not a space: "sql secretary injection" stays apart
    return _LexiconIndex.of(tuple(sorted(terms))).terms_in(masked, _distinct_words(masked))


@lru_cache(maxsize=64)
def _exceptions_regex(exceptions: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{_term_regex(term).pattern})" for term in exceptions))


@memo_by_text
def _evidence_words(text: str) -> tuple[str, tuple[frozenset[str], tuple[str, ...]]]:
    """The evidence text as matched (normalised, lower case) and its distinct words, as a set and sorted: the same
    evidence comes with request after request, so it is read once."""
    joined = normalize_text(text).lower()
    return joined, _distinct_words(joined)


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
        terms = _lexicon_terms_in(domain_policy.lexicon, words, joined)
        genuine = _not_excepted(frozenset(terms), tuple(domain_policy.lexicon_exceptions), joined)
        terms = [term for term in terms if term in genuine]
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
