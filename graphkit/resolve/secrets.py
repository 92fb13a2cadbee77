"""Secrets: ``job -> secret`` ``READS_SECRET`` and grant edges (rules in :mod:`graphkit.resolve`, "Secrets").

A name that no complete inventory holds: when the lists of every scope that
could hold it for the job (organization, repository, and the job's
environment) are known complete and none holds it (visible to the
repository), the secret does not exist and no node is invented for it; the
rule ``referenced-secret-missing`` reports it (:func:`missing_secret_refs`).
GitHub passes an empty string for a secret that is not set
(https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from graphkit.errors import GraphkitError
from graphkit.graph import Graph
from graphkit.model import (Confidence, Edge, EdgeKind, Evidence, Job, Lifetime, NodeKind, Repository, Secret,
                            SecretGrant, SecretRef, Workflow, ids)
from graphkit.model.ids import env_key, repo_key, secret_key
from graphkit.resolve.context import C, P, Context, context_repo, nodes_of_kind, owner_of, weakest
from graphkit.resolve.routing import ANY_CALLER, unknown_caller_repos

__all__ = ["link_secrets", "link_unknown_caller_tokens", "missing_secret_refs"]

#: Names a stored (org, repository, environment) secret can have: letters, digits, ``_``, not a leading digit.
#: https://docs.github.com/en/actions/security-for-github-actions/security-guides/about-secrets ("Naming your
#: secrets").  Other names (``aws-access-key-id`` of a ``workflow_call`` secret) are filled by a caller only.
_STORED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _org_visibility(ctx: Context, secret: Secret, repo_full: str) -> Confidence | None:
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
    if repo_full in {repo_key(r) for r in secret.selected_repositories}:
        return C
    return P if "*" in repo_full else None  # an unknown caller of the owner may be a selected repository


def _lookup(ctx: Context, repo_full: str, env: str | None, name: str) -> tuple[Secret | None, Confidence]:
    """Resolve one secret name: environment, then repository, then organization (semantics §3).

    Returns the declared secret (or None) and the confidence that it is the
    one the job receives (``possible`` when a shadowing scope is incomplete or
    the org secret's visibility is unknown).
    """
    name = secret_key(name)
    shadow_complete = True
    if env is not None:
        s = ctx.secrets.env.get((repo_full, env_key(env), name))
        if s is not None:
            return s, C
        shadow_complete = ctx.is_complete(ids.environment, repo_full, env)
    s = ctx.secrets.repo.get((repo_full, name))
    if s is not None:
        return s, C if shadow_complete else P
    shadow_complete = shadow_complete and ctx.is_complete(ids.repository, repo_full)
    s = ctx.secrets.org.get((owner_of(repo_full), name))
    if s is not None:
        vis = _org_visibility(ctx, s, repo_full)
        if vis is not None:
            return s, weakest(vis, C if shadow_complete else P)
    return None, C


def _all_complete(ctx: Context, repo_full: str, env: str | None) -> bool:
    """Whether the secret lists of every scope a job of ``repo_full`` (in environment ``env``) reads are complete."""
    return (ctx.is_complete(ids.organization, owner_of(repo_full)) and ctx.is_complete(ids.repository, repo_full)
            and (env is None or ctx.is_complete(ids.environment, repo_full, env)))


def _unknown_caller(ctx: Context, job: Job) -> bool:
    """True for a job of the run of a caller outside the ingested files: the instance of a reusable workflow
    (``on: workflow_call`` only) with no caller, or a job it calls.  What such a job reads is what that caller
    passes, so its reads are only ``possible``."""
    memo = ctx.memo.setdefault("unknown_caller", {})
    if job.id not in memo:
        memo[job.id] = _caller_unknown(ctx.graph, job)
    return memo[job.id]


def _caller_unknown(graph: Graph, job: Job) -> bool:
    """:func:`_unknown_caller` (a missing node is tested with ``in``: :meth:`Graph.node` of a missing id builds
    an error with close-id suggestions, a difflib pass over every node id)."""
    top: Job | None = job
    while top is not None and top.caller is not None:
        if top.caller not in graph:
            return False
        node = graph.node(top.caller)
        top = node if isinstance(node, Job) else None
    if top is None:
        return False
    try:
        wid = ids.workflow(top.repository, top.workflow_path)
    except ids.IdError:
        return False
    wf = graph.node(wid) if wid in graph else None
    return isinstance(wf, Workflow) and wf.reusable and set(wf.triggers) <= {"workflow_call"}


def _environments(job: Job) -> list[str | None]:
    """The environments a run of ``job`` may have, for the secrets it reads: its own, and none as well when the
    expression naming it may be empty (``Job.environment_optional``)."""
    env = job.environment
    return [env, None] if job.environment_optional and env not in (None, Job.UNKNOWN_ENVIRONMENT) else [env]


def _missing(ctx: Context, job: Job, name: str) -> bool:
    """True when ``name`` certainly names no secret the job can read (every deciding list is complete)."""
    repo_full = context_repo(job)
    return (not _unknown_caller(ctx, job) and _STORED_NAME.fullmatch(name.strip()) is not None
            and all(_all_complete(ctx, repo_full, env) and _lookup(ctx, repo_full, env, name)[0] is None
                    for env in _environments(job)))


def missing_secret_refs(graph: Graph) -> Iterator[tuple[Job, SecretRef]]:
    """``(job, reference)`` for every secret a job references that certainly does not exist for it.

    Decided only when the organization, repository and (if the job names
    one) environment secret lists are all known complete
    (``graph.meta.inventory.secrets_complete``) and none of them holds the
    name visibly to the repository; ``GITHUB_TOKEN`` (the job's token) is
    never one.  Jobs in id order, references as the job lists them.
    """
    ctx = Context.of(graph)
    jobs = sorted((j for j in nodes_of_kind(graph, NodeKind.JOB) if isinstance(j, Job)), key=lambda j: j.id)
    for job in jobs:
        for ref in [*job.secret_refs, *job.secret_grants]:
            if secret_key(ref.name) != "GITHUB_TOKEN" and _missing(ctx, job, ref.name):
                yield job, ref


def _secret_repos(ctx: Context, job: Job) -> list[str]:
    """The repositories whose secrets ``job`` reads: its context repository, or for the run of a caller graphkit
    did not read (:func:`_unknown_caller`) that caller's (:func:`~graphkit.resolve.routing.unknown_caller_repos`),
    never the called repository's (https://docs.github.com/en/actions/sharing-automations/reusing-workflows)."""
    return unknown_caller_repos(ctx.graph, job.id) if _unknown_caller(ctx, job) else [context_repo(job)]


def _holder(repo_full: str) -> str:
    """The repository a secret node names: an unknown caller (``owner/*``, :data:`ANY_CALLER`) said so."""
    if repo_full == ANY_CALLER:
        return "an unknown calling repository"
    return f"an unknown calling repository of {repo_full[:-2]}" if repo_full.endswith("/*") else repo_full


def _secret_node(ctx: Context, job: Job, name: str, evidence: Evidence,
                 repo_full: str) -> tuple[str, Confidence] | None:
    """The secret a job's reference reads in ``repo_full`` (a ``scope: unknown`` node when none is declared);
    None for a name that cannot be part of an id (recorded as a problem) or that certainly names no secret
    (:func:`_missing`)."""
    found, conf = _lookup(ctx, repo_full, job.environment, name)
    if found is not None:
        return found.id, conf
    if _missing(ctx, job, name):
        return None
    nm = secret_key(name)
    try:
        sid = ids.secret_unknown(repo_full, nm)
    except ids.IdError as err:
        ctx.problem(evidence, err)
        return None
    shown = f"{repo_full} secret {nm}" if "*" not in repo_full else f"secret {nm} of {_holder(repo_full)}"
    ctx.graph.add_node(Secret(id=sid, name=f"{shown} (scope unknown)", secret_name=nm,
                              scope="unknown", owner=owner_of(repo_full), repository=repo_full,
                              evidence=[evidence]))
    ctx.summary["unknown_secrets"].add(sid)
    return sid, C


def _grant(ctx: Context, sid: str, conf: Confidence, grant: SecretGrant) -> None:
    """``secret -> target`` of the grant's kind, or a dangling grant when the target is absent or not allowed."""
    g = ctx.graph
    if grant.target in g:
        try:
            g.add_edge(Edge(kind=grant.edge_kind, source=sid, target=grant.target, evidence=[grant.evidence],
                            confidence=conf, lifetime=Lifetime.UNTIL_ROTATED))
            return
        except GraphkitError:
            pass
    ctx.summary["dangling_grants"].add(f"{sid} -[{grant.edge_kind.value}]-> {grant.target}")


def _secret_refs(ctx: Context, job: Job) -> None:
    """``READS_SECRET`` for each named reference and grant (``GITHUB_TOKEN`` is the job's token: skipped);
    ``possible`` for the instance of a reusable workflow made for an unknown caller."""
    unknown_caller = _unknown_caller(ctx, job)
    for ref in [*job.secret_refs, *job.secret_grants]:
        if secret_key(ref.name) == "GITHUB_TOKEN":
            continue
        for repo_full in _secret_repos(ctx, job):
            found = _secret_node(ctx, job, ref.name, ref.evidence, repo_full)
            if found is None:
                continue
            sid, conf = found
            conf = P if unknown_caller or ref.possible or _without_environment(ctx, job, ref, sid, repo_full) else conf
            ctx.graph.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job.id, target=sid, evidence=[ref.evidence],
                                    confidence=conf))
            if isinstance(ref, SecretGrant):
                _grant(ctx, sid, conf, ref)
            if job.environment == Job.UNKNOWN_ENVIRONMENT:
                _any_environment(ctx, job, ref, sid, repo_full)


