"""The graph file (``graphkit.graph/v1``) written as a stream and read straight into the compact storage.

Writing (:func:`graph_text`): the very text ``json.dumps(graph.to_dict(), indent=1, sort_keys=True) + "\\n"``
gives, produced piece by piece (one edge at a time, the text of each shared evidence tuple and props made once)
instead of one dictionary of the whole graph and one string of the whole file, and without the standard
library's pure-Python encoder that ``indent`` selects (:func:`_text` writes plain values itself, and each
form's fixed text once).

Reading (:func:`fill`): the standard library parses the JSON; each edge is checked with plain lookups (kind,
confidence, lifetime and action through their enums, field names and types, endpoints present with allowed
kinds) and stored as an :class:`~graphkit.storage.EdgeRecord`; pydantic validates each *distinct* evidence
object once, and every node.  An edge the plain checks do not accept (a damaged or hostile file, a duplicate)
takes the reference path, ``Graph.add_edge(Edge.model_validate(raw))``, which raises the same errors as before.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from json.decoder import scanstring
from json.encoder import encode_basestring_ascii as _s
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from graphkit.errors import GraphFileError, GraphkitError, validation_summary
from graphkit.model import (EDGE_SPECS, NODE_ADAPTER, Confidence, Edge, EdgeKind, Evidence, Lifetime, NodeKind,
                            RevocationAction, ids)
from graphkit.storage import EdgeRecord, KeyDict, form

if TYPE_CHECKING:
    from graphkit.graph import Graph

__all__ = ["graph_text", "fill", "read_text", "finish", "first_line"]

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
    """``value`` as ``json.dumps(indent=1, sort_keys=True)`` writes it ``depth`` levels down (the reference of
    :func:`_text`)."""
    return json.dumps(value, indent=1, sort_keys=True).replace("\n", "\n" + " " * depth)


_INF = float("inf")
#: nesting :func:`_text` writes itself; deeper values (or a cycle) are written by :func:`_block`
_TEXT_DEPTH = 64


def _text(value: Any, pad: str, level: int = 0) -> str:
    """``_block(value, len(pad) - 1)`` (``pad``: a newline and the value's indentation), written without the
    standard library's pure-Python encoder, which ``indent`` selects (its generators were most of a save: issue
    19).  Exact ``dict``/``list``/``tuple``/``str``/``int``/``float``/``bool``/``None`` are written here as that
    encoder writes them (keys sorted, ``ensure_ascii``, ``NaN``/``Infinity``); any other value, a mapping with a
    key that is not a ``str``, or nesting past :data:`_TEXT_DEPTH` goes to :func:`_block`, which gives the
    same text and raises the same errors (``TypeError``, ``ValueError`` for a cycle, ``RecursionError``)."""
    t = type(value)
    if t is str:
        return _s(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if t is int:
        return int.__repr__(value)
    if t is float:
        return _float_text(value)
    if level < _TEXT_DEPTH:
        if t is dict:
            if not value:
                return "{}"
            for k in value:
                if type(k) is not str:
                    break
            else:
                inner = pad + " "
                return "{" + ",".join([f"{inner}{_s(k)}: {_text(value[k], inner, level + 1)}"
                                       for k in sorted(value)]) + pad + "}"
        elif t is list or t is tuple:
            if not value:
                return "[]"
            inner = pad + " "
            return "[" + ",".join([inner + _text(v, inner, level + 1) for v in value]) + pad + "]"
    return json.dumps(value, indent=1, sort_keys=True).replace("\n", pad)


def _float_text(value: float) -> str:
    """A float as the standard library's encoder writes it (``allow_nan``)."""
    if value != value:
        return "NaN"
    if value == _INF:
        return "Infinity"
    return "-Infinity" if value == -_INF else float.__repr__(value)


_EVIDENCE_SCALARS = (str, int, type(None))


def _evidence_dict(e: Evidence) -> dict[str, Any]:
    """``e.model_dump(mode="json")``, read from the model's own dict when its values are plain (``str``, ``int``,
    None: what the dump keeps as they are)."""
    d = e.__dict__
    if type(e) is Evidence and len(d) == 5 and all(type(v) in _EVIDENCE_SCALARS for v in d.values()):
        return d
    return e.model_dump(mode="json")


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
    yield ',\n "meta": ' + _text(graph.meta.to_json(), "\n ")
    yield ',\n "nodes": '
    yield from _list(_text(n.model_dump(mode="json", exclude_defaults=False), "\n  ") for n in graph.nodes())
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


