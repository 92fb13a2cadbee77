"""GitHub Actions checkouts -> graphkit nodes and edges.

Three parts (``shared/docs/style.md``):

``collect`` (:func:`find_checkouts`, :func:`checkout_files`, :class:`GitHubActionsIngestor`)
    The only I/O: find checkouts and their workflow/action files, read text.
``parse`` (:func:`parse_workflow`, :func:`parse_action`) -- **pure, no I/O**
    YAML text -> :class:`WorkflowFile` / :class:`ActionFile` pydantic models,
    with a line for every YAML path.  Raises :class:`~graphkit.errors.InputError`
    ``(file, place, reason)``.
``to_graph`` (:func:`to_graph`) -- **pure, no I/O**
    Models -> :class:`~graphkit.model.Node` / :class:`~graphkit.model.Edge`
    objects: matrix expansion, permission arithmetic, reusable workflow and
    composite action instantiation, and the step rules (cloud auth, signing,
    deploy/publish, caches).

What is *not* produced here: Secret nodes and runner links.  The resolver
(:mod:`graphkit.resolve`) makes them from ``Job.secret_refs``,
``Job.all_secrets``, ``Job.secret_grants`` and ``Job.runs_on``.

Conventions (see also :data:`graphkit.model.NODE_ID_FORMATS`)
-------------------------------------------------------------
- Only ``<checkout>/.github/workflows/*.yml|yaml`` are workflows: GitHub reads
  no other place (not sub-folders, not nested ``examples/**/.github``).
- Repository names: ``owner/name=PATH`` as given, else an ``owner__name``
  folder, else the ``origin`` remote of ``.git/config``, else
  ``local/<folder>`` (a real checkout with no owner information: its nodes are
  ``org:local`` and ``repo:local/<folder>``).  A path holding no
  ``.github/workflows/*.yml|yaml`` and no ``action.yml`` is a problem naming it,
  never a ``local/...`` repository.
- Robustness: a malformed workflow is one problem and never stops the others;
  inside a workflow, a malformed job is skipped (problem: file, YAML path,
  line), a malformed step is skipped, a malformed ``steps`` drops the steps,
  and a ``runs-on`` that is not label text keeps the job with
  ``runs_on_unresolved`` (and a problem).  Problems of a parsed file are in
  ``WorkflowFile.problems`` / ``ActionFile.problems``; :func:`to_graph`
  reports them.
- A cloud role named by an expression that cannot be evaluated statically gets
  ``pattern=True`` and an identifier keeping the literal parts with ``*`` for
  each expression (``arn:aws:iam::*:role/deploy``); when *nothing* is literal
  the identifier is ``expr:{owner}/{repo}:{expression}`` (e.g.
  ``expr:acme/app:secrets.AWS_ROLE``): the role that expression names in that
  repository.  A role known only through static keys is
  ``key:{owner}/{repo}:{SECRET}`` (the principal owning that access key).
- Key-based signing keys are ``signing_key:{cosign|gpg}:{owner}/{repo}:{SECRET}``
  (named by the secret holding them, in the repository whose secrets are
  read); keyless sigstore identities are
  ``signing_key:sigstore:github.com/{owner}/{repo}/{workflow path}`` (the
  certificate identity: the workflow *defining* the job, i.e. the called
  workflow for reusable workflows).
- Deployment targets: ``target:environment:{owner}/{repo}:{env}`` (all lower-case:
  GitHub environment names are case-insensitive),
  ``target:package_index:pypi|testpypi|npm|{url}``, ``target:registry:{host}``,
  ``target:bucket:s3://{bucket}|gs://{bucket}``, ``target:function:{name}``,
  ``target:cluster:{owner}/{repo}:{context or 'default'}``.
"""

from __future__ import annotations

import configparser
import itertools
import json
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from graphkit.errors import InputError
from graphkit.model import (Cache, CloudRole, Confidence, Criticality, DeploymentTarget, EdgeKind, Evidence,
                            GitHubToken, Job, OIDCIdentity, Organization, Repository, RunsOnCandidate,
                            SecretGrant, SecretRef, SigningKey, Workflow, repo_key, secret_key)
from graphkit.graph import GraphBuilder
from graphkit.ingestor import Collected, FileIngestor, IngestResult, InputFile, InputOption
from ingest._yaml import join_path, line_of, load_yaml

__all__ = [
    "Step", "JobDef", "WorkflowFile", "ActionFile", "Checkout",
    "parse_workflow", "parse_action", "to_graph",
    "expand_matrix", "runs_on_candidates", "parse_permissions", "effective_permissions", "is_production",
    "Val", "EvalContext", "evaluate", "resolve", "scan_secrets", "run_outputs", "substitute_inputs",
    "find_checkouts", "checkout_files", "GitHubActionsIngestor", "INGESTOR",
    "PERMISSION_SCOPES", "MAX_WORKFLOW_LEVELS",
]

#: GITHUB_TOKEN scopes that ``read-all`` / ``write-all`` / a partial block expand over.
#: Source: https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/controlling-permissions-for-github_token
PERMISSION_SCOPES: tuple[str, ...] = (
    "actions", "attestations", "checks", "contents", "deployments", "discussions", "id-token", "issues",
    "packages", "pages", "pull-requests", "repository-projects", "security-events", "statuses", "models",
)
#: Scopes that only accept ``read``/``none`` (``write-all`` grants ``read``).
_READ_ONLY_SCOPES = frozenset({"models"})
#: Scopes whose ``write`` is not a write to the repository.
_NON_REPO_WRITE_SCOPES = frozenset({"id-token", "models"})
_LEVEL = {"none": 0, "read": 1, "write": 2}

#: Levels of workflows (top-level caller included) GitHub connects.  (dated) github.com
#: allows ten since 2025; GHES four.  https://docs.github.com/en/actions/how-tos/reuse-automations/reuse-workflows#nesting-reusable-workflows
MAX_WORKFLOW_LEVELS = 10
#: Nested composite actions per workflow (same page: "up to 10 composite actions").
MAX_COMPOSITE_DEPTH = 10
#: Matrix combinations beyond this are treated as not statically resolvable.
_MAX_COMBINATIONS = 4096
_DETAIL_MAX = 160

# ============================================================================ parse (pure)


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
    input name -> default (``None`` without default).  ``lines``: YAML path ->
    1-based line.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    repository: str
    file: str
    name: str | None = None
    triggers: dict[str, Any] = Field(default_factory=dict)
    permissions: dict[str, str] | None = None
    env: dict[str, Any] = Field(default_factory=dict)
    jobs: dict[str, JobDef] = Field(default_factory=dict)
    call_inputs: dict[str, Any] = Field(default_factory=dict)
    lines: dict[str, int] = Field(default_factory=dict)
    #: what was skipped while parsing (a job, a step, ``steps``) or left unresolved (``runs-on``)
    problems: tuple[InputError, ...] = ()

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

    @property
    def directory(self) -> str:
        """Folder of the action inside its repository (``""`` for the root)."""
        return posixpath.dirname(self.file)


def _type_name(value: Any) -> str:
    return "null" if value is None else {dict: "mapping", list: "sequence", str: "string"}.get(type(value),
                                                                                              type(value).__name__)


def _mapping(value: Any, file: str, path: str, *, optional: bool = True) -> dict[str, Any]:
    if value is None and optional:
        return {}
    if not isinstance(value, dict):
        raise InputError(file, path, f"expected a mapping, got {_type_name(value)}")
    return {str(k): v for k, v in value.items()}


