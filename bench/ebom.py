"""What the reasoning chain, the evidence graph and the EBOM document cost per request (issue 13 items 1-3).

Not a test: it runs answers with a growing reasoning chain through ``ControlPlane.run`` (scripted model, the shipped
default bundle, an NLI backend that entails everything so that every step is checked to the end and the model's
time is nil) and reports, per answer size, the median latency of the ``reasoning_chain`` and ``evidence_graph``
gates (with ``nli_entailment`` beside them for scale) and of rendering the EBOM document from the stored trace
(``controlplane.ebom.ebom_document``). Prints a table and writes ``bench/results/ebom.{json,md}``.

An answer of size n: n facts "Service Si depends on service Si+1 [Ei]." each citing its own evidence item, and n-1
transitive reasoning steps, step k concluding "service S0 depends on service Sk+1" from step k-1 (or fact 1) and
fact k+1: a chain n-1 steps deep, 2n-1 claims in all.

Reproduce: ``./run bench ebom`` (or ``python -m bench.ebom``); ``--no-write`` to only print; ``--reps N``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from controlplane.adapters.scripted import ScriptedModel
from controlplane.ebom import ebom_document
from controlplane.gates.interfaces import GateServices, NliScore
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import load_bundle, parse_bundle
from controlplane.pytest_plugin import GateHarness
from controlplane.router import route
from controlplane.traces.store import TraceStore

RESULTS = Path(__file__).resolve().parent / "results"
QUESTION = "Which services depend on each other?"
SIZES = (2, 8, 16, 32)
GATES = ("nli_entailment", "reasoning_chain", "evidence_graph")


class EntailEverything:
    """A fooled verifier: every pair entailed. Keeps NLI time out of the figures and every step fully checked."""

    name = "entail-everything"
    method = "nli"

    def score(self, pairs):
        return [NliScore(entailment=0.99, contradiction=0.0, neutral=0.01) for _ in pairs]

    def metadata(self) -> dict[str, Any]:
        return {"name": self.name, "method": self.method}


def answer(n: int, mode: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    evidence = [{"id": f"E{i}", "text": f"Service S{i} depends on service S{i + 1}.", "trust_tier": "authoritative"}
                for i in range(1, n + 1)]
    claims: list[tuple] = [(f"Service S{i} depends on service S{i + 1} [E{i}].", [f"E{i}"]) for i in range(1, n + 1)]
    steps = []
    for k in range(1, n):
        previous = "c1" if k == 1 else f"c{n + k - 1}"
        text = f"Therefore service S1 depends on service S{k + 2}."
        claims.append((text, [], "REASONING"))
        steps.append((previous, f"c{k + 1}"))
    env = GateHarness.envelope(" ".join(c[0] for c in claims), claims=claims, mode=mode)
    for index, (first, second) in enumerate(steps):
        claim = env["meta"]["claim_map"][n + index]
        claim["premises"], claim["operation"] = [first, second], "transitive"
    env["meta"]["citations"] = [{"claim_id": c["claim_id"], "evidence_ids": c["evidence_ids"]}
                                for c in env["meta"]["claim_map"]]
    env["meta"]["used_evidence_ids"] = sorted(env["meta"]["used_evidence_ids"])
    return evidence, env


def bench_policy():
    """The shipped bundle with room for the largest answer (the scripted model honours the output token budget)."""
    data = load_bundle().bundle.model_dump(mode="json", exclude_none=True)
    data["budgets"].update(max_output_tokens=16384, max_output_chars=200_000, max_claims=128)
    return parse_bundle(data, source="bench:ebom")


def measure(n: int, reps: int, workdir: Path) -> dict[str, Any]:
    policy = bench_policy()
    mode = route(QUESTION, policy.bundle).modeLabel
    evidence, env = answer(n, mode)
    script = workdir / f"n{n}.jsonl"
    script.write_text(json.dumps(env) + "\n", encoding="utf-8")
    store = TraceStore(workdir / f"n{n}.db")
    timings: dict[str, list[float]] = {g: [] for g in GATES}
    timings["ebom_render"], timings["pipeline"] = [], []
    statuses, validities = set(), set()
    for _ in range(reps):
        plane = Pipeline(model=ScriptedModel(script), policy=policy, store=store,
                             services=GateServices(nli_backend=EntailEverything()))
        started = time.perf_counter()
        result = plane.run(QUESTION, evidence=evidence)
        timings["pipeline"].append((time.perf_counter() - started) * 1000)
        first = result.attempts[0]
        for gate in first.gate_results:
            if gate.gate_id in timings:
                timings[gate.gate_id].append(gate.measured.latency_ms)
        steps = next(g for g in first.gate_results if g.gate_id == "reasoning_chain").details.get("steps", {})
        validities |= {s["validity"] for s in steps.values()}
        bundle = store.load_bundle(result.trace_id)
        started = time.perf_counter()
        document = ebom_document(bundle)
        timings["ebom_render"].append((time.perf_counter() - started) * 1000)
        statuses.add(result.status.value)
    store.close()
    return {"facts": n, "steps": n - 1, "claims": 2 * n - 1, "status": sorted(statuses),
            "step_validity": sorted(validities), "support_depth": document["metadata"]["graph_metrics"][
                "support_depth"], **{f"{k}_ms_p50": round(statistics.median(v), 2) for k, v in timings.items()}}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in SIZES:
            rows.append(measure(n, args.reps, Path(tmp)))
    columns = ["claims", "steps", "support_depth", "status", "step_validity", "nli_entailment_ms_p50",
               "reasoning_chain_ms_p50", "evidence_graph_ms_p50", "ebom_render_ms_p50", "pipeline_ms_p50"]
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(str(row[c]) if not isinstance(row[c], list) else ",".join(row[c])
                                       for c in columns) + " |")
    table = "\n".join(lines)
    print(table)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "ebom.json").write_text(json.dumps({"reps": args.reps, "rows": rows}, indent=2) + "\n",
                                           encoding="utf-8")
        (RESULTS / "ebom.md").write_text(
            "# EBOM: reasoning chain, evidence graph and document cost\n\n"
            f"`python -m bench.ebom` ({args.reps} runs per size, medians; scripted model, an NLI backend that entails "
            "everything; 2-core machine shared with other jobs, so absolute figures are noisy).\n\n" + table + "\n",
            encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
