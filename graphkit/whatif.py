"""What if: change the graph the way a fix would, then compare blast radius and revocation curve.

Each change returns a **modified copy** of the graph (the input is never
touched; unchanged node and edge objects are shared, changed ones replaced),
and records itself in ``copy.meta.what_if``.  Changes compose by chaining::

    after = narrow_trust_policy(make_ephemeral(g, "runner:acme/build-01-a", host=True),
                                "cloud_role:aws:arn:aws:iam::111122223333:role/acme-release",
                                subjects=["repo:acme/app:environment:production"])
    compare(g, after, "runner:acme/build-01-a")

Changes only ever *narrow* access (they remove edges, shorten lifetimes or
lower confidence, and may turn an unknown trust policy into a known one); none
adds an edge.  Where a change decides which edges survive it applies the same
rules as :mod:`graphkit.resolve` (runner group access is decided by the
resolver's own group-access function), so a what-if agrees with re-ingesting
the changed settings.

- :func:`make_ephemeral`: a runner registered ``--ephemeral`` (one job, then
  gone); optionally on a throw-away VM (``host=True``: the host outlives no
  job, so its local caches are not shared between jobs).
- :func:`restrict_runner_group`: a runner group limited to selected
  repositories (and optionally workflows, and no public repositories).
- :func:`narrow_trust_policy`: a cloud role whose trust policy accepts only
  OIDC subjects matching given ``StringLike`` patterns.
- :func:`remove_edges`: any edge set (by edge, ``(source, target, kind)``, or
  predicate).
- :func:`compare`: blast radius and revocation plan before and after.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from graphkit.analysis import BlastRadius, RevocationPlan, blast_radius, revocation_plan
from graphkit.analysis.reach import known_id
from graphkit.errors import GraphkitError, UnknownEdgeError, UnknownNodeError
from graphkit.graph import Graph
from graphkit.iam.trust import _sub_breadth
from graphkit.model import (
    Confidence, Criticality, Edge, EdgeKind, Host, Job, Lifetime, Node, NodeKind,
    OIDCIdentity, Runner, RunnerGroup, lifetime_seconds, repo_key,
)
from graphkit.resolve.context import Context, context_repo
from graphkit.resolve.routing import group_access

__all__ = [
    "make_ephemeral",
    "restrict_runner_group",
    "known_repository",
    "narrow_trust_policy",
    "remove_edges",
    "Snapshot",
    "Comparison",
    "compare",
]


EdgeRef = Edge | tuple[str, str, EdgeKind | str]


# --------------------------------------------------------------------------- helpers


def _copy(graph: Graph) -> Graph:
    """A copy sharing node and edge objects (never mutated here: changed ones are replaced)."""
    out = Graph()
    out.nx = graph.nx.copy()
    out.meta = copy.deepcopy(graph.meta)
    return out


def _record(graph: Graph, change: str, **details: Any) -> None:
    graph.meta.what_if = [*graph.meta.what_if, {"change": change, **details}]


def _typed(graph: Graph, node_id: str, kind: NodeKind) -> Node:
    """The node ``node_id`` names (written as graphkit writes it or not: :func:`graphkit.analysis.reach.known_id`),
    of ``kind``; callers go on with its ``id``."""
    node = graph.node(known_id(graph, node_id))  # raises UnknownNodeError with suggestions
    if node.spec.kind is not kind:
        raise GraphkitError(f"{node_id!r} is a {node.spec.kind.value}, not a {kind.value}")
    return node


def known_repository(graph: Graph, full_name: str) -> str:
    """``full_name`` (``owner/name``, any case) as ids write it, when a repository of ``graph`` has that name.

    Raises
    ------
    UnknownNodeError
        If no repository node has that name (``suggestions`` holds close names).
    """
    key = repo_key(full_name)
    names = {repo_key(n.full_name) for n in graph.nodes(NodeKind.REPOSITORY)}  # type: ignore[attr-defined]
    if key not in names:
        raise UnknownNodeError(full_name, sorted(names), what="repository")
    return key


def _replace_edge(graph: Graph, edge: Edge) -> None:
    graph.nx.edges[edge.source, edge.target, edge.nx_key]["edge"] = edge
    graph.changed()  # an attribute changed in place: the traversal snapshot is stale


def _drop(graph: Graph, edges: Iterable[Edge]) -> list[Edge]:
    """Remove ``edges``; a ``persists_on`` edge takes with it the ``runs_code_in`` edges that mirror it (a writer's
    code persisting where that job lands: key the job, :mod:`graphkit.resolve.writers`)."""
    gone = []
    for e in edges:
        if graph.nx.has_edge(e.source, e.target, e.nx_key):
            graph.nx.remove_edge(e.source, e.target, e.nx_key)
            gone.append(e)
            if e.kind is EdgeKind.PERSISTS_ON and not any(x.kind is EdgeKind.PERSISTS_ON and x.source == e.source
                                                          for x in graph.in_edges(e.target)):
                gone += _drop(graph, [x for x in graph.in_edges(e.target)
                                      if x.kind is EdgeKind.RUNS_CODE_IN and x.key == e.source])
    return gone


def _prune_host_caches(graph: Graph, jobs: Iterable[str]) -> list[Edge]:
    """Drop resolver-made host-cache edges of ``jobs`` no runner on that host still receives.

    :mod:`graphkit.resolve` links a host's caches to a job (``props["host"]``)
    for every runner on a non-ephemeral host that receives the job.
    """
    runner_host = {e.source: e.target for e in graph.edges(EdgeKind.RUNS_ON_HOST)}
    removed: list[Edge] = []
    for job in set(jobs):
        if job not in graph:
            continue
        runners = {e.source for e in graph.in_edges(job) if e.kind is EdgeKind.RECEIVES_JOB}
        hosts = {runner_host.get(r) for r in runners}
        stale = [e for e in [*graph.in_edges(job), *graph.out_edges(job)]
                 if e.kind in (EdgeKind.RESTORES_INTO, EdgeKind.WRITES_CACHE)
                 and e.props.get("host") and e.props["host"] not in hosts]
        # persistence through a route that no longer exists (graphkit.resolve.persistence)
        stale += [e for e in graph.out_edges(job) if e.kind is EdgeKind.PERSISTS_ON
                  and e.props.get("via_runner") and e.props["via_runner"] not in runners]
        removed += _drop(graph, stale)
    return removed


def _recheck_group_routes(g: Graph, ctx: Context, group: RunnerGroup) -> list[Edge]:
    """Drop ``group_receives_job`` edges (a runner a registrar could attach, :mod:`graphkit.resolve.registration`)
    the group's new settings deny."""
    stale = []
    for e in g.out_edges(group.id):
        job = g.node(e.target)
        if (e.kind is EdgeKind.GROUP_RECEIVES_JOB and isinstance(job, Job)
                and group_access(ctx, group, job, context_repo(job)) is None):
            stale.append(e)
    return _drop(g, stale)


