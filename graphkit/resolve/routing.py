"""Routing: ``runner -> job`` ``RECEIVES_JOB`` edges (rules in :mod:`graphkit.resolve`, "Routing").

One step per function: label and scope matching (:func:`_route_labels`),
runner group access (:func:`group_access`), inferred pools
(:func:`_route_pools`) and run-time ``runs-on`` (:func:`_route_unresolved`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, NamedTuple

from graphkit.graph import Graph
from graphkit.model import (Confidence, EdgeKind, Evidence, Job, Lifetime, NodeKind, Repository, Runner,
                            RunnerGroup, RunsOnCandidate, ids)
from graphkit.model.ids import owner_key, repo_key
from graphkit.resolve.context import C, P, Context, canonical, context_owner, context_repo, nodes_of_kind, weakest
from graphkit.resolve.labels import candidate_labels

__all__ = ["ANY_CALLER", "caller_scopes", "group_access", "queued_forever", "route", "top_level_workflow",
           "unknown_caller_repos", "unread_callee", "usable_runners",
           "usable_runners_shared"]


# --------------------------------------------------------------------------- routing: group access


def top_level_workflow(job_id: str) -> tuple[str, str] | None:
    """(``owner/repo`` lower-cased, workflow path) of the workflow a job id starts from, or None.

    For a called workflow's job (``job:{caller}>{repo}/{path}#{key}``) this is
    the top-level caller's workflow: the one whose trigger runs the job.
    None when ``job_id`` is no job id (:func:`graphkit.model.ids.parse`).

    >>> top_level_workflow("job:Acme/App/.github/workflows/ci.yml#call>acme/lib/.github/workflows/r.yml#b")
    ('acme/app', '.github/workflows/ci.yml')
    """
    try:
        parsed = ids.parse(job_id)
        while parsed.kind is NodeKind.JOB and parsed.form == "called":
            parsed = ids.parse(parsed.parts["caller"])
    except ids.IdError:
        return None
    if parsed.kind is not NodeKind.JOB:
        return None
    if parsed.form == "gitlab":  # a GitLab job: no GitHub workflow starts it
        return None
    return repo_key(parsed.parts["repo"]), parsed.parts["path"]


def _split_workflow(ref: str) -> tuple[str, str | None]:
    """``Owner/Repo/.github/workflows/x.yml@ref`` -> (``owner/repo/.github/workflows/x.yml``, ``ref``)."""
    path, _, at = ref.strip().partition("@")
    parts = path.split("/", 2)
    if len(parts) == 3:
        path = f"{repo_key(parts[0] + '/' + parts[1])}/{parts[2]}"
    return path, (at or None)


def _job_workflows(job: Job) -> list[str]:
    """The job's own workflow, then the top-level caller's (from the job id), as ``owner/repo/path``."""
    own = f"{repo_key(job.repository)}/{job.workflow_path}"
    top = top_level_workflow(job.id)
    caller = "/".join(top) if top else own
    return [own] if caller == own else [own, caller]


def _of_group(name: str, group: RunnerGroup, make: Any) -> Any:
    """``make(group)``, computed once per group object (a pure function of the group's fields; an id-keyed
    cache that holds the object, so that an equal id with other fields, as what-if builds, is never confused)."""
    cache = _GROUP_CACHE.setdefault(name, {})
    hit = cache.get(id(group))
    if hit is None or hit[0] is not group:
        if len(cache) > 4096:
            cache.clear()
        hit = cache[id(group)] = (group, make(group))
    return hit[1]


#: cache name -> id(group) -> (group, value)
_GROUP_CACHE: dict[str, dict[int, tuple[RunnerGroup, Any]]] = {}


def _split_workflows(group: RunnerGroup) -> list[tuple[str, str | None]]:
    """:func:`_split_workflow` of each of the group's ``selected_workflows``."""
    return _of_group("workflows", group, lambda g: [_split_workflow(e) for e in g.selected_workflows])


