"""The reads of ``collect github`` (the only I/O besides writing the snapshot): one function per scope.

Every read goes through :meth:`Reader.read`, which turns an :class:`~ingest._api.Unreadable` answer (403, 404,
a body that is not JSON) into ``None`` (**unknown**, never an empty list) and a :class:`Scope` record naming the
permission that would fix it (:mod:`ingest.github_api.resources`).  Pages are kept by the client's raw store, so a
second run with the same output folder fetches only what the first one did not get.

Endpoints (https://docs.github.com/en/rest): organizations ``/orgs/{org}``, repositories
``/orgs/{org}/repos``, self-hosted runners and runner groups ``/orgs/{org}/actions/runners``,
``/actions/runner-groups`` (``/{id}/repositories``, ``/{id}/runners``), secrets and variables
``/actions/secrets``, ``/actions/variables`` (names only), environments ``/repos/{owner}/{repo}/environments``
(``/{env}/secrets``, ``/{env}/variables``, ``/{env}/deployment-branch-policies``), permissions
``/actions/permissions/workflow``, ``/actions/permissions/fork-pr-contributor-approval``,
``/actions/permissions/fork-pr-workflows-private-repos``, OIDC ``/actions/oidc/customization/sub``, deploy keys
``/keys``, App installations ``/orgs/{org}/installations``, the tree and contents APIs
(``/git/trees/{branch}?recursive=1``, ``/contents/{path}?ref=``), workflow runs and jobs
(``/actions/runs?created=>=SINCE``, ``/actions/runs/{run_id}/jobs``) and the audit log
(``/orgs/{org}/audit-log``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from graphkit.errors import GraphkitError
from ingest._api import ApiClient, Unreadable
from ingest.github_api.convert import decode_content, names_only, valid_full_name, workflow_paths
from ingest.github_api.resources import resource

__all__ = ["AUDIT_ACTIONS", "OrganizationNotFound", "Reader", "Scope", "scope_name", "fetch_audit_log", "fetch_files", "fetch_history", "fetch_org",
           "fetch_repo", "list_repositories"]

PER_PAGE = {"per_page": 100}
#: Runner registration and removal events of the audit log
#: (https://docs.github.com/en/organizations/keeping-your-organization-secure/managing-security-settings-for-your-organization/audit-log-events-for-your-organization).
AUDIT_ACTIONS = ("org.register_self_hosted_runner", "org.remove_self_hosted_runner",
                 "repo.register_self_hosted_runner", "repo.remove_self_hosted_runner")


def scope_name(kind: str, name: str) -> str:
    """A ``snapshot.json`` scope name: ``org:acme``, ``repo:acme/app``, ``environment:acme/app:prod``... (names of
    what was read, not graph node ids)."""
    return f"{kind}:{name}"


@dataclass
class Scope:
    """One ``snapshot.json`` scope record: ``resource``, ``scope`` (``org:acme``, ``repo:acme/app``...),
    ``status`` (``ok``/``unreadable``), ``http_status``, ``reason``, ``fix`` (the permission that reads it)."""

    resource: str
    scope: str
    status: str
    http_status: int | None = None
    reason: str = ""
    fix: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON record."""
        return {"resource": self.resource, "scope": self.scope, "status": self.status,
                "http_status": self.http_status, "reason": self.reason, "fix": self.fix}


