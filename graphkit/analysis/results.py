"""Result types of the analyses: immutable data with a ``to_dict()`` giving JSON-ready values.

Node order in every result: criticality (critical first), then node kind in
declaration order (:class:`~graphkit.model.NodeKind`), then id
(:func:`node_order`).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from graphkit.errors import UnknownNodeError
from graphkit.model import (
    CRITICALITY_WEIGHT, EDGE_SPECS, Confidence, Criticality, EdgeKind, Evidence, Lifetime, Node, NodeKind,
    RevocationAction, lifetime_seconds,
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
    "node_order",
    "path_lifetime",
]

_CRIT_RANK = {c: i for i, c in enumerate(Criticality)}
_KIND_RANK = {k: i for i, k in enumerate(NodeKind)}


def node_order(node: Node) -> tuple[int, int, str]:
    """Sort key of a node in results: criticality (critical first), kind (declaration order), id."""
    return (_CRIT_RANK[node.criticality], _KIND_RANK[node.spec.kind], node.id)  # type: ignore[index]


class Phase(StrEnum):
    """Phase of a revocation step, in responder order (``docs/revocation-plan.md``).

    A str-valued enum: ``Phase.CONTAIN == "contain"``, and its JSON value is
    the plain string.
    """

    #: invalidate a source or held foothold (registration, host, cache, on-disk key) or close an over-broad trust
    CONTAIN = "contain"
    #: invalidate another held credential (secret, signing key...)
    ROTATE = "rotate"
    #: every other action: access that expires on its own
    RESTRICT = "restrict"


#: The phases in plan order (kept for callers of the former string tuple).
PLAN_PHASES: tuple[Phase, ...] = tuple(Phase)


def _evidence_dicts(evidence: tuple[Evidence, ...]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json") for e in evidence]


class Hop(NamedTuple):
    """One edge of an explanation path (an immutable named tuple).

    ``source`` -> ``target`` over an edge of ``kind``; ``confidence``,
    ``lifetime`` and ``evidence`` are the edge's.  ``copy``: how long a copy of
    the target's value lasts (:attr:`graphkit.model.Node.copy_lifetime`, the copy
    principle), None when the target's value is not copied (not in ``to_dict``).
    """

    source: str
    target: str
    kind: EdgeKind
    confidence: Confidence
    lifetime: Lifetime
    evidence: tuple[Evidence, ...]
    copy: Lifetime | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{source, target, kind, confidence, lifetime, evidence}``."""
        return {"source": self.source, "target": self.target, "kind": self.kind.value,
                "confidence": self.confidence.value, "lifetime": self.lifetime.value,
                "evidence": _evidence_dicts(self.evidence)}


def path_lifetime(path: tuple[Hop, ...] | list[Hop]) -> Lifetime | None:
    """How long the access over this one path lasts (None for an empty path).

    The bottleneck of the path (the least lasting hop; a hop that enters a run of a job, ``can_trigger`` or
    ``receives_job``, does not bound what lies behind it, :func:`graphkit.analysis.reach.lasting_seconds`),
    reported as the lifetime of the last hop
    attaining it: the rule :func:`~graphkit.analysis.blast_radius` applies to its widest path, here applied to the
    explanation path shown.  A hop into a node whose value is copied (``Hop.copy``: a secret, an on-disk
    credential) lasts at least that copy's lifetime from there on (the copy principle), labelled with it when it
    lasts as long as the path so far or longer.  It differs from :attr:`Reached.lifetime` when another,
    longer-lasting path exists.

    >>> from graphkit.model import EdgeKind
    >>> hop = lambda kind, life: Hop("a", "b", EdgeKind(kind), Confidence.CERTAIN, Lifetime(life), ())
    >>> path_lifetime([hop("receives_job", "until_runner_removed"), hop("signs_with", "per_job")]).value
    'per_job'
    >>> path_lifetime([hop("can_trigger", "per_job"), hop("reads_secret", "until_rotated")]).value
    'until_rotated'
    >>> path_lifetime([hop("receives_job", "per_job"), hop("has_token", "per_job")]).value  # an ephemeral runner
    'per_job'
    >>> read = Hop("a", "b", EdgeKind.READS_SECRET, Confidence.CERTAIN, Lifetime.UNTIL_ROTATED, (), Lifetime.UNTIL_ROTATED)
    >>> path_lifetime([hop("assumes_role", "cloud_session"), read]).value  # a secret read through a session
    'until_rotated'
    """
    width, label = math.inf, None
    for h in path:
        secs = math.inf if EDGE_SPECS[h.kind].enters_run else lifetime_seconds(h.lifetime)
        if secs <= width:
            width, label = secs, h.lifetime
        if h.copy is not None and lifetime_seconds(h.copy) >= width:
            width, label = lifetime_seconds(h.copy), h.copy
    return label


