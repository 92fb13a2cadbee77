"""Sync against a real Bolt server (ArcadeDB started by the ``bolt`` fixture, or the Neo4j of ``NEO4J_URI``):
idempotence, exact round trip, stale-data removal with update tags scoped to complete sources, convergence
after an interruption, retries, and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from neo4j.exceptions import SessionExpired
from typer.testing import CliRunner

import graphkit.neo4j.sync as sync_mod
from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.graph import Graph
from graphkit.model import NODE_TYPES, NodeKind
from graphkit.neo4j.connection import DatabaseError, Neo4jSettings, connect
from graphkit.neo4j.reach import read_graph
from graphkit.neo4j.statements import label_of
from graphkit.neo4j.sync import database_counts, sync_graph

from neo4j_helpers import EXAMPLE, GHA, corpus_graph, example_graph, settings, snapshot, wipe


@pytest.fixture(scope="module")
def driver(bolt):
    with connect(settings(bolt)) as d:
        yield d


@pytest.fixture(scope="module")
def db(bolt) -> str:
    return bolt["database"]


@pytest.fixture(scope="module")
def example() -> Graph:
    return example_graph()


def _tags(driver, db) -> set[int]:
    with driver.session(database=db) as s:
        return {r["t"] for label in (label_of(k) for k in NODE_TYPES)
                for r in s.run(f"MATCH (n:{label}) RETURN DISTINCT n.update_tag AS t")}


def test_sync_example_twice_changes_nothing(driver, db, example):
    wipe(driver, db)
    first = sync_graph(driver, example, database=db, update_tag=1)
    assert database_counts(driver, database=db) == example.counts()
    assert sum(first.nodes.values()) == len(example) and sum(first.edges.values()) == example.nx.number_of_edges()
    before = snapshot(driver, db)
    second = sync_graph(driver, example, database=db, update_tag=2)
    assert database_counts(driver, database=db) == example.counts()
    assert snapshot(driver, db) == before  # every property but the update tag is unchanged
    assert second.removed_nodes == second.removed_edges == {}
    assert _tags(driver, db) == {2}
    assert second.complete_sources == ["aws-iam", "github-actions", "runners"]


def test_common_label_index_and_sync_status(driver, db, example):
    """Every graphkit node carries the common label (indexed); sync-status reports tags per source and skips."""
    from graphkit.neo4j.library import load_library, run_query
    from graphkit.neo4j.statements import COMMON_LABEL, SYNC_ID, SYNC_LABEL, SYNC_PROPS

    from neo4j_helpers import ROOT

    wipe(driver, db)
    sync_graph(driver, example, database=db, update_tag=7)
    with driver.session(database=db) as s:
        assert s.run(f"MATCH (n:{COMMON_LABEL}) RETURN count(n) AS c").single()["c"] == len(example)
        assert s.run(f"MATCH (n) WHERE NOT n:{COMMON_LABEL} AND NOT n:{SYNC_LABEL} "
                     "RETURN count(n) AS c").single()["c"] == 0
        indexes = s.run("SHOW INDEXES").data()
        meta = s.run(f"MATCH (m:{SYNC_LABEL} {{id: $id}}) RETURN properties(m) AS p", id=SYNC_ID).single()["p"]
    assert any(r["labelsOrTypes"] == [COMMON_LABEL] and r["properties"] == ["id"] for r in indexes)
    assert set(meta) == {"id", *SYNC_PROPS}
    _, rows = run_query(driver, load_library(ROOT / "queries")["sync-status"], {}, database=db)
    assert [(r["source"], r["last_update_tag"], r["in_last_sync"], r["complete"]) for r in rows] == [
        ("aws-iam", 7, True, True), ("github-actions", 7, True, True), ("runners", 7, True, True)]
    assert example.meta.problems == [] and [r["skipped"] for r in rows] == [[], [], []]  # (problems:
    # tests/test_neo4j_sync_status.py)


def test_nodes_of_an_older_sync_get_the_common_label(driver, db):
    """A database written before the common label existed: the next sync labels its nodes (no duplicates)."""
    from graphkit.model import Host
    from graphkit.neo4j.statements import COMMON_LABEL

    wipe(driver, db)
    with driver.session(database=db) as s:
        s.run("CREATE (n:Host {id: 'host:old', name: 'old', kind: 'host'})").consume()
    g = Graph()
    g.add_node(Host(id="host:old", name="old"))
    sync_graph(driver, g, database=db, update_tag=1)
    with driver.session(database=db) as s:
        rows = s.run("MATCH (n:Host {id: 'host:old'}) RETURN labels(n) AS l").data()
    assert len(rows) == 1 and COMMON_LABEL in rows[0]["l"]
    wipe(driver, db)


def test_uniqueness_constraint_per_label(driver, db, example):
    with driver.session(database=db) as s:
        rows = s.run("SHOW CONSTRAINTS").data()
    unique = {tuple(r["labelsOrTypes"]) for r in rows if "UNIQUE" in str(r["type"]).upper() and r["properties"] == ["id"]}
    assert {(label_of(k),) for k in NODE_TYPES} <= unique


def test_database_round_trip_is_exact(driver, db, example):
    sync_graph(driver, example, database=db, update_tag=3)
    back = read_graph(driver, database=db)
    assert back.to_dict()["nodes"] == example.to_dict()["nodes"]
    assert back.to_dict()["edges"] == example.to_dict()["edges"]
    assert back.meta.sources == example.meta.sources


def test_relationships_written_from_either_end_are_the_same(driver, db, example, monkeypatch):
    """A row written from its target (``MERGE (b)<-[r:T {key}]-(a)``, chosen for hubs) is the same relationship
    as from its source: both writings give the same database, and a re-sync written the other way round finds
    every relationship (MERGE creates no duplicate, reverses none)."""
    sent: list[str] = []
    real = sync_mod._write

    def spy(tx, query, params):
        sent.append(query)
        return real(tx, query, params)

    monkeypatch.setattr(sync_mod, "_write", spy)
    wipe(driver, db)
    sync_graph(driver, example, database=db, update_tag=1)
    chosen = snapshot(driver, db)
    assert any("]-(a) SET" in q for q in sent) and any("]->(b) SET" in q for q in sent)  # the example has both
    for always in (False, True):
        monkeypatch.setattr(sync_mod, "from_target", lambda graph, always=always: lambda s, k, t: always)
        wipe(driver, db)
        sync_graph(driver, example, database=db, update_tag=1)
        assert snapshot(driver, db) == chosen, always
    monkeypatch.setattr(sync_mod, "from_target", lambda graph: lambda s, k, t: False)
    result = sync_graph(driver, example, database=db, update_tag=2)  # over the database written from the targets
    assert database_counts(driver, database=db) == example.counts()
    assert snapshot(driver, db) == chosen and _tags(driver, db) == {2}
    assert result.removed_edges == {}


@pytest.mark.corpus
@pytest.mark.requires(GHA.is_dir(), reason=f"corpus not present at {GHA}", corpus=True)
def test_sync_corpus_twice_identical_counts(driver, db, tmp_path: Path):
    g = corpus_graph(tmp_path)
    assert len(g) > 500
    wipe(driver, db)
    sync_graph(driver, g, database=db, update_tag=1, batch_size=250)
    counts = database_counts(driver, database=db)
    before = snapshot(driver, db)
    result = sync_graph(driver, g, database=db, update_tag=2)
    assert counts == database_counts(driver, database=db) == g.counts()
    assert snapshot(driver, db) == before and not result.removed_nodes and not result.removed_edges


def _copy_example(tmp: Path) -> Path:
    dst = tmp / "acme"
    shutil.copytree(EXAMPLE, dst)
    return dst


def _build(root: Path, *, iam: bool = True) -> Graph:
    inputs = {"github-actions": [root / "repos"], "runners": [root / "inventory.yaml"]}
    if iam:
        inputs["aws-iam"] = [root / "aws-iam.json"]
    return build_graph(inputs).graph


def _ids(driver, db, label: str) -> dict[str, int]:
    with driver.session(database=db) as s:
        return {r["id"]: r["t"] for r in s.run(f"MATCH (n:{label}) RETURN n.id AS id, n.update_tag AS t")}


def _rel(driver, db, source: str, rel_type: str, target: str) -> bool:
    with driver.session(database=db) as s:
        return s.run(f"MATCH (a {{id: $a}})-[r:{rel_type}]->(b {{id: $b}}) RETURN count(r) AS c",
                     a=source, b=target).single()["c"] > 0


def test_stale_data_removed_only_for_complete_sources(driver, db, tmp_path: Path):
    """Three syncs, tags 1-2-3: a source read completely loses what disappeared; a partial one keeps it."""
    root = _copy_example(tmp_path)
    gone_wf = "workflow:acme/app/.github/workflows/ci.yml"
    gone_job = "job:acme/app/.github/workflows/ci.yml#test"
    eph = "runner:acme/eph-7f3a"
    wipe(driver, db)
    g1 = _build(root)
    sync_graph(driver, g1, database=db, update_tag=1)
    assert eph in _ids(driver, db, "Runner") and gone_wf in _ids(driver, db, "Workflow")
    assert _rel(driver, db, "runner:acme/build-01-a", "RECEIVES_JOB", gone_job)

    # tag 2: the inventory (complete) drops a runner and its host; ci.yml is deleted, but another workflow
    # file is unreadable, so the github-actions source is partial: its missing data must stay.
    inv = yaml.safe_load((root / "inventory.yaml").read_text())
    inv["runners"] = [r for r in inv["runners"] if r["name"] != "eph-7f3a"]
    inv["hosts"] = [h for h in inv["hosts"] if h["name"] != "ci-vm-7f3a"]
    (root / "inventory.yaml").write_text(yaml.safe_dump(inv, sort_keys=False))
    (root / "repos/acme__app/.github/workflows/ci.yml").unlink()
    broken = root / "repos/acme__app/.github/workflows/broken.yml"
    broken.write_text("on: [push\njobs: {")
    g2 = _build(root)
    assert g2.meta.sources["github-actions"].complete is False and eph not in g2 and gone_wf not in g2
    r2 = sync_graph(driver, g2, database=db, update_tag=2)
    assert r2.complete_sources == ["aws-iam", "runners"] and r2.partial_sources == ["github-actions"]
    runners = _ids(driver, db, "Runner")
    assert eph not in runners and "host:ci-vm-7f3a" not in _ids(driver, db, "Host")
    assert r2.removed_nodes == {"host": 1, "runner": 1}
    assert _ids(driver, db, "Workflow")[gone_wf] == 1  # partial source: kept, with its old tag
    assert _ids(driver, db, "Job")[gone_job] == 1
    assert _rel(driver, db, "runner:acme/build-01-a", "RECEIVES_JOB", gone_job)
    assert runners["runner:acme/build-01-a"] == 2

    # tag 3: github-actions complete again, and no aws-iam input at all: ci.yml's nodes and edges go,
    # the IAM nodes (a source not read in this sync) stay.
    broken.unlink()
    g3 = _build(root, iam=False)
    iam_before = _ids(driver, db, "CloudPolicy")
    assert iam_before
    r3 = sync_graph(driver, g3, database=db, update_tag=3)
    assert r3.complete_sources == ["github-actions", "runners"]
    assert gone_wf not in _ids(driver, db, "Workflow") and gone_job not in _ids(driver, db, "Job")
    assert not _rel(driver, db, "runner:acme/build-01-a", "RECEIVES_JOB", gone_job)
    assert r3.removed_nodes.get("workflow") == 1 and r3.removed_nodes.get("job") == 2
    assert r3.removed_edges.get("receives_job", 0) >= 1
    assert _ids(driver, db, "CloudPolicy") == iam_before  # scoped: not read this time, nothing removed
    for kind in NODE_TYPES:  # everything of the new graph is there, stamped 3
        in_db = _ids(driver, db, label_of(kind))
        assert all(in_db.get(n.id) == 3 for n in g3.nodes(kind)), kind


def _meta(driver, db) -> dict:
    from graphkit.neo4j.statements import SYNC_ID, SYNC_LABEL
    with driver.session(database=db) as s:
        return s.run(f"MATCH (m:{SYNC_LABEL} {{id: $id}}) RETURN properties(m) AS p", id=SYNC_ID).single()["p"]


def test_sync_of_other_inputs_is_refused_unless_replace(driver, db, example, tmp_path: Path):
    """The acme example, then the corpus (other github-actions and runners inputs) into the same database: the
    corpus sync would remove acme's data as stale, so it is refused before writing anything; --replace lets it."""
    from graphkit.neo4j.sync import OtherInputsError

    wipe(driver, db)
    sync_graph(driver, example, database=db, update_tag=1)
    assert json.loads(_meta(driver, db)["inputs_json"]) == {
        "aws-iam": [str(EXAMPLE / "aws-iam.json")], "github-actions": [str(EXAMPLE / "repos")],
        "runners": [str(EXAMPLE / "inventory.yaml")]}
    before = snapshot(driver, db, drop=())
    corpus = corpus_graph(tmp_path)
    with pytest.raises(OtherInputsError) as err:
        sync_graph(driver, corpus, database=db, update_tag=2)
    assert err.value.changed == {
        "github-actions": ([str(EXAMPLE / "repos")], [str(GHA.resolve())]),
        "runners": ([str(EXAMPLE / "inventory.yaml")], [str(tmp_path / "corpus-inventory.yaml")])}
    assert snapshot(driver, db, drop=()) == before  # nothing written, nothing removed
    assert "--replace" in str(err.value) and "one organization's inputs per database" in str(err.value)

    result = sync_graph(driver, corpus, database=db, update_tag=3, replace=True)
    runners = _ids(driver, db, "Runner")
    assert "runner:acme/build-01-a" not in runners
    assert set(runners) == {r.id for r in corpus.nodes(NodeKind.RUNNER)} and set(runners.values()) == {3}
    assert result.removed_nodes["runner"] == 3 and result.removed_nodes["workflow"] > 0
    assert _ids(driver, db, "CloudPolicy")  # aws-iam: not read by the corpus sync, kept
    assert json.loads(_meta(driver, db)["inputs_json"]) == {
        "aws-iam": [str(EXAMPLE / "aws-iam.json")], "github-actions": [str(GHA.resolve())],
        "runners": [str(tmp_path / "corpus-inventory.yaml")]}
    again = sync_graph(driver, corpus, database=db, update_tag=4)  # the same inputs again: no question
    assert again.removed_nodes == {} and database_counts(driver, database=db)["nodes"]["runner"] == len(
        list(corpus.nodes(NodeKind.RUNNER)))