class Reader:
    """Reads scopes through an :class:`ApiClient`, recording each one's outcome (thread-safe).

    ``progress(resource, advance)`` is called after every read.
    """

    def __init__(self, client: ApiClient, progress: Callable[[str, int], None] | None = None) -> None:
        self.client = client
        self.scopes: dict[tuple[str, str], Scope] = {}
        self._progress = progress or (lambda name, n: None)
        self._lock = threading.Lock()

    def read(self, name: str, scope: str, fn: Callable[[], Any], *, empty_on: tuple[int, ...] = ()) -> Any | None:
        """``fn()``, or None when the scope is unreadable (recorded with its fix); an HTTP status in
        ``empty_on`` means "nothing there" (e.g. 409 for the tree of an empty repository) and gives ``[]``."""
        try:
            value = fn()
        except Unreadable as exc:
            if exc.status in empty_on:
                value = []
            else:
                # only a refusal (401/403/404) is fixed by a permission; a malformed answer says so in its reason
                fix = resource(name).fix if exc.status in (401, 403, 404) else ""
                self.record(Scope(name, scope, "unreadable", exc.status or None, exc.reason, fix))
                self._progress(name, 1)
                return None
        self.record(Scope(name, scope, "ok"))
        self._progress(name, 1)
        return value

    def record(self, s: Scope) -> None:
        """Keep ``s`` (an unreadable record of a scope wins over an ok one)."""
        with self._lock:
            kept = self.scopes.get((s.resource, s.scope))
            if kept is None or kept.status == "ok":  # one unreadable read makes the scope unreadable
                self.scopes[(s.resource, s.scope)] = s

    def unreadable(self) -> list[Scope]:
        """The unreadable scopes, sorted."""
        return sorted((s for s in self.scopes.values() if s.status != "ok"), key=lambda s: (s.resource, s.scope))


def _items(c: ApiClient, path: str, key: str | None, **params: Any) -> Callable[[], list[Any]]:
    return lambda: c.items(path, key, {**PER_PAGE, **params})


def _body(c: ApiClient, path: str) -> Callable[[], Any]:
    return lambda: c.get(path).body


def _names(c: ApiClient, path: str) -> Callable[[], list[Any]]:
    """A variables list with the values dropped before anything is kept."""
    return lambda: c.items(path, "variables", dict(PER_PAGE), scrub=names_only)


def list_repositories(rd: Reader, org: str, given: list[str]) -> list[dict] | None:
    """The repositories to read: ``given`` (``owner/name``, each ``GET /repos/{owner}/{repo}``) or every
    repository of ``org`` (``GET /orgs/{org}/repos?type=all``); None when the list is unreadable."""
    c = rd.client
    if not given:
        found = rd.read("repositories", scope_name("org", org), _items(c, f"orgs/{org}/repos", None, type="all"))
        if found is None:
            return None
    else:
        found = [rd.read("repositories", scope_name("repo", name), _body(c, f"repos/{name}")) for name in given]
    kept = [r for r in found if isinstance(r, dict) and valid_full_name(r.get("full_name"))]
    bad = len([r for r in found if r is not None]) - len(kept)
    if bad:  # never a request or file path from such a name
        rd.record(Scope("repositories", scope_name("org", org), "unreadable", None, f"{bad} repository name(s) "
                        "GitHub does not allow were left out", resource("repositories").fix))
    return kept


class OrganizationNotFound(GraphkitError):
    """``GET /orgs/{org}`` answered 404: no such organization, or one the token (or an anonymous reader) cannot
    see; GitHub answers 404, not 403, for what it hides
    (https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api#404-not-found-for-an-existing-resource)."""


