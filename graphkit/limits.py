"""Resource limits on hostile input, in one place: each is checked *before* the work it bounds.

graphkit reads files written by whoever can push to a repository, so every
dimension an attacker controls is bounded.  A file past a limit is refused as
one :class:`~graphkit.errors.InputError` (file, place, which limit and how to
raise it); the other inputs are read as usual (exit status "partial").

Each limit has a default, an environment variable ``GRAPHKIT_LIMIT_<NAME>``
(upper-case field name, e.g. ``GRAPHKIT_LIMIT_MAX_FILE_BYTES=200000000``) and
the repeatable CLI option ``graphkit --limit NAME=VALUE <command>`` (which
wins over the variable).  The README section "Limits" lists them; keep both in step (a test
checks every field is listed there).

======================  ===========  ==========================================================
field                   default      bounds
======================  ===========  ==========================================================
max_file_bytes          64 MiB       size of one input file, checked with ``stat`` before reading
max_yaml_nodes          200,000      YAML nodes of one document *after* alias expansion, counted
                                     while composing (billion laughs is refused at composition)
max_yaml_aliases        10,000       alias occurrences (``*name``) in one YAML document
max_depth               100          nesting of mappings/sequences (YAML and JSON), counted while
                                     composing; also keeps pydantic serialization and graph saving
                                     far below their recursion limits
max_jobs_per_file       1,000        jobs of one workflow file
max_steps_per_job       1,000        steps of one job or composite action
max_matrix_combinations 4,096        matrix combinations of one job, ``include`` entries counted
                                     (GitHub runs at most 256 jobs per matrix:
                                     https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/running-variations-of-jobs-in-a-workflow)
max_files_per_checkout  5,000        workflow and action files found in one checkout
max_call_depth          10           nested reusable-workflow calls and composite actions (GitHub
                                     allows 10 levels of reusable workflows:
                                     https://docs.github.com/en/actions/sharing-automations/reusing-workflows#nesting-reusable-workflows)
max_call_fanout         5,000        jobs and steps instantiated through reusable workflows and
                                     composite actions for one checkout (expansion budget)
max_inventory_entries   200,000      entries of one inventory section (runners, hosts, labels...)
max_documents_per_file  10,000       YAML documents (``---``) of one multi-document file (Kubernetes
                                     manifests, rendered Helm output), counted before any is parsed
max_identifier_chars    4,096        characters of one name, label, path or ARN that becomes part of a
                                     node id (each part of the id, checked by the id constructors of
                                     :mod:`graphkit.model.ids` before the id is built; see below)
max_attribute_chars     16,384       characters of one string a node stores besides its id (a job name,
                                     an environment expression, an OIDC subject, a runner label, a
                                     trigger filter), checked where nodes are validated
                                     (:mod:`graphkit.model.bounds`; see below)
======================  ===========  ==========================================================

``max_identifier_chars``: the platforms bound their names far below it (GitHub: an environment name "may not
exceed 255 characters",
https://docs.github.com/en/actions/how-tos/deploy/configure-and-manage-deployments/manage-environments;
GitLab: job names of at most 255 characters, https://docs.gitlab.com/ci/jobs/#job-names; AWS: an IAM role ARN
of at most 2,048, https://docs.aws.amazon.com/IAM/latest/APIReference/API_Role.html), but runner labels, runner
and host names and file paths on a host have no documented bound (Linux ``PATH_MAX`` is 4,096 bytes), so the
default is 4,096: above every documented name limit, far below a value that would blow up ids, evidence and
saved graphs (a 1 MB ``runs-on`` label would otherwise become a 1 MB runner id).  A value past it is refused
where the id would be built (:class:`graphkit.model.ids.IdTooLong`, an ``IdError``): the ingestors and the
resolver record it as a problem naming the file and YAML path or line, with the value's length, never the value.

``max_attribute_chars``: the other text a node stores is bounded too, at four times the identifier bound (an OIDC
subject ``repo:OWNER/REPO:environment:NAME`` is made of id parts, each within ``max_identifier_chars``).  A longer
string is left out of the node where nodes are validated, for every source and the resolver alike (a field
becomes unknown, a list or mapping entry is dropped, the rest of the node and of its file is kept); each is a
problem naming the file and place of the node, the field and the value's length, never the value.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace

from graphkit.errors import GraphkitError

__all__ = ["Limits", "LimitError", "current", "latest", "ENV_PREFIX", "apply_cli", "too_many"]

#: ``GRAPHKIT_LIMIT_MAX_FILE_BYTES`` etc.
ENV_PREFIX = "GRAPHKIT_LIMIT_"


class LimitError(GraphkitError):
    """A limit given on the command line or in the environment is not a positive integer or has no such name.

    ``variable``: the ``GRAPHKIT_LIMIT_*`` environment variable at fault (None: the ``--limit`` option); the CLI
    makes either a usage error (exit status 2) naming it.
    """

    def __init__(self, message: str, variable: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable


@dataclass(frozen=True)
class Limits:
    """The limits (see the module docstring for what each bounds); every value is a positive integer."""

    max_file_bytes: int = 64 * 1024 * 1024
    max_yaml_nodes: int = 200_000
    max_yaml_aliases: int = 10_000
    max_depth: int = 100
    max_jobs_per_file: int = 1_000
    max_steps_per_job: int = 1_000
    max_matrix_combinations: int = 4_096
    max_files_per_checkout: int = 5_000
    max_call_depth: int = 10
    max_call_fanout: int = 5_000
    max_inventory_entries: int = 200_000
    max_documents_per_file: int = 10_000
    max_identifier_chars: int = 4_096
    max_attribute_chars: int = 16_384

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Limits":
        """Defaults overridden by ``GRAPHKIT_LIMIT_<NAME>`` variables of ``env`` (default ``os.environ``).

        Raises
        ------
        LimitError
            for a value that is not a positive integer (``_`` separators allowed), or a ``GRAPHKIT_LIMIT_*``
            variable that names no limit (a typo would otherwise leave the default in force, silently).
        """
        env = os.environ if env is None else env
        unknown = sorted(k for k in env if k.startswith(ENV_PREFIX) and k not in _ENV_NAMES)
        if unknown:
            raise LimitError(f"unknown limit variable {unknown[0]}; known: {', '.join(_ENV_NAMES)}", unknown[0])
        changes = {}
        for f in fields(cls):
            variable = ENV_PREFIX + f.name.upper()
            raw = env.get(variable)
            if raw is not None:
                changes[f.name] = _positive(f.name, raw, variable)
        return replace(cls(), **changes)


_ENV_NAMES = tuple(ENV_PREFIX + f.name.upper() for f in fields(Limits))


def _env_values() -> tuple:
    """The values of the ``GRAPHKIT_LIMIT_*`` variables (None: unset), in :class:`Limits` field order."""
    return tuple(map(os.environ.get, _ENV_NAMES))


def _positive(name: str, raw: str, variable: str | None = None) -> int:
    """``raw`` as a positive integer; else :class:`LimitError` naming the limit and ``variable`` (if any), never
    the value."""
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        value = 0
    if value <= 0:
        origin = f" (environment variable {variable})" if variable else ""
        raise LimitError(f"limit {name}{origin} must be a positive integer", variable)
    return value


#: ``--limit`` values of this run (they win over the environment)
_cli: dict[str, int] = {}


def apply_cli(assignments: list[str]) -> None:
    """Set the ``--limit NAME=VALUE`` values of this run (replacing those of a previous call; ``[]`` clears).

    Raises
    ------
    LimitError
        for an unknown name or a value that is not a positive integer.
    """
    known = {f.name for f in fields(Limits)}
    parsed: dict[str, int] = {}
    for item in assignments:
        name, _, raw = item.partition("=")
        name = name.strip().lower().replace("-", "_")
        if name not in known:
            raise LimitError(f"unknown limit {name!r}; known: {', '.join(sorted(known))}")
        parsed[name] = _positive(name, raw)
    _cli.clear()
    _cli.update(parsed)


#: (the ``GRAPHKIT_LIMIT_*`` values, the ``--limit`` values) -> the limits they give (a frozen object)
_made: dict[tuple, Limits] = {}


def current() -> Limits:
    """The limits in force now: defaults, overridden by ``GRAPHKIT_LIMIT_*`` variables, overridden by ``--limit``
    (read at each call, so tests and the CLI can change them; the object is made once per distinct values: the
    ingestors ask once per file and job).

    Raises
    ------
    LimitError
        for a variable that is not a positive integer.
    """
    global _latest
    key = (_env_values(), tuple(_cli.items()))
    made = _made.get(key)
    if made is None:
        made = replace(Limits.from_env(), **_cli)
        if len(_made) >= 64:
            _made.clear()
        _made[key] = made
    _latest = made
    return made


#: What :func:`current` returned last (None: not asked yet).
_latest: Limits | None = None


def latest() -> Limits:
    """The limits :func:`current` returned last (:func:`current` itself on the first call): an attribute read,
    for checks made millions of times per build (the id constructors' ``max_identifier_chars``).  Every input
    file read asks :func:`current` (:func:`graphkit.ingestor.read_text`), and so do ``--limit`` and the
    loaders, so during a build this is the build's limits.

    Raises
    ------
    LimitError
        as :func:`current`, on the first call.
    """
    return _latest if _latest is not None else current()


def too_many(name: str, limit: int, what: str) -> str:
    """The reason of a refused input: which limit, its value, and how to raise it.

    >>> too_many("max_depth", 100, "nesting deeper than 100 levels")
    'refused: nesting deeper than 100 levels (limit max_depth=100; raise with --limit max_depth=N or GRAPHKIT_LIMIT_MAX_DEPTH)'
    """
    return f"refused: {what} (limit {name}={limit}; raise with --limit {name}=N or {ENV_PREFIX}{name.upper()})"
