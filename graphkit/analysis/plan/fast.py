"""The revocation plan's greedy loop without a dominator pass per step (issue 19).

Same plan as :func:`graphkit.analysis.plan.greedy.greedy_plan` (the reference: ``tests/test_plan_fast.py``
compares them step for step), computed incrementally:

- one dominator tree prices every candidate at once, as in the reference (``docs/revocation-plan.md``,
  "Evaluating every candidate at once"): built by the compiled kernel (``graphkit/analysis/_plan_kernel.pyx``
  through :mod:`graphkit.analysis.plan.compiled`: Cooper-Harvey-Kennedy straight from the arc arrays and masks,
  with subtree weights and children lists) when it was built, else by rustworkx ``immediate_dominators`` on
  numpy-built edges (:func:`_tree_rx`); immediate dominators are unique, so both give the same tree.  The
  reached sets, the kept-tree cuts and the minted check run in the kernel too, else in numpy.  The tree's graph
  has no arc into a seed but the root's, which enters the seeds a wiping candidate invalidates together through
  one more virtual node, so that candidate is one subtree too (``prices.wipe_groups``);
- applying a candidate cuts exactly one dominator subtree ``D``.  When every node outside ``D`` that loses an
  arc keeps the arc from its immediate dominator (:func:`_kept`: the lemma and its proof), no other dominator
  changes: the tree of the residual graph is the same tree without ``D``, so it is kept (subtree weights of
  ``D``'s ancestors lowered) and the step costs O(|D| + depth + the in-degrees of those nodes) instead of a new
  pass.  Otherwise the compiled cut repairs the tree where dominators may change, when that region is small
  (``docs/revocation-plan.md``, "Repairing the tree"; the candidates whose reduction may have grown are queued
  again, :func:`_repush`); else (and after a step that wipes several nodes without a wipe group, or a companion that removes a live
  arc) the reached set is recomputed and the next step builds a new tree;
- on a new tree every candidate is priced at once (numpy, :func:`_queue`: cut roots, subtree weights, the greedy
  key packed in one integer); between two trees a candidate's reduction can only shrink, so the sorted
  candidates and a heap of re-priced ones form a lazy priority queue keyed by
  :func:`~graphkit.analysis.plan.greedy.greedy_key` and their tie-break rank: the top is re-priced when popped
  and taken when its key still holds;
- with the kernel, its loop takes the steps while no companion can come, and their step objects are made at
  the end (:mod:`graphkit.analysis.plan.kernel_loop`).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from graphkit.analysis.plan import compiled
from graphkit.analysis.plan.arrays import Columns, stable_argsort
from graphkit.analysis.plan.candidates import FOLLOW_UP, Candidate, Candidates, Incident
from graphkit.analysis.plan.domtree import _dg, _reach, _subtree, _tree, _Tree, _verify
from graphkit.analysis.plan.kernel_loop import Companions, KernelQueue, Made, StepLog, built, kernel_prices
from graphkit.analysis.plan.kernel_loop import companions as _companions
from graphkit.analysis.plan.kernel_loop import flush as _kernel_flush
from graphkit.analysis.plan.kernel_loop import run as _run
from graphkit.analysis.plan.prices import Prices as _Prices
from graphkit.analysis.plan.prices import prices as _prices
from graphkit.analysis.results import Phase, RevocationPlan, node_order
from graphkit.analysis.snapshot import expand
from graphkit.model import RevocationAction

__all__ = ["fast_plan"]

_REVOKE = RevocationAction.REVOKE_ROLE_SESSIONS
_NO_ARCS = np.zeros(0, dtype=np.int64)


@dataclass(slots=True)
class _Static:
    """The incident as arrays (m arcs, n nodes, N dominator-graph nodes: real, 2 virtual per candidate, root)."""

    src: np.ndarray
    tgt: np.ndarray
    via: np.ndarray
    out_ptr: np.ndarray
    in_ptr: np.ndarray
    in_arc: np.ndarray
    weight: np.ndarray
    seeds: np.ndarray
    #: (n,) bool: a seed
    is_seed: np.ndarray
    #: (N,) bool: a virtual node all of whose arcs enter seeds
    seedy: np.ndarray
    #: arcs by the virtual node they pass (virtual node ``n + k``: ``via_arc[via_ptr[k]:via_ptr[k + 1]]``)
    via_ptr: np.ndarray
    via_arc: np.ndarray
    n: int
    root: int
    prices: _Prices
    #: the compiled passes (:mod:`graphkit.analysis.plan.compiled`), None: numpy and rustworkx
    k: object = None
    #: (n,) int64 position of every node in result order (``Columns.rank``, else from ``node_order``)
    rank: np.ndarray | None = None
    #: the sources are ``range(n_src)``
    n_src: int = 0
    #: per node, a sort key in id order (the node's snapshot index, or its id)
    by_id: list | None = None
    #: (n,) int64 per node the dominator-graph node the root enters it through: its wipe group node, else itself
    #: (``prices.wipe_groups``)
    top: np.ndarray | None = None
    #: (N,) int64 per dominator-graph node the one real node every arc into it comes from: a real node itself, a
    #: virtual node whose arcs all leave one node (a ``via_out``); -1: none (:func:`_kept`)
    lone: np.ndarray | None = None


@dataclass(slots=True)
class _State:
    alive: np.ndarray
    dead: np.ndarray
    reached: np.ndarray
    residual: int
    #: per candidate position: applied (chosen, or listed as a companion)
    applied: np.ndarray
    tree: _Tree | None = None


def _static(inc: Incident, cands: Candidates, cols: Columns | None = None) -> _Static:
    arcs = inc.arcs
    if cols is not None:
        src, tgt, out_ptr, weight, is_seed, via = cols.src, cols.tgt, cols.start, cols.weight, cols.seed, cols.via
    else:
        src, tgt = np.array(arcs.source, dtype=np.int64), np.array(arcs.target, dtype=np.int64)
        out_ptr, weight = np.array(arcs.start, dtype=np.int64), np.array(inc.weight, dtype=np.int64)
        is_seed = np.frombuffer(bytes(inc.seed), dtype=np.uint8).astype(bool)
        via = np.array(cands.via, dtype=np.int64)
    order = stable_argsort(tgt, inc.n)
    in_ptr = np.zeros(inc.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(tgt, minlength=inc.n), out=in_ptr[1:])
    p = _prices(cands, inc, cols)
    root = inc.n + 2 * len(cands.ranked) + p.groups
    routed = via >= 0
    seedy = np.zeros(root + 1, dtype=bool)
    seedy[via[routed]] = True
    seedy[via[routed & ~is_seed[tgt]]] = False  # some arc through it enters a node that is not a seed
    via_ptr = np.zeros(root - inc.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(via[routed] - inc.n, minlength=root - inc.n), out=via_ptr[1:])
    via_arc = np.flatnonzero(routed)[stable_argsort(via[routed] - inc.n, root - inc.n)]
    s = _Static(src, tgt, via, out_ptr, in_ptr, order.astype(np.int64), weight,
                np.flatnonzero(is_seed).astype(np.int64), is_seed, seedy, via_ptr, via_arc, inc.n, root,
                p, rank=_rank(inc) if cols is None else cols.rank, n_src=inc.sub.n_src,
                by_id=inc.sub.ids if cols is None else inc.sub.fast[1].tolist(),
                top=np.where(p.zof >= 0, p.zof, np.arange(inc.n, dtype=np.int64)))
    s.lone = _lone(s)
    s.k = compiled.plan_kernel(s.src, s.tgt, s.via, s.out_ptr, s.in_ptr, s.in_arc, s.via_ptr, s.via_arc, s.seeds,
                               s.weight, s.is_seed, s.seedy, p.zof, s.lone, s.n, s.root)
    if s.k is not None:
        kernel_prices(s, cands, cols)
    return s


def _lone(s: _Static) -> np.ndarray:
    """:attr:`_Static.lone`: real nodes themselves, a virtual node the source all its arcs share."""
    lone = np.full(s.root + 1, -1, dtype=np.int64)
    lone[:s.n] = np.arange(s.n, dtype=np.int64)
    size = np.diff(s.via_ptr)
    by = s.src[s.via_arc]
    seg = np.repeat(np.arange(size.size, dtype=np.int64), size)
    mixed = np.zeros(size.size, dtype=bool)
    mixed[seg[1:][(by[1:] != by[:-1]) & (seg[1:] == seg[:-1])]] = True
    one = np.flatnonzero((size > 0) & ~mixed)
    lone[s.n + one] = by[s.via_ptr[one]]
    return lone


def _rank(inc: Incident) -> np.ndarray:
    """(n,) int64 position of every node in result order (:func:`~graphkit.analysis.results.node_order`, a total
    order: it ends with the id)."""
    nodes = inc.sub.nodes
    rank = np.empty(inc.n, dtype=np.int64)
    rank[sorted(range(inc.n), key=lambda i: node_order(nodes[i]))] = np.arange(inc.n, dtype=np.int64)
    return rank


def _cut_root(c: Candidate, tree: _Tree, s: _Static) -> int:
    """The dominator-tree node whose subtree ``c`` cuts (the reference's ``_reduction``): its wipe group node
    when it has one."""
    z = int(s.prices.zroot[s.prices.find(c.action, c.subject)])
    if z >= 0:
        return z
    return c.subject if c.invalidates or tree.idom[c.subject] == c.via_in else c.via_out


def _wipes_now(c: Candidate, st: _State) -> bool:
    return bool(c.wipes) and any(not st.dead[w] for w in c.wipes)


def _trial(c: Candidate, s: _Static, st: _State) -> bool:
    """``c`` wipes nodes still valid and has no wipe group: a trial reachability prices it."""
    return _wipes_now(c, st) and s.prices.zroot[s.prices.find(c.action, c.subject)] < 0


def _reduction(c: Candidate, s: _Static, st: _State) -> int:
    if _trial(c, s, st):  # several nodes go at once: no single subtree (one trial reachability)
        alive, dead = st.alive.copy(), st.dead.copy()
        alive[c.arcs] = False
        dead[[c.subject, *c.wipes]] = True
        return st.residual - int(s.weight[_reach(s, alive, dead)].sum())
    tree = st.tree
    return int(tree.subw[_cut_root(c, tree, s)])  # type: ignore[union-attr]


def _key(p: _Prices, pos: int, red: int, dead: np.ndarray) -> int | None:
    """:func:`~graphkit.analysis.plan.greedy.greedy_key` of candidate ``pos`` removing ``red``, packed in one
    integer (order preserved: group, not own, not exposed long-lived, then -red); None: not eligible."""
    own = p.own_l[pos] and not dead[p.subject_l[pos]]
    if red <= 0 and not own:
        return None
    return ((p.base_l[pos] + (0 if own else 2)) << p.shift) - red


def _queue(cands: Candidates, s: _Static, st: _State) -> _Queue:
    """Every eligible candidate priced on the new tree at once (numpy), in greedy-key then tie-break order.

    A candidate that wipes several nodes without a wipe group (``prices.wipe_groups``: with one, the subtree of its
    group node) has no single subtree (its price is a trial reachability): it is queued
    with the whole residual as its reduction, a key no larger than its own (a step removes at most the residual;
    the packed key keeps it inside its group: ``_prices``' shift), so the lazy queue prices it only if it reaches
    the top (:func:`_pop_best` re-prices every popped item and pushes it back under its true key unless that is
    the key it was popped with): the order of the true keys, hence the plan, is unchanged."""
    p, tree = s.prices, st.tree
    cut = np.where(p.inv | (tree.idom[p.subject] == p.via_in), p.subject, p.via_out)  # type: ignore[union-attr]
    cut = np.where(p.zroot >= 0, p.zroot, cut)
    red = tree.subw[cut]  # type: ignore[union-attr]
    for pos in p.wiping[p.zroot[p.wiping] < 0].tolist():  # several nodes go at once: priced when popped (docstring)
        if not st.applied[pos] and _wipes_now(cands.ranked[pos], st):
            red[pos] = st.residual
    own = p.own & ~st.dead[p.subject]
    ok = p.pool & ~st.applied & ((red > 0) | own)
    key = ((p.base + np.where(own, 0, 2)) << p.shift) - red
    pos = np.flatnonzero(ok)
    ok_keys = key[pos]
    pos = pos[stable_argsort(ok_keys - ok_keys.min(initial=0))]  # equal keys: tie-break order (pos)
    if s.k is not None:  # the kernel holds the queue (its loop pops from it too)
        return KernelQueue(s.k, np.ascontiguousarray(key[pos]), pos.astype(np.int64))
    return _Queue(key[pos].tolist(), pos.tolist())


class _Queue:
    """A priority queue of ``(key, pos)``: a sorted run (the last tree's prices) and a heap of re-priced items;
    pops in the order one heap holding both would."""

    __slots__ = ("keys", "poss", "at", "back")

    def __init__(self, keys: list[int], poss: list[int]) -> None:
        self.keys, self.poss, self.at, self.back = keys, poss, 0, []

    def pop(self) -> tuple[int, int] | None:
        at, back = self.at, self.back
        if at < len(self.keys):
            head = (self.keys[at], self.poss[at])
            if not back or head < back[0]:
                self.at = at + 1
                return head
        return heapq.heappop(back) if back else None

    def push(self, key: int, pos: int) -> None:
        heapq.heappush(self.back, (key, pos))


def _pop_best(queue: _Queue, cands: Candidates, s: _Static, st: _State) -> tuple[int, int] | None:
    """The candidate (its tie-break position) the reference's ``_best`` picks, and its reduction: keys only grow
    while the tree is kept (lazy queue)."""
    p = s.prices
    while (item := queue.pop()) is not None:
        key, pos = item
        if st.applied[pos]:
            continue
        red = _reduction(cands.ranked[pos], s, st)
        fresh = _key(p, pos, red, st.dead)
        if fresh is None:
            continue
        if fresh == key:
            return pos, red
        queue.push(fresh, pos)
    return None


#: the compiled cut repairs the tree when what may change dominators has at most ``(N + 1) // REPAIR + REPAIR_MIN``
#: nodes (``_plan_kernel.Plan.cut``), else a new tree is built (the tests set both to refuse every repair)
REPAIR, REPAIR_MIN = 8, 64


def _cap(s: _Static) -> int:
    return (s.root + 1) // REPAIR + REPAIR_MIN


def _cut_in_place(c: Candidate, s: _Static, st: _State) -> tuple[np.ndarray, np.ndarray] | None:
    """Apply ``c`` (priced by one subtree: not :func:`_trial`) on the kept tree: ``(the nodes it cuts, the nodes whose subtree weight may have
    grown)``, or None when dominators may change (the caller recomputes).  Compiled (``_plan_kernel.Plan.cut``,
    the same steps in one call), which also repairs a tree whose dominators change in a small region (the nodes
    whose subtree may have grown are then not empty: :func:`_repush`)."""
    tree, pos = st.tree, s.prices.find(c.action, c.subject)
    if s.k is not None:
        return s.k.cut(tree.idom, tree.subw, tree.links, tree.gone.view(np.uint8),  # type: ignore
                       st.alive.view(np.uint8), st.reached.view(np.uint8), st.dead.view(np.uint8), c.subject,
                       c.via_in, c.via_out, c.invalidates, s.prices.arcs[pos], _cap(s), int(s.prices.zroot[pos]))
    z = _cut_root(c, tree, s)  # type: ignore[arg-type]
    d = _subtree(tree, z)  # type: ignore[arg-type]
    if not _kept(c, s, st, d):
        return None
    tree.gone[d] = True  # type: ignore[union-attr]
    # all the arcs of c's via_in go: a leaf outside ``d``, or the parent of its root
    tree.gone[c.via_in] = True  # type: ignore[union-attr]
    w = tree.subw[z]  # type: ignore[union-attr]
    x = tree.idom[z]  # type: ignore[union-attr]
    while x >= 0:
        tree.subw[x] -= w  # type: ignore[union-attr]
        x = tree.idom[x]  # type: ignore[union-attr]
    tree.subw[d] = 0  # type: ignore[union-attr]
    return d[d < s.n], _NO_ARCS


def _kept(c: Candidate, s: _Static, st: _State, d: np.ndarray) -> bool:
    """Whether the dominator tree without the subtree ``d`` that ``c`` cuts is the tree of the graph after ``c``.

    In the dominator graph ``H`` (``_tree``), applying ``c`` removes exactly the nodes ``R`` = ``d`` and
    ``c``'s two virtual nodes (all their arcs go), with every arc touching them, and nothing else.  Call an
    *exit* a node outside ``R`` that loses an arc from ``R``.  Lemma: if every exit ``v`` keeps the arc from its
    immediate dominator ``p``, no dominator outside ``R`` changes.  Proof: ``p`` is a proper ancestor of
    the cut root (the tree's parent property on the lost arc; for ``c``'s subject, which loses the arc from
    its ``via_in``, its own parent), so a simple path from the root to ``p`` meets no node of ``R`` (it would
    meet the cut root or the subject after ``p``, which dominates them): every path avoiding some node ``x``
    to ``p`` survives, and with the arc ``p -> v`` every path avoiding ``x`` to ``v`` too (``x`` does not
    dominate ``v``, hence is not ``p``).  Any other path avoiding ``x`` to a node ``y`` outside ``R`` that met
    ``R`` is replaced by one to the exit after its last node of ``R``, then its own end: every non-dominator
    stays one, and dominators of ``y`` can only be gained, never lost, by removing nodes.  Exits that are
    seeds keep the arc from the root (or their wipe group's).  An exit whose immediate dominator is the root
    may instead keep arcs from two seeds the root enters through distinct nodes (:attr:`_Static.top`), each
    directly or through a virtual node whose arcs all leave that seed (:attr:`_Static.lone`): the two paths
    from the root share no other node, a node ``x`` other than the root and the exit is on at most one of them,
    and the other avoids ``x``.  A
    virtual node all of whose arcs enter seeds is a leaf no reduction
    reads, and any path through it is replaced by the root's arc into the seed after it (its own immediate
    dominator may go stale: the check skips it).

    When some exits fail the check, the same argument shows that only what they reach after the cut (``A``) may
    change dominators: the compiled cut repairs the tree there (``docs/revocation-plan.md``, "Repairing the
    tree"); this numpy version refuses and the caller builds a new tree.
    """
    tree = st.tree
    in_r = np.zeros(s.root + 1, dtype=bool)
    in_r[d] = True
    in_r[c.via_in] = in_r[c.via_out] = True
    d_real, d_virt = d[d < s.n], d[d >= s.n]  # the root is never cut
    a = np.concatenate([expand(s.out_ptr, d_real)[0], s.via_arc[expand(s.via_ptr, d_virt - s.n)[0]],
                        s.prices.arcs[s.prices.find(c.action, c.subject)]])
    u, v, x = s.src[a], s.tgt[a], s.via[a]
    live = _dg(s, st.alive[a], st.reached, st.dead, u, v)
    u, v, x = u[live], v[live], x[live]
    routed = x >= 0
    exit_ = np.zeros(s.root + 1, dtype=bool)
    exit_[v[~routed & in_r[u]]] = True
    exit_[x[routed & in_r[u]]] = True
    exit_[v[routed & in_r[np.maximum(x, 0)]]] = True
    exit_ &= ~in_r & ~s.seedy  # the root's arc into a seed stays
    exit_[:s.n] &= ~s.is_seed
    heads = np.flatnonzero(exit_)
    if not heads.size:
        return True
    for b, owner, par in _entries(s, heads[heads < s.n], heads[heads >= s.n]):
        src = s.src[b]
        ok = _dg(s, st.alive[b], st.reached, st.dead, src, s.tgt[b]) & ~in_r[src] & ~in_r[par]
        idom = tree.idom[owner]  # type: ignore[union-attr]
        held = ok & (s.lone[par] == src) & s.is_seed[src] & (idom == s.root)  # type: ignore[index]
        exit_[owner[ok & (par == idom)]] = False
        exit_[_two_or_more(owner[held], s.top[src[held]])] = False  # type: ignore[index]
    return not exit_.any()


#: Tests set this: after every step that keeps the tree, compare it with a new one (a dominator pass a step).
VERIFY = False


def _entries(s: _Static, real: np.ndarray, virt: np.ndarray):
    """The dominator-graph arcs into the exits: ``(arcs, the exit each enters, the node they come from)``, for
    the real exits (arcs into them: from a real node, or from the virtual node they pass) and
    the virtual ones (arcs passing them: from their real source)."""
    if real.size:
        b, owner = expand(s.in_ptr, real)
        b = s.in_arc[b]
        yield b, owner, np.where(s.via[b] >= 0, s.via[b], s.src[b])
    if virt.size:
        b, owner = expand(s.via_ptr, virt - s.n)
        b = s.via_arc[b]
        yield b, owner + s.n, s.src[b]


def _two_or_more(owner: np.ndarray, src: np.ndarray) -> np.ndarray:
    """The owners that have two or more distinct sources."""
    if owner.size < 2:
        return owner[:0]
    pairs = np.unique(np.stack([owner, src]), axis=1)
    own, counts = np.unique(pairs[0], return_counts=True)
    return own[counts >= 2]


def _apply(s: _Static, st: _State, c: Candidate, red: int) -> tuple[tuple, np.ndarray]:
    """Apply ``c`` (removing ``red``): the step's record (:func:`~graphkit.analysis.plan.kernel_loop.built`), and
    the nodes whose subtree weight may have grown on the kept tree (:func:`_repush`)."""
    pos = s.prices.find(c.action, c.subject)
    c.applied = st.applied[pos] = True
    found = _cut_in_place(c, s, st) if st.tree is not None and not _trial(c, s, st) else None
    cut, grown = found if found is not None else (None, _NO_ARCS)
    st.alive[s.prices.arcs[pos]] = False
    if c.invalidates:
        st.dead[[c.subject, *c.wipes]] = True
    if cut is None:  # other paths changed: a new reached set, and a new tree next time
        after = _reach(s, st.alive, st.dead)
        gone = np.flatnonzero(st.reached & ~after)
        st.reached, st.tree = after, None
        if st.residual - red != int(s.weight[after].sum()):  # pragma: no cover - internal invariant
            raise AssertionError("revocation plan: dominator reduction disagrees with reachability")
    else:
        gone = cut
        st.reached[cut] = False
        if VERIFY:
            _verify(s, st)
    st.residual -= red
    return (c.action, c.subject, c.long_lived, c.phase, red, gone, st.residual), grown


def _repush(queue: _Queue, grown: np.ndarray, cands: Candidates, s: _Static, st: _State) -> None:
    """After a repaired tree (``grown``: nodes that moved or whose subtree may have grown), queue again, under
    their current keys, the candidates whose cut root is one of them (its subject, its ``via_out`` or its wipe
    group node): their reductions may have grown, and the lazy queue holds for every candidate a key no larger
    than its own.  Every wiping candidate without a wipe group is queued again too, with the whole residual as its reduction (as in :func:`_queue`): its
    reduction is no subtree (a trial reachability), and dominators that change can make it grow wherever its
    subject is (random graphs 424 and 457: a reimage_host and a remove_runner_registration priced 0, dropped, then
    worth 442 and 32 after a repair elsewhere).  With the kernel's queue, the kernel does the same
    (``Plan.repush``, of the nodes its last cut touched: ``grown``)."""
    if isinstance(queue, KernelQueue):
        tree = st.tree
        s.k.repush(tree.idom, tree.subw, st.dead.view(np.uint8), st.applied.view(np.uint8),  # type: ignore
                   st.residual)
        return
    p = s.prices
    poss: set[int] = set()
    for t in grown.tolist():
        if t < s.n:
            poss.update(p.by_subject[p.subject_ptr[t]:p.subject_ptr[t + 1]])
        elif t < s.root:
            poss.add(p.of_virtual[t - s.n])
    poss.update(p.wiping[p.zroot[p.wiping] < 0].tolist())
    for pos in sorted(poss):
        if st.applied[pos] or not p.pool[pos]:
            continue
        c = cands.ranked[pos]
        key = _key(p, pos, st.residual if _trial(c, s, st) else _reduction(c, s, st), st.dead)
        if key is not None:
            queue.push(key, pos)


def _closed(s: _Static, st: _State, subjects: list[int]) -> list[int]:
    """The ``subjects`` no live arc from a reached node enters any more (nothing mints them: e.g. no path assumes
    the role): one compiled pass (``_plan_kernel.Plan.minted``), else one numpy pass over their in-arcs."""
    rows = np.array(subjects, dtype=np.int64)
    if s.k is not None:
        return rows[~s.k.minted(rows, st.alive.view(np.uint8), st.reached.view(np.uint8))].tolist()  # type: ignore
    a, owner = expand(s.in_ptr, rows)
    a = s.in_arc[a]
    u = s.src[a]
    return rows[~np.isin(rows, owner[st.alive[a] & st.reached[u] & (u != owner)])].tolist()


def _flush(inc: Incident, cands: Candidates, s: _Static, st: _State, pending: dict, steps: StepLog, room,
           followed: set[int], *, only_closed: bool) -> None:
    """The reference's ``_flush``: companions whose subject nothing mints any more (every one at the end), as
    step records (:func:`_apply`).  Which of them remove a live arc is read for all at once (:func:`_live_any`),
    again only after one that did (it changes the reached set); the others change nothing but their arcs."""
    if not pending:
        return
    order = s.by_id.__getitem__  # type: ignore[union-attr]
    # in id order, those nothing mints (the minted ones are skipped: only the others are sorted)
    todo = sorted(_closed(s, st, list(pending)) if only_closed else pending, key=order)
    at, base, live = 0, 0, None
    p = s.prices
    while at < len(todo):
        if not room():
            return
        if live is None:
            base, live = at, _live_any(s, st, [_or(p.find(pending[x][0], x), -1) for x in todo[at:]])
        subject = todo[at]
        changes = live[at - base]
        at += 1
        action, phase = pending.pop(subject)
        if action is _REVOKE:
            followed.add(subject)
        pos = p.find(action, subject)
        arcs = _NO_ARCS
        if pos is not None:
            st.applied[pos] = True
            if type(cands) is Candidates:
                cands.ranked[pos].applied = True
            arcs = p.arcs[pos]
        st.alive[arcs] = False
        if not changes:  # no arc it removes leaves a reached node: the reached graph, its tree and the residual stay
            steps.append((action, subject, False, phase, 0, _NO_ARCS, st.residual))
            continue
        after = _reach(s, st.alive, st.dead)
        residual = int(s.weight[after].sum())
        steps.append((action, subject, False, phase, st.residual - residual, np.flatnonzero(st.reached & ~after),
                      residual))
        st.reached, st.residual, st.tree, live = after, residual, None, None
        if only_closed and pending:  # what the next ones (after this one in id order) see
            last = order(subject)
            todo = todo[:at] + sorted((x for x in _closed(s, st, list(pending)) if order(x) > last), key=order)


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def _follow(c: Candidate, comp: Companions | None, pending: dict, followed: set[int]) -> None:
    """After the Python loop took ``c``: its companion is pending (in ``comp`` where the kernel lists them)."""
    follow = FOLLOW_UP.get(c.action)
    if follow is not None and comp is not None:
        comp.add(c.subject, c.phase)
    elif follow is not None and c.subject not in followed:
        pending[c.subject] = (follow, c.phase)


def _listed(inc: Incident, cands: Candidates, s: _Static, st: _State, log: tuple, comp: Companions | None,
            pending: dict, followed: set[int], *, only_closed: bool) -> None:
    """:func:`_flush`, by the kernel where it lists the companions (``comp``); ``log``: ``(made, steps, max_steps,
    room)``."""
    made, steps, max_steps, room = log
    if comp is not None:
        _kernel_flush(s, st, made, steps, max_steps, comp, only_closed=only_closed)
    else:
        _flush(inc, cands, s, st, pending, steps, room, followed, only_closed=only_closed)


def _live_any(s: _Static, st: _State, poss: list[int]) -> list[bool]:
    """Per candidate position (-1: none): whether an arc it removes is live and leaves a reached node into a valid
    one (another node).  One numpy pass over their arcs."""
    rows = np.array(poss, dtype=np.int64)
    arcs = s.prices.arcs
    has = rows >= 0
    lo, hi = np.zeros(rows.size, dtype=np.int64), np.zeros(rows.size, dtype=np.int64)
    lo[has], hi[has] = arcs.lo[rows[has]], arcs.hi[rows[has]]
    lens = hi - lo
    owner = np.repeat(np.arange(rows.size, dtype=np.int64), lens)
    a = arcs.flat[np.arange(owner.size, dtype=np.int64) + np.repeat(lo - (np.cumsum(lens) - lens), lens)]
    u, v = s.src[a], s.tgt[a]
    out = np.zeros(rows.size, dtype=bool)
    out[owner[st.alive[a] & st.reached[u] & ~st.dead[v] & (u != v)]] = True
    return out.tolist()


def _kernel_steps(s: _Static, st: _State, made: Made, steps: StepLog, max_steps: int | None,
                  comp: Companions | None) -> bool:
    """The kernel's loop takes the steps it can (:func:`~graphkit.analysis.plan.kernel_loop.run`): True when the
    caller goes on from the top (it stopped, or a companion made the tree stale), False when the queue's top is for
    :func:`_pop_best`."""
    status = _run(s, st, made, steps, max_steps, _cap(s), comp)
    if status == 3:  # a companion changed the reached set
        st.tree = None
    return status in (0, 3)


def _held(ids, held: list[int]) -> tuple[str, ...]:
    return tuple(ids.many(held) if hasattr(ids, "many") else [ids[i] for i in held])


def fast_plan(inc: Incident, cands: Candidates, max_steps: int | None,
              live_sessions: frozenset[int] = frozenset(), cols: Columns | None = None) -> RevocationPlan:
    """:func:`~graphkit.analysis.plan.greedy.greedy_plan`, incrementally (module docstring); same arguments,
    same result.  ``cols``: the same incident and candidates as arrays, when the front end made them
    (:mod:`graphkit.analysis.plan.arrays`), read instead of the objects."""
    s = _static(inc, cands, cols)
    applied = np.zeros(len(cands.ranked), dtype=bool) if cols is not None else \
        np.fromiter((c.applied for c in cands.ranked), bool, len(cands.ranked))  # columns: none applied yet
    st = _State(np.ones(s.src.size, dtype=bool), np.zeros(inc.n, dtype=bool), np.zeros(0, dtype=bool), 0, applied)
    st.reached = _reach(s, st.alive, st.dead)
    initial = st.residual = int(s.weight[st.reached].sum())
    #: the steps' records (:func:`_apply`) and the kernel's loop's runs (both made columns at the end:
    #: :func:`~graphkit.analysis.plan.kernel_loop.built`)
    steps = StepLog()
    #: the subjects whose companion (a session revocation) was listed: one per role
    followed: set[int] = set()
    n_src = inc.sub.n_src
    made = Made(len(cands.ranked), inc.n) if s.k is not None else None
    listed = made is not None and _companions(s, live_sessions)  # the kernel lists companions too

    def room() -> bool:
        return max_steps is None or len(steps) < max_steps

    pending: dict[int, tuple[RevocationAction, Phase]] = {r: (_REVOKE, Phase.CONTAIN) for r in sorted(live_sessions)}
    #: with the kernel listing them: the companions as arrays, which its loop and flushes update in place
    comp = Companions(s.n, pending) if listed and not VERIFY else None
    queue = _Queue([], [])
    while st.residual > 0 and room():
        if st.tree is None:
            st.tree = _tree(s, st)
            queue = _queue(cands, s, st)
        if made is not None and not VERIFY and (comp is not None or not pending) and \
                _kernel_steps(s, st, made, steps, max_steps, comp):
            continue
        best = _pop_best(queue, cands, s, st)
        if best is None:
            break
        c, red = cands.ranked[best[0]], best[1]
        step, grown = _apply(s, st, c, red)
        steps.append(step)
        if grown.size and st.tree is not None:
            _repush(queue, grown, cands, s, st)
        _follow(c, comp, pending, followed)  # the kernel's steps are never companions
        _listed(inc, cands, s, st, (made, steps, max_steps, room), comp, pending, followed, only_closed=True)
    _listed(inc, cands, s, st, (made, steps, max_steps, room), comp, pending, followed, only_closed=False)
    ids = inc.sub.ids
    return RevocationPlan(sources=tuple(ids[:n_src]), initial_weight=initial, held=_held(ids, inc.held),
                          steps=built(ids, inc.sub.nodes, s, made, steps))