def fetch_org(rd: Reader, org: str, *, must_exist: bool = False) -> dict[str, Any]:
    """Everything read at the organization level (None per unreadable part).

    Raises
    ------
    OrganizationNotFound
        with ``must_exist`` (every repository of the organization asked for), when ``GET /orgs/{org}`` answers
        404: a mistyped ``--org`` is an error, not a snapshot of an empty organization with permission hints.
    """
    c, s = rd.client, scope_name("org", org)
    base = f"orgs/{org}"
    organization = rd.read("organization", s, _body(c, base))
    if organization is None and must_exist and rd.scopes[("organization", s)].http_status == 404:
        raise OrganizationNotFound(f"organization {org!r} not found at {rd.client.base_url}, or not visible to "
                                   f"this token (GET /orgs/{org} answered 404): check --org and --api-url, and "
                                   "that the token (or GitHub App installation) belongs to the organization")
    out: dict[str, Any] = {
        "organization": organization,
        "runners": rd.read("runners", s, _items(c, f"{base}/actions/runners", "runners")),
        "runner_groups": rd.read("runner-groups", s, _items(c, f"{base}/actions/runner-groups", "runner_groups")),
        "secrets": rd.read("secrets", s, _items(c, f"{base}/actions/secrets", "secrets")),
        "variables": rd.read("variables", s, _names(c, f"{base}/actions/variables")),
        "workflow_permissions": rd.read("workflow-permissions", s, _body(c, f"{base}/actions/permissions/workflow")),
        "oidc_sub": rd.read("oidc-subject", s, _body(c, f"{base}/actions/oidc/customization/sub")),
        "installations": rd.read("installations", s, _items(c, f"{base}/installations", "installations")),
        "group_repositories": {}, "group_runners": {}, "secret_repositories": {},
    }
    need_runners = any("runner_group_id" not in r for r in out["runners"] or [])
    for g in out["runner_groups"] or []:
        gs, gid = scope_name("runner-group", f"{org}/{g.get('name')}"), g.get("id")
        if g.get("visibility") == "selected":
            out["group_repositories"][str(gid)] = rd.read(
                "runner-groups", gs, _items(c, f"{base}/actions/runner-groups/{gid}/repositories", "repositories"))
        if need_runners:
            out["group_runners"][str(gid)] = rd.read(
                "runner-groups", gs, _items(c, f"{base}/actions/runner-groups/{gid}/runners", "runners"))
    for sec in out["secrets"] or []:
        if sec.get("visibility") == "selected":
            name = sec.get("name", "")
            out["secret_repositories"][name] = rd.read(
                "secrets", scope_name("secret", f"{org}/{name}"),
                _items(c, f"{base}/actions/secrets/{quote(name, safe='')}/repositories", "repositories"))
    return out


def _environment(rd: Reader, full: str, env: dict) -> dict[str, Any]:
    c, name = rd.client, str(env.get("name", ""))
    base, s = f"repos/{full}/environments/{quote(name, safe='')}", scope_name("environment", f"{full}:{name}")
    policy = env.get("deployment_branch_policy") or {}
    branch_policies = rd.read("environments", s, _items(c, f"{base}/deployment-branch-policies", "branch_policies")) \
        if policy.get("custom_branch_policies") else None
    return {"environment": env, "secrets": rd.read("secrets", s, _items(c, f"{base}/secrets", "secrets")),
            "variables": rd.read("variables", s, _names(c, f"{base}/variables")),
            "branch_policies": branch_policies}


def fetch_repo(rd: Reader, repo: dict) -> dict[str, Any]:
    """Everything read for one repository (``repo``: its ``GET /repos/{owner}/{repo}`` or list item)."""
    c, full = rd.client, str(repo.get("full_name"))
    base, s = f"repos/{full}", scope_name("repo", full)
    public = repo.get("visibility") == "public" or repo.get("private") is False
    fork = "fork-pr-contributor-approval" if public else "fork-pr-workflows-private-repos"
    envs = rd.read("environments", s, _items(c, f"{base}/environments", "environments"))
    return {
        "repository": repo,
        "runners": rd.read("runners", s, _items(c, f"{base}/actions/runners", "runners")),
        "secrets": rd.read("secrets", s, _items(c, f"{base}/actions/secrets", "secrets")),
        "variables": rd.read("variables", s, _names(c, f"{base}/actions/variables")),
        "environments": None if envs is None else [_environment(rd, full, e) for e in envs],
        "protected_branches": rd.read("branches", s, _items(c, f"{base}/branches", None, protected="true")),
        "workflow_permissions": rd.read("workflow-permissions", s, _body(c, f"{base}/actions/permissions/workflow")),
        "fork_pr_policy": rd.read("fork-pr-policy", s, _body(c, f"{base}/actions/permissions/{fork}")),
        "oidc_sub": rd.read("oidc-subject", s, _body(c, f"{base}/actions/oidc/customization/sub")),
        "deploy_keys": rd.read("deploy-keys", s, _items(c, f"{base}/keys", None)),
    }


