"""The node kinds: one pydantic class per kind, each with its :class:`~graphkit.model.node.NodeSpec`."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from graphkit.redact import strip_url_fields

from graphkit.model.enums import Criticality, Lifetime, NodeKind, RevocationAction
from graphkit.model.evidence import Evidence
from graphkit.model.cloud import (CloudAccount, CloudGroup, CloudPolicy, CloudRole, CloudSecret, CloudUser,
                                  OIDCProvider)
from graphkit.model.gitlab_runners import GitLabRunnerInfo, GitLabVariableInfo
from graphkit.model.ids import id_format
from graphkit.model.jobs import IfVerdict, Job, RunsOnCandidate, SecretGrant, SecretRef, Trigger, UntrustedCode
from graphkit.model.k8s import KubeSecret, KubeServiceAccount, RunnerPods
from graphkit.model.node import MergeRule, Node, NodeSpec
from graphkit.model.observed import RunnerEvent

__all__ = ["Host", "LiteralCredential", "RunnerRegistration", "Runner", "RunnerGroup", "Organization", "Repository", "Workflow",
           "RunsOnCandidate", "Trigger", "SecretRef", "SecretGrant", "Job", "Secret", "GitHubToken", "OIDCIdentity",
           "CloudRole", "SigningKey", "BranchPolicy", "DeploymentTarget", "Cache", "Credential", "CloudUser",
           "CloudGroup",
           "CloudPolicy", "OIDCProvider", "CloudAccount", "CloudSecret", "UntrustedActor", "UntrustedCode",
           "IfVerdict", "KubeServiceAccount", "KubeSecret", "RunnerPods",
           "NODE_TYPES", "AnyNode", "NODE_ADAPTER",
           "NODE_ID_FORMATS", "node_kind"]


class Host(Node):
    """A machine that runs one or more runners (VM, bare metal, pod node)."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.HOST, revoked_by=RevocationAction.REIMAGE_HOST, label="Host",
                                        default_criticality=Criticality.HIGH,
                                        description="A build host running runner registrations")
    kind: Literal["host"] = "host"
    os: str | None = None
    #: "true"/"false" when known; None = unknown (never assumed empty)
    ephemeral: Annotated[bool | None, MergeRule.ANY_FALSE] = None
    #: live runner processes a host scan could tie to no registration (``Runner.Listener in /var/tmp/.q (pid 6000,
    #: user root)``); None = not scanned
    unknown_runner_processes: list[str] | None = None
    #: Kubernetes: the cluster (target id) whose nodes this host stands for, and the ``nodeSelector`` that picks
    #: them (:func:`graphkit.model.ids.k8s_node_pool`); None for a machine
    cluster: str | None = None
    node_selector: dict[str, str] | None = None