def _without_environment(ctx: Context, job: Job, ref: SecretRef | SecretGrant, found: str, repo_full: str) -> bool:
    """For a job whose environment expression may be empty (:func:`_environments`): the secret a run without
    the environment reads instead of ``found`` (the repository's or organization's of that name), ``possible``;
    True when ``found`` is read only by the runs with the environment (it is then ``possible`` too).  An
    environment secret shadows the others only in a job that names that environment
    (https://docs.github.com/en/actions/how-tos/write-workflows/choose-what-workflows-do/use-secrets)."""
    if len(_environments(job)) == 1:
        return False
    alt, _ = _lookup(ctx, repo_full, None, ref.name)
    if alt is None or alt.id == found:
        node = ctx.graph.node(found)
        return alt is None and isinstance(node, Secret) and node.scope == "env"
    ctx.graph.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job.id, target=alt.id, evidence=[ref.evidence],
                            confidence=P))
    if isinstance(ref, SecretGrant):
        _grant(ctx, alt.id, P, ref)
    return True


def _any_environment(ctx: Context, job: Job, ref: SecretRef | SecretGrant, found: str, repo_full: str) -> None:
    """A job whose environment is unknown (:attr:`Job.UNKNOWN_ENVIRONMENT`) may be in any environment of
    ``repo_full``: each environment secret of the referenced name there is read, ``possible`` (it would shadow
    the repository and organization secret :func:`_lookup` found, itself ``possible`` then: that environment's
    list is not known complete)."""
    index = ctx.memo.get("env_secrets_by_name")
    if index is None:
        index = ctx.memo["env_secrets_by_name"] = {}
        for (repo, _env, name), s in ctx.secrets.env.items():
            index.setdefault((repo, name), []).append(s)
    for s in index.get((repo_full, secret_key(ref.name)), []):
        if s.id != found:
            ctx.graph.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job.id, target=s.id, evidence=[ref.evidence],
                                    confidence=P))
            if isinstance(ref, SecretGrant):
                _grant(ctx, s.id, P, ref)


