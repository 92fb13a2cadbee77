"""The revocation plan's front end from arrays (graphkit/analysis/plan/arrays.py) against the reference
(graphkit/analysis/plan/candidates.py: ``incident`` and ``candidates``): the same incident and the same candidates,
field for field, on random graphs, the bundled example from every node, the golden cases and the corpus; and the
same plans from both (the reference greedy loop on the reference front end, the fast loop on the arrays)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import regen_goldens as gold
from conftest import require
from graphkit.analysis import reach, revocation_plan
from graphkit.analysis.plan import arrays, compiled, fast
from graphkit.analysis.plan.candidates import candidates, incident
from graphkit.analysis.plan.fast import fast_plan
from graphkit.analysis.plan.greedy import greedy_plan
from graphkit.build import build_graph
from graphkit.graph import Graph
from graphkit.model import NodeKind

from test_analysis import random_incident
from test_radius_arrays import CORPUS_GHA, EXAMPLE


def _fields(c) -> tuple:
    return (c.action, c.subject, c.via_in, c.via_out, c.arcs, c.invalidates, c.long_lived, c.wipes, c.phase,
            c.group, c.applied, c.exposed)


def check(g: Graph, sources, exposed_every: int = 0) -> int:
    """Both front ends on ``sources``: identical incidents and candidates (and the arrays beside them agree);
    returns the number of candidates."""
    srcs = reach.source_ids(g, sources)
    ref = incident(g, srcs)
    found = arrays.incident_arrays(g, srcs)
    if found is None:  # the vectorised BFS gave up: revocation_plan runs the reference
        assert reach.collect(g, srcs).fast is None
        return 0
    inc, cols = found
    assert inc.sub.ids == ref.sub.ids and inc.sub.n_src == ref.sub.n_src and inc.sub.index == ref.sub.index
    assert all(a is b for a, b in zip(inc.sub.nodes, ref.sub.nodes, strict=True))
    assert (inc.arcs.start, inc.arcs.source, inc.arcs.target) == (ref.arcs.start, ref.arcs.source, ref.arcs.target)
    assert all(a is b for a, b in zip(inc.arcs.edge, ref.arcs.edge, strict=True))  # the snapshot's own edges
    assert len(inc.arcs.edge) == len(ref.arcs.edge)
    assert (inc.weight, inc.held, inc.seed) == (ref.weight, ref.held, ref.seed)
    exposed = frozenset(range(0, ref.n, exposed_every)) if exposed_every else frozenset()
    want, got = candidates(ref, exposed), arrays.candidates_arrays(inc, cols, exposed)
    assert got.n == want.n and got.via == want.via
    assert [_fields(c) for c in got.items] == [_fields(c) for c in want.items]
    assert [(c.action, c.subject) for c in got.ranked] == [(c.action, c.subject) for c in want.ranked]
    assert got.at.keys() == want.at.keys() and all(got.at[k] is c for k, c in got.at.items() for c in [got.at[k]])
    assert cols.subject.tolist() == [c.subject for c in want.ranked]
    assert cols.via_in.tolist() == [c.via_in for c in want.ranked]
    assert cols.inv.tolist() == [c.invalidates for c in want.ranked]
    assert [cols.arc_flat[lo:hi].tolist() for lo, hi in zip(cols.arc_lo, cols.arc_hi)] == [c.arcs for c in want.ranked]
    assert [(arrays._ACTIONS[a], tuple(gr), lg, ex, w) for a, gr, lg, ex, w in zip(
        cols.action.tolist(), cols.group.T.tolist(), cols.long.tolist(), cols.exposed.tolist(), cols.wipes.tolist())] \
        == [(c.action, c.group, c.long_lived, c.exposed, bool(c.wipes)) for c in want.ranked]
    by_cols, by_objects = fast._prices(got, inc, cols), fast._prices(got, inc)  # the loop's arrays, both ways
    for name in ("own", "base", "pool", "wiping"):
        assert np.array_equal(getattr(by_cols, name), getattr(by_objects, name)), name
    assert by_cols.pos == by_objects.pos
    roles = frozenset(i for i, nd in enumerate(ref.sub.nodes) if nd.spec.kind is NodeKind.CLOUD_ROLE)
    plan_ref = greedy_plan(ref, candidates(ref, exposed), None, roles)
    assert fast_plan(inc, got, None, roles, cols) == plan_ref
    # what revocation_plan runs: the candidates as columns, objects made only when the loop reads them
    inc, cols = arrays.incident_arrays(g, srcs, lists=False)
    assert list(inc.sub.ids) == ref.sub.ids and inc.sub.ids[-1:] == ref.sub.ids[-1:]
    assert all(a is b for a, b in zip(inc.sub.nodes, ref.sub.nodes, strict=True))
    assert dict(inc.sub.index) == ref.sub.index and "no:such" not in inc.sub.index
    arrays.candidate_columns(inc.sub.fast, cols, inc.sub.n_src, exposed)
    lazy = arrays.LazyCandidates(cols, inc.n)
    assert len(lazy.ranked) == len(want.ranked)
    for i in range(0, len(want.ranked), 3):  # every third one read first, the others after the plan
        assert _fields(lazy.ranked[i]) == _fields(want.ranked[i])
    assert fast_plan(inc, lazy, None, roles, cols) == plan_ref
    assert revocation_plan(g, sources, exposed=[ref.sub.ids[i] for i in exposed]) == plan_ref
    for key, c in list(want.at.items())[:5]:  # (``applied`` is the plan's state: left out)
        got_f, want_f = _fields(lazy.at.get(key)), _fields(c)
        assert got_f[:10] + got_f[11:] == want_f[:10] + want_f[11:]
    assert lazy.at.get(("no such action", -1)) is None
    assert [(c.action, c.subject, c.via_in, c.arcs, c.wipes, c.group) for c in map(lazy.ranked.__getitem__, range(
        len(want.ranked)))] == [(c.action, c.subject, c.via_in, c.arcs, c.wipes, c.group) for c in want.ranked]
    return len(want.items)


@pytest.fixture(params=["compiled", "numpy"])
def mode(request, monkeypatch):
    """Both implementations of the fast loop's passes (the compiled one only where it is built)."""
    if request.param == "compiled" and not compiled.AVAILABLE:
        pytest.skip("graphkit.analysis._plan_kernel is not built")
    monkeypatch.setattr(compiled, "ENABLED", request.param == "compiled")


