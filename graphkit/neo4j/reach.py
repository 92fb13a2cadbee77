"""Reach computed in the database: the blast-radius backend for graphs kept in Neo4j.

:func:`reached_subgraph` walks traversable relationships breadth-first *in
the database*, one query per label per level (``UNWIND $ids ... MATCH
(a:Label {id: i})-[r:<traversable types>]->(b:Graphkit)``), so only the part of the
graph reachable from the sources ever leaves the server.  The nodes and
relationships found are rebuilt as a local :class:`~graphkit.graph.Graph`
holding exactly what :func:`graphkit.analysis.blast_radius` and
:func:`~graphkit.analysis.revocation_plan` visit (every node reachable from
the sources and every traversable edge leaving one), so
:func:`blast_radius_document` returns the same ``graphkit.blast-radius/v1``
document as the embedded backend: same reached ids, criticality,
confidence, lifetime, paths and plan (both backends run the same analysis
on the same subgraph; the tests compare the two documents for equality).

Memory holds the reached subgraph only, not the whole graph.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from graphkit.errors import UnknownNodeError
from graphkit.graph import Graph
from graphkit.model import NODE_TYPES, NodeKind, ids
from graphkit.neo4j.props import edge_from_props, node_from_props
from graphkit.neo4j.statements import SYNC_ID, kind_of_label, label_of, read_statements

if TYPE_CHECKING:  # pragma: no cover
    from graphkit.output import Clock
    import neo4j

__all__ = ["reached_subgraph", "read_graph", "blast_radius_document", "find_node_kind", "expand_in_database",
           "reached_for"]


def _prefix_kinds(node_ref: str) -> list[NodeKind]:
    """Kinds whose id prefix (:data:`graphkit.model.ids.PREFIXES`) starts ``node_ref``, longest prefix first."""
    hits = [(len(prefix), k) for k, prefix in ids.PREFIXES.items() if node_ref.startswith(prefix)]
    return [k for _, k in sorted(hits, key=lambda t: -t[0])]


def find_node_kind(session: "neo4j.Session", node_ref: str) -> NodeKind | None:
    """The kind of the node with id ``node_ref`` in the database, or None.

    Tries the kinds whose id prefix matches first (one indexed lookup), then
    every other label (a node kind declared with another id format).
    """
    tried = _prefix_kinds(node_ref)
    find = read_statements().find
    for kind in tried + [k for k in NODE_TYPES if k not in tried]:
        if session.run(find[kind], id=node_ref).single():
            return kind
    return None


def _suggest(session: "neo4j.Session", node_ref: str) -> list[str]:
    known: list[str] = []
    for kind in _prefix_kinds(node_ref) or list(NODE_TYPES):
        known += [r["id"] for r in session.run(read_statements().ids[kind])]
    return known


def _sync_meta(session: "neo4j.Session") -> dict[str, Any]:
    rec = session.run(read_statements().sync_meta, id=SYNC_ID).single()
    if not rec:
        return {}
    p = rec["p"]
    return {"sources": json.loads(p.get("sources_json") or "{}"), "problems": json.loads(p.get("problems_json") or "[]")}


def _fetch_nodes(session: "neo4j.Session", kind: NodeKind, ids: list[str]) -> list[Any]:
    q = read_statements().fetch[kind]
    return [node_from_props(kind, r["id"], r["p"]) for r in session.run(q, ids=ids)]


def reached_subgraph(driver: "neo4j.Driver", sources: str | Iterable[str], *, database: str,
                     batch_size: int = 1000) -> Graph:
    """The part of the database's graph reachable from ``sources`` over traversable relationships.

    Parameters
    ----------
    driver
        an open driver.
    sources
        node id(s), as for :func:`graphkit.analysis.blast_radius`.
    database
        the database name (always passed).
    batch_size
        ids per ``UNWIND`` query.

    Returns
    -------
    Graph
        the sources, every node reachable from them and every traversable
        relationship leaving one of those nodes; ``meta`` holds the last
        sync's ``sources`` and ``problems``.

    Raises
    ------
    UnknownNodeError
        if a source id is in no model label (with close ids as suggestions).
    neo4j.exceptions.Neo4jError
        on a database error.
    """
    items = sorted({sources} if isinstance(sources, str) else set(sources))
    g = Graph()
    with driver.session(database=database) as session:
        g.meta = _sync_meta(session)
        frontier: dict[NodeKind, list[str]] = defaultdict(list)
        for s in items:
            kind = find_node_kind(session, s)
            if kind is None:
                raise UnknownNodeError(s, _suggest(session, s))
            frontier[kind].append(s)
        for kind, ids in frontier.items():
            g.update(nodes=_fetch_nodes(session, kind, ids))
        seen = set(items)
        rd = read_statements()
        # source-only kinds (persists_on) are followed from the sources and from nodes entered through a
        # runs_code edge (can_trigger: the untrusted code runs as the job), as graphkit.analysis.reach.collect
        code = set(items)
        pending_edges: list[Any] = []
        while frontier:
            found: dict[NodeKind, list[str]] = defaultdict(list)
            for kind, ids in frontier.items():
                for walk, part in ((rd.walk_sources, [i for i in ids if i in code]),
                                   (rd.walk, [i for i in ids if i not in code])):
                    for i in range(0, len(part), batch_size):
                        for rec in session.run(walk[kind], ids=part[i:i + batch_size]):
                            edge = edge_from_props(rec["source"], rec["target"], rec["p"])
                            pending_edges.append(edge)
                            _visit(rec, edge, seen, code, found)
            for kind, ids in found.items():
                for i in range(0, len(ids), batch_size):
                    g.update(nodes=_fetch_nodes(session, kind, ids[i:i + batch_size]))
            frontier = found
        g.update(edges=[e for e in pending_edges if e.target in g])
    return g


def _visit(rec: Any, edge: Any, seen: set[str], code: set[str], found: dict[NodeKind, list[str]]) -> None:
    """Note a walked relationship's target: new ones go to ``found``; a ``runs_code`` edge marks it in ``code``."""
    t = rec["target"]
    if edge.spec.runs_code:
        code.add(t)
    if t not in seen:
        tkind = next((k for k in map(kind_of_label, rec["labels"]) if k is not None), None)
        if tkind is None:  # a node without a model label: not graphkit's
            return
        seen.add(t)
        found[tkind].append(t)


