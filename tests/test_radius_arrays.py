"""The blast radius on arrays (graphkit/analysis/radius_arrays.py) against its reference
(``blast_radius_reference``: collect, two BFS trees, explanation paths, the max-min Dijkstra): same reached ids,
order, confidence, paths (as hop tuples), weight and widths on random graphs, on the bundled example from every
node, on the golden cases and on the real corpus graph; every lifetime label is the label of some widest path,
and equal to the reference's where the examples and goldens pin it.  Also: the result built lazily answers like
the one built at once, and ``blast_radii`` answers like ``blast_radius``."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

import regen_goldens as gold
from graphkit.analysis import blast_radii, blast_radius, reach, snapshot as snap_mod
from graphkit.analysis.radius import blast_radius_reference
from graphkit.analysis.radius_arrays import radius_arrays
from graphkit.analysis.results import BlastRadius
from graphkit.build import build_graph
from graphkit.errors import UnknownNodeError
from graphkit.graph import Graph
from graphkit.model import Lifetime

from test_analysis import random_graph

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = {"github-actions": [str(ROOT / "examples/acme/repos")], "runners": [str(ROOT / "examples/acme/inventory.yaml")],
           "aws-iam": [str(ROOT / "examples/acme/aws-iam.json")]}
CORPUS_GHA = ROOT.parent / "shared" / "corpus" / "github-actions"


def _valid_labels(sub: reach.Subgraph, width: list[float]) -> list[set[Lifetime]]:
    """Per node index: the labels of every widest path (the lifetime of the last pair attaining the bottleneck):
    a pair ``u -> v`` with ``min(seconds, width[u]) == width[v]`` gives its own lifetime when ``seconds <=
    width[u]``, else every label of ``u``; a copy (:func:`graphkit.analysis.reach.copies`) whose own lifetime
    attains its width has that label alone (it starts a path of its own).  A fixpoint over the reference
    subgraph."""
    labels: list[set[Lifetime]] = [set() for _ in sub.ids]
    own = {v: life for v, life in reach.copies(sub) if reach.SECONDS[life] == width[v]}
    for v, life in own.items():
        labels[v].add(life)
    changed = True
    while changed:
        changed = False
        for u, row in enumerate(sub.adj):
            for p in row:
                v = p.target
                if v < sub.n_src or v in own or min(p.seconds, width[u]) != width[v]:
                    continue
                new = {p.lifetime} if p.seconds <= width[u] else labels[u]
                if not new <= labels[v]:
                    labels[v] |= new
                    changed = True
    return labels


def _strip(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in ("lifetime", "path_lifetime")}


def check(g: Graph, sources, *, same_labels: bool = False) -> int:
    """Fast == reference for ``sources`` (widths equal, labels valid); returns how many labels differ."""
    srcs = reach.source_ids(g, sources)
    arrays = radius_arrays(g, srcs)
    fast = blast_radius(g, srcs)
    ref = blast_radius_reference(g, srcs)
    assert (arrays is None) == (fast._arrays is None)
    # answered from the arrays, before any Reached is built
    assert (len(fast), fast.weight, fast.ids, fast.node_ids()) == (len(ref), ref.weight, ref.ids, ref.node_ids())
    assert fast.sources == ref.sources == srcs
    if arrays is None:  # the snapshot's reach gave up: the reference answered
        assert fast == ref
        return 0
    assert fast._reached is None
    sub = reach.collect_reference(g, srcs)
    ref_width, _ = reach.widest_widths(sub)
    valid = _valid_labels(sub, ref_width)
    fast_width = {arrays.snap.ids[i]: w for i, w in zip(arrays.order.tolist(), arrays.width.tolist())}
    diffs = ties = 0
    for x, y in zip(fast.reached, ref.reached, strict=True):
        assert (x.id, x.kind, x.name, x.criticality, x.confidence, x.path) == \
            (y.id, y.kind, y.name, y.criticality, y.confidence, y.path), x.id
        i = sub.index[x.id]
        assert fast_width[x.id] == ref_width[i] or (math.isinf(ref_width[i]) and math.isinf(fast_width[x.id]))
        assert x.lifetime in valid[i], (x.id, x.lifetime, valid[i])
        assert y.lifetime in valid[i]
        assert _strip(x.to_dict()) == _strip(y.to_dict())
        # a tie between widest paths whose labels last equally long (until_revoked and until_runner_removed: both
        # unbounded) may go either way (radius_arrays.widths, documented); any other difference counts
        tie = x.lifetime is not y.lifetime and reach.SECONDS[x.lifetime] == reach.SECONDS[y.lifetime]
        diffs += x.lifetime is not y.lifetime and not tie
        ties += tie
    if same_labels:
        assert not diffs
    if not diffs and not ties:
        assert fast == ref
        assert fast.to_dict() == ref.to_dict()
    return diffs


@pytest.mark.parametrize("seed", range(150))
def test_random_graphs_match_the_reference(seed):
    g = random_graph(seed, n=40, m=110)
    rng = random.Random(seed)
    check(g, rng.sample(sorted(g.nx), 3))
    check(g, rng.sample(sorted(g.nx), 1))


def test_random_graphs_mostly_pick_the_reference_label():
    """Ties between widest paths with different labels are rare: the label is the reference's in >= 99%."""
    diffs = total = 0
    for seed in range(150, 250):
        g = random_graph(seed, n=60, m=180)
        srcs = random.Random(seed).sample(sorted(g.nx), 2)
        diffs += check(g, srcs)
        total += len(blast_radius(g, srcs))
    assert total > 1000 and diffs <= total // 100


