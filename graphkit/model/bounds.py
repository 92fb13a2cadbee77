"""The bound on stored attribute strings (``max_attribute_chars``, :mod:`graphkit.limits`), enforced once: where
a node is validated (:meth:`graphkit.model.node.Node._bounded_attributes`), for every source and the resolver alike.

Ids are bounded by ``max_identifier_chars`` where they are built; the other text a node stores (a job's
``name:`` or ``environment:`` expression, the OIDC subjects built from branch filters, an inventory runner's
labels, trigger filters, policy documents) comes from hostile input too.  A string past the bound is left out
of the node, never cut (a cut label or subject would be a different one), and never quoted:

- a field holding it becomes unknown (``None``), or, for a field that must hold text (a display ``name``), a
  description of it (``<name of N characters, left out>``);
- a list entry holding it, or a mapping entry whose key or value holds it, is dropped.

Edges and evidence are bounded the same way: an edge's ``props`` (:func:`bounded_props`, where an edge is
validated, and checked by the graph's unvalidated fast paths, :func:`plain_props`) and an evidence's
``detail`` (:func:`bounded_detail`, where evidence is validated: the detail is left out, the place kept).

Everything else of the node, and of its file, is kept.  Each value left out is recorded (:func:`refusals`):
the node's first evidence (file and place), the field, and the value's length; :func:`graphkit.build.build_graph`
turns them into problems of the build (the source read partially: what the value would have linked is unknown,
never absent).  No value past the bound can ever match one within it that ids or policies use, so routing is
unchanged (a runner label of 20,000 characters matches no ``runs-on`` label, which ids bound at 4,096).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from graphkit import limits
from graphkit.model.evidence import Evidence
from graphkit.redact import mark_value

__all__ = ["Refusal", "bounded_detail", "bounded_fields", "bounded_props", "plain_props", "refuse", "refusals",
           "take_refusals"]

#: ``(file, place, reason)`` of each value left out since :func:`take_refusals` was last called.
Refusal = tuple[str, str, str]
_refused: list[Refusal] = []
_DROP = object()  # a list or mapping entry to leave out
_SCALARS = frozenset({type(None), bool, int, float, Evidence})


def refusals() -> list[Refusal]:
    """The values left out so far (not cleared)."""
    return list(_refused)


def take_refusals() -> list[Refusal]:
    """The values left out since the last call, in order, each once (two edges of one place refuse the same
    value); clears them."""
    out = list(dict.fromkeys(_refused))
    _refused.clear()
    return out


def _too_long(value: Any, cap: int) -> bool:
    """Whether ``value`` holds a string longer than ``cap`` anywhere (no copy, no recursion: an edge's props may
    nest deeper than the stack; evidence is not an attribute: its places are described, never quoted, by
    :func:`graphkit.errors.shown_place`)."""
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str:
            if len(v) > cap:
                return True
        elif t in _SCALARS:
            continue
        elif t is list or t is tuple:
            stack.extend(v)
        elif t is dict:
            stack.extend(v)
            stack.extend(v.values())
        elif isinstance(v, BaseModel):
            stack.extend(v.__dict__.values())
    return False


def _any_too_long(values: Any, cap: int) -> bool:
    """:func:`_too_long` of any of ``values`` (strings and scalars checked inline: the usual case)."""
    for v in values:
        t = type(v)
        if t is str:
            if len(v) > cap:
                return True
        elif t not in _SCALARS and _too_long(v, cap):
            return True
    return False


def _bound(value: Any, cap: int, found: list[int], *, entry: bool) -> Any:
    """``value`` without its strings longer than ``cap`` (their lengths appended to ``found``); an over-long
    string is :data:`_DROP` where it is a list or mapping ``entry``, else None."""
    if type(value) is str:
        if len(value) <= cap:
            return value
        found.append(len(value))
        return _DROP if entry else None
    if not _too_long(value, cap):
        return value
    if isinstance(value, (list, tuple)):
        kept = [b for v in value if (b := _bound(v, cap, found, entry=True)) is not _DROP]
        return type(value)(kept) if isinstance(value, tuple) else kept
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if _too_long(k, cap):
                found.append(len(k))
                continue
            if (b := _bound(v, cap, found, entry=True)) is not _DROP:
                out[k] = b
        return out
    if isinstance(value, BaseModel):
        changes = {k: _model_field(value, k, _bound(v, cap, found, entry=False))
                   for k, v in value.__dict__.items() if _too_long(v, cap)}
        return value.model_copy(update=changes)
    return value


def _model_field(model: BaseModel, name: str, value: Any) -> Any:
    """``value`` for field ``name`` of ``model``: a field that cannot be None keeps a description instead."""
    if value is not None:
        return value
    field = type(model).model_fields.get(name)
    if field is not None and field.is_required():
        return f"<{name} left out>"
    return field.default if field is not None else None


def bounded_fields(data: dict[str, Any], kind: str, model: type[BaseModel]) -> dict[str, Any]:
    """The input of a node (``data``, field name -> value) without strings past ``max_attribute_chars``, each
    one recorded (see the module docstring); ``data`` itself when none is (the usual case, checked cheaply).

    Parameters
    ----------
    data
        the node's fields as given to the model (``id`` and ``evidence`` are not attributes: ids have their own
        bound and evidence places are described by :func:`graphkit.errors.shown_place`).
    kind
        the node kind's value, for the reason (``job``, ``runner``...).
    model
        the node class (which fields must hold text; its ``unbounded_fields`` are left alone).
    """
    cap = limits.latest().max_attribute_chars
    skip = getattr(model, "unbounded_fields", frozenset())
    over = [k for k, v in data.items() if (len(v) > cap if type(v) is str else type(v) not in _SCALARS
                                           and _too_long(v, cap)) and k not in ("id", "evidence") and k not in skip]
    if not over:
        return data
    out = dict(data)
    file, place = _where(data.get("evidence"))
    for key in over:
        found: list[int] = []
        value = _bound(data[key], cap, found, entry=False)
        if value is None:
            field = model.model_fields.get(key)
            if field is not None and field.is_required():
                value = f"<{key} of {found[0]} characters, left out>"
            elif field is not None:
                value = field.default
        out[key] = value
        for n in found:
            _refused.append((file, place, f"{kind} {key}: " + limits.too_many(
                "max_attribute_chars", cap, f"text of {n} characters") + "; value left out"))
    return out


def _where(evidence: Any) -> tuple[str, str]:
    """File and place of a node's first evidence (an :class:`~graphkit.model.evidence.Evidence` or its dict)."""
    first = evidence[0] if isinstance(evidence, (list, tuple)) and evidence else None
    get = first.get if isinstance(first, dict) else (lambda k, d=None: getattr(first, k, d))
    if first is None:
        return "", ""
    file = str(get("file", "") or "")
    repo = get("repository")
    place = str(get("yaml_path") or "")
    line = get("line")
    if line is not None:
        place = f"{place} (line {line})".strip()
    return (f"{repo}:{file}" if repo else file), place


