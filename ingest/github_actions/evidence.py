"""Evidence for one parsed file: file, repository, YAML path, line, and a short detail."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphkit.graph import GraphBuilder
from graphkit.model import Evidence, LiteralCredential, Workflow
from graphkit.redact import REDACTED, find_credentials, redact_text
from ingest._yaml import line_of

__all__ = ["DETAIL_MAX", "SCRUB_MIN", "Src", "literal_credentials", "scrub"]

#: Longest ``Evidence.detail`` kept (whitespace collapsed, cut with an ellipsis).
DETAIL_MAX = 160


@dataclass(frozen=True)
class Src:
    """Evidence factory for one file (a workflow or an ``action.yml``) of ``repository``."""

    file: str
    repository: str
    lines: Mapping[str, int]

    def ev(self, path: str, detail: Any = None) -> Evidence:
        """Evidence at YAML ``path`` (line: of the path or its nearest ancestor), with ``detail`` shortened.

        >>> Src("ci.yml", "acme/app", {"": 1, "jobs": 2}).ev("jobs.a", "x  y")
        Evidence(file='ci.yml', repository='acme/app', yaml_path='jobs.a', line=2, detail='x y')
        """
        if detail is not None:  # a detail never copies a credential written in the file
            detail = " ".join(redact_text(str(detail)).split())
            detail = detail if len(detail) <= DETAIL_MAX else detail[:DETAIL_MAX - 1] + "…"
        return Evidence(file=self.file, repository=self.repository, yaml_path=path or None,
                        line=line_of(self.lines, path), detail=detail or None)


def literal_credentials(text: str, file: str, repository: str,
                        lines: Mapping[str, int]) -> tuple[tuple[LiteralCredential, ...], frozenset[str]]:
    """Credentials written literally in a workflow or action file's ``text`` (run scripts, ``env``, ``with``...),
    each at its line and the deepest YAML path starting on or before it, and their values (for :func:`scrub`
    only: never stored).

    >>> [(c.kind, c.evidence.line, c.evidence.yaml_path) for c in literal_credentials(
    ...     "env:\\n  T: ghp_" + "A1b2" * 9 + "\\n", "ci.yml", "acme/app", {"": 1, "env": 1, "env.T": 2})[0]]
    [('GitHub Token', 2, 'env.T')]
    """
    found = find_credentials(text)
    if not found:
        return (), frozenset()
    by_line = sorted((ln, len(p), p) for p, ln in lines.items())
    out = []
    for m in found:
        before = [p for ln, _, p in by_line if ln <= m.line]
        out.append(LiteralCredential(kind=m.kind, fingerprint=m.fingerprint, evidence=Evidence(
            file=file, repository=repository, line=m.line, yaml_path=(before[-1] if before else None) or None)))
    return tuple(out), frozenset(text[m.start:m.end] for m in found)


#: Shortest value :func:`scrub` replaces (shorter ones would hit ordinary text).
SCRUB_MIN = 6


def scrub(out: GraphBuilder, values: Iterable[str]) -> GraphBuilder:
    """``out`` with every occurrence of ``values`` (literal credentials of the files; also lower-cased, as ids
    lower-case some names) in any node or edge field replaced by :data:`graphkit.redact.REDACTED`: a matrix
    value, an input default or an environment URL that holds one is never stored.  ``out`` itself when no node
    or edge holds one.

    >>> b = GraphBuilder(); _ = b.node(Workflow(id="workflow:a/b/w.yml", name="x-SECRET123", repository="a/b", path="w.yml"))
    >>> [n.name for n in scrub(b, {"SECRET123"}).nodes.values()]
    ['x-***']
    """
    vals = sorted({v for s in values if len(s) >= SCRUB_MIN for v in (s, s.lower())}, key=len, reverse=True)
    if not vals:
        return out
    rx = re.compile("|".join(map(re.escape, vals)))
    dirty = [n for n in out.nodes.values() if rx.search(n.model_dump_json(exclude_unset=True))]
    dirty_edges = [e for e in out.edges.values() if rx.search(e.model_dump_json(exclude_unset=True))]
    if not dirty and not dirty_edges:
        return out
    fresh = GraphBuilder()
    for n in out.nodes.values():
        text = n.model_dump_json(exclude_unset=True)
        fresh.node(type(n).model_validate_json(rx.sub(REDACTED, text)) if rx.search(text) else n)
    for e in out.edges.values():
        text = e.model_dump_json(exclude_unset=True)
        fresh.add_edge(type(e).model_validate_json(rx.sub(REDACTED, text)) if rx.search(text) else e)
    return fresh
