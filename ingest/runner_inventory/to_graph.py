"""Turn validated runner inventories into nodes, edges and resolver facts (pure: no I/O).

One function per section of the format: organizations (secrets, runner
groups), repositories (secrets, environments), hosts (credentials, caches) and
runners (group membership, host).  Every node id is built by
:mod:`graphkit.model.ids`; nodes and edges of a file accumulate in a
:class:`~graphkit.graph.GraphBuilder`, merged exactly as the graph merges
them.  Every node and edge carries :class:`~graphkit.model.Evidence` with the
file (as given), the YAML path (``runners[2]``) and its line.

Only the fields an entry gives are set on its node, so that the same runner
from a host scan and from the org inventory merges into one node without
erasing facts.  An environment's ``production`` is passed through only when
the inventory states it: :func:`graphkit.targets.classify_targets` (run by the
build) guesses the rest from the name and sets criticality.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphkit.errors import SCAN_GAP, InputError
from graphkit.graph import GraphBuilder
from graphkit.ingestor import IngestResult
from graphkit.meta import InventoryFacts
from graphkit.model import (BranchPolicy, Cache, Credential, DeploymentTarget, EdgeKind, Evidence, Host, Lifetime,
                            Organization, Repository, Runner, RunnerGroup, Secret, ids)
from graphkit.redact import mark_credentials
from ingest.runner_inventory.gitlab_graph import gitlab_sections, runner_info
from ingest.runner_inventory.grants import GrantError, resolve_grant
from ingest.runner_inventory.models import (DeploymentBranchPolicy, Environment, HostCache, HostCredential,
                                            HostEntry, OrganizationEntry, OrgSecret, RepositoryEntry, RunnerEntry,
                                            RunnerGroupEntry, RunnerInventory, runner_id)
from ingest.runner_inventory.parse import ParsedInventory

__all__ = ["META_KEY", "file_graph", "merge_facts", "shown_secret_name", "to_graph"]

#: Key of this ingestor's facts in ``IngestResult.meta`` / ``graph.meta`` (:class:`graphkit.meta.InventoryFacts`).
META_KEY = "runner_inventory"


@dataclass
class _FileGraph:
    """One inventory file on its way to the graph: its builder and the resolver facts gathered so far."""

    file: str
    lines: dict[str, int]
    graph: GraphBuilder = field(default_factory=GraphBuilder)
    #: ids of organizations, repositories and environments whose secret lists are complete
    complete: list[str] = field(default_factory=list)
    #: owner or owner/repo -> OIDC sub customisation
    oidc: dict[str, Any] = field(default_factory=dict)
    #: owner/repo (lower-cased) -> the repository's name as the inventory spells it
    names: dict[str, str] = field(default_factory=dict)
    #: runner groups restricted to workflows whose list is unknown
    unknown_workflows: list[str] = field(default_factory=list)
    #: owners whose runner list an inventory gives (not a host scan)
    owners: set[str] = field(default_factory=set)
    #: (runner id, credential id, evidence) from ``readable_by``, linked once every runner exists
    readable: list[tuple[str, str, Evidence]] = field(default_factory=list)
    #: (runner id, credential id, evidence): a registration's own credential, linked when the runner is in the file
    registrations: list[tuple[str, str, Evidence]] = field(default_factory=list)
    #: when given, places that cannot be linked are appended here instead of raised (one entry never costs the file)
    problems: list[InputError] | None = None
    #: ``(list path, i) -> path of its i-th kept element as written in the file`` (:meth:`ParsedInventory.place_of`)
    at: Callable[[str, int], str] = lambda section, i: f"{section}[{i}]"
    #: GitLab project facts and complete variable lists (:func:`~ingest.runner_inventory.gitlab_graph.gitlab_sections`)
    gitlab: tuple[dict[str, Any], list[str]] = field(default_factory=lambda: ({}, []))

    #: ``(path, detail) -> evidence`` made by :meth:`ev` (a place is named by several nodes and edges: its
    #: evidence, frozen, is made once; issue 19)
    made: dict[tuple[str, str | None], Evidence] = field(default_factory=dict, repr=False)

    def ev(self, path: str, detail: str | None = None) -> Evidence:
        """Evidence for a YAML path of this file (with its line when the path is written in the file); the same
        object for the same ``path`` and ``detail``."""
        key = (path, detail)
        made = self.made.get(key)
        if made is None:
            made = self.made[key] = Evidence(file=self.file, yaml_path=path, line=self.lines.get(path), detail=detail)
        return made

    def org(self, owner: str, ev: Evidence) -> str:
        """Add (or merge) the organization ``owner``; returns its id."""
        return self.graph.node(Organization(id=ids.organization(owner), name=owner, evidence=[ev]))

    def repo(self, full_name: str, ev: Evidence) -> str:
        """Add (or merge) the repository ``owner/name`` and its owner (``owns`` edge); returns its id."""
        rid = self.graph.node(Repository(id=ids.repository(full_name), name=full_name, full_name=full_name,
                                         evidence=[ev]))
        self.graph.edge(EdgeKind.OWNS, self.org(full_name.split("/", 1)[0], ev), rid, ev)
        return rid


def _hostname(name: str) -> tuple[str, str]:
    """``(host id, host name as ids write it)``."""
    hid = ids.host(name)
    return hid, ids.parse(hid).parts["hostname"]


def _repo_names(names: list[str] | None) -> list[str] | None:
    return None if names is None else sorted(ids.repo_key(r) for r in names)


# --------------------------------------------------------------------------- organizations


def _organization(fg: _FileGraph, org: OrganizationEntry, p: str) -> None:
    oid = fg.org(org.name, fg.ev(p))
    owner = ids.owner_key(org.name)
    if org.secrets_complete and org.secrets is not None:
        fg.complete.append(oid)
    if org.oidc_sub_template is not None:
        fg.oidc[owner] = org.oidc_sub_template.model_dump(exclude_none=True)
    if org.id is not None:  # OIDC claim facts for graphkit.cloud (repository_owner_id, immutable subjects)
        fg.oidc.setdefault(owner, {})["owner_id"] = org.id
    for j, s in enumerate(org.secrets or []):
        _org_secret(fg, org.name, oid, s, fg.at(f"{p}.secrets", j))
    for j, g in enumerate(org.runner_groups or []):
        _runner_group(fg, owner, oid, g, fg.at(f"{p}.runner_groups", j))


def shown_secret_name(name: str) -> str:
    """A secret's name as the graph stores it: a token-shaped name (a token pasted where its name belongs) is
    ``***`` and the keyed fingerprint of the value (:func:`graphkit.redact.mark_credentials`), as a workflow's
    ``secrets.<token>`` is scrubbed (:func:`ingest._credentials.scrub`): never stored, and a job referencing the
    same value still finds the secret.

    >>> shown_secret_name("NPM_TOKEN"), shown_secret_name("ghp_" + "A1b2" * 9)[:3]
    ('NPM_TOKEN', '***')
    """
    return mark_credentials(name)


def _org_secret(fg: _FileGraph, org_name: str, oid: str, s: OrgSecret, sp: str) -> None:
    shown = shown_secret_name(s.name)
    name = ids.secret_key(shown)
    sid = fg.graph.node(Secret(id=ids.secret_org(org_name, shown), name=f"{org_name} org secret {name}",
                               secret_name=name, scope="org", owner=ids.owner_key(org_name), visibility=s.visibility,
                               selected_repositories=_repo_names(s.selected_repositories), evidence=[fg.ev(sp)]))
    fg.graph.edge(EdgeKind.HAS_SECRET, oid, sid, fg.ev(sp))


def _runner_group(fg: _FileGraph, owner: str, oid: str, g: RunnerGroupEntry, gp: str) -> None:
    gid = fg.graph.node(RunnerGroup(id=ids.runner_group(owner, g.name), name=g.name, owner=owner,
                                    visibility=g.visibility, selected_repositories=_repo_names(g.selected_repositories),
                                    allows_public_repositories=g.allows_public_repositories,
                                    restricted_to_workflows=g.restricted_to_workflows,
                                    selected_workflows=list(g.selected_workflows or []), evidence=[fg.ev(gp)]))
    fg.graph.edge(EdgeKind.OWNS, oid, gid, fg.ev(gp))
    if g.visibility == "selected":
        for k, r in enumerate(g.selected_repositories or []):
            rp = fg.at(f"{gp}.selected_repositories", k)
            fg.graph.edge(EdgeKind.ALLOWS_REPOSITORY, gid, fg.repo(r, fg.ev(rp)), fg.ev(rp))
    if g.restricted_to_workflows and g.selected_workflows is None:
        fg.unknown_workflows.append(gid)  # list unknown: the resolver treats access as possible


# --------------------------------------------------------------------------- repositories and environments


def _repository(fg: _FileGraph, repo: RepositoryEntry, p: str) -> None:
    rk = ids.repo_key(repo.full_name)
    rid = fg.repo(repo.full_name, fg.ev(p))
    fg.graph.node(Repository(id=rid, name=repo.full_name, full_name=repo.full_name, visibility=repo.visibility,
                             default_branch=repo.default_branch, protected_branches=repo.protected_branches,
                             fork_pr_approval=repo.fork_pr_approval, fork_pr_workflows=repo.fork_pr_workflows,
                             evidence=[fg.ev(p)]))
    if repo.secrets_complete and repo.secrets is not None:
        fg.complete.append(rid)
    if repo.oidc_sub_template is not None:
        fg.oidc[rk] = repo.oidc_sub_template.model_dump(exclude_none=True)
    if repo.id is not None:  # OIDC claim facts for graphkit.cloud (repository_id, immutable subjects)
        fg.oidc.setdefault(rk, {})["repository_id"] = repo.id
    fg.names[rk] = repo.full_name  # the spelling OIDC claims carry (graphkit.cloud)
    for j, written in enumerate(repo.secrets or []):
        sp = fg.at(f"{p}.secrets", j)
        name = shown_secret_name(written)
        nm = ids.secret_key(name)
        sid = fg.graph.node(Secret(id=ids.secret_repo(rk, name), name=f"{repo.full_name} secret {nm}", secret_name=nm,
                                   scope="repo", owner=rk.split("/")[0], repository=rk,
                                   evidence=[fg.ev(sp)]))
        fg.graph.edge(EdgeKind.HAS_SECRET, rid, sid, fg.ev(sp))
    for j, env in enumerate(repo.environments or []):
        _environment(fg, repo.full_name, env, fg.at(f"{p}.environments", j))


def _branch_policy(policy: DeploymentBranchPolicy | None) -> BranchPolicy | None:
    """The model of an environment's deployment branch policy; None for "No restriction" (or not given)."""
    if policy is None:
        return None
    if policy.protected_branches:
        return BranchPolicy(protected_branches=True)
    if not (policy.custom_branch_policies or policy.branch_policies is not None):
        return None
    if policy.branch_policies is None:
        return BranchPolicy(branches=None)
    return BranchPolicy(branches=tuple(b.name for b in policy.branch_policies if b.type == "branch"),
                        tags=tuple(b.name for b in policy.branch_policies if b.type == "tag"))