@pytest.fixture(scope="module")
def acme() -> Graph:
    return build_graph(EXAMPLE).graph


def test_example_from_every_node_matches_the_reference_exactly(acme):
    for node in sorted(acme.nx):
        check(acme, node, same_labels=True)
    check(acme, [n for n in sorted(acme.nx) if n.startswith("runner:")], same_labels=True)


def test_one_source_shortcut_resolves_like_source_ids(acme):
    """blast_radius answers one id of a kind that stands for itself without source_ids' expansion and sort: on
    every node of the example (repositories and workflows expand to their jobs) both give the same sources."""
    from graphkit.analysis.radius import _source_ids

    expanded = 0
    for node in sorted(acme.nx):
        assert _source_ids(acme, node) == reach.source_ids(acme, node), node
        expanded += reach.source_ids(acme, node) != (node,)
    assert expanded > 0  # some repository or workflow stood for its jobs
    with pytest.raises(UnknownNodeError):
        _source_ids(acme, "runner:no-such-runner")


@pytest.mark.parametrize("folder", gold.case_folders(), ids=lambda p: p.name)
def test_golden_cases_match_the_reference_exactly(folder):
    case, g = gold.case_graph(folder)
    for sources in case.sources:
        check(g, sources, same_labels=True)
    for node in sorted(g.nx)[::7]:
        check(g, node)


def test_corpus_graph_matches_the_reference():
    if not CORPUS_GHA.is_dir():
        pytest.skip("corpus not present")
    g = build_graph({"github-actions": [str(CORPUS_GHA)]}).graph
    runners = sorted(n for n in g.nx if n.startswith("runner:"))
    assert runners
    diffs = sum(check(g, r) for r in runners)
    assert diffs <= sum(len(blast_radius(g, r)) for r in runners) // 100


def test_lazy_answers_equal_the_materialized_ones(acme):
    source = "runner:acme/build-01-a"
    lazy, full = blast_radius(acme, source), blast_radius(acme, source)
    assert full.reached  # built
    assert len(lazy) > 10
    for r in full.reached:
        assert r.id in lazy and lazy[r.id] == r
    assert lazy._reached is None  # one Reached at a time did not build them all
    assert source not in lazy and "nope" not in lazy and 3 not in lazy
    with pytest.raises(UnknownNodeError):
        lazy[source]
    assert lazy == full and hash(lazy) == hash(full)
    assert lazy.reached is lazy.reached  # built once
    with pytest.raises(AttributeError):
        lazy.weight = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        BlastRadius(("a",))


