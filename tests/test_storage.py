"""Compact edge storage (graphkit.storage) and the streamed graph file (graphkit.graph_file): every record reads
as the dict it replaces, the file is byte for byte what json.dumps of to_dict() writes, and the fast load gives
the graph (and the errors) of the reference path."""

import copy
import json
import random
from pathlib import Path

import networkx as nx
import pytest

from graphkit.build import build_graph
from graphkit.errors import GraphFileError, GraphkitError
from graphkit.graph import Graph, _first_line
from graphkit.model import NODE_ADAPTER, Confidence, Edge, EdgeKind, Evidence, Lifetime, RevocationAction
from graphkit.storage import EdgeList, EdgeRecord

from test_graph import EV, small_graph

ROOT = Path(__file__).resolve().parents[1]
JOB = "job:acme/app/.github/workflows/ci.yml#build"
SECRET = "secret:repo:acme/app:TOKEN"


def reference_text(g: Graph) -> str:
    """The file as Graph.save wrote it before streaming: one dict, one json.dumps."""
    return json.dumps(g.to_dict(), indent=1, sort_keys=True) + "\n"


def reference_load(data: dict) -> Graph:
    """Graph.from_dict as it was: pydantic for every node and edge, edges through Graph.add_edge."""
    g = Graph()
    g.meta = data.get("meta") or {}
    for i, raw in enumerate(data.get("nodes", [])):
        try:
            node = NODE_ADAPTER.validate_python(raw)
        except (ValueError, TypeError) as exc:
            raise GraphFileError("<dict>", f"nodes[{i}]: {_first_line(exc)}") from None
        g.nx.add_node(node.id, kind=node.spec.kind.value, node=node)
    for i, raw in enumerate(data.get("edges", [])):
        try:
            g.add_edge(Edge.model_validate(raw))
        except (ValueError, TypeError, GraphkitError) as exc:
            raise GraphFileError("<dict>", f"edges[{i}]: {_first_line(exc)}") from None
    return g


@pytest.fixture(scope="module")
def example() -> Graph:
    acme = ROOT / "examples" / "acme"
    inputs = {"github-actions": [acme / "repos"], "runners": [acme / "inventory.yaml"]}
    return build_graph({k: v for k, v in inputs.items() if all(p.exists() for p in v)}).graph


def test_record_reads_as_the_dict_it_replaces():
    g = small_graph()
    d = g.nx.edges[JOB, SECRET, "reads_secret"]
    assert type(d) is EdgeRecord
    e = d["edge"]
    assert dict(d) == {"kind": "reads_secret", "traversable": True, "edge": e}
    assert list(d) == ["kind", "traversable", "edge"] and len(d) == 3 and "edge" in d and "x" not in d
    assert e == Edge(kind=EdgeKind.READS_SECRET, source=JOB, target=SECRET, evidence=[EV],
                     confidence=Confidence.POSSIBLE)
    assert e.model_fields_set == set(Edge.model_fields)
    # made on each read: mutating the copy changes nothing until stored back
    e.props["x"] = 1
    e.evidence.append(Evidence(file="other"))
    assert d["edge"].props == {} and d["edge"].evidence == [EV]
    d["edge"] = e
    assert d["edge"].props == {"x": 1} and len(d["edge"].evidence) == 2
    # the record's attributes read as an edge's, without making one
    assert (d.kind, d.confidence, d.lifetime, d.revoked_by, d.key) == \
        (EdgeKind.READS_SECRET, Confidence.POSSIBLE, Lifetime.UNTIL_ROTATED, RevocationAction.ROTATE_SECRET, "")


def test_record_keeps_other_keys_and_overrides_like_a_dict():
    d = small_graph().nx.edges[JOB, SECRET, "reads_secret"]
    d["weight"] = 3
    d["traversable"] = False
    assert d["weight"] == 3 and d["traversable"] is False and d["kind"] == "reads_secret"
    assert len(d) == 4 and set(d) == {"kind", "traversable", "edge", "weight"}
    d["traversable"] = True  # back to the kind's value: no override kept
    assert d.extra == {"weight": 3}
    del d["weight"]
    assert d.extra is None and len(d) == 3
    del d["kind"]
    assert set(d) == {"traversable", "edge"} and d["edge"].kind is EdgeKind.READS_SECRET
    with pytest.raises(KeyError):
        d["kind"]
    fresh = EdgeRecord()
    assert len(fresh) == 0 and dict(fresh) == {} and fresh.get("edge") is None
    fresh["edge"] = None
    assert dict(fresh) == {"edge": None}


