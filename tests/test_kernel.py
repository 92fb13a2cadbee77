"""The compiled blast-radius kernel (graphkit/analysis/_radius_kernel.pyx, wrapper graphkit/analysis/kernel.py)
against the two searches it replaces: scipy's C BFS path (:mod:`graphkit.analysis.cbfs`: the same arrays,
element for element: order, code nodes, confidence, both BFS trees, widths, labels, weight) and the numpy path
(the same result, compared through the ids as ``tests/test_radius_arrays.py`` does), on random graphs, on every
node of the bundled example, on the golden cases and on the corpus graph.  Also: the scratch arrays kept on the
snapshot are handed back clean, and under ``GRAPHKIT_CI=1`` a kernel that did not build fails here instead of
silently falling back."""

from __future__ import annotations

import random

import numpy as np
import pytest

import regen_goldens as gold
from conftest import require
from graphkit.analysis import cbfs, kernel, reach
from graphkit.analysis.radius_arrays import RadiusArrays, radius_arrays
from graphkit.analysis.results import BlastRadius
from graphkit.analysis.snapshot import snapshot
from graphkit.build import build_graph
from graphkit.graph import Graph
from graphkit.model import Edge, EdgeKind, Evidence, NodeKind, UntrustedActor, ids

from test_analysis import random_graph
from test_radius_arrays import CORPUS_GHA, EXAMPLE

_FIELDS = ("order", "certain", "cparent", "carc", "cvisit", "aparent", "aarc", "width", "life", "weight")


@pytest.fixture(autouse=True)
def _built():
    require(kernel.AVAILABLE, "graphkit.analysis._radius_kernel is not built (pip install -e . with a C compiler, "
            "or build_ext --inplace)")


def _path(monkeypatch, g: Graph, srcs: tuple[str, ...], use_kernel: bool, use_scipy: bool) -> RadiusArrays | None:
    with monkeypatch.context() as m:
        m.setattr(kernel, "ENABLED", use_kernel)
        m.setattr(cbfs, "ENABLED", use_scipy and cbfs.ENABLED)
        return radius_arrays(g, srcs)


def check(monkeypatch, g: Graph, sources) -> tuple[int, int]:
    """Kernel == scipy path (every array, dtype included) == numpy path (same result); ``(reached, code nodes
    beyond the sources)``."""
    srcs = reach.source_ids(g, sources)
    k = _path(monkeypatch, g, srcs, True, True)
    c = _path(monkeypatch, g, srcs, False, True)
    assert k is not None and c is not None
    for name in _FIELDS:
        x, y = getattr(k, name), getattr(c, name)
        if y is None or isinstance(y, int):
            assert x == y, name
        else:
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), name
    assert k.n_src == c.n_src == len(srcs)
    snap = snapshot(g)
    idx = np.array([snap.index[s] for s in srcs], dtype=np.int64)
    got = kernel.radius(snap, idx)
    assert len(got) == 11 and all(got[i] is getattr(k, name) or np.array_equal(got[i], getattr(k, name))
                                  for i, name in [(0, "order"), (2, "certain"), (8, "width"), (10, "weight")])
    order, code = cbfs.reach(snap, idx)
    assert np.array_equal(got[0], order) and np.array_equal(got[1], code)
    py = _path(monkeypatch, g, srcs, False, False)
    if py is not None:  # else the numpy reach gave up (blast_radius then runs the reference)
        assert BlastRadius(srcs, arrays=k) == BlastRadius(srcs, arrays=py)
        assert dict(zip(k.order.tolist(), k.width.tolist())) == dict(zip(py.order.tolist(), py.width.tolist()))
        assert dict(zip(k.order.tolist(), k.life.tolist())) == dict(zip(py.order.tolist(), py.life.tolist()))
    assert kernel.kernel_of(snap).is_clean()
    return len(k), code.size - len(srcs)


