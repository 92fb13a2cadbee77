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

__all__ = ["Principal", "Grant", "service_account_principal", "mapped_principal", "evaluate", "aggregated_rules",
           "escalations"]

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
    #: how the grant is obtained when not by the rules themselves (:func:`escalations`): ``impersonate``,
    #: ``bind``, ``escalate``, ``create-workloads``; ``possible``: it depends on something not read (admission)
    escalation: str | None = None
    possible: bool = False


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


def _direct(b: BindingDoc, role: RoleDoc | None, rules: list[Rule]) -> Grant:
    """What a binding's rules name: cluster admin (``*`` on ``*`` cluster-wide) and Secret reads."""
    g = Grant(b, role)
    limited: set[str] = set()
    everything = False
    for rule in rules:
        if b.namespace is None and _hit(rule.api_groups, "*") and "*" in rule.resources and "*" in rule.verbs:
            g.admin = True
        if _hit(rule.api_groups, "") and _hit(rule.resources, "secrets") and _READ_VERBS & set(rule.verbs):
            g.namespaces.add(b.namespace)
            if rule.resource_names and not {"list", "watch", "*"} & set(rule.verbs):
                limited |= set(rule.resource_names)
            else:
                everything = True
    g.names = None if everything else limited
    return g


def evaluate(p: Principal, bindings: list[BindingDoc], roles: dict[tuple[str, str | None], RoleDoc],
             aggregated: dict[str, list[Rule]] | None = None) -> list[Grant]:
    """Every binding that gives ``p`` cluster admin or Secret reads, by its rules or by the escalation they allow
    (:func:`escalations`; bindings to roles not in the manifests and not default ClusterRoles give nothing known:
    they are skipped).  The group ``system:masters`` gives a grant
    whose ``binding`` is None (the default ``cluster-admin`` ClusterRoleBinding).  ``aggregated``: the rules of the
    aggregated ClusterRoles (:func:`aggregated_rules` of ``roles``, computed when not given)."""
    out = []
    if aggregated is None:
        aggregated = aggregated_rules(roles)
    for b in bindings:
        if not any(_matches(s, p) for s in b.subjects):
            continue
        role, rules = _rules(b, roles, aggregated)
        g = _direct(b, role, rules or [])
        if g.admin or g.namespaces:
            out.append(g)
        out += [e for e in escalations(b, role, rules or []) if _adds(e, g)]
    if "system:masters" in p.groups:
        out.append(Grant(None, None, admin=True, namespaces={None}))
    return out


def _adds(e: Grant, g: Grant) -> bool:
    """Whether escalation ``e`` gives more than the binding's own grant ``g``."""
    if g.admin:
        return False
    if e.admin:
        return True
    reads_all = g.names is None and (None in g.namespaces or e.namespaces <= g.namespaces)
    return not reads_all


_RBAC = "rbac.authorization.k8s.io"
#: workloads whose creation runs a pod of the creator's choosing: (API group, resource)
_WORKLOADS = (("", "pods"), ("", "replicationcontrollers"), ("apps", "deployments"), ("apps", "daemonsets"),
              ("apps", "statefulsets"), ("apps", "replicasets"), ("batch", "jobs"), ("batch", "cronjobs"))


def _can(rules: list[Rule], group: str, resource: str, verbs: set[str]) -> bool:
    """Whether some rule allows one of ``verbs`` on ``resource`` of ``group`` for every name (no
    ``resourceNames``)."""
    return any(_hit(r.api_groups, group) and _hit(r.resources, resource) and ("*" in r.verbs or verbs & set(r.verbs))
               and not r.resource_names for r in rules)


def escalations(b: BindingDoc, role: RoleDoc | None, rules: list[Rule]) -> list[Grant]:
    """What a binding's rules give beyond what they name: the privilege escalation paths of Kubernetes "Role Based
    Access Control Good Practices", "Privilege escalation risks"
    (https://kubernetes.io/docs/concepts/security/rbac-good-practices/#privilege-escalation-risks) and "Using RBAC
    Authorization", "Privilege escalation prevention and bootstrapping"
    (https://kubernetes.io/docs/reference/access-authn-authz/rbac/#privilege-escalation-prevention-and-bootstrapping):

    - ``impersonate`` on ``users`` and ``groups`` (a ClusterRoleBinding: they are cluster-scoped; a group is
      impersonated with a user) acts as the group ``system:masters``: cluster admin;
    - ``bind`` on ``clusterroles`` with ``create`` on ``clusterrolebindings`` (cluster-wide) binds ``cluster-admin``
      to oneself; ``escalate`` with ``update``/``patch`` on ``clusterroles`` rewrites one's own ClusterRole: admin;
      in a RoleBinding's namespace, ``bind`` with ``create`` on ``rolebindings`` (or ``escalate`` with
      ``update``/``patch`` on ``roles``) gives the namespace's Secrets (bind the default ``admin``);
    - ``create`` on a workload (pods, deployments, daemonsets, statefulsets, replicasets, replicationcontrollers,
      jobs, cronjobs) runs a pod that mounts any Secret of the namespace ("Workload creation"): its Secrets,
      ``possible`` (admission policies are not read).

    ``resourceNames`` on a rule keeps it out (it names what may be touched).
    """
    out: list[Grant] = []
    cluster = b.namespace is None
    if cluster and _can(rules, "", "users", {"impersonate"}) and _can(rules, "", "groups", {"impersonate"}):
        out.append(Grant(b, role, admin=True, namespaces={None}, escalation="impersonate"))
    elif cluster and _can(rules, _RBAC, "clusterroles", {"bind"}) and _can(rules, _RBAC, "clusterrolebindings", {"create"}):
        out.append(Grant(b, role, admin=True, namespaces={None}, escalation="bind"))
    elif cluster and _can(rules, _RBAC, "clusterroles", {"escalate"}) and _can(rules, _RBAC, "clusterroles", {"update", "patch"}):
        out.append(Grant(b, role, admin=True, namespaces={None}, escalation="escalate"))
    elif _can(rules, _RBAC, "roles", {"escalate"}) and _can(rules, _RBAC, "roles", {"update", "patch"}):
        out.append(Grant(b, role, namespaces={b.namespace}, escalation="escalate"))
    elif (_can(rules, _RBAC, "clusterroles", {"bind"}) or _can(rules, _RBAC, "roles", {"bind"})) and _can(
            rules, _RBAC, "rolebindings", {"create"}):
        out.append(Grant(b, role, namespaces={b.namespace}, escalation="bind"))
    if not out and any(_can(rules, grp, res, {"create"}) for grp, res in _WORKLOADS):
        out.append(Grant(b, role, namespaces={b.namespace}, escalation="create-workloads", possible=True))
    return out
