"""G6 retrieval_required (medium): a request whose domain needs documents has evidence, fetched if necessary.

Runs before generation. When the domain requires retrieval and the pack is empty, the gate calls the retrieval
interface and FAILS with RETRIEVAL_REQUIRED plus what happened (seed flow 4): RETRIEVAL_PERFORMED with the items
in ``details.retrieved`` (the pipeline adds them to the pack and runs the gate again), RETRIEVAL_EMPTY, or
RETRIEVER_UNAVAILABLE. It never passes an empty pack in a domain that needs one.

Retrieved items are kept when their cosine reaches ``min_score``; ``lexical_pass`` (off unless the bundle sets it)
also keeps one of the ``max_lexical_rank`` best lexical (BM25) matches when it holds ``min_query_coverage`` of the
query's terms and reaches a lower cosine ``min_score`` (contracts.meets_retrieval_floor). ``details.kept_by`` says which rule kept each item.
"""

from __future__ import annotations

import inspect

from controlplane.contracts import CostClass, GateResult, ReasonCode, meets_retrieval_floor

from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage

DEFAULT_K = 4


class RetrievalRequiredGate(BaseGate):
    gate_id = "retrieval_required"
    version = "v1"
    cost_class = CostClass.MEDIUM
    stage = GateStage.PRE_GENERATION

    def requires_retrieval(self, inp: GateInput) -> list[str]:
        domains = inp.policy.domains
        return [flag for flag in inp.mode_decision.domainFlags if flag in domains and domains[flag].requires_retrieval]

    def evaluate(self, inp: GateInput) -> GateResult:
        requiring = self.requires_retrieval(inp)
        if not requiring:
            return self.passing(reason_codes=[ReasonCode.NOT_APPLICABLE])
        if inp.evidence_pack.evidence:
            return self.passing(details={"requiring_domains": requiring, "evidence_count": len(inp.evidence_pack.evidence)})
        retriever = inp.services.retriever
        base = {"requiring_domains": requiring}
        if retriever is None:
            return self.failing(
                [ReasonCode.RETRIEVAL_REQUIRED, ReasonCode.RETRIEVER_UNAVAILABLE],
                details={**base, "why": "no retriever configured (pass --collection or configure a retriever)"},
            )
        k = int(inp.params.get("k", DEFAULT_K))
        min_score = float(inp.params.get("min_score", 0.0))
        try:
            if "domains" in inspect.signature(retriever.retrieve).parameters:  # expert libraries of these domains
                items = retriever.retrieve(inp.user_message, k, domains=list(inp.mode_decision.domainFlags))
            else:
                items = retriever.retrieve(inp.user_message, k)
        except Exception as exc:  # the retriever is outside our control; its failure is a reason code, not a crash
            return self.failing(
                [ReasonCode.RETRIEVAL_REQUIRED, ReasonCode.RETRIEVER_UNAVAILABLE],
                details={**base, "error": f"{type(exc).__name__}: {str(exc)[:200]}"},
            )
        lexical_pass = inp.params.get("lexical_pass")
        verdicts = [(item, meets_retrieval_floor(item, min_score, lexical_pass)) for item in items]
        kept = [item for item, (keep, _) in verdicts if keep]
        kept_by = {item.id: why for item, (keep, why) in verdicts if keep}
        if not kept:
            return self.failing(
                [ReasonCode.RETRIEVAL_REQUIRED, ReasonCode.RETRIEVAL_EMPTY],
                details={**base, "retriever": getattr(retriever, "name", "?"), "candidates": len(items)},
            )
        return self.failing(
            [ReasonCode.RETRIEVAL_REQUIRED, ReasonCode.RETRIEVAL_PERFORMED],
            details={
                **base,
                "retriever": getattr(retriever, "name", "?"),
                "retrieved": [item.model_dump(mode="json") for item in kept],
                "kept_by": kept_by,
            },
        )


@hookimpl
def controlplane_gates():
    return [RetrievalRequiredGate()]
