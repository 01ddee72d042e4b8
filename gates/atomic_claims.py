"""Atomic claims (Smart Notes §2.3.2, rules R1-R6): split a claim or sentence into propositions that each assert
exactly one verifiable fact, so an entailment check cannot pass a compound claim on the strength of one half.

Deterministic, English-only, pure Python. Rules, applied recursively until nothing splits (depth-capped):

- R1 multi-sentence: split at sentence boundaries (the same splitter as claim_anchors, so they agree).
- R2 multi-equation: more than one ``$...$`` / ``$$...$$`` block -> one claim per equation with its text.
- R3 coordinating conjunction: ``and`` / ``or`` / ``but`` / ``while`` / ``whereas`` joining clauses that each have
  a subject and a verb. A right-hand verb phrase without a subject ("X reduced pain and improved sleep") inherits
  the left clause's subject. Lists ("uses Python, Go, and Rust") and coordinated numbers ("100 requests per
  minute and 5,000 per day") split into one claim per item with the shared prefix.
- R4 semicolon: split at ``;``.
- R5 multi-step: enumerated steps ("1) ... 2) ...", "Step 1: ... Step 2: ...", "first ..., then ...").
- R6 definition + application: "X is defined as Y, so Z" -> the definition and the application.
- Non-restrictive relative clauses ("Turso, which is a SQLite host, stores our data") -> main clause + "Turso is a
  SQLite host".

Inline citation markers ("[E1]") are removed before splitting. Heuristics are conservative: when a split is not
clearly between two propositions the text stays whole (a too-big claim is checked strictly, never skipped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from controlplane.contracts.text import memo_by_text, normalize_space, split_sentences, strip_markers

MAX_DEPTH = 6
MAX_PARTS = 24

AUXILIARIES = frozenset(["is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does", "did", "will", "would", "shall", "should", "can", "could", "may", "might", "must", "isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "hadn't", "doesn't", "don't", "didn't", "won't", "wouldn't", "can't", "cannot", "couldn't", "shouldn't", "mustn't"])
COMMON_VERBS = frozenset(["uses", "use", "supports", "support", "runs", "run", "hosts", "host", "stores", "store", "requires", "require", "includes", "include", "contains", "contain", "provides", "provide", "allows", "allow", "means", "mean", "causes", "cause", "reduces", "reduce", "increases", "increase", "improves", "improve", "shows", "show", "states", "state", "says", "say", "makes", "make", "takes", "take", "gives", "give", "keeps", "keep", "rejects", "reject", "accepts", "accept", "forces", "force", "returns", "return", "sends", "send", "limits", "limit", "costs", "cost", "lasts", "last", "reaches", "reach", "covers", "cover", "applies", "apply", "owns", "own", "needs", "need", "depends", "depend", "belongs", "belong", "lives", "live", "works", "work", "becomes", "become", "remains", "remain", "seems", "seem", "appears", "appear", "grows", "grow", "falls", "fall", "rises", "rise", "leads", "lead", "results", "result", "reports", "report", "finds", "find", "suggests", "suggest", "defines", "define", "refers", "refer", "describes", "describe", "explains", "explain", "handles", "handle", "serves", "serve", "calls", "call", "writes", "write", "reads", "read", "creates", "create", "deletes", "delete", "blocks", "block", "prevents", "prevent", "protects", "protect", "encrypts", "encrypt", "expires", "expire", "rotates", "rotate", "triggers", "trigger", "starts", "start", "ends", "end", "holds", "hold", "meets", "meet", "pays", "pay", "owes", "owe", "receives", "receive", "treats", "treat", "affects", "affect", "enables", "enable", "disables", "disable", "replaces", "replace", "stays", "stay", "operates", "operate"])
PRONOUN_SUBJECTS = frozenset(["it", "they", "he", "she", "we", "i", "you", "this", "that", "these", "those", "there"])
# Irregular verbs by their base form: their past tense and participle where these differ from a regular past
IRREGULAR_PAST_FORMS = {
    "grow": ("grew", "grown"), "rise": ("rose", "risen"), "fall": ("fell", "fallen"), "go": ("went", "gone"),
    "come": ("came",), "make": ("made",), "take": ("took", "taken"), "give": ("gave", "given"), "become": ("became",),
    "begin": ("began", "begun"), "win": ("won",), "lose": ("lost",), "pay": ("paid",), "sell": ("sold",),
    "buy": ("bought",), "build": ("built",), "find": ("found",), "hold": ("held",), "keep": ("kept",),
    "lead": ("led",), "leave": ("left",), "meet": ("met",), "run": ("ran",), "see": ("saw", "seen"), "say": ("said",),
    "send": ("sent",), "set": ("set",), "spend": ("spent",), "stand": ("stood",), "tell": ("told",),
    "think": ("thought",), "write": ("wrote", "written"), "show": ("shown",), "bring": ("brought",),
    "catch": ("caught",), "choose": ("chose", "chosen"), "cut": ("cut",), "drive": ("drove", "driven"),
    "get": ("got", "gotten"), "hit": ("hit",), "hurt": ("hurt",), "know": ("knew", "known"), "let": ("let",),
    "put": ("put",), "quit": ("quit",), "read": ("read",), "shut": ("shut",), "split": ("split",),
    "spread": ("spread",), "strike": ("struck",), "swear": ("swore",), "throw": ("threw", "thrown"),
    "understand": ("understood",), "withdraw": ("withdrew",),
}
IRREGULAR_PAST = frozenset(form for forms in IRREGULAR_PAST_FORMS.values() for form in forms)
_VERB_SUFFIX = re.compile(r"^[a-z]{3,}(?:ed|es)$")
_NOT_VERBS_ED = frozenset({"need", "speed", "seed", "feed", "bed", "red", "shed", "hundred", "bred", "sled", "led"})
PREPOSITIONS = frozenset(["in", "on", "at", "by", "for", "with", "from", "to", "into", "onto", "over", "under", "about", "of", "as", "via", "per", "between", "among", "through", "within", "without", "during", "after", "before", "across", "along", "around", "against", "toward", "towards", "behind", "beyond", "near", "like", "including"])
DETERMINERS = frozenset(["the", "a", "an", "our", "their", "its", "his", "her", "my", "your", "this", "that", "these", "those", "each", "every", "some", "any", "no"])
SPLIT_CONJUNCTIONS = ("and", "but", "or", "while", "whereas", "yet")
_EQUATION = re.compile(r"\$\$[^$]+\$\$|\$[^$]+\$")
_STEP_MARKER = re.compile(r"(?:(?<=\s)|^)(?:\(?\d{1,2}[).:]|step\s+\d{1,2}\s*[:.)-]?|\(?[ivx]{1,4}\))\s+", re.IGNORECASE)
_SEQUENCE_WORDS = re.compile(r"(?:^|[,;]\s*|\s)(first|second|third|then|next|finally|lastly)\b,?\s+", re.IGNORECASE)
_DEFINITION = re.compile(r"\b(is defined as|are defined as|refers to|is called|are called|means|denotes|is the term for)\b",
                         re.IGNORECASE)
_APPLICATION = re.compile(r",?\s*\b(so|thus|therefore|hence|which means that|which means|so that|consequently)\b\s+",
                          re.IGNORECASE)
_RELATIVE = re.compile(r",\s*(which|who)\s+([^,]+?)(,|$)", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d[\d,.]*%?")
# a number as written, with its currency sign or percent ("$2,500", "1.5", "99.5%"); claim_checks reads changes by it
NUMBER_TEXT = r"[$€£]?\d[\d,.]*%?"
_NUMBER = re.compile(NUMBER_TEXT)


@dataclass(frozen=True)
class AtomicClaim:
    """One atomic proposition; ``rules`` says which splitting rules produced it (empty: the text was atomic)."""

    text: str
    rules: tuple[str, ...] = ()


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def is_verb(word: str) -> bool:
    w = word.lower()
    if w in AUXILIARIES or w in COMMON_VERBS or w in IRREGULAR_PAST:
        return True
    return bool(_VERB_SUFFIX.match(w)) and w not in _NOT_VERBS_ED and not w.endswith("ness")


def _by_its_ending_only(word: str) -> bool:
    w = word.lower()
    return w not in AUXILIARIES and w not in COMMON_VERBS and w not in IRREGULAR_PAST


def has_clause(text: str) -> bool:
    """A subject and a finite verb: some word before the first verb, and a verb. A word after a number is its unit
    ("5 minutes", "3 times"), whatever its ending, and one after a preposition and a determiner its noun, whatever
    its ending ("oil on it in the machines")."""
    found = list(re.finditer(_WORD, text))
    ws = [match.group() for match in found]
    for index, word in enumerate(ws):
        if is_verb(word) and not (index and _NUMBER.fullmatch(ws[index - 1])) and \
                not (index > 1 and ws[index - 1].lower() in DETERMINERS and ws[index - 2].lower() in PREPOSITIONS
                     and _by_its_ending_only(word)) and \
                not _head_of_an_opening_phrase(ws, index, text[:found[index].start()]):
            return index >= 1 and ws[0].lower() not in AUXILIARIES
    return False


def _head_of_an_opening_phrase(ws: list[str], index: int, before: str) -> bool:
    """Whether ``ws[index]``, a verb by its ending only, is the noun of the phrase the words open with, a preposition
    and at most a determiner and two words before it ("at the council offices", "in zones"): no subject stands
    between. "At noon the shop closes" has one (a determiner after the first word of the phrase), and so has "In
    2013, White recorded" (a comma ends the phrase)."""
    if not _by_its_ending_only(ws[index]) or ws[0].lower() not in PREPOSITIONS or "," in before:
        return False
    between = [w.lower() for w in ws[1:index]]
    if between and between[0] in DETERMINERS:
        between = between[1:]
    return len(between) <= 2 and not any(w in DETERMINERS or w in PRONOUN_SUBJECTS or is_verb(w) for w in between)


