"""The graph model, declared once.

Every node kind is a pydantic model class (a subclass of :class:`Node`) and every
edge kind is an entry of :data:`EDGE_SPECS`.  Everything else -- networkx
attributes, the JSON file format, Neo4j labels and statements, exports and the
schema table in the README -- is derived from these declarations; nothing else
in graphkit may name a label or relationship type by hand.

Semantics (what an edge *means*) follow ``shared/docs/semantics.md``: an edge
``A -> B`` is **traversable** when an attacker who controls ``A`` can obtain, act
as, or tamper with ``B``.  Edges that only record facts (a repository *has* a
workflow) are declared ``traversable=False``.

Stable ids
----------
Node ids are pure functions of the input (never of file order, time, machine or
line numbers) and are documented per kind in :data:`NODE_ID_FORMATS`.  GitHub
owner and repository names are case-insensitive, so they are lower-cased in ids
(display names keep the original case).  Secret names are case-insensitive in
GitHub and stored upper-case, so ids upper-case them.
"""

from __future__ import annotations

import math
from enum import Enum
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

__all__ = [
    "Confidence",
    "Criticality",
    "CRITICALITY_WEIGHT",
    "Lifetime",
    "LIFETIME_SECONDS",
    "RevocationAction",
    "REVOCATION_SPECS",
    "Evidence",
    "Node",
    "NodeKind",
    "NODE_TYPES",
    "AnyNode",
    "EdgeKind",
    "EdgeSpec",
    "EDGE_SPECS",
    "Edge",
    "RunnerRegistration",
    "node_kind",
    "node_id",
]


# --------------------------------------------------------------------------- enums


class Confidence(str, Enum):
    """How sure an edge is.

    ``certain``: decided from complete data.  ``possible``: depends on something
    not known (a run-time expression, a trust policy not ingested, an org setting
    not readable).  A path is ``possible`` if any edge on it is.
    """

    CERTAIN = "certain"
    POSSIBLE = "possible"


class Criticality(str, Enum):
    """How much an asset matters when reached.

    Signing keys, production deployments, package publishing and cloud admin are
    ``critical``.  Weights used by the revocation plan are in
    :data:`CRITICALITY_WEIGHT`.
    """

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    NONE = "none"


#: Weight of a reached node in the weighted blast radius, by criticality.
CRITICALITY_WEIGHT: dict[Criticality, int] = {
    Criticality.CRITICAL: 100,
    Criticality.HIGH: 20,
    Criticality.MEDIUM: 5,
    Criticality.LOW: 1,
    Criticality.NONE: 0,
}


class Lifetime(str, Enum):
    """How long what an edge grants stays usable (semantics §6).

    Seconds are in :data:`LIFETIME_SECONDS`; ``None`` there means "until someone
    acts" (rotation, removal, purge, reimage), i.e. unbounded.
    """

    #: Structural fact, grants nothing by itself.
    NOT_APPLICABLE = "not_applicable"
    #: GitHub OIDC JWT: about 5 minutes.
    OIDC_TOKEN = "oidc_token"
    #: Runner registration token: 1 hour.
    REGISTRATION_TOKEN = "registration_token"
    #: STS session bought with a web identity: 15 min to 12 h (role max session).
    CLOUD_SESSION = "cloud_session"
    #: Until the job ends, at most 24 h (GITHUB_TOKEN, a job's environment).
    PER_JOB = "per_job"
    #: Until the runner registration is removed (GitHub removes runners offline
    #: for 14 days; ephemeral runners after one job).
    UNTIL_RUNNER_REMOVED = "until_runner_removed"
    #: Until the secret, key or credential is rotated.
    UNTIL_ROTATED = "until_rotated"
    #: Until the cache entry is purged or evicted.
    UNTIL_PURGED = "until_purged"
    #: Until the host is reimaged.
    UNTIL_REIMAGED = "until_reimaged"
    #: Until an access grant (trust policy, group access, permission) is changed.
    UNTIL_REVOKED = "until_revoked"


#: Upper bound in seconds of each lifetime; ``None`` = unbounded (until acted on).
#: Sources: GitHub docs "Automatic token authentication" (24 h job limit),
#: "OpenID Connect reference"; AWS STS ``DurationSeconds`` (900 s - 43,200 s).
LIFETIME_SECONDS: dict[Lifetime, float | None] = {
    Lifetime.NOT_APPLICABLE: 0.0,
    Lifetime.OIDC_TOKEN: 300.0,
    Lifetime.REGISTRATION_TOKEN: 3600.0,
    Lifetime.CLOUD_SESSION: 43200.0,
    Lifetime.PER_JOB: 86400.0,
    Lifetime.UNTIL_RUNNER_REMOVED: None,
    Lifetime.UNTIL_ROTATED: None,
    Lifetime.UNTIL_PURGED: None,
    Lifetime.UNTIL_REIMAGED: None,
    Lifetime.UNTIL_REVOKED: None,
}


def lifetime_seconds(lifetime: Lifetime) -> float:
    """Upper bound of ``lifetime`` in seconds, ``math.inf`` when unbounded."""
    value = LIFETIME_SECONDS[lifetime]
    return math.inf if value is None else value


