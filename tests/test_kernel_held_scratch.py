"""The blast-radius kernel's fallback for a query that starts while another holds the kernel's scratch arrays
(graphkit/analysis/_radius_kernel.pyx, ``Kernel.radius``: ``busy``): the second query, from another thread, gets
its own scratch and both answer exactly what each answers alone and what the scipy path answers, on the bundled
example and on the corpus graph; the kernel's scratch is handed back clean.

The first query is held deterministically: the kernel module's ``np`` is replaced by a stand-in whose first
``empty`` (called by the first query once its reach has marked the scratch) starts the second query in a thread
and waits for it."""

from __future__ import annotations

import threading
import types

import numpy as np
import pytest

from conftest import require
from graphkit.analysis import cbfs, kernel
from graphkit.analysis.radius_arrays import radius_arrays
from graphkit.analysis.snapshot import snapshot
from graphkit.build import build_graph

from test_radius_arrays import CORPUS_GHA, EXAMPLE

_FIELDS = ("order", "certain", "cparent", "carc", "cvisit", "aparent", "aarc", "width", "life", "weight")
_OUT = ("order", "code", "certain", "cparent", "carc", "cvisit", "aparent", "aarc", "width", "life", "weight")


@pytest.fixture(autouse=True)
def _built():
    require(kernel.AVAILABLE, "graphkit.analysis._radius_kernel is not built (pip install -e . with a C compiler, "
            "or build_ext --inplace)")


def _same(x, y) -> bool:
    if x is None or y is None or isinstance(y, (int, np.integer)):
        return x == y
    return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)


def _held(monkeypatch, k, first: np.ndarray, second: np.ndarray) -> tuple[tuple, tuple, dict]:
    """``(answer to first, answer to second, what the stand-in saw)``: ``second`` runs in a thread started while
    ``first`` holds ``k``'s scratch."""
    module = __import__("graphkit.analysis._radius_kernel", fromlist=["np"])
    seen: dict = {"dirty": None, "thread_calls": [], "out": None, "lone_calls": []}
    main = threading.get_ident()
    lone = [False]

    def run_second() -> None:
        seen["out"] = k.radius(second)

    def stand_in(name):
        real = getattr(np, name)

        def call(*args, **kw):
            if lone[0]:
                seen["lone_calls"].append(name)
            elif threading.get_ident() != main:
                seen["thread_calls"].append(name)
            elif name == "empty" and seen["dirty"] is None:
                seen["dirty"] = not k.is_clean()  # the first query's reach has marked the scratch
                t = threading.Thread(target=run_second)
                t.start()
                t.join()
            return real(*args, **kw)
        return call

    fake = types.SimpleNamespace(**{n: getattr(np, n) for n in dir(np) if not n.startswith("__")})
    for name in ("empty", "full", "zeros"):
        setattr(fake, name, stand_in(name))
    with monkeypatch.context() as m:
        m.setattr(module, "np", fake)
        lone[0] = True
        k.radius(second)  # the allocations of the second query run alone
        lone[0] = False
        got = k.radius(first)
    assert seen["out"] is not None, "the second query did not run"
    return got, seen["out"], seen


def _scipy(monkeypatch, g, srcs):
    with monkeypatch.context() as m:
        m.setattr(kernel, "ENABLED", False)
        return radius_arrays(g, srcs)


def _check(monkeypatch, g, a: list[str], b: list[str]) -> int:
    snap = snapshot(g)
    k = kernel.kernel_of(snap)
    ia = np.array(sorted(snap.index[s] for s in a), dtype=np.int64)
    ib = np.array(sorted(snap.index[s] for s in b), dtype=np.int64)
    alone_a, alone_b = k.radius(ia), k.radius(ib)
    got_a, got_b, seen = _held(monkeypatch, k, ia, ib)
    assert seen["dirty"] is True  # the second query started while the first held a marked scratch
    for got, alone, srcs in ((got_a, alone_a, a), (got_b, alone_b, b)):
        assert len(got) == len(_OUT)
        for name, x, y in zip(_OUT, got, alone):
            assert _same(x, y), name
        ref = _scipy(monkeypatch, g, tuple(sorted(srcs, key=snap.index.__getitem__)))
        for i, name in enumerate(_OUT):
            # the kernel's trees hold the entering pair's index; kernel.arcs turns it into the scipy path's arc
            mine = kernel.arcs(snap, got[i]) if name in ("carc", "aarc") else got[i]
            if name != "code":
                assert _same(mine, getattr(ref, name)), name
        order, code = cbfs.reach(snap, np.array(sorted(snap.index[s] for s in srcs), dtype=np.int64))
        assert np.array_equal(got[0], order) and np.array_equal(got[1], code)
    assert k.is_clean()
    # the second took the fallback: its own scratch allocated first, then what the query allocates alone
    calls, lone = seen["thread_calls"], seen["lone_calls"]
    assert len(calls) > len(lone) and calls[len(calls) - len(lone):] == lone and "full" in calls[:-len(lone)]
    return got_a[0].size + got_b[0].size


def test_a_query_while_another_holds_the_scratch_example(monkeypatch):
    g = build_graph(EXAMPLE).graph
    runners = sorted(n for n in g.nx if n.startswith("runner:"))
    assert len(runners) >= 3
    reached = _check(monkeypatch, g, [runners[0]], runners[1:3])
    assert reached > 20
    # overlapping sources: the second query's reach covers nodes the first marked
    assert _check(monkeypatch, g, runners, [runners[-1]]) > 20


@pytest.mark.corpus
def test_a_query_while_another_holds_the_scratch_corpus(monkeypatch):
    require(CORPUS_GHA.is_dir(), "the shared corpus is not beside the checkout", corpus=True)
    g = build_graph({"github-actions": [str(CORPUS_GHA)]}).graph
    runners = sorted(n for n in g.nx if n.startswith("runner:"))
    assert len(runners) >= 2
    assert _check(monkeypatch, g, runners[:1], runners[1:]) > 50
