"""Evidence for one parsed file: file, repository, YAML path, line, and a short detail."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graphkit import limits
from graphkit.model import Evidence
from graphkit.redact import mark_tokens, redact_text
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
        """:meth:`ev` without the memo: a new evidence object (``detail`` already shortened).

        Made without pydantic's validation when its values are what validation keeps as they are (issue 19):
        strings, an int line (or None), a detail within ``max_attribute_chars`` (the one check
        :class:`~graphkit.model.Evidence` makes); else through ``Evidence``, which validates (or raises)."""
        yaml_path, line, detail = path or None, line_of(self.lines, path), detail or None
        file, repository = self.file, self.repository
        if (type(file) is str and (repository is None or type(repository) is str)
                and (yaml_path is None or type(yaml_path) is str) and (line is None or type(line) is int)
                and (detail is None or (type(detail) is str
                                        and len(detail) <= limits.latest().max_attribute_chars))
                and all(s is None or mark_tokens(s, True) is s for s in (file, repository, yaml_path, detail))):
            e = _new(Evidence)
            _setattr(e, "__dict__", {"file": file, "repository": repository, "yaml_path": yaml_path, "line": line,
                                     "detail": detail})
            _setattr(e, "__pydantic_fields_set__", set(_EVIDENCE_FIELDS))
            _setattr(e, "__pydantic_extra__", None)
            _setattr(e, "__pydantic_private__", None)
            return e
        return Evidence(file=file, repository=repository, yaml_path=yaml_path, line=line, detail=detail)


_new = object.__new__
_setattr = object.__setattr__
_EVIDENCE_FIELDS = ("file", "repository", "yaml_path", "line", "detail")


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
