"""Credentials that recreate footholds: ``CAN_REGISTER_RUNNER`` and ``GROUP_RECEIVES_JOB`` edges (semantics §8).

Runner registration tokens last one hour, so whatever registers runners keeps
a credential that can mint them.  Whoever holds it can attach a new runner,
with any labels, to any runner group of the organization (or to the
repository) and receive every job routed there.  Removing registrations while
such a credential is live is undone in minutes.

Who can mint a registration token (GitHub REST API, "Create a registration
token for an organization" / "... for a repository",
https://docs.github.com/en/rest/actions/self-hosted-runners#create-a-registration-token-for-an-organization;
the same permissions create a just-in-time runner configuration,
``POST /orgs/{org}/actions/runners/generate-jitconfig``):

- organization: a classic PAT or OAuth token with ``admin:org`` (or the
  narrower ``manage_runners:org``, GitHub docs "Scopes for OAuth apps",
  https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps),
  a fine-grained PAT or GitHub App with the "Self-hosted runners" organization
  permission (write): ``organization_self_hosted_runners:write``;
- repository: a classic PAT with ``repo`` (and admin on the repository: the
  user's role is not read, so ``possible``), a fine-grained PAT or GitHub App
  with "Administration" (write): ``administration:write``
  (https://docs.github.com/en/rest/actions/self-hosted-runners#create-a-registration-token-for-a-repository).
  A classic ``repo`` scope never mints an organization's tokens, whatever
  organization the token is used with.

Registrars come from three places:

1. credentials with ``Credential.scopes`` (an inventory declaring a token's
   scopes or an App's permissions, or a host scan that read them): the
   organization or repository is ``Credential.github_owner``; when unknown,
   the owners of the runners on the credential's host (``possible``).  A
   repository-level credential naming an organization (or none) registers
   into any repository of it (``possible``: which ones it administers is
   unknown), scope ``owner/*``;
2. credentials whose scopes are unknown but whose type can only be such a
   token (``github_app_key``: an App private key, e.g. an ARC controller's;
   ``github_pat`` with no scopes read): ``possible``;
3. ``CAN_REGISTER_RUNNER`` edges a source already made to an organization or
   a repository (a workflow step calling the registration-token API with a
   secret, ``ingest/github_actions/steps/run_scripts.py``).

For an organization: an edge to every runner group the organization has in
the graph (the ``Default`` group, inferred, when none), and from each such
group ``GROUP_RECEIVES_JOB`` to every job whose self-hosted ``runs-on`` the
group may serve (repository and workflow access, ``{group:}`` pin; labels are
the registrant's choice; :func:`graphkit.resolve.routing.group_access`).  For
a repository: an edge to every self-hosted job of the repository (``owner/*``: of every repository of the
owner), ``possible`` unless the credential is a fine-grained ``administration:write`` on that repository.
"""

from __future__ import annotations

from typing import NamedTuple

from graphkit.model import (Confidence, Credential, Edge, EdgeKind, Evidence, Job, NodeKind, RevocationAction,
                            RunnerGroup, ids)
from graphkit.model.ids import owner_key, repo_key
from graphkit.resolve.context import C, P, Context, context_owner, context_repo, edges_of_kind, nodes_of_kind, weakest
from graphkit.resolve.routing import group_access

__all__ = ["ORG_SCOPES", "REPO_SCOPES", "REGISTRAR_TYPES", "host_owners", "link_registration", "registration_scope",
           "rotation"]

#: Scopes or permissions that mint an organization's runner registration tokens (module docstring).
ORG_SCOPES = frozenset({"admin:org", "manage_runners:org", "organization_self_hosted_runners:write"})
#: Scopes or permissions that mint a repository's runner registration tokens.
REPO_SCOPES = frozenset({"repo", "administration:write"})
#: Credential types that, with unknown scopes, may be able to register runners (``possible``).
REGISTRAR_TYPES = frozenset({"github_app_key", "github_pat"})


class _Registrar(NamedTuple):
    source: str
    scope: str  # an owner ("acme") or a repository ("acme/app")
    confidence: Confidence
    evidence: list[Evidence]


def registration_scope(scopes: list[str] | None) -> str | None:
    """``"org"``, ``"repo"`` or None: what a token's scopes let it register runners for.

    >>> registration_scope(["repo", "admin:org"]), registration_scope(["administration:write"])
    ('org', 'repo')
    >>> registration_scope(["read:org"]) is None
    True
    """
    have = {s.strip().lower() for s in scopes or []}
    if have & ORG_SCOPES:
        return "org"
    return "repo" if have & REPO_SCOPES else None


