"""The GitHub REST shapes the job history is read from (the fields graphkit uses; others are ignored).

- Workflow runs: "List workflow runs for a repository",
  ``GET /repos/{owner}/{repo}/actions/runs`` -> ``{"total_count", "workflow_runs": [run]}``
  (https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-repository).
- Jobs: "List jobs for a workflow run", ``GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs`` ->
  ``{"total_count", "jobs": [job]}`` (https://docs.github.com/en/rest/actions/workflow-jobs#list-jobs-for-a-workflow-run).
- Audit log: "Get the audit log for an organization", ``GET /orgs/{org}/audit-log`` -> ``[event]``
  (https://docs.github.com/en/enterprise-cloud@latest/rest/orgs/orgs#get-the-audit-log-for-an-organization;
  event fields: "Audit log events for your organization",
  https://docs.github.com/en/organizations/keeping-your-organization-secure/managing-security-settings-for-your-organization/audit-log-events-for-your-organization).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

__all__ = ["Account", "WorkflowRun", "WorkflowJob", "AuditEvent", "Location", "RUNNER_ACTIONS"]

#: The audit-log actions of runner registration and removal (GitHub docs "Audit log events for your
#: organization": ``org.register_self_hosted_runner`` "A new self-hosted runner was registered",
#: ``org.remove_self_hosted_runner`` "A self-hosted runner was removed", and the ``repo.`` equivalents).
RUNNER_ACTIONS = frozenset({"org.register_self_hosted_runner", "org.remove_self_hosted_runner",
                            "repo.register_self_hosted_runner", "repo.remove_self_hosted_runner"})


class _GitHub(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class Account(_GitHub):
    """A ``simple-user`` (only ``login`` is used)."""

    login: str


class _Repo(_GitHub):
    full_name: str


class WorkflowRun(_GitHub):
    """One ``workflow-run`` object: ``id``, ``path`` (``.github/workflows/ci.yml``), ``event``, ``actor``,
    ``triggering_actor``, ``head_branch``, ``head_sha``, ``run_started_at``, ``run_attempt``, ``repository``."""

    id: int
    name: str | None = None
    path: str | None = None
    event: str | None = None
    actor: Account | None = None
    triggering_actor: Account | None = None
    head_branch: str | None = None
    head_sha: str | None = None
    run_started_at: str | None = None
    created_at: str | None = None
    run_attempt: int | None = None
    repository: _Repo | None = None


class WorkflowJob(_GitHub):
    """One ``job`` object: ``id``, ``run_id``, ``name`` (display name), ``runner_id``, ``runner_name``,
    ``runner_group_name`` (null until a runner takes it), ``labels``, ``started_at``, ``completed_at``,
    ``head_branch``, ``head_sha``, ``workflow_name``, ``run_attempt``, ``conclusion``."""

    id: int
    run_id: int
    name: str
    run_attempt: int | None = None
    workflow_name: str | None = None
    runner_id: int | None = None
    runner_name: str | None = None
    runner_group_name: str | None = None
    labels: list[str] = Field(default_factory=list)
    status: str | None = None
    conclusion: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    head_branch: str | None = None
    head_sha: str | None = None
    run_url: str | None = None


class Location(_GitHub):
    """``actor_location``: ``country_code`` (ISO 3166-1 alpha-2)."""

    country_code: str | None = None


class AuditEvent(_GitHub):
    """One audit-log event: ``action``, ``actor``, ``actor_ip`` (only when IP disclosure is enabled),
    ``actor_location``, ``org``, ``repo`` (``owner/name`` for repository events), ``runner_id``,
    ``runner_name``, ``runner_group_name``, ``runner_labels``, ``@timestamp`` / ``created_at`` (milliseconds
    since the epoch)."""

    action: str
    actor: str | None = None
    actor_ip: str | None = None
    actor_location: Location | None = None
    org: str | None = None
    repo: str | None = None
    runner_id: int | None = None
    runner_name: str | None = None
    runner_group_name: str | None = None
    runner_labels: list[str] = Field(default_factory=list)
    timestamp: int | float | str | None = Field(default=None, validation_alias=AliasChoices("@timestamp", "timestamp"))
    created_at: int | float | str | None = None

    @field_validator("runner_labels", mode="before")
    @classmethod
    def _labels(cls, v: Any) -> Any:
        """``runner_labels`` may be a list or a comma-separated string."""
        return [x.strip() for x in v.split(",") if x.strip()] if isinstance(v, str) else v


Kind = Literal["runs", "jobs", "audit"]
