"""GitHub job history and runner audit log ingestor (``--github-history DIR``): what actually ran, and where.

Reads, from a directory (a ``graphkit collect github`` snapshot, layout in ``CONTRACTS.md``), GitHub's REST
responses exactly as documented:

- ``history/OWNER/REPO/runs.json``: ``{"total_count", "workflow_runs": [...]}``, "List workflow runs for a
  repository" (https://docs.github.com/en/rest/actions/workflow-runs), all pages merged;
- ``history/OWNER/REPO/jobs/RUN_ID.json``: ``{"total_count", "jobs": [...]}``, "List jobs for a workflow run"
  (https://docs.github.com/en/rest/actions/workflow-jobs);
- ``audit-log/ORG.json``: the JSON array of "Get the audit log for an organization"
  (https://docs.github.com/en/enterprise-cloud@latest/rest/orgs/orgs#get-the-audit-log-for-an-organization);
  only runner registrations and removals are used (:data:`~ingest.github_history.models.RUNNER_ACTIONS`).

:mod:`~ingest.github_history.parse` (pure: text -> entries, a bad entry is a problem naming file and place),
:mod:`~ingest.github_history.to_graph` (pure: entries -> ``meta["history"]``,
:class:`graphkit.meta.HistoryFacts`).  The resolver (:mod:`graphkit.resolve.observed`) joins each observed job
to its workflow job and runner (``ran_job`` edges) once every source is merged.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from graphkit.ingestor import RANK_INVENTORY, Collected, FileIngestor, IngestResult, InputFile, InputOption
from graphkit.registry import lazy_package

#: re-exported names -> their module, imported on first use (``graphkit --help`` reads the ingestor's option
#: without importing the parser)
_EXPORTS = {"parse": ("Parsed", "parse", "place_of"), "to_graph": ("META_KEY", "to_graph")}

__all__ = ["INGESTOR", "META_KEY", "GitHubHistoryIngestor", "Parsed", "parse", "place_of", "to_graph"]

_PATTERNS = ("history/*/*/runs.json", "history/*/*/jobs/*.json", "audit-log/*.json")


class GitHubHistoryIngestor(FileIngestor["Parsed"]):
    """The ``github-history`` ingestor: job runs (runner, time, event, actor) and runner registration events."""

    name = "github-history"
    description = "GitHub job history and audit log (REST responses): which jobs ran on which runner, when"
    option = InputOption("DIR", "Folder holding history/OWNER/REPO/runs.json, history/OWNER/REPO/jobs/*.json and "
                         "audit-log/ORG.json as 'graphkit collect github' writes them (GitHub REST shapes). "
                         "Repeatable.")
    nothing_found = "no history/OWNER/REPO/runs.json, jobs/*.json or audit-log/*.json found"
    merge_rank = RANK_INVENTORY

    def collect(self, paths: Sequence[str | Path]) -> Collected:
        """Files of the snapshot layout under each folder (sorted), and files named alone."""
        from graphkit.files import found_files
        from ingest.github_history.parse import place_of
        out = Collected()
        for raw in paths:
            p = Path(raw)
            if p.is_dir():
                found, skipped = found_files(q for pat in _PATTERNS for q in p.glob(pat))
                out.problems += skipped
                out.files += [InputFile(path=q, name=str(q), given=False, root=p,
                                        context=place_of(str(q.relative_to(p)))) for q in found]
            else:
                out.files.append(InputFile(path=p, name=str(p), root=p, context=place_of(str(p))))
        return out

    def parse(self, text: str, file: InputFile) -> "Parsed":
        """:func:`~ingest.github_history.parse.parse` with the kind and owner the path names."""
        from ingest.github_history.parse import parse
        return parse(text, file.name, file.context)

    def to_graph(self, parsed: list["Parsed"], collected: Collected) -> IngestResult:
        """:func:`~ingest.github_history.to_graph.to_graph`."""
        from ingest.github_history.to_graph import to_graph
        return to_graph(parsed)


INGESTOR = GitHubHistoryIngestor()


lazy_package(__name__, _EXPORTS)