# --------------------------------------------------------------------------- changes


def make_ephemeral(graph: Graph, runner_id: str, *, host: bool = False) -> Graph:
    """A copy where ``runner_id`` is registered ephemeral (it takes one job, then is removed).

    Parameters
    ----------
    graph : Graph
        The graph (unchanged).
    runner_id : str
        Id of a ``runner`` node.
    host : bool, default False
        Also make the runner's host(s) ephemeral (a VM thrown away after its
        job): its local caches no longer carry anything between jobs, and the
        runner reaches its host for one job only.

    Returns
    -------
    Graph
        The copy.  As :mod:`graphkit.resolve` does for ephemeral runners,
        every ``receives_job`` edge of the runner becomes ``possible`` (only
        one future job lands on it) with lifetime ``per_job``, and no job
        persists on the registration any more (``persists_on`` to it removed;
        :mod:`graphkit.resolve.persistence`; with ``host=True`` to the host too).  With
        ``host=True`` the host's ``ephemeral`` is set, its resolver-made cache
        edges (``restores_into`` / ``writes_cache`` through that host) are
        removed, and the ``runs_on_host`` edge lasts ``per_job``.

    Raises
    ------
    UnknownNodeError
        If ``runner_id`` is not in the graph.
    GraphkitError
        If it is not a runner.

    Examples
    --------
    >>> from graphkit.model import Edge, EdgeKind, Evidence, Job, Runner
    >>> ev = [Evidence(file="ci.yml")]
    >>> g = Graph()
    >>> g.update(nodes=[Runner(id="runner:acme/r1", name="r1", scope="acme"),
    ...                 Job(id="job:acme/app/ci.yml#b", name="b", repository="acme/app", workflow_path="ci.yml",
    ...                     job_key="b", secrets_repository="acme/app")],
    ...          edges=[Edge(kind=EdgeKind.RECEIVES_JOB, source="runner:acme/r1", target="job:acme/app/ci.yml#b",
    ...                      evidence=ev)])
    >>> after = make_ephemeral(g, "runner:acme/r1")
    >>> e = next(after.edges(EdgeKind.RECEIVES_JOB))
    >>> e.confidence.value, e.lifetime.value, after.node("runner:acme/r1").ephemeral
    ('possible', 'per_job', True)
    >>> next(g.edges(EdgeKind.RECEIVES_JOB)).lifetime.value  # the input is unchanged
    'until_runner_removed'
    """
    runner = _typed(graph, runner_id, NodeKind.RUNNER)
    runner_id = runner.id
    assert isinstance(runner, Runner)
    g = _copy(graph)
    g.replace_node(runner.model_copy(update={"ephemeral": True}))
    changed = 0
    for e in list(g.out_edges(runner_id)):
        if e.kind is EdgeKind.RECEIVES_JOB:
            _replace_edge(g, e.model_copy(update={"confidence": Confidence.POSSIBLE, "lifetime": Lifetime.PER_JOB,
                                                  "props": {**e.props, "ephemeral": True}}))
            changed += 1
        elif e.kind is EdgeKind.REGISTRATION_CREDENTIAL:  # a single-use registration's credential: one job
            _replace_edge(g, e.model_copy(update={"lifetime": Lifetime.PER_JOB}))
    hosts: list[str] = []
    # an ephemeral registration is single-use: a job no longer persists on it (graphkit.resolve.persistence)
    removed: list[Edge] = _drop(g, [e for e in g.in_edges(runner_id) if e.kind is EdgeKind.PERSISTS_ON])
    if host:
        for e in list(g.out_edges(runner_id)):
            if e.kind is not EdgeKind.RUNS_ON_HOST:
                continue
            hosts.append(e.target)
            _replace_edge(g, e.model_copy(update={"lifetime": Lifetime.PER_JOB}))
            h = g.node(e.target)
            if isinstance(h, Host):
                g.replace_node(h.model_copy(update={"ephemeral": True}))
            removed += _drop(g, [x for x in g.edges() if x.kind in (EdgeKind.RESTORES_INTO, EdgeKind.WRITES_CACHE)
                                 and x.props.get("host") == e.target])
            removed += _drop(g, [x for x in g.in_edges(e.target) if x.kind is EdgeKind.PERSISTS_ON])
    _record(g, "make_ephemeral", subject=runner_id, host=sorted(hosts), receives_job_changed=changed,
            edges_removed=len(removed))
    return g


