"""Dominator trees on integer nodes (shared by the choke points and the revocation plan)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import networkx as nx

__all__ = ["DominatorTree", "dominator_tree"]


class DominatorTree(NamedTuple):
    """The dominator tree of the nodes reachable from ``root``."""

    #: immediate dominator of every reachable node but the root
    idom: dict[int, int]
    #: the tree in BFS order from the root (the root first)
    order: list[int]
    #: children of every inner node
    children: dict[int, list[int]]


def dominator_tree(edges: Iterable[tuple[int, int]], root: int) -> DominatorTree:
    """Immediate dominators (networkx ``immediate_dominators``), the tree's BFS order and children lists.

    Parameters
    ----------
    edges : iterable of (int, int)
        Directed edges ``(u, v)``.
    root : int
        The start node.

    Returns
    -------
    DominatorTree
        Time: about O(V + E) (Cooper-Harvey-Kennedy, as implemented by networkx).
    """
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
    return DominatorTree(idom, order, children)