def _selected_repositories(group: RunnerGroup) -> frozenset[str]:
    """The group's ``selected_repositories`` as ids write them."""
    return _of_group("repositories", group, lambda g: frozenset(repo_key(r) for r in g.selected_repositories or ()))


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
    for path, ref in _split_workflows(group):
        if path not in mine:
            continue
        conf = C
        if ref is not None and not (default and ref in (default, f"refs/heads/{default}")):
            conf = P
        if path != mine[0]:
            conf = P
        best = conf if best is None else (C if C in (best, conf) else P)
    return best


def _repository_access(group: RunnerGroup, repo_full: str, visibility: str | None) -> Confidence | None:
    """The group's repository settings (visibility, selected list, public repositories) for one repository."""
    conf = C
    if group.visibility == "selected":
        if group.selected_repositories is None:
            conf = P
        elif repo_full not in _selected_repositories(group):
            return None
    private_only = group.visibility == "private" or not group.allows_public_repositories
    if private_only and visibility == "public":
        return None
    if private_only and visibility is None:
        conf = P
    return conf


def group_access(ctx: Context, group: RunnerGroup | None, job: Job, repo_full: str) -> Confidence | None:
    """Whether a job may use the runners of ``group`` (rule 3 of "Routing" in :mod:`graphkit.resolve`).

    Parameters
    ----------
    ctx
        the run's :class:`~graphkit.resolve.context.Context` (repositories, unread workflow lists).
    group
        the runner group, or None when it is not in the graph.
    job
        the job; its workflow (and top-level caller's) is checked against ``selected_workflows``.
    repo_full
        ``owner/name`` (lower-cased) of the repository whose runners the job uses (the caller's for a
        reusable workflow).

    Returns
    -------
    Confidence or None
        ``certain``, ``possible`` when a deciding fact is unknown (group not
        read, repository visibility, selected lists not read, a workflow ref
        other than the default branch), None when the group denies the job.
    """
    if group is None or group.inferred:
        return P  # settings not read
    repo = ctx.repos.get(repo_full)
    conf = _repository_access(group, repo_full, repo.visibility if repo else None)
    if conf is None or not group.restricted_to_workflows:
        return conf
    if canonical(group.id) in ctx.unknown_workflow_lists:
        return P
    wf = _workflow_access(group, job, repo)
    return None if wf is None else weakest(conf, wf)


def _repo_scoped(runner: Runner) -> bool:
    """A repository runner (scope ``owner/name``), in no runner group."""
    return "/" in runner.scope


def _group_name(runner: Runner) -> str:
    """The group of an org runner (``Default`` when not said), as ids write it."""
    return owner_key(runner.runner_group or "Default")


def _runner_group(ctx: Context, runner: Runner) -> RunnerGroup | None:
    """The group node of an org runner, None when not in the graph (or a repository runner)."""
    if _repo_scoped(runner):
        return None
    memo = ctx.memo.setdefault("group_of", {})
    if runner.id not in memo:
        try:
            memo[runner.id] = ctx.groups.get(ids.runner_group(runner.scope, _group_name(runner)))
        except ids.IdError:
            memo[runner.id] = None
    return memo[runner.id]


def _access(ctx: Context, runner: Runner, job: Job, repo_full: str) -> Confidence | None:
    """Whether ``job`` may run on ``runner``: repository runners always, org runners as their group allows
    (once per group, job and repository in a run: runners of one group share the answer)."""
    if _repo_scoped(runner):
        return C
    group = _runner_group(ctx, runner)
    memo = ctx.memo.setdefault("access", {})
    key = (id(group), job.id, repo_full)  # ctx.groups holds every group object for the run
    if key not in memo:
        memo[key] = group_access(ctx, group, job, repo_full)
    return memo[key]


# --------------------------------------------------------------------------- routing: labels and scope


def _serves_in_scope(runner: Runner, cand: RunsOnCandidate) -> Confidence | None:
    """Labels (:func:`~graphkit.resolve.labels.candidate_labels`) and group pin (group access not checked) of a
    runner in the job's scope (:meth:`Context.runners_in_scope`): how surely ``runner`` has what ``cand``
    asks, None when it has not."""
    if cand.group is not None and (_repo_scoped(runner) or _group_name(runner) != owner_key(cand.group)):
        return None
    return candidate_labels(runner, cand)


