"""Where the blast-radius graph puts things: layers and colours derived from the model, node positions.

Layers are derived from the model, never listed by hand (:func:`kind_layers`):
the kind-level graph of traversable edge declarations
(:data:`graphkit.model.EDGE_SPECS`) is condensed into strongly connected
components and ranked by longest path.  Kinds added later fall into place by
their declared edges.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import networkx as nx
from plotly.colors import qualitative

from graphkit.analysis import BlastRadius
from graphkit.graph import Graph
from graphkit.model import EdgeKind, EDGE_SPECS, Criticality, Edge, NodeKind

__all__ = ["PALETTE", "GraphLayout", "folded_edges", "graph_layout", "kind_colors", "kind_layers"]

#: D3 category10, then the dark tones of category20b, then Dark24 (distinct enough side by side).
PALETTE = qualitative.D3 + ["#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3", "#8ca252",
                            "#bd9e39", "#ad494a", "#a55194"] + qualitative.Dark24
_KIND_RANK = {k: i for i, k in enumerate(NodeKind)}
_CRIT_RANK = {c: i for i, c in enumerate(Criticality)}


def kind_layers() -> dict[NodeKind, int]:
    """Layer (column) of every node kind, derived from the traversable edge declarations.

    Returns
    -------
    dict of NodeKind to int
        0 for kinds nothing traversable enters from another component
        (runner, host), increasing along declared traversable edges; kinds in
        one cycle of declarations (runner <-> host, job <-> cache) share a
        layer.

    Examples
    --------
    >>> layers = kind_layers()
    >>> layers[NodeKind.RUNNER] == layers[NodeKind.HOST] < layers[NodeKind.JOB] < layers[NodeKind.SECRET]
    True
    >>> layers[NodeKind.OIDC_IDENTITY] < layers[NodeKind.CLOUD_ROLE] < layers[NodeKind.SIGNING_KEY]
    True
    """
    kg = nx.DiGraph()
    kg.add_nodes_from(NodeKind)
    for spec in EDGE_SPECS.values():
        # edges back to a foothold (a job's code persisting on runners and hosts, a credential that attaches a
        # runner to a group or polls a runner's jobs, a repository writer's code run in jobs and on runners and
        # hosts) would fold runners, jobs, tokens, repositories and credentials into one layer: the layout leaves
        # them out
        if spec.traversable and not spec.source_only and spec.kind not in _BACK_TO_FOOTHOLD:
            kg.add_edges_from((s, t) for s in spec.sources for t in spec.targets if s != t)
    cond = nx.condensation(kg)
    rank: dict[int, int] = {}
    for c in nx.topological_sort(cond):
        preds = list(cond.predecessors(c))
        rank[c] = max((rank[p] + 1 for p in preds), default=0)
    members = cond.graph["mapping"]
    return {k: rank[members[k]] for k in NodeKind}


#: edge kinds that lead back to a foothold whatever their ends (see :func:`kind_layers`)
_BACK_TO_FOOTHOLD = frozenset({EdgeKind.CAN_REGISTER_RUNNER, EdgeKind.WRITES_WORKFLOWS, EdgeKind.RUNS_CODE_IN,
                               EdgeKind.AUTHENTICATES_RUNNER})


def kind_colors() -> dict[NodeKind, str]:
    """A stable colour per node kind.

    Returns
    -------
    dict of NodeKind to str
        Kinds that traversable edges touch (those a blast radius can show)
        get the first colours, in declaration order; structural-only kinds
        follow.  Kinds added to the model get a colour without a change here.
    """
    touched = {k for spec in EDGE_SPECS.values() if spec.traversable for k in (*spec.sources, *spec.targets)}
    order = [k for k in NodeKind if k in touched] + [k for k in NodeKind if k not in touched]
    return {k: PALETTE[i % len(PALETTE)] for i, k in enumerate(order)}


def folded_edges(graph: Graph, ids: set[str]) -> dict[tuple[str, str], list[Edge]]:
    """Traversable edges among ``ids`` (self-loops left out), grouped by ``(source, target)`` in id order."""
    out: dict[tuple[str, str], list[Edge]] = {}
    for u in sorted(ids):
        for _, v, data in graph.nx.out_edges(u, data=True):
            if v in ids and u != v and data["traversable"]:
                out.setdefault((u, v), []).append(data["edge"])
    return out


@dataclass(frozen=True, slots=True)
class GraphLayout:
    """Positions of the blast-radius graph: column ``col`` (x) and row ``y`` of every node, the edges drawn."""

    #: folded edges to draw, by ``(source, target)``
    edges: dict[tuple[str, str], list[Edge]]
    col: dict[str, int]
    y: dict[str, float]
    #: node ids per column (dict order: sources, then reached nodes in result order)
    columns: dict[int, list[str]]
    #: the largest column size
    height: int

    @property
    def top(self) -> float:
        """y of the layer headers, above the tallest column."""
        return (self.height - 1) / 2 + 0.9


def graph_layout(graph: Graph, radius: BlastRadius, *, max_edges: int) -> GraphLayout:
    """Columns by kind layer (sources first, empty layers dropped), rows by kind then predecessors' barycentre.

    Above ``max_edges`` folded edges, only those on explanation paths are kept.
    """
    col = _columns(radius)
    edges = folded_edges(graph, set(col))
    if len(edges) > max_edges:
        on_paths = {(h.source, h.target) for r in radius for h in r.path}
        edges = {k: v for k, v in edges.items() if k in on_paths}
    columns: dict[int, list[str]] = {}
    for nid, c in col.items():
        columns.setdefault(c, []).append(nid)
    return GraphLayout(edges=edges, col=col, y=_rows(graph, columns, edges), columns=columns,
                       height=max(len(v) for v in columns.values()))


def _columns(radius: BlastRadius) -> dict[str, int]:
    layers = kind_layers()
    col: dict[str, int] = {s: 0 for s in radius.sources}
    for r in radius:
        col[r.id] = 1 + layers[r.kind]
    compact = {c: i for i, c in enumerate(sorted(set(col.values())))}
    return {k: compact[c] for k, c in col.items()}


def _rows(graph: Graph, columns: dict[int, list[str]], edges: dict[tuple[str, str], list[Edge]]) -> dict[str, float]:
    """y of every node: per column, grouped by kind (declaration order), then by barycentre of predecessors
    placed in earlier columns (descending), then criticality, then id; centred on 0."""
    preds: dict[str, list[str]] = {}
    for (u, v) in edges:
        preds.setdefault(v, []).append(u)
    y: dict[str, float] = {}

    def key(nid: str) -> tuple:
        node = graph.node(nid)
        bary = statistics.fmean([y[p] for p in preds.get(nid, []) if p in y] or [0.0])
        return (_KIND_RANK[node.spec.kind], -bary, _CRIT_RANK[node.criticality], nid)

    for c in sorted(columns):
        members = sorted(columns[c], key=key)
        n = len(members)
        for i, nid in enumerate(members):
            y[nid] = (n - 1) / 2 - i
    return y
