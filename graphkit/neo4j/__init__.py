"""Neo4j backend: sync the graph into Neo4j, run the Cypher library, compute reach in the database.

- :mod:`graphkit.neo4j.statements`: labels, relationship types and statements
  derived from the model (pure, no I/O); :mod:`graphkit.neo4j.props`: the
  properties of nodes and relationships, and reading them back.
- :mod:`graphkit.neo4j.connection`: settings from flags or ``NEO4J_*``
  variables, :func:`connect`.
- :mod:`graphkit.neo4j.sync`: :func:`sync_graph` (idempotent, stale-data
  removal scoped to sources read completely).
- :mod:`graphkit.neo4j.library`: the ``queries/*.cypher`` library and the
  networkx counterparts of its queries.
- :mod:`graphkit.neo4j.reach`: the ``--backend neo4j`` blast radius.

Works with Neo4j 5 (see ``docker-compose.yml``) and any server speaking the
same Cypher over Bolt; the tests use ArcadeDB's Bolt plugin
(``tests/bolt_server.py``).  Driver reference:
https://neo4j.com/docs/api/python-driver/current/
"""

from graphkit.registry import lazy_package

#: exported names -> their module, imported on first use (the CLI registers ``graphkit neo4j`` without importing
#: the driver)
_EXPORTS = {
    "connection": ("DatabaseError", "Neo4jSettings", "connect"),
    "library": ("COUNTERPARTS", "LibraryQuery", "QueryError", "load_library", "run_query"),
    "reach": ("blast_radius_document", "read_graph", "reached_subgraph"),
    "statements": ("statements",),
    "sync": ("SyncResult", "database_counts", "provenance", "sync_graph"),
}


__all__ = ["DatabaseError", "Neo4jSettings", "connect", "sync_graph", "SyncResult", "database_counts", "provenance",
           "statements", "load_library", "run_query", "LibraryQuery", "QueryError", "COUNTERPARTS",
           "reached_subgraph", "read_graph", "blast_radius_document"]


lazy_package(__name__, _EXPORTS)
