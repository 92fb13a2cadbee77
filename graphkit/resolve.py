"""The cross-source linker: jobs to runners, secrets and host caches (GitHub semantics).

:func:`resolve` runs once after every ingestor (see :func:`graphkit.build.build_graph`).
It is pure graph -> graph (no I/O) and idempotent: resolving twice gives the
same graph.  Its input facts are node fields (:class:`~graphkit.model.Job`
routing and secret fields, :class:`~graphkit.model.Runner`,
:class:`~graphkit.model.RunnerGroup`, :class:`~graphkit.model.Repository`,
:class:`~graphkit.model.Secret`) and ``graph.meta.runner_inventory``
(written by :mod:`ingest.runner_inventory`: hosted-label overrides, which
secret lists are complete).  Its own findings are summarised in
``graph.meta.resolve``.

Routing (``shared/docs/semantics.md`` §2)
-----------------------------------------
For each job and each ``runs-on`` candidate that is self-hosted
(:func:`graphkit.hosted.is_self_hosted`), an edge ``runner -> job``
``RECEIVES_JOB`` from every real (non-inferred) runner that

1. has **all** requested labels, case-insensitively, ``self-hosted`` being
   implicit on every self-hosted runner (GitHub docs "Choosing the runner for a
   job", https://docs.github.com/en/actions/using-jobs/choosing-the-runner-for-a-job);
2. is registered to the job's repository or to its owner (for a reusable
   workflow: the **caller**'s repository, ``Job.secrets_repository``; GitHub docs
   "Reusing workflows", self-hosted runners are accessed from the caller's context);
3. for org runners, belongs to a group the repository may use (GitHub docs
   "Managing access to self-hosted runners using groups",
   https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/managing-access-to-self-hosted-runners-using-groups):
   visibility ``all``; ``selected`` with the repository listed; ``private``
   for private and internal repositories; public repositories only with
   ``allows_public_repositories``; with ``restricted_to_workflows`` the job's
   workflow ``owner/repo/path`` must be in ``selected_workflows``;
4. with ``runs-on: {group: G}``, is in group ``G`` (case-insensitive; repository
   runners are in no group).  Label collisions between groups: GitHub changelog
   2022-10-31 (job routing when runners of several groups share labels).

Confidence is ``possible`` when the candidate is, when a deciding fact is
unknown (repository visibility, a group not in the inventory, a selected list
not read, a workflow restriction pinned to a ref other than the default
branch), and for ephemeral runners (only one future job; lifetime
``per_job``).  Persistent or unknown runners: ``until_runner_removed``.

Edge keys: ``""`` for a job with one candidate and no matrix, else
``matrix={json}`` or ``labels=a,b[;group=g]``, so matrix instances routed to
different runners stay distinguishable.

Inferred pools: a self-hosted label set that no inventory runner of the owner
serves (labels, scope and group pin; group *access* is not considered) becomes
a ``runner:inferred:{owner}:{labels}`` runner (labels sorted, lower-cased,
``self-hosted`` included, joined by ``+``); every unserved candidate is linked
(``possible``) to each pool of its owner whose labels include the requested
ones.  ``runs_on_unresolved`` links ``possible`` edges (key ``unresolved``)
from every real runner the repository can use and every pool of the owner;
when there is none, the pool ``runner:inferred:{owner}:self-hosted`` is made,
so an unresolved job is never silently dropped.

Secrets (semantics §3; GitHub docs "Using secrets in GitHub Actions",
https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions)
------------------------------------------------------------------------------------------
A name resolves to the environment secret of the job's ``environment``, else
the repository secret, else the organization secret visible to the repository
(``all``; ``private``: private and internal repositories; ``selected``).  The
edge is ``possible`` when visibility is unknown or when a scope that would
shadow it is not known complete.  With no declared secret of that name: a
``secret:{owner}/{repo}:{NAME}`` node of scope ``unknown``.  ``all_secrets``
(``toJSON(secrets)``, dynamic ``secrets[...]``) links every secret visible to
the job (each name resolved as above), plus ``secret:all:{owner}/{repo}``
(``possible``) unless the organization, repository and environment lists are
all complete.  ``secret_grants`` add ``secret -> target`` edges of the grant's
kind (lifetime ``until_rotated``), plus the ``READS_SECRET`` edge.
``GITHUB_TOKEN`` is the job's token (``HAS_TOKEN``), not a stored secret: skipped.

Host caches (semantics §3 "Caches")
-----------------------------------
For every job a runner on a non-ephemeral host receives, every cache that host
shares gets ``cache -> job`` ``RESTORES_INTO`` (same confidence as the routing
edge) and ``job -> cache`` ``WRITES_CACHE``, which is ``possible`` when the job
may also run on runners of other hosts (only its runs on this host write here).

Examples
--------
>>> from graphkit.graph import Graph
>>> from graphkit.model import Evidence, Job, Runner, RunsOnCandidate
>>> ev = Evidence(file="ci.yml")
>>> g = Graph()
>>> _ = g.add_node(Runner(id="runner:acme/r1", name="r1", scope="acme", labels=["self-hosted", "Linux"],
...                       runner_group=None, evidence=[ev]))
>>> _ = g.add_node(Job(id="job:acme/app/ci.yml#t", name="t", repository="acme/app", workflow_path="ci.yml",
...                    job_key="t", secrets_repository="acme/app", evidence=[ev],
...                    runs_on=[RunsOnCandidate(labels=("linux",), evidence=ev)]))
>>> resolve(g)
>>> [(e.source, e.target, e.confidence.value) for e in g.edges()]
[('runner:acme/r1', 'job:acme/app/ci.yml#t', 'possible')]

(``possible``: the runner names no group and no group is in the graph.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from graphkit.errors import GraphkitError
from graphkit.graph import Graph
from graphkit.hosted import is_self_hosted
from graphkit.meta import ResolveSummary
from graphkit.model import (Confidence, Edge, EdgeKind, Evidence, Host, Job, Lifetime, NodeKind, Repository,
                            Runner, RunnerGroup, RunsOnCandidate, Secret, SecretGrant, repo_key, secret_key)

__all__ = ["resolve"]


C, P = Confidence.CERTAIN, Confidence.POSSIBLE


def _min(*cs: Confidence) -> Confidence:
    return P if P in cs else C


def _low(s: str) -> str:
    return s.strip().lower()


# --------------------------------------------------------------------------- context


@dataclass
class _Ctx:
    graph: Graph
    extra_hosted: list[str]
    self_hosted: list[str]
    complete: set[str]
    unknown_workflow_lists: set[str]
    runners: list[Runner]
    groups: dict[str, RunnerGroup]
    repos: dict[str, Repository]
    org_secrets: dict[tuple[str, str], Secret] = field(default_factory=dict)
    repo_secrets: dict[tuple[str, str], Secret] = field(default_factory=dict)
    env_secrets: dict[tuple[str, str, str], Secret] = field(default_factory=dict)
    summary: dict[str, set[str]] = field(default_factory=dict)
    _pools: dict[str, dict[str, Runner]] | None = None

    @classmethod
    def of(cls, graph: Graph) -> "_Ctx":
        meta = graph.meta.inventory
        ctx = cls(
            graph=graph,
            extra_hosted=list(meta.github_hosted_labels),
            self_hosted=list(meta.self_hosted_labels),
            complete={_low(x) for x in meta.secrets_complete},
            unknown_workflow_lists={_low(x) for x in meta.unknown_selected_workflows},
            runners=[r for r in graph.nodes(NodeKind.RUNNER)  # type: ignore[misc]
                     if isinstance(r, Runner) and not r.inferred and r.platform == "github"],
            groups={n.id: n for n in graph.nodes(NodeKind.RUNNER_GROUP) if isinstance(n, RunnerGroup)},
            repos={repo_key(n.full_name): n for n in graph.nodes(NodeKind.REPOSITORY) if isinstance(n, Repository)},
        )
        for s in graph.nodes(NodeKind.SECRET):
            assert isinstance(s, Secret)
            name = secret_key(s.secret_name)
            if s.scope == "org":
                ctx.org_secrets[(_low(s.owner), name)] = s
            elif s.scope == "repo" and s.repository:
                ctx.repo_secrets[(repo_key(s.repository), name)] = s
            elif s.scope == "env" and s.repository and s.environment:
                ctx.env_secrets[(repo_key(s.repository), _low(s.environment), name)] = s
        ctx.summary = {k: set() for k in ("inferred_pools", "unresolved_jobs", "unknown_secrets",
                                          "dangling_grants", "unrouted_candidates")}
        return ctx

    def pools(self, owner: str) -> list[Runner]:
        """Inferred pools of ``owner`` (indexed once, kept up to date by :func:`_add_pool`)."""
        if self._pools is None:
            self._pools = {}
            for r in self.graph.nodes(NodeKind.RUNNER):
                if isinstance(r, Runner) and r.inferred and r.platform == "github":
                    self._pools.setdefault(_low(r.scope), {})[r.id] = r
        return [self._pools.get(owner, {})[k] for k in sorted(self._pools.get(owner, {}))]


def _context_repo(job: Job) -> str:
    """The repository whose runners and secrets a job uses (the caller's for reusable workflows)."""
    return repo_key(job.secrets_repository or job.repository)


# --------------------------------------------------------------------------- routing


def _split_workflow(ref: str) -> tuple[str, str | None]:
    """``Owner/Repo/.github/workflows/x.yml@ref`` -> (``owner/repo/.github/workflows/x.yml``, ``ref``)."""
    path, _, at = ref.strip().partition("@")
    parts = path.split("/", 2)
    if len(parts) == 3:
        path = f"{_low(parts[0])}/{_low(parts[1])}/{parts[2]}"
    return path, (at or None)


def _job_workflows(job: Job) -> list[str]:
    """The job's own workflow, then the top-level caller's (from the job id), as ``owner/repo/path``."""
    own = f"{repo_key(job.repository)}/{job.workflow_path}"
    out = [own]
    if job.id.startswith("job:"):
        top = job.id[4:].split("#", 1)[0]
        top = _split_workflow(top)[0]
        if top != own:
            out.append(top)
    return out


def _workflow_access(group: RunnerGroup, job: Job, repo: Repository | None) -> Confidence | None:
    """Whether a job's workflow is among a restricted group's ``selected_workflows``.

    An entry without ref, or pinned to the default branch, matches the
    checked-out workflow ``certain``; any other ref (a tag, another branch) or
    an unknown default branch makes it ``possible``; a match only through the
    top-level caller of a reusable workflow is ``possible``.
    """
    best: Confidence | None = None
    mine = _job_workflows(job)
    default = repo.default_branch if repo else None
    for entry in group.selected_workflows:
        path, ref = _split_workflow(entry)
        if path not in mine:
            continue
        conf = C
        if ref is not None and not (default and ref in (default, f"refs/heads/{default}")):
            conf = P
        if path != mine[0]:
            conf = P
        best = conf if best is None else (C if C in (best, conf) else P)
    return best


def _group_access(ctx: _Ctx, group: RunnerGroup | None, job: Job, repo_full: str) -> Confidence | None:
    """Whether the job's repository may use ``group``: a confidence, or None when denied."""
    if group is None or group.inferred:
        return P  # settings not read
    repo = ctx.repos.get(repo_full)
    vis = repo.visibility if repo else None
    conf = C
    if group.visibility == "selected":
        if group.selected_repositories is None:
            conf = P
        elif repo_full not in {repo_key(r) for r in group.selected_repositories}:
            return None
    elif group.visibility == "private":
        if vis == "public":
            return None
        if vis is None:
            conf = P
    if not group.allows_public_repositories:
        if vis == "public":
            return None
        if vis is None:
            conf = P
    if group.restricted_to_workflows:
        if _low(group.id) in ctx.unknown_workflow_lists:
            conf = P
        else:
            wf = _workflow_access(group, job, repo)
            if wf is None:
                return None
            conf = _min(conf, wf)
    return conf


def _runner_group(ctx: _Ctx, runner: Runner) -> tuple[str | None, RunnerGroup | None]:
    """(group name lower-cased, group node) of an org runner; (None, None) for repository runners."""
    if "/" in runner.scope:
        return None, None
    name = _low(runner.runner_group or "Default")
    return name, ctx.groups.get(f"runner_group:{_low(runner.scope)}/{name}")


def _in_scope(runner: Runner, repo_full: str) -> bool:
    scope = _low(runner.scope)
    return scope == repo_full if "/" in scope else scope == repo_full.split("/", 1)[0]


def _serves(runner: Runner, cand: RunsOnCandidate, repo_full: str) -> bool:
    """Labels, scope and group pin match (group access not checked)."""
    if not _in_scope(runner, repo_full):
        return False
    have = {_low(x) for x in runner.labels} | {"self-hosted"}
    if not {_low(x) for x in cand.labels} <= have:
        return False
    if cand.group is not None:
        return "/" not in runner.scope and _low(runner.runner_group or "Default") == _low(cand.group)
    return True


def _cand_key(job: Job, cand: RunsOnCandidate) -> str:
    if len(job.runs_on) == 1 and cand.matrix is None:
        return ""
    if cand.matrix is not None:
        return "matrix=" + json.dumps(cand.matrix, sort_keys=True, separators=(",", ":"), default=str)
    key = "labels=" + ",".join(sorted(_low(x) for x in cand.labels))
    return key + (f";group={_low(cand.group)}" if cand.group else "")


def _pool_labels(labels: Iterable[str]) -> list[str]:
    return sorted({_low(x) for x in labels} | {"self-hosted"})


def _pool_id(owner: str, labels: Iterable[str]) -> str:
    return f"runner:inferred:{owner}:{'+'.join(_pool_labels(labels))}"


def _receive(ctx: _Ctx, runner: Runner, job: Job, key: str, evidence: Evidence, confidence: Confidence,
             props: dict[str, Any]) -> None:
    lifetime = Lifetime.UNTIL_RUNNER_REMOVED
    if runner.ephemeral:
        lifetime, confidence = Lifetime.PER_JOB, P
        props = {**props, "ephemeral": True}
    ctx.graph.add_edge(Edge(kind=EdgeKind.RECEIVES_JOB, source=runner.id, target=job.id, key=key,
                            evidence=[evidence], confidence=confidence, lifetime=lifetime, props=props))


def _add_pool(ctx: _Ctx, owner: str, labels: Iterable[str], evidence: Evidence) -> Runner:
    labs = _pool_labels(labels)
    pool = Runner(id=_pool_id(owner, labs), name=f"inferred runner pool {owner} [{', '.join(labs)}]",
                  labels=labs, scope=owner, inferred=True, evidence=[evidence])
    ctx.summary["inferred_pools"].add(pool.id)
    stored = ctx.graph.add_node(pool)
    assert isinstance(stored, Runner)
    if ctx._pools is not None:
        ctx._pools.setdefault(owner, {})[stored.id] = stored
    return stored


def _route(ctx: _Ctx, jobs: list[Job]) -> None:
    unserved: list[tuple[Job, RunsOnCandidate, str]] = []
    for job in jobs:
        repo_full = _context_repo(job)
        for cand in job.runs_on:
            if not is_self_hosted(cand.labels, extra_hosted=ctx.extra_hosted, self_hosted=ctx.self_hosted):
                continue
            key = _cand_key(job, cand)
            props = {"labels": list(cand.labels), "group": cand.group, "matrix": cand.matrix}
            serving = [r for r in ctx.runners if _serves(r, cand, repo_full)]
            if not serving:
                unserved.append((job, cand, key))
                continue
            linked = False
            for runner in serving:
                access = _group_access(ctx, _runner_group(ctx, runner)[1], job, repo_full) \
                    if "/" not in runner.scope else C
                if access is None:
                    continue
                linked = True
                _receive(ctx, runner, job, key, cand.evidence, _min(cand.confidence, access), props)
            if not linked:
                ctx.summary["unrouted_candidates"].add(f"{job.id} [{key or ','.join(cand.labels)}]")
    # inferred pools: made first, then linked, so every unserved candidate sees every pool
    for job, cand, _ in unserved:
        _add_pool(ctx, repo_full_owner(job), cand.labels, cand.evidence)
    for job, cand, key in unserved:
        want = {_low(x) for x in cand.labels}
        props = {"labels": list(cand.labels), "group": cand.group, "matrix": cand.matrix, "inferred_pool": True}
        for pool in ctx.pools(repo_full_owner(job)):
            if want <= {_low(x) for x in pool.labels}:
                _receive(ctx, pool, job, key, cand.evidence, P, props)
    # run-time runs-on: any runner the repository can use
    for job in jobs:
        if job.runs_on_unresolved is None:
            continue
        ctx.summary["unresolved_jobs"].add(job.id)
        repo_full = _context_repo(job)
        owner = repo_full_owner(job)
        props = {"unresolved": True, "detail": job.runs_on_unresolved.detail}
        sources: list[Runner] = []
        for runner in ctx.runners:
            if not _in_scope(runner, repo_full):
                continue
            access = _group_access(ctx, _runner_group(ctx, runner)[1], job, repo_full) \
                if "/" not in runner.scope else C
            if access is not None:
                sources.append(runner)
        pools = ctx.pools(owner)
        if not sources and not pools:
            pools = [_add_pool(ctx, owner, ["self-hosted"], job.runs_on_unresolved)]
        for runner in [*sources, *pools]:
            _receive(ctx, runner, job, "unresolved", job.runs_on_unresolved, P, props)


def repo_full_owner(job: Job) -> str:
    """Owner (lower-cased) of the repository whose runners ``job`` may use."""
    return _context_repo(job).split("/", 1)[0]


# --------------------------------------------------------------------------- secrets


def _org_visibility(ctx: _Ctx, secret: Secret, repo_full: str) -> Confidence | None:
    repo = ctx.repos.get(repo_full)
    vis = repo.visibility if repo else None
    if secret.visibility is None:
        return P
    if secret.visibility == "all":
        return C
    if secret.visibility == "private":
        return None if vis == "public" else (P if vis is None else C)
    if secret.selected_repositories is None:
        return P
    return C if repo_full in {repo_key(r) for r in secret.selected_repositories} else None


def _env_target(repo_full: str, env: str) -> str:
    return _low(f"target:environment:{repo_full}:{env}")


def _lookup(ctx: _Ctx, repo_full: str, env: str | None, name: str) -> tuple[Secret | None, Confidence]:
    """Resolve one secret name: environment, then repository, then organization (semantics §3).

    Returns the declared secret (or None) and the confidence that it is the
    one the job receives (``possible`` when a shadowing scope is incomplete or
    the org secret's visibility is unknown).
    """
    owner = repo_full.split("/", 1)[0]
    name = secret_key(name)
    shadow_complete = True
    if env is not None:
        s = ctx.env_secrets.get((repo_full, _low(env), name))
        if s is not None:
            return s, C
        shadow_complete = _env_target(repo_full, env) in ctx.complete
    s = ctx.repo_secrets.get((repo_full, name))
    if s is not None:
        return s, C if shadow_complete else P
    shadow_complete = shadow_complete and f"repo:{repo_full}" in ctx.complete
    s = ctx.org_secrets.get((owner, name))
    if s is not None:
        vis = _org_visibility(ctx, s, repo_full)
        if vis is not None:
            return s, _min(vis, C if shadow_complete else P)
    return None, C


def _secret_node(ctx: _Ctx, job: Job, name: str, evidence: Evidence) -> tuple[str, Confidence]:
    repo_full = _context_repo(job)
    found, conf = _lookup(ctx, repo_full, job.environment, name)
    if found is not None:
        return found.id, conf
    nm = secret_key(name)
    sid = f"secret:{repo_full}:{nm}"
    ctx.graph.add_node(Secret(id=sid, name=f"{repo_full} secret {nm} (scope unknown)", secret_name=nm,
                              scope="unknown", owner=repo_full.split("/", 1)[0], repository=repo_full,
                              evidence=[evidence]))
    ctx.summary["unknown_secrets"].add(sid)
    return sid, C


def _visible_names(ctx: _Ctx, repo_full: str, env: str | None) -> set[str]:
    owner = repo_full.split("/", 1)[0]
    names = {n for (o, n) in ctx.org_secrets if o == owner}
    names |= {n for (r, n) in ctx.repo_secrets if r == repo_full}
    if env is not None:
        names |= {n for (r, e, n) in ctx.env_secrets if r == repo_full and e == _low(env)}
    return names


def _secrets(ctx: _Ctx, jobs: list[Job]) -> None:
    g = ctx.graph
    for job in jobs:
        repo_full = _context_repo(job)
        for ref in [*job.secret_refs, *job.secret_grants]:
            if secret_key(ref.name) == "GITHUB_TOKEN":
                continue
            sid, conf = _secret_node(ctx, job, ref.name, ref.evidence)
            g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job.id, target=sid, evidence=[ref.evidence],
                            confidence=conf))
            if not isinstance(ref, SecretGrant):
                continue
            grant = ref
            if grant.target not in g:
                ctx.summary["dangling_grants"].add(f"{sid} -[{grant.edge_kind.value}]-> {grant.target}")
                continue
            try:
                g.add_edge(Edge(kind=grant.edge_kind, source=sid, target=grant.target, evidence=[grant.evidence],
                                confidence=conf, lifetime=Lifetime.UNTIL_ROTATED))
            except GraphkitError:
                ctx.summary["dangling_grants"].add(f"{sid} -[{grant.edge_kind.value}]-> {grant.target}")
        if job.all_secrets is not None:
            ev = job.all_secrets
            for name in sorted(_visible_names(ctx, repo_full, job.environment)):
                found, conf = _lookup(ctx, repo_full, job.environment, name)
                if found is not None:
                    g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job.id, target=found.id, evidence=[ev],
                                    confidence=conf, props={"all_secrets": True}))
            owner = repo_full.split("/", 1)[0]
            complete = f"org:{owner}" in ctx.complete and f"repo:{repo_full}" in ctx.complete and (
                job.environment is None or _env_target(repo_full, job.environment) in ctx.complete)
            if not complete:
                sid = f"secret:all:{repo_full}"
                g.add_node(Secret(id=sid, name=f"every secret visible to {repo_full} (not enumerated)",
                                  secret_name="*", scope="all", owner=owner, repository=repo_full, inferred=True,
                                  evidence=[ev]))
                g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job.id, target=sid, evidence=[ev],
                                confidence=P, props={"all_secrets": True}))