@dataclass(frozen=True, slots=True)
class Reached:
    """A node in the blast radius.

    ``confidence``: ``certain`` when some path of certain edges only reaches
    it.  ``lifetime``: how long the best access lasts (see
    :func:`~graphkit.analysis.blast_radius`).  ``path``: one shortest
    explanation path from a source (certain edges only when ``confidence`` is
    certain).
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

    @property
    def path_lifetime(self) -> Lifetime:
        """How long the access over :attr:`path` lasts (:func:`path_lifetime`): ``lifetime`` is the best over
        every path, and the shown path may be shorter-lived (e.g. a job's ``signs_with`` while a longer path
        reads the signing secret itself)."""
        return path_lifetime(self.path) or self.lifetime

    def to_dict(self, *, hops: dict[int, dict[str, Any]] | None = None) -> dict[str, Any]:
        """JSON-ready ``{id, kind, name, criticality, confidence, lifetime, path}``, plus ``path_lifetime`` when the
        shown path lasts another time than ``lifetime`` (the best over every path).

        ``hops``: a memo of hop dicts by ``id(hop)``, shared by the ``Reached`` of one result (their paths share
        hop objects): each hop is converted once, and the dicts are shared (treat them as read-only)."""
        if hops is None:
            path = [h.to_dict() for h in self.path]
        else:
            path = []
            for h in self.path:
                d = hops.get(id(h))
                if d is None:
                    d = hops[id(h)] = h.to_dict()
                path.append(d)
        d = {"id": self.id, "kind": self.kind.value, "name": self.name,
             "criticality": self.criticality.value, "confidence": self.confidence.value,
             "lifetime": self.lifetime.value, "path": path}
        if self.path_lifetime is not self.lifetime:
            d["path_lifetime"] = self.path_lifetime.value
        return d


class BlastRadius:
    """Everything reachable from ``sources`` (immutable).

    ``reached`` excludes the sources and is ordered by criticality (critical
    first), kind, id.  ``weight`` is the weighted blast radius: the sum of
    :data:`~graphkit.model.CRITICALITY_WEIGHT` over ``reached``.  Supports
    ``len()``, iteration, ``node_id in result`` and ``result[node_id]``
    (:class:`~graphkit.errors.UnknownNodeError` for an id not reached).

    Made either from a tuple of :class:`Reached` (``BlastRadius(sources, reached, weight)``, the reference), or by
    :func:`~graphkit.analysis.blast_radius` from arrays
    (:class:`~graphkit.analysis.radius_arrays.RadiusArrays`): then ``len``, ``in``, :attr:`ids`, :meth:`node_ids`
    and ``weight`` are answered from the arrays, ``result[node_id]`` builds one :class:`Reached`, and
    :attr:`reached` (iteration, ``to_dict()``) builds them all on first access, once.  Two results are equal when
    their sources, reached nodes (with paths) and weights are.
    """

    __slots__ = ("sources", "weight", "_arrays", "_reached", "_by_id", "_ids")

    sources: tuple[str, ...]
    weight: int

    def __init__(self, sources: tuple[str, ...], reached: tuple[Reached, ...] | None = None,
                 weight: int | None = None, *, arrays: Any = None) -> None:
        if (reached is None) == (arrays is None):
            raise TypeError("BlastRadius needs reached or arrays (one of them)")
        put = object.__setattr__
        put(self, "sources", tuple(sources))
        put(self, "_arrays", arrays)
        put(self, "_reached", None if reached is None else tuple(reached))
        put(self, "weight", arrays.weight if weight is None and arrays is not None else
            (weight if weight is not None else sum(r.weight for r in reached or ())))
        put(self, "_by_id", None)
        put(self, "_ids", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"BlastRadius is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"BlastRadius is immutable (cannot delete {name!r})")

    @property
    def reached(self) -> tuple[Reached, ...]:
        """One :class:`Reached` per reached node, in result order (built on first access from arrays)."""
        if self._reached is None:
            object.__setattr__(self, "_reached", self._arrays.every_reached())
        return self._reached  # type: ignore[return-value]

    def _index(self) -> dict[str, Reached]:
        if self._by_id is None:
            object.__setattr__(self, "_by_id", {r.id: r for r in self.reached})
        return self._by_id  # type: ignore[return-value]

    def __len__(self) -> int:
        return len(self._arrays) if self._arrays is not None else len(self._reached)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Reached]:
        return iter(self.reached)

    def __contains__(self, node_id: object) -> bool:
        if self._arrays is not None and self._by_id is None:
            return self._arrays.local_of(node_id) >= 0
        return node_id in self._index()

    def __getitem__(self, node_id: str) -> Reached:
        if self._arrays is not None and self._by_id is None:
            v = self._arrays.local_of(node_id)
            if v >= 0:
                return self._arrays.reached(v)
            raise UnknownNodeError(node_id, self.node_ids())
        try:
            return self._index()[node_id]
        except KeyError:
            raise UnknownNodeError(node_id, self._index()) from None

    def node_ids(self) -> list[str]:
        """Ids of the reached nodes in result order, without building :class:`Reached` objects."""
        if self._arrays is not None and self._reached is None:
            return self._arrays.ids_in_order()
        return [r.id for r in self.reached]

    def head(self, k: int | None) -> tuple[Reached, ...]:
        """The first ``k`` reached nodes in result order (all when ``k`` is None), building only those."""
        if k is None or self._arrays is None or self._reached is not None:
            return self.reached if k is None else self.reached[:k]
        arrays = self._arrays
        return tuple(arrays.reached(v) for v in arrays.result_order()[:max(k, 0)])

    def tally(self) -> tuple[dict[str, int], dict[str, int], int]:
        """``(by_kind, by_criticality, possible)``: how many reached nodes of each kind and criticality (values as
        keys, only those present) and how many are possible, without building :class:`Reached` objects."""
        if self._arrays is not None and self._reached is None:
            return self._arrays.tally()
        by_kind: dict[str, int] = {}
        by_crit: dict[str, int] = {}
        for r in self.reached:
            by_kind[r.kind.value] = by_kind.get(r.kind.value, 0) + 1
            by_crit[r.criticality.value] = by_crit.get(r.criticality.value, 0) + 1
        return by_kind, by_crit, sum(1 for r in self.reached if r.confidence is not Confidence.CERTAIN)

    @property
    def ids(self) -> frozenset[str]:
        """Ids of the reached nodes."""
        if self._ids is None:
            object.__setattr__(self, "_ids", frozenset(self.node_ids()))
        return self._ids  # type: ignore[return-value]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BlastRadius):
            return NotImplemented
        return (self.sources, self.weight, len(self)) == (other.sources, other.weight, len(other)) and \
            self.reached == other.reached

    def __hash__(self) -> int:
        return hash((self.sources, self.weight, len(self)))

    def __repr__(self) -> str:
        return f"BlastRadius(sources={self.sources!r}, reached={self.reached!r}, weight={self.weight!r})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{sources, weight, reached: [...]}``."""
        hops: dict[int, dict[str, Any]] = {}  # the hops of one result are shared objects: converted once
        return {"sources": list(self.sources), "weight": self.weight,
                "reached": [r.to_dict(hops=hops) for r in self.reached]}


