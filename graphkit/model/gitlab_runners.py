"""GitLab facts carried by runner and variable nodes (issue 14): what decides routing and variable delivery.

Kept beside the node classes (:mod:`graphkit.model.nodes`) as small frozen models, set on
:attr:`~graphkit.model.Runner.gitlab` and :attr:`~graphkit.model.Secret.gitlab` (None on GitHub nodes).
Field names follow the GitLab REST API: "Runners API" (https://docs.gitlab.com/api/runners/) and
"Project-level CI/CD variables API" (https://docs.gitlab.com/api/project_level_variables/).  A field that is
None is **unknown**, never a default.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["GitLabRunnerInfo", "GitLabVariableInfo", "RUNNER_TYPES"]

#: ``runner_type`` values of the Runners API and the scope each serves: ``instance_type`` every project of the
#: instance, ``group_type`` the projects of its groups (and their subgroups), ``project_type`` its projects
#: (https://docs.gitlab.com/ci/runners/runners_scope/).
RUNNER_TYPES = ("instance_type", "group_type", "project_type")


class GitLabRunnerInfo(BaseModel):
    """A GitLab runner's routing and persistence facts (``GET /runners/:id``).

    ``tag_list``: the runner's tags (a job's ``tags`` must all be among them,
    https://docs.gitlab.com/ci/yaml/#tags); ``run_untagged``: it also takes jobs without tags;
    ``access_level``: ``ref_protected`` runners take only jobs on protected branches and tags
    (https://docs.gitlab.com/ci/runners/configure_runners/#prevent-runners-from-revealing-sensitive-information);
    ``paused``: takes no new job; ``locked``: cannot be assigned to other projects; ``groups`` / ``projects``:
    full paths it is assigned to (group and project runners; None = unknown); ``executor``: ``shell``,
    ``docker``, ``docker+machine``, ``docker-autoscaler``, ``kubernetes``, ``instance``, ``ssh``, ``custom``...
    (https://docs.gitlab.com/runner/executors/); ``privileged`` / ``docker_socket``: a docker or kubernetes
    executor whose jobs control the host (``[runners.docker] privileged`` or a mounted ``docker.sock``,
    https://docs.gitlab.com/runner/security/); ``token_fingerprint``: keyed hash of the runner authentication
    token (:func:`graphkit.redact.fingerprint`), never the token; ``instance``: the GitLab host.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    instance: str
    runner_id: int | None = None
    runner_type: Literal["instance_type", "group_type", "project_type"] | None = None
    tag_list: tuple[str, ...] | None = None
    run_untagged: bool | None = None
    locked: bool | None = None
    access_level: Literal["not_protected", "ref_protected"] | None = None
    paused: bool | None = None
    groups: tuple[str, ...] | None = None
    projects: tuple[str, ...] | None = None
    executor: str | None = None
    privileged: bool | None = None
    docker_socket: bool | None = None
    token_fingerprint: str | None = None


class GitLabVariableInfo(BaseModel):
    """A GitLab CI/CD variable's delivery facts (names and flags only, never its value).

    ``level``: ``instance``, ``group`` or ``project`` (https://docs.gitlab.com/ci/variables/); ``path``: the
    group or project full path (the instance host for instance variables); ``protected``: only jobs on protected
    branches and tags receive it (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable);
    ``environment_scope``: ``*`` (every job), an environment name or a wildcard pattern
    (https://docs.gitlab.com/ci/environments/#limit-the-environment-scope-of-a-cicd-variable); ``masked`` /
    ``hidden``: hidden in job logs / in the UI (the job still receives the value); ``raw``: not expanded;
    ``variable_type``: ``env_var`` or ``file`` (the value is written to a file on the runner and the variable
    holds its path).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    level: Literal["instance", "group", "project"]
    path: str
    protected: bool | None = None
    masked: bool | None = None
    hidden: bool | None = None
    raw: bool | None = None
    environment_scope: str = "*"
    variable_type: Literal["env_var", "file"] | None = None