def _group_update(allowed: list[str] | None, workflows: Iterable[str] | None,
                  public: bool | None) -> dict[str, Any]:
    """The runner group fields :func:`restrict_runner_group` sets."""
    update: dict[str, Any] = {} if allowed is None else {"visibility": "selected", "selected_repositories": allowed}
    if workflows is not None:
        update |= {"restricted_to_workflows": True, "selected_workflows": list(workflows)}
    if public is not None:
        update["allows_public_repositories"] = public
    return update


def restrict_runner_group(graph: Graph, group_id: str, *, repositories: Iterable[str] | None,
                          workflows: Iterable[str] | None = None,
                          allows_public_repositories: bool | None = None) -> Graph:
    """A copy where runner group ``group_id`` is limited to selected repositories (and workflows).

    Parameters
    ----------
    graph : Graph
        The graph (unchanged).
    group_id : str
        Id of a ``runner_group`` node, e.g. ``runner_group:acme/shared-linux``.
    repositories : iterable of str, or None
        ``owner/name`` of the repositories that may use the group (visibility
        becomes ``selected``), each a repository of the graph
        (:func:`known_repository`); None keeps the group's repository access
        as it is (e.g. to restrict it to workflows only).
    workflows : iterable of str, optional
        ``owner/repo/.github/workflows/x.yml[@ref]`` entries: also restrict
        the group to these workflows (``restricted_to_workflows``).
    allows_public_repositories : bool, optional
        New value of the group's setting (default: unchanged).

    Returns
    -------
    Graph
        The copy.  The group node carries the new settings; every
        ``receives_job`` edge from a member runner (``member_of``) is checked
        again with the resolver's group-access rules
        (:mod:`graphkit.resolve`): removed when the job's repository (the
        caller's for a reusable workflow) or workflow is no longer allowed,
        lowered to ``possible`` when access became uncertain.  Host-cache
        edges that only existed through a removed route are removed too, and
        ``allows_repository`` edges to repositories no longer selected.

    Raises
    ------
    UnknownNodeError
        If ``group_id`` is not in the graph, or a repository is not (a typo would otherwise restrict the group
        to nothing, silently).
    GraphkitError
        If it is not a runner group.
    """
    group = _typed(graph, group_id, NodeKind.RUNNER_GROUP)
    group_id = group.id
    assert isinstance(group, RunnerGroup)
    allowed = None if repositories is None else sorted({known_repository(graph, r) for r in repositories})
    update = _group_update(allowed, workflows, allows_public_repositories)
    g = _copy(graph)
    new_group = group.model_copy(update=update)
    g.replace_node(new_group)
    removed = _drop(g, [e for e in g.out_edges(group_id) if e.kind is EdgeKind.ALLOWS_REPOSITORY and allowed
                        is not None and repo_key(g.node(e.target).full_name) not in allowed])  # type: ignore[attr-defined]
    ctx = Context.of(g)
    members = [e.source for e in g.in_edges(group_id) if e.kind is EdgeKind.MEMBER_OF]
    touched: set[str] = set()
    dropped: list[Edge] = []
    lowered = 0
    for runner_id in members:
        for e in list(g.out_edges(runner_id)):
            if e.kind is not EdgeKind.RECEIVES_JOB:
                continue
            job = g.node(e.target)
            assert isinstance(job, Job)
            access = group_access(ctx, new_group, job, context_repo(job))
            if access is None:
                dropped += _drop(g, [e])
                touched.add(job.id)
            elif access is Confidence.POSSIBLE and e.confidence is Confidence.CERTAIN:
                _replace_edge(g, e.model_copy(update={"confidence": Confidence.POSSIBLE}))
                lowered += 1
    dropped += _recheck_group_routes(g, ctx, new_group)
    removed += dropped + _prune_host_caches(g, touched)
    _record(g, "restrict_runner_group", subject=group_id, repositories=allowed,
            workflows=list(workflows) if workflows is not None else None,
            receives_job_removed=len(dropped), receives_job_lowered=lowered, edges_removed=len(removed),
            allows_public_repositories=allows_public_repositories)
    return g