class RevocationAction(str, Enum):
    """Actions that cut access, named as responders say them."""

    REMOVE_RUNNER_REGISTRATION = "remove_runner_registration"
    RESTRICT_RUNNER_GROUP = "restrict_runner_group"
    REIMAGE_HOST = "reimage_host"
    ROTATE_SECRET = "rotate_secret"
    ROTATE_CREDENTIAL = "rotate_credential"
    ROTATE_SIGNING_KEY = "rotate_signing_key"
    REDUCE_TOKEN_PERMISSIONS = "reduce_token_permissions"
    REMOVE_ID_TOKEN_PERMISSION = "remove_id_token_permission"
    NARROW_TRUST_POLICY = "narrow_trust_policy"
    REVOKE_ROLE_SESSIONS = "revoke_role_sessions"
    RESTRICT_ENVIRONMENT = "restrict_environment"
    PURGE_CACHE = "purge_cache"
    ROTATE_ACCESS_KEYS = "rotate_access_keys"


class RevocationSpec(BaseModel):
    """A revocation action's documentation.

    What the action does to the graph is derived from the model: it cuts every
    edge that names it in ``revoked_by`` (on the edge's revoke subject), and when
    it is the ``revoked_by`` of the subject node's kind (:class:`NodeSpec`) it
    also invalidates that node (a rotated secret, a removed registration, a
    reimaged host are worthless even to an attacker who already holds them).
    """

    model_config = ConfigDict(frozen=True)

    action: RevocationAction
    description: str


REVOCATION_SPECS: dict[RevocationAction, RevocationSpec] = {
    spec.action: spec
    for spec in [
        RevocationSpec(action=RevocationAction.REMOVE_RUNNER_REGISTRATION,
                       description="Remove the runner registration (GitHub: Settings > Actions > Runners > Remove; "
                       "invalidates .credentials)"),
        RevocationSpec(action=RevocationAction.RESTRICT_RUNNER_GROUP,
                       description="Restrict the runner group to selected repositories/workflows"),
        RevocationSpec(action=RevocationAction.REIMAGE_HOST,
                       description="Reimage the host (persistence on the host is assumed)"),
        RevocationSpec(action=RevocationAction.ROTATE_SECRET,
                       description="Rotate the secret at its issuer, then update the stored value"),
        RevocationSpec(action=RevocationAction.ROTATE_CREDENTIAL,
                       description="Rotate the on-disk credential at its issuer and delete the file"),
        RevocationSpec(action=RevocationAction.ROTATE_SIGNING_KEY,
                       description="Rotate the signing key and revoke signatures made after the compromise"),
        RevocationSpec(action=RevocationAction.REDUCE_TOKEN_PERMISSIONS,
                       description="Reduce the job's GITHUB_TOKEN permissions (workflow/job permissions block)"),
        RevocationSpec(action=RevocationAction.REMOVE_ID_TOKEN_PERMISSION,
                       description="Remove id-token: write from the job"),
        RevocationSpec(action=RevocationAction.NARROW_TRUST_POLICY,
                       description="Narrow the cloud role's trust policy (sub/aud conditions), then revoke its "
                       "active sessions (AWS: inline Deny on aws:TokenIssueTime; issued sessions last up to the "
                       "role's max session, 12 h)"),
        RevocationSpec(action=RevocationAction.REVOKE_ROLE_SESSIONS,
                       description="Revoke active sessions (AWS: inline Deny on aws:TokenIssueTime)"),
        RevocationSpec(action=RevocationAction.RESTRICT_ENVIRONMENT,
                       description="Add deployment protection rules (required reviewers, branch policy)"),
        RevocationSpec(action=RevocationAction.PURGE_CACHE,
                       description="Purge the cache (GitHub: gh cache delete --all; host: delete the folder)"),
        RevocationSpec(action=RevocationAction.ROTATE_ACCESS_KEYS,
                       description="Deactivate and rotate the IAM user's access keys (aws iam update-access-key "
                       "--status Inactive, then create new ones)"),
    ]
}


# --------------------------------------------------------------------------- evidence


