"""Parse a runner inventory document (pure: text -> :class:`ParsedInventory`, no I/O).

The document is loaded with the one YAML loader (:func:`ingest._yaml.load_yaml`,
which also maps every YAML path to its line), then validated **entry by
entry**: an entry of a top-level list (``runners[3]``, ``hosts[0]``...) that
fails the schema (:mod:`ingest.runner_inventory.models`) or has a bad
credential grant (:mod:`ingest.runner_inventory.grants`) is left out and each
of its errors becomes one problem naming the file, the place and the line;
every other entry is kept.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from graphkit import limits
from graphkit.errors import InputError
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
    #: top-level list -> index in the file of each kept entry (entries after a skipped one keep their own path)
    indexes: dict[str, list[int]] = Field(default_factory=dict)

    def place_of(self, section: str, i: int) -> str:
        """YAML path of the ``i``-th kept entry of ``section`` as written in the file (``runners[3]``)."""
        kept = self.indexes.get(section)
        return f"{section}[{kept[i] if kept is not None and i < len(kept) else i}]"


# --------------------------------------------------------------------------- validation messages


def _place(loc: tuple[Any, ...]) -> str:
    """A pydantic error location as a YAML path (``runners[3].labels``)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("str", "RunnerLabel") or (isinstance(part, str) and part.startswith(("literal[", "function-"))):
            continue  # union branch names add nothing for the user
        else:
            out += ("." if out else "") + ("schema" if part == "schema_" else str(part))
    return out


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


def _validation_problems(exc: ValidationError, tp: Any, prefix: tuple[Any, ...]) -> list[_Found]:
    """``(place, reason)`` per place of a validation error of a value of type ``tp`` found at ``prefix``."""
    by_place: dict[str, list[str]] = {}
    errors = exc.errors(include_url=False)
    places = [_place(prefix + tuple(e["loc"])) for e in errors]
    for err, here in zip(errors, places):
        loc = tuple(err["loc"])
        if err["type"].endswith("_type") and any(p.startswith((here + ".", here + "[")) for p in places):
            continue  # the union branch of another type (a label string) when a label object was meant
        if err["type"] == "extra_forbidden":
            msg = _unknown_field(str(loc[-1]), _field_names(tp, loc[:-1]))
        elif err["type"] == "missing":
            msg = "required field missing"
        else:
            msg = err["msg"]
        msgs = by_place.setdefault(here, [])
        if msg not in msgs:
            msgs.append(msg)  # union branches (label string | label object) fail at one place
    return [(place, " or ".join(msgs)) for place, msgs in by_place.items()]


# --------------------------------------------------------------------------- checks beyond the schema


def _host_problems(host: HostEntry, place: str, file: str) -> list[_Found]:
    """Credential grants whose target id is malformed or cannot receive that access."""
    out = []
    for j, cred in enumerate(host.credentials or []):
        for k, g in enumerate(cred.grants or []):
            gp = f"{place}.credentials[{j}].grants[{k}]"
            try:
                resolve_grant(g.access, g.target, Evidence(file=file, yaml_path=gp))
            except GrantError as exc:
                out.append((f"{gp}.{exc.field}", exc.reason))
    return out


#: Checks beyond the schema of one entry of a top-level list: ``(entry, place, file) -> [(place, reason)]``.
_ENTRY_CHECKS: dict[str, Callable[[Any, str, str], list[_Found]]] = {"hosts": _host_problems}


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
    adapter = TypeAdapter(item_tp)
    check = _ENTRY_CHECKS.get(key)
    kept, found = [], []
    at = indexes.setdefault(key, [])
    for i, item in enumerate(value):
        try:
            entry = adapter.validate_python(item)
        except ValidationError as exc:
            found += _validation_problems(exc, item_tp, (key, i))
            continue
        extra = check(entry, f"{key}[{i}]", file) if check is not None else []
        if extra:
            found += extra
            continue
        kept.append(entry)
        at.append(i)
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
    value no node id can hold or a bad credential grant is left out and each
    of its errors becomes one problem in ``ParsedInventory.problems``:
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
