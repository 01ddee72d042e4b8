"""Domain profiles (Smart Notes §2.3): a domain's epistemological norms, checked at the seed's three hooks.

A profile is bundle data (``PolicyBundle.domain_profiles``: physics, discrete_math, algorithms as in §2.3.1) and
applies when its name is one of the request's domain flags. Three gates, one per validation hook, placed in the
bundle around nli_entailment:

1. ``domain_profile_pre_verification`` (before verification): each claim's type must be allowed in the domain
   (PROFILE_CLAIM_TYPE_NOT_ALLOWED), and no claim may use a term outside the profile's scope (PROFILE_OUT_OF_SCOPE:
   the intro-physics profile rejects quantum mechanics claims);
2. ``domain_profile_evidence_matching``: the cited evidence must hold the evidence types expected for the claim's
   type (``evidence_type_expectations``: PROFILE_EVIDENCE_TYPE_MISSING), a formula for an equation claim
   (``require_equations``: MISSING_EQUATION), proof steps or a named standard result for a theorem
   (``require_proof_steps``: MISSING_PROOF_STEPS), pseudocode or code for an algorithmic claim
   (``require_pseudocode``: MISSING_PSEUDOCODE);
3. ``domain_profile_post_verification`` (domain quality gates on the claim itself): every number carries a unit
   (``require_units``: MISSING_UNITS; a coefficient written against a symbol, "2ma", an exponent, a comparison
   threshold "Re > 4000", a multiplier or a year is not a measurement), and every equation parses: brackets
   balance and both sides of each "=" hold something (``require_equations``: EQUATION_UNPARSEABLE).

Claim types are decided deterministically from the claim text (:func:`claim_types`); a claim may have several and
is allowed when any of them is. Only claims that state facts are checked (FACTUAL, CONSENSUS, REASONING). Each gate
reports ``details["claims"]`` (claim id -> reason codes; regen and degrade read it) and ``details["findings"]``.
"""

from __future__ import annotations

import re

from controlplane.contracts import ClaimStatus, CostClass, DomainProfile, GateResult, ReasonCode
from controlplane.contracts.text import strip_markers

from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage

CHECKED_STATUSES = (ClaimStatus.FACTUAL, ClaimStatus.CONSENSUS, ClaimStatus.REASONING)

_EQUATION = r"[A-Za-zα-ωΑ-Ω0-9)\]²³]\s*(?<![<>=!:])(?:=|≈|∝)(?!=)\s*\S"
CLAIM_TYPE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(pattern, re.IGNORECASE)) for
                                                                      name, pattern in (
    ("COMPLEXITY", r"(?<![A-Za-z])[OΘΩ]\s*\([^)]*\)|\b(?:time|space) complexity\b|"
                   r"\b(?:linear|logarithmic|quadratic|polynomial|exponential|constant) time\b"),
    ("PSEUDOCODE", r"\b(?:set|let|initiali[sz]e|compute)\s+\w+\s*(?:=|:=|←)|\bfor each\b|\breturns?\b|:=|←"),
    ("CORRECTNESS", r"\b(?:invariant|terminat\w*|precondition|postcondition|correct(?:ness|ly)?)\b"),
    # how an algorithm proceeds (its steps), not a mention of one: "Quicksort is a sorting algorithm" is a definition
    # and "binary search runs in logarithmic time" a complexity claim; neither needs pseudocode in the evidence
    ("ALGORITHMIC", r"\b(?:recurs\w*|divides|merges|sorts each|travers(?:es|ing)|partitions|pivots|iterates|"
                    r"swaps|scans|splits)\b"),
    ("THEOREM", r"\b(?:theorem|lemma|corollary|for (?:any|all|every)|there exists?)\b|∀|∃"),
    ("PROOF_STEP", r"\b(?:assume|suppose|hence|therefore|thus|it follows|by induction|for contradiction|"
                   r"base case|inductive step)\b"),
    ("EQUATION", _EQUATION),
    ("NUMERIC", r"(?<![\w.])\d+(?:[.,]\d+)?"),
    ("DEFINITIONAL", r"\b(?:is|are)\s+(?:defined\s+as|called|the|a|an)\b|\b(?:refers to|means|denotes)\b"),
    ("CLASSIFICATION", r"\b(?:can be|are either|types? of|kinds? of|classif\w*|categor\w*)\b"),
))

