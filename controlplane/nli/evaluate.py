"""Evaluate an NLI backend on ``../shared/eval`` JSONL files (schema in that folder's README), on ``label_binary``.

Scoring a row: the claim is split into sentences (grounded-generation contract: every sentence must be supported, so
a row's P(supported) is the *minimum* over its sentences); each sentence is scored against the joined evidence by
best chunk (:mod:`controlplane.nli.chunking`). P(supported) = P(entailed) after temperature scaling.

Calibration (temperature, threshold, which deterministic checks may veto) is fitted ONLY on dev splits
(AttributionBench ``dev_sampled``, WiCE ``dev``) with ``fit_calibration`` and frozen into the model directory's
``calibration.json``; test splits are then scored with those frozen values.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controlplane.contracts.errors import InputError
from controlplane.contracts.text import sentence_texts

DEV_SPLITS = frozenset({"dev_sampled", "dev"})
# The rows calibration, operating points and every model choice are fitted on (files under ../shared/eval, split):
# AttributionBench dev_sampled and WiCE dev. No test split is among them.
DEV_SETS = (("attributionbench/attributionbench.jsonl", "dev_sampled"), ("wice/wice_claim.jsonl", "dev"))
DEV_SOURCES = tuple(f"{Path(rel).name}:{split}" for rel, split in DEV_SETS)
SUPPORTED = "supported"


# ---------------------------------------------------------------------------------------------------------------
# data
def load_rows(path: str | Path, splits: Iterable[str] | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"eval file {str(path)!r} does not exist")
    wanted = set(splits or ())
    rows = []
    with path.open(encoding="utf-8") as handle:
        lines = enumerate(handle, 1)
        while True:
            try:
                n, line = next(lines)
            except StopIteration:
                break
            except UnicodeDecodeError as exc:  # a binary file: one line naming it, not an internal error
                raise InputError(f"{path} is not UTF-8 JSONL text ({exc.reason}); pass an eval .jsonl file") from None
            try:
                row = json.loads(line)
            except (ValueError, RecursionError) as exc:  # ValueError also covers integers over 4,300 digits
                raise InputError(f"{path}:{n}: not JSON: {str(exc)[:200]}") from None
            if not isinstance(row, dict) or "label_binary" not in row or "claim" not in row or "evidence" not in row:
                raise InputError(f"{path}:{n}: needs claim, evidence and label_binary fields")
            if wanted and row.get("split") not in wanted:
                continue
            rows.append(row)
            if limit and len(rows) >= limit:
                break
    if not rows:
        raise InputError(f"{path}: no rows{' for split(s) ' + ', '.join(sorted(wanted)) if wanted else ''}")
    return rows


def evidence_text(row: dict[str, Any]) -> str:
    ev = row["evidence"]
    return "\n".join(ev) if isinstance(ev, list) else str(ev)


def claim_sentences(claim: str, split: bool = True) -> list[str]:
    if not split:
        return [claim]
    return sentence_texts(claim) or [claim]


# ---------------------------------------------------------------------------------------------------------------
# scoring with cached logits
@dataclass
class ScoredRow:
    id: str
    label: int  # 1 = supported
    dataset: str
    split: str
    sentences: list[str]
    windows: list[list[list[float]]]  # per sentence, per window: logits
    window_texts: list[list[str]]
    findings: list[list[str]] = field(default_factory=list)  # per sentence, reason codes of the checks


def score_rows(backend, rows: Sequence[dict[str, Any]], *, split_claims: bool = True,
               checks: bool = True) -> tuple[list[ScoredRow], float]:
    """Run the backend once over all (window, claim sentence) rows; return cached logits and elapsed seconds."""
    pairs: list[tuple[str, str]] = []
    owners: list[tuple[int, int]] = []
    sentences_per_row = []
    for r_i, row in enumerate(rows):
        sents = claim_sentences(row["claim"], split_claims)
        sentences_per_row.append(sents)
        ev = evidence_text(row)
        for s_i, sentence in enumerate(sents):
            pairs.append((ev, sentence))
            owners.append((r_i, s_i))
    t0 = time.perf_counter()
    flat, spans = backend.chunk_pairs(pairs)
    logits = backend.logits(flat)
    elapsed = time.perf_counter() - t0
    scored = [
        ScoredRow(id=str(row.get("id", i)), label=int(row["label_binary"] == SUPPORTED),
                  dataset=str(row.get("source_dataset", "")), split=str(row.get("split", "")),
                  sentences=sents, windows=[[] for _ in sents], window_texts=[[] for _ in sents],
                  findings=[[] for _ in sents])
        for i, (row, sents) in enumerate(zip(rows, sentences_per_row))
    ]
    for (r_i, s_i), span in zip(owners, spans):
        scored[r_i].windows[s_i] = logits[span.start:span.stop]
        scored[r_i].window_texts[s_i] = [flat[k][0] for k in range(span.start, span.stop)]
    if checks:
        from controlplane.gates.claim_checks import run_checks

        for row in scored:
            for s_i, sentence in enumerate(row.sentences):
                best = _best_window_index(backend, row.windows[s_i], 1.0)
                text = row.window_texts[s_i][best] if best is not None else ""
                row.findings[s_i] = sorted({f.code.value for f in run_checks(text, sentence)})
    return scored, elapsed


def _best_window_index(backend, windows, temperature) -> int | None:
    if not windows:
        return None
    probs = [backend.probabilities(w, temperature).entailment for w in windows]
    return max(range(len(probs)), key=probs.__getitem__)


def row_probability(backend, row: ScoredRow, temperature: float) -> float:
    """P(supported) of a row: min over claim sentences of the best-chunk P(entailed)."""
    return min(backend.best_chunk(w, temperature).entailment for w in row.windows)


def vetoed(row: ScoredRow, veto_codes: Iterable[str]) -> bool:
    codes = set(veto_codes)
    return any(codes.intersection(f) for f in row.findings)


# ---------------------------------------------------------------------------------------------------------------
# metrics (pure Python)
def auroc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    pos = sum(labels)
    neg = len(labels) - pos
    if not pos or not neg:
        return None
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    rank_sum = sum(r for r, y in zip(ranks, labels) if y)
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def ece(labels: Sequence[int], probs: Sequence[float], bins: int = 10) -> float:
    total = len(labels)
    err = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, p in enumerate(probs) if (lo <= p < hi) or (b == bins - 1 and p == 1.0)]
        if idx:
            conf = sum(probs[i] for i in idx) / len(idx)
            acc = sum(labels[i] for i in idx) / len(idx)
            err += len(idx) / total * abs(conf - acc)
    return err


def binary_metrics(labels: Sequence[int], probs: Sequence[float], preds: Sequence[int]) -> dict[str, Any]:
    """Metrics on label_binary: 1 = supported, 0 = unsupported."""
    tp = sum(1 for y, p in zip(labels, preds) if y == 1 and p == 1)
    tn = sum(1 for y, p in zip(labels, preds) if y == 0 and p == 0)
    fp = sum(1 for y, p in zip(labels, preds) if y == 0 and p == 1)
    fn = sum(1 for y, p in zip(labels, preds) if y == 1 and p == 0)

    def div(a, b):
        return a / b if b else 0.0

    rec_sup, rec_uns = div(tp, tp + fn), div(tn, tn + fp)
    prec_sup, prec_uns = div(tp, tp + fp), div(tn, tn + fn)
    f1_sup = div(2 * prec_sup * rec_sup, prec_sup + rec_sup)
    f1_uns = div(2 * prec_uns * rec_uns, prec_uns + rec_uns)
    auc = auroc(labels, probs)
    return {
        "n": len(labels),
        "n_supported": sum(labels),
        "balanced_accuracy": round(100 * (rec_sup + rec_uns) / 2, 2),
        "macro_f1": round(100 * (f1_sup + f1_uns) / 2, 2),
        "unsupported_precision": round(100 * prec_uns, 2),
        "unsupported_recall": round(100 * rec_uns, 2),
        "auroc": round(100 * auc, 2) if auc is not None else None,
        "ece": round(ece(labels, probs), 4),
        "brier": round(sum((p - y) ** 2 for y, p in zip(labels, probs)) / max(1, len(labels)), 4),
    }


# ---------------------------------------------------------------------------------------------------------------
# calibration (dev only)
def _nll(labels, probs) -> float:
    eps = 1e-7
    return -sum(math.log(max(eps, p)) if y else math.log(max(eps, 1 - p)) for y, p in zip(labels, probs)) / len(labels)


def _best_threshold(labels, probs) -> tuple[float, float]:
    """Threshold maximising balanced accuracy (ties: the one closest to 0.5)."""
    candidates = sorted({round(p, 4) for p in probs} | {0.5})
    best = (-1.0, 0.5)
    pos = sum(labels)
    neg = len(labels) - pos
    for t in candidates:
        tp = sum(1 for y, p in zip(labels, probs) if y and p >= t)
        tn = sum(1 for y, p in zip(labels, probs) if not y and p < t)
        bacc = (tp / max(1, pos) + tn / max(1, neg)) / 2
        if bacc > best[0] + 1e-12 or (abs(bacc - best[0]) <= 1e-12 and abs(t - 0.5) < abs(best[1] - 0.5)):
            best = (bacc, t)
    return best[1], best[0]


MEDIUM_KEEP = 0.95  # medium rigor keeps at least this share of the supported dev claims (EBOM: < 5 % false rejects)
HIGH_MAX_UNSUPPORTED_PASS = 0.10  # high rigor: at most this share of unsupported dev claims passes...
HIGH_MIN_KEEP = 0.50  # ...unless that would reject more than half of the supported ones


def _rates(labels: Sequence[int], probs: Sequence[float], t: float) -> dict[str, float]:
    sup = [p for y, p in zip(labels, probs) if y]
    uns = [p for y, p in zip(labels, probs) if not y]
    return {"threshold": round(t, 4),
            "supported_kept": round(sum(p >= t for p in sup) / max(1, len(sup)), 4),
            "unsupported_passed": round(sum(p >= t for p in uns) / max(1, len(uns)), 4)}


def operating_points(labels: Sequence[int], probs: Sequence[float], balanced_threshold: float) -> dict[str, Any]:
    """Thresholds on calibrated P(supported) for the policy bundle, chosen on dev rows only.

    medium: the highest threshold that keeps >= 95 % of the supported dev claims. high: the lowest threshold that
    lets <= 10 % of the unsupported dev claims through, but never below the balanced-accuracy threshold nor so high
    that fewer than half of the supported claims are kept. Each comes with the dev rates it implies."""
    sup = sorted(p for y, p in zip(labels, probs) if y)
    uns = sorted(p for y, p in zip(labels, probs) if not y)
    if not sup or not uns:
        raise InputError("operating points need supported and unsupported dev rows")
    medium = sup[math.floor((1 - MEDIUM_KEEP) * len(sup))]
    strict = uns[min(len(uns) - 1, math.ceil((1 - HIGH_MAX_UNSUPPORTED_PASS) * len(uns)))]
    high = min(max(strict, balanced_threshold, medium), sup[math.floor((1 - HIGH_MIN_KEEP) * len(sup))])
    high = max(high, medium)
    return {"medium": _rates(labels, probs, medium), "high": _rates(labels, probs, high),
            "rule": f"medium keeps >= {MEDIUM_KEEP:.0%} of supported dev claims; high lets <= "
                    f"{HIGH_MAX_UNSUPPORTED_PASS:.0%} of unsupported dev claims pass (not below the balanced-accuracy "
                    f"threshold, and keeping >= {HIGH_MIN_KEEP:.0%} of supported ones)"}


def fit_calibration(backend, scored: Sequence[ScoredRow], *, sources: Sequence[str] = ()) -> dict[str, Any]:
    """Fit temperature (binary NLL), threshold (balanced accuracy) and veto codes on DEV rows only."""
    bad = sorted({r.split for r in scored} - DEV_SPLITS)
    if bad:
        raise InputError(f"--fit-calibration: only dev splits ({', '.join(sorted(DEV_SPLITS))}) may be used, got {bad}")
    labels = [r.label for r in scored]
    grid = [math.exp(math.log(0.25) + k * (math.log(8.0) - math.log(0.25)) / 60) for k in range(61)]
    best_t, best_nll = 1.0, float("inf")
    for t in grid:
        nll = _nll(labels, [row_probability(backend, r, t) for r in scored])
        if nll < best_nll:
            best_t, best_nll = t, nll
    probs = [row_probability(backend, r, best_t) for r in scored]
    threshold, dev_bacc = _best_threshold(labels, probs)
    per_dataset = {}
    for ds in sorted({r.dataset for r in scored}):
        idx = [i for i, r in enumerate(scored) if r.dataset == ds]
        t_ds, b_ds = _best_threshold([labels[i] for i in idx], [probs[i] for i in idx])
        per_dataset[ds] = {"threshold": t_ds, "dev_balanced_accuracy": round(100 * b_ds, 2), "n": len(idx)}
    # Which deterministic checks may veto "supported": greedily add a code while it raises dev balanced accuracy.
    codes = sorted({c for r in scored for f in r.findings for c in f})
    veto: list[str] = []

    def bacc_with(vcodes):
        preds = [int(p >= threshold and not vetoed(r, vcodes)) for p, r in zip(probs, scored)]
        m = binary_metrics(labels, probs, preds)
        return m["balanced_accuracy"]

    base = bacc_with([])
    improved = True
    while improved:
        improved = False
        gains = [(bacc_with(veto + [c]) - bacc_with(veto), c) for c in codes if c not in veto]
        gains = [g for g in gains if g[0] > 0.25]  # demand a real gain (> 0.25 BAcc points) on dev
        if gains:
            veto.append(max(gains)[1])
            improved = True
    return {
        "fitted": True,
        "operating_points": operating_points(labels, probs, threshold),
        "temperature": round(best_t, 4),
        "threshold": round(threshold, 4),
        "dev_nll": round(best_nll, 4),
        "dev_balanced_accuracy": round(100 * dev_bacc, 2),
        "per_dataset_threshold": per_dataset,
        "veto_codes": veto,
        "dev_balanced_accuracy_with_veto": bacc_with(veto),
        "dev_balanced_accuracy_without_veto": base,
        "dev_rows": len(scored),
        "dev_sources": list(sources),
        "rule": "P(supported) = min over claim sentences of best-chunk softmax(logits / temperature)[entailment]; "
                "supported iff P >= threshold (and, with checks, no veto code found in the best chunk)",
    }


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------------------------------------
# evaluation
def evaluate_scored(backend, scored: Sequence[ScoredRow], calibration: dict[str, Any], *, elapsed: float,
                    use_checks: bool = False, threshold: float | None = None) -> dict[str, Any]:
    temperature = float(calibration.get("temperature", 1.0))
    thr = float(calibration.get("threshold", 0.5)) if threshold is None else threshold
    veto_codes = calibration.get("veto_codes", []) if use_checks else []
    labels = [r.label for r in scored]
    probs = [row_probability(backend, r, temperature) for r in scored]
    preds = [int(p >= thr and not vetoed(r, veto_codes)) for p, r in zip(probs, scored)]
    if use_checks and veto_codes:  # a vetoed row's probability is capped just under the threshold
        probs = [min(p, thr * 0.999) if vetoed(r, veto_codes) else p for p, r in zip(probs, scored)]
    metrics = binary_metrics(labels, probs, preds)
    metrics["threshold"] = thr
    metrics["temperature"] = temperature
    metrics["veto_codes"] = list(veto_codes)
    metrics["seconds"] = round(elapsed, 2)
    metrics["pairs_per_s"] = round(len(scored) / elapsed, 2) if elapsed > 0 else None
    metrics["windows"] = sum(len(w) for r in scored for w in r.windows)
    return metrics
