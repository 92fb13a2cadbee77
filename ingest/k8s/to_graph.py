"""Kubernetes models -> nodes and edges, one cluster per input path (pure: no I/O).

Which cluster: every file found under one ``--k8s`` path belongs to one cluster, named by the cluster descriptor
among them (:class:`~ingest.k8s.models.ClusterInfo`: its API server URL, else its name), else by the input
folder's name (a file given alone: its folder's name).  The cluster is the deployment target
``target:cluster:{server or name}`` (the id a kubeconfig on a build host names, ``ingest/host``).

Nodes: the cluster; :class:`~graphkit.model.KubeServiceAccount` (declared, or named by a pod template, which runs
as ``default`` when it names none, or by a binding); :class:`~graphkit.model.KubeSecret` (declared or
referenced); each ARC pool with a known GitHub scope as a :class:`~graphkit.model.Runner` (``runner:{scope}/{name}``,
labels: the scale set name and its labels; ``pods``: :class:`~graphkit.model.RunnerPods`); the nodes its pods
land on as a :class:`~graphkit.model.Host` (:func:`graphkit.model.ids.k8s_node_pool`, ``ephemeral`` false: nodes
outlive pods); the owner (organization, repository) a pool registers to; AWS/GCP/Azure roles a service account
is bound to.

Edges (what they mean: ``graphkit/model/edges.py``):

- ``hosts`` node pool -> pool (pods run there: root on the node controls them); pods of a pool without a
  ``nodeSelector`` may land on any node, so the pools share nodes ``possible``-ly (taints not modelled), and the
  "any node" host hosts them ``possible``-ly: a node taken by one pod holds another pool's pods only if the
  scheduler put them there (Kubernetes "Assigning Pods to Nodes",
  https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/);
- ``runs_on_host`` pool -> node pool only when a pod can take its node (``RunnerPods.escapes``), cut by
  ``replace_nodes``: ``certain`` for a privileged or Windows HostProcess container, ``hostPID`` with a container
  adding ``SYS_PTRACE`` (:mod:`ingest.k8s.host_access`), a ``hostPath`` of a node path or a runtime socket
  (:func:`ingest.k8s.pods.host_path_controls_node`), ``possible`` when the only way out is a ``hostPath`` of
  another host folder (a data directory shared with the node and its other pods) or of a path not known, a host
  namespace, an added capability, ``procMount: Unmasked`` or a field that could not be read (Pod Security
  Standards, baseline, https://kubernetes.io/docs/concepts/security/pod-security-standards/);
  the resolver's persistence step then gives ``job -persists_on-> node pool`` (:mod:`graphkit.resolve.persistence`);
- ``uses_service_account`` pool -> service account (unless ``automountServiceAccountToken: false`` on the PodSpec,
  or on the ServiceAccount when the PodSpec does not set it);
- ``reads_secret`` pool -> Secrets its pods mount or read into their environment; service account or mapped AWS
  principal -> Secrets its RBAC lets it read (:mod:`ingest.k8s.rbac`), cut by ``remove_rbac_binding``;
- ``administers`` principal -> cluster for cluster admin (``*`` on ``*`` cluster-wide, ``cluster-admin``,
  ``system:masters``, or an escalation path: ``impersonate``, ``bind``, ``escalate``, :func:`ingest.k8s.rbac.escalations`),
  cut by ``remove_rbac_binding`` (props ``binding``: ``ClusterRoleBinding/NAME``, ``RoleBinding/NS/NAME`` or
  ``aws-auth/ARN``; ``escalation`` when obtained by one; creating workloads reads a namespace's Secrets, ``possible``);
- ``assumes_role`` service account -> its IRSA / workload identity role, ``possible`` (``trust: unknown``) until
  the resolver evaluates the role's trust (:mod:`graphkit.resolve.k8s`); ``aws-auth`` ``mapRoles`` role ->
  what the mapping's groups are granted;
- ``can_register_runner`` the pool's GitHub config Secret (``githubConfigSecret``, ``githubAPICredentialsFrom``,
  else a legacy controller's ``controller-manager`` Secret in the cluster) -> the owner or repository: ARC needs
  it to register runners there (ARC "Authenticating to the GitHub API",
  https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/authenticate-to-the-api); cut by
  ``rotate_controller_credential``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from graphkit.errors import InputError
from graphkit.graph import GraphBuilder
from graphkit.ingestor import IngestResult
from graphkit.model import (CloudRole, CloudUser, Confidence, DeploymentTarget, Edge, EdgeKind, Evidence, Host,
                            KubeSecret, KubeServiceAccount, Lifetime, Organization, Repository, RevocationAction,
                            Runner, RunnerGroup, RunnerPods, ids)
from ingest.k8s.models import (AwsAuthEntry, BindingDoc, ClusterInfo, KubeconfigDoc, RoleDoc, RunnerPool, SecretDoc,
                               ServiceAccountDoc, Subject, Where, WorkloadDoc)
from ingest.k8s.parse import ParsedK8s
from ingest.k8s.rbac import Grant, Principal, aggregated_rules, evaluate, mapped_principal, service_account_principal

__all__ = ["to_graph", "cluster_name"]

R = RevocationAction
#: the legacy (summerwind) controller's default credentials Secret (its Helm chart's ``authSecret.name``)
LEGACY_CONTROLLER_SECRET = "controller-manager"


def _ident(target_id: str) -> str:
    """The identifier of a cluster target id (the API server URL or name)."""
    return ids.parse(target_id).parts["identifier"]


def cluster_name(root: str) -> str:
    """The cluster of an input path without a descriptor: the folder's name (a file's: its folder's).

    >>> cluster_name("clusters/prod/"), cluster_name("clusters/prod/arc.yaml")
    ('prod', 'prod')
    """
    p = PurePath(root)
    return (p.parent.name if p.suffix in (".yaml", ".yml", ".json") else p.name) or "cluster"


@dataclass
class _Cluster:
    """One cluster on its way to the graph."""

    cid: str
    ident: str
    info: ClusterInfo | None
    g: GraphBuilder
    problems: list[InputError]
    sas: dict[tuple[str, str], str] = field(default_factory=dict)
    #: ``automountServiceAccountToken`` of the ServiceAccounts in the manifests that set it
    automount: dict[tuple[str, str], bool] = field(default_factory=dict)
    secrets: dict[tuple[str, str], str] = field(default_factory=dict)

    def sa(self, ns: str, name: str, ev: Evidence, doc: ServiceAccountDoc | None = None) -> str:
        """Add (or merge) the service account ``ns/name``; returns its id."""
        sid = ids.k8s_service_account(self.ident, ns, name)
        fields = {} if doc is None else {k: v for k, v in (("aws_role_arn", doc.aws_role_arn),
                                                            ("gcp_service_account", doc.gcp_service_account),
                                                            ("azure_client_id", doc.azure_client_id)) if v}
        self.g.node(KubeServiceAccount(id=sid, name=f"{ns}/{name}", cluster=self.cid, namespace=ns, account_name=name,
                                       oidc_issuer=self.info.oidc_issuer if self.info else None, evidence=[ev],
                                       **fields))
        self.sas[(ns, name)] = sid
        return sid

    def secret(self, ns: str, name: str, ev: Evidence, keys: list[str] | None = None,
               secret_type: str | None = None) -> str:
        """Add (or merge) the Secret ``ns/name`` (keys None: referenced, not read)."""
        sid = ids.k8s_secret(self.ident, ns, name)
        cred = ("app" if keys and "github_app_private_key" in keys else
                "pat" if keys and "github_token" in keys else None)
        extra = {"keys": keys} if keys is not None else {}
        self.g.node(KubeSecret(id=sid, name=f"{ns}/{name}", cluster=self.cid, namespace=ns, secret_name=name,
                               secret_type=secret_type, github_credential=cred, evidence=[ev], **extra))
        self.secrets[(ns, name)] = sid
        return sid


def _owner(c: _Cluster, scope: str, ev: Evidence) -> str:
    """The organization or repository ``scope`` (a pool's registration target), with its owner."""
    owner = scope.split("/", 1)[0]
    oid = c.g.node(Organization(id=ids.organization(owner), name=owner, evidence=[ev]))
    if "/" not in scope:
        return oid
    rid = c.g.node(Repository(id=ids.repository(scope), name=scope, full_name=scope, evidence=[ev]))
    c.g.edge(EdgeKind.OWNS, oid, rid, ev)
    return rid


def _node_pool(c: _Cluster, selector: dict[str, str], ev: Evidence) -> str:
    label = ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "any node"
    cluster = c.info.name if c.info else c.ident
    return c.g.node(Host(id=ids.k8s_node_pool(c.ident, selector), name=f"{cluster} nodes ({label})", os="linux",
                         ephemeral=False, cluster=c.cid, node_selector=selector, evidence=[ev]))


def _pool(c: _Cluster, pool: RunnerPool, pools: list[tuple[str, dict[str, str]]]) -> None:
    ev = pool.where.evidence(detail=f"{pool.resource} {pool.name}")
    sa_name = pool.pod.service_account or "default"
    sa = c.sa(pool.namespace, sa_name, ev)
    config = None
    if pool.config_secret:
        config = c.secret(pool.namespace, pool.config_secret, ev, keys=pool.inline_secret_keys or None)
    mounted = [c.secret(pool.namespace, n, ev) for n in pool.pod.secrets]
    if pool.scope is None:
        return  # an enterprise or a template placeholder: no GitHub owner to route jobs from (module docstring)
    resource = pool.resource if pool.resource == "values" else f"{pool.resource}/{pool.name}"
    pods = RunnerPods(cluster=c.cid, namespace=pool.namespace, resource=resource, service_account=sa,
                      node_selector=pool.pod.node_selector, escapes=[*pool.pod.escapes, *pool.pod.weak_escapes],
                      container_mode=pool.container_mode, config_secret=config, mounted_secrets=mounted,
                      shared_volumes=pool.pod.shared_volumes)
    rid = c.g.node(Runner(id=ids.runner(pool.scope, pool.name), name=pool.name, scope=pool.scope,
                          labels=pool.labels, runner_group=pool.runner_group, ephemeral=pool.ephemeral,
                          os="linux", pods=pods, evidence=[ev]))
    if pool.runner_group and "/" not in pool.scope:  # its group's settings are not in the manifests: inferred
        gid = c.g.node(RunnerGroup(id=ids.runner_group(pool.scope, pool.runner_group), name=pool.runner_group,
                                   owner=pool.scope, inferred=True, evidence=[ev]))
        c.g.edge(EdgeKind.MEMBER_OF, rid, gid, ev)
        c.g.edge(EdgeKind.OWNS, _owner(c, pool.scope, ev), gid, ev)
    host = _node_pool(c, pool.pod.node_selector, ev)
    # any node of the cluster: its pods land on one of them, not known which (module docstring)
    c.g.edge(EdgeKind.HOSTS, host, rid, ev, **({} if pool.pod.node_selector else
                                               {"possible": True, "props": {"shared": "any node"}}))
    pools.append((rid, pool.pod.node_selector))
    if escapes := pods.escapes:
        esc = pool.where.evidence("spec.template.spec" if pool.resource != "values" else "template.spec",
                                  detail="; ".join(escapes))
        c.g.add_edge(_edge(EdgeKind.RUNS_ON_HOST, rid, host, esc, revoked_by=R.REPLACE_NODES,
                           confidence=Confidence.CERTAIN if pool.pod.escapes else Confidence.POSSIBLE,
                           props={"escapes": escapes}))
    if _automounts(c, pool, sa_name):
        c.g.edge(EdgeKind.USES_SERVICE_ACCOUNT, rid, sa, ev)
    for sid in mounted:
        c.g.edge(EdgeKind.READS_SECRET, rid, sid, ev, props={"via": "pod mount"})
    if config is not None:
        target = _owner(c, pool.scope, ev)
        c.g.add_edge(_edge(EdgeKind.CAN_REGISTER_RUNNER, config, target, ev, revoked_by=R.ROTATE_CONTROLLER_CREDENTIAL,
                           props={"scope": pool.scope.lower(), "via": "githubConfigSecret"}))


def _automounts(c: _Cluster, pool: RunnerPool, sa_name: str) -> bool:
    """Whether the pool's pods get their service account's token: the PodSpec's ``automountServiceAccountToken``
    when set, else the ServiceAccount's, else yes ("The pod spec takes precedence over the service account if both
    specify a automountServiceAccountToken value", Kubernetes "Configure Service Accounts for Pods",
    https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/#opt-out-of-api-credential-automounting)."""
    if pool.pod.automount_token is not None:
        return pool.pod.automount_token
    return c.automount.get((pool.namespace, sa_name), True)


def _edge(kind: EdgeKind, source: str, target: str, ev: Evidence | list[Evidence], **kw: Any) -> Edge:
    return Edge(kind=kind, source=source, target=target, evidence=ev if isinstance(ev, list) else [ev], **kw)


def _shared_nodes(c: _Cluster, pools: list[tuple[str, dict[str, str]]], ev_of: dict[str, Evidence]) -> None:
    """Pools without a nodeSelector may run on the nodes of every other pool, and theirs (``possible``)."""
    for rid, sel in pools:
        for other, osel in pools:
            if other == rid or sel == osel or (sel and osel):
                continue
            host = ids.k8s_node_pool(c.ident, osel)
            c.g.edge(EdgeKind.HOSTS, host, rid, ev_of[rid], possible=True, props={"shared": "no nodeSelector"})


#: EKS access policies and the Kubernetes default ClusterRole each is equivalent to ("Review access policy
#: permissions", https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html)
EKS_ACCESS_POLICIES = {"AmazonEKSClusterAdminPolicy": "cluster-admin", "AmazonEKSAdminPolicy": "admin",
                       "AmazonEKSEditPolicy": "edit", "AmazonEKSViewPolicy": "view"}
#: separates cluster, principal and policy in an access entry's ``binding`` (ARNs hold ``/`` and ``:``)
ACCESS_SEP = "|"


def _access_bindings(entry: AwsAuthEntry) -> list[BindingDoc]:
    """An access entry's policies as bindings of their equivalent ClusterRoles to the principal (user ``arn``);
    a policy graphkit does not know grants nothing known (skipped)."""
    out = []
    for pol in entry.policies:
        role = EKS_ACCESS_POLICIES.get(pol.arn.rsplit("/", 1)[-1])
        if role is None:
            continue
        name = ACCESS_SEP.join((entry.cluster or "", entry.arn, pol.arn))
        for ns in pol.namespaces if pol.namespaces is not None else [None]:
            out.append(BindingDoc(name=name, namespace=ns, role_kind="ClusterRole", role_name=role,
                                  subjects=[Subject(kind="User", name=entry.arn)], where=entry.where))
    return out


def _binding_name(g: Grant, arn: str | None = None) -> str:
    if g.binding is not None and ACCESS_SEP in g.binding.name:
        return f"access-entry/{g.binding.name}"
    if g.binding is None:
        return f"aws-auth/{arn}" if arn else "ClusterRoleBinding/cluster-admin"
    if g.binding.namespace is None:
        return f"ClusterRoleBinding/{g.binding.name}"
    return f"RoleBinding/{g.binding.namespace}/{g.binding.name}"


def _grant_edges(c: _Cluster, source: str, g: Grant, base: Evidence, arn: str | None = None) -> None:
    evidence = [base] + ([g.binding.where.evidence(detail=f"{g.binding.role_kind} {g.binding.role_name}")]
                         if g.binding else [])
    binding = _binding_name(g, arn)
    props = {"binding": binding, **({"escalation": g.escalation} if g.escalation else {})}
    conf = Confidence.POSSIBLE if g.possible else Confidence.CERTAIN
    if g.admin:
        c.g.add_edge(_edge(EdgeKind.ADMINISTERS, source, c.cid, evidence, revoked_by=R.REMOVE_RBAC_BINDING,
                           lifetime=Lifetime.UNTIL_REVOKED, props=props, confidence=conf))
    for (ns, name), sid in sorted(c.secrets.items()):
        if (None in g.namespaces or ns in g.namespaces) and (g.names is None or name in g.names):
            c.g.add_edge(_edge(EdgeKind.READS_SECRET, source, sid, evidence, revoked_by=R.REMOVE_RBAC_BINDING,
                               key=binding, props={**props, "via": "rbac"}, confidence=conf))


def _rbac(c: _Cluster, bindings: list[BindingDoc], roles: dict[tuple[str, str | None], RoleDoc],
          auth: list[AwsAuthEntry]) -> None:
    aggregated = aggregated_rules(roles)  # once per cluster, not per principal
    for (ns, name), sid in sorted(c.sas.items()):
        p: Principal = service_account_principal(ns, name)
        for g in evaluate(p, bindings, roles, aggregated):
            _grant_edges(c, sid, g, g.binding.where.evidence() if g.binding else Evidence(file="rbac"))
    for entry in auth:
        ev = entry.where.evidence(detail=f"groups: {', '.join(entry.groups)}")
        try:
            if ":user/" in entry.arn:
                src = c.g.node(CloudUser(id=ids.cloud_user(entry.arn), name=entry.arn.rsplit("/", 1)[-1],
                                         arn=entry.arn, account=entry.arn.split(":")[4], evidence=[ev]))
            else:
                src = c.g.node(CloudRole(id=ids.cloud_role("aws", entry.arn), name=entry.arn.rsplit("/", 1)[-1],
                                         provider="aws", identifier=entry.arn, account=entry.arn.split(":")[4] or None,
                                         evidence=[ev]))
        except (ids.IdError, IndexError, ValueError):
            c.problems.append(InputError(entry.where.file, entry.where.evidence().yaml_path or "", "not an IAM ARN"))
            continue
        if entry.policies:  # an access entry: its policies, bound to the principal as a user
            for g in evaluate(mapped_principal(entry.arn, []), _access_bindings(entry), {}):
                _grant_edges(c, src, g, entry.where.evidence(), entry.arn)
            continue
        for g in evaluate(mapped_principal(entry.username, entry.groups), bindings, roles, aggregated):
            _grant_edges(c, src, g, ev, entry.arn)


def _identities(c: _Cluster, doc: ServiceAccountDoc, sid: str) -> None:
    ev = doc.where.evidence("metadata.annotations")
    for provider, ident in (("aws", doc.aws_role_arn), ("gcp", doc.gcp_service_account), ("azure", doc.azure_client_id)):
        if not ident:
            continue
        account = ident.split(":")[4] if provider == "aws" and ident.count(":") >= 5 else None
        rid = c.g.node(CloudRole(id=ids.cloud_role(provider, ident), name=ident.rsplit("/", 1)[-1], provider=provider,
                                 identifier=ident, account=account, evidence=[ev]))
        c.g.edge(EdgeKind.ASSUMES_ROLE, sid, rid, ev, possible=True,
                 props={"via": "workload identity", "trust": "unknown"})


def _cluster_node(root: str, objs: list, g: GraphBuilder) -> tuple[str, ClusterInfo | None]:
    info = next((o for o in objs if isinstance(o, ClusterInfo)), None)
    ident = (info.server or info.name) if info else cluster_name(root)
    first = info.where if info else next((o.where for o in objs), Where(file=root))
    cid = ids.target("cluster", ident)
    stated = {"production": info.production} if info and info.production is not None else {}
    g.node(DeploymentTarget(id=cid, name=info.name if info else ident, target_type="cluster",
                            identifier=_ident(cid), evidence=[first.evidence()], **stated))
    return cid, info


def _declared(c: _Cluster, objs: list) -> None:
    for o in objs:
        if isinstance(o, SecretDoc):
            c.secret(o.namespace, o.name, o.where.evidence(), keys=o.keys, secret_type=o.secret_type)
        elif isinstance(o, ServiceAccountDoc):
            _identities(c, o, c.sa(o.namespace, o.name, o.where.evidence(), o))
            if o.automount_token is not None:
                c.automount[(o.namespace, o.name)] = o.automount_token


def _pools(c: _Cluster, objs: list) -> None:
    pools: list[tuple[str, dict[str, str]]] = []
    for o in objs:
        if isinstance(o, RunnerPool):
            try:  # the pool's own ids first: a pool is added whole or, with a name past a limit, not at all
                if o.scope is not None:
                    ids.runner(o.scope, o.name), ids.k8s_node_pool(c.ident, o.pod.node_selector)
                    if o.runner_group and "/" not in o.scope:
                        ids.runner_group(o.scope, o.runner_group)
            except ids.IdError as exc:  # e.g. a scale set name past max_identifier_chars: that pool only
                ev = o.where.evidence()
                place = f"{ev.yaml_path or ''} (line {ev.line})".strip() if ev.line else ev.yaml_path or ""
                c.problems.append(InputError(ev.file, place, f"{exc}; runner pool left out"))
                continue
            _pool(c, o, pools)
        elif isinstance(o, WorkloadDoc):
            c.sa(o.namespace, o.pod.service_account or "default", o.where.evidence(detail=f"{o.kind} {o.name}"))
    _shared_nodes(c, pools, _pool_evidence(c.g, pools))


def _cluster(root: str, objs: list, g: GraphBuilder, problems: list[InputError]) -> None:
    cid, info = _cluster_node(root, objs, g)
    c = _Cluster(cid, _ident(cid), info, g, problems)
    _declared(c, objs)
    _pools(c, objs)
    _legacy_controller(c, objs)
    bindings = [o for o in objs if isinstance(o, BindingDoc)]
    for b in bindings:
        for s in b.subjects:
            if s.kind == "ServiceAccount" and s.namespace:
                c.sa(s.namespace, s.name, b.where.evidence(detail=f"subject of {b.name}"))
    roles = {(o.name, o.namespace): o for o in objs if isinstance(o, RoleDoc)}
    _rbac(c, bindings, roles, [o for o in objs if isinstance(o, AwsAuthEntry)])


def _pool_evidence(g: GraphBuilder, pools: list[tuple[str, dict[str, str]]]) -> dict[str, Evidence]:
    return {rid: (g.nodes[rid].evidence or [Evidence(file="k8s")])[0] for rid, _ in pools}


def _legacy_controller(c: _Cluster, objs: list) -> None:
    """Legacy pools without their own credentials Secret register with the controller's ``controller-manager``."""
    legacy = [o for o in objs if isinstance(o, RunnerPool) and o.resource != "AutoscalingRunnerSet"
              and o.resource != "values" and not o.config_secret and o.scope]
    secrets = [(key, sid) for key, sid in c.secrets.items() if key[1] == LEGACY_CONTROLLER_SECRET]
    for (_, _), sid in secrets:
        for pool in legacy:
            ev = pool.where.evidence(detail=f"{pool.resource} {pool.name} (controller credentials)")
            c.g.add_edge(_edge(EdgeKind.CAN_REGISTER_RUNNER, sid, _owner(c, pool.scope or "", ev), ev,
                               revoked_by=R.ROTATE_CONTROLLER_CREDENTIAL,
                               props={"scope": (pool.scope or "").lower(), "via": LEGACY_CONTROLLER_SECRET}))


def _kubeconfig_clusters(g: GraphBuilder, doc: KubeconfigDoc) -> None:
    for i, (name, server) in enumerate(sorted(doc.clusters.items())):
        try:
            tid = ids.target("cluster", server)
        except ids.IdError:
            continue
        g.node(DeploymentTarget(id=tid, name=name, target_type="cluster", identifier=_ident(tid),
                                evidence=[doc.where.evidence(f"clusters[{i}]")]))


def to_graph(parsed: list[ParsedK8s]) -> IngestResult:
    """Every parsed file -> one graph part per cluster (module docstring)."""
    out = IngestResult()
    groups: dict[str, list] = defaultdict(list)
    for p in parsed:
        groups[p.root] += [o for o in p.objects if not isinstance(o, KubeconfigDoc)]
        for o in p.objects:
            if isinstance(o, KubeconfigDoc):
                _kubeconfig_clusters(out.graph, o)
    for root, objs in sorted(groups.items()):
        if objs:
            try:
                _cluster(root, objs, out.graph, out.problems)
            except ids.IdError as exc:
                out.problems.append(InputError(root, "", f"cannot be linked: {exc}"))
    return out
