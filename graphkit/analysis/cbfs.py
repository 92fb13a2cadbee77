"""Breadth-first searches in C (the loop of scipy's ``breadth_first_order``) for the array blast radius.

A level-synchronous BFS in numpy costs a few dozen numpy calls per level, so a deep reach (a chain of roles
assuming roles: a thousand levels in a large org) costs milliseconds per pass whatever its size; scipy's BFS is
one C loop.  Everything here gives exactly what the numpy searches of :mod:`graphkit.analysis.radius_arrays` and
:func:`graphkit.analysis.snapshot.reach_order` give (``tests/test_radius_arrays.py`` runs both); they answer
when scipy's loop is missing or answers otherwise (it is scipy's private function: :func:`_self_check`).

Multi-source searches start from a *super node* whose row lists the seeds in order: scipy's BFS is FIFO, scanning
each row in stored order, so the search from the super node is the FIFO BFS from the seeds (each kept at its
first occurrence), and a node's predecessor is the first row, in FIFO order, that enters it.
"""

from __future__ import annotations

import numpy as np

from graphkit.analysis.snapshot import Snapshot, borrow, expand, first_occurrence, give_back

__all__ = ["ENABLED", "bfs", "reach", "widths"]

_GLOBAL = "cbfs.variant0"
_NULL = -9999  # scipy's "no predecessor"
_breadth_first_directed = None  # set by _self_check on first use of ENABLED


def _self_check() -> bool:
    """scipy's C loop behind ``breadth_first_order`` (``_breadth_first_directed(head, indices, indptr, node_list,
    predecessors)``, called directly so that graphkit owns the arrays: no O(n) fill per search) is there and
    answers as expected; else the numpy searches are used.  Imports scipy (about 0.4 s: ``scipy.sparse.csgraph``
    imports ``scipy.sparse.linalg``), so it runs on the first read of :data:`ENABLED`, not on import."""
    global _breadth_first_directed
    try:  # a private scipy function: the numpy searches answer if another scipy lacks it
        from scipy.sparse.csgraph._traversal import _breadth_first_directed as bfd
    except ImportError:  # pragma: no cover - scipy >= 1.11 (a dependency) has it
        return False
    try:
        visit = np.empty(4, dtype=np.int32)
        pred = np.full(4, _NULL, dtype=np.int32)
        count = bfd(3, np.array([1, 2, 2, 0], dtype=np.int32), np.array([0, 2, 3, 3, 4], dtype=np.int32), visit, pred)
        ok = count == 4 and visit.tolist() == [3, 0, 1, 2] and pred.tolist() == [3, 0, 0, _NULL]
    except Exception:  # pragma: no cover - another scipy: a changed private signature
        return False
    _breadth_first_directed = bfd if ok else None
    return bool(ok)


