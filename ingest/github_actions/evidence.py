"""Evidence for one parsed file: file, repository, YAML path, line, and a short detail."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphkit.model import Evidence
from graphkit.redact import redact_text
from ingest._credentials import SCRUB_MIN, literal_credentials, scrub
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