def test_networkx_copies_and_conversions_keep_every_edge():
    g = small_graph()
    want = {(u, v, k): d["edge"] for u, v, k, d in g.nx.edges(keys=True, data=True)}
    for h in (g.nx.copy(), nx.MultiDiGraph(g.nx), copy.deepcopy(g.nx), g.nx.subgraph(list(g.nx)).copy()):
        got = {(u, v, k): d["edge"] for u, v, k, d in h.edges(keys=True, data=True)}
        assert got == want
        assert all(d["kind"] == d["edge"].kind.value and d["traversable"] for *_, d in h.edges(keys=True, data=True))
    c = g.nx.copy()
    c.edges[JOB, SECRET, "reads_secret"]["edge"] = want[JOB, SECRET, "reads_secret"].model_copy(
        update={"confidence": Confidence.CERTAIN})
    assert g.nx.edges[JOB, SECRET, "reads_secret"]["edge"].confidence is Confidence.POSSIBLE  # the copy is its own


def test_evidence_is_kept_once_per_place(example):
    g = example
    by_value: dict[Evidence, int] = {}
    for *_, d in g.nx.edges(keys=True, data=True):
        for e in d.evidence:
            assert by_value.setdefault(e, id(e)) == id(e)
    for _, data in g.nx.nodes(data=True):
        for e in data["node"].evidence:
            assert by_value.setdefault(e, id(e)) == id(e)
    assert len(by_value) > 10


def test_snapshot_edges_are_made_once_per_arc(example):
    from graphkit.analysis.snapshot import snapshot
    snap = snapshot(example)
    assert isinstance(snap.edges, EdgeList) and len(snap.edges) > 5
    e = snap.edges[3]
    assert isinstance(e, Edge) and snap.edges[3] is e and snap.edges[-len(snap.edges) + 3] is e
    rec = snap.edges.record(3)
    assert example.nx.edges[e.source, e.target, e.nx_key] is rec and rec["edge"] == e


def test_saved_file_is_byte_identical_to_the_reference(example, tmp_path):
    for g in (example, small_graph(), Graph()):
        g.save(tmp_path / "g.json")
        assert (tmp_path / "g.json").read_text() == reference_text(g)


def _random_json(rng: random.Random, depth: int = 0):
    """A value json.dumps accepts, with what the writer's fast path must leave to it: other key types, NaN and
    the infinities, tuples, str and int subclasses, deep nesting."""
    scalars = [None, True, False, 0, -7, 2 ** 70, 1.5, -0.0, float("nan"), float("inf"), float("-inf"), "",
               "a\"b\\c\n\u2028é\x00", EdgeKind.RUNS_ON_HOST, Confidence.CERTAIN, RevocationAction.REIMAGE_HOST]
    roll = rng.random()
    if depth > 6 or roll < 0.4:
        return rng.choice(scalars)
    if roll < 0.7:
        items = [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
        return tuple(items) if rng.random() < 0.2 else items
    keys = ["b", "a", "é", "", "z\n"] + ([1, 2.5, True, None] if rng.random() < 0.2 else [])
    return {k: _random_json(rng, depth + 1) for k in rng.sample(keys, rng.randrange(len(keys) + 1))}


@pytest.mark.parametrize("seed", range(300))
def test_fast_writer_equals_json_dumps(seed):
    from graphkit.graph_file import _block, _text
    rng = random.Random(seed)
    value = _random_json(rng)
    for depth in (0, 1, 3):
        try:
            want = _block(value, depth)
        except TypeError as exc:  # keys of types sorted() cannot compare
            with pytest.raises(TypeError):
                _text(value, "\n" + " " * depth)
            continue
        assert _text(value, "\n" + " " * depth) == want


def test_fast_writer_leaves_deep_cyclic_and_unknown_values_to_json():
    from graphkit.graph_file import _TEXT_DEPTH, _block, _text
    deep: list = []
    cur = deep
    for _ in range(_TEXT_DEPTH * 2):
        cur.append({"k": []})
        cur = cur[0]["k"]
    assert _text(deep, "\n  ") == _block(deep, 2)
    cyclic: list = [1]
    cyclic.append(cyclic)
    with pytest.raises(ValueError, match="Circular reference"):
        _text(cyclic, "\n")
    with pytest.raises(TypeError, match="not JSON serializable"):
        _text({"a": [{1, 2}]}, "\n")


def test_props_keep_their_json_types(tmp_path):
    g = small_graph()
    values = [1, True, 1.0, "1", None, [1, [True]], {"b": 1, "a": [None]}, 2 ** 70, -0.5, "é\u2028"]
    rnd = random.Random(19)
    for i in range(40):
        g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=JOB, target=SECRET, key=f"k{i}", evidence=[EV],
                        props={"v": rnd.choice(values), **({"w": rnd.choice(values)} if i % 3 else {})}))
    g.save(tmp_path / "g.json")
    text = (tmp_path / "g.json").read_text()
    assert text == reference_text(g)
    h = Graph.load(tmp_path / "g.json")
    assert h == g and h.to_dict() == json.loads(text)
    kinds = {json.dumps(e.props["v"]) for e in h.edges() if "v" in e.props}
    assert {"1", "true", "1.0"} <= kinds  # 1, True and 1.0 never share one props object


