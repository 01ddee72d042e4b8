"""Answerability readers measured against the shipped scorer's features (issue 15: what decides that no sentence
answers): two built from the shipped NLI verifier, one from the embedded model, one from MiniLM's token vectors, and
two more lexical marks of the unanswerable rewrites. None ships; this keeps the experiments reproducible.

- ``probe``: the verifier's pooled representation of (sentence, question), the 384 values its classifier reads,
  beside the lexical features and its three logits in the sentence model (all of them, or their first principal
  components), out of fold by article over the train and dev articles, as ``./run bench squad2 --train-scorer``
  measures the shipped variants.
- ``reader``: the verifier fine-tuned, all layers, as a sentence reader ((sentence, question) -> the sentence holds
  the answer) on the train articles; measured on the dev articles, alone and stacked beside the shipped kind of
  scorer fitted on the train articles (leave-one-dev-article-out).
- ``likelihood``: the embedded model (SmolLM2-135M) reading the question after the best-scored sentence. How much
  more likely the question's tokens are after "Text: <sentence>" than after an empty text (pointwise mutual
  information per token: mean, minimum) is stacked beside the shipped kind of scorer's out-of-fold logit, on a fixed
  sample of the train and dev questions, out of fold by article. A question made unanswerable by a swapped term
  should read as less likely after the sentence than the original would.
- ``softmatch``: a soft version of the word-overlap features. Each question word (not a stopword) is matched to its
  closest token of the sentence by MiniLM's contextual token vectors (cosine), so a synonym or a paraphrase counts as
  found; the mean and the smallest of those best matches, and the share under SOFT_MATCH_FOUND, go into the sentence
  model beside the shipped features, out of fold by article.
- ``swaps``: two more marks of SQuAD 2.0's unanswerable rewrites, read from a sample of the shipped scorer's false
  answers (a negative prefix swapped in: "correct" / "incorrect", "synchronously" / "asynchronously"; a name of the
  question missing from a sentence that repeats its wording: "What did Toyota rebrand its Forte as?" over
  "Mitsubishi rebranded its Forte as ..."), beside the shipped features, out of fold by article. (The share of
  question words a sentence lacks is no third: it is 1 - ``sentence_overlap``, a shipped feature.)
- ``filled``: the question made a claim with a candidate answer from the sentence filled in, as an NLI verifier
  reads best ("When did the Normans conquer England?" with "1066" -> "the Normans conquer England in 1066."), and
  the shipped verifier's reading of (sentence, that claim) beside the shipped features, out of fold by article. A
  swapped term of an unanswerable question should then read as not entailed, where the (sentence, question) pair
  the scorer already reads is no claim at all. Candidates: the answers of the asked type the sentence holds (a date
  for "when", an amount for "how many", a name for "who" / "where"), else its runs of words the question does not
  use; up to FILLED_CANDIDATES a sentence, the best-entailed one read.

All are long CPU jobs: they run under ``nice``, write their work under ``--work`` and pick up where they stopped.
The test articles are never read. Results: bench/results/squad2_readers.md.

    ./run bench squad2_readers [probe] [--work DIR]
    ./run bench squad2_readers reader [--work DIR] [--epochs 2]
    ./run bench squad2_readers likelihood [--work DIR] [--sample 800]
    ./run bench squad2_readers softmatch [--work DIR]
    ./run bench squad2_readers swaps [--work DIR]
    ./run bench squad2_readers filled [--work DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import pickle
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.squad2 import (
    CV_FOLDS,
    EVIDENCE_OVERLAP_FLOOR,
    RESULTS,
    _sentences,
    best_threshold,
    load,
    question_table,
    split_articles,
)

QUESTIONS_PER_CHUNK = 64
READER_CANDIDATES = 3  # per training question: its most similar sentences, and the gold one
READER_BATCH, READER_LR, READER_MAX_LENGTH = 16, 3e-5, 160
PROBE_COMPONENTS = (0, 16, 64, 384)
PROBE_L2 = (1.0, 10.0, 100.0)
LIKELIHOOD_SAMPLE, LIKELIHOOD_SEED = 800, 0
LIKELIHOOD_PROMPT, LIKELIHOOD_EMPTY = "Text: {sentence}\nQuestion:", "Text:\nQuestion:"
SOFT_MATCH_FOUND = 0.6  # a question word whose best cosine is under this counts as not found
SOFT_MATCH_FEATURES = ("mean best match", "smallest best match", "share not found")
SWAP_FEATURES = ("negative prefix swapped", "name missing, wording repeated")
NEGATIVE_PREFIXES = ("non-", "non", "un", "in", "im", "il", "ir", "dis", "mis", "a")
REPEATED_WORDING = 3  # a run of this many question words, in order, in the sentence
FILLED_CANDIDATES = 3  # candidate answers read per sentence
FILLED_PAIRS_PER_CHUNK = 4096
FILLED_FEATURES = ("P(entailed)", "P(contradicted)", "the three logits", "has a candidate", "has one of the asked type")
OUT = RESULTS / "squad2_readers.md"


def _verifier() -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from controlplane.nli.shipped import VERIFIER_DIR

    torch.set_num_threads(2)
    tokenizer = AutoTokenizer.from_pretrained(str(VERIFIER_DIR), local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(str(VERIFIER_DIR), local_files_only=True).float()
    return tokenizer, model


def _table(work: Path, questions: list[Any]) -> list[dict[str, Any]]:
    """bench.squad2's lexical feature table of these questions, kept in ``work``."""
    path = work / "table.pkl"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    table = question_table(questions, None)
    path.write_bytes(pickle.dumps(table))
    return table


