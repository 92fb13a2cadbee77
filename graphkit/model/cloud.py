"""Cloud IAM node kinds (the AWS IAM source :mod:`ingest.aws_iam`; GitLab and Kubernetes reuse them):
roles, users, groups, policies, OIDC providers, accounts and cloud secrets.  Declared here, collected with every
other kind in :data:`graphkit.model.nodes.NODE_TYPES`."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from graphkit.model.enums import Criticality, NodeKind, RevocationAction
from graphkit.model.node import Node, NodeSpec

__all__ = ["CloudAccount", "CloudGroup", "CloudPolicy", "CloudRole", "CloudSecret", "CloudUser", "OIDCProvider"]


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
    #: AWS: the trust policy document as exported (None = not ingested or unreadable); with ``trust`` unknown, the
    #: statements of every reading of a document holding a key twice (its edges only possible)
    trust_policy: dict[str, Any] | None = None
    #: the trust accepts GitHub OIDC claims of any branch, PR, environment or repository (a door any push
    #: to a matching repository opens, whatever runner it uses); set by :mod:`graphkit.cloud`
    broad_trust: bool = False
    permissions_boundary: str | None = None
    instance_profiles: list[str] = Field(default_factory=list)
    #: AWS ``MaxSessionDuration`` in seconds (3600 when not set; 900-43200), None = unknown
    #: (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_update-role-settings.html)
    max_session_seconds: int | None = None
    #: ISO 8601 time before which the role's sessions are revoked: an inline Deny on ``aws:TokenIssueTime``
    #: (``DateLessThan``), as the console's "Revoke active sessions" writes it (AWS IAM User Guide,
    #: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html); None = none seen
    sessions_revoked_before: str | None = None
    #: 1-based line of each statement of ``trust_policy`` (by its index) in the file of the role's IAM evidence;
    #: None when not known (a role not read from a file)
    statement_lines: list[int] | None = None


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
    #: 1-based line of each statement of ``document`` (by its index) in the file of its evidence; None when not known
    statement_lines: list[int] | None = None


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
    """A secret stored in a cloud service (Secrets Manager secret, SSM parameter), or a pattern of them; or a
    secret of an external secrets provider a GitLab job requests (``service``: ``vault``, ``azure_key_vault``,
    ``gcp_secret_manager``, ``aws_secrets_manager``; ``resource``: the path or name as written; id
    :func:`graphkit.model.ids.external_secret`; https://docs.gitlab.com/ci/secrets/)."""

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.CLOUD_SECRET, revoked_by=RevocationAction.ROTATE_SECRET, copyable=True,
                                        label="CloudSecret", default_criticality=Criticality.HIGH,
                                        description="A Secrets Manager secret or SSM parameter, or an external secret a GitLab job requests")
    kind: Literal["cloud_secret"] = "cloud_secret"
    service: Literal["secretsmanager", "ssm", "vault", "azure_key_vault", "gcp_secret_manager", "aws_secrets_manager"]
    resource: str
    pattern: bool = False
