"""GitLab semantics: which runner picks a GitLab job, which CI/CD variables reach it (pure graph -> graph).

Runs inside :func:`graphkit.resolve.resolve` after the GitHub steps.  Inputs: GitLab job nodes
(``Job.platform == "gitlab"``, facts in :class:`~graphkit.model.gitlab.GitLabJob`), GitLab runners
(``Runner.gitlab``, :class:`~graphkit.model.gitlab_runners.GitLabRunnerInfo`), GitLab variables (``Secret`` of
scope ``gitlab``) and the project facts of the inventory (``meta.runner_inventory.gitlab_projects``: protected
branches and tags).  Jobs name their project without the instance: a project path is matched on every instance
the graph knows (a graph normally holds one).

Routing (``runner -> job`` ``receives_job``, revoked by deleting the runner)
------------------------------------------------------------------------------
1. a paused runner takes no new job (https://docs.gitlab.com/ci/runners/runners_scope/#pause-or-resume-a-project-runner);
2. scope: an instance runner serves every project, a group runner the projects of its groups and their
   subgroups, a project runner its projects (https://docs.gitlab.com/ci/runners/runners_scope/);
3. tags: every tag of the job is a tag of the runner; a job without tags only goes to ``run_untagged`` runners
   (https://docs.gitlab.com/ci/yaml/#tags); a tag expanded at run time (``$VAR``) is ``possible``, and so is every
   runner, inferred pools included, for the jobs of a dynamic child pipeline (``GitLabJob.generated``: their
   tags are unknown);
4. access level: a ``ref_protected`` runner takes only jobs on protected branches and tags; a ``not_protected``
   runner takes jobs of both, and so receives the protected variables of protected-ref jobs
   (https://docs.gitlab.com/ci/runners/configure_runners/#prevent-runners-from-revealing-sensitive-information);
5. a job with tags that no GitLab runner of the graph serves runs on a runner the input does not list: an inferred
   pool ``runner:inferred:{instance host}:{tags}`` (``possible``; the job's own tags, no implicit ``self-hosted``),
   as GitHub's self-hosted label sets get
   (:func:`_pools`; not for a tag known only at run time, nor GitLab.com's hosted runners' ``saas-*`` tags).

A trigger job (``trigger:``, a bridge) runs on no runner; a job with no trigger never runs.  Whether a ref is
protected: the job's trigger says so (``$CI_COMMIT_REF_PROTECTED`` in its rules), else its literal ref names
against the project's protected branches or tags, whose names may hold ``*`` wildcards matching any text
(https://docs.gitlab.com/user/project/repository/branches/protected/#protect-multiple-branches-with-wildcard-rules,
https://docs.gitlab.com/user/project/protected_tags/#wildcard-protected-tags); a merge request from a fork runs
on the fork's branch, never protected in the project.  Undecided facts make the edge ``possible``, never absent.

CI/CD variables (``job -> secret`` ``reads_secret``, revoked by rotating the variable)
----------------------------------------------------------------------------------------
Every project, group (the project's ancestors) and instance variable reaches every job of the project, named or
not ("CI/CD variables ... are always available in jobs", https://docs.gitlab.com/ci/secrets/), except:
a **protected** variable only jobs on protected refs (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable;
its edge says ``protected_refs_only``: a merge request pipeline from a fork is never protected, so the fork's code
never receives it, https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/#use-with-forked-projects and
https://gitlab.com/gitlab-org/gitlab/-/merge_requests/188008, GitLab 18.x);
an **environment-scoped** one only jobs whose ``environment`` name matches the scope, ``*`` matching any text
(https://docs.gitlab.com/ci/environments/#limit-the-environment-scope-of-a-cicd-variable).  When several
variables of one key reach a job, the job receives one value (project over group over instance, the most
specific environment scope first, https://docs.gitlab.com/ci/variables/#cicd-variable-precedence): the others
are ``possible``.  ``masked`` and ``hidden`` only hide the value in logs and the UI: the job still receives it.

Persistence (:func:`gitlab_persistence`)
----------------------------------------
The executor decides what a job leaves behind (https://docs.gitlab.com/runner/executors/,
https://docs.gitlab.com/runner/security/): ``shell`` (and ``ssh``, ``custom``, ``parallels``, ``virtualbox``)
runs the job on the machine as the runner's user, so it persists on the runner and its host; ``docker``,
``docker-autoscaler``, ``kubernetes``, ``instance`` start a container or machine per job: the host is reached
only with ``privileged`` or a mounted ``docker.sock`` (unknown: ``possible``); ``docker+machine`` reuses its
machines for several jobs (``MaxBuilds``): ``possible`` on the host.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from graphkit.graph import Graph
from graphkit.model import (Confidence, Edge, EdgeKind, Job, Lifetime, NodeKind, RevocationAction,
                            Runner, Secret, ids)
from graphkit.model.gitlab import GitLabJob, GitLabTrigger
from graphkit.model.gitlab_runners import GitLabRunnerInfo, GitLabVariableInfo
from graphkit.resolve.context import C, P, host_of, nodes_of_kind, weakest

__all__ = ["GitLabContext", "gitlab_persistence", "link_gitlab", "ref_protected", "scope_matches", "wildcard_match"]


def wildcard_match(pattern: str, name: str) -> bool:
    """GitLab's ``*`` wildcard (protected branch and tag names, environment scopes): ``*`` matches any text,
    ``/`` included; everything else is literal and case-sensitive.

    >>> wildcard_match("release/*", "release/1.2/hotfix"), wildcard_match("*-stable", "12-3-stable")
    (True, True)
    >>> wildcard_match("main", "Main")
    False
    """
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), name, re.S) is not None


def scope_matches(scope: str, environment: str | None, *, dynamic: bool = False) -> Confidence | None:
    """Whether a variable with ``environment_scope`` ``scope`` reaches a job of ``environment`` (None: no
    environment).  ``dynamic``: the name holds a CI/CD variable (``review/$CI_COMMIT_REF_SLUG``), read as a
    pattern whose ``$VAR`` parts match any text.

    >>> scope_matches("*", None), scope_matches("review/*", "review/feature-1"), scope_matches("production", None)
    (<Confidence.CERTAIN: 'certain'>, <Confidence.CERTAIN: 'certain'>, None)
    >>> scope_matches("review/*", "review/$CI_COMMIT_REF_SLUG", dynamic=True)
    <Confidence.POSSIBLE: 'possible'>
    """
    if scope == "*":
        return C
    if environment is None:
        return None
    if not dynamic:
        return C if wildcard_match(scope, environment) else None
    literal = re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", "*", environment)
    from graphkit.iam.globs import glob_intersects
    return P if glob_intersects(scope.replace("?", "\\?"), literal.replace("?", "\\?")) else None


# --------------------------------------------------------------------------- context


@dataclass
class GitLabContext:
    """What the GitLab steps read once: runners, variables, project facts."""

    graph: Graph
    runners: list[Runner]
    variables: list[Secret]
    projects: dict[str, dict]
    instances: set[str]
    variables_complete: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, graph: Graph) -> GitLabContext:
        """Read the GitLab nodes and the inventory's project facts of ``graph``."""
        runners = [r for r in nodes_of_kind(graph, NodeKind.RUNNER) if isinstance(r, Runner) and r.platform == "gitlab"
                   and not r.inferred]
        variables = [s for s in nodes_of_kind(graph, NodeKind.SECRET) if isinstance(s, Secret) and s.gitlab is not None]
        facts = graph.meta.inventory
        projects = {k.split("/", 1)[1]: v for k, v in facts.gitlab_projects.items() if "/" in k}
        instances = {r.gitlab.instance for r in runners if r.gitlab} | {
            s.gitlab.path.split("/", 1)[0] for s in variables if s.gitlab}
        return cls(graph, runners, variables, projects, instances, set(facts.gitlab_variables_complete))

    def project(self, path: str) -> dict:
        """The inventory facts of a project path (lower-cased, without the instance); {} when not listed."""
        return self.projects.get(path.lower(), {})