def _train_and_dev(work: Path) -> tuple[dict[str, list[Any]], list[dict[str, Any]], dict[str, np.ndarray],
                                         dict[str, np.ndarray]]:
    """The article split, and the train and dev questions' lexical table, pooled vectors and verifier logits (kept
    in ``work``)."""
    parts = split_articles(load())
    questions = parts["train"] + parts["dev"]
    table = _table(work, questions)
    pooled, logits = pooled_features(work, questions)
    return parts, table, pooled, logits


def pooled_features(work: Path, questions: list[Any]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Per question id: the verifier's pooler output and logits for each of its sentences, in chunks of
    QUESTIONS_PER_CHUNK saved as they are done."""
    import torch

    chunks = work / "chunks"
    chunks.mkdir(parents=True, exist_ok=True)
    tokenizer = model = None
    for start in range(0, len(questions), QUESTIONS_PER_CHUNK):
        path = chunks / f"{start:05d}.pkl"
        if path.is_file():
            continue
        if model is None:
            tokenizer, model = _verifier()
            model.eval()
        chunk = questions[start:start + QUESTIONS_PER_CHUNK]
        pairs, owners = [], []
        for i, q in enumerate(chunk):
            for sentence, _, _ in _sentences(q.context):
                pairs.append((sentence, q.question))
                owners.append(i)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        pooled, logits = np.zeros((len(pairs), 384), np.float32), np.zeros((len(pairs), 3), np.float32)
        for s in range(0, len(order), 32):
            idx = order[s:s + 32]
            enc = tokenizer([pairs[i][0] for i in idx], [pairs[i][1] for i in idx], truncation="only_first",
                            max_length=256, padding=True, return_tensors="pt")
            with torch.inference_mode():
                vectors = model.bert(**enc).pooler_output
                pooled[idx], logits[idx] = vectors.numpy(), model.classifier(vectors).numpy()
        path.write_bytes(pickle.dumps({"ids": [q.id for q in chunk], "owners": owners, "pooled": pooled,
                                       "logits": logits}))
        print(f"pooled: {start + len(chunk)} of {len(questions)} questions", flush=True)
    by_id_pooled, by_id_logits = {}, {}
    for path in sorted(chunks.glob("*.pkl")):
        data = pickle.loads(path.read_bytes())
        owners = np.asarray(data["owners"])
        for i, qid in enumerate(data["ids"]):
            by_id_pooled[qid], by_id_logits[qid] = data["pooled"][owners == i], data["logits"][owners == i]
    return by_id_pooled, by_id_logits


def _floored(row: dict[str, Any], p: np.ndarray) -> np.ndarray:
    """The shipped scorer's evidence overlap floor, so every figure here includes it as serving does."""
    from controlplane.answerability import below_overlap_floor

    return np.zeros(len(p)) if below_overlap_floor(row["x"], EVIDENCE_OVERLAP_FLOOR) else p


def _rates(table: list[dict[str, Any]], probs: list[np.ndarray]) -> str:
    threshold, outcome = best_threshold(table, probs)
    return f"{outcome['answered_correct']:.1%} | {outcome['abstained']:.1%} | {threshold:.3f}"


def _fit(rows: list[dict[str, Any]], features) -> Any:
    from controlplane.answerability import LinearModel

    x = np.vstack([features(r) for r in rows])
    return LinearModel.fit(x, np.concatenate([r["y"] for r in rows]), tuple(f"f{i}" for i in range(x.shape[1])))


def probe(args: argparse.Namespace) -> list[str]:
    from controlplane.answerability import LinearModel

    _, table, pooled, logits = _train_and_dev(args.work)
    titles = sorted({r["q"].title for r in table})
    lines = ["## Probe: the verifier's pooled representation in the sentence model", "",
             f"Out of fold, {CV_FOLDS} folds by article over the {len(titles)} train and dev articles "
             f"({len(table)} questions); each row's threshold balances its two rates. Components: the first principal "
             "components of the pooled vectors of the training folds (0: lexical features and the three logits only, "
             "the shipped kind of scorer; 384: all of them).", "",
             "| pooled components | L2 | answered and correct | abstained | threshold |", "| --- | --- | --- | --- | --- |"]
    for components in PROBE_COMPONENTS:
        for l2 in PROBE_L2 if components else (1.0,):
            probs: list[np.ndarray] = [np.zeros(0)] * len(table)
            for fold in range(CV_FOLDS):
                held = set(titles[fold::CV_FOLDS])
                train = [r for r in table if r["q"].title not in held]
                train_pooled = np.vstack([pooled[r["q"].id] for r in train])
                mean = train_pooled.mean(axis=0)
                basis = np.linalg.svd(train_pooled - mean, full_matrices=False)[2][:components] \
                    if 0 < components < 384 else None

                def features(r, mean=mean, basis=basis, components=components):
                    columns = [r["x"], logits[r["q"].id]]
                    if components:
                        columns.append(pooled[r["q"].id] if basis is None else (pooled[r["q"].id] - mean) @ basis.T)
                    return np.hstack(columns)

                x = np.vstack([features(r) for r in train])
                model = LinearModel.fit(x, np.concatenate([r["y"] for r in train]),
                                        tuple(f"f{i}" for i in range(x.shape[1])), l2=l2)
                for i, r in enumerate(table):
                    if r["q"].title in held:
                        probs[i] = _floored(r, model.probabilities(features(r)))
            lines.append(f"| {components} | {l2:g} | {_rates(table, probs)} |")
            print(lines[-1], flush=True)
    return lines


def train_reader(args: argparse.Namespace, table: list[dict[str, Any]], train_titles: set[str]) -> Path:
    """Fine-tune every layer of the verifier with a one-logit head (started from its entailment-minus-neutral row) on
    the train articles' (sentence, question) pairs. Checkpoints every 200 steps; resumes from the last."""
    import torch

    from controlplane.answerability import LEXICAL_FEATURES

    checkpoint = args.work / "reader" / "ckpt.pt"
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    tokenizer, model = _verifier()
    head = torch.nn.Linear(384, 1)
    with torch.no_grad():
        head.weight.copy_(model.classifier.weight[0:1] - model.classifier.weight[1:2])
        head.bias.copy_(model.classifier.bias[0:1] - model.classifier.bias[1:2])
    cosine = LEXICAL_FEATURES.index("cosine")
    pairs = []
    for r in table:
        if r["q"].title in train_titles:
            sentences = [s for s, _, _ in _sentences(r["q"].context)]
            keep = set(np.argsort(-r["x"][:, cosine])[:READER_CANDIDATES].tolist()) | set(np.flatnonzero(r["y"]).tolist())
            pairs += [(sentences[i], r["q"].question, float(r["y"][i])) for i in sorted(keep)]
    steps_per_epoch = math.ceil(len(pairs) / READER_BATCH)
    total = args.epochs * steps_per_epoch
    params = list(model.bert.parameters()) + list(head.parameters())
    optimizer = torch.optim.AdamW(params, lr=READER_LR, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, s / (0.06 * total)) * max(0.0, (total - s) / total))
    step = 0
    if checkpoint.is_file():
        state = torch.load(checkpoint)
        model.bert.load_state_dict(state["bert"])
        head.load_state_dict(state["head"])
        optimizer.load_state_dict(state["opt"])
        schedule.load_state_dict(state["sched"])
        step = state["step"]
    print(f"reader: {len(pairs)} pairs, {sum(p[2] for p in pairs):.0f} holding the answer; step {step} of {total}",
          flush=True)
    model.train()
    loss_of = torch.nn.BCEWithLogitsLoss()
    started = time.perf_counter()
    while step < total:
        epoch, k = divmod(step, steps_per_epoch)
        order = list(range(len(pairs)))
        random.Random(epoch).shuffle(order)
        batch = [pairs[i] for i in order[k * READER_BATCH:(k + 1) * READER_BATCH]]
        enc = tokenizer([b[0] for b in batch], [b[1] for b in batch], truncation="only_first",
                        max_length=READER_MAX_LENGTH, padding=True, return_tensors="pt")
        loss = loss_of(head(model.bert(**enc).pooler_output).squeeze(-1), torch.tensor([b[2] for b in batch]))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        schedule.step()
        step += 1
        if step % 200 == 0 or step == total:
            torch.save({"bert": model.bert.state_dict(), "head": head.state_dict(), "opt": optimizer.state_dict(),
                        "sched": schedule.state_dict(), "step": step}, str(checkpoint) + ".tmp")
            os.replace(str(checkpoint) + ".tmp", checkpoint)
            print(f"reader: step {step} of {total}, {time.perf_counter() - started:.0f} s", flush=True)
    return checkpoint