def test_sync_into_a_database_without_a_record_of_inputs_is_refused(driver, db, example):
    """graphkit data without inputs_json (an older graphkit wrote it): which inputs it came from is unknown, so
    removal is not risked without --replace."""
    from graphkit.neo4j.statements import SYNC_LABEL
    from graphkit.neo4j.sync import OtherInputsError

    wipe(driver, db)
    sync_graph(driver, example, database=db, update_tag=1)
    with driver.session(database=db) as s:
        s.run(f"MATCH (m:{SYNC_LABEL}) REMOVE m.inputs_json").consume()
    with pytest.raises(OtherInputsError) as err:
        sync_graph(driver, example, database=db, update_tag=2)
    assert set(err.value.changed) == {"aws-iam", "github-actions", "runners"}
    assert "inputs the database did not record" in str(err.value)
    assert sync_graph(driver, example, database=db, update_tag=3, cleanup=False).removed_nodes == {}  # no removal
    assert sync_graph(driver, example, database=db, update_tag=4).removed_nodes == {}  # recorded again


def test_interrupted_sync_converges(driver, db, example, monkeypatch):
    wipe(driver, db)
    sync_graph(driver, example, database=db, update_tag=1)
    clean = snapshot(driver, db)
    wipe(driver, db)
    done = []

    def interrupt(n: int, what: str) -> None:
        done.append(n)
        if sum(done) > len(example) // 2:
            raise KeyboardInterrupt("connection lost")

    with pytest.raises(KeyboardInterrupt):
        sync_graph(driver, example, database=db, update_tag=2, batch_size=20, progress=interrupt)
    assert database_counts(driver, database=db) != example.counts()
    sync_graph(driver, example, database=db, update_tag=3)
    assert snapshot(driver, db) == clean and _tags(driver, db) == {3}


