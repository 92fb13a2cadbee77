"""Compact edge storage for the embedded graph (issue 19: at most 1 KB per edge).

Every edge of :attr:`graphkit.graph.Graph.nx` keeps its attributes in an :class:`EdgeRecord` (networkx's
``edge_attr_dict_factory`` of :class:`CompactMultiDiGraph`): a slotted mapping holding the edge decomposed into
shared parts instead of a ``dict`` holding a pydantic :class:`~graphkit.model.Edge`:

- ``kind``, ``confidence``, ``lifetime`` and ``revoked_by`` as one shared :class:`Form` (a few dozen exist);
- the evidence as a tuple of :class:`~graphkit.model.Evidence` objects kept once per source place, the tuple
  itself shared by every edge with the same evidence (:class:`Interner`);
- ``props`` shared by every edge with equal props (None when empty);
- endpoints as the node ids' interned strings.

Read as a mapping, a record is exactly the ``dict`` it replaces: ``"kind"`` (the kind's value),
``"traversable"`` and ``"edge"`` (a pydantic :class:`~graphkit.model.Edge` made on each read: mutating it
changes nothing until it is stored back with ``data["edge"] = edge``), plus any other key set on it.  Code that
reads many edges and needs only their kind, confidence, lifetime or key reads the record's attributes of the
same names (as on an :class:`~graphkit.model.Edge`), which builds nothing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any

import networkx as nx
from pydantic import BaseModel

from graphkit import limits
from graphkit.model import EDGE_SPECS, Confidence, Edge, EdgeKind, EdgeSpec, Evidence, Lifetime, RevocationAction
from graphkit.model.bounds import plain_props

__all__ = ["Form", "form", "new_record", "EdgeRecord", "KeyDict", "NodeTable", "CompactMultiDiGraph", "Interner",
           "EdgeList", "materialize", "share_fields_set"]

_DERIVED = ("kind", "traversable", "edge")
_EDGE_FIELDS = frozenset(Edge.model_fields)
_new = object.__new__
_setattr = object.__setattr__


class Form:
    """What edges share: kind, confidence, lifetime and revoking action (one object per distinct combination,
    from :func:`form`), with the kind's value and declaration."""

    __slots__ = ("kind", "confidence", "lifetime", "revoked_by", "value", "spec", "traversable")

    def __init__(self, kind: EdgeKind, confidence: Confidence, lifetime: Lifetime | None,
                 revoked_by: RevocationAction | None) -> None:
        self.kind, self.confidence, self.lifetime, self.revoked_by = kind, confidence, lifetime, revoked_by
        self.value: str = kind.value
        self.spec: EdgeSpec = EDGE_SPECS[kind]
        self.traversable: bool = self.spec.traversable


_FORMS: dict[tuple, Form] = {}


def form(kind: EdgeKind, confidence: Confidence, lifetime: Lifetime | None,
         revoked_by: RevocationAction | None) -> Form:
    """The shared :class:`Form` of these four values (made on first use; at most kinds x 2 x lifetimes x
    actions exist)."""
    k = (kind, confidence, lifetime, revoked_by)
    f = _FORMS.get(k)
    if f is None:
        f = _FORMS[k] = Form(kind, confidence, lifetime, revoked_by)
    return f


def materialize(source: str, target: str, key: str, f: Form, evidence: Iterable[Evidence],
                props: Mapping[str, Any] | None) -> Edge:
    """A pydantic :class:`~graphkit.model.Edge` of these parts, without validation (they come from a valid
    edge); its evidence list and props dict are its own."""
    e = _new(Edge)
    _setattr(e, "__dict__", {"kind": f.kind, "source": source, "target": target, "key": key,
                             "evidence": list(evidence), "confidence": f.confidence, "lifetime": f.lifetime,
                             "revoked_by": f.revoked_by, "props": dict(props) if props else {}})
    _setattr(e, "__pydantic_fields_set__", set(_EDGE_FIELDS))
    _setattr(e, "__pydantic_extra__", None)
    _setattr(e, "__pydantic_private__", None)
    return e


