"""Host caches: ``RESTORES_INTO`` and ``WRITES_CACHE`` edges (rules in :mod:`graphkit.resolve`, "Host caches").

A host-local cache (tool cache, package caches, ``_work``, docker socket,
job hooks) lives on one machine: only jobs that run **on that machine** read
or write it ("Local caches on a self-hosted host are shared by every job that
host runs", ``shared/docs/semantics.md`` §3).  A job node stands for all its
runs; when its runs may land on runners of several hosts, an edge
``job -> cache on host H`` would let a runner on another host reach H's cache
through the job (its run there never touches H), so such a job gets no
``WRITES_CACHE`` edge to a host's cache: whoever controls a run on H already
reaches H's caches through ``runner -> host -> cache``.

A cache that names the runners executing from it (``read_by``, e.g. a job hook
in one runner's ``.env``, or its work folder) restores only into the jobs of
those runners; one that names the runners that can change it (``written_by``)
is written only by their jobs (GitHub docs "Running scripts before or after a
job": the hook runs for every job of the runner whose environment names it,
https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/running-scripts-before-or-after-a-job).
"""

from __future__ import annotations

from graphkit.model import Cache, Edge, EdgeKind, Host
from graphkit.resolve.context import Context

__all__ = ["link_host_caches"]


def _runners(cache: object, field: str) -> set[str] | None:
    """The runner ids a host cache names in ``field`` (None: every runner of the host)."""
    value = getattr(cache, field, None) if isinstance(cache, Cache) else None
    return None if value is None else set(value)


def link_host_caches(ctx: Context) -> None:
    """Add ``RESTORES_INTO`` / ``WRITES_CACHE`` edges for every job a runner on a non-ephemeral host receives.

    Parameters
    ----------
    ctx
        the resolver's context (its graph gains the edges).

    Notes
    -----
    ``WRITES_CACHE`` only from a job whose runners all run on the cache's host
    (see the module docstring), with the routing edge's confidence.
    """
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
        only_here = hosts_of_job[edge.target] == {host_id}
        for share in sorted((e for e in g.out_edges(host.id) if e.kind == EdgeKind.SHARES_CACHE),
                            key=lambda e: e.target):
            cache = g.node(share.target)
            evidence = [*edge.evidence, *share.evidence]
            props = {"via_runner": edge.source, "host": host.id}
            readers, writers = _runners(cache, "read_by"), _runners(cache, "written_by")
            if readers is None or edge.source in readers:
                g.add_edge(Edge(kind=EdgeKind.RESTORES_INTO, source=share.target, target=edge.target,
                                evidence=evidence, confidence=edge.confidence, props=props))
            if only_here and (writers is None or edge.source in writers):
                g.add_edge(Edge(kind=EdgeKind.WRITES_CACHE, source=edge.target, target=share.target,
                                evidence=evidence, confidence=edge.confidence, props=props))
