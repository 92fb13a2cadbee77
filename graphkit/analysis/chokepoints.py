"""Choke points (:func:`choke_points`): reached nodes every path to other reached nodes goes through."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from graphkit.analysis.dominators import DominatorTree, dominator_tree
from graphkit.analysis.reach import Subgraph, collect, gc_paused, source_ids
from graphkit.analysis.results import ChokePoint, node_order
from graphkit.graph import Graph
from graphkit.model import CRITICALITY_WEIGHT, Criticality

__all__ = ["choke_points"]


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
    srcs = source_ids(graph, sources)
    with gc_paused():
        return _choke_points(graph, srcs)


def _choke_points(graph: Graph, srcs: tuple[str, ...]) -> list[ChokePoint]:
    sub = collect(graph, srcs)
    root = -1
    edges = [(root, s) for s in range(sub.n_src)]
    edges += [(u, p.target) for u, row in enumerate(sub.adj) for p in row if p.target != u]
    tree = dominator_tree(edges, root)
    sums = _subtree_sums(sub, tree)
    nodes = sub.nodes
    result: list[ChokePoint] = []
    for x in tree.order[1:]:
        if x < sub.n_src or not sums.size[x]:
            continue
        node = nodes[x]
        result.append(ChokePoint(
            id=node.id, kind=node.spec.kind, name=node.name, criticality=node.criticality,  # type: ignore[arg-type]
            dominated=sums.size[x], weight=sums.weight[x], critical_weight=sums.critical_weight[x],
            critical=tuple(sub.ids[i] for i in sorted(sums.critical[x], key=lambda i: node_order(nodes[i])))))
    result.sort(key=lambda c: (-c.critical_weight, -c.weight, -c.dominated, c.id))
    return result


@dataclass(slots=True)
class _SubtreeSums:
    """Per dominator-tree node: what its subtree holds (the sources count for nothing)."""

    #: number of strict descendants
    size: dict[int, int] = field(default_factory=dict)
    #: weight of the node and its descendants
    weight: dict[int, int] = field(default_factory=dict)
    #: weight of the critical ones among them
    critical_weight: dict[int, int] = field(default_factory=dict)
    #: indexes of the critical ones among them
    critical: dict[int, list[int]] = field(default_factory=dict)


def _subtree_sums(sub: Subgraph, tree: DominatorTree) -> _SubtreeSums:
    """Sizes and weights of every dominator subtree, bottom-up: O(V) plus the ``critical`` lists."""
    sums = _SubtreeSums()
    size, total, crit_w, crit = sums.size, sums.weight, sums.critical_weight, sums.critical
    for x in reversed(tree.order):
        kids = tree.children.get(x, ())
        size[x] = sum(size[k] + 1 for k in kids)
        total[x] = sum(total[k] for k in kids)
        crit_w[x] = sum(crit_w[k] for k in kids)
        crit[x] = [c for k in kids for c in crit[k]]
        if x < sub.n_src:  # the root (-1) and the sources
            continue
        node = sub.nodes[x]
        w = CRITICALITY_WEIGHT[node.criticality]  # type: ignore[index]
        total[x] += w
        if node.criticality is Criticality.CRITICAL:
            crit_w[x] += w
            crit[x].append(x)
    return sums
