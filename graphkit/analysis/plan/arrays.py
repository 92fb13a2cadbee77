"""The revocation plan's front end from the traversal snapshot's arrays (issue 19): the incident and its candidates.

:func:`incident_arrays` and :func:`candidates_arrays` give what :func:`~graphkit.analysis.plan.candidates.incident`
and :func:`~graphkit.analysis.plan.candidates.candidates` (the reference, the specification) give, the same
:class:`~graphkit.analysis.plan.candidates.Incident` and :class:`~graphkit.analysis.plan.candidates.Candidates`
field for field (``tests/test_plan_arrays.py``: random graphs, the example, the golden cases, the corpus), built
with numpy over the snapshot's CSR (:mod:`graphkit.analysis.snapshot`) instead of one Python step per reached pair,
arc and candidate:

- the arcs are the reached rows' pairs in their variant, unfolded (the order of
  :func:`~graphkit.analysis.snapshot.subgraph` then :func:`~graphkit.analysis.reach.unfold`); their edges are
  read lazily (:class:`ArcEdges`: a pydantic edge is made only when read);
- what the plan reads of an arc's edge (kind, revoking action, unbounded lifetime) depends only on its shared
  :class:`~graphkit.storage.Form` (or, for a stored edge object, on its kind, lifetime and action): one code per
  arc, cached per snapshot and filled for the arcs a plan reaches (:func:`_arc_forms`), and one row per code
  computed from a real edge with the reference's own functions;
- what it reads of a node (its ``revoked_by``, whether its kind is holdable) is cached per snapshot the same way;
  weights and result order are :func:`graphkit.analysis.radius_arrays.node_columns`;
- candidates are numbered as the reference creates them (first arc of each ``(action, subject)`` in arc order,
  then the nodes' own actions in index order), and ranked by one ``lexsort``.

Also returns, beside the reference's objects, the same data as arrays (:class:`Columns`) for the fast loop.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from graphkit.analysis.plan import compiled
from graphkit.analysis.plan.candidates import (
    _ACTION_RANK, _PHASE_RANK, Candidate, Candidates, Containment, Incident, containment)
from graphkit.analysis.results import Phase
from graphkit.analysis.radius_arrays import copied, node_columns
from graphkit.analysis.reach import Arcs, Subgraph, lasting_seconds
from graphkit.analysis.snapshot import Snapshot, expand, give_back, reach_order, reached_pairs, snapshot
from graphkit.graph import Graph
from graphkit.model import EDGE_SPECS, EdgeKind, NodeKind, RevocationAction
from graphkit.storage import EdgeRecord

__all__ = ["ArcEdges", "Columns", "LazyCandidates", "candidate_columns", "candidates_arrays", "incident_arrays",
           "stable_argsort"]

_INF = float("inf")
_ACTIONS: tuple[RevocationAction, ...] = tuple(RevocationAction)
_PHASES: tuple[Phase, ...] = tuple(Phase)
_NODE_KINDS: tuple[NodeKind, ...] = tuple(NodeKind)
_FORMS = "graphkit.analysis.plan.arc_forms"
_FORM_OF = attrgetter("form")
_NODES = "graphkit.analysis.plan.node_actions"


def stable_argsort(keys: np.ndarray, bound: int | None = None) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of non-negative integer ``keys`` below ``bound`` (default: their maximum
    plus one), by least-significant-digit passes over 16 bits each: numpy sorts 16-bit keys by radix, O(len) a pass,
    where a stable sort of int64 keys is a merge sort.  The same permutation (both are stable).  With the compiled
    plan passes (:mod:`graphkit.analysis.plan.compiled`), the kernel's counting or radix sort, the same permutation.

    >>> stable_argsort(np.array([5, 70000, 3, 5, 0])).tolist()
    [4, 2, 0, 3, 1]
    """
    keys = np.asarray(keys, dtype=np.int64)
    if bound is None:
        bound = int(keys.max(initial=0)) + 1
    if compiled.ENABLED and compiled.AVAILABLE:  # the same permutation in C (``_plan_kernel``)
        return compiled.stable_argsort(keys, bound)
    perm, shift = None, 0
    while True:
        digit = (((keys if perm is None else keys[perm]) >> shift) & 0xFFFF).astype(np.uint16)
        step = np.argsort(digit, kind="stable")
        perm = step if perm is None else perm[step]
        shift += 16
        if bound <= 1 << shift:
            return perm


