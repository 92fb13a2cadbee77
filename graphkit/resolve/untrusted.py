"""Untrusted entry points: who can run code in an owner's jobs without being trusted (issue 11, section 2).

Source nodes (:class:`~graphkit.model.UntrustedActor`, ids
``untrusted:{actor}:{owner}``, :func:`graphkit.model.ids.untrusted`):

- ``fork-pr``: anyone who can fork a repository and open a pull request;
- ``comment``: anyone who can comment on an issue or a pull request;
- ``org-member``: organization members with write access.

``can_trigger`` edges (traversable; revoked by ``restrict_untrusted_trigger``):

1. ``fork-pr -> runner``: a ``pull_request`` (``pull_request_review``,
   ``pull_request_review_comment``) run from a fork runs the pull request's
   code, with a read-only token and no secrets, on the runners the job routes
   to (``certain`` as routed) and, since the pull request can rewrite the
   workflow's ``runs-on``, on every other self-hosted runner the repository
   can use (``possible``).  Public repositories: subject to the fork approval
   policy (``all_external_contributors``: ``possible``); private and internal
   ones only when "Run workflows from fork pull requests" is on (unknown:
   ``possible``; off: no edge).  The edge goes to the runner, not the job,
   because the fork run holds none of the job's secrets.
2. ``fork-pr -> job``: a ``pull_request_target`` or ``workflow_run`` job that
   checks out or builds the pull request's code, or consumes an artifact of
   the triggering run (:class:`~graphkit.model.UntrustedCode`): the code runs
   with the job's secrets and write token.  A checkout that
   ``actions/checkout`` refuses (guard ``checkout-refuses``) is no entry; a
   version that may predate the guard is ``possible``; an artifact is
   ``possible`` (what the job does with it is not read), and so is a checkout
   of a value known only at run time (``UntrustedCode.certain`` False: another
   job's or an earlier step's output, or a variable set from one or at run time;
   it may be the head: guard ``run-time-checkout-ref``).  A checkout in a called
   workflow or composite action of a head its caller passes as an input is the
   called job's entry (evidence: the checkout, then each ``with:``).
3. ``comment -> job`` and ``fork-pr -> job``: an ``issue_comment`` job that
   checks out pull request code (the checkout guard does not cover this
   event): whoever comments triggers it, the pull request's author chose the
   code.  Private repositories: ``possible`` (commenters need read access).
   A privileged job whose run script writes outsider text (``UntrustedCode`` ``injection``: an issue title, a
   comment body, a head branch name) is the same entry for the events whose payload carries that text, and
   ``issues`` (whoever opens an issue) gives ``comment -> job`` for it (guard ``script-injection``), as do
   ``discussion`` / ``discussion_comment`` (whoever opens or comments on a discussion: a discussion's title or
   body, https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#discussion),
   ``gollum`` (a wiki page's name or title; ``possible``: by default only collaborators edit a wiki,
   https://docs.github.com/en/communities/documenting-your-project-with-wikis/changing-access-permissions-for-wikis)
   and ``pull_request_review`` / ``pull_request_review_comment`` (a review's or comment's body on a pull request
   from a branch of the repository, which runs with its secrets; ``possible``).  The contexts are GitHub's list
   (https://docs.github.com/en/actions/concepts/security/script-injections), data ``injection_contexts``.
4. ``org-member -> job``: a writer runs code in every job a writer of its repository runs code in
   (:func:`graphkit.resolve.writers.writer_way_in`, the one place for it): a pushed branch's code in the jobs
   of ``push``, ``pull_request``, ``workflow_dispatch``, ``repository_dispatch``, ``schedule``, ``create`` and
   ``release`` runs, and a same-repository pull request's head in a ``pull_request_target`` or ``workflow_run``
   job that checks it out, even where ``actions/checkout`` refuses fork heads (it refuses forks only: guard
   ``checkout-refuses-fork-code`` on the edge), with their secrets: ``possible`` for every such job.  A job triggered by ``merge_group`` (and none of those)
   gets the same edge with guard ``merge-queue-writers``: a writer adds a pull request to the merge queue once it
   has passed the required branch protection checks, and the merge group runs its code and workflow with the
   repository's secrets.  ``merge_group`` is no outsider entry: an outsider cannot queue a pull request, and its
   code was let in by branch protection
   (https://docs.github.com/en/repositories/configuring-branches-and-merges-in-your-repository/configuring-pull-request-merges/managing-a-merge-queue).
5. ``org-member`` gets every ``fork-pr`` edge too: a writer can open the
   same pull request (from a fork or a branch), so "anyone on the internet"
   never reaches more than an organization member.
6. A ``workflow_run`` job whose triggering workflows (``on.workflow_run.workflows``) are all read and run only on
   events an outsider never causes (push, dispatch, schedule...: :func:`_outsider_cannot_start`) has no
   ``fork-pr`` entry, only the writers' (guard ``workflow-run-writers-only``).
7. A ``pull_request_target``, ``workflow_run`` or ``issue_comment`` job that calls a reusable workflow not in
   the input (:func:`graphkit.resolve.routing.unread_callee`) gets the edges of rules 2-3 as ``possible``
   (guard ``called-workflow-not-read``): the called jobs run in the caller's context, with the secrets it
   passes (``secrets: inherit``: all of them), and may build the pull request's code
   (https://docs.github.com/en/actions/sharing-automations/reusing-workflows).  Where they run is unknown: the
   job's routing links the runners and pools its repository can use (``possible``) and invents no pool.
8. ``org-member -> runner``: a writer pushes a workflow whose ``runs-on`` names any runner a repository of the
   owner can use (:func:`graphkit.resolve.writers.writer_runners`): ``possible`` for each (key ``write``).

A job held by an environment with required reviewers (inventory
``protection_rules``) runs only once a reviewer approves: its ``job`` edges
(rules 2-4) are ``possible`` and name the guard.

The ``if`` of a privileged job (rules 2, 3 and 7) and of each step that runs pull request code is the base
repository's (under ``pull_request_review`` / ``pull_request_review_comment``, whose entry needs a pull request
from a branch of the repository, that branch's): the outsider cannot change it.  Read for an outsider's run of the event
(:mod:`ingest.github_actions.conditions`, ``Job.condition`` and ``UntrustedCode.condition``), a condition that
is false whatever anyone does (``github.event_name == 'push'``, a payload object the event lacks) leaves no
edge through that job or step for that event; one that is false only for the outsider alone (a label that
someone with triage access adds, or a trigger whose ``types`` are only ``labeled``: ``label-gate``; an author
or commenter association of ``OWNER``, ``MEMBER`` or ``COLLABORATOR``: ``author-association``; an author login
that must be a named account: ``author-login``; a head repository that must be this one:
``same-repository-condition``) makes the edge ``possible`` (the condition is read, not run) and names the
guard.  Any other condition (``always()``, ``github.repository == 'o/r'``, ``github.actor == ...``, an
alternative that may hold) changes nothing.

Every rule above is data with its source URL and date in
``graphkit/data/untrusted_guards.json`` (:func:`guards`); edges carry the
ids of the rules that decided them (prop ``guards``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from graphkit.graph import Graph
from graphkit.model import (Confidence, Edge, EdgeKind, Evidence, Job, NodeKind, Repository, UntrustedActor,
                            UntrustedCode, Workflow, ids)
from graphkit.model.ids import repo_key
from graphkit.refs import matches
from graphkit.resolve.context import Context, context_owner, context_repo, nodes_of_kind, weakest
from graphkit.resolve.guards import Guard, guards, if_verdict, named, outsider_never_causes
from graphkit.resolve.routing import unread_callee, usable_runners
from graphkit.resolve.writers import reviewed, writer_runners, writer_way_in

__all__ = ["ACTORS", "Guard", "expand_sources", "guards", "link_untrusted", "outsider_never_causes"]

C, P = Confidence.CERTAIN, Confidence.POSSIBLE
#: The untrusted actors, as their ids write them.
ACTORS = ("fork-pr", "comment", "org-member")
_PR_EVENTS = {"pull_request", "pull_request_review", "pull_request_review_comment"}
_PRIVILEGED = {"pull_request_target", "workflow_run"}
#: Events an outsider starts by commenting or opening an issue -> the rule that says so.
_COMMENT_EVENTS = {"issue_comment": "issue-comment-privileged", "issues": "issues-privileged",
                   "discussion": "discussion-privileged", "discussion_comment": "discussion-privileged",
                   "gollum": "gollum-wiki-editors", "pull_request_review": "review-same-repository",
                   "pull_request_review_comment": "review-same-repository"}
#: Of those, the events that carry no pull request code an outsider wrote: only an injection is a way in.
_TEXT_ONLY = frozenset(_COMMENT_EVENTS) - {"issue_comment"}
#: Of those, the events whose entry is possible even on a public repository: a wiki editable by collaborators
#: only (the default), a review of a same-repository pull request (one must be open).
_ALWAYS_POSSIBLE = frozenset({"gollum", "pull_request_review", "pull_request_review_comment"})
#: Events whose workflow is the pull request's own (rule 7 does not apply: the entry is the injection alone).
_REVIEW_EVENTS = frozenset({"pull_request_review", "pull_request_review_comment"})


_g = named


# --------------------------------------------------------------------------- edges


class _Out:
    """Collects the edges of one run, making each owner's actor node when it gets its first edge."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def edge(self, actor: str, owner: str, target: str, ev: Evidence | Sequence[Evidence], conf: Confidence,
             key: str, props: dict[str, Any]) -> None:
        sid = ids.untrusted(actor, owner)
        if sid not in self.graph:
            self.graph.add_node(UntrustedActor(id=sid, name=f"{actor} ({owner})", actor=actor, owner=owner,
                                               evidence=[Evidence(file="graphkit/data/untrusted_guards.json",
                                                                  detail=f"{actor} of {owner}")]))
        evs = [ev] if isinstance(ev, Evidence) else list(ev)
        self.graph.add_edge_fields(EdgeKind.CAN_TRIGGER, sid, target, evs, key=key, confidence=conf, props=props)
        if actor == "fork-pr":  # rule 5: a writer can open the same pull request (from a branch, not gated)
            self.edge("org-member", owner, target, ev, conf, key,
                      {**props, "guards": [*props.get("guards", []), *_g("org-member-write")]})