def starts_with_verb(text: str) -> bool:
    ws = _words(text)
    return bool(ws) and is_verb(ws[0]) and ws[0].lower() not in ("is", "are", "was", "were") or (
        len(ws) > 1 and ws[0].lower() in ("also", "then", "now", "still", "often", "never", "not") and is_verb(ws[1])
    )


# Words after which a word that looks like a verb only by its ending ("-ed", "-es") is part of the noun phrase: a
# participle before its noun ("five unused days", "the cached pages") or a plural ("the changes were reverted")
_NOUN_PHRASE_OPENERS = DETERMINERS | frozenset({"most", "many", "few", "several", "all", "both", "one", "two", "three",
                                                "four", "five", "six", "seven", "eight", "nine", "ten"})


def subject_of(text: str) -> str | None:
    """The words before the first verb (the clause's subject), or None. A word that is a verb only by its ending is
    not one right after a determiner, a number or a quantifier, nor right after such a word ("At most five unused
    days can ...", "The cached pages are ..."), nor the first word where an auxiliary follows it ("Classes have ...",
    "Taxes are ...")."""
    ws = list(re.finditer(_WORD, text))
    in_noun_phrase = False
    for index, match in enumerate(ws):
        word = match.group().lower()
        by_ending_only = _by_its_ending_only(word)
        if is_verb(word) and by_ending_only and in_noun_phrase:
            continue
        if is_verb(word) and by_ending_only and index == 0 and len(ws) > 1 and ws[1].group().lower() in AUXILIARIES:
            continue  # a plural before its verb opens the sentence: "Classes have at most 12 students."
        if is_verb(word):
            if index == 0:
                return None
            return text[: match.start()].strip().rstrip(",")
        in_noun_phrase = word in _NOUN_PHRASE_OPENERS or bool(_NUMBER.fullmatch(word))
    return None