def _form_texts(f: Any) -> tuple[str, str, str]:
    """The fixed text of an edge of form ``f`` (:class:`~graphkit.storage.Form`) around its evidence, key, props
    and ends: (before the evidence, between the key and the props, between the props and the source)."""
    return (f'{{\n   "confidence": {_s(f.confidence.value)},\n   "evidence": ',
            f',\n   "kind": {_s(f.value)},\n   "lifetime": {_null(f.lifetime)},\n   "props": ',
            f',\n   "revoked_by": {_null(f.revoked_by)},\n   "source": ')


def _edge_texts(graph: "Graph") -> Iterator[str]:
    """Each edge two levels down, in (source, target, key) order; what edges share (a form's fixed text, an
    evidence tuple, a props mapping, an end's quoted id) is written once."""
    ev_text: dict[int, str] = {}
    props_text: dict[int, str] = {}
    form_text: dict[int, tuple[str, str, str]] = {}
    succ = graph.nx._succ
    for u in sorted(succ):
        nbrs = succ[u]
        su = _s(u)
        for v in sorted(nbrs):
            keydict = nbrs[v]
            end = f',\n   "target": {_s(v)}\n  }}'
            for k in sorted(keydict):
                d = keydict[k]
                if type(d) is not EdgeRecord:
                    yield _text(d["edge"].model_dump(mode="json"), "\n  ")
                    continue
                f = d.form
                if f is None or d.source is not u and d.source != u or d.target is not v and d.target != v:
                    yield _text(d["edge"].model_dump(mode="json"), "\n  ")  # an edge kept as a plain value
                    continue
                ev = ev_text.get(id(d.evidence))
                if ev is None:
                    ev = ev_text[id(d.evidence)] = _text([_evidence_dict(e) for e in d.evidence], "\n   ")
                p = d.props
                if not p:
                    pt = "{}"
                else:
                    pt = props_text.get(id(p))
                    if pt is None:
                        pt = props_text[id(p)] = _text(to_jsonable_python(p), "\n   ")
                ft = form_text.get(id(f))
                if ft is None:
                    ft = form_text[id(f)] = _form_texts(f)
                yield f'{ft[0]}{ev},\n   "key": {_s(d.key)}{ft[1]}{pt}{ft[2]}{su}{end}'


# --------------------------------------------------------------------------- reading

