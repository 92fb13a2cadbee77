"""GitLab entries of the runner inventory format (``graphkit.runner-inventory/v1``), as pydantic models.

Field names follow the GitLab REST API: "Runners API" (``GET /runners/:id``, https://docs.gitlab.com/api/runners/),
"Project-level CI/CD variables API" (https://docs.gitlab.com/api/project_level_variables/, names and flags only,
never ``value``), "Group-level" and "Instance-level CI/CD variables API", "Protected branches API"
(https://docs.gitlab.com/api/protected_branches/), "Protected tags API" (https://docs.gitlab.com/api/protected_tags/)
and "Environments API" (https://docs.gitlab.com/api/environments/).  A field not given is **unknown** (None),
never empty.

Format (beside the GitHub sections of :mod:`ingest.runner_inventory.models`)::

    gitlab_instances:
      - url: https://gitlab.example.com
        variables: [{key: SHARED_NPM_TOKEN, protected: false}]
    gitlab_groups:
      - {instance: gitlab.example.com, full_path: acme, variables: [...], variables_complete: true}
    gitlab_projects:
      - instance: gitlab.example.com
        full_path: acme/platform/app
        visibility: private
        default_branch: main
        protected_branches: [main, release/*]      # wildcards: https://docs.gitlab.com/user/project/repository/branches/protected/
        protected_tags: [v*]
        environments: [{name: production, tier: production}]
        variables:
          - {key: AWS_DEPLOY_KEY, protected: true, masked: true, environment_scope: production}
    runners:                                         # GitLab runners are runner entries with platform: gitlab
      - name: shared-shell-01
        scope: gitlab.example.com                     # the instance host
        platform: gitlab
        host: build-07
        gitlab: {id: 42, runner_type: group_type, groups: [acme], tag_list: [linux, shell], run_untagged: true,
                 access_level: not_protected, paused: false, executor: shell}
"""

from __future__ import annotations

from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, field_validator

__all__ = ["GitLabEnvironment", "GitLabGroup", "GitLabInstance", "GitLabProject", "GitLabRunner", "GitLabVariable",
           "instance_host"]

_PATH = r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$"



def instance_host(url_or_host: str) -> str:
    """The lower-cased host (with a port when one is given) of a GitLab instance URL or host name.

    >>> instance_host("https://GitLab.example.com/"), instance_host("gitlab.com")
    ('gitlab.example.com', 'gitlab.com')
    """
    text = url_or_host.strip()
    if "://" in text:
        parts = urlsplit(text)
        return (parts.hostname or "").lower() + (f":{parts.port}" if parts.port else "")
    return text.rstrip("/").lower()


def _host(value: str) -> str:
    host = instance_host(value)
    if not host or any(c in host for c in "/@ "):
        raise ValueError("expected a GitLab host name or https:// URL")
    return host


_Host = Annotated[str, AfterValidator(_host)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GitLabVariable(_Model):
    """A CI/CD variable: its key and flags, never its value."""

    key: str = Field(pattern=r"^[A-Za-z0-9_]+$", description="Variable key (case-sensitive).")
    protected: StrictBool | None = Field(None, description="Only jobs on protected branches and tags receive it.")
    masked: StrictBool | None = Field(None, description="Masked in job logs (the job still receives it).")
    hidden: StrictBool | None = Field(None, description="Masked and hidden in the UI (the job still receives it).")
    raw: StrictBool | None = Field(None, description="Not expanded.")
    variable_type: Literal["env_var", "file"] | None = None
    environment_scope: str = Field("*", min_length=1, pattern=r"^[^:\n]+$",
                                   description="`*`, an environment name or a wildcard pattern (`review/*`).")


class GitLabEnvironment(_Model):
    """An environment of a project (``GET /projects/:id/environments``)."""

    name: str = Field(min_length=1, pattern=r"^[^:\n]+$")
    tier: Literal["production", "staging", "testing", "development", "other"] | None = None
    protected: StrictBool | None = Field(None, description="A protected environment (deployments need approval or "
                                   "allowed deployers).")


class GitLabInstance(_Model):
    """A GitLab instance and its instance-level CI/CD variables."""

    url: _Host = Field(description="Instance URL or host (`https://gitlab.com`).")
    variables: list[GitLabVariable] | None = None
    variables_complete: StrictBool = False


class GitLabGroup(_Model):
    """A group (``full_path`` with its parent groups) and its group-level CI/CD variables."""

    instance: _Host
    full_path: str = Field(pattern=_PATH)
    variables: list[GitLabVariable] | None = None
    variables_complete: StrictBool = False


class GitLabProject(_Model):
    """A project: visibility, protected branches and tags, environments, project-level CI/CD variables."""

    instance: _Host
    full_path: str = Field(pattern=_PATH)
    visibility: Literal["public", "private", "internal"] | None = None
    default_branch: str | None = None
    protected_branches: list[str] | None = Field(None, description="Protected branch names or wildcards "
                                                 "(`release/*`); null = unknown.")
    protected_tags: list[str] | None = Field(None, description="Protected tag names or wildcards; null = unknown.")
    environments: list[GitLabEnvironment] | None = None
    variables: list[GitLabVariable] | None = None
    variables_complete: StrictBool = False

    @field_validator("full_path")
    @classmethod
    def _two_parts(cls, v: str) -> str:
        if "/" not in v:
            raise ValueError("a project path is NAMESPACE/PROJECT")
        return v


class GitLabRunner(_Model):
    """The GitLab part of a runner entry (``GET /runners/:id``; executor and docker settings from ``config.toml``)."""

    id: int | None = Field(None, description="Runner id (also `id` in the runner's config.toml).")
    runner_type: Literal["instance_type", "group_type", "project_type"] | None = None
    tag_list: list[str] | None = None
    run_untagged: StrictBool | None = None
    locked: StrictBool | None = None
    access_level: Literal["not_protected", "ref_protected"] | None = None
    paused: StrictBool | None = None
    groups: list[Annotated[str, Field(pattern=_PATH)]] | None = Field(None, description="Group full paths.")
    projects: list[Annotated[str, Field(pattern=_PATH)]] | None = Field(None, description="Project full paths.")
    executor: str | None = Field(None, description="shell, docker, docker+machine, docker-autoscaler, kubernetes, "
                                 "instance, ssh, custom...")
    privileged: StrictBool | None = None
    docker_socket: StrictBool | None = None
    token_fingerprint: str | None = Field(None, pattern=r"^[0-9a-fA-F:]{4,128}$",
                                          description="Keyed hash of the runner authentication token "
                                          "(graphkit fingerprint), never the token.")