_LEADING_STEP = re.compile(r"^(?:step\s+\d{1,2}\s*[:.)-]?|\(?\d{1,2}[).:]|\(?[ivx]{1,4}\))\s+", re.IGNORECASE)
_TRAILING_CONJ = re.compile(r"\s+\b(?:and|or|but)$", re.IGNORECASE)


def _clean(text: str) -> str:
    text = re.sub(r"\s+([.,;:!?])", r"\1", normalize_space(text)).strip(" ,;:")
    text = _LEADING_STEP.sub("", text)
    text = _TRAILING_CONJ.sub("", text.rstrip(".")).strip() + ("." if text.endswith(".") else "")
    if text and text[-1] not in ".!?":
        text += "."
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    return text


def _core(text: str) -> str:
    return normalize_space(text).rstrip(" .!?")


# ----------------------------------------------------------------------------------------------------------------
# rules; each returns the parts (already stripped of the split token) or None when it does not apply
def _r1_sentences(text: str) -> list[str] | None:
    parts = [s.text for s in split_sentences(text)]
    return parts if len(parts) > 1 else None


def _r2_equations(text: str) -> list[str] | None:
    equations = list(_EQUATION.finditer(text))
    if len(equations) < 2:
        return None
    parts, start = [], 0
    for index, match in enumerate(equations):
        end = equations[index + 1].start() if index + 1 < len(equations) else len(text)
        parts.append(text[start:end] if index == 0 else text[match.start():end])
        start = end
    parts = [p for p in (_core(p) for p in parts) if p]
    return parts if len(parts) > 1 else None


