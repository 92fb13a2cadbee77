"""The revocation plan's candidates as the fast loop prices them (:mod:`graphkit.analysis.plan.fast`): in tie-break
order, as arrays (and lists, for pricing one at a time), from the front end's columns
(:func:`graphkit.analysis.plan.arrays.candidate_columns`) or from :class:`~graphkit.analysis.plan.candidates.Candidate`
objects (the reference's front end): the same arrays either way (``tests/test_plan_arrays.py``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphkit.analysis.plan.arrays import Columns, stable_argsort
from graphkit.analysis.plan.candidates import _ACTION_RANK, _PHASE_RANK, Candidates, Incident
from graphkit.analysis.plan.greedy import _REGISTRAR
from graphkit.analysis.results import Phase
from graphkit.model import RevocationAction

__all__ = ["ArcsOf", "Prices", "prices"]

_REVOKE = RevocationAction.REVOKE_ROLE_SESSIONS


@dataclass(slots=True)
class Prices:
    """The candidates in tie-break order (``Candidates.ranked``; a candidate's index there is its ``pos``), as
    arrays (and as lists, for pricing one at a time)."""

    subject: np.ndarray
    via_in: np.ndarray
    via_out: np.ndarray
    #: it invalidates its subject
    inv: np.ndarray
    #: a contain candidate on a source, or a registrar: its own foothold while the subject is valid
    own: np.ndarray
    #: packed greedy-key prefix (``fast._key``)
    base: np.ndarray
    #: may be chosen (a session revocation only comes as a companion)
    pool: np.ndarray
    #: positions of the candidates that wipe other nodes
    wiping: np.ndarray
    #: the arcs each removes (``arcs[pos]``)
    arcs: ArcsOf
    #: bits of the reduction in the packed key
    shift: int
    pos: dict
    #: positions by subject (``by_subject[subject_ptr[i]:subject_ptr[i + 1]]``: those on node ``i``), and the
    #: position of the candidate of every virtual node (``of_virtual[x - n]``)
    subject_ptr: list[int]
    by_subject: list[int]
    of_virtual: list[int]
    subject_l: list[int]
    via_in_l: list[int]
    via_out_l: list[int]
    inv_l: list[bool]
    own_l: list[bool]
    base_l: list[int]
    #: (k,) per position: the action and the phase (int64, positions in RevocationAction and Phase), and
    #: ``long_lived`` (bool): what a step reads
    action_c: np.ndarray
    phase_c: np.ndarray
    long_c: np.ndarray


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
    n_src, count = inc.sub.n_src, len(cands.ranked)
    if cols is not None and cols.group is not None:
        subject, via_in, via_out, inv, arcs, own, base, pool, wiping, pos, codes = _from_columns(cols, n_src)
    else:
        subject, via_in, via_out, inv, arcs, own, base, pool, wiping, pos, codes = _from_objects(cands, n_src)
    shift = max(1, int(np.sum(inc.weight, dtype=np.int64)).bit_length() + 1)
    if int(base.max(initial=0)) + 4 >= 1 << (62 - shift):  # pragma: no cover - weights beyond 2**50
        raise ValueError("revocation plan: total weight too large for the packed greedy key")
    subject_ptr = np.zeros(inc.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(subject, minlength=inc.n), out=subject_ptr[1:])
    of_virtual = np.zeros(2 * count, dtype=np.int64)
    of_virtual[via_in - inc.n] = of_virtual[via_out - inc.n] = np.arange(count)
    return Prices(subject, via_in, via_out, inv, own, base, pool, wiping, arcs, shift, pos, subject_ptr.tolist(),
                  stable_argsort(subject, inc.n).tolist(), of_virtual.tolist(),
                  subject.tolist(), via_in.tolist(), via_out.tolist(), inv.tolist(), own.tolist(), base.tolist(),
                  *codes)


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
            base, pool, np.flatnonzero(cols.wipes), cols.positions(), (cols.action, g0, cols.long))


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