def test_fast_load_equals_the_reference_load(example, tmp_path):
    example.save(tmp_path / "g.json")
    data = json.loads((tmp_path / "g.json").read_text())
    fast = Graph.from_dict(data)
    assert fast == reference_load(data) == example
    # a duplicate edge merges as Graph.add_edge merges it
    dup = json.loads(json.dumps(data))
    extra = dict(dup["edges"][0], evidence=[{"file": "again.yml"}], confidence="possible")
    dup["edges"].append(extra)
    assert Graph.from_dict(dup) == reference_load(dup)
    merged = Graph.from_dict(dup).nx.edges[extra["source"], extra["target"], dup["edges"][0]["kind"] +
                                           (f"|{extra['key']}" if extra["key"] else "")]["edge"]
    assert merged.evidence[-1] == Evidence(file="again.yml") and len(merged.evidence) >= 2


@pytest.mark.parametrize("change,message", [
    ({"kind": "nope"}, "kind: Input should be"),
    ({"kind": ["x"]}, "kind: Input should be"),
    ({"evidence": []}, "evidence: List should have at least 1 item"),
    ({"evidence": [{"file": "a", "bogus": 1}]}, "evidence[0].bogus: Extra inputs are not permitted"),
    ({"evidence": [{"file": "a", "line": "x"}]}, "evidence[0].line: Input should be a valid integer"),
    ({"evidence": "a"}, "evidence: Input should be a valid list"),
    ({"source": "job:nope"}, "node 'job:nope' missing"),
    ({"target": SECRET}, "may not touch a secret node"),
    ({"confidence": "sure"}, "confidence: Input should be"),
    ({"lifetime": 3}, "lifetime: Input should be"),
    ({"revoked_by": "magic"}, "revoked_by: Input should be"),
    ({"props": []}, "props: Input should be a valid dictionary"),
    ({"key": 5}, "key: Input should be a valid string"),
    ({"extra": 1}, "extra: Extra inputs are not permitted"),
])
def test_damaged_edges_raise_the_reference_errors(change, message):
    data = small_graph().to_dict()
    data["edges"][1] = {**data["edges"][1], **change}
    with pytest.raises(GraphFileError) as fast:
        Graph.from_dict(data)
    with pytest.raises(GraphFileError) as ref:
        reference_load(data)
    assert str(fast.value) == str(ref.value) and "edges[1]: " in str(fast.value) and message in str(fast.value)


def test_lax_values_the_reference_accepts_still_load():
    data = small_graph().to_dict()
    data["edges"][0]["evidence"] = [{"file": "a", "line": True}, {"file": "a", "line": 1.0}]
    data["edges"][0].pop("lifetime")
    data["edges"][0].pop("props")
    assert Graph.from_dict(data) == reference_load(data)


def test_failed_save_leaves_the_previous_file(tmp_path):
    g = small_graph()
    path = tmp_path / "g.json"
    g.save(path)
    before = path.read_text()
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=JOB, target=SECRET, key="deep", evidence=[EV],
                    props={"d": deep}))
    with pytest.raises(GraphkitError, match="cannot be serialized"):
        g.save(path)
    assert path.read_text() == before and [p.name for p in tmp_path.iterdir()] == ["g.json"]