def _environment(fg: _FileGraph, full_name: str, env: Environment, ep: str) -> None:
    """A deployment environment: ``production`` only when the inventory states it (the build classifies)."""
    rk = ids.repo_key(full_name)
    rules = sorted({r.type for r in env.protection_rules or []})
    detail = f"protection_rules: {', '.join(rules) or 'none'}" if env.protection_rules is not None else None
    tid = fg.graph.node(DeploymentTarget(id=ids.environment(full_name, env.name),
                                         name=f"{full_name} environment {env.name}", target_type="environment",
                                         identifier=f"{rk}:{env.name}", production=env.production,
                                         branch_policy=_branch_policy(env.deployment_branch_policy),
                                         required_reviewers=None if env.protection_rules is None else
                                         any(r.type == "required_reviewers" for r in env.protection_rules),
                                         evidence=[fg.ev(ep, detail)]))
    if env.secrets_complete and env.secrets is not None:
        fg.complete.append(tid)
    for k, written in enumerate(env.secrets or []):
        sp = fg.at(f"{ep}.secrets", k)
        name = shown_secret_name(written)
        nm = ids.secret_key(name)
        sid = fg.graph.node(Secret(id=ids.secret_env(rk, env.name, name),
                                   name=f"{full_name} environment {env.name} secret {nm}", secret_name=nm,
                                   scope="env", owner=rk.split("/")[0], repository=rk,
                                   environment=env.name, evidence=[fg.ev(sp)]))
        fg.graph.edge(EdgeKind.HAS_SECRET, tid, sid, fg.ev(sp))


