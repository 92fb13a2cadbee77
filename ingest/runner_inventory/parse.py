"""Parse a runner inventory document (pure: text -> :class:`ParsedInventory`, no I/O).

The document is loaded with the one YAML loader (:func:`ingest._yaml.load_yaml`,
which also maps every YAML path to its line), then validated **entry by
entry**: an entry of a top-level list (``runners[3]``, ``hosts[0]``...) that
fails the schema (:mod:`ingest.runner_inventory.models`) or has a bad
credential grant (:mod:`ingest.runner_inventory.grants`) loses only the part
that holds the error (:func:`_entry`: one credential, grant, cache or label; a
list of names becomes unknown; an optional sub-mapping such as
``registration`` is left out; an error in the entry's own fields costs the
entry), and each error becomes one problem naming the file, the place and the
line; every other part keeps its own YAML path and line.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from graphkit import limits
from graphkit.errors import InputError, validation_path, validation_reason
from graphkit.model import Evidence
from ingest._yaml import line_of, load_yaml, type_name
from ingest.runner_inventory.grants import GrantError, resolve_grant
from ingest.runner_inventory.models import SCHEMA_ID, HostEntry, RunnerInventory

__all__ = ["ParsedInventory", "parse"]

#: ``(place, reason)``: one problem before the file and line are added.
_Found = tuple[str, str]


class ParsedInventory(BaseModel):
    """A validated inventory plus where its parts are (``path -> line``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    file: str
    inventory: RunnerInventory
    lines: dict[str, int] = Field(default_factory=dict)
    #: entries left out of ``inventory`` (one per error: file, place, reason ending with the line)
    problems: list[InputError] = Field(default_factory=list)
    #: list (``runners``, ``hosts[0].credentials``) -> index in the file of each kept entry (entries after a skipped
    #: one keep their own path); a list absent here lost nothing
    indexes: dict[str, list[int]] = Field(default_factory=dict)

    def place_of(self, section: str, i: int) -> str:
        """YAML path of the ``i``-th kept entry of the list ``section`` as written in the file (``runners[3]``,
        ``hosts[0].credentials[2]``: a list inside an entry also keeps its file indexes)."""
        kept = self.indexes.get(section)
        return f"{section}[{kept[i] if kept is not None and i < len(kept) else i}]"


# --------------------------------------------------------------------------- validation messages


def _place(loc: tuple[Any, ...]) -> str:
    """A pydantic error location as a YAML path (``runners[3].labels``)."""
    return validation_path(loc, branch=_branch)


def _branch(part: Any) -> bool:
    """A union branch name (adds nothing for the user)."""
    return part in ("str", "RunnerLabel") or (isinstance(part, str) and part.startswith(("literal[", "function-")))


def _models_in(tp: Any) -> list[type[BaseModel]]:
    """Model classes inside a type annotation (through ``| None``, ``list[...]``, unions)."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [tp]
    return [m for arg in get_args(tp) for m in _models_in(arg)]


def _field_names(tp: Any, loc: Sequence[Any]) -> list[str]:
    """Field names (aliases) of the model(s) found at ``loc`` inside ``tp`` (for "did you mean")."""
    models = _models_in(tp)
    for part in loc:
        if isinstance(part, int):
            continue
        named = [m for m in models if m.__name__ == part]  # a union branch tag
        fields = [f for m in models for n, f in m.model_fields.items() if part in (n, f.alias)]
        models = named or [m for f in fields for m in _models_in(f.annotation)] or models
    return sorted({f.alias or n for m in models for n, f in m.model_fields.items()})


def _unknown_field(key: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f"unknown field (did you mean {close[0]!r}?)" if close else f"unknown field (known: {', '.join(known)})"


def _validation_problems(exc: ValidationError, tp: Any, prefix: tuple[Any, ...],
                         fix: Callable[[tuple[Any, ...]], tuple[Any, ...]] = lambda loc: loc) -> list[_Found]:
    """``(place, reason)`` per place of a validation error of a value of type ``tp`` found at ``prefix``
    (``fix``: the error location as written in the file, see :func:`_walk`)."""
    by_place: dict[str, list[str]] = {}
    errors = exc.errors(include_url=False)
    places = [_place(prefix + fix(tuple(e["loc"]))) for e in errors]
    for err, here in zip(errors, places):
        loc = tuple(err["loc"])
        if err["type"].endswith("_type") and any(p.startswith((here + ".", here + "[")) for p in places):
            continue  # the union branch of another type (a label string) when a label object was meant
        if err["type"] == "extra_forbidden":
            msg = _unknown_field(str(loc[-1]), _field_names(tp, loc[:-1]))
        else:
            msg = validation_reason(err)
        msgs = by_place.setdefault(here, [])
        if msg not in msgs:
            msgs.append(msg)  # union branches (label string | label object) fail at one place
    return [(place, " or ".join(msgs)) for place, msgs in by_place.items()]


# --------------------------------------------------------------------------- checks beyond the schema


def _host_problems(host: HostEntry, file: str) -> list[tuple[tuple[Any, ...], str]]:
    """Credential grants whose target id is malformed or cannot receive that access: ``(location in the entry,
    reason)``."""
    out = []
    for j, cred in enumerate(host.credentials or []):
        for k, g in enumerate(cred.grants or []):
            try:
                resolve_grant(g.access, g.target, Evidence(file=file, yaml_path=f"credentials[{j}].grants[{k}]"))
            except GrantError as exc:
                out.append((("credentials", j, "grants", k, exc.field), exc.reason))
    return out


#: Checks beyond the schema of one entry of a top-level list: ``(entry, file) -> [(location in the entry, reason)]``.
_ENTRY_CHECKS: dict[str, Callable[[Any, str], list[tuple[tuple[Any, ...], str]]]] = {"hosts": _host_problems}


# --------------------------------------------------------------------------- a bad part costs only that part


#: Validation rounds of one entry (each leaves out the bad parts it found; pydantic reports every error at once,
#: so a second round only sees the grant checks).
_ROUNDS = 4


def _walk(item: Any, loc: tuple[Any, ...],
          kept: dict[tuple[Any, ...], list[int]]) -> tuple[tuple[Any, ...], tuple[Any, ...], list[tuple[Any, ...]]]:
    """An error location ``loc`` inside the raw entry ``item``: ``(location as written in the file (list indexes of
    earlier rounds mapped back through ``kept``), the part of ``loc`` that exists in ``item``, the paths of the list
    elements it passes through)``; union branch tags and a missing field are kept only in the first."""
    cur, clean, fil, out, lists = item, (), (), [], []
    for part in loc:
        if isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur):
            m = kept.get(fil)
            fpart = m[part] if m is not None else part
            clean, fil, cur = clean + (part,), fil + (fpart,), cur[part]
            lists.append(clean)
            out.append(fpart)
        elif isinstance(cur, dict) and not isinstance(part, int) and part in cur:
            clean, fil, cur = clean + (part,), fil + (part,), cur[part]
            out.append(part)
        else:
            out.append(part)
    return tuple(out), clean, lists


def _target(item: Any, item_tp: Any, loc: tuple[Any, ...], clean: tuple[Any, ...],
            lists: list[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """What an error at ``loc`` costs: the innermost list element it is in when that is a mapping (a credential, a
    grant, a cache...) or a label; a list of names as a whole (``secrets``, ``readable_by``: it becomes unknown,
    never narrower than written); else an optional sub-mapping of the entry (``registration``, ``scan``) it is
    inside; None: the entry itself (a required field left out is an error of the next round).  A bad
    :data:`_UNKNOWN_WHEN_BAD` field of the entry is that field alone: it becomes unknown (``null``)."""
    if len(loc) == 1 and clean == loc and loc[0] in _UNKNOWN_WHEN_BAD:
        return clean
    if lists:
        element = lists[-1]
        if element[-2] not in _BY_ELEMENT and not isinstance(_at(item, element), dict):
            return element[:-1]
        return element
    if len(clean) == 1 and len(loc) > 1 and isinstance(item, dict) and isinstance(item.get(clean[0]), dict):
        optional = [f for m in _models_in(item_tp) for n, f in m.model_fields.items()
                    if clean[0] in (n, f.alias) and not f.is_required()]
        return clean if optional else None
    return None


#: Fields of an entry (a runner, a host) whose bad value (``ephemeral: "yes"``: the schema takes only the
#: booleans ``true`` and ``false``) costs only that field, which becomes unknown (``null``), as a bad list of
#: names does: an ephemeral state that is unknown is read as persistent, the wider blast radius
#: (``graphkit.model.Runner``); the rest of the entry is kept.
_UNKNOWN_WHEN_BAD = frozenset({"ephemeral"})
#: What a problem at such a field adds to its reason.
_LEFT_UNKNOWN = "; left unknown (read as persistent)"

#: Lists of names whose bad element costs only that element (a runner keeps its other labels); in another list of
#: names, a bad one makes the list unknown (``null``).
_BY_ELEMENT = frozenset({"labels", "label_patterns"})


def _at(item: Any, path: tuple[Any, ...]) -> Any:
    """The value at ``path`` (every step exists: from :func:`_walk`)."""
    for part in path:
        item = item[part]
    return item


def _pruned(value: Any, targets: set[tuple[Any, ...]], kept: dict[tuple[Any, ...], list[int]],
            cur: tuple[Any, ...] = (), fil: tuple[Any, ...] = ()) -> Any:
    """A copy of ``value`` without the parts at ``targets`` (current paths); ``kept`` (list path as written in the
    file -> file index of each element left) is updated, so the parts after a left-out one keep their own path."""
    if isinstance(value, dict):
        return {k: _pruned(v, targets, kept, cur + (k,), fil + (k,)) for k, v in value.items()
                if cur + (k,) not in targets}
    if isinstance(value, list):
        idx = kept.get(fil) or list(range(len(value)))
        out, at = [], []
        for i, v in enumerate(value):
            if cur + (i,) not in targets:
                out.append(_pruned(v, targets, kept, cur + (i,), fil + (idx[i],)))
                at.append(idx[i])
        if len(at) != len(value) or fil in kept:
            kept[fil] = at
        return out
    return value


def _entry(item: Any, item_tp: Any, check: Callable[[Any, str], list[tuple[tuple[Any, ...], str]]] | None,
           prefix: tuple[Any, ...], file: str,
           kept: dict[tuple[Any, ...], list[int]]) -> tuple[Any | None, list[_Found]]:
    """One entry of a top-level list, validated: a bad part of it (a list element such as one credential, grant,
    cache, secret or label; an optional sub-mapping such as ``registration``) is left out with a problem naming
    its place, and the rest is kept; an error in the entry's own fields leaves the entry out (None)."""
    adapter, found = TypeAdapter(item_tp), []
    for _ in range(_ROUNDS):
        try:
            entry = adapter.validate_python(item)
        except ValidationError as exc:
            locs = [tuple(e["loc"]) for e in exc.errors(include_url=False)]
            msgs = _validation_problems(exc, item_tp, prefix, lambda loc: _walk(item, loc, kept)[0])
        else:
            extra = check(entry, file) if check is not None else []
            if not extra:
                return entry, found
            locs = [loc for loc, _ in extra]
            msgs = [(_place(prefix + _walk(item, loc, kept)[0]), reason) for loc, reason in extra]
        targets: dict[str, tuple[Any, ...]] = {}
        for loc in locs:
            file_loc, clean, lists = _walk(item, loc, kept)
            target = _target(item, item_tp, loc, clean, lists)
            if target is None:  # an error in the entry's own fields: the whole entry goes, and the problems say so
                whole = _place(prefix)
                return None, found + [(place, reason if place == whole else f"{reason}; {whole} is left out")
                                      for place, reason in msgs]
            targets[_place(prefix + file_loc)] = target
        unknown = {p for p, t in targets.items() if len(t) == 1 and t[0] in _UNKNOWN_WHEN_BAD}
        msgs = [(p, r + _LEFT_UNKNOWN if p in unknown else r) for p, r in msgs]
        found += msgs  # each place is inside the part left out (the innermost list element holding it)
        item = _pruned(item, set(targets.values()), kept)
    return None, found


# --------------------------------------------------------------------------- parse


def _document(text: str, file: str) -> tuple[dict[Any, Any], dict[str, int]]:
    """The top-level mapping and the line map; raises :class:`InputError` when the file as a whole is unusable."""
    data, lines = load_yaml(text, file=file)
    if not isinstance(data, dict):
        raise InputError(file, "", f"expected a mapping with 'schema: {SCHEMA_ID}', got {type(data).__name__}")
    if data.get("schema") != SCHEMA_ID:
        raise InputError(file, "schema", f"expected {SCHEMA_ID!r}, got {data.get('schema')!r}")
    return data, lines


def _list_item_type(tp: Any) -> Any | None:
    """``X`` for a field of type ``list[X] | None``, else None."""
    return next((get_args(a)[0] for a in (tp, *get_args(tp)) if get_origin(a) is list), None)


def _entries(key: str, value: list[Any], item_tp: Any, file: str,
             indexes: dict[str, list[int]]) -> tuple[list[Any], list[_Found]]:
    """The entries of a top-level list that validate (and pass :data:`_ENTRY_CHECKS`), and the others' problems;
    ``indexes[key]`` gets the file index of each kept entry."""
    check = _ENTRY_CHECKS.get(key)
    kept, found = [], []
    at = indexes.setdefault(key, [])
    for i, item in enumerate(value):
        parts: dict[tuple[Any, ...], list[int]] = {}
        entry, problems = _entry(item, item_tp, check, (key, i), file, parts)
        found += problems
        if entry is None:
            continue
        kept.append(entry)
        at.append(i)
        indexes.update({_place((key, i) + path): idx for path, idx in parts.items()})
    return kept, found


_SKIP = object()


def _section(key: str, value: Any, file: str, indexes: dict[str, list[int]]) -> tuple[Any, list[_Found]]:
    """One top-level key: its validated value (``_SKIP`` when left out) and its problems."""
    fields = {(f.alias or n): f for n, f in RunnerInventory.model_fields.items()}
    if key not in fields:
        return _SKIP, [(key, _unknown_field(key, sorted(fields)))]
    tp = fields[key].annotation
    item_tp = _list_item_type(tp)
    if value is None or item_tp is None:  # not a list field: validated whole
        try:
            return TypeAdapter(tp).validate_python(value), []
        except ValidationError as exc:
            return _SKIP, _validation_problems(exc, tp, (key,))
    if not isinstance(value, list):
        return _SKIP, [(key, f"expected a list, got {type_name(value)}")]
    cap = limits.current().max_inventory_entries  # before validating any entry
    if len(value) > cap:
        return _SKIP, [(key, limits.too_many("max_inventory_entries", cap, f"{len(value)} entries"))]
    return _entries(key, value, item_tp, file, indexes)


def _problem(file: str, lines: dict[str, int], place: str, reason: str) -> InputError:
    """``InputError(file, place, reason (line N))``; a place not in the file (a missing field) gets its entry's line."""
    line = line_of(lines, place) if place else None
    return InputError(file, place, reason + (f" (line {line})" if line else ""))


def parse(text: str, file: str) -> ParsedInventory:
    """Validate one inventory document (pure: no I/O).

    Parameters
    ----------
    text
        YAML (or JSON, a subset of YAML) text.
    file
        the path as given, used in evidence and errors.

    Returns
    -------
    ParsedInventory

    Entries are validated one by one: an entry of a top-level list
    (``runners[3]``, ``hosts[0]``, ``repositories[1]``, ``organizations[0]``,
    one label) with a typo'd field, a wrong type, a missing required field, a
    value no node id can hold or a bad credential grant is left out (only the
    part of the entry holding the error: a credential, a grant, a label...,
    see :func:`_entry`) and each of its errors becomes one problem in
    ``ParsedInventory.problems``:
    ``InputError(file, place, reason (line N))``, e.g.
    ``runners[3].runnner_group: unknown field (did you mean 'runner_group'?)
    (line 42)``; a missing field gets the line of its entry.  An unknown
    top-level key or a top-level value of the wrong type is a problem too and
    is left out.  Every other entry is kept.

    Raises
    ------
    InputError
        when the file as a whole cannot be used: invalid YAML (``line N``),
        not a mapping, or a ``schema`` other than :data:`SCHEMA_ID`.
    """
    data, lines = _document(text, file)
    found: list[_Found] = []
    kept: dict[str, Any] = {"schema": SCHEMA_ID}
    indexes: dict[str, list[int]] = {}
    for raw_key, value in data.items():
        key = str(raw_key)
        if key == "schema":
            continue
        validated, problems = _section(key, value, file, indexes)
        found += problems
        if validated is not _SKIP:
            kept[key] = validated
    try:
        inv = RunnerInventory.model_validate(kept)
    except ValidationError as exc:  # not expected (every part was validated above): reject the file
        place, reason = _validation_problems(exc, RunnerInventory, ())[0]
        raise _problem(file, lines, place, reason) from None
    return ParsedInventory(file=file, inventory=inv, lines=lines, indexes=indexes,
                           problems=[_problem(file, lines, place, reason) for place, reason in found])
