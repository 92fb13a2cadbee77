"""Shared fixtures.  ``bolt``: the Bolt server of the Neo4j tests (see ``tests/bolt_server.py``)."""

from __future__ import annotations

import os

import pytest

from bolt_server import arcadedb_available, server_settings


@pytest.fixture(scope="session")
def bolt():
    """Connection settings ``{uri, user, password, database, engine}`` of a real Bolt server for the session.

    ArcadeDB started on free loopback ports (stopped at the end), or the Neo4j named by ``NEO4J_URI``.
    """
    if not os.environ.get("NEO4J_URI") and not arcadedb_available():
        pytest.skip("no Bolt server: arcadedb-embedded is not installed (pip install -e '.[test]') "
                    "and NEO4J_URI is not set")
    with server_settings() as settings:
        yield settings
