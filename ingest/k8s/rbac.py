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

Aggregated ClusterRoles ("Aggregated ClusterRoles",
https://kubernetes.io/docs/reference/access-authn-authz/rbac/#aggregated-clusterroles): the control plane fills the
rules of a ClusterRole with an ``aggregationRule`` with the rules of every ClusterRole whose labels match one of its
``clusterRoleSelectors`` (rules written in it are overwritten), so the union is what it grants, transitively.  The
default ``admin``, ``edit`` and ``view`` aggregate the ClusterRoles labelled
``rbac.authorization.k8s.io/aggregate-to-admin`` / ``-edit`` / ``-view: "true"`` ("User-facing roles"), ``edit``
being aggregated into ``admin`` and ``view`` into ``edit``: a ClusterRole of the manifests labelled
``aggregate-to-view`` that reads Secrets makes every ``view`` binding read them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ingest.k8s.models import BindingDoc, LabelSelector, RoleDoc, Rule, Subject

__all__ = ["Principal", "Grant", "service_account_principal", "mapped_principal", "evaluate", "aggregated_rules"]

_ALL = Rule(api_groups=["*"], resources=["*"], verbs=["*"])
_READ_SECRETS = Rule(api_groups=[""], resources=["secrets"], verbs=["get", "list", "watch"])
#: default ClusterRoles (only what matters here)
BUILTIN: dict[str, list[Rule]] = {"cluster-admin": [_ALL], "admin": [_READ_SECRETS], "edit": [_READ_SECRETS],
                                  "view": []}
_READ_VERBS = {"get", "list", "watch", "*"}
_AGG = "rbac.authorization.k8s.io/aggregate-to-"
#: the aggregation rules and labels of the default user-facing ClusterRoles ("User-facing roles",
#: https://kubernetes.io/docs/reference/access-authn-authz/rbac/#user-facing-roles)
BUILTIN_AGGREGATION: dict[str, tuple[list[LabelSelector], dict[str, str]]] = {
    "admin": ([LabelSelector(match_labels={f"{_AGG}admin": "true"})], {}),
    "edit": ([LabelSelector(match_labels={f"{_AGG}edit": "true"})], {f"{_AGG}admin": "true"}),
    "view": ([LabelSelector(match_labels={f"{_AGG}view": "true"})], {f"{_AGG}edit": "true"}),
}


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


def _selects(sel: LabelSelector, labels: dict[str, str]) -> bool:
    """Whether a label selector matches ``labels`` (all its requirements; an empty selector matches nothing here:
    an aggregation rule with it selects no ClusterRole)."""
    if not sel.match_labels and not sel.match_expressions:
        return False
    if any(labels.get(k) != v for k, v in sel.match_labels.items()):
        return False
    for key, op, values in sel.match_expressions:
        value = labels.get(key)
        if ((op == "In" and value not in values) or (op == "NotIn" and value is not None and value in values)
                or (op == "Exists" and value is None) or (op == "DoesNotExist" and value is not None)):
            return False
    return True


def aggregated_rules(roles: dict[tuple[str, str | None], RoleDoc]) -> dict[str, list[Rule]]:
    """The rules of every aggregated ClusterRole (the manifests' and the default ``admin``/``edit``/``view`` not
    defined there): the union of the rules of the ClusterRoles its selectors match, to a fixed point (module
    docstring).  ClusterRole name -> rules; ClusterRoles that aggregate nothing are not keys.

    >>> from ingest.k8s.models import Where
    >>> extra = RoleDoc(name="ci-secrets", rules=[Rule(api_groups=[""], resources=["secrets"], verbs=["get"])],
    ...                 labels={"rbac.authorization.k8s.io/aggregate-to-view": "true"}, where=Where(file="r.yaml"))
    >>> agg = aggregated_rules({("ci-secrets", None): extra})
    >>> [r.verbs for r in agg["view"]], len(agg["admin"])
    ([['get']], 2)
    """
    cluster = {n: r for (n, ns), r in roles.items() if ns is None}
    agg = {n: (r.aggregation, r.labels) for n, r in cluster.items() if r.aggregation is not None}
    agg.update({n: v for n, v in BUILTIN_AGGREGATION.items() if n not in cluster})
    labels_of = {**{n: r.labels for n, r in cluster.items()}, **{n: lab for n, (_, lab) in agg.items()}}
    base = {n: list(r.rules) for n, r in cluster.items() if n not in agg}
    base.update({n: list(BUILTIN.get(n, [])) for n in agg if n not in cluster})  # a default role's own rules
    selected = {n: [o for o, lab in labels_of.items() if o != n and any(_selects(s, lab) for s in sels)]
                for n, (sels, _) in agg.items()}
    return _fill(selected, base)


def _fill(selected: dict[str, list[str]], base: dict[str, list[Rule]]) -> dict[str, list[Rule]]:
    """Rules of each aggregated ClusterRole (``selected``: name -> the ClusterRoles it selects) from the rules of
    the others (``base``: their own), passed on until nothing changes (each pass reaches one more level)."""
    rules = {n: list(base.get(n, [])) for n in selected}
    for _ in range(len(selected) + 1):
        changed = False
        for name, others in selected.items():
            got = list(base.get(name, []))
            for other in others:
                got += [r for r in rules.get(other, base.get(other, [])) if r not in got]
            if len(got) > len(rules[name]):
                rules[name], changed = got, True
        if not changed:
            break
    return rules


def _rules(b: BindingDoc, roles: dict[tuple[str, str | None], RoleDoc],
           aggregated: dict[str, list[Rule]]) -> tuple[RoleDoc | None, list[Rule] | None]:
    if b.role_kind == "Role":
        role = roles.get((b.role_name, b.namespace))
        return role, role.rules if role is not None else None
    role = roles.get((b.role_name, None))
    if b.role_name in aggregated:
        return role, aggregated[b.role_name]
    if role is not None:
        return role, role.rules
    return None, BUILTIN.get(b.role_name)


def evaluate(p: Principal, bindings: list[BindingDoc], roles: dict[tuple[str, str | None], RoleDoc],
             aggregated: dict[str, list[Rule]] | None = None) -> list[Grant]:
    """Every binding that gives ``p`` cluster admin or Secret reads (bindings to roles not in the manifests and
    not default ClusterRoles give nothing known: they are skipped).  The group ``system:masters`` gives a grant
    whose ``binding`` is None (the default ``cluster-admin`` ClusterRoleBinding).  ``aggregated``: the rules of the
    aggregated ClusterRoles (:func:`aggregated_rules` of ``roles``, computed when not given)."""
    out = []
    if aggregated is None:
        aggregated = aggregated_rules(roles)
    for b in bindings:
        if not any(_matches(s, p) for s in b.subjects):
            continue
        role, rules = _rules(b, roles, aggregated)
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
