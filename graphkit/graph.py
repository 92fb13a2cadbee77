"""The typed graph: a networkx ``MultiDiGraph`` wrapped by a small API.

networkx attributes are derived from the model: each node carries ``kind``
(the :class:`~graphkit.model.NodeKind` value) and ``node`` (the pydantic
object); each edge, keyed by :attr:`Edge.nx_key`, carries ``kind``,
``traversable`` and ``edge`` (a pydantic object made on each read).  Analysis code may use
``graph.nx`` directly with networkx algorithms.

Storage (:mod:`graphkit.storage`, issue 19): ``nx`` is a :class:`~graphkit.storage.CompactMultiDiGraph` whose edge
attribute mappings are slotted :class:`~graphkit.storage.EdgeRecord` objects holding the edge's shared parts
(evidence kept once per source place, equal props once, kind/confidence/lifetime/action as one shared form), and
whose one-edge pairs take two slots instead of a ``dict``.  An ``Edge`` read from ``graph.nx`` is a new object:
mutating it changes the graph only when stored back (``graph.nx.edges[u, v, k]["edge"] = edge``, then
:meth:`Graph.changed`).  Reading many edges, use the record's attributes (``kind``, ``confidence``,
``lifetime``, ``key``...), which build nothing.

File format (``graphkit.graph/v1``)::

    {"schema": "graphkit.graph/v1",
     "nodes": [<node model_dump>...],      # sorted by id
     "edges": [<edge model_dump>...],      # sorted by (source, target, key)
     "meta":  {...}}                        # inputs and problems of the build

Saving then loading gives an equal graph (see ``tests/test_graph.py``).  Saving streams the file and loading reads
it item by item (:mod:`graphkit.graph_file`).
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import networkx as nx

from graphkit.errors import GraphFileError, GraphkitError, UnknownNodeError
from graphkit.files import write_atomic
from pydantic import BaseModel, ConfigDict, Field

from graphkit.meta import GraphMeta
from graphkit.model import (EDGE_SPECS, NODE_TYPES, AnyNode, Confidence, Edge, EdgeKind, EdgeSpec, Evidence,
                            Lifetime, Node, NodeKind, RevocationAction)
from graphkit.model.bounds import plain_props
from graphkit.redact import mark_tokens
from graphkit.model.enums import CRITICALITY_WEIGHT
from graphkit.model.node import MergeRule
from graphkit.model.node import _combine as combine_values
from graphkit.graph_file import GRAPH_SCHEMA, fill, finish, graph_text, read_text
from graphkit.graph_file import first_line as _first_line
from graphkit.storage import (_FORMS, CompactMultiDiGraph, EdgeRecord, Interner, KeyDict, form, new_record,
                              share_fields_set)

__all__ = ["Graph", "GraphBuilder", "GRAPH_SCHEMA", "graph_file_schema"]

_SOURCE_ONLY = frozenset(k.value for k, spec in EDGE_SPECS.items() if spec.source_only)


class _GraphFile(BaseModel):
    """The shape of the graph file (``graphkit.graph/v1``): what :meth:`Graph.to_dict` writes."""

    model_config = ConfigDict(extra="forbid", title=GRAPH_SCHEMA)

    schema_: Literal["graphkit.graph/v1"] = Field(alias="schema")
    nodes: list[AnyNode]
    edges: list[Edge]
    meta: GraphMeta


def graph_file_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the graph file, generated from the model.

    ``schemas/graph.schema.json`` is this document (``python -m graphkit.docs`` writes it; a test checks it is
    current): every node kind with its own fields, edges with evidence, confidence, lifetime and revoking
    action, and the typed ``meta``.
    """
    schema = _GraphFile.model_json_schema(mode="serialization", by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://graphkit.dev/schemas/graph.schema.json",
            "description": "The graph file written by `graphkit build -o graph.json` (graphkit.graph.Graph.save), "
                           "generated from graphkit.model and graphkit.meta by `python -m graphkit.docs`.",
            **schema}