def _gitlab_jobs(graph: Graph) -> list[Job]:
    return [j for j in nodes_of_kind(graph, NodeKind.JOB) if isinstance(j, Job) and j.platform == "gitlab"
            and j.gitlab is not None]


# --------------------------------------------------------------------------- protected refs


def _literal(ref: str) -> bool:
    return not (ref.startswith("/") and ref.endswith("/") and len(ref) > 1)


def ref_protected(trigger: GitLabTrigger, project: dict) -> bool | None:
    """Whether the refs of ``trigger`` are protected in the project (``project``: inventory facts, {} unknown).

    True: all protected; False: none; None: some may be, or unknown.  ``$CI_DEFAULT_BRANCH`` (the ref of
    ``if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH``) is the project's ``default_branch`` when the inventory
    gives it, else unknown; it was compared as the literal text ``$CI_DEFAULT_BRANCH`` and found unprotected.

    >>> from graphkit.model import Evidence
    >>> t = GitLabTrigger(ref_type="branch", sources=("push",), refs=("$CI_DEFAULT_BRANCH",), evidence=Evidence(file="c"))
    >>> ref_protected(t, {"default_branch": "main", "protected_branches": ["main"]}), ref_protected(t, {"protected_branches": ["main"]})
    (True, None)
    """
    if trigger.protected is not None:
        return trigger.protected
    if trigger.ref_type == "merge_request" and trigger.from_fork:
        return False  # the fork's branch: not a protected ref of the project
    patterns = project.get("protected_tags" if trigger.ref_type == "tag" else "protected_branches")
    if patterns is None:
        return None
    if not patterns:
        return False
    if trigger.refs is None:  # any ref but the excluded ones: unprotected when they hold every protected ref
        return False if _excluded_cover(patterns, trigger.refs_excluded, project) else None
    refs = [project.get("default_branch") if r == "$CI_DEFAULT_BRANCH" else r for r in trigger.refs]
    if not all(r and _literal(r) and not r.startswith("$") for r in refs):
        return None  # a /regex/, or a name known only at run time (the default branch unknown)
    hits = {any(wildcard_match(p, ref) for p in patterns) for ref in refs if ref}
    return next(iter(hits)) if len(hits) == 1 else None


