"""YAML (and JSON) loading with a line for every YAML path, bounded against hostile input (pure: no I/O).

One loader, :class:`Loader`: libyaml's scanner and parser (``yaml.CParser``,
when PyYAML was built with it, else the pure-Python parser) feeding PyYAML's
Python composer, with ``SafeConstructor``.  Composition is where a document is
checked, *before* any data is built (limits: :mod:`graphkit.limits`):

* nesting deeper than ``max_depth`` is refused as it is met (never a
  ``RecursionError``);
* every node counts the nodes it stands for once aliases are expanded, so a
  "billion laughs" document (https://en.wikipedia.org/wiki/Billion_laughs_attack)
  is refused after a few thousand nodes are composed, past ``max_yaml_nodes``;
  alias occurrences are bounded by ``max_yaml_aliases``; an alias inside the
  node it names (a recursive structure, which PyYAML would build) is an error;
* duplicate mapping keys are an error, as GitHub Actions says it
  (``'env' is already defined``, e.g. https://github.com/lowlighter/metrics/issues/1055,
  https://github.com/hahwul/deadfinder/issues/28) and as YAML requires
  ("each of the keys is unique", https://yaml.org/spec/1.2.2/#mapping);
  ``<<`` merge keys may override, as YAML 1.1 merge allows.  A loader whose
  :attr:`Loader.duplicate_keys` is ``"last"`` reads a key defined twice as its
  platform does instead: the last definition wins (GitLab CI, which reads
  YAML with Ruby's Psych, runs such a file; see :mod:`ingest.gitlab_ci.parse`).

Construction failures (``!!int 12x``, ``!!binary`` that is not base64...) are an
:class:`~graphkit.errors.InputError` naming the line and the tag, never the
value (it could be a secret).  Control characters YAML does not allow are an
error naming their line.

The node tree gives the 1-based line of every mapping key and sequence item
(``yaml.Node.start_mark``; libyaml keeps the same marks as the Python parser).
Paths are written as graphkit evidence writes them: dotted keys and ``[i]``
indexes, e.g. ``jobs.build.steps[2].with.role-to-assume``.

YAML 1.1 note: PyYAML constructs the bare key ``on`` as the boolean ``True``
(and ``yes``/``no``/``off`` likewise).  The *line map* keeps the key as written
(``on``), the *data* keeps PyYAML's value; callers look up both.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from graphkit import limits
from graphkit.errors import InputError

try:  # libyaml's parser: same events and marks, several times faster
    from yaml._yaml import CParser as _Parser
    _C_COMPOSE = _Parser.get_single_node  # libyaml's composer (Cython): the node tree without Python per event
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _C_COMPOSE = None
    from yaml.parser import Parser as _PyParser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, _PyParser):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            _PyParser.__init__(self)

__all__ = ["Loader", "load_yaml", "load_json", "join_path", "line_of", "type_name", "check_depth"]


class _Refused(yaml.YAMLError):
    """A limit was passed while composing: ``(line, reason)``."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line, self.reason = line, reason


class _Unconstructable(yaml.YAMLError):
    """A tagged value could not be constructed (the value is not kept)."""

    def __init__(self, node: yaml.Node) -> None:
        super().__init__("unconstructable")
        self.line = node.start_mark.line + 1
        self.tag = node.tag