class EdgeRecord(MutableMapping):
    """The attribute mapping of one networkx edge (see the module docstring).

    Slots: ``source``, ``target``, ``key`` (the edge's own key, not the networkx key), ``form``
    (:class:`Form`; None while no edge is stored), ``evidence`` (tuple), ``props`` (mapping or None), ``extra``
    (other keys, or a ``"kind"``/``"traversable"`` value that differs from the stored edge's).
    """

    __slots__ = ("source", "target", "key", "form", "evidence", "props", "extra")

    def __init__(self) -> None:
        self.source = self.target = self.key = None
        self.form: Form | None = None
        self.evidence: tuple[Evidence, ...] = ()
        self.props: Mapping[str, Any] | None = None
        self.extra: dict[str, Any] | None = None

    # ------------------------------------------------------------ the edge's fields, as on an Edge
    @property
    def kind(self) -> EdgeKind:
        """The edge's kind (AttributeError when no edge is stored)."""
        return self.form.kind  # type: ignore[union-attr]

    @property
    def confidence(self) -> Confidence:
        """The edge's confidence."""
        return self.form.confidence  # type: ignore[union-attr]

    @property
    def lifetime(self) -> Lifetime | None:
        """The edge's lifetime."""
        return self.form.lifetime  # type: ignore[union-attr]

    @property
    def revoked_by(self) -> RevocationAction | None:
        """The edge's revoking action."""
        return self.form.revoked_by  # type: ignore[union-attr]

    def edge(self) -> Edge:
        """The stored edge as a new pydantic object (KeyError when none is stored)."""
        f = self.form
        if f is None:
            raise KeyError("edge")
        return materialize(self.source, self.target, self.key, f, self.evidence, self.props)  # type: ignore[arg-type]

    def put(self, source: str, target: str, key: str, f: Form, evidence: tuple[Evidence, ...],
            props: Mapping[str, Any] | None) -> None:
        """Store an edge from its (shared) parts; ``"kind"``/``"traversable"`` overrides equal to the new
        edge's are dropped."""
        self.source, self.target, self.key, self.form, self.evidence, self.props = \
            source, target, key, f, evidence, props or None
        x = self.extra
        if x:
            for k, derived in (("kind", f.value), ("traversable", f.traversable)):
                if k in x and x[k] == derived:
                    del x[k]
            if not x:
                self.extra = None

    def put_edge(self, edge: Edge, interner: "Interner | None" = None) -> None:
        """Store ``edge`` (its parts shared through ``interner`` when given)."""
        if interner is None:
            ev, props = tuple(edge.evidence), dict(edge.props) if edge.props else None
        else:
            ev, props = interner.evidence_seq(edge.evidence), interner.props(edge.props)
        self.put(sys.intern(edge.source), sys.intern(edge.target), edge.key,
                 form(edge.kind, edge.confidence, edge.lifetime, edge.revoked_by), ev, props)

    # ------------------------------------------------------------ the mapping
    def __getitem__(self, k: str) -> Any:
        x = self.extra
        if x is not None and k in x:
            return x[k]
        f = self.form
        if f is not None:
            if k == "kind":
                return f.value
            if k == "traversable":
                return f.traversable
            if k == "edge":
                return self.edge()
        raise KeyError(k)

    def __setitem__(self, k: str, value: Any) -> None:
        if k == "edge" and isinstance(value, Edge):
            if self.extra is not None:
                self.extra.pop("edge", None)
            self.put_edge(value)
            return
        if k == "edge":
            self._clear_edge()
        elif k in ("kind", "traversable") and self.form is not None and \
                value == (self.form.value if k == "kind" else self.form.traversable):
            if self.extra is not None:
                self.extra.pop(k, None)
            return
        if self.extra is None:
            self.extra = {}
        self.extra[k] = value

    def _clear_edge(self) -> None:
        """Forget the stored edge, keeping ``"kind"`` and ``"traversable"`` as plain values (as a dict would)."""
        f = self.form
        if f is None:
            return
        x = self.extra if self.extra is not None else {}
        x.setdefault("kind", f.value)
        x.setdefault("traversable", f.traversable)
        self.extra = x
        self.form, self.evidence, self.props = None, (), None

    def __delitem__(self, k: str) -> None:
        x = self.extra
        if k == "edge" and self.form is not None:
            self._clear_edge()
            if x is not None:
                x.pop("edge", None)
            return
        if k in ("kind", "traversable") and self.form is not None:
            e = self.edge()  # the edge stays, as a plain value
            self._clear_edge()
            self.extra["edge"] = e  # type: ignore[index]
            del self.extra[k]  # type: ignore[union-attr]
            return
        if x is None or k not in x:
            raise KeyError(k)
        del x[k]
        if not x:
            self.extra = None

    def __contains__(self, k: object) -> bool:
        return (self.form is not None and k in _DERIVED) or (self.extra is not None and k in self.extra)

    def __iter__(self) -> Iterator[str]:
        x = self.extra or {}
        if self.form is not None:
            yield from _DERIVED
            yield from (k for k in x if k not in _DERIVED)
        else:
            yield from x

    def __len__(self) -> int:
        n = len(self.extra) if self.extra else 0
        if self.form is not None:
            n += 3 - sum(1 for k in _DERIVED if self.extra and k in self.extra)
        return n

    def update(self, other: Any = (), /, **kw: Any) -> None:  # type: ignore[override]
        """As ``dict.update``; another record is copied part for part (networkx's ``copy()`` does this)."""
        if isinstance(other, EdgeRecord) and self.form is None and not self.extra:
            self.source, self.target, self.key, self.form, self.evidence, self.props = \
                other.source, other.target, other.key, other.form, other.evidence, other.props
            self.extra = dict(other.extra) if other.extra else None
            other = ()
        if isinstance(other, Mapping) and "edge" in other:  # "kind"/"traversable" first, then the edge
            other = {**{k: v for k, v in other.items() if k != "edge"}, "edge": other["edge"]}
        MutableMapping.update(self, other, **kw)

    def copy(self) -> "EdgeRecord":
        """A shallow copy (the shared parts are shared), as ``dict.copy``."""
        out = EdgeRecord()
        out.update(self)
        return out

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> "EdgeRecord":
        out = self.copy()  # the parts are immutable or copied when an edge is made
        if out.extra:
            import copy as _copy
            out.extra = _copy.deepcopy(out.extra, memo)
        return out

    def __repr__(self) -> str:
        return f"EdgeRecord({dict(self.items())!r})"