def _r4_semicolons(text: str) -> list[str] | None:
    parts = [p for p in (_core(p) for p in text.split(";")) if p]
    if len(parts) < 2 or not all(has_clause(p) or _words(p) and len(_words(p)) >= 3 for p in parts):
        return None
    return parts


def _r5_steps(text: str) -> list[str] | None:
    markers = list(_STEP_MARKER.finditer(text))
    if len(markers) >= 2:
        parts = [text[m.end(): markers[i + 1].start() if i + 1 < len(markers) else len(text)] for i, m in enumerate(markers)]
        parts = [_core(p).rstrip(",;") for p in parts]
        parts = [p for p in parts if len(_words(p)) >= 2]
        if len(parts) >= 2:
            return parts
    seq = list(_SEQUENCE_WORDS.finditer(text))
    if len(seq) >= 2:
        head = _core(text[: seq[0].start()])
        parts = [text[m.end(): seq[i + 1].start() if i + 1 < len(seq) else len(text)] for i, m in enumerate(seq)]
        parts = [_core(p).rstrip(",;") for p in parts]
        if head and len(_words(head)) >= 2:
            parts = [head, *parts]
        parts = [p for p in parts if has_clause(p) or starts_with_verb(p)]
        if len(parts) >= 2:
            return parts
    return None


def _r6_definition(text: str) -> list[str] | None:
    definition = _DEFINITION.search(text)
    if not definition:
        return None
    application = None
    for match in _APPLICATION.finditer(text):
        if match.start() > definition.end():
            application = match
            break
    if application is None:
        return None
    left, right = _core(text[: application.start()]), _core(text[application.end():])
    if len(_words(left)) < 3 or not (has_clause(right) or starts_with_verb(right)):
        return None
    if starts_with_verb(right) and (subject := subject_of(left)):
        right = f"{subject} {right}"
    return [left, right]


