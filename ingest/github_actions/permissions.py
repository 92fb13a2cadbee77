"""GITHUB_TOKEN permissions: a ``permissions`` block as written -> scope levels, and the levels a job gets (pure).

Source: https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/controlling-permissions-for-github_token
"""

from __future__ import annotations

import re
from typing import Any

from graphkit.errors import InputError
from ingest._yaml import join_path, type_name

__all__ = [
    "LEVEL", "PERMISSION_SCOPES", "POSSIBLE_REPOSITORY_WRITE_SCOPES", "REPOSITORY_WRITE_SCOPES",
    "effective_permissions", "parse_permissions", "possible_repository_writes", "repository_writes",
]

#: GITHUB_TOKEN scopes that ``read-all`` / ``write-all`` / a partial block expand over.
#: Source: https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/controlling-permissions-for-github_token
#: (``artifact-metadata``: build artifact metadata records, read|write|none, added to the list with its general
#: availability, github/docs "Artifact Metadata GA" (data/reusables/actions/github-token-available-permissions.md)).
PERMISSION_SCOPES: tuple[str, ...] = (
    "actions", "artifact-metadata", "attestations", "checks", "contents", "deployments", "discussions", "id-token",
    "issues", "packages", "pages", "pull-requests", "repository-projects", "security-events", "statuses", "models",
)
#: Scopes that only accept ``read``/``none`` (``write-all`` grants ``read``).
_READ_ONLY_SCOPES = frozenset({"models"})
#: Levels a scope accepts when it is not ``read|write|none``; GitHub rejects the workflow file otherwise
#: (``id-token: read`` is invalid).  Source: the "available permissions" block of
#: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#permissions
#: (``id-token: write|none``, ``models: read|none``; ``id-token: read`` removed from the docs 2024-08,
#: github/docs#34306, as the workflow schema never accepted it).
_ALLOWED_LEVELS: dict[str, tuple[str, ...]] = {"id-token": ("write", "none"), "models": ("read", "none")}
#: Scopes whose ``write`` is a repository write (``writes_repository``, certain): it can change the code or the
#: workflows that later runs execute, or start runs.  Events the GITHUB_TOKEN triggers start no run except
#: ``workflow_dispatch`` and ``repository_dispatch``
#: (https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication),
#: so a write starts runs only through those two.  Scope -> what it allows, with its documentation.
REPOSITORY_WRITE_SCOPES: dict[str, str] = {
    "contents": "push commits, branches and tags (the code later runs check out and execute) and create "
                "repository_dispatch events, which start runs: "
                "https://docs.github.com/en/rest/authentication/permissions-required-for-github-apps"
                "#repository-permissions-for-contents, "
                "https://docs.github.com/en/rest/repos/repos#create-a-repository-dispatch-event",
    "actions": "create workflow_dispatch events (any workflow_dispatch workflow, on a chosen ref with chosen "
               "inputs), re-run workflows: "
               "https://docs.github.com/en/rest/authentication/permissions-required-for-github-apps"
               "#repository-permissions-for-actions, "
               "https://docs.github.com/en/rest/actions/workflows#create-a-workflow-dispatch-event",
}
#: Scopes whose ``write`` is at most a possible repository write (``writes_repository``, possible): it depends on
#: a setting graphkit does not read.  ``pull-requests: write`` can create and approve pull requests (an approval
#: can satisfy a required review, so a change gets merged) only when the organization or repository allows
#: "GitHub Actions to create and approve pull requests", off by default
#: (https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/enabling-features-for-your-repository/managing-github-actions-settings-for-a-repository#preventing-github-actions-from-creating-or-approving-pull-requests,
#: https://github.blog/changelog/2022-05-03-github-actions-prevent-github-actions-from-creating-and-approving-pull-requests).
#: A scope GitHub did not document when this was written (kept as written by :func:`parse_permissions`) is
#: possible too: unknown is not none.  Every other documented scope (``artifact-metadata``, ``attestations``,
#: ``checks``, ``deployments``, ``discussions``, ``id-token``, ``issues``, ``models``, ``packages``, ``pages``,
#: ``repository-projects``, ``security-events``, ``statuses``) changes neither code nor workflows and starts no run
#: (the events it triggers start none): not a repository write (publishing is ``publishes_to``, from the steps).
POSSIBLE_REPOSITORY_WRITE_SCOPES: dict[str, str] = {
    "pull-requests": "create and approve pull requests when the organization or repository setting \"Allow GitHub "
                     "Actions to create and approve pull requests\" is on (not read)",
}
#: Order of access levels (``write`` includes ``read``).
LEVEL = {"none": 0, "read": 1, "write": 2}
_LEVEL = LEVEL