def _string_like(pattern: str) -> re.Pattern[str]:
    """AWS ``StringLike``: ``*`` any run, ``?`` one character, everything else literal, case-sensitive."""
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern) + r"\Z",
                      re.S)


def narrow_trust_policy(graph: Graph, role_id: str, *, subjects: Iterable[str]) -> Graph:
    """A copy where cloud role ``role_id`` trusts only OIDC subjects matching ``subjects``.

    Parameters
    ----------
    graph : Graph
        The graph (unchanged).
    role_id : str
        Id of a ``cloud_role`` node.
    subjects : iterable of str
        ``sub`` patterns of the narrowed trust policy, matched as AWS
        ``StringLike`` (``*``, ``?``; case-sensitive), e.g.
        ``repo:acme/app:environment:production``.

    Returns
    -------
    Graph
        The copy, where the role's trust policy is known (``trust="known"``)
        and, for each ``assumes_role`` edge from an ``oidc_identity`` into the
        role (semantics §4-5):

        - removed when none of the identity's candidate subjects matches;
        - ``certain`` when every candidate subject matches;
        - ``possible`` when only some do, or when the identity lists no
          subject (it cannot be ruled out).

        Edges into the role from other sources (on-disk credentials, secrets,
        role chaining) are trusted through AWS principals, not OIDC claims,
        and are kept.

    Raises
    ------
    UnknownNodeError
        If ``role_id`` is not in the graph.
    GraphkitError
        If it is not a cloud role.

    Examples
    --------
    >>> from graphkit.model import CloudRole, Edge, EdgeKind, Evidence, OIDCIdentity
    >>> ev = [Evidence(file="release.yml")]
    >>> g = Graph()
    >>> g.update(nodes=[OIDCIdentity(id="oidc:a", name="a", repository="acme/app",
    ...                              subjects=["repo:acme/app:ref:refs/heads/main"]),
    ...                 OIDCIdentity(id="oidc:d", name="d", repository="acme/docs",
    ...                              subjects=["repo:acme/docs:pull_request"]),
    ...                 CloudRole(id="cloud_role:aws:r", name="r", provider="aws", identifier="r")],
    ...          edges=[Edge(kind=EdgeKind.ASSUMES_ROLE, source=s, target="cloud_role:aws:r", evidence=ev,
    ...                      confidence="possible") for s in ("oidc:a", "oidc:d")])
    >>> after = narrow_trust_policy(g, "cloud_role:aws:r", subjects=["repo:acme/app:ref:refs/heads/*"])
    >>> [(e.source, e.confidence.value) for e in after.edges(EdgeKind.ASSUMES_ROLE)]
    [('oidc:a', 'certain')]
    """
    role = _typed(graph, role_id, NodeKind.CLOUD_ROLE)
    role_id = role.id
    pattern_text = [str(x) for x in subjects]  # an iterator is read once
    patterns = [_string_like(x) for x in pattern_text]
    g = _copy(graph)
    # still over-broad (the plan's narrow_trust_policy step) only if a new pattern is (graphkit.iam.trust)
    g.replace_node(role.model_copy(update={"trust": "known",
                                           "broad_trust": any(_sub_breadth(str(p)) for p in pattern_text)}))
    removed: list[Edge] = []
    kept = 0
    for e in list(g.in_edges(role_id)):
        if e.kind is not EdgeKind.ASSUMES_ROLE:
            continue
        src = g.node(e.source)
        if not isinstance(src, OIDCIdentity):
            continue
        hits = [any(p.match(s) for p in patterns) for s in src.subjects]
        if src.subjects and not any(hits):
            removed += _drop(g, [e])
            continue
        conf = Confidence.CERTAIN if src.subjects and all(hits) else Confidence.POSSIBLE
        _replace_edge(g, e.model_copy(update={"confidence": conf,
                                              "props": {**e.props, "trust": "known", "narrowed": True}}))
        kept += 1
    _record(g, "narrow_trust_policy", subject=role_id, subjects=[str(s) for s in pattern_text],
            assumes_role_removed=len(removed), assumes_role_kept=kept)
    return g


