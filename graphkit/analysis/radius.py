"""Blast radius (:func:`blast_radius`): every node the sources reach, with confidence, lifetime and a path."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator

from graphkit.analysis.reach import Subgraph, bfs_tree, collect, explanation_paths, gc_paused, source_ids, widest
from graphkit.analysis.results import BlastRadius, Hop, Reached, node_order
from graphkit.graph import Graph
from graphkit.model import Confidence, Node, NodeKind

__all__ = ["blast_radii", "blast_radius", "blast_radius_reference"]

#: the kinds :func:`~graphkit.analysis.reach.expand_code_sources` replaces by the jobs running their code: one id
#: of another kind is its own and only source (``tests/test_radius_arrays.py`` checks both agree on every node)
_EXPANDED = frozenset({NodeKind.REPOSITORY, NodeKind.WORKFLOW})
_radius_arrays = None  # graphkit.analysis.radius_arrays.radius_arrays, imported on first use


def blast_radius(graph: Graph, sources: str | Iterable[str]) -> BlastRadius:
    """Every node an attacker controlling ``sources`` can reach over traversable edges.

    Parameters
    ----------
    graph : Graph
        The typed graph.  Only edges whose ``traversable`` attribute is true
        are followed (structural edges such as ``has_workflow`` are not).
    sources : str or iterable of str
        One node id, or several (e.g. every runner of a compromised host);
        duplicates are ignored, an empty iterable reaches nothing.

    Returns
    -------
    BlastRadius
        ``reached``: one :class:`Reached` per reachable node other than the
        sources, ordered by criticality (critical first), kind, id, with:

        - ``confidence``: ``certain`` if some path of certain edges only reaches
          the node, else ``possible``.
        - ``path``: one shortest explanation path (a tuple of :class:`Hop`):
          the shortest certain-only path for a certain node, the shortest path
          overall for a possible one.  Between parallel edges of one pair the
          hop shows the certain one, then the longest-lived one.
        - ``lifetime``: the best bottleneck over all paths (max over paths of
          the min edge lifetime in seconds, unbounded = inf, regardless of
          confidence), reported as the :class:`~graphkit.model.Lifetime` of
          the last edge that attains that bottleneck on a widest path.  It may
          come from another path than ``path``: :attr:`Reached.path_lifetime`
          is the one of ``path`` (what the CLI and the report show beside
          the path, with ``lifetime`` when they differ).  When widest paths
          tie with different labels of equal seconds (``until_rotated`` and
          ``until_runner_removed`` are both unbounded), the label is the one
          of the widest path the search meets first: widths in decreasing
          order, breadth-first inside one width from the pairs entering it
          (:func:`graphkit.analysis.radius_arrays.widths`); the reference
          :func:`blast_radius_reference` (a max-min Dijkstra) may pick another
          widest path on such ties (rare; never on the bundled example and the
          golden cases).

        ``weight`` is the sum of the reached nodes' criticality weights.

    Raises
    ------
    UnknownNodeError
        If a source id is not in the graph (``suggestions`` holds close ids).

    Notes
    -----
    Runs on the graph's traversal snapshot (numpy CSR, built once per graph
    version): the reach (in the compiled kernel of
    :mod:`graphkit.analysis.kernel` when built, else scipy's C BFS loop,
    else a numpy BFS), a CSR of the reached pairs, the BFS tree over certain pairs, the one
    over every pair only when some node is possible, and the bucketed widths,
    all as arrays (:mod:`graphkit.analysis.radius_arrays`): time O(reached
    pairs), no Python object per pair or node.  The result answers ``len``,
    ``in``, ``ids``, ``weight`` and :meth:`BlastRadius.tally` from those
    arrays; its :class:`Reached` objects and their paths are built on first
    access to ``reached`` (iteration, ``to_dict()``), in O(total path length)
    (hops are shared objects), or one at a time by ``result[node_id]``.  The
    cyclic garbage collector is paused during the run.

    Examples
    --------
    >>> from graphkit.model import Edge, EdgeKind, Evidence, Job, Runner, Secret
    >>> ev = [Evidence(file="ci.yml")]
    >>> g = Graph()
    >>> g.update(nodes=[Runner(id="runner:r1", name="r1", scope="acme"),
    ...                 Job(id="job:build", name="build", repository="acme/app", workflow_path="ci.yml",
    ...                     job_key="build", secrets_repository="acme/app"),
    ...                 Secret(id="secret:NPM", name="NPM", secret_name="NPM", scope="repo", owner="acme")],
    ...          edges=[Edge(kind=EdgeKind.RECEIVES_JOB, source="runner:r1", target="job:build", evidence=ev),
    ...                 Edge(kind=EdgeKind.READS_SECRET, source="job:build", target="secret:NPM",
    ...                      evidence=ev, confidence="possible")])
    >>> br = blast_radius(g, "runner:r1")
    >>> [(r.id, r.confidence.value, r.lifetime.value) for r in br.reached]
    [('secret:NPM', 'possible', 'until_rotated'), ('job:build', 'certain', 'until_runner_removed')]
    >>> [(h.source, h.kind.value, h.target) for h in br["secret:NPM"].path]
    [('runner:r1', 'receives_job', 'job:build'), ('job:build', 'reads_secret', 'secret:NPM')]
    >>> br.weight
    21
    >>> blast_radius(g, "runner:r2")
    Traceback (most recent call last):
    ...
    graphkit.errors.UnknownNodeError: no node with id 'runner:r2'; did you mean: runner:r1

    References
    ----------
    .. [1] graphkit ``shared/docs/semantics.md`` §1 (what an edge means), §6 (lifetimes).
    .. [2] networkx ``descendants`` and ``bfs_edges`` (the shape followed here).
    """
    srcs = _source_ids(graph, sources)
    # gc_paused's pause, inline (the context manager costs ~1.5 us a call); a blast radius allocates a few arrays
    # and objects, so gc_paused's freeze on the way out (for passes that allocate millions) is not needed here
    paused = gc.isenabled()
    gc.disable()
    try:
        return _blast_radius(graph, srcs)
    finally:
        if paused:
            gc.enable()


def _source_ids(graph: Graph, sources: str | Iterable[str]) -> tuple[str, ...]:
    """:func:`~graphkit.analysis.reach.source_ids`, answering one id that stands for itself without a sort."""
    if type(sources) is str:
        data = graph.nx._node.get(sources)
        if data is not None and data["node"].spec.kind not in _EXPANDED:
            return (sources,)
    return source_ids(graph, sources)


def _blast_radius(graph: Graph, srcs: tuple[str, ...]) -> BlastRadius:
    """The array-backed result (:mod:`graphkit.analysis.radius_arrays`); the reference when the snapshot's
    reach gives up."""
    global _radius_arrays
    if _radius_arrays is None:
        from graphkit.analysis.radius_arrays import radius_arrays as _radius_arrays
    arrays = _radius_arrays(graph, srcs)
    if arrays is None:
        return blast_radius_reference(graph, srcs)
    return BlastRadius(srcs, arrays=arrays)


def blast_radius_reference(graph: Graph, srcs: tuple[str, ...]) -> BlastRadius:
    """:func:`blast_radius` in Python (the specification of the arrays): :func:`~graphkit.analysis.reach.collect`
    (its own reference when the snapshot gives up), two BFS trees and their explanation paths, the max-min
    Dijkstra :func:`~graphkit.analysis.reach.widest`, one :class:`Reached` per node.

    ``srcs``: sorted ids in the graph (:func:`~graphkit.analysis.reach.source_ids`).  Labels of the lifetimes may
    differ from :func:`blast_radius`'s on ties (another widest path; both are the lifetime of the last edge
    attaining the bottleneck on a widest path), widths never do.
    """
    sub = collect(graph, srcs)
    paths, certain = _paths(sub)
    life = widest(sub)
    nodes = sub.nodes
    reached = []
    for v in sorted(range(sub.n_src, len(sub)), key=lambda v: node_order(nodes[v])):
        node: Node = nodes[v]
        reached.append(Reached(
            id=node.id, kind=node.spec.kind, name=node.name, criticality=node.criticality,  # type: ignore[arg-type]
            confidence=Confidence.CERTAIN if v in certain else Confidence.POSSIBLE,
            lifetime=life[v], path=paths[v]))  # type: ignore[arg-type]
    return BlastRadius(sources=srcs, reached=tuple(reached), weight=sum(r.weight for r in reached))


def _paths(sub: Subgraph) -> tuple[dict[int, tuple[Hop, ...]], set[int]]:
    """Explanation paths of every node, and the nodes reached over certain edges only.

    The shortest certain-only path of a certain node, the shortest path overall
    (a second BFS, only when some node is possible) of a possible one.
    """
    hops: dict[int, Hop] = {}
    paths = explanation_paths(sub, bfs_tree(sub, certain_only=True), hops)
    certain = set(paths)
    if len(certain) < len(sub):
        possible = [v for v in range(sub.n_src, len(sub)) if v not in certain]
        for v, p in explanation_paths(sub, bfs_tree(sub, certain_only=False), hops, only=possible).items():
            paths.setdefault(v, p)
    return paths, certain


def blast_radii(graph: Graph, sources: Iterable[str] | None = None, *,
                progress: Callable[[int, int], None] | None = None) -> Iterator[BlastRadius]:
    """The blast radius of each source on its own (default: every runner, in id order), as :func:`blast_radius`.

    Parameters
    ----------
    graph : Graph
    sources : iterable of str, optional
        Source ids, each analysed alone (a host stands for itself here, not for its runners); default: every
        runner of the graph.
    progress : callable, optional
        Called with ``(done, total)`` after each source.

    Yields
    ------
    BlastRadius
        One per source, in the order given: equal to ``blast_radius(graph, source)``.

    Raises
    ------
    UnknownNodeError
        Before the first result, if a source id is not in the graph.

    Notes
    -----
    The graph-wide work (the traversal snapshot, :mod:`graphkit.analysis.snapshot`) is done once and shared;
    each source then costs its own reach, as arrays (work arrays lent by the snapshot, no O(n) allocation in
    graphkit; scipy's C BFS, when used, fills two arrays of the graph's size per search, at memset speed), so
    the whole run is O(V + E) once plus O(sum of the reaches); a caller that reads ``reached`` pays for the
    Python objects of that result on top.
    Results are yielded one at a time: memory holds one at a time unless the caller keeps them.  The cyclic
    garbage collector stays paused until the generator is exhausted or closed.
    """
    from graphkit.analysis.snapshot import snapshot

    todo = [n.id for n in graph.nodes(NodeKind.RUNNER)] if sources is None else list(sources)
    for s in todo:
        _source_ids(graph, s)
    snapshot(graph)
    with gc_paused():  # for the whole run (restored when the generator ends or is closed): a collection walks
        for done, s in enumerate(todo, 1):  # every object of the graph, per result it would cost ~ms
            yield _blast_radius(graph, _source_ids(graph, s))
            if progress is not None:
                progress(done, len(todo))
