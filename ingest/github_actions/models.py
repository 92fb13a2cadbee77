"""What :mod:`.parse` produces: pydantic models of workflow and action files, and how YAML values read as text.

Values under ``with:``/``env:``/``runs-on``/``strategy.matrix`` are kept as
PyYAML built them (strings, numbers, booleans, lists, mappings); the builder
evaluates them (:mod:`.expressions`).  :func:`scalar_text` is how GitHub turns
a YAML scalar into text, :func:`jsonable` makes any value JSON-compatible.
"""

from __future__ import annotations

import math
import posixpath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphkit.errors import InputError
from graphkit.model import LiteralCredential, Trigger

__all__ = ["ActionFile", "JobDef", "Step", "WorkflowFile", "jsonable", "scalar_text"]


class Step(BaseModel):
    """One step of a job or of a composite action.

    ``path`` is its YAML path (``jobs.build.steps[2]`` / ``runs.steps[0]``);
    ``with_args``, ``env`` keep values as PyYAML built them.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int
    path: str
    id: str | None = None
    name: str | None = None
    uses: str | None = None
    run: str | None = None
    with_args: dict[str, Any] = Field(default_factory=dict)
    env: dict[str, Any] = Field(default_factory=dict)
    condition: str | None = None


class JobDef(BaseModel):
    """A job as written.

    ``permissions``: the normalised block (scope -> read|write|none, every
    documented scope present) or ``None`` when the job has none.
    ``secrets``: ``"inherit"``, a mapping (reusable call) or ``None``.
    ``raw``: the job mapping, scanned for secret references.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str | None = None
    runs_on: Any = None
    matrix: Any = None
    permissions: dict[str, str] | None = None
    environment: Any = None
    uses: str | None = None
    with_args: dict[str, Any] = Field(default_factory=dict)
    secrets: Any = None
    env: dict[str, Any] = Field(default_factory=dict)
    steps: list[Step] = Field(default_factory=list)
    raw: dict[str, Any] = Field(default_factory=dict)


class WorkflowFile(BaseModel):
    """A parsed workflow file.

    ``triggers``: event -> filter mapping (``{}`` when none), the YAML 1.1
    ``on: True`` key already handled.  ``call_inputs``: ``workflow_call``
    input name -> default (``None`` without default); ``required_inputs`` and
    ``call_secrets`` what a caller must pass.  ``lines``: YAML path ->
    1-based line.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    repository: str
    file: str
    name: str | None = None
    triggers: dict[str, Any] = Field(default_factory=dict)
    #: the same events typed, with filters and evidence (:mod:`.triggers`)
    events: tuple[Trigger, ...] = ()
    permissions: dict[str, str] | None = None
    env: dict[str, Any] = Field(default_factory=dict)
    jobs: dict[str, JobDef] = Field(default_factory=dict)
    call_inputs: dict[str, Any] = Field(default_factory=dict)
    #: ``workflow_call`` inputs a caller must pass (``required: true``, no default)
    required_inputs: tuple[str, ...] = ()
    #: ``workflow_call`` secret name as declared -> ``required``
    call_secrets: dict[str, bool] = Field(default_factory=dict)
    lines: dict[str, int] = Field(default_factory=dict)
    #: what was skipped while parsing (a job, a step, ``steps``) or left unresolved (``runs-on``)
    problems: tuple[InputError, ...] = ()
    #: credentials written literally in the file (:func:`graphkit.redact.find_credentials`; values not kept)
    literal_credentials: tuple[LiteralCredential, ...] = ()
    #: their values, only while building: scrubbed from every node and edge (never dumped or shown)
    literal_values: frozenset[str] = Field(default=frozenset(), exclude=True, repr=False)

    @property
    def reusable(self) -> bool:
        """True when the workflow can be called (``on: workflow_call``)."""
        return "workflow_call" in self.triggers


class ActionFile(BaseModel):
    """A parsed local action (``action.yml``); only composite actions have ``steps``."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    repository: str
    file: str
    name: str | None = None
    using: str | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    steps: list[Step] = Field(default_factory=list)
    lines: dict[str, int] = Field(default_factory=dict)
    #: malformed steps skipped while parsing
    problems: tuple[InputError, ...] = ()
    #: credentials written literally in the file (:func:`graphkit.redact.find_credentials`; values not kept)
    literal_credentials: tuple[LiteralCredential, ...] = ()
    #: their values, only while building: scrubbed from every node and edge (never dumped or shown)
    literal_values: frozenset[str] = Field(default=frozenset(), exclude=True, repr=False)

    @property
    def directory(self) -> str:
        """Folder of the action inside its repository (``""`` for the root)."""
        return posixpath.dirname(self.file)


def scalar_text(value: Any) -> str:
    """A YAML scalar as GitHub sees it as text.

    GitHub reads a plain scalar that looks like a number as a number, and a number used as text is written
    back with at most 15 significant digits: ``3.10`` is ``3.1`` (https://github.com/actions/runner/issues/1989,
    "Python 3.10 is taken as Python 3.1"; the runner's ``NumberToken`` formats with ``G15``).

    >>> scalar_text(True), scalar_text(None), scalar_text(3), scalar_text(3.10), scalar_text(16.0)
    ('true', '', '3', '3.1', '16')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return "NaN" if math.isnan(value) else ("-Infinity" if value < 0 else "Infinity")
        return format(value, ".15g").replace("e", "E")
    return "" if value is None else str(value)


def jsonable(value: Any) -> Any:
    """``value`` with mapping keys as text and non-JSON scalars (dates...) as ``str``.

    >>> jsonable({1: [None, True]})
    {'1': [None, True]}
    """
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
