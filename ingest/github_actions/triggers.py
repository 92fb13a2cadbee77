"""A workflow's ``on:`` -> :class:`~graphkit.model.Trigger` models (pure: no I/O).

The three forms GitHub accepts (GitHub docs "Workflow syntax for GitHub
Actions", ``on``,
https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#on):

- a string: one event (``on: push``);
- a list of event names (``on: [push, pull_request]``);
- a mapping event -> configuration (``null`` for none): ``types``,
  ``branches`` / ``branches-ignore``, ``tags`` / ``tags-ignore``, ``paths`` /
  ``paths-ignore`` (``on.<push|pull_request|pull_request_target>.<branches|tags|paths>``,
  also ``merge_group.branches`` and ``workflow_run.branches``),
  ``workflow_run.workflows``, ``schedule: [{cron: ...}]``; the inputs,
  outputs and secrets of ``workflow_call`` / ``workflow_dispatch`` are read by
  :mod:`.parse`, not here.

A filter is a pattern or a list of patterns (kept as written, the leading
``!`` of a negative pattern included).  What GitHub refuses in a filter is a
problem naming the YAML path and line, and the filter is read as absent
(the event is not dropped: unknown is never empty):

- ``branches`` with ``branches-ignore`` (or ``tags`` with ``tags-ignore``,
  ``paths`` with ``paths-ignore``) for one event: "You cannot use both the
  branches and branches-ignore filters for the same event"
  (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onpull_requestpull_request_targetbranchesbranches-ignore);
- a pattern that is a mapping, a sequence or null.  A number or boolean is no problem: GitHub reads it as
  the text of the number (``- 3.10`` filters the branch ``3.1``, :func:`.models.scalar_text`), as a filter of
  python/cpython's workflows long wrote it.

Which refs each event then runs on is :func:`graphkit.refs.trigger_refs`.
"""

from __future__ import annotations

from typing import Any

from graphkit.errors import InputError
from graphkit.model import Trigger
from ingest._yaml import join_path, type_name

from .evidence import Src
from .models import scalar_text

__all__ = ["parse_triggers"]

#: ``on.<event>`` keys read as filters, with the Trigger field each fills.
_FILTERS = {"types": "types", "branches": "branches", "branches-ignore": "branches_ignore", "tags": "tags",
            "tags-ignore": "tags_ignore", "paths": "paths", "paths-ignore": "paths_ignore",
            "workflows": "workflows"}
#: Pairs GitHub refuses together for one event.
_EXCLUSIVE = (("branches", "branches-ignore"), ("tags", "tags-ignore"), ("paths", "paths-ignore"))


def _patterns(value: Any, src: Src, path: str, problems: list[InputError]) -> tuple[str, ...] | None:
    """A filter value as a tuple of text patterns (a lone string is one pattern); None, with a problem, if not text."""
    items = value if isinstance(value, list) else [value]
    if all(v is not None and not isinstance(v, (dict, list)) for v in items):
        return tuple(v if isinstance(v, str) else scalar_text(v) for v in items)
    bad = next(v for v in items if v is None or isinstance(v, (dict, list)))
    problems.append(InputError(src.file, path, f"filter pattern must be text, got {type_name(bad)}; "
                               "filter read as absent"))
    return None


def _schedules(value: Any, src: Src, path: str, problems: list[InputError]) -> tuple[str, ...]:
    """The ``cron`` strings of ``on.schedule`` (a list of ``{cron: ...}``)."""
    if not isinstance(value, list):
        problems.append(InputError(src.file, path, f"expected a sequence of {{cron: ...}}, got {type_name(value)}"))
        return ()
    out = []
    for i, item in enumerate(value):
        if isinstance(item, dict) and isinstance(item.get("cron"), str):
            out.append(item["cron"])
        else:
            problems.append(InputError(src.file, join_path(path, i), "expected {cron: '...'}; entry skipped"))
    return tuple(out)


def _trigger(event: str, config: Any, src: Src, problems: list[InputError]) -> Trigger:
    """One event of the mapping form; filters GitHub refuses become problems and are read as absent."""
    path = join_path("on", event)
    fields: dict[str, Any] = {}
    if event == "schedule":
        fields["schedules"] = _schedules(config, src, path, problems)
    elif isinstance(config, dict):
        for key, name in _FILTERS.items():
            if config.get(key) is not None:
                fields[name] = _patterns(config[key], src, join_path(path, key), problems)
        for a, b in _EXCLUSIVE:
            if config.get(a) is not None and config.get(b) is not None:
                problems.append(InputError(src.file, join_path(path, b), f"{a} and {b} cannot both be used for one "
                                           f"event; both read as absent"))
                fields[_FILTERS[a]] = fields[_FILTERS[b]] = None
    elif config is not None:
        problems.append(InputError(src.file, path, f"expected a mapping or null, got {type_name(config)}; "
                                   "no filters read"))
    return Trigger(event=event, evidence=src.ev(path), **fields)


def parse_triggers(on: Any, src: Src) -> tuple[tuple[Trigger, ...], list[InputError]]:
    """The events of a workflow's ``on:`` value, in the order written.

    Parameters
    ----------
    on
        the ``on`` value as PyYAML built it: a string, a list of strings, or a
        mapping event -> configuration or ``None``.
    src
        evidence factory of the workflow file (YAML paths ``on.<event>...``).

    Returns
    -------
    tuple of (tuple of Trigger, list of InputError)
        one :class:`~graphkit.model.Trigger` per event, and the problems
        (a filter GitHub refuses, read as absent; YAML path without line:
        :mod:`.parse` appends the line).

    Raises
    ------
    InputError
        ``on`` of another shape (a number, a list holding a non-string).

    Examples
    --------
    >>> src = Src(".github/workflows/ci.yml", "acme/app", {"on": 1, "on.push": 2, "on.push.branches": 3})
    >>> ts, problems = parse_triggers({"push": {"branches": ["main", "release/**"]}, "workflow_dispatch": None}, src)
    >>> [(t.event, t.branches, t.evidence.line) for t in ts], problems
    ([('push', ('main', 'release/**'), 2), ('workflow_dispatch', None, 1)], [])
    >>> [t.event for t in parse_triggers(["push", "pull_request"], src)[0]]
    ['push', 'pull_request']
    """
    problems: list[InputError] = []
    if isinstance(on, str):
        return (Trigger(event=on, evidence=src.ev("on", on)),), problems
    if isinstance(on, list) and all(isinstance(e, str) for e in on):
        return tuple(Trigger(event=e, evidence=src.ev(join_path("on", i), e)) for i, e in enumerate(on)), problems
    if isinstance(on, dict):
        return tuple(_trigger(str(k), v, src, problems) for k, v in on.items()), problems
    raise InputError(src.file, "on", f"expected an event name, a list or a mapping, got {type_name(on)}")