def read_graph(driver: "neo4j.Driver", *, database: str) -> Graph:
    """Every graphkit node and relationship of the database as a :class:`Graph` (for tests and small graphs).

    Raises
    ------
    neo4j.exceptions.Neo4jError
        on a database error; ``pydantic.ValidationError`` if stored
        properties do not describe valid nodes or edges.
    """
    rd = read_statements()
    g = Graph()
    with driver.session(database=database) as session:
        g.meta = _sync_meta(session)
        for kind, q in rd.read_nodes.items():
            g.update(nodes=[node_from_props(kind, r["id"], r["p"]) for r in session.run(q)])
        for q in rd.read_edges.values():
            g.update(edges=[edge_from_props(r["s"], r["t"], r["p"]) for r in session.run(q)])
    return g


#: One GitHub job of the database, if any (a job's ``platform`` defaults to github).
_GITHUB_JOB = (f"MATCH (n:{label_of(NodeKind.JOB)}) WHERE coalesce(n.platform, 'github') = 'github' "
               "RETURN n.id AS id LIMIT 1")


def expand_in_database(driver: "neo4j.Driver", sources: Iterable[str], *, database: str,
                       org: str | None = None) -> list[str]:
    """:func:`graphkit.resolve.untrusted.expand_sources` against the database (``--from untrusted:fork-pr`` with or
    without ``--org``): a short untrusted form without ``org`` becomes every such actor node of the database."""
    from graphkit.resolve.untrusted import ACTORS, expand_sources
    sources = list(sources)
    known = Graph()
    if org is None and any(s.removeprefix("untrusted:") in ACTORS for s in sources if s.startswith("untrusted:")):
        with driver.session(database=database) as session:
            found = [r["id"] for r in session.run(read_statements().ids[NodeKind.UNTRUSTED])]
            known.update(nodes=_fetch_nodes(session, NodeKind.UNTRUSTED, found))
    return expand_sources(known, sources, org)


def reached_for(driver: "neo4j.Driver", sources: list[str], *, database: str,
                clock: "Clock | None" = None) -> tuple[Graph, list[str]]:
    """``(subgraph, notes)``: :func:`reached_subgraph` of ``sources``, where an untrusted actor of an owner that
    has no node in the database is an edge-less actor with a note, as the embedded backend adds it
    (:func:`graphkit.resolve.untrusted.add_absent_entries`: an empty blast radius, not an unknown id), and the
    nodes ``clock``'s issued tokens name are read too (their edges not), so the tokens are classified as on the
    whole graph.

    Raises
    ------
    UnknownNodeError
        for an unknown source id (other than such an untrusted actor).
    """
    from graphkit.resolve.untrusted import ACTORS, add_absent_entries
    with driver.session(database=database) as session:
        absent = [s for s in sources if s.startswith("untrusted:") and s.count(":") >= 2
                  and s.split(":")[1] in ACTORS and find_node_kind(session, s) is None]
    sub = reached_subgraph(driver, [s for s in sources if s not in absent], database=database)
    notes = add_absent_entries(sub, absent)
    if not any(True for _ in sub.nodes(NodeKind.JOB)):  # the no-history note names the whole graph's platforms
        with driver.session(database=database) as session:  # (graphkit.output.no_history_note): one GitHub job
            found = [r["id"] for r in session.run(_GITHUB_JOB)]
            sub.update(nodes=_fetch_nodes(session, NodeKind.JOB, found))
    subjects = sorted({i.subject for i in clock.issued if i.subject not in sub}) if clock is not None else []
    if subjects:  # without edges: what the sources reach stays as walked
        with driver.session(database=database) as session:
            for subject in subjects:
                kind = find_node_kind(session, subject)
                if kind is not None:
                    sub.update(nodes=_fetch_nodes(session, kind, [subject]))
    return sub, notes


def blast_radius_document(driver: "neo4j.Driver", sources: str | Iterable[str], *, database: str,
                          top: int | None = None, clock: "Clock | None" = None, plan_steps: int | None = None,
                          with_plan: bool = True) -> tuple[dict[str, Any], Graph]:
    """The ``graphkit.blast-radius/v1`` document computed from the database.

    Parameters
    ----------
    driver, sources, database
        as for :func:`reached_subgraph`.
    top, clock, plan_steps, with_plan
        as for :func:`graphkit.output.blast_radius_document` (``--top``, ``--now``, ``--compromised-since``,
        ``--tokens``, ``--no-plan``): the nodes the issued tokens name are read too (:func:`reached_for`).

    Returns
    -------
    (dict, Graph)
        the document (equal to the embedded backend's on the same graph) and
        the reached subgraph (node names for display).

    Raises
    ------
    UnknownNodeError
        for an unknown source id.
    """
    from graphkit.output import blast_radius_document as document

    sources = [sources] if isinstance(sources, str) else list(sources)
    sub, _ = reached_for(driver, sources, database=database, clock=clock)
    return document(sub, sources, top=top, clock=clock, plan_steps=plan_steps, with_plan=with_plan), sub
