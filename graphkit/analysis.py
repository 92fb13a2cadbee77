"""What a compromised node reaches, what to revoke first, and where the single points of failure are.

Three analyses over the typed graph (:class:`graphkit.graph.Graph`), in
networkx's shape: the graph is the first argument, options are keywords,
unknown source ids raise :class:`~graphkit.errors.UnknownNodeError` (with close
ids as suggestions), and results are plain immutable data with a ``to_dict()``
giving JSON-ready values.

- :func:`blast_radius`: every node reachable from the sources over
  **traversable** edges (``shared/docs/semantics.md`` §1), each with its
  confidence, the lifetime of the access and one shortest explanation path.
- :func:`revocation_plan`: a greedy, ordered list of revocation actions that
  shrinks the weighted blast radius fastest, keeping what the attacker already
  holds (semantics §2, §6).
- :func:`choke_points`: nodes that every path to other reached nodes goes
  through (dominators).

Only the part of the graph reachable from the sources is ever visited: the
cost of an analysis depends on the blast radius, not on the size of the graph.

Node order in every result: criticality (critical first), then node kind in
declaration order (:class:`~graphkit.model.NodeKind`), then id.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import networkx as nx

from graphkit.errors import UnknownNodeError
from graphkit.graph import Graph
from graphkit.model import (
    CRITICALITY_WEIGHT, EDGE_SPECS, REVOCATION_SPECS, Confidence, Criticality, Edge, EdgeKind, Evidence, Lifetime,
    Node, NodeKind, RevocationAction, lifetime_seconds,
)

__all__ = [
    "Hop",
    "Reached",
    "BlastRadius",
    "RevocationStep",
    "RevocationPlan",
    "ChokePoint",
    "blast_radius",
    "revocation_plan",
    "choke_points",
]

_CRIT_RANK = {c: i for i, c in enumerate(Criticality)}
_KIND_RANK = {k: i for i, k in enumerate(NodeKind)}
_ACTION_RANK = {a: i for i, a in enumerate(RevocationAction)}
_INF = math.inf


# --------------------------------------------------------------------------- results


def _evidence_dicts(evidence: tuple[Evidence, ...]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json") for e in evidence]


class Hop(NamedTuple):
    """One edge of an explanation path (an immutable named tuple).

    ``source`` -> ``target`` over an edge of ``kind``; ``confidence``,
    ``lifetime`` and ``evidence`` are the edge's.
    """

    source: str
    target: str
    kind: EdgeKind
    confidence: Confidence
    lifetime: Lifetime
    evidence: tuple[Evidence, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{source, target, kind, confidence, lifetime, evidence}``."""
        return {"source": self.source, "target": self.target, "kind": self.kind.value,
                "confidence": self.confidence.value, "lifetime": self.lifetime.value,
                "evidence": _evidence_dicts(self.evidence)}


@dataclass(frozen=True, slots=True)
class Reached:
    """A node in the blast radius.

    ``confidence``: ``certain`` when some path of certain edges only reaches
    it.  ``lifetime``: how long the best access lasts (see :func:`blast_radius`).
    ``path``: one shortest explanation path from a source (certain edges only
    when ``confidence`` is certain).
    """

    id: str
    kind: NodeKind
    name: str
    criticality: Criticality
    confidence: Confidence
    lifetime: Lifetime
    path: tuple[Hop, ...]

    @property
    def weight(self) -> int:
        """``CRITICALITY_WEIGHT[criticality]``."""
        return CRITICALITY_WEIGHT[self.criticality]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{id, kind, name, criticality, confidence, lifetime, path}``."""
        return {"id": self.id, "kind": self.kind.value, "name": self.name,
                "criticality": self.criticality.value, "confidence": self.confidence.value,
                "lifetime": self.lifetime.value, "path": [h.to_dict() for h in self.path]}


@dataclass(frozen=True, slots=True)
class BlastRadius:
    """Everything reachable from ``sources``.

    ``reached`` excludes the sources and is ordered by criticality (critical
    first), kind, id.  ``weight`` is the weighted blast radius: the sum of
    :data:`~graphkit.model.CRITICALITY_WEIGHT` over ``reached``.  Supports
    ``len()``, iteration, ``node_id in result`` and ``result[node_id]``.
    """

    sources: tuple[str, ...]
    reached: tuple[Reached, ...]
    weight: int
    _by_id: dict[str, Reached] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {r.id: r for r in self.reached})

    def __len__(self) -> int:
        return len(self.reached)

    def __iter__(self) -> Iterator[Reached]:
        return iter(self.reached)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._by_id

    def __getitem__(self, node_id: str) -> Reached:
        try:
            return self._by_id[node_id]
        except KeyError:
            raise UnknownNodeError(node_id, self._by_id) from None

    @property
    def ids(self) -> frozenset[str]:
        """Ids of the reached nodes."""
        return frozenset(self._by_id)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{sources, weight, reached: [...]}``."""
        return {"sources": list(self.sources), "weight": self.weight,
                "reached": [r.to_dict() for r in self.reached]}


