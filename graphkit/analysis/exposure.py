"""Exposed versus reachable: what jobs actually received on the compromised runners, from the job history.

A blast radius says what an attacker holding a runner *can* reach: the jobs routed to it in the future and
what they would hand over (**reachable**).  The platform's job history (``ran_job`` edges,
:mod:`graphkit.resolve.observed`) says which jobs *did* run on it: what those runs received since the
compromise, the attacker may already hold (**exposed**): the secrets they read, their ``GITHUB_TOKEN``, the
OIDC tokens they could mint and the cloud roles those tokens (or the job's own credentials) assume.

The runners counted are the sources and every runner the blast radius reaches (another registration on a
compromised host: runner on runner).  A run counts when it had not ended before the compromise started
(``completed_at`` at or after ``since``, or still running); for a persistent runner that is every job it ran
since, for an ephemeral one its one job.  :func:`observed_since` drops the other runs from a graph, so that the
blast radius and the plan follow only the runs in the window.

Without a job history (``graph.meta.history`` None), exposure is **unknown**, never "nothing exposed".
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphkit.analysis.results import BlastRadius
from graphkit.analysis.timeline import parse_time
from graphkit.graph import Graph
from graphkit.model import EDGE_SPECS, Confidence, EdgeKind, NodeKind

__all__ = ["HANDED_OVER", "Exposure", "ExposedRun", "exposure", "observed_since"]

#: What a run of a job receives (semantics §2): the secrets it reads, its GITHUB_TOKEN, its OIDC token, the
#: cloud roles the job (or its OIDC token) assumes, and the Kubernetes service account token its pod mounts.
HANDED_OVER = frozenset({EdgeKind.READS_SECRET, EdgeKind.HAS_TOKEN, EdgeKind.MINTS_OIDC, EdgeKind.ASSUMES_ROLE,
                         EdgeKind.USES_SERVICE_ACCOUNT})
#: The observed kinds (``EdgeSpec.observed``): ``ran_job``.
_OBSERVED = frozenset(k for k, s in EDGE_SPECS.items() if s.observed)


def _in_window(props: dict[str, Any], since: datetime | None) -> bool:
    """A run that had not ended before ``since`` (still running, or end unknown, counts)."""
    if since is None:
        return True
    try:
        text = props.get("completed_at")
        end = parse_time(text) if text else None
    except ValueError:
        return True  # an unreadable end: counted (the worst case)
    return end is None or end >= since


def observed_since(graph: Graph, since: datetime | None) -> Graph:
    """``graph`` without the observed runs that ended before ``since`` (``graph`` itself when none is dropped).

    Parameters
    ----------
    graph : Graph
        A built graph.
    since : datetime or None
        The start of the compromise (timezone-aware); None keeps every run.

    Returns
    -------
    Graph
        A copy (nodes and meta shared) when some ``ran_job`` edge is dropped.
    """
    if since is None:
        return graph
    drop = [e for e in graph.edges() if e.kind in _OBSERVED and not _in_window(e.props, since)]
    if not drop:
        return graph
    gone = {e.identity for e in drop}
    out = Graph()
    out.update(nodes=graph.nodes(), edges=(e for e in graph.edges() if e.identity not in gone))
    out.meta = graph.meta
    return out


@dataclass(frozen=True, slots=True)
class ExposedRun:
    """One observed run on a compromised runner: ``job`` and ``runner`` ids and the run facts (``props`` of the
    ``ran_job`` edge: run and job ids, event, actor, head ref, time window) with the API evidence."""

    job: str
    runner: str
    props: dict[str, Any]
    evidence: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{job, runner, <props>, evidence}``."""
        return {"job": self.job, "runner": self.runner, **self.props, "evidence": list(self.evidence)}


@dataclass(frozen=True, slots=True)
class Exposure:
    """The exposed part of a blast radius.

    ``known``: a job history was read (else every asset's exposure is unknown).  ``since``: the start of the
    window counted (the compromise start, else the start of the history).  ``runs``: the observed runs on the
    compromised runners in the window.  ``assets``: exposed node id -> the ids of the jobs whose runs handed it
    over (the jobs themselves included).  ``possible``: the exposed ids handed over only through ``possible``
    edges (a secret an observed job may have read: one that matches no workflow job reads, for all we know,
    every secret its repository sees).
    """

    known: bool
    since: str | None = None
    runs: tuple[ExposedRun, ...] = ()
    assets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    possible: frozenset[str] = frozenset()

    def status(self, node_id: str) -> str:
        """``exposed``, ``reachable`` or ``unknown`` (no job history)."""
        if not self.known:
            return "unknown"
        return "exposed" if node_id in self.assets else "reachable"


def _handed_over(graph: Graph, job: str) -> dict[str, bool]:
    """What a run of ``job`` receives: targets of its HANDED_OVER edges and the roles its OIDC token assumes,
    each with True when some chain of certain edges hands it over."""
    out: dict[str, bool] = {}
    todo = [(job, True)]
    while todo:
        node, sure = todo.pop()
        for e in graph.out_edges(node):
            if e.kind not in HANDED_OVER:
                continue
            certain = sure and e.confidence is Confidence.CERTAIN
            if e.target in out and (out[e.target] or not certain):
                continue
            out[e.target] = certain
            if graph.node(e.target).spec.kind is NodeKind.OIDC_IDENTITY:
                todo.append((e.target, certain))
    return out


def exposure(graph: Graph, radius: BlastRadius, since: datetime | None = None) -> Exposure:
    """What the observed runs on the compromised runners handed over (module docstring).

    Parameters
    ----------
    graph : Graph
        The graph the radius was computed on (:func:`observed_since` already applied for ``since``).
    radius : BlastRadius
        The blast radius of the sources.
    since : datetime, optional
        The compromise start, reported in ``since`` (default: the start of the history).

    Returns
    -------
    Exposure
        ``known`` False without a job history.
    """
    history = graph.meta.history
    if history is None:
        return Exposure(known=False)
    runners = [i for i in (*radius.sources, *radius.node_ids())
               if graph.node(i).spec.kind is NodeKind.RUNNER]
    runs: list[ExposedRun] = []
    by_job: dict[str, list[ExposedRun]] = defaultdict(list)
    for rid in runners:
        for e in graph.out_edges(rid):
            if e.kind in _OBSERVED and _in_window(e.props, since):
                run = ExposedRun(e.target, rid, dict(e.props), tuple(v.model_dump(mode="json") for v in e.evidence))
                runs.append(run)
                by_job[e.target].append(run)
    assets: dict[str, set[str]] = defaultdict(set)
    certain: set[str] = set(by_job)
    for job in by_job:
        for node, sure in _handed_over(graph, job).items():
            assets[node].add(job)
            if sure:
                certain.add(node)
        assets[job].add(job)
    runs.sort(key=lambda r: (str(r.props.get("started_at", "")), r.runner, r.job, str(r.props.get("job_id"))))
    start = since.isoformat().replace("+00:00", "Z") if since is not None else history.since
    return Exposure(known=True, since=start, runs=tuple(runs),
                    assets={k: tuple(sorted(v)) for k, v in sorted(assets.items())},
                    possible=frozenset(assets) - certain)
