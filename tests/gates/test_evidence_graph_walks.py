"""evidence_graph's own walks (support structure, reachable sources, cycles, depth, centrality) against networkx's
general algorithms on the same graphs: the shortcuts taken where no node lies on a chain must give what the full
searches give, on graphs with and without reasoning chains and cycles."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from controlplane.gates.evidence_graph import (
    CONTRADICTION,
    REASONING,
    STRUCTURE,
    SUPPORT,
    check_constraints,
    graph_metrics,
    reachable_sources,
)


def random_graph(rng: random.Random) -> nx.DiGraph:
    graph = nx.DiGraph()
    sources, claims = rng.randint(1, 5), rng.randint(1, 7)
    for i in range(sources):
        graph.add_node(f"source:E{i}", kind="source", id=f"E{i}", source_key=f"doc{rng.randint(0, 2)}",
                       source_type=rng.choice(["DOC", "WEB"]))
    for i in range(claims):
        graph.add_node(f"claim:c{i}", kind="claim", id=f"c{i}", text="A claim.", claim_category=rng.choice(
            ["FACTUAL", "REASONING", "UNKNOWN", "SUBJECTIVE"]), confidence=rng.choice([None, 0.5, 0.9]), factors={})
    for _ in range(rng.randint(0, 12)):
        kind = rng.choice([SUPPORT, REASONING, CONTRADICTION])
        target = rng.choice(list(graph)) if kind == REASONING else f"source:E{rng.randrange(sources)}"
        graph.add_edge(f"claim:c{rng.randrange(claims)}", target, kind=kind)
    return graph


def reference_structure(graph: nx.DiGraph) -> nx.DiGraph:
    return graph.edge_subgraph([(u, v) for u, v, k in graph.edges(data="kind") if k in STRUCTURE]).copy()


@pytest.mark.parametrize("seed", range(4))
def test_walks_match_networkx(seed):
    rng = random.Random(seed)
    chained = 0
    for _ in range(300):
        graph = random_graph(rng)
        sub = reference_structure(graph)
        chained += any(sub.in_degree(n) and sub.out_degree(n) for n in sub)
        for node in graph:
            expected = sorted(graph.nodes[n]["id"] for n in (nx.descendants(sub, node) if node in sub else ())
                              if graph.nodes[n]["kind"] == "source")
            assert reachable_sources(graph, node) == expected
        metrics = graph_metrics(graph)
        if not sub.number_of_edges():
            assert metrics["support_depth"] == 0
        elif nx.is_directed_acyclic_graph(sub):
            assert metrics["support_depth"] == nx.dag_longest_path_length(sub)
        else:
            assert metrics["support_depth"] is None
        centrality = nx.betweenness_centrality(sub) if sub.number_of_nodes() > 2 else {}
        assert metrics["centrality"] == {graph.nodes[n]["id"]: round(centrality.get(n, 0.0), 4)
                                         for n, d in graph.nodes(data=True) if d["kind"] == "claim"}
        cycles = sorted(sorted(graph.nodes[n]["id"] for n in component if graph.nodes[n]["kind"] == "claim")
                        for component in nx.strongly_connected_components(sub)
                        if len(component) > 1 or any(sub.has_edge(n, n) for n in component))
        assert sorted(check_constraints(graph, high_stakes=False, exempt=[]).cycles) == cycles
    assert 0 < chained < 300  # both paths (shortcut and full search) were exercised
