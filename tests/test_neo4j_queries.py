"""The Cypher library and the database backend against a real Bolt server, differentially: every library query
runs, and each one with a networkx counterpart returns the same rows (reached ids, counts, hops) on the bundled
example and on a corpus graph; ``blast-radius --backend neo4j`` returns the same document as the embedded
backend.  ``graphkit query`` and ``blast-radius --backend neo4j`` through the CLI."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.analysis import blast_radius
from graphkit.cli import app
from graphkit.errors import UnknownNodeError
from graphkit.graph import Graph
from graphkit.model import NodeKind
from graphkit.neo4j.connection import connect
from graphkit.neo4j.library import COUNTERPARTS, load_library, run_query
from graphkit.neo4j.reach import blast_radius_document as db_document, reached_subgraph
from graphkit.neo4j.sync import sync_graph
from graphkit.output import blast_radius_document

from neo4j_helpers import GHA, ROOT, corpus_graph, example_graph, normalise, settings, wipe

LIBRARY = load_library(ROOT / "queries")
GRAPHS = ["example", pytest.param("corpus", marks=[pytest.mark.corpus, pytest.mark.requires(
    GHA.is_dir(), reason=f"corpus not present at {GHA}", corpus=True)])]


@pytest.fixture(scope="module")
def driver(bolt):
    with connect(settings(bolt)) as d:
        yield d


@pytest.fixture(scope="module", params=GRAPHS)
def synced(request, bolt, driver, tmp_path_factory) -> tuple[str, Graph]:
    """The graph, synced alone into the database (tests are grouped by graph)."""
    g = example_graph() if request.param == "example" else corpus_graph(tmp_path_factory.mktemp("corpus"))
    wipe(driver, bolt["database"])
    sync_graph(driver, g, database=bolt["database"])
    return request.param, g


def _runners(g: Graph) -> list[str]:
    """Runners to start from: every runner of the example; in the corpus the inventory's runners and the
    inferred pools with the largest blast radius (the differential runs stay fast)."""
    ids = [n.id for n in g.nodes(NodeKind.RUNNER)]
    if len(ids) <= 5:
        return ids
    declared = [i for i in ids if not g.node(i).inferred]
    pools = sorted((i for i in ids if g.node(i).inferred), key=lambda i: (-len(blast_radius(g, i)), i))
    return declared + pools[:2]


#: Assets the inbound query starts from (every one of these kinds a runner reaches, a few per kind).
_ASSETS = (NodeKind.SECRET, NodeKind.CLOUD_ROLE, NodeKind.SIGNING_KEY, NodeKind.DEPLOYMENT_TARGET)


def _assets(g: Graph) -> list[str]:
    reached = set().union(*(blast_radius(g, r).ids for r in _runners(g)))
    return [i for kind in _ASSETS for i in sorted(n.id for n in g.nodes(kind) if n.id in reached)[:3]]


def _param_sets(query, g: Graph) -> list[dict]:
    used = query.used_params()
    if "target_id" in used:
        return [{"target_id": t} for t in _assets(g)]
    if "sources" in used:
        hosts = [h.id for h in g.nodes(NodeKind.HOST)]
        return [{"sources": _runners(g)[:2] + hosts[:1]}, {"sources": _runners(g)[-1:] + ["no:such-node"]}]
    if "runner_id" in used:
        return [{"runner_id": r} for r in _runners(g)]
    if "host_id" in used:
        return [{"host_id": n.id} for n in g.nodes(NodeKind.HOST)]
    if "limit" in used:
        return [{"limit": 100000}]
    return [{}]


@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_library_query_matches_networkx(name, synced, driver, bolt):
    label, g = synced
    query = LIBRARY[name]
    sets = _param_sets(query, g)
    assert sets, f"{label} graph has nothing to start {name} from"
    total = 0
    for params in sets:
        columns, rows = run_query(driver, query, params, database=bolt["database"])
        total += len(rows)
        assert all(set(r) == set(columns) for r in rows)  # (ArcadeDB names no columns for an empty result)
        cp = COUNTERPARTS.get(name)
        if cp is None:
            continue
        expected = cp.fn(g, params)
        assert normalise(rows, cp.columns) == normalise(expected, cp.columns), (label, name, params)
        if {"runner_id", "host_id"} & set(params) and "hops" in columns and "path" in columns:
            # the paths are real traversable paths of the reported length, from the source
            src = next(iter(params.values()))
            if name.startswith("blast-radius-"):  # the analysis' reach, not only a networkx BFS
                assert {r["id"] for r in rows} == blast_radius(g, src).ids
            for r in rows:
                assert r["path"][0] == src and r["path"][-1] == r["id"] and len(r["path"]) == r["hops"] + 1
                assert all(any(d["traversable"] for d in g.nx.get_edge_data(a, b).values())
                           for a, b in zip(r["path"], r["path"][1:]))
    assert total > 0, f"{name} answers nothing on the {label} graph: the comparison would prove nothing"


@pytest.mark.parametrize("synced", ["example"], indirect=True)
def test_example_answers(synced, driver, bolt):
    """A few answers read off the example's files, so that both sides being wrong the same way shows."""
    label, g = synced
    db = bolt["database"]
    _, rows = run_query(driver, LIBRARY["hosts-with-multiple-runners"], {}, database=db)
    assert [(r["id"], sorted(r["runners"])) for r in rows] == [
        ("host:build-01", ["runner:acme/build-01-a", "runner:acme/build-01-b"])]
    _, rows = run_query(driver, LIBRARY["tojson-secrets-on-self-hosted"], {}, database=db)
    assert [r["id"] for r in rows] == ["job:acme/docs/.github/workflows/docs.yml#build"]
    _, rows = run_query(driver, LIBRARY["runner-groups-open-to-public"], {}, database=db)
    assert [(r["id"], r["public_repositories"]) for r in rows] == [("runner_group:acme/shared-linux", ["acme/docs"])]
    _, rows = run_query(driver, LIBRARY["persistent-runners"], {}, database=db)
    assert {r["id"] for r in rows} == {"runner:acme/build-01-a", "runner:acme/build-01-b"}
    _, rows = run_query(driver, LIBRARY["critical-targets-from-runner"], {"runner_id": "runner:acme/build-01-a"},
                        database=db)
    assert rows and all(r["kind"] in ("signing_key", "deployment_target") for r in rows)


