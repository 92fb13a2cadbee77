"""The blast radius as arrays: reach, confidence, lifetimes and explanation paths on the traversal snapshot.

:func:`radius_arrays` answers :func:`graphkit.analysis.blast_radius` without one Python object per reached pair or
node: the reach, then a local CSR of the reached pairs (each row in its variant, targets renumbered in discovery
order), on which run the searches below: all in one compiled call when the kernel is built
(:mod:`graphkit.analysis.kernel`, Cython), else in C through scipy's BFS loop (:mod:`graphkit.analysis.cbfs`),
else in numpy level by level (:func:`graphkit.analysis.snapshot.reach_order`, :func:`bfs_local`, :func:`widths`);
the three give the same result (``tests/test_kernel.py``, ``tests/test_radius_arrays.py``):

- the BFS tree over certain pairs (confidence, and the paths of certain nodes), and the BFS tree over every pair
  only when some node is possible (the paths of possible nodes), kept as parent/arc arrays;
- the widest (max-min) lifetime, bucketed: lifetimes take a handful of values (:data:`graphkit.analysis.reach.
  SECONDS`), so the widths are visited in decreasing order, breadth-first inside one width over the pairs lasting
  at least that long, a pair lasting less being deferred to its own width (:func:`widths`).

:class:`RadiusArrays` keeps those arrays; :class:`graphkit.analysis.results.BlastRadius` answers ``len``, ``in``,
``ids`` and ``weight`` from them and builds its :class:`~graphkit.analysis.results.Reached` objects (and their
paths) on first access.  Every query borrows its per-node work arrays from the snapshot
(:func:`~graphkit.analysis.snapshot.borrow`): it costs its own reach, never O(n).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from graphkit.analysis import cbfs, kernel
from graphkit.analysis.results import Hop, Reached
from graphkit.analysis.reach import SECONDS
from graphkit.analysis.snapshot import (LIFETIMES, Snapshot, borrow, expand, first_occurrence, give_back, reach_order,
                                        snapshot)
from graphkit.graph import Graph
from graphkit.model import CRITICALITY_WEIGHT, Confidence, Criticality, NodeKind

__all__ = ["RadiusArrays", "Local", "radius_arrays", "local_csr", "bfs_local", "widths", "node_columns", "copy_codes",
           "copied", "CODE_SECONDS"]

_CRIT_RANK = {c: i for i, c in enumerate(Criticality)}
_KIND_RANK = {k: i for i, k in enumerate(NodeKind)}
_NODE_COLS = "radius.node_columns"
_COPY_COLS = "radius.copy_codes"
#: (len(LIFETIMES),) float64: the seconds of every lifetime code (inf: unbounded)
CODE_SECONDS = np.array([SECONDS[lt] for lt in LIFETIMES], dtype=np.float64)


def node_columns(snap: Snapshot) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(weight, rank, kind, criticality)``, (n,) int64 each: the criticality weight of every node, its position
    in result order (:func:`graphkit.analysis.results.node_order`: criticality, kind, id), and the positions of
    its kind in :class:`~graphkit.model.NodeKind` and of its criticality in
    :class:`~graphkit.model.Criticality`.  Made once per snapshot, O(n log n)."""
    cols = snap.derived.get(_NODE_COLS)
    if cols is None:
        nodes = snap.nodes
        weight = np.array([CRITICALITY_WEIGHT[nd.criticality] for nd in nodes], dtype=np.int64)
        kind = np.array([_KIND_RANK[nd.spec.kind] for nd in nodes], dtype=np.int64)
        crit = np.array([_CRIT_RANK[nd.criticality] for nd in nodes], dtype=np.int64)
        # ids are sorted, so the index breaks ties exactly as the id does
        key = (crit * len(_KIND_RANK) + kind) * max(1, snap.n) + np.arange(snap.n, dtype=np.int64)
        rank = np.empty(snap.n, dtype=np.int64)
        rank[np.argsort(key, kind="stable")] = np.arange(snap.n, dtype=np.int64)
        cols = snap.derived[_NODE_COLS] = (weight, rank, kind, crit)
    return cols


