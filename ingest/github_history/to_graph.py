"""Pure models -> facts: the job history as :class:`~graphkit.model.ObservedRun` and the runner registrations as
:class:`~graphkit.model.RunnerEvent`, in ``meta["history"]`` (:class:`graphkit.meta.HistoryFacts`).

The join to the workflow jobs and runners of the graph needs the other sources (checkouts, inventory), so it
happens after the merge, in :mod:`graphkit.resolve.observed`; this step adds no node or edge.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from graphkit.errors import InputError
from graphkit.ingestor import IngestResult
from graphkit.meta import HistoryFacts
from graphkit.model import Evidence, ObservedRun, RunnerEvent, repo_key
from ingest.github_history.models import AuditEvent, WorkflowJob, WorkflowRun
from ingest.github_history.parse import Parsed

__all__ = ["META_KEY", "to_graph", "workflow_path", "event_time"]

META_KEY = "history"
_RUN_URL = re.compile(r"/repos/([^/]+/[^/]+)/actions/runs/\d+")


def workflow_path(path: str | None) -> str | None:
    """A run's ``path`` without the ``@ref`` GitHub appends for some runs (``.github/workflows/ci.yml@refs/heads/main``).

    >>> workflow_path(".github/workflows/ci.yml@refs/heads/main"), workflow_path(None)
    ('.github/workflows/ci.yml', None)
    """
    return path.split("@", 1)[0] if path else None


def event_time(value: int | float | str | None) -> str | None:
    """An audit-log time (``@timestamp``/``created_at``: milliseconds since the epoch, or ISO 8601) as ISO 8601 UTC.

    >>> event_time(1796119200000), event_time("2026-12-01T10:00:00Z"), event_time(None)
    ('2026-12-01T10:00:00Z', '2026-12-01T10:00:00Z', None)
    """
    if value is None or isinstance(value, str):
        return value
    return datetime.fromtimestamp(value / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _job_repo(p: Parsed, job: WorkflowJob) -> str:
    if p.owner:
        return p.owner
    m = _RUN_URL.search(job.run_url or "")
    return m.group(1) if m else ""


def _observed(repo: str, place: str, file: str, job: WorkflowJob, run: WorkflowRun | None) -> ObservedRun:
    actor = run.actor.login if run is not None and run.actor else None
    trig = run.triggering_actor.login if run is not None and run.triggering_actor else None
    return ObservedRun(
        repository=repo, workflow_path=workflow_path(run.path) if run else None,
        workflow_name=job.workflow_name or (run.name if run else None), name=job.name, job_id=job.id,
        run_id=job.run_id, run_attempt=job.run_attempt, runner_id=job.runner_id, runner_name=job.runner_name,
        runner_group_name=job.runner_group_name, labels=tuple(job.labels), started_at=job.started_at,
        completed_at=job.completed_at, conclusion=job.conclusion, head_branch=job.head_branch or (
            run.head_branch if run else None), head_sha=job.head_sha or (run.head_sha if run else None),
        event=run.event if run else None, actor=actor, triggering_actor=trig,
        run_started_at=run.run_started_at if run else None,
        evidence=Evidence(file=file, yaml_path=place, detail=f"GET /repos/{repo}/actions/runs/{job.run_id}/jobs"))


def _event(org: str, place: str, file: str, ev: AuditEvent) -> RunnerEvent:
    scope = ev.repo if ev.action.startswith("repo.") and ev.repo else (ev.org or org)
    return RunnerEvent(
        action=ev.action, at=event_time(ev.timestamp if ev.timestamp is not None else ev.created_at),
        actor=ev.actor, actor_ip=ev.actor_ip, actor_country=ev.actor_location.country_code if ev.actor_location
        else None, scope=scope, runner_name=ev.runner_name, runner_id=ev.runner_id,
        runner_group_name=ev.runner_group_name, labels=tuple(ev.runner_labels),
        evidence=Evidence(file=file, yaml_path=place, detail=f"GET /orgs/{ev.org or org}/audit-log"))


def _index_runs(parsed: list[Parsed], facts: HistoryFacts) -> dict[tuple[str, int], WorkflowRun]:
    """Runs by (repository, run id); the repositories and organizations read go to ``facts``."""
    runs: dict[tuple[str, int], WorkflowRun] = {}
    for p in parsed:
        if p.kind == "runs":
            for _, run in p.entries:
                assert isinstance(run, WorkflowRun)
                repo = p.owner or (run.repository.full_name if run.repository else "")
                runs[(repo_key(repo), run.id)] = run
            if p.owner:
                facts.repositories.append(repo_key(p.owner))
        elif p.kind == "audit" and p.owner:
            facts.audit_logs.append(p.owner.lower())
    return runs


def _job_run(p: Parsed, place: str, job: WorkflowJob, runs: dict[tuple[str, int], WorkflowRun],
             problems: list[InputError]) -> ObservedRun | None:
    repo = _job_repo(p, job)
    if not repo:
        problems.append(InputError(p.file, place, "left out: the repository of the job is not known (no "
                                   "history/OWNER/REPO path, no run_url)"))
        return None
    run = runs.get((repo_key(repo), job.run_id))
    if run is None:
        problems.append(InputError(p.file, place, f"run {job.run_id} is not in the runs read: its workflow path, "
                                   "event and actor are unknown"))
    return _observed(repo, place, p.file, job, run)


def to_graph(parsed: list[Parsed]) -> IngestResult:
    """Every parsed file -> ``meta["history"]``: runs joined to their jobs by ``run_id``.

    A job whose run is not in any ``runs.json`` is kept (workflow path, event and actor unknown) and named as a
    problem; a job whose repository cannot be told (neither the snapshot path nor ``run_url``) is a problem.
    """
    result = IngestResult()
    facts = HistoryFacts(files=sorted({p.file for p in parsed}))
    runs = _index_runs(parsed, facts)
    observed: list[ObservedRun] = []
    events: list[RunnerEvent] = []
    for p in parsed:
        for place, item in p.entries:
            if isinstance(item, AuditEvent):
                events.append(_event(p.owner, place, p.file, item))
            elif isinstance(item, WorkflowJob):
                one = _job_run(p, place, item, runs, result.problems)
                if one is not None:
                    observed.append(one)
    facts.runs = sorted(observed, key=lambda r: (repo_key(r.repository), r.run_id, r.job_id))
    facts.events = sorted(events, key=lambda e: (e.at or "", e.scope, e.runner_name or "", e.action))
    facts.repositories = sorted(set(facts.repositories))
    facts.audit_logs = sorted(set(facts.audit_logs))
    starts = [r.run_started_at or r.created_at for r in runs.values() if r.run_started_at or r.created_at]
    facts.since = min(starts) if starts else None  # type: ignore[type-var]
    result.meta[META_KEY] = facts
    return result