class _BoundedComposer(Composer):
    """PyYAML's composer, counting depth, expanded nodes and aliases, and refusing duplicate keys."""

    def _setup_bounds(self) -> None:
        lim = limits.current()
        self._lim = lim
        self._depth = 0
        self._total = 0
        self._aliases = 0
        self._sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded nodes, height)

    def _refuse(self, event: yaml.Event, name: str, what: str) -> None:
        raise _Refused(event.start_mark.line + 1, limits.too_many(name, getattr(self._lim, name), what))

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            anchor = event.anchor
            if anchor in self.anchors:
                self._aliases += 1
                if self._aliases > self._lim.max_yaml_aliases:
                    self._refuse(event, "max_yaml_aliases", "too many aliases")
                if id(self.anchors[anchor]) not in self._sizes:  # the anchored node is still being composed
                    raise _Refused(event.start_mark.line + 1, "invalid YAML: recursive alias (a node that contains "
                                                              "itself)")
                size, height = self._sizes[id(self.anchors[anchor])]
                self._count(event, size, height)
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > self._lim.max_depth:
            self._refuse(self.peek_event(), "max_depth", f"nesting deeper than {self._lim.max_depth} levels")
        before = self._total
        node = super().compose_node(parent, index)
        self._depth -= 1
        self._total += 1
        self._sizes[id(node)] = (self._total - before, self._height(node))
        if self._total > self._lim.max_yaml_nodes:
            self._refuse_at(node)
        return node

    def _height(self, node: yaml.Node) -> int:
        if isinstance(node, yaml.ScalarNode) or not node.value:
            return 0
        items = node.value if isinstance(node, yaml.SequenceNode) else [v for pair in node.value for v in pair]
        return 1 + max(self._sizes.get(id(n), (1, 0))[1] for n in items)

    def _count(self, event: yaml.Event, size: int, height: int) -> None:
        """An alias adds the nodes it stands for; its height adds to the current depth."""
        self._total += size
        if self._total > self._lim.max_yaml_nodes:
            self._refuse(event, "max_yaml_nodes", f"more than {self._lim.max_yaml_nodes} nodes once aliases "
                                                  "are expanded")
        if self._depth + height > self._lim.max_depth:
            self._refuse(event, "max_depth", f"nesting deeper than {self._lim.max_depth} levels once aliases "
                                             "are expanded")

    def _refuse_at(self, node: yaml.Node) -> None:
        raise _Refused(node.start_mark.line + 1, limits.too_many(
            "max_yaml_nodes", self._lim.max_yaml_nodes, f"more than {self._lim.max_yaml_nodes} nodes"))

    def compose_mapping_node(self, anchor: str | None) -> yaml.MappingNode:
        node = super().compose_mapping_node(anchor)
        if self.duplicate_keys == "last":
            _keep_last(node)
        _check_duplicates(node)
        return node


def _shown(key: str) -> str:
    """A mapping key as errors show it: quoted, control characters escaped, at most 60 characters."""
    text = key if len(key) <= 60 else key[:57] + "..."
    return repr(text)


class _CheckedConstructor(SafeConstructor):
    """``SafeConstructor`` whose failures name the node's line and tag, never its value."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (yaml.YAMLError, RecursionError):
            raise
        except Exception:  # noqa: BLE001 - any constructor failure (ValueError, binascii.Error, OverflowError...)
            raise _Unconstructable(node) from None


class Loader(_BoundedComposer, _Parser, _CheckedConstructor, Resolver):  # type: ignore[misc]
    """The one YAML loader (see the module docstring); subclass it to add constructors (e.g. CloudFormation
    short tags) and pass the subclass to :func:`load_yaml`."""

    #: A key defined twice in one mapping: ``"refuse"`` (an error naming both lines: YAML's rule, and GitHub
    #: Actions') or ``"last"`` (the last definition wins and the earlier ones are dropped before any line or
    #: value is read, as a platform reading YAML with Ruby's Psych does).
    duplicate_keys: str = "refuse"

    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        Composer.__init__(self)
        _CheckedConstructor.__init__(self)
        Resolver.__init__(self)
        self._setup_bounds()


def type_name(value: Any) -> str:
    """The YAML name of a value's type, as error messages say it.

    >>> [type_name(v) for v in ({}, [], "x", None, 3, True, 1.5)]
    ['mapping', 'sequence', 'string', 'null', 'int', 'bool', 'float']
    """
    return {dict: "mapping", list: "sequence", str: "string", type(None): "null"}.get(type(value),
                                                                                     type(value).__name__)


def join_path(parent: str, key: str | int) -> str:
    """Append a mapping key or a sequence index to a YAML path.

    >>> join_path("jobs.build", "steps"), join_path("jobs.build.steps", 2), join_path("", "on")
    ('jobs.build.steps', 'jobs.build.steps[2]', 'on')
    """
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def _walk(root: yaml.Node, lines: dict[str, int]) -> None:
    """Line of every YAML path under ``root`` (iterative; an aliased node is walked once, at its first path)."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        subs: list[tuple[yaml.Node, str, int]] = []
        if isinstance(node, yaml.MappingNode):
            subs = [(v, join_path(path, k.value), k.start_mark.line + 1) for k, v in node.value
                    if isinstance(k, yaml.ScalarNode) and k.value != "<<"]
        elif isinstance(node, yaml.SequenceNode):
            subs = [(item, join_path(path, i), item.start_mark.line + 1) for i, item in enumerate(node.value)]
        for sub_node, sub, line in subs:
            lines.setdefault(sub, line)
        stack += [(n, p) for n, p, _ in reversed(subs)]