def test_transient_errors_are_retried_by_the_driver(driver, db, example, monkeypatch):
    calls = {"n": 0}
    real = sync_mod._write

    def flaky(tx, query, params):
        calls["n"] += 1
        if calls["n"] in (3, 7):  # the driver retries the transaction function on retryable errors
            raise SessionExpired("simulated: connection dropped")
        return real(tx, query, params)

    monkeypatch.setattr(sync_mod, "_write", flaky)
    wipe(driver, db)
    sync_graph(driver, example, database=db, update_tag=1)
    assert database_counts(driver, database=db) == example.counts()


# --------------------------------------------------------------------------- CLI


def _env(bolt) -> dict[str, str]:
    return {"NEO4J_URI": bolt["uri"], "NEO4J_USERNAME": bolt["user"], "NEO4J_PASSWORD": bolt["password"],
            "NEO4J_DATABASE": bolt["database"]}


def test_cli_sync_from_graph_file_and_inputs(bolt, driver, db, example, tmp_path: Path):
    gfile = tmp_path / "g.json"
    example.save(gfile)
    wipe(driver, db)
    res = CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(gfile)], env=_env(bolt))
    assert res.exit_code == 0, res.output
    assert "synced" in res.output and "relationships" in res.output and "RECEIVES_JOB" not in res.output
    assert bolt["password"] not in res.output
    res = CliRunner().invoke(app, ["neo4j", "sync", "--json", "--github-actions", str(EXAMPLE / "repos"),
                                   "--runners", str(EXAMPLE / "inventory.yaml"), "--aws-iam",
                                   str(EXAMPLE / "aws-iam.json"), "--uri", bolt["uri"], "--user", bolt["user"],
                                   "--password", bolt["password"], "--database", bolt["database"]], env={})
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["in_database"] == example.counts() and summary["removed_nodes"] == {}
    assert bolt["password"] not in res.output