def untrusted_graph(seed: int) -> Graph:
    """:func:`test_analysis.random_graph` plus untrusted actors whose ``can_trigger`` edges (``runs_code``) make
    jobs and runners run the attacker's code: their rows follow ``persists_on`` too (variant 1), found by the
    kernel's re-search."""
    rng = random.Random(seed)
    g = random_graph(seed, n=30 + seed % 40, m=60 + 2 * (seed % 90))
    targets = sorted(n.id for n in g.nodes() if n.spec.kind in (NodeKind.JOB, NodeKind.RUNNER))
    ev = [Evidence(file="ci.yml")]
    for i in range(rng.randrange(3) if targets else 0):
        u = UntrustedActor(id=ids.untrusted("fork-pr", f"o{i}"), name=f"fork-pr (o{i})", actor="fork-pr",
                           owner=f"o{i}", evidence=ev)
        g.add_node(u)
        for t in rng.sample(targets, min(len(targets), 1 + rng.randrange(4))):
            g.add_edge(Edge(kind=EdgeKind.CAN_TRIGGER, source=u.id, target=t, evidence=ev,
                            confidence=rng.choice(["certain", "possible"])))
    return g


def test_random_graphs(monkeypatch):
    reached = code = 0
    searches = {0: 0, 1: 0, 2: 0}  # queries with possible nodes, by the BFS searches run besides the reach
    for seed in range(300):
        g = untrusted_graph(seed)
        rng = random.Random(seed)
        entry = sorted(n for n in g.nx if n.startswith("untrusted:"))[:seed % 2]  # every other case: one entry
        srcs = rng.sample(sorted(g.nx), 1 + seed % 4) + entry
        r, c = check(monkeypatch, g, srcs)
        reached += r
        code += c > 0
        arrays = radius_arrays(g, reach.source_ids(g, srcs))
        if not arrays.certain.all():
            searches[kernel.kernel_of(snapshot(g)).searches] += 1
    # the cases the kernel must replay are there: large reaches, and code nodes beyond the sources (the
    # variant-1 rows and the re-search); with possible nodes, trees read off the reach (no search), and the
    # certain-only BFS run, alone or with the one over every pair
    assert reached > 3000 and code > 20
    assert searches[0] > 20 and searches[1] > 20 and searches[2] > 5, searches


def test_no_source_and_every_node_of_the_example(monkeypatch):
    g = build_graph(EXAMPLE).graph
    assert check(monkeypatch, g, []) == (0, 0)
    for node in sorted(g.nx):
        check(monkeypatch, g, node)
    runners = [n for n in sorted(g.nx) if n.startswith("runner:")]
    assert check(monkeypatch, g, runners)[0] > 10


@pytest.mark.parametrize("folder", gold.case_folders(), ids=lambda p: p.name)
def test_golden_cases(monkeypatch, folder):
    case, g = gold.case_graph(folder)
    for sources in case.sources:
        check(monkeypatch, g, sources)
    for node in sorted(g.nx)[::5]:
        check(monkeypatch, g, node)


@pytest.mark.corpus
def test_corpus_graph(monkeypatch):
    require(CORPUS_GHA.is_dir(), "the shared corpus is not beside the checkout", corpus=True)
    g = build_graph({"github-actions": [str(CORPUS_GHA)]}).graph
    runners = sorted(n for n in g.nx if n.startswith("runner:"))
    assert runners
    assert sum(check(monkeypatch, g, r)[0] for r in runners) > 100


def test_bad_source_index_leaves_the_scratch_clean():
    g = build_graph(EXAMPLE).graph
    snap = snapshot(g)
    with pytest.raises(IndexError):
        kernel.radius(snap, np.array([0, snap.n], dtype=np.int64))
    assert kernel.kernel_of(snap).is_clean()
    ok = kernel.radius(snap, np.array([snap.index["runner:acme/build-01-a"]], dtype=np.int64))
    assert ok[0].size > 10 and ok[-1] > 0 and kernel.kernel_of(snap).is_clean()


def test_kernel_is_what_blast_radius_uses():
    """With the kernel built, the default path answers from it (no scipy or numpy search runs)."""
    assert kernel.ENABLED
    g = build_graph(EXAMPLE).graph
    from graphkit.analysis import blast_radius
    before = snapshot(g).derived.get("kernel.radius")
    assert before is None
    assert len(blast_radius(g, "runner:acme/build-01-a")) > 10
    assert snapshot(g).derived.get("kernel.radius") is not None


