"""The traversal snapshot: the traversable edges of a graph as integer-indexed CSR arrays (numpy), built once per
graph version.

networkx stays the model and the API; the analyses walk this snapshot instead of networkx dicts and pydantic
edges.  It is built straight from the adjacency (``graph.nx._succ``, the raw dict-of-dicts networkx's own
algorithms use), not through ``to_scipy_sparse_array``, and cached in the networkx graph's
``__networkx_cache__``, which every networkx mutating method clears (networkx >= 3.3: "the cache is cleared
whenever the graph is changed by a method"; a direct attribute change must call
:meth:`graphkit.graph.Graph.changed`).

Nodes are numbered in id order, so "neighbours by id" is "neighbours by index".  Arcs (one per traversable
edge) are grouped by source node, then by target, parallel edges of one pair together in key order; a *pair*
folds the parallel edges of ``u -> v`` as :class:`graphkit.analysis.reach.Pair` does, in two variants: the
edges any reached node follows (``source_only`` kinds left out, variant 0) and the edges a node running the
attacker's code follows (every traversable edge, variant 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphkit.analysis.reach import _life_rank, _path_rank, lasting_seconds
from graphkit.graph import Graph
from graphkit.model import EDGE_SPECS, Confidence, Edge, Lifetime, Node
from graphkit.storage import EdgeList, EdgeRecord

__all__ = ["Snapshot", "snapshot", "LIFETIMES"]

#: Lifetime codes of :attr:`Snapshot.life` (index into this tuple)
LIFETIMES: tuple[Lifetime, ...] = tuple(Lifetime)
_LIFE_CODE = {lt: i for i, lt in enumerate(LIFETIMES)}
_CACHE_KEY = "graphkit.analysis.snapshot"
_SOURCE_ONLY = frozenset(k.value for k, spec in EDGE_SPECS.items() if spec.source_only)
_RUNS_CODE = frozenset(k for k, spec in EDGE_SPECS.items() if spec.runs_code)
#: a kind both source-only and running code would make a pair's code mark depend on its owner: never declared
assert not any(s.source_only and s.runs_code for s in EDGE_SPECS.values())


@dataclass(frozen=True, slots=True, eq=False)
class Snapshot:
    """The traversable edges of one graph version, on integer indexes (see the module docstring).

    Shapes: ``n`` nodes, ``m`` arcs (traversable edges), ``p`` pairs (distinct ``(u, v)`` with at least one
    traversable edge).  Variant ``k`` of a pair: 0 without ``source_only`` edges, 1 with every edge.
    """

    #: node ids in sorted order (index = position)
    ids: list[str]
    #: position of every id
    index: dict[str, int]
    #: (n,) the node objects, index for index
    nodes: list[Node]
    #: (n + 1,) int64: the pairs leaving node ``i`` are ``pair_ptr[i]:pair_ptr[i + 1]``, by target index
    pair_ptr: np.ndarray
    #: (p,) int32: target node of every pair
    pair_target: np.ndarray
    #: (p + 1,) int64: the arcs of pair ``q`` are ``arc_ptr[q]:arc_ptr[q + 1]``
    arc_ptr: np.ndarray
    #: (m,) the edge of every arc (an :class:`~graphkit.storage.EdgeList`: each made on first read, then the same
    #: object)
    edges: EdgeList
    #: (m,) bool: the arc's kind is ``source_only``
    arc_source_only: np.ndarray
    #: (2, p) bool: the pair has an edge in variant k
    has: np.ndarray
    #: (2, p) int64: arc of the explanation edge in variant k (certain first, then longest-lived, kind, key); -1
    best: np.ndarray
    #: (2, p) int64: arc of the longest-lived edge in variant k (then certain, kind, key); -1
    longest: np.ndarray
    #: (2, p) bool: the explanation edge is certain
    certain: np.ndarray
    #: (2, p) float64: how long what the pair gives lasts, in seconds (``lasting_seconds`` of ``longest``)
    seconds: np.ndarray
    #: (2, p) int8: code in :data:`LIFETIMES` of ``longest``'s lifetime
    life: np.ndarray
    #: (p,) bool: some edge of the pair runs the attacker's code (``runs_code``; never a source-only kind)
    runs_code: np.ndarray
    #: per-node work arrays lent to one query at a time and handed back clean (:func:`borrow`): a query costs
    #: its own reach, never O(n) allocations
    scratch: dict = field(default_factory=dict)
    #: arrays derived from the nodes or the pairs, made on first use by the analyses that need them (e.g.
    #: :func:`graphkit.analysis.radius_arrays.node_columns`: criticality weight, result-order rank)
    derived: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.ids)

    def arcs_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """``(indptr, indices)`` of the node-level CSR of every traversable pair (variant 1), for scipy."""
        return self.pair_ptr, self.pair_target


def snapshot(graph: Graph) -> Snapshot:
    """The snapshot of ``graph``'s current version: built on first use, then cached until the graph changes.

    Time O(V log V + E) to build (one pass over the adjacency, in Python), O(1) when cached.
    """
    cache = getattr(graph.nx, "__networkx_cache__", None)
    snap = cache.get(_CACHE_KEY) if cache is not None else None
    if snap is None:
        snap = _build(graph)
        if cache is not None:
            cache[_CACHE_KEY] = snap
    return snap


def _build(graph: Graph) -> Snapshot:
    succ = graph.nx._succ
    ids = sorted(succ)
    index = {v: i for i, v in enumerate(ids)}
    pair_ptr = [0]
    pair_target: list[int] = []
    arc_ptr = [0]
    edges: list[Edge] = []
    src_only: list[bool] = []
    rows: list[tuple] = []
    bases: list[int] = []  # per pair, its first edge's index (``rows`` hold edge positions relative to it)
    single: dict = {}  # per edge form: the row of a pair of that one edge (most pairs)
    for u in ids:
        nbrs = succ[u]
        for v in (sorted(nbrs) if len(nbrs) > 1 else nbrs):
            multi = nbrs[v]
            if len(multi) == 1:
                (d,) = multi.values()
                if type(d) is EdgeRecord:
                    f = d.form
                    if not f.traversable:
                        continue
                    row = single.get(f)
                    if row is None:
                        row = single[f] = _fold([d], [f.value in _SOURCE_ONLY])
                    pair_target.append(index[v])
                    rows.append(row)
                    bases.append(len(edges))
                    edges.append(d)
                    src_only.append(f.value in _SOURCE_ONLY)
                    arc_ptr.append(len(edges))
                    continue
            data = [d for d in multi.values() if d["traversable"]]
            if not data:
                continue
            pair_target.append(index[v])
            # the graph's edge records read as edges (kind, confidence, lifetime, key) without making any
            views = [d if type(d) is EdgeRecord else d["edge"] for d in data]
            so = [d["kind"] in _SOURCE_ONLY for d in data]
            rows.append(_fold(views, so))
            bases.append(len(edges))
            edges += views
            src_only += so
            arc_ptr.append(len(edges))
        pair_ptr.append(len(pair_target))
    cols = list(zip(*rows)) if rows else [()] * 13
    base = np.array(bases, dtype=np.int64)
    two = lambda a, b, dt: np.array([cols[a], cols[b]], dtype=dt).reshape(2, len(rows))  # noqa: E731
    at = lambda a, b: np.where(two(0, 6, bool), two(a, b, np.int64) + base, -1)  # noqa: E731
    attrs = graph.nx._node
    return Snapshot(
        ids=ids, index=index, nodes=[attrs[v]["node"] for v in ids], pair_ptr=np.array(pair_ptr, dtype=np.int64),
        pair_target=np.array(pair_target, dtype=np.int32), arc_ptr=np.array(arc_ptr, dtype=np.int64),
        edges=EdgeList(edges), arc_source_only=np.array(src_only, dtype=bool),
        has=two(0, 6, bool), best=at(1, 7), longest=at(2, 8), certain=two(3, 9, bool),
        seconds=two(4, 10, np.float64), life=two(5, 11, np.int8), runs_code=np.array(cols[12], dtype=bool))


def _fold(edges: list[Edge], so: list[bool]) -> tuple:
    """The 13 columns of one pair: (has, best, longest, certain, seconds, life) per variant, then runs_code; best
    and longest are positions in ``edges`` (-1: none)."""
    row: list = []
    for variant in (0, 1):
        pos = [i for i in range(len(edges)) if variant or not so[i]]
        if not pos:
            row += [False, -1, -1, False, 0.0, 0]
            continue
        if len(pos) == 1:
            b = lg = pos[0]
        else:
            b = min(pos, key=lambda i: _path_rank(edges[i]))
            lg = min(pos, key=lambda i: _life_rank(edges[i]))
        row += [True, b, lg, edges[b].confidence is Confidence.CERTAIN,
                lasting_seconds(edges[lg]), _LIFE_CODE[edges[lg].lifetime]]
    row.append(any(e.kind in _RUNS_CODE for e in edges))
    return tuple(row)


def expand(ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries of ``rows`` in a CSR with row pointers ``ptr``, row after row: ``(entry indexes, owner row)``.

    Time O(len(rows) + entries), in numpy.
    """
    starts = ptr[rows]
    lens = ptr[rows + 1] - starts
    owner = np.repeat(rows, lens)
    shift = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    return np.arange(owner.size, dtype=np.int64) + shift, owner