class KeyDict(MutableMapping):
    """The parallel edges of one pair ``u -> v`` (networkx's ``edge_key_dict_factory``): a ``dict`` of networkx
    key -> attribute mapping, held in two slots while the pair has exactly one edge (most pairs: a one-item
    ``dict`` takes 184 bytes, this 56), else in a ``dict`` (``_d``; empty when the pair has no edge)."""

    __slots__ = ("_k", "_v", "_d")

    def __init__(self) -> None:
        self._k: Any = None
        self._v: Any = None
        self._d: dict | None = {}

    def __getitem__(self, k: Any) -> Any:
        d = self._d
        if d is not None:
            return d[k]
        if self._k == k:
            return self._v
        raise KeyError(k)

    def get(self, k: Any, default: Any = None) -> Any:
        d = self._d
        if d is not None:
            return d.get(k, default)
        return self._v if self._k == k else default

    def __contains__(self, k: object) -> bool:
        d = self._d
        return k in d if d is not None else self._k == k

    def __setitem__(self, k: Any, value: Any) -> None:
        d = self._d
        if d is None:
            if self._k == k:
                self._v = value
            else:
                self._d = {self._k: self._v, k: value}
                self._k = self._v = None
        elif d:
            d[k] = value
        else:
            self._d = None
            self._k, self._v = k, value

    def __delitem__(self, k: Any) -> None:
        d = self._d
        if d is not None:
            del d[k]
        elif self._k == k:
            self._d = {}
            self._k = self._v = None
        else:
            raise KeyError(k)

    def __iter__(self) -> Iterator[Any]:
        d = self._d
        return iter(d) if d is not None else iter((self._k,))

    def __len__(self) -> int:
        d = self._d
        return len(d) if d is not None else 1

    def values(self) -> Any:  # type: ignore[override]
        """The attribute mappings (a ``dict`` view, or a tuple of the one)."""
        d = self._d
        return d.values() if d is not None else (self._v,)

    def items(self) -> Any:  # type: ignore[override]
        """The ``(key, attributes)`` items (a ``dict`` view, or a tuple of the one)."""
        d = self._d
        return d.items() if d is not None else ((self._k, self._v),)

    def popitem(self) -> tuple[Any, Any]:
        """The last item added, removed (as ``dict.popitem``: networkx's ``remove_edge(u, v)`` relies on it)."""
        d = self._d
        if d is not None:
            return d.popitem()
        item = self._k, self._v
        self._d = {}
        self._k = self._v = None
        return item

    def copy(self) -> "KeyDict":
        """A shallow copy, as ``dict.copy``."""
        out = KeyDict()
        out._k, out._v, out._d = self._k, self._v, dict(self._d) if self._d is not None else None
        return out

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class NodeTable(dict):
    """networkx's node table (``G._node``: node -> attribute dict) that counts the changes to its keys, so that
    the ids of each node kind can be listed once and reused until the table changes (:meth:`ids_of_kind`; the
    resolver asks about twenty times, each a scan of every node: issue 19).  Reads are ``dict``'s own; every
    method that adds, replaces or removes a key moves :attr:`stamp`.  The two attributes have class defaults:
    a copy or an unpickled table (items set before its attributes) starts from them."""

    stamp = 0
    _index: tuple[int, dict[Any, list[Any]]] | None = None
    _sorted: tuple[int, dict[Any, list[Any]]] | None = None

    def ids_of_kind(self, kind: str) -> list[Any]:
        """The nodes whose attribute ``"kind"`` is ``kind``, sorted (a shared list: read-only), as they were at
        the last change of the table's keys or of a node's kind (:meth:`CompactMultiDiGraph.add_node`)."""
        cache = self._sorted
        if cache is None or cache[0] != self.stamp:
            cache = self._sorted = (self.stamp, {})
        got = cache[1].get(kind)
        if got is None:
            got = cache[1][kind] = sorted(self.kind_index().get(kind, ()))
        return got

    def kind_index(self) -> dict[Any, list[Any]]:
        """Attribute ``"kind"`` (None when absent) -> its nodes in table order (shared: read-only), made once per
        :attr:`stamp`."""
        index = self._index
        if index is None or index[0] != self.stamp:
            by: dict[Any, list[Any]] = {}
            for n, d in self.items():
                k = d.get("kind")
                got = by.get(k)
                if got is None:
                    by[k] = [n]
                else:
                    got.append(n)
            index = self._index = (self.stamp, by)
        return index[1]


