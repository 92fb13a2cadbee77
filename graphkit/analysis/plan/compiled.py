"""The revocation plan's compiled passes (``graphkit/analysis/_plan_kernel.pyx``, Cython), loaded when built.

:mod:`graphkit.analysis.plan.fast` runs its reached sets, dominator trees and kept-tree cuts through
:func:`plan_kernel` when the extension was built (``pip install`` compiles it when a C compiler is there; it is
optional), else through numpy and rustworkx ``immediate_dominators``: both give the same plans
(``tests/test_plan_kernel.py``: trees, reached sets and cuts compared, plans with and without the kernel).
"""

from __future__ import annotations

import numpy as np

from graphkit.analysis.extensions import load_extension

#: the kernel interface this module calls (``API`` in the .pyx): bump both when the interface changes
_API = 8

_plan_kernel = load_extension("_plan_kernel", _API, "revocation-plan kernel")

__all__ = ["AVAILABLE", "ENABLED", "first_numbers", "plan_kernel", "reach_arcs", "stable_argsort"]

_VIEWS = "graphkit.analysis.plan.kernel_views"

#: the extension was built and imports
AVAILABLE = _plan_kernel is not None
#: the kernel is used (set False to force the numpy and rustworkx passes, e.g. in the differential tests)
ENABLED = AVAILABLE


def plan_kernel(src: np.ndarray, tgt: np.ndarray, via: np.ndarray, out_ptr: np.ndarray, in_ptr: np.ndarray,
                in_arc: np.ndarray, via_ptr: np.ndarray, via_arc: np.ndarray, seeds: np.ndarray, weight: np.ndarray,
                is_seed: np.ndarray, seedy: np.ndarray, zof: np.ndarray, lone: np.ndarray, n: int, root: int):
    """The kernel of one plan (``_plan_kernel.Plan``), or None when it is not built or not :data:`ENABLED`.

    Parameters are ``fast._Static``'s: (m,) int64 ``src``, ``tgt``, ``via`` (-1: no virtual node); (n + 1,)
    int64 ``out_ptr`` and ``in_ptr`` with (m,) ``in_arc`` (arcs by target); (root - n + 1,) ``via_ptr`` with
    ``via_arc`` (arcs by virtual node); (s,) int64 ``seeds``; (n,) int64 ``weight``; (n,) bool ``is_seed``;
    (root + 1,) bool ``seedy``; (n,) int64 ``zof`` (each node's wipe group node, -1: none:
    :func:`~graphkit.analysis.plan.prices.wipe_groups`); (root + 1,) int64 ``lone`` (``fast._Static.lone``).  Time O(root) once (the scratch masks).

    Raises
    ------
    ValueError
        If the CSR pointers do not match ``n`` and ``root``.
    """
    if _plan_kernel is None or not ENABLED:
        return None
    i64 = [np.ascontiguousarray(x, dtype=np.int64)
           for x in (src, tgt, via, out_ptr, in_ptr, in_arc, via_ptr, via_arc, seeds, weight)]
    masks = [np.ascontiguousarray(x, dtype=bool).view(np.uint8) for x in (is_seed, seedy)]
    return _plan_kernel.Plan(*i64, *masks, *(np.ascontiguousarray(x, dtype=np.int64) for x in (zof, lone)), n, root)


def stable_argsort(keys: np.ndarray, bound: int) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of int64 ``keys`` in ``[0, bound)`` by the kernel (``_plan_kernel``'s
    counting or radix sort; :func:`graphkit.analysis.plan.arrays.stable_argsort` calls it when :data:`ENABLED`).

    Raises
    ------
    ValueError
        If a key is outside ``[0, bound)``.
    """
    return _plan_kernel.stable_argsort(np.ascontiguousarray(keys, dtype=np.int64), bound)  # type: ignore[union-attr]


def reach_arcs(snap, srcs: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """``(order, code, garc, src, tgt)``: :func:`graphkit.analysis.snapshot.reach_order` (the reached nodes in
    discovery order, the sorted nodes running the attacker's code) and ``graphkit.analysis.plan.arrays._unfold``
    (every arc of the reached rows in its variant: the snapshot's arc, local source and target) in one compiled
    pass (``_plan_kernel.reach_arcs``, when :data:`ENABLED`); None where ``reach_order`` gives up.  ``srcs``:
    (k,) int64 source indexes in id order."""
    views = snap.derived.get(_VIEWS)
    if views is None:  # the snapshot's arrays as the kernel reads them, once per snapshot
        u8 = [np.ascontiguousarray(x, dtype=bool).view(np.uint8) for x in (snap.runs_code, snap.has,
                                                                           snap.arc_source_only)]
        views = snap.derived[_VIEWS] = (np.ascontiguousarray(snap.pair_ptr, dtype=np.int64),
                                        np.ascontiguousarray(snap.pair_target, dtype=np.int32), u8[0], u8[1],
                                        np.ascontiguousarray(snap.arc_ptr, dtype=np.int64), u8[2])
    from graphkit.analysis.snapshot import borrow, give_back
    pos, cpos = borrow(snap, "plan_pos", np.int64, -1), borrow(snap, "plan_cpos", np.int64, -1)
    try:
        return _plan_kernel.reach_arcs(*views, np.ascontiguousarray(srcs, dtype=np.int64), pos, cpos)
    finally:  # the kernel handed them back reset
        give_back(snap, "plan_pos", pos, srcs[:0], -1)
        give_back(snap, "plan_cpos", cpos, srcs[:0], -1)


def first_numbers(keys: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``(number, created)`` of int64 ``keys`` in ``[0, bound)`` by the kernel (``_plan_kernel.first_numbers``):
    each key's number in order of first occurrence, and the distinct keys in that order.

    Raises
    ------
    ValueError
        If a key is outside ``[0, bound)``.
    """
    return _plan_kernel.first_numbers(np.ascontiguousarray(keys, dtype=np.int64), bound)  # type: ignore[union-attr]