class Evidence(BaseModel):
    """Where a node or edge came from.

    ``file``: for a repository checkout the path relative to the checkout root
    (with ``repository`` set), otherwise the path as given on the command line,
    or an API object such as ``GET /orgs/acme/actions/runners``.
    ``yaml_path``: dotted path with ``[i]`` indexes, e.g.
    ``jobs.build.steps[2].with.role-to-assume``.  ``line`` is 1-based when known.
    ``detail`` holds a short non-secret excerpt (an expression, a command), never
    a secret value.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    repository: str | None = None
    yaml_path: str | None = None
    line: int | None = None
    detail: str | None = None

    def __str__(self) -> str:
        where = f"{self.repository}:{self.file}" if self.repository else self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.yaml_path:
            where += f" ({self.yaml_path})"
        return where


def _merge_evidence(a: list[Evidence], b: list[Evidence]) -> list[Evidence]:
    seen = set(a)
    return a + [e for e in b if e not in seen and not seen.add(e)]  # type: ignore[func-returns-value]


# --------------------------------------------------------------------------- nodes


class NodeKind(str, Enum):
    """Documented node kind names (used by ``--kind``, JSON and exports)."""

    HOST = "host"
    RUNNER = "runner"
    RUNNER_GROUP = "runner_group"
    ORGANIZATION = "organization"
    REPOSITORY = "repository"
    WORKFLOW = "workflow"
    JOB = "job"
    SECRET = "secret"
    GITHUB_TOKEN = "github_token"
    OIDC_IDENTITY = "oidc_identity"
    CLOUD_ROLE = "cloud_role"
    SIGNING_KEY = "signing_key"
    DEPLOYMENT_TARGET = "deployment_target"
    CACHE = "cache"
    CREDENTIAL = "credential"
    CLOUD_USER = "cloud_user"
    CLOUD_GROUP = "cloud_group"
    CLOUD_POLICY = "cloud_policy"
    OIDC_PROVIDER = "oidc_provider"
    CLOUD_ACCOUNT = "cloud_account"
    CLOUD_SECRET = "cloud_secret"


#: Stable id format of each node kind.  ``{owner}``/``{repo}`` are lower-cased,
#: secret ``{NAME}`` upper-cased; ``{path}`` is the posix path inside the checkout.
NODE_ID_FORMATS: dict[NodeKind, str] = {
    NodeKind.HOST: "host:{hostname}",
    NodeKind.RUNNER: "runner:{owner}[/{repo}]/{name} | runner:inferred:{owner}:{label+label...}",
    NodeKind.RUNNER_GROUP: "runner_group:{owner}/{group}",
    NodeKind.ORGANIZATION: "org:{owner}",
    NodeKind.REPOSITORY: "repo:{owner}/{repo}",
    NodeKind.WORKFLOW: "workflow:{owner}/{repo}/{path}",
    NodeKind.JOB: "job:{owner}/{repo}/{path}#{job}[>{callee owner}/{callee repo}/{callee path}#{callee job}...]",
    NodeKind.SECRET: "secret:org:{owner}:{NAME} | secret:repo:{owner}/{repo}:{NAME} | "
    "secret:env:{owner}/{repo}:{environment}:{NAME} | secret:{owner}/{repo}:{NAME} (scope unknown) | "
    "secret:all:{owner}/{repo} (every secret visible, not enumerated)",
    NodeKind.GITHUB_TOKEN: "github_token:{job id without 'job:'}",
    NodeKind.OIDC_IDENTITY: "oidc:{job id without 'job:'}",
    NodeKind.CLOUD_ROLE: "cloud_role:aws:{role arn} | cloud_role:gcp:{service account or provider} | "
    "cloud_role:azure:{client id}",
    NodeKind.SIGNING_KEY: "signing_key:{scheme}:{identifier}",
    NodeKind.DEPLOYMENT_TARGET: "target:{target_type}:{identifier}",
    NodeKind.CACHE: "cache:actions:{owner}/{repo} | cache:host:{hostname}:{path}",
    NodeKind.CREDENTIAL: "credential:{hostname}:{path}",
    NodeKind.CLOUD_USER: "cloud_user:aws:{user arn}",
    NodeKind.CLOUD_GROUP: "cloud_group:aws:{group arn}",
    NodeKind.CLOUD_POLICY: "cloud_policy:aws:{policy arn} | cloud_policy:file:{path} (a policy document file)",
    NodeKind.OIDC_PROVIDER: "oidc_provider:aws:{provider arn}",
    NodeKind.CLOUD_ACCOUNT: "cloud_account:aws:{account id}",
    NodeKind.CLOUD_SECRET: "cloud_secret:aws:{secret or parameter arn (pattern with *)}",
}


class NodeSpec(BaseModel):
    """Class-level declaration of a node kind.

    ``label``: the Neo4j label (and BloodHound kind suffix).  ``holdable``: an
    attacker who reached it keeps it after losing the path to it (a stolen
    secret, a copied registration credential, a poisoned cache) until a
    revocation action invalidates it.
    """

    model_config = ConfigDict(frozen=True)

    kind: NodeKind
    label: str
    description: str
    default_criticality: Criticality = Criticality.LOW
    #: the action that invalidates a node of this kind (None: not a credential)
    revoked_by: RevocationAction | None = None

    @property
    def holdable(self) -> bool:
        """True for credential-like kinds (those with a ``revoked_by`` action)."""
        return self.revoked_by is not None


class Node(BaseModel):
    """Base of every node kind.

    Shapes: ``id`` (stable, see :data:`NODE_ID_FORMATS`), ``name`` (display),
    ``criticality``, ``inferred`` (true when graphkit made the node up from
    indirect evidence, e.g. an inferred runner pool), ``evidence`` (where it was
    seen; never empty for ingested nodes).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    spec: ClassVar[NodeSpec]

    id: str
    name: str
    criticality: Criticality | None = None
    inferred: bool = False
    evidence: list[Evidence] = Field(default_factory=list)

    @model_validator(mode="after")
    def _default_criticality(self) -> "Node":
        if self.criticality is None:
            object.__setattr__(self, "criticality", self.spec.default_criticality)
        return self

    def merged(self, other: "Node") -> "Node":
        """Combine two observations of the same node.

        Fields explicitly set on ``other`` win, except that an observed node
        replaces an inferred one and never the reverse; evidence is unioned.

        Raises
        ------
        ValueError
            if the ids or kinds differ.
        """
        if other.id != self.id or type(other) is not type(self):
            raise ValueError(f"cannot merge {self.id!r} ({self.spec.kind.value}) "
                             f"with {other.id!r} ({other.spec.kind.value})")
        if other.inferred and not self.inferred:
            base, extra = self, other
        else:
            base, extra = other, self
        update = {k: getattr(base, k) for k in base.model_fields_set if k not in ("evidence",)}
        out = extra.model_copy(update=update)
        out.evidence = _merge_evidence(self.evidence, other.evidence)
        if "criticality" not in base.model_fields_set:
            out.criticality = max([self.criticality, other.criticality], key=lambda c: CRITICALITY_WEIGHT[c])
        out.inferred = self.inferred and other.inferred
        return out