def test_database_backend_document_equals_embedded(synced, driver, bolt):
    """blast-radius --backend neo4j: reach computed in the database, the whole v1 document identical."""
    label, g = synced
    db = bolt["database"]
    sources = [[r] for r in _runners(g)] + [[h.id] for h in g.nodes(NodeKind.HOST)]
    if label == "corpus":
        sources += [[n.id for n in g.nodes(NodeKind.RUNNER)]]  # every runner at once
    for srcs in sources:
        doc, sub = db_document(driver, srcs, database=db)
        assert doc == blast_radius_document(g, srcs), (label, srcs)
        # only the reached part left the server
        assert set(sub.nx) == set(srcs) | {r["id"] for r in doc["reached"]}
    with pytest.raises(UnknownNodeError) as exc:
        reached_subgraph(driver, "runner:acme/build-01-x", database=db)
    if label == "example":
        assert "runner:acme/build-01-a" in exc.value.suggestions


# --------------------------------------------------------------------------- CLI


def _env(bolt) -> dict[str, str]:
    return {"NEO4J_URI": bolt["uri"], "NEO4J_USERNAME": bolt["user"], "NEO4J_PASSWORD": bolt["password"],
            "NEO4J_DATABASE": bolt["database"]}


@pytest.mark.parametrize("synced", ["example"], indirect=True)
def test_cli_query_needs_its_parameters_and_known_ids(synced, bolt, driver):
    """Fresh-user run: ``query blast-radius-runner`` without -p answered 67 rows for the ``// :param`` example's
    runner, and an unknown id answered 0 rows (exit 0).  A missing parameter is a usage error naming it; an id
    of no node is "no node with id", as ``blast-radius --backend neo4j``."""
    from graphkit.errors import UnknownNodeError
    from graphkit.neo4j.library import QueryError

    env, run = _env(bolt), CliRunner().invoke
    for name, param in (("blast-radius-runner", "runner_id"), ("who-reaches", "target_id"), ("choke-points", "limit")):
        res = run(app, ["query", name], env=env)
        assert res.exit_code == 2 and res.stdout == "", res.output
        assert f"query {name}: missing {param}" in " ".join(res.stderr.split())
    res = run(app, ["query", "blast-radius-runner", "-p", "runner_id=runner:acme/nope"], env=env)
    assert res.exit_code == 2 and res.stdout == ""
    assert "no node with id 'runner:acme/nope'" in " ".join(res.stderr.split())
    res = run(app, ["query", "who-reaches", "-p", "target_id=target:environment:acme/app:nope", "-f", "json"], env=env)
    assert res.exit_code == 2 and res.stdout == ""
    with pytest.raises(QueryError, match="needs --param runner_id=VALUE"):
        run_query(driver, LIBRARY["blast-radius-runner"], {}, database=bolt["database"])
    with pytest.raises(UnknownNodeError):
        run_query(driver, LIBRARY["blast-radius-host"], {"host_id": "host:nope"}, database=bolt["database"])
    _, rows = run_query(driver, LIBRARY["blast-radius-runner"], {"runner_id": "runner:acme/build-01-a"},
                        database=bolt["database"])
    assert {r["id"] for r in rows} == blast_radius(synced[1], "runner:acme/build-01-a").ids


