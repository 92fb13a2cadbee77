"""GITHUB_TOKEN permissions: a ``permissions`` block as written -> scope levels, and the levels a job gets (pure).

Source: https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/controlling-permissions-for-github_token
"""

from __future__ import annotations

import re
from typing import Any

from graphkit.errors import InputError
from ingest._yaml import join_path, type_name

__all__ = [
    "LEVEL", "NON_REPO_WRITE_SCOPES", "PERMISSION_SCOPES", "effective_permissions", "parse_permissions",
    "repository_writes",
]

#: GITHUB_TOKEN scopes that ``read-all`` / ``write-all`` / a partial block expand over.
#: Source: https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/controlling-permissions-for-github_token
PERMISSION_SCOPES: tuple[str, ...] = (
    "actions", "attestations", "checks", "contents", "deployments", "discussions", "id-token", "issues",
    "packages", "pages", "pull-requests", "repository-projects", "security-events", "statuses", "models",
)
#: Scopes that only accept ``read``/``none`` (``write-all`` grants ``read``).
_READ_ONLY_SCOPES = frozenset({"models"})
#: Levels a scope accepts when it is not ``read|write|none``; GitHub rejects the workflow file otherwise
#: (``id-token: read`` is invalid).  Source: the "available permissions" block of
#: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#permissions
#: (``id-token: write|none``, ``models: read|none``; ``id-token: read`` removed from the docs 2024-08,
#: github/docs#34306, as the workflow schema never accepted it).
_ALLOWED_LEVELS: dict[str, tuple[str, ...]] = {"id-token": ("write", "none"), "models": ("read", "none")}
#: Scopes whose ``write`` is not a write to the repository.
NON_REPO_WRITE_SCOPES = frozenset({"id-token", "models"})
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
    >>> p["contents"], p["id-token"], len(p)
    ('read', 'none', 15)
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
    """The scopes at ``write`` that write to the repository (sorted; not ``id-token``/``models``).

    >>> repository_writes({"contents": "write", "id-token": "write", "issues": "read"})
    ['contents']
    """
    return sorted(s for s, lvl in permissions.items() if lvl == "write" and s not in NON_REPO_WRITE_SCOPES)
