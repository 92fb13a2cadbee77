"""The one error hierarchy.  Only the CLI turns these into messages and exit codes."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["GraphkitError", "InputError", "GraphFileError", "UnknownNodeError"]


class GraphkitError(Exception):
    """Base of every graphkit error."""


class InputError(GraphkitError):
    """One input file (or one place in it) could not be used.

    Attributes: ``file`` (path as given), ``place`` (YAML/JSON path or
    ``line N``, may be empty), ``reason``.  Parsers raise it; ingestors also
    collect instances as the non-fatal problems of a partial build.
    """

    def __init__(self, file: str, place: str, reason: str) -> None:
        self.file, self.place, self.reason = file, place, reason
        super().__init__(f"{file}{': ' + place if place else ''}: {reason}")

    def as_dict(self) -> dict[str, str]:
        """``{"file", "place", "reason"}``."""
        return {"file": self.file, "place": self.place, "reason": self.reason}


class GraphFileError(GraphkitError):
    """A saved graph file could not be read."""

    def __init__(self, file: str, reason: str) -> None:
        self.file, self.reason = file, reason
        super().__init__(f"{file}: {reason}")


class UnknownNodeError(GraphkitError, KeyError):
    """A node id is not in the graph; ``suggestions`` holds close ids."""

    def __init__(self, node_id: str, known: Iterable[str]) -> None:
        known = list(known)
        self.node_id = node_id
        self.suggestions = difflib.get_close_matches(node_id, known, n=5, cutoff=0.5)
        if not self.suggestions:
            low = node_id.lower()
            self.suggestions = sorted(k for k in known if low in k.lower())[:5]
        hint = f"; did you mean: {', '.join(self.suggestions)}" if self.suggestions else ""
        super().__init__(f"no node with id {node_id!r}{hint}")

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]
