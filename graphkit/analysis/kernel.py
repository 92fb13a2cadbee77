"""The compiled blast-radius kernel (``graphkit/analysis/_radius_kernel.pyx``, Cython), behind a typed wrapper.

:func:`graphkit.analysis.radius_arrays.radius_arrays` answers from :func:`radius` when the extension was built
(``pip install`` compiles it when a C compiler is there; it is optional), else through scipy's C BFS
(:mod:`graphkit.analysis.cbfs`), else in numpy: the three give the same arrays (``tests/test_kernel.py``).  The
kernel replays the scipy path step for step (the reach with its code-node rule and re-search, the local CSR of
the reached pairs, the certain-only BFS tree, the one over every pair when some node is possible, the bucketed
widths) as FIFO loops in C, in one call: a query costs O(its reached pairs) with a constant of a few
nanoseconds, instead of ~150 numpy calls and ~30 passes over the reached pairs.  Both BFS trees are read off the
reach's own search whenever they provably equal it (no certain pair enters a node whose tree path has an
uncertain arc: ``_radius_kernel.Kernel._reach``), so a query usually scans the reached rows twice: the reach and
the widths, each skipping a row equal record for record to one it scanned already (``_radius_kernel._twin_classes``:
that scan would change nothing).

Its per-node work arrays (local index, code mark, visit buffer) are made once per snapshot, kept on it
(``snap.derived``), and handed back clean after each query: only the entries a query touched are reset.
"""

from __future__ import annotations

import numpy as np

from graphkit.analysis.extensions import load_extension
from graphkit.analysis.snapshot import Snapshot

#: the kernel interface this wrapper calls (``API`` in the .pyx): bump both when the interface changes
_API = 5

_radius_kernel = load_extension("_radius_kernel", _API, "blast-radius kernel")

__all__ = ["ENABLED", "AVAILABLE", "arcs", "copy_column", "kernel_of", "pack", "radius", "split"]

#: the extension was built and imports
AVAILABLE = _radius_kernel is not None
#: the kernel is used (set False to force the scipy or numpy searches, e.g. in the differential tests)
ENABLED = AVAILABLE
_KEY = "kernel.radius"


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

        packed, table = pack(snap)
        pair_ptr = snap.pair_ptr.astype(np.int64, copy=False)
        best = np.ascontiguousarray(snap.best, dtype=np.int64)
        weight = np.ascontiguousarray(node_columns(snap)[0], dtype=np.int64)
        k = snap.derived[_KEY] = _radius_kernel.Kernel(
            pair_ptr, np.append(packed, np.uint64(0)), best.ravel(), table, weight,  # a pad record last
            *split(pair_ptr, packed, snap.has[0], best[0]), copy_column(snap, table))
    return k


def copy_column(snap: Snapshot, table: np.ndarray) -> np.ndarray:
    """(n,) int16 per node: -1, or the lifetime code of a copy of its value (bits 0-3) and the rank of that
    lifetime's seconds in ``table`` (bits 4-11), for the kernel's width pass (the copy principle:
    :func:`graphkit.analysis.radius_arrays.copy_codes`).  ``table`` holds every lifetime's seconds (:func:`pack`)."""
    from graphkit.analysis.radius_arrays import CODE_SECONDS, copy_codes

    code = copy_codes(snap).astype(np.int16)
    rank = np.searchsorted(table, CODE_SECONDS).astype(np.int16)
    return np.ascontiguousarray(np.where(code >= 0, code | (rank[np.maximum(code, 0)] << 4), -1), dtype=np.int16)


def pack(snap: Snapshot) -> tuple[np.ndarray, np.ndarray]:
    """The snapshot's pairs as the kernel reads them, one 64-bit record per pair, and the table of lasting
    seconds.

    Returns
    -------
    (packed, table)
        ``packed`` (p,) uint64: bits 0-31 the target, 32 and 33 ``has[0]`` and ``has[1]``, 34 ``runs_code``,
        then for variant v at bit 35 + 13 v: ``certain`` (1 bit), ``life`` (4 bits), the rank of ``seconds`` in
        ``table`` (8 bits); bit 61: the target is a sink (no pair leaves it, in any variant: the kernel's searches
        queue no scan of its row); ``table`` (s,) float64: the distinct lasting seconds and the seconds of every
        lifetime (a copy's own, :func:`copy_column`), increasing, inf last.  Time O(p log s) in numpy.

    Raises
    ------
    ValueError
        If a lifetime code needs more than 4 bits or there are more than 255 distinct lasting seconds (the
        lifetimes are an enum of about ten values: never so far).
    """
    from graphkit.analysis.radius_arrays import CODE_SECONDS

    table = np.unique(np.concatenate([snap.seconds.ravel(), CODE_SECONDS, [np.inf]]))
    if table.size > 255 or (snap.life.size and int(snap.life.max()) > 15):
        raise ValueError("more lifetimes than the kernel's packing holds")
    rank = np.searchsorted(table, snap.seconds).astype(np.uint64)
    attr = snap.certain.astype(np.uint64) | (snap.life.astype(np.uint64) << 1) | (rank << 5)
    sink = (np.diff(snap.pair_ptr) == 0).astype(np.uint64)
    packed = (snap.pair_target.astype(np.uint64) | (snap.has[0].astype(np.uint64) << 32)
              | (snap.has[1].astype(np.uint64) << 33) | (snap.runs_code.astype(np.uint64) << 34)
              | (attr[0] << 35) | (attr[1] << 48) | (sink[snap.pair_target] << 61))
    return np.ascontiguousarray(packed), table