# --------------------------------------------------------------------------- hosts, credentials, caches


def _host(fg: _FileGraph, host: HostEntry, p: str) -> None:
    hid, hn = _hostname(host.name)
    # only known facts: a host scan (os known, ephemeral not) must not erase an inventory's ephemeral flag
    strays = None if host.scan is None or host.scan.processes is None else [
        f"{p.command} in {p.cwd or 'an unknown folder'} (pid {p.pid}, user {p.user or p.uid})"
        for p in host.scan.processes if p.registration is None]
    known = {k: v for k, v in (("os", host.os), ("ephemeral", host.ephemeral),
                               ("unknown_runner_processes", strays)) if v is not None}
    fg.graph.node(Host(id=hid, name=host.name, evidence=[fg.ev(p)], **known))
    _scan_gaps(fg, host, p)
    for j, cred in enumerate(host.credentials or []):
        _credential(fg, host.name, hid, hn, cred, fg.at(f"{p}.credentials", j))
    for j, cache in enumerate(host.caches or []):
        _cache(fg, host.name, hid, hn, cache, fg.at(f"{p}.caches", j))


#: ``scan.skip_counts`` reasons that are the host scan's design, not a gap: pseudo filesystems and package or VCS
#: data are never searched (``graphkit collect host`` does not call them problems either).
_BY_DESIGN = frozenset({"pseudo filesystem", "package or VCS data"})