_SLOW = object()
#: :func:`_check_and_build` could not build the data itself (a tag, key or merge only the constructor handles).
_CONSTRUCT = object()
_STR, _NULL, _MAP, _SEQ = (f"tag:yaml.org,2002:{t}" for t in ("str", "null", "map", "seq"))
#: Scalar tags :func:`_check_and_build` constructs with the loader's own constructor functions.
_SCALAR_TAGS = tuple(f"tag:yaml.org,2002:{t}" for t in ("bool", "int", "float", "timestamp"))


#: Nesting the C composer is given at most (it crashes the process somewhere past 20,000 levels).
_C_SAFE_DEPTH = 10_000


def _depth_bound(text: str) -> int:
    """An upper bound on the nesting depth of the YAML document ``text`` as libyaml composes it (O(len) in C).

    The first bound: a level is opened by a flow collection (``[``, ``{``; a ``[`` twice, for the single-pair
    mapping an entry ``a: b`` of a flow sequence makes), a compact block entry or key (``-``, ``?``, which nest
    on one line), or a deeper indentation, which needs a line of its own: ``d`` indented levels take at least
    ``d * (d + 1) / 2`` characters, so they are at most ``isqrt(2 * len(text))``.  It counts every ``-``, so a
    long file of short lines (a runner inventory listing thousands of runners) passes :data:`_C_SAFE_DEPTH`;
    then the smaller of it and :func:`_layout_bound` is the bound.
    """
    opens = text.count("[") + text.count("{")
    bound = (opens + text.count("[") + text.count("-") + text.count("?") + math.isqrt(2 * len(text)) + 1)
    return bound if bound <= _C_SAFE_DEPTH else min(bound, _layout_bound(text, opens))


#: A flow collection holding no other (after the rounds of :func:`_layout_bound` before), closed on its line:
#: between the brackets no bracket, line break, quote, comment or tag.  When its first bracket opens a flow
#: collection, every character up to the second is plain flow content (libyaml ends a plain scalar at a flow
#: indicator in the flow context), so the second bracket closes that collection.
_LEAF_FLOW = re.compile("[\\[{][^\\[\\]{}\n\r\x85\u2028\u2029\"'#!]*[\\]}]")
#: The start of a line (libyaml's line breaks) and what may open block collections there: indentation and the
#: compact indicators ``- ``, ``? ``, ``: `` (and ``--- ``, after which libyaml opens none on the line); a block
#: collection of the line starts within it or just after it (its key, or the anchor or tag before the key), never
#: later (libyaml refuses an entry or a key after a value on one line: "not allowed in this context").
_BLOCK_PREFIX = re.compile("(?:^|(?<=[\r\x85\u2028\u2029]))[ \t\ufeff]*(?:(?:---|[-?:])[ \t\ufeff]+)*", re.M)
#: Rounds of :data:`_LEAF_FLOW` (a round removes the flow collections that hold only removed ones).
_LEAF_ROUNDS = 4


