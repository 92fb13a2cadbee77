"""Inputs are listed once per CLI build: the progress bar's count keeps its listing for the build
(:func:`graphkit.ingestor.reuse_listing`); the GitHub Actions collect lists each checkout's files once."""

from __future__ import annotations

from pathlib import Path

from graphkit import registry
from graphkit.build import build_graph
from graphkit.cli_common import GraphInput
from graphkit.ingestor import reuse_listing
from ingest.github_actions import collect as gha_collect

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _gha_input() -> Path:
    found = sorted(p.parents[2] for p in EXAMPLES.rglob(".github/workflows/*.y*ml"))
    assert found
    return found[0].parent if len({p.parent for p in found}) == 1 else found[0]


def _counting(monkeypatch) -> list[int]:
    calls: list[int] = []
    ing = registry.get("github-actions")
    real = type(ing).collect

    def collect(self, paths):
        calls.append(1)
        return real(self, paths)
    monkeypatch.setattr(type(ing), "collect", collect)
    return calls


def test_count_then_ingest_lists_once_inside_reuse_listing_and_twice_outside(monkeypatch):
    paths = [str(_gha_input())]
    ing = registry.get("github-actions")
    calls = _counting(monkeypatch)
    n = ing.count(paths)
    plain = ing.ingest(paths)
    assert len(calls) == 2
    with reuse_listing():
        assert ing.count(paths) == n
        reused = ing.ingest(paths)
        assert len(calls) == 3
        ing.ingest(paths)  # kept for one ingest only
        assert len(calls) == 4
    assert reused.items == plain.items == n > 0
    assert sorted(reused.graph.nodes) == sorted(plain.graph.nodes)
    ing.count(paths)
    ing.ingest(paths)  # nothing kept outside the block
    assert len(calls) == 6


def test_cli_build_lists_once_and_builds_the_same_graph(monkeypatch):
    inputs = {"github-actions": [str(_gha_input())]}
    reference = build_graph(inputs).graph
    calls = _counting(monkeypatch)
    built = GraphInput(None, inputs).build().graph
    assert len(calls) == 1
    assert sorted(built.nx.nodes) == sorted(reference.nx.nodes)
    assert sorted(built.nx.edges) == sorted(reference.nx.edges)


def test_each_checkout_listed_once(monkeypatch):
    listed: list[str] = []
    real = gha_collect.checkout_files

    def files(co, problems=None):
        listed.append(str(co.root))
        return real(co, problems)
    monkeypatch.setattr(gha_collect, "checkout_files", files)
    registry.get("github-actions").collect([str(_gha_input())])
    assert listed and len(listed) == len(set(listed))