def test_blast_radii_answer_like_blast_radius_and_give_the_scratch_back(acme):
    runners = [n.id for n in acme.nodes() if n.id.startswith("runner:")]
    seen = []
    for radius in blast_radii(acme, progress=lambda done, total: seen.append((done, total))):
        assert radius == blast_radius(acme, radius.sources)
    assert seen == [(i, len(runners)) for i in range(1, len(runners) + 1)]
    snap = snap_mod.snapshot(acme)
    for (name, fill), a in snap.scratch.items():
        assert a.shape[0] in (snap.n, snap.n + 1), name
        if fill is not None:
            assert (a == fill).all(), name


def _numpy_and_c(monkeypatch, g: Graph, sources) -> None:
    """The numpy searches and scipy's C searches give the same result, labels included."""
    from graphkit.analysis import cbfs, kernel
    srcs = reach.source_ids(g, sources)
    with monkeypatch.context() as m:
        m.setattr(kernel, "ENABLED", False)
        c = radius_arrays(g, srcs)  # scipy's C searches (the compiled kernel: tests/test_kernel.py)
        m.setattr(cbfs, "ENABLED", False)
        py = radius_arrays(g, srcs)
    if py is None:  # reach_order gave up (blast_radius then runs the reference)
        return
    assert c is not None
    assert BlastRadius(srcs, arrays=c) == BlastRadius(srcs, arrays=py)
    wc = dict(zip(c.order.tolist(), c.width.tolist()))
    assert wc == dict(zip(py.order.tolist(), py.width.tolist()))
    assert c.order[:len(srcs)].tolist() == py.order[:len(srcs)].tolist()


@pytest.mark.skipif(not __import__("graphkit.analysis.cbfs", fromlist=["ENABLED"]).ENABLED, reason="no scipy")
def test_numpy_and_c_searches_agree(monkeypatch, acme):
    for seed in range(120):
        g = random_graph(seed, n=50, m=150)
        _numpy_and_c(monkeypatch, g, random.Random(seed).sample(sorted(g.nx), 1 + seed % 3))
    for node in sorted(acme.nx):
        _numpy_and_c(monkeypatch, acme, node)


@pytest.mark.parametrize("items", [[], [{"a": 1}], [{"a": [1, {"b": "x\u202ey\n"}]}, {}, [], "s", 3]])
def test_json_stream_writes_one_document_one_item_per_line(items):
    import io
    import json

    from graphkit.cli_common import write_json_stream
    buf = io.StringIO()
    write_json_stream(buf, "graphkit.x/v1", "runners", iter(items))
    text = buf.getvalue()
    assert json.loads(text) == {"schema": "graphkit.x/v1", "runners": items}
    lines = text.splitlines()
    assert len(lines) == len(items) + 2 and text.isascii()
    assert [json.loads(line.rstrip(",")) for line in lines[1:-1]] == items


def test_head_and_tally_answer_from_the_arrays(acme):
    source = "runner:acme/build-01-a"
    lazy, full = blast_radius(acme, source), blast_radius(acme, source)
    by_kind, by_crit, possible = lazy.tally()
    assert lazy.head(3) == full.reached[:3] and lazy.head(0) == () and lazy.head(None) == full.reached
    assert lazy.head(3) == full.head(3)
    assert possible == sum(1 for r in full.reached if r.confidence.value == "possible") > 0
    assert (by_kind, by_crit, possible) == full.tally()  # full: counted over its Reached objects
    assert sum(by_kind.values()) == sum(by_crit.values()) == len(full)
    assert set(by_crit) <= {"critical", "high", "medium", "low", "none"} and by_crit.get("critical", 0) > 0


def test_no_source_reaches_nothing(monkeypatch, acme):
    from graphkit.analysis import cbfs, kernel
    for enabled in (True, False):
        monkeypatch.setattr(kernel, "ENABLED", enabled and kernel.ENABLED)
        monkeypatch.setattr(cbfs, "ENABLED", enabled and cbfs.ENABLED)
        r = blast_radius(acme, [])
        assert (len(r), r.weight, r.reached, r.tally(), "runner:acme/build-01-a" in r) == (0, 0, (), ({}, {}, 0), False)
        assert r.to_dict() == {"sources": [], "weight": 0, "reached": []}