def test_a_kernel_built_from_another_source_is_not_used(monkeypatch):
    """An editable install not rebuilt after a pull keeps an old compiled module: its interface number differs,
    so graphkit warns (with the fix) and answers through the scipy/numpy searches instead of crashing."""
    import importlib
    import sys
    import types

    stale = types.ModuleType("graphkit.analysis._radius_kernel")
    stale.API = -1  # type: ignore[attr-defined]
    import graphkit.analysis

    monkeypatch.setitem(sys.modules, "graphkit.analysis._radius_kernel", stale)
    monkeypatch.setattr(graphkit.analysis, "_radius_kernel", stale, raising=False)
    try:
        with pytest.warns(RuntimeWarning, match="built from another version of its source"):
            old = importlib.reload(kernel)
        assert not old.AVAILABLE and not old.ENABLED
        g = build_graph(EXAMPLE).graph
        from graphkit.analysis import blast_radius
        assert len(blast_radius(g, "runner:acme/build-01-a")) > 10
        assert snapshot(g).derived.get("kernel.radius") is None
    finally:
        monkeypatch.undo()
        importlib.reload(kernel)
    assert kernel.AVAILABLE == (sys.modules.get("graphkit.analysis._radius_kernel") is not None)


@pytest.mark.parametrize("name", ["_radius_kernel", "_plan_kernel"])
def test_load_extension_refuses_a_module_of_another_interface(monkeypatch, name):
    """Both compiled modules load through one check: a module whose ``API`` differs is not used (one warning),
    one whose ``API`` matches is returned as is."""
    import sys
    import types

    from graphkit.analysis.extensions import load_extension

    fake = types.ModuleType(f"graphkit.analysis.{name}")
    fake.API = 7  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, f"graphkit.analysis.{name}", fake)
    with pytest.warns(RuntimeWarning, match="built from another version of its source"):
        assert load_extension(name, 8, "kernel") is None
    assert load_extension(name, 7, "kernel") is fake
    assert load_extension("_no_such_kernel", 1, "kernel") is None


def test_variant0_rows_are_the_snapshot_rows_without_source_only_pairs():
    """kernel.split on the example's snapshot: each node's variant-0 pairs, in row order, with their explanation
    arcs; each row's start and first record side by side; a pad record last; and the kernel refuses arrays of
    other shapes."""
    snap = snapshot(build_graph(EXAMPLE).graph)
    packed, table = kernel.pack(snap)
    best = np.ascontiguousarray(snap.best, dtype=np.int64)
    node0, packed0, arc0 = kernel.split(snap.pair_ptr, packed, snap.has[0], best[0])
    assert node0.shape == (2 * snap.n + 2,) and packed0.shape == (int(snap.has[0].sum()) + 1,)
    assert packed0[-1] == 0 and node0[-2] == packed0.size - 1 and node0[-1] == 0
    source_only = 0
    for i in range(snap.n):
        rows = np.arange(snap.pair_ptr[i], snap.pair_ptr[i + 1])
        keep = rows[snap.has[0][rows]]
        source_only += rows.size - keep.size
        lo, hi = int(node0[2 * i]), int(node0[2 * i + 2])
        assert np.array_equal(packed0[lo:hi], packed[keep]) and np.array_equal(arc0[lo:hi], snap.best[0][keep])
        assert node0[2 * i + 1] == (packed[keep[0]] if keep.size else 0)
    assert source_only > 0  # the example has pairs of source_only edges alone: the rows above left them out
    weight = np.zeros(snap.n, dtype=np.int64)
    args = [snap.pair_ptr, np.append(packed, np.uint64(0)), best.ravel(), table, weight, node0, packed0, arc0,
            kernel.copy_column(snap, table)]
    from graphkit.analysis import _radius_kernel
    _radius_kernel.Kernel(*args)
    for i, bad in [(1, packed), (5, node0[:-2]), (6, packed0[:-1]), (3, np.append(table[:-1], 1e9)),
                   (8, kernel.copy_column(snap, table)[:-1])]:
        with pytest.raises(ValueError, match="inconsistent shapes"):
            _radius_kernel.Kernel(*args[:i], bad, *args[i + 1:])
    for bad_weight in (2 ** 15, -1):  # a weight is kept in 15 bits beside the copy column
        with pytest.raises(ValueError, match="weights outside"):
            _radius_kernel.Kernel(*args[:4], np.full(snap.n, bad_weight, dtype=np.int64), *args[5:])