@pytest.mark.parametrize("seed", range(120))
def test_random_graphs(seed, mode):
    rng = random.Random(3000 + seed)
    g, sources = random_incident(seed, rng)
    check(g, sources, exposed_every=rng.choice([0, 2, 3]))


def test_random_graphs_have_candidates_of_every_shape():
    """The random graphs exercise what the arrays must get right: wipes, registrars, placed phases."""
    seen = {"wipes": 0, "contain": 0, "rotate": 0, "held": 0, "source_only_left_out": 0}
    for seed in range(60):
        g, sources = random_incident(seed, random.Random(3000 + seed))
        srcs = reach.source_ids(g, sources)
        found = arrays.incident_arrays(g, srcs)
        if found is None:
            continue
        inc, cols = found
        cs = arrays.candidates_arrays(inc, cols)
        seen["wipes"] += any(c.wipes for c in cs.items)
        seen["contain"] += any(c.phase == "contain" for c in cs.items)
        seen["rotate"] += any(c.phase == "rotate" for c in cs.items)
        seen["held"] += bool(inc.held)
        snap = inc.sub.fast[0]
        every = int((snap.arc_ptr[snap.pair_ptr[inc.sub.fast[1] + 1]] - snap.arc_ptr[snap.pair_ptr[inc.sub.fast[1]]]).sum())
        seen["source_only_left_out"] += every > len(inc.arcs)
    assert all(v >= 3 for v in seen.values()), seen


