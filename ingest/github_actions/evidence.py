"""Evidence for one parsed file: file, repository, YAML path, line, and a short detail."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphkit.model import Evidence, LiteralCredential
from graphkit.redact import find_credentials, redact_text
from ingest._yaml import line_of

__all__ = ["DETAIL_MAX", "Src", "literal_credentials"]

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


def literal_credentials(text: str, file: str, repository: str, lines: Mapping[str, int]) -> tuple[LiteralCredential, ...]:
    """Credentials written literally in a workflow or action file's ``text`` (run scripts, ``env``, ``with``...),
    each at its line and the deepest YAML path starting on or before it; the values are not kept.

    >>> [(c.kind, c.evidence.line, c.evidence.yaml_path) for c in literal_credentials(
    ...     "env:\\n  T: ghp_" + "A1b2" * 9 + "\\n", "ci.yml", "acme/app", {"": 1, "env": 1, "env.T": 2})]
    [('GitHub Token', 2, 'env.T')]
    """
    found = find_credentials(text)
    if not found:
        return ()
    by_line = sorted((ln, len(p), p) for p, ln in lines.items())
    out = []
    for m in found:
        before = [p for ln, _, p in by_line if ln <= m.line]
        out.append(LiteralCredential(kind=m.kind, fingerprint=m.fingerprint, evidence=Evidence(
            file=file, repository=repository, line=m.line, yaml_path=(before[-1] if before else None) or None)))
    return tuple(out)
