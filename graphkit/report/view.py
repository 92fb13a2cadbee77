"""The report's interactive blast-radius view: data built here, drawn in the page by ``view.js`` (SVG, no library).

A plotly scatter stops helping once a blast radius has many sources and hundreds of nodes (labels pile up, the
legend covers the layer headers, edges of one layer are drawn on top of each other).  The view keeps the
layers by kind (:func:`~graphkit.report.layout.kind_layers`) and adds what a responder needs at org scale:

- **aggregation**: nodes of one kind and one owner (a job's or token's repository, a credential's host, a
  secret's owner...) are folded into one group node when there are :data:`GROUP_MIN` or more of them, shown
  with their count (and how many are critical); a click expands or collapses a group;
- **focus**: a selector (or a click on a source) shows only what one source reaches;
- **highlights**: rogue registrations (:attr:`graphkit.model.Runner.unvetted`: seen on a host, listed by no
  inventory) in red, and the cache-poisoning chain (``writes_cache`` / ``shares_cache`` / ``restores_into``
  edges, semantics §3) in orange;
- edges between nodes of one layer are arcs to the left of the column, their bulge growing with their span,
  so two of them never share a line; the legend is a block above the drawing, never over the headers.

Every string reaches the page through JSON parsed by the script and is set with ``textContent`` (never as
HTML); the JSON itself is embedded with ``<`` escaped, so no input can close the script element.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources
from typing import Any

from graphkit.analysis import BlastRadius, Reached, blast_radius
from graphkit.graph import Graph
from graphkit.model import Confidence, Criticality, Edge, EdgeKind, Node, NodeKind
from graphkit.output import neutralise
from graphkit.report.layout import folded_edges, kind_colors, kind_layers
from graphkit.report.text import evidence_lines

__all__ = ["CHAIN_KINDS", "GROUP_MIN", "VIEW_DATA_ID", "view_data", "view_html"]

#: Nodes of one kind and owner folded into a group node from this many on.
GROUP_MIN = 4
#: Edge kinds of the cache-poisoning chain: a job writes a cache (or a host shares one) that another job restores.
CHAIN_KINDS = frozenset({EdgeKind.WRITES_CACHE, EdgeKind.SHARES_CACHE, EdgeKind.RESTORES_INTO})
#: Kinds never folded (each one is a decision of its own in the plan).
_SINGLE = frozenset({NodeKind.RUNNER, NodeKind.HOST, NodeKind.CLOUD_ACCOUNT})
#: DOM id of the embedded JSON.
VIEW_DATA_ID = "gk-view-data"
_OWNER_FIELDS = ("repository", "host", "owner", "scope")


def _owner(node: Node) -> str:
    for f in _OWNER_FIELDS:
        value = getattr(node, f, None)
        if isinstance(value, str) and value:
            return value
    return ""


def _hover(node: Node, r: Reached | None) -> str:
    lines = [node.name, node.id, f"kind: {node.spec.kind.value} · criticality: {node.criticality.value}"]
    if r is None:
        return "\n".join(["source: " + node.name, node.id, f"kind: {node.spec.kind.value}"])
    life = r.path_lifetime.value
    if r.path_lifetime is not r.lifetime:
        life += f" on the shown path ({r.lifetime.value} over another path)"
    lines.append(f"confidence: {r.confidence.value} · lifetime: {life}")
    if r.path:
        lines.append(f"path: {len(r.path)} hop(s), last {r.path[-1].kind.value}")
        lines += [f"evidence: {x}" for x in evidence_lines(r.path[-1].evidence, 2)]
    return "\n".join(neutralise(x) for x in lines)


def _groups(reached: list[Node]) -> dict[str, str]:
    """Group label of every foldable node: ``kind · owner`` when :data:`GROUP_MIN` nodes share it, else ``kind``
    when that many of the kind are left (one cache per host on 13 hosts is one ``cache`` group)."""
    by_owner: dict[str, list[str]] = {}
    for n in reached:
        if n.spec.kind not in _SINGLE and not getattr(n, "unvetted", False):
            by_owner.setdefault(f"{n.spec.kind.value} · {_owner(n)}".rstrip(" ·"), []).append(n.id)
    out: dict[str, str] = {}
    left: dict[str, list[str]] = {}
    for key, members in by_owner.items():
        if len(members) >= GROUP_MIN:
            out |= dict.fromkeys(members, key)
        else:
            left.setdefault(key.split(" · ", 1)[0], []).extend(members)
    for kind, members in left.items():
        if len(members) >= GROUP_MIN:
            out |= dict.fromkeys(members, kind)
    return out


def _node_flags(node: Node, chain: set[str]) -> list[str]:
    flags = ["rogue"] if getattr(node, "unvetted", False) else []
    return flags + (["chain"] if node.id in chain else [])


def view_data(graph: Graph, radius: BlastRadius, *, per_source: dict[str, BlastRadius] | None = None) \
        -> dict[str, Any]:
    """The JSON the view script draws.

    Parameters
    ----------
    graph : Graph
        The typed graph.
    radius : BlastRadius
        The union blast radius of every source.
    per_source : dict of str to BlastRadius, optional
        Each source's own radius (computed when omitted; one per source: the focus mode).

    Returns
    -------
    dict
        ``{sources: [{id, name}], kinds: {kind: {color, rank}}, critical, nodes: [{id, name, kind,
        col, crit, conf, group, src: [source index], flags: [rogue|chain], hover}], edges: [[u, v, kinds,
        possible, chain]]}``: ``col`` is the node's layer (0 for the sources), ``group`` the group label
        (``kind · owner``) or null, ``src`` the sources reaching the node, edges by node index.
    """
    srcs = list(radius.sources)
    if per_source is None:
        per_source = per_source_radii(graph, srcs)
    reached = {r.id: r for r in radius}
    order = srcs + [r.id for r in radius]
    index = {nid: i for i, nid in enumerate(order)}
    reach: dict[str, list[int]] = {nid: [] for nid in order}
    for i, s in enumerate(srcs):
        for nid in (s, *(r.id for r in per_source[s])):
            reach[nid].append(i)
    edges, chain = _edges(folded_edges(graph, set(order)), index)
    group = _groups([graph.node(n) for n in order[len(srcs):]])
    layers = kind_layers()
    used = sorted({layers[r.kind] for r in radius})
    col_of = {layer: i + 1 for i, layer in enumerate(used)}
    nodes = []
    for nid in order:
        n, r = graph.node(nid), reached.get(nid)
        col = 0 if r is None else col_of[layers[r.kind]]
        nodes.append(_node_entry(n, r, col, chain, group.get(nid), reach[nid]))
    colors, rank = kind_colors(), {k: i for i, k in enumerate(NodeKind)}
    return {"sources": [{"id": neutralise(s), "name": neutralise(graph.node(s).name)} for s in srcs],
            "kinds": {k.value: {"color": colors[k], "rank": rank[k]} for k in NodeKind},
            "critical": Criticality.CRITICAL.value, "nodes": nodes, "edges": edges}


def _edges(pairs: dict[tuple[str, str], list[Edge]], index: dict[str, int]) -> tuple[list[list[Any]], set[str]]:
    """``[u, v, kinds, possible, chain]`` per folded pair (by node index), and the nodes on the cache chain."""
    edges, chain = [], set()
    for (u, v), es in pairs.items():
        on_chain = any(e.kind in CHAIN_KINDS for e in es)
        if on_chain:
            chain |= {u, v}
        edges.append([index[u], index[v], sorted({e.kind.value for e in es}),
                      not any(e.confidence is Confidence.CERTAIN for e in es), on_chain])
    return edges, chain


def _node_entry(n: Node, r: Reached | None, col: int, chain: set[str], group: str | None,
                src: list[int]) -> dict[str, Any]:
    """One node of :func:`view_data` (``r`` None: a source)."""
    flags = _node_flags(n, chain)
    return {"id": neutralise(n.id), "name": neutralise(n.name), "kind": n.spec.kind.value,
            "col": col,
            "crit": (r.criticality if r else n.criticality).value,
            "conf": r.confidence.value if r else Confidence.CERTAIN.value,
            "group": neutralise(group) if r is not None and group and "rogue" not in flags else None,
            "src": src, "flags": flags, "hover": _hover(n, r)}


def _script() -> str:
    return resources.files("graphkit.report").joinpath("view.js").read_text(encoding="utf-8")


def view_html(graph: Graph, radius: BlastRadius, div_id: str, *,
              per_source: dict[str, BlastRadius] | None = None) -> str:
    """The view's HTML: controls, legend, the drawing's container, the embedded data and the script.

    ``div_id`` is the container's DOM id.  The data is JSON with ``<``, ``>`` and ``&`` escaped as ``\\u003c``...
    (valid JSON, inert inside a script element).
    """
    data = json.dumps(view_data(graph, radius, per_source=per_source), separators=(",", ":"))
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (f'<div class="gk-controls"><label>focus <select id="gk-focus"></select></label> '
            '<button type="button" id="gk-expand">expand all</button> '
            '<button type="button" id="gk-collapse">collapse all</button> <span id="gk-shown"></span></div>'
            '<div class="gk-legend" id="gk-legend"></div>'
            f'<div class="gk-view" id="{div_id}"></div>'
            f'<script type="application/json" id="{VIEW_DATA_ID}">{data}</script>'
            f'<script>{_script()}</script>')


def per_source_radii(graph: Graph, sources: Iterable[str]) -> dict[str, BlastRadius]:
    """Each source's own blast radius (the focus mode's data)."""
    return {s: blast_radius(graph, s) for s in sources}
