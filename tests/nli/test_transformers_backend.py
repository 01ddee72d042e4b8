"""Loading code of the transformers NLI backend, exercised on tiny random BERT models saved to a temp dir."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from controlplane.contracts.errors import ConfigurationError
from controlplane.contracts.text import sentence_texts
from controlplane.nli import load_nli_backend
from controlplane.nli.chunking import pack_windows
from controlplane.nli.labels import label_index_map
from controlplane.nli.registry import available_backends

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "in", "park", "a", "is", "not", "big", "small", "red", "blue", "sky", "sea", "river", "city", "town", "one", "two", "three", ".", ",", "!", "?"]


def build_tiny_model(path, id2label, bias=None):
    """A 2-layer, hidden-32 BERT classifier with a word-level vocab, saved like a real checkpoint."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    vocab = {tok: i for i, tok in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS])}
    tokenizer = BertTokenizerFast(vocab=vocab, do_lower_case=True, model_max_length=64)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64, num_labels=len(id2label),
                        id2label=id2label, label2id={v: k for k, v in id2label.items()})
    torch.manual_seed(0)
    model = BertForSequenceClassification(config)
    if bias is not None:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.copy_(torch.tensor(bias, dtype=torch.float))
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model",
                            {0: "entailment", 1: "neutral", 2: "contradiction"})


def test_loads_and_scores_a_batch(tiny_dir):
    backend = load_nli_backend(f"transformers:{tiny_dir}", batch_size=2, max_length=64)
    pairs = [("the cat sat on the mat .", "the cat sat ."), ("the sky is blue .", "the sea is red ."),
             ("a dog ran in the park .", "a dog ran .")]
    scores = backend.score(pairs)
    assert len(scores) == 3
    for s in scores:
        assert abs(s.entailment + s.neutral + s.contradiction - 1.0) < 1e-5
    # batching and order do not change a pair's score
    assert backend.score(pairs[::-1])[::-1] == scores
    meta = backend.metadata()
    assert meta["labels"] == {"entailment": 0, "neutral": 1, "contradiction": 2}
    assert meta["threads"] >= 1 and meta["max_length"] == 64


def test_loading_draws_no_progress_bar_and_leaves_the_setting_as_it_was(tiny_dir, capfd):
    """Seen in `./run ask`: transformers' "Loading weights: 100%|####|" bar printed between the progress lines and the
    answer. Loading the verifier turns it off for the while, and gives the caller's setting back."""
    from transformers.utils import logging as hf_logging

    hf_logging.enable_progress_bar()  # transformers' default; whatever an earlier test left
    load_nli_backend(f"transformers:{tiny_dir}", max_length=64)
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:  # a caller that had turned the bars off keeps them off
        load_nli_backend(f"transformers:{tiny_dir}", max_length=64)
        assert not hf_logging.is_progress_bar_enabled()
    finally:
        hf_logging.enable_progress_bar()


def test_label_order_is_read_from_config(tmp_path):
    # Permuted, upper-case labels; the head always outputs index 1 -> must read as ENTAILMENT, not neutral.
    path = build_tiny_model(tmp_path / "perm", {0: "CONTRADICTION", 1: "Entailment", 2: "NEUTRAL"}, bias=[0.0, 6.0, 0.0])
    backend = load_nli_backend(f"transformers:{path}", max_length=64)
    (score,) = backend.score([("the cat sat .", "the cat sat .")])
    assert score.entailment > 0.95 and score.neutral < 0.05 and score.contradiction < 0.05
    path2 = build_tiny_model(tmp_path / "perm2", {0: "neutral", 1: "contradiction", 2: "entailment"}, bias=[0.0, 6.0, 0.0])
    (score2,) = load_nli_backend(f"transformers:{path2}", max_length=64).score([("the cat sat .", "the cat sat .")])
    assert score2.contradiction > 0.95 and score2.entailment < 0.05


