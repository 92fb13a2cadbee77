"""Kubeconfig users, read once for every source (pure: no I/O, never a credential value).

A kubeconfig (``kind: Config``, https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/)
lists ``clusters`` (name -> ``server``), ``users`` (name -> credential) and ``contexts`` (name -> cluster + user).
:func:`user_credential` says how a user authenticates, without keeping the material:

- ``token`` / ``tokenFile``: a bearer token (a service account token or an OIDC id token): ``token``;
- ``client-certificate(-data)`` + ``client-key(-data)``: ``client-certificate``;
- ``username`` + ``password``: ``basic``; ``auth-provider``: ``auth-provider``;
- ``exec``: a credential plugin (https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins).
  ``aws eks get-token --cluster-name NAME [--role-arn ARN]`` (AWS CLI,
  https://docs.aws.amazon.com/cli/latest/reference/eks/get-token.html) and ``aws-iam-authenticator token -i NAME
  [-r ARN]`` (https://github.com/kubernetes-sigs/aws-iam-authenticator) authenticate as an AWS IAM identity: the
  role given (``--role-arn`` / ``-r``), else whatever AWS credentials the environment has.  The cluster then maps
  that identity to Kubernetes users and groups (EKS ``aws-auth`` ConfigMap or access entries).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["KubeUserFacts", "user_credential", "kubeconfig_users", "kubeconfig_clusters"]


class KubeUserFacts(NamedTuple):
    """``credential``: how the user authenticates; ``role_arn``: the AWS role an EKS exec plugin assumes;
    ``eks_cluster``: the EKS cluster name it asks a token for."""

    credential: str
    role_arn: str | None = None
    eks_cluster: str | None = None


def _flag(args: list[str], *names: str) -> str | None:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in ``args``."""
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args) and isinstance(args[i + 1], str):
                return args[i + 1]
            if isinstance(a, str) and a.startswith(n + "="):
                return a.split("=", 1)[1]
    return None


def _exec(spec: dict[str, Any]) -> KubeUserFacts:
    command = spec.get("command") if isinstance(spec.get("command"), str) else ""
    args = [a for a in spec.get("args") or [] if isinstance(a, str)] if isinstance(spec.get("args"), list) else []
    tool = command.rsplit("/", 1)[-1]
    if tool == "aws" and args[:2] == ["eks", "get-token"]:
        return KubeUserFacts("exec", _flag(args, "--role-arn"), _flag(args, "--cluster-name"))
    if tool == "aws-iam-authenticator":
        return KubeUserFacts("exec", _flag(args, "-r", "--role"), _flag(args, "-i", "--cluster-id"))
    return KubeUserFacts("exec")


def user_credential(user: Any) -> KubeUserFacts:
    """How a kubeconfig ``users[].user`` mapping authenticates (module docstring).

    >>> user_credential({"exec": {"command": "aws", "args": ["eks", "get-token", "--cluster-name", "prod",
    ...                  "--role-arn", "arn:aws:iam::111122223333:role/eks-admin"]}})
    KubeUserFacts(credential='exec', role_arn='arn:aws:iam::111122223333:role/eks-admin', eks_cluster='prod')
    >>> user_credential({"token": "placeholder"}).credential, user_credential({}).credential
    ('token', 'none')
    """
    if not isinstance(user, dict):
        return KubeUserFacts("none")
    if isinstance(user.get("exec"), dict):
        return _exec(user["exec"])
    if user.get("token") or user.get("tokenFile"):
        return KubeUserFacts("token")
    if user.get("client-key-data") or user.get("client-key"):
        return KubeUserFacts("client-certificate")
    if user.get("auth-provider"):
        return KubeUserFacts("auth-provider")
    if user.get("password"):
        return KubeUserFacts("basic")
    return KubeUserFacts("none")


def _named(doc: dict[str, Any], section: str, inner: str) -> list[tuple[str, Any]]:
    items = doc.get(section) if isinstance(doc.get(section), list) else []
    return [(i["name"], i.get(inner)) for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)]


def kubeconfig_users(doc: dict[str, Any]) -> dict[str, KubeUserFacts]:
    """User name -> :class:`KubeUserFacts` of a loaded kubeconfig (sections of another type name nothing)."""
    return {name: user_credential(user) for name, user in _named(doc, "users", "user")}


def kubeconfig_clusters(doc: dict[str, Any]) -> dict[str, str]:
    """Cluster name -> ``server`` (as written; callers strip URL credentials)."""
    return {name: c["server"] for name, c in _named(doc, "clusters", "cluster")
            if isinstance(c, dict) and isinstance(c.get("server"), str) and c["server"].strip()}