@pytest.mark.parametrize("mangle", [
    lambda t: t.replace('"schema": "graphkit.graph/v1"', '"schema": "graphkit.graph/v0"'),
    lambda t: t.replace('"edges": [', '"edges": [1, ', 1),
    lambda t: t.replace('"nodes": [', '"nodes": [{"kind": "runner"}, ', 1),
    lambda t: t.replace('"nodes": [', '"nodes": [{"kind": "runner"}, ', 1).replace("graph/v1", "graph/v2"),
    lambda t: t.replace('"meta": {', '"meta": {"bogus": 1, ', 1),
    lambda t: t.replace('"edges": [', '"edges": {"a": [', 1).replace("\n ],\n \"meta\"", "\n ]},\n \"meta\"", 1),
    lambda t: t.rstrip() + " []",
    lambda t: t.rstrip()[:-1],
    lambda t: "\ufeff" + t,
    lambda t: t.replace("{", '{"edges": [], ', 1),
    lambda t: t.replace('"edges": [', '"edges": [' + "[" * 100_000 + "]" * 100_000 + ", ", 1),
])
def test_streamed_load_fails_as_the_whole_parse(tmp_path, mangle):
    """Graph.load reads item by item; whatever the damage, the outcome is json.loads + from_dict's."""
    small_graph().save(tmp_path / "g.json")
    text = mangle((tmp_path / "g.json").read_text())
    (tmp_path / "bad.json").write_text(text)
    try:
        want = Graph.from_dict(json.loads(text), source=str(tmp_path / "bad.json"))
    except (GraphFileError, ValueError, RecursionError) as exc:
        with pytest.raises(GraphFileError) as got:
            Graph.load(tmp_path / "bad.json")
        if isinstance(exc, GraphFileError):
            assert str(got.value) == str(exc)
    else:
        assert Graph.load(tmp_path / "bad.json") == want


def test_key_dict_behaves_as_a_dict_under_random_operations():
    import pickle

    from graphkit.storage import KeyDict
    rnd = random.Random(19)
    for _ in range(200):
        kd, ref = KeyDict(), {}
        for _ in range(rnd.randrange(1, 12)):
            op, k = rnd.random(), rnd.choice(["a", "b", "c", 0, 1])
            if op < 0.55:
                kd[k] = ref[k] = rnd.random()
            elif op < 0.8:
                if k in ref:
                    del ref[k]
                    del kd[k]
                else:
                    with pytest.raises(KeyError):
                        del kd[k]
            elif ref:
                assert kd.popitem() == ref.popitem()
            assert dict(kd) == ref and len(kd) == len(ref) and list(kd) == list(ref)
            assert list(kd.items()) == list(ref.items()) and list(kd.values()) == list(ref.values())
            assert all((x in kd) == (x in ref) and kd.get(x, "d") == ref.get(x, "d") for x in ["a", "b", "c", 0, 1])
            for other in (kd.copy(), copy.deepcopy(kd), pickle.loads(pickle.dumps(kd))):
                assert dict(other) == ref and len(other) == len(ref)


def test_parallel_edges_and_removals_through_networkx():
    g = small_graph()
    for i in range(3):
        g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=JOB, target=SECRET, key=f"m{i}", evidence=[EV]))
    assert g.nx.number_of_edges(JOB, SECRET) == 4 and len(list(g.out_edges(JOB))) == 4
    g.nx.remove_edge(JOB, SECRET, "reads_secret|m1")
    g.nx.remove_edge(JOB, SECRET)  # networkx removes the last one added
    assert sorted(k for _, _, k in g.nx.edges(JOB, keys=True)) == ["reads_secret", "reads_secret|m0"]
    g.nx.remove_edge(JOB, SECRET, "reads_secret")
    g.nx.remove_edge(JOB, SECRET, "reads_secret|m0")
    assert not g.nx.has_edge(JOB, SECRET) and SECRET not in g.nx.succ[JOB]
    k = g.nx.add_edge(JOB, SECRET)  # networkx's own keys still work
    assert k == 0 and g.nx.add_edge(JOB, SECRET) == 1 and g.nx.number_of_edges(JOB, SECRET) == 2
    assert sorted(g.nx.to_undirected().edges(keys=True)) and g.nx.reverse().has_edge(SECRET, JOB, 1)


def test_copy_is_networkx_copy_sharing_the_parts(example):
    mine, generic = example.nx.copy(), nx.MultiDiGraph.copy(example.nx)
    assert type(mine) is type(generic) is type(example.nx)
    assert list(mine.nodes(data="kind")) == list(generic.nodes(data="kind"))
    for a, b in ((mine, generic), (mine.reverse(copy=False), generic.reverse(copy=False))):
        assert list(a.edges(keys=True)) == list(b.edges(keys=True))
    assert [d["edge"] for *_, d in mine.edges(keys=True, data=True)] == \
        [d["edge"] for *_, d in generic.edges(keys=True, data=True)]
    u, v, k = next(iter(example.nx.edges(keys=True)))
    assert mine.edges[u, v, k] is not example.nx.edges[u, v, k]
    assert mine.edges[u, v, k].evidence is example.nx.edges[u, v, k].evidence  # shared, immutable
    assert mine.nodes[u] is not example.nx.nodes[u] and mine.nodes[u]["node"] is example.nx.nodes[u]["node"]


