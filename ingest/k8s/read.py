"""Typed reads of one Kubernetes object's fields (pure), and multi-document YAML streams.

A field of the wrong type raises :class:`Bad` with its YAML path (relative to the object); the parser turns it
into one problem naming file, document, path and line, and the object is left out (never the file).  A value
holding an ``envsubst``/shell placeholder (``${NAME}``, as in ARC's acceptance manifests) is unknown: None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from graphkit.redact import strip_url_credentials
from ingest._yaml import line_of, type_name

__all__ = ["Bad", "Reader", "split_documents"]

#: DNS-1123 subdomain (object names) and label (namespaces): "Object Names and IDs",
#: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/ (the API server refuses anything else)
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
#: path segment names (RBAC Roles and bindings: ``system:masters``...): not ``.``/``..``, no ``/`` nor ``%``
#: (same page, "Path segment names"); a URL (which could carry a password) is never one
_SEGMENT = re.compile(r"(?!\.\.?$)[^/%]+")
#: a line that starts a YAML document (``---`` alone or followed by a space), YAML 1.2 §9.1
_DOC_START = re.compile(r"^---(?=[ \t]|\r?$)", re.M)


class Bad(Exception):
    """A field of the wrong type: ``path`` (relative to the object) and ``reason`` (never the value)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path, self.reason = path, reason


@dataclass(frozen=True)
class Reader:
    """Reads fields of the object at ``prefix`` of a document whose YAML paths have the lines ``lines``.

    ``notes``: fields left out while the object is kept (:meth:`note`), as :class:`Bad` with the document's path;
    the parser turns each into a problem naming file, place and line."""

    lines: dict[str, int]
    prefix: str = ""
    notes: list[Bad] = field(default_factory=list, compare=False, repr=False)

    def note(self, path: str, reason: str) -> None:
        """Record a field of ``path`` that could not be read (the object is kept; ``reason`` never the value)."""
        self.notes.append(Bad(self.full(path), reason))

    def full(self, path: str) -> str:
        """``path`` below the object, as a path of the document."""
        return ".".join(p for p in (self.prefix, path) if p).replace(".[", "[")

    def line(self, path: str) -> int | None:
        """The line of ``path`` (or of its nearest written ancestor)."""
        return line_of(self.lines, self.full(path))

    def mapping(self, value: Any, path: str) -> dict[str, Any]:
        """``value`` when it is a mapping, ``{}`` when absent; else :class:`Bad`."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise Bad(path, f"expected a mapping, found a {type_name(value)}")
        return value

    def seq(self, value: Any, path: str) -> list[Any]:
        """``value`` when it is a sequence, ``[]`` when absent; else :class:`Bad`."""
        if value is None:
            return []
        if not isinstance(value, list):
            raise Bad(path, f"expected a sequence, found a {type_name(value)}")
        return value

    def text(self, value: Any, path: str) -> str | None:
        """A string field: None when absent, empty or a placeholder; numbers are read as text; else :class:`Bad`."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise Bad(path, f"expected a string, found a {type_name(value)}")
        text = str(value).strip()
        return None if not text or "${" in text else text

    def plain(self, value: Any, path: str) -> str | None:
        """Free text that becomes part of a node id (a runner group): :meth:`text`, else :class:`Bad` when it
        holds URL credentials (``user:password@``, :func:`graphkit.redact.strip_url_credentials`; never quoted)."""
        text = self.text(value, path)
        if text is not None and strip_url_credentials(text).fingerprint is not None:
            raise Bad(path, "holds URL credentials (user:password@): not a name")
        return text

    def name(self, value: Any, path: str) -> str | None:
        """An object name (a DNS-1123 subdomain): :meth:`text`, else :class:`Bad`."""
        return _checked(self, value, path, _SUBDOMAIN, "name")

    def segment(self, value: Any, path: str) -> str | None:
        """An RBAC object name (a path segment name): :meth:`text`, else :class:`Bad`."""
        return _checked(self, value, path, _SEGMENT, "RBAC name", "no '/' or '%'")

    def namespace(self, value: Any, path: str) -> str | None:
        """A namespace (a DNS-1123 label): :meth:`text`, else :class:`Bad`."""
        return _checked(self, value, path, _LABEL, "namespace")


def _checked(r: "Reader", value: Any, path: str, pattern: re.Pattern[str], what: str,
             hint: str = "lower-case letters, digits, '-' and '.'") -> str | None:
    text = r.text(value, path)
    if text is not None and not pattern.fullmatch(text):
        raise Bad(path, f"not a valid Kubernetes {what} ({hint})")
    return text


def split_documents(text: str) -> list[tuple[int, int, str]]:
    """The documents of a YAML stream as ``(index, line_offset, text)``: the document's index in the stream, as
    a YAML loader numbers them (PyYAML's ``load_all``, ``kubectl``: every ``---`` starts a document, an empty one
    included; text before the first ``---`` is a document when it holds more than comments,
    https://yaml.org/spec/1.2.2/#91-documents), the lines of the stream before the document (pass it to
    :func:`ingest._yaml.load_yaml` so that line numbers are those of the stream) and the document's own text.
    Empty documents are left out of the list (they hold no object) but keep their number.  Each character of
    ``text`` is in at most one document.  Linear in the size of ``text``.

    >>> split_documents("a: 1\\n---\\n---\\nb: 2\\n")
    [(0, 0, 'a: 1\\n'), (2, 2, '---\\nb: 2\\n')]
    """
    bounds = sorted({0, *(m.start() for m in _DOC_START.finditer(text))})
    out = []
    offset = index = 0
    for i, start in enumerate(bounds):
        end = bounds[i + 1] if i + 1 < len(bounds) else len(text)
        chunk = text[start:end]
        body = [ln.strip() for ln in chunk.splitlines()]
        marked = _DOC_START.match(chunk) is not None  # starts with "---": a document, even an empty one
        if any(ln and not ln.startswith("#") and not _DOC_START.match(ln) for ln in body):
            out.append((index, offset, chunk))
            index += 1
        elif marked:
            index += 1
        offset += chunk.count("\n")
    return out
