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
  holds (semantics §2, §6; design: ``docs/revocation-plan.md``).
- :func:`choke_points`: nodes that every path to other reached nodes goes
  through (dominators).

Only the part of the graph reachable from the sources is ever visited
(:func:`graphkit.analysis.reach.collect`, the one traversal all three start
from): the cost of an analysis depends on the blast radius, not on the size
of the graph.

Modules: :mod:`~graphkit.analysis.results` (result types),
:mod:`~graphkit.analysis.reach` (the shared reach primitive and traversals),
:mod:`~graphkit.analysis.radius`, :mod:`~graphkit.analysis.chokepoints`,
:mod:`~graphkit.analysis.dominators` and :mod:`~graphkit.analysis.plan`
(``candidates``, ``greedy``).

Node order in every result: criticality (critical first), then node kind in
declaration order (:class:`~graphkit.model.NodeKind`), then id.
"""

from graphkit.analysis.chokepoints import choke_points
from graphkit.analysis.plan import revocation_plan
from graphkit.analysis.radius import blast_radii, blast_radius
from graphkit.analysis.results import (
    PLAN_PHASES, BlastRadius, ChokePoint, Hop, Phase, Reached, RevocationPlan, RevocationStep,
    RevocationSteps,
)

__all__ = [
    "PLAN_PHASES",
    "BlastRadius",
    "ChokePoint",
    "Hop",
    "Phase",
    "Reached",
    "RevocationPlan",
    "RevocationStep",
    "RevocationSteps",
    "blast_radii",
    "blast_radius",
    "choke_points",
    "revocation_plan",
]
