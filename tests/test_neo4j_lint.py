"""Every statement graphkit sends to Neo4j and every library file pass Neo4j's own Cypher front end
(``@neo4j-cypher/language-support``, pinned in ``tools/cypher-lint/package-lock.json``), for Cypher 5 and 25.

ArcadeDB (the test server) accepts Cypher that Neo4j refuses (``shortestPath((s)-[* {traversable: true}]->(n))``
among others), so the Bolt tests alone cannot show that the library runs on Neo4j; this does.  Errors fail;
warnings (deprecations, performance notes) are listed by ``python tools/cypher-lint/lint.py`` and fail here too,
except the ones in :data:`ACCEPTED_WARNINGS`.  Under ``GRAPHKIT_CI=1`` a missing node or package fails.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from conftest import require
from neo4j_helpers import ROOT

_spec = importlib.util.spec_from_file_location("cypher_lint", ROOT / "tools" / "cypher-lint" / "lint.py")
cypher_lint = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cypher_lint)  # type: ignore[union-attr]

#: Warnings accepted (message fragments); none so far.
ACCEPTED_WARNINGS: tuple[str, ...] = ()

BROKEN = {
    # Neo4j refuses property maps inside shortestPath (ArcadeDB runs it): the original failure
    "broken.shortest-path-properties": "MATCH (s:Runner {id: $id}) MATCH (n:Graphkit) "
                                       "MATCH p = shortestPath((s)-[* {traversable: true}]->(n)) RETURN p",
    "broken.syntax": "MATCH (n:Runner RETURN n",
    "broken.undefined-variable": "MATCH (n:Runner) RETURN m.id AS id",
    "ok.with-parameter": "MATCH (n:Runner {id: $id}) RETURN n.id AS id",
}


@pytest.fixture(scope="module")
def diagnostics() -> tuple[dict[str, str], list[dict]]:
    missing = cypher_lint.available()
    require(missing is None, f"Neo4j Cypher front end: {missing}")
    items = cypher_lint.representatives(cypher_lint.statements())
    return items, cypher_lint.lint({**items, **BROKEN})


def test_every_statement_and_library_file_passes_neo4j_front_end(diagnostics):
    items, found = diagnostics
    # what is linted: every library file and at least one statement of every generated family
    assert {f"library.{p.stem}" for p in (ROOT / "queries").glob("*.cypher")} <= set(items)
    for family in ("sync.constraint", "sync.create_nodes", "sync.nodes", "sync.relabel", "sync.edges.", "sync.edges_from_target.",
                   "sync.stale_nodes",
                   "sync.stale_edges", "sync.meta", "read.count_nodes", "read.count_edges", "read.walk",
                   "read.fetch", "read.find", "read.read_edges", "read.sync_meta"):
        assert any(n.startswith(family) for n in items), family
    ours = [d for d in found if not d["name"].startswith(("broken.", "ok."))]
    problems = [d for d in ours if d["severity"] == "error"
                or (d["severity"] == "warning" and not any(a in d["message"] for a in ACCEPTED_WARNINGS))]
    assert problems == [], "\n".join(f"{d['name']} (Cypher {d['version']}): {d['message']}" for d in problems)


def test_a_broken_query_fails_the_lint(diagnostics):
    """The lint can fail: each deliberately broken statement has an error in both Cypher versions."""
    _, found = diagnostics
    errors = {(d["name"], d["version"]) for d in found if d["severity"] == "error"}
    for name in BROKEN:
        expected = set() if name.startswith("ok.") else {(name, "5"), (name, "25")}
        assert {e for e in errors if e[0] == name} == expected, name
    msgs = [d["message"] for d in found if d["name"] == "broken.shortest-path-properties"]
    assert any("shortestPath(...) contains properties" in m for m in msgs)


def test_representatives_keep_one_statement_per_shape():
    every = cypher_lint.statements()
    reps = cypher_lint.representatives(every)
    assert len(reps) < len(every) / 4
    assert all(reps[n] == every[n] for n in reps)  # real statements, not rewritten ones
    # a statement of a new shape is kept
    extra = {"sync.nodes.Host": every["sync.nodes.Host"], "sync.nodes.Runner": every["sync.nodes.Runner"],
             "read.odd": "MATCH (n:Runner) RETURN n.name AS name"}
    assert set(cypher_lint.representatives(extra)) == {"sync.nodes.Host", "read.odd"}


def test_missing_tool_is_reported(monkeypatch, tmp_path: Path):
    monkeypatch.setattr(cypher_lint, "PACKAGE", tmp_path / "absent")
    assert "npm ci" in (cypher_lint.available() or "") or "node is not installed" in (cypher_lint.available() or "")
    with pytest.raises(RuntimeError):
        cypher_lint.lint({"x": "RETURN 1"})