@pytest.mark.parametrize("synced", ["example"], indirect=True)
def test_cli_query_and_backend(synced, bolt, tmp_path: Path):
    label, g = synced
    env = _env(bolt)
    run = CliRunner().invoke
    res = run(app, ["query"], env=env)
    assert res.exit_code == 0 and "blast-radius-runner" in res.output and "choke-points" in res.output
    res = run(app, ["query", "secrets-from-runner", "--param", "runner_id=runner:acme/build-01-a", "--format",
                    "json"], env=env)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["params"] == {"runner_id": "runner:acme/build-01-a"} and "hops" in doc["columns"]
    assert {r["id"] for r in doc["rows"]} == {x.id for x in blast_radius(g, "runner:acme/build-01-a")
                                              if x.kind is NodeKind.SECRET}
    res = run(app, ["query", "choke-points", "-p", "limit=3"], env=env)
    assert res.exit_code == 0 and "pairs" in res.output and bolt["password"] not in res.output
    assert run(app, ["query", "no-such-query"], env=env).exit_code == 2
    assert run(app, ["query", "choke-points", "-p", "runner_id=x"], env=env).exit_code == 2
    assert run(app, ["query", "choke-points", "-p", "limit"], env=env).exit_code == 2

    gfile = tmp_path / "g.json"
    g.save(gfile)
    for src in ("runner:acme/build-01-a", "host:build-01"):
        emb = run(app, ["blast-radius", "--graph", str(gfile), "--from", src, "--format", "json"])
        neo = run(app, ["blast-radius", "--backend", "neo4j", "--from", src, "--format", "json"], env=env)
        assert emb.exit_code == neo.exit_code == 0, neo.output
        assert json.loads(neo.stdout) == json.loads(emb.stdout)
    res = run(app, ["blast-radius", "--backend", "neo4j", "--from", "runner:acme/build-01-a"], env=env)
    assert res.exit_code == 0 and "Revocation plan" in res.output
    res = run(app, ["blast-radius", "--backend", "neo4j", "--from", "runner:nope"], env=env)
    assert res.exit_code == 2 and "no node with id" in res.output
    res = run(app, ["blast-radius", "--backend", "neo4j", "--graph", str(gfile), "--from", "host:build-01"], env=env)
    assert res.exit_code == 2


# --------------------------------------------------------------------------- Browser: drawn paths, README