def _excluded_cover(patterns: list[str], excluded: tuple[str, ...], project: dict) -> bool:
    r"""Whether every ref the protected ``patterns`` name (GitLab's ``*`` wildcard,
    https://docs.gitlab.com/user/project/repository/branches/protected/) is one of the ``excluded`` refs (literal
    names, ``$CI_DEFAULT_BRANCH`` as the project's ``default_branch`` when known, ``/regex/`` patterns), so that
    a job on any other ref never runs on a protected one and never receives protected variables
    (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable).  A wildcard pattern names endless refs: only
    a regex holding all of them covers it (:func:`_regex_covers`).

    >>> _excluded_cover(["main"], ("main",), {}), _excluded_cover(["main", "release/*"], ("main",), {})
    (True, False)
    >>> _excluded_cover(["main", "release/*"], ("$CI_DEFAULT_BRANCH", r"/^release\//"), {"default_branch": "main"})
    True
    """
    if not excluded:
        return False
    names = {project.get("default_branch") if r == "$CI_DEFAULT_BRANCH" else r for r in excluded}
    literal = {n for n in names if n and _literal(n) and not n.startswith("$")}
    regexes = [n[1:-1] for n in names if n and not _literal(n)]
    for pattern in patterns:
        if "*" not in pattern:
            if pattern not in literal and not any(_regex_matches(rx, pattern) for rx in regexes):
                return False
        elif not any(_regex_covers(rx, pattern.split("*", 1)[0]) for rx in regexes):
            return False
    return True


