"""What whoever writes a repository runs: the one place for "a writer of this repository can run ...".

Semantics §2: "a write token can push code or workflows: a path to other runners and secrets".  Used by the
``org-member`` entry (:mod:`graphkit.resolve.untrusted`, rules 4 and 8) and by the write tokens
(``writes_repository`` into the repository, which leads on to its jobs; ``writes_workflows`` to the runners):

1. **Jobs** (:func:`writer_way_in`, edge ``repo -runs_code_in-> job``, ``possible``; and ``repo -runs_code_in->``
   each runner or host such a job persists on, key the job, with that ``persists_on`` edge's lifetime and action:
   the pushed code can persist there).  A writer pushes a branch
   (or a tag) and its code runs in

   - the jobs of a workflow started by ``push``, ``pull_request`` (a pull request from a branch of the
     repository runs with its secrets: only fork pull requests lose them), ``workflow_dispatch`` (any ref),
     ``repository_dispatch`` and ``schedule`` (the default branch), ``create`` and ``release`` (the ref or tag
     created) (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows);
   - a ``merge_group`` run, once the pull request has passed the required checks (guard ``merge-queue-writers``);
   - a ``pull_request_target`` or ``workflow_run`` job that checks out (or fetches in a script) the pull
     request's head: for a same-repository pull request that head is the writer's branch, and the
     ``actions/checkout`` guard refuses fork pull requests only ("Same-repository pull requests aren't
     affected",
     https://github.blog/changelog/2026-06-18-safer-pull_request_target-defaults-for-github-actions-checkout/;
     guard ``checkout-refuses-fork-code`` named on the edge when it is what keeps outsiders out).

   Always ``possible``: branch protection, rulesets and environment deployment-branch rules are not read, the
   code must be what the job runs (a checkout and a build; a job that runs none of the repository's code runs the
   writer's only through its workflow file), and a push or pull request made with a ``GITHUB_TOKEN`` starts no run
   except ``workflow_dispatch`` and ``repository_dispatch``
   (https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication#using-the-github_token-in-a-workflow):
   the pushed code waits for the next run someone else starts.  A job whose ``if`` skips it for the event (read as
   for an outsider: :attr:`~graphkit.model.Job.condition`) is no way in for that event; a job behind an
   environment with required reviewers names the guard ``environment-required-reviewers``.
2. **Runners** (:func:`writer_runners`, ``possible``).  Whoever can change ``.github/workflows/`` adds a workflow
   whose ``runs-on`` names any runner the repository can use (:func:`~graphkit.resolve.routing.usable_runners` of
   each of its jobs: scope and group access, the workflow restrictions of a group included).  A ``GITHUB_TOKEN``
   never can (it has no ``workflows`` permission); a classic PAT needs the ``workflow`` scope with ``repo`` (or
   ``public_repo``), a fine-grained PAT or GitHub App ``workflows`` write with ``contents`` write
   (https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps,
   https://docs.github.com/en/rest/authentication/permissions-required-for-fine-grained-personal-access-tokens).
   The edge leaves the token (``writes_workflows``, token -> runner) or ``org-member``
   (:mod:`graphkit.resolve.untrusted`, rule 8), never the repository: every writer of a repository enters it, the
   a job's ``GITHUB_TOKEN``, which cannot change workflows, included.
3. **Credentials that write** (:func:`link_writers`).  An on-disk token with known scopes
   (``Credential.scopes``): classic ``repo`` / ``public_repo`` (public repositories only), fine-grained or App
   ``contents:write`` / ``actions:write`` give ``writes_repository``; with ``workflow`` / ``workflows:write``,
   ``writes_workflows`` to the runners of rule 2 as well.  A ``github_pat`` or ``github_app_key`` whose scopes
   are unknown may be either: both, ``possible``.  Targets: the repository ``Credential.github_owner`` names, or every
   repository of the organization it names, or (owner unknown) of the owners of the host's runners.  ``certain``
   only for a fine-grained permission on a named repository; a classic scope acts as the user, whose access to
   each repository is unknown: ``possible``.  Edge key ``scopes``; it lasts as the credential does
   (``Credential.lifetime``, until rotated unless the inventory says otherwise) and is cut by rotating it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from graphkit.model import Confidence, Credential, EdgeKind, Evidence, Job, NodeKind, Repository, Runner, ids
from graphkit.model.ids import owner_key, repo_key
from graphkit.resolve.context import P, Context, context_repo, nodes_of_kind, owner_of
from graphkit.resolve.guards import if_verdict, named
from graphkit.resolve.registration import REGISTRAR_TYPES, host_owners, rotation
from graphkit.resolve.routing import usable_runners_shared

__all__ = ["WRITER_EVENTS", "WayIn", "link_writers", "reviewed", "writer_runners", "writer_way_in"]

C = Confidence.CERTAIN
#: Events whose run executes a ref a writer pushed or chose (rule 1 of the module docstring).
WRITER_EVENTS = frozenset({"push", "pull_request", "workflow_dispatch", "repository_dispatch", "schedule",
                           "create", "release"})
#: Privileged events whose job may check out a same-repository pull request's head (the writer's branch).
_HEAD_EVENTS = ("pull_request_target", "workflow_run")
#: Scopes that push code: classic (``public_repo``: public repositories only) and fine-grained / App permissions.
_CLASSIC_WRITE = frozenset({"repo", "public_repo"})
_FINE_WRITE = frozenset({"contents:write", "actions:write"})
#: With a write scope, these change workflow files too.
_WORKFLOW_SCOPES = frozenset({"workflow", "workflows:write"})


class WayIn(NamedTuple):
    """How a writer of a job's repository runs code in it: ``event``, the evidence (the trigger, or the step that
    checks out the pull request's head), the rules that decided it (``guards``)."""

    event: str
    evidence: list[Evidence]
    guards: list[str]