def test_cli_sync_of_other_inputs_exits_2_and_replace_removes(bolt, driver, db, example, tmp_path: Path):
    """README "Neo4j": the acme example's graph file, then the corpus' (the fresh-user run that lost acme's
    github-actions and runners data: "147 stale item(s) removed")."""
    acme, corpus = tmp_path / "g.json", tmp_path / "corpus.json"
    example.save(acme)
    corpus_graph(tmp_path).save(corpus)
    wipe(driver, db)
    assert CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(acme)], env=_env(bolt)).exit_code == 0
    before = database_counts(driver, database=db)
    res = CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(corpus)], env=_env(bolt))
    assert res.exit_code == 2, res.output
    msg = " ".join(res.stderr.split())
    assert msg.startswith("refused: the database holds data of other inputs (github-actions synced from "
                          f"{EXAMPLE / 'repos'}, this sync reads {GHA.resolve()}; runners synced from ")
    assert msg.endswith("or pass --replace to replace that data with this sync's")
    assert database_counts(driver, database=db) == before
    res = CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(corpus), "--replace", "--json"], env=_env(bolt))
    assert res.exit_code == 0, res.output
    removed = json.loads(res.stdout)["removed_nodes"]
    assert removed["runner"] == 3 and removed["job"] > 0
    assert "runner:acme/build-01-a" not in _ids(driver, db, "Runner")