def _fork_gate(repo: Repository | None) -> tuple[Confidence, list[str]] | None:
    """Whether fork pull requests run workflows in ``repo``: confidence and the rules that decided it."""
    vis = repo.visibility if repo else None
    if vis == "public":
        conf = P if repo and repo.fork_pr_approval == "all_external_contributors" else C
        return conf, _g("fork-pr-approval-public", "fork-pr-no-secrets")
    if vis is None:
        return P, _g("fork-pr-approval-public", "fork-pr-private", "fork-pr-no-secrets")
    flag = repo.fork_pr_workflows if repo else None
    if flag is False:
        return None
    return (C if flag else P), _g("fork-pr-private", "fork-pr-no-secrets")


def _fork_pr_runners(ctx: Context, out: _Out, job: Job, ev: Evidence) -> None:
    """Rule 1: fork pull request code on the runners the job routes to, and on any the repository can use."""
    gate = _fork_gate(ctx.repos.get(context_repo(job)))
    if gate is None:
        return
    conf, rules = gate
    routed = {e.source: e for e in ctx.graph.in_edges(job.id) if e.kind is EdgeKind.RECEIVES_JOB}
    owner = context_owner(job)
    for rid, route in sorted(routed.items()):
        out.edge("fork-pr", owner, rid, ev, weakest(conf, route.confidence), job.id,
                 {"job": job.id, "event": "pull_request", "guards": rules})
    for runner in usable_runners(ctx, job):
        if runner.id not in routed:
            out.edge("fork-pr", owner, runner.id, ev, P, job.id,
                     {"job": job.id, "event": "pull_request", "guards": rules,
                      "reason": "the pull request can rewrite the job's runs-on"})


