"""Machine-readable outputs (versioned contracts).

``graphkit.blast-radius/v1`` is frozen: fields may be added, never renamed or
removed.  Its JSON Schema ships in ``schemas/blast-radius.schema.json``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphkit.analysis import BlastRadius, RevocationPlan, blast_radius, revocation_plan
from graphkit.graph import Graph

__all__ = ["BLAST_RADIUS_SCHEMA", "blast_radius_document"]

BLAST_RADIUS_SCHEMA = "graphkit.blast-radius/v1"


def blast_radius_document(graph: Graph, sources: str | Iterable[str], *, top: int | None = None,
                          radius: BlastRadius | None = None, plan: RevocationPlan | None = None) -> dict[str, Any]:
    """The ``graphkit.blast-radius/v1`` document for ``sources``.

    Parameters
    ----------
    graph, sources
        as for :func:`graphkit.analysis.blast_radius`.
    top
        keep only the first ``top`` reached assets (critical first) and plan
        steps; ``counts`` still describes the whole result.
    radius, plan
        precomputed results (computed when omitted).

    Returns
    -------
    dict
        ``{schema, source, counts, weight, reached: [{id, kind, name,
        criticality, confidence, lifetime, path: [hop]}], revocations: [{rank,
        action, target, target_kind, target_name, description, phase,
        long_lived, cuts, residual_weight}], residual_weight, partial_input, problems: [{file, place, reason}]}``.

    Raises
    ------
    UnknownNodeError
        for an unknown source id.
    """
    radius = radius if radius is not None else blast_radius(graph, sources)
    plan = plan if plan is not None else revocation_plan(graph, radius.sources)
    by_kind: dict[str, int] = {}
    by_crit: dict[str, int] = {}
    for r in radius.reached:
        by_kind[r.kind.value] = by_kind.get(r.kind.value, 0) + 1
        by_crit[r.criticality.value] = by_crit.get(r.criticality.value, 0) + 1
    reached = radius.reached if top is None else radius.reached[:top]
    steps = plan.steps if top is None else plan.steps[:top]
    return {
        "schema": BLAST_RADIUS_SCHEMA,
        "source": list(radius.sources),
        "counts": {"reached": len(radius.reached), "by_kind": dict(sorted(by_kind.items())),
                   "by_criticality": dict(sorted(by_crit.items())), "revocations": len(plan.steps)},
        "weight": radius.weight,
        "reached": [r.to_dict() for r in reached],
        "revocations": [{"rank": s.rank, "action": s.action.value, "target": s.subject_id,
                         "target_kind": s.subject_kind.value, "target_name": s.subject_name,
                         "description": s.description, "phase": s.phase.value, "long_lived": s.long_lived, "cuts": list(s.cuts),
                         "residual_weight": s.residual_weight} for s in steps],
        "residual_weight": plan.residual_weight,
        "partial_input": graph.meta.partial,
        "problems": [p.model_dump() for p in graph.meta.problems],
    }
