"""The model and the typed graph: declarations, merging, JSON round trip."""

import json

import pytest

from graphkit.errors import GraphFileError, GraphkitError, UnknownNodeError
from graphkit.graph import Graph
from graphkit.model import (
    EDGE_SPECS, NODE_TYPES, Confidence, Edge, EdgeKind, Evidence, Job, Lifetime, NodeKind, RevocationAction,
    Runner, RunsOnCandidate, Secret, node_kind,
)

EV = Evidence(file=".github/workflows/ci.yml", repository="acme/app", yaml_path="jobs.build", line=7)


def small_graph() -> Graph:
    g = Graph()
    g.add_node(Runner(id="runner:acme/r1", name="r1", scope="acme", labels=["self-hosted", "linux"], evidence=[EV]))
    g.add_node(Job(id="job:acme/app/.github/workflows/ci.yml#build", name="build", repository="acme/app",
                   workflow_path=".github/workflows/ci.yml", job_key="build", secrets_repository="acme/app",
                   runs_on=[RunsOnCandidate(labels=("self-hosted", "linux"), evidence=EV)], evidence=[EV]))
    g.add_node(Secret(id="secret:repo:acme/app:TOKEN", name="TOKEN", secret_name="TOKEN", scope="repo",
                      owner="acme", repository="acme/app", evidence=[EV]))
    g.add_edge(Edge(kind=EdgeKind.RECEIVES_JOB, source="runner:acme/r1",
                    target="job:acme/app/.github/workflows/ci.yml#build", evidence=[EV]))
    g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source="job:acme/app/.github/workflows/ci.yml#build",
                    target="secret:repo:acme/app:TOKEN", evidence=[EV], confidence=Confidence.POSSIBLE))
    return g


def test_every_kind_declared_once_with_label_and_id_format():
    from graphkit.model import NODE_ID_FORMATS
    assert set(NODE_TYPES) == set(NodeKind) == set(NODE_ID_FORMATS)
    labels = [cls.spec.label for cls in NODE_TYPES.values()]
    assert len(labels) == len(set(labels))
    assert set(EDGE_SPECS) == set(EdgeKind)
    for kind, spec in EDGE_SPECS.items():
        assert spec.rel_type == kind.value.upper() and spec.rel_type.replace("_", "").isalpha()
        # every traversable edge can be revoked, structural edges grant nothing
        assert (spec.revoked_by is not None) == spec.traversable, kind
        assert spec.traversable or spec.lifetime is Lifetime.NOT_APPLICABLE


def test_edge_defaults_come_from_declaration():
    e = Edge(kind=EdgeKind.READS_SECRET, source="a", target="b", evidence=[EV])
    assert e.lifetime is Lifetime.UNTIL_ROTATED
    assert e.revoked_by is RevocationAction.ROTATE_SECRET
    assert e.revoke_subject_id() == "b"
    with pytest.raises(ValueError):
        Edge(kind=EdgeKind.READS_SECRET, source="a", target="b", evidence=[])


def test_round_trip_is_lossless(tmp_path):
    g = small_graph()
    g.meta = {"inputs": {"runners": ["x.yaml"]}}
    path = tmp_path / "g.json"
    g.save(path)
    h = Graph.load(path)
    assert h == g
    assert h.to_dict() == json.loads(path.read_text())
    e = next(h.edges(EdgeKind.READS_SECRET))
    assert e.confidence is Confidence.POSSIBLE and e.evidence == [EV]
    assert h.nx.nodes["runner:acme/r1"]["kind"] == "runner"
    assert h.nx.edges["runner:acme/r1", "job:acme/app/.github/workflows/ci.yml#build", "receives_job"]["traversable"]


def test_merging_unions_evidence_and_keeps_certain():
    g = small_graph()
    other = Evidence(file="inventory.yaml", yaml_path="runners[0]")
    g.add_node(Runner(id="runner:acme/r1", name="r1", scope="acme", ephemeral=False, evidence=[other]))
    r = g.node("runner:acme/r1")
    assert r.labels == ["self-hosted", "linux"] and r.ephemeral is False and r.evidence == [EV, other]
    g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source="job:acme/app/.github/workflows/ci.yml#build",
                    target="secret:repo:acme/app:TOKEN", evidence=[other]))
    e = next(g.edges(EdgeKind.READS_SECRET))
    assert e.confidence is Confidence.CERTAIN and len(e.evidence) == 2
    assert g.counts() == {"nodes": {"job": 1, "runner": 1, "secret": 1},
                          "edges": {"reads_secret": 1, "receives_job": 1}}


def test_observed_node_replaces_inferred_one():
    g = Graph()
    g.add_node(Runner(id="runner:acme/r1", name="pool", scope="acme", labels=["x"], inferred=True))
    g.add_node(Runner(id="runner:acme/r1", name="r1", scope="acme", labels=["self-hosted", "x"]))
    g.add_node(Runner(id="runner:acme/r1", name="pool", scope="acme", labels=["y"], inferred=True))
    r = g.node("runner:acme/r1")
    assert (r.name, r.labels, r.inferred) == ("r1", ["self-hosted", "x"], False)


def test_edge_kind_constraints_and_missing_nodes():
    g = small_graph()
    with pytest.raises(GraphkitError, match="may not touch a secret"):
        g.add_edge(Edge(kind=EdgeKind.RECEIVES_JOB, source="runner:acme/r1", target="secret:repo:acme/app:TOKEN",
                        evidence=[EV]))
    with pytest.raises(GraphkitError, match="missing"):
        g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source="job:nope", target="secret:repo:acme/app:TOKEN",
                        evidence=[EV]))


def test_unknown_node_suggests_close_ids():
    with pytest.raises(UnknownNodeError) as info:
        small_graph().node("runner:acme/r2")
    assert info.value.suggestions[0] == "runner:acme/r1"
    assert "did you mean: runner:acme/r1" in str(info.value)


def test_bad_graph_file_names_file_and_item(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "graphkit.graph/v1", "nodes": [{"kind": "runner", "id": "x"}], "edges": []}')
    with pytest.raises(GraphFileError, match=r"bad\.json: nodes\[0\]"):
        Graph.load(bad)
    node = {"kind": "runner", "id": "runner:acme/r1", "name": "r1", "scope": "acme"}
    (tmp_path / "dup.json").write_text(json.dumps({"schema": "graphkit.graph/v1", "nodes": [node, node], "edges": []}))
    with pytest.raises(GraphFileError, match=r"dup\.json: nodes\[1\]: duplicate node id 'runner:acme/r1'"):
        Graph.load(tmp_path / "dup.json")
    (tmp_path / "n.json").write_text("[]")
    with pytest.raises(GraphFileError, match="not a graphkit.graph/v1"):
        Graph.load(tmp_path / "n.json")


@pytest.mark.parametrize("text,kind", [("runner", NodeKind.RUNNER), ("Cloud-Role", NodeKind.CLOUD_ROLE),
                                       ("CLOUD_ROLE", NodeKind.CLOUD_ROLE), ("job", NodeKind.JOB),
                                       ("runnergroup", NodeKind.RUNNER_GROUP)])
def test_node_kind_names(text, kind):
    assert node_kind(text) is kind


def test_node_kind_rejects_unknown():
    with pytest.raises(ValueError, match="valid kinds: host, runner"):
        node_kind("rnner")