def _relative(text: str) -> list[str] | None:
    match = _RELATIVE.search(text)
    if not match:
        return None
    body = match.group(2).strip()
    if not is_verb(_words(body)[0] if _words(body) else ""):
        return None
    before = text[: match.start()]
    words_before = list(re.finditer(_WORD, before))
    if not words_before:
        return None
    # antecedent: the noun phrase right before the comma, back to a verb / preposition, at most 5 words
    start = words_before[-1].start()
    for word in reversed(words_before[-5:]):
        lower = word.group().lower()
        if is_verb(word.group()) or lower in PREPOSITIONS:
            break
        start = word.start()
        if lower in DETERMINERS:
            break
    antecedent = before[start:].strip()
    main = _core(before + (" " + text[match.end():] if match.group(3) == "," else ""))
    relative = _core(f"{antecedent} {body}")
    if len(_words(main)) < 2 or not antecedent:
        return None
    return [main, relative]


# "one and a half times", "an hour and a half": a fraction of one quantity, not a second item or clause
_A_HALF = re.compile(r"a\s+half\b", re.IGNORECASE)
# "65 or older", "18 years and over", "3 or more": one bound of one number, not a second clause
_OR_MORE = re.compile(r"(?:older|younger|over|under|more|less|fewer|above|below|earlier|later|longer|shorter|"
                      r"higher|lower)\b", re.IGNORECASE)
# a condition before its main clause: what is joined inside it is not yet a statement
_OPENS_A_CONDITION = re.compile(r"(?:if|when|whenever|unless|once|as long as|provided that)\b", re.IGNORECASE)
_ENDS_IN_A_NUMBER = re.compile(r"\d(?:[\d,.]*\d)?%?(?:\s+[A-Za-z]+)?$")
# a single capital letter on each side of the conjunction ("zones A and B", "plans C or D"): names, not clauses
_LAST_LETTER = re.compile(r"(?<![\w.'-])[A-Z]$")
_FIRST_LETTER = re.compile(r"[A-Z](?![\w.'-])")


# "it" or "they" after "and" stands for the clause before's subject, but not for a person ("You can't take the test
# until you're 14, and it costs 20 euros")
_PERSONS = frozenset({"you", "i", "we", "he", "she", "they", "someone", "anyone", "everyone", "nobody"})
# what opens a subordinate clause: the words after it are no main clause of their own ("or 30 euros if you pay ...")
_SUBORDINATE = re.compile(r"\b(?:if|when|whenever|unless|once|because|since|although|though|while|until|before|after|"
                          r"as long as|provided)\b", re.IGNORECASE)


def _inside_a_list(left: str, joint: str) -> bool:
    """Whether a conjunction without a comma before it ends a list: the words after the left side's last comma are
    one or two words with no verb ("You mustn't walk, sit or stand ...", "16 euros, students and children ...")."""
    if joint.lstrip().startswith(",") or "," not in left:
        return False
    item = _words(left.rsplit(",", 1)[1])
    return 0 < len(item) <= 2 and not any(is_verb(word) for word in item)


def _main_part(right: str) -> str:
    """The right side up to its first comma or subordinate clause: what must hold a clause for it to be one ("liquid
    chalk, but loose chalk is banned ..." holds none before its comma; "30 euros if you pay ..." none before "if")."""
    part = right.split(",", 1)[0]
    opening = _SUBORDINATE.search(part)
    return part[:opening.start()] if opening and opening.start() > 0 else part