_if_verdict = if_verdict


def _code_rules(code: UntrustedCode, event: str) -> list[str]:
    """The rules that decided one way in: the checkout guard, only where the release has (or may have) it (a
    pin released before it, actions/checkout v1-v3 or v4-v6 minor or patch pins before the backport, never has
    it); ``run-time-checkout-ref`` for a checkout of a value known only at run time (``UntrustedCode.certain``
    False); ``script-injection`` for an injection."""
    rules = _g("run-time-checkout-ref") if code.how == "checkout" and not code.certain else []
    if code.how == "checkout" and event in _PRIVILEGED and code.guard in ("unknown", "opted-out"):
        return [*rules, *_g("checkout-refuses-fork-code")]
    return _g("script-injection") if code.how == "injection" else rules


def _code_conf(job: Job, event: str) -> tuple[Confidence, list[Evidence], list[str]] | None:
    """How surely a privileged job runs pull request code (rules 2-3), None when every way in is guarded: a
    step whose ``if`` skips it for ``event`` is no way in, one whose ``if`` is gated is ``possible`` (evidence:
    the step, where it came in from (``UntrustedCode.via``: a caller's ``with:``, a composite action's
    ``uses:``), then its ``if``)."""
    best: tuple[Confidence, list[Evidence], list[str]] | None = None
    for code in job.untrusted_code:
        if (code.events and event not in code.events) or (event in _TEXT_ONLY and code.how != "injection"):
            continue  # the event's payload lacks the injected text; an issue or a discussion has no pull request code
        verdict = _if_verdict(code.condition, event)
        if (code.how == "checkout" and event in _PRIVILEGED and code.guard == "checkout-refuses") or (
                verdict is not None and verdict.outcome == "skipped"):
            continue
        conf = P if code.how == "artifact" or not code.certain or (event in _PRIVILEGED and code.guard == "unknown") \
            else C
        rules, evs = _code_rules(code, event), [code.evidence, *code.via]
        if verdict is not None:
            conf, rules, evs = P, [*rules, *_g(*verdict.guards)], [*evs, verdict.evidence]
        if best is None or (best[0] is P and conf is C):
            best = (conf, evs, rules)
    return best