def _regex_matches(regex: str, name: str) -> bool:
    """Whether a ``/regex/`` of ``only``/``except`` or ``=~`` finds ``name`` (unanchored, as GitLab's RE2 search;
    https://docs.gitlab.com/ci/jobs/job_rules/#compare-a-variable-to-a-regular-expression); False when Python
    cannot read it."""
    try:
        return re.search(regex, name) is not None
    except re.error:
        return False


#: A regex that finds every name holding a literal text (``^`` at its start: every name starting with it), with
#: an optional trailing ``.*`` or ``.*$``: ``^release\/``, ``/^release\/.*$/``, ``stable``.
_PREFIX_REGEX = re.compile(r"(\^?)((?:[A-Za-z0-9_/-]|\\[./-])+)(?:\.\*\$?)?")


def _regex_covers(regex: str, head: str) -> bool:
    """Whether ``regex`` finds every name starting with ``head`` (the text of a wildcard pattern before its first
    ``*``): a regex of :data:`_PREFIX_REGEX`'s form whose literal text ``head`` starts with (anchored) or holds.
    Any other regex is not read as covering (the protected refs stay possible)."""
    m = _PREFIX_REGEX.fullmatch(regex)
    if m is None:
        return False
    text = re.sub(r"\\(.)", r"\1", m.group(2))
    return head.startswith(text) if m.group(1) else text in head


def _protected_runs(job: GitLabJob, project: dict) -> tuple[Confidence | None, Confidence | None]:
    """``(on protected refs, on unprotected refs)``: certain when every trigger is, possible when some may be,
    None when none is."""
    states = [(ref_protected(t, project), t.confidence) for t in job.triggers]
    prot = [(s, c) for s, c in states if s is not False]
    unprot = [(s, c) for s, c in states if s is not True]

    def level(items: list[tuple[bool | None, Confidence]], want: bool | None) -> Confidence | None:
        if not items:
            return None
        return C if len(items) == len(states) and all(s is want and c is C for s, c in items) else P
    return level(prot, True), level(unprot, False)


# --------------------------------------------------------------------------- routing


def _in_scope(info: GitLabRunnerInfo, project: str) -> Confidence | None:
    """Runner scope (instance, group and subgroups, project) against a project path."""
    path = project.lower()
    if info.runner_type == "instance_type":
        return C
    if info.runner_type == "group_type":
        if info.groups is None:
            return P
        return C if any(path.startswith(g.lower().strip("/") + "/") for g in info.groups) else None
    if info.runner_type == "project_type":
        if info.projects is None:
            return P
        return C if path in {p.lower().strip("/") for p in info.projects} else None
    return P


def _tags(info: GitLabRunnerInfo, job: GitLabJob) -> Confidence | None:
    """The job's tags against the runner's (``run_untagged`` for a job without tags); a dynamic child pipeline's
    jobs (``generated``) may have any tags or none: possible on every runner."""
    if job.generated:
        return P
    if not job.tags and not job.dynamic_tags:
        return C if info.run_untagged else (P if info.run_untagged is None else None)
    if info.tag_list is None:
        return P
    have = set(info.tag_list)
    static = [t for t in job.tags if t not in job.dynamic_tags]
    if not set(static) <= have:
        return None
    return P if job.dynamic_tags else C


def _access(info: GitLabRunnerInfo, on_protected: Confidence | None) -> Confidence | None:
    """``ref_protected`` runners take only protected-ref jobs; unknown access level: possible."""
    if info.access_level == "not_protected":
        return C
    if info.access_level == "ref_protected":
        return on_protected
    return P