class Host(Node):
    """A machine that runs one or more runners (VM, bare metal, pod node)."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.HOST, revoked_by=RevocationAction.REIMAGE_HOST, label="Host",
                                        default_criticality=Criticality.HIGH,
                                        description="A build host running runner registrations")
    kind: Literal["host"] = "host"
    os: str | None = None
    #: "true"/"false" when known; None = unknown (never assumed empty)
    ephemeral: bool | None = None


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
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    config_path: str
    url: str | None = None
    server_url: str | None = None
    agent_id: int | None = None
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
    labels: list[str] = Field(default_factory=list)
    scope: str
    runner_group: str | None = None
    ephemeral: bool | None = None
    host: str | None = None
    os: str | None = None
    status: str | None = None
    platform: Literal["github", "gitlab"] = "github"
    #: set when a host scan saw the registration on disk (``graphkit collect host``)
    registration: RunnerRegistration | None = None
    #: True when an org inventory (API or operator list) lists it; None = not listed / unknown
    in_inventory: bool | None = None

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


class Repository(Node):
    """A repository.  ``visibility`` None = unknown."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.REPOSITORY, label="Repository",
                                        default_criticality=Criticality.MEDIUM,
                                        description="A source repository")
    kind: Literal["repository"] = "repository"
    full_name: str
    visibility: Literal["public", "private", "internal"] | None = None
    default_branch: str | None = None


class Workflow(Node):
    """A workflow file.  ``triggers`` maps event name to its filter mapping (or {})."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.WORKFLOW, label="Workflow",
                                        description="A GitHub Actions workflow file")
    kind: Literal["workflow"] = "workflow"
    repository: str
    path: str
    triggers: dict[str, Any] = Field(default_factory=dict)
    reusable: bool = False


class RunsOnCandidate(BaseModel):
    """One label set a job (or one matrix instance of it) asks for.

    ``labels`` as written (matching is case-insensitive); ``group`` from the
    ``{group, labels}`` form; ``matrix`` the matrix values of that instance.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    labels: tuple[str, ...]
    group: str | None = None
    matrix: dict[str, Any] | None = None
    confidence: Confidence = Confidence.CERTAIN
    evidence: Evidence


class SecretRef(BaseModel):
    """A secret name a job reads, as seen by the repository whose secrets it sees."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    evidence: Evidence


class SecretGrant(BaseModel):
    """A secret used as the credential of an action (e.g. PYPI_TOKEN for a publish step).

    The resolver adds an edge ``secret -> target`` of ``edge_kind``: whoever
    holds the secret has that access from anywhere, until it is rotated.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    edge_kind: "EdgeKind"
    target: str
    evidence: Evidence


class Job(Node):
    """A job of a workflow (for a reusable workflow: one instance per caller).

    Routing facts consumed by :mod:`graphkit.resolve`:

    - ``runs_on``: candidate label sets (matrix expanded).
    - ``runs_on_unresolved``: set when ``runs-on`` holds an expression that cannot
      be evaluated statically: the job may run on any runner its repository can
      use (``possible``).
    - ``secret_refs``: names read through ``secrets.NAME`` / ``secrets['NAME']``
      (as names of ``secrets_repository``, i.e. the caller's for reusable jobs).
    - ``all_secrets``: evidence of ``toJSON(secrets)`` / dynamic ``secrets[...]``
      / ``secrets: inherit`` into a callee that does so.
    - ``environment``: the deployment environment name, if any.
    - ``permissions``: effective GITHUB_TOKEN scopes (scope -> read|write|none);
      ``permissions_source``: ``job``, ``workflow``, ``caller`` or ``default``
      (no block: the repository/org default applies, not known statically).
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.JOB, label="Job", default_criticality=Criticality.LOW,
                                        description="A workflow job; future runs of it reach what it reaches")
    kind: Literal["job"] = "job"
    repository: str
    workflow_path: str
    job_key: str
    secrets_repository: str
    runs_on: list[RunsOnCandidate] = Field(default_factory=list)
    runs_on_unresolved: Evidence | None = None
    environment: str | None = None
    secret_refs: list[SecretRef] = Field(default_factory=list)
    secret_grants: list[SecretGrant] = Field(default_factory=list)
    all_secrets: Evidence | None = None
    permissions: dict[str, str] = Field(default_factory=dict)
    permissions_source: Literal["job", "workflow", "caller", "default"] = "default"
    caller: str | None = None


class Secret(Node):
    """A GitHub Actions secret.  Values are never read.

    ``scope``: ``org``, ``repo``, ``env``, ``unknown`` (referenced but not
    declared in any inventory) or ``all`` (every secret visible to a repository,
    when they could not be enumerated).
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.SECRET, revoked_by=RevocationAction.ROTATE_SECRET, label="Secret",
                                        default_criticality=Criticality.HIGH,
                                        description="A repository, organization or environment secret")
    kind: Literal["secret"] = "secret"
    secret_name: str
    scope: Literal["org", "repo", "env", "unknown", "all"]
    owner: str
    repository: str | None = None
    environment: str | None = None
    visibility: Literal["all", "private", "selected"] | None = None
    selected_repositories: list[str] | None = None


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
    """What a job's OIDC token can claim (``iss``, candidate ``sub`` values, ``job_workflow_ref``)."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.OIDC_IDENTITY, label="OIDCIdentity",
                                        default_criticality=Criticality.MEDIUM,
                                        description="The OIDC claims a job with id-token: write can present")
    kind: Literal["oidc_identity"] = "oidc_identity"
    issuer: str = "https://token.actions.githubusercontent.com"
    repository: str
    subjects: list[str] = Field(default_factory=list)
    job_workflow_ref: str | None = None


class CloudRole(Node):
    """A cloud identity that can be assumed (AWS role, GCP service account, Azure app).

    ``trust``: ``known`` once the trust policy is ingested, else ``unknown``.
    ``pattern``: true when the identifier keeps only the literal parts of an
    expression (``*`` stands for the rest).
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CLOUD_ROLE, label="CloudRole",
                                        default_criticality=Criticality.HIGH,
                                        description="A cloud role or service account")
    kind: Literal["cloud_role"] = "cloud_role"
    provider: Literal["aws", "gcp", "azure"]
    identifier: str
    account: str | None = None
    trust: Literal["known", "unknown"] = "unknown"
    pattern: bool = False
    #: AWS: the trust policy document as exported (None = not ingested)
    trust_policy: dict[str, Any] | None = None
    #: the trust accepts GitHub OIDC claims of any branch, PR, environment or repository (a door any push
    #: to a matching repository opens, whatever runner it uses); set by :mod:`graphkit.cloud`
    broad_trust: bool = False
    permissions_boundary: str | None = None
    instance_profiles: list[str] = Field(default_factory=list)