class _EvidenceIndex:
    """Merging in time linear in the evidence added: :meth:`Node.merged` / :meth:`Edge.merged` union two evidence
    lists, which costs the length of the stored list at every merge (a runner pool named by 20,000 jobs made the
    build quadratic: issue 18).  The index keeps the set of evidence already stored per id, merges the two
    observations without their evidence, then appends only the new evidence, giving exactly the list
    :func:`~graphkit.model.merge_evidence` gives (first occurrence first)."""

    def __init__(self, grow: bool = False) -> None:
        self._sets: dict[Any, set[Evidence]] = {}
        #: ``grow`` (a :class:`GraphBuilder`'s nodes): per node id, the evidence list this index made for the node it
        #: stored last, extended in place at the next merge instead of copied (a node named from every file, the
        #: organization of 15,000 repositories, made merging quadratic: 4% of the build at 10^6 edges)
        self._grow = grow
        self._owned: dict[Any, list[Evidence]] = {}

    def forget(self, key: Any) -> None:
        """The stored object of ``key`` was replaced without a merge."""
        self._sets.pop(key, None)
        self._owned.pop(key, None)

    def merged(self, key: Any, prev: Any, new: Any) -> Any:
        """``prev.merged(new)`` (a node or an edge stored under ``key``)."""
        seen = self._sets.get(key)
        base = prev.evidence
        if seen is None:
            base = list(dict.fromkeys(base))
            seen = self._sets[key] = set(base)
        fresh = [e for e in dict.fromkeys(new.evidence) if e not in seen]
        seen.update(fresh)
        if isinstance(prev, Edge) and isinstance(new, Edge):
            return _merged_edge(prev, new, [*base, *fresh])
        if isinstance(prev, Node) and type(new) is type(prev) and new.id == prev.id:
            if not self._grow:
                return _merged_node(prev, new, [*base, *fresh])
            owned = self._owned.get(key)
            if owned is not None and owned is prev.evidence:  # the list made at the last merge: [*base, *fresh]
                owned += fresh
            else:
                owned = self._owned[key] = [*base, *fresh]
            return _merged_node(prev, new, owned)
        out = prev.model_copy(update={"evidence": []}).merged(new.model_copy(update={"evidence": []}))
        return out.model_copy(update={"evidence": [*base, *fresh]})


def _merged_edge(prev: Edge, new: Edge, evidence: list[Evidence]) -> Edge:
    """``prev.merged(new)`` (:meth:`Edge.merged`, the reference) with its evidence union given: one shallow copy
    (the same field values and set fields as the reference's copies and assignments)."""
    update: dict[str, Any] = {"evidence": evidence, "props": {**prev.props, **new.props}}
    if Confidence.CERTAIN in (prev.confidence, new.confidence):
        update["confidence"] = Confidence.CERTAIN
    return prev.model_copy(update=update)


#: per node class: (merge rule of each field, how to make each field's default: (is a factory, default))
_NODE_FIELDS: dict[type, tuple[dict[str, Any], dict[str, tuple[bool, Any]]]] = {}


def _node_fields(cls: type[Node]) -> tuple[dict[str, Any], dict[str, tuple[bool, Any]]]:
    hit = _NODE_FIELDS.get(cls)
    if hit is None:
        rules = {k: next((m for m in f.metadata if isinstance(m, MergeRule)), None)
                 for k, f in cls.model_fields.items()}
        defaults = {k: (f.default_factory is not None, f.default_factory or f.default)
                    for k, f in cls.model_fields.items() if not f.is_required()}
        hit = _NODE_FIELDS[cls] = (rules, defaults)
    return hit


def _merged_node(prev: Node, new: Node, evidence: list[Evidence]) -> Node:
    """``prev.merged(new)`` (:meth:`Node.merged`, the reference; same id and class) with its evidence union
    given.  The reference's ``model_construct`` leaves the unset fields to pydantic, which inspects the
    signature of each default factory at every call (a third of a merge); here every field is given, the set
    fields being those the reference sets."""
    cls = type(prev)
    rules, defaults = _node_fields(cls)
    weak, strong = (new, prev) if new.inferred and not prev.inferred else (prev, new)
    values = weak.known_fields()
    for key, value in strong.known_fields().items():
        if key in values and weak.inferred == strong.inferred:
            value = combine_values(rules[key], values[key], value)
        values[key] = value
    crit = max(prev.criticality, new.criticality, key=lambda c: CRITICALITY_WEIGHT[c])  # type: ignore[arg-type]
    given = {"id": prev.id, **values, "criticality": crit, "inferred": prev.inferred and new.inferred,
             "evidence": evidence}
    full = dict(given)
    for key, (factory, default) in defaults.items():
        if key not in full:
            full[key] = default() if factory else copy.deepcopy(default)
    return cls.model_construct(_fields_set=set(given), **full)


