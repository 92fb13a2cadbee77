"""Pure text -> models for the job history and audit-log files (entry by entry: a bad entry is a problem)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, ValidationError

from graphkit.errors import InputError, validation_summary
from graphkit.ingestor import NotRecognised
from ingest._yaml import load_json, type_name
from ingest.github_history.models import RUNNER_ACTIONS, AuditEvent, Kind, WorkflowJob, WorkflowRun

__all__ = ["Parsed", "parse", "place_of"]


@dataclass
class Parsed:
    """One file: ``kind`` (``runs``, ``jobs``, ``audit``), the repository (``owner/name``, runs and jobs) or
    organization (audit) it belongs to, its entries as ``(JSON path, model)`` and the entries left out."""

    file: str
    kind: Kind
    owner: str
    entries: list[tuple[str, BaseModel]] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)


def place_of(path: str) -> tuple[Kind, str] | None:
    """The kind and owner a snapshot path names: ``history/OWNER/REPO/runs.json`` -> ``("runs", "OWNER/REPO")``,
    ``history/OWNER/REPO/jobs/RUN_ID.json`` -> ``("jobs", ...)``, ``audit-log/ORG.json`` -> ``("audit", "ORG")``;
    None for any other path (the layout of ``CONTRACTS.md``, written by ``graphkit collect github``).

    >>> place_of("snap/history/acme/app/jobs/42.json"), place_of("snap/audit-log/acme.json"), place_of("x.json")
    (('jobs', 'acme/app'), ('audit', 'acme'), None)
    """
    parts = PurePath(path).parts
    if len(parts) >= 2 and parts[-2] == "audit-log" and parts[-1].endswith(".json"):
        return "audit", parts[-1][:-5]
    if len(parts) >= 4 and parts[-4] == "history" and parts[-1] == "runs.json":
        return "runs", f"{parts[-3]}/{parts[-2]}"
    if len(parts) >= 5 and parts[-5] == "history" and parts[-2] == "jobs" and parts[-1].endswith(".json"):
        return "jobs", f"{parts[-4]}/{parts[-3]}"
    return None


def _kind_of(data: Any) -> Kind | None:
    if isinstance(data, dict) and isinstance(data.get("workflow_runs"), list):
        return "runs"
    if isinstance(data, dict) and isinstance(data.get("jobs"), list):
        return "jobs"
    if isinstance(data, list):
        return "audit"
    return None


_MODEL = {"runs": ("workflow_runs", WorkflowRun), "jobs": ("jobs", WorkflowJob), "audit": ("", AuditEvent)}


def parse(text: str, file: str, where: tuple[Kind, str] | None = None) -> Parsed:
    """Parse one history or audit-log file.

    Parameters
    ----------
    text : str
        The file's JSON text (GitHub's REST response body; all pages merged).
    file : str
        How problems and evidence name the file.
    where : (kind, owner) or None
        From the snapshot path (:func:`place_of`); None for a file named alone (its shape decides; the
        repository of runs and jobs then comes from each run's ``repository.full_name``).

    Returns
    -------
    Parsed
        Audit-log entries other than runner registrations and removals are skipped silently.

    Raises
    ------
    InputError
        not JSON, or the top level is not the expected shape.
    NotRecognised
        a JSON document of another kind.
    """
    data = load_json(text, file=file)
    kind = _kind_of(data)
    if kind is None or (where is not None and kind != where[0]):
        expected = where[0] if where else "runs, jobs or audit-log"
        raise NotRecognised(file, "", f"not a GitHub {expected} response (top level: {type_name(data)})")
    key, model = _MODEL[kind]
    items = data[key] if key else data
    out = Parsed(file=file, kind=kind, owner=where[1] if where else "")
    for i, item in enumerate(items):
        place = f"{key}[{i}]" if key else f"[{i}]"
        if kind == "audit" and not (isinstance(item, dict) and item.get("action") in RUNNER_ACTIONS):
            continue
        try:
            out.entries.append((place, model.model_validate(item)))
        except ValidationError as exc:
            out.problems.append(InputError(file, place, f"left out: {validation_summary(exc)}"))
    return out
