"""Kubernetes and Actions Runner Controller semantics across sources (issue 15; pure graph -> graph, idempotent).

Runs inside :func:`graphkit.resolve.resolve`, after routing and persistence.  An ARC pool is a
:class:`~graphkit.model.Runner` with :attr:`~graphkit.model.Runner.pods` (``ingest/k8s``), so routing already
sent it the jobs whose ``runs-on`` names its scale set name or labels, in its runner group
(:mod:`graphkit.resolve.routing`; ARC "Using ARC runners in a workflow",
https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/use-arc-in-a-workflow).  Its runners are
ephemeral, so persistence (:mod:`graphkit.resolve.persistence`) gives a job ``persists_on`` the node pool only when
the pool's pods can take their node (``runs_on_host``: privileged, ``hostPath``, docker socket).  This step adds:

1. **what a job in the pod holds**: ``job -persists_on-> pool`` when the pods mount a volume that outlives them
   (a ``persistentVolumeClaim``, a RunnerSet ``volumeClaimTemplates`` claim: a docker layer or tool cache that
   later jobs run from; cut by ``purge_cache``, i.e. deleting the claims), ``job -uses_service_account-> service account`` (the pod's token, unless
   ``automountServiceAccountToken: false``: Kubernetes "Service accounts",
   https://kubernetes.io/docs/concepts/security/service-accounts/) and ``job -reads_secret-> Secret`` for the
   Secrets the pod mounts or reads into its environment, each with the routing edge's confidence;
2. **revocation on Kubernetes terms**: the routing edges of an ARC pool are cut by ``delete_scale_set``, the
   persistence edges onto a node pool by ``replace_nodes`` (cordon, drain, replace);
3. **IRSA trust** (EKS "IAM roles for service accounts",
   https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html and "Configure a role's
   trust policy", https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html): a
   service account's ``assumes_role`` edge to an ingested AWS role is evaluated with the trust evaluator
   (:func:`graphkit.iam.web_identity_trust`): principal ``Federated`` = the account's
   ``oidc-provider/{issuer host}``, ``{issuer host}:sub`` = ``system:serviceaccount:NS:SA``, ``{issuer host}:aud``
   = ``sts.amazonaws.com``.  ``certain`` when the trust allows it, removed when it refuses, ``possible`` when the
   cluster's issuer is unknown or the trust depends on an unknown;
4. **aws-auth and role paths**: ``aws-auth`` ``rolearn`` values must be written without the role's path (EKS
   "Grant IAM users and roles access to Kubernetes APIs", https://docs.aws.amazon.com/eks/latest/userguide/auth-configmap.html),
   so a mapped ``arn:aws:iam::ACCOUNT:role/NAME`` also stands for an ingested ``role/PATH/NAME``: its
   ``administers`` / ``reads_secret`` edges are copied to that role.
"""

from __future__ import annotations

from collections.abc import Callable

from graphkit import cloud  # its attributes read at call time: graphkit.cloud imports graphkit.resolve
from graphkit.graph import Graph
from graphkit.iam import ClaimValue, PolicyError, parse_policy, web_identity_trust
from graphkit.model import (CloudRole, Confidence, Edge, EdgeKind, Evidence, Host, KubeServiceAccount, Lifetime,
                            Node, NodeKind, RevocationAction, Runner)
from graphkit.resolve.context import edges_of_kind, nodes_of_kind

__all__ = ["link_k8s", "irsa_subject"]

R = RevocationAction
_P = Confidence.POSSIBLE


def irsa_subject(namespace: str, name: str) -> str:
    """The ``sub`` claim of a service account's projected token (EKS IRSA).

    >>> irsa_subject("arc-runners", "runner")
    'system:serviceaccount:arc-runners:runner'
    """
    return f"system:serviceaccount:{namespace}:{name}"


def _edges_if(graph: Graph, kind: EdgeKind, node_kind: NodeKind, test: Callable[[Node], object]) -> list[Edge]:
    """The edges of ``kind``, or none when no node of ``node_kind`` passes ``test`` (its value not None): then
    the step has nothing to change, and the edges are not read (a graph without Kubernetes pools or nodes)."""
    if all(test(n) is None for n in nodes_of_kind(graph, node_kind)):
        return []
    return edges_of_kind(graph, kind)