def _serving(ctx: Context, cand: RunsOnCandidate, repo_full: str) -> list[tuple[Runner, Confidence]]:
    """``(runner, labels confidence)`` of every runner in scope that has the candidate's labels, in
    ``ctx.runners`` order (what :func:`_serves` says of each runner; computed once per label set and scope)."""
    what = (tuple(cand.labels), tuple(cand.dynamic), cand.group)
    memo = ctx.memo.setdefault("serving", {})
    found: list[tuple[int, Runner, Confidence]] = []
    for part in ctx.scope_parts(repo_full):
        key = (what, part)
        if key not in memo:
            memo[key] = [(i, r, conf) for i, r in ctx.runners_of_scope(part)
                         if (conf := _serves_in_scope(r, cand)) is not None]
        found += memo[key]
    found.sort(key=lambda t: t[0])
    return [(r, conf) for _, r, conf in found]


def _queued(ctx: Context, job: Job, cand: RunsOnCandidate) -> bool:
    """A self-hosted candidate no runner takes, in an owner whose runner list is complete."""
    return (context_owner(job) in ctx.runners_complete and not _serving(ctx, cand, context_repo(job))
            and ctx.runs_self_hosted(cand.labels))


def queued_forever(graph: Graph) -> list[tuple[Job, RunsOnCandidate]]:
    """``runs-on`` label sets no runner can take, where the inventory lists every runner of the owner.

    GitHub queues such a job until a runner with all its labels comes online
    (and cancels it after about 24 hours; GitHub docs "Self-hosted runners
    reference", routing precedence,
    https://docs.github.com/en/actions/reference/runners/self-hosted-runners#routing-precedence-for-self-hosted-runners):
    it runs nowhere today, and whoever registers a runner with those labels
    receives it.  The resolver links such a candidate to no runner and infers
    no pool for it.

    Parameters
    ----------
    graph
        a built graph (jobs, runners, ``meta.runner_inventory.runners_complete``).

    Returns
    -------
    list of (Job, RunsOnCandidate)
        in job id order.
    """
    ctx = Context.of(graph)
    return [(j, cand) for j in nodes_of_kind(graph, NodeKind.JOB) if isinstance(j, Job)
            for cand in j.runs_on if _queued(ctx, j, cand)]


def _cand_key(job: Job, cand: RunsOnCandidate) -> str:
    if len(job.runs_on) == 1 and cand.matrix is None:
        return ""
    if cand.matrix is not None:
        return "matrix=" + json.dumps(cand.matrix, sort_keys=True, separators=(",", ":"), default=str)
    key = "labels=" + ",".join(sorted(x.strip().lower() for x in cand.labels))
    return key + (f";group={owner_key(cand.group)}" if cand.group else "")


def _props(cand: RunsOnCandidate, **extra: Any) -> dict[str, Any]:
    dyn = {"dynamic_labels": list(cand.dynamic)} if cand.dynamic else {}
    return {"labels": list(cand.labels), "group": cand.group, "matrix": cand.matrix, **dyn, **extra}


def _receive(ctx: Context, runner: Runner, job: Job, key: str, evidence: Evidence, confidence: Confidence,
             props: dict[str, Any]) -> None:
    lifetime = Lifetime.UNTIL_RUNNER_REMOVED
    if runner.ephemeral:
        lifetime, confidence = Lifetime.PER_JOB, P
        props = {**props, "ephemeral": True}
    ctx.graph.add_edge_fields(EdgeKind.RECEIVES_JOB, runner.id, job.id, [evidence], key=key, confidence=confidence,
                              lifetime=lifetime, props=props)


class _Unserved(NamedTuple):
    """A self-hosted ``runs-on`` candidate no inventory runner serves: for an inferred pool."""

    job: Job
    cand: RunsOnCandidate
    key: str