class SigningKey(Node):
    """A signing key or keyless signing identity (cosign, sigstore, GPG, attestations)."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.SIGNING_KEY, revoked_by=RevocationAction.ROTATE_SIGNING_KEY, label="SigningKey",
                                        default_criticality=Criticality.CRITICAL,
                                        description="A key or identity that signs releases")
    kind: Literal["signing_key"] = "signing_key"
    scheme: str
    identifier: str


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
    production: bool | None = None


class Cache(Node):
    """A cache shared between jobs: an Actions cache namespace or a host-local folder."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CACHE, revoked_by=RevocationAction.PURGE_CACHE, label="Cache",
                                        default_criticality=Criticality.MEDIUM,
                                        description="A cache that later jobs restore")
    kind: Literal["cache"] = "cache"
    cache_type: Literal["actions", "host"]
    scope: str
    path: str | None = None


class Credential(Node):
    """A credential stored on a host (presence and fingerprint only, never the value).

    ``credential_type``: e.g. ``aws``, ``docker``, ``kube``, ``npm``, ``pypi``,
    ``gh``, ``git``, ``ssh``, ``gpg``, ``cosign``, ``runner``.  ``grants``: what
    it gives access to when readable from the file (profile, registry host...).
    ``fingerprint``: a truncated keyed hash, never reversible.
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CREDENTIAL, revoked_by=RevocationAction.ROTATE_CREDENTIAL, label="Credential",
                                        default_criticality=Criticality.HIGH,
                                        description="A credential stored on a host")
    kind: Literal["credential"] = "credential"
    credential_type: str
    host: str
    path: str
    fingerprint: str | None = None
    lifetime: Lifetime = Lifetime.UNTIL_ROTATED
    grants: list[str] = Field(default_factory=list)
    #: runner ids whose user can read the file (host scan); None = unknown
    readable_by: list[str] | None = None


class CloudUser(Node):
    """An AWS IAM user: its access keys are long-lived credentials (until rotated).

    ``access_keys``: active access key count from a credential report (None =
    unknown).  ``policies``: identity policy documents as exported (inline,
    attached managed default versions, group policies), used by the resolver.
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CLOUD_USER, revoked_by=RevocationAction.ROTATE_ACCESS_KEYS,
                                        label="CloudUser", default_criticality=Criticality.HIGH,
                                        description="An IAM user (access keys: long-lived)")
    kind: Literal["cloud_user"] = "cloud_user"
    provider: Literal["aws"] = "aws"
    arn: str
    account: str
    groups: list[str] = Field(default_factory=list)
    permissions_boundary: str | None = None
    access_keys: int | None = None


class CloudGroup(Node):
    """An AWS IAM group (its policies apply to its users)."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CLOUD_GROUP, label="CloudGroup",
                                        description="An IAM group")
    kind: Literal["cloud_group"] = "cloud_group"
    arn: str
    account: str


class CloudPolicy(Node):
    """A managed IAM policy (its default version) or a policy document file.

    ``document``: the default version's document (only it applies).
    ``placeholders``: ``${...}`` template placeholders left unresolved (Terraform
    or CloudFormation templates).  ``policy_type``: ``identity`` or ``trust``.
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CLOUD_POLICY, label="CloudPolicy",
                                        description="A managed IAM policy or policy document")
    kind: Literal["cloud_policy"] = "cloud_policy"
    arn: str | None = None
    account: str | None = None
    default_version: str | None = None
    versions: int = 1
    document: dict[str, Any] | None = None
    policy_type: Literal["identity", "trust"] = "identity"
    placeholders: list[str] = Field(default_factory=list)


