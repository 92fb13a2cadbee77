"""``--github-snapshot DIR``: a folder written by ``graphkit collect github``, read offline.

The snapshot holds inputs of other sources; :meth:`GitHubSnapshotIngestor.expand` hands each to its source
through the registry (``graphkit.build`` merges them like inputs given one by one, so a snapshot builds the same
graph as the same inventory and checkouts given by hand): ``inventory.yaml`` to ``runners``,
``checkouts/OWNER/REPO`` to ``github-actions`` (as ``OWNER/REPO=PATH``), the folder itself to ``github-history``
when it holds ``history/`` or ``audit-log/`` (the ingestor of job history and audit-log files).  This source
itself reads ``snapshot.json``: every unreadable scope is one problem naming the permission that would fix it, so
the build is partial and the summary counts it (what depends on it is unknown in the inventory: ``possible``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphkit import registry
from graphkit.errors import InputError
from graphkit.ingestor import RANK_INVENTORY, IngestResult, InputOption, Progress, read_text

__all__ = ["INGESTOR", "GitHubSnapshotIngestor"]

SCHEMA = "graphkit.github-snapshot/v1"
HISTORY = "github-history"


class ScopeRecord(BaseModel):
    """One ``scopes[i]`` record of ``snapshot.json`` (what ``collect github`` could read; ``fix``: the permission
    that reads it, empty when no permission would, e.g. a malformed answer)."""

    model_config = ConfigDict(extra="forbid")
    resource: str
    scope: str
    status: Literal["ok", "unreadable", "pending"]
    http_status: int | None = None
    reason: str = ""
    fix: str = ""


class SnapshotDocument(BaseModel):
    """``snapshot.json`` (``graphkit.github-snapshot/v1``); ``scopes`` records are validated one by one
    (:class:`ScopeRecord`) so a bad record is a problem at its index and the others still count."""

    model_config = ConfigDict(extra="ignore")
    schema_: Literal["graphkit.github-snapshot/v1"] = Field(alias="schema")
    org: str
    api_url: str | None = None
    repos: list[str] = []
    since: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    scopes: list[Any]


def _place(prefix: str, loc: tuple[Any, ...]) -> str:
    """A pydantic error location as a JSON path under ``prefix`` (``scopes[1].status``)."""
    out = prefix
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + ("schema" if part == "schema_"
                                                                                 else str(part))
    return out


def _problems(file: str, exc: ValidationError, prefix: str = "") -> list[InputError]:
    """One problem per validation error (location and message, never the value)."""
    return [InputError(file, _place(prefix, tuple(e["loc"])),
                       "required field missing" if e["type"] == "missing" else e["msg"])
            for e in exc.errors(include_url=False)]


def _missing_parts(root: Path, doc: SnapshotDocument) -> list[InputError]:
    """A snapshot without ``inventory.yaml`` (its runners) or ``checkouts/`` (its workflow files, written by every
    collection) leaves those scopes unknown: one problem each, never an empty complete graph."""
    out = []
    if not (root / "inventory.yaml").is_file():
        out.append(InputError(str(root / "inventory.yaml"), "", f"missing: the runners of {doc.org} are unknown "
                              "(rerun graphkit collect github)"))
    if not (root / "checkouts").is_dir():
        out.append(InputError(str(root / "checkouts"), "", f"missing: the workflow files of {doc.org} are unknown "
                              "(rerun graphkit collect github)"))
    return out


def _checkouts(root: Path) -> list[str]:
    """``OWNER/REPO=PATH`` of every ``checkouts/OWNER/REPO`` folder, sorted."""
    base = root / "checkouts"
    if not base.is_dir():
        return []
    return [f"{owner.name}/{repo.name}={repo}" for owner in sorted(base.iterdir()) if owner.is_dir()
            for repo in sorted(owner.iterdir()) if repo.is_dir()]


class GitHubSnapshotIngestor:
    """The ``github-snapshot`` source (see the module docstring)."""

    name = "github-snapshot"
    description = "GitHub snapshot folder from 'graphkit collect github' (inventory, checkouts, history, scopes)"
    option = InputOption("DIR", "Snapshot folder written by 'graphkit collect github' (its inventory, workflow "
                         "files, job history and unreadable scopes). Repeatable.")
    merge_rank = RANK_INVENTORY

    def expand(self, paths: Sequence[str | Path]) -> dict[str, list[str]]:
        """Inputs per source: this one keeps the folders (``snapshot.json``), the others get their parts."""
        out: dict[str, list[str]] = {self.name: [str(p) for p in paths]}
        history = HISTORY in registry.ingestors()
        for raw in paths:
            root = Path(raw)
            if (root / "inventory.yaml").is_file():
                out.setdefault("runners", []).append(str(root / "inventory.yaml"))
            out.setdefault("github-actions", []).extend(_checkouts(root))
            if history and ((root / "history").is_dir() or (root / "audit-log").is_dir()):
                out.setdefault(HISTORY, []).append(str(root))
        return {k: v for k, v in out.items() if v}

    def count(self, paths: Sequence[str | Path]) -> int:
        """One item per folder."""
        return len(paths)

    def ingest(self, paths: Sequence[str | Path], progress: Progress | None = None) -> IngestResult:
        """Read each folder's ``snapshot.json``: a problem per unreadable scope (with its fix), per folder without
        a readable ``snapshot.json``, and per folder with history files no installed source reads."""
        result = IngestResult()
        for raw in paths:
            file = Path(raw) / "snapshot.json"
            try:
                doc = SnapshotDocument.model_validate(json.loads(read_text(file)))
            except InputError as exc:
                result.problems.append(exc)
            except ValidationError as exc:
                result.problems += _problems(str(file), exc)
            except ValueError as exc:
                result.problems.append(InputError(str(file), f"line {getattr(exc, 'lineno', '?')}", "not JSON"))
            else:
                result.items += 1
                result.problems += _scope_problems(str(file), doc.scopes) + _missing_parts(Path(raw), doc)
                if HISTORY not in registry.ingestors() and (Path(raw) / "history").is_dir():
                    result.problems.append(InputError(str(Path(raw) / "history"), "", "job history not read: no "
                                                      f"'{HISTORY}' source installed"))
            if progress is not None:
                progress(1, f"{self.name} {raw}")
        return result


def _scope_problems(file: str, scopes: list[Any]) -> list[InputError]:
    """One problem per scope not read (``runners of org:acme unreadable (HTTP 403): ...; fix: ...``) and per
    record that is not a :class:`ScopeRecord` (at its index)."""
    out = []
    for i, raw in enumerate(scopes):
        try:
            s = ScopeRecord.model_validate(raw)
        except ValidationError as exc:
            out += _problems(file, exc, f"scopes[{i}]")
            continue
        if s.status == "ok":
            continue
        http = f" (HTTP {s.http_status})" if s.http_status else ""
        fix = f"; fix: {s.fix}" if s.fix else ""
        out.append(InputError(file, f"scopes[{i}]", f"{s.resource} of {s.scope} {s.status}{http}"
                              f"{': ' + s.reason if s.reason else ''}{fix}"))
    return out


INGESTOR = GitHubSnapshotIngestor()