def _unread_call(ctx: Context, job: Job) -> tuple[Confidence, list[Evidence], list[str]] | None:
    """Rule 7: a privileged job calling a workflow that is not in the input may run pull request code
    (``possible``, evidence: the call)."""
    wid = unread_callee(ctx.graph, job)
    if wid is None:
        return None
    ev = next((e.evidence[0] for e in ctx.graph.out_edges(job.id)
               if e.kind is EdgeKind.CALLS_WORKFLOW and e.target == wid and e.evidence), job.runs_on_unresolved)
    assert ev is not None  # unread_callee needs runs_on_unresolved
    return P, [ev], _g("called-workflow-not-read")


#: GitHub chains workflow_run at most this deep ("You can't use workflow_run to chain together more than three
#: levels of workflows", https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#workflow_run).
_WORKFLOW_RUN_LEVELS = 3


def _workflows_of(ctx: Context, repo_full: str) -> list[Workflow]:
    index = ctx.memo.setdefault("workflows_by_repo", {})
    if not index:
        for w in nodes_of_kind(ctx.graph, NodeKind.WORKFLOW):
            if isinstance(w, Workflow) and w.platform == "github" and not w.inferred:
                index.setdefault(repo_key(w.repository), []).append(w)
        index.setdefault("", [])
    return index.get(repo_key(repo_full), [])


