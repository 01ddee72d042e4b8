"""Does this evidence sentence answer the question? A small trained scorer, so that deciding "none answers" does not
rest on a 135M model (issue 15: SmolLM2 said "none" for 2 of 20 unanswerable questions).

Two logistic regressions over question-sentence features, numpy only:

* the sentence model: P(this sentence holds the answer), from MiniLM cosine similarity and its rank among the evidence
  sentences, content-word overlap with the sentence, its neighbours and all the evidence, whether the sentence holds
  an answer of the asked type that the question does not already say (a year for "when", a number for "how many", a
  name for "who"), the marks of SQuAD 2.0's unanswerable rewrites (a number, entity or long word of the question
  missing from the evidence, a question entity missing from the sentence, a negation or an antonym swapped in), and
  the shipped NLI verifier's three logits for (premise: the sentence, hypothesis: the question), which read the two
  together where word overlap cannot;
* the question model (optional; the shipped file does without it): P(the evidence answers at all), from how the
  best sentence stands out (its score, the runner-up's, the gap) and the best sentence's features, fitted on
  out-of-fold sentence scores (folds by article).

Weights, feature standardisation and the decision threshold are one small JSON file shipped in the package
(``answerability.json``). The MiniLM vectors are the ones the quote ranker already computed; the verifier scores one
(sentence, question) pair per evidence sentence, batched (tens of milliseconds per question in bf16).

Measured by cross-validation over the 17 train and dev articles (bench/results/squad2.md has the ablation):
0.655 answered-and-correct / 0.659 abstained with the (4-layer) verifier's logits, against 0.630 / 0.631 for the
lexical features alone and 0.614 / 0.620 for the first lexical model. On the 200 test questions: 61% / 68% (61% / 72%
with the 6-layer verifier; lexical alone: 61% / 67%); 63% / 68% since a line that opens with a label is offered when
the question names the label (controlplane/quote.py). Serving also scores each pronoun-led sentence together with
the one before it; the threshold balances the two rates out of fold on those pairs and the sentences (0.662 / 0.665
at 0.395; 0.663 / 0.660 at 0.39 with the evidence overlap floor, a rule for real corpora that SQuAD cannot teach,
see ``AnswerabilityScorer.evidence_overlap_floor``). What caps it: the best-scored sentence holds the gold answer
for 85% of the answerable questions (87% with the pairs), and a 19M-parameter NLI model is no reader: it does not always tell a swapped
entity that the passage also mentions.

Training is reproducible (fixed seed, fixed article split): ``./run bench squad2 --train-scorer`` on the SQuAD 2.0
file of the shared eval folder, articles split into train / dev / test; the threshold and the variant are chosen on
the train and dev articles by cross-validation, the test articles are never used here (bench/squad2.py reports on
them).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from controlplane.contracts.text import content_stems, stem

WEIGHTS_FILE = "answerability.json"
QUESTION_WORDS = ("what", "who", "when", "where", "which", "why", "how many", "how much", "how")
_NEGATION = re.compile(r"\b(not|never|no|n't|none|neither|nor|without)\b|n't\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b")
_MONTH_NAMES = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH = re.compile(rf"\b({_MONTH_NAMES.lower()}|"
                    r"century|centuries|decade|year|years|day|days)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|hundred|thousand|million|"
                     r"billion|dozen|half|twice|several)\b", re.IGNORECASE)
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z'-]+")
_BIGRAM_WORD = re.compile(r"[a-z0-9]+")

LEXICAL_FEATURES = (
    "cosine", "cosine_gap_to_best", "is_best", "cosine_margin_best_second", "sentence_overlap", "evidence_overlap",
    "missing_from_evidence", "capitalised_missing_from_evidence", "bigram_overlap", "question_negated",
    "answer_type_match", "sentence_words",
) + tuple(f"qword_{w.replace(' ', '_')}" for w in QUESTION_WORDS) + (
    # What SQuAD 2.0's unanswerable questions do (issue 15): they swap one term of an answerable question -- an
    # entity, a number, an antonym -- or add a negation, so some term of the question is missing from the passage
    # that would answer; and the sentence must hold an answer of the asked type that the question does not already say.
    "type_candidate", "numbers_missing_from_evidence", "capitalised_missing_from_sentence",
    "capitalised_missing_from_window", "window_overlap", "negation_mismatch", "antonym_swap",
    "long_words_missing_from_evidence", "any_missing_from_evidence", "longest_run",
)


def question_word(question: str) -> str | None:
    lowered = question.lower()
    best, best_at = None, len(lowered) + 1
    for word in QUESTION_WORDS:
        match = re.search(rf"\b{word}\b", lowered)
        if match and (match.start() < best_at or (match.start() == best_at and len(word) > len(best or ""))):
            best, best_at = word, match.start()
    return best


# Who answers "who" without a capitalised name: a role or a body ("the platform team", "the on-call primary", "the
# backend"). Runbooks and ADRs name roles, not people.
_ROLE = re.compile(r"\b(team|teams|owner|owners|engineer|engineers|primary|secondary|responder|commander|manager|"
                   r"managers|lead|administrator|administrators|admin|operator|operators|backend|server|staff|"
                   r"department|committee|board|council|government|company|members|officer|officers|director|"
                   r"maintainer|maintainers|reviewer|reviewers|approver|on-call)\b", re.IGNORECASE)


def _new_name(question: str, sentence: str) -> bool:
    """A capitalised name in the sentence (not its first word, not a month or a weekday) that the question does not
    already hold: what answers "who" and "where"."""
    asked = {w.lower() for w in _CAPITALISED.findall(question)}
    names = [w for w in _CAPITALISED.findall(sentence)[1:] if not _CALENDAR.fullmatch(w)]
    return any(w.lower() not in asked for w in names)


def _who_candidates(question: str, sentence: str) -> bool:
    """A name, or a role word, in the sentence that the question does not already hold."""
    if _new_name(question, sentence):
        return True
    q_lower = question.lower()
    return any(m.group().lower() not in q_lower for m in _ROLE.finditer(sentence))


def _answer_type_match(qword: str | None, question: str, sentence: str) -> float:
    if qword == "when" or (qword in ("what", "which") and re.search(r"\b(year|date|century|decade)\b", question, re.IGNORECASE)):
        return 1.0 if (_YEAR.search(sentence) or _MONTH.search(sentence)) else 0.0
    if qword in ("how many", "how much"):
        return 1.0 if _amounts(sentence) else 0.0
    if qword == "who":
        return 1.0 if _who_candidates(question, sentence) else 0.0
    return 0.5  # no expectation for this kind of question


_HOW_MEASURE = re.compile(r"\bhow (long|old|far|large|big|tall|high|deep|wide|fast|often|late|early)\b|"
                          r"\b(percent|percentage|proportion|number of|amount of)\b", re.IGNORECASE)
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# Antonyms and opposite directions that an unanswerable rewrite swaps in ("earliest" for "latest").
ANTONYMS = (("first", "last"), ("earliest", "latest"), ("before", "after"), ("most", "least"), ("largest", "smallest"),
            ("biggest", "smallest"), ("highest", "lowest"), ("longest", "shortest"), ("more", "less"),
            ("increase", "decrease"), ("increased", "decreased"), ("rise", "fall"), ("north", "south"),
            ("east", "west"), ("northern", "southern"), ("eastern", "western"), ("upper", "lower"),
            ("maximum", "minimum"), ("private", "public"), ("accept", "reject"), ("accepted", "rejected"),
            ("allow", "forbid"), ("success", "failure"), ("won", "lost"), ("win", "lose"), ("old", "new"),
            ("older", "newer"), ("oldest", "newest"), ("open", "closed"), ("begin", "end"), ("began", "ended"),
            ("start", "end"), ("inside", "outside"), ("above", "below"), ("major", "minor"), ("best", "worst"),
            ("strong", "weak"), ("rich", "poor"), ("high", "low"), ("early", "late"), ("positive", "negative"))
# Capitalised, but not a name: "Who founded it?" is not answered by "It ships on 14 March 2027."
_CALENDAR = re.compile(rf"({_MONTH_NAMES}|"
                       r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)")
_ANTONYM_OF = {a: b for pair in ANTONYMS for a, b in (pair, pair[::-1])}
# "How long before a connection times out?" asks how long until it happens, and the answer says so with "after"
# ("Connections time out after 30 seconds."): that "before" is the question's idiom, not a term an antonym could swap.
# Without this, the antonym feature alone held that answer at 0.10 against the 0.39 threshold. No question of the
# squad2 file is phrased this way, so no SQuAD figure moves.
_HOW_LONG_BEFORE = re.compile(r"\bhow\s+(?:long|soon|much\s+time|many\s+\w+)\s+before\b", re.IGNORECASE)


# A calendar date ("14 March 2027", "March 14", "in 1998"): a number inside one is a date, not an amount.
_DATE = re.compile(rf"\b(?:\d{{1,2}}\s+)?(?:{_MONTH_NAMES})(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:,?\s+\d{{4}})?\b|"
                   + _YEAR.pattern)


def _numbers(text: str) -> list[str]:
    return [m.group().lower() for m in _NUMBER.finditer(text)]


def _amounts(sentence: str) -> list[str]:
    """The numbers of a sentence that are not part of a date: what answers "how many" or "how much"."""
    return _numbers(_DATE.sub(" ", sentence))


def _type_candidate(qword: str | None, question: str, sentence: str) -> float:
    """1 when the sentence holds an answer of the asked type that the question does not already contain."""
    q_lower = question.lower()
    if qword == "when" or (qword in ("what", "which") and re.search(r"\b(year|date|century|decade)\b", q_lower)):
        found = [m.group() for m in _YEAR.finditer(sentence)] + [m.group().lower() for m in _MONTH.finditer(sentence)]
        return 1.0 if any(f.lower() not in q_lower for f in found) else 0.0
    if qword in ("how many", "how much") or _HOW_MEASURE.search(question):
        # "how long" / "how old" may be answered by a date, so there its numbers count
        found = _amounts(sentence) if qword in ("how many", "how much") else _numbers(sentence)
        return 1.0 if any(f not in q_lower for f in found) else 0.0
    if qword == "who":
        return 1.0 if _who_candidates(question, sentence) else 0.0
    if qword == "where":
        return 1.0 if _new_name(question, sentence) or _new_location_code(question, sentence) else 0.0
    return 0.5  # no expectation for this kind of question


# In technical documents "where" is answered by a path, a URL or a code name as often as by a place: "quarry reads
# `~/.config/quarry/config.toml`", "The primary region is `ams`". Only a one-token code span (a path, a host, a
# region, a file; a command such as `quarry sync --dry-run` has spaces and is no place) and a URL count, which prose
# (and every paragraph of the squad2 file) does not use, so SQuAD's features are unchanged.
_LOCATION_CODE = re.compile(r"`[^`\s]+`|\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)


def _new_location_code(question: str, sentence: str) -> bool:
    q_lower = question.lower()
    return any(m.group().strip("`").lower() not in q_lower for m in _LOCATION_CODE.finditer(sentence))


def _longest_run(question_words: Sequence[str], sentence_words: Sequence[str]) -> int:
    """The longest run of consecutive question words found, in order, in the sentence."""
    best = 0
    previous = [0] * (len(sentence_words) + 1)
    for qw in question_words:
        current = [0] * (len(sentence_words) + 1)
        for j, sw in enumerate(sentence_words, start=1):
            if qw == sw:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def _bigrams(text: str) -> set[tuple[str, str]]:
    words = _BIGRAM_WORD.findall(text.lower())
    return set(itertools.pairwise(words))


def lexical_features(question: str, sentences: Sequence[str], cosines: np.ndarray, evidence_text: str) -> np.ndarray:
    """One row of LEXICAL_FEATURES per sentence."""
    q_stems = set(content_stems(question))
    evidence_stems = set(content_stems(evidence_text))
    evidence_lower = evidence_text.lower()
    q_caps = {w.lower() for w in _CAPITALISED.findall(question)[1:]}
    q_bigrams = _bigrams(question)
    qword = question_word(question)
    negated = 1.0 if _NEGATION.search(question) else 0.0
    missing = len(q_stems - evidence_stems)
    caps_missing = sum(1 for w in q_caps if w not in evidence_lower)
    ordered = np.sort(cosines)[::-1]
    best = float(ordered[0]) if len(ordered) else 0.0
    margin = float(ordered[0] - ordered[1]) if len(ordered) > 1 else float(best)
    onehot = [1.0 if qword == w else 0.0 for w in QUESTION_WORDS]
    q_numbers = set(_DIGITS.findall(question))
    numbers_missing = 1.0 if any(n not in evidence_text for n in q_numbers) else 0.0
    q_words = _WORD.findall(question.lower())
    q_word_set = set(q_words)
    antonyms_asked = {w: _ANTONYM_OF[w] for w in q_word_set if w in _ANTONYM_OF and _ANTONYM_OF[w] not in q_word_set}
    if _HOW_LONG_BEFORE.search(question):
        antonyms_asked.pop("before", None)
    long_missing = sum(1 for w in q_word_set if len(w) >= 7 and stem(w) not in evidence_stems)
    stem_sets = [set(content_stems(sentence)) for sentence in sentences]
    word_lists = [_WORD.findall(sentence.lower()) for sentence in sentences]
    rows = []
    for index, (sentence, cosine) in enumerate(zip(sentences, cosines)):
        s_stems = stem_sets[index]
        s_words = set(word_lists[index])
        window = range(max(0, index - 1), min(len(sentences), index + 2))
        w_stems = set().union(*(stem_sets[i] for i in window))
        w_words = set().union(*(word_lists[i] for i in window))
        antonym = any(b in s_words and a not in s_words for a, b in antonyms_asked.items())
        rows.append([
            float(cosine),
            float(cosine) - best,
            1.0 if float(cosine) >= best else 0.0,
            margin,
            len(q_stems & s_stems) / max(1, len(q_stems)),
            len(q_stems & evidence_stems) / max(1, len(q_stems)),
            min(missing, 5) / 5,
            min(caps_missing, 3) / 3,
            len(q_bigrams & _bigrams(sentence)) / max(1, len(q_bigrams)),
            negated,
            _answer_type_match(qword, question, sentence),
            min(len(sentence.split()), 80) / 80,
            *onehot,
            _type_candidate(qword, question, sentence),
            numbers_missing,
            sum(1 for w in q_caps if w not in s_words) / max(1, len(q_caps)),
            sum(1 for w in q_caps if w not in w_words) / max(1, len(q_caps)),
            len(q_stems & w_stems) / max(1, len(q_stems)),
            1.0 if negated and not _NEGATION.search(sentence) else 0.0,
            1.0 if antonym else 0.0,
            min(long_missing, 3) / 3,
            1.0 if missing else 0.0,
            min(_longest_run(q_words, word_lists[index]), 6) / 6,
        ])
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(LEXICAL_FEATURES))


# Not lexical: the shipped NLI verifier's raw logits for (premise: the sentence, hypothesis: the question). The
# cross-encoder reads the two together, so it sees what word overlap cannot (which entity the sentence is about, a
# negation); columns after the lexical ones, computed only when the shipped sentence model uses them.
VERIFIER_FEATURES = ("verifier_entailment", "verifier_neutral", "verifier_contradiction")
SENTENCE_FEATURES = LEXICAL_FEATURES + VERIFIER_FEATURES

_EVIDENCE_OVERLAP = LEXICAL_FEATURES.index("evidence_overlap")
_MISSING_FROM_EVIDENCE = LEXICAL_FEATURES.index("missing_from_evidence")

QUESTION_FEATURES = ("best_logit", "second_logit", "best_second_gap", "log_total", "sentences") + tuple(
    f"best_{name}" for name in LEXICAL_FEATURES)


def _logit(p: np.ndarray | float) -> np.ndarray:
    clipped = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(clipped / (1 - clipped))


def question_features(sentence_probabilities: np.ndarray, sentence_features: np.ndarray) -> np.ndarray:
    """One row of QUESTION_FEATURES: how the best sentence stands out, and the best sentence's own features.
    Deciding "nothing here answers" is a property of the question and the whole evidence, not of one sentence."""
    order = np.argsort(-sentence_probabilities)
    best = float(sentence_probabilities[order[0]])
    second = float(sentence_probabilities[order[1]]) if len(order) > 1 else 0.0
    return np.concatenate([[_logit(best), _logit(second), _logit(best) - _logit(second),
                            np.log(float(sentence_probabilities.sum())), min(len(order), 40) / 10],
                           sentence_features[order[0], : len(LEXICAL_FEATURES)]])


@dataclass(frozen=True)
class LinearModel:
    """A standardised logistic regression over named feature columns."""

    weights: np.ndarray
    bias: float
    mean: np.ndarray
    std: np.ndarray
    features: tuple[str, ...]

    def __post_init__(self) -> None:
        if not (len(self.weights) == len(self.mean) == len(self.std) == len(self.features)):
            raise ValueError(f"{len(self.weights)} weights for {len(self.features)} features")

    @classmethod
    def fit(cls, x: np.ndarray, y: np.ndarray, features: Sequence[str], l2: float = 1.0) -> LinearModel:
        mean, std = x.mean(axis=0), x.std(axis=0) + 1e-6
        weights, bias = fit_logistic((x - mean) / std, y, l2=l2)
        return cls(weights, bias, mean, std, tuple(features))

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(((x - self.mean) / self.std) @ self.weights + self.bias)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LinearModel:
        return cls(np.asarray(data["weights"], dtype=np.float64), float(data["bias"]),
                   np.asarray(data["mean"], dtype=np.float64), np.asarray(data["std"], dtype=np.float64),
                   tuple(data["features"]))

    def as_dict(self) -> dict[str, Any]:
        return {"weights": [round(float(w), 6) for w in self.weights], "bias": round(self.bias, 6),
                "mean": [round(float(m), 6) for m in self.mean], "std": [round(float(s), 6) for s in self.std],
                "features": list(self.features)}


def _columns(available: Sequence[str], wanted: Sequence[str]) -> list[int]:
    unknown = [name for name in wanted if name not in available]
    if unknown:
        raise ValueError(f"unknown answerability features {unknown}")
    return [list(available).index(name) for name in wanted]


def below_overlap_floor(lexical: np.ndarray, floor: float | None) -> bool:
    """Whether the evidence holds too few of the question's content words to answer it (at most ``floor`` of them;
    None: no floor). ``lexical``: rows of LEXICAL_FEATURES first; the two columns read are per evidence text, the same
    in every row. A question with no content word at all ("What is it?") has nothing to hold: no floor then."""
    if floor is None or not len(lexical):
        return False
    overlap, missing = lexical[0, _EVIDENCE_OVERLAP], lexical[0, _MISSING_FROM_EVIDENCE]
    return bool(overlap > 0 or missing > 0) and bool(overlap <= floor + 1e-9)


@dataclass(frozen=True)
class AnswerabilityScorer:
    """Two shipped logistic regressions. The sentence model scores P(this sentence holds the answer) and picks the
    best sentence; the question model (optional) scores P(the evidence answers the question at all) from how the
    best sentence stands out. A sentence's answerability is the question's probability scaled by how close the
    sentence's own score is to the best one's (the best sentence gets exactly the question's probability), so the
    one threshold reads the same for both models and for the sentences after the best."""

    sentence_model: LinearModel
    threshold: float
    info: dict[str, Any]
    question_model: LinearModel | None = None
    # An evidence item that holds at most this share of the question's content words answers nothing, whatever the
    # models say (None: no floor). The sentence model learnt the opposite from SQuAD 2.0, whose unanswerable questions
    # were written from the paragraph's own words (evidence_overlap's weight is negative): on a real corpus a question
    # whose terms are missing from the passage is the plainest unanswerable one ("Which payment provider does Harbor
    # use?" was answered with "Applies to the public Harbor API `/api/v2`.", 1 of its 4 words in the item).
    evidence_overlap_floor: float | None = None

    def __post_init__(self) -> None:
        _columns(SENTENCE_FEATURES, self.sentence_model.features)
        if self.question_model is not None:
            _columns(QUESTION_FEATURES, self.question_model.features)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AnswerabilityScorer:
        question = data.get("question_model")
        floor = data.get("evidence_overlap_floor")
        return cls(LinearModel.from_dict(data["sentence_model"]), float(data["threshold"]), dict(data.get("info", {})),
                   None if question is None else LinearModel.from_dict(question),
                   None if floor is None else float(floor))

    def as_dict(self) -> dict[str, Any]:
        return {"sentence_model": self.sentence_model.as_dict(),
                "question_model": None if self.question_model is None else self.question_model.as_dict(),
                "threshold": round(self.threshold, 4),
                **({} if self.evidence_overlap_floor is None else
                   {"evidence_overlap_floor": self.evidence_overlap_floor}),
                "info": self.info}

    @property
    def uses_verifier(self) -> bool:
        return any(name in VERIFIER_FEATURES for name in self.sentence_model.features)

    def sentence_probabilities(self, features: np.ndarray) -> np.ndarray:
        """``features``: one row of SENTENCE_FEATURES per sentence (LEXICAL_FEATURES alone when the sentence model
        does not read the verifier)."""
        return self.sentence_model.probabilities(features[:, _columns(SENTENCE_FEATURES[: features.shape[1]],
                                                                      self.sentence_model.features)])

    def answerable_probability(self, sentence_probabilities: np.ndarray, lexical: np.ndarray) -> float:
        if self.question_model is None:
            return float(np.max(sentence_probabilities))
        row = question_features(sentence_probabilities, lexical)
        columns = _columns(QUESTION_FEATURES, self.question_model.features)
        return float(self.question_model.probabilities(row[None, columns])[0])

    def score_features(self, lexical: np.ndarray) -> np.ndarray:
        """P(answers) per sentence of one evidence text, from its rows of SENTENCE_FEATURES."""
        if self.below_overlap_floor(lexical):
            return np.zeros(len(lexical))
        sentence_p = self.sentence_probabilities(lexical)
        answerable = self.answerable_probability(sentence_p, lexical)
        return answerable * sentence_p / float(np.max(sentence_p))

    def below_overlap_floor(self, lexical: np.ndarray) -> bool:
        return below_overlap_floor(lexical, self.evidence_overlap_floor)

    def score(self, question: str, sentences: Sequence[str], q_vec: np.ndarray, s_vecs: np.ndarray,
              evidence_text: str, verifier_rows: np.ndarray | None = None) -> np.ndarray:
        """P(answers) per sentence, ``evidence_text`` being all the evidence. ``verifier_rows``: the sentences'
        VERIFIER_FEATURES when already computed (see score_groups); else the shipped verifier is run on them."""
        if not len(sentences):
            return np.zeros(0)
        features = lexical_features(question, sentences, s_vecs @ q_vec, evidence_text)
        if self.uses_verifier:
            if verifier_rows is None:
                verifier_rows = verifier_features(shipped_verifier(), question, sentences)
            features = np.hstack([features, verifier_rows])
        return self.score_features(features)

    def score_groups(self, question: str, groups: Sequence[tuple[Sequence[str], np.ndarray, str]],
                     q_vec: np.ndarray, verifier: Any | None = None) -> list[np.ndarray]:
        """``score`` for several groups of sentences of one question -- (sentences, their vectors, the evidence text
        they are scored against) -- each scored as if it were the only evidence, with one verifier call for the
        sentences of all groups (``verifier``: the shipped one unless given)."""
        rows: list[np.ndarray | None] = [None] * len(groups)
        if self.uses_verifier:
            rows = list(verifier_features_of_many(verifier or shipped_verifier(),
                                                  [(question, sentences) for sentences, _, _ in groups]))
        return [self.score(question, sentences, q_vec, s_vecs, evidence_text, verifier_rows)
                for (sentences, s_vecs, evidence_text), verifier_rows in zip(groups, rows)]


@lru_cache(maxsize=1)
def shipped_scorer() -> AnswerabilityScorer:
    """The scorer shipped in the package. A missing or broken file is an error, never a silent 'always answerable'."""
    try:
        text = resources.files("controlplane").joinpath(WEIGHTS_FILE).read_text(encoding="utf-8")
        return AnswerabilityScorer.from_dict(json.loads(text))
    except (FileNotFoundError, KeyError, ValueError) as exc:
        from controlplane.contracts.errors import ConfigurationError

        raise ConfigurationError(
            f"the answerability scorer {WEIGHTS_FILE} is missing or unreadable ({exc}); reinstall controlplane, or "
            "set the bundle's quote.answerability to 'model'"
        ) from exc


def verifier_features(verifier: Any, question: str, sentences: Sequence[str]) -> np.ndarray:
    """One row of VERIFIER_FEATURES per sentence: the verifier's raw logits for (sentence, question)."""
    return verifier_features_of_many(verifier, [(question, sentences)])[0]


def verifier_features_of_many(verifier: Any, questions: Sequence[tuple[str, Sequence[str]]]) -> list[np.ndarray]:
    """``verifier_features`` for many (question, its sentences) at once: one ``verifier.logits`` call for all their
    rows (the backend batches them by length), split back per question. The same values as one call per question up
    to the verifier's own numerical noise: on a CPU a row's logits move slightly with the batch it lands in (its
    padding and the batch's size change the kernels' blocking; measured on the shipped verifier: at most about 0.03
    of a logit in bf16 and 6e-6 in fp32)."""
    labels = verifier.label_index
    order = [labels.get(name.removeprefix("verifier_")) for name in VERIFIER_FEATURES]
    if None in order:
        from controlplane.contracts.errors import ConfigurationError

        raise ConfigurationError(f"the answerability scorer needs an NLI verifier with entailment, neutral and "
                                 f"contradiction labels; {getattr(verifier, 'name', 'this one')} has {sorted(labels)}")
    pairs = [(sentence, question) for question, sentences in questions for sentence in sentences]
    if pairs:
        logits = np.asarray(verifier.logits(pairs), dtype=np.float64).reshape(len(pairs), -1)[:, order]
    else:  # nothing to score: no call
        logits = np.zeros((0, len(order)))
    bounds = np.cumsum([0] + [len(sentences) for _, sentences in questions])
    return [logits[start:stop] for start, stop in itertools.pairwise(bounds)]


@lru_cache(maxsize=1)
def shipped_verifier() -> Any:
    """The shipped NLI verifier, whatever backend the gates use: the scorer's weights were fitted on its logits. Where
    the gates use the shipped verifier too (the default), this is their instance: load_shipped shares one per
    resolved set of options."""
    from controlplane.nli.shipped import VERIFIER_DIR, load_shipped

    return load_shipped(model_dir=str(VERIFIER_DIR))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iterations: int = 50) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method (deterministic; no extra dependency)."""
    n, d = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + reg * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    return w[:-1], float(w[-1])
