"""Cypher statements and Neo4j properties, derived from the model at run time (pure: no I/O).

Every label, relationship type and property name used by the sync comes from
:data:`graphkit.model.NODE_TYPES` (``NodeSpec.label``) and
:data:`graphkit.model.EDGE_SPECS` (``rel_type``, ``sources``, ``targets``,
``traversable``), read when a function here is called, so node or edge kinds
added to the model are synced without touching this module.  Nothing taken
from the input ever becomes a label or a type: labels are checked against
:data:`IDENTIFIER` before they are written into a statement, and values
always travel as parameters (``UNWIND $rows AS row``).

Statements (one per node kind, one per (source kind, edge kind, target
kind) triple) are written in the Cypher subset that Neo4j 5 and ArcadeDB's
Bolt plugin both run (``shared/docs/bolt-test-server.md``): no dynamic
labels, only uniqueness constraints, every node keyed on graphkit's ``id``.
A node upsert is two statements in one transaction, not one ``MERGE (n:Kind:Graphkit {id: ..})``:
ArcadeDB answers a MERGE naming two labels by scanning every node of the label
(measured: 4,000 nodes of 3 KB, 58 s, against 2.6 s for the two statements),
and refuses a label added after creation (``ON CREATE SET n:Graphkit`` fails its
uniqueness constraint); so the missing nodes are created with both labels,
then every row's properties are set through the indexed ``(n:Kind {id: ..})``.
Without MERGE's lock, two syncs writing the same new node at once make one fail
on the uniqueness constraint (never a duplicate); a re-run converges.
Each relationship upsert also comes written from its target
(``MERGE (b)<-[r:TYPE {key: row.key}]-(a)``, the same relationship, same
direction): ArcadeDB checks a relationship MERGE by walking the relationships
of that type of the pattern's *first* node, so writing the 15,000 ``OWNS`` of
one organization from the organization costs 15,000 x 15,000 / 2 edge reads
(minutes per batch, measured), and from each repository one read; the sync
picks, row by row, the endpoint with fewer relationships of the type
(:func:`graphkit.neo4j.sync.sync_graph`).  Neo4j plans both alike.  The
other end (the hub) is looked up once per batch (rows collected by its id):
ArcadeDB reads a node's whole record per lookup, and at 10^6 edges the
organization's (its evidence names every place that mentions it) held 4.9 MB,
read once per row: 1,000 rows ran its 1 GB heap out.

Properties (how each model field is stored, the derived filter properties, reading back) are
:mod:`graphkit.neo4j.props`.

Read statements (counts, reach, reading back) are generated here too
(:func:`read_statements`), so that every statement graphkit sends can be
linted with Neo4j's own front end (``tests/test_neo4j_lint.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphkit.model import EDGE_SPECS, NODE_TYPES, EdgeKind, NodeKind
from graphkit.neo4j.props import TRAVERSABLE, edge_fields, node_fields

__all__ = [
    "IDENTIFIER",
    "UPDATE_TAG",
    "SOURCES",
    "SYNC_LABEL",
    "SYNC_ID",
    "Statements",
    "label_of",
    "rel_type_of",
    "kind_of_label",
    "edge_triples",
    "statements",
    "property_names",
    "COMMON_LABEL",
    "traversable_types",
    "path_types",
    "source_only_kinds",
    "ReadStatements",
    "read_statements",
    "all_statements",
]

#: What a label or relationship type must look like to be written into a statement.
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Property stamped by each sync on what it wrote (an integer; see :func:`graphkit.neo4j.sync.sync_graph`).
UPDATE_TAG = "update_tag"
#: Property listing the input sources (ingestor names) a node or relationship came from.
SOURCES = "graphkit_sources"
#: Label of the one bookkeeping node (last sync's tag, sources and input problems); not a node kind.
SYNC_LABEL = "GraphkitSync"
#: Properties of the bookkeeping node (besides ``id``), written by :func:`graphkit.neo4j.sync.sync_graph`.
SYNC_PROPS = (UPDATE_TAG, "sources_json", "problems_json", "complete_sources", "partial_sources", "skipped",
              "skipped_by_source", "inputs_json")
#: ``id`` of the bookkeeping node.
SYNC_ID = "graphkit"
#: Label every graphkit node carries besides its kind's label (indexed on ``id``); library queries scope to it.
COMMON_LABEL = "Graphkit"


# --------------------------------------------------------------------------- labels and statements


def _checked(name: str, what: str) -> str:
    if not IDENTIFIER.match(name):
        raise ValueError(f"model {what} {name!r} is not a plain Cypher identifier")
    return name


def label_of(kind: NodeKind | str) -> str:
    """The Neo4j label of a node kind (``NodeSpec.label``, checked to be a plain identifier)."""
    return _checked(NODE_TYPES[NodeKind(kind)].spec.label, "label")


def rel_type_of(kind: EdgeKind | str) -> str:
    """The Neo4j relationship type of an edge kind (``EdgeSpec.rel_type``, checked to be a plain identifier)."""
    return _checked(EDGE_SPECS[EdgeKind(kind)].rel_type, "relationship type")


def kind_of_label(label: str) -> NodeKind | None:
    """The node kind whose label is ``label`` (None for a label the model does not declare)."""
    for kind, cls in NODE_TYPES.items():
        if cls.spec.label == label:
            return kind
    return None


def edge_triples() -> list[tuple[NodeKind, EdgeKind, NodeKind]]:
    """Every (source kind, edge kind, target kind) the model allows, in declaration order."""
    order = {k: i for i, k in enumerate(NODE_TYPES)}
    return [(s, kind, t) for kind, spec in EDGE_SPECS.items()
            for s in sorted(spec.sources, key=order.__getitem__) for t in sorted(spec.targets, key=order.__getitem__)]


@dataclass(frozen=True)
class Statements:
    """The sync's statements, generated by :func:`statements`.

    ``constraints``: one uniqueness constraint on ``id`` per label (model
    labels and :data:`SYNC_LABEL`) and an index on :data:`COMMON_LABEL`'s
    ``id``, run first.  ``relabel[kind]``: adds :data:`COMMON_LABEL` to
    nodes of that kind written by an older graphkit.  ``create_nodes[kind]`` then
    ``nodes[kind]``, in one transaction: upsert of a batch ``$rows`` of ``{id, props}`` (the first creates
    the missing nodes with both labels, the second sets every row's properties; see the module
    docstring).  ``edges[(source kind, edge kind,
    target kind)]``: upsert of ``$rows`` of ``{source, target, key, props}``
    (nodes and relationships are stamped ``$tag`` unless they hold a newer one);
    ``edges_from_target[...]``: the same upsert with the MERGE pattern written
    from the target node (same relationship; cheaper on ArcadeDB when the
    source holds more relationships of the type, see the module docstring).
    ``stale_nodes[kind]`` / ``stale_edges[edge kind]``: delete up to
    ``$limit`` items stamped with a tag older than ``$tag`` whose sources all are in
    ``$complete``; each returns ``removed``.  ``sync_meta``: the bookkeeping node's last-sync properties
    (``$props``, kept when a newer sync wrote them); ``sync_inputs``: its ``inputs_json`` (``$inputs_json``: each
    source's input paths, of the last sync that read it), written before anything else.
    """

    constraints: list[str]
    relabel: dict[NodeKind, str]
    create_nodes: dict[NodeKind, str]
    nodes: dict[NodeKind, str]
    edges: dict[tuple[NodeKind, EdgeKind, NodeKind], str]
    edges_from_target: dict[tuple[NodeKind, EdgeKind, NodeKind], str]
    stale_nodes: dict[NodeKind, str]
    stale_edges: dict[EdgeKind, str]
    sync_meta: str
    sync_inputs: str


_STALE = (f"x.{UPDATE_TAG} < $tag AND size(coalesce(x.{SOURCES}, [])) > 0 "
          f"AND all(s IN x.{SOURCES} WHERE s IN $complete)")


def _newest(var: str) -> str:
    """``SET`` item stamping ``var`` with this sync's ``$tag`` unless it holds a newer one: a sync that runs beside
    a newer one never makes what the newer one wrote look stale to it (stale removal takes older tags only).

    >>> _newest("n")
    'n.update_tag = CASE WHEN n.update_tag > $tag THEN n.update_tag ELSE $tag END'
    """
    return f"{var}.{UPDATE_TAG} = CASE WHEN {var}.{UPDATE_TAG} > $tag THEN {var}.{UPDATE_TAG} ELSE $tag END"


def statements() -> Statements:
    """Generate the sync's Cypher from the model as it is now.

    Returns
    -------
    Statements
        see :class:`Statements`; every label and type comes from the model.

    Raises
    ------
    ValueError
        if a model label or relationship type is not a plain identifier.

    Examples
    --------
    >>> from graphkit.model import EdgeKind, NodeKind
    >>> st = statements()
    >>> print(st.constraints[0])
    CREATE CONSTRAINT graphkit_Host_id IF NOT EXISTS FOR (n:Host) REQUIRE n.id IS UNIQUE
    >>> print(st.create_nodes[NodeKind.RUNNER])
    UNWIND $rows AS row OPTIONAL MATCH (m:Runner {id: row.id}) WITH row, m WHERE m IS NULL \
CREATE (n:Runner:Graphkit {id: row.id})
    >>> print(st.nodes[NodeKind.RUNNER])
    UNWIND $rows AS row MATCH (n:Runner {id: row.id}) SET n += row.props, \
n.update_tag = CASE WHEN n.update_tag > $tag THEN n.update_tag ELSE $tag END
    >>> print(st.edges[(NodeKind.RUNNER, EdgeKind.RECEIVES_JOB, NodeKind.JOB)])
    UNWIND $rows AS row WITH row.target AS target, collect(row) AS rows MATCH (b:Job {id: target}) \
UNWIND rows AS row MATCH (a:Runner {id: row.source}) MERGE (a)-[r:RECEIVES_JOB {key: row.key}]->(b) SET r += row.props, \
r.update_tag = CASE WHEN r.update_tag > $tag THEN r.update_tag ELSE $tag END
    >>> print(st.edges_from_target[(NodeKind.RUNNER, EdgeKind.RECEIVES_JOB, NodeKind.JOB)])
    UNWIND $rows AS row WITH row.source AS source, collect(row) AS rows MATCH (a:Runner {id: source}) \
UNWIND rows AS row MATCH (b:Job {id: row.target}) MERGE (b)<-[r:RECEIVES_JOB {key: row.key}]-(a) SET r += row.props, \
r.update_tag = CASE WHEN r.update_tag > $tag THEN r.update_tag ELSE $tag END
    """
    labels = [label_of(k) for k in NODE_TYPES] + [SYNC_LABEL]
    constraints = [f"CREATE CONSTRAINT graphkit_{lb}_id IF NOT EXISTS FOR (n:{lb}) REQUIRE n.id IS UNIQUE"
                   for lb in labels]
    constraints.append(f"CREATE INDEX graphkit_{COMMON_LABEL}_id IF NOT EXISTS FOR (n:{COMMON_LABEL}) ON (n.id)")
    # created with both labels (ArcadeDB re-creates a node whose labels change and trips its own unique index),
    # looked up by one (ArcadeDB answers a two-label MERGE by scanning the label: quadratic in its nodes)
    create = {k: f"UNWIND $rows AS row OPTIONAL MATCH (m:{label_of(k)} {{id: row.id}}) WITH row, m WHERE m IS NULL "
                 f"CREATE (n:{label_of(k)}:{COMMON_LABEL} {{id: row.id}})" for k in NODE_TYPES}
    nodes = {k: f"UNWIND $rows AS row MATCH (n:{label_of(k)} {{id: row.id}}) SET n += row.props, {_newest('n')}"
             for k in NODE_TYPES}
    # nodes written before the common label existed get it once (none on a fresh database)
    relabel = {k: f"MATCH (n:{label_of(k)}) WHERE NOT n:{COMMON_LABEL} SET n:{COMMON_LABEL} "
                  "RETURN count(n) AS relabelled" for k in NODE_TYPES}
    edges, from_target = {}, {}
    for s, kind, t in edge_triples():
        rel = rel_type_of(kind)
        # the hub end (the one the MERGE is not written from) looked up once per batch, grouped by its id (a plain
        # value: ArcadeDB budgets a grouping key holding a node at the node's record size): ArcadeDB reads a
        # node's whole record per lookup, and an organization's (its evidence) held 4.9 MB at 10^6 edges
        a, b = f"(a:{label_of(s)} {{id: row.source}})", f"(b:{label_of(t)} {{id: row.target}})"
        by = "UNWIND $rows AS row WITH row.{0} AS {0}, collect(row) AS rows MATCH {1} UNWIND rows AS row MATCH {2} "
        edges[(s, kind, t)] = (by.format("target", b.replace("row.target", "target"), a)
                               + f"MERGE (a)-[r:{rel} {{key: row.key}}]->(b) SET r += row.props, {_newest('r')}")
        from_target[(s, kind, t)] = (by.format("source", a.replace("row.source", "source"), b)
                                     + f"MERGE (b)<-[r:{rel} {{key: row.key}}]-(a) SET r += row.props, {_newest('r')}")
    stale_nodes = {k: f"MATCH (x:{label_of(k)}) WHERE {_STALE} WITH x LIMIT $limit DETACH DELETE x "
                      "RETURN count(*) AS removed" for k in NODE_TYPES}
    stale_edges = {k: f"MATCH ()-[x:{rel_type_of(k)}]->() WHERE {_STALE} "
                      "WITH x LIMIT $limit DELETE x RETURN count(*) AS removed" for k in EDGE_SPECS}
    # the newest sync's bookkeeping stays when an older one, run beside it, finishes last: the write lock is taken
    # first (a property written then removed), so the tag is read after a concurrent sync's write has committed,
    # never before it (a lost update: an older sync that read the tag first overwrote a newer one's)
    sync_meta = (f"MERGE (m:{SYNC_LABEL} {{id: $id}}) SET m.sync_lock = true "
                 f"WITH m, (m.{UPDATE_TAG} IS NULL OR m.{UPDATE_TAG} <= $props.{UPDATE_TAG}) AS newer "
                 "SET m += CASE WHEN newer THEN $props ELSE {} END REMOVE m.sync_lock")
    sync_inputs = f"MERGE (m:{SYNC_LABEL} {{id: $id}}) SET m.inputs_json = $inputs_json"
    return Statements(constraints, relabel, create, nodes, edges, from_target, stale_nodes, stale_edges, sync_meta,
                      sync_inputs)


def traversable_types() -> list[str]:
    """The relationship types of the traversable edge kinds, in declaration order.

    Examples
    --------
    >>> traversable_types()[:3]
    ['HOSTS', 'RUNS_ON_HOST', 'RECEIVES_JOB']
    """
    return [rel_type_of(k) for k, spec in EDGE_SPECS.items() if spec.traversable]


def source_only_kinds() -> frozenset[EdgeKind]:
    """Traversable edge kinds followed from a source only (``EdgeSpec.source_only``, e.g. ``persists_on``: the
    attacker controls a source job's code, not every run of a job a runner receives)."""
    return frozenset(k for k, spec in EDGE_SPECS.items() if spec.traversable and getattr(spec, "source_only", False))


def path_types() -> list[str]:
    """The relationship types an attack path follows past its first hop: traversable, not source-only.

    Examples
    --------
    >>> "PERSISTS_ON" in traversable_types() and "PERSISTS_ON" not in path_types()
    True
    """
    only = source_only_kinds()
    return [rel_type_of(k) for k, spec in EDGE_SPECS.items() if spec.traversable and k not in only]


@dataclass(frozen=True)
class ReadStatements:
    """The read statements of one node kind's label (``kind``) or of the whole graph.

    ``count_nodes[kind]`` / ``count_edges[edge kind]``: ``RETURN count(..) AS c``.
    ``find[kind]``: ``$id`` -> ``id`` (is the node there).  ``ids[kind]``: every ``id`` (suggestions).
    ``fetch[kind]``: ``$ids`` -> ``id``, ``p`` (properties).  ``walk[kind]``: ``$ids`` -> one row per
    relationship of :func:`path_types` leaving them (``source``, ``target``, ``labels`` of the target, ``p``);
    ``walk_sources[kind]``: the same over every traversable type (the first step, from the sources).
    ``read_nodes[kind]`` / ``read_edges[edge kind]``: everything (``id``, ``p`` / ``s``, ``t``, ``p``).
    ``sync_meta``: ``$id`` -> ``p`` of the bookkeeping node.
    """

    count_nodes: dict[NodeKind, str]
    count_edges: dict[EdgeKind, str]
    find: dict[NodeKind, str]
    ids: dict[NodeKind, str]
    fetch: dict[NodeKind, str]
    walk: dict[NodeKind, str]
    walk_sources: dict[NodeKind, str]
    read_nodes: dict[NodeKind, str]
    read_edges: dict[EdgeKind, str]
    sync_meta: str


def read_statements() -> ReadStatements:
    """Generate the read statements (counts, reach, reading back) from the model as it is now.

    Examples
    --------
    >>> from graphkit.model import NodeKind
    >>> print(read_statements().walk[NodeKind.HOST][:66])
    UNWIND $ids AS i MATCH (a:Host {id: i})-[r:HOSTS|RUNS_ON_HOST|RECE
    """
    lb = {k: label_of(k) for k in NODE_TYPES}
    trav, first = "|".join(path_types()), "|".join(traversable_types())
    return ReadStatements(
        count_nodes={k: f"MATCH (n:{lb[k]}) RETURN count(n) AS c" for k in NODE_TYPES},
        count_edges={k: f"MATCH ()-[r:{rel_type_of(k)}]->() RETURN count(r) AS c" for k in EDGE_SPECS},
        find={k: f"MATCH (n:{lb[k]} {{id: $id}}) RETURN n.id AS id" for k in NODE_TYPES},
        ids={k: f"MATCH (n:{lb[k]}) RETURN n.id AS id LIMIT 20000" for k in NODE_TYPES},
        fetch={k: f"UNWIND $ids AS i MATCH (n:{lb[k]} {{id: i}}) RETURN n.id AS id, properties(n) AS p"
               for k in NODE_TYPES},
        walk={k: f"UNWIND $ids AS i MATCH (a:{lb[k]} {{id: i}})-[r:{trav}]->(b:{COMMON_LABEL}) "
                 "RETURN a.id AS source, b.id AS target, labels(b) AS labels, properties(r) AS p" for k in NODE_TYPES},
        walk_sources={k: f"UNWIND $ids AS i MATCH (a:{lb[k]} {{id: i}})-[r:{first}]->(b:{COMMON_LABEL}) "
                         "RETURN a.id AS source, b.id AS target, labels(b) AS labels, properties(r) AS p"
                      for k in NODE_TYPES},
        read_nodes={k: f"MATCH (n:{lb[k]}) RETURN n.id AS id, properties(n) AS p" for k in NODE_TYPES},
        read_edges={k: f"MATCH (a:{COMMON_LABEL})-[r:{rel_type_of(k)}]->(b:{COMMON_LABEL}) "
                       "RETURN a.id AS s, b.id AS t, properties(r) AS p" for k in EDGE_SPECS},
        sync_meta=f"MATCH (m:{SYNC_LABEL} {{id: $id}}) RETURN properties(m) AS p",
    )


def all_statements() -> dict[str, str]:
    """Every statement graphkit sends (sync and reads), by a descriptive name, for linting.

    Examples
    --------
    >>> names = all_statements()
    >>> "sync.nodes.Runner" in names and "read.walk.Runner" in names and "read.count_edges.HOSTS" in names
    True
    """
    out: dict[str, str] = {}
    st, rd = statements(), read_statements()
    for i, q in enumerate(st.constraints):
        out[f"sync.constraint.{i}"] = q
    for group, table in (("sync.create_nodes", st.create_nodes), ("sync.nodes", st.nodes), ("sync.relabel", st.relabel),
                         ("sync.stale_nodes", st.stale_nodes),
                         ("read.count_nodes", rd.count_nodes), ("read.find", rd.find), ("read.ids", rd.ids),
                         ("read.fetch", rd.fetch), ("read.walk", rd.walk), ("read.walk_sources", rd.walk_sources),
                         ("read.read_nodes", rd.read_nodes)):
        out.update({f"{group}.{label_of(k)}": q for k, q in table.items()})
    for group, etable in (("sync.stale_edges", st.stale_edges), ("read.count_edges", rd.count_edges),
                          ("read.read_edges", rd.read_edges)):
        out.update({f"{group}.{rel_type_of(k)}": q for k, q in etable.items()})
    for group, triples in (("sync.edges", st.edges), ("sync.edges_from_target", st.edges_from_target)):
        out.update({f"{group}.{label_of(s)}-{rel_type_of(k)}-{label_of(t)}": q for (s, k, t), q in triples.items()})
    out["sync.meta"], out["sync.inputs"], out["read.sync_meta"] = st.sync_meta, st.sync_inputs, rd.sync_meta
    return out


def property_names() -> dict[str, set[str]]:
    """Every property name the sync writes: ``{"node": {...}, "relationship": {...}, "sync": {...}}``
    (``sync``: the bookkeeping node's; ``permissions_<scope>`` names depend on the data and are not listed).

    Used by the query library's tests to catch misspelt properties (a typo in
    Cypher is a silent null, not an error).
    """
    node = {"id", UPDATE_TAG, SOURCES, "triggers", "trust_subjects", "trust_audiences"}
    for kind in NODE_TYPES:
        for f in node_fields(kind):
            node.add(f.prop)
            if f.where:
                node.add(f.where)
    rel = {TRAVERSABLE, UPDATE_TAG, SOURCES}
    for f in edge_fields():
        rel.add(f.prop)
        if f.where:
            rel.add(f.where)
    return {"node": node, "relationship": rel, "sync": set(SYNC_PROPS)}