def reader(args: argparse.Namespace) -> list[str]:
    import torch

    parts, table, _, logits = _train_and_dev(args.work)
    train_titles, dev_titles = {q.title for q in parts["train"]}, sorted({q.title for q in parts["dev"]})
    checkpoint = train_reader(args, table, train_titles)
    dev = [r for r in table if r["q"].title in dev_titles]
    train = [r for r in table if r["q"].title in train_titles]
    scores_file = args.work / "reader" / "dev_scores.pkl"
    state = torch.load(checkpoint)
    if scores_file.is_file() and pickle.loads(scores_file.read_bytes())["step"] == state["step"]:
        scores = pickle.loads(scores_file.read_bytes())["scores"]
    else:
        tokenizer, model = _verifier()
        head = torch.nn.Linear(384, 1)
        model.bert.load_state_dict(state["bert"])
        head.load_state_dict(state["head"])
        model.eval()
        scores = {}
        for r in dev:
            sentences = [s for s, _, _ in _sentences(r["q"].context)]
            enc = tokenizer(sentences, [r["q"].question] * len(sentences), truncation="only_first", max_length=256,
                            padding=True, return_tensors="pt")
            with torch.inference_mode():
                scores[r["q"].id] = head(model.bert(**enc).pooler_output).squeeze(-1).numpy()[:, None].astype(float)
        scores_file.write_bytes(pickle.dumps({"step": state["step"], "scores": scores}))

    def leave_one_article_out(features) -> list[np.ndarray]:
        probs: list[np.ndarray] = [np.zeros(0)] * len(dev)
        for held in dev_titles:
            model = _fit([r for r in dev if r["q"].title != held], features)
            for i, r in enumerate(dev):
                if r["q"].title == held:
                    probs[i] = _floored(r, model.probabilities(features(r)))
        return probs

    def lexical_and_verifier(r):
        return np.hstack([r["x"], logits[r["q"].id]])

    base_model = _fit(train, lexical_and_verifier)
    base = {}
    for r in dev:
        p = np.clip(base_model.probabilities(lexical_and_verifier(r)), 1e-6, 1 - 1e-6)
        base[r["q"].id] = np.log(p / (1 - p))[:, None]
    rows = {
        "the reader alone (its own sigmoid)": [_floored(r, 1 / (1 + np.exp(-scores[r["q"].id][:, 0]))) for r in dev],
        "lexical + verifier logits, fitted on the train articles (the shipped kind of scorer)":
            [_floored(r, base_model.probabilities(lexical_and_verifier(r))) for r in dev],
        "that scorer's logit, refitted on the dev articles": leave_one_article_out(lambda r: base[r["q"].id]),
        "that scorer's logit + the reader's": leave_one_article_out(lambda r: np.hstack([base[r["q"].id],
                                                                                         scores[r["q"].id]])),
        "lexical + verifier logits, fitted on the dev articles": leave_one_article_out(lexical_and_verifier),
        "lexical + verifier logits + the reader, fitted on the dev articles":
            leave_one_article_out(lambda r: np.hstack([lexical_and_verifier(r), scores[r["q"].id]])),
    }
    lines = ["## Reader: the verifier fine-tuned to find the answer sentence", "",
             f"Trained on the {len(train_titles)} train articles (checkpoint step {state['step']}, {args.epochs} "
             f"epochs of batches of {READER_BATCH}, learning rate {READER_LR}); measured on the {len(dev)} questions "
             f"of the {len(dev_titles)} dev articles. A row fitted on the dev articles is fitted on three of them and "
             "scored on the fourth, in turn; each row's threshold balances its two rates.", "",
             "| scorer | answered and correct | abstained | threshold |", "| --- | --- | --- | --- |"]
    for name, probs in rows.items():
        lines.append(f"| {name} | {_rates(dev, probs)} |")
        print(lines[-1], flush=True)
    return lines