def parse_permissions(raw: Any, *, file: str, path: str) -> dict[str, str]:
    """Normalise a ``permissions`` block.

    Naming any scope sets the others to ``none``; ``read-all``/``write-all``
    expand over :data:`PERMISSION_SCOPES` (``models`` is read-only);
    ``{}`` is all ``none`` (``read-all`` leaves ``id-token`` at ``none``: it
    has no ``read`` level).  Unknown scope names are kept as written.  A level
    a scope does not accept (``id-token: read``) is an error: GitHub refuses
    the whole workflow file.

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
    >>> p["contents"], p["id-token"], p["artifact-metadata"], len(p)
    ('read', 'none', 'none', 16)
    """
    base = dict.fromkeys(PERMISSION_SCOPES, "none")
    if raw in ("read-all", "write-all"):
        level = raw.split("-")[0]  # a scope without that level gets its nearest lower one (id-token: none)
        return {s: next(lv for lv in (level, "read", "none") if lv in _ALLOWED_LEVELS.get(s, tuple(_LEVEL)))
                for s in base}
    if isinstance(raw, dict):
        for scope, level in raw.items():
            allowed = _ALLOWED_LEVELS.get(str(scope), tuple(_LEVEL))
            if not isinstance(level, str) or level not in allowed:  # a list or mapping is refused too
                # a level is a short word; anything else is not quoted (it could be a pasted secret)
                shown = repr(level) if isinstance(level, str) and re.fullmatch(r"[A-Za-z-]{1,16}", level) else (
                    "of type " + type(level).__name__)
                restricted = f" for {scope} (GitHub accepts {'|'.join(allowed)})" if scope in _ALLOWED_LEVELS else ""
                raise InputError(file, join_path(path, str(scope)), f"invalid permission level {shown}{restricted}")
            base[str(scope)] = level
        return base
    raise InputError(file, path, f"permissions must be read-all, write-all or a mapping, got {_shown(raw)}")


def _shown(value: Any) -> str:
    """A short string as written, anything else by its type (errors never echo long values: they could be
    secrets)."""
    return repr(value) if isinstance(value, str) and len(value) <= 20 else f"a {type_name(value)}"


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
    if job is not None:
        declared, source = job, "job"
    elif workflow is not None:
        declared, source = workflow, "workflow"
    else:
        declared, source = None, "default"
    if not cap:
        return dict(declared or {}), source
    if declared is None:
        return dict(cap), "caller"
    scopes = list(dict.fromkeys([*declared, *cap]))
    return {s: min(declared.get(s, "none"), cap.get(s, "none"), key=_LEVEL.__getitem__) for s in scopes}, source


def repository_writes(permissions: dict[str, str]) -> list[str]:
    """The scopes at ``write`` that certainly write to the repository (:data:`REPOSITORY_WRITE_SCOPES`, sorted).

    >>> repository_writes({"contents": "write", "id-token": "write", "issues": "write", "actions": "read"})
    ['contents']
    """
    return sorted(s for s, lvl in permissions.items() if lvl == "write" and s in REPOSITORY_WRITE_SCOPES)


def possible_repository_writes(permissions: dict[str, str]) -> list[str]:
    """The scopes at ``write`` that may write to the repository (sorted): :data:`POSSIBLE_REPOSITORY_WRITE_SCOPES`
    and scopes outside :data:`PERMISSION_SCOPES` (undocumented when this was written: unknown, never none).

    >>> possible_repository_writes({"pull-requests": "write", "issues": "write", "workflows": "write"})
    ['pull-requests', 'workflows']
    """
    return sorted(s for s, lvl in permissions.items() if lvl == "write" and s not in REPOSITORY_WRITE_SCOPES
                  and (s in POSSIBLE_REPOSITORY_WRITE_SCOPES or s not in PERMISSION_SCOPES))