# --------------------------------------------------------------------------- host caches


def _host_caches(ctx: _Ctx) -> None:
    g = ctx.graph
    receives = list(g.edges(EdgeKind.RECEIVES_JOB))
    runner_host = {e.source: e.target for e in g.edges(EdgeKind.RUNS_ON_HOST)}
    hosts_of_job: dict[str, set[str | None]] = {}
    for edge in receives:
        hosts_of_job.setdefault(edge.target, set()).add(runner_host.get(edge.source))
    for edge in receives:
        host_id = runner_host.get(edge.source)
        if host_id is None:
            continue
        host = g.node(host_id)
        if isinstance(host, Host) and host.ephemeral:
            continue  # nothing survives to the next job
        # A job that may also run elsewhere writes this host's cache only in its runs here.
        only_here = hosts_of_job[edge.target] == {host_id}
        write_conf = edge.confidence if only_here else P
        for share in sorted((e for e in g.out_edges(host.id) if e.kind == EdgeKind.SHARES_CACHE),
                            key=lambda e: e.target):
            evidence = [*edge.evidence, *share.evidence]
            props = {"via_runner": edge.source, "host": host.id}
            g.add_edge(Edge(kind=EdgeKind.RESTORES_INTO, source=share.target, target=edge.target,
                            evidence=evidence, confidence=edge.confidence, props=props))
            g.add_edge(Edge(kind=EdgeKind.WRITES_CACHE, source=edge.target, target=share.target,
                            evidence=evidence, confidence=write_conf, props=props))


