"""``snapshot.json`` of a ``graphkit collect github`` folder (``graphkit.github-snapshot/v1``): its pydantic
models and the problems a malformed or partial snapshot gives (imported when a snapshot is read, so that
``graphkit --help`` does not load pydantic)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphkit.errors import InputError, validation_problems

__all__ = ["ScopeRecord", "SnapshotDocument", "missing_parts", "problems", "scope_problems"]


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


def problems(file: str, exc: ValidationError, prefix: str = "") -> list[InputError]:
    """One problem per validation error (location and message, never the value)."""
    return validation_problems(file, exc, prefix)


def missing_parts(root: Path, doc: SnapshotDocument) -> list[InputError]:
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


def scope_problems(file: str, scopes: list[Any]) -> list[InputError]:
    """One problem per scope not read (``runners of org:acme unreadable (HTTP 403): ...; fix: ...``) and per
    record that is not a :class:`ScopeRecord` (at its index)."""
    out = []
    for i, raw in enumerate(scopes):
        try:
            s = ScopeRecord.model_validate(raw)
        except ValidationError as exc:
            out += problems(file, exc, f"scopes[{i}]")
            continue
        if s.status == "ok":
            continue
        http = f" (HTTP {s.http_status})" if s.http_status else ""
        fix = f"; fix: {s.fix}" if s.fix else ""
        out.append(InputError(file, f"scopes[{i}]", f"{s.resource} of {s.scope} {s.status}{http}"
                              f"{': ' + s.reason if s.reason else ''}{fix}"))
    return out