def remove_edges(graph: Graph, edges: Iterable[EdgeRef] = (), *,
                 where: Callable[[Edge], bool] | None = None) -> Graph:
    """A copy without the given edges (e.g. a fix that removes a permission or a grant).

    Parameters
    ----------
    graph : Graph
        The graph (unchanged).
    edges : iterable of Edge or (source, target, kind)
        Edges to remove; a ``(source, target, kind)`` triple removes every
        parallel edge of that kind between the two nodes.
    where : callable, optional
        Also remove every edge for which ``where(edge)`` is true.

    Returns
    -------
    Graph
        The copy; ``meta.what_if`` records how many edges were removed.

    Raises
    ------
    UnknownEdgeError
        If a given edge is not in the graph (a :class:`~graphkit.errors.GraphkitError`).

    Examples
    --------
    >>> from graphkit.model import EdgeKind
    >>> g = Graph()
    >>> after = remove_edges(g, where=lambda e: e.kind is EdgeKind.MINTS_OIDC)
    >>> after.meta.what_if
    [{'change': 'remove_edges', 'edges_removed': 0}]
    """
    g = _copy(graph)
    doomed: list[Edge] = []
    for ref in edges:
        if isinstance(ref, Edge):
            if not g.nx.has_edge(ref.source, ref.target, ref.nx_key):
                raise UnknownEdgeError(f"no edge {ref.kind.value} {ref.source} -> {ref.target} (key {ref.key!r})")
            doomed.append(g.nx.edges[ref.source, ref.target, ref.nx_key]["edge"])
            continue
        source, target, kind = ref
        kind = EdgeKind(kind)
        found = [e for e in g.out_edges(source) if e.target == target and e.kind is kind] \
            if source in g else []
        if not found:
            raise UnknownEdgeError(f"no edge {kind.value} {source} -> {target}")
        doomed += found
    if where is not None:
        doomed += [e for e in g.edges() if where(e)]
    removed = _drop(g, doomed)
    _record(g, "remove_edges", edges_removed=len(removed))
    return g