def _files_skipped(ctx: Context) -> bool:
    """Some workflow file was skipped as a whole: it may be a triggering workflow graphkit did not read."""
    return any("/.github/workflows/" in p.file.replace("\\", "/") and not p.place.startswith("jobs.")
               for p in ctx.graph.meta.problems)


def _outsider_cannot_start(ctx: Context, repo_full: str, names: Sequence[str] | None, depth: int = 1) -> bool:
    """True when every workflow of ``repo_full`` that ``on.workflow_run.workflows`` (``names``: names or
    patterns, https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onworkflow_runbranchesbranches-ignore;
    the filter pattern cheat sheet applies to workflow names) selects is read and none can be started by an
    outsider: all its events need write access, a dispatch or the schedule (:func:`outsider_never_causes`), or
    are a ``workflow_run`` of workflows that cannot either.  The triggering workflow is one of the same
    repository, named by its ``name`` or, without one, its path.  A name no read workflow has (or a workflow
    file skipped) is unknown: False."""
    if not names or depth > _WORKFLOW_RUN_LEVELS or _files_skipped(ctx):
        return False
    found = [w for w in _workflows_of(ctx, repo_full) if matches(w.name, list(names))]
    if not found or any(not any(matches(w.name, [n]) for w in found) for n in names if not n.startswith("!")):
        return False
    return all(_writers_only(ctx, repo_full, w, depth) for w in found)


def _writers_only(ctx: Context, repo_full: str, workflow: Workflow, depth: int) -> bool:
    """Every event of ``workflow`` is one an outsider never causes, or a ``workflow_run`` of such workflows."""
    never = outsider_never_causes()
    for event, config in workflow.triggers.items():
        if event in never:
            continue
        upstream = config.get("workflows") if event == "workflow_run" and isinstance(config, dict) else None
        upstream = [upstream] if isinstance(upstream, str) else upstream
        if not (isinstance(upstream, list) and all(isinstance(u, str) for u in upstream)
                and _outsider_cannot_start(ctx, repo_full, upstream, depth + 1)):
            return False
    return True


def _upstream_writers_only(ctx: Context, job: Job) -> bool:
    """The job's ``workflow_run`` triggering workflows are started by writers only (rule 6)."""
    trig = next((t for t in job.triggers if t.event == "workflow_run"), None)
    return trig is not None and _outsider_cannot_start(ctx, context_repo(job), trig.workflows)


def _way_in(ctx: Context, job: Job, event: str) -> tuple[Confidence, list[Evidence], list[str]] | None:
    """Rules 2, 3 and 7 for one event: the job's own way in, else an unread call (not under a review event,
    whose workflow is the pull request's: the entry there is an injection alone)."""
    return _code_conf(job, event) or (None if event in _REVIEW_EVENTS else _unread_call(ctx, job))


def _privileged(ctx: Context, out: _Out, job: Job, event: str) -> None:
    """Rules 2, 3, 6 and 7: privileged jobs that run pull request code (or call a workflow that may); the job's
    ``if`` read for an outsider's run of ``event`` keeps them out (skipped) or makes the entry possible (gated)."""
    verdict = _if_verdict(job.condition, event)
    if event == "workflow_run" and _upstream_writers_only(ctx, job):  # rule 6: writers only
        out = _WritersOnly(out)
    found = None if verdict is not None and verdict.outcome == "skipped" else _way_in(ctx, job, event)
    if found is None:
        return
    conf, ev, rules = found
    gates = _g(*verdict.guards) if verdict is not None else []
    if verdict is not None and gates:  # the job runs only once the guard is passed, as far as its ``if`` is read
        conf, rules, ev = P, list(dict.fromkeys([*rules, *gates])), [*ev, verdict.evidence]
    owner, repo = context_owner(job), ctx.repos.get(context_repo(job))
    base = {"job": job.id, "event": event}
    if event in _COMMENT_EVENTS:  # an issue opened or a comment written: the commenter; on a pull request, its author
        public = repo is not None and repo.visibility == "public" and event not in _ALWAYS_POSSIBLE
        rules = [*_g(_COMMENT_EVENTS[event]), *(r for r in rules if r != "checkout-refuses-fork-code")]
        for actor in ("comment", "fork-pr") if event == "issue_comment" else ("comment",):
            out.edge(actor, owner, job.id, ev, conf if public else P, event, {**base, "guards": rules})
        return
    rules = rules + _g("pull-request-target-privileged" if event == "pull_request_target"
                       else "workflow-run-privileged")
    gate = _fork_gate(repo) if event == "workflow_run" else (C, [])
    if gate is not None:
        out.edge("fork-pr", owner, job.id, ev, weakest(conf, gate[0]), event, {**base, "guards": rules})