def _scan_gaps(fg: _FileGraph, host: HostEntry, p: str) -> None:
    """One problem for a host scan that did not search or read every path it could hold a runner or credential
    in (a limit, a link out of the root, an unreadable folder, a file not read: ``scan.skip_counts`` but
    :data:`_BY_DESIGN`): what lies there is unknown, so the file's input is partial (exit 3), never complete.
    Without a problems list (a library call) nothing is raised: the snapshot itself is valid."""
    counts = {k: v for k, v in ((host.scan.skip_counts or {}) if host.scan else {}).items()
              if v and k not in _BY_DESIGN}
    if not counts or fg.problems is None:
        return
    line = fg.ev(f"{p}.scan").line
    reasons = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    fg.problems.append(InputError(fg.file, f"{p}.scan", f"{SCAN_GAP} "
                                  f"{sum(counts.values())} path(s) ({reasons}): a runner or credential there is "
                                  "unknown" + (f" (line {line})" if line is not None else "")))


def _credential(fg: _FileGraph, host_name: str, hid: str, hn: str, cred: HostCredential, cp: str) -> None:
    """A credential file: ``host -> credential``, its grants, and ``readable_by`` (linked after the runners)."""
    grants = []
    for k, g in enumerate(cred.grants or []):
        gp = fg.at(f"{cp}.grants", k)
        try:
            grants.append((*resolve_grant(g.access, g.target, fg.ev(gp)), fg.ev(gp)))
        except GrantError as exc:  # parse() leaves such hosts out; a model built by hand may still hold one
            raise InputError(fg.file, f"{gp}.{exc.field}", exc.reason) from None
    readers = None if cred.readable_by is None else sorted(runner_id(r) for r in cred.readable_by)
    cid = fg.graph.node(Credential(id=ids.credential(hn, cred.path), name=f"{cred.path} on {host_name}",
                                   credential_type=cred.credential_type, host=hn, path=cred.path,
                                   fingerprint=cred.fingerprint, lifetime=cred.lifetime,
                                   grants=[t.id for _, t, _ in grants] + list(cred.access or []),
                                   readable_by=readers, url_credential_fingerprint=cred.url_credential_fingerprint,
                                   scopes=cred.scopes, github_owner=cred.github_owner,
                                   evidence=[fg.ev(cp)]))
    fg.graph.edge(EdgeKind.STORES_CREDENTIAL, hid, cid, fg.ev(cp))
    for reader in readers or []:  # the runner's user can read it (edge added once the runner exists)
        fg.readable.append((reader, cid, fg.ev(f"{cp}.readable_by")))
    for owner in _registrations_of(cred):  # a registration's own credential: removing the registration revokes it
        fg.registrations.append((owner, cid, fg.ev(f"{cp}.access")))
    for kind, target, gev in grants:
        fg.graph.edge(kind, cid, fg.graph.node(target), gev, lifetime=cred.lifetime)