def __getattr__(name: str) -> bool:
    """``ENABLED`` (scipy's BFS is used; set it False to force the numpy searches, e.g. in the differential
    tests): computed on first read, so that importing graphkit does not import scipy (the compiled kernel,
    :mod:`graphkit.analysis.kernel`, answers one blast radius without it)."""
    if name == "ENABLED":
        globals()["ENABLED"] = enabled = _self_check()
        return enabled
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def bfs(ptr: np.ndarray, target: np.ndarray, owner: np.ndarray, keep: np.ndarray | None,
        seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FIFO BFS from ``seeds`` (in order; duplicates keep their first occurrence) over a CSR of ``r`` rows.

    Parameters
    ----------
    ptr : (r + 1,) int64 row pointers; target, owner : (e,) int32 (or int64) target and row of every entry
    keep : (e,) bool or (k,) int64 or None
        The entries that may be followed: a mask, their indexes in increasing order, or None (all).
    seeds : (k,) int64

    Returns
    -------
    (visit, parent, entry)
        ``visit`` (v,) int64: nodes in visit order (the seeds first); ``parent`` (r,) int64: the row entering each
        node (-1: a seed or not reached); ``entry`` (r,) int64: the entry from the parent (-1: none).  Time
        O(r + e) in C and numpy.
    """
    r = ptr.size - 1
    indptr = np.empty(r + 2, dtype=np.int32)
    if keep is None:
        ent = None
        indptr[:r + 1] = ptr
        t, own = target, owner
    else:
        ent = np.flatnonzero(keep) if keep.dtype == bool else keep
        t, own = target[ent], owner[ent]
        indptr[0] = 0
        np.cumsum(np.bincount(own, minlength=r), out=indptr[1:r + 1])
    indptr[r + 1] = indptr[r] + seeds.size
    indices = np.concatenate([t, seeds.astype(t.dtype)]).astype(np.int32, copy=False)
    visit = np.empty(r + 1, dtype=np.int32)
    pred = np.full(r + 1, _NULL, dtype=np.int32)
    count = _breadth_first_directed(r, indices, indptr, visit, pred)
    visit = visit[1:count].astype(np.int64)
    hit = pred[t] == own  # the entry of each tree edge (one pair per (row, target))
    pred = pred[:r].astype(np.int64)
    pred[(pred == _NULL) | (pred == r)] = -1
    entry = np.full(r, -1, dtype=np.int64)
    entry[t[hit]] = np.flatnonzero(hit) if ent is None else ent[hit]
    return visit, pred, entry


def _variant0(snap: Snapshot, room: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The CSR of the pairs every node follows (variant 0) with a super node ``n`` whose row has ``room`` free
    slots at the end: ``(indptr, indices, nnz)`` (int32), made once per snapshot (and again for more room)."""
    cached = snap.derived.get(_GLOBAL)
    if cached is None or cached[1].size - cached[2] < room:
        n = snap.n
        has0 = snap.has[0]
        owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(snap.pair_ptr))
        indptr = np.zeros(n + 2, dtype=np.int32)
        np.cumsum(np.bincount(owner[has0], minlength=n), out=indptr[1:n + 1])
        nnz = int(indptr[n])
        indices = np.empty(nnz + max(64, 2 * room), dtype=np.int32)
        indices[:nnz] = snap.pair_target[has0]
        cached = snap.derived[_GLOBAL] = (indptr, indices, nnz)
    return cached


def _search(snap: Snapshot, seeds: np.ndarray) -> np.ndarray:
    """Nodes reached from ``seeds`` over variant-0 pairs, in visit order (seeds first).  The visit and
    predecessor arrays are lent by the snapshot and handed back clean: O(reach), never O(n)."""
    indptr, indices, nnz = _variant0(snap, seeds.size)
    n = snap.n
    indptr[n + 1] = nnz + seeds.size
    indices[nnz:nnz + seeds.size] = seeds
    visit = snap.scratch.pop(("cbfs.visit", None), None)
    if visit is None:
        visit = np.empty(n + 1, dtype=np.int32)
    pred = snap.scratch.pop(("cbfs.pred", _NULL), None)
    if pred is None:
        pred = np.full(n + 1, _NULL, dtype=np.int32)
    count = _breadth_first_directed(n, indices, indptr, visit, pred)
    found = visit[1:count].astype(np.int64)
    pred[found] = _NULL
    snap.scratch[("cbfs.visit", None)] = visit
    snap.scratch[("cbfs.pred", _NULL)] = pred
    return found


