"""A claim's numbers, dates and pronouns, written the way its evidence writes them, for the checks and the verifier
to read.

The verifier reads text, not values. Over "Its budget is 2.4 million euros.", the claim "Its budget is 2,400,000
euros." scores 0.76 contradicted, and over "... ships on 14 March 2027." the claim "... ships on 2027-03-14." 0.73,
as a changed number would. So where a claim's number or date has exactly the value of one the evidence states, but
written another way, the gate reads the claim with the evidence's way of writing it. What the claim says about that
value is still the verifier's and the checks' to judge. A value the evidence does not state, in another unit or
currency, or written two ways the claim could stand for, is left as the claim wrote it (the number check then finds
it). So with a pronoun spelled two ways ("No one" and "Nobody"), which the verifier also reads as different words.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass

from controlplane.contracts.text import memo_by_text

from .claim_checks import (
    CURRENCY_CODE,
    CURRENCY_CODES,
    CURRENCY_SIGNS,
    ISO_DATE,
    MONTHS,
    Quantity,
    quantities,
    same_duration,
)

_MONTH = "|".join(MONTHS)
# A full date: 2027-03-14, 14 March 2027 (14th of March, 2027), March 14, 2027, 14/03/2027. A day and month without
# a year, or a month and year without a day, are not rewritten: their parts are numbers and names the checks compare
# as they are.
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ON = r"(?:(?P<weekday>" + "|".join(_WEEKDAYS) + r"),?\s+)?"  # "Sunday, 14 March 2027"
_DATES = (
    ISO_DATE,
    re.compile(_ON + r"\b(?P<d>[0-3]?\d)(?:st|nd|rd|th)?(?:\s+of)?\s+(?P<month>" + _MONTH + r"),?\s+"
               r"(?P<y>[12]\d{3})\b"),
    re.compile(_ON + r"\b(?P<month>" + _MONTH + r")\s+(?P<d>[0-3]?\d)(?:st|nd|rd|th)?,?\s+(?P<y>[12]\d{3})\b"),
)
# 14/03/2027 or 3/14/2027: day or month first, told apart only by a part above 12
_SLASHED = re.compile(r"\b(?P<a>[0-3]?\d)/(?P<b>[0-3]?\d)/(?P<y>[12]\d{3})\b")


_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class DateMention:
    """A full date as a text writes it; ``month`` 0 where the text leaves it unknown (04/05/2027)."""

    year: int
    month: int
    day: int
    start: int
    end: int
    text: str


@memo_by_text
def dates(text: str) -> tuple[DateMention, ...]:
    """The full dates ``text`` writes, in text order (a day above 31 is none)."""
    found = []
    for pattern in _DATES:
        for m in pattern.finditer(text):
            month = int(m.group("m")) if "m" in pattern.groupindex else MONTHS.index(m.group("month")) + 1
            year, day = int(m.group("y")), int(m.group("d"))
            if not 1 <= day <= 31:
                continue
            # a weekday is part of the date where the date falls on it; another one is left for the name check
            weekday = m.groupdict().get("weekday")
            start = m.start() if weekday is None or _falls_on(year, month, day, weekday) else \
                min(m.start("d"), m.start("month"))
            found.append(DateMention(year, month, day, start, m.end(), text[start:m.end()]))
    for m in _SLASHED.finditer(text):
        a, b = int(m.group("a")), int(m.group("b"))
        day, month = (a, b) if b <= 12 < a else (b, a) if a <= 12 < b else (a, 0) if a != b else (a, a)
        if 1 <= day <= 31:  # month 0: 04/05/2027, which equals no date (and its numbers are not rewritten one by one)
            found.append(DateMention(int(m.group("y")), month, day, m.start(), m.end(), m.group(0)))
    return tuple(sorted(found, key=lambda d: d.start))


def _falls_on(year: int, month: int, day: int, weekday: str) -> bool:
    try:
        return _WEEKDAYS[datetime.date(year, month, day).weekday()] == weekday
    except ValueError:  # 31 February
        return False


# One pronoun, spelled two or three ways. Over the on-call page's "Nobody is primary more than 1 week in 4.", the
# verifier read "No one is primary ..." as contradicted (0.70; "Nobody ..." 0.58 entailed).
_SPELLINGS = (("no one", "no-one", "nobody"), ("everyone", "everybody"), ("someone", "somebody"),
              ("anyone", "anybody"))
_SPELLED = {spelling: group for group in _SPELLINGS for spelling in group}
_PRONOUN = re.compile(r"\b(no[ -]one|nobody|every(?:one|body)|some(?:one|body)|any(?:one|body))\b(?:\s+(\w+))?",
                      re.IGNORECASE)
# "no one" is the pronoun before a verb, a relative or at the end of a clause; before a noun it is a determiner and a
# number ("no one rotation fits all"), and is left as written
_AFTER_THE_PRONOUN = frozenset({
    "is", "was", "has", "had", "can", "could", "will", "would", "shall", "should", "may", "might", "must", "does",
    "did", "who", "else", "but", "except", "ever", "really", "yet", "at", "in", "on", "from", "of",
})


def _spelled_in(text: str, spelling: str) -> bool:
    return re.search(r"\b" + re.escape(spelling).replace(r"\ ", r"\s+") + r"\b", text, re.IGNORECASE) is not None


def _pronouns_as_spelled(evidence: str, claim: str) -> str:
    """``claim`` with each pronoun of _SPELLINGS that the evidence spells only another way spelled that way."""
    edits = []
    for m in _PRONOUN.finditer(claim):
        said, following = m.group(1), (m.group(2) or "").lower()
        group = _SPELLED[re.sub(r"\s+", " ", said.lower())]
        if group[0] == "no one" and said.lower() != "nobody" and following and following not in _AFTER_THE_PRONOUN \
                and not (following.endswith("s") and not following.endswith("ss")):
            continue  # "no one rotation": no pronoun
        spelled = [spelling for spelling in group if _spelled_in(evidence, spelling)]
        if len(spelled) != 1 or spelled[0] == said.lower():
            continue
        written = spelled[0].capitalize() if said[0].isupper() else spelled[0]
        edits.append((m.start(1), m.end(1), written))
    for start, end, written in reversed(edits):
        claim = claim[:start] + written + claim[end:]
    return claim


@memo_by_text
def in_evidence_terms(evidence: str, claim: str) -> str:
    """``claim`` with each full date and each number whose value ``evidence`` states, and each pronoun the evidence
    spells, written another way, written as the evidence writes it (the claim itself when nothing is to change)."""
    if _PRONOUN.search(claim):
        claim = _pronouns_as_spelled(evidence, claim)
    if not _may_be_written_otherwise(evidence, claim):
        return claim
    edits: list[tuple[int, int, str]] = []
    claim_dates = dates(claim)
    in_a_date = bytearray(len(claim))  # the claim's characters inside a date: its numbers are the date's
    if claim_dates:
        ways_of: dict[tuple[int, int, int], set[str]] = {}
        for d in dates(evidence):
            if d.month:  # a date whose month is unknown equals no other
                ways_of.setdefault((d.year, d.month, d.day), set()).add(d.text)
        for mention in claim_dates:
            in_a_date[mention.start:mention.end] = b"\x01" * (mention.end - mention.start)
            ways = ways_of.get((mention.year, mention.month, mention.day), set()) if mention.month else set()
            if len(ways) == 1 and mention.text not in evidence:
                edits.append((mention.start, mention.end, next(iter(ways))))
    claimed = [q for q in quantities(claim) if not any(in_a_date[q.span[0]:q.span[1]])]
    if claimed:
        stated_as: dict[float, list[Quantity]] = {}
        for e in quantities(evidence):
            stated_as.setdefault(e.value, []).append(e)
        for q in claimed:
            if (rewritten := _as_stated(claim, q, stated_as.get(q.value, ()), evidence)) is not None:
                edits.append((q.core[0], q.core[1], rewritten))
            elif (length := _length_as_stated(claim, q, evidence)) is not None:
                edits.append((q.span[0], q.span[1], length))
    for start, end, text in sorted(edits, reverse=True):
        claim = claim[:start] + text + claim[end:]
    return claim


# A figure as a claim writes it: digits with their separators, a currency sign or code before and a short scale after
# ("€2.4m", "EUR 250", "2,400,000", "14/03/2027"); not the digit of a code or marker ("C0", "[E1]")
_FIGURE = re.compile(r"(?<!\w)(?:[$€£]|(?:" + CURRENCY_CODE + r")\s?)?\d(?:[\d,./-]*\d)?(?:\s?(?:k|m|bn|mln)\b)?",
                     re.IGNORECASE)
_MONTH_NAME = re.compile(r"\b(?:" + _MONTH + r")\b")


_TIME_FRACTION = re.compile(r"\b(?:half|quarter)\b", re.IGNORECASE)  # "half an hour", "a quarter of an hour"


def _may_be_written_otherwise(evidence: str, claim: str) -> bool:
    """Whether a figure of ``claim`` is not in ``evidence`` as written, or the claim names a month (a date in words,
    which the evidence may write in digits): the cheap test before quantities and dates are read (most claims copy
    their figures)."""
    return bool(_MONTH_NAME.search(claim)) or any(f.group(0) not in evidence for f in _FIGURE.finditer(claim)) or \
        bool(_TIME_FRACTION.search(claim))


def _length_as_stated(claim: str, q: Quantity, evidence: str) -> str | None:
    """A fraction of a unit of time ("half an hour", "a quarter of an hour") as the evidence writes that length in
    digits ("30 minutes"): the verifier read "every half hour" as contradicting "every 30 minutes" (0.58 against 0.20
    entailed). None for a whole unit, a length the evidence does not write, or one it writes two ways."""
    if q.kind != "time" or not 0 < q.value < 1 or _DIGIT.search(claim[q.span[0]:q.span[1]]):
        return None
    ways = {e.text for e in quantities(evidence) if _DIGIT.search(e.text) and same_duration(e, q, 1e-9)}
    return ways.pop() if len(ways) == 1 else None


def _signed(written: str, unit: str) -> bool:
    """Whether a number as written carries its unit's sign: "€250", "58%", or a currency's code, "EUR 250"."""
    return unit in written or any(written.startswith(code) for code, sign in CURRENCY_CODES.items() if sign == unit)


def _as_stated(claim: str, q: Quantity, stated: Sequence[Quantity], evidence: str) -> str | None:
    """How the evidence writes the value of ``q`` in digits (``stated``: the evidence's numbers of that value): its
    number alone, or with its currency where the claim's number carries one ("€2.4m" for "2.4 million euros"). None:
    written the same, not in digits on both sides, not stated, or stated two ways."""
    core = claim[q.core[0]:q.core[1]]
    if q.core[0] < 0 or core in evidence or not _DIGIT.search(core):
        return None
    ways = set()
    for e in stated:
        # a number with no unit of its own stands for any number of that value, as the number check reads it
        if e.value != q.value or q.unit and e.unit != q.unit or e.core[0] < 0:
            continue
        written = evidence[e.core[0]:e.core[1]]
        if not _DIGIT.search(written):
            continue  # "five" for "5": the verifier reads a number in words as its digits (0.75 both ways)
        if not q.unit and e.unit and _signed(written, e.unit):
            continue  # "1,500" over "1500%" or "EUR 1,500": a number of no unit takes no unit's sign
        if q.unit and _signed(core, q.unit) != _signed(written, q.unit):
            if q.unit not in CURRENCY_SIGNS or _signed(written, q.unit):
                continue  # "58%" for "58 percent": the verifier reads both alike (0.73), and the claim keeps its words
            written = e.text  # the claim's currency sign is a word after the evidence's number: keep the currency
        ways.add(written)
    return ways.pop() if len(ways) == 1 else None