def _route_labels(ctx: Context, jobs: list[Job]) -> list[_Unserved]:
    """Link every self-hosted candidate to the real runners serving it; return the candidates none serves."""
    unserved: list[_Unserved] = []
    for job in jobs:
        repo_full = context_repo(job)
        for cand in job.runs_on:
            if not ctx.runs_self_hosted(cand.labels):
                _route_hosted(ctx, job, cand)
                continue
            key = _cand_key(job, cand)
            serving = _serving(ctx, cand, repo_full)
            if not serving and context_owner(job) in ctx.runners_complete:
                ctx.summary["queued_forever"].add(f"{job.id} [{key or ','.join(cand.labels)}]")
            elif not serving:
                unserved.append(_Unserved(job, cand, key))
            elif not _link_serving(ctx, serving, job, cand, key):
                ctx.summary["unrouted_candidates"].add(f"{job.id} [{key or ','.join(cand.labels)}]")
    return unserved


def _route_hosted(ctx: Context, job: Job, cand: RunsOnCandidate) -> None:
    """A GitHub-hosted label set (``ubuntu-latest``) that a self-hosted runner in the job's scope carries too:
    that runner may receive the job, ``possible`` (GitHub's hosted fleet may take it instead), and no pool is
    inferred nor the job called queued when none does.

    GitHub routes a job to any runner that has every label of its ``runs-on``; ``self-hosted`` is not required
    ("we strongly recommend specifying it ... to ensure that your job does not unintentionally specify any
    current or future GitHub-hosted runners", GitHub docs "Using labels with self-hosted runners",
    https://docs.github.com/en/actions/how-tos/manage-runners/self-hosted-runners/apply-labels), so a self-hosted
    runner registered with ``ubuntu-20.04`` ran the jobs meant for GitHub's ``ubuntu-20.04`` image
    (https://github.com/cocotb/cocotb/pull/3626); actions/runner's ADR 0397 names registering a hosted label such
    as ``ubuntu-latest`` a way to send a repository's jobs to self-hosted runners
    (https://github.com/actions/runner/blob/main/docs/adrs/0397-runner-registration-labels.md)."""
    serving = _serving(ctx, cand, context_repo(job))
    if serving:
        _link_serving(ctx, [(r, P) for r, _ in serving], job, cand, _cand_key(job, cand), hosted_label=True)


def _link_serving(ctx: Context, serving: list[tuple[Runner, Confidence]], job: Job, cand: RunsOnCandidate,
                  key: str, **extra: Any) -> bool:
    """``receives_job`` from each serving runner whose group lets the job in (``extra``: more edge props);
    False when none does."""
    linked = False
    repo_full, props = context_repo(job), _props(cand, **extra)  # the edges copy the props
    for runner, labels in serving:
        access = _access(ctx, runner, job, repo_full)
        if access is not None:
            linked = True
            _receive(ctx, runner, job, key, cand.evidence, weakest(cand.confidence, access, labels), props)
    return linked


# --------------------------------------------------------------------------- routing: inferred pools


def _add_pool(ctx: Context, owner: str, labels: Iterable[str], evidence: Evidence) -> Runner | None:
    """The inferred pool of ``owner`` with ``labels`` (made if absent); None, with a problem, for bad labels."""
    try:
        pid = ids.runner_pool(owner, labels)
    except ids.IdError as err:
        ctx.problem(evidence, err)
        return None
    labs = ids.pool_labels(labels)
    pool = Runner(id=pid, name=f"inferred runner pool {owner} [{', '.join(labs)}]",
                  labels=labs, scope=owner, inferred=True, evidence=[evidence])
    ctx.summary["inferred_pools"].add(pool.id)
    return ctx.add_pool(pool)


def _route_pools(ctx: Context, unserved: list[_Unserved]) -> None:
    """Pools are made first, then linked, so every unserved candidate sees every pool of its owner."""
    for job, cand, _ in unserved:
        _add_pool(ctx, context_owner(job), cand.labels, cand.evidence)
    for job, cand, key in unserved:
        want = set(ids.pool_labels(cand.labels))
        for pool in ctx.pools(context_owner(job)):
            if want <= set(ids.pool_labels(pool.labels)):
                _receive(ctx, pool, job, key, cand.evidence, P, _props(cand, inferred_pool=True))