def first_occurrence(t: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
    """``t`` (and the arrays beside it, index for index) at the first occurrence of each value of ``t``, in order
    of occurrence: the FIFO rule of a level-synchronous BFS.  Time O(k log k) for k values."""
    if t.size > 1:
        _, first = np.unique(t, return_index=True)
        first.sort()
        return (t[first], *(a[first] for a in rest))
    return (t, *rest)


def first_unseen(targets: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """``targets`` not yet discovered (``pos < 0``), deduplicated, in order of first occurrence."""
    return first_occurrence(targets[pos[targets] < 0])[0]


def borrow(snap: Snapshot, name: str, dtype: type, fill: object) -> np.ndarray:
    """A per-node array filled with ``fill``, lent by the snapshot (made on first use); hand it back with
    :func:`give_back` after resetting what was touched.  Nested borrowers get their own array."""
    a = snap.scratch.pop((name, fill), None)
    return a if a is not None else np.full(snap.n, fill, dtype=dtype)


def give_back(snap: Snapshot, name: str, a: np.ndarray, touched: np.ndarray, fill: object) -> None:
    """Reset ``a[touched]`` to ``fill`` and return ``a`` to the snapshot."""
    a[touched] = fill
    snap.scratch[(name, fill)] = a


def reach_order(snap: Snapshot, srcs: np.ndarray, tree: bool = False) -> tuple[np.ndarray, ...] | None:
    """The discovery order of :func:`graphkit.analysis.reach.collect` and which nodes run the attacker's code.

    A level-synchronous BFS over pairs, in numpy: a level's rows are scanned in discovery order, each by
    target index, and new targets keep their first occurrence, which is FIFO order.  A node runs the
    attacker's code when it is a source or entered through a ``runs_code`` pair; its row then follows
    ``source_only`` edges (variant 1).  Time O(reached pairs), in numpy calls per BFS level.

    Parameters
    ----------
    snap : Snapshot
    srcs : (k,) int array
        Source indexes, in id order.
    tree : bool
        Also return the BFS tree: the search is the BFS over every pair of each row's variant, so the first row
        (FIFO order) entering a node is its parent in :func:`graphkit.analysis.reach.bfs_tree` over every pair.

    Returns
    -------
    (order, code) or (order, code, parent, pair) or None
        ``order`` (r,) int64: the reached nodes (sources first) in discovery order; ``code`` (c,) int64: the
        nodes running the attacker's code, sorted; with ``tree``, ``parent`` and ``pair`` (r,) int64 beside
        ``order``: the node and pair entering each node (-1 for the sources).  None when a node is entered
        through a ``runs_code`` pair after its own row was scanned (``collect`` then rescans it at once: the
        caller falls back to it).
    """
    pos = borrow(snap, "pos", np.int64, -1)
    code = borrow(snap, "code", bool, False)
    pos[srcs] = np.arange(srcs.size)
    code[srcs] = True
    parts, marked, frontier, count = [srcs], [srcs], srcs, srcs.size
    parents, pairs = [np.full(srcs.size, -1, dtype=np.int64)], [np.full(srcs.size, -1, dtype=np.int64)]
    failed = False
    while frontier.size:
        pidx, owner = expand(snap.pair_ptr, frontier)
        marks = snap.runs_code[pidx]
        if marks.any():
            w, u = snap.pair_target[pidx[marks]], owner[marks]
            if (~code[w] & (pos[w] >= 0) & (pos[w] <= pos[u])).any():
                failed = True
                break
            code[w] = True
            marked.append(w)
        keep = snap.has[code[owner].astype(np.intp), pidx]
        pidx, owner = pidx[keep], owner[keep]
        new = snap.pair_target[pidx]
        fresh = pos[new] < 0
        new, pidx, owner = first_occurrence(new[fresh], pidx[fresh], owner[fresh])
        pos[new] = np.arange(count, count + new.size)
        count += new.size
        parts.append(new)
        parents.append(owner)
        pairs.append(pidx)
        frontier = new
    order = np.concatenate(parts).astype(np.int64)
    code_nodes = np.unique(np.concatenate(marked)).astype(np.int64)
    give_back(snap, "pos", pos, order, -1)
    give_back(snap, "code", code, code_nodes, False)
    if failed:
        return None
    if tree:
        return order, code_nodes, np.concatenate(parents).astype(np.int64), np.concatenate(pairs).astype(np.int64)
    return order, code_nodes


def _variant(snap: Snapshot, code_nodes: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Variant index (1: runs the attacker's code) of every ``owner``."""
    code = borrow(snap, "code", bool, False)
    code[code_nodes] = True
    var = code[owner].astype(np.intp)
    give_back(snap, "code", code, code_nodes, False)
    return var


def reached_pairs(snap: Snapshot, order: np.ndarray, code: np.ndarray) \
        -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of every reached row in its variant: ``(local, pidx, owner, variant)``: the borrowed (n,) int64
    local index of every reached node (discovery order; the caller gives it back), and per kept pair its index,
    its row's node and that row's variant (1: the row runs the attacker's code, so ``source_only`` pairs count)."""
    local = borrow(snap, "local", np.int64, -1)
    local[order] = np.arange(order.size)
    pidx, owner = expand(snap.pair_ptr, order)
    variant = _variant(snap, code, owner)
    keep = snap.has[variant, pidx]
    return local, pidx[keep], owner[keep], variant[keep]


def subgraph(graph: Graph, snap: Snapshot, order: np.ndarray, code: np.ndarray, n_src: int):
    """The :class:`~graphkit.analysis.reach.Subgraph` of ``reach_order``'s result (the pairs of every reached row
    in its variant, targets renumbered in discovery order).  Time O(reached pairs), one Python step per pair."""
    from graphkit.analysis.reach import Pair, Subgraph

    edges, arc_ptr, so = snap.edges, snap.arc_ptr, snap.arc_source_only
    local, pidx, owner, variant = reached_pairs(snap, order, code)
    counts = np.bincount(local[owner], minlength=order.size).tolist()
    cols = (local[snap.pair_target[pidx]].tolist(), snap.best[variant, pidx].tolist(),
            snap.certain[variant, pidx].tolist(), snap.seconds[variant, pidx].tolist(),
            snap.life[variant, pidx].tolist(), arc_ptr[pidx].tolist(), arc_ptr[pidx + 1].tolist(),
            variant.tolist())
    give_back(snap, "local", local, order, -1)
    make = tuple.__new__
    pairs = []
    for j, b, cert, secs, life, a, z, var in zip(*cols):
        if z - a == 1:
            group = (edges[a],)
        else:
            group = tuple(edges[x] for x in range(a, z) if var or not so[x])
        pairs.append(make(Pair, (j, edges[b], cert, secs, LIFETIMES[life], group)))
    adj, at = [], 0
    for c in counts:
        adj.append(pairs[at:at + c])
        at += c
    at_order = order.tolist()
    all_ids, nodes = snap.ids, snap.nodes
    ids = [all_ids[i] for i in at_order]
    return Subgraph(ids, [nodes[i] for i in at_order], n_src, dict(zip(ids, range(len(ids)))), adj,
                    (snap, order, code))


def collect_fast(graph: Graph, srcs: tuple[str, ...]):
    """:func:`graphkit.analysis.reach.collect` on the snapshot; None when ``reach_order`` gives up."""
    snap = snapshot(graph)
    idx = np.array([snap.index[s] for s in srcs], dtype=np.int64)
    found = reach_order(snap, idx)
    if found is None:
        return None
    return subgraph(graph, snap, found[0], found[1], len(srcs))


def bfs_arrays(snap: Snapshot, order: np.ndarray, code: np.ndarray, n_src: int,
               certain_only: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`graphkit.analysis.reach.bfs_tree` on the snapshot: a level-synchronous BFS from the sources
    (``order[:n_src]``) over the pairs of each row's variant (certain ones only when ``certain_only``), the
    parent of a node being the first row, in FIFO order, that enters it (as the sequential BFS does).

    Returns
    -------
    (visit, parent, pair)
        (r',) int64 each: global indexes in visit order, the parent of each (-1 for the sources) and the pair
        entering it (-1 for the sources).
    """
    pos = borrow(snap, "pos", np.int64, -1)
    frontier = order[:n_src]
    pos[frontier] = np.arange(n_src)
    parts, parents, vias, count = [frontier], [np.full(n_src, -1)], [np.full(n_src, -1)], n_src
    while frontier.size:
        pidx, owner = expand(snap.pair_ptr, frontier)
        var = _variant(snap, code, owner)
        keep = snap.has[var, pidx]
        if certain_only:
            keep &= snap.certain[var, pidx]
        pidx, owner = pidx[keep], owner[keep]
        t = snap.pair_target[pidx]
        fresh = pos[t] < 0
        t, pidx, owner = first_occurrence(t[fresh], pidx[fresh], owner[fresh])
        pos[t] = np.arange(count, count + t.size)
        count += t.size
        parts.append(t)
        parents.append(owner)
        vias.append(pidx)
        frontier = t
    visit = np.concatenate(parts).astype(np.int64)
    give_back(snap, "pos", pos, visit, -1)
    return visit, np.concatenate(parents).astype(np.int64), np.concatenate(vias).astype(np.int64)


def bfs_tree_fast(sub, certain_only: bool):
    """:func:`graphkit.analysis.reach.bfs_tree` of a subgraph :func:`collect_fast` made (``sub.fast`` set)."""
    from graphkit.analysis.reach import BfsTree

    snap, order, code = sub.fast
    visit, parent, via = bfs_arrays(snap, order, code, sub.n_src, certain_only)
    local = borrow(snap, "local", np.int64, -1)
    local[order] = np.arange(order.size)
    r, k = order.size, sub.n_src
    par = np.full(r, -1, dtype=np.int64)
    arc = np.full(r, -1, dtype=np.int64)
    kids = local[visit[k:]]
    par[kids] = local[parent[k:]]
    arc[kids] = snap.best[_variant(snap, code, parent[k:]), via[k:]]
    order_local = local[visit].tolist()
    give_back(snap, "local", local, order, -1)
    edges = snap.edges
    return BfsTree(order_local, par.tolist(), [edges[a] if a >= 0 else None for a in arc.tolist()])