def _out_of_fold(table: list[dict[str, Any]], features: Callable[[dict[str, Any]], np.ndarray]) -> list[np.ndarray]:
    """A sentence model over ``features`` (rows of one question), out of fold by article, floored as serving is."""
    titles = sorted({r["q"].title for r in table})
    probs: list[np.ndarray] = [np.zeros(0)] * len(table)
    for fold in range(CV_FOLDS):
        held = set(titles[fold::CV_FOLDS])
        model = _fit([r for r in table if r["q"].title not in held], features)
        for i, r in enumerate(table):
            if r["q"].title in held:
                probs[i] = _floored(r, model.probabilities(features(r)))
    return probs


def question_log_probabilities(work: Path, items: list[tuple[str, str, str]]) -> dict[str, dict[str, np.ndarray]]:
    """Per (question id, sentence, question): the embedded model's log-probability of each question token after
    LIKELIHOOD_PROMPT with the sentence and after LIKELIHOOD_EMPTY, by question id. Kept in ``work`` by (question
    id, sentence), so another sample or another best sentence is read afresh; saved every 50 questions."""
    import llama_cpp

    from controlplane.adapters.embedded import smollm2_path

    path = work / "likelihood.pkl"
    done: dict[tuple[str, str], dict[str, np.ndarray]] = pickle.loads(path.read_bytes()) if path.is_file() else {}
    todo = [item for item in items if item[:2] not in done]
    if not todo:
        return {qid: done[(qid, sentence)] for qid, sentence, _ in items}
    llm = llama_cpp.Llama(model_path=str(smollm2_path()), n_ctx=1024, logits_all=True, n_threads=os.cpu_count() or 2,
                          n_batch=512, verbose=False)

    def question_tokens(prompt: str, question: str) -> np.ndarray:
        prefix = llm.tokenize(prompt.encode(), add_bos=False)
        tokens = llm.tokenize((" " + question).encode(), add_bos=False)
        llm.reset()
        llm.eval(prefix + tokens)
        rows = llm.scores[len(prefix) - 1: len(prefix) - 1 + len(tokens)].astype(np.float64)
        top = rows.max(axis=1)
        return rows[np.arange(len(tokens)), tokens] - top - np.log(np.exp(rows - top[:, None]).sum(axis=1))

    started = time.perf_counter()
    for n, (qid, sentence, question) in enumerate(todo, 1):
        done[(qid, sentence)] = {
            "after_sentence": question_tokens(LIKELIHOOD_PROMPT.format(sentence=sentence[:2000]), question),
            "after_nothing": question_tokens(LIKELIHOOD_EMPTY, question)}
        if n % 50 == 0 or n == len(todo):
            path.write_bytes(pickle.dumps(done))
            print(f"likelihood: {n} of {len(todo)} questions read ({time.perf_counter() - started:.0f} s)", flush=True)
    return {qid: done[(qid, sentence)] for qid, sentence, _ in items}


