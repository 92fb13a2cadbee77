"""The revocation plan's candidates as the fast loop prices them (:mod:`graphkit.analysis.plan.fast`): in tie-break
order, as arrays (and lists, for pricing one at a time), from the front end's columns
(:func:`graphkit.analysis.plan.arrays.candidate_columns`) or from :class:`~graphkit.analysis.plan.candidates.Candidate`
objects (the reference's front end): the same arrays either way (``tests/test_plan_arrays.py``)."""

from __future__ import annotations

import numpy as np

from graphkit.analysis.plan.arrays import Columns, stable_argsort
from graphkit.analysis.plan.candidates import _ACTION_RANK, _PHASE_RANK, Candidates, Incident
from graphkit.analysis.plan.greedy import _REGISTRAR
from graphkit.analysis.results import Phase
from graphkit.analysis.snapshot import expand
from graphkit.model import RevocationAction

__all__ = ["ArcsOf", "Prices", "prices"]

_REVOKE = RevocationAction.REVOKE_ROLE_SESSIONS


class Prices:
    """The candidates in tie-break order (``Candidates.ranked``; a candidate's index there is its ``pos``), as
    arrays; the lists and the ``(action, subject)`` index the Python loop reads one at a time are made on first
    read (the kernel's loop reads the arrays)."""

    __slots__ = ("subject", "via_in", "via_out", "inv", "own", "base", "pool", "wiping", "arcs", "shift",
                 "subject_ptr_a", "action_c", "phase_c", "long_c", "_pos", "_lists", "wptr", "wipes", "zroot", "zof",
                 "groups")

    def __init__(self, subject: np.ndarray, via_in: np.ndarray, via_out: np.ndarray, inv: np.ndarray,
                 own: np.ndarray, base: np.ndarray, pool: np.ndarray, wiping: np.ndarray, arcs: ArcsOf, shift: int,
                 pos, subject_ptr: np.ndarray, action_c: np.ndarray, phase_c: np.ndarray,
                 long_c: np.ndarray) -> None:
        #: (k,) int64 subject and virtual nodes; bool: it invalidates its subject
        self.subject, self.via_in, self.via_out, self.inv = subject, via_in, via_out, inv
        #: a contain candidate on a source, or a registrar: its own foothold while the subject is valid
        self.own = own
        #: packed greedy-key prefix (``fast._key``)
        self.base = base
        #: may be chosen (a session revocation only comes as a companion)
        self.pool = pool
        #: positions of the candidates that wipe other nodes
        self.wiping = wiping
        #: the arcs each removes (``arcs[pos]``)
        self.arcs = arcs
        #: bits of the reduction in the packed key
        self.shift = shift
        #: the ``(action, subject)`` -> position dict, or a callable making it (:attr:`pos`)
        self._pos = pos
        #: (n + 1,) int64 positions by subject: ``by_subject[subject_ptr[i]:subject_ptr[i + 1]]`` are on node ``i``
        self.subject_ptr_a = subject_ptr
        #: (k,) per position: the action and the phase (int64, positions in RevocationAction and Phase), and
        #: ``long_lived`` (bool): what a step reads
        self.action_c, self.phase_c, self.long_c = action_c, phase_c, long_c
        self._lists: dict = {}
        #: (k + 1,) and (w,) int64: the nodes each candidate wipes (``wipes[wptr[pos]:wptr[pos + 1]]``)
        self.wptr, self.wipes = np.zeros(subject.size + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
        #: (k,) int64 the wipe group node of each wiping candidate whose reduction is one subtree (-1: none), (n,)
        #: int64 the wipe group node of each node in one (-1: none), and how many there are (:func:`wipe_groups`)
        self.zroot = np.full(subject.size, -1, dtype=np.int64)
        self.zof = np.full(subject_ptr.size - 1, -1, dtype=np.int64)
        self.groups = 0

    @property
    def pos(self) -> dict:
        """``(RevocationAction, subject)`` -> position of every candidate (made on first read)."""
        if callable(self._pos):
            self._pos = self._pos()
        return self._pos

    def find(self, action: RevocationAction, subject: int) -> int | None:
        """The position of candidate ``(action, subject)``, None when there is none: :attr:`pos`'s lookup, through
        the positions on ``subject`` (a few), without making the whole index."""
        if not callable(self._pos):
            return self._pos.get((action, subject))
        code, acts, by, ptr = _ACTION_RANK[action], self._list("action_l"), self.by_subject, self.subject_ptr
        for pos in by[ptr[subject]:ptr[subject + 1]]:
            if acts[pos] == code:
                return pos
        return None

    def by_subject_a(self) -> np.ndarray:
        """(k,) int64 the positions sorted by subject (stable)."""
        found = self._lists.get("by_subject_a")
        if found is None:
            found = self._lists["by_subject_a"] = stable_argsort(self.subject, self.subject_ptr_a.size)
        return found

    def of_virtual_a(self) -> np.ndarray:
        """(2k + g,) int64 the position of the candidate of every virtual node (``of_virtual[x - n]``): its two
        virtual nodes, and its wipe group node (:func:`wipe_groups`)."""
        found = self._lists.get("of_virtual_a")
        if found is None:
            count = int(self.subject.size)
            found = np.zeros(2 * count + self.groups, dtype=np.int64)
            n = self.subject_ptr_a.size - 1
            found[self.via_in - n] = found[self.via_out - n] = np.arange(count)
            grouped = np.flatnonzero(self.zroot >= 0)
            found[self.zroot[grouped] - n] = grouped
            self._lists["of_virtual_a"] = found
        return found

    def _list(self, name: str) -> list:
        found = self._lists.get(name)
        if found is None:
            arrays = {"subject_l": self.subject, "via_in_l": self.via_in, "via_out_l": self.via_out,
                      "inv_l": self.inv, "own_l": self.own, "base_l": self.base, "subject_ptr": self.subject_ptr_a,
                      "action_l": self.action_c}
            found = self._lists[name] = (
                self.by_subject_a() if name == "by_subject" else
                self.of_virtual_a() if name == "of_virtual" else arrays[name]).tolist()
        return found

    #: the same as lists, for pricing one at a time (made on first read)
    subject_l = property(lambda self: self._list("subject_l"))
    via_in_l = property(lambda self: self._list("via_in_l"))
    via_out_l = property(lambda self: self._list("via_out_l"))
    inv_l = property(lambda self: self._list("inv_l"))
    own_l = property(lambda self: self._list("own_l"))
    base_l = property(lambda self: self._list("base_l"))
    subject_ptr = property(lambda self: self._list("subject_ptr"))
    by_subject = property(lambda self: self._list("by_subject"))
    of_virtual = property(lambda self: self._list("of_virtual"))


class ArcsOf:
    """The arcs each ranked candidate removes: ``self[pos]`` is ``flat[lo[pos]:hi[pos]]``."""

    __slots__ = ("flat", "lo", "hi", "_lo", "_hi")

    def __init__(self, flat: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        self.flat, self.lo, self.hi = flat, lo, hi
        self._lo, self._hi = lo.tolist(), hi.tolist()

    def __len__(self) -> int:
        return len(self._lo)

    def __getitem__(self, pos: int) -> np.ndarray:
        return self.flat[self._lo[pos]:self._hi[pos]]


def prices(cands: Candidates, inc: Incident, cols: Columns | None = None) -> Prices:
    """The candidates in tie-break order as arrays (built once): what pricing them all at once reads (from
    ``cols`` where the front end made them, else from the objects ``cands.ranked``).

    Raises
    ------
    ValueError
        If the total weight does not fit the packed greedy key (beyond about 2**50).
    """
    n_src = inc.sub.n_src
    if cols is not None and cols.group is not None:
        subject, via_in, via_out, inv, arcs, own, base, pool, wiping, pos, codes = _from_columns(cols, n_src)
    else:
        subject, via_in, via_out, inv, arcs, own, base, pool, wiping, pos, codes = _from_objects(cands, n_src)
    shift = max(1, int(np.sum(inc.weight, dtype=np.int64)).bit_length() + 1)
    if int(base.max(initial=0)) + 4 >= 1 << (62 - shift):  # pragma: no cover - weights beyond 2**50
        raise ValueError("revocation plan: total weight too large for the packed greedy key")
    subject_ptr = np.zeros(inc.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(subject, minlength=inc.n), out=subject_ptr[1:])
    p = Prices(subject, via_in, via_out, inv, own, base, pool, wiping, arcs, shift, pos, subject_ptr, *codes)
    if wiping.size:
        p.wptr, p.wipes = _wipe_lists(p, cands, cols)
        is_seed = cols.seed if cols is not None else np.frombuffer(bytes(inc.seed), dtype=np.uint8).astype(bool)
        wipe_groups(p, is_seed)
    return p


def _wipe_lists(p: Prices, cands: Candidates, cols: Columns | None) -> tuple[np.ndarray, np.ndarray]:
    """``(wptr, wipes)``: what each candidate wipes as flat arrays (from the columns' per-node lists, else from
    the objects)."""
    wlen = np.zeros(p.subject.size, dtype=np.int64)
    if cols is not None and cols.wipe_ptr is not None:
        subj = p.subject[p.wiping]
        wlen[p.wiping] = cols.wipe_ptr[subj + 1] - cols.wipe_ptr[subj]
        wipes = cols.wipe_tgt[expand(cols.wipe_ptr, subj)[0]].astype(np.int64)
    else:
        ranked = cands.ranked
        wlen[p.wiping] = [len(ranked[i].wipes) for i in p.wiping.tolist()]
        wipes = np.array([w for i in p.wiping.tolist() for w in ranked[i].wipes], dtype=np.int64)
    wptr = np.zeros(p.subject.size + 1, dtype=np.int64)
    np.cumsum(wlen, out=wptr[1:])
    return wptr, wipes


def wipe_groups(p: Prices, is_seed: np.ndarray) -> None:
    """Give each wiping candidate whose subject and wiped nodes are all seeds, none of them another such
    candidate's, a *wipe group* node ``z`` (``p.zroot``, ``p.zof``, ``p.groups``): virtual node ``n + 2k + g``
    of the dominator graph, between the root and those seeds (``fast._tree``).  The dominator graph has no arc
    into a seed but the root's (or its group's): a path into a seed is replaced by the root's arc into it, so
    dominators are those of the graph with them; then every path to a node avoids the group's seeds exactly when
    it avoids ``z``, so what applying the candidate removes (the reference's trial reachability:
    ``docs/revocation-plan.md``, "Wipe groups") is the subtree of ``z``, priced and cut as any other."""
    n, k, wiping = p.zof.size, p.subject.size, p.wiping
    size = p.wptr[wiping + 1] - p.wptr[wiping]
    owner = np.concatenate([np.arange(wiping.size), np.repeat(np.arange(wiping.size), size)])
    node = np.concatenate([p.subject[wiping], p.wipes[expand(p.wptr, wiping)[0]]])
    pairs = np.unique(np.stack([owner, node]), axis=1)  # (candidate, node), each once
    owner, node = pairs
    seeded = np.ones(wiping.size, dtype=bool)
    seeded[owner[~is_seed[node]]] = False
    count = np.bincount(node[seeded[owner]], minlength=n)  # in how many all-seed candidates
    ok = seeded.copy()
    ok[owner[count[node] != 1]] = False
    z = n + 2 * k + np.cumsum(ok) - 1  # in tie-break order
    p.zroot[wiping[ok]] = z[ok]
    keep = ok[owner]
    p.zof[node[keep]] = z[owner[keep]]
    p.groups = int(ok.sum())


def _from_columns(cols: Columns, n_src: int) -> tuple:
    """:func:`prices`' arrays from the front end's columns."""
    subject = cols.subject
    g0, g1 = cols.group  # type: ignore[misc]
    contain = g0 == _PHASE_RANK[Phase.CONTAIN]
    # a source's own foothold, and a registrar: eligible (and first in its group) while the subject is valid
    own = contain & ((subject < n_src) | ((g0 == _REGISTRAR[0]) & (g1 == _REGISTRAR[1])))
    base = (g0 * 8 + g1 + 3) * 4 + ~(cols.exposed & cols.long)
    pool = cols.action != _ACTION_RANK[_REVOKE]
    return (subject, cols.via_in, cols.via_out, cols.inv, ArcsOf(cols.arc_flat, cols.arc_lo, cols.arc_hi), own,
            base, pool, np.flatnonzero(cols.wipes), cols.positions, (cols.action, g0, cols.long))


def _from_objects(cands: Candidates, n_src: int) -> tuple:
    """:func:`prices`' arrays from the candidate objects."""
    ranked = cands.ranked
    count = len(ranked)
    subject = np.fromiter((c.subject for c in ranked), np.int64, count)
    via_in = np.fromiter((c.via_in for c in ranked), np.int64, count)
    via_out = np.fromiter((c.via_out for c in ranked), np.int64, count)
    inv = np.fromiter((c.invalidates for c in ranked), bool, count)
    lens = np.fromiter((len(c.arcs) for c in ranked), np.int64, count)
    hi = np.cumsum(lens)
    arcs = ArcsOf(np.fromiter((a for c in ranked for a in c.arcs), np.int64, int(lens.sum())), hi - lens, hi)
    # a source's own foothold, and a registrar: eligible (and first in its group) while the subject is valid
    own = np.fromiter((c.phase is Phase.CONTAIN and (c.subject < n_src or c.group == _REGISTRAR)
                       for c in ranked), bool, count)
    # the greedy key's prefix: (group, not own, not exposed long-lived) as one integer, "not own" left at 0
    base = np.fromiter(((c.group[0] * 8 + c.group[1] + 3) * 4 + (not (c.exposed and c.long_lived))
                        for c in ranked), np.int64, count)
    pool = np.fromiter((c.action is not _REVOKE for c in ranked), bool, count)  # sessions: companions only
    wiping = np.fromiter((i for i, c in enumerate(ranked) if c.wipes), np.int64)
    pos = {(c.action, c.subject): i for i, c in enumerate(ranked)}
    codes = (np.fromiter((_ACTION_RANK[c.action] for c in ranked), np.int64, count),
             np.fromiter((_PHASE_RANK[c.phase] for c in ranked), np.int64, count),
             np.fromiter((c.long_lived for c in ranked), bool, count))
    return subject, via_in, via_out, inv, arcs, own, base, pool, wiping, pos, codes
