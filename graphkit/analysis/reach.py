"""The one reach primitive every analysis starts from, and the traversals over its result.

:func:`collect` runs one BFS from the sources over **traversable** edges
(``shared/docs/semantics.md`` §1) and returns the reached subgraph on integer
indexes (:class:`Subgraph`), parallel edges folded per pair with the
bookkeeping the analyses need: the explanation edge of the pair (the certain
one first, then the longest-lived one) and the pair's longest lifetime.  Only
that subgraph is visited afterwards, so the cost of an analysis depends on the
blast radius, not on the size of the graph.

Traversals over a :class:`Subgraph`: :func:`bfs_tree` (shortest explanation
paths, certain-only or all), :func:`explanation_paths`, :func:`widest` (the
max-min lifetime), and, over the parallel edges apart (:func:`unfold`),
:func:`reachable` with usable-edge and blocked-node masks (held nodes and the
revocation plan's residual).
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from graphkit.analysis.results import Hop
from graphkit.errors import UnknownNodeError
from graphkit.graph import Graph
from graphkit.model import EDGE_SPECS, Confidence, Edge, Lifetime, Node, ids, lifetime_seconds

__all__ = [
    "SECONDS",
    "Arcs",
    "BfsTree",
    "Pair",
    "Subgraph",
    "bfs_tree",
    "bfs_tree_reference",
    "collect",
    "collect_reference",
    "copies",
    "explanation_paths",
    "gc_paused",
    "lasting_seconds",
    "reachable",
    "source_ids",
    "expand_code_sources",
    "unfold",
    "widest",
    "widest_widths",
]

#: Upper bound of every lifetime in seconds (``math.inf`` when unbounded).
SECONDS: dict[Lifetime, float] = {lt: lifetime_seconds(lt) for lt in Lifetime}
_INF = math.inf
_CERTAIN = Confidence.CERTAIN
#: kinds followed only from a source (``EdgeSpec.source_only``: a job's code, not one run of it)
_SOURCE_ONLY = frozenset(k.value for k, spec in EDGE_SPECS.items() if spec.source_only)
#: kinds whose target runs the attacker's code (``EdgeSpec.runs_code``): it follows source-only kinds too
_RUNS_CODE = frozenset(k for k, spec in EDGE_SPECS.items() if spec.runs_code)
#: kinds whose lifetime bounds a run of a job, not what the run obtained (``EdgeSpec.enters_run``)
_ENTERS_RUN = frozenset(k for k, spec in EDGE_SPECS.items() if spec.enters_run)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while allocating many small acyclic objects.

    On a large graph every collection walks all its node and edge objects;
    the analyses create no reference cycles, so collections during them only
    cost time (2-3x on 50k nodes).  The previous state is restored.

    On the way out, what the pause allocated is moved to the oldest generation unscanned (``gc.freeze()`` then
    ``gc.unfreeze()``: two list splices, and the young generation's count reset): otherwise the first allocation
    after re-enabling starts a collection that walks every object the pause allocated and still holds, and, every
    tenth or hundredth time, the older generations or the whole heap with the graph (1.5 s at 10^6 edges, measured
    after a revocation plan).  Those objects are still collected, by reference counting or by the next full
    collection.  Skipped when the caller froze objects itself (``gc.get_freeze_count()``): unfreezing would undo
    that (https://docs.python.org/3/library/gc.html#gc.freeze).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def source_ids(graph: Graph, sources: str | Iterable[str]) -> tuple[str, ...]:
    """The sources of an analysis: one id or several, deduplicated and sorted.

    An id written otherwise than graphkit writes it (``repo:ACME/Infra`` for ``repo:acme/infra``: the parts its
    kind's id constructor normalises, :func:`graphkit.model.ids.canonical`) names the node of its canonical id.

    Raises
    ------
    UnknownNodeError
        If an id is not in the graph, canonical or not (``suggestions`` holds close ids).
    """
    items = [known_id(graph, s) for s in ([sources] if isinstance(sources, str) else sources)]
    return tuple(sorted(set(expand_code_sources(graph, items))))


def known_id(graph: Graph, node_id: str) -> str:
    """``node_id``, or its canonical form (:func:`graphkit.model.ids.canonical`) when only that is in the graph.

    Raises
    ------
    UnknownNodeError
        If neither is in the graph (``suggestions`` holds close ids).
    """
    if node_id in graph.nx:
        return node_id
    try:
        same = ids.canonical(node_id, ids.kind_of(node_id))
    except ids.IdError:
        same = None
    if same is not None and same in graph.nx:
        return same
    raise UnknownNodeError(node_id, graph.nx.nodes)


def expand_code_sources(graph: Graph, items: Iterable[str]) -> list[str]:
    """Replace a repository or workflow source by the jobs that run its code.

    A malicious commit or dependency in repository ``R`` runs in every job of
    R's workflows, in every instance of a reusable workflow defined in R
    (``Job.repository``), and in every job whose top-level caller workflow is
    in R (the caller decides what it calls); a workflow stands for its jobs and
    the jobs of the workflows it calls.  Other ids are kept; a repository or
    workflow with no job is kept as is (it reaches nothing).
    """
    from graphkit.model import Job, NodeKind, Workflow

    out: list[str] = []
    jobs: list[Job] | None = None
    for s in items:
        node = graph.nx.nodes[s]["node"]
        kind = node.spec.kind
        if kind not in (NodeKind.REPOSITORY, NodeKind.WORKFLOW):
            out.append(s)
            continue
        # imported here: a runner or host source does not load the resolvers (0.2 s of imports)
        from graphkit.model.ids import repo_key
        from graphkit.resolve.routing import top_level_workflow

        if jobs is None:
            jobs = [j for j in graph.nodes(NodeKind.JOB) if isinstance(j, Job)]
        if isinstance(node, Workflow):
            want = (repo_key(node.repository), node.path)
            found = [j.id for j in jobs if (repo_key(j.repository), j.workflow_path) == want
                     or top_level_workflow(j.id) == want]
        else:
            rk = repo_key(node.full_name)
            found = [j.id for j in jobs if repo_key(j.repository) == rk or (top_level_workflow(j.id) or ("",))[0] == rk]
        out += found or [s]
    return out


def _path_rank(e: Edge) -> tuple:
    return (e.confidence is not _CERTAIN, -SECONDS[e.lifetime], e.kind.value, e.key)  # type: ignore[index]


def _life_rank(e: Edge) -> tuple:
    return (-SECONDS[e.lifetime], e.confidence is not _CERTAIN, e.kind.value, e.key)  # type: ignore[index]


class Pair(NamedTuple):
    """The traversable edges of one pair ``u -> v``, folded."""

    #: index of ``v``
    target: int
    #: the explanation edge: the certain one first, then the longest-lived, then by kind and key
    edge: Edge
    #: the explanation edge is certain
    certain: bool
    #: the longest lifetime of the parallel edges, in seconds (``math.inf`` when unbounded)
    seconds: float
    #: that lifetime
    lifetime: Lifetime
    #: every parallel traversable edge
    edges: tuple[Edge, ...]


@dataclass(slots=True)
class Subgraph:
    """The traversable subgraph reachable from the sources, on integer indexes."""

    #: node ids: the sources (sorted) first, then the reached nodes in BFS order
    ids: list[str]
    #: the nodes, index for index
    nodes: list[Node]
    #: the sources are ``range(n_src)``
    n_src: int
    #: index of every node id
    index: dict[str, int]
    #: adj[i]: the folded pairs leaving node i, ordered by target id
    adj: list[list[Pair]]
    #: ``(snapshot, global indexes in this order, code flags)`` when made from the traversal snapshot
    fast: tuple | None = None

    def __len__(self) -> int:
        return len(self.ids)


def collect(graph: Graph, srcs: tuple[str, ...]) -> Subgraph:
    """One BFS over traversable edges from ``srcs``: O(V + E) of the reached subgraph.

    Runs on the graph's traversal snapshot (:mod:`graphkit.analysis.snapshot`: numpy CSR, built once per graph
    version); :func:`collect_reference` (the same BFS over networkx dicts) is the specification, and the
    fallback in the one case the vectorised BFS does not replay (a node entered through a ``runs_code`` edge
    after its row was scanned).

    Edges of a ``source_only`` kind (:class:`~graphkit.model.EdgeSpec`: ``persists_on``) are followed from the
    sources and from nodes entered through a ``runs_code`` edge (``can_trigger``: an untrusted pull request's
    code runs as the job): the attacker controls those jobs' code, but only the runs of a job a runner receives.

    Parameters
    ----------
    graph : Graph
        The typed graph.
    srcs : tuple of str
        Source ids, sorted and present in the graph (:func:`source_ids`).

    Returns
    -------
    Subgraph
        Sources first, then reached nodes in BFS order (neighbours by id).
    """
    from graphkit.analysis.snapshot import collect_fast

    sub = collect_fast(graph, srcs)
    return sub if sub is not None else collect_reference(graph, srcs)


def collect_reference(graph: Graph, srcs: tuple[str, ...]) -> Subgraph:
    """:func:`collect` over networkx dicts, one Python step per edge (the specification of the fast path)."""
    succ = graph.nx._succ  # raw dict-of-dicts, as networkx's own algorithms use it
    index = {s: i for i, s in enumerate(srcs)}
    ids = list(srcs)
    adj: list[list[Pair]] = []
    code = bytearray(b"\x01" * len(srcs))  # code[i]: node i runs the attacker's code (a source, a can_trigger)
    redo: list[int] = []
    while len(adj) < len(ids) or redo:  # ids grows while it is walked: BFS order
        if redo:  # entered again through a code edge: its row now follows source-only kinds too
            u = redo.pop()
            adj[u] = _row(succ[ids[u]], True, index, ids, code, redo, len(adj))
        else:
            adj.append(_row(succ[ids[len(adj)]], bool(code[len(adj)]), index, ids, code, redo, len(adj) + 1))
    attrs = graph.nx._node
    return Subgraph(ids, [attrs[v]["node"] for v in ids], len(srcs), index, adj)


def _row(nbrs: dict, is_code: bool, index: dict[str, int], ids: list[str], code: bytearray,
         redo: list[int], built: int) -> list[Pair]:
    """The folded pairs leaving one node (neighbours by id), adding new targets to ``ids``/``index``.

    ``is_code``: the node runs the attacker's code (a source, or entered through a ``runs_code`` edge), so
    ``source_only`` kinds are followed from it.  A target entered through a ``runs_code`` edge is marked in
    ``code``; if its row was already built without that (index below ``built``), it goes to ``redo``.
    """
    make = tuple.__new__  # tuple.__new__(Pair, ...): a Pair without a Python-level call
    row: list[Pair] = []
    for v in (sorted(nbrs) if len(nbrs) > 1 else nbrs):
        edges = tuple([d["edge"] for d in nbrs[v].values()
                       if d["traversable"] and (is_code or d["kind"] not in _SOURCE_ONLY)])
        if not edges:
            continue
        best, longest = (edges[0], edges[0]) if len(edges) == 1 else \
            (min(edges, key=_path_rank), min(edges, key=_life_rank))
        j = index.get(v)
        if j is None:
            j = index[v] = len(ids)
            ids.append(v)
            code.append(0)
        if not code[j] and any(e.kind in _RUNS_CODE for e in edges):
            code[j] = 1
            if j < built:
                redo.append(j)
        row.append(make(Pair, (j, best, best.confidence is _CERTAIN, lasting_seconds(longest),
                               longest.lifetime, edges)))
    return row


def lasting_seconds(edge: Edge) -> float:
    """How long what the attacker obtains through ``edge`` stays usable, in seconds (``math.inf``: unbounded).

    The edge's lifetime, except for an edge that enters a run of a job (``EdgeSpec.enters_run``: ``can_trigger``,
    and ``receives_job`` of a runner the attacker holds, ``per_job`` on an ephemeral runner): it bounds the
    attacker's run of the job (the job's own label stays ``per_job``), not what that run obtained (a secret it
    read stays usable until rotated, a persistence until the runner is removed), so it does not bound what lies
    behind it (``docs/revocation-plan.md``, "Ordering rules", 5).
    """
    return _INF if edge.kind in _ENTERS_RUN else SECONDS[edge.lifetime]  # type: ignore[index]


def copies(sub: Subgraph) -> list[tuple[int, Lifetime]]:
    """The reached nodes whose value the attacker copies (``NodeSpec.copyable``), with the copy's lifetime.

    The copy principle (``docs/revocation-plan.md``, "Held nodes"): a reached secret, cloud or Kubernetes secret
    or on-disk credential file stays usable for its own lifetime (:attr:`graphkit.model.Node.copy_lifetime`:
    until rotated, a credential's ``lifetime``) once reached at all, whatever bounded the path to it.  So the
    widths (:func:`widest_widths`) start from these nodes as from sources, with that lifetime, and the plan's held
    nodes are what unbounded edges reach from the sources and from the copies that last unbounded.

    Returns
    -------
    list of (index, lifetime)
        Indexes of ``sub`` (sources excluded: they are held already), increasing.
    """
    nodes = sub.nodes
    return [(i, life) for i in range(sub.n_src, len(nodes))
            if nodes[i].spec.copyable and (life := nodes[i].copy_lifetime) is not None]


class BfsTree(NamedTuple):
    """A BFS tree from the sources, on the indexes of a :class:`Subgraph`."""

    #: visit order (the sources first)
    order: list[int]
    #: parent index of each node (-1: none)
    parent: list[int]
    #: the explanation edge from the parent (None: none)
    edge: list[Edge | None]


def bfs_tree(sub: Subgraph, *, certain_only: bool) -> BfsTree:
    """BFS from the sources over every pair, or over pairs whose explanation edge is certain.

    On a subgraph made from the traversal snapshot, the same BFS runs level by level in numpy
    (:func:`graphkit.analysis.snapshot.bfs_tree_fast`); :func:`bfs_tree_reference` is the specification.
    """
    if sub.fast is not None:
        from graphkit.analysis.snapshot import bfs_tree_fast
        return bfs_tree_fast(sub, certain_only)
    return bfs_tree_reference(sub, certain_only=certain_only)


def bfs_tree_reference(sub: Subgraph, *, certain_only: bool) -> BfsTree:
    """:func:`bfs_tree` in Python over ``sub.adj``."""
    n = len(sub.ids)
    parent = [-1] * n
    pedge: list[Edge | None] = [None] * n
    seen = bytearray(n)
    order = list(range(sub.n_src))
    for i in order:
        seen[i] = 1
    adj = sub.adj
    for u in order:  # order grows while it is walked
        for v, e, cert, *_ in adj[u]:
            if seen[v] or (certain_only and not cert):
                continue
            seen[v] = 1
            parent[v] = u
            pedge[v] = e
            order.append(v)
    return BfsTree(order, parent, pedge)


def explanation_paths(sub: Subgraph, tree: BfsTree, hops: dict[int, Hop],
                      only: Iterable[int] | None = None) -> dict[int, tuple[Hop, ...]]:
    """Explanation paths in a BFS tree: of every node in ``tree.order``, or of ``only`` (and their ancestors).

    ``hops`` caches one :class:`Hop` per edge object (by ``id()``) across
    calls, so paths share their hops.
    """
    ids, parent, pedge = sub.ids, tree.parent, tree.edge
    paths: dict[int, tuple[Hop, ...]] = {}

    def hop(v: int) -> Hop:
        e = pedge[v]
        h = hops.get(id(e))
        if h is None:
            h = hops[id(e)] = Hop(ids[parent[v]], ids[v], e.kind, e.confidence, e.lifetime,  # type: ignore
                                  tuple(e.evidence), sub.nodes[v].copy_lifetime)  # type: ignore[union-attr]
        return h

    if only is None:
        for v in tree.order:
            u = parent[v]
            paths[v] = () if u < 0 else paths[u] + (hop(v),)
        return paths
    for v in only:
        chain = []
        while v not in paths and parent[v] >= 0:
            chain.append(v)
            v = parent[v]
        prefix = paths.setdefault(v, ())
        for x in reversed(chain):
            prefix = paths[x] = prefix + (hop(x),)
    return paths


def widest(sub: Subgraph) -> list[Lifetime | None]:
    """Max-min (bottleneck) lifetime from the sources: Dijkstra on widths, O(E log V).

    The label of a node is the lifetime of the last edge attaining the
    bottleneck on its widest path (the edge whose expiry ends the access);
    None for the sources.  A reached node whose value is copied (:func:`copies`)
    starts a path of its own, as a source does, with its copy's lifetime as
    width and label: it lasts at least that long, whatever its path.  Ties
    between widest paths go to the path found first (heap pop order: width,
    then the sources, the other nodes and the copies, then index).
    """
    return widest_widths(sub)[1]


def widest_widths(sub: Subgraph) -> tuple[list[float], list[Lifetime | None]]:
    """:func:`widest` with the widths: ``(width, label)``, per node index, width in seconds (inf for the
    sources, ``lasting_seconds`` of the pairs)."""
    n, n_src, adj = len(sub.ids), sub.n_src, sub.adj
    width = [-1.0] * n
    label: list[Lifetime | None] = [None] * n
    # (negated width, tier, index): at equal widths the sources first (tier 0), the copies last (tier 2)
    heap: list[tuple[float, int, int]] = [(-_INF, 0, s) for s in range(n_src)]
    for s in range(n_src):
        width[s] = _INF
    for v, life in copies(sub):  # a copy lasts its own lifetime whatever its path: seeded like a source
        width[v], label[v] = SECONDS[life], life
        heap.append((-width[v], 2, v))
    heapq.heapify(heap)
    done = bytearray(n)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        negw, _, u = pop(heap)
        if done[u]:
            continue
        done[u] = 1
        w = -negw
        lu = label[u]
        for v, _, _, secs, life, _ in adj[u]:
            if done[v] or v < n_src:
                continue
            if secs <= w:
                if secs > width[v]:
                    width[v] = secs
                    label[v] = life
                    push(heap, (-secs, 1, v))
            elif w > width[v]:
                width[v] = w
                label[v] = lu
                push(heap, (-w, 1, v))
    return width, label


@dataclass(frozen=True, slots=True)
class Arcs:
    """Every traversable edge of a :class:`Subgraph`, parallel edges apart, in CSR form.

    The arcs leaving node ``i`` are ``range(start[i], start[i + 1])``; arc
    ``a`` goes from ``source[a]`` to ``target[a]`` and stands for ``edge[a]``.
    """

    start: list[int]
    source: list[int]
    target: list[int]
    edge: list[Edge]

    def __len__(self) -> int:
        return len(self.edge)

    def leaving(self, node: int) -> range:
        """Arc indexes leaving ``node``."""
        return range(self.start[node], self.start[node + 1])


def unfold(sub: Subgraph) -> Arcs:
    """The arcs of ``sub``: one per traversable edge, grouped by source node in index order."""
    start = [0]
    source: list[int] = []
    target: list[int] = []
    edge: list[Edge] = []
    for u, row in enumerate(sub.adj):
        for p in row:
            for e in p.edges:
                source.append(u)
                target.append(p.target)
                edge.append(e)
        start.append(len(edge))
    return Arcs(start, source, target, edge)


def reachable(arcs: Arcs, seeds: Iterable[int], usable: bytearray, blocked: bytearray) -> bytearray:
    """Nodes reachable from ``seeds`` over usable arcs, never entering a blocked node.

    Parameters
    ----------
    arcs : Arcs
        The unfolded subgraph.
    seeds : iterable of int
        Start nodes (reached themselves; the caller leaves blocked ones out).
    usable : bytearray
        One flag per arc: true when the arc may be followed.
    blocked : bytearray
        One flag per node: true when the node may not be entered.

    Returns
    -------
    bytearray
        One flag per node: 1 when reached.  Time O(V + E).
    """
    start, target = arcs.start, arcs.target
    seen = bytearray(len(start) - 1)
    todo = list(seeds)
    for s in todo:
        seen[s] = 1
    while todo:
        x = todo.pop()
        for a in range(start[x], start[x + 1]):
            y = target[a]
            if usable[a] and not seen[y] and not blocked[y]:
                seen[y] = 1
                todo.append(y)
    return seen