def _opt_str(value: Any, file: str, path: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        raise InputError(file, path, f"expected a scalar, got {_type_name(value)}")
    return _scalar_text(value)


def _scalar_text(value: Any) -> str:
    """A YAML scalar as GitHub sees it (``True`` -> ``true``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def parse_permissions(raw: Any, *, file: str, path: str) -> dict[str, str]:
    """Normalise a ``permissions`` block.

    Naming any scope sets the others to ``none``; ``read-all``/``write-all``
    expand over :data:`PERMISSION_SCOPES` (``models`` is read-only);
    ``{}`` is all ``none``.  Unknown scope names are kept as written.

    Returns
    -------
    dict
        scope -> ``read`` | ``write`` | ``none``, every documented scope present.

    Raises
    ------
    InputError
        on an invalid value.

    Examples
    --------
    >>> p = parse_permissions({"contents": "read"}, file="w.yml", path="permissions")
    >>> p["contents"], p["id-token"], len(p)
    ('read', 'none', 15)
    """
    base = dict.fromkeys(PERMISSION_SCOPES, "none")
    if raw in ("read-all", "write-all"):
        level = raw.split("-")[0]
        return {s: ("read" if s in _READ_ONLY_SCOPES else level) for s in base}
    if isinstance(raw, dict):
        for scope, level in raw.items():
            if level not in _LEVEL:
                raise InputError(file, join_path(path, str(scope)), f"invalid permission level {level!r}")
            base[str(scope)] = level
        return base
    raise InputError(file, path, f"permissions must be read-all, write-all or a mapping, got {raw!r}")


def _triggers(raw: Any, file: str) -> dict[str, Any]:
    if isinstance(raw, str):
        return {raw: {}}
    if isinstance(raw, list) and all(isinstance(e, str) for e in raw):
        return {e: {} for e in raw}
    if isinstance(raw, dict):
        return {str(k): (_jsonable(v) if v is not None else {}) for k, v in raw.items()}
    raise InputError(file, "on", f"expected an event name, a list or a mapping, got {_type_name(raw)}")


def _with_line(exc: InputError, lines: Mapping[str, int]) -> InputError:
    """``exc`` with `` (line N)`` appended: the line of its YAML path, else of its nearest present ancestor.

    Places that are already lines/bytes, the top level and paths with no
    present ancestor (a missing top-level key) are left as they are.
    """
    path = exc.place
    if not path or path.startswith(("line ", "byte ")) or re.search(r"\(line \d+\)$", exc.reason):
        return exc
    while path and path not in lines:
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    if not path:
        return exc
    return InputError(exc.file, exc.place, f"{exc.reason} (line {lines[path]})")


def _skipped(exc: InputError, what: str) -> InputError:
    return InputError(exc.file, exc.place, f"{exc.reason}; {what}")


def _steps(raw: Any, file: str, path: str, problems: list[InputError]) -> list[Step]:
    """The well-formed steps; a malformed ``steps`` or step is a problem and is skipped."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(InputError(file, path, f"steps must be a sequence, got {_type_name(raw)}; steps skipped"))
        return []
    out = []
    for i, s in enumerate(raw):
        sp = join_path(path, i)
        try:
            s = _mapping(s, file, sp, optional=False)
            out.append(Step(index=i, path=sp, id=_opt_str(s.get("id"), file, sp + ".id"),
                            name=_opt_str(s.get("name"), file, sp + ".name"),
                            uses=_opt_str(s.get("uses"), file, sp + ".uses"),
                            run=_opt_str(s.get("run"), file, sp + ".run"),
                            with_args=_mapping(s.get("with"), file, sp + ".with"),
                            env=_mapping(s.get("env"), file, sp + ".env") if not isinstance(s.get("env"), str) else {},
                            condition=_opt_str(s.get("if"), file, sp + ".if")))
        except InputError as exc:
            problems.append(_skipped(exc, "step skipped"))
    return out


def _runs_on_problems(value: Any, file: str, path: str) -> list[InputError]:
    """``runs-on`` values that are not label text (``42``, ``[self-hosted, true]``): GitHub wants strings."""
    if value is None or isinstance(value, str):
        return []
    if isinstance(value, list):
        return [InputError(file, join_path(path, i), f"runner label must be a string, got {_type_name(v)} "
                           f"{json.dumps(_jsonable(v))}; runs-on left unresolved")
                for i, v in enumerate(value) if not isinstance(v, str)]
    if isinstance(value, dict):
        labels = value.get("labels")
        return [] if labels is None else _runs_on_problems(labels, file, path + ".labels")
    return [InputError(file, path, f"expected a runner label, a list of labels or a mapping (group, labels), "
                       f"got {_type_name(value)} {json.dumps(_jsonable(value))}; runs-on left unresolved")]


def _job(key: str, raw: Any, file: str, problems: list[InputError]) -> JobDef:
    """One job; raises for a job that cannot be used, records problems for the parts skipped."""
    path = f"jobs.{key}"
    j = _mapping(raw, file, path, optional=False)
    strategy = j.get("strategy")
    matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
    secrets = j.get("secrets")
    if secrets is not None and secrets != "inherit" and not isinstance(secrets, dict):
        raise InputError(file, path + ".secrets", f"expected 'inherit' or a mapping, got {_type_name(secrets)}")
    perms = j.get("permissions")
    env = j.get("env")
    mine = _runs_on_problems(j.get("runs-on"), file, path + ".runs-on")  # kept: runs_on_candidates leaves it unresolved
    jd = JobDef(key=key, name=_opt_str(j.get("name"), file, path + ".name"), runs_on=j.get("runs-on"),
                matrix=matrix,
                permissions=None if perms is None else parse_permissions(perms, file=file, path=path + ".permissions"),
                environment=j.get("environment"), uses=_opt_str(j.get("uses"), file, path + ".uses"),
                with_args=_mapping(j.get("with"), file, path + ".with"), secrets=secrets,
                env=_mapping(env, file, path + ".env") if not isinstance(env, str) else {},
                steps=_steps(j.get("steps"), file, path + ".steps", mine), raw=j)
    problems.extend(mine)  # only once the job itself is usable
    return jd


def parse_workflow(text: str, *, file: str, repository: str) -> WorkflowFile:
    """Parse one workflow file (pure).

    Parameters
    ----------
    text
        the YAML text.
    file
        path relative to the checkout root (``.github/workflows/ci.yml``).
    repository
        ``owner/name`` as displayed.

    Returns
    -------
    WorkflowFile

    Raises
    ------
    InputError
        ``(file, place, reason)`` when the file cannot be used: invalid YAML
        (``line N``), a top level or ``jobs`` that is not a mapping, a
        malformed workflow-level ``name``/``env``/``permissions``, or no
        ``on`` key.  The reason ends with `` (line N)`` of the offending
        node when it is in the file.  A malformed *job* (skipped), step
        (skipped), ``steps`` (dropped) or non-text ``runs-on`` label (job
        kept, runs-on unresolved) is not raised: it is one entry of
        ``WorkflowFile.problems`` (YAML path, reason ending with the line).

    Examples
    --------
    >>> wf = parse_workflow("on: [push]\\njobs:\\n  a:\\n    runs-on: ubuntu-latest\\n",
    ...                     file=".github/workflows/ci.yml", repository="acme/app")
    >>> wf.triggers, list(wf.jobs), wf.lines["jobs.a.runs-on"]
    ({'push': {}}, ['a'], 4)
    """
    data, lines = load_yaml(text, file=file)
    try:
        return _workflow(data, lines, file, repository)
    except InputError as exc:
        raise _with_line(exc, lines) from None


def _workflow(data: Any, lines: dict[str, int], file: str, repository: str) -> WorkflowFile:
    doc = _mapping(data, file, "", optional=False) if data is not None else None
    if doc is None:
        raise InputError(file, "", "empty workflow")
    on = doc.get("on", doc.get("True"))  # YAML 1.1: the key `on` is read as True
    if on is None:
        raise InputError(file, "on", "no triggers (`on:` missing)")
    triggers = _triggers(on, file)
    jobs = _mapping(doc.get("jobs"), file, "jobs", optional=False)
    call = triggers.get("workflow_call")
    call_inputs: dict[str, Any] = {}
    if isinstance(call, dict) and isinstance(call.get("inputs"), dict):
        call_inputs = {str(k): (v.get("default") if isinstance(v, dict) else None) for k, v in call["inputs"].items()}
    perms = doc.get("permissions")
    problems: list[InputError] = []
    job_defs: dict[str, JobDef] = {}
    for k, v in jobs.items():
        try:
            job_defs[str(k)] = _job(str(k), v, file, problems)
        except InputError as exc:  # one bad job never costs the others
            problems.append(_skipped(exc, "job skipped"))
    return WorkflowFile(repository=repository, file=file, name=_opt_str(doc.get("name"), file, "name"),
                        triggers=triggers,
                        permissions=None if perms is None else parse_permissions(perms, file=file, path="permissions"),
                        env=_mapping(doc.get("env"), file, "env") if not isinstance(doc.get("env"), str) else {},
                        jobs=job_defs, call_inputs=call_inputs, lines=lines,
                        problems=tuple(_with_line(p, lines) for p in problems))


def parse_action(text: str, *, file: str, repository: str) -> ActionFile:
    """Parse one ``action.yml`` (pure).

    Raises
    ------
    InputError
        invalid YAML, or a top level / ``runs`` / ``inputs`` of the wrong
        shape (reason ending with the line).  A malformed ``runs.steps`` or
        step is skipped and recorded in ``ActionFile.problems``.
    """
    data, lines = load_yaml(text, file=file)
    try:
        doc = _mapping(data, file, "", optional=False)
        runs = _mapping(doc.get("runs"), file, "runs")
        inputs = _mapping(doc.get("inputs"), file, "inputs")
        using = _opt_str(runs.get("using"), file, "runs.using")
        problems: list[InputError] = []
        steps = _steps(runs.get("steps"), file, "runs.steps", problems) if using == "composite" else []
        return ActionFile(repository=repository, file=file, name=_opt_str(doc.get("name"), file, "name"),
                          using=using,
                          inputs={k: (v.get("default") if isinstance(v, dict) else None) for k, v in inputs.items()},
                          steps=steps, lines=lines, problems=tuple(_with_line(p, lines) for p in problems))
    except InputError as exc:
        raise _with_line(exc, lines) from None


# ============================================================================ expressions (pure)

_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_SECRETS_WORD = re.compile(r"(?<![\w.\-])secrets(?![\w\-])", re.I)
_AFTER_DOT = re.compile(r"\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)")
_AFTER_INDEX = re.compile(r"""\s*\[\s*(['"])([^'"]+)\1\s*\]""")
_TOKEN_NAMES = frozenset({"GITHUB_TOKEN"})


class Val(NamedTuple):
    """One candidate value of an expression: ``certain`` False when it depends on run-time facts."""

    value: Any
    certain: bool


def expressions(text: str, *, bare: bool = False) -> list[str]:
    """The ``${{ }}`` expressions in ``text`` (``bare``: an ``if:`` value may be a bare expression)."""
    found = [m.group(1).strip() for m in _EXPR.finditer(text)]
    return found if found or not bare else [text.strip()]


def scan_secrets(expr: str) -> tuple[list[str], bool]:
    """Secret names an expression reads, and whether it reads *every* secret.

    ``secrets.NAME`` and ``secrets['NAME']`` name one secret (``GITHUB_TOKEN``
    is the job's token, not a secret, and is skipped); ``toJSON(secrets)``,
    dynamic ``secrets[expr]`` or the bare context read all of them.

    Examples
    --------
    >>> scan_secrets("secrets.A || secrets['B'] || secrets.GITHUB_TOKEN")
    (['A', 'B'], False)
    >>> scan_secrets("toJSON(secrets)")
    ([], True)
    """
    names: list[str] = []
    everything = False
    for m in _SECRETS_WORD.finditer(expr):
        rest = expr[m.end():]
        dot = _AFTER_DOT.match(rest)
        idx = _AFTER_INDEX.match(rest)
        name = dot.group(1) if dot else idx.group(2) if idx else None
        if name is None:
            everything = True
        elif secret_key(name) not in _TOKEN_NAMES and name not in names:
            names.append(name)
    return names, everything


@dataclass
class EvalContext:
    """What :func:`evaluate` can look up.  ``None`` in a field means "not known here".

    ``matrix``: the matrix instance; ``inputs``: input name (lower-case) ->
    candidates or None (unknown); ``env``: literal env values;
    ``steps``: step id -> output name -> candidates (from run scripts).
    """

    matrix: dict[str, Any] | None = None
    inputs: dict[str, list[Val] | None] | None = None
    env: dict[str, Any] = field(default_factory=dict)
    steps: dict[str, dict[str, list[Val]]] = field(default_factory=dict)


def _split_top(expr: str, op: str) -> list[str]:
    parts, depth, quote, start, i = [], 0, False, 0, 0
    while i < len(expr):
        c = expr[i]
        if c == "'":
            quote = not quote
        elif not quote and c in "([":
            depth += 1
        elif not quote and c in ")]":
            depth -= 1
        elif not quote and depth == 0 and expr.startswith(op, i):
            parts.append(expr[start:i])
            i += len(op)
            start = i
            continue
        i += 1
    parts.append(expr[start:])
    return [p.strip() for p in parts]


def _wrapped(expr: str) -> bool:
    """True when the first ``(`` closes at the last character."""
    if not expr.startswith("("):
        return False
    depth, quote = 0, False
    for i, c in enumerate(expr):
        if c == "'":
            quote = not quote
        elif not quote and c == "(":
            depth += 1
        elif not quote and c == ")":
            depth -= 1
            if depth == 0:
                return i == len(expr) - 1
    return False


def _balanced(expr: str) -> bool:
    depth, quote = 0, False
    for c in expr:
        if c == "'":
            quote = not quote
        elif not quote:
            depth += (c == "(") - (c == ")")
            if depth < 0:
                return False
    return depth == 0


def _truthy(value: Any) -> bool:
    return value not in ("", None, False, 0, "false")


_CONTEXT_REF = re.compile(r"(matrix|inputs|env|steps)((?:\s*\.\s*[A-Za-z_][\w-]*)+)", re.I)


def _lookup(ctx: EvalContext, context: str, keys: list[str]) -> list[Val] | None:
    context = context.lower()
    if context == "matrix":
        if ctx.matrix is None:
            return None
        value: Any = ctx.matrix
        for k in keys:
            value = value.get(k) if isinstance(value, dict) else None
        return [Val("" if value is None else value, True)]
    if context == "inputs":
        if ctx.inputs is None or len(keys) != 1:
            return None
        return ctx.inputs.get(keys[0].lower())
    if context == "env":
        value = ctx.env.get(keys[0]) if len(keys) == 1 else None
        if value is None or (isinstance(value, str) and "${{" in value):
            return None
        return [Val(value, True)]
    if context == "steps" and len(keys) == 3 and keys[1] == "outputs":
        return ctx.steps.get(keys[0], {}).get(keys[2])
    return None


def _atom(term: str, ctx: EvalContext) -> list[Val] | None:
    term = term.strip()
    if _wrapped(term):
        return evaluate(term[1:-1], ctx)
    if re.fullmatch(r"'(?:[^']|'')*'", term):
        return [Val(term[1:-1].replace("''", "'"), True)]
    low = term.lower()
    if low in ("true", "false", "null"):
        return [Val({"true": True, "false": False, "null": None}[low], True)]
    if re.fullmatch(r"-?\d+(\.\d+)?", term):
        return [Val(json.loads(term), True)]
    for op in ("==", "!="):
        sides = _split_top(term, op)
        if len(sides) == 2:
            left, right = _atom(sides[0], ctx), _atom(sides[1], ctx)
            if not (left and right and len(left) == len(right) == 1 and left[0].certain and right[0].certain):
                return None
            a, b = (str(v[0].value).lower() if isinstance(v[0].value, str) else v[0].value for v in (left, right))
            return [Val((a == b) == (op == "=="), True)]
    m = _CONTEXT_REF.fullmatch(term)
    if m:
        return _lookup(ctx, m.group(1), [k.strip() for k in m.group(2).split(".")[1:]])
    m = re.fullmatch(r"fromjson\((.*)\)", term, re.I | re.S)
    if m and _balanced(m.group(1)):
        inner = evaluate(m.group(1), ctx)
        try:
            return None if inner is None else [Val(json.loads(v.value), v.certain) for v in inner]
        except (TypeError, ValueError):
            return None
    return None


def evaluate(expr: str, ctx: EvalContext) -> list[Val] | None:
    """Statically evaluate a GitHub expression, as far as literals and known contexts allow.

    Supports literals, ``matrix.*``, ``inputs.*``, ``env.*``,
    ``steps.<id>.outputs.*`` (from :class:`EvalContext`), ``fromJSON(...)``,
    parentheses, and ``a && b || c`` chains: an unknown *condition* makes the
    branches ``possible`` candidates, an unknown *value* makes the whole
    expression unknown.  Semantics: https://docs.github.com/en/actions/reference/workflows-and-actions/expressions

    Returns
    -------
    list of Val or None
        candidate values, or ``None`` when not statically resolvable.

    Examples
    --------
    >>> evaluate("github.ref == 'refs/heads/main' && 'big' || 'small'", EvalContext())
    [Val(value='big', certain=False), Val(value='small', certain=False)]
    >>> evaluate("matrix.os", EvalContext(matrix={"os": "linux"}))
    [Val(value='linux', certain=True)]
    """
    alts = _split_top(expr.strip(), "||")
    out: list[Val] = []
    conditional = False  # later alternatives are reached only under an unknown condition
    for n, alt in enumerate(alts):
        final = n == len(alts) - 1
        terms = _split_top(alt, "&&")
        unknown_cond = falsy = False
        for t in terms[:-1]:
            r = _atom(t, ctx)
            if r is None or len(r) != 1 or not r[0].certain:
                unknown_cond = True
            elif not _truthy(r[0].value):
                falsy = True
                if final:  # `a && b` is `a` when `a` is falsy, and so is the whole `||` chain
                    out.append(Val(r[0].value, not unknown_cond and not conditional))
                break
        if falsy:
            continue
        last = _atom(terms[-1], ctx)
        if last is None:
            return None
        for v in last:
            if final or _truthy(v.value):  # a falsy non-final alternative falls through to the next
                out.append(Val(v.value, v.certain and not unknown_cond and not conditional))
        certain = not unknown_cond and all(v.certain for v in last)
        if certain and all(_truthy(v.value) for v in last):
            break
        if not all(v.certain and not _truthy(v.value) for v in last):
            conditional = True  # a falsy alternative falls through whatever its condition was
    return out or None


def resolve(value: Any, ctx: EvalContext) -> tuple[list[Val], str | None]:
    """Resolve a YAML value that may hold ``${{ }}`` expressions.

    Returns
    -------
    tuple
        ``(candidates, None)`` when resolvable, else ``([], pattern)`` where
        ``pattern`` keeps the literal text and writes ``*`` for each expression
        that has no single certain value.
    """
    if not isinstance(value, str) or "${{" not in value:
        return [Val(value, True)], None
    matches = list(_EXPR.finditer(value))
    if len(matches) == 1 and matches[0].group(0) == value.strip():
        r = evaluate(matches[0].group(1), ctx)
        return (r, None) if r is not None else ([], "*")
    pieces: list[list[Val] | None] = []
    literal: list[str] = []
    pos = 0
    for m in matches:
        literal.append(value[pos:m.start()])
        pieces.append(evaluate(m.group(1), ctx))
        pos = m.end()
    literal.append(value[pos:])
    if any(p is None for p in pieces):
        pattern = literal[0]
        for p, lit in zip(pieces, literal[1:]):
            pattern += (_scalar_text(p[0].value) if p and len(p) == 1 and p[0].certain else "*") + lit
        return [], pattern
    out = []
    for combo in itertools.islice(itertools.product(*pieces), 64):  # type: ignore[arg-type]
        text = literal[0] + "".join(_scalar_text(v.value) + lit for v, lit in zip(combo, literal[1:]))
        out.append(Val(text, all(v.certain for v in combo)))
    return out, None


_INPUT_EXPR = re.compile(r"\$\{\{\s*inputs\.([A-Za-z_][\w-]*)\s*\}\}", re.I)


def substitute_inputs(text: str, values: Mapping[str, str]) -> str:
    """Replace whole ``${{ inputs.x }}`` expressions by the text the caller passes (composite actions)."""
    if not values or "inputs" not in text:
        return text
    return _INPUT_EXPR.sub(lambda m: values.get(m.group(1).lower(), m.group(0)), text)


_OUTPUT_WRITE = re.compile(r"""echo\s+["']?([A-Za-z_][\w-]*)=([^\s"'>]*)["']?[^\n]*GITHUB_OUTPUT""")
_ASSIGN = re.compile(r"""^\s*(?:export\s+)?([A-Za-z_]\w*)=(["']?)([^\s"'$`;]+)\2\s*;?\s*$""", re.M)


def run_outputs(run: str) -> dict[str, list[Val]]:
    """Heuristic step outputs of a run script: ``echo "name=value" >> "$GITHUB_OUTPUT"``.

    A ``$var``/``${var}`` value takes every literal ``var=...`` assignment in
    the script; all candidates are ``possible`` (shell is not evaluated).
    """
    assigned: dict[str, list[str]] = {}
    for m in _ASSIGN.finditer(run):
        assigned.setdefault(m.group(1), []).append(m.group(3))
    out: dict[str, list[Val]] = {}
    for m in _OUTPUT_WRITE.finditer(run):
        name, value = m.group(1), m.group(2)
        var = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", value)
        values = assigned.get(var.group(1), []) if var else ([value] if value and "$" not in value else [])
        for v in values:
            out.setdefault(name, [])
            if Val(v, False) not in out[name]:
                out[name].append(Val(v, False))
    return out


# ============================================================================ matrix, runs-on, permissions (pure)


def expand_matrix(raw: Any) -> list[dict[str, Any]] | None:
    """Expand a static ``strategy.matrix`` into its combinations.

    GitHub rules (https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/running-variations-of-jobs-in-a-workflow):
    the cartesian product of the list-valued keys; ``exclude`` entries remove
    every combination they match (partial match); then each ``include`` entry
    is added to every combination whose *original* values it does not
    overwrite, or becomes a new combination when it fits none.

    Returns
    -------
    list of dict or None
        the combinations (``[{}]`` without a matrix), or ``None`` when the
        matrix (or one of its lists) is an expression, or too large.

    Examples
    --------
    >>> expand_matrix({"os": ["a", "b"], "include": [{"os": "c"}, {"os": "a", "big": True}], "exclude": [{"os": "b"}]})
    [{'os': 'a', 'big': True}, {'os': 'c'}]
    """
    if raw is None:
        return [{}]
    if not isinstance(raw, dict):
        return None
    include, exclude = raw.get("include", []), raw.get("exclude", [])
    if not isinstance(include, list) or not isinstance(exclude, list):
        return None
    keys, lists = [], []
    for k, v in raw.items():
        if k in ("include", "exclude"):
            continue
        if isinstance(v, str) and "${{" in v:
            return None
        keys.append(str(k))
        lists.append(v if isinstance(v, list) else [v])
    size = 1
    for lst in lists:
        size *= len(lst)
    if size > _MAX_COMBINATIONS:
        return None
    combos = [dict(zip(keys, c)) for c in itertools.product(*lists)] if keys else []
    for ex in exclude:
        if isinstance(ex, dict):
            combos = [c for c in combos if not all(c.get(k) == v for k, v in ex.items())]
    originals = set(keys)
    added = []
    for inc in include:
        if not isinstance(inc, dict):
            return None
        matched = False
        for c in combos:
            if all(c.get(k) == v for k, v in inc.items() if k in originals):
                c.update({k: v for k, v in inc.items() if k not in originals})
                matched = True
        if not matched:
            added.append(dict(inc))
    combos += added
    return combos or [{}]


LabelSet = tuple[tuple[str, ...], str | None, bool]


def _label_sets(value: Any, ctx: EvalContext) -> list[LabelSet] | None:
    """Label sets a ``runs-on`` value asks for: ``(labels, group, certain)``; None if unresolvable."""
    if isinstance(value, str):
        vals, pattern = resolve(value, ctx)
        if pattern is not None:
            return None
        out: list[LabelSet] = []
        for v in vals:
            if isinstance(v.value, str):
                if not v.value.strip():
                    return None
                out.append(((v.value.strip(),), None, v.certain))
            else:
                sub = _label_sets(v.value, ctx)
                if sub is None:
                    return None
                out.extend((labels, group, c and v.certain) for labels, group, c in sub)
        return out
    if isinstance(value, list):
        parts = [_label_sets(e, ctx) for e in value]
        if any(p is None or any(g for _, g, _ in p) for p in parts):
            return None
        out = []
        for combo in itertools.islice(itertools.product(*parts), 64):  # type: ignore[arg-type]
            labels = tuple(dict.fromkeys(lbl for ls, _, _ in combo for lbl in ls))
            out.append((labels, None, all(c for _, _, c in combo)))
        return out
    if isinstance(value, dict):
        groups: list[Val] = [Val(None, True)]
        if value.get("group") is not None:
            groups, pattern = resolve(value["group"], ctx)
            if pattern is not None:
                return None
        labels = _label_sets(value["labels"], ctx) if value.get("labels") is not None else [((), None, True)]
        if labels is None:
            return None
        return [(ls, None if g.value is None else _scalar_text(g.value), c and g.certain)
                for g in groups for ls, _, c in labels]
    return None


def _matrix_refs(value: Any) -> bool:
    return "matrix" in json.dumps(_jsonable(value)).lower()


def runs_on_candidates(runs_on: Any, matrix: Any, ctx: EvalContext,
                       evidence: Evidence) -> tuple[list[RunsOnCandidate], Evidence | None]:
    """Candidates for a job's ``runs-on`` over its matrix instances.

    Returns
    -------
    tuple
        ``(candidates, unresolved)``: one :class:`RunsOnCandidate` per distinct
        ``(labels, group)`` (with the first instance's matrix values), and an
        evidence when some instance is not statically resolvable.
    """
    if runs_on is None:
        return [], None
    combos = expand_matrix(matrix) if _matrix_refs(runs_on) else [{}]
    if combos is None:
        return [], evidence
    seen: dict[tuple[tuple[str, ...], str | None], RunsOnCandidate] = {}
    unresolved = None
    for combo in combos:
        sub = EvalContext(matrix=combo if matrix is not None else None, inputs=ctx.inputs, env=ctx.env,
                          steps=ctx.steps)
        sets = _label_sets(runs_on, sub)
        if sets is None:
            unresolved = evidence
            continue
        for labels, group, certain in sets:
            key = (tuple(sorted(lbl.lower() for lbl in labels)), group)
            conf = Confidence.CERTAIN if certain else Confidence.POSSIBLE
            if key in seen:
                if conf is Confidence.CERTAIN and seen[key].confidence is not Confidence.CERTAIN:
                    seen[key] = seen[key].model_copy(update={"confidence": conf})
                continue
            seen[key] = RunsOnCandidate(labels=labels, group=group, matrix=_jsonable(combo) if combo else None,
                                        confidence=conf, evidence=evidence)
    return list(seen.values()), unresolved


def effective_permissions(workflow: dict[str, str] | None, job: dict[str, str] | None,
                          cap: dict[str, str] | None = None) -> tuple[dict[str, str], str]:
    """The GITHUB_TOKEN scopes a job gets.

    The job block replaces the workflow block; with neither, the
    repository/org default applies (``{}``, source ``default``).  ``cap`` is a
    reusable caller's effective permissions: a called workflow can only keep
    or shrink them (scope-wise minimum); with no block of its own it gets the
    caller's (source ``caller``).  ``id-token`` is never granted by default.
    https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/controlling-permissions-for-github_token

    Returns
    -------
    tuple
        ``(scope -> read|write|none, source)`` with source ``job``,
        ``workflow``, ``caller`` or ``default``.

    Examples
    --------
    >>> all_write = dict.fromkeys(PERMISSION_SCOPES, "write")
    >>> p, src = effective_permissions(all_write, {**dict.fromkeys(PERMISSION_SCOPES, "none"), "contents": "read"})
    >>> src, p["contents"], p["id-token"]
    ('job', 'read', 'none')
    """
    declared, source = (job, "job") if job is not None else (workflow, "workflow") if workflow is not None else (None,
                                                                                                         "default")
    if not cap:
        return dict(declared or {}), source
    if declared is None:
        return dict(cap), "caller"
    scopes = list(dict.fromkeys([*declared, *cap]))
    return {s: min(declared.get(s, "none"), cap.get(s, "none"), key=_LEVEL.__getitem__) for s in scopes}, source


# ============================================================================ to_graph (pure)


@dataclass(frozen=True)
class _Src:
    """Evidence factory for one file."""

    file: str
    repository: str
    lines: Mapping[str, int]

    def ev(self, path: str, detail: Any = None) -> Evidence:
        if detail is not None:
            detail = " ".join(str(detail).split())
            detail = detail if len(detail) <= _DETAIL_MAX else detail[:_DETAIL_MAX - 1] + "…"
        return Evidence(file=self.file, repository=self.repository, yaml_path=path or None,
                        line=line_of(dict(self.lines), path), detail=detail or None)


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, join_path(path, str(k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, join_path(path, i))


def _secret_exprs(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """``(yaml_path, expression)`` for every expression under ``value`` (``if:`` may be bare)."""
    for p, text in _strings(value, path):
        for e in expressions(text, bare=p.endswith(".if") or p == "if"):
            if _SECRETS_WORD.search(e):
                yield p, e


class _SecretMap:
    """How secret names seen by a job map to names of the repository that holds them.

    ``None`` mapping: identity (a top-level job, or ``secrets: inherit``).
    Otherwise callee name (upper) -> (caller names, evidence of a dynamic read).
    """

    def __init__(self, mapping: dict[str, tuple[list[str], Evidence | None]] | None = None) -> None:
        self.mapping = mapping

    def map(self, name: str) -> tuple[list[str], Evidence | None]:
        if self.mapping is None:
            return [name], None
        return self.mapping.get(secret_key(name), ([], None))

    def everything(self) -> tuple[list[str], bool, Evidence | None]:
        """``(names, all, all-evidence)`` for a read of the whole context."""
        if self.mapping is None:
            return [], True, None
        names = [n for ns, _ in self.mapping.values() for n in ns]
        ev = next((e for _, e in self.mapping.values() if e is not None), None)
        return list(dict.fromkeys(names)), ev is not None, ev

    def explicit(self, secrets: dict[str, Any], src: _Src, path: str) -> "_SecretMap":
        """The map a callee sees through its caller's explicit ``secrets:`` mapping."""
        out: dict[str, tuple[list[str], Evidence | None]] = {}
        for name, value in secrets.items():
            names: list[str] = []
            ev = None
            for p, e in _secret_exprs(value, join_path(path, name)):
                found, everything = scan_secrets(e)
                for n in found:
                    mapped, mev = self.map(n)
                    names += mapped
                    ev = ev or mev
                if everything:
                    more, is_all, aev = self.everything()
                    names += more
                    ev = ev or (src.ev(p, e) if is_all and aev is None else aev)
            out[secret_key(name)] = (list(dict.fromkeys(names)), ev)
        return _SecretMap(out)


@dataclass(frozen=True)
class _Call:
    """How a workflow's jobs are being instantiated."""

    top: WorkflowFile                # the triggering workflow
    chain: tuple[tuple[str, str], ...]  # (repo key, path) of each workflow level
    caller_id: str | None = None
    inputs: dict[str, list[Val] | None] | None = None
    secrets: _SecretMap = field(default_factory=_SecretMap)
    cap: dict[str, str] | None = None
    job_workflow_ref: str | None = None
    #: a reusable workflow no ingested workflow calls: its inputs come from an unknown caller
    unknown_caller: bool = False


@dataclass
class _JobState:
    """What the step rules of one job instance accumulate."""

    id: str
    repo: str                   # secrets repository (display name)
    oidc_id: str | None
    identity: str               # keyless signing identity of the defining workflow
    secrets: _SecretMap
    out: GraphBuilder
    grants: list[SecretGrant] = field(default_factory=list)
    checkouts: dict[str, str] = field(default_factory=dict)  # checkout path -> repo key
    registries: list[str] = field(default_factory=list)
    env: dict[str, Any] = field(default_factory=dict)

    @property
    def rk(self) -> str:
        return repo_key(self.repo)

    def mapped(self, names: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(m for n in names for m in self.secrets.map(n)[0]))

    def grant(self, secret_names: Iterable[str], kind: EdgeKind, target: str, ev: Evidence) -> None:
        for name in self.mapped(secret_names):
            g = SecretGrant(name=name, edge_kind=kind, target=target, evidence=ev)
            if g not in self.grants:
                self.grants.append(g)


@dataclass
class _StepView:
    """A step as a rule sees it: arguments after composite-input substitution."""

    step: Step
    src: _Src
    ctx: EvalContext
    job: _JobState
    subst: dict[str, str] = field(default_factory=dict)

    def arg(self, *names: str) -> str | None:
        for n in names:
            if n in self.step.with_args and self.step.with_args[n] is not None:
                return substitute_inputs(_scalar_text(self.step.with_args[n]), self.subst)
        return None

    def ev(self, sub: str = "", detail: Any = None) -> Evidence:
        return self.src.ev(self.step.path + (("." + sub) if sub else ""), detail)

    @property
    def run(self) -> str:
        return substitute_inputs(self.step.run or "", self.subst)

    def secrets_in(self, text: str | None) -> list[str]:
        names: list[str] = []
        for e in expressions(text or ""):
            names += scan_secrets(e)[0]
        return list(dict.fromkeys(names))

    def env_secrets(self, var_filter: Callable[[str], bool] = lambda _: True) -> list[str]:
        env = {**self.job.env, **self.step.env}
        return list(dict.fromkeys(n for k, v in env.items() if var_filter(k)
                                  for n in self.secrets_in(substitute_inputs(_scalar_text(v), self.subst))))

    def value(self, text: str | None) -> tuple[list[str], str | None, bool]:
        """``(literal values, pattern, certain)`` of an argument."""
        if text is None:
            return [], None, True
        vals, pattern = resolve(text, self.ctx)
        return [_scalar_text(v.value) for v in vals if _truthy(v.value)], pattern, all(v.certain for v in vals)


# ---------------------------------------------------------------- step rules


def _action_name(uses: str) -> str:
    return uses.split("@", 1)[0].strip().lower().rstrip("/")


_CLOUD_ACTIONS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    # action: (provider, identity inputs in preference order, static credential inputs)
    "aws-actions/configure-aws-credentials": ("aws", ("role-to-assume",), ("aws-access-key-id",
                                                                           "aws-secret-access-key")),
    "catnekaise/cognito-idpool-auth": ("aws", ("chain-role-arn",), ()),
    "google-github-actions/auth": ("gcp", ("service_account", "workload_identity_provider"), ("credentials_json",)),
    "azure/login": ("azure", ("client-id",), ("creds", "client-secret")),
}
_AWS_ARN = re.compile(r"arn:aws[\w-]*:iam::(\d{12}|\*):")


def _cloud_auth(sv: _StepView, action: str) -> None:
    provider, id_inputs, key_inputs = _CLOUD_ACTIONS[action]
    id_input = next((n for n in id_inputs if sv.arg(n)), None)
    key_secrets = [(n, s) for n in key_inputs for s in sv.secrets_in(sv.arg(n))]
    if id_input is None and not key_secrets:
        return
    roles: list[tuple[str, bool, bool, Evidence]] = []  # identifier, pattern, certain, evidence
    if id_input is not None:
        raw = sv.arg(id_input)
        ev = sv.ev(f"with.{id_input}", raw)
        values, pattern, certain = sv.value(raw)
        if pattern is None:
            roles = [(v, False, certain, ev) for v in values]
        elif pattern.strip("*"):
            roles = [(pattern, True, False, ev)]
        else:
            roles = [(f"expr:{sv.job.rk}:{' '.join(expressions(raw or '')[0].split())}", True, False, ev)]
    else:
        name, secret = key_secrets[0]
        roles = [(f"key:{sv.job.rk}:{secret_key(sv.job.mapped([secret])[0] if sv.job.mapped([secret]) else secret)}",
                  False, True, sv.ev(f"with.{name}", f"${{{{ secrets.{secret} }}}}"))]
    for identifier, pattern, certain, ev in roles:
        account = _AWS_ARN.match(identifier) if provider == "aws" else None
        rid = sv.job.out.node(CloudRole(id=f"cloud_role:{provider}:{identifier}", name=identifier, provider=provider,
                                        identifier=identifier, pattern=pattern, evidence=[ev],
                                        account=account.group(1) if account and account.group(1) != "*" else None))
        if key_secrets:
            sv.job.out.edge(EdgeKind.ASSUMES_ROLE, sv.job.id, rid, ev, possible=not certain,
                            props={"via": "static credentials"})
            for name, secret in key_secrets:
                sv.job.grant([secret], EdgeKind.ASSUMES_ROLE, rid, sv.ev(f"with.{name}", f"${{{{ secrets.{secret} }}}}"))
        elif sv.job.oidc_id:
            sv.job.out.edge(EdgeKind.ASSUMES_ROLE, sv.job.oidc_id, rid, ev, possible=True,
                            props={"via": "oidc", "trust": "unknown"})
        else:  # no OIDC, no keys: the runner's ambient credentials (instance profile, ~/.aws) are used
            sv.job.out.edge(EdgeKind.ASSUMES_ROLE, sv.job.id, rid, ev, possible=True,
                            props={"via": "ambient runner credentials"})


def _signing_key(sv: _StepView, scheme: str, identifier: str, ev: Evidence, *, secrets: Sequence[str] = (),
                 possible: bool = False) -> None:
    kid = sv.job.out.node(SigningKey(id=f"signing_key:{scheme}:{identifier}", name=f"{scheme}:{identifier}",
                                     scheme=scheme, identifier=identifier, evidence=[ev]))
    sv.job.out.edge(EdgeKind.SIGNS_WITH, sv.job.id, kid, ev, possible=possible)
    sv.job.grant(secrets, EdgeKind.SIGNS_WITH, kid, ev)


def _keyless(sv: _StepView, ev: Evidence) -> None:
    """Sigstore keyless signing: needs an OIDC token (``possible`` without id-token: write)."""
    _signing_key(sv, "sigstore", sv.job.identity, ev, possible=sv.job.oidc_id is None)


def _key_from_secrets(sv: _StepView, scheme: str, secrets: Sequence[str], fallback: str, ev: Evidence) -> None:
    names = sv.job.mapped(secrets)
    for name in names or [fallback]:
        _signing_key(sv, scheme, f"{sv.job.rk}:{secret_key(name) if names else name}", ev, secrets=secrets)


def _gpg_action(sv: _StepView, action: str) -> None:
    raw = sv.arg("gpg_private_key", "gpg-private-key")
    secrets = sv.secrets_in(raw)
    if secrets:
        _key_from_secrets(sv, "gpg", secrets, "gpg-key", sv.ev("with.gpg_private_key", raw))


def _pypi_publish(sv: _StepView, action: str) -> None:
    url = sv.arg("repository-url", "repository_url")
    values, pattern, _ = sv.value(url)
    ident = _package_index(values[0] if values else pattern or "pypi")
    password = sv.arg("password")
    tid = _target(sv, "package_index", ident, sv.ev("uses", sv.step.uses))
    sv.job.out.edge(EdgeKind.PUBLISHES_TO, sv.job.id, tid, sv.ev("uses", sv.step.uses))
    secrets = sv.secrets_in(password)
    if secrets:
        sv.job.grant(secrets, EdgeKind.PUBLISHES_TO, tid, sv.ev("with.password", password))
    elif sv.job.oidc_id and sv.arg("attestations") not in ("false", "False"):
        _keyless(sv, sv.ev("uses", f"{sv.step.uses} (PEP 740 attestations)"))


def _package_index(url: str) -> str:
    low = url.lower().rstrip("/")
    if low in ("pypi", "https://upload.pypi.org/legacy"):
        return "pypi"
    if "test.pypi.org" in low or low == "testpypi":
        return "testpypi"
    return url


def _target(sv: _StepView, target_type: str, identifier: str, ev: Evidence, **extra: Any) -> str:
    crit = Criticality.CRITICAL if target_type == "package_index" or extra.get("production") else None
    return sv.job.out.node(DeploymentTarget(id=f"target:{target_type}:{identifier}", name=identifier,
                                            target_type=target_type, identifier=identifier, evidence=[ev],
                                            criticality=crit, **extra))


def _registry_host(image: str) -> str:
    first = image.split("/", 1)[0] if "/" in image else ""
    return first.lower() if first and ("." in first or ":" in first or first == "localhost") else "docker.io"


def _docker_login(sv: _StepView, action: str) -> None:
    raw = sv.arg("registry")
    values, pattern, _ = sv.value(raw or "docker.io")
    host = (values[0] if values else pattern or "*").lower()
    sv.job.registries.append(host)
    ev = sv.ev("with.registry" if raw else "uses", raw or sv.step.uses)
    tid = _target(sv, "registry", host, ev)
    sv.job.out.edge(EdgeKind.PUBLISHES_TO, sv.job.id, tid, ev, possible=True, props={"via": "registry login"})
    password = sv.arg("password")
    if sv.secrets_in(password):
        sv.job.grant(sv.secrets_in(password), EdgeKind.PUBLISHES_TO, tid, sv.ev("with.password", password))


def _build_push(sv: _StepView, action: str) -> None:
    _gha_cache(sv, sv.arg("cache-to"), sv.arg("cache-from"))
    values, _, _ = sv.value(sv.arg("push"))
    if not values or values[0].lower() != "true":
        return
    tags = re.split(r"[\s,]+", sv.arg("tags") or "")
    hosts = []
    for tag in filter(None, tags):
        vals, pattern = resolve(tag, sv.ctx)
        hosts += [_registry_host(_scalar_text(v.value)) for v in vals] if pattern is None else []
    for host in dict.fromkeys(hosts or sv.job.registries):
        ev = sv.ev("with.tags" if hosts else "with.push", sv.arg("tags") or "push: true")
        sv.job.out.edge(EdgeKind.PUBLISHES_TO, sv.job.id, _target(sv, "registry", host, ev), ev,
                        possible=not hosts)


def _s3_artifact(sv: _StepView, action: str) -> None:
    values, pattern, _ = sv.value(sv.arg("s3-bucket"))
    for bucket in values or ([pattern] if pattern else []):
        ev = sv.ev("with.s3-bucket", sv.arg("s3-bucket"))
        sv.job.out.edge(EdgeKind.PUBLISHES_TO, sv.job.id, _target(sv, "bucket", f"s3://{bucket}", ev), ev)


def _gcs_upload(sv: _StepView, action: str) -> None:
    values, pattern, _ = sv.value(sv.arg("destination"))
    for dest in values or ([pattern] if pattern else []):
        ev = sv.ev("with.destination", dest)
        bucket = "gs://" + dest.removeprefix("gs://").split("/", 1)[0]
        sv.job.out.edge(EdgeKind.PUBLISHES_TO, sv.job.id, _target(sv, "bucket", bucket, ev), ev)


def _cache_node(sv: _StepView) -> str:
    scope = sv.job.rk
    return sv.job.out.node(Cache(id=f"cache:actions:{scope}", name=f"Actions cache of {sv.job.repo}",
                                 cache_type="actions", scope=scope, evidence=[sv.ev("uses", sv.step.uses)]))


def _cache_edges(sv: _StepView, *, write: bool, restore: bool, ev: Evidence | None = None) -> None:
    ev = ev or sv.ev("uses", sv.step.uses)
    cid = _cache_node(sv)
    if write:
        sv.job.out.edge(EdgeKind.WRITES_CACHE, sv.job.id, cid, ev)
    if restore:
        sv.job.out.edge(EdgeKind.RESTORES_INTO, cid, sv.job.id, ev)


def _gha_cache(sv: _StepView, cache_to: str | None, cache_from: str | None) -> None:
    write, restore = "type=gha" in (cache_to or ""), "type=gha" in (cache_from or "")
    if write or restore:
        _cache_edges(sv, write=write, restore=restore, ev=sv.ev("with", f"cache-to: {cache_to} cache-from: {cache_from}"))


def _actions_cache(sv: _StepView, action: str) -> None:
    _cache_edges(sv, write=not action.endswith("/restore"), restore=not action.endswith("/save"))


def _setup_cache(sv: _StepView, action: str) -> None:
    flag = sv.arg("cache", "enable-cache", "bundler-cache")
    if flag is not None and flag.strip().lower() not in ("", "false"):
        _cache_edges(sv, write=True, restore=True, ev=sv.ev("with", f"cache: {flag}"))


def _always_cache(sv: _StepView, action: str) -> None:
    _cache_edges(sv, write=True, restore=True)


_ACTION_RULES: dict[str, Callable[[_StepView, str], None]] = {
    **dict.fromkeys(_CLOUD_ACTIONS, _cloud_auth),
    "crazy-max/ghaction-import-gpg": _gpg_action,
    "pypa/gh-action-pypi-publish": _pypi_publish,
    "docker/login-action": _docker_login,
    "docker/build-push-action": _build_push,
    "seemethere/upload-artifact-s3": _s3_artifact,
    "pytorch/test-infra/.github/actions/upload-artifact-s3": _s3_artifact,
    "google-github-actions/upload-cloud-storage": _gcs_upload,
    "actions/cache": _actions_cache, "actions/cache/save": _actions_cache, "actions/cache/restore": _actions_cache,
    "swatinem/rust-cache": _always_cache,
    "astral-sh/setup-uv": _setup_cache, "ruby/setup-ruby": _setup_cache,
    **{a: (lambda sv, _a: _keyless(sv, sv.ev("uses", sv.step.uses)))
       for a in ("sigstore/gh-action-sigstore-python", "actions/attest-build-provenance", "actions/attest",
                 "actions/attest-sbom")},
}


def _rule_for(action: str) -> Callable[[_StepView, str], None] | None:
    if action in _ACTION_RULES:
        return _ACTION_RULES[action]
    if action.startswith("actions/setup-"):
        return _setup_cache
    return None


# ---------------------------------------------------------------- run-script rules

_COSIGN = re.compile(r"\bcosign\s+(sign|attest|sign-blob|attest-blob)\b[^\n]*")
_KMS = re.compile(r"\b(?:awskms|gcpkms|azurekms|hashivault|k8s)://[^\s\"']+")
_GPG = re.compile(r"\bgpg2?\b[^\n]*--(import|sign|detach-sign|clearsign|clear-sign)\b")
_COMMAND_SPLIT = re.compile(r"\n|&&|\|\||;")


def _commands(run: str) -> Iterator[list[str]]:
    """Shell-ish commands of a script (continuation lines joined) as token lists."""
    for cmd in _COMMAND_SPLIT.split(run.replace("\\\n", " ")):
        try:
            tokens = shlex.split(cmd, comments=True)
        except ValueError:
            tokens = cmd.split()
        if tokens:
            yield tokens


def _option(tokens: list[str], *names: str) -> str | None:
    for i, t in enumerate(tokens):
        for n in names:
            if t == n and i + 1 < len(tokens):
                return tokens[i + 1]
            if t.startswith(n + "="):
                return t.split("=", 1)[1]
    return None


def _positional(tokens: list[str]) -> list[str]:
    return [t for t in tokens if not t.startswith("-")]


def _shell_pattern(text: str) -> str:
    """Literal text of a shell word: ``${{ }}`` and ``$var`` parts become ``*``."""
    return re.sub(r"\$\{\{.*?\}\}|\$\{[^}]*\}|\$\w+", "*", text)


def _run_signing(sv: _StepView, run: str) -> None:
    for m in _COSIGN.finditer(run):
        line = m.group(0)
        ev = sv.ev("run", line)
        key_env = sv.env_secrets(lambda k: "COSIGN" in k.upper() and "KEY" in k.upper() and "PASSWORD" not in k.upper())
        if "--key" in line or key_env:
            kms = _KMS.search(line)
            if kms:
                _signing_key(sv, "cosign", _shell_pattern(kms.group(0)), ev)
            else:
                key_arg = _option(line.split(), "--key") or "cosign.key"
                _key_from_secrets(sv, "cosign", sv.secrets_in(key_arg) or key_env, _shell_pattern(key_arg), ev)
        else:
            _keyless(sv, ev)
    for m in _GPG.finditer(run):
        secrets = sv.secrets_in(run) or sv.env_secrets(lambda k: any(w in k.upper() for w in ("GPG", "PGP", "KEY")))
        if secrets:
            _key_from_secrets(sv, "gpg", secrets, "gpg-key", sv.ev("run", m.group(0)))


def _run_publish(sv: _StepView, run: str) -> None:
    for tokens in _commands(run):
        words = _positional(tokens)
        ev = sv.ev("run", " ".join(tokens))

        def hit(kind: EdgeKind, target_type: str, identifier: str, possible: bool = False, **extra: Any) -> None:
            sv.job.out.edge(kind, sv.job.id, _target(sv, target_type, identifier, ev, **extra), ev, possible=possible)

        if words[:2] == ["docker", "push"] and len(words) > 2:
            hit(EdgeKind.PUBLISHES_TO, "registry", _registry_host(_shell_pattern(words[2])))
        elif words[:1] == ["twine"] and "upload" in words:
            url = _option(tokens, "--repository-url") or _option(tokens, "--repository", "-r") or "pypi"
            hit(EdgeKind.PUBLISHES_TO, "package_index", _package_index(_shell_pattern(url)))
        elif words[:1] in (["npm"], ["pnpm"], ["yarn"]) and "publish" in words[1:3]:
            hit(EdgeKind.PUBLISHES_TO, "package_index", _shell_pattern(_option(tokens, "--registry") or "npm"))
        elif words[:1] in (["kubectl"], ["helm"]) and len(words) > 1 and words[1] in (
                "apply", "create", "replace", "patch", "delete", "set", "rollout", "scale", "install", "upgrade",
                "uninstall", "rollback"):
            context = _option(tokens, "--context", "--kube-context") or "default"
            hit(EdgeKind.DEPLOYS_TO, "cluster", f"{sv.job.rk}:{_shell_pattern(context)}")
        elif words[:2] == ["aws", "s3"] and len(words) > 3 and words[2] in ("cp", "sync", "mv"):
            dest = words[-1]
            if dest.startswith("s3://"):
                hit(EdgeKind.PUBLISHES_TO, "bucket", "s3://" + _shell_pattern(dest[5:].split("/", 1)[0]))
        elif words[:2] in (["gsutil", "cp"], ["gsutil", "rsync"]) or words[:3] in (["gcloud", "storage", "cp"],
                                                                                   ["gcloud", "storage", "rsync"]):
            dest = words[-1]
            if dest.startswith("gs://"):
                hit(EdgeKind.PUBLISHES_TO, "bucket", "gs://" + _shell_pattern(dest[5:].split("/", 1)[0]))
        elif words[:3] == ["aws", "lambda", "update-function-code"]:
            name = _option(tokens, "--function-name")
            if name:
                hit(EdgeKind.DEPLOYS_TO, "function", _shell_pattern(name))


# ---------------------------------------------------------------- builder


_PROD_WORDS = re.compile(r"(?:^|[^a-z])(prod\w*|prd|release\w*|publish\w*|pypi|live)(?:[^a-z]|$)", re.I)


def is_production(environment: str) -> bool:
    """Heuristic: the environment name looks like production or publishing.

    >>> [is_production(n) for n in ("production", "prod-eu", "pypi", "staging", "delivery")]
    [True, True, True, False, False]
    """
    return bool(_PROD_WORDS.search(environment))


def _oidc_subjects(full_name: str, triggers: Mapping[str, Any], environment: str | None) -> list[str]:
    """Candidate ``sub`` claims (semantics §4; GitHub docs "OpenID Connect reference")."""
    def enc(v: str) -> str:
        return v.replace(":", "%3A")

    base = f"repo:{full_name}"
    if environment:
        return [f"{base}:environment:{enc(environment)}"]
    subs: list[str] = []
    for event, filters in triggers.items():
        filters = filters if isinstance(filters, dict) else {}
        if event == "pull_request":
            subs.append(f"{base}:pull_request")
        elif event == "push":
            branches = filters.get("branches")
            tags = filters.get("tags")
            if branches or not tags:
                for b in branches if isinstance(branches, list) else ["*"]:
                    subs.append(f"{base}:ref:refs/heads/{enc(str(b))}")
            for t in tags if isinstance(tags, list) else []:
                subs.append(f"{base}:ref:refs/tags/{enc(str(t))}")
        elif event == "release":
            subs.append(f"{base}:ref:refs/tags/*")
        elif event != "workflow_call":
            subs.append(f"{base}:ref:refs/heads/*")
    return list(dict.fromkeys(subs))


def _uses_target(uses: str) -> tuple[str | None, str, str | None]:
    """``(owner/repo or None for local, path, ref)`` of a ``uses:`` value."""
    uses = uses.strip()
    if uses.startswith("./"):
        return None, posixpath.normpath(uses[2:]), None
    ref = None
    if "@" in uses:
        uses, ref = uses.split("@", 1)
    parts = uses.split("/")
    return "/".join(parts[:2]), "/".join(parts[2:]), ref


class _Builder:
    def __init__(self, files: Sequence[WorkflowFile | ActionFile], max_levels: int) -> None:
        self.out = GraphBuilder()
        self.problems: list[InputError] = []
        self.max_levels = max_levels
        self.workflows = {(repo_key(f.repository), f.file): f for f in files if isinstance(f, WorkflowFile)}
        self.actions = {(repo_key(f.repository), f.directory): f for f in files if isinstance(f, ActionFile)}

    # ------------------------------------------------------------ structure
    def repository(self, full_name: str, ev: Evidence) -> str:
        owner = full_name.split("/", 1)[0]
        oid = self.out.node(Organization(id=f"org:{owner.lower()}", name=owner, evidence=[ev]))
        rid = self.out.node(Repository(id=f"repo:{repo_key(full_name)}", name=full_name, full_name=full_name,
                                       evidence=[ev]))
        self.out.edge(EdgeKind.OWNS, oid, rid, ev)
        return rid

    def workflow(self, wf: WorkflowFile) -> str:
        ev = _Src(wf.file, wf.repository, wf.lines).ev("", wf.name)
        rid = self.repository(wf.repository, ev)
        wid = self.out.node(Workflow(id=f"workflow:{repo_key(wf.repository)}/{wf.file}", name=wf.name or wf.file,
                                     repository=wf.repository, path=wf.file, triggers=wf.triggers,
                                     reusable=wf.reusable, evidence=[ev]))
        self.out.edge(EdgeKind.HAS_WORKFLOW, rid, wid, ev)
        return wid

    def run(self) -> None:
        """Instantiate every workflow that runs on its own.

        A workflow triggered only by ``workflow_call`` runs as instances under
        its callers; when no ingested workflow calls it, it is instantiated
        once for an unknown caller (inputs: defaults, as ``possible``;
        secrets: its own repository's).
        """
        called = set()
        for wf in self.workflows.values():
            self.workflow(wf)
            for jd in wf.jobs.values():
                if jd.uses:
                    owner_repo, path, _ = _uses_target(jd.uses)
                    called.add((repo_key(owner_repo or wf.repository), path))
        for key, wf in self.workflows.items():
            standalone = bool(set(wf.triggers) - {"workflow_call"})
            if not standalone and key in called:
                continue
            inputs = None if standalone else {n.lower(): (None if d is None else [Val(d, False)])
                                              for n, d in wf.call_inputs.items()}
            call = _Call(top=wf, chain=(key,), inputs=inputs, unknown_caller=not standalone)
            for jd in wf.jobs.values():
                self.job(wf, jd, call)

    # ------------------------------------------------------------ jobs
    def job(self, wf: WorkflowFile, jd: JobDef, call: _Call) -> str:
        src = _Src(wf.file, wf.repository, wf.lines)
        path = f"jobs.{jd.key}"
        own = f"{repo_key(wf.repository)}/{wf.file}#{jd.key}"
        jid = f"{call.caller_id}>{own}" if call.caller_id else f"job:{own}"
        top_repo = call.top.repository
        perms, perm_source = effective_permissions(wf.permissions, jd.permissions, call.cap)
        env = {**wf.env, **jd.env}
        ctx = EvalContext(inputs=call.inputs, env=env, steps=self._step_outputs(jd))
        environment, env_names = self._environment(jd, ctx)
        oidc_id = None
        if perms.get("id-token") == "write":
            oidc_id = self.out.node(OIDCIdentity(
                id="oidc:" + jid.removeprefix("job:"), name=f"OIDC of {jd.key}", repository=top_repo,
                subjects=_oidc_subjects(top_repo, call.top.triggers, environment),
                job_workflow_ref=call.job_workflow_ref, evidence=[src.ev(f"{path}.permissions.id-token")
                                                                  if jd.permissions else src.ev("permissions.id-token")]))
            self.out.edge(EdgeKind.MINTS_OIDC, jid, oidc_id, self.out.nodes[oidc_id].evidence[0])
        state = _JobState(id=jid, repo=top_repo, oidc_id=oidc_id, secrets=call.secrets, out=self.out, env=env,
                          identity=f"github.com/{repo_key(wf.repository)}/{wf.file}")
        refs, all_ev = self._secret_refs(wf, jd, src, call.secrets)
        runs_on, unresolved = runs_on_candidates(jd.runs_on, jd.matrix, ctx, src.ev(f"{path}.runs-on", jd.runs_on))
        if call.unknown_caller and "inputs" in json.dumps(_jsonable(jd.runs_on)):
            unresolved = unresolved or src.ev(f"{path}.runs-on", f"{jd.runs_on} (input of an unknown caller)")
        self._steps(jd.steps, src, ctx, state, {}, depth=0, seen=())
        for env_name in env_names:
            ev = src.ev(f"{path}.environment", jd.environment)
            prod = is_production(env_name.value)
            ident = f"{repo_key(top_repo)}:{env_name.value.lower()}"  # environment names are case-insensitive
            tid = self.out.node(DeploymentTarget(
                id=f"target:environment:{ident}", name=f"{top_repo}:{env_name.value}", target_type="environment",
                identifier=ident, production=prod, criticality=Criticality.CRITICAL if prod else None,
                evidence=[ev]))
            self.out.edge(EdgeKind.DEPLOYS_TO, jid, tid, ev, possible=not env_name.certain)
        if jd.uses:
            unresolved, all_ev = self._call(wf, jd, src, call, jid, perms if perm_source != "default" else None,
                                            ctx, unresolved, all_ev)
        job = Job(id=jid, name=jd.name if jd.name and "${{" not in jd.name else jd.key, repository=wf.repository,
                  workflow_path=wf.file, job_key=jd.key, secrets_repository=top_repo, runs_on=runs_on,
                  runs_on_unresolved=unresolved, environment=environment, secret_refs=refs,
                  secret_grants=state.grants, all_secrets=all_ev, permissions=perms,
                  permissions_source=perm_source, caller=call.caller_id, evidence=[src.ev(path, jd.name)])
        self.out.node(job)
        self.out.edge(EdgeKind.HAS_JOB, f"workflow:{repo_key(wf.repository)}/{wf.file}", jid, job.evidence[0])
        self._token(job, src.ev(f"{path}.permissions" if jd.permissions is not None else
                                "permissions" if wf.permissions is not None else path))
        return jid

    def _environment(self, jd: JobDef, ctx: EvalContext) -> tuple[str | None, list[Val]]:
        """``(Job.environment, candidate names)``: one candidate -> its name, else the text as written."""
        raw = jd.environment.get("name") if isinstance(jd.environment, dict) else jd.environment
        if raw is None:
            return None, []
        text = _scalar_text(raw)
        vals, pattern = resolve(text, ctx)
        names = [Val(_scalar_text(v.value), v.certain) for v in vals if _truthy(v.value)]
        if pattern is not None or not names:
            return text, [Val(text, False)]
        return (names[0].value if len(names) == 1 else text), names

    def _step_outputs(self, jd: JobDef) -> dict[str, dict[str, list[Val]]]:
        return {s.id: run_outputs(s.run) for s in jd.steps if s.id and s.run and "GITHUB_OUTPUT" in s.run}

    def _secret_refs(self, wf: WorkflowFile, jd: JobDef, src: _Src,
                     smap: _SecretMap) -> tuple[list[SecretRef], Evidence | None]:
        refs: dict[str, SecretRef] = {}
        all_ev = None
        scanned = itertools.chain(_secret_exprs(wf.env, "env"), _secret_exprs(jd.raw, f"jobs.{jd.key}"))
        for p, e in scanned:
            names, everything = scan_secrets(e)
            ev = src.ev(p, f"${{{{ {e} }}}}")
            for n in names:
                mapped, mev = smap.map(n)
                all_ev = all_ev or mev
                for m in mapped:
                    refs.setdefault(secret_key(m), SecretRef(name=m, evidence=ev))
            if everything:
                mapped, is_all, aev = smap.everything()
                for m in mapped:
                    refs.setdefault(secret_key(m), SecretRef(name=m, evidence=ev))
                if is_all:
                    all_ev = all_ev or aev or ev
        return list(refs.values()), all_ev

    def _token(self, job: Job, ev: Evidence) -> None:
        tid = self.out.node(GitHubToken(id="github_token:" + job.id.removeprefix("job:"), name=f"GITHUB_TOKEN of {job.job_key}",
                                        repository=job.secrets_repository, permissions=job.permissions,
                                        permissions_source=job.permissions_source, evidence=[ev]))
        self.out.edge(EdgeKind.HAS_TOKEN, job.id, tid, ev)
        writes = sorted(s for s, lvl in job.permissions.items() if lvl == "write" and s not in _NON_REPO_WRITE_SCOPES)
        rid = f"repo:{repo_key(job.secrets_repository)}"
        if writes:
            self.out.edge(EdgeKind.WRITES_REPOSITORY, tid, rid, ev, props={"scopes": writes})
        elif job.permissions_source == "default":
            self.out.edge(EdgeKind.WRITES_REPOSITORY, tid, rid, ev, possible=True,
                          props={"scopes": [], "reason": "default token permissions (repository/org setting)"})

    # ------------------------------------------------------------ reusable workflows
    def _call(self, wf: WorkflowFile, jd: JobDef, src: _Src, call: _Call, jid: str, cap: dict[str, str] | None,
              ctx: EvalContext, unresolved: Evidence | None,
              all_ev: Evidence | None) -> tuple[Evidence | None, Evidence | None]:
        path = f"jobs.{jd.key}"
        ev = src.ev(f"{path}.uses", jd.uses)
        owner_repo, callee_path, ref = _uses_target(jd.uses or "")
        callee_repo = owner_repo or wf.repository
        key = (repo_key(callee_repo), callee_path)
        callee = self.workflows.get(key)
        wid = f"workflow:{key[0]}/{key[1]}"
        if callee is None:
            self.out.node(Workflow(id=wid, name=callee_path, repository=callee_repo, path=callee_path, reusable=True,
                                   inferred=True, evidence=[ev]))
            self.out.edge(EdgeKind.CALLS_WORKFLOW, jid, wid, ev, possible=True)
            # unknown is not empty: the callee's jobs run somewhere with what the caller passes
            unk = src.ev(f"{path}.uses", f"{jd.uses} (called workflow not ingested)")
            if jd.secrets == "inherit":
                all_ev = all_ev or unk
            return unresolved or unk, all_ev
        self.out.edge(EdgeKind.CALLS_WORKFLOW, jid, wid, ev)
        if key in call.chain:
            self.problems.append(InputError(src.file, f"{path}.uses", f"reusable workflow cycle via {jd.uses}"))
            return unresolved, all_ev
        if len(call.chain) >= self.max_levels:
            self.problems.append(InputError(src.file, f"{path}.uses", f"more than {self.max_levels} workflow "
                                                "levels; deeper calls not instantiated"))
            return unresolved, all_ev
        if jd.secrets == "inherit":
            smap = call.secrets
        else:
            smap = call.secrets.explicit(jd.secrets or {}, src, f"{path}.secrets")
        sub = _Call(top=call.top, chain=call.chain + (key,), caller_id=jid,
                    inputs=self._call_inputs(callee, jd, ctx), secrets=smap, cap=cap,
                    job_workflow_ref=f"{callee.repository}/{callee.file}@{ref or '*'}")
        for cjd in callee.jobs.values():
            self.job(callee, cjd, sub)
        return unresolved, all_ev

    def _call_inputs(self, callee: WorkflowFile, jd: JobDef, ctx: EvalContext) -> dict[str, list[Val] | None]:
        given = {k.lower(): v for k, v in jd.with_args.items()}
        combos = expand_matrix(jd.matrix) if jd.matrix is not None else [{}]
        out: dict[str, list[Val] | None] = {}
        for name, default in callee.call_inputs.items():
            raw = given.get(name.lower(), default)
            if raw is None:
                out[name.lower()] = [Val("", True)]
                continue
            vals: list[Val] = []
            for combo in combos or [None]:
                sub = EvalContext(matrix=combo if jd.matrix is not None else None, inputs=ctx.inputs, env=ctx.env,
                                  steps={})
                r, pattern = resolve(raw, sub)
                if pattern is not None:
                    vals = None  # type: ignore[assignment]
                    break
                vals += [v for v in r if v not in vals]
            if vals is not None and len({json.dumps(_jsonable(v.value)) for v in vals}) > 1:
                vals = [Val(v.value, False) for v in vals]
            out[name.lower()] = vals
        return out

    # ------------------------------------------------------------ steps and composite actions
    def _steps(self, steps: Sequence[Step], src: _Src, ctx: EvalContext, state: _JobState, subst: dict[str, str],
               depth: int, seen: tuple[str, ...]) -> None:
        for step in steps:
            sv = _StepView(step=step, src=src, ctx=EvalContext(matrix=ctx.matrix, inputs=ctx.inputs,
                                                                 env={**ctx.env, **step.env}, steps=ctx.steps),
                           job=state, subst=subst)
            if step.run:
                _run_signing(sv, sv.run)
                _run_publish(sv, sv.run)
            if not step.uses or step.uses.startswith("docker://"):
                continue
            action = _action_name(step.uses)
            if action == "actions/checkout":
                self._record_checkout(sv)
            rule = _rule_for(action)
            if rule is not None:
                rule(sv, action)
            composite = self._find_action(step.uses, state)
            if composite is not None and composite.steps and depth < MAX_COMPOSITE_DEPTH and composite.file not in seen:
                csub = {name.lower(): _scalar_text(default) for name, default in composite.inputs.items()
                        if default is not None}
                csub.update({k.lower(): sv.arg(k) or "" for k in step.with_args})
                cctx = EvalContext(inputs={k: (resolve(v, sv.ctx)[0] or None) for k, v in csub.items()},
                                   env=sv.ctx.env, steps=ctx.steps)
                self._steps(composite.steps, _Src(composite.file, composite.repository, composite.lines), cctx,
                            state, csub, depth + 1, seen + (composite.repository + ":" + composite.file,))

    def _record_checkout(self, sv: _StepView) -> None:
        repo, path = sv.arg("repository"), sv.arg("path")
        if path and "${{" not in path:
            target = repo_key(repo) if repo and "${{" not in repo else sv.job.rk
            sv.job.checkouts[posixpath.normpath(path)] = target

    def _find_action(self, uses: str, state: _JobState) -> ActionFile | None:
        owner_repo, path, _ = _uses_target(uses)
        if owner_repo is not None:
            return self.actions.get((repo_key(owner_repo), path))
        path = "" if path == "." else path
        for prefix, rk in state.checkouts.items():
            if prefix != "." and (path == prefix or path.startswith(prefix + "/")):
                return self.actions.get((rk, path[len(prefix):].strip("/")))
        return self.actions.get((state.rk, path))


def to_graph(files: Sequence[WorkflowFile | ActionFile], *, repositories: Iterable[str] = (),
             max_levels: int = MAX_WORKFLOW_LEVELS) -> IngestResult:
    """Turn parsed files of one or more checkouts into nodes and edges (pure).

    Reusable workflows and actions are resolved among ``files`` only; a called
    workflow that is not among them becomes an inferred :class:`Workflow` node
    and its caller job is marked ``runs_on_unresolved`` (its jobs run
    somewhere, with what the caller passes).

    Parameters
    ----------
    files
        parsed workflows and actions (their ``repository`` decides ownership).
    repositories
        repository names to create even without files (``owner/name``).
    max_levels
        workflow levels instantiated (top-level caller included), see
        :data:`MAX_WORKFLOW_LEVELS`.

    Returns
    -------
    IngestResult
        ``nodes``, ``edges`` and ``problems`` (the ``problems`` of every
        file, then reusable workflow cycles or depth overflow); ``items`` is 0.
    """
    b = _Builder(files, max_levels)
    for name in repositories:
        b.repository(name, Evidence(file=".", repository=name, detail="checkout"))
    b.run()
    parse_problems = [p for f in files for p in f.problems]  # skipped jobs/steps: incomplete, say so
    return IngestResult(graph=b.out, problems=parse_problems + b.problems)


# ============================================================================ collect (I/O)


@dataclass(frozen=True)
class Checkout:
    """A repository checkout: display name ``owner/name`` and its root folder."""

    repository: str
    root: Path


_GIT_REMOTE = re.compile(r"github\.com[:/]+([^/\s]+)/([^/\s]+?)(?:\.git)?/?$")
_NAMED = re.compile(r"^([\w.-]+/[\w.-]+)=(.+)$")
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "vendor"})