class _WritersOnly(_Out):
    """An :class:`_Out` keeping only the ``org-member`` copy of each ``fork-pr`` edge (rule 5): for a
    ``workflow_run`` whose triggering workflows only writers can start (:func:`_outsider_cannot_start`)."""

    def __init__(self, inner: _Out) -> None:
        super().__init__(inner.graph)
        self.inner = inner

    def edge(self, actor: str, owner: str, target: str, ev: Evidence | Sequence[Evidence], conf: Confidence,
             key: str, props: dict[str, Any]) -> None:
        if actor == "fork-pr":
            self.inner.edge("org-member", owner, target, ev, conf, key,
                            {**props, "guards": [*props.get("guards", []), *_g("workflow-run-writers-only",
                                                                                 "org-member-write")]})


class _Reviewed(_Out):
    """An :class:`_Out` for a job behind required reviewers: every edge ``possible``, naming the guard."""

    def edge(self, actor: str, owner: str, target: str, ev: Evidence | Sequence[Evidence], conf: Confidence,
             key: str, props: dict[str, Any]) -> None:
        props = {**props, "guards": [*props.get("guards", []), *_g("environment-required-reviewers")]}
        super().edge(actor, owner, target, ev, P, key, props)


def link_untrusted(ctx: Context, jobs: Sequence[Job]) -> None:
    """Add the untrusted actors and their ``can_trigger`` edges (module docstring) to ``ctx.graph``.

    Runs after routing (rule 1 follows ``receives_job`` edges); idempotent.
    """
    plain = _Out(ctx.graph)
    for job in jobs:
        events = {t.event: t for t in job.triggers}
        if events.keys() & _PR_EVENTS:  # the fork run's workflow is the pull request's: it can drop the environment
            trig = next(events[e] for e in sorted(events.keys() & _PR_EVENTS))
            _fork_pr_runners(ctx, plain, job, trig.evidence)
        out = _Reviewed(ctx.graph) if reviewed(ctx, job) else plain
        for event in sorted(events.keys() & (_PRIVILEGED | _COMMENT_EVENTS.keys())):
            _privileged(ctx, out, job, event)
        way = writer_way_in(ctx, job)  # rule 4: what a writer runs (graphkit.resolve.writers)
        if way is not None and not _member_entered(ctx, job):  # (not twice where rule 5 gave the job already)
            plain.edge("org-member", context_owner(job), job.id, way.evidence, P, "write",
                       {"job": job.id, "event": way.event, "guards": way.guards})
    _writer_runners(ctx, plain, jobs)


def _member_entered(ctx: Context, job: Job) -> bool:
    """``org-member`` has a ``can_trigger`` edge to ``job`` already (rule 5: an outsider's way in)."""
    return any(e.kind is EdgeKind.CAN_TRIGGER and e.source == ids.untrusted("org-member", context_owner(job))
               for e in ctx.graph.in_edges(job.id))