def reviewed(ctx: Context, job: Job) -> bool:
    """The job names an environment whose required reviewers must approve it first."""
    return any(e.kind is EdgeKind.DEPLOYS_TO and getattr(ctx.graph.node(e.target), "required_reviewers", None)
               for e in ctx.graph.out_edges(job.id))


def _head_checkout(job: Job, event: str) -> tuple[list[Evidence], list[str]] | None:
    """The first step of ``job`` that runs the pull request's head under ``event`` (a checkout or a fetch in a
    script) and whose ``if`` does not skip it (evidence: the step, then where the head came in,
    ``UntrustedCode.via``), with the checkout guard when the guard keeps forks out and ``run-time-checkout-ref``
    when the ref is known only at run time (``UntrustedCode.certain`` False)."""
    for code in job.untrusted_code:
        if code.how not in ("checkout", "script") or (code.events and event not in code.events):
            continue
        verdict = if_verdict(code.condition, event)
        if verdict is not None and verdict.outcome == "skipped":
            continue
        rules = named("run-time-checkout-ref") if not code.certain else []
        return [code.evidence, *code.via], [*rules, *(named("checkout-refuses-fork-code")
                                                    if code.guard == "checkout-refuses" else [])]
    return None


def writer_way_in(ctx: Context, job: Job) -> WayIn | None:
    """Rule 1 of the module docstring: how a writer of the job's repository runs code in ``job`` (always
    ``possible``), or None.  A trigger of :data:`WRITER_EVENTS` first (the alphabetically first), else a
    same-repository pull request's head checked out under ``pull_request_target`` / ``workflow_run``."""
    if job.platform != "github":
        return None
    events = {t.event: t for t in job.triggers}
    extra = named("environment-required-reviewers") if reviewed(ctx, job) else []
    if first := min(events.keys() & WRITER_EVENTS, default=None):
        return WayIn(first, [events[first].evidence], [*named("org-member-write"), *extra])
    if "merge_group" in events:  # a writer queues a pull request once the required checks pass (rule 4 of untrusted)
        return WayIn("merge_group", [events["merge_group"].evidence],
                     [*named("merge-queue-writers", "org-member-write"), *extra])
    for event in _HEAD_EVENTS:
        verdict = if_verdict(job.condition, event)
        if event not in events or (verdict is not None and verdict.outcome == "skipped"):
            continue
        if found := _head_checkout(job, event):
            evs, rules = found
            return WayIn(event, evs, [*rules, *named("org-member-write"), *extra])
    return None


def writer_runners(ctx: Context, jobs: Iterable[Job]) -> list[tuple[Runner, Job]]:
    """Rule 2: every runner some job of ``jobs`` (one repository's, or one owner's) may use, whatever its labels,
    each with the first job that may use it; in first-seen order.  Jobs sharing an access class are read once."""
    seen: dict[str, tuple[Runner, Job]] = {}
    classes: set[int] = set()
    for job in jobs:
        if job.platform != "github":
            continue
        usable = usable_runners_shared(ctx, job)
        if id(usable) in classes:
            continue
        classes.add(id(usable))
        for runner in usable:
            seen.setdefault(runner.id, (runner, job))
    return list(seen.values())


# --------------------------------------------------------------------------- credentials that write


def _write_level(cred: Credential) -> tuple[bool, Confidence, bool] | None:
    """What a credential's scopes let it write: whether workflow files too, the confidence before the target is known
    (``certain`` only for fine-grained permissions), whether it is limited to public repositories; None: nothing."""
    if cred.scopes is None:
        return (True, P, False) if cred.credential_type in REGISTRAR_TYPES else None
    have = {s.strip().lower() for s in cred.scopes}
    if not have & (_CLASSIC_WRITE | _FINE_WRITE):
        return None
    return bool(have & _WORKFLOW_SCOPES), P if have & _CLASSIC_WRITE else C, not have & ({"repo"} | _FINE_WRITE)


