"""The kernel's side of the revocation plan's fast loop (:mod:`graphkit.analysis.plan.fast`), and the cuts of steps.

With the compiled plan passes (``graphkit/analysis/_plan_kernel.pyx``), ``fast_plan`` hands the kernel the
candidates once (:func:`kernel_prices`) and lets its loop (``Plan.run``, through :func:`run`) take the steps
while no companion can come: the same choices and updates as ``fast._pop_best`` and ``fast._apply``, with the
lazy queue held in C (:class:`KernelQueue`).  Those steps are kept as arrays (:class:`Made`); with the Python loop's they become the
plan's columns (:func:`built`, :class:`StepColumns`: every cut sorted in result order together), whose
:class:`~graphkit.analysis.results.RevocationStep` objects are made on demand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from graphkit.analysis.plan.arrays import stable_argsort
from graphkit.analysis.plan.candidates import _ACTION_RANK, _PHASE_RANK, FOLLOW_UP, Candidates
from graphkit.analysis.results import Phase, RevocationStep, RevocationSteps
from graphkit.analysis.snapshot import expand
from graphkit.model import REVOCATION_SPECS, RevocationAction

if TYPE_CHECKING:
    from graphkit.analysis.plan.arrays import Columns
    from graphkit.analysis.plan.fast import _State, _Static

__all__ = ["Companions", "KernelQueue", "Made", "StepColumns", "StepLog", "built", "companions", "flush", "kernel_prices",
           "run"]

_NO_ARCS = np.zeros(0, dtype=np.int64)
_ACTIONS: tuple[RevocationAction, ...] = tuple(RevocationAction)
_PHASES: tuple[Phase, ...] = tuple(Phase)
_REVOKE = RevocationAction.REVOKE_ROLE_SESSIONS
#: per action position: a companion follows it (FOLLOW_UP)
_FOLLOWED = np.array([a in FOLLOW_UP for a in _ACTIONS], dtype=bool)


def kernel_prices(s: _Static, cands: Candidates, cols: Columns | None) -> None:
    """Hand the candidates to the kernel's loop (``_plan_kernel.Plan.prices``): the arrays of ``s.prices`` (what
    each wipes, its wipe group), which have a companion, and the arcs each removes as flat arrays."""
    p, ranked = s.prices, cands.ranked
    flat, lo, hi = p.arcs.flat, p.arcs.lo, p.arcs.hi
    if cols is not None and cols.action is not None:
        follow = _FOLLOWED[cols.action]
    else:
        follow = np.fromiter((c.action in FOLLOW_UP for c in ranked), bool, len(ranked))
    u8 = [np.ascontiguousarray(x, dtype=bool).view(np.uint8) for x in (p.inv, p.own, p.pool, follow)]
    i64 = [np.ascontiguousarray(x, dtype=np.int64) for x in (p.subject, p.via_in, p.via_out, p.base)]
    s.k.prices(*i64[:3], u8[0], u8[1], i64[3], u8[2], u8[3], p.wptr, p.wipes,  # type: ignore[attr-defined]
               np.ascontiguousarray(lo, dtype=np.int64), np.ascontiguousarray(hi, dtype=np.int64),
               np.ascontiguousarray(flat, dtype=np.int64), p.subject_ptr_a, p.by_subject_a(), p.of_virtual_a(),
               p.zroot, p.shift)


class KernelQueue:
    """:class:`_Queue` held by the kernel (``_plan_kernel.Plan.queue``, ``pop``, ``push``): the same order."""

    __slots__ = ("pop", "push")

    def __init__(self, k, keys: np.ndarray, poss: np.ndarray) -> None:
        k.queue(keys, poss)
        self.pop, self.push = k.pop, k.push


class Made:
    """The steps the kernel's loop took (``_plan_kernel.Plan.run``): (5, k + n) int64 ``out`` (candidate position
    or -1 for a companion, reduction, residual after it, subject, a companion's phase code), the real nodes each
    cut (``cut[cut_ptr[i]:cut_ptr[i + 1]]``), ``n`` taken.  At most one step per candidate and one companion per
    node: ``k + n`` steps."""

    __slots__ = ("out", "cut_ptr", "cut", "n")

    def __init__(self, k: int, n: int) -> None:
        self.out = np.zeros((5, k + n + 1), dtype=np.int64)
        self.cut_ptr = np.zeros(k + n + 2, dtype=np.int64)
        self.cut = np.zeros(n + 1, dtype=np.int64)
        self.n = 0


def companions(s: _Static, live_sessions: frozenset[int]) -> bool:
    """Let the kernel's loop list the companions too (``_plan_kernel.Plan.companions``): the nodes that may have one
    pending (the ``live_sessions`` roles and the subjects of candidates with a companion) in id order, and each
    one's companion candidate.  False (nothing handed over) unless every companion is a session revocation."""
    if set(FOLLOW_UP.values()) != {_REVOKE}:  # pragma: no cover - the kernel lists session revocations only
        return False
    p = s.prices
    may = set(live_sessions) | set(p.subject[_FOLLOWED[p.action_c]].tolist())
    order = sorted(may, key=s.by_id.__getitem__)  # type: ignore[union-attr]
    pos = np.full(s.n, -1, dtype=np.int64)  # the session revocation of each node (one per subject at most)
    revoke = np.flatnonzero(p.action_c == _ACTION_RANK[_REVOKE])
    pos[p.subject[revoke]] = revoke
    s.k.companions(np.array(order, dtype=np.int64), pos, np.ascontiguousarray(p.phase_c, dtype=np.int64),  # type: ignore
                   _ACTION_RANK[_REVOKE])
    return True


