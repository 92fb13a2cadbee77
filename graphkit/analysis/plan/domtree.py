"""The fast revocation plan's dominator graph (:mod:`graphkit.analysis.plan.fast`): which arcs are in it, the
reached set, its dominator tree (compiled, else rustworkx) with subtree weights and children lists, a subtree, and
the check that a kept or repaired tree is the tree a new pass builds (the tests' ``fast.VERIFY``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphkit.analysis.snapshot import expand

if TYPE_CHECKING:
    from graphkit.analysis.plan.fast import _State, _Static

__all__: list[str] = []


@dataclass(slots=True)
class _Tree:
    """A dominator tree of the live reached graph, minus the subtrees cut since it was built."""

    idom: np.ndarray
    subw: np.ndarray
    kids_ptr: np.ndarray
    kids: np.ndarray
    gone: np.ndarray
    #: (3, N) int64 the children as linked lists (first child, next sibling, previous sibling), which the compiled
    #: cut edits (``kids_ptr`` and ``kids`` stay as built); None: numpy and rustworkx
    links: np.ndarray | None = None


def _reach(s: _Static, alive: np.ndarray, dead: np.ndarray) -> np.ndarray:
    """Nodes reached from the live seeds over live arcs into valid nodes (compiled, else numpy BFS; O(V + E))."""
    if s.k is not None:
        return s.k.reach(alive.view(np.uint8), dead.view(np.uint8))  # type: ignore[attr-defined]
    seen = np.zeros(s.n, dtype=bool)
    front = s.seeds[~dead[s.seeds]]
    seen[front] = True
    while front.size:
        a, _ = expand(s.out_ptr, front)
        t = s.tgt[a[alive[a]]]
        front = np.unique(t[~seen[t] & ~dead[t]])
        seen[front] = True
    return seen


def _tree(s: _Static, st: _State) -> _Tree:
    """The dominator tree of the live reached graph from a root joined to the live seeds (see the reference's
    ``_dominator_edges``; the seeds of a wipe group through its node, and no other arc into a seed: :func:`_dg`,
    ``prices.wipe_groups``), with subtree weights and children lists: compiled (``_plan_kernel.Plan.tree``), else
    :func:`_tree_rx`; the same tree (immediate dominators are unique)."""
    if s.k is not None:
        idom, subw, kids_ptr, kids, links = s.k.tree(st.alive.view(np.uint8),  # type: ignore[attr-defined]
                                                     st.reached.view(np.uint8), st.dead.view(np.uint8))
        return _Tree(idom, subw, kids_ptr, kids, np.zeros(s.root + 1, dtype=bool), links)
    return _tree_rx(s, st)


def _tree_rx(s: _Static, st: _State) -> _Tree:
    """:func:`_tree` through rustworkx ``immediate_dominators`` (Cooper-Harvey-Kennedy) on numpy-built edges."""
    import rustworkx as rx

    m = _dg(s, st.alive, st.reached, st.dead, s.src, s.tgt)
    a_src, a_tgt, a_via = s.src[m], s.tgt[m], s.via[m]
    direct = a_via < 0
    live_seeds = s.seeds[~st.dead[s.seeds]]
    tops = s.top[live_seeds]  # type: ignore[index]
    groups = np.unique(tops[tops != live_seeds])
    us = np.concatenate([np.full(groups.size, s.root), np.where(tops != live_seeds, tops, s.root), a_src[direct],
                         a_src[~direct], a_via[~direct]])
    vs = np.concatenate([groups, live_seeds, a_tgt[direct], a_via[~direct], a_tgt[~direct]])
    g = rx.PyDiGraph()
    g.add_nodes_from([None] * (s.root + 1))
    g.add_edges_from_no_data(list(zip(us.tolist(), vs.tolist())))
    found = rx.immediate_dominators(g, s.root)
    total = s.root + 1
    idom = np.full(total, -1, dtype=np.int64)
    idom[np.fromiter(found.keys(), np.int64, len(found))] = np.fromiter(found.values(), np.int64, len(found))
    idom[s.root] = -1
    members = np.flatnonzero(idom >= 0)
    kids = members[np.argsort(idom[members], kind="stable")]
    kids_ptr = np.zeros(total + 1, dtype=np.int64)
    np.cumsum(np.bincount(idom[members], minlength=total), out=kids_ptr[1:])
    subw = np.zeros(total, dtype=np.int64)
    real = members[members < s.n]
    subw[real] = s.weight[real]
    levels, front = [], np.array([s.root], dtype=np.int64)
    while front.size:
        front = kids[expand(kids_ptr, front)[0]]
        levels.append(front)
    for level in reversed(levels):
        np.add.at(subw, idom[level], subw[level])
    return _Tree(idom, subw, kids_ptr, kids, np.zeros(total, dtype=bool))


def _dg(s: _Static, alive: np.ndarray, reached: np.ndarray, dead: np.ndarray, u: np.ndarray,
        v: np.ndarray) -> np.ndarray:
    """Which arcs ``u -> v`` (with ``alive`` their masks) are in the dominator graph: live, from a reached node
    into a valid one that is not a seed (the root enters a seed: :func:`~graphkit.analysis.plan.prices.wipe_groups`),
    no loop."""
    return alive & reached[u] & ~dead[v] & ~s.is_seed[v] & (u != v)


def _subtree(tree: _Tree, z: int) -> np.ndarray:
    """The live nodes of the subtree of ``z`` (empty when ``z`` is not in the tree any more)."""
    if tree.gone[z] or tree.idom[z] < 0:
        return np.zeros(0, dtype=np.int64)
    parts, front = [np.array([z], dtype=np.int64)], np.array([z], dtype=np.int64)
    while front.size:
        front = tree.kids[expand(tree.kids_ptr, front)[0]]
        front = front[~tree.gone[front]]
        parts.append(front)
    return np.concatenate(parts)


def _verify(s: _Static, st: _State) -> None:
    """Raise AssertionError unless the kept tree is the tree of the current graph (module docstring), up to
    the stale immediate dominators :func:`_kept` allows (virtual nodes whose arcs all enter seeds) and the
    virtual nodes left with no arc: all their arcs entered a subject a cut invalidated (another candidate's
    ``via_out``: a subject whose own candidate has no arc into it, e.g. a runner an arc of per-job lifetime
    authenticates).  A cut leaves such a node in the tree, a leaf of weight 0 that no reduction reads (arcs only
    go in a plan: it never gets one back), where a new tree leaves it out."""
    kept, fresh = st.tree, _tree(s, st)
    if not (_reach(s, st.alive, st.dead) == st.reached).all():
        raise AssertionError("kept tree: the reached set changed")
    live = ~kept.gone & (kept.idom >= 0)  # type: ignore[union-attr]
    live[s.root] = True
    a = s.via_arc
    held = _dg(s, st.alive[a], st.reached, st.dead, s.src[a], s.tgt[a])
    orphan = np.zeros(s.root + 1, dtype=bool)
    orphan[s.n:s.root] = kept.subw[s.n:s.root] == 0  # type: ignore[union-attr]
    orphan[s.via[a[held]]] = False
    stale = s.seedy | orphan
    in_fresh = fresh.idom >= 0
    in_fresh[s.root] = True
    same = (live == in_fresh) & ((kept.idom == fresh.idom) | ~in_fresh) & (kept.subw == fresh.subw)  # type: ignore
    if not (same | stale).all():
        raise AssertionError(f"kept tree differs at {np.flatnonzero(~(same | stale))[:10]}")
