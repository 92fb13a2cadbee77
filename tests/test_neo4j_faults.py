"""Neo4j faults: a sync cut by the server dying converges when run again; an unreachable, silent or
password-refusing server is a clear error that never hangs and never shows the password.

The interrupted sync runs against its own ArcadeDB server (``tests/bolt_server.py``), killed with SIGKILL
half-way through the sync and restarted on the same data directory.  Managed transactions are retried by the
driver up to ``max_transaction_retry_time``
(https://neo4j.com/docs/api/python-driver/current/api.html#max-transaction-retry-time); the test's driver
lowers it so that the cut is seen at once.
"""

from __future__ import annotations

import os
import socket
import threading
from unittest import mock

import pytest

from bolt_server import ArcadeBoltServer, arcadedb_available
from conftest import require
from graphkit.neo4j.connection import DatabaseError, Neo4jSettings, _message, connect
from graphkit.neo4j.sync import database_counts, sync_graph
from neo4j_helpers import example_graph, snapshot, wipe


class RestartableServer(ArcadeBoltServer):
    """An ArcadeDB server that can be killed (SIGKILL: no clean shutdown) and started again on its data."""

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()
        self.proc = None

    def restart(self) -> "RestartableServer":
        root = self.root
        with mock.patch("bolt_server.tempfile.mkdtemp", return_value=str(root)):
            return self.start()  # type: ignore[return-value]


def _settings(srv: ArcadeBoltServer) -> Neo4jSettings:
    return Neo4jSettings(uri=srv.uri, user=srv.user, password=srv.password, database=srv.database)


def test_sync_cut_by_a_killed_server_converges_on_rerun():
    require(arcadedb_available() and not os.environ.get("NEO4J_URI"),
            "needs arcadedb-embedded (pip install -e '.[test]') to start and kill a server of its own")
    import neo4j

    example = example_graph()
    with RestartableServer() as srv:
        s = _settings(srv)
        with connect(s) as driver:
            sync_graph(driver, example, database=s.database, update_tag=1)
            clean = snapshot(driver, s.database)
            wipe(driver, s.database)
        written: list[int] = []

        def kill_half_way(n: int, what: str) -> None:
            written.append(n)
            if sum(written) > len(example) // 2 and srv.proc is not None:
                srv.kill()

        driver = neo4j.GraphDatabase.driver(s.uri, auth=(s.user, s.password), max_transaction_retry_time=1.0,
                                            connection_timeout=2.0)
        try:
            with pytest.raises((neo4j.exceptions.DriverError, neo4j.exceptions.Neo4jError, OSError)):
                sync_graph(driver, example, database=s.database, update_tag=2, batch_size=10,
                           progress=kill_half_way)
        finally:
            driver.close()
        assert srv.proc is None, "the server was killed during the sync"

        srv.restart()
        with connect(s) as driver:
            partial = database_counts(driver, database=s.database)
            assert partial != example.counts()  # the cut left a partial graph
            sync_graph(driver, example, database=s.database, update_tag=3)
            assert database_counts(driver, database=s.database) == example.counts()
            assert snapshot(driver, s.database) == clean


def _bounded(fn, seconds: float = 60.0) -> BaseException | None:
    """Run ``fn`` in a thread; the exception it raised (None if none).  Fails if it is still running after
    ``seconds`` (a liveness bound: a hang, not a speed check)."""
    box: list[BaseException | None] = [None]

    def run() -> None:
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box[0] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still waiting after {seconds:.0f} s: a hang"
    return box[0]


def test_silent_server_is_an_error_not_a_hang():
    """A port that accepts TCP but never speaks Bolt (a firewall, a wrong service): DatabaseError."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    secret = "silent-server-pw-8813"
    try:
        def attempt() -> None:
            with connect(Neo4jSettings(uri=f"bolt://127.0.0.1:{port}", password=secret)):
                pass
        exc = _bounded(attempt)
    finally:
        listener.close()
    assert isinstance(exc, DatabaseError), repr(exc)
    assert secret not in str(exc) and "127.0.0.1" in str(exc)


def test_unreachable_server_is_a_clear_error():
    exc = _bounded(lambda: connect(Neo4jSettings(uri="bolt://127.0.0.1:9", password="pw-unreach-1")).__enter__())
    assert isinstance(exc, DatabaseError) and "unavailable" in str(exc) and "pw-unreach-1" not in str(exc)
    assert "\n" not in str(exc)  # the driver's message spans lines: one line here


def test_unreachable_server_message_is_one_line_on_the_command_line():
    """The driver's two-line message printed as ``...:\\nFailed to establish...`` (a literal backslash-n)."""
    from pathlib import Path

    from typer.testing import CliRunner

    from graphkit.cli import app
    repos = Path(__file__).resolve().parents[1] / "examples" / "acme" / "repos"
    res = CliRunner().invoke(app, ["neo4j", "sync", "--github-actions", str(repos), "--uri", "bolt://127.0.0.1:9"])
    assert res.exit_code == 1, res.output
    text = res.stderr
    assert "server unavailable (Couldn't connect to 127.0.0.1:9" in text and "\\n" not in text
    assert "Failed to establish connection" in " ".join(text.split())
    assert _message(Exception("a\n  b\tc"), Neo4jSettings()) == "a b c"


@pytest.mark.parametrize("password", ["e", "at", "ion", "not-the-password-4711"])
def test_wrong_password_names_no_part_of_it(bolt, password):
    s = Neo4jSettings(uri=bolt["uri"], user=bolt["user"], password=password, database=bolt["database"])

    def attempt() -> None:
        with connect(s):
            pass
    exc = _bounded(attempt)
    assert isinstance(exc, DatabaseError), repr(exc)
    text = str(exc)
    assert "authentication failed" in text and "***" not in text
    if len(password) > 3:
        assert password not in text


def test_message_is_withheld_whole_when_it_holds_the_password():
    """Masking the password inside a message spells a short one out (``***uthentic***tion`` for ``a``)."""
    msg = "The client is unauthorized due to authentication failure."
    assert _message(Exception(msg), Neo4jSettings(password="a")) == \
        "Exception, message withheld: it may contain the password"
    assert _message(Exception(msg), Neo4jSettings(password="long-unused-password")) == msg
    assert "pw" not in _message(Exception("bad uri bolt://u:pw@h"), Neo4jSettings(uri="bolt://u:pw@h"))
    assert Neo4jSettings(uri="bolt://u:pw@db.test:7687").display_uri == "bolt://db.test:7687"
    assert "secret" not in repr(Neo4jSettings(uri="bolt://[::1", password="secret"))
