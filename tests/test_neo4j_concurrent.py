"""Two ``graphkit neo4j sync`` runs into one database at once (against the real Bolt server): a batch that loses
the create race on the uniqueness constraint is run again, and both syncs succeed with the graph complete, without
duplicates, into an empty database and over one already synced (where the older sync must not remove what the
newer one wrote)."""

from __future__ import annotations

import threading

import pytest
from neo4j.exceptions import ClientError, ConstraintError

import graphkit.neo4j.sync as sync_mod
from graphkit.graph import Graph
from graphkit.model import NODE_TYPES
from graphkit.neo4j.connection import connect
from graphkit.neo4j.statements import SYNC_ID, SYNC_LABEL, label_of
from graphkit.neo4j.sync import database_counts, sync_graph, write_retrying

from neo4j_helpers import example_graph, settings, snapshot, wipe


@pytest.fixture(scope="module")
def example() -> Graph:
    return example_graph()


@pytest.fixture(scope="module")
def reference(bolt, example) -> tuple[list, list]:
    """The database after one sync alone (properties but the update tag)."""
    with connect(settings(bolt)) as d:
        wipe(d, bolt["database"])
        sync_graph(d, example, database=bolt["database"], update_tag=1)
        return snapshot(d, bolt["database"])


def _complete_without_duplicates(bolt, example, reference) -> None:
    db = bolt["database"]
    with connect(settings(bolt)) as d:
        assert database_counts(d, database=db) == example.counts()
        with d.session(database=db) as s:
            for label in (label_of(k) for k in NODE_TYPES):
                dup = s.run(f"MATCH (n:{label}) WITH n.id AS id, count(*) AS c WHERE c > 1 RETURN id").data()
                assert dup == [], label
            dup = s.run("MATCH (a)-[r]->(b) WITH a.id AS a, type(r) AS t, r.key AS k, b.id AS b, count(*) AS c "
                        "WHERE c > 1 RETURN a, t, k, b").data()
            assert dup == []
        assert snapshot(d, db) == reference


def _two_syncs(bolt, example, tags: tuple[int, int], batch_size: int) -> list[BaseException]:
    """Run two syncs of ``example`` at once (a driver each, as two processes would); their errors."""
    errors: list[BaseException] = []

    def run(tag: int) -> None:
        try:
            with connect(settings(bolt)) as d:
                sync_graph(d, example, database=bolt["database"], update_tag=tag, batch_size=batch_size)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in tags]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    return errors


def test_two_syncs_into_an_empty_database(bolt, example, reference):
    for _ in range(3):
        with connect(settings(bolt)) as d:
            wipe(d, bolt["database"])
        assert _two_syncs(bolt, example, (2, 3), batch_size=10) == []
        _complete_without_duplicates(bolt, example, reference)


def test_two_syncs_over_a_synced_database_keep_everything(bolt, example, reference):
    """Both stamp what they write; the older (tag 2) removes nothing the newer (tag 3) wrote, the newer nothing
    both wrote; the bookkeeping node is the newest sync's."""
    for round_ in range(3):
        with connect(settings(bolt)) as d:
            wipe(d, bolt["database"])
            sync_graph(d, example, database=bolt["database"], update_tag=1)
        assert _two_syncs(bolt, example, (10 * round_ + 2, 10 * round_ + 3), batch_size=10) == []
        _complete_without_duplicates(bolt, example, reference)
        with connect(settings(bolt)) as d, d.session(database=bolt["database"]) as s:
            tag = s.run(f"MATCH (m:{SYNC_LABEL} {{id: $id}}) RETURN m.update_tag AS t", id=SYNC_ID).single()["t"]
            tags = {r["t"] for r in s.run("MATCH (n:Host) RETURN DISTINCT n.update_tag AS t")}
        assert tag == 10 * round_ + 3 and tags == {10 * round_ + 3}


def test_a_batch_that_loses_the_create_race_is_run_again(bolt, example, reference, monkeypatch):
    """Deterministic: while the sync's first node batch is open, another session creates one of its nodes and
    commits; the batch's commit then fails on the uniqueness constraint (ArcadeDB checks at commit; Neo4j makes
    the other session wait for the batch instead) and is run again, finding the node."""
    db = bolt["database"]
    with connect(settings(bolt)) as d:
        wipe(d, db)
    first = next(n for n in example.nodes() if label_of(n.spec.kind) == "Host")
    real_write, runs, done = sync_mod._write, [], threading.Event()

    def racing_write(tx, query, params):
        real_write(tx, query, params)
        runs.append(query)
        rows = params.get("rows") or []
        if not done.is_set() and any(r.get("id") == first.id for r in rows):
            done.set()

            def rival() -> None:
                with connect(settings(bolt)) as other, other.session(database=db) as s:
                    try:
                        s.run(f"CREATE (n:Host:Graphkit {{id: $id}})", id=first.id).consume()
                    except ClientError:  # Neo4j: the batch committed first
                        pass
            t = threading.Thread(target=rival)
            t.start()
            t.join(timeout=3)  # ArcadeDB: committed; Neo4j: waits on the batch's lock until it commits

    monkeypatch.setattr(sync_mod, "_write", racing_write)
    with connect(settings(bolt)) as d:
        sync_graph(d, example, database=db, update_tag=1, batch_size=10)
    monkeypatch.undo()
    _complete_without_duplicates(bolt, example, reference)
    host_batches = [q for q in runs if isinstance(q, tuple) and "CREATE (n:Host:Graphkit" in q[0]]
    if bolt["engine"] == "arcadedb":
        assert len(host_batches) == 2  # the batch that lost the race, and its second run


class _Session:
    """A session whose writes fail with the given errors first."""

    def __init__(self, *errors: Exception) -> None:
        self.errors, self.calls = list(errors), 0

    def execute_write(self, fn, *args):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)


def _constraint() -> ConstraintError:
    return ConstraintError._hydrate_neo4j(code="Neo.ClientError.Schema.ConstraintValidationFailed",
                                          message="Node already exists with label and property")


def test_write_retrying_retries_the_constraint_race_only():
    pauses: list[float] = []
    session = _Session(_constraint(), _constraint())
    write_retrying(session, "RETURN 1", {}, pause=pauses.append)
    assert session.calls == 3 and pauses == [0.1, 0.2]
    session = _Session(*[_constraint() for _ in range(3)])
    with pytest.raises(ConstraintError):  # a real violation: given up after the attempts
        write_retrying(session, "RETURN 1", {}, attempts=3, pause=pauses.append)
    assert session.calls == 3
    other = ClientError._hydrate_neo4j(code="Neo.ClientError.Statement.SyntaxError", message="bad")
    session = _Session(other)
    with pytest.raises(ClientError):
        write_retrying(session, "RETURN 1", {}, pause=pauses.append)
    assert session.calls == 1