class Companions:
    """The companions (session revocations) pending and listed, as the kernel reads and updates them: ``pend``
    (n,) int8 the phase code of each node's pending companion (-1: none), ``done`` (n,) uint8 listed already."""

    __slots__ = ("pend", "done")

    def __init__(self, n: int, pending: dict | None = None) -> None:
        self.pend = np.full(n, -1, dtype=np.int8)
        for v, (_, phase) in (pending or {}).items():
            self.pend[v] = _PHASE_RANK[phase]
        self.done = np.zeros(n, dtype=np.uint8)

    def add(self, subject: int, phase: Phase) -> None:
        """A step with a companion on ``subject`` was taken: its companion is pending unless listed already."""
        if not self.done[subject]:
            self.pend[subject] = _PHASE_RANK[phase]


def run(s: _Static, st: _State, made: Made, steps: StepLog, max_steps: int | None, cap: int,
        comp: Companions | None) -> int:
    """Steps taken by the kernel's loop while it can (``_plan_kernel.Plan.run``: the same choices and updates as
    :func:`_pop_best`, :func:`_apply` and, with :func:`companions` and ``comp``, :func:`_flush`), appended to
    ``steps`` as their indexes in ``made``.  Its status (0: it stopped at the step bound or a residual of 0; 3: a
    companion changed the reached set, the tree is stale; else the queue's top is for :func:`_pop_best`)."""
    tree, u8 = st.tree, np.uint8
    left = (1 << 62) if max_steps is None else max_steps - len(steps)
    comp = comp if comp is not None else Companions(s.n)
    status, taken, st.residual = s.k.run(  # type: ignore[attr-defined]
        tree.idom, tree.subw, tree.links, tree.gone.view(u8), st.alive.view(u8), st.reached.view(u8),  # type: ignore
        st.dead.view(u8), st.applied.view(u8), st.residual, left, cap, made.out,
        made.cut_ptr, made.cut, made.n, comp.pend, comp.done)
    steps.kernel(made.n, taken)
    made.n = taken
    return status


def flush(s: _Static, st: _State, made: Made, steps: StepLog, max_steps: int | None, comp: Companions, *,
          only_closed: bool) -> None:
    """``fast._flush`` by the kernel (``_plan_kernel.Plan.flush``), with :func:`companions` set: the pending
    companions nothing mints (every one unless ``only_closed``: the plan's end) in id order, each a step appended
    to ``steps`` as in :func:`run`; the tree is dropped when one changed the reached set."""
    u8 = np.uint8
    left = (1 << 62) if max_steps is None else max_steps - len(steps)
    stale, taken, st.residual = s.k.flush(  # type: ignore[attr-defined]
        only_closed, st.alive.view(u8), st.reached.view(u8), st.dead.view(u8), st.applied.view(u8), st.residual, left,
        made.out, made.cut_ptr, made.cut, made.n, comp.pend, comp.done)
    steps.kernel(made.n, taken)
    made.n = taken
    if stale:
        st.tree = None


class StepLog:
    """The steps of a plan as the loop takes them: the Python loop's records ``(action, subject, long_lived, phase,
    reduction, cut nodes, residual)`` and runs of the kernel's (``range`` of their indexes in :class:`Made`)."""

    __slots__ = ("parts", "n")

    def __init__(self) -> None:
        self.parts: list = []
        self.n = 0

    def __len__(self) -> int:
        return self.n

    def append(self, record: tuple) -> None:
        self.parts.append(record)
        self.n += 1

    def kernel(self, start: int, stop: int) -> None:
        if stop > start:
            self.parts.append(range(start, stop))
            self.n += stop - start