@pytest.mark.parametrize("synced", ["example"], indirect=True)
def test_path_answers_are_paths_with_confidence_and_lifetime(synced, driver, bolt):
    """Queries answering with paths return real Path values (Browser draws them) over traversable relationships
    that carry confidence and lifetime; the inbound query finds the runners and the host of the example."""
    from neo4j.graph import Path as NeoPath

    from graphkit.neo4j.statements import traversable_types

    label, g = synced
    path_queries = [q for q in LIBRARY.values() if re.search(r"\bAS route\b", q.body)]
    assert {"who-reaches", "blast-radius-sources", "paths-runners-to-critical", "secrets-from-runner",
            "self-hosted-jobs-fork-pull-requests", "tokens-contents-write-on-persistent-runners"} <= {
        q.name for q in path_queries}
    drawn = 0
    for q in path_queries:
        values = {k: v for k, v in q.examples.items() if k in q.used_params()}
        with driver.session(database=bolt["database"]) as s:
            routes = [rec["route"] for rec in s.run(q.text, values)]
        for p in routes:
            assert isinstance(p, NeoPath) and len(p.relationships) >= 1, q.name
            for r in p.relationships:
                assert r["confidence"] in ("certain", "likely", "possible") and r["lifetime"], (q.name, r.type)
                if q.name not in ("self-hosted-jobs-fork-pull-requests",):
                    assert r.type in traversable_types(), (q.name, r.type)
            drawn += 1
    assert drawn > 20
    _, rows = run_query(driver, LIBRARY["who-reaches"], {"target_id": "target:environment:acme/app:production"},
                        database=bolt["database"])
    kinds = {r["id"]: r["kind"] for r in rows}
    assert kinds.get("host:build-01") == "host" and kinds.get("runner:acme/build-01-a") == "runner"
    if "untrusted" in {k.value for k in NodeKind}:  # untrusted entry points (fork PRs...) reach it too
        assert "untrusted" in set(kinds.values())


def _readme_neo4j_commands() -> list[list[str]]:
    """The ``graphkit ...`` lines of the README's Neo4j code block, split as a shell would."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Neo4j\n"):]
    block = section[section.index("```sh\n") + 6:]
    block = block[:block.index("```")]
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.startswith("graphkit ")]


@pytest.mark.parametrize("synced", ["example"], indirect=True)
def test_readme_neo4j_examples_run(synced, bolt, tmp_path: Path):
    """Every ``graphkit`` line of the README's Neo4j section runs against the Bolt server and answers something."""
    label, g = synced
    gfile = tmp_path / "graph.json"
    g.save(gfile)
    commands = _readme_neo4j_commands()
    assert sum(c[1] == "query" for c in commands) >= 6 and any(c[1] == "neo4j" for c in commands)
    for argv in commands:
        args = [str(gfile) if a == "graph.json" else a for a in argv[1:]]
        res = CliRunner().invoke(app, args, env=_env(bolt))
        assert res.exit_code == 0, (argv, res.output)
        if args[0] == "query" and len(args) > 1:
            if "json" in args:
                assert json.loads(res.stdout)["rows"], argv
            else:
                assert not re.search(r"^0 row\(s\)", res.output, re.M), argv


