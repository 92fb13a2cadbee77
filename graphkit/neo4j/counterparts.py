"""networkx counterparts of the library's inbound, multi-source, drawn-path and property-filter queries.

Registered in :data:`graphkit.neo4j.library.COUNTERPARTS` when :mod:`graphkit.neo4j.library`
is imported; each returns the rows its query returns (the columns named in the
registration), computed from an in-memory :class:`~graphkit.graph.Graph`.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from graphkit.graph import Graph
from graphkit.model import Criticality, EdgeKind, Node, NodeKind
from graphkit.neo4j.library import _counterpart, _hops, _nodes, path_view
from graphkit.neo4j.templates import MAX_HOPS

__all__: list[str] = []

#: Events a pull request from a fork triggers (GitHub docs "Events that trigger workflows",
#: https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request
#: and #pull_request_target).
FORK_PR_EVENTS = ("pull_request", "pull_request_target")


def _path_in(view: nx.MultiDiGraph, node_id: str) -> bool:
    return view.in_degree(node_id) > 0


@_counterpart("who-reaches", "id", "kind", "hops")
def _who_reaches(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Reverse BFS from the target; runners, hosts and nodes without inbound traversable edges."""
    target = params["target_id"]
    if target not in graph:
        return []
    view = path_view(graph)
    lengths = nx.single_source_shortest_path_length(view.reverse(copy=False), target, cutoff=MAX_HOPS)
    rows = []
    for nid, hops in lengths.items():
        n = graph.node(nid)
        if nid != target and (n.spec.kind in (NodeKind.RUNNER, NodeKind.HOST) or not _path_in(view, nid)):
            rows.append({"id": nid, "kind": n.spec.kind.value, "hops": hops})
    return rows


@_counterpart("blast-radius-sources", "id", "kind", "criticality", "hops")
def _sources(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Reach of several sources: shortest path length from the nearest one (sources themselves excluded)."""
    sources = [s for s in params["sources"] if s in graph]
    best: dict[str, int] = {}
    for s in sources:
        for nid, hops in _hops(graph, s).items():
            best[nid] = min(hops, best.get(nid, hops))
    return [{"id": nid, "kind": graph.node(nid).spec.kind.value, "criticality": graph.node(nid).criticality.value,
             "hops": hops} for nid, hops in best.items() if nid not in params["sources"]]


def _critical(n: Node) -> bool:
    return (n.spec.kind is NodeKind.SIGNING_KEY or n.criticality is Criticality.CRITICAL
            or (n.spec.kind is NodeKind.DEPLOYMENT_TARGET and getattr(n, "production", None) is True))


@_counterpart("paths-runners-to-critical", "runner", "id", "kind", "hops")
def _runner_paths(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every (runner, critical asset) pair with its shortest path length (all rows: run with a large limit)."""
    rows = []
    for r in _nodes(graph, NodeKind.RUNNER):
        for nid, hops in _hops(graph, r.id).items():
            n = graph.node(nid)
            if _critical(n):
                rows.append({"runner": r.id, "id": nid, "kind": n.spec.kind.value, "hops": hops})
    return rows


def _events(graph: Graph, job: Node) -> list[str]:
    """The job's trigger events (``Job.triggers`` when the model has it), else its workflow's ``on:`` events."""
    own = getattr(job, "triggers", None)
    if own:
        return sorted({t if isinstance(t, str) else t.event for t in own})
    for e in graph.in_edges(job.id):
        if e.kind is EdgeKind.HAS_JOB:
            return sorted(graph.node(e.source).triggers)  # type: ignore[attr-defined]
    return []


def _visibility(graph: Graph, full_name: str) -> str:
    repo = next((r for r in _nodes(graph, NodeKind.REPOSITORY) if r.full_name == full_name), None)  # type: ignore
    return (getattr(repo, "visibility", None) or "unknown") if repo else "unknown"


@_counterpart("self-hosted-jobs-fork-pull-requests", "id", "visibility", "fork_triggers", "runner")
def _fork_prs(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """receives_job edges to jobs whose events include a fork pull request event, repository not private."""
    rows = []
    for e in graph.edges():
        if e.kind is not EdgeKind.RECEIVES_JOB:
            continue
        job = graph.node(e.target)
        fork = [t for t in _events(graph, job) if t in FORK_PR_EVENTS]
        vis = _visibility(graph, job.repository)  # type: ignore[attr-defined]
        if fork and vis != "private":
            rows.append({"id": job.id, "visibility": vis, "fork_triggers": fork, "runner": e.source})
    return rows


@_counterpart("tokens-contents-write-on-persistent-runners", "id", "job", "runner")
def _persistent_tokens(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """runner -receives_job-> job -has_token-> token with contents write, runner not known ephemeral."""
    rows = []
    for r in _nodes(graph, NodeKind.RUNNER):
        if r.ephemeral is True:  # type: ignore[attr-defined]
            continue
        for rj in graph.out_edges(r.id):
            if rj.kind is not EdgeKind.RECEIVES_JOB:
                continue
            for jt in graph.out_edges(rj.target):
                token = graph.node(jt.target)
                if jt.kind is EdgeKind.HAS_TOKEN and token.permissions.get("contents") == "write":  # type: ignore
                    rows.append({"id": token.id, "job": rj.target, "runner": r.id})
    return rows