# --------------------------------------------------------------------------- routing: unresolved runs-on


def unread_callee(graph: Graph, job: Job) -> str | None:
    """The id of the reusable workflow ``job`` calls when that workflow is not in the input, else None.

    The workflow ingestor makes such a callee an inferred :class:`~graphkit.model.Workflow` with a
    ``possible`` ``calls_workflow`` edge, and sets the caller's ``runs_on_unresolved`` (a job that calls a
    reusable workflow has no ``runs-on`` of its own: the called workflow's jobs choose their runners,
    https://docs.github.com/en/actions/sharing-automations/reusing-workflows).  Where those jobs run is then
    unknown, which is not "on a self-hosted runner".
    """
    if job.runs_on_unresolved is None or job.id not in graph:
        return None
    for e in graph.out_edges(job.id):
        if e.kind is EdgeKind.CALLS_WORKFLOW and e.target in graph and graph.node(e.target).inferred:
            return e.target
    return None


#: edges by which a run of a job is given to a runner (or a group's runners): their sources tell the owner
_ROUTED = frozenset({EdgeKind.RECEIVES_JOB, EdgeKind.RAN_JOB, EdgeKind.GROUP_RECEIVES_JOB})


def caller_scopes(graph: Graph, job_id: str) -> list[str] | None:
    """The repositories whose runs of ``job_id`` reach it through the runners the graph routes it to.

    A self-hosted runner receives jobs of its own scope only: a repository runner those of its repository, an
    organization runner (through its group) those of the organization's repositories (GitHub docs "About
    self-hosted runners", https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/about-self-hosted-runners,
    and "Managing access to self-hosted runners using groups"); a called workflow's jobs run on the
    **caller's** runners (https://docs.github.com/en/actions/sharing-automations/reusing-workflows).  So the
    caller of a run that a held runner receives is a repository of that runner's scope.

    Returns
    -------
    list of str or None
        ``owner/name`` (a repository runner) or ``owner/*`` (an organization runner or group), lower-cased,
        sorted, a repository left out when its owner's ``owner/*`` is there; None when no runner, group or
        job history routes the job (nothing tells the caller).
    """
    found: set[str] = set()
    for e in graph.in_edges(job_id):
        if e.kind not in _ROUTED:
            continue
        node = graph.node(e.source)
        if isinstance(node, Runner):
            if node.platform != "github":
                return None
            found.add(repo_key(node.scope) if _repo_scoped(node) else f"{owner_key(node.scope)}/*")
        elif isinstance(node, RunnerGroup):
            found.add(f"{owner_key(node.owner)}/*")
        else:
            return None
    if not found:
        return None
    return sorted(s for s in found if s.endswith("/*") or f"{s.split('/', 1)[0]}/*" not in found)


#: The caller of a reusable workflow's run when nothing tells it: any repository that can call the workflow
#: (``owner/name`` as ids write it, both parts ``*``).
ANY_CALLER = "*/*"


def unknown_caller_repos(graph: Graph, job_id: str) -> list[str]:
    """The repositories whose secrets and GITHUB_TOKEN a run of ``job_id`` has when its caller is a workflow
    graphkit did not read: :func:`caller_scopes` (``owner/*`` or ``owner/name``), else ``[ANY_CALLER]``.

    In a called workflow ``secrets`` and the GITHUB_TOKEN are the caller's, never the called repository's
    (https://docs.github.com/en/actions/sharing-automations/reusing-workflows; semantics.md §3).
    """
    return caller_scopes(graph, job_id) or [ANY_CALLER]


def usable_runners(ctx: Context, job: Job) -> list[Runner]:
    """Every inventory runner ``job``'s repository may use, whatever the labels (scope and group access).

    Access is decided once per access class (the repository's own runners; the runners of one group, see
    :func:`_access`), not once per runner: the list is the runners in scope whose class allows the job, in
    ``ctx.runners`` order (issue 19: per job and runner it took 37 s on a 15,000-repository organization).
    """
    return list(usable_runners_shared(ctx, job))


