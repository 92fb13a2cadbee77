"""Neo4j properties of graphkit's nodes and relationships, derived from the model at run time (pure: no I/O).

The property side of the sync; the Cypher statements that write and read them are
:mod:`graphkit.neo4j.statements`.

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

Facts users filter on are also written as plain properties next to their
JSON copy (:func:`derived_props`; ignored when reading back): ``triggers``
(a mapping keyed by event, or a list of ``{event, ...}``) as the list
``triggers`` of event names (absent when empty), a ``permissions`` mapping as
one ``permissions_<scope>`` property per scope (``-`` becomes ``_``:
``permissions_id_token``), and a cloud role's trust policy as the lists
``trust_subjects`` and ``trust_audiences`` (the values of its positive
``...:sub`` / ``...:aud`` conditions).  A runner's ``labels`` is a list already.

Relationships carry the :class:`~graphkit.model.Edge` fields the same way
(``key``, ``kind``, ``confidence``, ``lifetime``, ``revoked_by``,
``evidence_json``, ``evidence_where``, ``props_json``) plus ``traversable``
from the kind's declaration.  The sync adds :data:`~graphkit.neo4j.statements.UPDATE_TAG` and
:data:`~graphkit.neo4j.statements.SOURCES` to every node and relationship, and the common label
:data:`~graphkit.neo4j.statements.COMMON_LABEL` to every node (indexed on ``id``), so that a database
shared with other tools' data can be scoped.  :func:`node_from_props` and
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

from graphkit.errors import GraphkitError
from graphkit.model import EDGE_SPECS, NODE_ADAPTER, NODE_TYPES, Edge, Evidence, Node, NodeKind

__all__ = ["TRAVERSABLE", "Field", "RecordProps", "node_fields", "edge_fields", "node_props", "edge_props",
           "node_from_props", "edge_from_props", "derived_props"]

#: Relationship property holding ``EdgeSpec.traversable``.
TRAVERSABLE = "traversable"
_EDGE_ENDPOINTS = ("source", "target")


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


def _identifier_part(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", key)


def _trust_claims(document: Any) -> dict[str, list[str] | None]:
    """``trust_subjects`` / ``trust_audiences``: values of the positive ``...:sub`` / ``...:aud`` conditions.

    AWS condition operators: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html
    (``StringNotEquals`` and ``Null`` do not name an accepted value; they are left out).
    """
    out: dict[str, list[str] | None] = {"trust_subjects": None, "trust_audiences": None}
    if not document:
        return out
    from graphkit.iam.conditions import split_operator
    from graphkit.iam.policy import parse_policy

    try:
        statements = parse_policy(document, "trust_policy")
    except (GraphkitError, ValueError):  # a malformed document: no list, the JSON copy stays
        return out
    found: dict[str, set[str]] = {"trust_subjects": set(), "trust_audiences": set()}
    for st in statements:
        for op, block in st.conditions.items():
            _, base, _ = split_operator(op)
            if "Not" in base or base == "Null":
                continue
            for key, values in block.items():
                claim = key.lower().rsplit(":", 1)[-1]
                if claim in ("sub", "aud"):
                    found["trust_subjects" if claim == "sub" else "trust_audiences"].update(values)
    return {k: sorted(v) for k, v in found.items()}


def derived_props(data: dict[str, Any]) -> dict[str, Any]:
    """Plain properties for the facts users filter on, from a node's JSON dump (see the module docstring).

    Examples
    --------
    >>> derived_props({"triggers": {"pull_request_target": {}, "push": {"branches": ["main"]}},
    ...                "permissions": {"contents": "write", "id-token": "none"}})
    {'triggers': ['pull_request_target', 'push'], 'permissions_contents': 'write', 'permissions_id_token': 'none'}
    """
    props: dict[str, Any] = {}
    triggers = data.get("triggers")
    if isinstance(triggers, dict):  # Workflow.triggers: event -> filters
        props["triggers"] = sorted(triggers) or None
    elif isinstance(triggers, list) and all(isinstance(t, dict) for t in triggers):  # [{event: ..., ...}]
        props["triggers"] = sorted({str(t.get("event")) for t in triggers}) or None
    if isinstance(data.get("permissions"), dict):
        for scope, level in sorted(data["permissions"].items()):
            if isinstance(level, _SCALARS):
                props[f"permissions_{_identifier_part(scope)}"] = level
    if "trust_policy" in data:
        props.update(_trust_claims(data["trust_policy"]))
    return props


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
    data = node.model_dump(mode="json")
    return {**_encode(node_fields(node.spec.kind), data), **derived_props(data)}


def edge_props(edge: Edge) -> dict[str, Any]:
    """Neo4j properties of ``edge`` (endpoints excluded), with ``traversable`` from its kind."""
    props = _encode(edge_fields(), edge.model_dump(mode="json"))
    props[TRAVERSABLE] = EDGE_SPECS[edge.kind].traversable
    return props


class RecordProps:
    """:func:`edge_props` of stored edges (:class:`graphkit.storage.EdgeRecord`) without a pydantic edge each.

    A record's JSON-valued parts (its evidence tuple and props mapping) are shared by the graph (one object per
    source place, :class:`graphkit.storage.Interner`), so each distinct part object is serialized (pydantic, the
    field's own type) and encoded once, then reused; so are the scalar fields of each (form, key).  Meant for one
    sync of an unchanged graph: part objects are recognized by identity (each is kept while its id is a key).
    Equal to ``edge_props(rec.edge())`` (``tests/test_neo4j_model.py``).
    """

    def __init__(self) -> None:
        self._memo: dict[tuple[str, int], tuple[Any, dict[str, Any]]] = {}
        self._scalars: dict[tuple[Any, str], dict[str, Any]] = {}
        self._json = tuple(f for f in edge_fields() if f.codec == "json")

    def __call__(self, rec: Any) -> dict[str, Any]:
        """The Neo4j properties of the edge stored in ``rec`` (KeyError when none is stored)."""
        form = rec.form
        if form is None:
            raise KeyError("edge")
        scalars = self._scalars.get((form, rec.key))
        if scalars is None:  # the form's fields (kind, confidence, lifetime, revoking action) and the key
            scalars = {f.prop: _value(getattr(rec, f.name)) for f in edge_fields() if f.codec != "json"}
            scalars[TRAVERSABLE] = form.traversable
            self._scalars[(form, rec.key)] = scalars
        props = dict(scalars)
        for f in self._json:
            props.update(self._part(f, getattr(rec, f.name)))
        return props

    def _part(self, f: Field, value: Any) -> dict[str, Any]:
        hit = self._memo.get((f.name, id(value)))
        if hit is None or hit[0] is not value:
            plain = Edge.model_fields[f.name].get_default(call_default_factory=True) if value is None else _plain(value)
            dumped = _field_adapter(f.name).dump_python(plain, mode="json")
            hit = self._memo[(f.name, id(value))] = (value, _encode((f,), {f.name: dumped}))
        return hit[1]


def _value(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def _plain(value: Any) -> Any:
    """A stored part as the edge's field holds it: a tuple as a list, a mapping as a dict (None, stored for an
    empty mapping: the field's default)."""
    return list(value) if isinstance(value, tuple) else dict(value) if hasattr(value, "keys") else value


@cache
def _field_adapter(name: str) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(Edge.model_fields[name].annotation)


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
