"""Workflow and action YAML text -> :mod:`.models` (pure: no I/O).

A file that cannot be used raises :class:`~graphkit.errors.InputError`
``(file, place, reason)``; inside a usable workflow, a malformed job is
skipped, a malformed step is skipped, a malformed ``steps`` drops the steps,
and a ``runs-on`` that is not label text keeps the job (the builder leaves it
unresolved): each is one entry of the model's ``problems`` (YAML path, reason
ending with `` (line N)``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import yaml

from graphkit import limits
from graphkit.errors import InputError
from ingest._yaml import Loader, join_path, load_yaml, type_name

from .evidence import Src
from .matrix import MATRIX_LIMIT_EFFECT, matrix_limit_reason
from .models import ActionFile, JobDef, Step, WorkflowFile, jsonable, scalar_text
from .permissions import parse_permissions
from .triggers import parse_triggers

__all__ = ["InvalidWorkflow", "parse_action", "parse_workflow"]

#: Keys PyYAML (YAML 1.1) reads as ``True``; GitHub reads only ``on`` as the trigger key.
_YAML11_TRUE = ("on", "On", "ON", "true", "True", "TRUE", "yes", "Yes", "YES", "y", "Y")


class InvalidWorkflow(InputError):
    """A workflow file GitHub refuses as a whole (not one skipped job): nothing of it runs."""


#: The reason given for a merge key; GitHub's workflow YAML has anchors and aliases, not YAML 1.1 merge keys.
MERGE_KEY_REASON = ("merge key `<<`: GitHub Actions supports YAML anchors and aliases but not merge keys "
                    "(https://docs.github.com/en/actions/reference/workflows-and-actions/reusing-workflow-configurations"
                    "#yaml-anchors-and-aliases); the workflow is not run")


class _WorkflowLoader(Loader):
    """The one loader, refusing YAML 1.1 merge keys as GitHub does.

    GitHub reads workflow files with anchors and aliases (changelog 2025-09-18,
    https://github.blog/changelog/2025-09-18-actions-yaml-anchors-and-non-public-workflow-templates/) but
    not the ``<<`` merge key (YAML 1.1 only; removed from YAML 1.2, https://yaml.org/spec/1.2.2/ext/changes/;
    GitHub staff in https://github.com/actions/runner/issues/1182: merge keys are not supported): ``<<`` is
    then a key like any other (``Unexpected value '<<'`` in a job, an event or a step), and the workflow
    file is invalid: no job of it runs.  PyYAML would merge the mapping silently and build jobs GitHub never
    runs.  A quoted ``'<<'`` is a plain key, not a merge key.
    """

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        for key, _ in node.value:
            if key.tag == "tag:yaml.org,2002:merge":
                raise yaml.constructor.ConstructorError(None, None, MERGE_KEY_REASON, key.start_mark)
        super().flatten_mapping(node)


def _mapping(value: Any, file: str, path: str, *, optional: bool = True) -> dict[str, Any]:
    if value is None and optional:
        return {}
    if not isinstance(value, dict):
        raise InputError(file, path, f"expected a mapping, got {type_name(value)}")
    return {str(k): v for k, v in value.items()}


def _env(value: Any, file: str, path: str) -> dict[str, Any]:
    """An ``env:`` block; a whole-block expression (``env: ${{ fromJSON(...) }}``) reads as no literal values."""
    return {} if isinstance(value, str) else _mapping(value, file, path)


def _opt_str(value: Any, file: str, path: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        raise InputError(file, path, f"expected a scalar, got {type_name(value)}")
    return scalar_text(value)


def _triggers(raw: Any, file: str) -> dict[str, Any]:
    if isinstance(raw, str):
        return {raw: {}}
    if isinstance(raw, list) and all(isinstance(e, str) for e in raw):
        return {e: {} for e in raw}
    if isinstance(raw, dict):
        return {str(k): (jsonable(v) if v is not None else {}) for k, v in raw.items()}
    raise InputError(file, "on", f"expected an event name, a list or a mapping, got {type_name(raw)}")


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


def _step(raw: Any, index: int, file: str, path: str) -> Step:
    s = _mapping(raw, file, path, optional=False)
    return Step(index=index, path=path, id=_opt_str(s.get("id"), file, path + ".id"),
                name=_opt_str(s.get("name"), file, path + ".name"),
                uses=_opt_str(s.get("uses"), file, path + ".uses"),
                run=_opt_str(s.get("run"), file, path + ".run"),
                with_args=_mapping(s.get("with"), file, path + ".with"),
                env=_env(s.get("env"), file, path + ".env"),
                condition=_opt_str(s.get("if"), file, path + ".if"))


def _steps(raw: Any, file: str, path: str, problems: list[InputError], cap: int | None = None) -> list[Step]:
    """The well-formed steps; a malformed ``steps`` or step is a problem and is skipped (``cap``: the
    ``max_steps_per_job`` limit, read by the caller once per file; None: read now)."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(InputError(file, path, f"steps must be a sequence, got {type_name(raw)}; steps skipped"))
        return []
    cap = limits.current().max_steps_per_job if cap is None else cap
    if len(raw) > cap:
        problems.append(InputError(file, path, limits.too_many("max_steps_per_job", cap, f"{len(raw)} steps")
                                   + "; steps skipped"))
        return []
    out = []
    for i, s in enumerate(raw):
        try:
            out.append(_step(s, i, file, join_path(path, i)))
        except InputError as exc:
            problems.append(_skipped(exc, "step skipped"))
    return out


def _runs_on_problems(value: Any, file: str, path: str) -> list[InputError]:
    """``runs-on`` values that are not label text (``42``, ``[self-hosted, true]``): GitHub wants strings."""
    if value is None or isinstance(value, str):
        return []
    if isinstance(value, list):
        return [InputError(file, join_path(path, i), f"runner label must be a string, got {type_name(v)} "
                           f"{json.dumps(jsonable(v))}; runs-on left unresolved")
                for i, v in enumerate(value) if not isinstance(v, str)]
    if isinstance(value, dict):
        labels = value.get("labels")
        return [] if labels is None else _runs_on_problems(labels, file, path + ".labels")
    return [InputError(file, path, f"expected a runner label, a list of labels or a mapping (group, labels), "
                       f"got {type_name(value)} {json.dumps(jsonable(value))}; runs-on left unresolved")]


def _job(key: str, raw: Any, file: str, problems: list[InputError], max_steps: int | None = None) -> JobDef:
    """One job; raises for a job that cannot be used, records problems for the parts skipped."""
    path = f"jobs.{key}"
    j = _mapping(raw, file, path, optional=False)
    strategy = j.get("strategy")
    matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
    secrets = j.get("secrets")
    if secrets is not None and secrets != "inherit" and not isinstance(secrets, dict):
        raise InputError(file, path + ".secrets", f"expected 'inherit' or a mapping, got {type_name(secrets)}")
    perms = j.get("permissions")
    mine = _runs_on_problems(j.get("runs-on"), file, path + ".runs-on")  # kept: runs_on_candidates leaves it unresolved
    if (over := matrix_limit_reason(matrix)) is not None:  # the job is kept: only what uses the matrix is unresolved
        mine.append(InputError(file, path + ".strategy.matrix", over + MATRIX_LIMIT_EFFECT))
    job_perms = None if perms is None else parse_permissions(perms, file=file, path=path + ".permissions")
    jd = JobDef(key=key, name=_opt_str(j.get("name"), file, path + ".name"), runs_on=j.get("runs-on"),
                matrix=matrix, permissions=job_perms,
                environment=j.get("environment"), uses=_opt_str(j.get("uses"), file, path + ".uses"),
                with_args=_mapping(j.get("with"), file, path + ".with"), secrets=secrets,
                env=_env(j.get("env"), file, path + ".env"),
                steps=_steps(j.get("steps"), file, path + ".steps", mine, max_steps), raw=j)
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
        (``line N``; a YAML 1.1 merge key ``<<`` too, which GitHub does not
        read: :data:`MERGE_KEY_REASON`), a top level or ``jobs`` that is not a mapping, a
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
    data, lines = load_yaml(text, file=file, loader=_WorkflowLoader)
    try:
        return _workflow(data, lines, file, repository)
    except InputError as exc:
        raise _with_line(exc, lines) from None


def _trigger_value(doc: dict[str, Any], lines: Mapping[str, int], file: str) -> Any:
    """The value of the trigger key, written ``on`` (PyYAML reads it as ``True``).

    GitHub reads the key ``on`` only: a top-level ``true:``/``yes:``/``On:``
    (read as the same ``True`` by YAML 1.1) is no trigger and GitHub refuses
    the file.  https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#on
    """
    if "on" in doc:  # quoted 'on'
        return doc["on"]
    written = [k for k in _YAML11_TRUE if k in lines]
    if "True" in doc and "on" in written:
        return doc["True"]
    if written:
        raise InvalidWorkflow(file, written[0], f"trigger key written {written[0]!r}: GitHub reads only `on` "
                              f"(YAML 1.1 reads both as true); the workflow is not run")
    raise InputError(file, "on", "no triggers (`on:` missing)")


def _call_block(triggers: dict[str, Any], what: str) -> dict[str, Any]:
    call = triggers.get("workflow_call")
    block = call.get(what) if isinstance(call, dict) else None
    return {str(k): v for k, v in block.items()} if isinstance(block, dict) else {}


def _required_inputs(triggers: dict[str, Any]) -> tuple[str, ...]:
    """``workflow_call`` inputs with ``required: true`` and no ``default``: a caller must pass them
    (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onworkflow_callinputs)."""
    return tuple(n for n, v in _call_block(triggers, "inputs").items()
                 if isinstance(v, dict) and v.get("required") is True and v.get("default") is None)


def _call_secrets(triggers: dict[str, Any]) -> dict[str, bool]:
    """``workflow_call`` secret name (as declared, ``-`` allowed) -> ``required``
    (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onworkflow_callsecrets)."""
    return {n: isinstance(v, dict) and v.get("required") is True
            for n, v in _call_block(triggers, "secrets").items()}


def _call_inputs(triggers: dict[str, Any]) -> dict[str, Any]:
    """``workflow_call`` input name -> default (``None`` without one)."""
    call = triggers.get("workflow_call")
    if not (isinstance(call, dict) and isinstance(call.get("inputs"), dict)):
        return {}
    return {str(k): (v.get("default") if isinstance(v, dict) else None) for k, v in call["inputs"].items()}


def _refuse_rejected_permissions(jobs: dict[Any, Any], file: str) -> None:
    """A job ``permissions`` value GitHub rejects refuses the whole workflow file, as GitHub does.

    GitHub validates the workflow file before it runs any job of it: an invalid
    ``permissions`` level (``id-token: read``, ``contents: admin``, a list)
    makes the run fail with "The workflow is not valid" and no job runs
    (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#permissions,
    the levels each scope accepts).  Unlike a structurally malformed job, which
    graphkit skips alone, such a file gets no job at all.

    Raises
    ------
    InputError
        naming ``jobs.KEY.permissions.SCOPE``, its reason ending "the workflow is not run".
    """
    for key, job in jobs.items():
        if isinstance(job, dict) and job.get("permissions") is not None:
            try:
                parse_permissions(job["permissions"], file=file, path=f"jobs.{key}.permissions")
            except InputError as exc:
                raise InputError(exc.file, exc.place, f"{exc.reason}; the workflow is not run") from None


def _workflow(data: Any, lines: dict[str, int], file: str, repository: str) -> WorkflowFile:
    doc = _mapping(data, file, "", optional=False) if data is not None else None
    if doc is None:
        raise InputError(file, "", "empty workflow")
    on = _trigger_value(doc, lines, file)
    triggers = _triggers(on, file)
    jobs = _mapping(doc.get("jobs"), file, "jobs", optional=False)
    lim = limits.current()  # once per file
    cap = lim.max_jobs_per_file  # checked before any job is read
    if len(jobs) > cap:
        raise InputError(file, "jobs", limits.too_many("max_jobs_per_file", cap, f"{len(jobs)} jobs"))
    perms = doc.get("permissions")
    _refuse_rejected_permissions(jobs, file)
    events, problems = parse_triggers(on, Src(file, repository, lines))  # typed events (sem-route)
    job_defs: dict[str, JobDef] = {}
    for k, v in jobs.items():
        try:
            job_defs[str(k)] = _job(str(k), v, file, problems, lim.max_steps_per_job)
        except InputError as exc:  # one bad job never costs the others
            problems.append(_skipped(exc, "job skipped"))
    return WorkflowFile(repository=repository, file=file, name=_opt_str(doc.get("name"), file, "name"),
                        triggers=triggers, events=events,
                        permissions=None if perms is None else parse_permissions(perms, file=file, path="permissions"),
                        env=_env(doc.get("env"), file, "env"), jobs=job_defs, call_inputs=_call_inputs(triggers),
                        required_inputs=_required_inputs(triggers), call_secrets=_call_secrets(triggers),
                        lines=lines, problems=tuple(_with_line(p, lines) for p in problems))


def parse_action(text: str, *, file: str, repository: str) -> ActionFile:
    """Parse one ``action.yml`` (pure).

    Raises
    ------
    InputError
        invalid YAML, or a top level / ``runs`` / ``inputs`` of the wrong
        shape (reason ending with the line).  A malformed ``runs.steps`` or
        step is skipped and recorded in ``ActionFile.problems``.

    Examples
    --------
    >>> a = parse_action("runs:\\n  using: composite\\n  steps: [{run: make}]\\n", file="a/action.yml",
    ...                  repository="acme/app")
    >>> a.using, a.directory, a.steps[0].path
    ('composite', 'a', 'runs.steps[0]')
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