@pytest.mark.parametrize("synced", ["example"], indirect=True)
def test_backend_classifies_tokens_as_the_embedded_backend(synced, bolt, tmp_path: Path):
    """``blast-radius --backend neo4j --now T --tokens F``: the tokens are classified in this backend too (the
    README promises the same document): the whole JSON, ``time`` included, equals the embedded backend's, also
    for a source whose radius does not reach the STS session's role (its cap is read from the database, never
    "not in the graph"), and a record left out of the tokens file is an input problem of both (exit 3)."""
    _, g = synced
    role = "cloud_role:aws:arn:aws:iam::111122223333:role/acme-release"
    runners = sorted(n.id for n in g.nodes(NodeKind.RUNNER))
    jobs = sorted(n.id for n in g.nodes(NodeKind.JOB))
    outside = next(j for j in jobs if len(blast_radius(g, j)) and role not in {x.id for x in blast_radius(g, j)})
    inside = next(r for r in runners if role in {x.id for x in blast_radius(g, r)})
    tokens = tmp_path / "tok.yaml"
    tokens.write_text((ROOT / "examples" / "acme" / "issued-tokens.yaml").read_text(encoding="utf-8")
                      + "  - 42\n", encoding="utf-8")
    gfile = tmp_path / "g.json"
    g.save(gfile)
    run, env = CliRunner().invoke, _env(bolt)
    for src in (inside, outside):
        args = ["blast-radius", "--from", src, "--now", "2026-12-01T20:00:00Z", "--tokens", str(tokens),
                "--format", "json"]
        emb = run(app, [*args, "--graph", str(gfile)])
        neo = run(app, [*args, "--backend", "neo4j"], env=env)
        assert emb.exit_code == neo.exit_code == 3, neo.output
        doc = json.loads(neo.stdout)
        assert doc == json.loads(emb.stdout)
        status = {t["subject"]: t["status"] for t in doc["time"]["tokens"]}
        assert status[role] == "live" and "tokens[3]" in {p["place"] for p in doc["problems"]}
    res = run(app, ["blast-radius", "--backend", "neo4j", "--from", inside, "--now", "2026-12-01T20:00:00Z",
                    "--tokens", str(tokens)], env=env)
    assert res.exit_code == 3 and "acme-release" in res.stdout and "revoke" in res.stdout


def _generated(text: str) -> str:
    """``text`` with a runbook's ``Generated TIME;`` stamp made constant."""
    return re.sub(r"^Generated \S+;", "Generated T;", text, count=1, flags=re.M)


@pytest.mark.parametrize("synced", ["example"], indirect=True)
def test_backend_honours_runbook_no_plan_and_org_as_embedded(synced, bolt, tmp_path: Path):
    """``blast-radius --backend neo4j`` with ``--format runbook``, ``--no-plan``, ``--org`` (and ``--top``): the
    output equals the embedded backend's byte for byte (the README promises the same document): the runbook's
    checklist and script, no revocation with ``--no-plan``, ``untrusted:fork-pr --org acme`` expanded (72
    reached), without ``--org`` every fork-pr actor of the database, and an owner with no entry an empty radius."""
    _, g = synced
    gfile = tmp_path / "g.json"
    g.save(gfile)
    run, env = CliRunner().invoke, _env(bolt)
    cases = [["--from", "runner:acme/build-01-a", "--format", "runbook"],
             ["--from", "runner:acme/build-01-a", "--format", "runbook", "--top", "3"],
             ["--from", "runner:acme/build-01-a", "--no-plan", "--format", "json"],
             ["--from", "runner:acme/build-01-a", "--top", "2", "--format", "json"],
             ["--from", "untrusted:fork-pr", "--org", "acme", "--format", "json"],
             ["--from", "untrusted:fork-pr", "--format", "json"],
             ["--from", "untrusted:fork-pr", "--org", "acme"],
             ["--from", "untrusted:comment", "--org", "nobody", "--format", "json"]]
    outputs = []
    for args in cases:
        # one analysis time for both (the runbook's session-revocation Deny quotes it)
        args = [*args, "--now", "2026-12-01T20:00:00Z"]
        emb = run(app, ["blast-radius", *args, "--graph", str(gfile)])
        neo = run(app, ["blast-radius", *args, "--backend", "neo4j"], env=env)
        assert emb.exit_code == neo.exit_code == 0, (args, neo.output)
        # the runbook says when it was generated (the clock's second may tick between the two runs)
        assert _generated(neo.stdout) == _generated(emb.stdout), args
        outputs.append(neo.stdout)
    runbook, short, no_plan, top2, fork, fork_all, _, nobody = outputs
    assert runbook.startswith("# ") and "```sh" in runbook and "svc.sh uninstall" in runbook and short != runbook
    doc = json.loads(no_plan)
    assert doc["revocations"] == [] and doc["counts"]["revocations"] is None and doc["counts"]["reached"] == 69
    assert len(json.loads(top2)["revocations"]) == 2
    assert json.loads(fork)["counts"]["reached"] == 72 and json.loads(fork) == json.loads(fork_all)
    assert json.loads(nobody)["counts"]["reached"] == 0