def _serves(runner: Runner, job: Job, project: dict) -> Confidence | None:
    info, gl = runner.gitlab, job.gitlab
    if info is None or gl is None or info.paused:
        return None
    parts = [_in_scope(info, gl.project), _tags(info, gl), _access(info, _protected_runs(gl, project)[0])]
    if any(p is None for p in parts):
        return None
    return weakest(*parts, *(t.confidence for t in gl.triggers), P if info.paused is None else C)  # type: ignore[arg-type]


#: GitLab.com's hosted runners take the jobs whose tags name their machine type (``saas-linux-small-amd64``,
#: ``saas-macos-medium-m1``, ``saas-windows-medium-amd64``...; https://docs.gitlab.com/ci/runners/hosted_runners/):
#: no runner of the project's owner, so no inferred pool (as for a GitHub-hosted ``runs-on``).
_HOSTED = ("gitlab.com", "saas-")


def _pool_tags(gl: GitLabJob) -> tuple[str, ...] | None:
    """The tags of the inferred pool a job no runner of the graph serves stands for: its tags (with the values the
    file gives their variables), None for a job without tags, with a tag known only at run time, or for GitLab.com's
    hosted runners."""
    tags = gl.expanded_tags if gl.dynamic_tags else gl.tags
    if gl.generated or not tags or any("$" in t for t in tags) or gl.instance is None:
        return None
    if gl.instance == _HOSTED[0] and any(t.startswith(_HOSTED[1]) for t in tags):
        return None
    return tags


def _pools(ctx: GitLabContext, unserved: list[tuple[Job, tuple[str, ...]]], generated: list[Job]) -> set[str]:
    """Inferred pools (:func:`graphkit.model.ids.runner_pool`, owner: the instance host, keyed by the job's own tags:
    GitLab adds no implicit tag, https://docs.gitlab.com/ci/yaml/#tags) for the tagged jobs no GitLab runner of the
    graph serves: such a job runs only on a runner with all its tags
    (https://docs.gitlab.com/ci/runners/configure_runners/#control-jobs-that-a-runner-can-run), one the input does
    not list.  Made first, then each job linked (``possible``) to every pool of its instance holding its tags, as
    GitHub's self-hosted label sets are (:mod:`graphkit.resolve.routing`), and the stand-in of a dynamic child
    pipeline (``generated``: the generated YAML may carry any tags,
    https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#dynamic-child-pipelines) to every pool of its
    instance, as GitHub's unresolved ``runs-on`` is."""
    pools: dict[str, Runner] = {}
    for job, tags in unserved:
        gl = job.gitlab
        assert gl is not None and gl.instance is not None
        try:
            pid = ids.runner_pool(gl.instance, tags, self_hosted=False)
        except ids.IdError:
            continue  # a tag that cannot be part of an id: the job stays unrouted, as with no pool
        if pid not in pools:
            labels = ids.pool_labels(tags, self_hosted=False)
            pools[pid] = Runner(id=pid, name=f"inferred GitLab runner pool {gl.instance} [{', '.join(labels)}]",
                                labels=labels, scope=gl.instance, platform="gitlab", inferred=True,
                                evidence=[gl.evidence])
            ctx.graph.add_node(pools[pid])
    wanted = [(job, set(ids.pool_labels(tags, self_hosted=False))) for job, tags in unserved]
    for job, want in wanted + [(job, None) for job in generated]:
        gl = job.gitlab
        assert gl is not None
        for pool in pools.values():
            if pool.scope == gl.instance and (want is None or want <= set(pool.labels)):
                ctx.graph.add_edge(Edge(kind=EdgeKind.RECEIVES_JOB, source=pool.id, target=job.id,
                                        evidence=[gl.evidence], confidence=P, lifetime=Lifetime.UNTIL_RUNNER_REMOVED,
                                        revoked_by=RevocationAction.DELETE_GITLAB_RUNNER,
                                        props={"tags": list(gl.tags), "inferred_pool": True, "platform": "gitlab"}))
    return set(pools)