def first_line(exc: BaseException) -> str:
    """An error's message without the input values: pydantic's first error (location and message), else the
    first line, at most 300 characters."""
    if isinstance(exc, ValidationError) and exc.errors():
        text = validation_summary(exc)
    else:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def _plain_fields(raw: Any) -> tuple | None:
    """An edge's fields, enums looked up and types checked, if all are plain: ``(kind, confidence, lifetime
    or None, action or None, source, target, key, props, evidence list)``; None otherwise."""
    if type(raw) is not dict or not _EDGE_KEYS.issuperset(raw):
        return None
    try:
        kind = _KINDS.get(raw.get("kind"))
        conf = _CONF.get(raw.get("confidence", "certain"))
        life, action = raw.get("lifetime"), raw.get("revoked_by")
        life = None if life is None else _LIFE.get(life, False)
        action = None if action is None else _ACTIONS.get(action, False)
    except TypeError:  # an unhashable value
        return None
    if kind is None or conf is None or life is False or action is False:
        return None
    source, target, key = raw.get("source"), raw.get("target"), raw.get("key", "")
    props, evidence = raw.get("props", {}), raw.get("evidence")
    if type(source) is not str or type(target) is not str or type(key) is not str or type(props) is not dict or \
            type(evidence) is not list or not evidence or not all(type(k) is str for k in props):
        return None
    return kind, conf, life, action, source, target, key, props, evidence


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

    def prepare(self, raw: Any) -> tuple[EdgeRecord, str] | None:
        """The record of ``raw`` and its networkx key if the plain checks accept it (endpoints not checked);
        None otherwise."""
        fields = _plain_fields(raw)
        if fields is None:
            return None
        kind, conf, life, action, source, target, key, props, evidence = fields
        evs = [self.one_evidence(e) for e in evidence]
        if None in evs:
            return None
        spec = EDGE_SPECS[kind]
        rec = EdgeRecord()
        parts = self.graph._parts
        rec.put(sys.intern(source), sys.intern(target), key,
                form(kind, conf, spec.lifetime if life is None else life,
                     spec.revoked_by if action is None else action),
                parts.evidence_seq(evs), parts.props(props))
        return rec, kind.value if not key else f"{kind.value}|{key}"

    def attach(self, rec: EdgeRecord, nx_key: str) -> bool:
        """Store a prepared record if its endpoints exist with allowed kinds and the edge is new; False (nothing
        stored) otherwise."""
        nodes = self.graph.nx._node
        srcs, tgts = _ALLOWED[rec.form.kind]  # type: ignore[union-attr]
        source, target = rec.source, rec.target
        sd, td = nodes.get(source), nodes.get(target)
        if sd is None or td is None or sd.get("kind") not in srcs or td.get("kind") not in tgts:
            return False  # the reference path names the missing node or the kind not allowed
        succ = self.graph.nx._succ
        keydict = succ[source].get(target)
        if keydict is None:
            keydict = succ[source][target] = KeyDict()
            self.graph.nx._pred[target][source] = keydict
        elif nx_key in keydict:
            return False  # a second observation: merged by the reference path
        keydict[nx_key] = rec
        return True

    def node(self, raw: Any) -> None:
        """Validate and add one node (pydantic).

        Raises
        ------
        ValueError, TypeError, RecursionError
            as pydantic does; ValueError for an id an earlier entry has, or an id that is not the one its kind's
            constructor writes (:func:`_check_canonical`).
        """
        node = NODE_ADAPTER.validate_python(raw)
        _check_canonical(node.id, node.spec.kind)
        if node.id in self.graph.nx._node:  # graphkit writes each node once: a second entry was edited in
            raise ValueError(f"duplicate node id {node.id!r} (an earlier entry has it; a graph file lists each "
                             "node once)")
        self.graph._share_evidence(node)
        self.graph.nx.add_node(sys.intern(node.id), kind=node.spec.kind.value, node=node)

    def add_edges(self, items: list[Any], source: str) -> None:
        """Add prepared edges (``(record, nx key)``) or raw ones, in file order: a raw one, a duplicate or one
        whose endpoints fail takes the reference path (``edges[i]: ...`` errors)."""
        for i, item in enumerate(items):
            if type(item) is tuple and self.attach(*item):
                continue
            try:
                edge = item[0].edge() if type(item) is tuple else Edge.model_validate(item)
                self.graph.add_edge(edge)
            except (ValueError, TypeError, RecursionError, GraphkitError) as exc:
                raise GraphFileError(source, f"edges[{i}]: {first_line(exc)}") from None
        self.graph.changed()


def _check_canonical(node_id: str, kind: NodeKind) -> None:
    """Refuse a node id that is not the canonical id of its kind (:func:`graphkit.model.ids.canonical`): graphkit
    writes only canonical ids, so another one (``repo:ACME/app``, a trailing space, a path with ``..`` segments)
    was edited in and would load as a second node for one repository, workflow or runner; so is an id of another
    kind, or one with a part past ``max_identifier_chars``.  A string no constructor could have written (a graph
    made by hand: ``job:j``, ``oidc:job:j``) names nothing graphkit builds and is kept as it is.  The message shows the id (escaped,
    as ``repr`` writes it) when it is short, its length otherwise.

    Raises
    ------
    ValueError
        naming the id and the canonical id (or why the id is not one of its kind).
    """
    try:
        want = ids.canonical(node_id, kind)
    except ids.IdTooLong as exc:
        raise ValueError(f"node id {_shown_id(node_id)}: {exc}") from None
    except ids.IdError:
        try:
            other = ids.parse(node_id).kind
        except ids.IdError:
            return  # no graphkit id at all (a hand-made graph's "job:j"): nothing it could duplicate
        if other is kind:
            return  # its kind's form, with parts no constructor takes (a hand-made "oidc:job:j"): kept likewise
        raise ValueError(f"node id {_shown_id(node_id)} is an id of kind {other.value}, not {kind.value}") from None
    if want != node_id:
        raise ValueError(f"node id {_shown_id(node_id)} is not canonical: graphkit writes this {kind.value} as "
                         f"{_shown_id(want)} (a graph file lists each node once, under that id)")


def _shown_id(node_id: str) -> str:
    return repr(node_id) if len(node_id) <= 300 else f"<id of {len(node_id)} characters>"


