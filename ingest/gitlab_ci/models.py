"""What parsing one GitLab CI/CD configuration file produces (pure data; no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from graphkit.errors import InputError
from graphkit.model import Evidence, LiteralCredential
from ingest._yaml import line_of

__all__ = ["Reference", "Include", "CIFile", "Project"]


@dataclass(frozen=True)
class Reference:
    """A ``!reference [.job, key, ...]`` tag as loaded (resolved after includes are merged;
    https://docs.gitlab.com/ci/yaml/yaml_optimization/#reference-tags).  ``line``: where it is written."""

    path: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Project:
    """A GitLab project checkout: ``path`` (``GROUP/SUBGROUP/PROJECT`` as written), the instance URL its ID
    tokens name as ``iss`` (``https://gitlab.com`` unless the checkout says otherwise) and the root
    configuration file of its pipeline (``.gitlab-ci.yml``).  ``known``: the path is the project's (named by the
    folder ``GROUP__PROJECT``, a ``PROJECT=DIR`` argument or the ``origin`` remote), False for the stand-in
    ``local/NAME``."""

    path: str
    instance: str = "https://gitlab.com"
    config_file: str = ".gitlab-ci.yml"
    known: bool = field(default=True, compare=False)


@dataclass(frozen=True)
class Include:
    """One ``include:`` entry (https://docs.gitlab.com/ci/yaml/#include).

    ``kind``: ``local`` (resolved within the checkout), or ``project``, ``remote``, ``template``,
    ``component``, ``artifact`` (a dynamic child pipeline's generated file; recorded, never fetched).  ``target``: the path, URL, template or component as written
    (``project`` entries: ``group/project:file@ref``).  ``conditional``: the entry has ``rules:`` (what it
    adds is then ``possible``).
    """

    kind: Literal["local", "project", "remote", "template", "component", "artifact"]
    target: str
    conditional: bool
    evidence: Evidence
    #: ``include: inputs:`` given to the included file (https://docs.gitlab.com/ci/yaml/#includeinputs); None: none
    inputs: dict[str, Any] | None = None


@dataclass
class CIFile:
    """One configuration file: ``data`` (the document, ``!reference`` tags as :class:`Reference`, ``include``
    removed), ``lines`` (YAML path -> line), ``includes`` in order, ``problems`` (places left out)."""

    file: str
    project: Project
    data: dict[str, Any]
    lines: dict[str, int]
    includes: list[Include] = field(default_factory=list)
    #: ``trigger: include:`` of its jobs: the configurations of child pipelines (https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#parent-child-pipelines)
    children: list[Include] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    #: where the file was read (problems name it); evidence names ``file``
    location: str = ""
    #: the ``spec: inputs:`` of its header: input name -> default (None: no default;
    #: https://docs.gitlab.com/ci/yaml/inputs/)
    spec_inputs: dict[str, Any] = field(default_factory=dict)
    #: credentials written in the file (:func:`ingest._credentials.literal_credentials`; kind, place, fingerprint)
    literal_credentials: tuple[LiteralCredential, ...] = ()
    #: their values, for :func:`ingest._credentials.scrub` only: never stored
    literal_values: frozenset[str] = frozenset()

    def evidence(self, path: str, detail: str | None = None) -> Evidence:
        """Evidence of ``path`` in this file (line of the path or its nearest ancestor)."""
        return Evidence(file=self.file, repository=self.project.path, yaml_path=path or None,
                        line=line_of(self.lines, path), detail=detail)
