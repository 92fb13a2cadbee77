"""Host caches: ``RESTORES_INTO`` edges (rules in :mod:`graphkit.resolve`, "Host caches").

A host-local cache (tool cache, package caches, ``_work``, docker socket, job
hooks) lives on one machine: only jobs that run **on that machine** read it
("Local caches on a self-hosted host are shared by every job that host runs",
``shared/docs/semantics.md`` §3).  There is no ``job -> host cache`` edge: a
job node stands for all its runs, so such an edge would let a runner on
another host reach this host's cache through a job whose run there never
touches it; a job reaches a host's caches only through the host it persists on
(``persists_on``, :mod:`graphkit.resolve.persistence`), so reimaging the host
cuts them.

A cache that names the runners whose jobs execute from it (``read_by``: a job
hook in one runner's ``.env``, its work folder) restores only into the jobs of
those runners (GitHub docs "Running scripts before or after a job": the hook
runs for every job of the runner whose environment names it,
https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/running-scripts-before-or-after-a-job).
"""

from __future__ import annotations

from typing import Any

from graphkit.model import Cache, Edge, EdgeKind, Host
from graphkit.resolve.context import Context, records_of_kinds

__all__ = ["link_host_caches"]


def _readers(cache: object) -> set[str] | None:
    """The runner ids whose jobs execute from a host cache (None: every runner of the host)."""
    value = cache.read_by if isinstance(cache, Cache) else None
    return None if value is None else set(value)


def link_host_caches(ctx: Context) -> None:
    """Add ``RESTORES_INTO`` edges for every job a runner on a non-ephemeral host receives.

    Parameters
    ----------
    ctx
        the resolver's context (its graph gains the edges).

    Notes
    -----
    A cache with ``read_by`` restores only into jobs of those runners; the
    edge has the routing edge's confidence.
    """
    g = ctx.graph
    receives, on_host = records_of_kinds(g, EdgeKind.RECEIVES_JOB, EdgeKind.RUNS_ON_HOST)  # one pass, no edge made
    runner_host = {e.source: e.target for e in on_host}
    shares: dict[str, list[tuple[Edge, set[str] | None]]] = {}  # per host: read once, not once per job it runs
    shared: dict[str, Any] = {}  # per runner: the graph's props mapping of its edges (its host is one)
    for edge in receives:
        host_id = runner_host.get(edge.source)
        if host_id is None:
            continue
        host = g.node(host_id)
        if isinstance(host, Host) and host.ephemeral:
            continue  # nothing survives to the next job
        if host.id not in shares:  # the loop adds restores_into edges from caches, never host edges
            shares[host.id] = [(e, _readers(g.node(e.target))) for e in sorted(
                (e for e in g.out_edges(host.id) if e.kind == EdgeKind.SHARES_CACHE), key=lambda e: e.target)]
        for share, readers in shares[host.id]:
            if readers is not None and edge.source not in readers:
                continue
            props = shared.get(edge.source)
            if props is None:
                props = shared[edge.source] = g.shared_props({"via_runner": edge.source, "host": host.id})
            g.add_edge_fields(EdgeKind.RESTORES_INTO, share.target, edge.target, [*edge.evidence, *share.evidence],
                              confidence=edge.confidence, props=props)