def _registrations_of(cred: HostCredential) -> list[str]:
    """The runner ids of a credential that lives until its runner is removed (``access:
    [registration:scope/name]``, as ``graphkit collect host`` writes it): the one it names, or for a GitLab
    ``config.toml`` (``gitlab-runner``) every registration whose token it holds; [] otherwise."""
    if cred.lifetime is not Lifetime.UNTIL_RUNNER_REMOVED:
        return []
    regs = [a.removeprefix("registration:") for a in cred.access or [] if a.startswith("registration:")]
    if len(regs) != 1 and cred.credential_type != "gitlab-runner":
        return []
    out = []
    for reg in regs:
        try:
            out.append(runner_id(reg))
        except ids.IdError:
            continue
    return out


def _cache(fg: _FileGraph, host_name: str, hid: str, hn: str, cache: HostCache, kp: str) -> None:
    runners = {k: sorted(runner_id(r) for r in v) for k, v in (("read_by", cache.read_by),
                                                                 ("written_by", cache.written_by)) if v is not None}
    kid = fg.graph.node(Cache(id=ids.cache_host(hn, cache.path), name=f"{cache.kind or 'cache'} {cache.path} on "
                              f"{host_name}", cache_type="host", scope=hn, path=cache.path, evidence=[fg.ev(kp)],
                              **runners))
    fg.graph.edge(EdgeKind.SHARES_CACHE, hid, kid, fg.ev(kp))


# --------------------------------------------------------------------------- runners


def _runner_fields(r: RunnerEntry, group: str | None) -> dict[str, Any]:
    """Only the fields the entry states, so that a host scan and an inventory of the same runner merge without
    erasing facts.  Labels are not on disk: an inventory's runner always has labels (``self-hosted`` at least),
    a host-scanned one only those given."""
    reg = r.registration
    gl = runner_info(r)
    labels = r.label_names() if r.labels is not None or reg is None else None
    if gl is not None:  # GitLab runners have tags, not labels (no implied self-hosted)
        labels = list(gl.tag_list) if gl.tag_list is not None else None
    # a GitLab registration has no single-use form: its authentication token lives until the runner is deleted
    # (semantics §6; https://docs.gitlab.com/ci/runners/configure_runners/#authentication-token-security)
    ephemeral = False if gl is not None and r.ephemeral is None else r.ephemeral
    pairs = (("labels", labels), ("runner_group", group), ("gitlab", gl),
             ("ephemeral", ephemeral), ("host", _hostname(r.host)[1] if r.host else None), ("os", r.os),
             ("status", r.status), ("platform", "gitlab" if gl else r.platform), ("registration", reg),
             ("label_patterns", [x.strip() for x in r.label_patterns] if r.label_patterns else None),
             ("labels_exact", True if gl is None and r.labels_exact() else None),
             ("in_inventory", True if reg is None else None))
    return {k: v for k, v in pairs if v is not None}


