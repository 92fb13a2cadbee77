"""Host caches: ``RESTORES_INTO`` and ``WRITES_CACHE`` edges (rules in :mod:`graphkit.resolve`, "Host caches").
"""

from __future__ import annotations

from graphkit.model import Edge, EdgeKind, Host
from graphkit.resolve.context import P, Context

__all__ = ["link_host_caches"]


def link_host_caches(ctx: Context) -> None:
    """Add ``RESTORES_INTO`` / ``WRITES_CACHE`` edges for every job a runner on a non-ephemeral host receives."""
    g = ctx.graph
    receives = list(g.edges(EdgeKind.RECEIVES_JOB))
    runner_host = {e.source: e.target for e in g.edges(EdgeKind.RUNS_ON_HOST)}
    hosts_of_job: dict[str, set[str | None]] = {}
    for edge in receives:
        hosts_of_job.setdefault(edge.target, set()).add(runner_host.get(edge.source))
    for edge in receives:
        host_id = runner_host.get(edge.source)
        if host_id is None:
            continue
        host = g.node(host_id)
        if isinstance(host, Host) and host.ephemeral:
            continue  # nothing survives to the next job
        # A job that may also run elsewhere writes this host's cache only in its runs here.
        only_here = hosts_of_job[edge.target] == {host_id}
        write_conf = edge.confidence if only_here else P
        for share in sorted((e for e in g.out_edges(host.id) if e.kind == EdgeKind.SHARES_CACHE),
                            key=lambda e: e.target):
            evidence = [*edge.evidence, *share.evidence]
            props = {"via_runner": edge.source, "host": host.id}
            g.add_edge(Edge(kind=EdgeKind.RESTORES_INTO, source=share.target, target=edge.target,
                            evidence=evidence, confidence=edge.confidence, props=props))
            g.add_edge(Edge(kind=EdgeKind.WRITES_CACHE, source=edge.target, target=share.target,
                            evidence=evidence, confidence=write_conf, props=props))