def test_cli_sync_wrong_password_and_unreachable_server(bolt, example, tmp_path: Path):
    gfile = tmp_path / "g.json"
    example.save(gfile)
    bad = {**_env(bolt), "NEO4J_PASSWORD": "not-the-password-4711"}
    res = CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(gfile)], env=bad)
    assert res.exit_code == 1 and "error:" in res.output
    assert "not-the-password-4711" not in res.output
    res = CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(gfile), "--uri", "bolt://127.0.0.1:9"],
                             env=_env(bolt))
    assert res.exit_code == 1 and "unavailable" in res.output and bolt["password"] not in res.output


def test_connect_errors_are_database_errors():
    with pytest.raises(DatabaseError, match="unavailable"):
        with connect(Neo4jSettings(uri="bolt://127.0.0.1:9", password="x-secret-x")):
            pass


def _checkout_graph(tmp: Path, repo: str, name: str, monkeypatch, *, roots: bool = True) -> Path:
    """``cd DIR && graphkit build --github-actions . -o NAME`` in a copy of one acme checkout (``repo``);
    ``roots`` False: the graph file as a graphkit that did not record ``input_roots`` wrote it."""
    checkout = tmp / repo
    shutil.copytree(EXAMPLE / "repos" / f"acme__{repo}", checkout)
    monkeypatch.chdir(checkout)
    res = CliRunner().invoke(app, ["build", "--github-actions", ".", "-o", name])
    assert res.exit_code == 0, res.output
    if not roots:
        doc = json.loads((checkout / name).read_text())
        del doc["meta"]["input_roots"]
        (checkout / name).write_text(json.dumps(doc))
    return checkout / name