_UNIT_TOKENS = (
    "m", "s", "kg", "g", "mg", "km", "cm", "mm", "nm", "µm", "μm", "N", "kN", "J", "kJ", "MJ", "W", "kW", "MW", "Pa",
    "kPa", "MPa", "K", "Hz", "kHz", "MHz", "GHz", "C", "V", "A", "mA", "Ω", "ohm", "ohms", "mol", "cd", "L", "mL",
    "h", "min", "ms", "µs", "ns", "rad", "sr", "eV", "keV", "MeV", "T", "Wb", "F", "H", "lm", "lx", "Bq", "Gy", "Sv",
    "atm", "bar", "cal", "kcal", "mph", "ft", "lb", "lbs", "°", "°C", "°F", "%",
    "meter", "meters", "metre", "metres", "second", "seconds", "kilogram", "kilograms", "gram", "grams", "newton",
    "newtons", "joule", "joules", "watt", "watts", "pascal", "pascals", "kelvin", "hertz", "coulomb", "coulombs",
    "volt", "volts", "ampere", "amperes", "amp", "amps", "mole", "moles", "liter", "liters", "litre", "litres",
    "hour", "hours", "minute", "minutes", "degree", "degrees", "radian", "radians", "kilometer", "kilometers",
    "kilometre", "kilometres", "centimeter", "centimeters", "millimeter", "millimeters", "mile", "miles", "foot",
    "feet", "inch", "inches", "percent", "day", "days", "year", "years", "g's",
)
_UNIT = "|".join(sorted((re.escape(u) for u in _UNIT_TOKENS), key=len, reverse=True))
_NUMBER = re.compile(r"(?<![\w.^])(\d+(?:[.,]\d+)*)")
_UNIT_AFTER = re.compile(rf"\s*(?:{_UNIT})(?![A-Za-z])")
_MEASUREMENT = re.compile(rf"(?<![\w.])\d+(?:[.,]\d+)?\s*(?:{_UNIT})(?![A-Za-z])")
_MULTIPLIER_AFTER = re.compile(r"\s*(?:[×x*^/]|times\b|percent\b|%|-fold\b|fold\b)", re.IGNORECASE)
_OPERATOR_BEFORE = re.compile(r"(?:[<>≤≥^*/×]|\bx)\s*$")
_YEAR_BEFORE = re.compile(r"\b(?:in|since|by|until|from|year|of|circa|c\.)\s+$", re.IGNORECASE)

EVIDENCE_DETECTORS: dict[str, re.Pattern[str]] = {
    "measurement": _MEASUREMENT,
    "equation": re.compile(_EQUATION),
    "definition": re.compile(r"\b(?:is|are)\s+(?:defined\s+as|called|the|a|an)\b|\b(?:refers to|means|denotes)\b|"
                             r"\bdefinition\b", re.IGNORECASE),
    "proof": re.compile(r"\b(?:proof|proves?|proved|assume|suppose|hence|therefore|by induction|base case|"
                        r"inductive step|q\.e\.d)\b|∎", re.IGNORECASE),
    "theorem": re.compile(r"\b(?:theorem|lemma|corollary)\b|\b[A-Z][a-z]+(?:'s)?\s+(?:Law|Principle)\b",
                          re.IGNORECASE),
    "pseudocode": re.compile(r"```|(?:^|\n|;)\s*(?:for\b|while\b|if\b|return\b|def\b|function\b|procedure\b|set\b|"
                             r"let\b|\w+\s*(?:←|:=))", re.IGNORECASE),
    "complexity": CLAIM_TYPE_PATTERNS[0][1],
}