# --------------------------------------------------------------------------- compare


@dataclass(frozen=True)
class Snapshot:
    """Blast radius and revocation plan of one graph from the same sources.

    ``certain_weight``: weight of nodes reached ``certain``.
    ``persistent_weight``: weight of nodes reached with an unbounded lifetime
    (access that lasts until someone acts, semantics §6).
    """

    radius: BlastRadius
    plan: RevocationPlan

    @property
    def weight(self) -> int:
        """Weighted blast radius."""
        return self.radius.weight

    @property
    def certain_weight(self) -> int:
        """Weight of the nodes reached with ``certain`` confidence."""
        return sum(r.weight for r in self.radius if r.confidence is Confidence.CERTAIN)

    @property
    def persistent_weight(self) -> int:
        """Weight of the nodes reached with an unbounded lifetime."""
        return sum(r.weight for r in self.radius if lifetime_seconds(r.lifetime) == float("inf"))

    @property
    def critical(self) -> int:
        """Number of critical nodes reached."""
        return sum(1 for r in self.radius if r.criticality is Criticality.CRITICAL)

    def curve(self) -> list[tuple[str, int]]:
        """The revocation curve: ``("start", initial weight)`` then ``("<rank>. <action> <subject>", residual)``."""
        return [("start", self.plan.initial_weight)] + [
            (f"{s.rank}. {s.action.value} {s.subject_name}", s.residual_weight) for s in self.plan.steps]

    def metrics(self) -> dict[str, int]:
        """``{reached, weight, certain_weight, persistent_weight, critical, held, plan_steps}``."""
        return {"reached": len(self.radius), "weight": self.weight, "certain_weight": self.certain_weight,
                "persistent_weight": self.persistent_weight, "critical": self.critical,
                "held": len(self.plan.held), "plan_steps": len(self.plan.steps)}


