"""The compiled plan passes (graphkit/analysis/_plan_kernel.pyx, through graphkit/analysis/plan/compiled.py) against
the numpy and rustworkx ones of graphkit/analysis/plan/fast.py: the same dominator trees (immediate dominators,
subtree weights, children lists), reached sets, minted subjects and kept-tree cuts on random states of random graphs, of the
bundled example, of the golden cases and of the corpus graph; the same plans with and without the kernel.  Under
``GRAPHKIT_CI=1`` a kernel that did not build fails here instead of silently falling back."""

from __future__ import annotations

import random

import numpy as np
import pytest

import regen_goldens as gold
from conftest import require
from graphkit.analysis import reach
from graphkit.analysis.plan import compiled, domtree, fast
from graphkit.analysis.plan.candidates import candidates, incident
from graphkit.build import build_graph
from graphkit.graph import Graph

from graphkit.model import Criticality, Lifetime, RevocationAction, ids
from test_analysis import K, build, cache, cred, edge, host, job, random_graph, random_incident, runner
from test_radius_arrays import CORPUS_GHA, EXAMPLE

_TREE = ("idom", "subw", "kids_ptr", "kids", "gone", "links")


def _copy(tree: fast._Tree) -> fast._Tree:
    return fast._Tree(*(None if getattr(tree, f) is None else getattr(tree, f).copy() for f in _TREE))


@pytest.fixture(autouse=True)
def _built():
    require(compiled.AVAILABLE, "graphkit.analysis._plan_kernel is not built (pip install -e . with a C compiler, "
            "or cythonize -i graphkit/analysis/_plan_kernel.pyx)")


def _setup(g: Graph, sources):
    inc = incident(g, reach.source_ids(g, sources))
    cands = candidates(inc)
    s = fast._static(inc, cands)
    assert s.k is not None
    return inc, cands, s


def _state(s, cands, rng: random.Random, cut_arcs: float, kill: float) -> fast._State:
    """A random residual: some arcs removed, some nodes invalidated, the reached set recomputed (numpy)."""
    alive = np.array([rng.random() >= cut_arcs for _ in range(s.src.size)], dtype=bool)
    dead = np.array([rng.random() < kill for _ in range(s.n)], dtype=bool)
    k, s.k = s.k, None
    reached = fast._reach(s, alive, dead)
    s.k = k
    return fast._State(alive, dead, reached, int(s.weight[reached].sum()), np.zeros(len(cands.ranked), dtype=bool))


def _same_tree(a: fast._Tree, b: fast._Tree) -> None:
    for name in _TREE[:-1]:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name


def _children(tree: fast._Tree) -> dict[int, set[int]]:
    """The live nodes' children, read from the compiled tree's linked lists (nodes gone left out)."""
    out = {}
    for v in np.flatnonzero(~tree.gone).tolist():
        kids, x = set(), int(tree.links[0, v])
        while x >= 0:
            assert x not in kids and tree.idom[x] == v  # no cycle; each child's parent is v
            if not tree.gone[x]:
                kids.add(x)
            x = int(tree.links[1, x])
        out[v] = kids
    return out


def _orphans(s, st: fast._State, tree: fast._Tree) -> np.ndarray:
    """The candidates' virtual nodes still in ``tree`` with no arc left in ``st`` (wipe group nodes have none:
    the root's arcs into their seeds pass them)."""
    a = s.via_arc
    live = fast._dg(s, st.alive[a], st.reached, st.dead, s.src[a], s.tgt[a])
    orphan = np.ones(s.root + 1, dtype=bool)
    orphan[:s.n] = orphan[s.n + 2 * s.prices.subject.size:] = False
    orphan[s.via[a[live]]] = False
    return orphan & ~tree.gone & (tree.idom >= 0)


def _repaired(s, st: fast._State, c, tree: fast._Tree, cut: np.ndarray, kernel) -> None:
    """A tree the kernel repaired is the tree a new dominator pass builds after ``c`` (``fast._verify``), and its
    children lists are its parents'."""
    after = fast._State(st.alive.copy(), st.dead.copy(), st.reached.copy(), st.residual, st.applied, tree)
    after.alive[s.prices.arcs[s.prices.pos[(c.action, c.subject)]]] = False
    if c.invalidates:
        after.dead[[c.subject, *c.wipes]] = True  # a wipe group's seeds go with it
    after.reached[cut] = False
    # a virtual node outside the cut whose arcs all entered the subject it invalidates stays a leaf of weight 0
    # (no reduction reads it; a new tree leaves it out, fast._verify allows it): no live node's parent.  The gone
    # subject keeps it as its last parent (every cut node keeps its idom; only ~gone nodes are the tree)
    orphan = _orphans(s, after, tree)
    assert not tree.subw[orphan].any()
    assert not np.isin(tree.idom[~tree.gone], np.flatnonzero(orphan)).any()
    s.k = None
    fast._verify(s, after)
    s.k = kernel
    kids = _children(tree)
    live = ~tree.gone & (tree.idom >= 0) & ~s.seedy
    for v in np.flatnonzero(live).tolist():
        assert v in kids[int(tree.idom[v])]


