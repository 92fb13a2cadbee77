"""Evidence for one parsed file: file, repository, YAML path, line, and a short detail."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
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
    #: ``(path, detail) -> evidence`` made by :meth:`ev` (a place is named by several edges and nodes: its evidence,
    #: frozen, is made once; issue 19)
    _made: dict[tuple[str, Any], Evidence] = field(default_factory=dict, compare=False, repr=False)

    def ev(self, path: str, detail: Any = None) -> Evidence:
        """Evidence at YAML ``path`` (line: of the path or its nearest ancestor), with ``detail`` shortened.
        The same object for the same ``path`` and ``detail`` (evidence is frozen).

        >>> Src("ci.yml", "acme/app", {"": 1, "jobs": 2}).ev("jobs.a", "x  y")
        Evidence(file='ci.yml', repository='acme/app', yaml_path='jobs.a', line=2, detail='x y')
        """
        if detail is not None:  # a detail never copies a credential written in the file
            detail = shown_detail(str(detail))
        key = (path, detail)
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = self._evidence(path, detail)
        return made

    def _evidence(self, path: str, detail: str | None) -> Evidence:
        """:meth:`ev` without the memo: a new evidence object (``detail`` already shortened)."""
        return Evidence(file=self.file, repository=self.repository, yaml_path=path or None,
                        line=line_of(self.lines, path), detail=detail or None)


def shown_detail(text: str) -> str:
    """``text`` as an evidence detail: credentials redacted (:func:`graphkit.redact.redact_text`), whitespace
    collapsed, at most :data:`DETAIL_MAX` characters.  Remembered for the ingest in progress (details repeat:
    the same ``uses``, step names and commands in many files; 484 distinct of 9,723 in a synthetic org), until
    :func:`forget_details` (the ingestor's ``to_graph`` calls it: no text read from a file outlives the ingest)."""
    shown = _DETAILS.get(text)
    if shown is None:
        shown = " ".join(redact_text(text).split())
        shown = shown if len(shown) <= DETAIL_MAX else shown[:DETAIL_MAX - 1] + "…"
        if len(_DETAILS) >= _DETAILS_MAX:
            _DETAILS.clear()
        _DETAILS[text] = shown
    return shown


def forget_details() -> None:
    """Forget the details :func:`shown_detail` remembered."""
    _DETAILS.clear()


#: raw detail -> shown detail, for the ingest in progress
_DETAILS: dict[str, str] = {}
_DETAILS_MAX = 65_536
