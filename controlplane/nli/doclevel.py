"""Document-level training examples: the FactCG files of ``nli-train/doclevel`` and ones built from sentence pairs.

Sentence-level NLI teaches a model to compare one sentence with one claim. Grounding checks need more: support can
sit anywhere in a long passage, unrelated context is never support, and a claim with two facts is supported only
when both are. Three constructions give that from the sentence-level rows, without any model (all seed-determined):

* **distractor documents**: the gold premise placed at a random position among 1-5 premises of *other* rows (other
  pages): the label is unchanged (unrelated sentences neither add nor remove support).
* **conjoined claims**: "A, and B" against a document holding A's premise, B's premise (or not) and distractors.
  Entailed only when both parts are entailed and both premises are present; contradicted when a present premise
  contradicts a part; otherwise neutral (this is WiCE's "partially supported", the commonest unsupported case).
* **cross-paired neutrals** are :func:`controlplane.nli.train.synthetic_neutrals` (same page, different sentence).

FactCG rows (MIT) say only entailment / not_entailment; they train P(entailment) with a binary loss (see train.py).
``wice_oracle_dev.jsonl`` is deliberately NOT read: WiCE dev stays for calibration and model choice, and WiCE
figures stay zero-shot like the published ones.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

from controlplane.contracts.errors import ConfigurationError

DOCLEVEL_FILES = {
    "factcg_cg2c_doc": ("factcg_cg2c_doc.jsonl", "MIT (derenlei/FactCG)"),
    "factcg_cg2c_musique": ("factcg_cg2c_musique.jsonl", "MIT (derenlei/FactCG)"),
}
NOT_WITHOUT_WICE = "wice_oracle_dev.jsonl"  # WiCE dev: kept out of training on purpose (see module doc)
BINARY_NEGATIVE = "not_entailment"
DISTRACTORS_MIN, DISTRACTORS_MAX = 1, 5


def jsonl_rows(path: Path, what: str, fix: str) -> Iterator[dict]:
    """The rows of a training JSONL file; a missing file is a ConfigurationError naming it and the fix."""
    if not path.is_file():
        raise ConfigurationError(f"{what} {path} is missing ({fix})")
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            yield json.loads(line)


def load_factcg(data_dir: str | Path) -> list[dict[str, str]]:
    """FactCG rows with ``label`` entailment / not_entailment and their ``group_id`` (rows of a group share a document)."""
    folder = Path(data_dir) / "doclevel"
    rows: list[dict[str, str]] = []
    for source, (name, _licence) in DOCLEVEL_FILES.items():
        path = folder / name
        for row in jsonl_rows(path, "document-level training file", "pass --data-dir, or --factcg-repeat 0"):
            if row["label"] not in ("entailment", BINARY_NEGATIVE):
                raise ConfigurationError(f"{path}: unexpected label {row['label']!r}")
            rows.append({"premise": row["premise"], "hypothesis": row["hypothesis"], "label": row["label"],
                         "source": source, "split": "train", "group_id": row.get("group_id", "")})
    return rows


def _sentence_ok(text: str) -> bool:
    return 30 <= len(text) <= 400


def distractor_documents(rows: list[dict[str, str]], n: int, seed: int) -> list[dict[str, str]]:
    """``n`` rows whose premise is the gold premise hidden among premises of other rows (label unchanged)."""
    if n <= 0 or len(rows) < DISTRACTORS_MAX + 2:
        return []
    rng = random.Random(seed + 11)
    pool = [r["premise"] for r in rows if _sentence_ok(r["premise"])]
    picks = rng.sample(range(len(rows)), min(n, len(rows)))
    out = []
    for i in picks:
        row = rows[i]
        k = rng.randint(DISTRACTORS_MIN, DISTRACTORS_MAX)
        others = [p for p in rng.sample(pool, k + 2) if p != row["premise"]][:k]
        others.insert(rng.randint(0, len(others)), row["premise"])
        out.append({"premise": " ".join(others), "hypothesis": row["hypothesis"], "label": row["label"],
                    "source": f"doc_distractor:{row['source']}", "split": "synthetic"})
    return out


def _strip_end(text: str) -> str:
    return text.rstrip().rstrip(" .").rstrip()


def conjoin(first: str, second: str) -> str:
    """'A.' + 'B.' -> 'A, and B.' (the second claim keeps its capitalisation: it often starts with a name)."""
    return f"{_strip_end(first)}, and {_strip_end(second)}."


def conjoined_claims(rows: list[dict[str, str]], n: int, seed: int) -> list[dict[str, str]]:
    """``n`` two-part claims against small documents; see the module doc for the labelling rule."""
    if n <= 0:
        return []
    rng = random.Random(seed + 23)
    entailed = [r for r in rows if r["label"] == "entailment" and _sentence_ok(r["premise"])]
    contradicted = [r for r in rows if r["label"] == "contradiction" and _sentence_ok(r["premise"])]
    pool = [r["premise"] for r in rows if _sentence_ok(r["premise"])]
    if len(entailed) < 2 or not contradicted:
        return []
    out = []
    # Mix: 40 % both supported, 35 % second part's premise missing (partial), 25 % a present premise contradicts.
    for _ in range(n):
        a = rng.choice(entailed)
        kind = rng.random()
        if kind < 0.40:
            b, b_present, label = rng.choice(entailed), True, "entailment"
        elif kind < 0.75:
            b, b_present, label = rng.choice(entailed), False, "neutral"
        else:
            b, b_present, label = rng.choice(contradicted), True, "contradiction"
        if b["premise"] == a["premise"]:
            continue
        doc = [a["premise"]] + ([b["premise"]] if b_present else [])
        doc += [p for p in rng.sample(pool, rng.randint(1, 5)) if p not in (a["premise"], b["premise"])]
        rng.shuffle(doc)
        first, second = (a, b) if rng.random() < 0.5 else (b, a)
        out.append({"premise": " ".join(doc), "hypothesis": conjoin(first["hypothesis"], second["hypothesis"]),
                    "label": label, "source": f"conjoined:{a['source']}", "split": "synthetic"})
    return out