def check(g: Graph, sources, seed: int = 0, states: int = 4) -> tuple[int, int]:
    """Kernel == numpy/rustworkx on the start state and ``states`` random ones: reach, tree, then every
    non-wiping candidate's cut on a copy of the tree (where numpy refuses, the kernel may repair the tree: it is
    then the tree of the graph after the cut); the numbers of cuts that kept the tree and that repaired it."""
    inc, cands, s = _setup(g, sources)
    rng = random.Random(seed)
    kept = repaired = 0
    for i in range(states + 1):
        st = _state(s, cands, rng, 0.0 if i == 0 else rng.choice([0.1, 0.3]), 0.0 if i == 0 else 0.1)
        k = s.k
        assert np.array_equal(k.reach(st.alive.view(np.uint8), st.dead.view(np.uint8)), st.reached)
        closed = fast._closed(s, st, list(range(s.n)))
        s.k = None
        assert closed == fast._closed(s, st, list(range(s.n)))
        s.k = k
        tree = fast._tree(s, st)
        _same_tree(tree, domtree._tree_rx(s, st))
        for c in cands.ranked:
            if fast._trial(c, s, st):  # no single subtree: priced by a trial reachability, never cut in place
                continue
            st.tree = _copy(tree)
            by_kernel = fast._cut_in_place(c, s, st)
            kt, st.tree, s.k = st.tree, _copy(tree), None
            by_numpy = fast._cut_in_place(c, s, st)
            s.k = k
            if by_numpy is not None:
                assert by_kernel is not None and not by_kernel[1].size and not by_numpy[1].size
                assert np.array_equal(np.sort(by_kernel[0]), np.sort(by_numpy[0]))
                _same_tree(kt, st.tree)
                _children(kt)
                kept += 1
            elif by_kernel is not None:
                assert by_kernel[1].size  # dominators changed: the kernel repaired the tree
                _repaired(s, st, c, kt, by_kernel[0], k)
                repaired += 1
            else:
                _same_tree(kt, tree)  # a refused cut leaves the tree as it was
                assert np.array_equal(kt.links, tree.links)
    return kept, repaired


@pytest.mark.parametrize("seed", range(60))
def test_random_graphs(seed):
    g, sources = random_incident(seed, random.Random(seed))
    check(g, sources, seed)


def orphan_graph(repair: bool = True) -> tuple[Graph, list[str]]:
    """Runner ``r59`` is reached only over ``authenticates_runner`` from the held ``cred30``: the arc is
    ``reset_runner_token``'s (at the credential), so ``remove_runner_registration`` on ``r59`` has no arc into it and
    invalidating ``r59`` leaves ``cred30``'s virtual node with no arc.  ``repair``: also the 7 more edges of random
    graph 19 (``random_incident(19)`` when its lifetime draw held ``Lifetime.CHAINED_SESSION``) that make
    ``r59``'s cut change the dominators of ``j79`` (reached over ``h74``'s cache and over ``r19``'s credential)."""
    r19, r59, h74, j79, ca = (ids.runner("acme", "r19"), ids.runner("acme", "r59"), ids.host("h74"),
                              ids.job("acme/app", "ci.yml", "j79"), ids.cache_actions("acme/app69"))
    c30, c50, c75 = (ids.credential("build-1", f"/cred{i}") for i in (30, 50, 75))
    nodes = [cred(c30, lifetime=Lifetime.UNTIL_RUNNER_REMOVED), runner(r59, criticality=Criticality.CRITICAL)]
    arcs = [(K.AUTHENTICATES_RUNNER, c30, r59, Lifetime.PER_JOB)]
    if repair:
        nodes += [host(h74), cache(ca), job(j79, criticality=Criticality.MEDIUM),
                  cred(c50, criticality=Criticality.CRITICAL), runner(r19, in_inventory=True),
                  cred(c75, criticality=Criticality.HIGH, lifetime=Lifetime.UNTIL_RUNNER_REMOVED)]
        arcs += [(K.RUNS_ON_HOST, r59, h74, None), (K.SHARES_CACHE, h74, ca, None),
                 (K.RESTORES_INTO, ca, j79, None), (K.STORES_CREDENTIAL, h74, c50, None),
                 (K.AUTHENTICATES_RUNNER, c50, r19, None), (K.STORES_CREDENTIAL, r19, c75, None),
                 (K.CAN_REGISTER_RUNNER, c75, j79, None)]
    edges = [edge(k, u, v, **({"lifetime": lt} if lt else {})) for k, u, v, lt in arcs]
    return build(nodes, edges), [c30]