def likelihood(args: argparse.Namespace) -> list[str]:
    _, table, _, logits = _train_and_dev(args.work)
    probs = _out_of_fold(table, lambda r: np.hstack([r["x"], logits[r["q"].id]]))
    chosen = sorted(range(len(table)), key=lambda i: table[i]["q"].id)
    random.Random(LIKELIHOOD_SEED).shuffle(chosen)
    chosen = sorted(chosen[: args.sample])
    sample, sample_probs = [table[i] for i in chosen], [probs[i] for i in chosen]
    best = [int(np.argmax(p)) for p in sample_probs]
    sentences = {r["q"].id: [s for s, _, _ in _sentences(r["q"].context)] for r in sample}
    read = question_log_probabilities(args.work, [(r["q"].id, sentences[r["q"].id][b], r["q"].question)
                                                  for r, b in zip(sample, best)])
    columns: dict[str, list[float]] = {"scorer": [], "mean": [], "minimum": [], "after_sentence": []}
    for r, p, b in zip(sample, sample_probs, best):
        after, before = read[r["q"].id]["after_sentence"], read[r["q"].id]["after_nothing"]
        gain = after - before
        columns["scorer"].append(float(np.log(np.clip(p[b], 1e-6, 1 - 1e-6) / (1 - np.clip(p[b], 1e-6, 1 - 1e-6)))))
        columns["mean"].append(float(gain.mean()))
        columns["minimum"].append(float(gain.min()))
        columns["after_sentence"].append(float(after.mean()))
    titles = sorted({r["q"].title for r in sample})

    def stacked(names: tuple[str, ...]) -> list[np.ndarray]:
        """The best sentence's score refitted from ``names`` (out of fold by article); the other sentences 0, so
        the best stays the one shown."""
        from controlplane.answerability import LinearModel

        x = np.array([[columns[name][i] for name in names] for i in range(len(sample))])
        # the label: the best sentence answers; an answerable question whose best sentence misses the answer teaches
        # nothing about answerability, so it is left out of the fit (it still counts in the rates)
        label = np.array([0.0 if r["q"].impossible else float(r["contains"][b]) for r, b in zip(sample, best)])
        keep = np.array([r["q"].impossible or bool(r["contains"][b]) for r, b in zip(sample, best)])
        out: list[np.ndarray] = [np.zeros(0)] * len(sample)
        for fold in range(CV_FOLDS):
            held = np.array([r["q"].title in set(titles[fold::CV_FOLDS]) for r in sample])
            model = LinearModel.fit(x[~held & keep], label[~held & keep], names)
            for i in np.flatnonzero(held):
                out[i] = np.zeros(len(sample_probs[i]))
                out[i][best[i]] = model.probabilities(x[i][None, :])[0]
        return out

    rows = {
        "the scorer (lexical + verifier logits), out of fold": sample_probs,
        "its logit, refitted": stacked(("scorer",)),
        "+ the question's mean gain after the sentence": stacked(("scorer", "mean")),
        "+ its smallest gain (the least expected token)": stacked(("scorer", "minimum")),
        "+ mean gain, smallest gain, mean log-probability after the sentence":
            stacked(("scorer", "mean", "minimum", "after_sentence")),
    }
    answered = [i for i, r in enumerate(sample) if not r["q"].impossible and r["contains"][best[i]]]
    unanswerable = [i for i, r in enumerate(sample) if r["q"].impossible]
    lines = ["## Likelihood: the embedded model reads the question after the best sentence", "",
             f"A fixed sample (seed {LIKELIHOOD_SEED}) of {len(sample)} of the {len(table)} train and dev questions "
             f"({len(unanswerable)} unanswerable), {len(titles)} articles. For each, the sentence the shipped kind of "
             "scorer ranks first out of fold; SmolLM2-135M's log-probability of each question token after "
             f"`{LIKELIHOOD_PROMPT!r}` with that sentence, less the same after `{LIKELIHOOD_EMPTY!r}` (the gain). "
             f"Stacked beside the scorer's logit, out of fold, {CV_FOLDS} folds by article; each row's threshold "
             "balances its two rates. The refitted logit is the baseline the other stacked rows compare with: each "
             "fold fits its own scale, so one threshold over all folds reads it a little differently from the "
             "scorer's own probabilities. Mean gain per token: "
             f"{np.mean([columns['mean'][i] for i in answered]):.2f} where the best sentence answers, "
             f"{np.mean([columns['mean'][i] for i in unanswerable]):.2f} on unanswerable questions (smallest gain "
             f"{np.mean([columns['minimum'][i] for i in answered]):.2f} and "
             f"{np.mean([columns['minimum'][i] for i in unanswerable]):.2f}).", "",
             "| scorer | answered and correct | abstained | threshold |", "| --- | --- | --- | --- |"]
    for name, scored in rows.items():
        lines.append(f"| {name} | {_rates(sample, scored)} |")
        print(lines[-1], flush=True)
    return lines


