"""The claim checks' names check: how often it flags supported and unsupported real claims, with and without the
lower-case vocabulary that tells an imperative opening verb from a name.

Not a test. The names check (gates/claim_checks.py `absent_names`) flags a claim that names what its evidence never
mentions. A claim's first word is capitalised whatever it is, so for that word it must guess whether it is a name.
A word that running text writes in lower case (`lowercase_words()`), followed by a word that follows verbs and not
subject names (a determiner, an object pronoun, "that", "sure", "to", "for" ...), opens an imperative: "Remember that
unused days expire ...", "Make sure to submit ...", "Establish a clear vision ...". Every other opening is judged as
before: "Target hosts us." still names "Target".

The vocabulary is counted here, with ``--build``, on the texts of ``../shared/nli-train`` (training data: MNLI, ANLI,
FEVER-derived sets, VitaminC and others; none of the sets this bench reports on), and written to
``gates/lowercase_words.txt``: the words written in lower case, where they do not open a sentence, at least
MIN_LOWER_USES times and in at least MIN_LOWER_SHARE of their uses.

Measured on the dev splits only (the test splits are for reporting):

- AttributionBench ``dev_sampled`` (802 claims from several attribution sets, half supported);
- WiCE ``dev`` (349 Wikipedia claims against their oracle evidence).

For each claim, every sentence is checked against the whole evidence; a claim counts as flagged when a sentence is.
The baseline is the same check with an empty vocabulary (the check as it was), in the same run. The claims that lose
their flag are listed with the word that had been read as a name, so a reader can judge whether it was one.

Reproduce: ``./run bench names_check [--build]``; writes ``bench/results/names_check.{json,md}`` (``--no-write`` to
only print). ``--build`` rewrites ``gates/lowercase_words.txt`` first.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from bench import EVAL_DIR as EVAL
from bench import NLI_TRAIN_DIR as NLI_TRAIN

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
VOCABULARY = ROOT / "gates" / "lowercase_words.txt"
TRAIN_FILES = ("nli.jsonl", "vitaminc.jsonl", "factver.jsonl")

# A word enters the vocabulary when running text writes it in lower case at least this often, and in at least this
# share of its uses that do not open a sentence. Chosen on the dev figures: from 2 to 10 uses and from half to nine
# tenths of them, the dev counts move by one or two claims; these keep the file small.
MIN_LOWER_USES = 5
MIN_LOWER_SHARE = 0.5

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
# what may come just before a word that opens a sentence, a quote, a list item or a heading: such a word is
# capitalised whatever it is, so it tells nothing about the word's case
_OPENS_BEFORE = frozenset(".!?:;\"\u201c\u2018('[-\u2014\u2013*#>|")


def count_cases(texts: Iterable[str]) -> tuple[Counter, Counter]:
    """How often each word (lower-cased) is written in lower case, and capitalised, where it does not open a
    sentence. All-capital words (acronyms, shouting) and mixed case ("iPhone", "DigitalOcean") count as neither."""
    lower: Counter = Counter()
    capitalised: Counter = Counter()
    for text in texts:
        for match in _TOKEN.finditer(text):
            before = text[:match.start()].rstrip()
            if not before or before[-1] in _OPENS_BEFORE:
                continue
            word = match.group(0)
            rest = word[1:]
            if word == word.lower():
                lower[word] += 1
            elif rest == rest.lower() and len(word) > 1:
                capitalised[word.lower()] += 1
    return lower, capitalised


def vocabulary(lower: Counter, capitalised: Counter) -> list[str]:
    """The words written in lower case often enough (MIN_LOWER_USES) and most of the time (MIN_LOWER_SHARE)."""
    from controlplane.contracts.text import STOPWORDS

    return sorted(word for word, uses in lower.items()
                  if uses >= MIN_LOWER_USES and uses / (uses + capitalised[word]) >= MIN_LOWER_SHARE
                  and len(word) > 2 and word not in STOPWORDS)


def training_texts(folder: Path) -> Iterator[str]:
    """Every distinct premise and hypothesis of the training files."""
    seen: set[str] = set()
    for name in TRAIN_FILES:
        with (folder / name).open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                for text in (row["premise"], row["hypothesis"]):
                    if text not in seen:
                        seen.add(text)
                        yield text


def build(folder: Path, out: Path) -> int:
    for name in TRAIN_FILES:
        if not (folder / name).is_file():
            raise SystemExit(f"names_check --build: {folder / name} is missing; set CONTROLPLANE_NLI_TRAIN_DATA to "
                             "the folder that holds the nli-train files")
    words = vocabulary(*count_cases(training_texts(folder)))
    header = (f"# Words written in lower case where they do not open a sentence (at least {MIN_LOWER_USES} times, "
              f"at least {MIN_LOWER_SHARE:.0%} of their uses), counted on nli-train by `./run bench names_check "
              "--build`.\n")
    out.write_text(header + "\n".join(words) + "\n", encoding="utf-8")
    print(f"wrote {len(words)} words to {out}")
    return len(words)


def dev_claims() -> list[dict[str, str]]:
    """AttributionBench dev_sampled and WiCE dev: set, evidence, claim, label ("supported"/"unsupported")."""
    rows = []
    with (EVAL / "attributionbench" / "attributionbench.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["split"] == "dev_sampled":
                rows.append({"set": "attributionbench dev", "evidence": " ".join(row["evidence"]),
                             "claim": row["claim"], "label": row["label_binary"]})
    with (EVAL / "wice" / "wice_claim.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["split"] == "dev":
                evidence = row["evidence"] if isinstance(row["evidence"], str) else " ".join(row["evidence"])
                rows.append({"set": "WiCE dev", "evidence": evidence, "claim": row["claim"],
                             "label": row["label_binary"]})
    return rows


def names_flagged(evidence: str, claim: str, common: frozenset[str] | None) -> list[str]:
    """The names the check finds in any sentence of ``claim`` (``common``: the vocabulary; None: the shipped one)."""
    from controlplane.contracts.text import sentence_texts
    from controlplane.gates.claim_checks import absent_names

    found: list[str] = []
    for sentence in sentence_texts(claim):
        found += absent_names(evidence, sentence, lowercase=common)
    return found


def measure(rows: list[dict[str, str]]) -> dict[str, Any]:
    table: dict[str, Counter] = {}
    unflagged: list[dict[str, Any]] = []
    for row in rows:
        before = names_flagged(row["evidence"], row["claim"], frozenset())
        after = names_flagged(row["evidence"], row["claim"], None)
        counts = table.setdefault(row["set"], Counter())
        counts[row["label"]] += 1
        counts[f"{row['label']}_flagged_before"] += bool(before)
        counts[f"{row['label']}_flagged_after"] += bool(after)
        if before and not after:
            unflagged.append({"set": row["set"], "label": row["label"], "read_as_name": before,
                              "claim": " ".join(row["claim"].split())[:160]})
    return {"sets": {name: dict(counts) for name, counts in table.items()}, "no_longer_flagged": unflagged}


def report(result: dict[str, Any], vocabulary_size: int) -> str:
    lines = ["# Names check: claims flagged as naming what the evidence lacks (dev splits)", "",
             f"Vocabulary: {vocabulary_size} words (`gates/lowercase_words.txt`, counted on nli-train), read for an "
             "opening imperative verb only. Baseline: the same check with no vocabulary, in the same run. A claim "
             "is flagged when one of its sentences is.",
             "", "| set | label | claims | flagged, no vocabulary | flagged, with it |", "|---|---|---:|---:|---:|"]
    for name, counts in result["sets"].items():
        for label in ("supported", "unsupported"):
            lines.append(f"| {name} | {label} | {counts.get(label, 0)} | {counts.get(f'{label}_flagged_before', 0)} "
                         f"| {counts.get(f'{label}_flagged_after', 0)} |")
    for label in ("supported", "unsupported"):
        items = [item for item in result["no_longer_flagged"] if item["label"] == label]
        lines += ["", f"{label.capitalize()} claims no longer flagged ({len(items)}), with the word that had been read "
                  "as a name" + (" (each is still judged by the other checks and the verifier)" if label ==
                                 "unsupported" else "") + ":", ""]
        lines += [f"- {item['set']}: {', '.join(item['read_as_name'])}: {item['claim']}" for item in items]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="recount gates/lowercase_words.txt on nli-train first")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    if args.build:
        build(NLI_TRAIN, VOCABULARY)
    from controlplane.gates.claim_checks import lowercase_words

    lowercase_words.cache_clear()
    result = measure(dev_claims())
    size = len(lowercase_words())
    text = report(result, size)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        summary = {"vocabulary_words": size, "min_lower_uses": MIN_LOWER_USES, "min_lower_share": MIN_LOWER_SHARE,
                   "splits": "attributionbench dev_sampled, wice dev", **result}
        (RESULTS / "names_check.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        (RESULTS / "names_check.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