# --------------------------------------------------------------------------- entry point


def resolve(graph: Graph) -> None:
    """Add routing, secret and host-cache edges to ``graph`` in place.

    Parameters
    ----------
    graph
        a graph holding the nodes of every ingestor (jobs, runners, groups,
        repositories, secrets, hosts, caches); ``graph.meta.runner_inventory``
        optional.

    Returns
    -------
    None
        ``graph`` gains ``RECEIVES_JOB``, ``READS_SECRET``, secret-grant,
        ``RESTORES_INTO`` and ``WRITES_CACHE`` edges, inferred runner pools and
        secrets of scope ``unknown``/``all``; ``graph.meta.resolve`` lists
        ``inferred_pools``, ``unresolved_jobs``, ``unknown_secrets``,
        ``dangling_grants`` (grant targets absent from the graph) and
        ``unrouted_candidates`` (label sets served by runners whose group
        denies the repository).

    Raises
    ------
    GraphkitError
        only if the graph breaks the model (an edge kind between disallowed
        node kinds), never for missing or unknown facts.

    Notes
    -----
    Idempotent: calling it twice gives an equal graph.  Rules and sources are
    in the module docstring.
    """
    ctx = _Ctx.of(graph)
    jobs = [j for j in graph.nodes(NodeKind.JOB) if isinstance(j, Job)]
    _route(ctx, jobs)
    _secrets(ctx, jobs)
    _host_caches(ctx)
    graph.meta.resolve = ResolveSummary(**{k: sorted(v) for k, v in ctx.summary.items()})
    from graphkit.cloud import link_cloud  # OIDC trust evaluation, pattern roles (graphkit/cloud.py)
    link_cloud(graph)