def fetch_files(rd: Reader, repo: dict) -> dict[str, str] | None:
    """The workflow files and local actions of ``repo`` at its default branch: ``{path: text}`` (the tree API,
    then the contents API, base64-decoded); None when unreadable.  An empty repository (409) has none."""
    c, full, branch = rd.client, str(repo.get("full_name")), str(repo.get("default_branch") or "HEAD")
    s = scope_name("repo", full)
    tree = rd.read("workflow-files", s, lambda: c.get(f"repos/{full}/git/trees/{quote(branch, safe='')}",
                                                      {"recursive": "1"}).body, empty_on=(409,))
    if tree is None:
        return None
    if isinstance(tree, dict) and tree.get("truncated"):
        rd.record(Scope("workflow-files", s, "unreadable", None, "tree truncated by the API: local actions deep "
                         "in the repository may be missing", resource("workflow-files").fix))
    files: dict[str, str] = {}
    for path in workflow_paths(tree):
        body = rd.read("workflow-files", s, lambda p=path: c.get(f"repos/{full}/contents/{quote(p)}",
                                                                   {"ref": branch}).body)
        text = decode_content(body) if isinstance(body, dict) and body.get("encoding") == "base64" else None
        if text is not None:
            files[path] = text
        elif body is not None:  # never silently lost: the file exists but its text was not returned
            rd.record(Scope("workflow-files", s, "unreadable", None, f"{path}: no base64 UTF-8 content returned "
                            "(file over 1 MB, or not text)", resource("workflow-files").fix))
    return files


def fetch_history(rd: Reader, repo: dict, since: str) -> dict[str, Any] | None:
    """The workflow runs created since ``since`` and each run's jobs: ``{"runs": [...], "jobs": {run_id: [...]}}``
    (None when unreadable).  ``filter=all`` lists every attempt's jobs
    (https://docs.github.com/en/rest/actions/workflow-jobs#list-jobs-for-a-workflow-run).  GitHub lists at most
    1,000 runs for a search with ``created``
    (https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-repository): fewer runs than
    ``total_count`` makes the scope unreadable (partial history: a later ``--since`` reads the rest)."""
    c, full = rd.client, str(repo.get("full_name"))
    s = scope_name("repo", full)
    pages = rd.read("workflow-runs", s, lambda: list(c.pages(f"repos/{full}/actions/runs",
                                                             {**PER_PAGE, "created": f">={since}"})))
    if pages is None:
        return None
    runs = [r for p in pages for r in (p.body or {}).get("workflow_runs") or [] if isinstance(r, dict)]
    total = (pages[0].body or {}).get("total_count") if pages else 0
    if isinstance(total, int) and total > len(runs):
        rd.record(Scope("workflow-runs", s, "unreadable", None, f"{len(runs)} of {total} runs listed (GitHub lists "
                        "at most 1,000 per search): narrow --since", resource("workflow-runs").fix))
    jobs = {str(r.get("id")): rd.read("workflow-runs", s, _items(c, f"repos/{full}/actions/runs/{r.get('id')}/jobs",
                                                                  "jobs", filter="all")) for r in runs}
    return {"runs": runs, "jobs": jobs}


def fetch_audit_log(rd: Reader, org: str, since: str) -> list[dict] | None:
    """The runner registration and removal events of ``org`` since ``since`` (one search per action of
    :data:`AUDIT_ACTIONS`, merged, oldest first); None when unreadable (plan without audit log, missing
    permission)."""
    c, day = rd.client, since[:10]
    found: list[dict] = []
    for action in AUDIT_ACTIONS:
        got = rd.read("audit-log", scope_name("org", org), _items(c, f"orgs/{org}/audit-log", None,
                                                        phrase=f"action:{action} created:>={day}", include="web"))
        if got is None:
            return None
        found += [e for e in got if isinstance(e, dict)]
    unique = {str(e.get("_document_id") or sorted(e.items())): e for e in found}.values()  # one event per id
    return sorted(unique, key=lambda e: (e.get("@timestamp") or e.get("created_at") or 0, str(e.get("_document_id"))))