@dataclass(frozen=True)
class Comparison:
    """Blast radius and revocation plan before and after a change (see :func:`compare`).

    ``removed``: ids reached before and not after; ``added``: reached after
    only (empty for narrowing changes); ``changed``: ids reached in both whose
    confidence or lifetime changed, as ``{id: {field: (before, after)}}``.
    """

    sources: tuple[str, ...]
    before: Snapshot
    after: Snapshot
    removed: tuple[str, ...]
    added: tuple[str, ...]
    changed: dict[str, dict[str, tuple[str, str]]]
    changes: tuple[dict[str, Any], ...] = ()

    def rows(self) -> list[tuple[str, int, int, int]]:
        """``(metric, before, after, after - before)`` for each of :meth:`Snapshot.metrics`."""
        b, a = self.before.metrics(), self.after.metrics()
        return [(k, b[k], a[k], a[k] - b[k]) for k in b]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: sources, changes, metrics, removed/added/changed ids and both curves."""
        return {"sources": list(self.sources), "changes": list(self.changes),
                "metrics": {m: {"before": b, "after": a, "delta": d} for m, b, a, d in self.rows()},
                "removed": list(self.removed), "added": list(self.added),
                "changed": {k: {f: list(v) for f, v in d.items()} for k, d in self.changed.items()},
                "curve": {"before": self.before.curve(), "after": self.after.curve()}}

    def __str__(self) -> str:
        width = max(len(m) for m, *_ in self.rows())
        lines = [f"{'metric':<{width}}  before   after   delta"]
        lines += [f"{m:<{width}}  {b:>6}  {a:>6}  {d:>+6}" for m, b, a, d in self.rows()]
        return "\n".join(lines)


def _snapshot(graph: Graph, sources: str | Iterable[str], max_steps: int | None) -> Snapshot:
    radius = blast_radius(graph, sources)
    return Snapshot(radius=radius, plan=revocation_plan(graph, radius.sources, max_steps=max_steps))


def compare(before: Graph, after: Graph, sources: str | Iterable[str], *,
            max_steps: int | None = None) -> Comparison:
    """Blast radius and revocation curve of ``sources`` in two graphs.

    Parameters
    ----------
    before, after : Graph
        Typically a graph and a what-if copy of it.
    sources : str or iterable of str
        Compromised node id(s), as for :func:`graphkit.analysis.blast_radius`;
        they must exist in both graphs.
    max_steps : int, optional
        Passed to :func:`graphkit.analysis.revocation_plan`.

    Returns
    -------
    Comparison
        Both snapshots, the ids no longer reached, newly reached and changed,
        and the changes recorded in ``after.meta.what_if``.

    Raises
    ------
    UnknownNodeError
        If a source id is missing from either graph.

    Examples
    --------
    >>> from graphkit.model import Edge, EdgeKind, Evidence, Job, Runner, Secret
    >>> ev = [Evidence(file="ci.yml")]
    >>> g = Graph()
    >>> g.update(nodes=[Runner(id="runner:acme/r1", name="r1", scope="acme"),
    ...                 Job(id="job:b", name="b", repository="acme/app", workflow_path="ci.yml", job_key="b",
    ...                     secrets_repository="acme/app"),
    ...                 Secret(id="secret:NPM", name="NPM", secret_name="NPM", scope="repo", owner="acme")],
    ...          edges=[Edge(kind=EdgeKind.RECEIVES_JOB, source="runner:acme/r1", target="job:b", evidence=ev),
    ...                 Edge(kind=EdgeKind.READS_SECRET, source="job:b", target="secret:NPM", evidence=ev)])
    >>> c = compare(g, make_ephemeral(g, "runner:acme/r1"), "runner:acme/r1")

    The job's run lasts one job now; the secret that one run could read still lasts until rotated:

    >>> c.before.persistent_weight, c.after.persistent_weight, c.removed
    (21, 20, ())
    >>> c.changed["job:b"]
    {'confidence': ('certain', 'possible'), 'lifetime': ('until_runner_removed', 'per_job')}
    """
    b = _snapshot(before, sources, max_steps)
    a = _snapshot(after, b.radius.sources, max_steps)
    removed = tuple(r.id for r in b.radius if r.id not in a.radius)
    added = tuple(r.id for r in a.radius if r.id not in b.radius)
    changed: dict[str, dict[str, tuple[str, str]]] = {}
    for r in b.radius:
        if r.id not in a.radius:
            continue
        x = a.radius[r.id]
        diff = {f: (getattr(r, f).value, getattr(x, f).value) for f in ("confidence", "lifetime")
                if getattr(r, f) is not getattr(x, f)}
        if diff:
            changed[r.id] = diff
    return Comparison(sources=b.radius.sources, before=b, after=a, removed=removed, added=added, changed=changed,
                      changes=tuple(after.meta.what_if))