class RunnerRegistration(BaseModel):
    """What a host scan saw of one runner registration (never a secret value).

    Read from the actions/runner ``.runner`` file (``ConfigurationStore``:
    ``agentId``, ``poolId``, ``serverUrl``, ``gitHubUrl``, ``workFolder``) and
    its service unit or launchd plist, or from one GitLab ``config.toml``
    ``[[runners]]`` table (``url``, ``executor``, ``[runners.docker]``).
    ``config_path``: the file it was read from (absolute inside the scanned
    root).  ``url``: the GitHub URL (org or repository) or GitLab instance it
    serves.  ``user``: the account the runner process runs as, when known;
    ``runs_as_root`` None = unknown.  ``credential_path`` /
    ``credential_fingerprint``: the registration credential (``.credentials``
    + ``.credentials_rsaparams``, or the GitLab token) as a keyed truncated
    hash.  ``docker_socket``: jobs can reach the host's docker socket.
    ``url_credential_fingerprint``: ``url`` or ``server_url`` held a
    credential (userinfo or a token parameter), removed when the model is
    built (:func:`graphkit.redact.strip_url_credentials`); the keyed hash of
    what was removed.  ``agent_name``: the name the server knows (``.runner`` ``agentName``) when the node's name
    differs from it (a second installation of one scope and name on a host is told apart as ``name~2``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    config_path: str
    url: str | None = None
    server_url: str | None = None
    agent_id: int | None = None
    agent_name: str | None = None
    pool_id: int | None = None
    work_folder: str | None = None
    service: str | None = None
    user: str | None = None
    runs_as_root: bool | None = None
    executor: str | None = None
    privileged: bool | None = None
    docker_socket: bool | None = None
    credential_path: str | None = None
    credential_fingerprint: str | None = None
    url_credential_fingerprint: str | None = None
    #: what starts it again (``systemd /etc/systemd/system/x.service``, ``cron@reboot /var/spool/cron/crontabs/u:2``,
    #: ``profile /home/u/.bashrc:7 (nohup)``, ``session (tmux)``...): see :mod:`ingest.host.keepalive`
    kept_alive_by: list[str] | None = None
    #: kept alive or running outside the service its installer sets up (``svc.sh``'s unit, launchd plist,
    #: Windows service, ``gitlab-runner.service``): suspicious; None = unknown
    unsupervised: bool | None = None
    #: job hooks that run code for every job (``ACTIONS_RUNNER_HOOK_JOB_STARTED=/path``), GitHub docs "Running
    #: scripts before or after a job"
    job_hooks: list[str] | None = None
    #: ``runsvc.sh`` holds commands the script shipped with the runner does not
    runsvc_modified: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _strip_url_credentials(cls, data: Any) -> Any:
        """URLs never keep a credential, whoever wrote them (host scan, inventory, saved graph)."""
        return strip_url_fields(data) if isinstance(data, dict) else data


class Runner(Node):
    """A self-hosted runner registration, or an inferred pool of runners.

    ``labels`` include ``self-hosted`` for self-hosted runners (GitHub adds it
    automatically).  ``scope`` is the org (``acme``) or repository
    (``acme/app``) it is registered to.  ``ephemeral`` None means unknown, which
    the analysis treats as persistent (the worst case) and says so.
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.RUNNER, revoked_by=RevocationAction.REMOVE_RUNNER_REGISTRATION, label="Runner",
                                        default_criticality=Criticality.HIGH,
                                        description="A self-hosted runner registration (or an inferred pool)")
    kind: Literal["runner"] = "runner"
    labels: Annotated[list[str], MergeRule.UNION] = Field(default_factory=list)
    #: True when ``labels`` are GitHub's own list (the REST API's label objects, each with its ``type``): then
    #: ``self-hosted`` is a label only when listed (a runner registered with ``config.sh --no-default-labels``,
    #: https://github.com/actions/runner/pull/2443, has none of the default labels); otherwise it is implied
    #: (:mod:`graphkit.resolve.labels`)
    labels_exact: bool | None = None
    #: label patterns (``*`` any characters, case-insensitive) a runner or pool also answers to: third-party
    #: pools that register a runner per job with the job's labels (``runner=*``, ``run-id=*``)
    label_patterns: Annotated[list[str], MergeRule.UNION] = Field(default_factory=list)
    scope: str
    runner_group: str | None = None
    ephemeral: Annotated[bool | None, MergeRule.ANY_FALSE] = None
    host: str | None = None
    os: str | None = None
    status: str | None = None
    platform: Literal["github", "gitlab"] = "github"
    #: set when a host scan saw the registration on disk (``graphkit collect host``)
    registration: RunnerRegistration | None = None
    #: True when an org inventory (API or operator list) lists it; None = not listed / unknown
    in_inventory: bool | None = None
    #: GitLab runners: tags, run_untagged, access level, scope, executor (:mod:`graphkit.model.gitlab_runners`)
    gitlab: GitLabRunnerInfo | None = None

    @property
    def revoked_by(self) -> RevocationAction | None:
        """A GitLab runner is deleted (its authentication token dies with it, https://docs.gitlab.com/api/runners/#delete-a-runner)."""
        return RevocationAction.DELETE_GITLAB_RUNNER if self.platform == "gitlab" else self.spec.revoked_by
    #: registrations and removals of this runner in the org audit log (who, when, from where); None = no audit
    #: log read for its owner (:class:`~graphkit.model.observed.RunnerEvent`)
    platform_events: list[RunnerEvent] | None = None
    #: the platform's job history shows jobs that ran on it (``ran_job`` edges); None = no history read
    seen_in_history: bool | None = None
    #: an Actions Runner Controller pool (scale set, RunnerDeployment, RunnerSet): what its pods are
    pods: RunnerPods | None = None

    @property
    def unvetted(self) -> bool:
        """Seen on a host scan but listed by no inventory: a rogue or unknown registration."""
        return self.registration is not None and not self.in_inventory