def _layout_bound(text: str, opens: int) -> int:
    """The second bound of :func:`_depth_bound` (``opens``: the ``[`` and ``{`` of ``text``).

    Block collections: libyaml opens one only at a column deeper than its parent's indentation
    (``roll_indent``), and a sequence at its mapping's own column (an indentless sequence) adds one more, so a
    path holds at most two per column, at columns no further than the longest :data:`_BLOCK_PREFIX`.  Flow
    collections: at most two levels per ``[``/``{`` (the collection and a single-pair mapping); the collections
    removed in ``r`` rounds of :data:`_LEAF_FLOW` nest at most ``r`` deep and end a path.  One more for a scalar.
    """
    block = 2 * (max(map(len, _BLOCK_PREFIX.findall(text)), default=0) + 1) + 1
    rounds = 0
    while rounds < _LEAF_ROUNDS and block + 2 * opens + 2 * rounds > _C_SAFE_DEPTH:
        text, removed = _LEAF_FLOW.subn("", text)
        if not removed:
            break
        opens -= removed
        rounds += 1
    return block + 2 * opens + 2 * rounds


def _fast_node(ldr: Loader, lines: dict[str, int], text: str) -> Any:
    """The document's data, built from the node tree composed by libyaml's C composer and checked as
    :class:`_BoundedComposer` checks it (same refusals, same lines, same order), and its line map; ``_SLOW``
    when the C composer is not available, fails (the bounded composer then gives the same error it always
    gave), or the document holds an alias (expansion is bounded while composing, which only the bounded
    composer does).  The data is what ``construct_document`` builds (:func:`_check_and_build`, or the
    constructor itself when that cannot).

    The C composer recurses once per nesting level on the C stack, and the libyaml PyYAML is built with
    need not bound nesting (one PyYAML 6.0.3 install refuses past 1,000 levels, another, built with a libyaml
    without that bound, composes 20,000 levels and crashes the process past about 30,000): a document whose
    nesting could be deeper than :data:`_C_SAFE_DEPTH` (:func:`_depth_bound`) goes to the bounded composer,
    which refuses it at ``max_depth`` as it is met.  An alias is a reference to the anchored node, never a copy.
    """
    if _C_COMPOSE is None:  # pragma: no cover - PyYAML built without libyaml
        return _SLOW
    if _depth_bound(text) > _C_SAFE_DEPTH:
        return _SLOW
    try:
        node = _C_COMPOSE(ldr)
    except yaml.YAMLError:
        return _SLOW
    if node is None:
        return None
    if ldr.duplicate_keys == "last":
        _drop_overridden(node)
    data = _check_and_build(node, ldr, lines)
    if data is not _CONSTRUCT:
        return data
    lines.clear()
    lines[""] = 1
    if not _check_tree(node, ldr._lim, lines):
        return _SLOW
    return ldr.construct_document(node)


def _scalar_constructors(loader: type[Loader]) -> dict[str, Any]:
    """Tag -> constructor function of ``loader`` for :data:`_SCALAR_TAGS` and str/null/map/seq, kept only where
    it is ``SafeConstructor``'s own (a subclass overriding one sends documents using it to the constructor)."""
    own = SafeConstructor.yaml_constructors
    return {t: loader.yaml_constructors[t] for t in (*_SCALAR_TAGS, _STR, _NULL, _MAP, _SEQ)
            if loader.yaml_constructors.get(t) is own.get(t)}


_SCALAR_CTORS: dict[type, dict[str, Any]] = {}


