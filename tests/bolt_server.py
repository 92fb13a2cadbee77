"""A real Bolt server for the Neo4j tests: ArcadeDB with its Bolt plugin, or the Neo4j named by ``NEO4J_URI``.

Why ArcadeDB: CI has no Docker engine and cannot download Neo4j, but the PyPI
package ``arcadedb-embedded`` (test extra) bundles ArcadeDB's jars, its Bolt
plugin and a Java runtime.  It reports ``Neo4j/5.26.0 compatible`` and the
official ``neo4j`` driver talks Bolt 5.4 to it.  How to start it is described
in ``shared/docs/bolt-test-server.md``; this module follows it:

- the bundled ``jre/bin/java`` (the jars need Java 21), jars on the classpath,
  main class ``com.arcadedb.server.ArcadeDBServer``;
- Bolt and HTTP bound to free loopback ports, a fresh root directory (also
  the working directory: the server writes ``./log/``), the database created
  at start (``server.defaultDatabases``; Bolt cannot create databases);
- ready when ``RETURN 1`` succeeds *on the database* (the port opens about a
  second before the database exists);
- stopped with SIGTERM (under 2 s), killed if it lingers, and killed with the
  test process on Linux (``PR_SET_PDEATHSIG``) if pytest dies first.

When ``NEO4J_URI`` is set, :func:`server_settings` uses it instead (with
``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``): the same tests
then run against that Neo4j.  They delete every node carrying a graphkit
label in that database (graphkit data only; a re-sync restores it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["ArcadeBoltServer", "arcadedb_available", "server_settings"]

#: JVM options from the shared notes (startup about 3 s with SerialGC and C1 only).
JVM_OPTIONS = [
    "-Xmx1g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
    "--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
    "--add-opens=java.base/java.nio.channels.spi=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
]
DATABASE = "graphkit"
USER = "root"
#: A throwaway password for a loopback-only server living as long as the test session.
PASSWORD = "graphkit-test-only"


def arcadedb_available() -> bool:
    """True when the ``arcadedb_embedded`` package (with its JRE and jars) is importable."""
    try:
        import arcadedb_embedded  # noqa: F401
    except ImportError:
        return False
    return True


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: SIGTERM the server if the test process dies (no orphaned JVM)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class ArcadeBoltServer:
    """An ArcadeDB server with Bolt on free loopback ports, in a temporary root directory.

    Use as a context manager; ``uri``, ``user``, ``password`` and ``database``
    are set once :meth:`start` returns.

    Raises
    ------
    RuntimeError
        if the server does not answer ``RETURN 1`` on the database within
        ``timeout`` seconds (the server log tail is in the message).
    """

    def __init__(self, *, timeout: float = 60.0) -> None:
        import arcadedb_embedded

        self.home = Path(arcadedb_embedded.__file__).parent
        self.timeout = timeout
        self.bolt_port = _free_port()
        self.http_port = _free_port()
        self.uri = f"bolt://127.0.0.1:{self.bolt_port}"
        self.user, self.password, self.database = USER, PASSWORD, DATABASE
        self.root: Path | None = None
        self.proc: subprocess.Popen | None = None
        self.startup_seconds = 0.0

    def command(self, root: Path) -> list[str]:
        """The java command line (no secret in it but the throwaway test password)."""
        settings = {
            "server.plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
            "bolt.host": "127.0.0.1",
            "bolt.port": str(self.bolt_port),
            "server.httpIncomingHost": "127.0.0.1",
            "server.httpIncomingPort": str(self.http_port),
            "server.rootPath": str(root),
            "server.rootPassword": self.password,
            "server.defaultDatabases": f"{self.database}[{self.user}]",
            "bolt.defaultDatabase": self.database,
            "support.autoRegister": "false",
        }
        return [str(self.home / "jre" / "bin" / "java"), *JVM_OPTIONS,
                *(f"-Darcadedb.{k}={v}" for k, v in settings.items()),
                "-cp", str(self.home / "jars" / "*"), "com.arcadedb.server.ArcadeDBServer"]

    def start(self) -> "ArcadeBoltServer":
        """Start the server and wait until a query succeeds on the database."""
        from neo4j import GraphDatabase

        t0 = time.monotonic()
        self.root = Path(tempfile.mkdtemp(prefix="graphkit-arcadedb-"))
        log = open(self.root / "server.out", "wb")
        self.proc = subprocess.Popen(self.command(self.root), cwd=self.root, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL,
                                     preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        log.close()
        driver = GraphDatabase.driver(self.uri, auth=(self.user, self.password))
        try:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"ArcadeDB exited with {self.proc.returncode}: {self.log_tail()}")
                try:
                    # session.run, not execute_query: the latter retries silently for up to 30 s
                    with driver.session(database=self.database) as s:
                        s.run("RETURN 1 AS ok").consume()
                    break
                except Exception:
                    if time.monotonic() - t0 > self.timeout:
                        self.stop()
                        raise RuntimeError(f"ArcadeDB not ready after {self.timeout:.0f} s: {self.log_tail()}")
                    time.sleep(0.2)
        finally:
            driver.close()
        self.startup_seconds = time.monotonic() - t0
        return self

    def log_tail(self, n: int = 2000) -> str:
        """The end of the server's output (for error messages)."""
        try:
            return (self.root / "server.out").read_text(errors="replace")[-n:]  # type: ignore[operator]
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """SIGTERM the server (SIGKILL after 10 s) and delete its root directory."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> "ArcadeBoltServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def server_settings() -> Iterator[dict[str, str]]:
    """Connection settings of the Bolt server the tests use, started here when needed.

    Yields ``{uri, user, password, database, engine}``: from ``NEO4J_URI`` (and
    ``NEO4J_USERNAME``/``NEO4J_PASSWORD``/``NEO4J_DATABASE``) when set,
    otherwise of an ArcadeDB server started for the block and stopped after it.
    """
    if os.environ.get("NEO4J_URI"):
        yield {"uri": os.environ["NEO4J_URI"], "user": os.environ.get("NEO4J_USERNAME", "neo4j"),
               "password": os.environ.get("NEO4J_PASSWORD", ""),
               "database": os.environ.get("NEO4J_DATABASE", "neo4j"), "engine": "neo4j"}
        return
    with ArcadeBoltServer() as srv:
        yield {"uri": srv.uri, "user": srv.user, "password": srv.password, "database": srv.database,
               "engine": "arcadedb"}