def _split_conjunction(text: str) -> list[str] | None:
    """R3 on clauses and shared-subject verb phrases, at the first conjunction that splits cleanly."""
    pattern = re.compile(r",?\s+\b(" + "|".join(SPLIT_CONJUNCTIONS) + r")\b\s+", re.IGNORECASE)
    for match in pattern.finditer(text):
        left, right = _core(text[: match.start()]), _core(text[match.end():])
        if not left or not right:
            continue
        if _A_HALF.match(text, match.end()) or _OR_MORE.match(text, match.end()) and _ENDS_IN_A_NUMBER.search(left):
            continue
        if _OPENS_A_CONDITION.match(left) and "," not in left and "," in right:
            continue  # "If you are 65 or older, or a student ..., a swim costs 4 euros": two conditions of one clause
        if _LAST_LETTER.search(left) and _FIRST_LETTER.match(right):
            continue  # "zones A and B are valid ...": two names of one subject, not two clauses
        between = re.search(r"\b(between|both|either|neither|from)\b", left, re.IGNORECASE)
        if between and not is_verb_after(left, between.end()):
            continue  # "between A and B", "both A and B": one relation, not two facts
        if has_clause(left) and has_clause(right) and not _inside_a_list(left, match.group()) and \
                has_clause(_main_part(right)):
            first = _words(right)[0].lower()
            if first in ("it", "they", "this") and (subject := subject_of(left)) and \
                    subject.lower() not in _PERSONS:
                right = subject + right[len(_words(right)[0]):]  # "X is safe but it causes nausea": it = X
            return [left, right]
        if has_clause(left) and starts_with_verb(right) and \
                (passive := _passive_predicate(left, right, match.group(1).lower())):
            return [left, passive]  # "... must be fixed or downgraded by ...": "... must be downgraded by ..."
        if has_clause(left) and starts_with_verb(right) and (subject := subject_of(left)):
            if _denied_with_the_left(left, subject, match.group(1).lower()):
                continue  # "You can't dye clothes ... or put anything with feathers in the machines"
            return [left, f"{subject} {right}"]
        if match.group(1).lower() in ("and", "but") and (modal := _SUBJECT_AND_MODAL.match(left)) and \
                "," not in left[modal.end():] and _VERB_BEFORE_ITS_OBJECT.match(right):
            return [left, f"{modal[0].strip()} {right}"]  # "You have to ... and close the lane's gate ..."
    return None


_NEGATION = re.compile(r"\b(?:not|never|cannot)\b|n't\b", re.IGNORECASE)
# A modal's denial, or a "never", reaches a verb phrase joined to its clause by "and" ("You mustn't run and dive ...",
# "He never wanted any attention and kept to himself": kept whole) where a "did not" does not ("The team did not
# score and lost the match." is two atoms)
_DENIED_MODAL = re.compile(r"\b(?:can|must|may|might|should|shall|will|would|could|need)\s+(?:not|never)\b|"
                           r"\b(?:cannot|can't|mustn't|shouldn't|shan't|won't|wouldn't|couldn't|mightn't|needn't)|"
                           r"\bnot\s+(?:allowed|permitted)\s+to\b|\bnever\b", re.IGNORECASE)


def _denied_with_the_left(left: str, subject: str, conjunction: str) -> bool:
    """Whether a verb phrase joined to ``left`` falls under its negation, which a split giving it only the subject
    would drop ("You can't dye clothes or put ..." is not "You put ..."): after "or" any negation in the left clause
    reaches it, after "and" a denied modal's (not after "but"). A "subject" that holds the negation ("You're not",
    before the verb "allowed") is none."""
    if _NEGATION.search(subject):
        return True
    if conjunction in ("or", "nor"):
        return bool(_NEGATION.search(left))
    return conjunction == "and" and bool(_DENIED_MODAL.search(left))


# Under a modal, a lower-case word right before a determiner after "and" is a second verb before its object ("You
# have to clip in ... and close the lane's gate"), whether or not COMMON_VERBS knows it: it takes the subject and the
# modal. Not a preposition or a stopword ("and in the box", "and then the"), an "-ing" or "-ed" form, a word before
# a time ("careful these days"), nor after a list ("can touch, see, and hear the ...").
_SUBJECT_AND_MODAL = re.compile(r"(?:[\w'-]+\s+){1,6}?(?:must|can|cannot|may|should|will|(?:have|has|need|needs)\s+to)"
                                r"(?:\s+not)?\s", re.IGNORECASE)