def copy_codes(snap: Snapshot) -> np.ndarray:
    """(n,) int8: the lifetime code (:data:`~graphkit.analysis.snapshot.LIFETIMES`) of a copy of every node's value
    (:attr:`graphkit.model.Node.copy_lifetime`, the copy principle: :func:`graphkit.analysis.reach.copies`), -1
    for a node whose value is not copied.  Made once per snapshot, O(n)."""
    codes = snap.derived.get(_COPY_COLS)
    if codes is None:
        code = {lt: i for i, lt in enumerate(LIFETIMES)}
        codes = snap.derived[_COPY_COLS] = np.array(
            [code[life] if nd.spec.copyable and (life := nd.copy_lifetime) is not None else -1 for nd in snap.nodes],
            dtype=np.int8)
    return codes


def copied(snap: Snapshot, order: np.ndarray, n_src: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reached copies (:func:`graphkit.analysis.reach.copies`) of a reach in ``order`` (global indexes, the
    ``n_src`` sources first): ``(node, seconds, life)``, (k,) int64 local indexes (sources excluded) in id order,
    float64 seconds and int8 lifetime code of each copy.  Time O(r + k log k) in numpy."""
    code = copy_codes(snap)[order[n_src:]]
    at = np.flatnonzero(code >= 0)
    at = at[np.argsort(order[at + n_src], kind="stable")]  # by id: the same order whatever the local numbering
    life = code[at]
    return at + n_src, CODE_SECONDS[life], life


@dataclass(frozen=True, slots=True)
class Local:
    """The pairs of the reached rows, each row in its variant, as a CSR on local indexes (discovery order).

    Shapes: ``r`` reached nodes (sources first), ``e`` entries (pairs).  Rows keep the snapshot's target order
    (by id), which is the order the reference traversal scans them in.
    """

    #: (r + 1,) int64 row pointers
    ptr: np.ndarray
    #: (e,) int32 local target of every entry
    target: np.ndarray
    #: (e,) int32 local owner row of every entry
    owner: np.ndarray
    #: (e,) bool: the pair's explanation edge is certain
    certain: np.ndarray
    #: (e,) float64: how long what the pair gives lasts (seconds, inf: unbounded)
    seconds: np.ndarray
    #: (e,) int8: lifetime code (:data:`~graphkit.analysis.snapshot.LIFETIMES`) of the pair's longest-lived edge
    life: np.ndarray
    #: (e,) int64: arc of the pair's explanation edge
    arc: np.ndarray


def local_csr(snap: Snapshot, order: np.ndarray, code: np.ndarray) -> Local:
    """The :class:`Local` CSR of ``reach_order``'s result.  Time O(reached pairs), in numpy."""
    pidx, owner = expand(snap.pair_ptr, order)
    mark = borrow(snap, "code", bool, False)
    mark[code] = True
    var = mark[owner].astype(np.intp)
    give_back(snap, "code", mark, code, False)
    flat = var * snap.pair_target.size + pidx  # (variant, pair) in the raveled (2, p) columns
    keep = snap.has.ravel()[flat]
    pidx, owner, flat = pidx[keep], owner[keep], flat[keep]
    local = borrow(snap, "local", np.int64, -1)
    local[order] = np.arange(order.size, dtype=np.int64)
    row, target = local[owner].astype(np.int32), local[snap.pair_target[pidx]].astype(np.int32)
    give_back(snap, "local", local, order, -1)
    ptr = np.zeros(order.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=order.size), out=ptr[1:])
    return Local(ptr, target, row, snap.certain.ravel()[flat], snap.seconds.ravel()[flat], snap.life.ravel()[flat],
                 snap.best.ravel()[flat])