@pytest.fixture(scope="module")
def acme() -> Graph:
    return build_graph(EXAMPLE).graph


def test_example_from_every_node(acme):
    total = sum(check(acme, x, exposed_every=i % 3) for i, x in enumerate(sorted(acme.nx)))
    assert total > 200


def test_second_plan_reads_the_cached_codes(acme):
    """The per-snapshot caches (arc forms, node actions) give the same answer when already filled."""
    runner = sorted(n for n in acme.nx if n.startswith("runner:"))[0]
    first = revocation_plan(acme, runner)
    assert revocation_plan(acme, runner) == first and first.steps


@pytest.mark.parametrize("folder", gold.case_folders(), ids=lambda p: p.name)
def test_golden_cases(folder):
    case, g = gold.case_graph(folder)
    for sources in case.sources:
        check(g, sources, exposed_every=2)


@pytest.mark.corpus
def test_corpus_graph():
    require(CORPUS_GHA.is_dir(), "the shared corpus is not beside the checkout", corpus=True)
    g = build_graph({"github-actions": [str(CORPUS_GHA)]}).graph
    runners = sorted(n for n in g.nx if n.startswith("runner:"))
    assert runners
    assert sum(check(g, r) for r in runners[:40]) > 0


def test_arc_edges_reads_lazily(acme):
    srcs = reach.source_ids(acme, sorted(n for n in acme.nx if n.startswith("runner:"))[:1])
    inc, _ = arrays.incident_arrays(acme, srcs)
    edges = inc.arcs.edge
    assert len(edges) == len(inc.arcs.source) > 0
    assert edges[-1] is edges[len(edges) - 1] and edges[0:2] == [edges[0], edges[1]]
    assert np.array_equal(arrays.snap_arcs(inc)[:1], np.array([arrays.snap_arcs(inc)[0]]))