def reach(snap: Snapshot, srcs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reached nodes and the nodes running the attacker's code, as ``reach_order`` finds them.

    A node running the attacker's code (a source, or the target of a ``runs_code`` pair from a reached row)
    follows every pair (variant 1), others the variant-0 pairs: the searches run over variant 0 from the sources
    and the variant-1 targets of the code nodes, again while new code nodes add targets (once, usually).

    Returns
    -------
    (order, code)
        ``order`` (r,) int64: the sources (in the given order), then the other reached nodes in visit order;
        ``code`` (c,) int64: the code nodes, sorted.  Time O(r + reached pairs) in C and numpy (work arrays lent
        by the snapshot).
    """
    code = fresh = seeds = srcs
    while True:
        seeds = np.concatenate([seeds, _variant1_targets(snap, fresh)])
        found = _search(snap, seeds)
        pidx, _ = expand(snap.pair_ptr, found)
        new_code = np.union1d(code, snap.pair_target[pidx[snap.runs_code[pidx]]]).astype(np.int64)
        if new_code.size == code.size:
            break
        fresh, code = np.setdiff1d(new_code, code), new_code
    mark = borrow(snap, "code", bool, False)
    mark[srcs] = True
    order = np.concatenate([srcs, found[~mark[found]]])
    give_back(snap, "code", mark, srcs, False)
    return order, code


def _variant1_targets(snap: Snapshot, rows: np.ndarray) -> np.ndarray:
    """Targets of the pairs of ``rows`` that only a code node follows (variant 1 without variant 0)."""
    pidx, _ = expand(snap.pair_ptr, rows)
    extra = pidx[snap.has[1, pidx] & ~snap.has[0, pidx]]
    return snap.pair_target[extra].astype(np.int64)


def widths(loc, n_src: int, copies: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`graphkit.analysis.radius_arrays.widths` (same widths, same labels) with one C search per width.

    ``loc``: a :class:`~graphkit.analysis.radius_arrays.Local`; ``copies``: the reached copies ``(node, seconds,
    life)`` (:func:`graphkit.analysis.radius_arrays.copied`), seeds of their own width like the sources (the copy
    principle).  Inside width ``w`` the search runs from the seeds (the first waiting entry into each node) over the
    entries lasting at least ``w`` into nodes without a width yet, then again from the copies of width ``w`` (which
    got it, and their own lifetime as label, when the width started); a node's label is its entering entry's
    lifetime when that entry lasts exactly ``w`` (and a seed's entry always does), else its parent's: resolved by
    pointer doubling along the tree.  Time O(levels x reached pairs), levels being the distinct lifetimes met (at most ``len(SECONDS)``, six
    in practice), in C and numpy.

    Returns
    -------
    (width, label)
        (r,) float64 seconds (inf for the sources) and (r,) int8 lifetime codes.
    """
    r = loc.ptr.size - 1
    width = np.full(r, -1.0)
    label = np.zeros(r, dtype=np.int8)
    width[:n_src] = np.inf
    cnode, csecs, clife = copies if copies is not None else (np.empty(0, dtype=np.int64), np.empty(0),
                                                             np.empty(0, dtype=np.int8))
    level, seeds = np.inf, np.arange(n_src, dtype=np.int64)
    _preset(width, label, cnode, csecs, clife, level)
    pending = np.empty(0, dtype=np.int64)
    rest = np.arange(loc.target.size, dtype=np.int64)  # entries into nodes that may still get a width
    while True:  # the seeds have their width and label already
        rest = rest[width[loc.target[rest]] < 0]
        visit, parent, entry = bfs(loc.ptr, loc.target, loc.owner, rest[loc.seconds[rest] >= level], seeds)
        inner = visit[seeds.size:]
        width[inner] = level
        e = entry[inner]
        exact = loc.seconds[e] == level
        if exact.all():
            label[inner] = loc.life[e]
        else:
            label[inner[exact]] = loc.life[e[exact]]
            _inherit(label, parent, inner[~exact])
        out, _ = expand(loc.ptr, visit)
        pending = np.concatenate([pending, out[loc.seconds[out] < level]])
        seeds = cnode[(csecs == level) & (width[cnode] == level)]  # the copies of this width: searched from next
        keep = width[cnode] < 0
        cnode, csecs, clife = cnode[keep], csecs[keep], clife[keep]
        if seeds.size:
            continue
        pending = pending[width[loc.target[pending]] < 0]
        if not pending.size and not cnode.size:
            return width, label
        secs = loc.seconds[pending]
        level = max(float(secs.max()) if secs.size else -1.0, float(csecs.max()) if csecs.size else -1.0)
        _preset(width, label, cnode, csecs, clife, level)
        now = secs == level
        fresh = pending[now]
        fresh = fresh[width[loc.target[fresh]] < 0]
        seeds, first = first_occurrence(loc.target[fresh], fresh)
        width[seeds] = level
        label[seeds] = loc.life[first]
        pending = pending[~now]


def _preset(width: np.ndarray, label: np.ndarray, cnode: np.ndarray, csecs: np.ndarray, clife: np.ndarray,
            level: float) -> None:
    """The copies of width ``level`` still without one get it, and their own lifetime as label (in place)."""
    at = (csecs == level) & (width[cnode] < 0)
    width[cnode[at]] = level
    label[cnode[at]] = clife[at]


def _inherit(label: np.ndarray, parent: np.ndarray, nodes: np.ndarray) -> None:
    """``label[v] = label[parent[v]]`` for ``nodes``, parents first (a chain of such nodes ends at a labelled
    node): pointer doubling, O(len(nodes) log depth)."""
    root = np.arange(parent.size, dtype=np.int64)
    root[nodes] = parent[nodes]
    while True:
        up = root[root[nodes]]
        if (up == root[nodes]).all():
            break
        root[nodes] = up
    label[nodes] = label[root[nodes]]
