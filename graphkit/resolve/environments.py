"""Environment deployment branch policies: only jobs whose refs can pass reach an environment.

GitHub docs "Deployments and environments" ("Deployment branches and tags",
https://docs.github.com/en/actions/reference/workflows-and-actions/deployments-and-environments#deployment-branches-and-tags):
a job that references an environment runs, and receives the environment's
secrets, only when its ref passes the environment's branch and tag rule.
(dated, 2025-12-08) the rule is evaluated against the executing ref
(``refs/pull/N/merge`` for ``pull_request``, the default branch for
``pull_request_target``: GitHub changelog 2025-11-07,
https://github.blog/changelog/2025-11-07-actions-pull_request_target-and-environment-branch-protections-changes/).

For each ``job -deploys_to-> target:environment:...`` whose target carries a
:class:`~graphkit.model.BranchPolicy` (from an inventory), the job's refs
(:func:`graphkit.refs.job_refs`, default branch and protected branches of the
run's repository) are compared with the policy
(:func:`graphkit.refs.environment_access`):

- every ref passes: edges unchanged;
- some may: the ``deploys_to`` edge and the job's ``reads_secret`` edges to
  that environment's secrets become ``possible`` (prop ``branch_policy``);
- none can: those edges are removed and ``job -> environment`` is listed in
  ``graph.meta.resolve.environments_denied``.

Environments without a known policy keep their edges as they are.  Runs after
:func:`graphkit.resolve.secrets.link_secrets`; idempotent.

A job whose environment is known only at run time (:attr:`~graphkit.model.Job.UNKNOWN_ENVIRONMENT`) may deploy
to any environment of its repository: :func:`link_unknown_environments` gives it a ``possible`` ``deploys_to``
to each one the graph knows (an inventory's), before the branch policies are applied.
"""

from __future__ import annotations

from graphkit.model import DeploymentTarget, Edge, EdgeKind, Job, NodeKind, Secret, ids
from graphkit.model.ids import env_key, repo_key
from graphkit.refs import environment_access, job_refs
from graphkit.resolve.context import P, Context, context_repo, nodes_of_kind

__all__ = ["apply_branch_policies", "link_unknown_environments"]


def link_unknown_environments(ctx: Context, jobs: list[Job]) -> None:
    """``job -deploys_to-> target:environment:REPO:NAME`` (``possible``, the job's evidence, prop ``reason``) for
    each GitHub job of ``jobs`` whose environment is unknown and each environment of its repository in the graph.

    GitHub resolves ``jobs.<job_id>.environment`` at run time, so an expression may name any environment of the
    repository (or create one: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idenvironment).
    Idempotent."""
    unknown = [j for j in jobs if j.environment == Job.UNKNOWN_ENVIRONMENT and j.platform != "gitlab"]
    if not unknown:
        return
    by_repo: dict[str, list[str]] = {}
    for t in nodes_of_kind(ctx.graph, NodeKind.DEPLOYMENT_TARGET):
        if isinstance(t, DeploymentTarget) and t.target_type == "environment":
            repo = ids.parse(t.id).parts.get("repo")  # a GitLab environment is keyed by its project: not GitHub's
            if repo is not None:
                by_repo.setdefault(repo_key(repo), []).append(t.id)
    for job in unknown:
        for tid in by_repo.get(repo_key(context_repo(job)), []):
            ctx.graph.add_edge(Edge(kind=EdgeKind.DEPLOYS_TO, source=job.id, target=tid, evidence=job.evidence[:1],
                                    confidence=P, props={"reason": "the job's environment is known only at run time"}))


def _env_secret_edges(ctx: Context, job: Job, repo_full: str, env: str) -> list[Edge]:
    """The job's ``reads_secret`` edges to secrets of environment ``env`` of ``repo_full``."""
    out = []
    for e in ctx.graph.out_edges(job.id):
        if e.kind is not EdgeKind.READS_SECRET:
            continue
        s = ctx.graph.node(e.target)
        if (isinstance(s, Secret) and s.scope == "env" and s.environment is not None and s.repository is not None
                and repo_key(s.repository) == repo_full and env_key(s.environment) == env):
            out.append(e)
    return out


def _replace(ctx: Context, edge: Edge, new: Edge | None) -> None:
    """Remove ``edge`` (merging would keep ``certain``), then add ``new`` if given."""
    source, target, key = edge.identity
    ctx.graph.nx.remove_edge(source, target, key)
    if new is not None:
        ctx.graph.add_edge(new)


def _environments(ctx: Context, job: Job) -> dict[str, Edge | None]:
    """Environment target ids the job reaches: by ``deploys_to`` (the edge) or only through a secret (None)."""
    out: dict[str, Edge | None] = {}
    for e in ctx.graph.out_edges(job.id):
        if e.kind is EdgeKind.DEPLOYS_TO:
            out[e.target] = e
        elif e.kind is EdgeKind.READS_SECRET:
            s = ctx.graph.node(e.target)
            if isinstance(s, Secret) and s.scope == "env" and s.environment and s.repository:
                out.setdefault(ids.environment(s.repository, s.environment), None)
    return out


def apply_branch_policies(ctx: Context, jobs: list[Job]) -> None:
    """Weaken or cut the environment edges of ``jobs`` whose refs cannot (all) pass the branch policy."""
    for job in jobs:
        repo_full = context_repo(job)
        repo = ctx.repos.get(repo_full)
        for tid, edge in sorted(_environments(ctx, job).items()):
            target = ctx.graph.node(tid) if tid in ctx.graph else None
            if not (isinstance(target, DeploymentTarget) and target.branch_policy is not None):
                continue
            refsets = job_refs(job, repo.default_branch if repo else None)
            access = environment_access(refsets, target.branch_policy, repo.protected_branches if repo else None)
            if access is not None and access is not P:
                continue
            env = ids.parse(target.id).parts["environment"]
            for e in [*([edge] if edge else []), *_env_secret_edges(ctx, job, repo_full, env)]:
                if access is None:
                    _replace(ctx, e, None)
                else:
                    _replace(ctx, e, e.model_copy(update={"confidence": P, "props": {
                        **e.props, "branch_policy": "not every ref the job runs on passes the environment's "
                        "deployment branch policy"}}))
            if access is None:
                ctx.summary["environments_denied"].add(f"{job.id} -> {target.id}")
