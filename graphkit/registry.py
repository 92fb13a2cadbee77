"""Registry of ingestors: how the core reaches ``ingest/`` without importing it.

An ingestor (:class:`graphkit.ingestor.Ingestor`; file sources subclass
:class:`graphkit.ingestor.FileIngestor`) has a ``name`` (the CLI option stem,
e.g. ``github-actions`` for ``--github-actions``), a one-line
``description``, an :class:`~graphkit.ingestor.InputOption` and an
``ingest(paths, progress=None) -> IngestResult`` method.  Ingestors are found
through the ``graphkit.ingestors`` entry-point group declared in
``pyproject.toml``; tests may :func:`register` more.  The build merges sources
in :func:`ingestors` order.

A collector (``graphkit collect <name>``) reads a live system read-only and
returns a document an ingestor reads (e.g. the ``host`` collector writes the
runner inventory format).  It has a ``name``, a ``description`` and
``collect(root, **options) -> CollectResult``; collectors are found through the
``graphkit.collectors`` entry-point group (:func:`get_collector`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
import importlib
import sys
import types
from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol

from graphkit.errors import GraphkitError, InputError
from graphkit.ingestor import RANK_REFERENCES, Ingestor

__all__ = ["lazy_package", "register", "ingestors", "get", "CollectResult", "Collector", "collectors", "get_collector"]

_extra: dict[str, Ingestor] = {}


def register(ingestor: Ingestor) -> None:
    """Register an ingestor by its ``name`` (overrides an entry point of that name)."""
    _extra[ingestor.name] = ingestor


@lru_cache(maxsize=None)
def _entry_points(group: str) -> tuple[Any, ...]:
    """The installed entry points of ``group`` (scanning every distribution's metadata once per process)."""
    return tuple(entry_points(group=group))


def lazy_package(name: str, exports: Mapping[str, Sequence[str]]) -> None:
    """Make package ``name`` (a source's ``ingest/<source>/__init__.py``) re-export names of its submodules,
    importing each submodule on first use, so that loading an ingestor for its name and option (``graphkit
    --help``) imports no parser.

    A plain module ``__getattr__`` is not enough: importing the submodule ``parse`` binds the package attribute
    ``parse`` to the module, hiding the function ``parse`` it exports.  Each name is a property of the package's
    class instead; binding it to that submodule is ignored, any other assignment (a test's monkeypatch) wins.

    Parameters
    ----------
    name
        the package's ``__name__``.
    exports
        submodule (relative name) -> the names it exports.
    """
    module = sys.modules[name]
    where = {attr: sub for sub, attrs in exports.items() for attr in attrs}
    assigned: dict[str, object] = {}

    def prop(attr: str) -> property:
        def get(_self: object) -> object:
            if attr in assigned:
                return assigned[attr]
            return getattr(importlib.import_module(f"{name}.{where[attr]}"), attr)

        def put(_self: object, value: object) -> None:
            if not (isinstance(value, types.ModuleType) and value.__name__ == f"{name}.{attr}"):
                assigned[attr] = value

        def drop(_self: object) -> None:
            assigned.pop(attr, None)
        return property(get, put, drop)
    module.__class__ = type("LazyPackage", (types.ModuleType,), {attr: prop(attr) for attr in where})


def ingestors() -> dict[str, Ingestor]:
    """All ingestors by name (entry points of group ``graphkit.ingestors`` and registered ones), in merge order:
    by :attr:`~graphkit.ingestor.Ingestor.merge_rank`, then name."""
    found: dict[str, Ingestor] = {ep.name: ep.load() for ep in _entry_points("graphkit.ingestors")}
    found.update(_extra)
    return dict(sorted(found.items(), key=lambda kv: (getattr(kv[1], "merge_rank", RANK_REFERENCES), kv[0])))


def get(name: str) -> Ingestor:
    """The ingestor called ``name``.

    Raises
    ------
    GraphkitError
        if none is installed under that name (is the package installed?).
    """
    try:
        return ingestors()[name]
    except KeyError:
        raise GraphkitError(f"no ingestor {name!r} installed (known: {', '.join(sorted(ingestors())) or 'none'}); "
                            "install graphkit with 'pip install -e .'") from None


# --------------------------------------------------------------------------- collectors


@dataclass
class CollectResult:
    """What one collector produced.

    ``document``: JSON-compatible, in an ingestor's input format.
    ``problems``: what could not be read (file and place, never content).
    ``summary``: counts for the user.
    ``read``: the real local paths of the files read (``collect host -o`` never replaces one); empty: not recorded.
    """

    document: dict[str, Any]
    problems: list[InputError] = field(default_factory=list)
    summary: dict[str, int] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)


class Collector(Protocol):
    """Interface of a collector (see module docstring)."""

    name: str
    description: str

    def collect(self, root: Path, **options: Any) -> CollectResult:
        """Read the system under ``root`` without changing it."""


def collectors() -> dict[str, Collector]:
    """All collectors by name (entry points of group ``graphkit.collectors``)."""
    return {ep.name: ep.load() for ep in _entry_points("graphkit.collectors")}


def get_collector(name: str) -> Collector:
    """The collector called ``name``.

    Raises
    ------
    GraphkitError
        if none is installed under that name.
    """
    try:
        return collectors()[name]
    except KeyError:
        raise GraphkitError(f"no collector {name!r} installed (known: {', '.join(sorted(collectors())) or 'none'}); "
                            "install graphkit with 'pip install -e .'") from None
