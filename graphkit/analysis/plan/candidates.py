"""Candidate actions of a revocation plan: which exist for what is reached, what each cuts, what it invalidates.

Pure functions of the reached subgraph (:func:`incident`, :func:`candidates`);
the design (held nodes, phases, containment order) is in
``docs/revocation-plan.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import NamedTuple

from graphkit.analysis.reach import SECONDS, Arcs, Subgraph, collect, copies, lasting_seconds, reachable, unfold
from graphkit.analysis.results import Phase, node_order
from graphkit.graph import Graph
from graphkit.model import CRITICALITY_WEIGHT, EDGE_SPECS, EdgeKind, Lifetime, Node, NodeKind, RevocationAction

__all__ = [
    "FOLLOW_UP",
    "Candidate",
    "Candidates",
    "Containment",
    "Incident",
    "candidates",
    "containment",
    "incident",
]

_INF = float("inf")
_PHASE_RANK = {p: i for i, p in enumerate(Phase)}
_ACTION_RANK = {a: i for i, a in enumerate(RevocationAction)}


class Containment(IntEnum):
    """Order inside the ``contain`` phase (lower first; ``docs/revocation-plan.md``, "Containment order")."""

    #: a held credential that can register new runners (``can_register_runner``): removing registrations while
    #: it is live is undone in minutes (semantics §8)
    REGISTRAR = -3
    #: an untrusted entry point (``restrict_untrusted_trigger``): a door anyone reopens with the next pull
    #: request or comment, so closed before the footholds it would hand back
    ENTRY = -2
    #: narrowing an over-broad OIDC trust policy: a door any push to a matching repository reopens
    BROAD_TRUST = -1
    #: a compromised source's own runner registration, and unvetted (rogue) registrations: live channels
    LIVE_REGISTRATION = 0
    #: a held on-disk credential that lives until rotated: a copy survives a reimage
    ON_DISK_KEY = 1
    #: other runner registrations
    REGISTRATION = 2
    HOST = 3
    CACHE = 4


_FOOTHOLD_ORDER = {NodeKind.RUNNER: Containment.REGISTRATION, NodeKind.HOST: Containment.HOST,
                   NodeKind.CACHE: Containment.CACHE}

#: Actions that always come with a companion right after them: narrowing a trust policy stops new sessions,
#: the sessions already issued (up to 12 h) must be revoked next (AWS IAM User Guide, "Revoking IAM role
#: temporary security credentials",
#: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html: Deny on aws:TokenIssueTime).
FOLLOW_UP = {RevocationAction.NARROW_TRUST_POLICY: RevocationAction.REVOKE_ROLE_SESSIONS}


def containment(node: Node, is_source: bool) -> Containment | None:
    """Order inside the ``contain`` phase of invalidating a held/source ``node``; None: not containment.

    Parameters
    ----------
    node : Node
        The subject, a source or a held node.
    is_source : bool
        ``node`` is a source of the plan.

    Returns
    -------
    Containment or None
        None for a held credential that is rotated, not contained (a secret,
        a signing key, a credential that lives until its runner is removed).
    """
    kind = node.spec.kind
    if kind is NodeKind.RUNNER and (is_source or getattr(node, "unvetted", False)):
        return Containment.LIVE_REGISTRATION
    if kind is NodeKind.CREDENTIAL and getattr(node, "lifetime", None) is Lifetime.UNTIL_ROTATED:
        return Containment.ON_DISK_KEY
    return _FOOTHOLD_ORDER.get(kind)


@dataclass(slots=True)
class Incident:
    """The reached subgraph as the plan sees it (indexes as in :class:`~graphkit.analysis.reach.Subgraph`)."""

    sub: Subgraph
    #: every traversable edge, parallel edges apart
    arcs: Arcs
    #: criticality weight per node (0 for the sources)
    weight: list[int]
    #: held nodes (see the design page), in result order
    held: list[int]
    #: 1 for the nodes the attacker starts from: the sources and the held nodes
    seed: bytearray

    @property
    def n(self) -> int:
        """Number of nodes (sources included)."""
        return len(self.sub.ids)


def incident(graph: Graph, srcs: tuple[str, ...]) -> Incident:
    """Collect the reached subgraph, its weights and the held nodes (computed once, on the original graph).

    A held node is a reached node of a holdable kind reachable over edges of unbounded lifetime only
    (:func:`~graphkit.analysis.reach.lasting_seconds`: an edge that enters a run of a job does not bound what that
    run took) from the sources or from a reached copy that lasts unbounded (the copy principle,
    :func:`~graphkit.analysis.reach.copies`: a secret or on-disk credential read through any path, e.g. by an
    ephemeral runner's one job or through an STS session, is held, and so is what it unlocks over unbounded edges).
    """
    sub = collect(graph, srcs)
    arcs = unfold(sub)
    n, n_src, nodes = len(sub.ids), sub.n_src, sub.nodes
    weight = [0] * n_src + [CRITICALITY_WEIGHT[nd.criticality] for nd in nodes[n_src:]]  # type: ignore[index]
    unbounded = bytearray(lasting_seconds(e) == _INF for e in arcs.edge)  # type: ignore[arg-type]
    starts = [*range(n_src), *(v for v, life in copies(sub) if SECONDS[life] == _INF)]
    lasting = reachable(arcs, starts, unbounded, bytearray(n))
    held = sorted((i for i in range(n_src, n) if lasting[i] and nodes[i].spec.holdable),
                  key=lambda i: node_order(nodes[i]))
    seed = bytearray(n)
    for i in [*range(n_src), *held]:
        seed[i] = 1
    return Incident(sub, arcs, weight, held, seed)


class Placement(NamedTuple):
    """Where a candidate falls in the plan's order: its phase and its containment order (0 outside contain)."""

    phase: Phase
    order: int


@dataclass(slots=True)
class Candidate:
    """An action on a subject, with everything the greedy loop needs to evaluate and apply it.

    In the dominator graph of a step (see the design page) the candidate's
    arcs into the subject pass through the virtual node ``via_in``, its arcs
    out of the subject through ``via_out``.
    """

    action: RevocationAction
    subject: int
    via_in: int
    via_out: int
    #: the arcs this action removes
    arcs: list[int] = field(default_factory=list)
    #: the action is the subject kind's ``revoked_by``: the subject can no longer be reached nor held
    invalidates: bool = False
    #: the subject is a holdable source or held node
    long_lived: bool = False
    #: nodes invalidated together with the subject (EdgeSpec.wiped_with_source: a reimaged host's caches)
    wipes: list[int] = field(default_factory=list)
    phase: Phase = Phase.RESTRICT
    #: the first part of the greedy key: (phase rank, containment order)
    group: tuple[int, int] = (_PHASE_RANK[Phase.RESTRICT], 0)
    #: already applied (chosen, or listed as a companion): never chosen again
    applied: bool = False
    #: the subject is exposed (a run on a compromised runner received it: :mod:`graphkit.analysis.exposure`)
    exposed: bool = False

    def tie_break(self, subject_id: str) -> tuple[int, int, str]:
        """Order among equal greedy keys: long-lived subjects, then action order, then subject id."""
        return (0 if self.long_lived else 1, _ACTION_RANK[self.action], subject_id)


@dataclass(slots=True)
class Candidates:
    """Every candidate of a plan."""

    #: n: the number of real nodes (virtual nodes are numbered from it)
    n: int
    #: in creation order
    items: list[Candidate] = field(default_factory=list)
    at: dict[tuple[RevocationAction, int], Candidate] = field(default_factory=dict)
    #: per arc: the virtual node it passes through in the dominator graph, -1 for none
    via: list[int] = field(default_factory=list)
    #: ``items`` in tie-break order (the first of equal greedy keys wins)
    ranked: list[Candidate] = field(default_factory=list)

    def get(self, action: RevocationAction, subject: int) -> Candidate:
        """The candidate ``(action, subject)``, created on first use."""
        c = self.at.get((action, subject))
        if c is None:
            virtual = self.n + 2 * len(self.items)
            c = self.at[(action, subject)] = Candidate(action, subject, virtual, virtual + 1)
            self.items.append(c)
        return c


def candidates(inc: Incident, exposed: frozenset[int] = frozenset()) -> Candidates:
    """The candidates of ``inc``: ``(edge.revoked_by, revoke subject)`` of every arc, ``(kind's revoked_by, node)``.

    ``exposed``: indexes of the nodes observed runs handed over (their candidates get ``exposed``).

    Returns
    -------
    Candidates
        Each with the arcs it removes, whether it invalidates its subject and
        what that wipes, and its placement; ``ranked`` in tie-break order.
    """
    cs = Candidates(inc.n)
    arcs = inc.arcs
    via = cs.via = [-1] * len(arcs)
    source, target, at = arcs.source, arcs.target, cs.at
    into_of = {k: spec.revoke_subject == "target" for k, spec in EDGE_SPECS.items()}
    for a, e in enumerate(arcs.edge):  # one pass over the reached arcs: kept lean (10^5 arcs at 10^6 edges)
        action = e.revoked_by
        if action is None:
            continue
        into = into_of[e.kind]
        subject = target[a] if into else source[a]
        c = at.get((action, subject)) or cs.get(action, subject)
        c.arcs.append(a)
        via[a] = c.via_in if into else c.via_out
    for i, nd in enumerate(inc.sub.nodes):
        if nd.revoked_by is not None:
            cs.get(nd.revoked_by, i)
    for c in cs.items:
        _describe(c, inc)
        c.exposed = c.subject in exposed
    ids = inc.sub.ids
    cs.ranked = sorted(cs.items, key=lambda c: c.tie_break(ids[c.subject]))
    return cs


def _describe(c: Candidate, inc: Incident) -> None:
    """Fill what ``c`` invalidates and wipes, whether it is long-lived, and its placement."""
    node = inc.sub.nodes[c.subject]
    c.invalidates = node.revoked_by is c.action
    if c.invalidates:
        c.wipes = _wiped(c.subject, inc)
    c.long_lived = node.spec.holdable and bool(inc.seed[c.subject])
    c.phase, order = _placement(c, node, c.subject < inc.sub.n_src,
                                c.invalidates and _registers_runners(c.subject, inc))
    c.group = (_PHASE_RANK[c.phase], order)


def _wiped(subject: int, inc: Incident) -> list[int]:
    """Targets of the subject's arcs whose edge kind declares ``wiped_with_source`` for the subject's kind."""
    kind = inc.sub.nodes[subject].spec.kind
    arcs = inc.arcs
    return sorted({arcs.target[a] for a in arcs.leaving(subject)
                   if kind in EDGE_SPECS[arcs.edge[a].kind].wiped_with_source} - {subject})


def _registers_runners(subject: int, inc: Incident) -> bool:
    """The subject has a ``can_register_runner`` arc: it can mint registration tokens."""
    arcs = inc.arcs
    return any(arcs.edge[a].kind is EdgeKind.CAN_REGISTER_RUNNER for a in arcs.leaving(subject))


def _placement(c: Candidate, node: Node, is_source: bool, registrar: bool = False) -> Placement:
    """Phase and containment order of ``c`` (its ``invalidates`` and ``long_lived`` already set)."""
    if c.invalidates and c.long_lived and registrar:
        return Placement(Phase.CONTAIN, Containment.REGISTRAR)  # it would re-register what is removed
    if c.action is RevocationAction.RESTRICT_UNTRUSTED_TRIGGER:
        return Placement(Phase.CONTAIN, Containment.ENTRY)  # anyone reopens it: closed before the footholds
    if c.action is RevocationAction.NARROW_TRUST_POLICY and getattr(node, "broad_trust", False):
        return Placement(Phase.CONTAIN, Containment.BROAD_TRUST)  # a door any push reopens, closed first
    if c.invalidates and c.long_lived:
        order = containment(node, is_source)
        if order is not None:
            return Placement(Phase.CONTAIN, order)
        return Placement(Phase.ROTATE, 0)
    return Placement(Phase.RESTRICT, 0)