_VERB_BEFORE_ITS_OBJECT = re.compile(r"(?!(?:" + "|".join(sorted(PREPOSITIONS | {"then", "so", "also", "not", "only",
                                                                                 "even", "just", "still", "yet"}))
                                     + r")\b)[a-z]{3,}(?<!ing)(?<!ed)\s+(?:the|a|an|your|their|its|his|her|our|my|"
                                     r"this|these|those|every|each|any)\s(?!(?:days?|weeks?|months?|years?|times?|"
                                     r"mornings?|evenings?|nights?)\b)")


# The left clause's last auxiliaries before its participle ("must be fixed", "was founded", "has not been sold",
# "cannot be exchanged", "can't be cancelled"):
# a right-hand participle ("or downgraded by ...") shares them and the words before them, which are the subject,
# relative clause and all ("Any alert that paged twice ... must be"). Read so only where it cannot be an active past
# tense: after "or" ("fixed or downgraded"), before "by" (its agent), or alone; "... was released to acclaim and
# earned over $3 million" is active.
_AUXILIARY_CHAIN = re.compile(r"\b((?:must|can|cannot|may|should|will|shall|would|could|might|is|are|was|were|has|"
                              r"have|had|(?:ca|wo|must|should|could|would|is|are|was|were|has|have|had)n't)"
                              r"(?:\s+(?:not|be|been|being))*)\s+(?:[a-z]+ly\s+)?(?!been\b)[a-z]+(?:ed|en|wn|ne)\b",
                              re.IGNORECASE)
_PARTICIPLE = re.compile(r"^[a-z]+(?:ed|en|wn|ne)$")


def _passive_predicate(left: str, right: str, conjunction: str) -> str | None:
    """The right-hand participle with the left clause's subject and auxiliaries, when it reads as a passive."""
    right_words = [w.lower() for w in _words(right)]
    first = right_words[0]
    if not (_PARTICIPLE.match(first) or first in IRREGULAR_PAST) or first in AUXILIARIES:
        return None
    if not (conjunction == "or" or len(right_words) == 1 or right_words[1] == "by"):
        return None
    chains = list(_AUXILIARY_CHAIN.finditer(left))
    if not chains:
        return None
    chain = chains[-1]
    if conjunction != "or" and re.search(r"\bnot\b|cannot|n't", chain.group(1), re.IGNORECASE):
        return None  # "was not produced by X and directed by Y": whether the "not" carries over is not known
    subject = left[:chain.start()].strip().rstrip(",")
    return f"{subject} {chain.group(1)} {right}" if subject else None


def is_verb_after(text: str, offset: int) -> bool:
    return any(is_verb(w) for w in _words(text[offset:]))


_DENIAL_AFTER_THE_VERB = re.compile(r"\s+(?:not|never)\b(?!\s+only\b)", re.IGNORECASE)  # not "not only ..., but"


def _split_list(text: str) -> list[str] | None:
    """'<prefix> A, B, and C <suffix>' -> one claim per item (three or more items, or two numbers)."""
    match = re.search(r"((?:[^,;]+,\s+){1,8}[^,;]+?),?\s+\b(and|or)\b\s+([^,;]+)$", text)
    if not match or _A_HALF.match(match.group(3)):
        return None  # "..., plus time worked at one and a half times the rate": one number, not a last item
    items_text = match.group(1)
    first_comma = items_text.index(",")
    head_words = list(re.finditer(_WORD, items_text[:first_comma]))
    # the first item starts after the last verb / preposition before the first comma
    cut = None
    for word in reversed(head_words):
        if is_verb(word.group()) or word.group().lower() in PREPOSITIONS:
            cut = word.end()
            break
    if cut is None:
        return None
    if head_words[0].group().lower() in PREPOSITIONS and not any(is_verb(w.group()) for w in head_words) and \
            has_clause(match.group(3)):
        return None  # a lead before a comma ("At any time, one primary and one secondary are on call."): no list
    if shared_denial := _DENIAL_AFTER_THE_VERB.match(items_text, cut, first_comma):
        cut = shared_denial.end()  # "You must not feed ..., climb ... or enter ...": each item is denied
    prefix = items_text[:cut]
    items = [items_text[cut:first_comma]] + [p for p in items_text[first_comma + 1:].split(",")] + [match.group(3)]
    items = [i.strip() for i in items if i.strip()]
    if len(items) < 3 or any(len(_words(i)) > 6 for i in items[:-1]):
        return None
    last_words = _words(items[-1])
    if len(last_words) > 6 or has_clause(items[-1]):
        return None  # "... is 16 euros, students and children pay 11 euros": the last "item" is a clause of its own
    prefix = prefix.strip()
    return [f"{prefix} {item}" for item in items]