@pytest.mark.parametrize("repair", [False, True], ids=["kept", "repaired"])
def test_an_invalidated_subject_entered_only_through_another_candidates_arcs(repair):
    """Cutting ``r59`` (``orphan_graph``) leaves ``cred30``'s virtual node in the tree with no arc, a leaf of weight
    0 that the gone ``r59`` keeps as its parent: the kept tree (numpy and kernel alike) and the repaired one are the
    trees of the graph after the cut up to that leaf (``fast._verify``).  Regression: ``_repaired`` read the gone
    subject's parent as a live child of the leaf, and ``fast._verify`` took the leaf for a wrong tree."""
    g, sources = orphan_graph(repair)
    inc, cands, s = _setup(g, sources)
    r59 = inc.sub.nodes.index(g.nx.nodes[ids.runner("acme", "r59")]["node"])
    c = next(c for c in cands.ranked if c.subject == r59 and c.action is RevocationAction.REMOVE_RUNNER_REGISTRATION)
    assert c.invalidates and not s.prices.arcs[s.prices.find(c.action, c.subject)].size
    st = _state(s, cands, random.Random(0), 0.0, 0.0)
    tree = fast._tree(s, st)
    parent = int(tree.idom[r59])
    assert parent >= s.n and parent not in (c.via_in, s.root)  # another candidate's virtual node
    k = s.k
    for kernel in (k, None):
        s.k, st.tree = kernel, _copy(tree)
        found = fast._cut_in_place(c, s, st)
        if kernel is None and repair:
            assert found is None  # numpy refuses: a new tree
            continue
        assert found is not None and bool(found[1].size) == (repair and kernel is not None)
        after = fast._State(st.alive.copy(), st.dead.copy(), st.reached.copy(), 0, st.applied, st.tree)
        after.dead[r59] = True
        after.reached[found[0]] = False
        assert np.flatnonzero(_orphans(s, after, st.tree)).tolist() == [parent]
        assert st.tree.gone[r59] and st.tree.idom[r59] == parent and st.tree.subw[parent] == 0
        fast._verify(s, after)
    s.k = k
    assert check(g, sources, states=0) == (3, 5 if repair else 0)  # (kept, repaired) over every candidate


@pytest.mark.parametrize("cap", ["repair", "refuse"])
def test_random_graphs_exercise_every_outcome_of_a_cut(cap, monkeypatch):
    """With no bound on what a repair recomputes, every cut keeps or repairs the tree; with none allowed, every
    cut that may change dominators is refused."""
    monkeypatch.setattr(fast, "REPAIR", 1 << 40)
    monkeypatch.setattr(fast, "REPAIR_MIN", 1 << 40 if cap == "repair" else 0)
    kept = repaired = refused = 0
    for seed in range(20):
        g = random_graph(seed, n=60, m=180)
        inc, cands, s = _setup(g, sorted(g.nx)[:2])
        st = _state(s, cands, random.Random(seed), 0.0, 0.0)
        st.tree = fast._tree(s, st)
        for c in cands.ranked:
            if not fast._trial(c, s, st):
                tree = st.tree
                st.tree = _copy(tree)
                cut = fast._cut_in_place(c, s, st)
                if cut is None:
                    refused += 1
                else:
                    kept, repaired = kept + (not cut[1].size), repaired + bool(cut[1].size)
                    if cut[1].size:
                        _repaired(s, st, c, st.tree, cut[0], s.k)
                st.tree = tree
    assert kept > 50
    assert (repaired > 50 and refused == 0) if cap == "repair" else (repaired == 0 and refused > 50)


def _group_prices(g: Graph, sources, seed: int) -> int:
    """On the start state and random ones, every wiping candidate with a wipe group is worth the subtree of its
    group node, in the kernel's tree and in rustworkx's: what the reference's trial reachability removes (its
    subject and what it wipes invalidated, its arcs removed).  The number of such candidates."""
    inc, cands, s = _setup(g, sources)
    rng, k, grouped = random.Random(seed), s.k, np.flatnonzero(s.prices.zroot >= 0).tolist()
    for i in range(3):
        st = _state(s, cands, rng, 0.0 if i == 0 else 0.2, 0.0 if i == 0 else 0.1)
        trees = [fast._tree(s, st), domtree._tree_rx(s, st)]
        for pos in grouped:
            c = cands.ranked[pos]
            alive, dead = st.alive.copy(), st.dead.copy()
            alive[c.arcs] = False
            dead[[c.subject, *c.wipes]] = True
            s.k = None
            trial = st.residual - int(s.weight[fast._reach(s, alive, dead)].sum())
            s.k = k
            assert [int(tree.subw[s.prices.zroot[pos]]) for tree in trees] == [trial, trial]
    return len(grouped)


