"""Document-level training rows built without any model: distractor documents keep the gold premise and its label,
conjoined claims are entailed only when both parts are supported, FactCG rows are split by document, WiCE dev is
never read, and the same seed gives the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controlplane.nli.doclevel import conjoin, conjoined_claims, distractor_documents
from controlplane.nli.train import NOT_ENTAILED_ID, TrainConfig, build_dataset, mixed_nli_loss

LABELS = ("entailment", "neutral", "contradiction")


def sentence_rows(n: int = 60) -> list[dict[str, str]]:
    return [{"premise": f"Town {i}: The town number {i} has a population of {1000 + i} people and a river.",
             "hypothesis": f"Town {i} has {1000 + i} inhabitants.", "label": LABELS[i % 3], "source": "fm2",
             "split": "dev"} for i in range(n)]


def test_distractor_documents_hide_the_gold_premise_and_keep_the_label():
    rows = sentence_rows()
    docs = distractor_documents(rows, 40, seed=1)
    assert len(docs) == 40
    by_claim = {r["hypothesis"]: r for r in rows}
    for doc in docs:
        gold = by_claim[doc["hypothesis"]]
        assert gold["premise"] in doc["premise"] and len(doc["premise"]) > len(gold["premise"])
        assert doc["label"] == gold["label"] and doc["source"] == "doc_distractor:fm2"


def test_conjoined_claims_are_entailed_only_when_both_parts_are_supported():
    rows = sentence_rows()
    by_claim = {r["hypothesis"].rstrip("."): r for r in rows}
    out = conjoined_claims(rows, 200, seed=3)
    assert {r["label"] for r in out} == {"entailment", "neutral", "contradiction"}
    for row in out:
        first, second = row["hypothesis"].rstrip(".").split(", and ")
        a, b = by_claim[first], by_claim[second]
        present = [x["premise"] in row["premise"] for x in (a, b)]
        if row["label"] == "entailment":
            assert all(present) and a["label"] == b["label"] == "entailment"
        elif row["label"] == "neutral":  # one part has no premise in the document: partially supported
            assert present.count(True) == 1
        else:
            assert "contradiction" in (a["label"], b["label"])


def test_conjoin_joins_two_claims_into_one_sentence():
    assert conjoin("Paris is in France .", "Berlin is in Germany.") == "Paris is in France, and Berlin is in Germany."


def write_data(folder: Path) -> None:
    rows = sentence_rows(90)
    for name in ("vitaminc.jsonl", "factver.jsonl", "nli.jsonl"):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    doclevel = folder / "doclevel"
    doclevel.mkdir()
    for name, label in (("factcg_cg2c_doc.jsonl", "entailment"), ("factcg_cg2c_musique.jsonl", "not_entailment")):
        (doclevel / name).write_text("".join(json.dumps({
            "premise": f"Document {g}. It has several sentences about topic {g}.", "hypothesis": f"Claim {g}-{k}.",
            "label": label, "group_id": f"g{g}"}) + "\n" for g in range(40) for k in range(2)))


def test_build_dataset_is_reproducible_splits_factcg_by_document_and_never_reads_wice(tmp_path):
    write_data(tmp_path)
    (tmp_path / "doclevel" / "wice_oracle_dev.jsonl").write_text("not json: must never be opened\n")
    cfg = TrainConfig(out=str(tmp_path / "run"), sources=("fm2",), data_dir=str(tmp_path), doc_distractor=30,
                      conjoined=30, factcg_repeat=2, synthetic_neutral=0)
    train, holdout, stats = build_dataset(cfg)
    again, _, _ = build_dataset(cfg)
    assert train == again
    assert stats["doc_distractor_rows"] == 30 and stats["conjoined_rows"] > 0
    train_groups = {r["group_id"] for r in train if "group_id" in r}
    holdout_groups = {r["group_id"] for r in holdout if "group_id" in r}
    assert train_groups and not train_groups & holdout_groups
    # the musique file has 2 not-entailed rows per document, each repeated factcg_repeat times
    assert sum(1 for r in train if r.get("label") == "not_entailment") == len(train_groups) * 2 * cfg.factcg_repeat


def test_not_entailed_rows_train_only_p_entailment():
    torch = pytest.importorskip("torch")
    logits = torch.tensor([[3.0, 0.0, 0.0], [-3.0, 1.0, 1.0]])
    confident_wrong = mixed_nli_loss(logits[:1], torch.tensor([NOT_ENTAILED_ID]), torch)
    confident_right = mixed_nli_loss(logits[1:], torch.tensor([NOT_ENTAILED_ID]), torch)
    assert confident_wrong > 2.0
    assert confident_right < 0.1
    # the neutral / contradiction split does not matter for a not-entailed row
    swapped = mixed_nli_loss(torch.tensor([[-3.0, 2.0, 0.0]]), torch.tensor([NOT_ENTAILED_ID]), torch)
    assert abs(float(swapped) - float(mixed_nli_loss(torch.tensor([[-3.0, 0.0, 2.0]]), torch.tensor([NOT_ENTAILED_ID]),
                                                    torch))) < 1e-6