def _unique_first(key: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(key, return_index=True, return_inverse=True)`` of non-negative keys below ``bound``, with
    :func:`stable_argsort` (the first index of each value is its first occurrence, as numpy's)."""
    perm = stable_argsort(key, bound)
    ordered = key[perm]
    new = np.ones(ordered.size, dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    inv = np.empty(key.size, dtype=np.int64)
    inv[perm] = np.cumsum(new) - 1
    return ordered[new], perm[new], inv


class ArcEdges(Sequence):
    """The edges of an incident's arcs, read lazily from the snapshot (``(m,)`` global arc per local arc): an
    edge object is made on its first read (:class:`~graphkit.storage.EdgeList`)."""

    __slots__ = ("_edges", "_arcs")

    def __init__(self, snap: Snapshot, arcs: np.ndarray) -> None:
        self._edges, self._arcs = snap.edges, arcs

    def __len__(self) -> int:
        return int(self._arcs.size)

    def __getitem__(self, a):  # type: ignore[override]
        if isinstance(a, slice):
            return [self._edges[int(x)] for x in self._arcs[a]]
        return self._edges[int(self._arcs[a])]

    def __iter__(self) -> Iterator:
        edges = self._edges
        return (edges[x] for x in self._arcs.tolist())


class Picked(Sequence):
    """``items[at[i]]`` for ``i`` in ``range(len(at))``, read on demand (a reached node's id or object)."""

    __slots__ = ("_items", "_at")

    def __init__(self, items: Sequence, at: list[int]) -> None:
        self._items, self._at = items, at

    def __len__(self) -> int:
        return len(self._at)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self._items[j] for j in self._at[i]]
        return self._items[self._at[i]]

    def __iter__(self) -> Iterator:
        items = self._items
        return (items[j] for j in self._at)

    def many(self, idx: Sequence[int]) -> list:
        """``[self[i] for i in idx]``, one lookup each."""
        items, at = self._items, self._at
        return [items[at[i]] for i in idx]


class LocalIndex(Mapping):
    """Id -> local index of the reached nodes (``order``: their snapshot indexes), read through the snapshot's
    index on demand."""

    __slots__ = ("_snap", "_order", "_local")

    def __init__(self, snap: Snapshot, order: np.ndarray) -> None:
        self._snap, self._order, self._local = snap, order, None

    def _of(self) -> dict[int, int]:
        if self._local is None:
            self._local = dict(zip(self._order.tolist(), range(int(self._order.size))))
        return self._local

    def __getitem__(self, node_id: str) -> int:
        g = self._snap.index.get(node_id)
        local = None if g is None else self._of().get(g)
        if local is None:
            raise KeyError(node_id)
        return local

    def __len__(self) -> int:
        return int(self._order.size)

    def __iter__(self) -> Iterator[str]:
        ids = self._snap.ids
        return (ids[g] for g in self._order.tolist())


@dataclass(slots=True)
class Columns:
    """The incident as arrays (``m`` arcs, ``r`` reached nodes, local indexes), and, once
    :func:`candidates_arrays` ran, its candidates in ``ranked`` order (``k`` candidates)."""

    #: (m,) int64 local source and target of every arc
    src: np.ndarray
    tgt: np.ndarray
    #: (r + 1,) int64 arcs by source
    start: np.ndarray
    #: (m,) int64 form code of every arc (rows of the form table, :func:`_arc_forms`)
    form: np.ndarray
    #: (r,) int64 criticality weight (0 for the sources)
    weight: np.ndarray
    #: (r,) int64 position in result order (:func:`~graphkit.analysis.results.node_order`)
    rank: np.ndarray
    #: (r,) bool the sources and the held nodes
    seed: np.ndarray
    #: (m,) int64 the snapshot's arc of every arc
    garc: np.ndarray
    #: (k,) int64 per ranked candidate: subject, virtual nodes; bool: invalidates, long-lived, exposed
    subject: np.ndarray | None = None
    via_in: np.ndarray | None = None
    via_out: np.ndarray | None = None
    inv: np.ndarray | None = None
    #: the arcs each removes: ranked candidate ``i``'s arcs are ``arc_flat[arc_lo[i]:arc_hi[i]]``
    arc_flat: np.ndarray | None = None
    arc_lo: np.ndarray | None = None
    arc_hi: np.ndarray | None = None
    #: (m,) int64 per arc: the virtual node it passes (``Candidates.via``)
    via: np.ndarray | None = None
    #: per ranked candidate: (k,) int64 its action's position in RevocationAction, (2, k) int64 its ``group``,
    #: (k,) bool ``long_lived``, ``exposed`` and whether it wipes other nodes
    action: np.ndarray | None = None
    group: np.ndarray | None = None
    long: np.ndarray | None = None
    exposed: np.ndarray | None = None
    wipes: np.ndarray | None = None
    #: (r + 1,) and (w,) int64: what invalidating each node wipes (``wipe_tgt[wipe_ptr[i]:wipe_ptr[i + 1]]``)
    wipe_ptr: np.ndarray | None = None
    wipe_tgt: np.ndarray | None = None
    #: (k,) int64 the ranked position of every candidate in creation order
    made: np.ndarray | None = None
    #: ``(action, subject)`` -> ranked position (:meth:`positions`, made on first use)
    pos: dict | None = None

    def positions(self) -> dict:
        """``(RevocationAction, subject)`` -> ranked position of every candidate (made once)."""
        if self.pos is None:
            self.pos = dict(zip(zip(map(_ACTIONS.__getitem__, self.action.tolist()), self.subject.tolist()),
                                range(int(self.subject.size))))
        return self.pos


def incident_arrays(graph: Graph, srcs: tuple[str, ...], *,
                    lists: bool = True) -> tuple[Incident, Columns] | None:
    """:func:`~graphkit.analysis.plan.candidates.incident` on the snapshot's arrays, with the same data as
    :class:`Columns`; None when the vectorised BFS gives up (``reach_order``: the caller runs the reference).

    ``lists=False`` (what :func:`~graphkit.analysis.revocation_plan` reads): the subgraph's ``ids``, ``nodes`` and
    ``index`` are read through the snapshot on demand (:class:`Picked`, :class:`LocalIndex`), and the arcs'
    ``start``, ``source`` and ``target`` are :class:`Columns`' arrays, not lists.

    Time O(reached pairs + arcs) in numpy, plus one Python step per reached node (ids, node objects) and, the first
    time a snapshot's arc or node is reached, per arc and node (:func:`_arc_forms`, :func:`_node_actions`).
    """
    snap = snapshot(graph)
    idx = np.array([snap.index[s] for s in srcs], dtype=np.int64)
    if compiled.ENABLED and compiled.AVAILABLE:  # the search and the arcs in one compiled pass (the same arrays)
        found = compiled.reach_arcs(snap, idx)
        if found is None:
            return None
        order, code, garc, src, tgt = found
    else:
        found = reach_order(snap, idx)
        if found is None:
            return None
        order, code = found
        garc, src, tgt = _unfold(snap, order, code)
    n_src, r = len(srcs), int(order.size)
    start = np.zeros(r + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=r), out=start[1:])
    forms, table = _arc_forms(snap, garc)
    weight_all, rank_all, _, _ = node_columns(snap)
    weight = weight_all[order].copy()
    weight[:n_src] = 0
    rank = rank_all[order]
    _, holdable = _node_actions(snap, order)
    usable = table.unbounded[forms]
    at, seconds, _ = copied(snap, order, n_src)  # the copy principle: a copy lasting unbounded starts too
    starts = np.concatenate([np.arange(n_src, dtype=np.int64), at[seconds == np.inf]])
    lasting = _reachable(start, tgt, usable, starts, r)
    lasting[:n_src] = False
    held_idx = np.flatnonzero(lasting & holdable)
    held_idx = held_idx[stable_argsort(rank[held_idx], snap.n)]
    seed = np.zeros(r, dtype=bool)
    seed[:n_src] = True
    seed[held_idx] = True
    at_order = order.tolist()
    all_ids, all_nodes = snap.ids, snap.nodes
    if not lists:
        sub = Subgraph(Picked(all_ids, at_order), Picked(all_nodes, at_order), n_src,  # type: ignore[arg-type]
                       LocalIndex(snap, order), [], (snap, order, code))
        arcs = Arcs(start, src, tgt, ArcEdges(snap, garc))  # type: ignore[arg-type]
        inc = Incident(sub, arcs, weight, held_idx.tolist(), seed)  # type: ignore[arg-type]
        return inc, Columns(src, tgt, start, forms, weight, rank, seed, garc)
    ids = [all_ids[i] for i in at_order]
    sub = Subgraph(ids, [all_nodes[i] for i in at_order], n_src, dict(zip(ids, range(r))), [], (snap, order, code))
    arcs = Arcs(start.tolist(), src.tolist(), tgt.tolist(), ArcEdges(snap, garc))  # type: ignore[arg-type]
    inc = Incident(sub, arcs, weight.tolist(), held_idx.tolist(), bytearray(seed.view(np.uint8).tobytes()))
    return inc, Columns(src, tgt, start, forms, weight, rank, seed, garc)


def _unfold(snap: Snapshot, order: np.ndarray, code: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(global arc, local source, local target)`` of every arc of the reached rows, each row's pairs in its
    variant, in :func:`~graphkit.analysis.reach.unfold`'s order (rows in discovery order, pairs by target id,
    parallel edges in arc order, ``source_only`` ones only from a row running the attacker's code)."""
    local, pidx, owner, variant = reached_pairs(snap, order, code)
    lens = snap.arc_ptr[pidx + 1] - snap.arc_ptr[pidx]
    garc, _ = expand(snap.arc_ptr, pidx)
    src = np.repeat(local[owner], lens)
    tgt = np.repeat(local[snap.pair_target[pidx]], lens)
    give_back(snap, "local", local, order, -1)
    keep = np.repeat(variant.astype(bool), lens) | ~snap.arc_source_only[garc]
    return garc[keep], src[keep], tgt[keep]


@dataclass(frozen=True, slots=True)
class _FormTable:
    """One row per form code: what the plan reads of an arc's edge (``f`` codes)."""

    #: (f,) int64 action code (position in RevocationAction), -1: none
    action: np.ndarray
    #: (f,) bool: the revoke subject is the target
    into: np.ndarray
    #: (f,) bool: ``lasting_seconds`` is unbounded
    unbounded: np.ndarray
    #: (f,) bool: a ``can_register_runner`` edge
    registers: np.ndarray
    #: (f, node kinds) bool: the edge kind declares ``wiped_with_source`` for the source's kind
    wiped: np.ndarray


def _arc_forms(snap: Snapshot, garc: np.ndarray) -> tuple[np.ndarray, _FormTable]:
    """The form code of every arc in ``garc`` and the form table, both cached per snapshot (codes filled for the
    arcs not met before, once per snapshot: C-level loops over their records, one Python step per new form)."""
    cache = snap.derived.get(_FORMS)
    if cache is None:
        cache = snap.derived[_FORMS] = [np.full(len(snap.edges), -1, dtype=np.int64), {}, [], None]
    codes, known, rows = cache[0], cache[1], cache[2]
    need = garc[codes[garc] < 0]
    if need.size:
        mark = np.zeros(codes.size, dtype=bool)  # each once, in order (a mask: no sort)
        mark[need] = True
        need = np.flatnonzero(mark).tolist()
        recs = list(map(snap.edges.record, need))
        try:  # the graph's edge records: their shared form (C-level loops)
            keys = list(map(_FORM_OF, recs))
        except AttributeError:  # some stored edge objects
            keys = [x.form if type(x) is EdgeRecord else (x.kind, x.lifetime, x.revoked_by) for x in recs]
        fresh = [key for key in dict.fromkeys(keys) if key not in known]  # in order of first occurrence
        at = 0
        for key in fresh:
            at = keys.index(key, at)  # its first occurrence: after the previous fresh key's
            e = snap.edges[need[at]]  # a real edge of this form: the reference's functions read it
            known[key] = len(rows)
            rows.append((e.kind, e.revoked_by, lasting_seconds(e) == _INF))
        codes[need] = np.fromiter(map(known.__getitem__, keys), np.int64, len(keys))
        if fresh:
            cache[3] = None
    if cache[3] is None:
        cache[3] = _table(rows)
    return codes[garc], cache[3]


def _table(rows: list[tuple]) -> _FormTable:
    specs = [EDGE_SPECS[kind] for kind, _, _ in rows]
    wiped = np.array([[k in s.wiped_with_source for k in _NODE_KINDS] for s in specs], dtype=bool)
    return _FormTable(
        np.array([-1 if act is None else _ACTION_RANK[act] for _, act, _ in rows], dtype=np.int64),
        np.array([s.revoke_subject == "target" for s in specs], dtype=bool),
        np.array([unb for _, _, unb in rows], dtype=bool),
        np.array([kind is EdgeKind.CAN_REGISTER_RUNNER for kind, _, _ in rows], dtype=bool),
        wiped.reshape(len(rows), len(_NODE_KINDS)))


def _node_actions(snap: Snapshot, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(action code, holdable)`` of the nodes ``order`` (the node's ``revoked_by`` as a position in
    RevocationAction, -1: none; its kind is holdable), cached per snapshot and filled for new nodes
    (:func:`_node_codes`)."""
    codes = _node_codes(snap, order)
    return codes[0][order], codes[1][order]


#: a node's containment code when it is not contained (``containment`` gives None)
_NOT_CONTAINED = -99


def _node_codes(snap: Snapshot, order: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per snapshot node (n,): action code, holdable, containment order as a source and as another node
    (:func:`~graphkit.analysis.plan.candidates.containment`, :data:`_NOT_CONTAINED` for None), broad trust; cached
    per snapshot and filled for the nodes of ``order`` not met before (one Python step each, once)."""
    cache = snap.derived.get(_NODES)
    if cache is None:
        cache = snap.derived[_NODES] = (np.full(snap.n, -2, dtype=np.int64), np.zeros(snap.n, dtype=bool),
                                        np.zeros(snap.n, dtype=np.int64), np.zeros(snap.n, dtype=np.int64),
                                        np.zeros(snap.n, dtype=bool))
    action, holdable, cont_src, cont_other, broad = cache
    need = order[action[order] == -2]
    nodes = snap.nodes
    trusts: dict[type, bool] = {}  # per node class: it has ``broad_trust`` (a cloud role)
    for i in need.tolist():
        nd = nodes[i]
        act = nd.revoked_by
        action[i] = -1 if act is None else _ACTION_RANK[act]
        holdable[i] = nd.spec.holdable
        for out, is_source in ((cont_src, True), (cont_other, False)):
            order_ = containment(nd, is_source)
            out[i] = _NOT_CONTAINED if order_ is None else int(order_)
        cls = type(nd)
        has = trusts.get(cls)
        if has is None:
            has = trusts[cls] = "broad_trust" in cls.model_fields
        broad[i] = has and nd.broad_trust  # type: ignore[attr-defined]
    return cache


def _reachable(start: np.ndarray, tgt: np.ndarray, usable: np.ndarray, starts: np.ndarray, r: int) -> np.ndarray:
    """(r,) bool: the nodes reached from ``starts`` (local indexes) over ``usable`` arcs (numpy frontier search,
    O(V + E))."""
    seen = np.zeros(r, dtype=bool)
    front = starts
    seen[front] = True
    while front.size:
        a, _ = expand(start, front)
        t = tgt[a[usable[a]]]
        new = np.zeros(r, dtype=bool)  # the unseen targets, each once (a mask: no sort)
        new[t] = True
        new &= ~seen
        front = np.flatnonzero(new)
        seen[front] = True
    return seen


def candidates_arrays(inc: Incident, cols: Columns, exposed: frozenset[int] = frozenset()) -> Candidates:
    """:func:`~graphkit.analysis.plan.candidates.candidates` of an :func:`incident_arrays` incident, from its
    arrays: :func:`candidate_columns` (``cols`` receives the ranked candidates as arrays), then one object per
    candidate.  Time O(arcs + candidates log candidates) in numpy, plus one Python step per candidate."""
    candidate_columns(inc.sub.fast, cols, inc.sub.n_src, exposed)
    return _objects(cols, inc.n)


def candidate_columns(fast: tuple, cols: Columns, n_src: int, exposed: frozenset[int] = frozenset()) -> None:
    """The candidates of an :func:`incident_arrays` incident as arrays, in ``cols`` (ranked order: subject,
    virtual nodes, what it invalidates, its arcs and wipes as flat arrays, its action, group, long-lived, exposed;
    per arc the virtual node it passes), the same as the reference's
    :func:`~graphkit.analysis.plan.candidates.candidates` (numbered in its creation order, ranked by its tie-break,
    placed by its ``_placement``).  ``fast``: the incident's ``sub.fast``.  Time O(arcs + candidates log
    candidates), in numpy; no Python step per candidate."""
    snap, order, _ = fast
    n = int(order.size)
    forms, table = _arc_forms(snap, cols.garc)
    node_act, holdable, cont_src, cont_other, broad = (x[order] for x in _node_codes(snap, order))
    src, tgt = cols.src, cols.tgt
    act = table.action[forms]
    into = table.into[forms]
    routed = np.flatnonzero(act >= 0)
    subj = np.where(into, tgt, src)[routed]
    key = act[routed] * n + subj
    cid, created = _numbered(key, (len(_ACTIONS) + 1) * n)
    own = np.flatnonzero(node_act >= 0)
    made_by_arc = np.zeros((len(_ACTIONS) + 1) * n, dtype=bool)
    made_by_arc[created] = True
    own = own[~made_by_arc[node_act[own] * n + own]]  # the nodes' own actions no arc made
    c_act = np.concatenate([created // n, node_act[own]])
    c_subj = np.concatenate([created % n, own])
    k = c_act.size
    via_in = n + 2 * np.arange(k, dtype=np.int64)
    via = np.full(len(src), -1, dtype=np.int64)
    via[routed] = np.where(into[routed], via_in[cid], via_in[cid] + 1)
    by_c = routed[stable_argsort(cid, k)]
    ptr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(cid, minlength=k), out=ptr[1:])
    c_inv = node_act[c_subj] == c_act
    c_long = holdable[c_subj] & cols.seed[c_subj]
    # long-lived first, action order, subject id (the snapshot's index: ids are sorted there)
    ranked = stable_argsort(((~c_long).astype(np.int64) * len(_ACTIONS) + c_act) * snap.n + order[c_subj],
                            2 * len(_ACTIONS) * snap.n)
    registrar = np.zeros(n, dtype=bool)
    registrar[src[table.registers[forms]]] = True
    contained = np.where(c_subj < n_src, cont_src[c_subj], cont_other[c_subj])
    group = _groups(c_act, c_subj, c_inv & c_long, registrar, contained, broad)
    wptr, wtgt = _wipes(snap, order, cols, table, forms)
    wiping = c_inv & (wptr[c_subj + 1] > wptr[c_subj])
    subject = c_subj[ranked]
    cols.action, cols.group, cols.long, cols.wipes = c_act[ranked], group[:, ranked], c_long[ranked], wiping[ranked]
    seen = np.zeros(n, dtype=bool)
    seen[np.fromiter(exposed, np.int64, len(exposed))] = True
    cols.exposed = seen[subject]
    cols.subject, cols.via_in, cols.via_out = subject, via_in[ranked], via_in[ranked] + 1
    cols.inv, cols.via = c_inv[ranked], via
    cols.arc_flat, cols.arc_lo, cols.arc_hi = by_c, ptr[ranked], ptr[ranked + 1]
    made_at = np.empty(k, dtype=np.int64)
    made_at[ranked] = np.arange(k, dtype=np.int64)
    cols.wipe_ptr, cols.wipe_tgt, cols.made = wptr, wtgt, made_at


def _numbered(key: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``(number, created)``: the number of every key in order of first occurrence, and the distinct keys in that
    order (keys in ``[0, bound)``); compiled (``_plan_kernel.first_numbers``: a table of ``bound`` entries, when
    that is not much more than the keys) or by :func:`_unique_first`."""
    if compiled.ENABLED and compiled.AVAILABLE and bound <= 8 * key.size + (1 << 20):
        return compiled.first_numbers(key, bound)
    uniq, first, inv = _unique_first(key, bound)
    made = stable_argsort(first, key.size)  # creation order: first arc of each (action, subject)
    number = np.empty(made.size, dtype=np.int64)
    number[made] = np.arange(made.size)
    return number[inv.reshape(-1)], uniq[made]


def _groups(c_act: np.ndarray, c_subj: np.ndarray, inv_long: np.ndarray, registrar: np.ndarray,
            contained: np.ndarray, broad: np.ndarray) -> np.ndarray:
    """(2, k) int64 the greedy group ``(phase rank, containment order)`` of every candidate: the reference's
    ``_placement``, case for case, on arrays (``contained``: the subject's containment code, as a source or not)."""
    phase = np.full(c_act.size, _PHASE_RANK[Phase.RESTRICT], dtype=np.int64)
    order = np.zeros(c_act.size, dtype=np.int64)
    contain, rotate = _PHASE_RANK[Phase.CONTAIN], _PHASE_RANK[Phase.ROTATE]
    # the cases from the last to the first, each overriding those after it
    on_own = inv_long & (contained != _NOT_CONTAINED)
    phase[inv_long & ~on_own] = rotate
    phase[on_own], order[on_own] = contain, contained[on_own]
    for hit, value in ((c_act == _ACTION_RANK[RevocationAction.NARROW_TRUST_POLICY]) & broad[c_subj],
                       Containment.BROAD_TRUST), \
            (c_act == _ACTION_RANK[RevocationAction.RESTRICT_UNTRUSTED_TRIGGER], Containment.ENTRY), \
            (inv_long & registrar[c_subj], Containment.REGISTRAR):
        phase[hit], order[hit] = contain, int(value)
    return np.stack([phase, order])


def _objects(cols: Columns, n: int) -> Candidates:
    """The :class:`Candidate` objects of :func:`candidate_columns`' arrays, in creation order (``items``, ``at``)
    and ranked."""
    cs = Candidates(n, via=cols.via.tolist())
    lazy = LazyCandidates(cols, n)
    cs.ranked = [lazy.ranked[i] for i in range(len(lazy.ranked))]
    cs.items = [cs.ranked[i] for i in cols.made.tolist()]
    cs.at = {(c.action, c.subject): c for c in cs.items}
    return cs


def snap_arcs(inc: Incident) -> np.ndarray:
    """The global arc of every arc of an :func:`incident_arrays` incident."""
    return inc.arcs.edge._arcs  # type: ignore[attr-defined]


def _wipes(snap: Snapshot, order: np.ndarray, cols: Columns, table: _FormTable,
           forms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node: the targets of its arcs whose edge kind declares ``wiped_with_source`` for its kind, sorted,
    itself left out (the reference's ``_wiped``), as a CSR: ``(ptr (r + 1,), targets)``."""
    r = int(order.size)
    kind = node_columns(snap)[2][order]
    src, tgt = cols.src, cols.tgt
    flag = table.wiped[forms, kind[src]] & (src != tgt)
    pairs = np.unique(src[flag] * r + tgt[flag])
    ptr = np.zeros(r + 1, dtype=np.int64)
    np.cumsum(np.bincount(pairs // r, minlength=r), out=ptr[1:])
    return ptr, pairs % r


class LazyCandidates:
    """The candidates of :func:`candidate_columns` as the fast loop reads them (``ranked[pos]``,
    ``at.get((action, subject))``), each :class:`Candidate` made on first read from the arrays (the plan's loop
    reads a few hundred of thousands)."""

    __slots__ = ("ranked", "at", "n")

    def __init__(self, cols: Columns, n: int) -> None:
        self.n = n
        self.ranked = _Ranked(cols, n)
        self.at = _At(self.ranked, cols)


class _Ranked(Sequence):
    __slots__ = ("_cols", "_n", "_made", "_lists")

    def __init__(self, cols: Columns, n: int) -> None:
        self._cols, self._n, self._made = cols, n, {}
        self._lists = None

    def __len__(self) -> int:
        return int(self._cols.subject.size)

    def __getitem__(self, pos):  # type: ignore[override]
        c = self._made.get(pos)
        if c is None:
            c = self._made[pos] = self._make(pos)
        return c

    def _make(self, pos: int) -> Candidate:
        if not 0 <= pos < len(self):
            raise IndexError(pos)
        cols = self._cols
        if self._lists is None:  # the columns one candidate reads (an element each: the loop reads a few hundred)
            self._lists = (cols.action, cols.subject, cols.via_in, cols.inv, cols.long, cols.wipes, cols.exposed,
                           cols.group[0], cols.group[1], cols.arc_lo, cols.arc_hi)
        act, s, vi, iv, lg, wp, ex, g0, g1, lo, hi = (x[pos].item() for x in self._lists)
        wipes = cols.wipe_tgt[cols.wipe_ptr[s]:cols.wipe_ptr[s + 1]].tolist() if iv else []
        return Candidate(_ACTIONS[act], s, vi, vi + 1, cols.arc_flat[lo:hi].tolist(), iv, lg, wipes,
                         _PHASES[g0], (g0, g1), exposed=ex)


class _At:
    """``(action, subject)`` -> its candidate (``dict.get``), through ``Columns.pos``."""

    __slots__ = ("_ranked", "_pos")

    def __init__(self, ranked: _Ranked, cols: Columns) -> None:
        self._ranked, self._pos = ranked, cols

    def get(self, key, default=None):
        pos = self._pos.positions().get(key)
        return default if pos is None else self._ranked[pos]