@dataclass(frozen=True, slots=True)
class RevocationStep:
    """One action of a revocation plan.

    ``rank`` starts at 1.  ``subject_id`` is the node the action applies to.
    ``cuts``: nodes reached before this step and no longer after it (ordered
    like :attr:`BlastRadius.reached`).  ``reduction``: weight removed by this
    step; ``residual_weight``: weighted blast radius left after it.
    ``long_lived``: the subject is a credential-like node the attacker keeps
    (a source or a held node, see :func:`revocation_plan`).
    """

    rank: int
    action: RevocationAction
    subject_id: str
    subject_kind: NodeKind
    subject_name: str
    description: str
    long_lived: bool
    phase: str
    reduction: int
    cuts: tuple[str, ...]
    residual_weight: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, field names as attributes (enums as their values)."""
        return {"rank": self.rank, "action": self.action.value, "subject_id": self.subject_id,
                "subject_kind": self.subject_kind.value, "subject_name": self.subject_name,
                "description": self.description, "long_lived": self.long_lived, "phase": self.phase,
                "reduction": self.reduction,
                "cuts": list(self.cuts), "residual_weight": self.residual_weight}


@dataclass(frozen=True, slots=True)
class RevocationPlan:
    """An ordered revocation plan (see :func:`revocation_plan`).

    ``initial_weight``: weighted blast radius before any action.  ``held``:
    nodes the attacker keeps after losing the path to them (ordered like
    :attr:`BlastRadius.reached`).  ``steps``: in order; their
    ``residual_weight`` values are the revocation curve.
    """

    sources: tuple[str, ...]
    initial_weight: int
    held: tuple[str, ...]
    steps: tuple[RevocationStep, ...]

    @property
    def residual_weight(self) -> int:
        """Weight left after the last step (``initial_weight`` with no step)."""
        return self.steps[-1].residual_weight if self.steps else self.initial_weight

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[RevocationStep]:
        return iter(self.steps)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{sources, initial_weight, residual_weight, held, steps: [...]}``."""
        return {"sources": list(self.sources), "initial_weight": self.initial_weight,
                "residual_weight": self.residual_weight, "held": list(self.held),
                "steps": [s.to_dict() for s in self.steps]}