def _split_numbers(text: str) -> list[str] | None:
    """'<prefix> 100 requests per minute and 5,000 per day' -> one claim per number."""
    match = re.search(r",?\s+\band\b\s+", text)
    if not match:
        return None
    left, right = text[: match.start()], _core(text[match.end():])
    if not _NUMBER.match(right.lstrip("~ ")) and not re.match(r"(?:about|around|up to|at most|at least)\s+[$€£]?\d", right, re.IGNORECASE):
        return None
    # not the digits of a code ("SEV1", "H5N1"): they are part of a name
    numbers = [m for m in _NUMBER.finditer(left) if not (m.start() and left[m.start() - 1].isalpha())]
    if not numbers or has_clause(right):
        return None
    prefix = left[: numbers[-1].start()]
    if re.search(r"\bbetween\s*$", prefix, re.IGNORECASE):
        return None  # "between $2,500 and $4,999": one range, not two numbers
    prefix = re.sub(r"(?:about|around|up to|at most|at least)\s*$", "", prefix.rstrip(), flags=re.IGNORECASE).rstrip()
    if len(_words(prefix)) < 2:
        return None
    return [_core(left), _core(f"{prefix} {right}")]


RULES = (
    ("R1", _r1_sentences),
    ("R4", _r4_semicolons),
    ("R2", _r2_equations),
    ("R5", _r5_steps),
    ("R6", _r6_definition),
    ("R3-relative", _relative),
    ("R3", _split_conjunction),
    ("R3-list", _split_list),
    ("R3-numbers", _split_numbers),
)


@memo_by_text
def unsplit(text: str) -> str:
    """The text as one claim, cleaned the way its atomic claims are (markers and spaces before punctuation gone): what
    ``split_atomic`` gives when no rule splits it."""
    return _clean(strip_markers(text))


def split_atomic(text: str, *, strip_inline_markers: bool = True) -> list[AtomicClaim]:
    """Atomic claims of ``text`` in order. Always at least one claim for non-empty text."""
    return list(_split_atomic(text, strip_inline_markers))


@memo_by_text
def _split_atomic(text: str, strip_inline_markers: bool) -> tuple[AtomicClaim, ...]:
    base = strip_markers(text) if strip_inline_markers else normalize_space(text)
    if not base.strip():
        return []
    out: list[AtomicClaim] = []

    def visit(piece: str, rules: tuple[str, ...], depth: int) -> None:
        if len(out) >= MAX_PARTS:
            out.append(AtomicClaim(_clean(piece), rules + ("MAX_PARTS",)))
            return
        if depth < MAX_DEPTH:
            core = _core(piece)
            for name, rule in RULES:
                parts = rule(core)
                if parts and len(parts) > 1 and all(_core(p) for p in parts):
                    for part in parts:
                        visit(part, rules + (name,), depth + 1)
                    return
        out.append(AtomicClaim(_clean(piece), rules))

    visit(base, (), 0)
    seen: set[str] = set()
    unique = []
    for claim in out[: MAX_PARTS + 1]:
        if claim.text.lower() not in seen:
            seen.add(claim.text.lower())
            unique.append(claim)
    return tuple(unique)


def atomic_texts(text: str) -> list[str]:
    return [claim.text for claim in split_atomic(text)]
