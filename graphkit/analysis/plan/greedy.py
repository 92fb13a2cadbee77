"""The greedy loop of a revocation plan: one dominator tree per step evaluates every candidate at once.

See ``docs/revocation-plan.md`` ("Greedy", "Evaluating every candidate at
once") for why a dominator subtree is exactly what a candidate cuts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from graphkit.analysis.dominators import DominatorTree, dominator_tree
from graphkit.analysis.plan.candidates import FOLLOW_UP, Candidate, Candidates, Containment, Incident
from graphkit.analysis.reach import reachable
from graphkit.analysis.results import Phase, RevocationPlan, RevocationStep, node_order
from graphkit.model import REVOCATION_SPECS, RevocationAction

__all__ = ["greedy_plan"]

#: the virtual root of the dominator graph, joined to every live seed
_ROOT = -1
#: the greedy group of a held credential that can register runners (always eligible, first)
_REGISTRAR = (0, Containment.REGISTRAR)


@dataclass(slots=True)
class _Live:
    """What is still in place while the plan is applied."""

    #: per arc: 0 once an applied action removed it
    alive: bytearray
    #: per node: 1 once an applied action invalidated it
    dead: bytearray
    #: per node: 1 when still reached
    reached: bytearray
    #: weight of the reached nodes
    residual: int


class _Choice(NamedTuple):
    """The candidate a step applies and the weight it removes."""

    candidate: Candidate
    reduction: int


def greedy_plan(inc: Incident, cands: Candidates, max_steps: int | None,
                live_sessions: frozenset[int] = frozenset()) -> RevocationPlan:
    """Apply the best candidate (and its companion) until nothing is left, nothing helps, or ``max_steps``.

    A session revocation (the companion of narrowing a trust policy, or of a
    role in ``live_sessions``) comes once no live arc mints new sessions of
    the role any more, and at the latest at the end of the plan: sessions
    minted in between would outlive it (``docs/revocation-plan.md``,
    "Ordering rules").

    Parameters
    ----------
    inc : Incident
        The reached subgraph (:func:`~graphkit.analysis.plan.candidates.incident`).
    cands : Candidates
        Its candidates (:func:`~graphkit.analysis.plan.candidates.candidates`).
    max_steps : int or None
        Stop after this many steps.
    live_sessions : frozenset of int
        Roles (indexes) whose sessions are known live (:mod:`graphkit.analysis.timeline`).

    Returns
    -------
    RevocationPlan
    """
    live = _Live(bytearray(b"\x01") * len(inc.arcs), bytearray(inc.n), bytearray(), 0)
    live.reached = _reach(inc, live)
    initial = live.residual = _weight(inc, live.reached)
    steps: list[RevocationStep] = []

    def room() -> bool:
        return max_steps is None or len(steps) < max_steps

    pending: dict[int, tuple[RevocationAction, Phase]] = {
        r: (RevocationAction.REVOKE_ROLE_SESSIONS, Phase.CONTAIN) for r in sorted(live_sessions)}
    while live.residual > 0 and room():
        choice = _best(inc, cands, live)
        if choice is None:
            break
        steps.append(_apply(inc, live, choice, rank=len(steps) + 1))
        follow = FOLLOW_UP.get(choice.candidate.action)
        subject_id = inc.sub.ids[choice.candidate.subject]
        if follow is not None and not any(s.action is follow and s.subject_id == subject_id for s in steps):
            # one session revocation per role: a role already revoked (nothing minted it) is not revoked again
            pending[choice.candidate.subject] = (follow, choice.candidate.phase)
        # a companion comes as soon as nothing mints what it revokes, even when it cuts nothing by itself
        _flush(inc, cands, live, pending, steps, room, only_closed=True)
    _flush(inc, cands, live, pending, steps, room, only_closed=False)
    ids = inc.sub.ids
    return RevocationPlan(sources=tuple(ids[:inc.sub.n_src]), initial_weight=initial,
                          held=tuple(ids[i] for i in inc.held), steps=tuple(steps))


# --------------------------------------------------------------------------- evaluating candidates


def _best(inc: Incident, cands: Candidates, live: _Live) -> _Choice | None:
    """The candidate with the smallest greedy key among those that help; None when none does."""
    tree = dominator_tree(_dominator_edges(inc, cands.via, live), _ROOT)
    subw = _subtree_weights(tree, inc.weight)
    n_src, dead = inc.sub.n_src, live.dead
    best: _Choice | None = None
    best_key: tuple = ()
    for c in cands.ranked:  # in tie-break order: the first of equal keys wins
        if c.applied or c.action is RevocationAction.REVOKE_ROLE_SESSIONS:  # only as a companion (pending)
            continue
        red = _reduction(c, tree, subw, inc, live)
        # a source's own foothold, and a registrar: each comes first in its group even when it cuts little alone
        own = c.phase is Phase.CONTAIN and not dead[c.subject] and (c.subject < n_src or c.group == _REGISTRAR)
        if red <= 0 and not own:
            continue
        # in its group, an exposed long-lived credential (a run on the compromised runner received it: the
        # attacker may hold it now) comes before what is only reachable, whatever it cuts
        key = (c.group, not own, not (c.exposed and c.long_lived), -red)
        if best is None or key < best_key:
            best, best_key = _Choice(c, red), key
    return best


def _dominator_edges(inc: Incident, via: list[int], live: _Live) -> Iterator[tuple[int, int]]:
    """Edges of the live reached subgraph from a root joined to the live seeds, arcs routed through ``via``."""
    n, seed, dead, alive, reached = inc.n, inc.seed, live.dead, live.alive, live.reached
    source, target = inc.arcs.source, inc.arcs.target
    yield from ((_ROOT, i) for i in range(n) if seed[i] and not dead[i])
    for a, x in enumerate(via):
        u, v = source[a], target[a]
        if alive[a] and reached[u] and not dead[v] and u != v:
            if x < 0:
                yield u, v
            else:
                yield u, x
                yield x, v


def _subtree_weights(tree: DominatorTree, weight: list[int]) -> dict[int, int]:
    """Weight of every dominator subtree (virtual nodes and the root weigh nothing)."""
    n, children = len(weight), tree.children
    subw: dict[int, int] = {}
    for x in reversed(tree.order):
        subw[x] = (weight[x] if 0 <= x < n else 0) + sum(subw[k] for k in children.get(x, ()))
    return subw


def _reduction(c: Candidate, tree: DominatorTree, subw: dict[int, int], inc: Incident, live: _Live) -> int:
    """Weight that applying ``c`` now removes: a dominator subtree, or a trial when it wipes several nodes."""
    if c.wipes and any(not live.dead[w] for w in c.wipes):
        return live.residual - _residual_without(c, inc, live)  # several nodes go at once: no single subtree
    if c.invalidates or tree.idom.get(c.subject) == c.via_in:
        return subw.get(c.subject, 0)  # every path to the subject is cut
    return subw.get(c.via_out, 0)  # the subject stays reached: only what depends on its cut arcs out goes


def _residual_without(c: Candidate, inc: Incident, live: _Live) -> int:
    """Residual weight if ``c`` (and the nodes it wipes) were applied now; ``live`` is left as it was."""
    dead, alive = live.dead, live.alive
    saved_nodes = [(i, dead[i]) for i in (c.subject, *c.wipes)]
    saved_arcs = [(a, alive[a]) for a in c.arcs]
    for i, _ in saved_nodes:
        dead[i] = 1
    for a, _ in saved_arcs:
        alive[a] = 0
    try:
        return _weight(inc, _reach(inc, live))
    finally:
        for i, was in saved_nodes:
            dead[i] = was
        for a, was in saved_arcs:
            alive[a] = was


# --------------------------------------------------------------------------- applying a step


def _reach(inc: Incident, live: _Live) -> bytearray:
    """Nodes reached from the live seeds over live arcs and valid nodes."""
    seed, dead = inc.seed, live.dead
    return reachable(inc.arcs, (i for i in range(inc.n) if seed[i] and not dead[i]), live.alive, dead)


def _weight(inc: Incident, reached: bytearray) -> int:
    weight = inc.weight
    return sum(weight[i] for i in range(inc.n) if reached[i])


def _cuts(inc: Incident, before: bytearray, after: bytearray) -> tuple[str, ...]:
    """Ids of the nodes reached ``before`` and not ``after``, in result order."""
    nodes, ids = inc.sub.nodes, inc.sub.ids
    gone = sorted((i for i in range(inc.sub.n_src, inc.n) if before[i] and not after[i]),
                  key=lambda i: node_order(nodes[i]))
    return tuple(ids[i] for i in gone)


def _apply(inc: Incident, live: _Live, choice: _Choice, *, rank: int) -> RevocationStep:
    """Apply the chosen candidate to ``live`` and describe the step."""
    c = choice.candidate
    c.applied = True
    for a in c.arcs:
        live.alive[a] = 0
    if c.invalidates:
        live.dead[c.subject] = 1
        for w in c.wipes:
            live.dead[w] = 1
    after = _reach(inc, live)
    cuts = _cuts(inc, live.reached, after)
    live.reached = after
    live.residual -= choice.reduction
    if live.residual != _weight(inc, after):  # pragma: no cover - internal invariant
        raise AssertionError("revocation plan: dominator reduction disagrees with reachability")
    return _step(inc, rank=rank, action=c.action, subject=c.subject, long_lived=c.long_lived, phase=c.phase,
                 reduction=choice.reduction, cuts=cuts, residual=live.residual)


def _minted(inc: Incident, live: _Live, subject: int) -> bool:
    """A live arc from a reached node still enters ``subject`` (e.g. a path that assumes the role)."""
    arcs, alive, reached = inc.arcs, live.alive, live.reached
    return any(alive[a] and reached[arcs.source[a]] and arcs.target[a] == subject and arcs.source[a] != subject
               for a in range(len(arcs)))


def _flush(inc: Incident, cands: Candidates, live: _Live, pending: dict[int, tuple[RevocationAction, Phase]],
           steps: list[RevocationStep], room, *, only_closed: bool) -> None:
    """Emit the pending companions whose subject nothing mints any more (every one when not ``only_closed``)."""
    for subject in sorted(pending, key=inc.sub.ids.__getitem__):  # by node id
        if not room():
            return
        if only_closed and _minted(inc, live, subject):
            continue
        action, phase = pending.pop(subject)
        steps.append(_follow_up(inc, cands, live, subject, phase, action, rank=len(steps) + 1))


def _follow_up(inc: Incident, cands: Candidates, live: _Live, subject: int, phase: Phase, action: RevocationAction,
               *, rank: int) -> RevocationStep:
    """Apply the companion ``action`` on ``subject`` (its arcs only) and describe the step."""
    companion = cands.at.get((action, subject))
    if companion is not None:
        companion.applied = True
        for a in companion.arcs:
            live.alive[a] = 0
    after = _reach(inc, live)
    cuts = _cuts(inc, live.reached, after)
    residual = _weight(inc, after)
    step = _step(inc, rank=rank, action=action, subject=subject, long_lived=False, phase=phase,
                 reduction=live.residual - residual, cuts=cuts, residual=residual)
    live.reached, live.residual = after, residual
    return step


def _step(inc: Incident, *, rank: int, action: RevocationAction, subject: int, long_lived: bool, phase: Phase,
          reduction: int, cuts: tuple[str, ...], residual: int) -> RevocationStep:
    node = inc.sub.nodes[subject]
    return RevocationStep(
        rank=rank, action=action, subject_id=node.id, subject_kind=node.spec.kind, subject_name=node.name,
        description=REVOCATION_SPECS[action].description, long_lived=long_lived, phase=phase,
        reduction=reduction, cuts=cuts, residual_weight=residual)