def built(ids, nodes, s: _Static, made: Made | None, steps: StepLog) -> RevocationSteps:
    """``steps`` as a :class:`~graphkit.analysis.results.RevocationSteps` whose step objects are made on demand
    (:class:`StepColumns`): columns of the kernel's steps (from ``made``'s arrays, a run at a time) and of the
    Python loop's records, every step's cut sorted in result order together (one ``lexsort``).  ``ids`` and
    ``nodes``: the reached nodes' ids and objects."""
    p, k = s.prices, len(steps)
    cols = StepColumns(ids, nodes)
    action, subject, long, phase, red, res = cols.action, cols.subject, cols.long, cols.phase, cols.reduction, \
        cols.residual
    lo: list[int] = []
    hi: list[int] = []
    if made is not None:
        ptr = made.cut_ptr[:made.n + 1]
        pieces, end = [made.cut[:ptr[-1]]], int(ptr[-1])
    else:
        ptr, pieces, end = _NO_ARCS, [_NO_ARCS], 0
    for part in steps.parts:
        if type(part) is range:
            a, b = part.start, part.stop
            pos = made.out[0, a:b]  # type: ignore[union-attr]
            comp, at = pos < 0, np.maximum(pos, 0)  # a companion: a session revocation, never long-lived
            action += np.where(comp, _ACTION_RANK[_REVOKE], _at(p.action_c, at)).tolist()
            subject += made.out[3, a:b].tolist()  # type: ignore[union-attr]
            long += (_at(p.long_c, at) & ~comp).tolist()
            phase += np.where(comp, made.out[4, a:b], _at(p.phase_c, at)).tolist()  # type: ignore[union-attr]
            red += made.out[1, a:b].tolist()  # type: ignore[union-attr]
            res += made.out[2, a:b].tolist()  # type: ignore[union-attr]
            lo += ptr[a:b].tolist()
            hi += ptr[a + 1:b + 1].tolist()
        else:
            act, sub, lg, ph, r, gone, after = part
            action.append(_ACTION_RANK[act])
            subject.append(sub)
            long.append(lg)
            phase.append(_PHASE_RANK[ph])
            red.append(r)
            res.append(after)
            pieces.append(gone)
            lo.append(end)
            end += gone.size
            hi.append(end)
    flat = np.concatenate(pieces).astype(np.int64, copy=False)
    lo_a, hi_a = np.array(lo, dtype=np.int64), np.array(hi, dtype=np.int64)
    lens = hi_a - lo_a
    step = np.repeat(np.arange(k, dtype=np.int64), lens)
    at = np.arange(step.size, dtype=np.int64) + np.repeat(lo_a - (np.cumsum(lens) - lens), lens)
    nodes_cut = flat[at]
    keep = nodes_cut >= s.n_src
    nodes_cut, step = nodes_cut[keep], step[keep]
    bound = int(s.rank.max(initial=0)) + 1
    order = stable_argsort(step * bound + s.rank[nodes_cut], max(k, 1) * bound)
    cols.cut = nodes_cut[order].tolist()
    cols.cut_ptr = [0, *np.cumsum(np.bincount(step, minlength=k)).tolist()]
    return RevocationSteps(k, cols)


def _at(column: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``column[at]``, zeros when there are no candidates (every step a companion)."""
    return column[at] if column.size else np.zeros(at.size, dtype=column.dtype)


class StepColumns:
    """A plan's steps as columns (one entry per step, lists; actions and phases as their positions in
    RevocationAction and Phase; the cut nodes of step ``i`` are
    ``cut[cut_ptr[i]:cut_ptr[i + 1]]``, local indexes in result order), called with a step's index to make its
    :class:`~graphkit.analysis.results.RevocationStep` (what ``greedy._step`` makes)."""

    __slots__ = ("ids", "nodes", "action", "subject", "long", "phase", "reduction", "residual", "cut", "cut_ptr")

    def __init__(self, ids, nodes) -> None:
        self.ids, self.nodes = ids, nodes
        self.action: list = []
        self.subject: list[int] = []
        self.long: list[bool] = []
        self.phase: list = []
        self.reduction: list[int] = []
        self.residual: list[int] = []
        self.cut: list[int] = []
        self.cut_ptr: list[int] = [0]

    def __call__(self, i: int) -> RevocationStep:
        node, action, ids = self.nodes[self.subject[i]], _ACTIONS[self.action[i]], self.ids
        return RevocationStep(
            rank=i + 1, action=action, subject_id=node.id, subject_kind=node.spec.kind, subject_name=node.name,
            description=REVOCATION_SPECS[action].description, long_lived=self.long[i], phase=_PHASES[self.phase[i]],
            reduction=self.reduction[i], cuts=tuple([ids[j] for j in self.cut[self.cut_ptr[i]:self.cut_ptr[i + 1]]]),
            residual_weight=self.residual[i])