def _writer_runners(ctx: Context, out: _Out, jobs: Sequence[Job]) -> None:
    """Rule 8: ``org-member -> runner`` (``possible``) for every runner a repository of the owner can use: a
    writer pushes a workflow whose ``runs-on`` names it (:func:`graphkit.resolve.writers.writer_runners`)."""
    by_owner: dict[str, list[Job]] = {}
    for job in jobs:
        if job.platform == "github":
            by_owner.setdefault(context_owner(job), []).append(job)
    for owner, owned in by_owner.items():
        for runner, job in writer_runners(ctx, owned):
            out.edge("org-member", owner, runner.id, job.evidence[:1], P, "write",
                     {"job": job.id, "event": "push", "guards": _g("org-member-write"),
                      "reason": "a writer can push a workflow whose runs-on names this runner"})


def add_absent_entries(graph: Graph, sources: Iterable[str]) -> list[str]:
    """Add an edge-less actor node for each untrusted source the graph has no entry for; a note for each.

    ``untrusted:comment:acme`` when no job of acme runs pull request code on a
    comment is an empty blast radius, not an unknown id (the fresh-user test).
    Other ids are left alone (an unknown one stays an error).

    >>> g = Graph()
    >>> add_absent_entries(g, ["untrusted:comment:acme", "job:x"]), "untrusted:comment:acme" in g
    (['untrusted:comment:acme: no job of acme can be made to run code by this actor (no entry point found)'], True)
    """
    notes: list[str] = []
    for s in sources:
        actor, _, owner = s.removeprefix("untrusted:").partition(":")
        if not s.startswith("untrusted:") or actor not in ACTORS or not owner or s in graph:
            continue
        sid = ids.untrusted(actor, owner)
        if sid in graph:
            continue
        graph.add_node(UntrustedActor(id=sid, name=f"{actor} ({owner})", actor=actor, owner=owner,
                                      evidence=[Evidence(file="graphkit/data/untrusted_guards.json",
                                                         detail=f"{actor} of {owner}: no entry point")]))
        notes.append(f"{sid}: no job of {owner} can be made to run code by this actor (no entry point found)")
    return notes


def expand_sources(graph: Graph, sources: Iterable[str], org: str | None = None) -> list[str]:
    """Blast-radius sources with the short untrusted forms expanded.

    ``untrusted:fork-pr`` (no owner) becomes ``untrusted:fork-pr:{org}`` when
    ``org`` is given, else every ``untrusted:fork-pr:*`` node of the graph;
    other ids are kept as given.

    >>> g = Graph()
    >>> _ = g.add_node(UntrustedActor(id="untrusted:fork-pr:acme", name="x", actor="fork-pr", owner="acme"))
    >>> expand_sources(g, ["untrusted:fork-pr", "job:x"]), expand_sources(g, ["untrusted:fork-pr"], "Beta")
    (['untrusted:fork-pr:acme', 'job:x'], ['untrusted:fork-pr:beta'])
    """
    out: list[str] = []
    for s in sources:
        actor = s.removeprefix("untrusted:") if s.startswith("untrusted:") else None
        if actor not in ACTORS:
            out.append(s)
        elif org is not None:
            out.append(ids.untrusted(actor, org))
        else:
            found = [n.id for n in nodes_of_kind(graph, NodeKind.UNTRUSTED)
                     if isinstance(n, UntrustedActor) and n.actor == actor]
            out.extend(found or [s])
    return out


def outside_entries(graph: Graph) -> Iterator[tuple[UntrustedActor, Edge]]:
    """Every ``can_trigger`` edge of the untrusted actors outside the organization (``fork-pr``, ``comment``).

    ``org-member`` (writers) is left out: writers run code in every job they can change, by design, so the
    findings about untrusted code name only people from outside.  Yields ``(actor, edge)`` sorted by actor id,
    then target and key.
    """
    for actor in nodes_of_kind(graph, NodeKind.UNTRUSTED):
        if not isinstance(actor, UntrustedActor) or actor.actor == "org-member":
            continue
        for e in sorted(graph.out_edges(actor.id), key=lambda x: (x.target, x.key)):
            if e.kind is EdgeKind.CAN_TRIGGER:
                yield actor, e
