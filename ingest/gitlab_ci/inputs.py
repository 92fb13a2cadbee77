"""``include: inputs:`` interpolated into the included file, as GitLab does (pure: no I/O).

A file whose header declares ``spec: inputs:`` is a template: GitLab replaces every ``$[[ inputs.NAME ]]`` of
its configuration (keys and values) with the value the including ``include:`` entry gives, else the input's
``default`` (https://docs.gitlab.com/ci/yaml/inputs/, https://docs.gitlab.com/ci/yaml/#includeinputs).  The same
file may be included several times with different inputs, each include its own copy
(https://docs.gitlab.com/ci/yaml/inputs/#include-the-same-file-multiple-times): a job named
``gems $[[inputs.gem_name]]`` is one job per include.

- A value that is exactly one interpolation takes the input's value as it is (a list stays a list); inside a
  longer text it is written as text (``true``/``false`` for booleans).
- The interpolation functions (``| expand_vars``, ``| truncate(a,b)``, ``| posix_escape``,
  https://docs.gitlab.com/ci/yaml/inputs/#predefined-interpolation-functions): ``truncate`` is applied; the
  others leave the value as given.
- An input with neither a value nor a default, or a name the header does not declare, is left as written.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from .models import CIFile, Include

__all__ = ["interpolate", "with_inputs", "instances"]

_INTERP = re.compile(r"\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*((?:\|[^\]]*)?)\]\]")
_TRUNCATE = re.compile(r"\|\s*truncate\(\s*(\d+)\s*,\s*(\d+)\s*\)")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _apply(value: Any, functions: str) -> Any:
    m = _TRUNCATE.search(functions)
    if m and isinstance(value, str):
        start, length = int(m.group(1)), int(m.group(2))
        return value[start:start + length]
    return value


def interpolate(value: Any, values: dict[str, Any]) -> Any:
    """``value`` (parsed YAML) with every ``$[[ inputs.NAME ]]`` of ``values`` replaced, in keys and strings.

    >>> interpolate({"gems $[[inputs.gem]]": {"trigger": {"include": "gems/$[[ inputs.gem ]]/ci.yml"}}},
    ...             {"gem": "rspec"})
    {'gems rspec': {'trigger': {'include': 'gems/rspec/ci.yml'}}}
    >>> interpolate({"tags": "$[[ inputs.tags ]]", "x": "a-$[[ inputs.n | truncate(0,2) ]]"},
    ...             {"tags": ["gpu", "big"], "n": "abcdef"})
    {'tags': ['gpu', 'big'], 'x': 'a-ab'}
    """
    if isinstance(value, str):
        if "$[[" not in value:
            return value
        whole = _INTERP.fullmatch(value.strip())
        if whole and whole.group(1) in values:
            return _apply(values[whole.group(1)], whole.group(2))

        def sub(m: re.Match[str]) -> str:
            return _text(_apply(values[m.group(1)], m.group(2))) if m.group(1) in values else m.group(0)
        return _INTERP.sub(sub, value)
    if isinstance(value, dict):
        return {interpolate(k, values) if isinstance(k, str) else k: interpolate(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, values) for v in value]
    return value


def _given(f: CIFile, given: dict[str, Any] | None) -> dict[str, Any]:
    """The values of the file's declared inputs: what the include gives, else the default."""
    values = {k: v for k, v in f.spec_inputs.items() if v is not None}
    values.update({k: v for k, v in (given or {}).items() if k in f.spec_inputs})
    return values


def _include(inc: Include, values: dict[str, Any]) -> Include:
    """``inc`` with this file's inputs interpolated in its target and in the inputs it passes on (a template that
    includes a further template with ``inputs: {x: $[[ inputs.y ]]}`` passes its own ``y``)."""
    target = interpolate(inc.target, values)
    given = interpolate(inc.inputs, values) if inc.inputs is not None else None
    return dataclasses.replace(inc, target=target if isinstance(target, str) else inc.target,
                               inputs=given if isinstance(given, dict) else inc.inputs)


def with_inputs(f: CIFile, given: dict[str, Any] | None) -> CIFile:
    """The copy of ``f`` its includer reads: inputs interpolated in its data, line map, includes and child
    pipelines (``f`` itself when it declares no inputs)."""
    values = _given(f, given)
    if not f.spec_inputs or not values:
        return f
    lines = {interpolate(k, values): v for k, v in f.lines.items()}
    return dataclasses.replace(f, data=interpolate(f.data, values), lines=lines,
                               includes=[_include(i, values) for i in f.includes],
                               children=[_include(i, values) for i in f.children])


#: copies :func:`instances` makes at most (GitLab's limit of 150 includes per pipeline,
#: https://docs.gitlab.com/ci/yaml/includes/#include-limits)
MAX_INSTANCES = 150


def instances(files: Iterable[CIFile]) -> list[CIFile]:
    """``files`` as read without inputs (their ``spec:inputs`` defaults interpolated: the root configuration's own
    ``$[[ inputs.X ]]``, https://docs.gitlab.com/ci/inputs/#define-input-parameters-with-specinputs) and the copies
    their ``include: local`` entries with ``inputs`` make, transitively (a template passing inputs on to the
    template it includes), for what is read from every copy (the child pipelines they trigger)."""
    import json

    from .collect import local_targets  # collect follows includes with with_inputs: imported when used
    files = list(files)
    by_name = {f.file: f for f in files}
    out = [with_inputs(f, None) for f in files]
    queue = list(out)
    seen: set[str] = set()
    while queue and len(seen) < MAX_INSTANCES:
        f = queue.pop(0)
        for inc in f.includes:
            if inc.kind != "local" or inc.inputs is None:
                continue
            for t in local_targets(inc, list(by_name)):
                key = json.dumps([t, inc.inputs], sort_keys=True, default=str)
                if key not in seen and len(seen) < MAX_INSTANCES:
                    seen.add(key)
                    copy = with_inputs(by_name[t], inc.inputs)
                    out.append(copy)
                    queue.append(copy)
    return out