def soft_match_features(work: Path, table: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Per question id: one row of SOFT_MATCH_FEATURES per sentence of its paragraph; kept in ``work``."""
    from sentence_transformers import SentenceTransformer

    from controlplane.contracts.text import STOPWORDS
    from controlplane.evidence_pack.embeddings import resolve_model_path

    path = work / "softmatch.pkl"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    # the token vectors before pooling, which only the sentence-transformers package hands out (the project's own
    # encoder, evidence_pack/embeddings.py, gives the pooled sentence vectors)
    model = SentenceTransformer(str(resolve_model_path()), device="cpu", local_files_only=True)

    def token_vectors(texts: list[str]) -> list[tuple[list[str], np.ndarray]]:
        encoded = model.encode(texts, batch_size=64, output_value="token_embeddings", convert_to_numpy=False,
                               show_progress_bar=False)
        out = []
        for text, vectors in zip(texts, encoded):
            tokens = model.tokenizer.convert_ids_to_tokens(
                model.tokenizer(text, truncation=True, max_length=model.max_seq_length)["input_ids"])
            vectors = vectors.numpy()[: len(tokens)]
            out.append((tokens, vectors / (np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9)))
        return out

    paragraphs = {r["q"].context: [s for s, _, _ in _sentences(r["q"].context)] for r in table}
    unique = sorted({s for sentences in paragraphs.values() for s in sentences})
    sentence_vectors = dict(zip(unique, token_vectors(unique)))
    features = {}
    for r, (tokens, vectors) in zip(table, token_vectors([r["q"].question for r in table])):
        words = [i for i, t in enumerate(tokens) if t not in ("[CLS]", "[SEP]") and t.strip("#").isalnum()
                 and t.lower() not in STOPWORDS and (len(t.strip("#")) > 2 or t.isdigit())]
        rows = []
        for sentence in paragraphs[r["q"].context]:
            s_tokens, s_vectors = sentence_vectors[sentence]
            body = [i for i, t in enumerate(s_tokens) if t not in ("[CLS]", "[SEP]")]
            if not words or not body:
                rows.append([1.0, 1.0, 0.0])  # nothing to find: found
                continue
            best = (vectors[words] @ s_vectors[body].T).max(axis=1)
            rows.append([best.mean(), best.min(), float((best < SOFT_MATCH_FOUND).mean())])
        features[r["q"].id] = np.asarray(rows)
    path.write_bytes(pickle.dumps(features))
    return features


def _beside_shipped(table: list[dict[str, Any]], logits: dict[str, np.ndarray], extra: dict[str, np.ndarray],
                    names: tuple[str, ...]) -> list[str]:
    """Table rows: the shipped kind of sentence model (lexical features and verifier logits), then with each column
    of ``extra`` (per question id, one row per sentence) beside it, then with all of them, out of fold by article."""
    def out_of_fold(columns: tuple[int, ...]) -> list[np.ndarray]:
        return _out_of_fold(table, lambda r: np.hstack([r["x"], logits[r["q"].id], extra[r["q"].id][:, list(columns)]]))

    rows = {"the shipped features (lexical + verifier logits)": ()}
    rows.update({f"+ {name}": (i,) for i, name in enumerate(names)})
    rows["+ all of them"] = tuple(range(len(names)))
    lines = ["| sentence model | answered and correct | abstained | threshold |", "| --- | --- | --- | --- |"]
    for name, columns in rows.items():
        lines.append(f"| {name} | {_rates(table, out_of_fold(columns))} |")
        print(lines[-1], flush=True)
    return lines


def softmatch(args: argparse.Namespace) -> list[str]:
    _, table, _, logits = _train_and_dev(args.work)
    soft = soft_match_features(args.work, table)
    titles = sorted({r["q"].title for r in table})
    return ["## Soft match: question words found in the sentence by MiniLM's token vectors", "",
            f"Out of fold, {CV_FOLDS} folds by article over the {len(titles)} train and dev articles "
            f"({len(table)} questions); each row's threshold balances its two rates. A question word (not a stopword, "
            "a word piece of at least 3 letters or a number) is matched to the sentence token with the highest cosine "
            f"of MiniLM's contextual token vectors; under {SOFT_MATCH_FOUND} it counts as not found.", "",
            *_beside_shipped(table, logits, soft, SOFT_MATCH_FEATURES)]


_LOWER_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?")
_NAME = re.compile(r"\b[A-Z][a-zA-Z'-]+")


def _prefix_swapped(question_words: set[str], sentence_words: set[str]) -> bool:
    """A word of one that is a word of the other with a negative prefix the other does not say ("incorrect" for
    "correct"); the word under the prefix at least five letters ("inform" is no negated "form")."""
    for one, other in ((question_words, sentence_words), (sentence_words, question_words)):
        for word in one - other:
            for prefix in NEGATIVE_PREFIXES:
                base = word[len(prefix):]
                if word.startswith(prefix) and len(base) >= 5 and base in other and base not in one:
                    return True
    return False


def swap_features(table: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Per question id: one row of SWAP_FEATURES per sentence of its paragraph (``table``: rows of bench.squad2's
    question table, whose lexical features give the longest run of question words in each sentence)."""
    from controlplane.answerability import LEXICAL_FEATURES

    run_column = LEXICAL_FEATURES.index("longest_run")
    features = {}
    for r in table:
        question = r["q"].question
        q_words = set(_LOWER_WORD.findall(question.lower()))
        q_names = {w.lower() for w in _NAME.findall(question)[1:]}
        rows = []
        for index, (sentence, _, _) in enumerate(_sentences(r["q"].context)):
            repeated = round(r["x"][index, run_column] * 6) >= REPEATED_WORDING  # the feature is min(run, 6) / 6
            lowered = sentence.lower()
            rows.append([float(_prefix_swapped(q_words, set(_LOWER_WORD.findall(lowered)))),
                         float(repeated and any(name not in lowered for name in q_names))])
        features[r["q"].id] = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(SWAP_FEATURES))
    return features


def swaps(args: argparse.Namespace) -> list[str]:
    _, table, _, logits = _train_and_dev(args.work)
    swapped = swap_features(table)
    titles = sorted({r["q"].title for r in table})
    fired = {name: [sum(int(swapped[r["q"].id][:, i].max() > 0) for r in table if r["q"].impossible == impossible)
                    for impossible in (True, False)] for i, name in enumerate(SWAP_FEATURES)}
    return ["## Swaps: more marks of SQuAD 2.0's unanswerable rewrites", "",
            f"Out of fold, {CV_FOLDS} folds by article over the {len(titles)} train and dev articles "
            f"({len(table)} questions, {sum(r['q'].impossible for r in table)} unanswerable); each row's threshold "
            "balances its two rates. Found in some sentence of the paragraph: "
            + "; ".join(f"{name}: {u} unanswerable and {a} answerable questions" for name, (u, a) in fired.items())
            + ".", "", *_beside_shipped(table, logits, swapped, SWAP_FEATURES)]


_AUXILIARY = r"(?:did|does|do|was|were|is|are|has|have|had|can|could|will|would|should|may|might|must)"
_WH_LEAD = re.compile(r"^(?P<wh>how (?:many|much|long|old|far|large|big|often|tall|high|deep)|what|which|who|whom|"
                      r"whose|when|where|why|how)\b\s*(?P<rest>.*)$", re.IGNORECASE)
_WH_PREPOSITION = {"when": "in", "where": "in", "why": "because of", "how": "by"}
_ENDS_WITH_PREPOSITION = re.compile(r"\b(in|on|at|from|to|by|for|of|with|into)$", re.IGNORECASE)
_TIME_NOUNS = ("year", "century", "decade", "date", "month", "day")
_SPAN_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'.,-]*[A-Za-z0-9]|[A-Za-z0-9]")
_COUNT = re.compile(r"\b(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|hundreds?|"
                    r"thousands?|millions?|several|dozens?)(?:\s+(?:million|billion|thousand|hundred))?\b(?:\s+%)?",
                    re.IGNORECASE)
_PROPER_NAME = re.compile(r"\b[A-Z][a-zA-Z'-]+(?:\s+(?:of|the|de|von|van|and)?\s*[A-Z][a-zA-Z'-]+)*")
_CENTURY = re.compile(r"\b\d+(?:st|nd|rd|th) centur(?:y|ies)\b")


