"""evidence_graph: the per-request evidence graph (EBOM "Evidence Graph Structure"), its constraints as a gate, and
Smart Notes' graph metrics (§4.1.3).

Nodes follow the seed's node schemas: a source node per evidence item of the pack (``source:E1``: content, sphere,
provenance {type, url, timestamp, tool_used}, metadata {credibility, confidence, volatility, ...}) and a claim node
per claim of the envelope (``claim:c1``: text, type, claim_category, support, reasoning {chain, validity},
confidence, contradictions). Edges point from what is claimed to what it rests on:

* ``support``: claim -> source, for each evidence item that supports the claim (nli_entailment's supporting ids when
  it scored the claim, else the cited ids);
* ``reasoning``: reasoning step -> premise (claim or source), from reasoning_chain;
* ``contradiction``: claim -> source, for an item that contradicts the claim (nli_entailment, evidence_conflicts);
  contradiction edges are not part of the support structure (they never make a cycle).

The graph is built from the envelope, the pack and the verdicts of the gates before this one (``prior_results``), so
``controlplane.ebom`` rebuilds the same graph from a stored trace. It is a plain adjacency map (:class:`EvidenceGraph`,
node attributes and edge kinds in insertion order, as networkx keeps them): the seed chose NetworkX, but building a
``DiGraph`` per request cost more than every check on it. networkx still runs the searches that need it (cycles,
longest path, betweenness) when the support structure has chains, and the functions here accept a networkx
``DiGraph`` too.

Constraints (the gate), each with a reason code:

* acyclic support structure: claims on a cycle fail CIRCULAR_REASONING;
* every claim reaches at least one source (CLAIM_NOT_GROUNDED), except an UNKNOWN claim and, below high stakes, a
  claim whose status the bundle exempts from citation at this rigor (labelled speculation: SUBJECTIVE, TRIVIAL);
* high stakes: every grounded claim rests on at least ``high_stakes_min_support`` (default 2) independent sources
  (INSUFFICIENT_SOURCES);
* confidence propagates: claim confidence <= min(confidence of what it rests on) x reasoning validity x
  verification score (CONFIDENCE_NOT_PROPAGATED).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controlplane.contracts import (
    ClaimStatus,
    CostClass,
    EvidencePack,
    GateResult,
    OutputEnvelope,
    ReasonCode,
    RigorLevel,
)

from .categories import states_absence
from .hookspec import hookimpl
from .interfaces import BaseGate, GateInput, GateStage, prior_records
from .sufficiency import required_sources, source_key, thresholds_for

SUPPORT, REASONING, CONTRADICTION = "support", "reasoning", "contradiction"
STRUCTURE = (SUPPORT, REASONING)
HIGH_STAKES_MIN_SUPPORT = 2
TOLERANCE = 1e-6


def source_node(evidence_id: str) -> str:
    return f"source:{evidence_id}"


def claim_node(claim_id: str) -> str:
    return f"claim:{claim_id}"


class EvidenceGraph:
    """A directed graph as two dicts: ``nodes`` (name -> attributes) and ``succ`` (name -> {target: edge kind}), both
    in insertion order. Re-adding an edge replaces its kind in place, as ``networkx.DiGraph.add_edge`` does."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, Any]] = {}
        self.succ: dict[str, dict[str, str]] = {}

    def add_node(self, name: str, **attributes: Any) -> None:
        self.nodes.setdefault(name, {}).update(attributes)
        self.succ.setdefault(name, {})

    def add_edge(self, source: str, target: str, kind: str) -> None:
        for name in (source, target):
            if name not in self.nodes:
                self.add_node(name)
        self.succ[source][target] = kind

    def has_node(self, name: str) -> bool:
        return name in self.nodes

    def has_edge(self, source: str, target: str) -> bool:
        return target in self.succ.get(source, ())

    def edges(self) -> list[tuple[str, str, str]]:
        """(source, target, kind) per edge, sources in node order (networkx's ``edges(data="kind")`` order)."""
        return [(u, v, k) for u, targets in self.succ.items() for v, k in targets.items()]

    def __contains__(self, name: object) -> bool:
        return name in self.nodes

    def __iter__(self):
        return iter(self.nodes)

    @classmethod
    def from_networkx(cls, graph: Any) -> EvidenceGraph:
        """The same graph from a ``networkx.DiGraph`` whose edges carry ``kind`` (node attribute dicts are shared)."""
        plain = cls()
        plain.nodes = {name: graph.nodes[name] for name in graph}
        plain.succ = {name: {target: data.get("kind") for target, data in graph.succ[name].items()} for name in graph}
        return plain


