"""The edge kinds: their declarations (:data:`EDGE_SPECS`) and the edge instance model."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graphkit.model.bounds import bounded_props
from graphkit.model.enums import Confidence, EdgeKind, Lifetime, NodeKind, RevocationAction
from graphkit.model.evidence import Evidence, merge_evidence
from graphkit.redact import mark_value

__all__ = ["EdgeSpec", "EDGE_SPECS", "Edge"]


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
    #: followed only from a source of the analysis: it needs control of the source node itself (a job's
    #: code: a malicious commit or dependency), not of one run of it (a compromised runner controls the runs
    #: it receives, not the job's runs elsewhere)
    source_only: bool = False
    #: entering the target through this edge runs the attacker's code in it (``can_trigger``: an untrusted pull
    #: request's code runs as the job, exactly like a malicious commit): the target follows ``source_only``
    #: edges as a source does
    runs_code: bool = False
    #: entering the target through this edge gives the attacker one or more runs of a job (they run code as it,
    #: or control the runner it lands on): the edge's lifetime bounds those runs, not what a run obtained (a
    #: secret it read stays usable until rotated), so it does not bound the lifetime of what lies behind it
    #: (``graphkit.analysis.reach.lasting_seconds``; ``docs/revocation-plan.md``, "Ordering rules", 5)
    enters_run: bool = False
    #: an observed past event (a run of the job on the runner, from the platform's job history) rather than a
    #: possibility: what the run received was handed over then (:mod:`graphkit.analysis.exposure`: exposed, not
    #: only reachable); runs that ended before the compromise are left out (``observed_since``)
    observed: bool = False


def _spec(kind: EdgeKind, traversable: bool, sources: set[NodeKind], targets: set[NodeKind], description: str,
          lifetime: Lifetime = Lifetime.NOT_APPLICABLE, revoked_by: RevocationAction | None = None,
          revoke_subject: Literal["source", "target"] = "target",
          wiped_with_source: set[NodeKind] = frozenset(),  # type: ignore[assignment]
          source_only: bool = False, runs_code: bool = False, observed: bool = False,
          enters_run: bool = False) -> EdgeSpec:
    return EdgeSpec(kind=kind, rel_type=kind.value.upper(), traversable=traversable, sources=frozenset(sources),
                    targets=frozenset(targets), lifetime=lifetime, revoked_by=revoked_by,
                    revoke_subject=revoke_subject, description=description,
                    wiped_with_source=frozenset(wiped_with_source), source_only=source_only,
                    runs_code=runs_code, observed=observed, enters_run=enters_run or runs_code)


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
              "(labels, group access)", Lifetime.UNTIL_RUNNER_REMOVED, R.REMOVE_RUNNER_REGISTRATION, "source",
              enters_run=True),
        # a credential written literally in the job's workflow, action or .gitlab-ci.yml file (credential_type
        # "literal", graphkit.resolve.literals) is handed to the job as a secret is: the edge says rotate_credential
        _spec(EdgeKind.READS_SECRET, True, {K.JOB, K.CLOUD_ROLE, K.CLOUD_USER, K.K8S_SERVICE_ACCOUNT, K.RUNNER},
              {K.SECRET, K.CLOUD_SECRET, K.K8S_SECRET, K.CREDENTIAL},
              "Job (or cloud principal, Kubernetes service account by its RBAC, runner pod mounting it) receives the "
              "secret value (a job: also a credential written literally in its CI file, cut by rotate_credential)",
              Lifetime.UNTIL_ROTATED, R.ROTATE_SECRET, "target"),
        _spec(EdgeKind.HAS_TOKEN, True, {K.JOB}, {K.GITHUB_TOKEN}, "Job receives its GITHUB_TOKEN",
              Lifetime.PER_JOB, R.REDUCE_TOKEN_PERMISSIONS, "target"),
        _spec(EdgeKind.WRITES_REPOSITORY, True, {K.GITHUB_TOKEN, K.SECRET, K.CREDENTIAL}, {K.REPOSITORY},
              "Token can push the repository's code or start its workflow runs (GITHUB_TOKEN: contents or actions "
              "write; pull-requests write possible)", Lifetime.PER_JOB, R.REDUCE_TOKEN_PERMISSIONS, "source"),
        _spec(EdgeKind.MINTS_OIDC, True, {K.JOB}, {K.OIDC_IDENTITY}, "Job has id-token: write",
              Lifetime.OIDC_TOKEN, R.REMOVE_ID_TOKEN_PERMISSION, "source"),
        _spec(EdgeKind.ASSUMES_ROLE, True, {K.OIDC_IDENTITY, K.JOB, K.SECRET, K.CREDENTIAL, K.CLOUD_ROLE,
                                            K.CLOUD_USER, K.CLOUD_ACCOUNT, K.K8S_SERVICE_ACCOUNT},
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
        # the registration's own credential (actions/runner `.credentials` + `.credentials_rsaparams`, a GitLab
        # runner token): valid until the registration is removed, so removing it revokes the credential too
        # (GitHub docs "Removing self-hosted runners"; semantics §6); reimaging leaves a copied file valid
        _spec(EdgeKind.REGISTRATION_CREDENTIAL, True, {K.RUNNER}, {K.CREDENTIAL},
              "The registration's own credential on disk: removing the registration revokes it",
              Lifetime.UNTIL_RUNNER_REMOVED, R.REMOVE_RUNNER_REGISTRATION, "source", wiped_with_source={K.RUNNER}),
        _spec(EdgeKind.HAS_POLICY, False, {K.CLOUD_ROLE, K.CLOUD_USER, K.CLOUD_GROUP}, {K.CLOUD_POLICY},
              "Principal has the managed policy attached (or as permissions boundary)"),
        _spec(EdgeKind.IN_GROUP, False, {K.CLOUD_USER}, {K.CLOUD_GROUP}, "IAM user is a member of the group"),
        _spec(EdgeKind.TRUSTS_PROVIDER, False, {K.CLOUD_ROLE}, {K.OIDC_PROVIDER},
              "Role's trust policy names the OIDC provider"),
        _spec(EdgeKind.AUTHENTICATES_AS, True, {K.CREDENTIAL, K.SECRET}, {K.CLOUD_USER},
              "Access key of the IAM user", Lifetime.UNTIL_ROTATED, R.ROTATE_ACCESS_KEYS, "target"),
        # a Kubernetes cluster's admin: cluster-admin or "*" on "*" cluster-wide (RBAC), or the EKS group
        # system:masters (aws-auth); such edges are cut by remove_rbac_binding (graphkit/resolve/k8s.py)
        _spec(EdgeKind.ADMINISTERS, True, {K.CLOUD_ROLE, K.CLOUD_USER, K.K8S_SERVICE_ACCOUNT, K.CREDENTIAL},
              {K.CLOUD_ACCOUNT, K.DEPLOYMENT_TARGET},
              "Principal is an administrator of the account (*:*, iam:* or iam:PassRole with compute creation) or "
              "of the Kubernetes cluster (cluster-admin, * on *, system:masters)",
              Lifetime.CLOUD_SESSION, R.REVOKE_ROLE_SESSIONS, "source"),
        _spec(EdgeKind.PERSISTS_ON, True, {K.JOB}, {K.RUNNER, K.HOST},
              "Code run by the job can persist on the runner or host it lands on (semantics §2): a runner that "
              "is not ephemeral, or a host that outlives its jobs (graphkit.resolve.persistence)",
              Lifetime.UNTIL_RUNNER_REMOVED, R.REMOVE_RUNNER_REGISTRATION, "target", source_only=True),
        _spec(EdgeKind.CAN_REGISTER_RUNNER, True, {K.CREDENTIAL, K.SECRET, K.K8S_SECRET},
              {K.ORGANIZATION, K.REPOSITORY, K.RUNNER_GROUP, K.JOB},
              "Credential can mint runner registration tokens and attach a new runner there (semantics §8; "
              "graphkit.resolve.registration); cut by rotating the source (a secret's edge: rotate_secret)",
              Lifetime.UNTIL_ROTATED, R.ROTATE_CREDENTIAL, "source"),
        _spec(EdgeKind.GROUP_RECEIVES_JOB, True, {K.RUNNER_GROUP}, {K.JOB},
              "A runner attached to the group (any labels) would receive the job's future runs",
              Lifetime.UNTIL_REVOKED, R.RESTRICT_RUNNER_GROUP, "source", enters_run=True),
        _spec(EdgeKind.CAN_TRIGGER, True, {K.UNTRUSTED}, {K.JOB, K.RUNNER},
              "Untrusted actor can make the job run their code (or run it on the runner, from a fork)",
              Lifetime.PER_JOB, R.RESTRICT_UNTRUSTED_TRIGGER, "source", runs_code=True),
        # a GitLab runner authentication token (config.toml `token`) does not expire unless the instance sets an
        # expiry: whoever copies it polls for the runner's jobs (https://docs.gitlab.com/ci/runners/
        # configure_runners/#authentication-token-security); deleting the runner or resetting the token cuts it
        _spec(EdgeKind.AUTHENTICATES_RUNNER, True, {K.CREDENTIAL}, {K.RUNNER},
              "A runner authentication token: its holder requests the runner's jobs (GitLab: until the runner is "
              "deleted or its token reset)", Lifetime.UNTIL_RUNNER_REMOVED, R.RESET_RUNNER_TOKEN, "source"),
        # observed in the platform's job history (GitHub REST "List jobs for a workflow run": runner_id,
        # runner_name, started_at, completed_at, https://docs.github.com/en/rest/actions/workflow-jobs);
        # props: the run (run_id, run_attempt, job_id, event, actor, head_branch, head_sha, started_at,
        # completed_at); one edge per GitHub job id (key)
        _spec(EdgeKind.RAN_JOB, True, {K.RUNNER}, {K.JOB},
              "Observed: the runner ran a run of the job (job history); an attacker holding the runner then "
              "received what that run received (exposed, not only reachable). What it read stays held until "
              "rotated; the attacker's hold on the run itself ends with the registration",
              Lifetime.UNTIL_RUNNER_REMOVED, R.REMOVE_RUNNER_REGISTRATION, "source", observed=True, enters_run=True),
        # the pod's token is mounted unless automountServiceAccountToken is false (Kubernetes "Service accounts",
        # https://kubernetes.io/docs/concepts/security/service-accounts/): bound to the pod, about an hour
        _spec(EdgeKind.USES_SERVICE_ACCOUNT, True, {K.RUNNER, K.JOB}, {K.K8S_SERVICE_ACCOUNT},
              "The runner's pods (and the jobs they run) hold the Kubernetes service account's token",
              Lifetime.PER_JOB, R.ROTATE_SERVICE_ACCOUNT_TOKENS, "target"),
        # whoever writes a repository runs its code in the jobs that run it (semantics §2: "a write token can push
        # code or workflows: a path to other runners and secrets"; graphkit.resolve.writers).  Possible: branch
        # protection, rulesets and environment deployment-branch rules are not read, and a push by a GITHUB_TOKEN
        # starts no run except workflow_dispatch and repository_dispatch (https://docs.github.com/en/actions/
        # security-for-github-actions/security-guides/automatic-token-authentication#using-the-github_token-in-a-
        # workflow): the pushed code waits for the next run.  An environment with required reviewers and a
        # deployment branch policy holds the job (restrict_environment on the job); the write credential upstream
        # is cut by its own action (reduce_token_permissions, rotate_credential, rotate_secret).  The code can
        # persist where such a job lands: an edge to each runner and host the job persists on, with that
        # persists_on edge's lifetime and action (not runs_code on the job: a path through the job's runs_code
        # mark would explain a persistence by a runner that merely receives the job)
        _spec(EdgeKind.RUNS_CODE_IN, True, {K.REPOSITORY}, {K.JOB, K.RUNNER, K.HOST},
              "Whoever writes the repository runs code in the job (a pushed branch's code in its push, "
              "pull_request, workflow_dispatch, repository_dispatch, schedule, create or release runs; a "
              "same-repository pull request's head in a pull_request_target or workflow_run job that checks it out) "
              "and on the runners and hosts such a job persists on (possible: branch protection is not read, and a "
              "push made with a GITHUB_TOKEN starts no run but workflow_dispatch and repository_dispatch: the "
              "pushed code runs in the next run another trigger starts)",
              Lifetime.PER_JOB, R.RESTRICT_ENVIRONMENT, "target"),
        # a token that can change .github/workflows/: a classic PAT with repo and workflow scopes, a fine-grained
        # PAT or App with contents and workflows write (https://docs.github.com/en/apps/oauth-apps/building-oauth-
        # apps/scopes-for-oauth-apps, https://docs.github.com/en/rest/authentication/permissions-required-for-
        # fine-grained-personal-access-tokens); never a GITHUB_TOKEN (it has no workflows permission).  From the
        # token, not from the repository: a repository -> runner edge would be followed by every writer of the
        # repository, GITHUB_TOKENs included (graphkit.resolve.writers)
        _spec(EdgeKind.WRITES_WORKFLOWS, True, {K.SECRET, K.CREDENTIAL}, {K.RUNNER},
              "Token can push a workflow file to a repository that may use the runner: the workflow's runs-on names "
              "it (possible; the token's writes_repository leads to the repository's own jobs)",
              Lifetime.UNTIL_ROTATED, R.ROTATE_CREDENTIAL, "source"),
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

    @model_validator(mode="before")
    @classmethod
    def _no_credential(cls, data: Any) -> Any:
        """No end, key or prop of an edge keeps a literal credential: marked as a node's text is
        (:meth:`graphkit.model.node.Node._no_url_credentials`, :func:`graphkit.redact.mark_value`), so an edge
        still names the nodes it joins."""
        if not isinstance(data, dict):
            return data
        out = {k: mark_value(v) if k in ("source", "target", "key", "props") else v for k, v in data.items()}
        return out if any(out[k] is not data[k] for k in data) else data

    @model_validator(mode="before")
    @classmethod
    def _bounded_props(cls, data: Any) -> Any:
        """No string in ``props`` is longer than ``max_attribute_chars``: its entry is left out and recorded
        (:func:`graphkit.model.bounds.bounded_props`), the rest of the edge is kept."""
        if isinstance(data, dict) and data.get("props") and isinstance(data["props"], dict):
            props = bounded_props(data["props"], str(getattr(data.get("kind"), "value", data.get("kind"))),
                                  data.get("evidence"))
            if props is not data["props"]:
                data = {**data, "props": props}
        return data

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

    @property
    def identity(self) -> tuple[str, str, str]:
        """What makes two observations the same edge: ``(source, target, nx_key)`` (the networkx key)."""
        return self.source, self.target, self.nx_key

    def revoke_subject_id(self) -> str:
        """Id of the node the revocation action applies to."""
        return self.source if EDGE_SPECS[self.kind].revoke_subject == "source" else self.target

    def merged(self, other: "Edge") -> "Edge":
        """Combine two observations of the same edge: evidence unioned, ``certain`` wins."""
        out = self.model_copy()
        out.evidence = merge_evidence(self.evidence, other.evidence)
        if Confidence.CERTAIN in (self.confidence, other.confidence):
            out.confidence = Confidence.CERTAIN
        out.props = {**self.props, **other.props}
        return out