@pytest.mark.parametrize("seed", range(40))
def test_radix_sorts_are_numpys(seed, mode):
    """stable_argsort and _unique_first (16-bit radix passes, or the kernel's counting and radix sorts) give
    numpy's stable argsort and unique, bound for bound: one pass, two passes, four passes, ties, empty arrays."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(0, 3000))
    bound = int(rng.choice([1, 7, 1 << 16, (1 << 16) + 5, 1 << 31, 1 << 60]))
    keys = rng.integers(0, bound, size, dtype=np.int64)
    assert np.array_equal(arrays.stable_argsort(keys, bound), np.argsort(keys, kind="stable"))
    assert np.array_equal(arrays.stable_argsort(keys), np.argsort(keys, kind="stable"))
    got, want = arrays._unique_first(keys, bound), np.unique(keys, return_index=True, return_inverse=True)
    assert all(np.array_equal(a, b.reshape(-1)) for a, b in zip(got, want))
    for small in (bound, 1 << 12):  # numbered in order of first occurrence (the candidates' creation order)
        cut = keys[keys < small]
        got_n, got_c = arrays._numbered(cut, small)
        u2, f2, i2 = np.unique(cut, return_index=True, return_inverse=True)
        m2 = np.argsort(f2, kind="stable")
        n2 = np.empty(m2.size, dtype=np.int64)
        n2[m2] = np.arange(m2.size)
        assert np.array_equal(got_n, n2[i2.reshape(-1)]) and np.array_equal(got_c, u2[m2])


def test_compiled_sort_refuses_keys_out_of_bounds():
    if not compiled.AVAILABLE:
        pytest.skip("graphkit.analysis._plan_kernel is not built")
    with pytest.raises(ValueError, match="outside"):
        compiled.stable_argsort(np.array([0, 5], dtype=np.int64), 5)
    with pytest.raises(ValueError, match="outside"):
        compiled.stable_argsort(np.array([-1], dtype=np.int64), 1 << 40)
    with pytest.raises(ValueError, match="outside"):
        compiled.first_numbers(np.array([0, 3], dtype=np.int64), 3)


def _same_search(snap, idx: np.ndarray) -> bool:
    """``compiled.reach_arcs`` against ``reach_order`` then ``_unfold`` on one search: the same arrays, or both give
    up (False); the scratch handed back reset."""
    from graphkit.analysis.snapshot import reach_order
    want, got = reach_order(snap, idx), compiled.reach_arcs(snap, idx)
    for name in ("plan_pos", "plan_cpos"):
        assert (snap.scratch[(name, -1)] == -1).all()
    if want is None:
        assert got is None
        return False
    want = (*want, *arrays._unfold(snap, *want))
    assert got is not None and len(got) == len(want) == 5
    assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(got, want))
    return True


def test_compiled_search_is_reach_order_then_unfold():
    """``_plan_kernel.reach_arcs`` (the search and its arcs in one pass) gives ``reach_order`` then ``_unfold``
    array for array on random graphs, the example's nodes and the golden cases."""
    if not compiled.AVAILABLE:
        pytest.skip("graphkit.analysis._plan_kernel is not built")
    from graphkit.analysis.snapshot import snapshot
    graphs = [random_incident(seed, random.Random(3000 + seed)) for seed in range(150)]
    acme = build_graph(EXAMPLE).graph
    graphs += [(acme, [x]) for x in sorted(acme.nx)]
    graphs += [(g, srcs) for folder in gold.case_folders() if not gold.missing_inputs(gold.load_case(folder))
               for case, g in [gold.case_graph(folder)] for srcs in case.sources]
    compared = 0
    for g, sources in graphs:
        snap = snapshot(g)
        compared += _same_search(snap, np.array([snap.index[s] for s in reach.source_ids(g, sources)],
                                                dtype=np.int64))
    assert compared > 100


def _random_snapshot(rng: np.random.Generator):
    """What ``reach_order``, ``_unfold`` and ``compiled.reach_arcs`` read of a snapshot, at random: rows of pairs
    by target, ``runs_code`` pairs, variants, ``source_only`` arcs."""
    from types import SimpleNamespace
    n = int(rng.integers(2, 60))
    rows = [np.unique(rng.integers(0, n, int(rng.integers(0, 6)))) for _ in range(n)]
    pair_ptr = np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int64)
    p = int(pair_ptr[-1])
    arcs = rng.integers(1, 4, p)
    has0 = rng.random(p) < 0.7
    return SimpleNamespace(
        n=n, scratch={}, derived={}, pair_ptr=pair_ptr, pair_target=np.concatenate([[0], *rows])[1:].astype(np.int32),
        runs_code=rng.random(p) < float(rng.choice([0.0, 0.1, 0.4])),
        has=np.stack([has0, has0 | (rng.random(p) < 0.5)]), arc_ptr=np.concatenate([[0], np.cumsum(arcs)]).astype(
            np.int64), arc_source_only=rng.random(int(arcs.sum())) < 0.3)


def test_compiled_search_gives_up_where_reach_order_does():
    """The same on random snapshots, where a node is often entered through a ``runs_code`` pair after its row was
    scanned: both give up there, and give the same arrays elsewhere (both outcomes are met)."""
    if not compiled.AVAILABLE:
        pytest.skip("graphkit.analysis._plan_kernel is not built")
    outcomes = []
    for seed in range(60):
        rng = np.random.default_rng(seed)
        snap = _random_snapshot(rng)
        outcomes += [_same_search(snap, np.unique(rng.integers(0, snap.n, int(rng.integers(1, 4)))).astype(np.int64))
                     for _ in range(30)]
    assert outcomes.count(True) > 200 and outcomes.count(False) > 50, (outcomes.count(True), outcomes.count(False))