class Structure:
    """The support structure: support and reasoning edges only, as successor and predecessor sets, its nodes in the
    order networkx would have added them edge by edge. It is walked, never read: node data stays in the graph."""

    def __init__(self, edges: list[tuple[str, str]]):
        self.edge_list = edges
        self.succ: dict[str, dict[str, None]] = {}
        self.pred: dict[str, dict[str, None]] = {}
        for u, v in edges:
            for name in (u, v):
                if name not in self.succ:
                    self.succ[name] = {}
                    self.pred[name] = {}
            self.succ[u][v] = None
            self.pred[v][u] = None

    def __contains__(self, name: object) -> bool:
        return name in self.succ

    def __iter__(self):
        return iter(self.succ)

    def number_of_edges(self) -> int:
        return len(self.edge_list)

    def number_of_nodes(self) -> int:
        return len(self.succ)

    def as_networkx(self) -> Any:
        """A networkx DiGraph of the same edges, added in the same order (for the searches over chains)."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_edges_from(self.edge_list)
        return graph


def as_graph(graph: EvidenceGraph | Any) -> EvidenceGraph:
    """``graph`` as an EvidenceGraph (a networkx DiGraph is converted)."""
    return graph if isinstance(graph, EvidenceGraph) else EvidenceGraph.from_networkx(graph)


def claim_type(status: str, verdict: str, grounded: bool) -> str:
    """EBOM type: INFERENTIAL for a reasoning step, VERIFIED for a passing claim that rests on sources, else
    SPECULATIVE (labelled opinion, an honest UNKNOWN, or a claim that failed its checks)."""
    if status == _REASONING:
        return "INFERENTIAL"
    if verdict == "PASS" and grounded and status not in _UNVERIFIABLE:
        return "VERIFIED"
    return "SPECULATIVE"


_REASONING = ClaimStatus.REASONING.value  # read once: an enum's .value is a descriptor call, and this runs per claim
_UNVERIFIABLE = (ClaimStatus.UNKNOWN.value, ClaimStatus.SUBJECTIVE.value)


def build_graph(pack: EvidencePack, envelope: OutputEnvelope, results: Sequence[GateResult]) -> EvidenceGraph:
    """The evidence graph of one attempt: its pack, its envelope and the verdicts of the gates in ``results``."""
    graph = EvidenceGraph()
    in_pack = pack.by_id()
    nli = prior_records(results, "nli_entailment", "claim_records") or {}
    steps = prior_records(results, "reasoning_chain", "steps") or {}
    failed: dict[str, list[str]] = {}
    for result in results:
        if result.failed:
            for claim_id, codes in (result.details.get("claims") or {}).items():
                failed.setdefault(claim_id, []).extend(codes)
    source_confidences: dict[str, float] = {}
    for record in nli.values():
        for evidence_id, value in ((record.get("confidence_factors") or {}).get("source_confidences") or {}).items():
            source_confidences[evidence_id] = min(value, source_confidences.get(evidence_id, 1.0))
    for step in steps.values():
        for premise, value in ((step.get("confidence_factors") or {}).get("premise_confidences") or {}).items():
            if premise in in_pack:
                source_confidences[premise] = min(value, source_confidences.get(premise, 1.0))
    for item in pack.evidence:
        prov = item.provenance
        graph.add_node(source_node(item.id), kind="source", id=item.id, content=item.text, sphere=item.sphere.value,
                       source_key=source_key(item), source_type=item.type,
                       provenance={"type": item.type, "url": prov.source, "timestamp": prov.retrieved_at or
                                   prov.published_at, "tool_used": "retrieval" if item.retrieval_score is not None
                                   else "caller"},
                       metadata={"credibility": item.credibility, "confidence": source_confidences.get(item.id),
                                 "verified": True, "immutable": True, "volatility": item.volatility.value,
                                 "trust_tier": item.trust_tier.value})
    claims = envelope.meta.claim_map
    for claim in claims:
        record = nli.get(claim.claim_id) or {}
        step = steps.get(claim.claim_id)
        confidence = (step or {}).get("confidence") if step else record.get("confidence")
        factors = (step or record).get("confidence_factors") or {}
        graph.add_node(claim_node(claim.claim_id), kind="claim", id=claim.claim_id, text=claim.text,
                       claim_category=claim.status.value, confidence=confidence,
                       verdict="FAIL" if failed.get(claim.claim_id) else "PASS",
                       reason_codes=list(dict.fromkeys(failed.get(claim.claim_id, []))),
                       reasoning={"chain": [step] if step else [], "validity": (step or {}).get("validity")},
                       factors=factors, contradictions=[])
    for claim in claims:
        node = claim_node(claim.claim_id)
        record = nli.get(claim.claim_id) or {}
        supporting = record.get("supporting_ids") if "supporting_ids" in record else None
        support_ids = [i for i in (supporting if supporting is not None else claim.evidence_ids)
                       if i in in_pack]
        if claim.claim_id in steps:  # a step's own citations are the sources under its premises; keep them
            support_ids = [i for i in claim.evidence_ids if i in in_pack]
        for evidence_id in dict.fromkeys(support_ids):
            graph.add_edge(node, source_node(evidence_id), SUPPORT)
        for premise in (steps.get(claim.claim_id) or {}).get("premises", []):
            target = claim_node(premise) if graph.has_node(claim_node(premise)) else source_node(premise)
            if graph.has_node(target):
                graph.add_edge(node, target, REASONING)
        contradicting = {i for atom in record.get("atoms", []) for i in atom.get("contradicting_ids", [])}
        for evidence_id in sorted(contradicting):
            if evidence_id in in_pack and not graph.has_edge(node, source_node(evidence_id)):
                graph.add_edge(node, source_node(evidence_id), CONTRADICTION)
    for result in results:
        if result.gate_id != "evidence_conflicts":
            continue
        for conflict in result.details.get("conflicts", []):
            node, opposer = claim_node(str(conflict.get("claim_id"))), source_node(str(conflict.get("opposer")))
            if graph.has_node(node) and graph.has_node(opposer) and not graph.has_edge(node, opposer):
                graph.add_edge(node, opposer, CONTRADICTION)
    support_structure = structure(graph)
    nodes = graph.nodes
    for node, data in nodes.items():
        if data["kind"] == "claim":
            data["contradictions"] = sorted(nodes[t]["id"] for t, k in graph.succ[node].items() if k == CONTRADICTION)
            data["support"] = reachable_sources(graph, node, support_structure)
            data["type"] = claim_type(data["claim_category"], data["verdict"], bool(data["support"]))
    return graph


def structure(graph: EvidenceGraph | Any) -> Structure:
    """The support structure: support and reasoning edges only."""
    graph = as_graph(graph)
    return Structure([(u, v) for u, targets in graph.succ.items() for v, k in targets.items() if k in STRUCTURE])


def has_chains(sub: Structure) -> bool:
    """Whether some node of the support structure both rests on something and is rested on. Without one every path
    has one edge: no cycle, depth 1 and zero betweenness everywhere, so those need not be searched for."""
    return any(sub.pred[n] and sub.succ[n] for n in sub)


def reachable_sources(graph: EvidenceGraph | Any, node: str, sub: Structure | None = None) -> list[str]:
    """Ids of the sources a claim rests on, directly or through premises (``sub``: the support structure, when the
    caller has it already)."""
    graph = as_graph(graph)
    sub = structure(graph) if sub is None else sub
    if node not in sub:
        return []
    below, stack = {node}, [node]
    while stack:
        for target in sub.succ[stack.pop()]:
            if target not in below:
                below.add(target)
                stack.append(target)
    below.discard(node)
    nodes = graph.nodes
    return sorted(nodes[n]["id"] for n in below if nodes[n]["kind"] == "source")


@dataclass
class ConstraintReport:
    claims: dict[str, list[str]] = field(default_factory=dict)  # failing claim id -> codes
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    cycles: list[list[str]] = field(default_factory=list)

    def fail(self, claim_id: str, code: ReasonCode) -> None:
        codes = self.claims.setdefault(claim_id, [])
        if code.value not in codes:
            codes.append(code.value)


def check_constraints(graph: EvidenceGraph | Any, high_stakes: bool, exempt: Iterable[str],
                      min_support: int = HIGH_STAKES_MIN_SUPPORT, sub: Structure | None = None) -> ConstraintReport:
    """EBOM graph constraints on one graph; pure (the gate and the tests call it). ``sub``: the graph's support
    structure, when the caller has it already."""
    graph = as_graph(graph)
    report = ConstraintReport()
    sub = structure(graph) if sub is None else sub
    nodes = graph.nodes
    exempt_statuses = set(exempt)
    if has_chains(sub):
        import networkx as nx

        chained = sub.as_networkx()
        for component in nx.strongly_connected_components(chained):
            if len(component) > 1 or any(chained.has_edge(n, n) for n in component):
                members = sorted(nodes[n]["id"] for n in component if nodes[n]["kind"] == "claim")
                report.cycles.append(members)
                for claim_id in members:
                    report.fail(claim_id, ReasonCode.CIRCULAR_REASONING)
    for node, data in nodes.items():
        if data["kind"] != "claim":
            continue
        claim_id, status = data["id"], data["claim_category"]
        sources = reachable_sources(graph, node, sub)
        independent = sorted({nodes[source_node(s)]["source_key"] for s in sources})
        record: dict[str, Any] = {"sources": sources, "independent_sources": len(independent)}
        honest_unknown = status == ClaimStatus.UNKNOWN.value and states_absence(data["text"])
        labelled = (not high_stakes and status in exempt_statuses and status != ClaimStatus.REASONING.value)
        if not sources:
            if honest_unknown or labelled:
                record["exempt"] = "UNKNOWN label" if honest_unknown else f"{status} is exempt at this rigor"
            else:
                report.fail(claim_id, ReasonCode.CLAIM_NOT_GROUNDED)
        elif high_stakes and len(independent) < min_support:
            report.fail(claim_id, ReasonCode.INSUFFICIENT_SOURCES)
        bound = propagated_bound(graph, node)
        record["confidence_bound"] = bound
        confidence = data.get("confidence")
        if confidence is not None and bound is not None and confidence > bound + TOLERANCE:
            report.fail(claim_id, ReasonCode.CONFIDENCE_NOT_PROPAGATED)
            record["confidence"] = confidence
        report.records[claim_id] = record
    return report


def propagated_bound(graph: EvidenceGraph | Any, node: str) -> float | None:
    """EBOM: min(confidence of what the claim rests on) x reasoning validity x verification score, or None when
    the claim was not scored. A step rests on its premises: a premise claim counts with the confidence its own node
    has in this graph (a step may never be surer than the claims it reasons from); an evidence premise with the
    source confidence the step used. Any other claim rests on its supporting sources, with the source confidences
    its verifier computed for it."""
    graph = as_graph(graph)
    nodes = graph.nodes
    data = nodes[node]
    factors = data.get("factors") or {}
    validity, verification = factors.get("reasoning_validity"), factors.get("verification_score")
    if validity is None or verification is None:
        return None
    below: list[float] = []
    if "premise_confidences" in factors:
        used = factors.get("premise_confidences") or {}
        for target, kind in graph.succ[node].items():
            if kind != REASONING:
                continue
            target_data = nodes[target]
            value = target_data.get("confidence") if target_data["kind"] == "claim" else used.get(target_data["id"])
            below.append(float(value) if value is not None else 0.0)
    else:
        used = factors.get("source_confidences") or {}
        below = [float(used[nodes[t]["id"]]) for t, k in graph.succ[node].items()
                 if k == SUPPORT and nodes[t]["id"] in used]
    if not below:
        return None
    return round(min(below) * float(validity) * float(verification), 4)


def graph_metrics(graph: EvidenceGraph | Any, sub: Structure | None = None) -> dict[str, Any]:
    """Smart Notes §4.1.3: redundancy, diversity, support depth; betweenness centrality per claim (its graph(c)).
    ``sub``: the graph's support structure, when the caller has it already."""
    graph = as_graph(graph)
    nodes = graph.nodes
    edges = graph.edges()
    claims = [n for n, d in nodes.items() if d["kind"] == "claim"]
    supports = [(u, v) for u, v, k in edges if k == SUPPORT]
    cited = {v for _, v in supports} | {v for u, v, k in edges if k == REASONING and nodes[v]["kind"] == "source"}
    sub = structure(graph) if sub is None else sub
    chains = has_chains(sub)
    depth = None
    centrality: dict[str, float] = {}
    if not sub.number_of_edges():
        depth = 0
    elif not chains:  # every path is one edge
        depth = 1
    else:
        import networkx as nx

        chained = sub.as_networkx()
        if nx.is_directed_acyclic_graph(chained):
            depth = nx.dag_longest_path_length(chained)
        if sub.number_of_nodes() > 2:
            centrality = nx.betweenness_centrality(chained)
    per_claim = {nodes[n]["id"]: round(centrality.get(n, 0.0), 4) for n in claims}
    return {
        "claims": len(claims),
        "sources": sum(1 for d in nodes.values() if d["kind"] == "source"),
        "support_edges": len(supports),
        "reasoning_edges": sum(1 for *_, k in edges if k == REASONING),
        "contradiction_edges": sum(1 for *_, k in edges if k == CONTRADICTION),
        "redundancy": round(len(supports) / len(claims), 4) if claims else 0.0,
        "diversity": round(len({nodes[n]["source_type"] for n in cited}) / len(cited), 4) if cited else 0.0,
        "support_depth": depth,
        "centrality": per_claim,
        "max_centrality": max(per_claim.values(), default=0.0),
    }