@dataclass(frozen=True, slots=True)
class ChokePoint:
    """A reached node that every path from the sources to other reached nodes crosses.

    ``dominated``: how many reached nodes it strictly dominates.  ``weight`` and
    ``critical_weight``: total weight, and weight of critical nodes, of the node
    itself plus everything it dominates (what is lost when it is cut off).
    ``critical``: ids of those critical nodes (ordered by kind, id).
    """

    id: str
    kind: NodeKind
    name: str
    criticality: Criticality
    dominated: int
    weight: int
    critical_weight: int
    critical: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, field names as attributes."""
        return {"id": self.id, "kind": self.kind.value, "name": self.name,
                "criticality": self.criticality.value, "dominated": self.dominated, "weight": self.weight,
                "critical_weight": self.critical_weight, "critical": list(self.critical)}


# --------------------------------------------------------------------------- shared traversal

_SECS: dict[Lifetime, float] = {lt: lifetime_seconds(lt) for lt in Lifetime}


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while allocating many small acyclic objects.

    On a large graph every collection walks all its node and edge objects;
    the analyses create no reference cycles, so collections during them only
    cost time (2-3x on 50k nodes).  The previous state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _sources(graph: Graph, sources: str | Iterable[str]) -> tuple[str, ...]:
    items = [sources] if isinstance(sources, str) else list(sources)
    for s in items:
        if s not in graph.nx:
            raise UnknownNodeError(s, graph.nx.nodes)
    return tuple(sorted(set(items)))


def _node_key(node: Node) -> tuple[int, int, str]:
    return (_CRIT_RANK[node.criticality], _KIND_RANK[node.spec.kind], node.id)  # type: ignore[index]


def _path_rank(e: Edge) -> tuple:
    return (e.confidence is not Confidence.CERTAIN, -_SECS[e.lifetime], e.kind.value, e.key)  # type: ignore[index]


def _life_rank(e: Edge) -> tuple:
    return (-_SECS[e.lifetime], e.confidence is not Confidence.CERTAIN, e.kind.value, e.key)  # type: ignore[index]


#: One folded pair ``u -> v`` of traversable edges, as a tuple (speed):
#: (v index, explanation edge, explanation edge is certain, longest lifetime in
#: seconds, that lifetime, every parallel edge).  The explanation edge is the
#: certain one first, then the longest-lived, then by kind and key.
_Pair = tuple[int, Edge, bool, float, Lifetime, tuple[Edge, ...]]


@dataclass(slots=True)
class _Sub:
    """The traversable subgraph reachable from the sources, on integer indexes."""

    #: node ids: the sources (sorted) first, then the reached nodes in BFS order
    ids: list[str]
    n_src: int
    index: dict[str, int]
    #: adj[i]: the folded pairs leaving node i, ordered by target id
    adj: list[list[_Pair]]


def _collect(graph: Graph, srcs: tuple[str, ...]) -> _Sub:
    """One BFS over traversable edges: O(V + E) of the reached subgraph."""
    succ = graph.nx._succ  # raw dict-of-dicts, as networkx's own algorithms use it
    certain = Confidence.CERTAIN
    index = {s: i for i, s in enumerate(srcs)}
    ids = list(srcs)
    adj: list[list[_Pair]] = []
    i = 0
    while i < len(ids):
        row: list[tuple[str, Edge, bool, float, Lifetime, tuple[Edge, ...]]] = []
        for v, keyed in succ[ids[i]].items():
            if len(keyed) == 1:
                for d in keyed.values():
                    if d["traversable"]:
                        e = d["edge"]
                        row.append((v, e, e.confidence is certain, _SECS[e.lifetime], e.lifetime, (e,)))
            else:
                edges = tuple(d["edge"] for d in keyed.values() if d["traversable"])
                if edges:
                    best, longest = min(edges, key=_path_rank), min(edges, key=_life_rank)
                    row.append((v, best, best.confidence is certain, _SECS[longest.lifetime], longest.lifetime,
                                edges))
        if len(row) > 1:
            row.sort(key=lambda p: p[0])
        out: list[_Pair] = []
        for v, *rest in row:
            j = index.get(v)
            if j is None:
                j = index[v] = len(ids)
                ids.append(v)
            out.append((j, *rest))  # type: ignore[arg-type]
        adj.append(out)
        i += 1
    return _Sub(ids, len(srcs), index, adj)


def _bfs_tree(sub: _Sub, *, certain_only: bool) -> tuple[list[int], list[int], list[Edge | None]]:
    """BFS from the sources: visit order, parent index (-1: none) and explanation edge of each node."""
    n = len(sub.ids)
    parent = [-1] * n
    pedge: list[Edge | None] = [None] * n
    seen = bytearray(n)
    order = list(range(sub.n_src))
    for i in order:
        seen[i] = 1
    adj = sub.adj
    k = 0
    while k < len(order):
        u = order[k]
        k += 1
        for v, e, cert, *_ in adj[u]:
            if seen[v] or (certain_only and not cert):
                continue
            seen[v] = 1
            parent[v] = u
            pedge[v] = e
            order.append(v)
    return order, parent, pedge


def _paths(sub: _Sub, order: list[int], parent: list[int], pedge: list[Edge | None], hops: dict[int, Hop],
           only: set[int] | None = None) -> dict[int, tuple[Hop, ...]]:
    """Explanation paths in a BFS tree: of every node in ``order``, or of ``only`` (and their ancestors)."""
    ids = sub.ids
    paths: dict[int, tuple[Hop, ...]] = {}

    def hop(v: int) -> Hop:
        e = pedge[v]
        h = hops.get(id(e))
        if h is None:
            h = hops[id(e)] = Hop(ids[parent[v]], ids[v], e.kind, e.confidence, e.lifetime,  # type: ignore
                                  tuple(e.evidence))  # type: ignore[union-attr]
        return h

    if only is None:
        for v in order:
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


def _widest(sub: _Sub) -> list[Lifetime | None]:
    """Max-min (bottleneck) lifetime from the sources: Dijkstra on widths, O(E log V).

    The label of a node is the lifetime of the last edge attaining the
    bottleneck on its widest path (the edge whose expiry ends the access).
    """
    n, n_src, adj = len(sub.ids), sub.n_src, sub.adj
    width = [-1.0] * n
    label: list[Lifetime | None] = [None] * n
    heap: list[tuple[float, int]] = [(-_INF, s) for s in range(n_src)]
    for s in range(n_src):
        width[s] = _INF
    done = bytearray(n)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        negw, u = pop(heap)
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
                    push(heap, (-secs, v))
            elif w > width[v]:
                width[v] = w
                label[v] = lu
                push(heap, (-w, v))
    return label


# --------------------------------------------------------------------------- blast radius


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
          come from another path than ``path``.

        ``weight`` is the sum of the reached nodes' criticality weights.

    Raises
    ------
    UnknownNodeError
        If a source id is not in the graph (``suggestions`` holds close ids).

    Notes
    -----
    Passes over the reached subgraph only: a BFS collecting it (parallel edges
    folded per pair), two BFS trees (certain edges only, then all, the second
    only when some node is possible) for confidence and paths, and a max-min
    Dijkstra for lifetimes.  Time O(E log V) on the reached subgraph, plus the
    total length of the returned paths (hops are shared objects).  The cyclic
    garbage collector is paused during the run (it would walk the whole graph
    repeatedly for nothing); about 1 s for 50k reached nodes on a slow CPU.

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
    srcs = _sources(graph, sources)
    with _gc_paused():
        return _blast_radius(graph, srcs)


def _blast_radius(graph: Graph, srcs: tuple[str, ...]) -> BlastRadius:
    sub = _collect(graph, srcs)
    hops: dict[int, Hop] = {}
    corder, cparent, cedge = _bfs_tree(sub, certain_only=True)
    paths = _paths(sub, corder, cparent, cedge, hops)
    certain = set(paths)
    n = len(sub.ids)
    if len(certain) < n:
        aorder, aparent, aedge = _bfs_tree(sub, certain_only=False)
        possible = {v for v in range(sub.n_src, n) if v not in certain}
        for v, p in _paths(sub, aorder, aparent, aedge, hops, only=possible).items():
            paths.setdefault(v, p)
    life = _widest(sub)
    nodes = graph.nx.nodes
    items = []
    for v in range(sub.n_src, n):
        node: Node = nodes[sub.ids[v]]["node"]
        items.append((_node_key(node), Reached(
            id=node.id, kind=node.spec.kind, name=node.name, criticality=node.criticality,  # type: ignore[arg-type]
            confidence=Confidence.CERTAIN if v in certain else Confidence.POSSIBLE,
            lifetime=life[v], path=paths[v])))  # type: ignore[arg-type]
    items.sort(key=lambda t: t[0])
    reached = tuple(r for _, r in items)
    return BlastRadius(sources=srcs, reached=reached, weight=sum(r.weight for r in reached))


# --------------------------------------------------------------------------- revocation plan


@dataclass(slots=True)
class _Candidate:
    action: RevocationAction
    subject: int
    edges: list[int] = field(default_factory=list)
    invalidate: bool = False
    long_lived: bool = False
    #: nodes invalidated together with the subject (EdgeSpec.wiped_with_source: a reimaged host's caches)
    wipes: list[int] = field(default_factory=list)
    phase: int = 2
    #: order inside the phase (see :func:`_contain_sub`): live registrations, on-disk keys, other
    #: registrations, hosts, caches
    sub: int = 0

    def key(self, subject_id: str) -> tuple:
        return (0 if self.long_lived else 1, _ACTION_RANK[self.action], subject_id)


#: Phases of a plan (see :func:`revocation_plan`): 0 contain footholds, 1 rotate held credentials, 2 restrict.
PLAN_PHASES = ("contain", "rotate", "restrict")
#: Actions that always come with a companion right after them: narrowing a trust policy stops new sessions,
#: the sessions already issued (up to 12 h) must be revoked next (AWS: Deny on aws:TokenIssueTime).
_FOLLOW_UP = {RevocationAction.NARROW_TRUST_POLICY: RevocationAction.REVOKE_ROLE_SESSIONS}
_FOOTHOLD_ORDER = {NodeKind.RUNNER: 2, NodeKind.HOST: 3, NodeKind.CACHE: 4}


def _contain_sub(node: Node, is_source: bool) -> int | None:
    """Order inside the ``contain`` phase of invalidating a held/source ``node``; None: not containment.

    0: a compromised source's own registration, and unvetted registrations
    (seen on a host, listed by no inventory: rogue or unknown) -- the live
    channels; 1: long-lived on-disk credentials (``until_rotated``): a copy
    already taken survives a reimage, so it is revoked at its issuer before
    the slower rebuild; 2: other registrations; 3: hosts; 4: caches.
    """
    kind = node.spec.kind
    if kind is NodeKind.RUNNER and (is_source or getattr(node, "unvetted", False)):
        return 0
    if kind is NodeKind.CREDENTIAL and getattr(node, "lifetime", None) is Lifetime.UNTIL_ROTATED:
        return 1
    return _FOOTHOLD_ORDER.get(kind)


def revocation_plan(graph: Graph, sources: str | Iterable[str], *, max_steps: int | None = None) -> RevocationPlan:
    """A greedy, ordered plan of revocation actions that shrinks the weighted blast radius fastest.

    Parameters
    ----------
    graph : Graph
        The typed graph.
    sources : str or iterable of str
        The compromised node id(s), as for :func:`blast_radius`.
    max_steps : int, optional
        Stop after this many steps (default: until nothing is left or no
        action helps).

    Returns
    -------
    RevocationPlan
        ``initial_weight``, ``held`` and the ordered ``steps``
        (:class:`RevocationStep`: rank, action, subject, what it ``cuts``, the
        ``residual_weight`` after it).

    Raises
    ------
    UnknownNodeError
        If a source id is not in the graph.
    ValueError
        If ``max_steps`` is negative.

    Notes
    -----
    Semantics:

    - **Weight.**  The weighted blast radius is the sum of
      ``CRITICALITY_WEIGHT[node.criticality]`` over the reached nodes; the
      sources never count.
    - **Held nodes.**  The attacker keeps what they already hold: a *held* node
      is a reached node of a holdable kind (``NodeSpec.revoked_by`` is set:
      host, runner, secret, signing key, cache, credential) that is reachable
      from the sources through edges of unbounded lifetime only
      (``lifetime_seconds == inf``, whatever their confidence).  Access bought
      through a bounded edge (GITHUB_TOKEN per job, OIDC token, cloud
      session) expires on its own and is not held.  Held nodes are computed
      once, on the original graph.
    - **Candidates.**  Pairs (action, subject id) from the reached subgraph:
      ``(edge.revoked_by, edge.revoke_subject_id())`` of every traversable
      edge leaving a source or reached node, and ``(kind's revoked_by, id)`` of
      every source or reached node of a holdable kind.
    - **Applying (a, s)** removes every such edge whose
      ``(revoked_by, revoke_subject_id)`` is ``(a, s)``, and when ``a`` is the
      ``revoked_by`` of node ``s``'s kind, invalidates ``s``: it can no longer
      be reached nor held (a source too: removing the compromised runner's
      registration, reimaging the host), together with the targets of its
      edges whose kind declares ``wiped_with_source`` for ``s``'s kind
      (reimaging a host wipes its local caches).
    - **Residual.**  After a set of actions: the weight of every node (sources
      excepted) reachable over the remaining edges and valid nodes from the
      seeds = (sources not invalidated) | (held nodes not invalidated).
      With no action it equals the blast radius weight.
    - **Phases.**  Incident response contains before it rotates, and rotates
      long-lived credentials before it restricts access that expires on its
      own (semantics §6).  Candidates fall in three phases (``PLAN_PHASES``):
      ``contain`` (invalidate a source or held *foothold*: runner
      registration, host, cache -- what keeps giving the attacker future
      jobs -- and a held long-lived on-disk credential), ``rotate``
      (invalidate another held credential: secret, signing key, a runner's
      registration credential) and ``restrict`` (every other action: trust
      policies, environments, token permissions, group access).  Footholds
      are mutually redundant (a held host re-reaches the runners, a second
      registration re-reaches the jobs), so a pure greedy would first cut
      leaf targets one by one; phases keep the plan in responder order.
    - **Containment order** (semantics §2, §5, §7).  Inside ``contain``:
      (-1) narrowing an over-broad OIDC trust policy (``CloudRole.broad_trust``:
      no ``sub`` condition, a wildcard owner, ``repo:ORG/*``,
      ``repo:ORG/REPO:*`` or any branch): such a trust is a door that any push
      to a matching repository reopens from any runner, GitHub-hosted ones
      included, so removing the compromised runner does not close it; it is
      the first cloud action (then the role's sessions, then keys: semantics
      §5); (0) a
      compromised source's own runner registration and every *unvetted*
      registration (``Runner.unvetted``: seen on a host scan, listed by no
      inventory -- the rogue "runner on runner"), the channels that keep
      handing the attacker new jobs; (1) held on-disk credentials that live
      until rotated (cloud keys, registry and package tokens, signing keys
      on disk): the attacker already copied them, reimaging does not revoke
      the copy, and rotating at the issuer is fast where a rebuild is slow;
      (2) other registrations; (3) hosts; (4) caches.
    - **Companions.**  A ``narrow_trust_policy`` step is always followed by
      ``revoke_role_sessions`` on the same role: the fixed trust stops new
      sessions, the ones already issued stay valid up to the role's maximum
      session (AWS IAM User Guide, "Revoking IAM role temporary security
      credentials").  The companion is listed even when it cuts nothing in the
      (time-free) graph.
    - **Greedy.**  Each step applies, from the earliest phase that still has
      a useful candidate (containment in the order above), the candidate
      with the largest residual reduction, except that
      a compromised source's own foothold (its registration, its host) comes
      first in its group even when other held footholds make it cut little by
      itself; ties go to long-lived credentials (subject of a holdable kind
      that is a source or held), then to the action order of
      :class:`~graphkit.model.RevocationAction`, then to the subject id.  The
      plan stops when the residual is 0, when no candidate reduces it, or
      after ``max_steps``.  ``cuts`` of a step are the nodes reached before it
      and not after it; residual weights never increase.

    Why greedy: choosing the k actions that remove the most weight is a
    weighted cut (network interdiction) problem, NP-hard in general.  The
    objective is monotone (an action only ever removes reachability), so
    greedy gives a non-increasing "revocation curve" that responders can
    follow and stop anywhere, each step explained by what it cuts.  It is a
    heuristic, not an approximation with a guarantee: the objective is not
    submodular, since two actions that are each useless alone (two redundant
    paths to a target) can together cut a lot; greedy then reaches the
    target through other steps (e.g. rotating the target itself).

    Evaluating every candidate at once: every edge a candidate ``(a, s)``
    removes touches ``s`` (it enters ``s`` when the edge kind's revoke subject
    is the target, leaves it otherwise).  Each step builds one dominator tree
    of the live reached subgraph from a root joined to the seeds, with the
    candidate's edges into ``s`` routed through a virtual node ``X_in`` and
    its edges out of ``s`` through ``X_out``.  Then what the candidate cuts
    is exactly a dominator subtree: the subtree of ``s`` when it invalidates
    ``s`` or when ``X_in`` is the immediate dominator of ``s`` (every path to
    ``s`` uses a removed edge); otherwise the subtree of ``X_out`` (if ``s``
    stays reachable, removing edges into it changes nothing else).  Subtree
    weights give every candidate's reduction in O(1).

    Complexity: O(S * (V + E + A)) for S steps and A candidates on the reached
    subgraph, times the near-linear factor of the dominator algorithm,
    instead of the O(S * A * (V + E)) of one reachability per candidate.  The
    residual after each step is re-checked by a plain traversal.

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
    ...                 Edge(kind=EdgeKind.READS_SECRET, source="job:build", target="secret:NPM", evidence=ev)])
    >>> plan = revocation_plan(g, "runner:r1")
    >>> plan.initial_weight, plan.held
    (21, ('secret:NPM',))
    >>> for s in plan.steps:
    ...     print(s.rank, s.action.value, s.subject_id, s.cuts, s.residual_weight)
    1 remove_runner_registration runner:r1 ('job:build',) 20
    2 rotate_secret secret:NPM ('secret:NPM',) 0

    References
    ----------
    .. [1] graphkit ``shared/docs/semantics.md`` §2 (what a persisted runner gains), §6 (lifetimes).
    .. [2] R. K. Wood, "Deterministic network interdiction", Mathematical and
       Computer Modelling 17(2), 1993 (interdiction is NP-hard).
    .. [3] K. D. Cooper, T. J. Harvey, K. Kennedy, "A Simple, Fast Dominance
       Algorithm", 2001, as networkx ``immediate_dominators``.
    """
    if max_steps is not None and max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    with _gc_paused():
        return _revocation_plan(graph, _sources(graph, sources), max_steps)


def _revocation_plan(graph: Graph, srcs: tuple[str, ...], max_steps: int | None) -> RevocationPlan:
    sub = _collect(graph, srcs)
    ids, n, n_src = sub.ids, len(sub.ids), sub.n_src
    nxnodes = graph.nx.nodes
    nodes: list[Node] = [nxnodes[v]["node"] for v in ids]
    weight = [0] * n_src + [CRITICALITY_WEIGHT[nd.criticality] for nd in nodes[n_src:]]  # type: ignore[index]

    # Every traversable edge of the reached subgraph (parallel edges apart), and the candidate it belongs
    # to.  Candidate ci's edges into its subject go through virtual node n+2ci, edges out of it through n+2ci+1.
    cands: list[_Candidate] = []
    cand_at: dict[tuple[RevocationAction, int], int] = {}

    def cand(action: RevocationAction, subject: int) -> int:
        ci = cand_at.get((action, subject))
        if ci is None:
            ci = cand_at[(action, subject)] = len(cands)
            cands.append(_Candidate(action, subject))
        return ci

    eu: list[int] = []
    ev: list[int] = []
    evirt: list[int] = []
    unbounded: list[bool] = []
    edge_kind: list[EdgeKind] = []
    out: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for ui in range(n):
        for vi, _, _, _, _, edges in sub.adj[ui]:
            for e in edges:
                ei = len(eu)
                eu.append(ui)
                ev.append(vi)
                unbounded.append(_SECS[e.lifetime] == _INF)  # type: ignore[index]
                edge_kind.append(e.kind)
                out[ui].append((ei, vi))
                if e.revoked_by is None:
                    evirt.append(-1)
                    continue
                into = EDGE_SPECS[e.kind].revoke_subject == "target"
                ci = cand(e.revoked_by, vi if into else ui)
                cands[ci].edges.append(ei)
                evirt.append(n + 2 * ci + (0 if into else 1))
    for i, nd in enumerate(nodes):
        if nd.spec.revoked_by is not None:
            cand(nd.spec.revoked_by, i)

    # held: holdable nodes reachable through unbounded edges only (original graph)
    seen = bytearray(n)
    todo = list(range(n_src))
    for i in todo:
        seen[i] = 1
    while todo:
        x = todo.pop()
        for ei, y in out[x]:
            if unbounded[ei] and not seen[y]:
                seen[y] = 1
                todo.append(y)
    held = [i for i in range(n_src, n) if seen[i] and nodes[i].spec.holdable]
    is_seed = bytearray(n)
    for i in [*range(n_src), *held]:
        is_seed[i] = 1
    for c in cands:
        nd = nodes[c.subject]
        c.invalidate = nd.spec.revoked_by is c.action
        if c.invalidate:
            c.wipes = sorted({ev[ei] for ei, _ in out[c.subject]
                              if nd.spec.kind in EDGE_SPECS[edge_kind[ei]].wiped_with_source} - {c.subject})
        c.long_lived = nd.spec.holdable and bool(is_seed[c.subject])
        if c.action is RevocationAction.NARROW_TRUST_POLICY and getattr(nd, "broad_trust", False):
            c.phase, c.sub = 0, -1  # an over-broad OIDC trust: a door any push reopens, closed first
        elif c.invalidate and c.long_lived:
            sub = _contain_sub(nd, c.subject < n_src)
            if sub is not None:
                c.phase, c.sub = 0, sub
            else:
                c.phase = 1
    by_rank = sorted(range(len(cands)), key=lambda ci: cands[ci].key(ids[cands[ci].subject]))

    alive = bytearray(b"\x01") * len(eu)
    dead = bytearray(n)

    def reach() -> bytearray:
        cur = bytearray(n)
        todo = [i for i in range(n) if is_seed[i] and not dead[i]]
        for i in todo:
            cur[i] = 1
        while todo:
            x = todo.pop()
            for ei, y in out[x]:
                if alive[ei] and not cur[y] and not dead[y]:
                    cur[y] = 1
                    todo.append(y)
        return cur

    def _weight_without(c: _Candidate) -> int:
        """Residual weight if ``c`` (and the nodes it wipes) were applied now."""
        saved_nodes = [(i, dead[i]) for i in (c.subject, *c.wipes)]
        saved_edges = [(ei, alive[ei]) for ei in c.edges]
        for i, _ in saved_nodes:
            dead[i] = 1
        for ei, _ in saved_edges:
            alive[ei] = 0
        try:
            after = reach()
            return sum(weight[i] for i in range(n) if after[i])
        finally:
            for i, was in saved_nodes:
                dead[i] = was
            for ei, was in saved_edges:
                alive[ei] = was

    cur = reach()
    initial = residual = sum(weight[i] for i in range(n) if cur[i])
    steps: list[RevocationStep] = []
    root = -1
    while residual > 0 and (max_steps is None or len(steps) < max_steps):
        # dominator tree of the live graph from a root joined to the seeds
        dedges = [(root, i) for i in range(n) if is_seed[i] and not dead[i]]
        for ei, x in enumerate(evirt):
            u, v = eu[ei], ev[ei]
            if alive[ei] and cur[u] and not dead[v] and u != v:
                if x < 0:
                    dedges.append((u, v))
                else:
                    dedges.append((u, x))
                    dedges.append((x, v))
        idom, torder, children = _dominator_tree(dedges, root)
        subw: dict[int, int] = {}
        for x in reversed(torder):
            subw[x] = (weight[x] if 0 <= x < n else 0) + sum(subw[k] for k in children.get(x, ()))
        best: _Candidate | None = None
        best_key: tuple = ()
        best_red = 0
        for ci in by_rank:  # in tie-break order: the first of equal keys wins
            c = cands[ci]
            s = c.subject
            if c.wipes and any(not dead[w] for w in c.wipes):
                red = residual - _weight_without(c)  # several nodes go at once: no single subtree
            elif c.invalidate or idom.get(s) == n + 2 * ci:
                red = subw.get(s, 0)
            else:
                red = subw.get(n + 2 * ci + 1, 0)
            own = c.phase == 0 and s < n_src and not dead[s]  # a compromised source's own foothold
            if red <= 0 and not own:
                continue
            key = (c.phase, c.sub, not own, -red)
            if best is None or key < best_key:
                best, best_key, best_red = c, key, red
        if best is None:
            break
        for ei in best.edges:
            alive[ei] = 0
        if best.invalidate:
            dead[best.subject] = 1
            for w in best.wipes:
                dead[w] = 1
        new = reach()
        cuts = sorted((i for i in range(n_src, n) if cur[i] and not new[i]), key=lambda i: _node_key(nodes[i]))
        cur = new
        residual -= best_red
        if residual != sum(weight[i] for i in range(n) if cur[i]):  # pragma: no cover - internal invariant
            raise AssertionError("revocation plan: dominator reduction disagrees with reachability")
        subj = nodes[best.subject]
        steps.append(RevocationStep(
            rank=len(steps) + 1, action=best.action, subject_id=subj.id, subject_kind=subj.spec.kind,
            subject_name=subj.name, description=REVOCATION_SPECS[best.action].description,
            long_lived=best.long_lived, phase=PLAN_PHASES[best.phase], reduction=best_red,
            cuts=tuple(ids[i] for i in cuts), residual_weight=residual))
        follow = _FOLLOW_UP.get(best.action)
        if follow is not None and (max_steps is None or len(steps) < max_steps):
            # the companion action comes right after, even when it cuts nothing by itself
            ci = cand_at.get((follow, best.subject))
            fc = cands[ci] if ci is not None else _Candidate(follow, best.subject)
            for ei in fc.edges:
                alive[ei] = 0
            new = reach()
            cuts = sorted((i for i in range(n_src, n) if cur[i] and not new[i]), key=lambda i: _node_key(nodes[i]))
            after = sum(weight[i] for i in range(n) if new[i])
            steps.append(RevocationStep(
                rank=len(steps) + 1, action=follow, subject_id=subj.id, subject_kind=subj.spec.kind,
                subject_name=subj.name, description=REVOCATION_SPECS[follow].description, long_lived=False,
                phase=PLAN_PHASES[best.phase], reduction=residual - after, cuts=tuple(ids[i] for i in cuts),
                residual_weight=after))
            cur, residual = new, after
    held_ids = tuple(ids[i] for i in sorted(held, key=lambda i: _node_key(nodes[i])))
    return RevocationPlan(sources=srcs, initial_weight=initial, held=held_ids, steps=tuple(steps))


def _dominator_tree(edges: list[tuple[int, int]], root: int) -> tuple[dict[int, int], list[int],
                                                                      dict[int, list[int]]]:
    """Immediate dominators (networkx), the tree in BFS order from ``root``, and children lists."""
    dg = nx.DiGraph()
    dg.add_node(root)
    dg.add_edges_from(edges)
    idom = nx.immediate_dominators(dg, root)
    idom.pop(root, None)  # networkx < 3.5 maps the start node to itself
    children: dict[int, list[int]] = {}
    for v, d in idom.items():
        children.setdefault(d, []).append(v)
    order = [root]
    for x in order:
        order.extend(children.get(x, ()))
    return idom, order, children


# --------------------------------------------------------------------------- choke points

def choke_points(graph: Graph, sources: str | Iterable[str]) -> list[ChokePoint]:
    """Single points of failure: reached nodes that dominate other reached nodes.

    A node ``d`` dominates ``x`` when every traversable path from the sources
    to ``x`` goes through ``d``.  Computed with networkx
    ``immediate_dominators`` on the reached subgraph (parallel edges folded),
    from a virtual root joined to every source.

    Parameters
    ----------
    graph : Graph
        The typed graph.
    sources : str or iterable of str
        The compromised node id(s), as for :func:`blast_radius`.

    Returns
    -------
    list of ChokePoint
        One entry per non-source reached node that strictly dominates at least
        one other node: ``dominated`` (count), and ``weight`` /
        ``critical_weight`` / ``critical`` over the node itself plus all it
        dominates (its dominator subtree: what becomes unreachable when it is
        cut off).  Sorted by ``critical_weight``, then ``weight``, then
        ``dominated`` (all descending), then id.

    Raises
    ------
    UnknownNodeError
        If a source id is not in the graph.

    Notes
    -----
    Relation to :func:`revocation_plan`: cutting a choke point off (an action
    that invalidates it, or removes every edge into it) removes its whole
    subtree at once, so a choke point that dominates critical targets is a
    one-step cut and usually an early step of the plan.  The plan can still
    rank it lower, because it also keeps what the attacker already *holds*:
    a held node below the choke point stays reached (it acts as an extra
    source), which dominators computed from the sources alone ignore.
    Conversely, a critical target reached by two disjoint paths has no choke
    point, and the plan needs several steps (or the target's own rotation).

    Time: about O(V + E) on the reached subgraph (Cooper-Harvey-Kennedy as
    implemented by networkx), plus the total size of the ``critical`` lists.

    Examples
    --------
    >>> from graphkit.model import Edge, EdgeKind, Evidence, Job, Runner, Secret, SigningKey
    >>> ev = [Evidence(file="ci.yml")]
    >>> g = Graph()
    >>> g.update(nodes=[Runner(id="runner:r1", name="r1", scope="acme"),
    ...                 Job(id="job:release", name="release", repository="acme/app", workflow_path="ci.yml",
    ...                     job_key="release", secrets_repository="acme/app"),
    ...                 Secret(id="secret:COSIGN", name="COSIGN", secret_name="COSIGN", scope="repo", owner="acme"),
    ...                 SigningKey(id="signing_key:cosign:app", name="app", scheme="cosign", identifier="app")],
    ...          edges=[Edge(kind=EdgeKind.RECEIVES_JOB, source="runner:r1", target="job:release", evidence=ev),
    ...                 Edge(kind=EdgeKind.READS_SECRET, source="job:release", target="secret:COSIGN", evidence=ev),
    ...                 Edge(kind=EdgeKind.SIGNS_WITH, source="secret:COSIGN", target="signing_key:cosign:app",
    ...                      evidence=ev)])
    >>> [(c.id, c.dominated, c.critical_weight, c.weight) for c in choke_points(g, "runner:r1")]
    [('job:release', 2, 100, 121), ('secret:COSIGN', 1, 100, 120)]

    References
    ----------
    .. [1] K. D. Cooper, T. J. Harvey, K. Kennedy, "A Simple, Fast Dominance
       Algorithm", Software Practice & Experience 4, 2001.
    .. [2] networkx ``immediate_dominators``.
    """
    srcs = _sources(graph, sources)
    with _gc_paused():
        return _choke_points(graph, srcs)


def _choke_points(graph: Graph, srcs: tuple[str, ...]) -> list[ChokePoint]:
    sub = _collect(graph, srcs)
    ids, n_src = sub.ids, sub.n_src
    root = -1
    edges = [(root, s) for s in range(n_src)]
    edges += [(u, p[0]) for u, row in enumerate(sub.adj) for p in row if p[0] != u]
    _, torder, children = _dominator_tree(edges, root)
    nxnodes = graph.nx.nodes
    nodes: list[Node] = [nxnodes[v]["node"] for v in ids]
    size: dict[int, int] = {}
    total: dict[int, int] = {}
    crit_w: dict[int, int] = {}
    crit: dict[int, list[int]] = {}
    for x in reversed(torder):
        kids = children.get(x, ())
        size[x] = sum(size[k] + 1 for k in kids)
        total[x] = sum(total[k] for k in kids)
        crit_w[x] = sum(crit_w[k] for k in kids)
        crit[x] = [c for k in kids for c in crit[k]]
        if x >= n_src:
            node = nodes[x]
            w = CRITICALITY_WEIGHT[node.criticality]  # type: ignore[index]
            total[x] += w
            if node.criticality is Criticality.CRITICAL:
                crit_w[x] += w
                crit[x].append(x)
    result: list[ChokePoint] = []
    for x in torder[1:]:
        if x < n_src or not size[x]:
            continue
        node = nodes[x]
        result.append(ChokePoint(
            id=node.id, kind=node.spec.kind, name=node.name, criticality=node.criticality,  # type: ignore[arg-type]
            dominated=size[x], weight=total[x], critical_weight=crit_w[x],
            critical=tuple(ids[i] for i in sorted(crit[x], key=lambda i: _node_key(nodes[i])))))
    result.sort(key=lambda c: (-c.critical_weight, -c.weight, -c.dominated, c.id))
    return result