def test_unknown_labels_are_refused(tmp_path):
    path = build_tiny_model(tmp_path / "bad", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(ConfigurationError, match="id2label"):
        load_nli_backend(f"transformers:{path}")
    with pytest.raises(ConfigurationError):
        label_index_map({0: "neutral", 1: "contradiction"})  # no entailment output


def test_missing_or_corrupt_model_dir_names_the_setting(tmp_path, monkeypatch):
    with pytest.raises(ConfigurationError, match="--backend"):
        load_nli_backend(f"transformers:{tmp_path / 'nope'}")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(ConfigurationError, match="--backend"):
        load_nli_backend(f"transformers:{broken}")
    monkeypatch.setenv("CONTROLPLANE_NLI_MODEL", str(tmp_path / "missing"))
    with pytest.raises(ConfigurationError, match="CONTROLPLANE_NLI_MODEL"):
        load_nli_backend("shipped")
    with pytest.raises(ConfigurationError, match="unknown NLI backend"):
        load_nli_backend("no-such-backend")
    assert {"shipped", "transformers"} <= set(available_backends())


def test_long_evidence_is_chunked_and_scored_by_best_chunk(tiny_dir):
    backend = load_nli_backend(f"transformers:{tiny_dir}", max_length=32)
    premise = " ".join(f"the {w} is big ." for w in ["cat", "dog", "sky", "sea", "river", "city", "town", "mat"] * 3)
    claim = "the cat is big ."
    flat, spans = backend.chunk_pairs([(premise, claim), ("", claim)])
    assert spans[0].stop - spans[0].start > 2  # several windows
    assert spans[1].start == spans[1].stop  # empty evidence: no window
    for window, hyp in flat:
        n = len(backend.tokenizer(window, hyp)["input_ids"])
        assert n <= 32
    windows = backend.chunk_logits([(premise, claim)])[0]
    best = backend.score([(premise, claim)])[0]
    assert best.entailment == pytest.approx(max(backend.probabilities(w).entailment for w in windows))
    (empty,) = backend.score([("", claim)])
    assert empty.entailment == 0.0 and empty.neutral == 1.0


def test_pack_windows_covers_every_sentence_with_overlap():
    sents = sentence_texts("One fact here. Two facts there! Three? Four is long.\nFive.")
    assert sents == ["One fact here.", "Two facts there!", "Three?", "Four is long.", "Five."]
    lengths = [3, 3, 1, 3, 1]
    windows = pack_windows(sents, lengths, budget=7, slicer=lambda s, b: [s])
    assert windows[0] == "One fact here. Two facts there! Three?" or windows[0].startswith("One fact here.")
    joined = " ".join(windows)
    assert all(s in joined for s in sents)
    assert len(windows) >= 2
    # consecutive windows share a sentence
    assert any(w.split(". ")[-1] in windows[i + 1] for i, w in enumerate(windows[:-1]))


def test_an_accelerator_asked_for_where_there_is_none_is_a_configuration_error(tiny_dir, monkeypatch):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    monkeypatch.setenv("CONTROLPLANE_NLI_DEVICE", "cuda")
    with pytest.raises(ConfigurationError, match="CONTROLPLANE_NLI_DEVICE=cuda"):
        load_nli_backend(f"transformers:{tiny_dir}")
    monkeypatch.delenv("CONTROLPLANE_NLI_DEVICE")
    assert load_nli_backend(f"transformers:{tiny_dir}").device == "cpu"


def test_a_batch_holds_at_most_batch_tokens_padded_tokens(tiny_dir):
    """Long windows go fewer to a batch (512-token windows run faster 16 than 32 to a batch on two cores); the row
    cap still holds for short ones; the scores do not depend on the batching."""
    wide = load_nli_backend(f"transformers:{tiny_dir}", batch_size=32, max_length=64, batch_tokens=256)
    capped = load_nli_backend(f"transformers:{tiny_dir}", batch_size=3, max_length=64, batch_tokens=4096)
    assert wide.rows_per_batch == 4 and capped.rows_per_batch == 3
    sizes: list[int] = []
    forward = wide._forward
    wide._forward = lambda rows: sizes.append(len(rows)) or forward(rows)
    pairs = [("the cat sat on the mat .", "the cat sat ."), ("the sky is blue .", "the sea is red ."),
             ("a dog ran in the park .", "a dog ran ."), ("one two three .", "two ."), ("the city is big .", "a town .")]
    scores = wide.logits(pairs * 2)
    assert sizes == [4, 4, 2]
    other = capped.logits(pairs * 2)
    assert [x for row in scores for x in row] == pytest.approx([x for row in other for x in row], abs=1e-5)
    assert wide.metadata()["batch_tokens"] == 256
    with pytest.raises(ConfigurationError, match="batch_tokens"):
        load_nli_backend(f"transformers:{tiny_dir}", batch_tokens=0)


def test_chunking_many_pairs_at_once_gives_what_each_pair_gives_alone(tiny_dir):
    """chunk_pairs tokenizes every premise and hypothesis in two calls: the windows and spans are those of the pairs
    chunked one at a time (long premise, long hypothesis, empty and missing premise included)."""
    backend = load_nli_backend(f"transformers:{tiny_dir}", max_length=24, max_windows=None)
    long_premise = " ".join(["the cat sat on the mat .", "the dog ran in the park .", "the sky is blue ."] * 6)
    pairs = [("the cat sat .", "the cat sat ."), (long_premise, "a dog ran ."), ("", "the sky is red ."),
             (None, "one two ."), ("the sea is big .", " ".join(["the river is small ."] * 8)), ("   ", "a town .")]
    flat, spans = backend.chunk_pairs(pairs)
    alone_flat: list[tuple[str, str]] = []
    alone_spans = []
    for pair in pairs:
        rows, (span,) = backend.chunk_pairs([pair])
        alone_spans.append((len(alone_flat) + span.start, len(alone_flat) + span.stop))
        alone_flat += rows
    assert flat == alone_flat
    assert [(s.start, s.stop) for s in spans] == alone_spans
    assert spans[1].stop - spans[1].start > 1 and spans[2].start == spans[2].stop