def claim_types(text: str) -> list[str]:
    """The claim types a claim's text shows, in CLAIM_TYPE_PATTERNS order; CONCEPTUAL when it shows none."""
    plain = strip_markers(text)
    found = [name for name, pattern in CLAIM_TYPE_PATTERNS if pattern.search(plain)]
    return found or ["CONCEPTUAL"]


def evidence_types(text: str) -> list[str]:
    """The evidence types an evidence text holds (EVIDENCE_DETECTORS)."""
    if len(EVIDENCE_DETECTORS["pseudocode"].findall(text)) < 2 and "```" not in text:
        kinds = [k for k, p in EVIDENCE_DETECTORS.items() if k != "pseudocode" and p.search(text)]
    else:
        kinds = [k for k, p in EVIDENCE_DETECTORS.items() if p.search(text)]
    return kinds


def numbers_without_units(text: str) -> list[str]:
    """Numbers in a claim that are measurements without a unit (see the module docstring for what is exempt)."""
    plain = strip_markers(text)
    missing = []
    for match in _NUMBER.finditer(plain):
        before, after = plain[:match.start()], plain[match.end():]
        if after[:1].isalpha() and not _UNIT_AFTER.match(after):
            continue  # a coefficient against a symbol ("2ma") or an ordinal ("3rd")
        if _UNIT_AFTER.match(after) or _MULTIPLIER_AFTER.match(after) or _OPERATOR_BEFORE.search(before):
            continue
        if len(match.group()) == 4 and _YEAR_BEFORE.search(before):
            continue
        missing.append(match.group())
    return missing


def unparseable_equations(text: str) -> list[str]:
    """Equations (clauses with "=") whose brackets do not balance or whose sides are empty."""
    plain = strip_markers(text)
    problems = []
    for clause in re.split(r"(?<=[.;,])\s+|\s+(?:and|where|so|then)\s+", plain):
        if not re.search(r"(?<![<>=!:])=(?!=)", clause):
            continue
        depth, balanced = 0, True
        for ch in clause:
            depth += ch in "([{"
            depth -= ch in ")]}"
            balanced = balanced and depth >= 0
        sides = re.split(r"(?<![<>=!:])=(?!=)", clause.strip().rstrip("."))
        empty = any(not re.search(r"[\wα-ωΑ-Ω½¼¾²³]", side) for side in sides)
        if depth != 0 or not balanced or empty:
            problems.append(clause.strip())
    return problems


def active_profiles(inp: GateInput) -> list[DomainProfile]:
    profiles = inp.policy.domain_profiles
    return [profiles[flag] for flag in inp.mode_decision.all_domain_flags() if flag in profiles]


def _term_pattern(term: str) -> re.Pattern[str]:
    escaped = re.escape(term.lower()).replace(r"\*", r"\w*").replace(r"\ ", r"\s+")
    return re.compile(rf"(?<![\w]){escaped}(?![\w])", re.IGNORECASE)