def filled_claim(question: str, candidate: str) -> str:
    """The question as a claim with ``candidate`` in the place of its wh-phrase; rough grammar is enough for an NLI
    verifier ("When did the Normans conquer England?" -> "the Normans conquer England in 1066.")."""
    q = question.strip().rstrip("?").strip()
    lead = _WH_LEAD.match(q)
    if lead is None:  # the wh-word inside: "The Normans were in which country?"
        out, found = re.subn(r"(?i)\b(which|what)\s+\w+|\b(who|whom|what|when|where)\b", candidate, q, count=1)
        return f"{out}." if found else f"{q} {candidate}."
    wh, rest = lead.group("wh").lower(), lead.group("rest")
    noun = ""
    if wh in ("what", "which", "whose") or wh.startswith("how "):  # "What year did ...", "How many people ..."
        typed = re.match(rf"^((?:(?!{_AUXILIARY}\b)[A-Za-z-]+\s+){{0,2}}?)({_AUXILIARY}\b.*)$", rest, re.IGNORECASE)
        if typed and typed.group(1):
            noun, rest = typed.group(1).strip(), typed.group(2)
    answer = f"{candidate} {noun}".strip() if wh.startswith("how ") else candidate
    auxiliary = re.match(rf"^({_AUXILIARY})\b\s*(.*)$", rest, re.IGNORECASE)
    if auxiliary is None:  # the wh-phrase is the subject: "Who founded the city?"
        return f"{answer} {rest}."
    verb, body = auxiliary.group(1).lower(), auxiliary.group(2)
    if wh in ("what", "which", "who", "whom", "whose") and verb in ("is", "was", "are", "were"):
        return f"{answer} {verb} {body}."
    if wh in _WH_PREPOSITION:
        joiner = "" if _ENDS_WITH_PREPOSITION.search(body) else f" {_WH_PREPOSITION[wh]}"
        return f"{body}{joiner} {candidate}."
    if noun.lower() in _TIME_NOUNS:
        return f"{body} in {candidate}."
    return f"{body} {answer}."


def answer_candidates(question: str, sentence: str) -> tuple[list[str], bool]:
    """Up to FILLED_CANDIDATES answers ``sentence`` offers ``question``, and whether they are of the asked type; else
    its runs of words the question does not use."""
    from controlplane.answerability import _CALENDAR, _DATE, question_word
    from controlplane.contracts.text import STOPWORDS, content_stems, stem

    q_stems, q_lower = set(content_stems(question)), question.lower()
    q_words = {m.group().lower().strip(".,") for m in _SPAN_TOKEN.finditer(question)}
    runs: list[list[re.Match[str]]] = [[]]
    for token in _SPAN_TOKEN.finditer(sentence):
        word = token.group().lower().strip(".,")
        if stem(word) in q_stems or word in q_words:
            runs.append([])
        else:
            runs[-1].append(token)
    spans = []
    for run in runs:
        while run and run[0].group().lower() in STOPWORDS:
            run = run[1:]
        while run and run[-1].group().lower() in STOPWORDS:
            run = run[:-1]
        if run:
            spans.append(sentence[run[0].start():run[-1].end()].strip(".,"))
    qword = question_word(question)
    if qword == "when" or re.search(r"\b(year|date|century|decade)\b", q_lower):
        typed = [m.group() for m in _DATE.finditer(sentence)] + [m.group() for m in _CENTURY.finditer(sentence)]
    elif qword in ("how many", "how much"):
        typed = [m.group() for m in _COUNT.finditer(sentence)]
    elif qword in ("who", "where"):
        typed = [m.group() for m in _PROPER_NAME.finditer(sentence) if not _CALENDAR.fullmatch(m.group())]
    else:
        typed = []
    typed = [t for t in typed if t.lower() not in q_lower]
    chosen: dict[str, str] = {}
    for candidate in typed or spans:
        candidate = " ".join(candidate.split()[:8])
        chosen.setdefault(candidate.lower(), candidate)
    return list(chosen.values())[:FILLED_CANDIDATES], bool(typed)