def plain_props(props: dict[Any, Any]) -> bool:
    """Whether every key of ``props`` is a string, no key or string in it is longer than
    ``max_attribute_chars``, and none holds a credential the edge's validation would mark
    (:func:`graphkit.redact.mark_value`): the graph's fast paths ask it of every edge with props."""
    cap = limits.latest().max_attribute_chars
    for k in props:
        if type(k) is not str or len(k) > cap:
            return False
    return not _any_too_long(props.values(), cap) and mark_value(props) is props


def bounded_props(props: dict[str, Any], kind: str, evidence: Any) -> dict[str, Any]:
    """An edge's ``props`` without the entries whose key or value holds a string past ``max_attribute_chars``
    (a list item holding one is dropped from its list), each recorded under the edge's first evidence (file and
    place, the kind, the length; never the value); ``props`` itself when none does (the usual case).

    >>> from graphkit.model.evidence import Evidence
    >>> bounded_props({"a": 1, "b": "x" * 20_000}, "receives_job", [Evidence(file="ci.yml", yaml_path="jobs.a")])
    {'a': 1}
    >>> take_refusals()[-1][:2]
    ('ci.yml', 'jobs.a')
    """
    cap = limits.latest().max_attribute_chars
    if not props or not _too_long(props, cap):
        return props
    found: list[int] = []
    out = _bound(props, cap, found, entry=False)
    file, place = _where(evidence)
    for n in found:
        _refused.append((file, place, f"{kind} edge props: " + limits.too_many(
            "max_attribute_chars", cap, f"text of {n} characters") + "; value left out"))
    return out


def bounded_detail(detail: str, file: str, repository: str | None, yaml_path: str | None,
                   line: int | None) -> str | None:
    """An evidence ``detail`` within ``max_attribute_chars``, else None, recorded under the evidence's own file
    and place (the length, never the value): the place is kept, only the excerpt is left out."""
    cap = limits.latest().max_attribute_chars
    if len(detail) <= cap:
        return detail
    where, place = _where([{"file": file, "repository": repository, "yaml_path": yaml_path, "line": line}])
    _refused.append((where, place, "evidence detail: " + limits.too_many(
        "max_attribute_chars", cap, f"text of {len(detail)} characters") + "; value left out"))
    return None


def refuse(evidence: Any, what: str, length: int, effect: str = "value left out") -> None:
    """Record a value of ``length`` characters past ``max_attribute_chars`` that a source left out before making
    its node (where leaving it out changes what the value means, e.g. a job's environment is then unknown, not
    absent): under ``evidence``'s file and place, ``what`` it was, and ``effect``; never the value."""
    cap = limits.latest().max_attribute_chars
    file, place = _where([evidence])
    _refused.append((file, place, f"{what}: " + limits.too_many("max_attribute_chars", cap,
                                                                f"text of {length} characters") + f"; {effect}"))
