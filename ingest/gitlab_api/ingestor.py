"""``--gitlab-snapshot DIR``: a folder written by ``graphkit collect gitlab``, read offline.

Like ``--github-snapshot`` (:mod:`ingest.github_api.ingestor`): ``inventory.yaml`` goes to the ``runners`` source,
each ``checkouts/GROUP/.../PROJECT`` to ``gitlab-ci`` as ``https://INSTANCE/GROUP/.../PROJECT=PATH`` (so its ID
tokens name the instance), and this source reads ``snapshot.json``: every unreadable scope is one problem naming
the access that would read it (what depends on it stays unknown).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from graphkit.errors import InputError
from graphkit.ingestor import RANK_INVENTORY, IngestResult, InputOption, Progress, read_text

__all__ = ["INGESTOR", "GitLabSnapshotIngestor"]

SCHEMA = "graphkit.gitlab-snapshot/v1"


def _snapshot(root: Path) -> dict:
    try:
        doc = json.loads(read_text(root / "snapshot.json", within=root))
    except (InputError, ValueError):
        return {}
    return doc if isinstance(doc, dict) and doc.get("schema") == SCHEMA else {}


class GitLabSnapshotIngestor:
    """The ``gitlab-snapshot`` source (module docstring)."""

    name = "gitlab-snapshot"
    description = "GitLab snapshot folder from 'graphkit collect gitlab' (inventory, .gitlab-ci.yml files, scopes)"
    option = InputOption("DIR", "Snapshot folder written by 'graphkit collect gitlab' (runners, variables, "
                         "protected refs, pipeline files, unreadable scopes). Repeatable.")
    merge_rank = RANK_INVENTORY

    def expand(self, paths: Sequence[str | Path]) -> dict[str, list[str]]:
        """Inputs per source: this one keeps the folders, ``runners`` and ``gitlab-ci`` get their parts."""
        out: dict[str, list[str]] = {self.name: [str(p) for p in paths]}
        for raw in paths:
            root = Path(raw)
            doc = _snapshot(root)
            if (root / "inventory.yaml").is_file():
                out.setdefault("runners", []).append(str(root / "inventory.yaml"))
            instance = str(doc.get("instance") or "gitlab.com")
            for project in doc.get("projects") or []:
                folder = root / "checkouts" / str(project)
                if isinstance(project, str) and ".." not in project.split("/") and folder.is_dir():
                    out.setdefault("gitlab-ci", []).append(f"https://{instance}/{project}={folder}")
        return {k: v for k, v in out.items() if v}

    def count(self, paths: Sequence[str | Path]) -> int:
        """One item per folder."""
        return len(paths)

    def ingest(self, paths: Sequence[str | Path], progress: Progress | None = None) -> IngestResult:
        """Read each folder's ``snapshot.json``: a problem per unreadable scope (with its fix) and per folder
        without a readable one."""
        result = IngestResult()
        for raw in paths:
            file = Path(raw) / "snapshot.json"
            doc = _snapshot(Path(raw))
            if not Path(raw).is_dir():
                result.problems.append(InputError(str(raw), "", "no such directory (a snapshot folder written "
                                                  "by graphkit collect gitlab)"))
            elif not doc:
                result.problems.append(InputError(str(file), "schema", f"not a readable {SCHEMA} document"))
            else:
                result.items += 1
                for i, s in enumerate(doc.get("scopes") or []):
                    if isinstance(s, dict) and s.get("status") != "ok":
                        result.problems.append(InputError(str(file), f"scopes[{i}]", f"{s.get('resource')} of "
                                                          f"{s.get('scope')} unreadable (HTTP {s.get('http_status')}):"
                                                          f" {s.get('reason')}; fix: {s.get('fix')}"))
            if progress is not None:
                progress(1, f"{self.name} {raw}")
        return result


INGESTOR = GitLabSnapshotIngestor()
