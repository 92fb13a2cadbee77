"""The kernel's side of the revocation plan's fast loop (:mod:`graphkit.analysis.plan.fast`), and the cuts of steps.

With the compiled plan passes (``graphkit/analysis/_plan_kernel.pyx``), ``fast_plan`` hands the kernel the
candidates once (:func:`kernel_prices`) and lets its loop (``Plan.run``, through :func:`run`) take the steps
while no companion can come: the same choices and updates as ``fast._pop_best`` and ``fast._apply``, with the
lazy queue held in C (:class:`KernelQueue`).  Those steps are kept as arrays (:class:`Made`) and made
:class:`~graphkit.analysis.results.RevocationStep` objects once at the end (:func:`built`), their cuts sorted in
result order together (:func:`cuts_of_many`; :func:`cuts` for one step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from graphkit.analysis.plan.candidates import _ACTION_RANK, FOLLOW_UP, Candidates, Incident
from graphkit.analysis.plan.greedy import _step
from graphkit.analysis.results import node_order

if TYPE_CHECKING:
    from graphkit.analysis.plan.arrays import Columns
    from graphkit.analysis.plan.fast import _State, _Static

__all__ = ["KernelQueue", "Made", "built", "cuts", "cuts_of_many", "kernel_prices", "run"]

_NO_ARCS = np.zeros(0, dtype=np.int64)


def kernel_prices(s: _Static, cands: Candidates, cols: Columns | None) -> None:
    """Hand the candidates to the kernel's loop (``_plan_kernel.Plan.prices``): the arrays of ``s.prices``, which
    have a companion, what each wipes and the arcs each removes as flat arrays."""
    p, ranked = s.prices, cands.ranked
    if cols is not None and cols.arc_flat is not None:
        flat, lo, hi = cols.arc_flat, cols.arc_lo, cols.arc_hi
    else:
        lens = np.fromiter(map(len, p.arcs), np.int64, len(p.arcs))
        hi = np.cumsum(lens)
        lo = hi - lens
        flat = np.concatenate(p.arcs) if p.arcs else _NO_ARCS
    wlen = np.zeros(len(ranked), dtype=np.int64)
    wlen[p.wiping] = [len(ranked[i].wipes) for i in p.wiping.tolist()]
    wptr = np.zeros(len(ranked) + 1, dtype=np.int64)
    np.cumsum(wlen, out=wptr[1:])
    wipes = np.array([w for i in p.wiping.tolist() for w in ranked[i].wipes], dtype=np.int64)
    if cols is not None and cols.action is not None:
        follow = np.isin(cols.action, [_ACTION_RANK[a] for a in FOLLOW_UP])
    else:
        follow = np.fromiter((c.action in FOLLOW_UP for c in ranked), bool, len(ranked))
    u8 = [np.ascontiguousarray(x, dtype=bool).view(np.uint8) for x in (p.inv, p.own, p.pool, follow)]
    i64 = [np.ascontiguousarray(x, dtype=np.int64) for x in (p.subject, p.via_in, p.via_out, p.base)]
    s.k.prices(*i64[:3], u8[0], u8[1], i64[3], u8[2], u8[3], wptr, wipes,  # type: ignore[attr-defined]
               np.ascontiguousarray(lo, dtype=np.int64), np.ascontiguousarray(hi, dtype=np.int64),
               np.ascontiguousarray(flat, dtype=np.int64), np.array(p.subject_ptr, dtype=np.int64),
               np.array(p.by_subject, dtype=np.int64), np.array(p.of_virtual, dtype=np.int64), p.shift)


class KernelQueue:
    """:class:`_Queue` held by the kernel (``_plan_kernel.Plan.queue``, ``pop``, ``push``): the same order."""

    __slots__ = ("pop", "push")

    def __init__(self, k, keys: np.ndarray, poss: np.ndarray) -> None:
        k.queue(keys, poss)
        self.pop, self.push = k.pop, k.push


def cuts(inc: Incident, s: _Static, gone: np.ndarray) -> tuple[str, ...]:
    """Ids of the ``gone`` nodes (sources left out) in result order."""
    ids = inc.sub.ids
    if s.rank is not None:
        gone = gone[gone >= inc.sub.n_src]
        return tuple([ids[i] for i in gone[s.rank[gone].argsort()].tolist()])
    nodes = inc.sub.nodes
    return tuple(ids[i] for i in sorted((i for i in gone.tolist() if i >= inc.sub.n_src),
                                        key=lambda i: node_order(nodes[i])))


class Made:
    """The steps the kernel's loop took (``_plan_kernel.Plan.run``): (3, k) int64 ``out`` (candidate position,
    reduction, residual after it), the real nodes each cut (``cut[cut_ptr[i]:cut_ptr[i + 1]]``), ``n`` taken."""

    __slots__ = ("out", "cut_ptr", "cut", "n")

    def __init__(self, k: int, n: int) -> None:
        self.out = np.zeros((3, k + 1), dtype=np.int64)
        self.cut_ptr = np.zeros(k + 2, dtype=np.int64)
        self.cut = np.zeros(n + 1, dtype=np.int64)
        self.n = 0


def run(s: _Static, st: _State, made: Made, steps: list, max_steps: int | None, cap: int) -> int:
    """Steps taken by the kernel's loop while it can (``_plan_kernel.Plan.run``: the same choices and updates as
    :func:`_pop_best` and :func:`_apply`), appended to ``steps`` as their indexes in ``made``; its status (0: it
    stopped at the step bound or a residual of 0, else the queue's top is for :func:`_pop_best`)."""
    tree, u8 = st.tree, np.uint8
    left = (1 << 62) if max_steps is None else max_steps - len(steps)
    status, taken, st.residual = s.k.run(  # type: ignore[attr-defined]
        tree.idom, tree.subw, tree.links, tree.gone.view(u8), st.alive.view(u8), st.reached.view(u8),  # type: ignore
        st.dead.view(u8), st.applied.view(u8), st.residual, left, cap, made.out,
        made.cut_ptr, made.cut, made.n)
    steps.extend(range(made.n, taken))
    made.n = taken
    return status


def built(inc: Incident, cands: Candidates, s: _Static, made: Made | None, steps: list) -> tuple:
    """``steps`` with the kernel's (their indexes in ``made``) made :class:`RevocationStep` objects, in one pass
    (their cuts sorted in result order together)."""
    if made is None or not made.n:
        return tuple(steps)
    ptr = made.cut_ptr[:made.n + 1]
    cuts = cuts_of_many(inc, s, made.cut[:ptr[-1]], ptr)
    pos_l, red_l, res_l = made.out[:, :made.n].tolist()
    ranked, out = cands.ranked, []
    for i, x in enumerate(steps):
        if type(x) is int:
            c = ranked[pos_l[x]]
            c.applied = True
            x = _step(inc, rank=i + 1, action=c.action, subject=c.subject, long_lived=c.long_lived, phase=c.phase,
                      reduction=red_l[x], cuts=cuts[x], residual=res_l[x])
        out.append(x)
    return tuple(out)


def cuts_of_many(inc: Incident, s: _Static, nodes: np.ndarray, ptr: np.ndarray) -> list[tuple[str, ...]]:
    """:func:`cuts` of every step ``i``'s nodes ``nodes[ptr[i]:ptr[i + 1]]``: one sort of them all."""
    if s.rank is None:
        return [cuts(inc, s, nodes[ptr[i]:ptr[i + 1]]) for i in range(ptr.size - 1)]
    step = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    keep = nodes >= inc.sub.n_src
    nodes, step = nodes[keep], step[keep]
    order = np.lexsort((s.rank[nodes], step))
    ids = inc.sub.ids
    flat = [ids[i] for i in nodes[order].tolist()]
    ends = np.cumsum(np.bincount(step, minlength=ptr.size - 1)).tolist()
    return [tuple(flat[a:b]) for a, b in zip([0, *ends[:-1]], ends)]
