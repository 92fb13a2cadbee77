"""``graphkit query sync-status`` against a real Bolt server: each input problem is reported under the source it
belongs to (never under another source's ``skipped``), and a source of the last sync that holds no node still has
its row and its problems."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.graph import Graph
from graphkit.neo4j.connection import connect
from graphkit.neo4j.library import load_library, run_query
from graphkit.neo4j.sync import problem_sources, provenance, sync_graph

from neo4j_helpers import EXAMPLE, ROOT, settings, wipe

BROKEN_WORKFLOW = "acme__docs/.github/workflows/preview.yml"


@pytest.fixture(scope="module")
def driver(bolt):
    with connect(settings(bolt)) as d:
        yield d


def _broken_example(tmp: Path) -> tuple[Graph, Path]:
    """The bundled example with one workflow cut short (a github-actions problem)."""
    root = tmp / "acme"
    shutil.copytree(EXAMPLE, root)
    workflow = root / "repos" / BROKEN_WORKFLOW
    workflow.write_text(workflow.read_text(encoding="utf-8")[:40] + "\n  [unclosed", encoding="utf-8")
    graph = build_graph({"github-actions": [root / "repos"], "runners": [root / "inventory.yaml"],
                         "aws-iam": [root / "aws-iam.json"]}).graph
    return graph, workflow


def _status(driver, db: str) -> dict[str, dict]:
    _, rows = run_query(driver, load_library(ROOT / "queries")["sync-status"], {}, database=db)
    return {r["source"]: r for r in rows}


def test_a_problem_shows_under_its_own_source_only(bolt, driver, tmp_path: Path):
    graph, workflow = _broken_example(tmp_path)
    [problem] = graph.meta.problems
    assert problem.file == str(workflow)
    line = f"{problem.file} {problem.place}: {problem.reason}"
    assert problem_sources(graph) == [("github-actions", line)]
    db = bolt["database"]
    wipe(driver, db)
    sync_graph(driver, graph, database=db, update_tag=11)
    rows = _status(driver, db)
    assert {s: (r["skipped"], r["complete"], r["in_last_sync"]) for s, r in rows.items()} == {
        "aws-iam": ([], True, True), "github-actions": ([line], False, True), "runners": ([], True, True)}
    # the same through the CLI, as a user runs it
    env = {"NEO4J_URI": bolt["uri"], "NEO4J_USERNAME": bolt["user"], "NEO4J_PASSWORD": bolt["password"],
           "NEO4J_DATABASE": db}
    res = CliRunner().invoke(app, ["query", "sync-status", "--format", "json"], env=env)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert {r["source"]: r["skipped"] for r in doc["rows"]} == {"aws-iam": [], "github-actions": [line],
                                                                "runners": []}


def test_a_source_with_no_node_keeps_its_row_and_problem(bolt, driver, tmp_path: Path):
    """The example's inventory and its IAM export cut short: aws-iam holds no node, yet has its row (nodes 0,
    partial, in the last sync) with its problem, and the runners row shows none."""
    iam_file = tmp_path / "aws-iam.json"
    iam_file.write_text((EXAMPLE / "aws-iam.json").read_text(encoding="utf-8")[:200], encoding="utf-8")
    graph = build_graph({"runners": [EXAMPLE / "inventory.yaml"], "aws-iam": [iam_file]}).graph
    [problem] = graph.meta.problems
    assert problem.file == str(iam_file)
    db = bolt["database"]
    wipe(driver, db)
    sync_graph(driver, graph, database=db, update_tag=12)
    rows = _status(driver, db)
    assert set(rows) == {"aws-iam", "runners"}
    assert rows["aws-iam"] == {"source": "aws-iam", "last_update_tag": 12, "in_last_sync": True, "complete": False,
                               "nodes": 0, "last_sync": 12,
                               "skipped": [f"{problem.file} {problem.place}".strip() + f": {problem.reason}"]}
    assert rows["runners"]["skipped"] == [] and rows["runners"]["nodes"] == len(graph)
    assert rows["runners"]["complete"] is True


def test_problem_sources_of_a_resolver_problem_and_an_unknown_file():
    """A resolver problem on a checkout file (``OWNER/NAME:path``) belongs to the checkout sources; a file under
    no input path to every source."""
    from graphkit.meta import Problem
    from graphkit.model import Evidence, Host

    g = Graph()
    g.add_node(Host(id="host:h1", name="h1", evidence=[Evidence(file="inv.yaml")]))  # runners: not a checkout
    g.meta = {"sources": {"github-actions": {"complete": True}, "runners": {"complete": True}},
              "inputs": {"github-actions": ["repos"], "runners": ["inv.yaml"]},
              "problems": [Problem(file="acme/app:.github/workflows/ci.yml", place="jobs.a", reason="r1"),
                           Problem(file="elsewhere.json", reason="r2")]}
    assert problem_sources(g) == [("github-actions", "acme/app:.github/workflows/ci.yml jobs.a: r1"),
                                  ("github-actions", "elsewhere.json: r2"), ("runners", "elsewhere.json: r2")]


def test_a_source_that_read_nothing_is_credited_with_no_node(bolt, driver, tmp_path: Path):
    """The example with its IAM export cut short (aws-iam reads nothing): before, aws-iam was counted the 37 nodes
    of the workflow checkouts (it matched no input path, like the checkout source) and the resolver's untrusted
    actors; now its row shows 0, and the other rows the nodes of the same build without aws-iam."""
    iam_file = tmp_path / "aws-iam.json"
    iam_file.write_text((EXAMPLE / "aws-iam.json").read_text(encoding="utf-8")[:200], encoding="utf-8")
    inputs = {"github-actions": [EXAMPLE / "repos"], "runners": [EXAMPLE / "inventory.yaml"]}
    graph = build_graph({**inputs, "aws-iam": [iam_file]}).graph
    assert graph.meta.sources["aws-iam"].items == 0
    alone = build_graph(inputs).graph
    expected = {s: sum(s in names for names in provenance(alone)[0].values()) for s in inputs}
    assert expected["github-actions"] > 30 and expected["runners"] > 30
    db = bolt["database"]
    wipe(driver, db)
    sync_graph(driver, graph, database=db, update_tag=13)
    rows = _status(driver, db)
    assert {s: r["nodes"] for s, r in rows.items()} == {**expected, "aws-iam": 0}
    assert (rows["aws-iam"]["complete"], rows["aws-iam"]["in_last_sync"]) == (False, True)
    assert len(rows["aws-iam"]["skipped"]) == 1