def bfs_local(loc: Local, n_src: int, certain_only: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The BFS tree of :func:`graphkit.analysis.reach.bfs_tree` on a :class:`Local` CSR.

    Level-synchronous: a level's rows are scanned in visit order, each by target id, and a new node keeps its first
    occurrence (FIFO order), so the parent of a node is the first row, in FIFO order, that enters it.

    Returns
    -------
    (visit, parent, entry)
        ``visit`` (k,) int64: local indexes in visit order (sources first); ``parent`` (r,) int64: local parent
        (-1: a source or not reached); ``entry`` (r,) int64: the entry (pair) from the parent (-1: none).
    """
    r = loc.ptr.size - 1
    seen = np.zeros(r, dtype=bool)
    parent = np.full(r, -1, dtype=np.int64)
    entry = np.full(r, -1, dtype=np.int64)
    frontier = np.arange(n_src, dtype=np.int64)
    seen[frontier] = True
    parts = [frontier]
    while frontier.size:
        e, owner = expand(loc.ptr, frontier)
        if certain_only:
            keep = loc.certain[e]
            e, owner = e[keep], owner[keep]
        t = loc.target[e]
        fresh = ~seen[t]
        t, e, owner = first_occurrence(t[fresh], e[fresh], owner[fresh])
        seen[t] = True
        parent[t] = owner
        entry[t] = e
        parts.append(t)
        frontier = t
    return np.concatenate(parts), parent, entry


def widths(loc: Local, n_src: int, copies: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Max-min (bottleneck) lifetime of every reached node, and its label, bucketed by width.

    Widths are visited in decreasing order (unbounded first).  Inside width ``w``, a breadth-first search over
    the entries lasting at least ``w`` starts from the entries of width exactly ``w`` leaving wider nodes (in the
    order the search met them, first one kept per target); an entry lasting less is deferred to its own width.
    The label of a node is the lifetime of the entry that enters it when that entry lasts exactly ``w``, else the
    label of the node it comes from: the lifetime of the last edge attaining the bottleneck on the widest path the
    search found (the reference :func:`graphkit.analysis.reach.widest` may find another widest path when ties
    carry different lifetimes of equal seconds).  Each entry is scanned once, plus once when deferred: time
    O(reached pairs), in numpy calls per BFS level and width.

    ``copies``: the reached copies ``(node, seconds, life)`` (:func:`copied`), seeds of their own lifetime like the
    sources (the copy principle, :func:`graphkit.analysis.reach.copies`): when width ``w`` starts, the copies of
    width ``w`` still without one get it, labelled with their own lifetime, and once the search of width ``w`` is
    done it goes on from them (in id order).

    Returns
    -------
    (width, label)
        (r,) float64 seconds (inf for the sources) and (r,) int8 lifetime codes (label of the sources: 0, unused).
    """
    r = loc.ptr.size - 1
    width = np.full(r, -1.0)
    label = np.zeros(r, dtype=np.int8)
    width[:n_src] = math.inf
    cnode, csecs, clife = copies if copies is not None else (np.empty(0, dtype=np.int64), np.empty(0),
                                                             np.empty(0, dtype=np.int8))
    level, frontier = math.inf, np.arange(n_src, dtype=np.int64)
    _preset(width, label, cnode, csecs, clife, level)
    pending: list[np.ndarray] = []
    while True:
        while frontier.size:
            e, owner = expand(loc.ptr, frontier)
            secs = loc.seconds[e]
            low = secs < level
            if low.any():
                pending.append(e[low])
                high = ~low
                e, owner, secs = e[high], owner[high], secs[high]
            t = loc.target[e]
            fresh = width[t] < 0
            t, e, owner, secs = first_occurrence(t[fresh], e[fresh], owner[fresh], secs[fresh])
            width[t] = level
            label[t] = np.where(secs == level, loc.life[e], label[owner])
            frontier = t
        frontier = cnode[(csecs == level) & (width[cnode] == level)]  # the copies of this width join the search
        keep = width[cnode] < 0
        cnode, csecs, clife = cnode[keep], csecs[keep], clife[keep]
        if frontier.size:
            continue
        waiting = np.concatenate(pending) if pending else np.empty(0, dtype=np.int64)
        waiting = waiting[width[loc.target[waiting]] < 0]
        if not waiting.size and not cnode.size:
            return width, label
        secs = loc.seconds[waiting]
        level = max(float(secs.max()) if secs.size else -1.0, float(csecs.max()) if csecs.size else -1.0)
        _preset(width, label, cnode, csecs, clife, level)
        now = secs == level
        pending = [waiting[~now]]
        fresh_e = waiting[now]
        fresh_e = fresh_e[width[loc.target[fresh_e]] < 0]
        t, e = first_occurrence(loc.target[fresh_e], fresh_e)
        width[t] = level
        label[t] = loc.life[e]
        frontier = t


def _preset(width: np.ndarray, label: np.ndarray, cnode: np.ndarray, csecs: np.ndarray, clife: np.ndarray,
            level: float) -> None:
    """The copies of width ``level`` still without one get it, and their own lifetime as label (in place)."""
    at = (csecs == level) & (width[cnode] < 0)
    width[cnode[at]] = level
    label[cnode[at]] = clife[at]


@dataclass(eq=False, slots=True)
class RadiusArrays:
    """One blast radius as arrays (see the module docstring); local indexes are positions in ``order``.

    Built by :func:`radius_arrays`; read through :class:`~graphkit.analysis.results.BlastRadius`.  Shapes: ``r``
    reached nodes, the ``n_src`` sources first.  From the compiled kernel, the trees come with the index of each
    entering pair (``pairs``): :attr:`carc` and :attr:`aarc` gather the explanation arcs from them on first use
    (a path asked for), once.
    """

    #: the snapshot the radius was computed on (ids, nodes and edges of that graph version)
    snap: Snapshot
    n_src: int
    #: (r,) int64 global indexes in discovery order
    order: np.ndarray
    #: (r,) bool: reached over certain pairs only
    certain: np.ndarray
    #: (r,) int64 parent and arc (explanation edge: :attr:`carc`) in the certain-only BFS tree; visit order of that
    #: tree
    cparent: np.ndarray
    _carc: np.ndarray
    cvisit: np.ndarray
    #: the same in the BFS tree over every pair (None when every node is certain)
    aparent: np.ndarray | None
    _aarc: np.ndarray | None
    #: (r,) float64 width (seconds, :func:`widths`) and int8 lifetime code of every node
    width: np.ndarray
    life: np.ndarray
    weight: int
    _sorted: list[int] | None = None
    _members: np.ndarray | None = None
    _hops: dict[int, Hop] = field(default_factory=dict)
    #: the kernel's trees hold pair indexes (:func:`graphkit.analysis.kernel.radius`): turned into arcs on first use
    pairs: bool = False
    _arcs: tuple[np.ndarray, np.ndarray | None] | None = None

    @property
    def carc(self) -> np.ndarray:
        """(r,) int64 arc (index in ``snap.edges``) entering every node in the certain-only BFS tree (-1: none)."""
        return self._arcs_of_pairs()[0] if self.pairs else self._carc

    @property
    def aarc(self) -> np.ndarray | None:
        """The same in the BFS tree over every pair (None when every node is certain)."""
        return self._arcs_of_pairs()[1] if self.pairs else self._aarc

    def _arcs_of_pairs(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The kernel's pair indexes as arcs (:func:`graphkit.analysis.kernel.arcs`, one gather per tree), made
        once (from the pair indexes, which stay: two threads asking at once make the same arrays)."""
        if self._arcs is None:
            carc = kernel.arcs(self.snap, self._carc)
            aarc = (None if self._aarc is None else carc if self._aarc is self._carc
                    else kernel.arcs(self.snap, self._aarc))
            self._arcs = (carc, aarc)
        return self._arcs

    def __len__(self) -> int:
        return self.order.size - self.n_src

    def result_order(self) -> list[int]:
        """Local indexes of the reached nodes (sources excluded) in result order (criticality, kind, id)."""
        if self._sorted is None:
            rank = node_columns(self.snap)[1][self.order[self.n_src:]]
            self._sorted = (np.argsort(rank) + self.n_src).tolist()
        return self._sorted

    def tally(self) -> tuple[dict[str, int], dict[str, int], int]:
        """``(by_kind, by_criticality, possible)``: reached nodes per kind and per criticality value (only those
        present), and how many are possible.  Time O(r) in numpy."""
        _, _, kind, crit = node_columns(self.snap)
        reached = self.order[self.n_src:]
        kinds, crits = list(NodeKind), list(Criticality)
        by_kind = {kinds[k].value: int(c) for k, c in enumerate(np.bincount(kind[reached], minlength=len(kinds))) if c}
        by_crit = {crits[k].value: int(c) for k, c in enumerate(np.bincount(crit[reached], minlength=len(crits))) if c}
        return by_kind, by_crit, int(reached.size - self.certain[self.n_src:].sum())

    def ids_in_order(self) -> list[str]:
        """Reached ids in result order."""
        ids, order = self.snap.ids, self.order.tolist()
        return [ids[order[v]] for v in self.result_order()]

    def local_of(self, node_id: object) -> int:
        """Local index of a reached node (not a source), -1 when ``node_id`` is not reached."""
        g = self.snap.index.get(node_id) if isinstance(node_id, str) else None
        if g is None:
            return -1
        if self._members is None:
            glob = self.order[self.n_src:]
            perm = np.argsort(glob)
            self._members = np.stack([glob[perm], perm + self.n_src])
        at = int(np.searchsorted(self._members[0], g))
        return int(self._members[1, at]) if at < self._members.shape[1] and self._members[0, at] == g else -1

    def _hop(self, arc: int, u: int, v: int) -> Hop:
        h = self._hops.get(arc)
        if h is None:
            e, ids = self.snap.edges[arc], self.snap.ids
            h = self._hops[arc] = Hop(ids[u], ids[v], e.kind, e.confidence, e.lifetime, tuple(e.evidence),
                                      self.snap.nodes[v].copy_lifetime)
        return h

    def path(self, v: int) -> tuple[Hop, ...]:
        """The explanation path of local node ``v`` (its certain-only tree path, else its tree path over every
        pair).  Time O(path length)."""
        parent, arc = (self.cparent, self.carc) if self.certain[v] else (self.aparent, self.aarc)
        order = self.order
        hops = []
        while parent[v] >= 0:  # type: ignore[index]
            u = int(parent[v])  # type: ignore[index]
            hops.append(self._hop(int(arc[v]), int(order[u]), int(order[v])))  # type: ignore[index]
            v = u
        return tuple(reversed(hops))

    def paths(self) -> list[tuple[Hop, ...]]:
        """The explanation path of every local node (sources: ``()``), prefixes shared along each tree.
        Time O(total path length)."""
        order, n = self.order.tolist(), self.order.size
        out: list[tuple[Hop, ...]] = [()] * n
        parent, arc = self.cparent.tolist(), self.carc.tolist()
        for v in self.cvisit[self.n_src:].tolist():
            out[v] = out[parent[v]] + (self._hop(arc[v], order[parent[v]], order[v]),)
        if self.aparent is not None:  # a possible node's path is its own in the tree over every pair, ancestors too
            parent, arc, cert = self.aparent.tolist(), self.aarc.tolist(), self.certain.tolist()  # type: ignore
            memo: dict[int, tuple[Hop, ...]] = {}
            for v in range(self.n_src, n):
                if cert[v]:
                    continue
                chain, x = [], v
                while x not in memo and parent[x] >= 0:
                    chain.append(x)
                    x = parent[x]
                prefix = memo.setdefault(x, ())
                for y in reversed(chain):
                    prefix = memo[y] = prefix + (self._hop(arc[y], order[parent[y]], order[y]),)
                out[v] = memo[v]
        return out

    def reached(self, v: int, path: tuple[Hop, ...] | None = None) -> Reached:
        """The :class:`Reached` of local node ``v``."""
        g = int(self.order[v])
        node = self.snap.nodes[g]
        return Reached(id=node.id, kind=node.spec.kind, name=node.name, criticality=node.criticality,  # type: ignore
                       confidence=Confidence.CERTAIN if self.certain[v] else Confidence.POSSIBLE,
                       lifetime=LIFETIMES[int(self.life[v])], path=self.path(v) if path is None else path)

    def every_reached(self) -> tuple[Reached, ...]:
        """Every :class:`Reached`, in result order; paths share their prefixes and hops."""
        paths = self.paths()
        order, certain, life = self.order.tolist(), self.certain.tolist(), self.life.tolist()
        nodes, out = self.snap.nodes, []
        cert, poss = Confidence.CERTAIN, Confidence.POSSIBLE
        for v in self.result_order():
            node = nodes[order[v]]
            out.append(Reached(id=node.id, kind=node.spec.kind, name=node.name,  # type: ignore[arg-type]
                               criticality=node.criticality, confidence=cert if certain[v] else poss,
                               lifetime=LIFETIMES[life[v]], path=paths[v]))
        return tuple(out)


def _arcs(loc: Local, entry: np.ndarray) -> np.ndarray:
    """The arc of each tree entry (-1 where none)."""
    arc = np.full(entry.size, -1, dtype=np.int64)
    has = entry >= 0
    arc[has] = loc.arc[entry[has]]
    return arc


def radius_arrays(graph: Graph, srcs: tuple[str, ...]) -> RadiusArrays | None:
    """The blast radius of ``srcs`` (sorted ids in the graph, :func:`graphkit.analysis.reach.source_ids`) as
    arrays; None when :func:`~graphkit.analysis.snapshot.reach_order` gives up (the caller then runs the
    reference; only on the numpy path).  The compiled kernel answers when built (:mod:`graphkit.analysis.kernel`),
    else scipy's C BFS (:mod:`graphkit.analysis.cbfs`), else numpy; the three give the same result.  Time
    O(reached pairs) (in C, else in numpy calls), plus O(n) once per snapshot (:func:`node_columns`)."""
    snap = snapshot(graph)
    index, n_src = snap.index, len(srcs)
    idx = np.array([index[srcs[0]]] if n_src == 1 else [index[s] for s in srcs], dtype=np.int64)
    if kernel.ENABLED:  # the whole radius in one compiled call (the same arrays as the scipy path below)
        order, _, certain, cparent, cpair, cvisit, aparent, apair, width, life, weight = kernel.radius(snap, idx)
        return RadiusArrays(snap, n_src, order, certain, cparent, cpair, cvisit, aparent, apair, width, life, weight,
                            pairs=True)
    if cbfs.ENABLED:  # the same searches in C (scipy)
        order, code = cbfs.reach(snap, idx)
        loc = local_csr(snap, order, code)
        seeds = np.arange(n_src, dtype=np.int64)
        cvisit, cparent, centry = cbfs.bfs(loc.ptr, loc.target, loc.owner, loc.certain, seeds)
        aparent = aarc = None
        if cvisit.size < order.size:
            _, aparent, aentry = cbfs.bfs(loc.ptr, loc.target, loc.owner, None, seeds)
            aarc = _arcs(loc, aentry)
        width, life = cbfs.widths(loc, n_src, copied(snap, order, n_src))
    else:
        found = reach_order(snap, idx, tree=True)
        if found is None:
            return None
        order, code, parent, pair = found
        loc = local_csr(snap, order, code)
        cvisit, cparent, centry = bfs_local(loc, n_src, certain_only=True)
        aparent = aarc = None
        if cvisit.size < order.size:  # the reach's own BFS is the tree over every pair
            aparent, aarc = _tree_of_reach(snap, order, code, parent, pair)
        width, life = widths(loc, n_src, copied(snap, order, n_src))
    certain = np.zeros(order.size, dtype=bool)
    certain[cvisit] = True
    weight = int(node_columns(snap)[0][order[n_src:]].sum())
    return RadiusArrays(snap, n_src, order, certain, cparent, _arcs(loc, centry), cvisit, aparent, aarc, width,
                        life, weight)


def _tree_of_reach(snap: Snapshot, order: np.ndarray, code: np.ndarray, parent: np.ndarray,
                   pair: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``reach_order``'s tree (global parents and pairs beside ``order``) as local parents and explanation arcs."""
    has = parent >= 0
    up = parent[has]
    local = borrow(snap, "local", np.int64, -1)
    local[order] = np.arange(order.size, dtype=np.int64)
    aparent = np.full(order.size, -1, dtype=np.int64)
    aparent[has] = local[up]
    give_back(snap, "local", local, order, -1)
    mark = borrow(snap, "code", bool, False)
    mark[code] = True
    var = mark[up].astype(np.intp)
    give_back(snap, "code", mark, code, False)
    aarc = np.full(order.size, -1, dtype=np.int64)
    aarc[has] = snap.best[var, pair[has]]
    return aparent, aarc
