"""YAML loading with a line for every YAML path (pure: no I/O).

PyYAML's ``SafeLoader`` is used in two passes over one composed node tree:
the node tree gives the 1-based line of every mapping key and sequence item
(``yaml.Node.start_mark``), and ``construct_document`` gives the Python data.
Paths are written as graphkit evidence writes them: dotted keys and ``[i]``
indexes, e.g. ``jobs.build.steps[2].with.role-to-assume``.

YAML 1.1 note: PyYAML constructs the bare key ``on`` as the boolean ``True``
(and ``yes``/``no``/``off`` likewise).  The *line map* keeps the key as written
(``on``), the *data* keeps PyYAML's value; callers look up both.
"""

from __future__ import annotations

from typing import Any

import yaml

from graphkit.errors import InputError

__all__ = ["load_yaml", "join_path", "line_of", "type_name"]


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


def _walk(node: yaml.Node, path: str, lines: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.value == "<<":
                continue
            sub = join_path(path, key_node.value)
            lines.setdefault(sub, key_node.start_mark.line + 1)
            _walk(value_node, sub, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            sub = join_path(path, i)
            lines.setdefault(sub, item.start_mark.line + 1)
            _walk(item, sub, lines)


def load_yaml(text: str, *, file: str) -> tuple[Any, dict[str, int]]:
    """Parse one YAML document and map each YAML path to its line.

    Parameters
    ----------
    text
        the document.
    file
        name used in errors.

    Returns
    -------
    tuple
        ``(data, lines)``: the constructed data (``None`` for an empty
        document) and ``{yaml_path: 1-based line}`` (``""`` maps to 1).

    Raises
    ------
    InputError
        ``(file, "line N", reason)`` on a YAML syntax or construction error,
        or when the stream holds more than one document.
    """
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        place = ""
        if mark is not None:
            # an error found at end of input is reported on the last non-blank line
            line = mark.line + 1 if mark.index < len(text.rstrip()) else text.rstrip().count("\n") + 1
            place = f"line {line}"
        raise InputError(file, place, f"invalid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise InputError(file, "", f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    lines: dict[str, int] = {"": 1}
    if node is not None:
        _walk(node, "", lines)
    return data, lines


def line_of(lines: dict[str, int], path: str) -> int | None:
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
