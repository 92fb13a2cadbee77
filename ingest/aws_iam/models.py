"""What the AWS IAM parser produces (:mod:`ingest.aws_iam.parse`) and the graph step reads: plain dataclasses.

Only the **default version** of a managed policy is kept (AWS IAM User Guide
"Versioning IAM policies",
https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_managed-versioning.html).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from graphkit.errors import InputError
from graphkit.iam import Statement
from graphkit.model import Evidence
from ingest._yaml import line_of

__all__ = ["ARN", "PLACEHOLDER", "BUILTIN_POLICIES", "account_of", "Principal", "ManagedPolicy", "PolicyFile",
           "Provider", "OrgPolicy", "Organization", "ParsedFile", "evidence", "lines_of", "statement_lines"]

#: An IAM ARN: partition, account (12 digits, ``aws`` for AWS managed policies, or a ``${...}`` placeholder),
#: resource type and name ("IAM identifiers",
#: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-arns).
ARN = re.compile(r"^arn:(aws[a-z-]*):iam::(\d{12}|aws|\$\{[^}]+\}):(role|user|group|policy|oidc-provider|"
                 r"instance-profile)/(.+)$")
#: A Terraform/CloudFormation placeholder ``${name}``.
PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")

#: AWS managed policies whose content is fixed and used when absent from the export.
BUILTIN_POLICIES: dict[str, dict[str, Any]] = {
    "arn:aws:iam::aws:policy/AdministratorAccess": {
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]},
}


def account_of(arn: str) -> str:
    """The account of an IAM ARN (``aws`` for AWS managed policies); empty when ``arn`` is not one.

    >>> account_of("arn:aws:iam::111122223333:role/ci"), account_of("not an arn")
    ('111122223333', '')
    """
    m = ARN.match(arn)
    return m.group(2) if m else ""


@dataclass
class Principal:
    """A role, user or group as exported: identity statements and (roles) the trust policy.

    ``inline``: ``(policy name, statements, JSON path)``; ``managed``: attached
    policy ARNs; ``boundary``: permissions boundary ARN; ``groups``: (users)
    group names; ``instance_profiles``: (roles) instance profile ARNs;
    ``max_session``: (roles) seconds.  ``place``: JSON path of the entry.  ``trust`` None on a role: its trust
    policy could not be read (unknown, never narrower: the node says ``trust="unknown"``); ``problems``: the parts
    left out.
    """

    kind: str  # role | user | group
    arn: str
    name: str
    account: str
    file: str
    place: str
    inline: list[tuple[str, list[Statement], str]] = field(default_factory=list)
    managed: list[str] = field(default_factory=list)
    boundary: str | None = None
    trust: list[Statement] | None = None
    trust_document: dict[str, Any] | None = None
    groups: list[str] = field(default_factory=list)
    instance_profiles: list[str] = field(default_factory=list)
    max_session: int | None = None
    #: parts of the entry left out (a bad inline policy, attachment or trust document), the rest is kept
    problems: list[InputError] = field(default_factory=list)


@dataclass
class ManagedPolicy:
    """A managed policy: its default version's statements (the only ones that apply; ``versions``: how many the
    export lists) and ``other_versions`` ``(version id, statements)`` (what ``iam:SetDefaultPolicyVersion``
    can make apply); ``problems``: non-default versions that could not be read."""

    arn: str
    name: str
    account: str
    file: str
    place: str
    default_version: str | None
    versions: int
    statements: list[Statement]
    document: dict[str, Any]
    other_versions: list[tuple[str, list[Statement]]] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)


@dataclass
class PolicyFile:
    """A standalone policy document (Terraform template, CloudFormation role trust...).

    ``resource``: the CloudFormation logical id when the document is one
    resource of a template (None for a whole-file document); ``id_path``: the
    file's path relative to its input root (node ids embed it); ``placeholders``:
    the ``${...}`` names left unresolved; ``policy_type``: ``trust`` or
    ``identity``.
    """

    file: str
    resource: str | None
    name: str
    place: str
    document: dict[str, Any]
    statements: list[Statement]
    placeholders: list[str]
    policy_type: str
    id_path: str = ""


@dataclass
class Provider:
    """An IAM OIDC identity provider (``account`` None when the ARN does not say)."""

    arn: str
    url: str
    account: str | None
    client_ids: list[str] | None
    file: str
    place: str


@dataclass
class OrgPolicy:
    """An Organizations service control policy (``scp``) or resource control policy (``rcp``) and the ids of the
    roots, OUs and accounts it is attached to (``targets``)."""

    id: str
    arn: str | None
    name: str
    policy_type: str
    statements: list[Statement]
    document: dict[str, Any]
    targets: list[str]
    file: str
    place: str


@dataclass
class Organization:
    """An Organizations export: the management account, member accounts, ``parents`` (child id -> parent id)
    and the control policies."""

    management: str | None
    accounts: list[str]
    parents: dict[str, str]
    file: str
    policies: list[OrgPolicy] = field(default_factory=list)
    #: the organization's id (``o-...``), None when the export does not say it
    id: str | None = None

    def chain(self, account: str) -> list[str]:
        """``account`` then each parent up to the root (just ``[account]`` when its parents are unknown)."""
        out = [account]
        while out[-1] in self.parents and self.parents[out[-1]] not in out:
            out.append(self.parents[out[-1]])
        return out

    def accounts_in(self) -> set[str]:
        """Every account the export places in the organization: listed, with known parents, or its management
        account."""
        return set(self.accounts) | {c for c in self.parents if c.isdigit()} | (
            {self.management} if self.management else set())

    def member(self, account: str) -> bool:
        """Whether control policies restrict ``account``: a member (listed, or with known parents), not the
        management account."""
        return account != self.management and (account in self.accounts or account in self.parents)


@dataclass
class ParsedFile:
    """What one file held; ``problems``: entries left out (the rest is usable).

    ``kind``: ``authorization-details``, ``get-role``, ``credential-report``,
    ``policy-document`` or ``cloudformation``; ``access_keys``: user ARN ->
    number of active access keys (credential report); ``duplicates``:
    ``(JSON path, key)`` of keys an object held twice.
    """

    file: str
    kind: str
    principals: list[Principal] = field(default_factory=list)
    policies: list[ManagedPolicy] = field(default_factory=list)
    documents: list[PolicyFile] = field(default_factory=list)
    providers: list[Provider] = field(default_factory=list)
    access_keys: dict[str, int] = field(default_factory=dict)
    problems: list[InputError] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    organization: Organization | None = None
    #: ``{JSON/YAML path: 1-based line}`` of the document (:func:`ingest._json_lines.json_lines`,
    #: :func:`ingest._yaml.load_yaml`): the line of every evidence item (:func:`evidence`)
    lines: dict[str, int] = field(default_factory=dict)


#: The line maps of the files being turned into a graph (:func:`lines_of`), read by :func:`evidence`.
_LINES: ContextVar[Mapping[str, Mapping[str, int]]] = ContextVar("aws_iam_lines", default={})


@contextmanager
def lines_of(parsed: Sequence[ParsedFile]) -> Iterator[None]:
    """While the block runs, :func:`evidence` gives the line of a place in any of ``parsed``."""
    token = _LINES.set({p.file: p.lines for p in parsed})
    try:
        yield
    finally:
        _LINES.reset(token)


def statement_lines(file: str, statements: Sequence[Statement] | None) -> list[int] | None:
    """The line of each of ``statements`` of a document in ``file`` (by index; their places are full JSON paths
    in the file; the document's own line for a statement inside an encoded policy string), None when the file's
    lines are not known (outside :func:`lines_of`)."""
    lines = _LINES.get().get(file)
    if not lines or not statements:
        return None
    out = [0] * (max(s.index for s in statements) + 1)
    for s in statements:
        out[s.index] = line_of(lines, s.place) or 0
    return out


def evidence(file: str, place: str, detail: str | None = None) -> Evidence:
    """Evidence of ``place`` (a JSON path) in ``file``: its line when the file's line map is known (inside
    :func:`lines_of`; the nearest enclosing path's line for a place inside an encoded policy string).

    >>> with lines_of([ParsedFile(file="t.json", kind="get-role", lines={"": 1, "Role": 2})]):
    ...     evidence("t.json", "Role.AssumeRolePolicyDocument.Statement[0]").line
    2
    """
    lines = _LINES.get().get(file)
    return Evidence(file=file, yaml_path=place or None, line=line_of(lines, place) if lines else None, detail=detail)
