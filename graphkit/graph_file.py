"""The graph file (``graphkit.graph/v1``) written as a stream and read straight into the compact storage.

Writing (:func:`graph_text`): the very text ``json.dumps(graph.to_dict(), indent=1, sort_keys=True) + "\\n"``
gives, produced piece by piece (one edge at a time, the text of each shared evidence tuple and props made once)
instead of one dictionary of the whole graph and one string of the whole file.

Reading (:func:`fill`): the standard library parses the JSON; each edge is checked with plain lookups (kind,
confidence, lifetime and action through their enums, field names and types, endpoints present with allowed
kinds) and stored as an :class:`~graphkit.storage.EdgeRecord`; pydantic validates each *distinct* evidence
object once, and every node.  An edge the plain checks do not accept (a damaged or hostile file, a duplicate)
takes the reference path, ``Graph.add_edge(Edge.model_validate(raw))``, which raises the same errors as before.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from json.encoder import encode_basestring_ascii as _s
from typing import TYPE_CHECKING, Any

from pydantic_core import to_jsonable_python

from graphkit.model import EDGE_SPECS, Confidence, EdgeKind, Evidence, Lifetime, RevocationAction
from graphkit.storage import EdgeRecord, form

if TYPE_CHECKING:
    from graphkit.graph import Graph

__all__ = ["graph_text", "fill"]

_KINDS = {k.value: k for k in EdgeKind}
_CONF = {c.value: c for c in Confidence}
_LIFE = {lt.value: lt for lt in Lifetime}
_ACTIONS = {a.value: a for a in RevocationAction}
_EDGE_KEYS = frozenset(("kind", "source", "target", "key", "evidence", "confidence", "lifetime", "revoked_by",
                        "props"))
_ALLOWED = {k: (frozenset(n.value for n in s.sources), frozenset(n.value for n in s.targets))
            for k, s in EDGE_SPECS.items()}
_SCALARS = (str, int, type(None))


def _block(value: Any, depth: int) -> str:
    """``value`` as ``json.dumps(indent=1, sort_keys=True)`` writes it ``depth`` levels down."""
    return json.dumps(value, indent=1, sort_keys=True).replace("\n", "\n" + " " * depth)


def _null(value: Any) -> str:
    return "null" if value is None else _s(value.value)


def graph_text(graph: "Graph") -> Iterator[str]:
    """The graph file of ``graph``, in pieces (joined: exactly ``json.dumps(graph.to_dict(), indent=1,
    sort_keys=True) + "\\n"``).

    Raises
    ------
    ValueError, RecursionError
        while iterating, when a value cannot be serialized (as ``json.dumps`` would).
    """
    yield '{\n "edges": '
    yield from _list(_edge_texts(graph))
    yield ',\n "meta": ' + _block(graph.meta.to_json(), 1)
    yield ',\n "nodes": '
    yield from _list(_block(n.model_dump(mode="json", exclude_defaults=False), 2) for n in graph.nodes())
    yield ',\n "schema": ' + _s(GRAPH_SCHEMA) + "\n}\n"


GRAPH_SCHEMA = "graphkit.graph/v1"


def _list(items: Iterator[str]) -> Iterator[str]:
    """A list one level down of items already written two levels down; ``[]`` when empty."""
    first = True
    batch: list[str] = []
    for text in items:
        batch.append(("[\n  " if first else ",\n  ") + text)
        first = False
        if len(batch) >= 512:
            yield "".join(batch)
            batch.clear()
    if first:
        yield "[]"
        return
    batch.append("\n ]")
    yield "".join(batch)


def _edge_texts(graph: "Graph") -> Iterator[str]:
    """Each edge two levels down, in (source, target, key) order."""
    ev_text: dict[int, str] = {}
    props_text: dict[int, str] = {}
    succ = graph.nx._succ
    for u in sorted(succ):
        nbrs = succ[u]
        for v in sorted(nbrs):
            keydict = nbrs[v]
            for k in sorted(keydict):
                d = keydict[k]
                if type(d) is not EdgeRecord:
                    yield _block(d["edge"].model_dump(mode="json"), 2)
                    continue
                f = d.form
                if f is None:
                    yield _block(d["edge"].model_dump(mode="json"), 2)  # an edge kept as a plain value
                    continue
                ev = ev_text.get(id(d.evidence))
                if ev is None:
                    ev = ev_text[id(d.evidence)] = _block([e.model_dump(mode="json") for e in d.evidence], 3)
                p = d.props
                if not p:
                    pt = "{}"
                else:
                    pt = props_text.get(id(p))
                    if pt is None:
                        pt = props_text[id(p)] = _block(to_jsonable_python(p), 3)
                yield (f'{{\n   "confidence": {_s(f.confidence.value)},\n   "evidence": {ev},\n'
                       f'   "key": {_s(d.key)},\n   "kind": {_s(f.value)},\n   "lifetime": {_null(f.lifetime)},\n'
                       f'   "props": {pt},\n   "revoked_by": {_null(f.revoked_by)},\n   "source": {_s(d.source)},\n'
                       f'   "target": {_s(d.target)}\n  }}')


# --------------------------------------------------------------------------- reading

class _Reader:
    """The state of one load: evidence validated once per distinct value."""

    def __init__(self, graph: "Graph") -> None:
        self.graph = graph
        self.evidence: dict[tuple, Evidence] = {}

    def one_evidence(self, raw: Any) -> Evidence | None:
        """The shared evidence of ``raw``, validated by pydantic on its first occurrence; None if invalid or
        not plain (the caller then takes the reference path)."""
        if type(raw) is not dict:
            return None
        key = tuple(raw.items())
        for _, value in key:
            if type(value) not in _SCALARS:
                return None
        ev = self.evidence.get(key)
        if ev is None:
            try:
                ev = Evidence.model_validate(raw)
            except ValueError:
                return None
            ev = self.evidence[key] = self.graph._parts.evidence(ev)
        return ev

    def edge(self, raw: Any) -> bool:
        """Store ``raw`` if the plain checks accept it; False (nothing stored) otherwise."""
        if type(raw) is not dict or not _EDGE_KEYS.issuperset(raw):
            return False
        try:
            kind = _KINDS.get(raw.get("kind"))
            conf = _CONF.get(raw.get("confidence", "certain"))
            life, action = raw.get("lifetime"), raw.get("revoked_by")
            life = None if life is None else _LIFE.get(life, False)
            action = None if action is None else _ACTIONS.get(action, False)
        except TypeError:  # an unhashable value
            return False
        source, target, key = raw.get("source"), raw.get("target"), raw.get("key", "")
        props, evidence = raw.get("props", {}), raw.get("evidence")
        if kind is None or conf is None or life is False or action is False or type(source) is not str or \
                type(target) is not str or type(key) is not str or type(props) is not dict or \
                type(evidence) is not list or not evidence or not all(type(k) is str for k in props):
            return False
        evs = [self.one_evidence(e) for e in evidence]
        if None in evs:
            return False
        nodes = self.graph.nx._node
        srcs, tgts = _ALLOWED[kind]
        sd, td = nodes.get(source), nodes.get(target)
        if sd is None or td is None or sd.get("kind") not in srcs or td.get("kind") not in tgts:
            return False  # the reference path names the missing node or the kind not allowed
        nx_key = kind.value if not key else f"{kind.value}|{key}"
        succ = self.graph.nx._succ
        source, target = sys.intern(source), sys.intern(target)
        keydict = succ[source].get(target)
        if keydict is None:
            keydict = succ[source][target] = {}
            self.graph.nx._pred[target][source] = keydict
        elif nx_key in keydict:
            return False  # a second observation: merged by the reference path
        spec = EDGE_SPECS[kind]
        rec = EdgeRecord()
        parts = self.graph._parts
        rec.put(source, target, key, form(kind, conf, spec.lifetime if life is None else life,
                                          spec.revoked_by if action is None else action),
                parts.evidence_seq(evs), parts.props(props))
        keydict[nx_key] = rec
        return True


def fill(graph: "Graph", nodes: list[Any], edges: list[Any], source: str) -> None:
    """Add a graph file's ``nodes`` then ``edges`` to the empty ``graph``.

    Raises
    ------
    GraphFileError
        naming ``source`` and the failing item (``nodes[i]: ...``, ``edges[i]: ...``).
    """
    from graphkit.errors import GraphFileError, GraphkitError
    from graphkit.graph import _first_line
    from graphkit.model import NODE_ADAPTER, Edge

    reader = _Reader(graph)
    g = graph.nx
    for i, raw in enumerate(nodes):
        try:
            node = NODE_ADAPTER.validate_python(raw)
        except (ValueError, TypeError, RecursionError) as exc:
            raise GraphFileError(source, f"nodes[{i}]: {_first_line(exc)}") from None
        graph._share_evidence(node)
        g.add_node(sys.intern(node.id), kind=node.spec.kind.value, node=node)
    for i, raw in enumerate(edges):
        if reader.edge(raw):
            continue
        try:
            graph.add_edge(Edge.model_validate(raw))
        except (ValueError, TypeError, RecursionError, GraphkitError) as exc:
            raise GraphFileError(source, f"edges[{i}]: {_first_line(exc)}") from None
    graph.changed()