class RunnerGroup(Node):
    """A GitHub runner group (GitHub docs "Managing access to self-hosted runners using groups").

    ``selected_repositories`` is None when the visibility is not ``selected`` or
    the list could not be read (then ``selected_repositories_known`` is False).
    ``selected_workflows`` entries are ``owner/repo/.github/workflows/x.yml@ref``.
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.RUNNER_GROUP, label="RunnerGroup",
                                        description="A runner group controlling which repos use its runners")
    kind: Literal["runner_group"] = "runner_group"
    owner: str
    visibility: Literal["all", "selected", "private"] = "all"
    selected_repositories: list[str] | None = None
    allows_public_repositories: bool = False
    restricted_to_workflows: bool = False
    selected_workflows: list[str] = Field(default_factory=list)


class Organization(Node):
    """A GitHub organization or user account owning repositories."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.ORGANIZATION, label="Organization",
                                        description="A GitHub organization (owner)")
    kind: Literal["organization"] = "organization"


class LiteralCredential(BaseModel):
    """A credential written literally in a repository's workflow or action file (the value is never kept).

    ``kind``: the token format (``GitHub Token``, ``AWS Access Key``, ``Private Key``, ``URL credential``,
    ``High-entropy assignment``...), see :mod:`graphkit.redact`; ``fingerprint``: keyed hash of the value;
    ``evidence``: file, repository, line and the nearest YAML path.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    fingerprint: str
    evidence: Evidence


class Repository(Node):
    """A repository (GitHub) or project (GitLab, ``platform="gitlab"``: ``full_name`` is the project path
    ``GROUP/SUBGROUP/PROJECT``, id :func:`graphkit.model.ids.gitlab_project`).  ``visibility`` None = unknown."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.REPOSITORY, label="Repository",
                                        default_criticality=Criticality.MEDIUM,
                                        description="A source repository")
    kind: Literal["repository"] = "repository"
    full_name: str
    platform: Literal["github", "gitlab"] = "github"
    visibility: Literal["public", "private", "internal"] | None = None
    default_branch: str | None = None
    #: name patterns of the protected branches (branch protection rules, rulesets); None = unknown
    protected_branches: list[str] | None = None
    #: public repositories: "Approval for running fork pull request workflows from contributors"
    #: (``first_time_contributors_new_to_github``, ``first_time_contributors`` (GitHub's default),
    #: ``all_external_contributors``); None = unknown
    fork_pr_approval: Literal["first_time_contributors_new_to_github", "first_time_contributors",
                              "all_external_contributors"] | None = None
    #: private/internal repositories: "Run workflows from fork pull requests" (off by default); None = unknown
    fork_pr_workflows: bool | None = None
    #: credentials written literally in its workflow and action files (finding ``literal-credential-in-workflow``)
    literal_credentials: Annotated[list[LiteralCredential], MergeRule.UNION] = Field(default_factory=list)


