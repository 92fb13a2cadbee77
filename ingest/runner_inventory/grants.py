"""Credential grants of a runner inventory: the node a grant's ``target`` id names, and its edge kind (pure).

A grant (``hosts[i].credentials[j].grants[k]``) says what holding an on-disk
credential gives: an edge ``credential -> target`` whose kind is the grant's
``access``.  The target is written as a graphkit node id; it is read with
:func:`graphkit.model.ids.parse` and rebuilt with the typed constructors, so
that the node it becomes has the id every other source gives the same thing
(e.g. an environment target's name is lower-cased).  Only the kinds a
credential can reach are accepted: cloud roles, IAM users (an access key),
deployment targets, signing keys and repositories.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import get_args

from graphkit.model import (EDGE_SPECS, CloudRole, CloudUser, DeploymentTarget, EdgeKind, Evidence, Node, NodeKind,
                            Repository, SigningKey, ids)
from graphkit.redact import strip_embedded_urls

__all__ = ["GrantError", "grant_kind", "grant_target", "resolve_grant"]

_FULL_NAME = re.compile(r"^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$")
#: ARN of an IAM role or instance profile, and of an IAM user
#: (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html)
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::(\d{12}):(role|instance-profile)/(.+)$")
_USER_ARN = re.compile(r"^arn:aws[a-z-]*:iam::(\d{12}):user/(.+)$")
_TARGET_TYPES = get_args(DeploymentTarget.model_fields["target_type"].annotation)

#: What a well-formed target id of each form looks like, for error messages.
_EXPECTED: dict[tuple[NodeKind, str], str] = {
    (NodeKind.CLOUD_ROLE, "aws"): "cloud_role:aws:arn:aws:iam::<12 digits>:role/<name> (or :instance-profile/<name>)",
    (NodeKind.CLOUD_ROLE, "gcp"): "cloud_role:gcp:<identifier>",
    (NodeKind.CLOUD_ROLE, "azure"): "cloud_role:azure:<identifier>",
    (NodeKind.CLOUD_USER, "aws"): "cloud_user:aws:arn:aws:iam::<12 digits>:user/<name>",
    (NodeKind.DEPLOYMENT_TARGET, "environment"): "target:environment:<owner>/<repo>:<environment>",
    (NodeKind.DEPLOYMENT_TARGET, "target"): "target:<type>:<identifier>",
    (NodeKind.SIGNING_KEY, "key"): "signing_key:<scheme>:<identifier>",
}
_NOT_A_TARGET = "not a cloud_role:, target:, signing_key: or repo: node id"


class _Malformed(ValueError):
    """A target id written in a form it does not follow."""


def _cloud_role(p: ids.ParsedId, ev: Evidence) -> Node:
    ident = p.parts["identifier"]
    if p.form != "aws":
        return CloudRole(id=ids.cloud_role(p.form, ident), name=ident, provider=p.form, identifier=ident,
                         evidence=[ev])
    m = _ROLE_ARN.match(ident)
    if not m:
        raise _Malformed
    return CloudRole(id=ids.cloud_role("aws", ident), name=m.group(3), provider="aws", identifier=ident,
                     account=m.group(1), evidence=[ev])


def _cloud_user(p: ids.ParsedId, ev: Evidence) -> Node:
    """An access key of an IAM user (``ingest/aws_iam``'s ``cloud_user`` nodes)."""
    arn = p.parts["arn"]
    m = _USER_ARN.match(arn)
    if not m:
        raise _Malformed
    return CloudUser(id=ids.cloud_user(arn), name=m.group(2), arn=arn, account=m.group(1), evidence=[ev])


def _deployment_target(p: ids.ParsedId, ev: Evidence) -> Node:
    if p.form == "environment":
        repo, env = p.parts["repo"], p.parts["environment"]
        ident = f"{repo}:{env}"
        return DeploymentTarget(id=ids.environment(repo, env), name=ident, target_type="environment",
                                identifier=ident, evidence=[ev])
    target_type, ident = p.parts["target_type"], p.parts["identifier"]
    if target_type == "environment":
        raise _Malformed  # an environment target names its repository
    if target_type not in _TARGET_TYPES:
        raise ValueError(f"expected target:<type>:<identifier> with <type> one of {', '.join(_TARGET_TYPES)}")
    return DeploymentTarget(id=ids.target(target_type, ident), name=ident, target_type=target_type,
                            identifier=ident, evidence=[ev])


def _signing_key(p: ids.ParsedId, ev: Evidence) -> Node:
    scheme, ident = p.parts["scheme"], p.parts["identifier"]
    return SigningKey(id=ids.signing_key(scheme, ident), name=ident, scheme=scheme, identifier=ident, evidence=[ev])


def _repository(p: ids.ParsedId, ev: Evidence) -> Node:
    full = p.parts["repo"]
    if not _FULL_NAME.match(full):
        raise ValueError(_NOT_A_TARGET)
    return Repository(id=ids.repository(full), name=full, full_name=full, evidence=[ev])


#: The node each kind of grant target becomes (minimal: what its id says).
_BUILD: dict[NodeKind, Callable[[ids.ParsedId, Evidence], Node]] = {
    NodeKind.CLOUD_ROLE: _cloud_role, NodeKind.CLOUD_USER: _cloud_user,
    NodeKind.DEPLOYMENT_TARGET: _deployment_target, NodeKind.SIGNING_KEY: _signing_key,
    NodeKind.REPOSITORY: _repository,
}


def _attempted(target: str) -> ids.IdForm | None:
    """The grant-target form whose literal prefix ``target`` starts with (longest first), for the message."""
    forms = [f for f in ids.ID_FORMS if (f.kind, f.name) in _EXPECTED and target.startswith(f.prefix)]
    return max(forms, key=lambda f: len(f.prefix), default=None)


def _expected(target: str, form: ids.IdForm | None) -> ValueError:
    if form is None:
        return ValueError(f"{target!r}: {_NOT_A_TARGET}")
    return ValueError(f"{target!r}: expected {_EXPECTED[(form.kind, form.name)]}")


def grant_target(target: str, ev: Evidence) -> Node:
    """The minimal node a credential grant points to, built from its id.

    Parameters
    ----------
    target
        a node id as the inventory writes it, e.g.
        ``cloud_role:aws:arn:aws:iam::111122223333:role/ci``,
        ``target:registry:ghcr.io``, ``signing_key:gpg:build-01:/root/.gnupg/secring.gpg``,
        ``repo:acme/app``, ``cloud_user:aws:arn:aws:iam::111122223333:user/ci``.
    ev
        evidence of the node.

    Returns
    -------
    Node
        a :class:`CloudRole`, :class:`CloudUser`, :class:`DeploymentTarget`,
        :class:`SigningKey` or :class:`Repository` whose id is rebuilt by
        :mod:`graphkit.model.ids` (normalised: an environment name lower-cased).

    Raises
    ------
    ValueError
        naming the id and what was expected (``'cloud_role:aws:x': expected
        cloud_role:aws:arn:aws:iam::<12 digits>:role/<name> ...``), for an id
        of another kind or not well-formed.

    Examples
    --------
    >>> grant_target("target:environment:Acme/App:PyPI", Evidence(file="inv.yaml")).id
    'target:environment:acme/app:pypi'
    >>> grant_target("target:registry", Evidence(file="inv.yaml"))
    Traceback (most recent call last):
    ...
    ValueError: 'target:registry': expected target:<type>:<identifier>
    """
    target = strip_embedded_urls(target).url  # a URL credential never reaches a node or a message
    try:
        parsed = ids.parse(target)
    except ids.IdError:
        raise _expected(target, _attempted(target)) from None
    build = _BUILD.get(parsed.kind)
    if build is None:
        raise _expected(target, None)
    try:
        return build(parsed, ev)
    except _Malformed:
        raise _expected(target, _attempted(target)) from None
    except ValueError as exc:
        raise ValueError(f"{target!r}: {exc}") from None


def grant_kind(access: str, target: Node) -> EdgeKind:
    """Edge kind of a grant: its ``access``, except that ``assumes_role`` on an IAM user is its access key
    (``authenticates_as``)."""
    kind = EdgeKind(access)
    if kind is EdgeKind.ASSUMES_ROLE and target.spec.kind is NodeKind.CLOUD_USER:
        return EdgeKind.AUTHENTICATES_AS
    return kind


class GrantError(ValueError):
    """A credential grant that cannot be used: ``field`` (``target`` or ``access``) and ``reason``."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


def resolve_grant(access: str, target: str, ev: Evidence) -> tuple[EdgeKind, Node]:
    """The edge kind and target node of a grant ``credential -> target``.

    Raises
    ------
    GrantError
        ``field="target"`` when :func:`grant_target` fails; ``field="access"``
        when the target's kind cannot receive that access
        (:data:`graphkit.model.EDGE_SPECS`), e.g. ``assumes_role cannot point
        to a repository (repo:acme/app)``.
    """
    try:
        node = grant_target(target, ev)
    except ValueError as exc:
        raise GrantError("target", str(exc)) from None
    kind = grant_kind(access, node)
    if kind is EdgeKind.AUTHENTICATES_AS and node.spec.kind is not NodeKind.CLOUD_USER:
        raise GrantError("access", f"authenticates_as points only to an IAM user (cloud_user:aws:<user arn>), not to a "
                                   f"{node.spec.kind.value} ({target})" + (
                                       ": a role is written with assumes_role"
                                       if node.spec.kind is NodeKind.CLOUD_ROLE else ""))
    if node.spec.kind not in EDGE_SPECS[kind].targets:
        raise GrantError("access", f"{access} cannot point to a {node.spec.kind.value} ({target})")
    return kind, node