_new = object.__new__
_setattr = object.__setattr__
_EDGE_FIELDS = frozenset(Edge.model_fields)


def _plain_props(props: Any) -> bool:
    """Whether ``props`` is what edge validation keeps as it is: none, or a dict with string keys and no string
    past ``max_attribute_chars`` (:func:`graphkit.model.bounds.bounded_props` leaves one out)."""
    return not props or (type(props) is dict and plain_props(props))


def _fast_fields(g: Any, evidence: list[Evidence], props: Any, parts: Interner) -> bool:
    """Whether :meth:`Graph.add_edge_fields` may store a new edge without ``Edge``'s validation: evidence given,
    the compact storage in place, and props kept as they are (:func:`_plain_props`; a mapping the graph shares
    is checked once per ``max_attribute_chars``: :meth:`Interner.plain`)."""
    return bool(evidence) and type(g) is CompactMultiDiGraph and (not props or (type(props) is dict
                                                                                and parts.plain(props)))


def _valid_edge(kind: Any, source: Any, target: Any, key: Any, evidence: list[Any], confidence: Any, lifetime: Any,
                revoked_by: Any, props: Any) -> Edge | None:
    """``Edge(kind=kind, ..., props=props or {})`` made without validation (issue 19: an ingested edge was validated
    field by field), or None when a value is not one validation keeps as it is (then ``Edge`` validates, or
    raises): members of the enums, strings, a non-empty list of :class:`Evidence`, a dict with string keys."""
    if not (type(kind) is EdgeKind and type(source) is str and type(target) is str and type(key) is str
            and (not key or mark_tokens(key) is key) and evidence and all(type(e) is Evidence for e in evidence) and type(confidence) is Confidence
            and (lifetime is None or type(lifetime) is Lifetime)
            and (revoked_by is None or type(revoked_by) is RevocationAction)
            and _plain_props(props)):
        return None
    spec = EDGE_SPECS[kind]
    e = _new(Edge)
    _setattr(e, "__dict__", {"kind": kind, "source": source, "target": target, "key": key, "evidence": evidence,
                             "confidence": confidence, "lifetime": spec.lifetime if lifetime is None else lifetime,
                             "revoked_by": spec.revoked_by if revoked_by is None else revoked_by,
                             "props": dict(props) if props else {}})
    _setattr(e, "__pydantic_fields_set__", set(_EDGE_FIELDS))
    _setattr(e, "__pydantic_extra__", None)
    _setattr(e, "__pydantic_private__", None)
    return e



def _new_record(g: CompactMultiDiGraph, source: str, target: str, keydict: KeyDict | None, key: str) -> EdgeRecord:
    """A new, empty record stored under ``(source, target, key)`` of the compact storage (``keydict``: the pair's
    key dictionary, None when the pair has no edge yet): networkx's ``MultiDiGraph.add_edge`` written out."""
    record = EdgeRecord()
    if keydict is None:
        keydict = KeyDict()
        g._succ[source][target] = keydict
        g._pred[target][source] = keydict
    keydict[key] = record
    return record

