"""The build's merge (``graphkit.graph._EvidenceIndex``: one copy per merge, evidence appended) gives exactly what the
reference merges give (:meth:`Node.merged`, :meth:`Edge.merged`, evidence by
:func:`~graphkit.model.merge_evidence`): equal models, the same set fields and field order, on observations
derived from every node and edge of the example and of a synthetic org."""

from __future__ import annotations

import random

import pytest

from graphkit import synth
from graphkit.build import build_graph
from graphkit.graph import _EvidenceIndex
from graphkit.model import Confidence, Edge, Evidence

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
EVIDENCE = [Evidence(file=f"f{i}.yml", line=i, yaml_path=f"jobs.j{i}") for i in range(5)]


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    out = tmp_path_factory.mktemp("org")
    synth.write(synth.generate(6, seed=5), out)
    acme = ROOT / "examples" / "acme"
    return [build_graph({"github-actions": [acme / "repos"], "runners": [acme / "inventory.yaml"],
                         "aws-iam": [acme / "aws-iam.json"]}).graph,
            build_graph({"github-actions": [out / "repos"], "runners": [out / "inventory.yaml"],
                         "aws-iam": [out / "aws-iam.json"]}).graph]


def _observation(rng: random.Random, model, **fixed):
    """Another observation of ``model``: some optional fields left unset or None, random evidence."""
    cls = type(model)
    data = model.model_dump()
    for name, info in cls.model_fields.items():
        if name in ("id", "kind", "source", "target", "key") or info.is_required():
            continue
        roll = rng.random()
        if roll < 0.3:
            data.pop(name, None)
        elif roll < 0.4 and info.default is None:
            data[name] = None
    data["evidence"] = rng.sample(EVIDENCE, rng.randint(1, 3))
    data.update(fixed)
    return cls.model_validate(data)


def _same(fast, ref) -> None:
    assert fast == ref
    assert fast.model_fields_set == ref.model_fields_set
    assert list(fast.__dict__) == list(ref.__dict__)
    assert fast.model_dump(mode="json") == ref.model_dump(mode="json")


def test_node_merges_equal_the_reference(graphs):
    rng = random.Random(19)
    checked = set()
    for graph in graphs:
        for node in graph.nodes():
            for _ in range(3):
                a = _observation(rng, node, inferred=rng.random() < 0.3)
                b = _observation(rng, node, inferred=rng.random() < 0.3)
                _same(_EvidenceIndex().merged(node.id, a, b), a.merged(b))
                checked.add(type(node).__name__)
    assert len(checked) >= 15


def test_edge_merges_equal_the_reference(graphs):
    rng = random.Random(20)
    n = 0
    for graph in graphs:
        for edge in graph.edges():
            conf = [Confidence.CERTAIN, Confidence.POSSIBLE]
            a = _observation(rng, edge, confidence=rng.choice(conf), props={"x": rng.randint(0, 2), **edge.props})
            b = _observation(rng, edge, confidence=rng.choice(conf), props={"y": 1, "x": 5})
            _same(_EvidenceIndex().merged(edge.identity, a, b), a.merged(b))
            n += 1
    assert n > 500


def test_repeated_merges_keep_the_first_evidence_first():
    index = _EvidenceIndex()
    edge = Edge(kind="runs_on_host", source="runner:acme/r", target="host:h", evidence=EVIDENCE[:2])
    stored = edge
    for ev in (EVIDENCE[3], EVIDENCE[0], EVIDENCE[4], EVIDENCE[3]):
        stored = index.merged(edge.identity, stored, edge.model_copy(update={"evidence": [ev]}))
    assert stored.evidence == [EVIDENCE[0], EVIDENCE[1], EVIDENCE[3], EVIDENCE[4]]
