"""The main job end to end on the example corpus: the question set, per split, and the quickstart's first run.

Each question of bench/data/example_questions.jsonl (answerable ones with gold answer strings, plausible unanswerable
ones; each in split ``dev`` or ``test``) goes through exactly what ``controlplane ask`` does: retrieval from the
example corpus (MiniLM + chromadb), the embedded default model in the bundle's answer mode, every gate of the shipped
bundle with the shipped NLI verifier, regen and degrade. Scored as bench/squad2.py scores:

* answered and correct (answerable): a displayed verified sentence holds a gold string;
* gold retrieved (answerable): a gold string is in the evidence pack the answer was checked against;
* abstained (unanswerable): the reply is UNKNOWN, or a refusal with no verified claim;
* unverified sentences shown: sentences of the reply no passing claim covers (system notices excepted; must be 0);
* per question: status, the miss cause (``not retrieved``, ``retrieved but not chosen``, ``refused by GATE``,
  ``answered wrong``, ``answered`` on an unanswerable question), the trace id (``./run trace show ID``).

Tune on ``dev`` only; ``test`` is for reporting. Run: ``./run bench ask [--split dev|test|all]`` (writes
bench/results/ask.{json,md}; ``--no-write`` to look only, ``--no-first-run`` to skip the fresh-process quickstart).

``--corpus b`` runs the same on a second corpus (bench/data/corpus_b: an employee handbook, a tool's changelog and
FAQ), documents of other kinds than the example corpus's runbooks and ADRs, with bench/data/corpus_b_questions.jsonl
(dev: the questions that found the fixes of 2026-11-28; test: written before any of them was run). It writes
bench/results/ask_corpus_b.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.squad2 import percentile, reply_outcome

QUICKSTART = "What does ADR-011 say about the client/server boundary?"
DATA = Path(__file__).resolve().parent / "data" / "example_questions.jsonl"
RESULTS = Path(__file__).resolve().parent / "results"
CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
SPLITS = ("dev", "test")


@dataclass(frozen=True)
class Corpus:
    folder: Path
    questions: Path
    collection: str
    results: str  # bench/results/<results>.{json,md}
    title: str


CORPORA = {
    "example": Corpus(CORPUS, DATA, "examples", "ask", "the example corpus"),
    "b": Corpus(Path(__file__).resolve().parent / "data" / "corpus_b",
                Path(__file__).resolve().parent / "data" / "corpus_b_questions.jsonl", "corpus-b", "ask_corpus_b",
                "a second corpus (an employee handbook, a tool's changelog and FAQ)"),
}


@dataclass(frozen=True)
class Question:
    question: str
    answerable: bool
    answers: tuple[str, ...]
    split: str
    source: str | None = None


def load_questions(split: str, path: Path = DATA) -> list[Question]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [Question(r["question"], bool(r["answerable"]), tuple(r.get("answers") or ()), r["split"],
                          r.get("source")) for r in rows]
    return questions if split == "all" else [q for q in questions if q.split == split]


def _cell(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def score(result: Any, q: Question) -> dict[str, Any]:
    """One reply (controlplane.api.Response) scored against its question as bench/squad2.py scores, with the cause of
    a miss."""
    outcome = reply_outcome(result.status, result.claims, result.assistant_text, q.answers)
    answered, correct, abstained = outcome["answered"], outcome["correct"], outcome["abstained"]
    pack_text = "\n".join(item.text for item in result.evidence_pack.evidence) if result.evidence_pack else ""
    retrieved = any(gold in pack_text for gold in q.answers)
    if q.answerable:
        if correct:
            cause = None
        elif not retrieved:
            cause = "not retrieved"
        elif result.status == "refused":
            cause = "refused by " + (", ".join(result.failing_gates) or "?")
        elif answered:
            cause = "answered wrong"
        else:
            cause = "retrieved but not chosen"
    else:
        cause = None if abstained else ("answered" if answered else "neither answered nor abstained")
    return {"answered": answered, "correct": correct, "gold_retrieved": retrieved, "abstained": abstained,
            "unverified_displayed": outcome["unverified_displayed"], "miss_cause": cause}


def split_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    seconds = [r["seconds"] for r in rows]
    return {
        "questions": len(rows), "answerable": len(answerable), "unanswerable": len(unanswerable),
        "answered_correct": sum(r["correct"] for r in answerable),
        "gold_retrieved": sum(r["gold_retrieved"] for r in answerable),
        "abstained": sum(r["abstained"] for r in unanswerable),
        "unverified_displayed": sum(r["unverified_displayed"] for r in rows),
        "selector_calls": sum(r["selector_used"] for r in rows),
        "p50_s": percentile(seconds, 0.5), "p90_s": percentile(seconds, 0.9),
    }


def first_run_seconds(home: Path, model: str) -> dict:
    """``controlplane ask QUICKSTART`` in a new process with an empty CONTROLPLANE_HOME: imports, indexing the example
    corpus, model load and the answer, as a user's first question after install."""
    env = {**os.environ, "CONTROLPLANE_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [str(Path(sys.executable).parent / "controlplane"), "ask", QUICKSTART, "--json", "--model", model]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    seconds = round(time.perf_counter() - started, 2)
    try:
        data = json.loads(done.stdout)
    except ValueError:
        return {"seconds": seconds, "status": f"exit {done.returncode}", "verified": False,
                "stderr_tail": done.stderr[-500:]}
    return {"seconds": seconds, "status": data["status"], "verified": data["verified"],
            "answer": data["assistant_text"]}


def _percent(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def render(summary: dict[str, Any]) -> str:
    first_run = summary.get("quickstart_first_run")
    corpus = CORPORA[summary.get("corpus", "example")]
    command = "./run bench ask" + ("" if corpus is CORPORA["example"] else " --corpus b")
    lines = [f"# Main job end to end on {corpus.title} (`{command}`)", ""]
    if first_run:
        lines += [f"Quickstart question on its first run (a new process, fresh index of the example corpus included): "
                  f"**{first_run['seconds']} s**, {first_run['status']}, verified: {first_run['verified']}.", ""]
    lines += [f"Question set bench/data/{corpus.questions.name}, split `{summary['split']}`. Model "
              f"{summary['model']}, shipped NLI verifier, shipped bundle, "
              f"{corpus.title} ({corpus.folder.relative_to(CORPUS.parents[1])}, k={summary['k']}). "
              f"{summary['cpus']} CPUs, load average {summary['load_average']:.1f}. Index build "
              f"{summary['index_example_corpus_s']} s; model load {summary['model_and_services_load_s']} s.", "",
              "| split | answered and correct | gold retrieved | abstained | unverified sentences shown | "
              "selector calls | p50 s | p90 s |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, s in summary["splits"].items():
        lines.append(f"| {name} | {_percent(s['answered_correct'], s['answerable'])} | "
                     f"{_percent(s['gold_retrieved'], s['answerable'])} | {_percent(s['abstained'], s['unanswerable'])} | "
                     f"{s['unverified_displayed']} | {s['selector_calls']} | {s['p50_s']} | {s['p90_s']} |")
    lines += ["", "| split | question | answerable | status | miss cause | s | trace | answer |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {r['split']} | {r['question']} | {'yes' if r['answerable'] else 'no'} | {r['status']} | "
              f"{r['miss_cause'] or '-'} | {r['seconds']} | `{r['trace_id']}` | {_cell(r['answer'])} |"
              for r in summary["rows"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="dev")
    parser.add_argument("--questions", type=int, default=None, help="only the first N questions of the split")
    parser.add_argument("--model", default="default")
    parser.add_argument("--k", type=int, default=None,
                        help="retrieval_k (default: the bundle's retrieval_required k, as `controlplane ask` uses)")
    parser.add_argument("--no-first-run", action="store_true", help="skip the quickstart in a fresh process")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="example",
                        help="example (default: examples/corpus) or b (bench/data/corpus_b; no quickstart run)")
    args = parser.parse_args(argv)
    corpus = CORPORA[args.corpus]

    from controlplane.api import ControlPlane
    from controlplane.evidence_pack.vector_store import VectorStore
    from controlplane.policy_bundles.loader import load_bundle

    questions = load_questions(args.split, corpus.questions)[: args.questions]
    workdir = Path(tempfile.mkdtemp(prefix="bench-ask-"))
    first_run = None
    if not args.no_first_run and args.corpus == "example":  # the quickstart asks the example corpus
        first_run = first_run_seconds(workdir / "fresh-home", args.model)
        print(f"first run of the quickstart question (fresh index, new process): {first_run['seconds']} s, "
              f"{first_run['status']}, verified {first_run['verified']}", flush=True)
    index_started = time.perf_counter()
    VectorStore(workdir / "index", create=True).add_paths(corpus.collection, [corpus.folder])
    index_s = time.perf_counter() - index_started
    load_started = time.perf_counter()
    # Assembled as `controlplane ask` assembles it (the one ControlPlane), on the shipped bundle.
    plane = ControlPlane(model=args.model, policy=load_bundle(), db=workdir / "traces.db", collection=corpus.collection,
                         index=workdir / "index", retrieval_k=args.k)
    k = plane.retrieval_k
    load_s = time.perf_counter() - load_started

    rows = []
    for q in questions:
        began = time.perf_counter()
        result = plane.respond(q.question, retrieve=True)
        took = time.perf_counter() - began
        row = {"split": q.split, "question": q.question, "answerable": q.answerable, "answers": list(q.answers),
               "status": result.status, "verified": result.verified, "attempts": result.attempts,
               "seconds": round(took, 2), "failing_gates": sorted(result.failing_gates),
               "selector_used": bool((result.mode_decision or {}).get("selectorUsed")),
               "trace_id": result.trace_id, "answer": result.assistant_text, **score(result, q)}
        rows.append(row)
        print(f"{q.split:<4} {row['status']:<10} {took:5.1f} s  {row['miss_cause'] or 'ok':<28} {q.question}",
              flush=True)

    splits = [s for s in SPLITS if any(r["split"] == s for r in rows)]
    summary = {
        "corpus": args.corpus, "split": args.split, "model": plane.model_id, "nli_backend": "shipped", "k": k, "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0], "index_example_corpus_s": round(index_s, 2),
        "model_and_services_load_s": round(load_s, 2), "quickstart_first_run": first_run,
        "splits": {s: split_summary([r for r in rows if r["split"] == s]) for s in splits},
        "rows": rows,
    }
    text = render(summary)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"{corpus.results}.json").write_text(json.dumps(summary, indent=2) + "\n")
        (RESULTS / f"{corpus.results}.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
