"""Revocation plan: a greedy, ordered list of actions that shrinks the weighted blast radius fastest.

Candidate generation is in :mod:`~graphkit.analysis.plan.candidates`, the
greedy loop in :mod:`~graphkit.analysis.plan.greedy` (the reference, one dominator tree per step) and
:mod:`~graphkit.analysis.plan.fast` (the same plan, incrementally: what :func:`revocation_plan` runs; its
dominator trees and array passes are compiled, :mod:`~graphkit.analysis.plan.compiled`, with a numpy and rustworkx
fallback); the design (semantics,
phases, containment order, tie-breaks, why greedy, how one dominator tree per
step evaluates every candidate) is ``docs/revocation-plan.md``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from graphkit.analysis.plan.arrays import LazyCandidates, candidate_columns, incident_arrays
from graphkit.analysis.plan.candidates import candidates, incident
from graphkit.analysis.plan.fast import fast_plan
from graphkit.analysis.radius_arrays import node_columns
from graphkit.analysis.reach import gc_paused, source_ids
from graphkit.analysis.results import RevocationPlan
from graphkit.graph import Graph
from graphkit.model import NodeKind

__all__ = ["revocation_plan"]

#: the position of a cloud role's kind in NodeKind (``node_columns``' kind column)
_ROLE = tuple(NodeKind).index(NodeKind.CLOUD_ROLE)


def revocation_plan(graph: Graph, sources: str | Iterable[str], *, max_steps: int | None = None,
                    live_sessions: Iterable[str] = (), exposed: Iterable[str] = ()) -> RevocationPlan:
    """A greedy, ordered plan of revocation actions that shrinks the weighted blast radius fastest.

    The attacker keeps what they already hold (a *held* node: a credential-like
    node reached over unbounded edges only).  Each step applies, from the
    earliest :class:`~graphkit.analysis.Phase` that still has a useful
    candidate (``contain`` footholds, ``rotate`` held credentials, then
    ``restrict`` access that expires on its own), the action with the largest
    reduction of the weighted residual blast radius; ties go to long-lived
    credentials, then to action order, then to subject id.  The full design:
    ``docs/revocation-plan.md``.

    Parameters
    ----------
    graph : Graph
        The typed graph.
    sources : str or iterable of str
        The compromised node id(s), as for :func:`~graphkit.analysis.blast_radius`.
    max_steps : int, optional
        Stop after this many steps (default: until nothing is left or no
        action helps).
    live_sessions : iterable of str, optional
        Cloud roles whose sessions are known live (``graphkit.analysis.timeline``).
        Every cloud role in the blast radius (a source or reached) gets a
        ``revoke_role_sessions`` step once nothing reached can mint new
        sessions of it (at the latest at the end): without the issued tokens,
        the attacker may have assumed any of them in the window (AWS,
        https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html).
    exposed : iterable of str, optional
        Nodes that observed runs on the compromised runners received (:mod:`graphkit.analysis.exposure`): in
        its phase, invalidating an exposed long-lived credential comes before anything only reachable
        (``docs/revocation-plan.md``, "Ordering rules").

    Returns
    -------
    RevocationPlan
        ``initial_weight``, ``held`` and the ordered ``steps``
        (:class:`~graphkit.analysis.RevocationStep`: rank, action, subject,
        phase, what it ``cuts``, the ``residual_weight`` after it).  Residual
        weights never increase.  ``steps`` is a
        :class:`~graphkit.analysis.RevocationSteps`: kept as arrays, each step
        object made when first read (equal to the tuple of the same steps).

    Raises
    ------
    UnknownNodeError
        If a source id is not in the graph.
    ValueError
        If ``max_steps`` is negative.

    Notes
    -----
    Complexity (the reference loop, :mod:`~graphkit.analysis.plan.greedy`; what runs is the same plan computed
    incrementally, :mod:`~graphkit.analysis.plan.fast`, which builds a new dominator tree only after a step that
    changes other paths): O(S * (V + E + A)) for S steps and A candidates on the reached
    subgraph, times the near-linear factor of the dominator algorithm: each
    step builds one dominator tree whose subtrees are what every candidate
    cuts, instead of the O(S * A * (V + E)) of one reachability per
    candidate.  The residual after each step is re-checked by a plain
    traversal.

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
    ...     print(s.rank, s.phase, s.action.value, s.subject_id, s.cuts, s.residual_weight)
    1 contain remove_runner_registration runner:r1 ('job:build',) 20
    2 rotate rotate_secret secret:NPM ('secret:NPM',) 0

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
    with gc_paused():
        srcs = source_ids(graph, sources)
        # the front end from the snapshot's arrays; the reference when the vectorised BFS gives up
        found = incident_arrays(graph, srcs, lists=False)
        inc, cols = found if found is not None else (incident(graph, srcs), None)
        # every reached role may have been assumed in the window: its sessions are revoked once nothing mints them
        roles = frozenset(inc.sub.index[r] for r in live_sessions if r in inc.sub.index)
        seen = frozenset(inc.sub.index[x] for x in exposed if x in inc.sub.index)
        if cols is None:
            roles |= frozenset(i for i, nd in enumerate(inc.sub.nodes) if nd.spec.kind is NodeKind.CLOUD_ROLE)
            return fast_plan(inc, candidates(inc, seen), max_steps, roles)
        snap, order, _ = inc.sub.fast  # type: ignore[misc]
        roles |= frozenset(np.flatnonzero(node_columns(snap)[2][order] == _ROLE).tolist())
        # the candidates as arrays: an object is made only for those the loop reads in Python
        candidate_columns(inc.sub.fast, cols, inc.sub.n_src, seen)
        return fast_plan(inc, LazyCandidates(cols, inc.n), max_steps, roles, cols)
