"""Host caches: ``RESTORES_INTO`` edges (rules in :mod:`graphkit.resolve`, "Host caches").
"""

from __future__ import annotations

from graphkit.model import Edge, EdgeKind, Host
from graphkit.resolve.context import Context

__all__ = ["link_host_caches"]


def link_host_caches(ctx: Context) -> None:
    """Add ``RESTORES_INTO`` edges for every job a runner on a non-ephemeral host receives."""
    g = ctx.graph
    receives = list(g.edges(EdgeKind.RECEIVES_JOB))
    runner_host = {e.source: e.target for e in g.edges(EdgeKind.RUNS_ON_HOST)}
    for edge in receives:
        host_id = runner_host.get(edge.source)
        if host_id is None:
            continue
        host = g.node(host_id)
        if isinstance(host, Host) and host.ephemeral:
            continue  # nothing survives to the next job
        for share in sorted((e for e in g.out_edges(host.id) if e.kind == EdgeKind.SHARES_CACHE),
                            key=lambda e: e.target):
            evidence = [*edge.evidence, *share.evidence]
            props = {"via_runner": edge.source, "host": host.id}
            g.add_edge(Edge(kind=EdgeKind.RESTORES_INTO, source=share.target, target=edge.target,
                            evidence=evidence, confidence=edge.confidence, props=props))
        # No job -> host cache edge: a job reaches a host's caches only through that host (``persists_on``,
        # graphkit.resolve.persistence), so reimaging the host cuts them and a job that may land on an
        # ephemeral runner elsewhere does not reach this host's caches by a "possible write".
