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

Properties
----------
Neo4j stores only primitives and homogeneous lists of primitives.  Each model
field is mapped by its *declared type* (not by the value, so that a field that
becomes ``None`` removes the property it wrote before):

- ``str``, ``int``, ``float``, ``bool``, enums and literals -> the same
  property (enums as their string values);
- lists or tuples of those -> a list property;
- anything else (dicts, nested models such as :class:`~graphkit.model.Evidence`)
  -> ``<field>_json``, a JSON string (keys sorted);
- fields holding evidence also get ``<field>_where``: a parallel list of
  human-readable places (``repo:file:line (yaml.path)``) for Neo4j Browser.

Relationships carry the :class:`~graphkit.model.Edge` fields the same way
(``key``, ``kind``, ``confidence``, ``lifetime``, ``revoked_by``,
``evidence_json``, ``evidence_where``, ``props_json``) plus ``traversable``
from the kind's declaration, so Cypher can follow only traversable edges
without naming their types.  The sync adds :data:`UPDATE_TAG` and
:data:`SOURCES` to every node and relationship.  :func:`node_from_props` and
:func:`edge_from_props` invert the mapping exactly.
"""

from __future__ import annotations

import json
import re
import types
import typing
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel

from graphkit.model import EDGE_SPECS, NODE_ADAPTER, NODE_TYPES, Edge, EdgeKind, Evidence, Node, NodeKind

__all__ = [
    "IDENTIFIER",
    "UPDATE_TAG",
    "SOURCES",
    "SYNC_LABEL",
    "SYNC_ID",
    "Field",
    "Statements",
    "node_fields",
    "edge_fields",
    "node_props",
    "edge_props",
    "node_from_props",
    "edge_from_props",
    "label_of",
    "rel_type_of",
    "kind_of_label",
    "edge_triples",
    "statements",
    "property_names",
]

#: What a label or relationship type must look like to be written into a statement.
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Property stamped by each sync on what it wrote (an integer; see :func:`graphkit.neo4j.sync.sync_graph`).
UPDATE_TAG = "update_tag"
#: Property listing the input sources (ingestor names) a node or relationship came from.
SOURCES = "graphkit_sources"
#: Label of the one bookkeeping node (last sync's tag, sources and input problems); not a node kind.
SYNC_LABEL = "GraphkitSync"
#: ``id`` of the bookkeeping node.
SYNC_ID = "graphkit"
#: Relationship property holding ``EdgeSpec.traversable``.
TRAVERSABLE = "traversable"
_EDGE_ENDPOINTS = ("source", "target")


# --------------------------------------------------------------------------- property mapping


@dataclass(frozen=True, slots=True)
class Field:
    """How one model field is stored.

    ``name``: the model field; ``prop``: the Neo4j property; ``codec``:
    ``"value"`` (primitive or list of primitives, stored as is) or ``"json"``
    (a JSON string); ``where``: the extra ``<field>_where`` list property for
    evidence fields (None otherwise).
    """

    name: str
    prop: str
    codec: Literal["value", "json"]
    where: str | None = None


_SCALARS = (str, int, float, bool)


def _strip_optional(tp: Any) -> list[Any]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(tp) if a is not type(None)]
    return [tp]


def _is_scalar(tp: Any) -> bool:
    if typing.get_origin(tp) is Literal:
        return all(isinstance(v, _SCALARS) for v in typing.get_args(tp))
    return isinstance(tp, type) and (issubclass(tp, _SCALARS) or issubclass(tp, Enum))


def _is_scalar_list(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    args = [a for a in typing.get_args(tp) if a is not Ellipsis]
    return origin in (list, tuple) and len(args) == 1 and _is_scalar(args[0])


def _mentions_evidence(tp: Any) -> bool:
    if tp is Evidence:
        return True
    return any(_mentions_evidence(a) for a in typing.get_args(tp))


def _fields(model: type[BaseModel], skip: tuple[str, ...] = ()) -> tuple[Field, ...]:
    out = []
    for name, info in model.model_fields.items():
        if name in skip:
            continue
        parts = _strip_optional(info.annotation)
        if all(_is_scalar(p) for p in parts) or (len(parts) == 1 and _is_scalar_list(parts[0])):
            out.append(Field(name, name, "value"))
        else:
            where = f"{name}_where" if _mentions_evidence(info.annotation) else None
            out.append(Field(name, f"{name}_json", "json", where))
    return tuple(out)


@cache
def _node_fields(cls: type[Node]) -> tuple[Field, ...]:
    return _fields(cls, skip=("id",))


def node_fields(kind: NodeKind) -> tuple[Field, ...]:
    """How each field of node kind ``kind`` is stored (``id`` excluded: it is the key).

    Examples
    --------
    >>> from graphkit.model import NodeKind
    >>> [(f.name, f.prop, f.codec) for f in node_fields(NodeKind.RUNNER)][:5]
    [('name', 'name', 'value'), ('criticality', 'criticality', 'value'), ('inferred', 'inferred', 'value'), \
('evidence', 'evidence_json', 'json'), ('kind', 'kind', 'value')]
    """
    return _node_fields(NODE_TYPES[kind])


@cache
def edge_fields() -> tuple[Field, ...]:
    """How each :class:`~graphkit.model.Edge` field is stored (endpoints excluded: they are the relationship's)."""
    return _fields(Edge, skip=_EDGE_ENDPOINTS)


def _evidence_where(value: Any) -> list[str] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    return [str(Evidence.model_validate(e)) for e in items]


def _encode(fields: tuple[Field, ...], data: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for f in fields:
        value = data.get(f.name)
        if f.codec == "json":
            props[f.prop] = None if value is None else json.dumps(value, sort_keys=True, separators=(",", ":"))
            if f.where:
                props[f.where] = _evidence_where(value)
        else:
            props[f.prop] = list(value) if isinstance(value, tuple) else value
    return props


def _decode(fields: tuple[Field, ...], props: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for f in fields:
        if f.prop not in props or props[f.prop] is None:
            continue
        value = props[f.prop]
        data[f.name] = json.loads(value) if f.codec == "json" else value
    return data


def node_props(node: Node) -> dict[str, Any]:
    """Neo4j properties of ``node`` (without ``id``); ``None`` values remove a property on ``SET +=``.

    Examples
    --------
    >>> from graphkit.model import Evidence, Runner
    >>> p = node_props(Runner(id="runner:acme/r1", name="r1", scope="acme", labels=["self-hosted", "gpu"],
    ...                       evidence=[Evidence(file="inventory.yaml", line=3)]))
    >>> p["labels"], p["criticality"], p["ephemeral"], p["evidence_where"]
    (['self-hosted', 'gpu'], 'high', None, ['inventory.yaml:3'])
    >>> p["evidence_json"]
    '[{"detail":null,"file":"inventory.yaml","line":3,"repository":null,"yaml_path":null}]'
    """
    return _encode(node_fields(node.spec.kind), node.model_dump(mode="json"))


def edge_props(edge: Edge) -> dict[str, Any]:
    """Neo4j properties of ``edge`` (endpoints excluded), with ``traversable`` from its kind.

    A ``source_only`` kind (``persists_on``: followed from a source alone) is stored ``traversable: false`` so
    that Cypher walks (the query library) never follow it past the first hop; :mod:`graphkit.neo4j.reach`
    follows it from the sources by its type.
    """
    props = _encode(edge_fields(), edge.model_dump(mode="json"))
    spec = EDGE_SPECS[edge.kind]
    props[TRAVERSABLE] = spec.traversable and not spec.source_only
    return props


def node_from_props(kind: NodeKind | str, node_id: str, props: dict[str, Any]) -> Node:
    """Rebuild a node from the properties :func:`node_props` wrote (extra properties are ignored).

    Raises
    ------
    pydantic.ValidationError
        if the properties do not describe a valid node of that kind.
    """
    kind = NodeKind(kind)
    data = _decode(node_fields(kind), props)
    data["id"] = node_id
    data["kind"] = kind.value
    return NODE_ADAPTER.validate_python(data)


def edge_from_props(source: str, target: str, props: dict[str, Any]) -> Edge:
    """Rebuild an edge from the properties :func:`edge_props` wrote and its endpoints' ids.

    Raises
    ------
    pydantic.ValidationError
        if the properties do not describe a valid edge.
    """
    data = _decode(edge_fields(), props)
    data.update(source=source, target=target)
    return Edge.model_validate(data)


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
    labels and :data:`SYNC_LABEL`), run first.  ``nodes[kind]``: upsert of a
    batch ``$rows`` of ``{id, props}``.  ``edges[(source kind, edge kind,
    target kind)]``: upsert of ``$rows`` of ``{source, target, key, props}``.
    ``stale_nodes[kind]`` / ``stale_edges[edge kind]``: delete up to
    ``$limit`` items not stamped with ``$tag`` whose sources all are in
    ``$complete``; each returns ``removed``.
    """

    constraints: list[str]
    nodes: dict[NodeKind, str]
    edges: dict[tuple[NodeKind, EdgeKind, NodeKind], str]
    stale_nodes: dict[NodeKind, str]
    stale_edges: dict[EdgeKind, str]
    sync_meta: str


_STALE = (f"x.{UPDATE_TAG} <> $tag AND size(coalesce(x.{SOURCES}, [])) > 0 "
          f"AND all(s IN x.{SOURCES} WHERE s IN $complete)")


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
    >>> print(st.nodes[NodeKind.RUNNER])
    UNWIND $rows AS row MERGE (n:Runner {id: row.id}) SET n += row.props
    >>> print(st.edges[(NodeKind.RUNNER, EdgeKind.RECEIVES_JOB, NodeKind.JOB)])
    UNWIND $rows AS row MATCH (a:Runner {id: row.source}) MATCH (b:Job {id: row.target}) \
MERGE (a)-[r:RECEIVES_JOB {key: row.key}]->(b) SET r += row.props
    """
    labels = [label_of(k) for k in NODE_TYPES] + [SYNC_LABEL]
    constraints = [f"CREATE CONSTRAINT graphkit_{lb}_id IF NOT EXISTS FOR (n:{lb}) REQUIRE n.id IS UNIQUE"
                   for lb in labels]
    nodes = {k: f"UNWIND $rows AS row MERGE (n:{label_of(k)} {{id: row.id}}) SET n += row.props" for k in NODE_TYPES}
    edges = {}
    for s, kind, t in edge_triples():
        rel = rel_type_of(kind)
        edges[(s, kind, t)] = (f"UNWIND $rows AS row MATCH (a:{label_of(s)} {{id: row.source}}) "
                               f"MATCH (b:{label_of(t)} {{id: row.target}}) "
                               f"MERGE (a)-[r:{rel} {{key: row.key}}]->(b) SET r += row.props")
    stale_nodes = {k: f"MATCH (x:{label_of(k)}) WHERE {_STALE} WITH x LIMIT $limit DETACH DELETE x "
                      "RETURN count(*) AS removed" for k in NODE_TYPES}
    stale_edges = {k: f"MATCH ()-[x:{rel_type_of(k)}]->() WHERE {_STALE} "
                      "WITH x LIMIT $limit DELETE x RETURN count(*) AS removed" for k in EDGE_SPECS}
    sync_meta = f"MERGE (m:{SYNC_LABEL} {{id: $id}}) SET m += $props"
    return Statements(constraints, nodes, edges, stale_nodes, stale_edges, sync_meta)


def property_names() -> dict[str, set[str]]:
    """Every property name the sync writes: ``{"node": {...}, "relationship": {...}}``.

    Used by the query library's tests to catch misspelt properties (a typo in
    Cypher is a silent null, not an error).
    """
    node = {"id", UPDATE_TAG, SOURCES}
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
    return {"node": node, "relationship": rel}