def _route(ctx: GitLabContext, jobs: Iterable[Job]) -> set[str]:
    """``receives_job`` from the GitLab runners of the graph; the inferred pools made (:func:`_pools`)."""
    unserved: list[tuple[Job, tuple[str, ...]]] = []
    generated: list[Job] = []
    for job in jobs:
        gl = job.gitlab
        if gl is None or gl.bridge is not None or not gl.triggers:
            continue  # a trigger job runs on no runner; a job with no trigger never runs
        if gl.generated and gl.instance is not None:
            generated.append(job)
        project = ctx.project(gl.project)
        served = False
        for runner in ctx.runners:
            conf = _serves(runner, job, project)
            if conf is None:
                continue
            served = True
            info = runner.gitlab
            ctx.graph.add_edge(Edge(kind=EdgeKind.RECEIVES_JOB, source=runner.id, target=job.id,
                                    evidence=[gl.evidence, *runner.evidence[:1]], confidence=conf,
                                    lifetime=Lifetime.UNTIL_RUNNER_REMOVED,
                                    revoked_by=RevocationAction.DELETE_GITLAB_RUNNER,
                                    props={"tags": list(gl.tags), "access_level": info.access_level if info else None,
                                           "platform": "gitlab"}))
        tags = None if served else _pool_tags(gl)
        if tags is not None:
            unserved.append((job, tags))
    return _pools(ctx, unserved, generated)


# --------------------------------------------------------------------------- variables

_LEVEL_RANK = {"project": 0, "group": 1, "instance": 2}


def _variable_reaches(info: GitLabVariableInfo, path: str, instances: set[str]) -> Confidence | None:
    """The variable's level and path against a job's project path (no instance: every known one)."""
    host, _, full = info.path.partition("/")
    same_instance = C if len(instances) <= 1 else P
    if info.level == "instance":
        return same_instance
    target = full.lower()
    if info.level == "project":
        return same_instance if path == target else None
    return same_instance if path.startswith(target + "/") else None


def _delivery(ctx: GitLabContext, job: Job, v: Secret) -> Confidence | None:
    gl, info = job.gitlab, v.gitlab
    assert gl is not None and info is not None
    where = _variable_reaches(info, gl.project.lower(), ctx.instances)
    if where is None:
        return None
    env = gl.environment
    scoped = scope_matches(info.environment_scope, env.name if env else None, dynamic=bool(env and env.dynamic))
    if gl.generated:  # a generated job may name any environment
        scoped = C if info.environment_scope == "*" else P
    if scoped is None:
        return None
    protected: Confidence | None = C
    if info.protected is not False:  # protected, or unknown: reaches protected-ref runs for sure
        on_protected, on_unprotected = _protected_runs(gl, ctx.project(gl.project))
        protected = on_protected if info.protected else (P if on_unprotected is not None else C)
    if protected is None:
        return None
    return weakest(where, scoped, protected, *(t.confidence for t in gl.triggers))


def _precedence(v: Secret) -> tuple[int, int]:
    """Lower wins: the level (project, group, instance), then the scope (exact, wildcard, ``*``)."""
    scope = v.gitlab.environment_scope if v.gitlab else "*"
    return (_LEVEL_RANK[v.gitlab.level if v.gitlab else "instance"], 2 if scope == "*" else (1 if "*" in scope else 0))


def _link_variables(ctx: GitLabContext, jobs: Iterable[Job]) -> None:
    for job in jobs:
        gl = job.gitlab
        if gl is None or gl.bridge is not None or not gl.triggers:
            continue
        reached = [(v, c) for v in ctx.variables if (c := _delivery(ctx, job, v)) is not None]
        best: dict[str, tuple[int, int]] = {}
        for v, _ in reached:
            best[v.secret_name] = min(best.get(v.secret_name, (9, 9)), _precedence(v))
        for v, conf in reached:
            shadowed = _precedence(v) != best[v.secret_name]
            ctx.graph.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job.id, target=v.id,
                                    evidence=[gl.evidence, *v.evidence[:1]], confidence=P if shadowed else conf,
                                    revoked_by=RevocationAction.ROTATE_CICD_VARIABLE,
                                    props={"via": "gitlab variable", "level": v.gitlab.level if v.gitlab else None,
                                           **({"shadowed": True} if shadowed else {}),
                                           **({"protected_refs_only": True} if v.gitlab and v.gitlab.protected
                                              else {})}))