def test_a_wipe_group_prices_its_candidate_as_a_trial_reachability():
    """``prices.wipe_groups``: a candidate that invalidates several seeds at once (reimaging a host with its caches,
    removing a runner with its registration credential) is one subtree of the dominator tree, so the plan's
    compiled loop takes it like any other (at 10^6 edges: 1,384 such steps without a trial reachability each)."""
    found = sum(_group_prices(*random_incident(seed, random.Random(seed)), seed) for seed in range(60))
    assert found > 30


@pytest.fixture(scope="module")
def acme() -> Graph:
    return build_graph(EXAMPLE).graph


def test_example_from_every_node(acme):
    done = [check(acme, x, i, states=2) for i, x in enumerate(sorted(acme.nx))]
    assert sum(k for k, _ in done) > 100 and sum(r for _, r in done) > 10
    assert sum(_group_prices(acme, x, i) for i, x in enumerate(sorted(acme.nx))) > 10


@pytest.mark.parametrize("folder", gold.case_folders(), ids=lambda p: p.name)
def test_golden_cases(folder):
    case, g = gold.case_graph(folder)
    for sources in case.sources:
        check(g, sources, states=2)


@pytest.mark.corpus
def test_corpus_graph():
    require(CORPUS_GHA.is_dir(), "the shared corpus is not beside the checkout", corpus=True)
    g = build_graph({"github-actions": [str(CORPUS_GHA)]}).graph
    runners = sorted(n for n in g.nx if n.startswith("runner:"))
    assert runners
    for i, r in enumerate(runners[:40]):
        check(g, r, i, states=1)


def _plans(monkeypatch, g: Graph, sources, use_kernel: bool):
    with monkeypatch.context() as m:
        m.setattr(compiled, "ENABLED", use_kernel)
        from graphkit.analysis import revocation_plan
        return revocation_plan(g, sources)


def test_example_plans_identical_with_and_without_the_kernel(monkeypatch, acme):
    long = 0
    for node in sorted(acme.nx):
        with_k, without = _plans(monkeypatch, acme, node, True), _plans(monkeypatch, acme, node, False)
        assert with_k == without, node
        long += len(with_k.steps) > 3
    assert long > 5


def test_kernel_is_what_the_plan_uses(acme):
    inc, cands, s = _setup(acme, "runner:acme/build-01-a")
    assert compiled.ENABLED and type(s.k).__module__ == "graphkit.analysis._plan_kernel"


def test_bad_pointers_are_refused():
    z = np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError, match="CSR pointers"):
        compiled.plan_kernel(z, z, z, np.zeros(5, np.int64), np.zeros(5, np.int64), z, np.zeros(1, np.int64), z, z,
                             np.zeros(3, np.int64), np.zeros(3, bool), np.zeros(4, bool), np.full(3, -1, np.int64),
                             np.full(4, -1, np.int64), 3, 3)


def test_gc_pause_leaves_no_collection_pending():
    """What a pause allocated and still holds does not start a collection on the next allocations (it walked
    everything the pause allocated, and, now and then, the whole heap: ``reach.gc_paused``)."""
    import gc

    assert gc.isenabled() and gc.get_threshold()[0] > 50 and not gc.get_freeze_count()
    started = []

    def seen(phase, info):
        started.append(phase)

    gc.callbacks.append(seen)
    try:
        with reach.gc_paused():
            assert not gc.isenabled()
            held = [[i] for i in range(20_000)]
        assert gc.isenabled() and gc.get_count()[0] < 50
        more = [[i] for i in range(20)]
        assert not started and len(held) + len(more) == 20_020
    finally:
        gc.callbacks.remove(seen)
    gc.disable()
    with reach.gc_paused():
        pass
    assert not gc.isenabled()  # the previous state is restored
    gc.enable()


def test_gc_pause_keeps_what_the_caller_froze():
    import gc

    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with reach.gc_paused():
            held = [[i] for i in range(1000)]
        # unfreezing would have emptied the permanent generation (objects frozen may die meanwhile: not ==)
        assert frozen > 1000 and gc.get_freeze_count() > frozen // 2 and len(held) == 1000
    finally:
        gc.unfreeze()