def filled_features(work: Path, table: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Per question id, one row of FILLED_FEATURES (7 columns) per sentence: the shipped verifier's reading of
    (sentence, the question filled with each candidate), the best-entailed candidate's. Scored in chunks kept in
    ``work``."""
    from controlplane.answerability import shipped_verifier

    pairs, owners, kinds = [], [], {}
    for r in table:
        q = r["q"]
        kinds[q.id] = []
        for index, (sentence, _, _) in enumerate(_sentences(q.context)):
            candidates, typed = answer_candidates(q.question, sentence)
            kinds[q.id].append(typed)
            for candidate in candidates:
                pairs.append((sentence, filled_claim(q.question, candidate)))
                owners.append((q.id, index))
    # the chunks are kept under a digest of the pairs: a change to the candidates or the claims scores afresh
    chunks = work / f"filled_{hashlib.sha256(repr(pairs).encode()).hexdigest()[:12]}"
    chunks.mkdir(parents=True, exist_ok=True)
    logits = np.zeros((len(pairs), 3))
    verifier = None
    for start in range(0, len(pairs), FILLED_PAIRS_PER_CHUNK):
        path = chunks / f"{start:07d}.npy"
        if not path.is_file():
            verifier = verifier or shipped_verifier()
            labels = verifier.label_index
            scored = np.asarray(verifier.logits(pairs[start:start + FILLED_PAIRS_PER_CHUNK]), dtype=np.float64)
            np.save(path, scored[:, [labels["entailment"], labels["neutral"], labels["contradiction"]]])
            print(f"filled: {min(len(pairs), start + FILLED_PAIRS_PER_CHUNK)} of {len(pairs)} pairs", flush=True)
        logits[start:start + FILLED_PAIRS_PER_CHUNK] = np.load(path)
    probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    best: dict[tuple[str, int], int] = {}
    for k, owner in enumerate(owners):
        if owner not in best or probabilities[k, 0] > probabilities[best[owner], 0]:
            best[owner] = k
    features = {}
    for qid, typed_by_sentence in kinds.items():
        rows = []
        for index, typed in enumerate(typed_by_sentence):
            k = best.get((qid, index))
            rows.append([0.0] * 6 + [float(typed)] if k is None else
                        [probabilities[k, 0], probabilities[k, 2], *logits[k], 1.0, float(typed)])
        features[qid] = np.asarray(rows).reshape(len(rows), 7)
    return features


def _gold_against_best_unanswerable(table: list[dict[str, Any]], column: Callable[[dict[str, Any]], np.ndarray]
                                     ) -> tuple[list[float], list[float]]:
    """``column``'s value for the sentence that holds the answer of each answerable question, and for the most similar
    sentence (MiniLM cosine) of each unanswerable one."""
    from controlplane.answerability import LEXICAL_FEATURES

    cosine = LEXICAL_FEATURES.index("cosine")
    answering, unanswerable = [], []
    for r in table:
        values = column(r)
        if r["q"].impossible:
            unanswerable.append(float(values[int(np.argmax(r["x"][:, cosine]))]))
        elif r["y"].any():
            answering.append(float(values[int(np.argmax(r["y"]))]))
    return answering, unanswerable


def _auroc(positives: list[float], negatives: list[float]) -> float:
    """P(a positive scores above a negative), ties counted half."""
    pos, neg = np.asarray(positives)[:, None], np.asarray(negatives)[None, :]
    return float((pos > neg).mean() + 0.5 * (pos == neg).mean())


def filled(args: argparse.Namespace) -> list[str]:
    """Beside the shipped features as serving computes them (the shipped verifier's (sentence, question) logits)."""
    from controlplane.answerability import VERIFIER_FEATURES as VERIFIER_COLUMNS
    from controlplane.answerability import shipped_verifier

    path = args.work / "table_shipped.pkl"
    if path.is_file():
        table = pickle.loads(path.read_bytes())
    else:
        parts = split_articles(load())
        table = question_table(parts["train"] + parts["dev"], shipped_verifier())
        path.write_bytes(pickle.dumps(table))
    extra = filled_features(args.work, table)
    columns = {FILLED_FEATURES[0]: (0,), FILLED_FEATURES[1]: (1,), FILLED_FEATURES[2]: (2, 3, 4),
               FILLED_FEATURES[3]: (5,), FILLED_FEATURES[4]: (6,)}
    rows = {"the shipped features (lexical + verifier logits)": ()}
    rows.update({f"+ {name}": c for name, c in columns.items()})
    rows["+ P(entailed), P(contradicted), has a candidate, has one of the asked type"] = (0, 1, 5, 6)
    rows["+ all of them"] = tuple(range(7))
    titles = sorted({r["q"].title for r in table})
    entailed = VERIFIER_COLUMNS.index("verifier_entailment") - len(VERIFIER_COLUMNS)
    separation = {name: _auroc(*_gold_against_best_unanswerable(table, column))
                  for name, column in (("the filled claim's P(entailed)", lambda r: extra[r["q"].id][:, 0]),
                                       ("the (sentence, question) entailment logit", lambda r: r["x"][:, entailed]))}
    lines = ["## Filled claims: the question with a candidate answer, read by the verifier", "",
             f"Out of fold, {CV_FOLDS} folds by article over the {len(titles)} train and dev articles "
             f"({len(table)} questions); each row's threshold balances its two rates. Per sentence, up to "
             f"{FILLED_CANDIDATES} candidate answers ({sum(len(v) for v in extra.values())} sentences); the question "
             "made a claim with each ('When did the Normans conquer England?' + '1066' -> 'the Normans conquer "
             "England in 1066.'), and the shipped verifier's reading of (sentence, claim) for the best-entailed one. "
             "How well each reading alone separates the sentence that answers (answerable questions) from the most "
             "similar sentence of an unanswerable question, AUROC: "
             + "; ".join(f"{name} {value:.3f}" for name, value in separation.items()) + ".",
             "", "| sentence model | answered and correct | abstained | threshold |", "| --- | --- | --- | --- |"]
    for name, chosen in rows.items():
        probs = _out_of_fold(table, lambda r, chosen=chosen: np.hstack([r["x"], extra[r["q"].id][:, list(chosen)]]))
        lines.append(f"| {name} | {_rates(table, probs)} |")
        print(lines[-1], flush=True)
    return lines


def write_section(path: Path, lines: list[str]) -> None:
    """Write one experiment's section (``lines``, opening with its "## " title) into the results file, keeping the
    other experiment's section as it was: each is measured by its own run."""
    sections: dict[str, str] = {}
    if path.is_file():
        for section in path.read_text().split("\n## ")[1:]:
            sections[section.split("\n", 1)[0]] = "## " + section
    sections[lines[0].removeprefix("## ")] = "\n".join(lines) + "\n"
    header = ("# Answerability readers from the shipped verifier (`./run bench squad2_readers`)\n\n"
              "Not shipped: measured to decide whether either beats the shipped scorer's features (issue 15). "
              "squad2_dev_a.jsonl, split seed as bench/squad2.py; the test articles are never read. "
              f"{os.cpu_count()} CPUs.\n")
    path.write_text(header + "\n" + "\n".join(s.rstrip() + "\n" for s in sections.values()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("experiment", nargs="?", choices=("probe", "reader", "likelihood", "softmatch", "swaps", "filled"),
                        default="probe")
    parser.add_argument("--work", type=Path, default=Path(".controlplane/squad2_readers"),
                        help="where the features, checkpoints and scores are kept between runs")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--sample", type=int, default=LIKELIHOOD_SAMPLE, help="likelihood: questions read")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    experiments = {"probe": probe, "reader": reader, "likelihood": likelihood, "softmatch": softmatch, "swaps": swaps,
                   "filled": filled}
    lines = experiments[args.experiment](args)
    if not args.no_write:
        write_section(OUT, lines)
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