def test_what_the_scans_read_besides_the_records():
    """The sink bit of every packed pair (its target has no pair), and what the kernel derives from the variant-0
    records for its scans (``_variant0_scan``): each record's target and sink bit in 32 bits, its variant-0
    attributes in 16, and the rows holding a pair that runs code or is uncertain flagged in their start (the reach
    reads those rows' records, the others only their targets), on the example and on an untrusted random graph
    (rows of both kinds, sinks and not)."""
    from graphkit.analysis import _radius_kernel
    for g in (build_graph(EXAMPLE).graph, untrusted_graph(7)):
        snap = snapshot(g)
        packed, _ = kernel.pack(snap)
        sink = np.diff(snap.pair_ptr) == 0
        assert np.array_equal((packed >> np.uint64(61)) & np.uint64(1), sink[snap.pair_target].astype(np.uint64))
        node0, packed0, _ = kernel.split(snap.pair_ptr, packed, snap.has[0], snap.best[0])
        flagged, target0, attr0 = _radius_kernel._variant0_scan(node0, packed0)
        keep = np.flatnonzero(snap.has[0])
        assert np.array_equal(target0[:-1] & 0x7FFFFFFF, snap.pair_target[keep])
        assert np.array_equal(target0[:-1] >> 31, sink[snap.pair_target[keep]])
        assert np.array_equal(attr0[:-1] & 1, snap.certain[0][keep])
        assert np.array_equal((attr0[:-1] >> 1) & 0xF, snap.life[0][keep])
        assert target0[-1] == attr0[-1] == 0
        slow = 0
        for i in range(snap.n):
            rows = np.arange(snap.pair_ptr[i], snap.pair_ptr[i + 1])
            rows = rows[snap.has[0][rows]]
            odd = bool((snap.runs_code[rows] | ~snap.certain[0][rows]).any())
            assert flagged[2 * i] == node0[2 * i] | (np.uint64(odd) << np.uint64(63)), i
            assert flagged[2 * i + 1] == node0[2 * i + 1]
            slow += odd
        assert flagged[-2] == node0[-2] and 0 < slow < snap.n
        assert sink.any() and not sink.all()


def test_the_trees_hold_pair_indexes_turned_into_arcs_when_a_path_is_asked_for(monkeypatch):
    """The kernel's trees hold the entering pair's index; :attr:`RadiusArrays.carc` and ``aarc`` gather the arcs
    on first use (the scipy path's arcs, :func:`check`), and :func:`kernel.arcs` refuses an index it never returns."""
    g = untrusted_graph(11)
    srcs = reach.source_ids(g, sorted(g.nx)[:3])
    ra = radius_arrays(g, srcs)
    assert ra.pairs and ra._arcs is None
    pair = ra._carc.copy()
    first = BlastRadius(srcs, arrays=ra).reached  # paths: the arcs are gathered
    assert ra._arcs is not None and len(first) > 5 and np.array_equal(ra._carc, pair)
    snap = snapshot(g)
    assert np.array_equal(ra.carc, kernel.arcs(snap, pair)) and (ra.carc >= 0).sum() == (pair >= 0).sum()
    assert first == BlastRadius(srcs, arrays=_path(monkeypatch, g, srcs, False, True)).reached
    for bad in (-2, 2 * len(snap.pair_target) + int(snap.has[0].sum())):
        with pytest.raises(IndexError, match="pair index"):
            kernel.arcs(snap, np.array([0, bad], dtype=np.int64))


def twin_graph(seed: int) -> Graph:
    """:func:`untrusted_graph` plus twins: for a few nodes with at least ``TWIN_MIN`` traversable successors, one to
    three new nodes of the same kind with the same out-edges (so the same variant-0 row, record for record), each
    entered by some of the original's in-edges and some of another node's of that kind (so twins are reached at
    other depths, widths and confidences than their original, some of them running the attacker's code)."""
    from graphkit.analysis._radius_kernel import TWIN_MIN
    rng = random.Random(seed)
    g = untrusted_graph(seed)
    nodes, edges = list(g.nodes()), list(g.edges())
    rows = [u for u in sorted(g.nx) if len({e.target for e in g.out_edges(u) if e.spec.traversable}) >= TWIN_MIN]
    made = 0
    for u in rng.sample(rows, min(len(rows), 3)):
        orig = g.node(u)
        kind = orig.spec.kind
        peers = sorted(n.id for n in g.nodes(kind))
        for _ in range(1 + rng.randrange(3)):
            made += 1
            twin = orig.model_copy(update={"id": _twin_id(kind, 900 + made)})
            nodes.append(twin)
            edges += [e.model_copy(update={"source": twin.id}) for e in g.out_edges(u)]
            other = rng.choice(peers)
            edges += [e.model_copy(update={"target": twin.id}) for src in (u, other) for e in g.in_edges(src)
                      if rng.random() < 0.6 and e.source != twin.id]
    out = Graph()
    out.update(nodes=nodes, edges=edges)
    return out