class GraphBuilder:
    """Accumulates the nodes and edges of one source, merged exactly as :class:`Graph` merges them.

    Identity is the node id, and ``(source, target, nx_key)`` for edges
    (:attr:`Edge.identity`); a second observation merges into the first
    (:meth:`Node.merged`, :meth:`Edge.merged`).  Unlike :class:`Graph`, an
    edge may point to a node another source declares (checked when the build
    adds it to the graph).

    A node stored after a merge shares its evidence list with the node stored at the previous merge of its id
    (the list grows in place): read ``nodes`` as the current state, never keep a node across further merges.
    """

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.edges: dict[tuple[str, str, str], Edge] = {}
        self._seen = _EvidenceIndex()
        self._node_seen = _EvidenceIndex(grow=True)  # nodes are read, never kept across merges: lists grow in place

    def __contains__(self, node_id: object) -> bool:
        return node_id in self.nodes

    def node(self, node: Node) -> str:
        """Add or merge ``node``; returns its id."""
        prev = self.nodes.get(node.id)
        self.nodes[node.id] = node if prev is None else self._node_seen.merged(node.id, prev, node)
        return node.id

    def add_edge(self, edge: Edge) -> Edge:
        """Add or merge ``edge``; returns the stored edge."""
        prev = self.edges.get(edge.identity)
        stored = edge if prev is None else self._seen.merged(edge.identity, prev, edge)
        self.edges[edge.identity] = stored
        return stored

    def edge(self, kind: EdgeKind, source: str, target: str, evidence: Evidence | Sequence[Evidence], *,
             key: str = "", possible: bool = False, lifetime: Lifetime | None = None,
             props: dict[str, Any] | None = None, revoked_by: RevocationAction | None = None) -> Edge:
        """Add or merge an edge of ``kind`` (``possible`` sets :attr:`Confidence.POSSIBLE`; ``revoked_by``
        None: the kind's).

        The edge is made without pydantic's validation when its values are what validation would keep as they are
        (:func:`_valid_edge`): the same object ``Edge(...)`` gives, every field set."""
        evidence = [evidence] if isinstance(evidence, Evidence) else list(evidence)
        confidence = Confidence.POSSIBLE if possible else Confidence.CERTAIN
        made = _valid_edge(kind, source, target, key, evidence, confidence, lifetime, revoked_by, props)
        return self.add_edge(made or Edge(kind=kind, source=source, target=target, key=key, evidence=evidence,
                                          confidence=confidence, lifetime=lifetime, props=props or {},
                                          revoked_by=revoked_by))

    def update(self, other: "GraphBuilder") -> None:
        """Merge every node and edge of ``other`` into this builder (:meth:`add_edge` with the identities
        ``other`` keeps them under)."""
        for n in other.nodes.values():
            self.node(n)
        edges, seen = self.edges, self._seen
        for identity, e in other.edges.items():
            prev = edges.get(identity)
            edges[identity] = e if prev is None else seen.merged(identity, prev, e)