def _runner(fg: _FileGraph, r: RunnerEntry, p: str) -> None:
    """A runner registration: its node, its owner, its group (``member_of``) and its host (``hosts``).

    A runner with ``registration`` was seen on disk by a host scan
    (``graphkit collect host``); one without it is listed by an inventory
    (``Runner.in_inventory``) and, for an organization, is in the ``Default``
    group unless it names one (a host scan does not know the group unless
    ``.runner`` names it).
    """
    scope = ids.repo_key(r.scope)
    owner = scope.split("/")[0]
    gitlab = r.platform == "gitlab" or r.gitlab is not None
    is_org = "/" not in scope and not gitlab
    reg = r.registration
    group = (r.runner_group or ("Default" if reg is None else None)) if is_org else r.runner_group
    ev = fg.ev(p, None if reg is None else f"seen on host: {reg.config_path}")
    rid = fg.graph.node(Runner(id=ids.runner(r.scope, r.name), name=r.name, scope=scope, evidence=[ev],
                               **_runner_fields(r, group)))
    if reg is None:
        fg.owners.add(owner)
    if is_org:
        fg.org(owner, ev)
    elif not gitlab:
        fg.repo(r.scope, ev)
    if group is not None:
        member_path = f"{p}.runner_group" if r.runner_group else p
        _membership(fg, rid, owner, group, fg.ev(member_path), fg.ev(f"{p}.runner_group"), ev)
    if r.host:
        _runs_on(fg, rid, r.host, fg.ev(f"{p}.host"))


def _membership(fg: _FileGraph, rid: str, owner: str, group: str, member_ev: Evidence, group_ev: Evidence,
                runner_ev: Evidence) -> None:
    """``runner -> group``; a group referenced but not listed is inferred (its access settings unknown)."""
    gid = ids.runner_group(owner, group)
    if gid not in fg.graph:
        fg.graph.node(RunnerGroup(id=gid, name=group, owner=owner, inferred=True, evidence=[group_ev]))
        fg.graph.edge(EdgeKind.OWNS, fg.org(owner, runner_ev), gid, group_ev)
    fg.graph.edge(EdgeKind.MEMBER_OF, rid, gid, member_ev)


def _runs_on(fg: _FileGraph, rid: str, host_name: str, ev: Evidence) -> None:
    """``host -> runner`` and ``runner -> host``; on an ephemeral host what a job leaves lasts one job."""
    hid, _ = _hostname(host_name)
    if hid not in fg.graph:
        fg.graph.node(Host(id=hid, name=host_name, evidence=[ev]))
    runner = fg.graph.nodes.get(rid)
    fg.graph.edge(EdgeKind.HOSTS, hid, rid, ev, revoked_by=runner.revoked_by if isinstance(runner, Runner) else None)
    host = fg.graph.nodes[hid]
    ephemeral_host = isinstance(host, Host) and host.ephemeral is True
    fg.graph.edge(EdgeKind.RUNS_ON_HOST, rid, hid, ev, lifetime=Lifetime.PER_JOB if ephemeral_host else None)


def _link_readers(fg: _FileGraph) -> None:
    """``runner -> credential`` for each ``readable_by`` entry, and ``registration_credential`` from a runner of the
    file to its own credential.

    Raises
    ------
    InputError
        for an entry that is not a runner of the file.
    """
    for reader, cid, rev in fg.readable:
        if reader not in fg.graph:
            parts = ids.parse(reader).parts
            exc = InputError(fg.file, rev.yaml_path or "", f"{parts['scope']}/{parts['name']} is not a runner "
                             "of this file" + ("" if fg.problems is None else " (or its entry was skipped); "
                                               "link skipped"))
            if fg.problems is None:
                raise exc
            fg.problems.append(exc)
            continue
        fg.graph.edge(EdgeKind.STORES_CREDENTIAL, reader, cid, rev)
    for owner, cid, rev in fg.registrations:
        runner = fg.graph.nodes.get(owner)
        if isinstance(runner, Runner):  # an ephemeral registration is single-use: its credential lasts one job
            fg.graph.edge(EdgeKind.REGISTRATION_CREDENTIAL, owner, cid, rev,
                          lifetime=Lifetime.PER_JOB if runner.ephemeral else None, revoked_by=runner.revoked_by)
        if isinstance(runner, Runner) and runner.platform == "gitlab":
            # a GitLab runner authentication token: its holder requests the runner's jobs until the runner is
            # deleted or the token reset (https://docs.gitlab.com/ci/runners/configure_runners/)
            fg.graph.edge(EdgeKind.AUTHENTICATES_RUNNER, cid, owner, rev)


# --------------------------------------------------------------------------- one file, every file


