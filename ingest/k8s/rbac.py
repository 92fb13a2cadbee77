"""Kubernetes RBAC, evaluated for one principal (pure): which Secrets it can read, and whether it is cluster admin.

Rules ("Using RBAC Authorization", https://kubernetes.io/docs/reference/access-authn-authz/rbac/): permissions are
purely additive; a RoleBinding grants its role's rules in its own namespace (a ClusterRole bound by a RoleBinding
too), a ClusterRoleBinding grants a ClusterRole's rules in every namespace.  A service account ``NS/SA`` is the
user ``system:serviceaccount:NS:SA`` in the groups ``system:serviceaccounts``, ``system:serviceaccounts:NS`` and
``system:authenticated``; an EKS ``aws-auth`` mapping names a user and groups; ``system:masters`` is bound to
``cluster-admin`` by the default ClusterRoleBinding ("Default roles and role bindings").  Default ClusterRoles
not in the manifests: ``cluster-admin`` (``*`` on ``*``), ``admin`` and ``edit`` (read Secrets of the namespace),
``view`` (no Secrets).  Reading a Secret: ``get``, ``list`` or ``watch`` (list and watch return values too) on
``secrets`` in the core group; ``resourceNames`` limits ``get`` to those names.  Cluster admin: ``*`` verbs on
``*`` resources of ``*`` groups, granted cluster-wide.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ingest.k8s.models import BindingDoc, RoleDoc, Rule, Subject

__all__ = ["Principal", "Grant", "service_account_principal", "mapped_principal", "evaluate"]

_ALL = Rule(api_groups=["*"], resources=["*"], verbs=["*"])
_READ_SECRETS = Rule(api_groups=[""], resources=["secrets"], verbs=["get", "list", "watch"])
#: default ClusterRoles (only what matters here)
BUILTIN: dict[str, list[Rule]] = {"cluster-admin": [_ALL], "admin": [_READ_SECRETS], "edit": [_READ_SECRETS],
                                  "view": []}
_READ_VERBS = {"get", "list", "watch", "*"}


@dataclass(frozen=True)
class Principal:
    """Who asks: a user name and groups (``system:authenticated`` included)."""

    user: str
    groups: frozenset[str]
    service_account: tuple[str, str] | None = None


@dataclass
class Grant:
    """What one binding gives a principal: ``admin`` (cluster-wide ``*``), the namespaces whose Secrets it reads
    (``None`` in the set: every namespace), the names it may read when limited, and the binding's name."""

    binding: BindingDoc | None
    role: RoleDoc | None
    admin: bool = False
    namespaces: set[str | None] = field(default_factory=set)
    names: set[str] | None = None


def service_account_principal(namespace: str, name: str) -> Principal:
    """The principal of a service account."""
    return Principal(f"system:serviceaccount:{namespace}:{name}",
                     frozenset({"system:serviceaccounts", f"system:serviceaccounts:{namespace}",
                                "system:authenticated"}), (namespace, name))


def mapped_principal(username: str | None, groups: Iterable[str]) -> Principal:
    """The principal an ``aws-auth`` entry maps an IAM identity to."""
    return Principal(username or "", frozenset({*groups, "system:authenticated"}))


def _matches(s: Subject, p: Principal) -> bool:
    if s.kind == "ServiceAccount":
        return p.service_account is not None and (s.namespace, s.name) == p.service_account
    if s.kind == "User":
        return bool(p.user) and s.name == p.user
    return s.kind == "Group" and s.name in p.groups


def _hit(values: list[str], wanted: str) -> bool:
    return "*" in values or wanted in values


def _rules(b: BindingDoc, roles: dict[tuple[str, str | None], RoleDoc]) -> tuple[RoleDoc | None, list[Rule] | None]:
    if b.role_kind == "Role":
        role = roles.get((b.role_name, b.namespace))
    else:
        role = roles.get((b.role_name, None))
    if role is not None:
        return role, role.rules
    return None, BUILTIN.get(b.role_name) if b.role_kind == "ClusterRole" else None


def evaluate(p: Principal, bindings: list[BindingDoc], roles: dict[tuple[str, str | None], RoleDoc]) -> list[Grant]:
    """Every binding that gives ``p`` cluster admin or Secret reads (bindings to roles not in the manifests and
    not default ClusterRoles give nothing known: they are skipped).  The group ``system:masters`` gives a grant
    whose ``binding`` is None (the default ``cluster-admin`` ClusterRoleBinding)."""
    out = []
    for b in bindings:
        if not any(_matches(s, p) for s in b.subjects):
            continue
        role, rules = _rules(b, roles)
        g = Grant(b, role)
        limited: set[str] = set()
        everything = False
        for rule in rules or []:
            if b.namespace is None and _hit(rule.api_groups, "*") and "*" in rule.resources and "*" in rule.verbs:
                g.admin = True
            if _hit(rule.api_groups, "") and _hit(rule.resources, "secrets") and _READ_VERBS & set(rule.verbs):
                g.namespaces.add(b.namespace)
                if rule.resource_names and not {"list", "watch", "*"} & set(rule.verbs):
                    limited |= set(rule.resource_names)
                else:
                    everything = True
        g.names = None if everything else limited
        if g.admin or g.namespaces:
            out.append(g)
    if "system:masters" in p.groups:
        out.append(Grant(None, None, admin=True, namespaces={None}))
    return out