@pytest.mark.parametrize("roots", [True, False])
def test_cli_sync_of_two_checkouts_built_as_dot_is_refused(bolt, driver, db, tmp_path: Path, monkeypatch, roots):
    """Fresh-user run: two checkouts each built with ``--github-actions .`` record the same relative input; the
    second sync removed the first's data ("42 stale item(s) removed").  The inputs compared are absolute (recorded
    by the build, or, for a graph file without them, resolved against the graph file's folder)."""
    gf = _checkout_graph(tmp_path, "app", "gf.json", monkeypatch, roots=roots)
    gj = _checkout_graph(tmp_path, "infra", "gj.json", monkeypatch, roots=roots)
    assert json.loads(gf.read_text())["meta"]["inputs"] == {"github-actions": ["."]}
    wipe(driver, db)
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(gf)], env=_env(bolt)).exit_code == 0
    assert json.loads(_meta(driver, db)["inputs_json"]) == {"github-actions": [str((tmp_path / "app").resolve())]}
    before = snapshot(driver, db, drop=())
    res = CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(gj)], env=_env(bolt))
    assert res.exit_code == 2, res.output
    msg = " ".join(res.stderr.split())
    assert msg.startswith(f"refused: the database holds data of other inputs (github-actions synced from "
                          f"{(tmp_path / 'app').resolve()}, this sync reads {(tmp_path / 'infra').resolve()}")
    assert snapshot(driver, db, drop=()) == before  # acme/app kept, nothing written
    res = CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(gf), "--json"], env=_env(bolt))
    assert res.exit_code == 0 and json.loads(res.stdout)["removed_nodes"] == {}  # the same inputs: no question


def test_cli_sync_of_the_same_checkout_moved_is_not_refused(bolt, driver, db, tmp_path: Path, monkeypatch):
    """The same repository checked out in another workspace (a CI job's fresh folder): the paths differ but the
    repositories read are in the database already, so these are the same inputs (not refused, nothing stale)."""
    g1 = _checkout_graph(tmp_path / "ws1", "app", "g.json", monkeypatch)
    g2 = _checkout_graph(tmp_path / "ws2", "app", "g.json", monkeypatch)
    wipe(driver, db)
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(g1)], env=_env(bolt)).exit_code == 0
    res = CliRunner().invoke(app, ["neo4j", "sync", "--graph", str(g2), "--json"], env=_env(bolt))
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["removed_nodes"] == {}
    assert json.loads(_meta(driver, db)["inputs_json"]) == {"github-actions": [str((tmp_path / "ws2" / "app").resolve())]}
