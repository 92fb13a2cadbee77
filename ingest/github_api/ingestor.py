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

from graphkit import registry
from graphkit.errors import InputError
from graphkit.ingestor import RANK_INVENTORY, IngestResult, InputOption, Progress, read_text

__all__ = ["INGESTOR", "GitHubSnapshotIngestor"]

SCHEMA = "graphkit.github-snapshot/v1"
HISTORY = "github-history"


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
        from pydantic import ValidationError

        from ingest.github_api.snapshot_doc import SnapshotDocument, missing_parts, problems, scope_problems

        result = IngestResult()
        for raw in paths:
            file = Path(raw) / "snapshot.json"
            try:
                doc = SnapshotDocument.model_validate(json.loads(read_text(file, within=Path(raw))))
            except InputError as exc:
                result.problems.append(exc)
            except ValidationError as exc:
                result.problems += problems(str(file), exc)
            except ValueError as exc:
                result.problems.append(InputError(str(file), f"line {getattr(exc, 'lineno', '?')}", "not JSON"))
            else:
                result.items += 1
                result.problems += scope_problems(str(file), doc.scopes) + missing_parts(Path(raw), doc)
                if HISTORY not in registry.ingestors() and (Path(raw) / "history").is_dir():
                    result.problems.append(InputError(str(Path(raw) / "history"), "", "job history not read: no "
                                                      f"'{HISTORY}' source installed"))
            if progress is not None:
                progress(1, f"{self.name} {raw}")
        return result


INGESTOR = GitHubSnapshotIngestor()
