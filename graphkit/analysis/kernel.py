"""The compiled blast-radius kernel (``graphkit/analysis/_radius_kernel.pyx``, Cython), behind a typed wrapper.

:func:`graphkit.analysis.radius_arrays.radius_arrays` answers from :func:`radius` when the extension was built
(``pip install`` compiles it when a C compiler is there; it is optional), else through scipy's C BFS
(:mod:`graphkit.analysis.cbfs`), else in numpy: the three give the same arrays (``tests/test_kernel.py``).  The
kernel replays the scipy path step for step (the reach with its code-node rule and re-search, the local CSR of
the reached pairs, the certain-only BFS tree, the one over every pair when some node is possible, the bucketed
widths) as FIFO loops in C, in one call: a query costs O(its reached pairs) with a constant of a few
nanoseconds, instead of ~150 numpy calls and ~30 passes over the reached pairs.

Its per-node work arrays (local index, code mark, visit buffer) are made once per snapshot, kept on it
(``snap.derived``), and handed back clean after each query: only the entries a query touched are reset.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from graphkit.analysis.snapshot import Snapshot

try:
    from graphkit.analysis import _radius_kernel
except ImportError:  # no compiler at install time: the scipy and numpy searches answer
    _radius_kernel = None  # type: ignore[assignment]

__all__ = ["ENABLED", "AVAILABLE", "Radius", "kernel_of", "radius"]

#: the extension was built and imports
AVAILABLE = _radius_kernel is not None
#: the kernel is used (set False to force the scipy or numpy searches, e.g. in the differential tests)
ENABLED = AVAILABLE
_KEY = "kernel.radius"


class Radius(NamedTuple):
    """One blast radius from the kernel.  Shapes: ``r`` reached nodes (the ``k`` sources first), ``c`` code
    nodes, ``v`` nodes of the certain-only tree; local indexes are positions in ``order``."""

    #: (r,) int64 global node indexes in discovery order (the sources first, in the given order)
    order: np.ndarray
    #: (c,) int64 the nodes running the attacker's code (sources included), sorted
    code: np.ndarray
    #: (r,) bool: reached over certain pairs only
    certain: np.ndarray
    #: (r,) int64 parent (-1: source or possible) and explanation arc (-1: none) in the certain-only BFS tree
    cparent: np.ndarray
    carc: np.ndarray
    #: (v,) int64 visit order of the certain-only tree (the sources first)
    cvisit: np.ndarray
    #: (r,) int64 the same in the BFS tree over every pair; None when every node is certain
    aparent: np.ndarray | None
    aarc: np.ndarray | None
    #: (r,) float64 widest (max-min) lifetime in seconds (inf: unbounded; the sources: inf)
    width: np.ndarray
    #: (r,) int8 lifetime code (:data:`graphkit.analysis.snapshot.LIFETIMES`) labelling the width (sources: 0)
    life: np.ndarray
    #: the sum of the criticality weights of the reached nodes (sources excluded)
    weight: int


def kernel_of(snap: Snapshot):
    """The kernel of ``snap`` (made on first use, O(n + p) once, then kept in ``snap.derived``).

    Raises
    ------
    RuntimeError
        If the extension is not built (:data:`AVAILABLE` is False).
    """
    k = snap.derived.get(_KEY)
    if k is None:
        if _radius_kernel is None:
            raise RuntimeError("graphkit.analysis._radius_kernel is not built (no C compiler at install time)")
        from graphkit.analysis.radius_arrays import node_columns

        u8 = lambda a: np.ascontiguousarray(a).view(np.uint8).ravel()  # noqa: E731
        k = snap.derived[_KEY] = _radius_kernel.Kernel(
            snap.pair_ptr.astype(np.int64, copy=False), snap.pair_target.astype(np.int32, copy=False),
            u8(snap.has), np.ascontiguousarray(snap.best, dtype=np.int64).ravel(), u8(snap.certain),
            np.ascontiguousarray(snap.seconds, dtype=np.float64).ravel(),
            np.ascontiguousarray(snap.life, dtype=np.int8).ravel(), u8(snap.runs_code),
            np.ascontiguousarray(node_columns(snap)[0], dtype=np.int64))
    return k


def radius(snap: Snapshot, srcs: np.ndarray) -> Radius:
    """The blast radius of ``srcs`` ((k,) int64 indexes of distinct nodes, in id order) on ``snap``: the arrays
    :func:`graphkit.analysis.radius_arrays.radius_arrays` keeps, equal element for element to its scipy path.
    Time O(reached pairs) in C, plus O(n + p) once per snapshot (:func:`kernel_of`).

    Raises
    ------
    IndexError
        If a source index is outside ``0..n-1``.
    RuntimeError
        If the extension is not built.
    """
    return Radius(*kernel_of(snap).radius(srcs))
