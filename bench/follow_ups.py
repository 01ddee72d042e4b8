"""Follow-up questions on the example corpus: a conversation's last question read with the one before it, against
the same plane reading the last message alone (the baseline, in the same run).

Each row of bench/data/example_follow_ups.jsonl is a conversation: the user's earlier question(s), asked first
through the same plane (its reply becomes the assistant turn), then the follow-up ("And for Enterprise plan keys?",
"Are they encrypted?") with the whole conversation, as a chat app sends it over the API. Scored as bench/ask.py
scores the single questions (answered and correct, abstained, unverified sentences shown: must be 0). Two systems on
the shipped bundle: ``router.follow_ups`` on (shipped) and off (the last message alone, as before). Some follow-ups
stand on their own ("Where are feature flags evaluated?") and must be read as sent; a third of them are not answered
by the corpus and must end UNKNOWN.

Tune on ``dev`` only; ``test`` is for reporting. Run: ``./run bench follow_ups [--split dev|test|all]`` (writes
bench/results/follow_ups.{json,md}; ``--no-write`` to look only).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.ask import CORPUS, RESULTS, SPLITS, Question, _cell, _percent, score
from bench.squad2 import percentile

DATA = Path(__file__).resolve().parent / "data" / "example_follow_ups.jsonl"
SYSTEMS = {"read with the previous question (shipped)": True, "last message alone (before)": False}


@dataclass(frozen=True)
class Conversation:
    previous: tuple[str, ...]
    question: Question


def load_conversations(split: str, path: Path = DATA) -> list[Conversation]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    conversations = [Conversation(tuple(r["previous"]), Question(r["question"], bool(r["answerable"]),
                                                                 tuple(r.get("answers") or ()), r["split"]))
                     for r in rows]
    return conversations if split == "all" else [c for c in conversations if c.question.split == split]


def ask_conversation(plane: Any, conversation: Conversation) -> tuple[Any, float]:
    """The earlier questions asked one by one (each reply becomes the assistant turn), then the follow-up with the
    whole conversation; the follow-up's reply and its seconds."""
    messages: list[dict[str, str]] = []
    for earlier in conversation.previous:
        messages.append({"role": "user", "content": earlier})
        reply = plane.respond(list(messages), retrieve=True)
        messages.append({"role": "assistant", "content": reply.assistant_text})
    messages.append({"role": "user", "content": conversation.question.question})
    began = time.perf_counter()
    result = plane.respond(messages, retrieve=True)
    return result, time.perf_counter() - began


def summary_of(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    return {
        "questions": len(rows), "answerable": len(answerable), "unanswerable": len(unanswerable),
        "answered_correct": sum(r["correct"] for r in answerable),
        "abstained": sum(r["abstained"] for r in unanswerable),
        "unverified_displayed": sum(r["unverified_displayed"] for r in rows),
        "read_with_previous": sum(r["rule"] is not None for r in rows),
        "p50_s": percentile([r["seconds"] for r in rows], 0.5),
    }


def render(summary: dict[str, Any]) -> str:
    lines = ["# Follow-up questions on the example corpus (`./run bench follow_ups`)", "",
             f"Conversations bench/data/example_follow_ups.jsonl, split `{summary['split']}`: the earlier question "
             f"asked first, then the follow-up with the whole conversation. Model {summary['model']}, shipped bundle "
             f"and NLI verifier, example corpus. {summary['cpus']} CPUs, load average {summary['load_average']:.1f}. "
             "Both systems in the same run; they differ only in the bundle's `router.follow_ups`.", "",
             "| system | split | answered and correct | abstained | unverified sentences shown | read with the "
             "previous question | p50 s |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for system, splits in summary["systems"].items():
        for name, s in splits.items():
            lines.append(f"| {system} | {name} | {_percent(s['answered_correct'], s['answerable'])} | "
                         f"{_percent(s['abstained'], s['unanswerable'])} | {s['unverified_displayed']} | "
                         f"{s['read_with_previous']}/{s['questions']} | {s['p50_s']} |")
    lines += ["", "| split | previous question | follow-up | answerable | read as | shipped: status, miss cause | "
              "shipped answer | before: status, miss cause |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row, before in zip(summary["rows"], summary["rows_before"], strict=True):
        lines.append(f"| {row['split']} | {' / '.join(row['previous'])} | {row['question']} | "
                     f"{'yes' if row['answerable'] else 'no'} | {row['read_as'] or '(as sent)'} | "
                     f"{row['status']}, {row['miss_cause'] or 'ok'} | {_cell(row['answer'])} | "
                     f"{before['status']}, {before['miss_cause'] or 'ok'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="dev")
    parser.add_argument("--model", default="default")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)

    from controlplane.api import ControlPlane
    from controlplane.evidence_pack.vector_store import VectorStore
    from controlplane.policy_bundles.loader import load_bundle, parse_bundle

    conversations = load_conversations(args.split)
    workdir = Path(tempfile.mkdtemp(prefix="bench-follow-ups-"))
    VectorStore(workdir / "index", create=True).add_paths("examples", [CORPUS])
    shipped = load_bundle()
    rows_by_system: dict[str, list[dict[str, Any]]] = {}
    model_id = ""
    for system, follow_ups in SYSTEMS.items():
        bundle = shipped.bundle.model_copy(
            update={"router": shipped.bundle.router.model_copy(update={"follow_ups": follow_ups})})
        policy = parse_bundle(bundle.model_dump(mode="json"), f"default bundle, router.follow_ups={follow_ups}")
        plane = ControlPlane(model=args.model, policy=policy, db=workdir / f"traces-{follow_ups}.db",
                             collection="examples", index=workdir / "index")
        model_id = plane.model_id
        rows = []
        for conversation in conversations:
            q = conversation.question
            result, took = ask_conversation(plane, conversation)
            reading = result.follow_up or {}
            row = {"split": q.split, "previous": list(conversation.previous), "question": q.question,
                   "answerable": q.answerable, "answers": list(q.answers), "rule": reading.get("rule"),
                   "read_as": reading.get("read_as"), "status": result.status, "verified": result.verified,
                   "seconds": round(took, 2), "trace_id": result.trace_id, "answer": result.assistant_text,
                   **score(result, q)}
            rows.append(row)
            print(f"{system[:12]:<12} {q.split:<4} {row['status']:<9} {row['miss_cause'] or 'ok':<26} "
                  f"{q.question} -> {row['read_as'] or '(as sent)'}", flush=True)
        rows_by_system[system] = rows
        plane.close()

    splits = [s for s in SPLITS if any(c.question.split == s for c in conversations)]
    shipped_name, before_name = SYSTEMS
    summary = {
        "split": args.split, "model": model_id, "cpus": os.cpu_count(), "load_average": os.getloadavg()[0],
        "systems": {system: {s: summary_of([r for r in rows if r["split"] == s]) for s in splits}
                    for system, rows in rows_by_system.items()},
        "rows": rows_by_system[shipped_name], "rows_before": rows_by_system[before_name],
    }
    text = render(summary)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "follow_ups.json").write_text(json.dumps(summary, indent=2) + "\n")
        (RESULTS / "follow_ups.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