def fill(graph: "Graph", nodes: list[Any], edges: list[Any], source: str) -> None:
    """Add a graph file's ``nodes`` then ``edges`` to the empty ``graph``.

    Raises
    ------
    GraphFileError
        naming ``source`` and the failing item (``nodes[i]: ...``, ``edges[i]: ...``).
    """
    reader = _Reader(graph)
    for i, raw in enumerate(nodes):
        try:
            reader.node(raw)
        except (ValueError, TypeError, RecursionError) as exc:
            raise GraphFileError(source, f"nodes[{i}]: {first_line(exc)}") from None
    reader.add_edges([reader.prepare(raw) or raw for raw in edges], source)


class _NotPlain(Exception):
    """The text is not a plain JSON object with ``edges``/``nodes`` arrays: the caller parses it whole."""


_WS = re.compile(r"[ \t\n\r]*").match
_decode = json.JSONDecoder().raw_decode


class Parsed(NamedTuple):
    """What :func:`read_text` found: the other top-level members (``schema``, ``meta``), the first node error,
    and the edges waiting for :func:`finish`."""

    top: dict[str, Any]
    node_error: GraphFileError | None
    reader: _Reader
    edges: list[Any]


def read_text(graph: "Graph", text: str, source: str) -> Parsed | None:
    """Read a graph file's ``text`` into the empty ``graph``, one item at a time (no whole parsed document is
    held: each edge's parsed dict is dropped once its record is made); nodes are added, edges wait for
    :func:`finish` (after the caller's schema and meta checks, as the reference order of errors wants).

    Returns None, ``graph`` then to be dropped, when the text is not a plain JSON object whose ``nodes`` and
    ``edges`` are arrays: the caller parses it with ``json.loads`` (which gives the reference errors).
    """
    reader = _Reader(graph)
    top: dict[str, Any] = {}
    pending: list[Any] = []
    errors: list[GraphFileError] = []

    def item(key: str, index: int, raw: Any) -> None:
        if key == "edges":
            pending.append(reader.prepare(raw) or raw)
        elif not errors:
            try:
                reader.node(raw)
            except (ValueError, TypeError, RecursionError) as exc:
                errors.append(GraphFileError(source, f"nodes[{index}]: {first_line(exc)}"))
    try:
        _object(text, item, top)
    except (_NotPlain, ValueError, RecursionError, IndexError):
        return None
    return Parsed(top, errors[0] if errors else None, reader, pending)


def finish(parsed: Parsed, source: str) -> None:
    """Raise the first node error, else add the edges (``edges[i]: ...`` errors).

    Raises
    ------
    GraphFileError
        naming ``source`` and the failing item.
    """
    if parsed.node_error is not None:
        raise parsed.node_error
    parsed.reader.add_edges(parsed.edges, source)


def _object(text: str, item: Any, top: dict[str, Any]) -> None:
    """Walk the top-level object of ``text``: ``edges``/``nodes`` arrays item by item (``item(key, i, value)``),
    other members into ``top``.  Raises _NotPlain (or the decoder's errors) on anything else."""
    i = _WS(text, 0).end()
    if text[i] != "{":
        raise _NotPlain
    i = _WS(text, i + 1).end()
    seen: set[str] = set()
    while True:
        if text[i] != '"':
            raise _NotPlain
        key, i = scanstring(text, i + 1)
        i = _WS(text, i).end()
        if text[i] != ":" or key in seen:
            raise _NotPlain
        seen.add(key)
        i = _WS(text, i + 1).end()
        if key in ("edges", "nodes"):
            if text[i] != "[":
                raise _NotPlain
            i = _array(text, i, lambda n, v, key=key: item(key, n, v))
        else:
            top[key], i = _decode(text, i)
        i = _WS(text, i).end()
        if text[i] == ",":
            i = _WS(text, i + 1).end()
            continue
        if text[i] != "}" or _WS(text, i + 1).end() != len(text) or not {"edges", "nodes"} <= seen:
            raise _NotPlain  # (a missing list: json.loads and from_dict name it)
        return


def _array(text: str, i: int, item: Any) -> int:
    """Walk the array starting at ``text[i] == "["``; returns the index after it."""
    i = _WS(text, i + 1).end()
    if text[i] == "]":
        return i + 1
    n = 0
    while True:
        value, i = _decode(text, i)
        item(n, value)
        n += 1
        i = _WS(text, i).end()
        if text[i] == ",":
            i = _WS(text, i + 1).end()
        elif text[i] == "]":
            return i + 1
        else:
            raise _NotPlain
