"""Pure functions: GitHub REST answers -> the runner inventory document, the checkouts layout and the history files.

Input shapes are GitHub's documented responses (https://docs.github.com/en/rest; examples in
``../shared/corpus/github-api/octokit__openapi/``).  A part that could not be read is ``None`` and stays
**unknown** in the inventory (``secrets: null``, ``secrets_complete: false``, ``runners_complete: false``...),
never an empty list.  Output: ``graphkit.runner-inventory/v1`` (:mod:`ingest.runner_inventory.models`; field
names follow the same endpoints).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Any

from ingest.runner_inventory.models import SCHEMA_ID

__all__ = ["decode_content", "history_documents", "inventory_document", "names_only", "runner_apps", "safe_relative",
           "workflow_paths"]

#: Folders never searched for local actions (as the github-actions source skips them).
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "vendor"})


def names_only(body: Any) -> Any:
    """A variables answer (``{"total_count", "variables": [{name, value, ...}]}``) without the values: only
    names and dates are kept (https://docs.github.com/en/rest/actions/variables).

    >>> names_only({"total_count": 1, "variables": [{"name": "A", "value": "x", "updated_at": "t"}]})
    {'total_count': 1, 'variables': [{'name': 'A', 'updated_at': 't'}]}
    """
    if not isinstance(body, dict) or not isinstance(body.get("variables"), list):
        return body
    kept = [{k: v for k, v in var.items() if k != "value"} for var in body["variables"] if isinstance(var, dict)]
    return {**body, "variables": kept}


def safe_relative(path: str) -> str | None:
    """``path`` when it is a plain relative POSIX path (no ``..``, no absolute or empty part), else None.

    >>> [safe_relative(p) for p in (".github/workflows/ci.yml", "../x", "/etc/passwd", "a//b")]
    ['.github/workflows/ci.yml', None, None, None]
    """
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
        return None
    return path


def workflow_paths(tree: Any) -> list[str]:
    """The files GitHub runs or a workflow can use locally, from a recursive tree
    (https://docs.github.com/en/rest/git/trees#get-a-tree): ``.github/workflows/*.yml|yaml`` (GitHub does not
    recurse) and every ``action.yml|yaml`` outside ``.git``/``node_modules``/``.venv``/``vendor``; sorted.

    >>> workflow_paths({"tree": [{"path": ".github/workflows/ci.yml", "type": "blob"},
    ...                          {"path": ".github/workflows/sub/x.yml", "type": "blob"},
    ...                          {"path": "setup/action.yml", "type": "blob"},
    ...                          {"path": "node_modules/a/action.yml", "type": "blob"}]})
    ['.github/workflows/ci.yml', 'setup/action.yml']
    """
    found: set[str] = set()
    for entry in (tree or {}).get("tree", []) if isinstance(tree, dict) else []:
        path = entry.get("path") if isinstance(entry, dict) and entry.get("type") == "blob" else None
        if not isinstance(path, str) or safe_relative(path) is None:
            continue
        p = PurePosixPath(path)
        workflow = p.parent.as_posix() == ".github/workflows" and p.suffix in (".yml", ".yaml")
        action = p.name in ("action.yml", "action.yaml") and not _SKIP_DIRS.intersection(p.parts[:-1])
        if workflow or action:
            found.add(path)
    return sorted(found)


def decode_content(body: dict) -> str | None:
    """The text of a contents answer (``{"type": "file", "encoding": "base64", "content": ...}``,
    https://docs.github.com/en/rest/repos/contents#get-repository-content), None when it is not UTF-8 base64.

    >>> decode_content({"encoding": "base64", "content": "b246IHB1c2gK\\n"})
    'on: push\\n'
    """
    try:
        return base64.b64decode(str(body.get("content", "")).replace("\n", ""), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


# --------------------------------------------------------------------------- inventory


def _full_names(repos: list[dict] | None) -> list[str] | None:
    return None if repos is None else sorted(str(r.get("full_name")) for r in repos if isinstance(r, dict))


def _oidc(body: Any) -> dict[str, Any] | None:
    """An OIDC subject customisation (https://docs.github.com/en/rest/actions/oidc): org answers carry
    ``include_claim_keys``, repository answers ``use_default`` too."""
    if not isinstance(body, dict):
        return None
    out = {k: body[k] for k in ("use_default", "include_claim_keys", "use_immutable_subject") if k in body}
    return out or None


def _org_secrets(raw: dict) -> list[dict] | None:
    if raw.get("secrets") is None:
        return None
    out = []
    for s in raw["secrets"]:
        entry: dict[str, Any] = {"name": s.get("name"), "visibility": s.get("visibility")}
        if s.get("visibility") == "selected":
            entry["selected_repositories"] = _full_names(raw["secret_repositories"].get(s.get("name")))
        out.append(entry)
    return out


def _runner_groups(raw: dict) -> list[dict] | None:
    """Runner groups (https://docs.github.com/en/rest/actions/self-hosted-runner-groups)."""
    if raw.get("runner_groups") is None:
        return None
    out = []
    for g in raw["runner_groups"]:
        entry: dict[str, Any] = {"name": g.get("name"), "id": g.get("id"), "visibility": g.get("visibility"),
                                 "allows_public_repositories": bool(g.get("allows_public_repositories")),
                                 "restricted_to_workflows": bool(g.get("restricted_to_workflows"))}
        if g.get("visibility") == "selected":
            entry["selected_repositories"] = _full_names(raw["group_repositories"].get(str(g.get("id"))))
        if g.get("restricted_to_workflows"):
            entry["selected_workflows"] = g.get("selected_workflows")
        out.append(entry)
    return out


def _group_of(raw: dict) -> dict[int, str]:
    """Runner id -> group name, from ``runner_group_id`` or the groups' runner lists."""
    names = {g.get("id"): g.get("name") for g in raw.get("runner_groups") or []}
    found = {r.get("id"): names.get(r.get("runner_group_id")) for r in raw.get("runners") or []
             if r.get("runner_group_id") in names}
    for gid, runners in raw.get("group_runners", {}).items():
        for r in runners or []:
            found.setdefault(r.get("id"), names.get(int(gid)))
    return {k: v for k, v in found.items() if v}


def _runner(r: dict, scope: str, group: str | None) -> dict[str, Any]:
    """A self-hosted runner (https://docs.github.com/en/rest/actions/self-hosted-runners)."""
    entry: dict[str, Any] = {"name": r.get("name"), "id": r.get("id"), "scope": scope,
                             "labels": [{k: lab[k] for k in ("name", "id", "type") if k in lab}
                                        for lab in r.get("labels") or [] if isinstance(lab, dict)],
                             "os": r.get("os"), "status": r.get("status"), "busy": r.get("busy")}
    if "ephemeral" in r:
        entry["ephemeral"] = r["ephemeral"]
    if group:
        entry["runner_group"] = group
    return {k: v for k, v in entry.items() if v is not None}


def _environment(env: dict, owner: str) -> dict[str, Any]:
    """An environment (https://docs.github.com/en/rest/deployments/environments), its secret names and its
    deployment branch policies (https://docs.github.com/en/rest/deployments/branch-policies)."""
    e = env["environment"]
    rules = []
    for rule in e.get("protection_rules") or []:
        entry: dict[str, Any] = {"type": rule.get("type")}
        if rule.get("wait_timer") is not None:
            entry["wait_timer"] = rule["wait_timer"]
        if rule.get("reviewers") is not None:
            entry["reviewers"] = [rv["reviewer"].get("login") if rv.get("type") == "User"
                                  else f"{owner}/{rv['reviewer'].get('slug')}" for rv in rule["reviewers"]
                                  if isinstance(rv.get("reviewer"), dict)]
        rules.append(entry)
    out: dict[str, Any] = {"name": e.get("name"), "protection_rules": rules}
    secrets = env.get("secrets")
    out["secrets"] = None if secrets is None else [s.get("name") for s in secrets]
    out["secrets_complete"] = secrets is not None
    policy = e.get("deployment_branch_policy")
    if isinstance(policy, dict):
        out["deployment_branch_policy"] = {
            "protected_branches": policy.get("protected_branches"),
            "custom_branch_policies": policy.get("custom_branch_policies"),
            "branch_policies": None if env.get("branch_policies") is None else
            [{"name": b.get("name"), "type": b.get("type") or "branch"} for b in env["branch_policies"]]}
    return out


def _repository(raw: dict) -> dict[str, Any]:
    """A repository entry (https://docs.github.com/en/rest/repos/repos#get-a-repository) with what was read
    around it; fork policy: https://docs.github.com/en/rest/actions/permissions."""
    r = raw["repository"]
    full, owner = str(r.get("full_name")), str(r.get("full_name")).split("/")[0]
    visibility = r.get("visibility") or ("private" if r.get("private") else "public")
    entry: dict[str, Any] = {"full_name": full, "id": r.get("id"), "visibility": visibility,
                             "default_branch": r.get("default_branch")}
    branches = raw.get("protected_branches")
    entry["protected_branches"] = None if branches is None else sorted(b.get("name") for b in branches)
    fork = raw.get("fork_pr_policy")
    if isinstance(fork, dict) and fork.get("approval_policy"):
        entry["fork_pr_approval"] = fork["approval_policy"]
    if isinstance(fork, dict) and "run_workflows_from_fork_pull_requests" in fork:
        entry["fork_pr_workflows"] = bool(fork["run_workflows_from_fork_pull_requests"])
    secrets = raw.get("secrets")
    entry["secrets"] = None if secrets is None else [s.get("name") for s in secrets]
    entry["secrets_complete"] = secrets is not None
    envs = raw.get("environments")
    entry["environments"] = None if envs is None else [_environment(e, owner) for e in envs]
    if (oidc := _oidc(raw.get("oidc_sub"))) is not None:
        entry["oidc_sub_template"] = oidc
    return {k: v for k, v in entry.items() if v is not None or k in ("secrets", "environments",
                                                                     "protected_branches")}


def inventory_document(org: str, org_raw: dict, repos_raw: Iterable[dict], *, all_repositories: bool) -> dict:
    """The runner inventory (``graphkit.runner-inventory/v1``) of what was read.

    Parameters
    ----------
    org
        the organization login.
    org_raw
        :func:`ingest.github_api.fetch.fetch_org`'s result.
    repos_raw
        :func:`ingest.github_api.fetch.fetch_repo`'s results.
    all_repositories
        every repository of the organization was listed (no ``--repo`` subset): with every runner list read,
        ``runners_complete`` is true.

    Returns
    -------
    dict
        the document (YAML/JSON-compatible); unreadable parts are ``null`` / ``*_complete: false``.
    """
    repos = list(repos_raw)
    o = org_raw.get("organization") or {}
    groups = _group_of(org_raw)
    runners = [_runner(r, org, groups.get(r.get("id"))) for r in org_raw.get("runners") or []]
    runners_read = org_raw.get("runners") is not None and all(r.get("runners") is not None for r in repos)
    for r in repos:
        runners += [_runner(x, str(r["repository"].get("full_name")), None) for x in r.get("runners") or []]
    organization: dict[str, Any] = {"name": org, "secrets": _org_secrets(org_raw),
                                    "secrets_complete": org_raw.get("secrets") is not None,
                                    "runner_groups": _runner_groups(org_raw),
                                    "runners_complete": runners_read and all_repositories}
    if o.get("id") is not None:
        organization["id"] = o["id"]
    if (oidc := _oidc(org_raw.get("oidc_sub"))) is not None:
        organization["oidc_sub_template"] = oidc
    return {"schema": SCHEMA_ID, "organizations": [organization],
            "repositories": [_repository(r) for r in repos], "runners": runners}


def history_documents(history: dict[str, Any]) -> tuple[dict, dict[str, dict]]:
    """``runs.json`` and ``jobs/RUN_ID.json`` documents in GitHub's list shapes, all pages merged
    (https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-repository,
    https://docs.github.com/en/rest/actions/workflow-jobs#list-jobs-for-a-workflow-run); runs whose jobs were
    unreadable get no jobs file."""
    runs = {"total_count": len(history["runs"]), "workflow_runs": history["runs"]}
    jobs = {rid: {"total_count": len(js), "jobs": js} for rid, js in history["jobs"].items() if js is not None}
    return runs, jobs


def runner_apps(installations: list[dict] | None) -> list[str]:
    """Slugs of the App installations that can register self-hosted runners for the organization
    (``organization_self_hosted_runners: write``,
    https://docs.github.com/en/rest/authentication/permissions-required-for-github-apps): their private keys mint
    registration tokens, like a PAT with ``admin:org``.

    >>> runner_apps([{"app_slug": "scaler", "permissions": {"organization_self_hosted_runners": "write"}},
    ...              {"app_slug": "ci", "permissions": {"contents": "read"}}])
    ['scaler']
    """
    return sorted(str(i.get("app_slug")) for i in installations or []
                  if (i.get("permissions") or {}).get("organization_self_hosted_runners") == "write")
