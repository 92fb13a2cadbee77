"""A sync into a database holding no graphkit node skips the stale-data scans (nothing can be stale: every graphkit
relationship joins two graphkit nodes); a database holding one runs them (fake driver: the statements sent)."""

import json
from pathlib import Path

import pytest

from graphkit.build import build_graph
from graphkit.neo4j.sync import input_set, sync_graph

ROOT = Path(__file__).resolve().parents[1]


class _Tx:
    graph = None  # the graph being synced (set by the test)

    def __init__(self, held: bool) -> None:
        self.held = held

    def run(self, query: str, params: dict | None = None):
        tx = self

        class _Result:
            def single(self):
                if "removed" in query:
                    return {"removed": 0}
                if "GraphkitSync" in query:  # the record of inputs: this graph's, synced before (when held)
                    return {"p": {"inputs_json": json.dumps(input_set(tx.graph.meta))}} if tx.held else None
                return {"id": "runner:acme/x"} if tx.held else None

            def consume(self):
                return None
        return _Result()


class _Session:
    def __init__(self, held: bool, sent: list[str]) -> None:
        self.held, self.sent = held, sent

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def execute_write(self, fn, *args):
        self.sent.append(args[0] if args else fn.__name__)
        return fn(_Tx(self.held), *args)

    def execute_read(self, fn, *args):
        self.sent.append(fn.__name__)
        return fn(_Tx(self.held), *args)


class _Driver:
    def __init__(self, held: bool) -> None:
        self.held, self.sent = held, []

    def session(self, database: str):
        return _Session(self.held, self.sent)


@pytest.mark.parametrize("held", [False, True])
def test_stale_scans_only_when_the_database_held_graphkit_nodes(held):
    g = build_graph({"runners": [ROOT / "examples/acme/inventory.yaml"]}).graph
    _Tx.graph = g
    driver = _Driver(held)
    sync_graph(driver, g, database="db")
    stale = [q for q in driver.sent if "DELETE" in q]
    assert "_any_node" in driver.sent
    assert (len(stale) > 0) == held


def test_recorded_inputs_never_hold_a_credential_of_an_input_url():
    """input_set is stored in the database (GraphkitSync.inputs_json): a URL's userinfo is written ***."""
    from graphkit.meta import GraphMeta
    token = "glpat-" + "abcdefghij" * 2
    meta = GraphMeta(sources={"gitlab-ci": {"complete": True}},
                     inputs={"gitlab-ci": [f"https://ci:{token}@gitlab.example.com/g/p=/tmp/co"]})
    got = input_set(meta)
    assert token not in json.dumps(got) and got["gitlab-ci"][0].startswith("https:/***@gitlab.example.com/g/p=")