def _job_holdings(graph: Graph) -> None:
    """Steps 1 and 2 for every routing edge of an ARC pool."""
    holdings: dict[str, list[tuple[EdgeKind, str, object]]] = {}
    for receive in _edges_if(graph, EdgeKind.RECEIVES_JOB, NodeKind.RUNNER, lambda r: getattr(r, "pods", None)):
        runner = graph.node(receive.source)
        if not isinstance(runner, Runner) or runner.pods is None:
            continue
        if receive.revoked_by is not R.DELETE_SCALE_SET:
            _replace(graph, receive, revoked_by=R.DELETE_SCALE_SET)
        if runner.pods.shared_volumes:  # a volume later pods mount again: the pool keeps what a job leaves there
            graph.add_edge(Edge(kind=EdgeKind.PERSISTS_ON, source=receive.target, target=runner.id,
                                evidence=[*receive.evidence[:1], *runner.evidence[:1]], confidence=receive.confidence,
                                lifetime=Lifetime.UNTIL_PURGED, revoked_by=R.PURGE_CACHE,
                                props={"via_runner": runner.id, "rule": "shared volume",
                                       "volumes": list(runner.pods.shared_volumes)}))
        if runner.id not in holdings:  # once per pool (its out-edges are also every job it receives)
            holdings[runner.id] = [(e.kind, e.target, e.props.get("via")) for e in graph.out_edges(runner.id)
                                   if e.kind in (EdgeKind.USES_SERVICE_ACCOUNT, EdgeKind.READS_SECRET)]
        held = holdings[runner.id]
        for kind, target, via in held:
            graph.add_edge(Edge(kind=kind, source=receive.target, target=target,
                                evidence=[*receive.evidence[:1], *runner.evidence[:1]],
                                confidence=receive.confidence,  # the kind's lifetime: a read value is kept
                                props={"via_runner": runner.id, **({"via": via} if via else {})}))
    for persist in _edges_if(graph, EdgeKind.PERSISTS_ON, NodeKind.HOST, lambda h: getattr(h, "cluster", None)):
        host = graph.node(persist.target)
        if isinstance(host, Host) and host.cluster is not None and persist.revoked_by is not R.REPLACE_NODES:
            _replace(graph, persist, revoked_by=R.REPLACE_NODES)


def _replace(graph: Graph, edge: Edge, **update: object) -> None:
    graph.nx.edges[edge.source, edge.target, edge.nx_key]["edge"] = edge.model_copy(update=update)


def _issuer_host(issuer: str) -> str:
    return issuer.split("://", 1)[-1].rstrip("/")


def _irsa(graph: Graph) -> None:
    """Step 3."""
    for sa in list(nodes_of_kind(graph, NodeKind.K8S_SERVICE_ACCOUNT)):
        if not isinstance(sa, KubeServiceAccount) or not sa.oidc_issuer:
            continue
        for e in list(graph.out_edges(sa.id)):
            role = graph.node(e.target)
            if (e.kind is not EdgeKind.ASSUMES_ROLE or e.props.get("trust") != "unknown"
                    or not isinstance(role, CloudRole) or role.provider != "aws" or role.trust_policy is None):
                continue
            try:
                statements = parse_policy(role.trust_policy)
            except PolicyError:
                continue
            host = _issuer_host(sa.oidc_issuer)
            claims = {f"{host}:sub": [ClaimValue(irsa_subject(sa.namespace, sa.account_name))],
                      f"{host}:aud": [ClaimValue("sts.amazonaws.com")]}
            match = web_identity_trust(statements, role.account or "", claims, provider_host=host,
                                       partition=role.identifier.split(":", 2)[1] if role.identifier.count(":") > 2
                                       else "aws")
            graph.nx.remove_edge(e.source, e.target, e.nx_key)
            if match.result is False:
                continue
            trust_ev = [Evidence(file=(role.evidence[0].file if role.evidence else "aws-iam"),
                                 yaml_path=f"AssumeRolePolicyDocument.{s.place}", line=cloud.statement_line(role, s),
                                 detail=s.sid) for s in match.allows]
            graph.add_edge(e.model_copy(update={
                "evidence": [*e.evidence, *trust_ev],
                "confidence": Confidence.CERTAIN if match.result is True and role.trust == "known" else _P,
                "props": {**e.props, "trust": "evaluated", "subject": irsa_subject(sa.namespace, sa.account_name)}}))


def _role_paths(graph: Graph) -> None:
    """Step 4."""
    roles = [r for r in nodes_of_kind(graph, NodeKind.CLOUD_ROLE) if isinstance(r, CloudRole) and r.provider == "aws"]
    by_name: dict[tuple[str, str], list[CloudRole]] = {}
    for r in roles:
        if r.trust == "known" and ":role/" in r.identifier:
            by_name.setdefault((r.account or "", r.identifier.rsplit("/", 1)[-1]), []).append(r)
    for mapped in roles:
        grants = [e for e in graph.out_edges(mapped.id) if str(e.props.get("binding", "")).startswith("aws-auth/")]
        if not grants or ":role/" not in mapped.identifier:
            continue
        for real in by_name.get((mapped.account or "", mapped.identifier.rsplit("/", 1)[-1]), []):
            if real.id == mapped.id:
                continue
            for e in grants:
                graph.add_edge(e.model_copy(update={"source": real.id,
                                                    "props": {**e.props, "mapped_as": mapped.identifier}}))


def link_k8s(graph: Graph) -> None:
    """Add the Kubernetes edges of ``graph`` (rules in the module docstring); idempotent.

    Parameters
    ----------
    graph
        a graph whose jobs are routed (``receives_job``) and whose persistence edges are linked.

    Returns
    -------
    None
        ``graph`` is changed in place.
    """
    _job_holdings(graph)
    _irsa(graph)
    _role_paths(graph)

