"""graphkit: blast radius of CI/CD build runners as a typed graph.

Public API::

    from graphkit import Graph, build_graph, blast_radius, revocation_plan, choke_points
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported on first use (``graphkit --help`` needs neither networkx nor the model)
    from graphkit.graph import Graph
    from graphkit.model import Confidence, Criticality, Edge, EdgeKind, Evidence, Lifetime, Node, NodeKind

_MODEL = frozenset({"Confidence", "Criticality", "Edge", "EdgeKind", "Evidence", "Lifetime", "Node", "NodeKind"})

__all__ = ["Graph", "Node", "Edge", "NodeKind", "EdgeKind", "Evidence", "Confidence", "Criticality", "Lifetime",
           "build_graph", "blast_radius", "revocation_plan", "choke_points"]
__version__ = "0.1.0"


def __getattr__(name: str):  # lazy: keep `import graphkit` light
    if name == "Graph":
        from graphkit.graph import Graph
        return Graph
    if name in _MODEL:
        from graphkit import model
        return getattr(model, name)
    if name == "build_graph":
        from graphkit.build import build_graph
        return build_graph
    if name in ("blast_radius", "revocation_plan", "choke_points"):
        from graphkit import analysis
        return getattr(analysis, name)
    raise AttributeError(name)