def _stamped(name: str) -> Any:
    """``dict``'s method ``name``, moving the table's :attr:`NodeTable.stamp` first."""
    method = getattr(dict, name)

    def stamped(self: NodeTable, *args: Any, **kwargs: Any) -> Any:
        self.stamp += 1
        return method(self, *args, **kwargs)
    stamped.__name__ = stamped.__qualname__ = name
    return stamped


for _name in ("__setitem__", "__delitem__", "__ior__", "pop", "popitem", "clear", "update", "setdefault"):
    setattr(NodeTable, _name, _stamped(_name))


class CompactMultiDiGraph(nx.MultiDiGraph):
    """A networkx ``MultiDiGraph`` whose edge attribute mappings are :class:`EdgeRecord` objects, whose
    per-pair key mappings are :class:`KeyDict` objects and whose node table is a :class:`NodeTable`
    (networkx's documented ``edge_attr_dict_factory``, ``edge_key_dict_factory`` and ``node_dict_factory``
    hooks); everything else is networkx's."""

    node_dict_factory = NodeTable
    edge_attr_dict_factory = EdgeRecord
    edge_key_dict_factory = KeyDict

    def add_node(self, node_for_adding: Any, **attr: Any) -> None:
        """networkx's ``add_node``; a node's ``kind`` given again (it may differ) moves the table's stamp."""
        if "kind" in attr:
            self._node.stamp += 1
        super().add_node(node_for_adding, **attr)

    def add_nodes_from(self, nodes_for_adding: Any, **attr: Any) -> None:
        """networkx's ``add_nodes_from``, moving the table's stamp (a ``kind`` may be given)."""
        self._node.stamp += 1
        super().add_nodes_from(nodes_for_adding, **attr)

    def copy(self, as_view: bool = False) -> nx.MultiDiGraph:
        """As networkx's ``copy()`` (same nodes, edges, attributes and orders), sharing the edges' parts instead
        of making and taking apart an edge per record."""
        if as_view:
            return super().copy(as_view=True)
        out = self.__class__()
        out.graph.update(self.graph)
        succ, pred = out._succ, out._pred
        for n, d in self._node.items():
            out._node[n] = d.copy()
            succ[n], pred[n] = {}, {}
        for u, nbrs in self._succ.items():
            row = succ[u]
            for v, keydict in nbrs.items():
                new = KeyDict() if type(keydict) is KeyDict else {}
                for k, d in keydict.items():
                    new[k] = d.copy()
                row[v] = pred[v][u] = new
        return out