def usable_runners_shared(ctx: Context, job: Job) -> list[Runner]:
    """:func:`usable_runners` without the copy: the one list every job of an access class shares (read it, never
    change it; two jobs of one class get the same object, so a caller can skip a class it has seen)."""
    repo_full = context_repo(job)
    repo_part, org_part = ctx.scope_parts(repo_full)
    own = ctx.runners_of_scope(repo_part)  # repository runners: always usable
    org_runners, tags, first, by_allowed = _org_classes(ctx, org_part)
    allowed = frozenset(tag for tag, r in first.items() if _access(ctx, r, job, repo_full) is not None)
    key = (repo_full if own else None, allowed)
    got = by_allowed.get(key)
    if got is None:
        kept = [(i, r) for (i, r), tag in zip(org_runners, tags) if tag in allowed]
        got = by_allowed[key] = [r for _, r in sorted([*own, *kept], key=lambda t: t[0])]
    return got


#: an owner's organization runners, their access classes, the first runner of each class, usable lists by class
_OrgClasses = tuple[list[tuple[int, Runner]], list[int], dict[int, Runner], dict[tuple, list[Runner]]]


def _org_classes(ctx: Context, org_part: tuple[bool, str]) -> _OrgClasses:
    """The organization runners of one owner (:meth:`Context.runners_of_scope`), each one's access class (the id
    of its group object, see :func:`_access`), the first runner of each class, and a memo of
    :func:`usable_runners`' lists (made once per owner)."""
    memo = ctx.memo.setdefault("org_classes", {})
    found = memo.get(org_part)
    if found is None:
        org_runners = ctx.runners_of_scope(org_part)
        tags = [id(_runner_group(ctx, r)) for _, r in org_runners]
        first: dict[int, Runner] = {}
        for tag, (_, r) in zip(tags, org_runners):
            first.setdefault(tag, r)
        found = memo[org_part] = (org_runners, tags, first, {})
    return found


def _route_unresolved(ctx: Context, jobs: list[Job]) -> None:
    """A ``runs-on`` known only at run time: every runner the repository can use and every pool of the owner,
    ``possible``; no pool is made for it.

    Two cases, one rule: an expression in the job's own ``runs-on`` that cannot be evaluated statically (an
    input, a matrix past its limit, a step output), and a call of a workflow that is not in the input
    (:func:`unread_callee`).  Such an expression may evaluate to any ``runs-on`` form (a label, an array of
    labels, a ``group``/``labels`` mapping: GitHub docs "Workflow syntax", ``jobs.<job_id>.runs-on``,
    https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idruns-on),
    a GitHub-hosted label among them, and a GitHub-hosted runner is none of the owner's runners; nothing read
    says the job asks for a self-hosted one.  So with no runner the repository can use and no pool of the owner
    the job stays unrouted: ``runs_on_unresolved`` and ``meta.resolve.unresolved_jobs`` say so (and, for an
    unread callee, the finding ``called-workflow-not-read``), never an invented ``runner:inferred:...`` pool."""
    for job in jobs:
        ev = job.runs_on_unresolved
        if ev is None:
            continue
        ctx.summary["unresolved_jobs"].add(job.id)
        unread = unread_callee(ctx.graph, job)
        props = {"unresolved": True, "detail": ev.detail, **({"called_workflow_unread": unread} if unread else {})}
        for runner in [*usable_runners(ctx, job), *ctx.pools(context_owner(job))]:
            _receive(ctx, runner, job, "unresolved", ev, P, props)


def route(ctx: Context, jobs: list[Job]) -> None:
    """Add every ``RECEIVES_JOB`` edge of ``jobs`` (and the inferred pools they need) to ``ctx.graph``."""
    _route_pools(ctx, _route_labels(ctx, jobs))
    _route_unresolved(ctx, jobs)