class _ProfileHook(BaseGate):
    """One validation hook: runs ``check`` on every fact-stating claim under the request's active profiles."""

    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION
    hook = ""

    def check(self, inp: GateInput, profiles: list[DomainProfile], claim, types: list[str]
              ) -> list[tuple[ReasonCode, str]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def evaluate(self, inp: GateInput) -> GateResult:
        profiles = active_profiles(inp)
        if not profiles:
            return self.passing(reason_codes=[ReasonCode.NOT_APPLICABLE],
                                details={"hook": self.hook, "why": "no domain profile for this request's domains"})
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        per_claim: dict[str, list[str]] = {}
        findings: list[dict[str, str]] = []
        types_of: dict[str, list[str]] = {}
        for claim in inp.envelope.meta.claim_map:
            if claim.status not in CHECKED_STATUSES:
                continue
            types = claim_types(claim.text)
            types_of[claim.claim_id] = types
            for code, detail in self.check(inp, profiles, claim, types):
                per_claim.setdefault(claim.claim_id, []).append(code.value)
                findings.append({"claim_id": claim.claim_id, "code": code.value, "detail": detail})
        details = {"hook": self.hook, "profiles": [p.name for p in profiles], "claim_types": types_of,
                   "findings": findings}
        if not per_claim:
            return self.passing(details=details)
        per_claim = {cid: list(dict.fromkeys(codes)) for cid, codes in per_claim.items()}
        codes = [ReasonCode(c) for codes in per_claim.values() for c in codes]
        return self.failing(codes, evidence_refs=[f"claim_map:{cid}" for cid in per_claim],
                            details={"claims": per_claim, **details})


class PreVerificationHook(_ProfileHook):
    """Hook 1: the claim's type is allowed in the domain; no out-of-scope term."""

    gate_id = "domain_profile_pre_verification"
    hook = "pre_verification"

    def check(self, inp, profiles, claim, types):
        out = []
        allowed = {t for p in profiles for t in p.allowed_claim_types}
        if allowed and not set(types) & allowed:
            names = ", ".join(p.name for p in profiles)
            out.append((ReasonCode.PROFILE_CLAIM_TYPE_NOT_ALLOWED,
                        f"claim type {'/'.join(types)} is not allowed in {names} (allowed: {', '.join(sorted(allowed))})"))
        plain = strip_markers(claim.text)
        for profile in profiles:
            hit = next((t for t in profile.out_of_scope_terms if _term_pattern(t).search(plain)), None)
            if hit:
                out.append((ReasonCode.PROFILE_OUT_OF_SCOPE, f"{hit!r} is outside the {profile.name} profile's scope"))
        return out


class EvidenceMatchingHook(_ProfileHook):
    """Hook 2: the cited evidence holds what the claim's type needs."""

    gate_id = "domain_profile_evidence_matching"
    hook = "evidence_matching"

    def check(self, inp, profiles, claim, types):
        items = [item for eid in claim.evidence_ids if (item := inp.evidence_pack.get(eid)) is not None]
        if not items or any(item.redacted for item in items):
            return []  # evidence_binding / nli_entailment judge missing or redacted evidence
        held = set(evidence_types("\n".join(item.text for item in items)))
        cited = ", ".join(item.id for item in items)
        out = []
        for profile in profiles:
            for claim_type in types:
                wanted = profile.evidence_type_expectations.get(claim_type)
                if wanted and not held & set(wanted):
                    out.append((ReasonCode.PROFILE_EVIDENCE_TYPE_MISSING,
                                f"{profile.name}: a {claim_type} claim needs evidence holding {' or '.join(wanted)}; "
                                f"{cited} holds {', '.join(sorted(held)) or 'none of the expected types'}"))
            if profile.require_equations and "EQUATION" in types and "equation" not in held:
                out.append((ReasonCode.MISSING_EQUATION, f"{profile.name}: the equation is in no cited evidence ({cited})"))
            if profile.require_proof_steps and "THEOREM" in types and not held & {"proof", "theorem"}:
                out.append((ReasonCode.MISSING_PROOF_STEPS,
                            f"{profile.name}: a theorem needs evidence with proof steps or a named standard result"))
            if profile.require_pseudocode and {"ALGORITHMIC", "PSEUDOCODE"} & set(types) and "pseudocode" not in held:
                out.append((ReasonCode.MISSING_PSEUDOCODE,
                            f"{profile.name}: an algorithmic claim needs evidence with pseudocode or code"))
        return out


class PostVerificationHook(_ProfileHook):
    """Hook 3: the domain's quality rules on the claim itself (units, parseable equations)."""

    gate_id = "domain_profile_post_verification"
    hook = "post_verification"

    def check(self, inp, profiles, claim, types):
        out = []
        if any(p.require_units for p in profiles):
            bare = numbers_without_units(claim.text)
            if bare:
                out.append((ReasonCode.MISSING_UNITS, f"number(s) {', '.join(bare)} without a unit"))
        if any(p.require_equations for p in profiles):
            broken = unparseable_equations(claim.text)
            if broken:
                out.append((ReasonCode.EQUATION_UNPARSEABLE, f"equation does not parse: {broken[0]!r}"))
        return out


@hookimpl
def controlplane_gates():
    return [PreVerificationHook(), EvidenceMatchingHook(), PostVerificationHook()]