class OIDCProvider(Node):
    """An IAM OIDC identity provider (e.g. ``token.actions.githubusercontent.com``)."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.OIDC_PROVIDER, label="OIDCProvider",
                                        description="An IAM OIDC identity provider")
    kind: Literal["oidc_provider"] = "oidc_provider"
    arn: str
    account: str | None = None
    url: str
    client_ids: list[str] | None = None


class CloudAccount(Node):
    """A cloud account; reaching it means administrator access to it."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CLOUD_ACCOUNT, label="CloudAccount",
                                        default_criticality=Criticality.CRITICAL,
                                        description="A cloud account (reached: administrator access)")
    kind: Literal["cloud_account"] = "cloud_account"
    provider: Literal["aws"] = "aws"
    account: str


class CloudSecret(Node):
    """A secret stored in a cloud service (Secrets Manager secret, SSM parameter), or a pattern of them."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CLOUD_SECRET, revoked_by=RevocationAction.ROTATE_SECRET,
                                        label="CloudSecret", default_criticality=Criticality.HIGH,
                                        description="A Secrets Manager secret or SSM parameter")
    kind: Literal["cloud_secret"] = "cloud_secret"
    service: Literal["secretsmanager", "ssm"]
    resource: str
    pattern: bool = False


#: Every node kind, in documentation order.
NODE_TYPES: dict[NodeKind, type[Node]] = {
    cls.spec.kind: cls
    for cls in [Host, Runner, RunnerGroup, Organization, Repository, Workflow, Job, Secret, GitHubToken,
                OIDCIdentity, CloudRole, SigningKey, DeploymentTarget, Cache, Credential, CloudUser, CloudGroup,
                CloudPolicy, OIDCProvider, CloudAccount, CloudSecret]
}

AnyNode = Annotated[
    Union[Host, Runner, RunnerGroup, Organization, Repository, Workflow, Job, Secret, GitHubToken,
          OIDCIdentity, CloudRole, SigningKey, DeploymentTarget, Cache, Credential, CloudUser, CloudGroup,
          CloudPolicy, OIDCProvider, CloudAccount, CloudSecret],
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


# --------------------------------------------------------------------------- edges


class EdgeKind(str, Enum):
    """Edge kind names; Neo4j relationship types are the upper-cased names."""

    # structural (not traversable)
    OWNS = "owns"
    HAS_WORKFLOW = "has_workflow"
    HAS_JOB = "has_job"
    CALLS_WORKFLOW = "calls_workflow"
    MEMBER_OF = "member_of"
    ALLOWS_REPOSITORY = "allows_repository"
    HAS_SECRET = "has_secret"
    HAS_POLICY = "has_policy"
    IN_GROUP = "in_group"
    TRUSTS_PROVIDER = "trusts_provider"
    # traversable
    HOSTS = "hosts"
    RUNS_ON_HOST = "runs_on_host"
    RECEIVES_JOB = "receives_job"
    READS_SECRET = "reads_secret"
    HAS_TOKEN = "has_token"
    WRITES_REPOSITORY = "writes_repository"
    MINTS_OIDC = "mints_oidc"
    ASSUMES_ROLE = "assumes_role"
    SIGNS_WITH = "signs_with"
    DEPLOYS_TO = "deploys_to"
    PUBLISHES_TO = "publishes_to"
    WRITES_CACHE = "writes_cache"
    RESTORES_INTO = "restores_into"
    SHARES_CACHE = "shares_cache"
    STORES_CREDENTIAL = "stores_credential"
    AUTHENTICATES_AS = "authenticates_as"
    ADMINISTERS = "administers"


class EdgeSpec(BaseModel):
    """Declaration of an edge kind.

    ``rel_type``: Neo4j relationship type.  ``sources``/``targets``: allowed
    node kinds (checked on insert).  ``lifetime``: default lifetime of what it
    grants.  ``revoked_by`` + ``revoke_subject``: the action that cuts it and
    whether that action applies to the edge's source or target node.
    """

    model_config = ConfigDict(frozen=True)

    kind: EdgeKind
    rel_type: str
    traversable: bool
    sources: frozenset[NodeKind]
    targets: frozenset[NodeKind]
    lifetime: Lifetime = Lifetime.NOT_APPLICABLE
    revoked_by: RevocationAction | None = None
    revoke_subject: Literal["source", "target"] = "target"
    description: str
    #: when the source node (of one of these kinds) is invalidated, the target goes with it: reimaging a host
    #: wipes its local caches (copied credentials, by contrast, stay valid until rotated)
    wiped_with_source: frozenset[NodeKind] = frozenset()


def _spec(kind: EdgeKind, traversable: bool, sources: set[NodeKind], targets: set[NodeKind], description: str,
          lifetime: Lifetime = Lifetime.NOT_APPLICABLE, revoked_by: RevocationAction | None = None,
          revoke_subject: Literal["source", "target"] = "target",
          wiped_with_source: set[NodeKind] = frozenset()) -> EdgeSpec:  # type: ignore[assignment]
    return EdgeSpec(kind=kind, rel_type=kind.value.upper(), traversable=traversable, sources=frozenset(sources),
                    targets=frozenset(targets), lifetime=lifetime, revoked_by=revoked_by,
                    revoke_subject=revoke_subject, description=description,
                    wiped_with_source=frozenset(wiped_with_source))


K = NodeKind
R = RevocationAction
_GRANTERS = {K.JOB, K.SECRET, K.CLOUD_ROLE, K.CREDENTIAL, K.GITHUB_TOKEN, K.CLOUD_USER}

#: Every edge kind.  Direction: attacker who controls source obtains/acts as/tampers with target.
EDGE_SPECS: dict[EdgeKind, EdgeSpec] = {
    s.kind: s
    for s in [
        _spec(EdgeKind.OWNS, False, {K.ORGANIZATION}, {K.REPOSITORY, K.RUNNER_GROUP}, "Owner has the repository/group"),
        _spec(EdgeKind.HAS_WORKFLOW, False, {K.REPOSITORY}, {K.WORKFLOW}, "Repository contains the workflow"),
        _spec(EdgeKind.HAS_JOB, False, {K.WORKFLOW}, {K.JOB}, "Workflow defines the job"),
        _spec(EdgeKind.CALLS_WORKFLOW, False, {K.JOB}, {K.WORKFLOW}, "Job calls a reusable workflow"),
        _spec(EdgeKind.MEMBER_OF, False, {K.RUNNER}, {K.RUNNER_GROUP}, "Runner belongs to the runner group"),
        _spec(EdgeKind.ALLOWS_REPOSITORY, False, {K.RUNNER_GROUP}, {K.REPOSITORY},
              "Runner group may be used by the repository"),
        _spec(EdgeKind.HAS_SECRET, False, {K.ORGANIZATION, K.REPOSITORY, K.DEPLOYMENT_TARGET}, {K.SECRET},
              "Owner, repository or environment stores the secret"),
        _spec(EdgeKind.HOSTS, True, {K.HOST}, {K.RUNNER}, "Host runs the runner: controlling the host controls it "
              "(runner on runner)", Lifetime.UNTIL_RUNNER_REMOVED, R.REMOVE_RUNNER_REGISTRATION, "target"),
        _spec(EdgeKind.RUNS_ON_HOST, True, {K.RUNNER}, {K.HOST}, "Jobs on the runner execute on the host",
              Lifetime.UNTIL_REIMAGED, R.REIMAGE_HOST, "target"),
        _spec(EdgeKind.RECEIVES_JOB, True, {K.RUNNER}, {K.JOB}, "Runner is eligible for the job's future runs "
              "(labels, group access)", Lifetime.UNTIL_RUNNER_REMOVED, R.REMOVE_RUNNER_REGISTRATION, "source"),
        _spec(EdgeKind.READS_SECRET, True, {K.JOB, K.CLOUD_ROLE, K.CLOUD_USER}, {K.SECRET, K.CLOUD_SECRET},
              "Job (or cloud principal) receives the secret value",
              Lifetime.UNTIL_ROTATED, R.ROTATE_SECRET, "target"),
        _spec(EdgeKind.HAS_TOKEN, True, {K.JOB}, {K.GITHUB_TOKEN}, "Job receives its GITHUB_TOKEN",
              Lifetime.PER_JOB, R.REDUCE_TOKEN_PERMISSIONS, "target"),
        _spec(EdgeKind.WRITES_REPOSITORY, True, {K.GITHUB_TOKEN, K.SECRET, K.CREDENTIAL}, {K.REPOSITORY},
              "Token can write to the repository (contents, actions, packages...)", Lifetime.PER_JOB,
              R.REDUCE_TOKEN_PERMISSIONS, "source"),
        _spec(EdgeKind.MINTS_OIDC, True, {K.JOB}, {K.OIDC_IDENTITY}, "Job has id-token: write",
              Lifetime.OIDC_TOKEN, R.REMOVE_ID_TOKEN_PERMISSION, "source"),
        _spec(EdgeKind.ASSUMES_ROLE, True, {K.OIDC_IDENTITY, K.JOB, K.SECRET, K.CREDENTIAL, K.CLOUD_ROLE,
                                            K.CLOUD_USER},
              {K.CLOUD_ROLE}, "Source can assume the cloud role", Lifetime.CLOUD_SESSION, R.NARROW_TRUST_POLICY,
              "target"),
        _spec(EdgeKind.SIGNS_WITH, True, _GRANTERS, {K.SIGNING_KEY}, "Source can sign with the key/identity",
              Lifetime.PER_JOB, R.ROTATE_SIGNING_KEY, "target"),
        _spec(EdgeKind.DEPLOYS_TO, True, _GRANTERS, {K.DEPLOYMENT_TARGET}, "Source can deploy to the target",
              Lifetime.PER_JOB, R.RESTRICT_ENVIRONMENT, "target"),
        _spec(EdgeKind.PUBLISHES_TO, True, _GRANTERS, {K.DEPLOYMENT_TARGET}, "Source can publish artifacts to the "
              "target", Lifetime.PER_JOB, R.RESTRICT_ENVIRONMENT, "target"),
        _spec(EdgeKind.WRITES_CACHE, True, {K.JOB}, {K.CACHE}, "Job saves the cache (can poison it)",
              Lifetime.UNTIL_PURGED, R.PURGE_CACHE, "target"),
        _spec(EdgeKind.RESTORES_INTO, True, {K.CACHE}, {K.JOB}, "Cache content is restored into the job",
              Lifetime.UNTIL_PURGED, R.PURGE_CACHE, "source"),
        _spec(EdgeKind.SHARES_CACHE, True, {K.HOST, K.RUNNER}, {K.CACHE}, "Host-local cache shared by its jobs",
              Lifetime.UNTIL_PURGED, R.PURGE_CACHE, "target", wiped_with_source={K.HOST}),
        _spec(EdgeKind.STORES_CREDENTIAL, True, {K.HOST, K.RUNNER}, {K.CREDENTIAL},
              "Credential on disk readable by the runner's user", Lifetime.UNTIL_ROTATED, R.ROTATE_CREDENTIAL,
              "target"),
        _spec(EdgeKind.HAS_POLICY, False, {K.CLOUD_ROLE, K.CLOUD_USER, K.CLOUD_GROUP}, {K.CLOUD_POLICY},
              "Principal has the managed policy attached (or as permissions boundary)"),
        _spec(EdgeKind.IN_GROUP, False, {K.CLOUD_USER}, {K.CLOUD_GROUP}, "IAM user is a member of the group"),
        _spec(EdgeKind.TRUSTS_PROVIDER, False, {K.CLOUD_ROLE}, {K.OIDC_PROVIDER},
              "Role's trust policy names the OIDC provider"),
        _spec(EdgeKind.AUTHENTICATES_AS, True, {K.CREDENTIAL, K.SECRET}, {K.CLOUD_USER},
              "Access key of the IAM user", Lifetime.UNTIL_ROTATED, R.ROTATE_ACCESS_KEYS, "target"),
        _spec(EdgeKind.ADMINISTERS, True, {K.CLOUD_ROLE, K.CLOUD_USER}, {K.CLOUD_ACCOUNT},
              "Principal is an administrator of the account (*:*, iam:* or iam:PassRole with compute creation)",
              Lifetime.CLOUD_SESSION, R.REVOKE_ROLE_SESSIONS, "source"),
    ]
}
del K, R


class Edge(BaseModel):
    """An edge instance.

    ``key`` distinguishes parallel edges of one kind between the same nodes
    (e.g. two matrix instances); it is part of the edge's identity.
    ``lifetime`` and ``revoked_by`` default to the kind's declaration.
    ``props`` holds JSON-compatible extra facts (no secret values).

    Raises
    ------
    pydantic.ValidationError
        on an unknown kind or missing evidence.
    """

    model_config = ConfigDict(extra="forbid")

    kind: EdgeKind
    source: str
    target: str
    key: str = ""
    evidence: list[Evidence] = Field(min_length=1)
    confidence: Confidence = Confidence.CERTAIN
    lifetime: Lifetime | None = None
    revoked_by: RevocationAction | None = None
    props: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _defaults(self) -> "Edge":
        spec = EDGE_SPECS[self.kind]
        if self.lifetime is None:
            self.lifetime = spec.lifetime
        if self.revoked_by is None:
            self.revoked_by = spec.revoked_by
        return self

    @property
    def spec(self) -> EdgeSpec:
        """The kind's declaration."""
        return EDGE_SPECS[self.kind]

    @property
    def traversable(self) -> bool:
        """Whether an attacker controlling ``source`` gains ``target``."""
        return EDGE_SPECS[self.kind].traversable

    @property
    def nx_key(self) -> str:
        """Key in the networkx ``MultiDiGraph``: ``kind`` or ``kind|key``."""
        return self.kind.value if not self.key else f"{self.kind.value}|{self.key}"

    def revoke_subject_id(self) -> str:
        """Id of the node the revocation action applies to."""
        return self.source if EDGE_SPECS[self.kind].revoke_subject == "source" else self.target

    def merged(self, other: "Edge") -> "Edge":
        """Combine two observations of the same edge: evidence unioned, ``certain`` wins."""
        out = self.model_copy()
        out.evidence = _merge_evidence(self.evidence, other.evidence)
        if Confidence.CERTAIN in (self.confidence, other.confidence):
            out.confidence = Confidence.CERTAIN
        out.props = {**self.props, **other.props}
        return out


# --------------------------------------------------------------------------- id helpers


def _low(s: str) -> str:
    return s.strip().lower()


def node_id(kind: NodeKind, *parts: str) -> str:
    """Build a stable id for ``kind`` from its identity parts (see :data:`NODE_ID_FORMATS`).

    Owner/repository parts must be passed already normalised with :func:`repo_key`.
    """
    prefix = {NodeKind.ORGANIZATION: "org", NodeKind.REPOSITORY: "repo", NodeKind.DEPLOYMENT_TARGET: "target",
              NodeKind.OIDC_IDENTITY: "oidc"}.get(kind, kind.value)
    return ":".join([prefix, *parts])


def repo_key(full_name: str) -> str:
    """Normalise ``Owner/Repo`` for ids (GitHub names are case-insensitive)."""
    return _low(full_name)


def secret_key(name: str) -> str:
    """Normalise a secret name for ids (GitHub stores secret names upper-case)."""
    return name.strip().upper()


SecretGrant.model_rebuild()
