"""A graph file holds each node under its canonical id (graphkit.model.ids.canonical): an id written otherwise
(``repo:ACME/app``, a trailing space, a path with ``..`` segments) is the same repository or workflow under a
second id, so the load refuses it (GraphFileError naming the entry), the streamed load and its fallback alike,
and no graph is returned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphkit.build import build_graph
from graphkit.errors import GraphFileError
from graphkit.graph import Graph
from graphkit.model import NodeKind, ids

ROOT = Path(__file__).resolve().parents[1]
ACME = ROOT / "examples" / "acme"
WORKFLOW = "workflow:acme/app/.github/workflows/ci.yml"


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("canon") / "g.json"
    build_graph({"github-actions": [ACME / "repos"], "runners": [ACME / "inventory.yaml"],
                 "aws-iam": [ACME / "aws-iam.json"]}).graph.save(path)
    return path


def _both_loads(path: Path) -> tuple[str, str]:
    """The error of the streamed load and of the whole-parse fallback (``json.loads`` + ``from_dict``)."""
    with pytest.raises(GraphFileError) as fast:
        Graph.load(path)
    with pytest.raises(GraphFileError) as whole:
        Graph.from_dict(json.loads(path.read_text()), source=str(path))
    return str(fast.value), str(whole.value)


def _index(text: str, node_id: str) -> int:
    return [n["id"] for n in json.loads(text)["nodes"]].index(node_id)


@pytest.mark.parametrize("written, canonical, kind", [
    ("repo:ACME/app", "repo:acme/app", "repository"),
    ("repo:acme/app ", "repo:acme/app", "repository"),
    ("workflow:acme/app/.github/workflows/../workflows/ci.yml", WORKFLOW, "workflow"),
    ("workflow:acme/app/.github/./workflows/ci.yml", WORKFLOW, "workflow"),
])
def test_a_non_canonical_id_is_refused_by_both_loads(saved, tmp_path, written, canonical, kind):
    text = saved.read_text()
    i = _index(text, canonical)
    bad = tmp_path / "bad.json"
    bad.write_text(text.replace(json.dumps(canonical), json.dumps(written)))  # the node and its edges
    want = (f"{bad}: nodes[{i}]: node id {written!r} is not canonical: graphkit writes this {kind} as "
            f"{canonical!r} (a graph file lists each node once, under that id)")
    assert _both_loads(bad) == (want, want)


def test_a_second_entry_for_one_repository_is_refused(saved, tmp_path):
    data = json.loads(saved.read_text())
    twin = dict(next(n for n in data["nodes"] if n["id"] == "repo:acme/app"), id="repo:Acme/App")
    data["nodes"].append(twin)
    bad = tmp_path / "twin.json"
    bad.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    want = (f"{bad}: nodes[{len(data['nodes']) - 1}]: node id 'repo:Acme/App' is not canonical: graphkit writes "
            "this repository as 'repo:acme/app' (a graph file lists each node once, under that id)")
    assert _both_loads(bad) == (want, want)


def test_an_id_of_another_kind_is_refused(saved, tmp_path):
    data = json.loads(saved.read_text())
    i = next(i for i, n in enumerate(data["nodes"]) if n["kind"] == "repository")
    data["nodes"][i]["id"] = "org:acme-two"
    bad = tmp_path / "kind.json"
    bad.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    want = f"{bad}: nodes[{i}]: node id 'org:acme-two' is an id of kind organization, not repository"
    assert _both_loads(bad) == (want, want)


def test_an_id_past_the_identifier_limit_is_refused_and_a_hand_made_id_is_kept(saved, tmp_path):
    data = json.loads(saved.read_text())
    i = next(i for i, n in enumerate(data["nodes"]) if n["kind"] == "repository")
    data["nodes"][i]["id"] = ids.FORMS_BY_KIND[NodeKind.REPOSITORY][0].template.replace("{repo}", "acme/" + "a" * 5000)
    bad = tmp_path / "long.json"
    bad.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    want = (f"{bad}: nodes[{i}]: node id <id of 5010 characters>: repository id: refused: owner/name of 5005 "
            "characters (limit max_identifier_chars=4096; raise with --limit max_identifier_chars=N or "
            "GRAPHKIT_LIMIT_MAX_IDENTIFIER_CHARS)")
    assert _both_loads(bad) == (want, want)
    data["nodes"][i]["id"] = "repo-made-by-hand"  # no graphkit id form at all: a hand-made graph's id
    data["edges"] = [e for e in data["edges"] if json.loads(saved.read_text())["nodes"][i]["id"] not in
                     (e["source"], e["target"])]
    ok = tmp_path / "hand.json"
    ok.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    assert "repo-made-by-hand" in Graph.load(ok) and "repo-made-by-hand" in Graph.from_dict(json.loads(ok.read_text()))


def test_every_saved_id_is_canonical_and_loads(saved):
    g = Graph.load(saved)
    assert g.nx.number_of_nodes() > 50
    assert all(ids.canonical(n, g.node(n).spec.kind) == n for n in g.nx.nodes)


def test_path_ids_resolve_dot_segments_once():
    assert ids.workflow("Acme/App", ".github/workflows/../workflows/./ci.yml") == WORKFLOW
    assert ids.credential("build-01", "/home/runner/../runner/.aws/credentials") == \
        ids.credential("build-01", "/home/runner/.aws/credentials")
    # kept: a leading "..", trailing and repeated slashes (nothing says they name another file)
    assert ids.parse(ids.cache_host("h", "/opt/_work/")).parts["path"] == "/opt/_work/"
    assert ids.parse(ids.cloud_policy_file("../policies/ci.json")).parts["path"] == "../policies/ci.json"
    caller = ids.job("acme/app", ".github/workflows/ci.yml", "call")
    called = ids.job("acme/lib", ".github/workflows/r.yml", "build", caller=caller)
    assert ids.canonical(called, NodeKind.JOB) == called
    assert ids.canonical(called.replace("job:acme/app", "job:ACME/app"), NodeKind.JOB) == called


def test_the_canonical_check_keeps_no_id_alive_after_the_load(saved):
    """Checking every id of a file builds each once: not through the id cache, which would hold up to 65,536 of
    them (~40 MB at 10^6 edges) after the load."""
    ids._built.cache_clear()
    g = Graph.load(saved)
    assert len(g.nx) > 50 and ids._built.cache_info().currsize == 0