def graph_as_json(graph: EvidenceGraph | Any) -> dict[str, Any]:
    """Nodes and edges as plain JSON (for the trace), in a stable order."""
    graph = as_graph(graph)
    nodes = []
    for name in sorted(graph.nodes):
        data = dict(graph.nodes[name])
        data.pop("content", None)  # the pack already holds the text; the trace keeps ids and metadata
        data.pop("factors", None)
        nodes.append({"node": name, **data})
    edges = [{"from": u, "to": v, "kind": k} for u, v, k in sorted(graph.edges())]
    return {"nodes": nodes, "edges": edges}


class EvidenceGraphGate(BaseGate):
    gate_id = "evidence_graph"
    version = "v1"
    cost_class = CostClass.CHEAP
    stage = GateStage.POST_GENERATION

    def evaluate(self, inp: GateInput) -> GateResult:
        if (missing := self.needs_envelope(inp)) is not None:
            return missing
        decision, policy = inp.mode_decision, inp.policy
        domain, _ = thresholds_for(decision, policy)
        level = decision.rigorConfig.level
        high_stakes = decision.rigorConfig.nli_required or level is RigorLevel.HIGH or (
            domain is not None and policy.domains[domain].risk_level is RigorLevel.HIGH)
        exempt = [s.value for s in policy.citations.exempt_statuses.get(level, [])]
        min_support, support_from = self._min_support(inp)
        graph = build_graph(inp.evidence_pack, inp.envelope, inp.prior_results)
        sub = structure(graph)
        report = check_constraints(graph, high_stakes, exempt, min_support, sub)
        details: dict[str, Any] = {
            "metrics": graph_metrics(graph, sub),
            "graph": graph_as_json(graph),
            "constraints": {"high_stakes": high_stakes, "min_support": min_support if high_stakes else None,
                            "min_support_from": support_from if high_stakes else None,
                            "exempt_statuses": exempt if not high_stakes else [], "cycles": report.cycles},
            "claim_records": report.records,
            "warnings": [],
        }
        if report.claims:
            codes = [ReasonCode(c) for codes in report.claims.values() for c in codes]
            return self.failing(codes, evidence_refs=[f"claim_map:{cid}" for cid in report.claims],
                                details={"claims": report.claims, **details})
        return self.passing(details=details)

    @staticmethod
    def _min_support(inp: GateInput) -> tuple[int, str]:
        """Independent sources a grounded claim needs in high stakes. The bundle's ``high_stakes_min_support`` when
        the question itself is high stakes; when only the evidence made it so (ModeDecision.evidenceDomainFlags), the
        question's own requirement (sufficiency.required_sources): evidence raises strictness, not the count."""
        decision, policy = inp.mode_decision, inp.policy
        configured = int(inp.params.get("high_stakes_min_support", HIGH_STAKES_MIN_SUPPORT))
        question_high = [d for d in decision.domainFlags
                         if d in policy.domains and policy.domains[d].risk_level is RigorLevel.HIGH]
        if question_high:
            return configured, f"question_high_stakes:{question_high[0]}:{configured}"
        required = required_sources(decision, policy)
        return min(configured, required.count), required.reason


@hookimpl
def controlplane_gates():
    return [EvidenceGraphGate()]


__all__ = ["EvidenceGraph", "EvidenceGraphGate", "build_graph", "check_constraints", "claim_type", "graph_metrics",
           "propagated_bound", "reachable_sources"]