def _all_secrets(ctx: Context, job: Job, ev: Evidence, repo_full: str) -> None:
    """``toJSON(secrets)``: every secret visible to ``repo_full``, plus ``secret:all`` unless every list is known
    complete (``possible`` for an unknown caller's run, :func:`_unknown_caller`)."""
    g, env, unknown_caller = ctx.graph, job.environment, _unknown_caller(ctx, job)
    envs = _environments(job)  # a run with the environment, and one without it when it may be empty
    for name in sorted(set().union(*(ctx.secrets.visible_names(repo_full, e) for e in envs))):
        found = [f for f in (_lookup(ctx, repo_full, e, name) for e in envs) if f[0] is not None]
        for secret, conf in {f[0].id: f for f in reversed(found)}.values():
            every_run = sum(f[0].id == secret.id for f in found) == len(envs)
            g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job.id, target=secret.id, evidence=[ev],
                            confidence=P if unknown_caller or not every_run else conf, props={"all_secrets": True}))
    owner = owner_of(repo_full)
    if ctx.is_complete(ids.organization, owner) and ctx.is_complete(ids.repository, repo_full) and (
            env is None or ctx.is_complete(ids.environment, repo_full, env)):
        return
    sid = ids.secret_all(repo_full)
    g.add_node(Secret(id=sid, name=f"every secret visible to {_holder(repo_full)} (not enumerated)", secret_name="*",
                      scope="all", owner=owner, repository=repo_full, inferred=True, evidence=[ev]))
    g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job.id, target=sid, evidence=[ev], confidence=P,
                    props={"all_secrets": True}))


def link_secrets(ctx: Context, jobs: list[Job]) -> None:
    """Add the ``READS_SECRET`` and secret-grant edges of ``jobs`` (and ``unknown``/``all`` secrets) to the graph."""
    for job in jobs:
        _secret_refs(ctx, job)
        if job.all_secrets is not None:
            for repo_full in _secret_repos(ctx, job):
                _all_secrets(ctx, job, job.all_secrets, repo_full)


def link_unknown_caller_tokens(ctx: Context, jobs: list[Job]) -> None:
    """Move the ``writes_repository`` edges of the GITHUB_TOKEN of a run by a caller graphkit did not read
    (:func:`_unknown_caller`) from the called repository to that caller's repositories
    (:func:`~graphkit.resolve.routing.unknown_caller_repos`, a ``repo:owner/*`` or ``repo:*/*`` node made for
    it), ``possible``: the token is the caller's, with at most the caller's permissions
    (https://docs.github.com/en/actions/sharing-automations/reusing-workflows).  Idempotent."""
    g = ctx.graph
    for job in jobs:
        tid = ids.github_token(job.id) if job.platform == "github" and _unknown_caller(ctx, job) else None
        if tid is None or tid not in g:
            continue
        moved = [e for e in g.out_edges(tid) if e.kind is EdgeKind.WRITES_REPOSITORY
                 and e.target == ids.repository(job.secrets_repository)]
        for e in moved:
            g.nx.remove_edge(*e.identity)
            for repo_full in unknown_caller_repos(g, job.id):
                rid = ids.repository(repo_full)
                if rid not in g:
                    g.add_node(Repository(id=rid, name=_holder(repo_full), full_name=repo_full, inferred=True,
                                          evidence=e.evidence))
                g.add_edge(e.model_copy(update={"target": rid, "confidence": P,
                                                "props": {**e.props, "caller_unknown": True}}))