def host_owners(ctx: Context, cred: Credential) -> list[str]:
    owners = {owner_key(r.scope.split("/")[0]) for r in ctx.runners if r.host and r.host.lower() == cred.host}
    return sorted(owners)


def _from_credential(ctx: Context, cred: Credential) -> list[_Registrar]:
    """Rule 1 and 2 of the module docstring for one credential.  An organization scope needs ``admin:org`` (or
    ``manage_runners:org``, or the "Self-hosted runners" organization permission); a repository scope is
    ``certain`` only for ``administration:write`` on a named repository: a classic ``repo`` scope acts as the user,
    who must be an admin of the repository (unknown), and a credential naming an organization (or none) may act
    on any of its repositories (scope ``owner/*``,
    https://docs.github.com/en/rest/actions/self-hosted-runners#create-a-registration-token-for-a-repository)."""
    level = registration_scope(cred.scopes)
    if cred.scopes is None and cred.credential_type in REGISTRAR_TYPES:
        level, conf = "org", P
    elif level is None:
        return []
    else:
        have = {s.strip().lower() for s in cred.scopes or []}
        conf = C if level == "org" or "administration:write" in have else P
    if cred.github_owner:
        owners = [repo_key(cred.github_owner)]
    else:
        owners, conf = host_owners(ctx, cred), P
    if level == "org":
        scopes = list(dict.fromkeys(s.split("/")[0] for s in owners))
    else:
        scopes = [s if "/" in s else f"{s}/*" for s in owners]  # every repository of the owner
        conf = conf if all("/" in s for s in owners) else P
    return [_Registrar(cred.id, s, conf, list(cred.evidence)) for s in scopes]


def _stated(ctx: Context) -> list[_Registrar]:
    """``CAN_REGISTER_RUNNER`` edges a source made to an organization or repository."""
    out = []
    for e in edges_of_kind(ctx.graph, EdgeKind.CAN_REGISTER_RUNNER):
        action = rotation(ctx, e.source)
        if e.revoked_by is not action:  # a step rule's grant (secret -> org) is cut by rotating the secret
            ctx.graph.nx.edges[e.source, e.target, e.nx_key]["edge"] = e.model_copy(update={"revoked_by": action})
            ctx.graph.changed()  # changed in place: derived snapshots are stale
        parsed = ids.parse(e.target)
        if parsed.kind is NodeKind.ORGANIZATION:
            out.append(_Registrar(e.source, owner_key(parsed.parts["owner"]), e.confidence, list(e.evidence)))
        elif parsed.kind is NodeKind.REPOSITORY:
            out.append(_Registrar(e.source, repo_key(parsed.parts["repo"]), e.confidence, list(e.evidence)))
    return out


def _groups(ctx: Context, owner: str, ev: Evidence) -> list[RunnerGroup]:
    found = [g for g in ctx.groups.values() if owner_key(g.owner) == owner]
    if found:
        return sorted(found, key=lambda g: g.id)
    gid = ids.runner_group(owner, "default")
    group = RunnerGroup(id=gid, name="Default", owner=owner, inferred=True, evidence=[ev])
    stored = ctx.graph.add_node(group)
    assert isinstance(stored, RunnerGroup)
    ctx.groups[gid] = stored
    return [stored]


def _wants(ctx: Context, job: Job, group: str | None) -> Confidence | None:
    """Whether a job asks for a self-hosted runner (of ``group`` when given); None: it does not."""
    if job.runs_on_unresolved is not None:
        return P
    best: Confidence | None = None
    for cand in job.runs_on:
        if not ctx.runs_self_hosted(cand.labels):
            continue
        if group is not None and cand.group is not None and owner_key(cand.group) != owner_key(group):
            continue
        best = C if C in (best, cand.confidence) else cand.confidence
    return best


class _Asking(NamedTuple):
    """A job that asks for a self-hosted runner, with what :func:`_group_jobs` asks of it for every group:
    ``want`` (:func:`_wants` without a group), ``pinned`` (a self-hosted candidate names a group: then
    :func:`_wants` depends on the group), ``repo`` (:func:`context_repo`)."""

    job: Job
    want: Confidence
    pinned: bool
    repo: str


def _asking(ctx: Context, job: Job, want: Confidence) -> _Asking:
    pinned = any(c.group is not None and ctx.runs_self_hosted(c.labels) for c in job.runs_on)
    return _Asking(job, want, pinned, context_repo(job))