def _twin_id(kind: NodeKind, i: int) -> str:
    from test_analysis import _ID
    return _ID[kind](i) if kind in _ID else ids.untrusted("fork-pr", f"twin{i}")


def test_twin_rows_are_scanned_once_per_search(monkeypatch):
    """Nodes with the same variant-0 row (``_twin_classes``): every class holds rows equal record for record, every
    two equal rows of ``TWIN_MIN`` records or more share a class, and the kernel, which scans one row per class and
    search, still gives the scipy path's arrays (:func:`check`) while skipping rows."""
    from graphkit.analysis import _radius_kernel
    skipped = reached = 0
    for seed in range(60):
        g = twin_graph(seed)
        snap = snapshot(g)
        packed, _ = kernel.pack(snap)
        node0, packed0, _ = kernel.split(snap.pair_ptr, packed, snap.has[0], snap.best[0])
        classes, k = _radius_kernel._twin_classes(node0, packed0)
        start = node0[0::2].astype(np.int64)
        rows: dict[bytes, list[int]] = {}
        for i in range(snap.n):
            if start[i + 1] - start[i] >= _radius_kernel.TWIN_MIN:
                rows.setdefault(packed0[start[i]:start[i + 1]].tobytes(), []).append(i)
        groups = sorted(sorted(m) for m in rows.values() if len(m) > 1)
        assert k == len(groups) and (classes > 0).sum() == sum(map(len, groups))
        assert all(len({int(classes[i]) for i in m}) == 1 and classes[m[0]] > 0 for m in groups)
        rng = random.Random(seed)
        for srcs in [rng.sample(sorted(g.nx), 1 + seed % 3), sorted(n for n in g.nx if n.startswith("untrusted:"))]:
            reached += check(monkeypatch, g, srcs)[0]
            skipped += kernel.kernel_of(snap).twins_skipped
    assert reached > 1000 and skipped > 50, (reached, skipped)


def test_a_twin_skipped_from_a_certain_path_still_makes_its_targets_certain(monkeypatch):
    """Two OIDC identities trusted by the same roles (twin rows): the first one scanned is entered over a possible
    job, so the roles it reaches first have an uncertain tree path; the second, entered over certain arcs only, is
    not scanned again, yet the roles are certain through it (the skipped row's certain pairs into such nodes make
    the kernel run the certain-only search, as a scan would)."""
    from test_analysis import C, P, build, edge, job, oidc, role, runner
    K_ = EdgeKind
    jobs = [ids.job("acme/app", "ci.yml", j) for j in ("a", "b")]
    idents = [ids.oidc_identity(j) for j in jobs]
    roles = [ids.cloud_role("aws", f"arn:aws:iam::123456789012:role/r{i}") for i in range(5)]
    r = ids.runner("acme", "r1")
    g = build([runner(r)] + [job(j) for j in jobs] + [oidc(o) for o in idents] + [role(x) for x in roles],
              [edge(K_.RECEIVES_JOB, r, jobs[0], confidence=P), edge(K_.RECEIVES_JOB, r, jobs[1], confidence=C)]
              + [edge(K_.MINTS_OIDC, j, o) for j, o in zip(jobs, idents)]
              + [edge(K_.ASSUMES_ROLE, o, x) for o in idents for x in roles])
    check(monkeypatch, g, r)
    k = kernel.kernel_of(snapshot(g))
    # the second identity's row in the reach (the widths and the certain-only search stop once every node is in)
    assert k.twins_skipped == 1 and k.searches == 1
    br = radius_arrays(g, (r,))
    assert int(br.certain.sum()) == br.order.size - 2  # all but the source and the possible job
