"""The runner inventory format ``graphkit.runner-inventory/v1`` as pydantic models (the input schema).

The JSON Schema shipped as ``schemas/runner-inventory.schema.json`` is
generated from :class:`RunnerInventory` (:func:`schema_text`; regenerate with
``python -m ingest.runner_inventory --write schemas/runner-inventory.schema.json``).
Field names follow the GitHub REST API where one exists
(``GET /orgs/{org}/actions/runners``, ``/runner-groups``, ``/actions/secrets``,
``GET /repos/{owner}/{repo}/environments``).  A field not given is **unknown**
(``None``), never empty.

Every value that becomes part of a node id (a host name, a secret name, a
runner name, a path...) is checked by the id constructor that will use it
(:mod:`graphkit.model.ids`): a value no id can hold fails validation at its
own place, like a wrong type, instead of failing later in ``to_graph``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator

from graphkit.model import Lifetime, RunnerRegistration, ids
from graphkit.redact import strip_embedded_urls
from ingest.runner_inventory.gitlab_models import GitLabGroup, GitLabInstance, GitLabProject, GitLabRunner

__all__ = ["SCHEMA_ID", "BranchPolicyEntry", "CredentialGrant", "DeploymentBranchPolicy", "Environment", "HostCache",
           "HostCredential", "HostEntry", "HostScanReport", "OIDCSubTemplate", "OrgSecret", "OrganizationEntry",
           "ProtectionRule", "RepositoryEntry", "RunnerEntry", "RunnerGroupEntry", "RunnerInventory", "RunnerLabel",
           "ScanProcess", "SkippedPath", "json_schema", "runner_id", "schema_text"]

#: Value of the top-level ``schema`` key.
SCHEMA_ID = "graphkit.runner-inventory/v1"

_NAME = r"^[A-Za-z0-9._-]+$"
_FULL_NAME = r"^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$"


def runner_id(scope_name: str) -> str:
    """The id of a runner named ``scope/name`` (``Owner[/Repo]/Name``) as ``readable_by`` names it.

    The name part is written as :func:`graphkit.model.ids.runner_ref` writes it (``/``, ``%``, quotes and
    control characters percent-encoded), so a reference splits at its last ``/``.

    Raises
    ------
    graphkit.model.ids.IdError
        when ``scope_name`` is not ``owner/name`` or ``owner/repo/name``.

    >>> runner_id("Acme/App/build-1")
    'runner:acme/app/build-1'
    >>> runner_id("evil-corp/evil%2F..%2Fx")
    'runner:evil-corp/evil%2F..%2Fx'
    """
    scope, sep, name = scope_name.rpartition("/")
    if not sep:
        raise ids.IdError(f"runner reference {scope_name!r} is not owner/name or owner/repo/name")
    return ids.runner(scope, ids.runner_name_of_part(name))


def _id_part(build: Callable[[str], str], *, empty_is_unknown: bool = False) -> AfterValidator:
    """A validator: the value must be usable by the id constructor ``build`` (its
    :class:`~graphkit.model.ids.IdError`, a ``ValueError``, becomes a validation error at the field's place).
    ``empty_is_unknown``: ``""`` is accepted and means "not given" (optional references)."""

    def check(value: str) -> str:
        if value or not empty_is_unknown:
            build(value)
        return value

    return AfterValidator(check)


#: Values that become part of node ids (checked with the constructor that uses them).
_SecretName = Annotated[str, _id_part(lambda v: ids.secret_org("o", v))]
_RepoName = Annotated[str, _id_part(ids.repository)]
_HostName = Annotated[str, _id_part(ids.host)]
_HostPath = Annotated[str, _id_part(lambda v: ids.credential("h", v))]
_GroupName = Annotated[str, _id_part(lambda v: ids.runner_group("o", v))]
_EnvName = Annotated[str, _id_part(lambda v: ids.environment("o/r", v))]
_RunnerName = Annotated[str, _id_part(lambda v: ids.runner("o", v))]
_RunnerRef = Annotated[str, _id_part(runner_id)]
_HostRef = Annotated[str, _id_part(ids.host, empty_is_unknown=True)]
_GroupRef = Annotated[str, _id_part(lambda v: ids.runner_group("o", v), empty_is_unknown=True)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OrgSecret(_Model):
    """An organization secret (``GET /orgs/{org}/actions/secrets``); name only, never a value."""

    name: _SecretName = Field(min_length=1, description="Secret name (case-insensitive; stored upper-case).")
    visibility: Literal["all", "private", "selected"] | None = Field(
        None, description="Which repositories see it: all, private (private and internal repos) or selected; "
        "null = unknown.")
    selected_repositories: list[str] | None = Field(
        None, description="owner/repo names when visibility is selected; null = unknown.")


class RunnerGroupEntry(_Model):
    """A runner group (``GET /orgs/{org}/actions/runner-groups``).

    GitHub docs "Managing access to self-hosted runners using groups".
    """

    name: _GroupName = Field(min_length=1)
    id: int | None = None
    visibility: Literal["all", "selected", "private"] = Field(
        description="all repositories, selected repositories, or private (private and internal repositories).")
    selected_repositories: list[_RepoName] | None = Field(
        None, description="owner/repo names when visibility is selected; null = unknown.")
    allows_public_repositories: StrictBool = Field(False, description="Public repositories may use the group "
                                             "(GitHub default: false).")
    restricted_to_workflows: StrictBool = False
    selected_workflows: list[str] | None = Field(
        None, description="owner/repo/.github/workflows/file.yml@ref entries when restricted_to_workflows; "
        "null = unknown.")


class OIDCSubTemplate(_Model):
    """OIDC subject claim customisation (``GET /orgs/{org}/actions/oidc/customization/sub``)."""

    use_default: StrictBool | None = None
    include_claim_keys: list[str] | None = None
    use_immutable_subject: StrictBool | None = Field(
        None, description="The repository (or organization) presents immutable subjects "
        "repo:OWNER@OWNER_ID/REPO@REPO_ID:... (GitHub docs \"OpenID Connect reference\", immutable subject claims: "
        "repositories created, renamed or transferred after 2026-07-15, or opted in); null = unknown (name-based).")


class OrganizationEntry(_Model):
    """An organization (or user account owning repositories)."""

    name: str = Field(pattern=_NAME)
    id: int | None = Field(None, description="Numeric owner id (OIDC repository_owner_id claim).")
    secrets: list[OrgSecret] | None = Field(None, description="Organization secrets; null = unknown.")
    secrets_complete: StrictBool = Field(False, description="True when `secrets` lists every organization secret.")
    runner_groups: list[RunnerGroupEntry] | None = Field(None, description="Runner groups; null = unknown.")
    runners_complete: StrictBool = Field(False, description="True when `runners` lists every runner (and runner pool) "
                                   "registered to the organization and its repositories: a self-hosted label set "
                                   "none of them takes stays queued (no runner pool is inferred).")
    oidc_sub_template: OIDCSubTemplate | None = None


class ProtectionRule(_Model):
    """An environment protection rule (``GET /repos/{owner}/{repo}/environments``)."""

    type: str = Field(description="required_reviewers, wait_timer, branch_policy or a custom rule type.")
    wait_timer: int | None = None
    reviewers: list[str] | None = Field(None, description="User or team names (owner/team).")


class BranchPolicyEntry(_Model):
    """One "Selected branches and tags" name pattern
    (``GET /repos/{owner}/{repo}/environments/{env}/deployment-branch-policies``)."""

    name: str = Field(min_length=1, description="Name pattern (Ruby File.fnmatch syntax: `*` does not match `/`).")
    type: Literal["branch", "tag"] = "branch"


class DeploymentBranchPolicy(_Model):
    """Which branches and tags may deploy to an environment (``deployment_branch_policy`` of
    ``GET /repos/{owner}/{repo}/environments``; GitHub docs "Deployments and environments",
    https://docs.github.com/en/actions/reference/workflows-and-actions/deployments-and-environments#deployment-branches-and-tags).

    ``protected_branches``: only protected branches deploy.  ``custom_branch_policies``: only the names
    matching ``branch_policies`` (null = the list was not read: any ref *may* pass).  Give no
    ``deployment_branch_policy`` (null) for "No restriction".
    """

    protected_branches: StrictBool | None = None
    custom_branch_policies: StrictBool | None = None
    branch_policies: list[BranchPolicyEntry] | None = Field(
        None, description="The selected branch and tag name patterns; null = not read.")


class Environment(_Model):
    """A deployment environment of a repository."""

    name: _EnvName = Field(min_length=1)
    secrets: list[_SecretName] | None = Field(None, description="Environment secret names; null = unknown.")
    secrets_complete: StrictBool = Field(False, description="True when `secrets` lists every environment secret.")
    protection_rules: list[ProtectionRule] | None = None
    deployment_branch_policy: DeploymentBranchPolicy | None = None
    production: StrictBool | None = Field(None, description="Override the name-based production guess.")


class RepositoryEntry(_Model):
    """A repository (``GET /repos/{owner}/{repo}``)."""

    full_name: str = Field(pattern=_FULL_NAME)
    id: int | None = None
    visibility: Literal["public", "private", "internal"] | None = None
    default_branch: str | None = None
    protected_branches: list[str] | None = Field(
        None, description="Name patterns of protected branches (branch protection rules and rulesets); "
        "null = unknown.")
    fork_pr_approval: Literal["first_time_contributors_new_to_github", "first_time_contributors",
                              "all_external_contributors"] | None = Field(
        None, description="Public repositories: 'Approval for running fork pull request workflows from "
        "contributors' (GET /repos/{owner}/{repo}/actions/permissions/fork-pr-contributor-approval); null = unknown.")
    fork_pr_workflows: StrictBool | None = Field(
        None, description="Private/internal repositories: 'Run workflows from fork pull requests' "
        "(GET /repos/{owner}/{repo}/actions/permissions/fork-pr-workflows-private-repos); null = unknown.")
    secrets: list[_SecretName] | None = Field(None, description="Repository secret names; null = unknown.")
    secrets_complete: StrictBool = Field(False, description="True when `secrets` lists every repository secret.")
    environments: list[Environment] | None = None
    oidc_sub_template: OIDCSubTemplate | None = None


class CredentialGrant(_Model):
    """What holding an on-disk credential gives: an edge ``credential -> target``.

    ``target`` is a graphkit node id of kind cloud_role (``cloud_role:aws:<arn>``, ``access: assumes_role``),
    cloud_user (``cloud_user:aws:<user arn>``, ``access: authenticates_as``: the user's access key; ``assumes_role``
    is read as ``authenticates_as`` there), deployment_target (``target:<type>:<identifier>``), signing_key
    (``signing_key:<scheme>:<identifier>``) or repository (``repo:<owner>/<repo>``).
    """

    access: Literal["assumes_role", "authenticates_as", "deploys_to", "publishes_to", "signs_with",
                    "writes_repository"] = Field(
        description="The edge: `assumes_role` (a cloud_role), `authenticates_as` (a cloud_user: an IAM user's access "
        "key; `assumes_role` on a cloud_user is read as it), `deploys_to`/`publishes_to` (a target), `signs_with` "
        "(a signing_key), `writes_repository` (a repo).")
    target: str = Field(min_length=3)


class HostCredential(_Model):
    """A credential file on a host: presence and a fingerprint, never the value."""

    credential_type: str = Field(description="aws, docker, kube, npm, pypi, gh, git, ssh, gpg, cosign, runner...")
    path: _HostPath = Field(min_length=1)
    fingerprint: str | None = Field(None, pattern=r"^[0-9a-fA-F:]{4,128}$",
                                    description="Truncated keyed hash (hex), never the value.")
    lifetime: Lifetime = Lifetime.UNTIL_ROTATED
    grants: list[CredentialGrant] | None = None
    access: list[str] | None = Field(None, description="What it gives access to as read from the file, never a "
                                     "value: `profile:NAME`, `registry:HOST`, `cluster:SERVER`, `index:URL`...")
    readable_by: list[_RunnerRef] | None = Field(None, description="Runners of this host (`scope/name`) whose user can "
                                          "read the file (host scan); null = unknown.")
    scopes: list[str] | None = Field(None, description="GitHub token scopes or App permissions, when known: classic "
                                     "`admin:org`, `manage_runners:org`, `repo`; fine-grained/App "
                                     "`organization_self_hosted_runners:write`, `administration:write`. null = unknown.")
    github_owner: str | None = Field(None, pattern=r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)?$",
                                     description="Organization (`acme`) or repository (`acme/app`) the token or App "
                                     "installation acts on; null = unknown.")
    url_credential_fingerprint: str | None = Field(None, description="A URL the file names held a credential "
                                                   "(removed): keyed hash of it, never the value.")

    @model_validator(mode="before")
    @classmethod
    def _no_url_credentials(cls, data: Any) -> Any:
        """Access descriptors and grant targets never keep a URL credential (``cluster:https://user:pw@...``);
        one that held one sets ``url_credential_fingerprint`` (finding ``credential-in-url``)."""
        if not isinstance(data, dict):
            return data
        data, removed = dict(data), []

        def clean(text: Any) -> Any:
            if not isinstance(text, str):
                return text
            c = strip_embedded_urls(text)
            if c.fingerprint:
                removed.append(c.fingerprint)
            return c.url
        if isinstance(data.get("access"), list):
            data["access"] = [clean(a) for a in data["access"]]
        if isinstance(data.get("grants"), list):
            data["grants"] = [{**g, "target": clean(g.get("target"))} if isinstance(g, dict) else g
                              for g in data["grants"]]
        if removed and not data.get("url_credential_fingerprint"):
            data["url_credential_fingerprint"] = removed[0]
        return data


class HostCache(_Model):
    """A host-local cache folder (or job hook, or socket) that jobs on the host reuse."""

    path: _HostPath = Field(min_length=1)
    kind: str | None = Field(None, description="toolcache, docker, pip, npm, work, job-hook...")
    read_by: list[_RunnerRef] | None = Field(None, description="Runners (`scope/name`) whose jobs execute from it "
                                             "(a job hook, a work folder); null = every runner of the host.")
    written_by: list[_RunnerRef] | None = Field(None, description="Runners whose jobs can change it; null = every "
                                                "runner of the host.")


class SkippedPath(_Model):
    """A folder a host scan did not search, or a file it did not read, and why."""

    path: str
    reason: str = Field(description="pseudo filesystem, package or VCS data, unreadable, depth limit, entry limit, "
                        "time limit; for a file not read: link out of root, link loop, not a regular file, file "
                        "too large")


class ScanProcess(_Model):
    """A live runner process (``/proc``): never its arguments or environment values."""

    pid: int
    command: str = Field(description="Runner.Listener, Runner.Worker or gitlab-runner")
    user: str | None = None
    uid: int | None = None
    parent_pid: int | None = None
    parent: str | None = Field(None, description="The parent's command name.")
    cwd: str | None = None
    started_after_boot_s: float | None = None
    unit: str | None = Field(None, description="The systemd unit or session scope it runs in (cgroup).")
    env_keys: list[str] | None = Field(None, description="Names of runner-relevant environment variables, never "
                                       "values.")
    registration: str | None = Field(None, description="The registration (`scope/name`) whose folder it runs "
                                     "from; null = none known.")


class HostScanReport(_Model):
    """How a host scan went: who ran it, its limits, what it could not read or did not search."""

    user: str | None = None
    uid: int | None = None
    limits: dict[str, float] | None = None
    entries: int | None = Field(None, description="Directory entries the signature search visited.")
    skip_counts: dict[str, int] | None = Field(None, description="Folders not searched and files not read, "
                                               "counted by reason.")
    skipped: list[SkippedPath] | None = Field(None, description="Folders not searched and files not "
                                             "read (the first 200).")
    unreadable: list[str] | None = Field(None, description="Paths the scanning user could not read.")
    processes: list[ScanProcess] | None = None
    installs_without_registration: list[str] | None = Field(
        None, description="Folders with runner binaries or credentials but no `.runner`.")


class HostEntry(_Model):
    """A machine running runner registrations."""

    name: _HostName = Field(min_length=1)
    os: str | None = None
    ephemeral: StrictBool | None = None
    credentials: list[HostCredential] | None = None
    caches: list[HostCache] | None = None
    scan: HostScanReport | None = Field(None, description="How the host scan went (`graphkit collect host`).")


class RunnerLabel(_Model):
    """A runner label as the REST API returns it."""

    name: str = Field(min_length=1)
    id: int | None = None
    type: Literal["read-only", "custom"] | None = None


class RunnerEntry(_Model):
    """A self-hosted runner registration (``GET /orgs/{org}/actions/runners``)."""

    name: _RunnerName = Field(min_length=1)
    id: int | None = None
    labels: list[str | RunnerLabel] | None = Field(None, description="Runner labels (strings or API label "
                                                   "objects); `self-hosted` is implied, unless every label is an API "
                                                   "object with its `type` (GitHub's own list: a runner registered "
                                                   "with `--no-default-labels` lacks it); null = unknown (host scan).")
    label_patterns: list[str] | None = Field(
        None, description="Label patterns the runner (or a third-party pool that registers one runner per job "
        "with the job's labels) answers to: `*` any characters, case-insensitive (`runner=*`, `run-id=*`).")
    scope: str = Field(pattern=r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)?$",
                       description="Organization (`acme`) or repository (`acme/app`) it is registered to.")
    runner_group: _GroupRef | None = Field(None, description="Group of an org runner (default `Default`).")
    ephemeral: StrictBool | None = None
    host: _HostRef | None = None
    os: str | None = None
    status: str | None = None
    busy: StrictBool | None = None
    platform: Literal["github", "gitlab"] | None = Field(None, description="CI platform (default github).")
    registration: RunnerRegistration | None = Field(
        None, description="What a host scan saw on disk (`graphkit collect host`); a runner with it is host-observed, "
        "one without it is listed by an inventory.")
    gitlab: GitLabRunner | None = Field(None, description="GitLab runners (platform gitlab, scope: the instance "
                                        "host): tags, run_untagged, access level, paused, scope, executor.")

    def labels_exact(self) -> bool:
        """Whether ``labels`` are the REST API's list (label objects, each with its ``type``): GitHub lists the
        default labels (``self-hosted``, OS, architecture) as ``read-only`` ones, so a list without
        ``self-hosted`` is a runner registered with ``config.sh --no-default-labels``
        (https://github.com/actions/runner/pull/2443)."""
        return bool(self.labels) and all(isinstance(x, RunnerLabel) and x.type is not None for x in self.labels or [])

    def label_names(self) -> list[str]:
        """Label names, ``self-hosted`` first if not given (and the list is not the API's, :meth:`labels_exact`)."""
        names = [x if isinstance(x, str) else x.name for x in self.labels or []]
        if self.labels_exact() or "self-hosted" in {n.lower() for n in names}:
            return names
        return ["self-hosted", *names]

    @field_validator("labels")
    @classmethod
    def _nonempty_labels(cls, v: list[Any] | None) -> list[Any] | None:
        for x in v or []:
            if isinstance(x, str) and not x.strip():
                raise ValueError("empty label")
        return v


class RunnerInventory(_Model):
    """Top level of a ``graphkit.runner-inventory/v1`` file."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="graphkit runner inventory v1")

    schema_: Literal["graphkit.runner-inventory/v1"] = Field(alias="schema")
    organizations: list[OrganizationEntry] | None = None
    repositories: list[RepositoryEntry] | None = None
    hosts: list[HostEntry] | None = None
    runners: list[RunnerEntry] | None = None
    github_hosted_labels: list[str] | None = Field(None, description="Extra labels to treat as GitHub-hosted.")
    self_hosted_labels: list[str] | None = Field(None, description="Labels never treated as GitHub-hosted.")
    gitlab_instances: list[GitLabInstance] | None = Field(None, description="GitLab instances (instance variables).")
    gitlab_groups: list[GitLabGroup] | None = Field(None, description="GitLab groups (group variables).")
    gitlab_projects: list[GitLabProject] | None = Field(None, description="GitLab projects (protected refs, "
                                                        "environments, project variables).")


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the format, generated from :class:`RunnerInventory`.

    Returns
    -------
    dict
        JSON Schema (draft 2020-12) with ``$id`` and ``title``.
    """
    schema = RunnerInventory.model_json_schema(by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://graphkit.dev/schemas/runner-inventory.schema.json", **schema}


def schema_text() -> str:
    """The shipped schema file's exact text (sorted keys, 2-space indent, trailing newline)."""
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