class Workflow(Node):
    """A workflow file.  ``triggers`` maps event name to its filter mapping (or {}).

    ``platform="gitlab"``: a GitLab project's pipeline configuration, ``path`` its root file
    (``.gitlab-ci.yml``), ``repository`` the project path; its jobs carry their own triggers
    (:class:`graphkit.model.gitlab.GitLabTrigger`).
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.WORKFLOW, label="Workflow",
                                        description="A GitHub Actions workflow file or a GitLab pipeline configuration")
    kind: Literal["workflow"] = "workflow"
    repository: str
    path: str
    platform: Literal["github", "gitlab"] = "github"
    triggers: dict[str, Any] = Field(default_factory=dict)
    reusable: bool = False


class Secret(Node):
    """A GitHub Actions secret.  Values are never read.

    ``scope``: ``org``, ``repo``, ``env``, ``unknown`` (referenced but not
    declared in any inventory) or ``all`` (every secret visible to a repository,
    when they could not be enumerated).
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.SECRET, revoked_by=RevocationAction.ROTATE_SECRET, label="Secret",
                                        copyable=True,
                                        default_criticality=Criticality.HIGH,
                                        description="A repository, organization or environment secret")
    kind: Literal["secret"] = "secret"
    secret_name: str
    scope: Literal["org", "repo", "env", "unknown", "all", "gitlab"]
    owner: str
    repository: str | None = None
    environment: str | None = None
    visibility: Literal["all", "private", "selected"] | None = None
    selected_repositories: list[str] | None = None
    #: GitLab CI/CD variables (scope ``gitlab``): level, protected, environment scope... (never the value)
    gitlab: GitLabVariableInfo | None = None

    @property
    def revoked_by(self) -> RevocationAction | None:
        """A GitLab CI/CD variable is rotated at its issuer, then updated in GitLab."""
        return RevocationAction.ROTATE_CICD_VARIABLE if self.gitlab is not None else self.spec.revoked_by


class GitHubToken(Node):
    """The job's GITHUB_TOKEN with its effective permissions."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.GITHUB_TOKEN, label="GitHubToken",
                                        default_criticality=Criticality.MEDIUM,
                                        description="A job's GITHUB_TOKEN")
    kind: Literal["github_token"] = "github_token"
    repository: str
    permissions: dict[str, str] = Field(default_factory=dict)
    permissions_source: Literal["job", "workflow", "caller", "default"] = "default"


class OIDCIdentity(Node):
    """What a job's OIDC token can claim (``iss``, candidate ``sub`` values, ``job_workflow_ref``).

    ``subjects``: the ``sub`` values the job presents, as the trust evaluation reads them
    (:func:`graphkit.cloud.presented_subjects`: the inventory's ``sub`` template and ids, the refs of its events,
    ``pull_request_target`` on the default branch; https://docs.github.com/en/actions/reference/security/oidc);
    ``workflow_subjects``: the default-template values the workflow ingestor wrote from the workflow alone
    (events, environments), what the evaluation starts from (None until resolved: ``subjects`` holds them).
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.OIDC_IDENTITY, label="OIDCIdentity",
                                        default_criticality=Criticality.MEDIUM,
                                        description="The OIDC claims a job with id-token: write can present")
    kind: Literal["oidc_identity"] = "oidc_identity"
    issuer: str = "https://token.actions.githubusercontent.com"
    repository: str
    subjects: list[str] = Field(default_factory=list)
    job_workflow_ref: str | None = None
    workflow_subjects: list[str] | None = None


class SigningKey(Node):
    """A signing key or keyless signing identity (cosign, sigstore, GPG, attestations)."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.SIGNING_KEY, revoked_by=RevocationAction.ROTATE_SIGNING_KEY, label="SigningKey",
                                        default_criticality=Criticality.CRITICAL,
                                        description="A key or identity that signs releases")
    kind: Literal["signing_key"] = "signing_key"
    scheme: str
    identifier: str


class BranchPolicy(BaseModel):
    """An environment's "Deployment branches and tags" rule (GitHub docs "Deployments and environments",
    https://docs.github.com/en/actions/reference/workflows-and-actions/deployments-and-environments#deployment-branches-and-tags).

    ``protected_branches``: "Protected branches only".  Otherwise "Selected
    branches and tags": ``branches`` / ``tags`` name patterns (Ruby
    ``File.fnmatch`` syntax); ``branches`` None when the list was not read.
    Which jobs pass it: :func:`graphkit.refs.environment_access`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    protected_branches: bool = False
    branches: tuple[str, ...] | None = ()
    tags: tuple[str, ...] = ()