def test_snapshot_from_records_equals_snapshot_from_plain_dicts(example):
    """The snapshot reads the records' attributes; a graph holding plain dicts with pydantic edges (networkx's
    own classes) gives the same arrays and edges."""
    import numpy as np

    from graphkit.analysis.snapshot import _build
    plain = Graph()
    plain.nx = nx.MultiDiGraph(example.nx)
    assert type(next(iter(plain.nx.edges(data=True)))[2]) is dict
    a, b = _build(example), _build(plain)
    assert a.ids == b.ids and list(a.edges) == list(b.edges)
    for name in ("pair_ptr", "pair_target", "arc_ptr", "arc_source_only", "has", "best", "longest", "certain",
                 "seconds", "life", "runs_code"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def _reference_kind_scan(g: Graph, kind) -> list[str]:
    """nodes_of_kind as it was: every node scanned at each call."""
    return sorted(n for n, d in g.nx._node.items() if d.get("kind") == kind.value)


def test_nodes_of_kind_index_follows_every_change_of_the_node_table(example):
    import pickle

    from graphkit.model import NodeKind, Runner
    from graphkit.resolve.context import nodes_of_kind
    from graphkit.storage import NodeTable
    g = Graph()
    g.nx = example.nx.copy()
    assert type(g.nx._node) is NodeTable
    kinds = sorted({d["kind"] for d in g.nx._node.values()})
    assert len(kinds) >= 6

    def check() -> None:
        for k in NodeKind:
            assert [n.id for n in nodes_of_kind(g, k)] == _reference_kind_scan(g, k)

    check()
    runners = _reference_kind_scan(g, NodeKind.RUNNER)
    assert len(runners) >= 3
    stamp = g.nx._node.stamp
    check()
    assert g.nx._node.stamp == stamp  # reading changes nothing
    g.add_node(Runner(id="runner:acme/zz-new", name="zz-new", scope="acme", evidence=[EV]))
    assert "runner:acme/zz-new" in [n.id for n in nodes_of_kind(g, NodeKind.RUNNER)]
    g.nx.remove_node(runners[0])  # networkx's own removal
    assert runners[0] not in [n.id for n in nodes_of_kind(g, NodeKind.RUNNER)]
    check()
    g.nx.add_edge(JOB, "dangling-end")  # networkx adds an end without a kind
    g.nx.add_node(runners[1], kind=NodeKind.HOST.value)  # a kind given again, changed
    assert runners[1] not in [n.id for n in nodes_of_kind(g, NodeKind.RUNNER)]
    g.nx.add_node(runners[1], kind=NodeKind.RUNNER.value)
    g.nx.remove_nodes_from([runners[2], "dangling-end"])
    check()
    g.nx._node.pop(runners[1])
    g.nx._node.setdefault(runners[1], {"kind": NodeKind.RUNNER.value, "node": example.node(runners[1])})
    check()
    for other in (copy.deepcopy(g.nx), pickle.loads(pickle.dumps(g.nx))):
        h = Graph()
        h.nx = other
        for k in NodeKind:
            assert [n.id for n in nodes_of_kind(h, k)] == _reference_kind_scan(g, k)
        h.nx.remove_node(runners[1])
        assert runners[1] not in [n.id for n in nodes_of_kind(h, NodeKind.RUNNER)]


def test_edge_scans_by_kind_equal_a_scan_of_every_node(example):
    from graphkit.model import EdgeKind as K
    from graphkit.resolve.context import edges_of_kind, records_of_kinds
    g = Graph()
    g.nx = example.nx.copy()
    g.nx.add_edge(7, JOB)  # ends networkx makes without a kind (one not a string): scanned, never sorted
    for kinds in ([K.RECEIVES_JOB], [K.READS_SECRET, K.HAS_JOB, K.RUNS_ON_HOST], list(K)):
        reference = [[(u, v, d["edge"].key) for u, v, _, d in sorted(
            (u, v, k, d) for u, v, k, d in g.nx.edges(keys=True, data=True) if d.get("kind") == x.value)]
            for x in kinds]
        got = records_of_kinds(g, *kinds)
        assert [[(r.source, r.target, r.key) for r in rows] for rows in got] == reference
        assert [(e.source, e.target, e.key) for e in edges_of_kind(g, kinds[0])] == reference[0]
    assert sum(map(len, records_of_kinds(g, *K))) >= 50
