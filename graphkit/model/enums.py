"""The model's vocabularies: confidence, criticality, lifetimes, revocation actions, node and edge kind names.

Every name here is part of graphkit's output contracts (JSON, Neo4j labels and
relationship types, BloodHound kinds); they are declared once, here.
"""

from __future__ import annotations

import math
from enum import Enum

from pydantic import BaseModel, ConfigDict

__all__ = ["Confidence", "Criticality", "CRITICALITY_WEIGHT", "Lifetime", "LIFETIME_SECONDS", "lifetime_seconds",
           "RevocationAction", "RevocationSpec", "REVOCATION_SPECS", "NodeKind", "EdgeKind"]


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
    #: STS session of a role assumed with another role's session (role chaining): at most 1 hour, whatever the
    #: role's MaxSessionDuration (AWS IAM User Guide "Roles terms and concepts", role chaining,
    #: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_terms-and-concepts.html#iam-term-role-chaining).
    CHAINED_SESSION = "chained_session"
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
#: "OpenID Connect reference"; AWS STS ``DurationSeconds`` (900 s - 43,200 s; at most 3,600 s for role chaining).
LIFETIME_SECONDS: dict[Lifetime, float | None] = {
    Lifetime.NOT_APPLICABLE: 0.0,
    Lifetime.OIDC_TOKEN: 300.0,
    Lifetime.REGISTRATION_TOKEN: 3600.0,
    Lifetime.CLOUD_SESSION: 43200.0,
    Lifetime.CHAINED_SESSION: 3600.0,
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
    RESTRICT_UNTRUSTED_TRIGGER = "restrict_untrusted_trigger"
    DELETE_GITLAB_RUNNER = "delete_gitlab_runner"
    RESET_RUNNER_TOKEN = "reset_runner_token"
    ROTATE_CICD_VARIABLE = "rotate_cicd_variable"
    #: Kubernetes / Actions Runner Controller (issue 15)
    DELETE_SCALE_SET = "delete_scale_set"
    ROTATE_CONTROLLER_CREDENTIAL = "rotate_controller_credential"
    ROTATE_SERVICE_ACCOUNT_TOKENS = "rotate_service_account_tokens"
    REMOVE_RBAC_BINDING = "remove_rbac_binding"
    REPLACE_NODES = "replace_nodes"


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
                       description="Rotate the credential at its issuer, then delete the file that held it (on disk) or "
                                   "replace the literal with a secret (written in a workflow)"),
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
        RevocationSpec(action=RevocationAction.RESTRICT_UNTRUSTED_TRIGGER,
                       description="Close the untrusted entry: require approval of fork pull request workflows for "
                       "all external contributors, stop building pull request code in pull_request_target, "
                       "workflow_run and issue_comment jobs, keep public repositories off self-hosted runner "
                       "groups (allows_public_repositories: false)"),
        RevocationSpec(action=RevocationAction.DELETE_GITLAB_RUNNER,
                       description="Delete the GitLab runner (DELETE /runners/:id; its authentication token stops "
                       "working, https://docs.gitlab.com/api/runners/#delete-a-runner)"),
        RevocationSpec(action=RevocationAction.RESET_RUNNER_TOKEN,
                       description="Reset the GitLab runner's authentication token (POST /runners/:id/reset_"
                       "authentication_token): every copy of the old token stops working, "
                       "https://docs.gitlab.com/api/runners/#reset-runners-authentication-token-by-using-the-runner-id"),
        RevocationSpec(action=RevocationAction.ROTATE_CICD_VARIABLE,
                       description="Rotate the credential a GitLab CI/CD variable holds at its issuer, then update "
                       "the variable (PUT .../variables/:key, https://docs.gitlab.com/api/project_level_variables/)"),
        RevocationSpec(action=RevocationAction.DELETE_SCALE_SET,
                       description="Delete the ARC runner scale set (or legacy RunnerDeployment/RunnerSet) and its "
                       "registration with GitHub, so no job is routed to its pods"),
        RevocationSpec(action=RevocationAction.ROTATE_CONTROLLER_CREDENTIAL,
                       description="Rotate the GitHub App private key or PAT held in the ARC controller's Kubernetes "
                       "Secret (githubConfigSecret), then update the Secret"),
        RevocationSpec(action=RevocationAction.ROTATE_SERVICE_ACCOUNT_TOKENS,
                       description="Invalidate the Kubernetes service account's tokens (delete and recreate the "
                       "service account, delete its token Secrets, restart its pods)"),
        RevocationSpec(action=RevocationAction.REMOVE_RBAC_BINDING,
                       description="Remove the RoleBinding/ClusterRoleBinding (or aws-auth mapping) that grants the "
                       "access"),
        RevocationSpec(action=RevocationAction.REPLACE_NODES,
                       description="Cordon, drain and replace the Kubernetes nodes the runner pods ran on"),
        RevocationSpec(action=RevocationAction.ROTATE_ACCESS_KEYS,
                       description="Deactivate and rotate the IAM user's access keys (aws iam update-access-key "
                       "--status Inactive, then create new ones)"),
    ]
}



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
    UNTRUSTED = "untrusted"
    K8S_SERVICE_ACCOUNT = "k8s_service_account"
    K8S_SECRET = "k8s_secret"



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
    REGISTRATION_CREDENTIAL = "registration_credential"
    AUTHENTICATES_AS = "authenticates_as"
    ADMINISTERS = "administers"
    PERSISTS_ON = "persists_on"
    CAN_REGISTER_RUNNER = "can_register_runner"
    GROUP_RECEIVES_JOB = "group_receives_job"
    CAN_TRIGGER = "can_trigger"
    AUTHENTICATES_RUNNER = "authenticates_runner"
    # observed (job history: what actually ran)
    RAN_JOB = "ran_job"
    USES_SERVICE_ACCOUNT = "uses_service_account"
    # what whoever writes a repository runs (graphkit.resolve.writers)
    RUNS_CODE_IN = "runs_code_in"
    WRITES_WORKFLOWS = "writes_workflows"