def _is_checkout(path: Path) -> bool:
    return (path / ".github").is_dir() or (path / "action.yml").is_file() or (path / "action.yaml").is_file()


def _repository_name(root: Path) -> str:
    if "__" in root.name:
        owner, name = root.name.split("__", 1)
        if owner and name:
            return f"{owner}/{name}"
    config = root / ".git" / "config"
    if config.is_file():
        parser = configparser.ConfigParser(strict=False)
        try:
            parser.read(config, encoding="utf-8")
            m = _GIT_REMOTE.search(parser.get('remote "origin"', "url", fallback=""))
            if m:
                return f"{m.group(1)}/{m.group(2)}"
        except (configparser.Error, OSError, UnicodeDecodeError):
            pass
    return f"local/{root.name}"


def find_checkouts(paths: Sequence[Path | str]) -> tuple[list[Checkout], list[InputError]]:
    """Checkouts named by ``paths`` (I/O: lists folders).

    Each path is a checkout, a folder of checkouts, or ``owner/name=PATH``.
    The repository name is the given one, else ``owner__name`` of the folder,
    else the ``origin`` remote of ``.git/config``, else ``local/<folder>``.

    Returns
    -------
    tuple
        ``(checkouts, problems)``: a missing path, or a checkout (or given
        path) with no workflow and no action file, is a problem naming the
        path, not an exception and not a checkout (no ``local/...`` nodes are
        invented for it).
    """
    out: list[Checkout] = []
    problems: list[InputError] = []
    for raw in paths:
        text = str(raw)
        m = _NAMED.match(text)
        given, root = (m.group(1), Path(m.group(2))) if m and not Path(text).exists() else (None, Path(text))
        if not root.is_dir():
            problems.append(InputError(str(root), "", "not a directory" if root.exists() else "no such directory"))
            continue
        if given or _is_checkout(root):
            found = [Checkout(given or _repository_name(root.resolve()), root)]
        else:
            subs = sorted(p for p in root.iterdir() if p.is_dir() and _is_checkout(p))
            found = [Checkout(_repository_name(p.resolve()), p) for p in subs] or [
                Checkout(_repository_name(root.resolve()), root)]
        for co in found:
            if checkout_files(co):
                out.append(co)
            else:
                problems.append(InputError(str(co.root), "", "no .github/workflows/*.yml|yaml or action.yml "
                                           f"found under {co.root}"))
    return out, problems