def split(pair_ptr: np.ndarray, packed: np.ndarray, has0: np.ndarray, best0: np.ndarray) \
        -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The variant-0 pairs alone, row by row, as the kernel reads the rows of the nodes not running the attacker's
    code (those follow nothing else: a scan of such a row reads no pair of ``source_only`` edges alone), with each
    row's start and first record side by side (one memory line gives a row of one pair, most rows).

    Parameters: ``pair_ptr`` (n + 1,) int64 and ``packed`` (p,) uint64 (:func:`pack`), ``has0`` (p,) bool and
    ``best0`` (p,) int64 (the snapshot's ``has[0]`` and ``best[0]``).  Returns ``(node0, packed0, arc0)``:
    ``node0`` (2 n + 2,) uint64, ``node0[2 i]`` the start of node ``i``'s variant-0 pairs (``node0[2 n]``: p0, their
    number) and ``node0[2 i + 1]`` the first one's record (0 for an empty row and the pad); ``packed0`` (p0 + 1,)
    uint64 their records (the same bits, in the same order: by target within a row; a 0 record last, which a scan
    may read past a row's end); ``arc0`` (p0,) int64 their explanation arcs in variant 0.  Time and memory
    O(n + p) in numpy.
    """
    keep = np.flatnonzero(has0)
    before = np.zeros(has0.size + 1, dtype=np.int64)  # variant-0 pairs before each pair
    np.cumsum(has0, out=before[1:])
    start = before[pair_ptr]
    packed0 = np.append(packed[keep], np.uint64(0))
    node0 = np.zeros(2 * start.size, dtype=np.uint64)
    node0[0::2] = start
    node0[1:-1:2] = np.where(start[1:] > start[:-1], packed0[start[:-1]], 0)
    return node0, packed0, np.ascontiguousarray(best0[keep], dtype=np.int64)


def radius(snap: Snapshot, srcs: np.ndarray) -> tuple:
    """The blast radius of ``srcs`` ((k,) int64 indexes of distinct nodes, in id order) on ``snap``: the arrays
    :func:`graphkit.analysis.radius_arrays.radius_arrays` keeps, equal element for element to its scipy path.
    Time O(reached pairs) in C, plus O(n + p) once per snapshot (:func:`kernel_of`).

    Returns
    -------
    (order, code, certain, cparent, carc, cvisit, aparent, aarc, width, life, weight)
        Shapes: ``r`` reached nodes (the ``k`` sources first), ``c`` code nodes, ``v`` nodes of the certain-only
        tree; local indexes are positions in ``order``.  ``order`` (r,) int64 global node indexes in discovery
        order (the sources first, in the given order); ``code`` (c,) int64 the nodes running the attacker's code
        (sources included), sorted; ``certain`` (r,) bool reached over certain pairs only; ``cparent``, ``carc``
        (r,) int64 parent (-1: a source or possible) and the pair index of the entering pair (-1: none; its
        explanation arc is :func:`arcs` of it, gathered when a path is asked for) in the certain-only BFS tree;
        ``cvisit`` (v,) int64 its visit order (the sources first); ``aparent``, ``aarc``: the same in the BFS tree
        over every pair, None when every node is certain; ``width`` (r,) float64 widest (max-min) lifetime in
        seconds (inf: unbounded; the sources: inf); ``life`` (r,) int8 lifetime code
        (:data:`graphkit.analysis.snapshot.LIFETIMES`) labelling the width (sources: 0); ``weight`` (int) the sum
        of the criticality weights of the reached nodes (sources excluded).  The fields of
        :class:`~graphkit.analysis.radius_arrays.RadiusArrays` (``carc`` and ``aarc`` through :func:`arcs`), plus
        ``code``.

    Raises
    ------
    IndexError
        If a source index is outside ``0..n-1``.
    RuntimeError
        If the extension is not built.
    """
    k = snap.derived.get(_KEY)
    return (k if k is not None else kernel_of(snap)).radius(srcs)


def arcs(snap: Snapshot, pairs: np.ndarray) -> np.ndarray:
    """(k,) int64: the explanation arc (index in ``snap.edges``; -1 where ``pairs`` holds -1) of every pair index
    :func:`radius` returns in ``carc`` and ``aarc`` ((k,) int64).  Time O(k) in C.

    Raises
    ------
    IndexError
        If an index is not one :func:`radius` returns.
    RuntimeError
        If the extension is not built.
    """
    k = snap.derived.get(_KEY)
    return (k if k is not None else kernel_of(snap)).arcs(pairs)