# --------------------------------------------------------------------------- persistence

#: Executors that run the job's commands on the runner's machine (https://docs.gitlab.com/runner/executors/).
_ON_MACHINE = frozenset({"shell", "ssh", "custom", "parallels", "virtualbox"})
#: Executors with a container or machine per job.
_ISOLATED = frozenset({"docker", "docker-windows", "docker-autoscaler", "kubernetes", "instance"})


def gitlab_persistence(info: GitLabRunnerInfo | None) -> tuple[Confidence | None, Confidence | None]:
    """``(persists on the runner, persists on its host)`` for a job on a GitLab runner (module docstring).

    >>> from graphkit.model.gitlab_runners import GitLabRunnerInfo as I
    >>> gitlab_persistence(I(instance="g", executor="shell")), gitlab_persistence(I(instance="g", executor="docker"))
    ((<Confidence.CERTAIN: 'certain'>, <Confidence.CERTAIN: 'certain'>), (None, <Confidence.POSSIBLE: 'possible'>))
    >>> gitlab_persistence(I(instance="g", executor="kubernetes", privileged=False, docker_socket=False))
    (None, None)
    """
    executor = (info.executor or "").lower() if info else ""
    if executor in _ON_MACHINE:
        return C, C
    if executor in _ISOLATED:
        if info and (info.privileged or info.docker_socket):
            return None, C
        if info and info.privileged is False and info.docker_socket is False:
            return None, None
        return None, P
    if executor == "docker+machine":
        return None, P
    return P, P


def link_gitlab_persistence(graph: Graph, receives: Sequence[Edge]) -> None:
    """``PERSISTS_ON`` edges of the ``receives_job`` edges of GitLab runners (:func:`gitlab_persistence`)."""
    for receive in receives:
        runner = graph.node(receive.source)
        if not isinstance(runner, Runner):
            continue
        on_runner, on_host = gitlab_persistence(runner.gitlab)
        host = host_of(graph, runner.id)
        targets = [(runner.id, on_runner, False)]
        if host is not None and host.ephemeral is not True:
            targets.append((host.id, on_host, True))
        for target, conf, is_host in targets:
            if conf is None:
                continue
            graph.add_edge(Edge(kind=EdgeKind.PERSISTS_ON, source=receive.target, target=target,
                                evidence=list(receive.evidence), confidence=weakest(conf, receive.confidence),
                                lifetime=Lifetime.UNTIL_REIMAGED if is_host else Lifetime.UNTIL_RUNNER_REMOVED,
                                revoked_by=RevocationAction.REIMAGE_HOST if is_host else runner.revoked_by,
                                props={"via_runner": runner.id, "rule": "gitlab executor "
                                       + ((runner.gitlab.executor if runner.gitlab else None) or "unknown")}))


def link_gitlab(graph: Graph) -> set[str]:
    """Route GitLab jobs to GitLab runners and link the CI/CD variables they receive (module docstring).

    Parameters
    ----------
    graph
        a merged graph; GitLab jobs, runners and variables optional.

    Returns
    -------
    set of str
        the ids of the inferred pools made; ``graph`` gains them, ``receives_job`` and ``reads_secret`` edges
        (idempotent).
    """
    ctx = GitLabContext.of(graph)
    jobs = _gitlab_jobs(graph)
    if not jobs:
        return set()
    pools = _route(ctx, jobs)
    _link_variables(ctx, jobs)
    return pools

