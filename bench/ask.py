"""The main job end to end: time to first verified answer on the embedded default models.

Each question goes through exactly what ``controlplane ask`` does: retrieval from the example corpus (MiniLM +
chromadb), generation on the embedded default GGUF under the per-request grammar, every gate of the shipped bundle
with the shipped NLI verifier, regen and degrade. Reports per question the final status, attempts and wall time, and
the time until the first question that ended verified (pass or regen_pass), if any did.

Run: ``./run bench ask`` (writes bench/results/ask.{json,md}).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTIONS = [
    "What does ADR-011 say about the client/server boundary?",
    "Where do we host the API?",
    "How long are database backups kept?",
    "What is the API rate limit per key?",
    "Who is paged first when production is down?",
    "How many days of application logs do we keep?",
]
RESULTS = Path(__file__).resolve().parent / "results"
CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"


def _cell(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def first_run_seconds(home: Path, model: str) -> dict:
    """``controlplane ask QUICKSTART`` in a new process with an empty CONTROLPLANE_HOME: imports, indexing the example
    corpus, model load and the answer, as a user's first question after install."""
    env = {**os.environ, "CONTROLPLANE_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [str(Path(sys.executable).parent / "controlplane"), "ask", QUESTIONS[0], "--json", "--model", model]
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=len(QUESTIONS))
    parser.add_argument("--model", default="default")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)

    from controlplane.api import ControlPlane
    from controlplane.evidence_pack.vector_store import VectorStore
    from controlplane.policy_bundles.loader import load_bundle

    workdir = Path(tempfile.mkdtemp(prefix="bench-ask-"))
    first_run = first_run_seconds(workdir / "fresh-home", args.model)
    print(f"first run of the quickstart question (fresh index, new process): {first_run['seconds']} s, "
          f"{first_run['status']}, verified {first_run['verified']}", flush=True)
    started_all = time.perf_counter()
    index_started = time.perf_counter()
    VectorStore(workdir / "index", create=True).add_paths("examples", [CORPUS])
    index_s = time.perf_counter() - index_started
    load_started = time.perf_counter()
    # Assembled as `controlplane ask` assembles it (the one ControlPlane), on the shipped bundle.
    plane = ControlPlane(model=args.model, policy=load_bundle(), db=workdir / "traces.db", collection="examples",
                         index=workdir / "index", retrieval_k=4)
    load_s = time.perf_counter() - load_started

    rows = []
    first_verified_s = None
    for question in QUESTIONS[: args.questions]:
        began = time.perf_counter()
        result = plane.respond(question, retrieve=True)
        took = time.perf_counter() - began
        rows.append({
            "question": question,
            "answer": result.assistant_text,
            "status": result.status,
            "verified": result.verified,
            "attempts": result.attempts,
            "seconds": round(took, 2),
            "failing_gates": sorted(result.failing_gates),
        })
        if result.verified and first_verified_s is None:
            first_verified_s = round(time.perf_counter() - started_all, 2)
        print(f"{rows[-1]['status']:<11} {rows[-1]['attempts']} attempt(s) {took:6.1f} s  {question}", flush=True)

    summary = {
        "model": plane.model_id,
        "nli_backend": "shipped",
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "index_example_corpus_s": round(index_s, 2),
        "model_and_services_load_s": round(load_s, 2),
        "questions": len(rows),
        "verified": sum(r["verified"] for r in rows),
        "status_counts": {s: sum(r["status"] == s for r in rows) for s in sorted({r["status"] for r in rows})},
        "median_seconds_per_question": sorted(r["seconds"] for r in rows)[len(rows) // 2],
        "p90_seconds_per_question": sorted(r["seconds"] for r in rows)[min(len(rows) - 1, int(0.9 * len(rows)))],
        "quickstart_first_run": first_run,
        "time_to_first_verified_answer_s": first_verified_s,
        "rows": rows,
    }
    table = ["| question | status | attempts | s | failing gates | answer |", "| --- | --- | --- | --- | --- | --- |"]
    table += [f"| {r['question']} | {r['status']} | {r['attempts']} | {r['seconds']} | "
              f"{', '.join(r['failing_gates']) or '-'} | {_cell(r['answer'])} |" for r in rows]
    text = "\n".join([
        "# Main job end to end (`./run bench ask`)",
        "",
        f"Quickstart question on its first run (a new process, fresh index of the example corpus included): "
        f"**{first_run['seconds']} s**, {first_run['status']}, verified: {first_run['verified']}.",
        "",
        f"Model {summary['model']}, shipped NLI verifier, shipped bundle, example corpus (k=4). 2 CPUs, load average "
        f"{summary['load_average']:.1f}. Index build {summary['index_example_corpus_s']} s; model load "
        f"{summary['model_and_services_load_s']} s.",
        "",
        *table,
        "",
        f"Verified answers: {summary['verified']}/{summary['questions']}; time to first verified answer: "
        f"{summary['time_to_first_verified_answer_s'] if first_verified_s is not None else 'none reached'}"
        + (" s" if first_verified_s is not None else "") + f"; median {summary['median_seconds_per_question']} s "
        "per question.",
    ])
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "ask.json").write_text(json.dumps(summary, indent=2) + "\n")
        (RESULTS / "ask.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