def _owner_repos(ctx: Context) -> dict[str, list[str]]:
    """Repository names (``owner/name``, lower-cased) by owner, of the repositories in the graph."""
    memo = ctx.memo.setdefault("writer_repos", {})
    if not memo:
        for node in nodes_of_kind(ctx.graph, NodeKind.REPOSITORY):
            if isinstance(node, Repository) and "*" not in node.full_name:
                memo.setdefault(owner_of(node.full_name), []).append(repo_key(node.full_name))
        memo.setdefault("", [])
    return memo


def _targets(ctx: Context, cred: Credential, public_only: bool) -> tuple[list[str], bool]:
    """The repositories a writing credential acts on, and whether that list is sure (a named repository)."""
    if cred.github_owner and "/" in cred.github_owner:
        found, sure = [repo_key(cred.github_owner)], True
    else:
        owners = [owner_key(cred.github_owner)] if cred.github_owner else host_owners(ctx, cred)
        found, sure = [r for o in owners for r in _owner_repos(ctx).get(o, [])], False
    if public_only:  # public_repo: "Limits access to public repositories"
        found = [r for r in found if getattr(ctx.repos.get(r), "visibility", None) in (None, "public")]
    return found, sure


def _repository_id(repo: str) -> str | None:
    """``repo:{owner}/{name}``, or None for a name that is no repository (a placeholder of a value past
    ``max_attribute_chars``: the routing pass reported it)."""
    try:
        return ids.repository(repo)
    except ids.IdError:
        return None


def _credential_writes(ctx: Context, by_repo: dict[str, list[Job]]) -> None:
    """Rule 3 (and rule 2 for the tokens that change workflow files)."""
    for cred in list(nodes_of_kind(ctx.graph, NodeKind.CREDENTIAL)):
        if not isinstance(cred, Credential) or (level := _write_level(cred)) is None:
            continue
        workflows, conf, public_only = level
        repos, sure = _targets(ctx, cred, public_only)
        repos = [r for r in repos if _repository_id(r) in ctx.graph]
        common = {"evidence": list(cred.evidence[:1]), "lifetime": cred.lifetime, "revoked_by": rotation(ctx, cred.id)}
        props = {"scopes": sorted(cred.scopes or []), "owner": cred.github_owner or "unknown"}
        for repo in repos:
            ctx.graph.add_edge_fields(EdgeKind.WRITES_REPOSITORY, cred.id, ids.repository(repo), key="scopes",
                                      confidence=conf if sure else P, props={**props, "workflows": workflows},
                                      **common)
        if not workflows:
            continue
        for runner, job in writer_runners(ctx, (j for r in repos for j in by_repo.get(r, ()))):
            ctx.graph.add_edge_fields(EdgeKind.WRITES_WORKFLOWS, cred.id, runner.id, key="", confidence=P,
                                      props={**props, "repository": context_repo(job), "job": job.id,
                                             "guards": named("org-member-write"),
                                             "reason": "a pushed workflow can name the runner in its runs-on"},
                                      **{**common, "evidence": [*common["evidence"], *job.evidence[:1]]})


def link_writers(ctx: Context, jobs: list[Job]) -> None:
    """Add the edges of the module docstring: ``runs_code_in`` from each repository to the jobs its writers run code
    in (and to the runners and hosts those jobs persist on: call after
    :func:`~graphkit.resolve.persistence.link_persistence`), and the credentials that write (``writes_repository``;
    ``writes_workflows`` to the runners their workflows can use).  Runs after routing; idempotent."""
    by_repo: dict[str, list[Job]] = {}
    for job in jobs:
        if job.platform == "github":
            by_repo.setdefault(context_repo(job), []).append(job)
    _credential_writes(ctx, by_repo)
    for repo, repo_jobs in by_repo.items():
        rid = _repository_id(repo)
        if rid is None or rid not in ctx.graph:
            continue
        for job in repo_jobs:
            if (way := writer_way_in(ctx, job)) is None:
                continue
            props = {"event": way.event, "guards": way.guards}
            ctx.graph.add_edge_fields(EdgeKind.RUNS_CODE_IN, rid, job.id, way.evidence, confidence=P, props=props)
            for e in list(ctx.graph.out_edges(job.id)):  # the pushed code persists where the job lands
                if e.kind is EdgeKind.PERSISTS_ON:
                    ctx.graph.add_edge_fields(EdgeKind.RUNS_CODE_IN, rid, e.target, [*way.evidence, *e.evidence[:1]],
                                              key=job.id, confidence=P, lifetime=e.lifetime, revoked_by=e.revoked_by,
                                              props={**props, "job": job.id, "persists": True})
