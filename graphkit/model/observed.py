"""What the platform saw happen: job runs on runners (job history) and runner registration events (audit log).

These are facts read from GitHub's REST API (``ingest/github_history``), handed
to the resolver through ``graph.meta.history`` (:class:`graphkit.meta.HistoryFacts`);
:mod:`graphkit.resolve.observed` joins them to the workflow jobs and runners of
the graph (``ran_job`` edges, :attr:`graphkit.model.Runner.platform_events`).
Never a secret value: names, ids, times and places only.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graphkit.model.evidence import Evidence
from graphkit.redact import strip_embedded_urls

__all__ = ["ObservedRun", "RunnerEvent"]


class _Observed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _no_url_credentials(cls, data: Any) -> Any:
        """No text field keeps a URL credential (a branch or job name is whatever a pusher chose)."""
        if not isinstance(data, dict):
            return data
        return {k: strip_embedded_urls(v).url if isinstance(v, str) and "://" in v else v for k, v in data.items()}


class ObservedRun(_Observed):
    """One job of one workflow run, as GitHub's job history reports it.

    From "List jobs for a workflow run attempt" / "List jobs for a workflow run"
    (https://docs.github.com/en/rest/actions/workflow-jobs): ``job_id`` (job
    ``id``), ``name`` (the job's display name: the ``name:`` of the job, with
    the matrix values in parentheses for a matrix instance,
    ``build (ubuntu-latest, 3.11)``, or ``caller / called`` for a job of a
    called workflow), ``runner_id``, ``runner_name``, ``runner_group_name``
    (None until a runner picked the job up), ``labels`` (what ``runs-on``
    asked for), ``started_at``, ``completed_at`` (None while running),
    ``head_branch``, ``head_sha``, ``run_id``, ``run_attempt``,
    ``workflow_name``, ``conclusion``; and from "List workflow runs for a
    repository" (https://docs.github.com/en/rest/actions/workflow-runs):
    ``workflow_path`` (the run's ``path``, ``.github/workflows/ci.yml``, any
    ``@ref`` suffix removed), ``event``, ``actor``, ``triggering_actor``
    (logins), ``run_started_at``.  Times are ISO 8601 as GitHub writes them
    (``2026-11-30T10:00:00Z``).  ``repository`` is ``owner/name``.
    """

    repository: str
    workflow_path: str | None = None
    workflow_name: str | None = None
    name: str
    job_id: int
    run_id: int
    run_attempt: int | None = None
    runner_id: int | None = None
    runner_name: str | None = None
    runner_group_name: str | None = None
    labels: tuple[str, ...] = ()
    started_at: str | None = None
    completed_at: str | None = None
    conclusion: str | None = None
    head_branch: str | None = None
    head_sha: str | None = None
    event: str | None = None
    actor: str | None = None
    triggering_actor: str | None = None
    run_started_at: str | None = None
    evidence: Evidence

    def props(self) -> dict[str, object]:
        """The run facts an observed edge carries (JSON-ready, None left out)."""
        keys = ("run_id", "run_attempt", "job_id", "name", "workflow_name", "event", "actor", "triggering_actor",
                "head_branch", "head_sha", "started_at", "completed_at", "conclusion", "runner_id")
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


class RunnerEvent(_Observed):
    """A runner registration or removal in an organization's audit log.

    ``action``: ``org.register_self_hosted_runner``,
    ``org.remove_self_hosted_runner``, ``repo.register_self_hosted_runner``,
    ``repo.remove_self_hosted_runner`` (GitHub docs "Audit log events for your
    organization", https://docs.github.com/en/organizations/keeping-your-organization-secure/managing-security-settings-for-your-organization/audit-log-events-for-your-organization;
    REST "Get the audit log for an organization",
    https://docs.github.com/en/enterprise-cloud@latest/rest/orgs/orgs#get-the-audit-log-for-an-organization).
    ``at``: ISO 8601 UTC time of the event (from ``@timestamp`` / ``created_at``,
    milliseconds since the epoch).  ``actor``: login of who did it;
    ``actor_ip`` (present only when the enterprise discloses IP addresses)
    and ``actor_country`` (``actor_location.country_code``): from where.
    ``scope``: the org (``acme``) or repository (``acme/app``) the runner is
    registered to.  ``runner_name`` / ``runner_id`` / ``runner_group_name``
    as the event names them (None when absent).
    """

    action: str
    at: str | None = None
    actor: str | None = None
    actor_ip: str | None = None
    actor_country: str | None = None
    scope: str
    runner_name: str | None = None
    runner_id: int | None = None
    runner_group_name: str | None = None
    labels: tuple[str, ...] = Field(default_factory=tuple)
    evidence: Evidence

    @property
    def registers(self) -> bool:
        """True for a registration, False for a removal."""
        return self.action.endswith("register_self_hosted_runner")