class DeploymentTarget(Node):
    """Where artifacts or deployments land.

    ``target_type``: ``environment``, ``registry``, ``package_index``,
    ``bucket``, ``cluster``, ``function``, ``site`` or ``other``.
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.DEPLOYMENT_TARGET, label="DeploymentTarget",
                                        default_criticality=Criticality.HIGH,
                                        description="An environment, registry, package index, bucket or cluster")
    kind: Literal["deployment_target"] = "deployment_target"
    target_type: Literal["environment", "registry", "package_index", "bucket", "cluster", "function",
                         "site", "other"]
    identifier: str
    production: Annotated[bool | None, MergeRule.ANY_TRUE] = None
    #: environments: the deployment branch policy; None = no restriction or not known
    branch_policy: BranchPolicy | None = None
    #: environments: a required-reviewers protection rule holds every job that names it; None = unknown
    required_reviewers: bool | None = None


class Cache(Node):
    """A cache shared between jobs: an Actions cache namespace or a host-local folder."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CACHE, revoked_by=RevocationAction.PURGE_CACHE, label="Cache",
                                        default_criticality=Criticality.MEDIUM,
                                        description="A cache that later jobs restore")
    kind: Literal["cache"] = "cache"
    cache_type: Literal["actions", "host"]
    scope: str
    path: str | None = None
    #: runner ids whose jobs execute from it (a job hook, a work folder); None = every runner of the host
    read_by: list[str] | None = None
    #: runner ids whose jobs can change it; None = every runner of the host
    written_by: list[str] | None = None