def checkout_files(checkout: Checkout) -> list[tuple[str, str]]:
    """``(relative posix path, "workflow" | "action")`` of the files to read, sorted.

    Workflows: ``.github/workflows/*.yml|yaml`` only (GitHub does not recurse).
    Actions: ``action.yml|yaml`` anywhere except ``.git``/``node_modules``.
    """
    root = checkout.root
    found: list[tuple[str, str]] = []
    wdir = root / ".github" / "workflows"
    if wdir.is_dir():
        found += [(p.relative_to(root).as_posix(), "workflow") for p in sorted(wdir.iterdir())
                  if p.is_file() and p.suffix in (".yml", ".yaml")]
    for p in sorted(root.rglob("action.y*ml")):
        rel = p.relative_to(root)
        if p.name in ("action.yml", "action.yaml") and not _SKIP_DIRS.intersection(rel.parts[:-1]):
            found.append((rel.as_posix(), "action"))
    return found


class GitHubActionsIngestor(FileIngestor["WorkflowFile | ActionFile"]):
    """The ``github-actions`` ingestor (see module docstring): the files of :func:`find_checkouts`."""

    name = "github-actions"
    description = "GitHub Actions workflows and local actions of repository checkouts"
    option = InputOption("DIR", "Repository checkout(s): DIR, OWNER/NAME=DIR, or a folder of owner__name "
                         "checkouts. Repeatable.")

    def collect(self, paths: Sequence[Path | str]) -> Collected:
        """Every workflow and action file of every checkout; ``context`` = ``(repository, "workflow"|"action")``."""
        checkouts, problems = find_checkouts(paths)
        files = [InputFile(path=co.root / rel, name=rel, root=co.root, context=(co.repository, kind))
                 for co in checkouts for rel, kind in checkout_files(co)]
        return Collected(files=files, problems=problems)

    def parse(self, text: str, file: InputFile) -> "WorkflowFile | ActionFile":
        """:func:`parse_workflow` or :func:`parse_action`; skipped parts keep the file's full path (reported by
        :meth:`to_graph`)."""
        repository, kind = file.context
        f = (parse_workflow if kind == "workflow" else parse_action)(text, file=file.name, repository=repository)
        if f.problems:
            f = f.model_copy(update={"problems": tuple(InputError(str(file.path), p.place, p.reason)
                                                       for p in f.problems)})
        return f

    def problems_of(self, parsed: "WorkflowFile | ActionFile") -> Sequence[InputError]:
        """None here: :func:`to_graph` reports the skipped parts of every file."""
        return ()

    def to_graph(self, parsed: list["WorkflowFile | ActionFile"], collected: Collected) -> IngestResult:
        """:func:`to_graph` of every parsed file, with a repository node for every checkout."""
        return to_graph(parsed, repositories=list(dict.fromkeys(f.context[0] for f in collected.files)))


#: The registered ingestor (entry point ``github-actions``).
INGESTOR = GitHubActionsIngestor()