def new_record(source: str, target: str, key: str, f: Form, evidence: tuple[Evidence, ...],
               props: Mapping[str, Any] | None) -> EdgeRecord:
    """``r = EdgeRecord(); r.put(source, target, key, f, evidence, props)`` in one step (no ``extra`` on a new
    record): the record of a new edge from its shared parts (``evidence`` and ``props`` as the graph's
    :class:`Interner` gives them)."""
    r = _new(EdgeRecord)
    r.source, r.target, r.key, r.form, r.evidence, r.props, r.extra = source, target, key, f, evidence, \
        props or None, None
    return r


class Interner:
    """Shared parts of the edges of one graph: one :class:`~graphkit.model.Evidence` object per source place,
    one tuple per distinct evidence sequence, one props mapping per distinct props (compared by their JSON
    text, so ``1``, ``1.0`` and ``true`` stay apart)."""

    def __init__(self) -> None:
        self._ev: dict[Evidence, Evidence] = {}
        self._seq: dict[int | tuple[int, ...], tuple[Evidence, ...]] = {}
        self._props: dict[str, Mapping[str, Any]] = {}
        self._quick: dict[tuple, Mapping[str, Any]] = {}  # flat props: their shared mapping (_quick_key)
        self._stored: set[int] = set()  # ids of the mappings ``_props`` keeps (alive: their ids stay theirs)
        self._plain: dict[int, int] = {}  # id of a kept mapping -> the max_attribute_chars it was plain under
        #: while a build adds edges (:meth:`remember_ids`): id -> shared evidence object, for the objects ``_ev``
        #: keeps alive (their ids stay theirs): an object given again (an edge's evidence handed to the next edge)
        #: is found without hashing its fields
        self._shared_ids: dict[int, Evidence] | None = None

    def remember_ids(self) -> None:
        """Find the shared evidence objects by identity too, until :meth:`forget_ids` (time for memory)."""
        if self._shared_ids is None:
            self._shared_ids = {id(e): e for e in self._ev.values()}

    def forget_ids(self) -> None:
        """Drop the identity table of :meth:`remember_ids`."""
        self._shared_ids = None

    def evidence(self, e: Evidence) -> Evidence:
        """The shared object equal to ``e`` (``e`` itself the first time, then holding interned strings and a
        shared fields-set)."""
        known = self._shared_ids
        if known is not None and (got := known.get(id(e))) is not None:
            return got
        table = self._ev
        size = len(table)
        got = table.setdefault(e, e)  # one hash of its fields (a Python call for a frozen model), not two
        if len(table) != size:  # new: ``e`` itself
            d = e.__dict__  # frozen: equal interned strings in place of its own, unobservably (same hash)
            for k, v in d.items():
                if type(v) is str and len(v) <= 120:
                    d[k] = sys.intern(v)
            share_fields_set(e)
            if known is not None:
                known[id(e)] = e
        return got

    def evidence_seq(self, evidence: Iterable[Evidence]) -> tuple[Evidence, ...]:
        """The shared tuple of these evidence objects (shared objects, same order): ``evidence`` itself when it is
        that tuple (a stored edge's evidence handed to the next edge)."""
        if type(evidence) is tuple and evidence:
            if self._seq.get(id(evidence[0]) if len(evidence) == 1 else tuple(map(id, evidence))) is evidence:
                return evidence
        if type(evidence) is list and len(evidence) == 1:  # the common case, without the tuple of ids
            known, e = self._shared_ids, evidence[0]
            got = known.get(id(e)) if known is not None else None
            if got is None:
                got = self.evidence(e)
            seq = self._seq.get(id(got))
            if seq is None:
                seq = self._seq[id(got)] = (got,)
            return seq
        t = tuple([self.evidence(e) for e in evidence])
        # keyed by the shared objects' ids (alive while the table is): one int for the common one-item sequence
        return self._seq.setdefault(id(t[0]) if len(t) == 1 else tuple(map(id, t)), t)

    def node_parts(self, model: Any, depth: int = 0) -> None:
        """Share what a node (or a model inside it) holds, in place and unobservably: equal evidence objects by
        the graph's shared one, short strings by the interned one (a parsed file makes a new string per
        occurrence), fields-sets by shared ones (:func:`share_fields_set`), recursively through lists, tuples,
        dicts and models (at most 12 levels)."""
        d = model.__dict__
        value = self._value
        for k, v in d.items():
            t = type(v)
            if t is str:  # the common values first, as _value treats them, without its call
                if len(v) <= 120:
                    d[k] = sys.intern(v)
                continue
            if v is None or t is bool or t is int:
                continue
            nv = value(v, depth + 1)
            if nv is not v:
                d[k] = nv
        share_fields_set(model)

    def _value(self, v: Any, depth: int) -> Any:
        t = type(v)
        if t is str:
            return sys.intern(v) if len(v) <= 120 else v
        if t is Evidence:
            return self.evidence(v)
        if depth > 12:
            return v
        if t is list:
            return self._list(v, depth)
        if t is tuple:
            return tuple([self._value(x, depth + 1) for x in v]) if v else v
        if t is dict:
            if v:
                new = {sys.intern(k) if type(k) is str else k: self._value(x, depth + 1) for k, x in v.items()}
                v.clear()
                v.update(new)
            return v
        if isinstance(v, BaseModel):
            self.node_parts(v, depth)
        return v

    def _list(self, v: list[Any], depth: int) -> list[Any]:
        """:meth:`_value` of a list (in place): strings and evidence objects without a call each."""
        known = self._shared_ids
        for i, x in enumerate(v):
            tx = type(x)
            if tx is str:
                if len(x) <= 120:
                    v[i] = sys.intern(x)
                continue
            if tx is Evidence:  # by identity when remembered, else :meth:`evidence`
                nx_ = known.get(id(x)) if known is not None else None
                if nx_ is None:
                    nx_ = self.evidence(x)
            else:
                nx_ = self._value(x, depth + 1)
            if nx_ is not x:
                v[i] = nx_
        return v

    def props(self, props: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """The shared mapping equal to ``props`` (None when empty; a copy, unshared, when not JSON)."""
        if not props:
            return None
        quick = _quick_key(props)
        if quick is not None and (got := self._quick.get(quick)) is not None:
            return got
        try:
            text = json.dumps(props, sort_keys=True)
        except (TypeError, ValueError, RecursionError):
            return dict(props)
        got = self._props.setdefault(text, props if type(props) is dict else dict(props))
        self._stored.add(id(got))
        if quick is not None:
            self._quick[quick] = got
        return got

    def plain(self, props: dict[Any, Any]) -> bool:
        """:func:`graphkit.model.bounds.plain_props` of ``props``, remembered for a mapping this interner shares
        (read-only, alive while the interner is: its id stays its own) under the ``max_attribute_chars`` it
        was checked with."""
        cap = limits.latest().max_attribute_chars
        key = id(props)
        if self._plain.get(key) == cap and key in self._stored:
            return True
        ok = plain_props(props)
        if ok and key in self._stored:
            self._plain[key] = cap
        return ok

    def shared_props(self, props: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """:meth:`props` of a copy of ``props`` (the caller keeps its own), or ``props`` itself when it is a
        mapping this interner shares already (handed out by :meth:`props`: never changed in place)."""
        return props if id(props) in self._stored else self.props(dict(props))


_SCALARS = frozenset({str, int, bool, type(None)})


def _quick_key(props: Mapping[str, Any]) -> tuple | None:
    """A key of flat props (string keys; string, int, bool or None values, or lists of strings) that two props
    share only when their JSON texts are equal (types kept apart: ``1`` and ``True`` compare equal in Python,
    not in JSON; floats left out: ``0.0`` and ``-0.0``); None for other props (compared by their JSON text)."""
    out = []
    for k, v in props.items():
        t = type(v)
        if type(k) is not str:
            return None
        if t in _SCALARS:
            out.append((k, t, v))
        elif t is list and all(type(x) is str for x in v):
            out.append((k, t, tuple(v)))
        else:
            return None
    return tuple(out)


_FIELDS_SETS: dict[frozenset, set[str]] = {}
_ALL_FIELDS: dict[type, frozenset] = {}


def share_fields_set(model: Any) -> None:
    """Let ``model`` (a pydantic object) hold a shared ``__pydantic_fields_set__`` equal to its own, when
    sharing cannot be observed: a frozen model's set is never changed in place (``model_copy`` copies it), and
    assigning to a field of a model whose every field is set adds nothing.  A set of five names takes 728
    bytes: this is most of an :class:`~graphkit.model.Evidence` object."""
    cls = type(model)
    mine = model.__pydantic_fields_set__
    if not cls.model_config.get("frozen"):
        every = _ALL_FIELDS.get(cls)
        if every is None:
            every = _ALL_FIELDS[cls] = frozenset(cls.model_fields)
        if len(mine) != len(every) or mine != every:
            return
    key = frozenset(mine)
    shared = _FIELDS_SETS.get(key)
    if shared is None:
        shared = _FIELDS_SETS[key] = set(key)
    if shared is not mine:
        _setattr(model, "__pydantic_fields_set__", shared)


class EdgeList:
    """A read-only sequence of :class:`~graphkit.model.Edge` over records: an edge is made on its first read
    and the same object returned afterwards (identity holds while the list lives).  Items that are already
    edges are returned as they are."""

    __slots__ = ("_items", "_made")

    def __init__(self, items: list[Any]) -> None:
        self._items = items
        self._made: dict[int, Edge] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._items)))]
        if i < 0:
            i += len(self._items)
        e = self._made.get(i)
        if e is None:
            x = self._items[i]
            if type(x) is not EdgeRecord:
                return x
            e = self._made[i] = x.edge()
        return e

    def __iter__(self) -> Iterator[Edge]:
        return (self[i] for i in range(len(self._items)))

    def record(self, i: int) -> Any:
        """The stored item at ``i`` (a record, or an edge), without making an edge."""
        return self._items[i]