class Graph:
    """A typed multigraph of graphkit nodes and edges.

    Adding a node or edge that already exists merges the two observations
    (evidence unioned; see :meth:`Node.merged` and :meth:`Edge.merged`).

    Raises
    ------
    GraphkitError
        when an edge joins node kinds its declaration does not allow, or an
        endpoint is missing.
    """

    def __init__(self) -> None:
        self.nx: nx.MultiDiGraph = CompactMultiDiGraph()
        self._meta = GraphMeta()
        self._seen = _EvidenceIndex()
        self._parts = Interner()

    @property
    def meta(self) -> GraphMeta:
        """What the build recorded (:class:`~graphkit.meta.GraphMeta`); assigning a mapping validates it."""
        return self._meta

    @meta.setter
    def meta(self, value: GraphMeta | dict[str, Any]) -> None:
        self._meta = value if isinstance(value, GraphMeta) else GraphMeta.model_validate(value)

    # ----------------------------------------------------------------- building
    def add_node(self, node: Node) -> Node:
        """Add or merge ``node``; returns the stored node.  Only the new observation's parts are shared before a
        merge (the stored node's are already): the merged node is made of the two nodes' parts, so sharing it
        again would walk its whole evidence list at every merge (a runner pool named by each of 3,000 jobs of one
        file: 4.7 million list entries)."""
        self._share_evidence(node)
        if node.id in self.nx:
            node = self._seen.merged(node.id, self.node(node.id), node)
            share_fields_set(node)
        self.nx.add_node(sys.intern(node.id), kind=node.spec.kind.value, node=node)
        return node

    def _share_evidence(self, node: Node) -> None:
        """Share what the node holds with the rest of the graph (:meth:`graphkit.storage.Interner.node_parts`):
        evidence objects, strings, fields-sets."""
        self._parts.node_parts(node)

    def replace_node(self, node: Node) -> None:
        """Store ``node`` in place of the node with its id (no merge; edges are kept).

        Raises
        ------
        UnknownNodeError
            if no node has that id.
        """
        self.node(node.id)
        self._seen.forget(node.id)
        self.nx.nodes[node.id]["node"] = node
        self.changed()

    def changed(self) -> None:
        """Forget what was derived from this graph version (the analyses' traversal snapshot).

        networkx's mutating methods (``add_edge``, ``remove_edge``...) do it themselves by clearing
        ``nx.__networkx_cache__`` (networkx >= 3.3); code that changes an attribute in place
        (``graph.nx.edges[u, v, k]["edge"] = e``) calls this afterwards.
        """
        cache = getattr(self.nx, "__networkx_cache__", None)
        if cache:
            cache.clear()

    def _check_ends(self, kind: EdgeKind, source: str, target: str) -> EdgeSpec:
        """The declaration of ``kind``, once both endpoints are found with kinds it allows (GraphkitError)."""
        spec = EDGE_SPECS[kind]
        nodes = self.nx._node
        for end, allowed in ((source, spec.sources), (target, spec.targets)):
            data = nodes.get(end)
            if data is None:
                raise GraphkitError(f"edge {kind.value} {source} -> {target}: node {end!r} missing")
            node_kind = data["node"].spec.kind
            if node_kind not in allowed:
                raise GraphkitError(f"edge {kind.value} may not touch a {node_kind.value} node ({end})")
        return spec

    def add_edge(self, edge: Edge) -> Edge:
        """Add or merge ``edge``; both endpoints must exist with allowed kinds."""
        return self._add_edge(edge, edge.identity)

    def _add_edge(self, edge: Edge, identity: tuple[str, str, str]) -> Edge:
        """:meth:`add_edge` of ``edge``, whose :attr:`~graphkit.model.Edge.identity` is ``identity`` (known to
        the caller: a :class:`GraphBuilder`'s key)."""
        g = self.nx
        spec = EDGE_SPECS[edge.kind]
        s_data, t_data = g._node.get(edge.source), g._node.get(edge.target)
        if (s_data is None or t_data is None or s_data["node"].spec.kind not in spec.sources
                or t_data["node"].spec.kind not in spec.targets):
            self._check_ends(edge.kind, edge.source, edge.target)  # raises, naming the end
        source, target, key = identity
        if type(g) is CompactMultiDiGraph:
            return self._put_compact(g, edge, identity)
        existing = g.get_edge_data(source, target, key)
        if existing is not None:
            edge = self._seen.merged(identity, existing["edge"], edge)
            self.changed()
        else:
            g.add_edge(source, target, key=key)  # clears the networkx cache
            existing = g._succ[source][target][key]
        if isinstance(existing, EdgeRecord):
            existing.put_edge(edge, self._parts)
        else:  # a plain networkx graph put in place of ``nx``
            existing.update(kind=edge.kind.value, traversable=spec.traversable, edge=edge)
        return edge

    def add_edge_fields(self, kind: EdgeKind, source: str, target: str, evidence: list[Evidence], *,
                        key: str = "", confidence: Confidence = Confidence.CERTAIN, lifetime: Lifetime | None = None,
                        revoked_by: RevocationAction | None = None, props: dict[str, Any] | None = None) -> None:
        """``add_edge(Edge(kind=kind, source=source, ...))`` without making the pydantic edge when the edge is new
        (most edges the resolver adds; issue 19: validating an edge per job and runner was a tenth of the build).

        The arguments must be what :class:`~graphkit.model.Edge` accepts unchanged: ``kind``, ``confidence``,
        ``lifetime``, ``revoked_by`` members of their enums (or None), ``evidence`` a list (or a stored edge's tuple) of
        :class:`~graphkit.model.Evidence`, ``props`` a JSON-compatible dict with string keys.  An edge that
        merges into a stored one, an empty evidence list (a ``pydantic.ValidationError``, as from ``Edge``) or
        another storage in place of ``nx`` go through ``Edge`` and :meth:`add_edge`.

        Raises
        ------
        GraphkitError
            as :meth:`add_edge` (an endpoint missing or of a kind ``kind`` does not allow).
        """
        g = self.nx
        value = kind._value_  # ``kind.value`` without the enum property's call
        nx_key = value if not key else f"{value}|{key}"
        succ = g._succ
        nbrs = succ.get(source)
        keydict = nbrs.get(target) if nbrs is not None else None
        if not _fast_fields(g, evidence, props, self._parts) or (keydict is not None and nx_key in keydict):
            self.add_edge(Edge(kind=kind, source=source, target=target, key=key, evidence=evidence,
                               confidence=confidence, lifetime=lifetime, revoked_by=revoked_by, props=props or {}))
            return
        spec = EDGE_SPECS[kind]
        nodes = g._node
        s_data, t_data = nodes.get(source), nodes.get(target)
        if (s_data is None or t_data is None or s_data["node"].spec.kind not in spec.sources
                or t_data["node"].spec.kind not in spec.targets):
            self._check_ends(kind, source, target)  # raises, naming the end
        cache = getattr(g, "__networkx_cache__", None)  # self.changed()
        if cache:
            cache.clear()
        if keydict is None:  # networkx's MultiDiGraph.add_edge written out (both nodes exist): _new_record
            keydict = KeyDict()
            nbrs[target] = keydict  # type: ignore[index]
            g._pred[target][source] = keydict
        parts = self._parts
        f = _FORMS.get((kind, confidence, spec.lifetime if lifetime is None else lifetime,
                        spec.revoked_by if revoked_by is None else revoked_by))
        if f is None:
            f = form(kind, confidence, spec.lifetime if lifetime is None else lifetime,
                     spec.revoked_by if revoked_by is None else revoked_by)
        keydict[nx_key] = new_record(sys.intern(source), sys.intern(target), key, f, parts.evidence_seq(evidence),
                                     parts.shared_props(props) if props else None)

    def shared_props(self, props: dict[str, Any]) -> Any:
        """The graph's shared mapping equal to ``props`` (None when empty): given to :meth:`add_edge_fields` for
        many edges, it is not compared again for each.  Read-only: the graph's edges hold it."""
        return self._parts.shared_props(props) if props else None

    def _put_compact(self, g: CompactMultiDiGraph, edge: Edge, identity: tuple[str, str, str]) -> Edge:
        """:meth:`add_edge` on the compact storage, endpoints checked: networkx's ``MultiDiGraph.add_edge`` (both
        nodes exist) written out, storing the record in place."""
        source, target, key = identity
        keydict = g._succ[source].get(target)
        record = keydict.get(key) if keydict is not None else None
        if record is not None:
            edge = self._seen.merged(identity, record["edge"], edge)
        else:
            record = _new_record(g, source, target, keydict, key)
        self.changed()
        record.put_edge(edge, self._parts)
        return edge

    def update(self, nodes: Iterable[Node] = (), edges: Iterable[Edge] = ()) -> None:
        """Add many nodes, then many edges."""
        for n in nodes:
            self.add_node(n)
        for e in edges:
            self.add_edge(e)

    # ----------------------------------------------------------------- reading
    def __contains__(self, node_id: object) -> bool:
        return node_id in self.nx

    def __len__(self) -> int:
        return self.nx.number_of_nodes()

    def node(self, node_id: str) -> Node:
        """The node with ``node_id``.

        Raises
        ------
        UnknownNodeError
            with close ids as suggestions.
        """
        try:
            return self.nx.nodes[node_id]["node"]
        except KeyError:
            raise UnknownNodeError(node_id, self.nx.nodes) from None

    def nodes(self, kind: NodeKind | None = None) -> Iterator[Node]:
        """Nodes (of one kind), in id order."""
        for nid in sorted(self.nx.nodes):
            data = self.nx.nodes[nid]
            if kind is None or data["kind"] == kind.value:
                yield data["node"]

    def edges(self, kind: Any = None) -> Iterator[Edge]:
        """Edges (of one :class:`EdgeKind`), in (source, target, key) order."""
        for u, v, k, data in sorted(self.nx.edges(keys=True, data=True), key=lambda t: (t[0], t[1], t[2])):
            if kind is None or data["kind"] == kind.value:
                yield data["edge"]

    def out_edges(self, node_id: str) -> Iterator[Edge]:
        """Edges leaving ``node_id``."""
        for _, _, data in self.nx.out_edges(node_id, data=True):
            yield data["edge"]

    def in_edges(self, node_id: str) -> Iterator[Edge]:
        """Edges entering ``node_id``."""
        for _, _, data in self.nx.in_edges(node_id, data=True):
            yield data["edge"]

    def traversable_view(self) -> nx.MultiDiGraph:
        """A read-only view with only traversable edges (no copy).

        Edges of a ``source_only`` kind (``persists_on``: followed from an analysis source alone, see
        :func:`graphkit.analysis.reach.collect`) are left out: the view is what any reached node can follow.
        """
        succ = self.nx._succ
        return nx.subgraph_view(self.nx, filter_edge=lambda u, v, k: succ[u][v][k]["traversable"]
                                and succ[u][v][k]["kind"] not in _SOURCE_ONLY)

    def counts(self) -> dict[str, dict[str, int]]:
        """Counts per node kind and per edge kind (only kinds present)."""
        nodes: dict[str, int] = {}
        for _, kind in self.nx.nodes(data="kind"):
            nodes[kind] = nodes.get(kind, 0) + 1
        edges: dict[str, int] = {}
        for _, _, kind in self.nx.edges(data="kind"):
            edges[kind] = edges.get(kind, 0) + 1
        return {"nodes": dict(sorted(nodes.items())), "edges": dict(sorted(edges.items()))}

    # ----------------------------------------------------------------- files
    def to_dict(self) -> dict[str, Any]:
        """The JSON-compatible file representation (``graphkit.graph/v1``)."""
        return {
            "schema": GRAPH_SCHEMA,
            "nodes": [n.model_dump(mode="json", exclude_defaults=False) for n in self.nodes()],
            "edges": [e.model_dump(mode="json") for e in self.edges()],
            "meta": self.meta.to_json(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "<dict>") -> "Graph":
        """Rebuild a graph from :meth:`to_dict` output.

        Raises
        ------
        GraphFileError
            naming ``source`` and the failing item (a file of another version or
            a damaged one: ``nodes`` not a list, an edge without its nodes...).
        """
        g = cls()
        g._check_top(data, source)
        fill(g, _items(data, "nodes", source), _items(data, "edges", source), source)
        return g

    def _check_top(self, data: Any, source: str) -> None:
        """The schema check and the meta of a graph file's top-level object (GraphFileError)."""
        if not isinstance(data, dict) or data.get("schema") != GRAPH_SCHEMA:
            found = data.get("schema") if isinstance(data, dict) else None
            shown = repr(found) if isinstance(found, str) and len(found) <= 40 else type(found).__name__
            raise GraphFileError(source, f"not a {GRAPH_SCHEMA} file (schema={shown})")
        try:
            self.meta = data.get("meta") or {}
        except (ValueError, TypeError, RecursionError) as exc:
            raise GraphFileError(source, f"meta: {_first_line(exc)}") from None

    def save(self, path: str | Path) -> None:
        """Write the graph as JSON to ``path`` (UTF-8, sorted, indented), atomically
        (:func:`graphkit.files.write_atomic`: the previous file survives any failure).

        The text is :meth:`to_dict` as ``json.dumps(..., indent=1, sort_keys=True)`` writes it, streamed piece by
        piece (:func:`graphkit.graph_file.graph_text`): no whole-graph dictionary or string is built.

        Raises
        ------
        GraphkitError
            the path cannot be written (OS reason), or the graph cannot be
            serialized (values nested past the serializer's limits).
        """
        try:
            write_atomic(path, graph_text(self))
        except (ValueError, RecursionError) as exc:
            raise GraphkitError(f"{path}: graph cannot be serialized: {_first_line(exc)}") from None

    @classmethod
    def load(cls, path: str | Path) -> "Graph":
        """Read a graph saved by :meth:`save`.

        Raises
        ------
        GraphFileError
            if the file is missing, not JSON, nested deeper than ``max_depth``, or not a graphkit graph.
        """
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise GraphFileError(str(p), exc.strerror or str(exc)) from None
        except UnicodeDecodeError as exc:
            raise GraphFileError(str(p), f"not a graphkit graph file (not valid JSON: {_first_line(exc)})") from None
        g = cls()
        parsed = read_text(g, text, str(p))  # one item at a time; None: not the plain shape, parsed whole below
        if parsed is not None:
            del text
            g._check_top(parsed.top, str(p))
            finish(parsed, str(p))
            return g
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GraphFileError(str(p), f"not a graphkit graph file (not valid JSON: {_first_line(exc)})") from None
        except RecursionError:
            raise GraphFileError(str(p), "not a graphkit graph file (JSON nested too deep)") from None
        return cls.from_dict(data, source=str(p))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Graph) and self.to_dict() == other.to_dict()


def _items(data: dict[str, Any], key: str, source: str) -> list[Any]:
    """``data[key]`` of a graph file: a list; missing or another type is a :class:`GraphFileError` (a file without
    its ``edges`` would read as a graph where nothing reaches anything)."""
    if key not in data:
        raise GraphFileError(source, f"{key}: missing (a graph file lists its {key}, an empty list when none)")
    value = data[key]
    if not isinstance(value, list):
        raise GraphFileError(source, f"{key}: expected a list, got {type(value).__name__} (a file of another version?)")
    return value


assert set(NODE_TYPES) == set(NodeKind)