class Credential(Node):
    """A credential stored on a host (presence and fingerprint only, never the value), or written literally in
    a repository's CI file.

    ``credential_type``: e.g. ``aws``, ``docker``, ``kube``, ``npm``, ``pypi``,
    ``gh``, ``git``, ``ssh``, ``gpg``, ``cosign``, ``runner``.  ``grants``: what
    it gives access to when readable from the file (profile, registry host...).
    ``fingerprint``: a truncated keyed hash, never reversible.

    ``credential_type="literal"`` (id :func:`graphkit.model.ids.literal_credential`): a value written in a
    workflow, action or ``.gitlab-ci.yml`` file of ``repository`` (finding ``literal-credential-in-workflow``):
    ``host`` is empty, ``path`` the first file holding it, ``literal_kind`` its token format
    (:class:`LiteralCredential`), ``evidence`` every place it is written.  Every job that receives it reads it
    (``reads_secret``, cut by ``rotate_credential``): anyone who reads the repository or holds a runner of such
    a job has it until it is rotated (semantics §2).
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CREDENTIAL, revoked_by=RevocationAction.ROTATE_CREDENTIAL, label="Credential",
                                        copyable=True,
                                        default_criticality=Criticality.HIGH,
                                        description="A credential stored on a host, or written literally in "
                                        "a repository's CI file")
    kind: Literal["credential"] = "credential"
    credential_type: str
    host: str
    path: str
    fingerprint: str | None = None
    lifetime: Lifetime = Lifetime.UNTIL_ROTATED
    grants: list[str] = Field(default_factory=list)
    #: the file names a URL holding a credential (userinfo, token parameter): keyed hash of the removed text
    url_credential_fingerprint: str | None = None
    #: runner ids whose user can read the file (host scan); None = unknown
    readable_by: list[str] | None = None
    #: GitHub token scopes or permissions when known (classic PAT scopes such as ``admin:org``,
    #: ``manage_runners:org``, ``repo``; fine-grained token / GitHub App permissions written
    #: ``permission:level``, e.g. ``organization_self_hosted_runners:write``, ``administration:write``);
    #: None = unknown.  Read by :mod:`graphkit.resolve.registration`.
    scopes: list[str] | None = None
    #: the GitHub owner (``org``) or repository (``owner/name``) the token or App installation acts on;
    #: None = unknown (then the owners of the host's runners, ``possible``)
    github_owner: str | None = None
    #: ``credential_type="literal"``: the repository (GitHub ``owner/name``, GitLab project path) whose file holds it
    repository: str | None = None
    #: ``credential_type="literal"``: the token format found (``GitHub Token``, ``AWS Access Key``...)
    literal_kind: str | None = None

    @property
    def revoked_by(self) -> RevocationAction | None:
        """A GitLab runner authentication token (``config.toml``) is reset, which kills every copy
        (https://docs.gitlab.com/api/runners/#reset-runners-authentication-token-by-using-the-runner-id)."""
        return RevocationAction.RESET_RUNNER_TOKEN if self.credential_type == "gitlab-runner" else self.spec.revoked_by

    @property
    def copy_lifetime(self) -> Lifetime | None:
        """A copy of the file's content lasts as long as the credential itself: its ``lifetime``."""
        return self.lifetime


class UntrustedActor(Node):
    """People who can run code in an owner's jobs without being trusted (issue 11, :mod:`graphkit.untrusted`).

    ``actor``: ``fork-pr`` (anyone who can fork a repository and open a pull
    request), ``comment`` (anyone who can comment on an issue or a pull
    request), ``org-member`` (members with write access).  ``owner``: whose
    jobs.
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.UNTRUSTED, label="UntrustedActor",
                                        default_criticality=Criticality.NONE,
                                        description="Untrusted people who can run code in an owner's jobs")
    kind: Literal["untrusted"] = "untrusted"
    actor: Literal["fork-pr", "comment", "org-member"]
    owner: str


#: Every node kind, in documentation order.
NODE_TYPES: dict[NodeKind, type[Node]] = {
    cls.spec.kind: cls
    for cls in [Host, Runner, RunnerGroup, Organization, Repository, Workflow, Job, Secret, GitHubToken,
                OIDCIdentity, CloudRole, SigningKey, DeploymentTarget, Cache, Credential, CloudUser, CloudGroup,
                CloudPolicy, OIDCProvider, CloudAccount, CloudSecret, UntrustedActor, KubeServiceAccount,
                KubeSecret]
}

AnyNode = Annotated[
    Union[Host, Runner, RunnerGroup, Organization, Repository, Workflow, Job, Secret, GitHubToken,
          OIDCIdentity, CloudRole, SigningKey, DeploymentTarget, Cache, Credential, CloudUser, CloudGroup,
          CloudPolicy, OIDCProvider, CloudAccount, CloudSecret, UntrustedActor, KubeServiceAccount, KubeSecret],
    Field(discriminator="kind"),
]
NODE_ADAPTER: TypeAdapter[Node] = TypeAdapter(AnyNode)


def node_kind(value: str) -> NodeKind:
    """Parse a user-given kind name: case-insensitive, ``-`` and ``_`` alike.

    Raises
    ------
    ValueError
        naming the valid kinds.
    """
    norm = value.strip().lower().replace("-", "_")
    for kind in NodeKind:
        if kind.value == norm or NODE_TYPES[kind].spec.label.lower() == norm:
            return kind
    raise ValueError(f"unknown node kind {value!r}; valid kinds: {', '.join(k.value for k in NodeKind)}")


#: The id column of the README: each kind's id forms (declared in :mod:`graphkit.model.ids`).
NODE_ID_FORMATS: dict[NodeKind, str] = {kind: id_format(kind) for kind in NodeKind}
