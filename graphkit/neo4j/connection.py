"""Connection settings for Neo4j (or any Bolt server speaking Cypher), from flags or the environment.

The password is held in a field excluded from ``repr`` and never appears in
messages; URIs are shown without any user information.  Every session names
its database explicitly: with Bolt, a pooled connection otherwise keeps using
the database it used last (``shared/docs/bolt-test-server.md``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from graphkit.errors import GraphkitError
from graphkit.redact import strip_url_credentials

if TYPE_CHECKING:  # pragma: no cover
    import neo4j

__all__ = ["DatabaseError", "Neo4jSettings", "DEFAULT_URI", "DEFAULT_USER", "DEFAULT_DATABASE", "connect"]

DEFAULT_URI = "bolt://localhost:7687"
DEFAULT_USER = "neo4j"
DEFAULT_DATABASE = "neo4j"


class DatabaseError(GraphkitError):
    """The Bolt server could not be reached, refused the credentials, or rejected a statement."""


@dataclass(frozen=True)
class Neo4jSettings:
    """Where and how to connect.

    ``password`` (and any password inside ``uri``) is left out of ``repr``
    and ``str``; an empty password connects
    without authentication (``NEO4J_AUTH=none`` servers).
    """

    uri: str = DEFAULT_URI
    user: str = DEFAULT_USER
    password: str = field(default="", repr=False)
    database: str = DEFAULT_DATABASE

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: str | None) -> "Neo4jSettings":
        """Settings from ``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``.

        Parameters
        ----------
        env
            the environment (default ``os.environ``).
        **overrides
            ``uri``, ``user``, ``password``, ``database`` given as flags; a
            ``None`` override falls back to the environment, then the default.

        Examples
        --------
        >>> s = Neo4jSettings.from_env({"NEO4J_URI": "bolt://db:7687", "NEO4J_PASSWORD": "hunter22"},
        ...                            database="graphs")
        >>> s
        Neo4jSettings(uri='bolt://db:7687', user='neo4j', database='graphs')
        """
        env = os.environ if env is None else env
        names = {"uri": "NEO4J_URI", "user": "NEO4J_USERNAME", "password": "NEO4J_PASSWORD",
                 "database": "NEO4J_DATABASE"}
        values = {}
        for key, var in names.items():
            given = overrides.get(key)
            values[key] = given if given is not None else env.get(var) or getattr(cls, key)
        return cls(**values)

    @property
    def display_uri(self) -> str:
        """The URI without user information (``bolt://user:pw@host`` -> ``bolt://host``).

        Examples
        --------
        >>> Neo4jSettings(uri="neo4j://bob:secret@db.example:7687").display_uri
        'neo4j://db.example:7687'
        """
        return strip_url_credentials(self.uri).url

    def __str__(self) -> str:
        return f"{self.display_uri} (database {self.database}, user {self.user})"

    def __repr__(self) -> str:
        return f"Neo4jSettings(uri={self.display_uri!r}, user={self.user!r}, database={self.database!r})"


#: Seconds to wait for the TCP connection (driver default 30 s), and for a connection from the pool, which
#: bounds the Bolt handshake (default 60 s: a port that accepts but never answers waited that long): an
#: unreachable or silent server is an error within seconds, never a hang.
#: https://neo4j.com/docs/api/python-driver/current/api.html#connection-timeout and
#: https://neo4j.com/docs/api/python-driver/current/api.html#connection-acquisition-timeout
CONNECTION_TIMEOUT = 5.0
ACQUISITION_TIMEOUT = 10.0


def _message(exc: Exception, settings: Neo4jSettings) -> str:
    """The driver's message on one line (runs of white space, line breaks included, become one space), withheld
    whole when it holds the password or the URI's credentials (replacing only those characters would spell out a
    short password by what is masked)."""
    text = str(getattr(exc, "message", None) or exc) or type(exc).__name__
    secrets = [settings.password] if settings.password else []
    try:
        parts = urlsplit(settings.uri)
        secrets += [parts.password] if parts.password else []
    except ValueError:
        pass
    if any(s in text for s in secrets):
        return f"{type(exc).__name__}, message withheld: it may contain the password"
    return " ".join(text.split())  # one line: the driver's own line breaks would print as a literal \n


@contextmanager
def connect(settings: Neo4jSettings, *, verify: bool = True) -> Iterator["neo4j.Driver"]:
    """A driver for ``settings``, closed on exit; driver errors become :class:`DatabaseError`.

    Parameters
    ----------
    settings
        connection settings.
    verify
        check connectivity and authentication first (one round trip).

    Yields
    ------
    neo4j.Driver
        sessions must be opened with ``database=settings.database``.

    Raises
    ------
    DatabaseError
        unreachable server, authentication failure, or any
        :class:`neo4j.exceptions.Neo4jError` / ``DriverError`` raised inside
        the block (message without the password).  See
        https://neo4j.com/docs/api/python-driver/current/api.html#errors.
    """
    import neo4j
    from neo4j.exceptions import AuthError, DriverError, Neo4jError, ServiceUnavailable

    auth = (settings.user, settings.password) if settings.password else None
    try:
        driver = neo4j.GraphDatabase.driver(settings.uri, auth=auth, connection_timeout=CONNECTION_TIMEOUT,
                                            connection_acquisition_timeout=ACQUISITION_TIMEOUT)
    except (ValueError, DriverError, Neo4jError) as exc:
        raise DatabaseError(f"cannot use {settings.display_uri}: {_message(exc, settings)}") from None
    try:
        if verify:
            driver.verify_connectivity()
        yield driver
    except AuthError as exc:
        raise DatabaseError(f"{settings}: authentication failed ({_message(exc, settings)}); "
                            "check NEO4J_USERNAME / NEO4J_PASSWORD") from None
    except ServiceUnavailable as exc:
        raise DatabaseError(f"{settings}: server unavailable ({_message(exc, settings)}); is it running? "
                            "(docker compose up -d)") from None
    except (Neo4jError, DriverError) as exc:
        raise DatabaseError(f"{settings}: {_message(exc, settings)}") from None
    finally:
        driver.close()