def _facts(fg: _FileGraph, inv: RunnerInventory) -> InventoryFacts:
    owners = set(fg.owners)
    if inv.runners is not None:  # an inventory's runner list covers the organizations it declares
        owners.update(ids.owner_key(o.name) for o in inv.organizations or [])
    return InventoryFacts(github_hosted_labels=sorted(set(inv.github_hosted_labels or [])),
                          self_hosted_labels=sorted(set(inv.self_hosted_labels or [])),
                          secrets_complete=sorted(set(fg.complete)), oidc_sub_templates=fg.oidc,
                          unknown_selected_workflows=sorted(fg.unknown_workflows), runner_owners=sorted(owners),
                          runners_complete=sorted(ids.owner_key(o.name) for o in inv.organizations or []
                                                  if o.runners_complete),
                          organizations=sorted(ids.owner_key(o.name) for o in inv.organizations or []),
                          files=[fg.file], **{k: v for k, v in (("gitlab_projects", fg.gitlab[0]),
                                                                ("gitlab_variables_complete", fg.gitlab[1]),
                                                                ("repository_names", fg.names)) if v})


def file_graph(parsed: ParsedInventory,
               problems: list[InputError] | None = None) -> tuple[GraphBuilder, InventoryFacts]:
    """Nodes, edges and resolver facts of one validated inventory (pure).

    Returns
    -------
    tuple
        ``(graph, facts)``: a :class:`~graphkit.graph.GraphBuilder` and this
        file's :class:`~graphkit.meta.InventoryFacts`.

    Raises
    ------
    InputError
        for a ``readable_by`` entry that is not a runner of the file, or a
        credential grant whose target id is malformed or of a kind that cannot
        receive that access (:func:`~ingest.runner_inventory.parse.parse`
        leaves those hosts out, so only a hand-built model has one); names
        file and place.  With ``problems`` given, a ``readable_by`` entry
        that names no runner of the file is appended there and only that link
        is skipped.

    Evidence paths are those of the file: an entry after one that parsing
    left out keeps its own index (:attr:`ParsedInventory.indexes`).
    """
    inv = parsed.inventory
    fg = _FileGraph(parsed.file, parsed.lines, problems=problems, at=parsed.place_of)
    at = parsed.place_of
    for i, org in enumerate(inv.organizations or []):
        _organization(fg, org, at("organizations", i))
    for i, repo in enumerate(inv.repositories or []):
        _repository(fg, repo, at("repositories", i))
    for i, host in enumerate(inv.hosts or []):
        _host(fg, host, at("hosts", i))
    for i, r in enumerate(inv.runners or []):
        _runner(fg, r, at("runners", i))
    fg.gitlab = gitlab_sections(fg.graph, inv, fg.ev, at)
    _link_readers(fg)
    return fg.graph, _facts(fg, inv)


def merge_facts(parts: Sequence[InventoryFacts]) -> InventoryFacts:
    """Union of the facts of several files: lists unioned and sorted (``files`` concatenated), mappings merged."""
    out = InventoryFacts(github_hosted_labels=[], self_hosted_labels=[], secrets_complete=[], oidc_sub_templates={},
                         unknown_selected_workflows=[], files=[])
    for part in parts:
        for name in part.model_fields_set:
            mine, theirs = getattr(out, name), getattr(part, name)
            if name == "files":
                setattr(out, name, mine + theirs)
            elif isinstance(theirs, dict):
                setattr(out, name, {**mine, **theirs})
            else:
                setattr(out, name, sorted(set(mine) | set(theirs)))
    return out


def to_graph(parsed: Sequence[ParsedInventory]) -> IngestResult:
    """Every validated inventory -> one graph part (pure).

    Returns
    -------
    IngestResult
        ``graph``: the nodes and edges of every file; ``problems``: one per
        file whose graph cannot be built (see :func:`file_graph`; that file
        is left out, the others are kept); ``meta[META_KEY]``: the
        :class:`~graphkit.meta.InventoryFacts` of every file
        (:func:`merge_facts`).
    """
    result = IngestResult()
    facts = []
    for p in parsed:
        try:
            graph, file_facts = file_graph(p, result.problems)
        except InputError as exc:
            result.problems.append(exc)
            continue
        result.graph.update(graph)
        facts.append(file_facts)
    result.meta = {META_KEY: merge_facts(facts)}
    return result