@dataclass(frozen=True, slots=True)
class RevocationStep:
    """One action of a revocation plan.

    ``rank`` starts at 1.  ``subject_id`` is the node the action applies to.
    ``phase``: the :class:`Phase` the step belongs to.  ``cuts``: nodes
    reached before this step and no longer after it (ordered like
    :attr:`BlastRadius.reached`).  ``reduction``: weight removed by this step;
    ``residual_weight``: weighted blast radius left after it.  ``long_lived``:
    the subject is a credential-like node the attacker keeps (a source or a
    held node, see :func:`~graphkit.analysis.revocation_plan`).
    """

    rank: int
    action: RevocationAction
    subject_id: str
    subject_kind: NodeKind
    subject_name: str
    description: str
    long_lived: bool
    phase: Phase
    reduction: int
    cuts: tuple[str, ...]
    residual_weight: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, field names as attributes (enums as their values)."""
        return {"rank": self.rank, "action": self.action.value, "subject_id": self.subject_id,
                "subject_kind": self.subject_kind.value, "subject_name": self.subject_name,
                "description": self.description, "long_lived": self.long_lived, "phase": self.phase.value,
                "reduction": self.reduction,
                "cuts": list(self.cuts), "residual_weight": self.residual_weight}


class RevocationSteps(Sequence):
    """The steps of a revocation plan, made on demand: an immutable sequence of :class:`RevocationStep`.

    :func:`~graphkit.analysis.revocation_plan` keeps its steps as arrays (issue 19: at 10^6 edges a plan has
    thousands of steps, most never shown); a step object is made the first time it is read (indexing, iteration,
    ``to_dict()``) and kept, so ``steps[i] is steps[i]``.  It behaves as the tuple it replaces: ``len()``,
    indexes (negative ones too; :class:`IndexError` past the end), slices (a tuple of steps), iteration,
    ``in``, ``index``/``count``; equal to a tuple or another ``RevocationSteps`` of equal steps, with a tuple's
    hash; pickled as its steps (every one made).

    Parameters
    ----------
    n : int
        Number of steps (>= 0).
    make : callable
        ``make(i)`` -> the step of index ``i`` (0 <= i < n), called at most once per index.
    """

    __slots__ = ("_n", "_make", "_made")

    def __init__(self, n: int, make: Callable[[int], RevocationStep]) -> None:
        put = object.__setattr__
        put(self, "_n", int(n))
        put(self, "_make", make)
        put(self, "_made", [None] * int(n))

    @classmethod
    def of(cls, steps: Iterable[RevocationStep]) -> RevocationSteps:
        """The sequence of ``steps`` already made."""
        made = tuple(steps)
        return cls(len(made), made.__getitem__)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"RevocationSteps is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"RevocationSteps is immutable (cannot delete {name!r})")

    def __len__(self) -> int:
        return self._n

    def _at(self, i: int) -> RevocationStep:
        step = self._made[i]
        if step is None:
            step = self._made[i] = self._make(i)
        return step

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return tuple(self._at(j) for j in range(*i.indices(self._n)))
        i = operator.index(i)  # TypeError for a non-integer, as a tuple's
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("revocation step index out of range")
        return self._at(i)

    def __iter__(self) -> Iterator[RevocationStep]:
        return map(self._at, range(self._n))

    def __reversed__(self) -> Iterator[RevocationStep]:
        return map(self._at, range(self._n - 1, -1, -1))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RevocationSteps | tuple):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"RevocationSteps({tuple(self)!r})"

    def __reduce__(self):
        return (RevocationSteps.of, (tuple(self),))


@dataclass(frozen=True, slots=True)
class RevocationPlan:
    """An ordered revocation plan (see :func:`~graphkit.analysis.revocation_plan`).

    ``initial_weight``: weighted blast radius before any action.  ``held``:
    nodes the attacker keeps after losing the path to them (ordered like
    :attr:`BlastRadius.reached`).  ``steps``: in order (a tuple, or a :class:`RevocationSteps` whose steps are
    made on demand; either compares equal to the other); their ``residual_weight`` values are the revocation
    curve.
    """

    sources: tuple[str, ...]
    initial_weight: int
    held: tuple[str, ...]
    steps: Sequence[RevocationStep]

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
