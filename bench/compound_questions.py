"""Questions that ask two things at once, answered in quote mode with and without cutting them into their parts.

``./run bench compound_questions [--pairs N]``. Data: squad2_dev_a.jsonl, the **dev** articles of bench/squad2.py's
split (the test articles are left for the main benchmark). Two questions about the same paragraph are joined the
way people ask them: "<first, without its question mark> and <second, lower-cased>?".

- *two answerable*: two answerable questions. Per part: a displayed verified quote holds its gold answer (before
  any UNKNOWN claim: the closest passages of an UNKNOWN reply do not count).
- *answerable + unanswerable*: the second is one of SQuAD 2.0's unanswerable questions. The first part as above;
  the second is *said to be unanswered* when the reply holds an UNKNOWN claim (a part named unanswered, or the
  whole question), and *answered with a quote* when the cut reply chose a sentence for it.
- *alone*: each question asked by itself (the ceiling the cut parts aim at).

Every row counts the unverified sentences displayed (must be 0). Shipped bundle, the embedded model (not called:
the scorer decides), the paragraph as the one evidence item.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from bench.squad2 import RESULTS, Question, load, reply_outcome, split_articles

SEED = 23


def joined(first: Question, second: Question) -> str:
    tail = second.question.strip()
    return f"{first.question.strip().rstrip('?').strip()} and {tail[0].lower()}{tail[1:]}"


def pairs(questions: list[Question], n: int, second_impossible: bool) -> list[tuple[Question, Question]]:
    by_paragraph: dict[str, list[Question]] = {}
    for q in questions:
        by_paragraph.setdefault(q.context, []).append(q)
    rng = random.Random(SEED + second_impossible)
    out = []
    for context in sorted(by_paragraph):
        answerable = [q for q in by_paragraph[context] if not q.impossible]
        seconds = [q for q in by_paragraph[context] if q.impossible == second_impossible]
        if not answerable or not [q for q in seconds if q not in answerable[:1]]:
            continue
        first = rng.choice(answerable)
        options = [q for q in seconds if q.id != first.id]
        if options:
            out.append((first, rng.choice(options)))
    rng.shuffle(out)
    return out[:n]


def answered_parts(result: Any, answers: tuple[str, ...]) -> bool:
    """A displayed verified quote before any UNKNOWN claim holds a gold answer."""
    if result.status.value == "refused":
        return False
    for claim in result.claims:
        if claim.status == "UNKNOWN":
            return False
        if claim.verdict == "PASS" and any(a in claim.text for a in answers):
            return True
    return False


def cut_choice(result: Any, index: int) -> bool | None:
    for event in result.events:
        if event.phase.value == "model_call" and "quote" in event.payload:
            parts = event.payload["quote"].get("parts") or []
            return bool(parts[index]["chosen"]) if len(parts) > index else None
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=60, help="pairs of each kind (default 60)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    from controlplane.adapters import load_model
    from controlplane.answerability import shipped_scorer
    from controlplane.contracts import AnswerMode
    from controlplane.evidence_pack import build_pack
    from controlplane.pipeline import Pipeline
    from controlplane.policy_bundles.loader import load_bundle, parse_bundle
    from controlplane.services import build_services

    dev = split_articles(load())["dev"]
    base = load_bundle()
    model = load_model("default")
    services = build_services(None, policy=base.bundle)
    scorer = shipped_scorer()
    planes = {}
    for name, split in (("whole", False), ("cut into parts (shipped)", True)):
        bundle = base.bundle.model_copy(update={"quote": base.bundle.quote.model_copy(update={"split_questions": split})})
        policy = parse_bundle(bundle.model_dump(mode="json"), f"default bundle, quote.split_questions={split}")
        planes[name] = Pipeline(model=model, policy=policy, services=services, answer_mode=AnswerMode.QUOTE,
                                answerability_scorer=scorer)
    rows: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for kind, impossible in (("two answerable", False), ("answerable + unanswerable", True)):
        todo = pairs(dev, args.pairs, impossible)
        for name, plane in [*planes.items(), ("alone", planes["cut into parts (shipped)"])]:
            row = rows.setdefault(f"{kind} | {name}", {"kind": kind, "system": name, "pairs": len(todo),
                                                          "first": 0, "second": 0, "both": 0, "unanswered_said": 0,
                                                          "second_quoted": 0, "unverified": 0, "seconds": []})
            for first, second in todo:
                pack = build_pack([{"id": "E1", "title": first.title, "text": first.context}],
                                  budget=plane.policy.bundle.budgets)
                began = time.perf_counter()
                if name == "alone":
                    one = plane.run([{"role": "user", "content": first.question}], evidence=pack)
                    two = plane.run([{"role": "user", "content": second.question}], evidence=pack)
                    got = (answered_parts(one, first.answers), answered_parts(two, second.answers))
                    said = any(c.status == "UNKNOWN" for c in two.claims) or two.status.value == "refused"
                    unverified = sum(reply_outcome(r.status.value, r.claims, r.assistant_text, ())["unverified_displayed"]
                                     for r in (one, two))
                    quoted = not said
                else:
                    result = plane.run([{"role": "user", "content": joined(first, second)}], evidence=pack)
                    got = (answered_parts(result, first.answers), answered_parts(result, second.answers))
                    said = any(c.status == "UNKNOWN" for c in result.claims) or result.status.value == "refused"
                    unverified = reply_outcome(result.status.value, result.claims, result.assistant_text,
                                               ())["unverified_displayed"]
                    quoted = bool(cut_choice(result, 1))
                row["seconds"].append(time.perf_counter() - began)
                row["first"] += got[0]
                row["second"] += got[1] and not impossible
                row["both"] += got[0] and got[1] and not impossible
                row["unanswered_said"] += said and impossible
                row["second_quoted"] += quoted and impossible
                row["unverified"] += unverified
            print(f"{kind:<26} {name:<26} first {row['first']}/{row['pairs']} second {row['second']} "
                  f"unanswered said {row['unanswered_said']}", flush=True)
    for row in rows.values():
        seconds = sorted(row.pop("seconds"))
        row["p50_s"] = round(seconds[len(seconds) // 2], 2) if seconds else None
    report = {"data": "squad2_dev_a.jsonl, dev articles of bench/squad2.py's split (seed 15); pairs seed "
                      f"{SEED}", "wall_s": round(time.perf_counter() - started, 1), "rows": list(rows.values())}
    table = render(report)
    print(table)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "compound_questions.json").write_text(json.dumps(report, indent=1) + "\n")
        (RESULTS / "compound_questions.md").write_text(table)
    return 0


def render(report: dict[str, Any]) -> str:
    def pct(value: int, total: int) -> str:
        return f"{100 * value / total:.1f}%" if total else "-"

    lines = ["# Compound questions in quote mode (`./run bench compound_questions`)", "",
             f"{report['data']}; {report['wall_s']} s. Definitions in bench/compound_questions.py.", "",
             "| pairs | system | first part answered | second part answered | both | second said unanswered | "
             "second answered with a quote | unverified shown | p50 s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in report["rows"]:
        n = row["pairs"]
        two = row["kind"] == "two answerable"
        lines.append(f"| {row['kind']} ({n}) | {row['system']} | {pct(row['first'], n)} | "
                     f"{pct(row['second'], n) if two else '-'} | {pct(row['both'], n) if two else '-'} | "
                     f"{'-' if two else pct(row['unanswered_said'], n)} | {'-' if two else pct(row['second_quoted'], n)}"
                     f" | {row['unverified']} | {row['p50_s']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