class _OwnerJobs:
    """The asking jobs of one owner, in order, and per repository (with their positions)."""

    def __init__(self) -> None:
        self.jobs: list[_Asking] = []
        self.by_repo: dict[str, list[tuple[int, _Asking]]] = {}

    def add(self, asking: _Asking) -> None:
        self.by_repo.setdefault(asking.repo, []).append((len(self.jobs), asking))
        self.jobs.append(asking)

    def admissible(self, group: RunnerGroup) -> list[_Asking]:
        """The jobs, or only those of the group's ``selected_repositories`` (same order) when the group lists
        them: it denies every other repository (:func:`~graphkit.resolve.routing.group_access`), so a group of a
        few repositories costs their jobs, not every job of the owner."""
        if group.inferred or group.visibility != "selected" or group.selected_repositories is None:
            return self.jobs
        found = [t for r in {repo_key(r) for r in group.selected_repositories} for t in self.by_repo.get(r, ())]
        return [a for _, a in sorted(found, key=lambda t: t[0])]


def _group_jobs(ctx: Context, group: RunnerGroup, jobs: list[_Asking]) -> None:
    """``group_receives_job`` from ``group`` to each job of ``jobs`` (of the group's owner: those it may admit,
    :meth:`_OwnerJobs.admissible`) that asks for it and that it admits, in job order.  Per group, the work per job is a few lookups: the group's answer depends on the job's repository
    alone unless the group restricts workflows (:func:`~graphkit.resolve.routing.group_access`)."""
    per_repo = group.inferred or not group.restricted_to_workflows
    by_repo: dict[str, Confidence | None] = {}
    for job, base, pinned, repo in jobs:
        want = _wants(ctx, job, group.name) if pinned else base
        if want is None:
            continue
        if not per_repo:
            access = group_access(ctx, group, job, repo)
        elif repo in by_repo:
            access = by_repo[repo]
        else:
            access = by_repo[repo] = group_access(ctx, group, job, repo)
        if access is None:
            continue
        ctx.graph.add_edge_fields(EdgeKind.GROUP_RECEIVES_JOB, group.id, job.id,
                                  [*group.evidence[:1], *job.evidence[:1]], confidence=weakest(want, access))


def rotation(ctx: Context, source: str) -> RevocationAction:
    """What cuts a registrar's edges: its own kind's revocation (rotate a secret, rotate an on-disk credential);
    an ARC controller's Kubernetes Secret: rotate the GitHub App key or PAT it holds (:mod:`graphkit.resolve.k8s`)."""
    node = ctx.graph.node(source)
    if node.spec.kind is NodeKind.K8S_SECRET:
        return RevocationAction.ROTATE_CONTROLLER_CREDENTIAL
    return node.spec.revoked_by or RevocationAction.ROTATE_CREDENTIAL


def _edge(ctx: Context, reg: _Registrar, target: str, conf: Confidence) -> None:
    ctx.graph.add_edge(Edge(kind=EdgeKind.CAN_REGISTER_RUNNER, source=reg.source, target=target,
                            evidence=reg.evidence, confidence=weakest(reg.confidence, conf),
                            revoked_by=rotation(ctx, reg.source), props={"scope": reg.scope}))


def link_registration(ctx: Context, jobs: list[Job]) -> None:
    """Add the edges of every registrar of ``ctx.graph`` (rules in the module docstring); idempotent."""
    registrars = _stated(ctx)
    for node in list(nodes_of_kind(ctx.graph, NodeKind.CREDENTIAL)):
        if isinstance(node, Credential):
            registrars += _from_credential(ctx, node)
    linked: set[str] = set()
    asking: dict[str, _OwnerJobs] = {}  # per owner, in order: the jobs that ask for a self-hosted runner at all
    for job in jobs:  # (a group pin only narrows what a job asks: the others never reach a group)
        if (want := _wants(ctx, job, None)) is not None:
            asking.setdefault(context_owner(job), _OwnerJobs()).add(_asking(ctx, job, want))
    for reg in registrars:
        if "/" in reg.scope:  # a repository's self-hosted jobs; ``owner/*``: every repository's of the owner
            owner, _, name = reg.scope.partition("/")
            owned = asking.get(owner_key(owner))
            found = owned.jobs if owned and name == "*" else [a for _, a in owned.by_repo.get(reg.scope, [])] \
                if owned else []
            for a in found:
                _edge(ctx, reg, a.job.id, a.want)
            continue
        for group in _groups(ctx, reg.scope, reg.evidence[0]):
            _edge(ctx, reg, group.id, C)
            if group.id not in linked:
                linked.add(group.id)
                owned = asking.get(owner_key(group.owner))
                _group_jobs(ctx, group, owned.admissible(group) if owned else [])

