"""The traversal snapshot (graphkit/analysis/snapshot.py) against the reference traversal over networkx dicts:
identical subgraphs, BFS trees and blast radii on random graphs, on the bundled example and from untrusted entry
points; the snapshot follows every change of the graph."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from graphkit.analysis import blast_radius, choke_points, revocation_plan, reach, snapshot as snap_mod
from graphkit.analysis.radius import blast_radius_reference
from test_radius_arrays import check as check_radius
from graphkit.build import build_graph
from graphkit.graph import Graph
from graphkit.model import Confidence, Edge, EdgeKind, Evidence, Lifetime
from graphkit.resolve.untrusted import expand_sources
from graphkit import whatif

from test_analysis import random_graph

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = {"github-actions": [str(ROOT / "examples/acme/repos")], "runners": [str(ROOT / "examples/acme/inventory.yaml")],
           "aws-iam": [str(ROOT / "examples/acme/aws-iam.json")]}


def _pairs(sub: reach.Subgraph) -> list:
    return [[(p.target, p.edge.identity, p.certain, p.seconds, p.lifetime, [e.identity for e in p.edges])
             for p in row] for row in sub.adj]


def _reference(monkeypatch, fn, *args, **kw):
    """``fn`` with the snapshot disabled: the Python traversal over networkx dicts."""
    with monkeypatch.context() as m:
        m.setattr(snap_mod, "collect_fast", lambda graph, srcs: None)
        return fn(*args, **kw)


def _same_everything(monkeypatch, g: Graph, sources) -> None:
    srcs = reach.source_ids(g, sources)
    fast = reach.collect(g, srcs)
    ref = reach.collect_reference(g, srcs)
    assert fast.fast is not None and ref.fast is None
    assert (fast.ids, fast.n_src, _pairs(fast)) == (ref.ids, ref.n_src, _pairs(ref))
    for certain_only in (True, False):
        assert reach.bfs_tree(fast, certain_only=certain_only) == reach.bfs_tree_reference(
            fast, certain_only=certain_only)
    _reference(monkeypatch, check_radius, g, srcs)  # labels may differ on ties (test_radius_arrays.py)
    assert choke_points(g, srcs) == _reference(monkeypatch, choke_points, g, srcs)
    assert revocation_plan(g, srcs) == _reference(monkeypatch, revocation_plan, g, srcs)


@pytest.mark.parametrize("seed", range(60))
def test_random_graphs_give_identical_results(monkeypatch, seed):
    g = random_graph(seed, n=40, m=110)
    rng = random.Random(seed)
    _same_everything(monkeypatch, g, rng.sample(sorted(g.nx), 3))


@pytest.fixture(scope="module")
def acme() -> Graph:
    return build_graph(EXAMPLE).graph


def _same_up_to_ties(fast, ref) -> bool:
    """Equal results, but for a label decided by a tie between widest paths whose lifetimes last equally long
    (``until_revoked`` and ``until_runner_removed``: both unbounded; ``radius_arrays.widths`` documents it)."""
    if fast == ref:
        return True
    assert (fast.ids, fast.weight, fast.sources) == (ref.ids, ref.weight, ref.sources)
    for x, y in zip(fast.reached, ref.reached, strict=True):
        assert reach.SECONDS[x.lifetime] == reach.SECONDS[y.lifetime], x.id
        dx, dy = x.to_dict(), y.to_dict()
        assert {k: v for k, v in dx.items() if k not in ("lifetime", "path_lifetime")} == \
            {k: v for k, v in dy.items() if k not in ("lifetime", "path_lifetime")}, x.id
    return True


def test_example_every_node_and_untrusted_entries_give_identical_results(monkeypatch, acme):
    for node in sorted(acme.nx):
        srcs = reach.source_ids(acme, node)
        assert _same_up_to_ties(blast_radius(acme, srcs), _reference(monkeypatch, blast_radius_reference, acme, srcs))
    entries = [e for e in expand_sources(acme, ["untrusted:fork-pr", "untrusted:comment", "untrusted:org-member"],
                                         "acme") if e in acme]
    assert entries  # acme/docs is public: a fork pull request runs its code (README, "Where an attacker comes in")
    _same_everything(monkeypatch, acme, entries)
    _same_everything(monkeypatch, acme, ["runner:acme/build-01-a"])


def test_snapshot_is_cached_and_follows_every_change(acme):
    g = whatif.remove_edges(acme, [])  # a copy
    first = snap_mod.snapshot(g)
    assert snap_mod.snapshot(g) is first  # built once per version
    before = blast_radius(g, "runner:acme/build-01-a")
    # a method of the model: networkx clears its cache
    e = next(e for e in g.edges(EdgeKind.READS_SECRET) if e.source in {r.id for r in before.reached})
    g.nx.remove_edge(e.source, e.target, e.nx_key)
    assert snap_mod.snapshot(g) is not first
    # an attribute replaced in place (whatif), then Graph.changed()
    second = snap_mod.snapshot(g)
    g.nx.add_edge(e.source, e.target, key=e.nx_key, kind=e.kind.value, traversable=True,
                  edge=e.model_copy(update={"confidence": Confidence.POSSIBLE, "lifetime": Lifetime.PER_JOB}))
    third = snap_mod.snapshot(g)
    assert third is not second
    assert blast_radius(g, "runner:acme/build-01-a") == _reference_plain(g, "runner:acme/build-01-a")
    g.nx.edges[e.source, e.target, e.nx_key]["edge"] = e
    g.changed()
    assert snap_mod.snapshot(g) is not third
    assert blast_radius(g, "runner:acme/build-01-a") == before


def test_whatif_results_follow_the_change(acme):
    after = whatif.make_ephemeral(acme, "runner:acme/build-01-a")
    assert blast_radius(after, "runner:acme/build-01-a") == _reference_plain(after, "runner:acme/build-01-a")


def _reference_plain(g: Graph, source: str):
    fresh = Graph()
    fresh.nx = g.nx.copy()
    return blast_radius(fresh, source)


def test_queries_hand_their_work_arrays_back_clean(acme):
    snap = snap_mod.snapshot(acme)
    for node in sorted(acme.nx)[:40]:
        blast_radius(acme, node)
    assert {name for name, _ in snap.scratch} <= {"pos", "code", "local", "cbfs.visit", "cbfs.pred", "plan_pos",
                                                  "plan_cpos"}
    assert {"code", "local"} <= {name for name, _ in snap.scratch}
    for (name, fill), a in snap.scratch.items():
        assert a.shape[0] in (snap.n, snap.n + 1), name
        if fill is not None:  # cbfs.visit: written before it is read
            assert (a == fill).all(), name
