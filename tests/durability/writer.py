"""A trace writer for the durability tests and the benchmark: real pipeline runs (scripted model) into a TraceStore.

Imported by the tests (threads, multiprocessing) and run as a script for the SIGKILL tests:

    python writer.py DB loop            # run requests forever, print "saved <trace_id>" after each
    python writer.py DB hang            # begin one request whose model never answers (killed mid-trace)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from controlplane.adapters.scripted import ScriptedModel
from controlplane.pipeline import Pipeline
from controlplane.policy_bundles.loader import load_bundle, parse_bundle
from controlplane.traces.store import TraceStore

QUESTION = "Which database does our service architecture use?"
STRUCTURAL = ("retrieval_required", "output_schema", "mode_echo_match", "evidence_binding", "citation_integrity",
              "claim_anchors", "budget_enforcer")


def evidence(n: int = 10) -> list[dict]:
    return [{"id": f"E{i}", "text": f"Component C{i} of the service stores tier {i} data in Turso.",
             "trust_tier": "authoritative"} for i in range(1, n + 1)]


def envelope(n_claims: int = 20, n_evidence: int = 10) -> dict:
    sentences = [f"Component C{i % n_evidence + 1} stores tier {i} data [E{i % n_evidence + 1}]."
                 for i in range(n_claims)]
    return {
        "assistant_text": " ".join(sentences),
        "meta": {
            "modeLabel": "System",
            "claim_map": [{"claim_id": f"c{i + 1}", "text": s, "evidence_ids": [f"E{i % n_evidence + 1}"],
                           "status": "FACTUAL"} for i, s in enumerate(sentences)],
        },
    }


def structural_policy():
    data = load_bundle().bundle.model_dump(mode="json", exclude_none=True)
    data["gates"] = [g for g in data["gates"] if g["gate_id"] in STRUCTURAL]
    data["budgets"]["max_output_tokens"] = 8192
    return parse_bundle(data, source="durability")


def make_plane(store: TraceStore | None, n_claims: int = 20, model=None, directory: Path | None = None) -> Pipeline:
    if model is None:
        directory = directory or Path(tempfile.mkdtemp(prefix="cp-writer-"))
        script = directory / f"script_{n_claims}.jsonl"
        if not script.exists():
            # Writers share the file: publish it whole (rename), so a concurrent reader never sees it half written.
            partial = directory / f"{script.name}.{os.getpid()}.{threading.get_ident()}.tmp"
            partial.write_text(json.dumps(envelope(n_claims)) + "\n", encoding="utf-8")
            os.replace(partial, script)
        model = ScriptedModel(script)
    return Pipeline(model=model, policy=structural_policy(), store=store)


def write_traces(db: str | Path, count: int, n_claims: int = 5, durability: str = "full") -> list[str]:
    """One writer: ``count`` real pipeline runs into the store at ``db``; returns the trace ids."""
    store = TraceStore(db, durability=durability)
    plane = make_plane(store, n_claims)
    pack = plane.build_pack(evidence())
    ids = []
    for _ in range(count):
        result = plane.run([{"role": "user", "content": QUESTION}], evidence=pack)
        if result.status.value != "pass":
            raise AssertionError(f"expected a passing run, got {result.status.value}")
        ids.append(result.trace_id)
    store.close()
    return ids


class NeverAnswers:
    """A model that hangs: the request is begun (stored in_progress) and never finishes."""

    def is_ready(self) -> bool:
        return True

    def metadata(self):
        from controlplane.model_boundary import ModuleMetadata

        return ModuleMetadata(model_id="never", model_hash="none", max_context_length=1)

    def generate(self, query, context, params):
        print("generating", flush=True)
        time.sleep(3600)


def main(argv: list[str]) -> int:
    db, mode = argv[0], argv[1]
    store = TraceStore(db)
    if mode == "hang":
        plane = make_plane(store, model=NeverAnswers())
        plane.run([{"role": "user", "content": QUESTION}], evidence=evidence())
        return 0
    plane = make_plane(store, n_claims=20)
    pack = plane.build_pack(evidence())
    while True:
        result = plane.run([{"role": "user", "content": QUESTION}], evidence=pack)
        print("saved", result.trace_id, len(result.events), flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