def _check_tree(root: yaml.Node, lim: limits.Limits, lines: dict[str, int]) -> bool:
    """Depth (on entry), duplicate keys and the node count (on exit) in document order, as the bounded composer
    refuses them, and the line of every YAML path as :func:`_walk` writes it; False at the first node met twice
    (an alias).

    Raises
    ------
    _Refused
        a limit passed or a duplicate key.
    """
    seen: set[int] = set()
    total, max_nodes, max_depth = 0, lim.max_yaml_nodes, lim.max_depth
    scalar, sequence = yaml.ScalarNode, yaml.SequenceNode
    stack: list[tuple[yaml.Node, int, str | None, bool]] = [(root, 1, "", False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth, path, done = pop()
        if not done:
            if id(node) in seen:
                return False
            seen.add(id(node))
            if depth > max_depth:
                raise _Refused(node.start_mark.line + 1, limits.too_many(
                    "max_depth", max_depth, f"nesting deeper than {max_depth} levels"))
            if type(node) is not scalar:
                push((node, depth, path, True))
                stack += reversed(_children(node, depth + 1, path, lines) if type(node) is not sequence
                                  else _items(node, depth + 1, path, lines))
                continue
        elif type(node) is not sequence:
            _check_duplicates(node)
        total += 1
        if total > max_nodes:
            raise _Refused(node.start_mark.line + 1, limits.too_many(
                "max_yaml_nodes", max_nodes, f"more than {max_nodes} nodes"))
    return True


def _check_and_build(root: yaml.Node, ldr: Loader, lines: dict[str, int]) -> Any:
    """:func:`_check_tree` (same refusals in the same order, same lines) building the data on the way out of
    each node, as ``SafeConstructor`` would: ``_SLOW`` at the first node met twice, ``_CONSTRUCT`` at the first
    node only the constructor builds (another tag, a merge or ``=`` key, a key that is not a scalar, a scalar
    its constructor refuses)."""
    ctors = _SCALAR_CTORS.get(type(ldr))
    if ctors is None:
        ctors = _SCALAR_CTORS[type(ldr)] = _scalar_constructors(type(ldr))
    if _MAP not in ctors or _SEQ not in ctors or _STR not in ctors or _NULL not in ctors:
        return _CONSTRUCT
    lim = ldr._lim
    seen: set[int] = set()
    total, max_nodes, max_depth = 0, lim.max_yaml_nodes, lim.max_depth
    scalar, sequence = yaml.ScalarNode, yaml.SequenceNode
    stack: list[tuple[yaml.Node, int, str | None, bool]] = [(root, 1, "", False)]
    values: list[Any] = []
    pop, push, put = stack.pop, stack.append, values.append
    while stack:
        node, depth, path, done = pop()
        kind = type(node)
        if not done:
            if id(node) in seen:
                return _SLOW
            seen.add(id(node))
            if depth > max_depth:
                raise _Refused(node.start_mark.line + 1, limits.too_many(
                    "max_depth", max_depth, f"nesting deeper than {max_depth} levels"))
            if kind is not scalar:
                if node.tag != (_SEQ if kind is sequence else _MAP):
                    return _CONSTRUCT
                if kind is sequence:
                    push((node, depth, path, True))
                    stack += reversed(_items(node, depth + 1, path, lines))
                    continue
                keys = _plain_keys(node)
                if not keys:
                    return _CONSTRUCT
                push((node, depth, path, keys))
                stack += reversed(_children(node, depth + 1, path, lines))
                continue
            value = node.value if node.tag == _STR else _scalar(node, ldr, ctors)
            if value is _CONSTRUCT:
                return _CONSTRUCT
            put(value)
        else:
            _collect(node, values, done)
        total += 1
        if total > max_nodes:
            raise _Refused(node.start_mark.line + 1, limits.too_many(
                "max_yaml_nodes", max_nodes, f"more than {max_nodes} nodes"))
    return values[0]


def _scalar(node: yaml.ScalarNode, ldr: Loader, ctors: dict[str, Any]) -> Any:
    """A scalar that is not a string as its constructor builds it; ``_CONSTRUCT`` when its tag has none in
    ``ctors`` or the constructor refuses it (the constructor then names the failure, in document order)."""
    tag = node.tag
    if tag == _NULL:
        return None
    if tag not in ctors:
        return _CONSTRUCT
    try:
        return ctors[tag](ldr, node)
    except Exception:  # noqa: BLE001 - any constructor failure
        return _CONSTRUCT


def _collect(node: yaml.Node, values: list[Any], keys: int | bool) -> None:
    """Replace the last values (a sequence's items, or a mapping's keys and values) by the list or dict they
    make; a mapping is checked for duplicate keys when two keys made one, or its keys are not all strings
    (``keys`` 2: ``1`` and ``01``...)."""
    n = len(node.value) if type(node) is yaml.SequenceNode else 2 * len(node.value)
    flat = values[-n:] if n else []
    if n:
        del values[-n:]
    if type(node) is yaml.SequenceNode:
        values.append(flat)
        return
    mapping = dict(zip(flat[::2], flat[1::2]))
    if keys == 2 or 2 * len(mapping) != n:
        _check_duplicates(node)
    values.append(mapping)


def _plain_keys(node: yaml.MappingNode) -> int:
    """0 unless every key of the mapping is a scalar that ``SafeConstructor`` reads as itself (no merge ``<<``
    or value ``=`` key, which ``flatten_mapping`` rewrites); then 1 when every key is a string (two equal keys
    are one duplicate key), 2 otherwise."""
    scalar, plain = yaml.ScalarNode, 1
    for k, _ in node.value:
        if type(k) is not scalar or k.value == "<<" or k.tag in ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"):
            return 0
        if k.tag != _STR:
            plain = 2
    return plain


def _items(node: yaml.SequenceNode, depth: int, path: str | None,
           lines: dict[str, int]) -> list[tuple[yaml.Node, int, str | None, bool]]:
    """Items of a sequence in order, recording their lines under ``path`` (see :func:`_children`)."""
    if path is None:
        return [(item, depth, None, False) for item in node.value]
    subs = []
    for i, item in enumerate(node.value):
        sub = f"{path}[{i}]"
        lines.setdefault(sub, item.start_mark.line + 1)
        subs.append((item, depth, sub, False))
    return subs


def _children(node: yaml.MappingNode, depth: int, path: str | None,
              lines: dict[str, int]) -> list[tuple[yaml.Node, int, str | None, bool]]:
    """Keys and values of a mapping in document order (keys too: the composer counts them), recording the lines
    of the values' paths under ``path`` (None: a complex key or a merge value, whose paths :func:`_walk` does
    not record)."""
    subs = []
    scalar = yaml.ScalarNode
    for k, v in node.value:
        sub = None
        if path is not None and type(k) is scalar and k.value != "<<":
            sub = f"{path}.{k.value}" if path else k.value
            lines.setdefault(sub, k.start_mark.line + 1)
        subs += ((k, depth, None, False), (v, depth, sub, False))
    return subs


def _keep_last(node: yaml.MappingNode) -> None:
    """Drop every pair of ``node`` whose key is defined again later in it (``<<`` merge keys excepted): the
    last definition's key and value take the first one's place, as a Ruby ``Hash`` assignment keeps it."""
    where: dict[tuple[str, str], int] = {}
    kept: list[tuple[yaml.Node, yaml.Node]] = []
    for key, value in node.value:
        ident = (key.tag, key.value) if isinstance(key, yaml.ScalarNode) and key.value != "<<" else None
        if ident is not None and ident in where:
            kept[where[ident]] = (key, value)
            continue
        if ident is not None:
            where[ident] = len(kept)
        kept.append((key, value))
    if len(kept) != len(node.value):
        node.value = kept


def _drop_overridden(root: yaml.Node) -> None:
    """:func:`_keep_last` on every mapping under ``root`` (iterative; a node met twice, an alias, once)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen or isinstance(node, yaml.ScalarNode):
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            _keep_last(node)
            stack += [n for pair in node.value for n in pair]
        else:
            stack += node.value


def _check_duplicates(node: yaml.MappingNode) -> None:
    """Refuse a mapping that defines a key twice (``<<`` merge keys excepted)."""
    seen: dict[tuple[str, str], int] = {}
    for key, _ in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value != "<<":
            ident = (key.tag, key.value)
            if ident not in seen:
                seen[ident] = key.start_mark.line + 1
            else:
                raise _Refused(key.start_mark.line + 1, f"duplicate key {_shown(key.value)} (first at line "
                                                        f"{seen[ident]}): a key is defined once per mapping")


def _short_tag(tag: str) -> str:
    """``tag:yaml.org,2002:int`` -> ``!!int`` (as written in documents).

    >>> _short_tag("tag:yaml.org,2002:int"), _short_tag("!Ref")
    ('!!int', '!Ref')
    """
    prefix = "tag:yaml.org,2002:"
    return "!!" + tag[len(prefix):] if tag.startswith(prefix) else tag


def _line_at(text: str, index: int) -> int:
    """1-based line of character ``index``; an error found at the end of input is put on the last non-blank
    line."""
    body = text.rstrip()
    return text.count("\n", 0, index) + 1 if index < len(body) else body.count("\n") + 1


def load_yaml(text: str, *, file: str, loader: type[Loader] = Loader,
              line_offset: int = 0) -> tuple[Any, dict[str, int]]:
    """Parse one YAML document and map each YAML path to its line.

    Parameters
    ----------
    text
        the document.
    file
        name used in errors.
    loader
        :class:`Loader` or a subclass of it (more constructors).
    line_offset
        lines of the enclosing stream before ``text`` (a document of a
        multi-document stream read on its own): added to every line of the
        result and of errors, so that lines are those of the stream.

    Returns
    -------
    tuple
        ``(data, lines)``: the constructed data (``None`` for an empty
        document) and ``{yaml_path: 1-based line}`` (``""`` maps to
        ``1 + line_offset``).

    Raises
    ------
    InputError
        ``(file, "line N", reason)`` on a YAML syntax or construction error,
        a duplicate key, a limit of :mod:`graphkit.limits` passed, or when the
        stream holds more than one document.  The reason never quotes a value.
    """
    ldr = loader(text)
    lines: dict[str, int] = {"": 1}
    try:
        data = _fast_node(ldr, lines, text)
        if data is _SLOW:
            ldr.dispose()
            ldr, lines = loader(text), {"": 1}
            node = ldr.get_single_node()
            if node is not None:
                _walk(node, lines)  # before construction: merge keys (``<<``) rewrite the node tree
            data = ldr.construct_document(node) if node is not None else None
    except _Refused as exc:
        raise InputError(file, f"line {exc.line + line_offset}", exc.reason) from None
    except _Unconstructable as exc:
        raise InputError(file, f"line {exc.line + line_offset}", f"invalid YAML: the value tagged {_shown(_short_tag(exc.tag))} cannot be "
                                                   "read as that type") from None
    except yaml.reader.ReaderError as exc:
        raise InputError(file, f"line {_line_at(text, exc.position) + line_offset}",
                         f"invalid YAML: {exc.reason} (character #x{exc.character:04x})"
                         if isinstance(exc.character, int) else f"invalid YAML: {exc.reason}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        place = f"line {_line_at(text, mark.index) + line_offset}" if mark is not None else ""
        raise InputError(file, place, f"invalid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise InputError(file, "", f"invalid YAML: {exc}") from None
    except RecursionError:  # a limit set above what the interpreter's stack allows
        raise InputError(file, "", limits.too_many("max_depth", limits.current().max_depth,
                                                   "nesting too deep for this interpreter")) from None
    finally:
        ldr.dispose()
    if line_offset:
        lines = {path: line + line_offset for path, line in lines.items()}
    return data, lines


def check_depth(data: Any, *, file: str, place: str = "") -> Any:
    """``data`` (parsed JSON/YAML), unless it nests deeper than ``max_depth`` (iterative: never recurses).

    Raises
    ------
    InputError
        naming the limit.
    """
    lim = limits.current().max_depth
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > lim:
                    raise InputError(file, place, limits.too_many("max_depth", lim, f"nesting deeper than {lim} "
                                                                                    "levels"))
                stack.append((child, depth + 1))
    return data


def load_json(text: str, *, file: str, place: str = "") -> Any:
    """Parse JSON text, refusing nesting deeper than ``max_depth`` (see :func:`check_depth`).

    Raises
    ------
    InputError
        ``(file, "line N", "not valid JSON: reason")`` (the reason names no value), or a refused depth.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(file, f"line {exc.lineno}" if not place else place, f"not valid JSON: {exc.msg}") from None
    except RecursionError:
        lim = limits.current().max_depth
        raise InputError(file, place, limits.too_many("max_depth", lim, f"nesting deeper than {lim} levels")) from None
    return check_depth(data, file=file, place=place)


def line_of(lines: Mapping[str, int], path: str) -> int | None:
    """Line of ``path``, else of its nearest ancestor present in ``lines``.

    >>> line_of({"": 1, "jobs": 3, "jobs.a": 4}, "jobs.a.steps[0].run")
    4
    """
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return lines.get("")
