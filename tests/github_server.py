"""A fake GitHub organization ``acme`` served by a real local HTTP server (pytest-httpserver), for collect github.

Every answer has the shape GitHub documents for its endpoint (the REST description's examples in
``../shared/corpus/github-api/octokit__openapi/``: runner-paginated, runner-groups-org,
organization-actions-secret-paginated, actions-secret-paginated, environments,
deployment-branch-policies-list, oidc-custom-sub, actions-default-workflow-permissions, deploy-key-items;
workflow runs and jobs as https://docs.github.com/en/rest/actions/workflow-runs and
https://docs.github.com/en/rest/actions/workflow-jobs show them; the audit log as
https://docs.github.com/en/rest/orgs/orgs#get-the-audit-log-for-an-organization).  The organization is the
bundled example's (``examples/acme``): the same repositories, workflow files, runners, groups, secrets and
environments, as the API knows them (no hosts: the API does not see them).  ``tests/fixtures/github-api/
acme-inventory.yaml`` is the same organization written by hand.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from werkzeug import Response

ROOT = Path(__file__).resolve().parent.parent
REPOS = ROOT / "examples" / "acme" / "repos"
ORG = "acme"
SINCE = "2026-11-30T00:00:00Z"


def _label(i: int, name: str) -> dict:
    return {"id": i, "name": name, "type": "read-only" if name in ("self-hosted", "Linux", "X64") else "custom"}


def _runner(i: int, name: str, labels: list[str], group: int, ephemeral: bool = False) -> dict:
    return {"id": i, "name": name, "os": "linux", "status": "online", "busy": False, "ephemeral": ephemeral,
            "runner_group_id": group, "labels": [_label(n, x) for n, x in enumerate(labels, 1)]}


RUNNERS = [_runner(101, "build-01-a", ["self-hosted", "Linux", "X64", "shared"], 2),
           _runner(102, "build-01-b", ["self-hosted", "Linux", "X64", "release"], 3),
           _runner(203, "eph-7f3a", ["self-hosted", "Linux", "X64", "shared"], 2, ephemeral=True)]

GROUPS = [
    {"id": 1, "name": "Default", "visibility": "all", "default": True, "inherited": False,
     "runners_url": "https://api.github.com/orgs/acme/actions/runner_groups/1/runners",
     "allows_public_repositories": False, "restricted_to_workflows": False, "selected_workflows": [],
     "workflow_restrictions_read_only": False},
    {"id": 2, "name": "shared-linux", "visibility": "selected", "default": False, "inherited": False,
     "selected_repositories_url": "https://api.github.com/orgs/acme/actions/runner_groups/2/repositories",
     "runners_url": "https://api.github.com/orgs/acme/actions/runner_groups/2/runners",
     "allows_public_repositories": True, "restricted_to_workflows": False, "selected_workflows": [],
     "workflow_restrictions_read_only": False},
    {"id": 3, "name": "release", "visibility": "selected", "default": False, "inherited": False,
     "selected_repositories_url": "https://api.github.com/orgs/acme/actions/runner_groups/3/repositories",
     "runners_url": "https://api.github.com/orgs/acme/actions/runner_groups/3/runners",
     "allows_public_repositories": False, "restricted_to_workflows": True,
     "selected_workflows": ["acme/app/.github/workflows/release.yml@refs/heads/main"],
     "workflow_restrictions_read_only": False},
]


def _repo(i: int, name: str, visibility: str) -> dict:
    return {"id": i, "node_id": f"R_{i}", "name": name, "full_name": f"acme/{name}", "private": visibility != "public",
            "visibility": visibility, "owner": {"login": "acme", "id": 1001, "type": "Organization"},
            "default_branch": "main", "archived": False, "fork": False, "allow_forking": False}


REPOSITORIES = [_repo(2001, "app", "private"), _repo(2002, "docs", "public"), _repo(2003, "infra", "private")]

ORG_SECRETS = [
    {"name": "SLACK_WEBHOOK_URL", "visibility": "all"},
    {"name": "ACME_BOT_TOKEN", "visibility": "private"},
    {"name": "DOCS_DEPLOY_KEY", "visibility": "selected",
     "selected_repositories_url": "https://api.github.com/orgs/acme/actions/secrets/DOCS_DEPLOY_KEY/repositories"},
    {"name": "TF_STATE_TOKEN", "visibility": "selected",
     "selected_repositories_url": "https://api.github.com/orgs/acme/actions/secrets/TF_STATE_TOKEN/repositories"},
]
REPO_SECRETS = {"app": ["PYPI_API_TOKEN", "CODECOV_TOKEN"], "docs": ["ALGOLIA_ADMIN_KEY"],
                "infra": ["KUBE_CONFIG_STAGING"]}


def _env(i: int, name: str, rules: list[dict], policy: dict | None) -> dict:
    return {"id": i, "node_id": f"EN_{i}", "name": name, "url": f"https://api.github.com/repos/acme/x/environments/{name}",
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
            "protection_rules": rules, "deployment_branch_policy": policy}


ENVIRONMENTS = {
    "app": [_env(1, "production", [{"id": 11, "node_id": "GA_11", "type": "branch_policy"}],
                 {"protected_branches": False, "custom_branch_policies": True}),
            _env(2, "staging", [], None)],
    "docs": [],
    "infra": [_env(3, "production", [{"id": 12, "node_id": "GA_12", "type": "required_reviewers", "reviewers": [
        {"type": "Team", "reviewer": {"id": 7, "name": "Platform team", "slug": "platform-team"}}]}], None)],
}
ENV_SECRETS = {("app", "production"): ["COSIGN_PRIVATE_KEY", "COSIGN_PASSWORD"], ("app", "staging"): [],
               ("infra", "production"): ["KUBE_CONFIG_PROD"]}

#: A job history: run 9001 of acme/app (ci.yml) had a job on build-01-a and one on a GitHub-hosted runner.
RUNS = {"app": [{"id": 9001, "name": "ci", "node_id": "WFR_9001", "head_branch": "main", "head_sha": "a" * 40,
                 "path": ".github/workflows/ci.yml", "display_title": "ci", "run_number": 42, "event": "push",
                 "status": "completed", "conclusion": "success", "workflow_id": 501, "run_attempt": 1,
                 "url": "https://api.github.com/repos/acme/app/actions/runs/9001",
                 "created_at": "2026-12-01T10:00:00Z", "updated_at": "2026-12-01T10:09:00Z",
                 "run_started_at": "2026-12-01T10:00:00Z", "actor": {"login": "dev1", "id": 5},
                 "triggering_actor": {"login": "dev1", "id": 5},
                 "repository": {"id": 2001, "full_name": "acme/app"}}],
        "docs": [], "infra": []}
JOBS = {9001: [
    {"id": 70001, "run_id": 9001, "workflow_name": "ci", "head_branch": "main", "head_sha": "a" * 40,
     "run_attempt": 1, "status": "completed", "conclusion": "success", "name": "test",
     "created_at": "2026-12-01T10:00:05Z", "started_at": "2026-12-01T10:00:10Z",
     "completed_at": "2026-12-01T10:05:00Z", "labels": ["self-hosted", "shared"], "runner_id": 101,
     "runner_name": "build-01-a", "runner_group_id": 2, "runner_group_name": "shared-linux", "steps": []},
    {"id": 70002, "run_id": 9001, "workflow_name": "ci", "head_branch": "main", "head_sha": "a" * 40,
     "run_attempt": 1, "status": "completed", "conclusion": "success", "name": "lint",
     "created_at": "2026-12-01T10:00:05Z", "started_at": "2026-12-01T10:00:12Z",
     "completed_at": "2026-12-01T10:01:00Z", "labels": ["ubuntu-latest"], "runner_id": 3,
     "runner_name": "GitHub Actions 3", "runner_group_id": 0, "runner_group_name": "GitHub Actions",
     "steps": []},
]}
AUDIT = [{"@timestamp": 1764583200000, "action": "org.register_self_hosted_runner", "actor": "mallory",
          "actor_id": 66, "org": "acme", "org_id": 1001, "runner_id": 301, "runner_name": "sneaky",
          "created_at": 1764583200000, "_document_id": "doc-1"}]


def _listing(key: str, items: list) -> dict:
    return {"total_count": len(items), key: items}


def _file(path: Path, rel: str) -> dict:
    data = path.read_bytes()
    return {"type": "file", "encoding": "base64", "size": len(data), "name": path.name, "path": rel,
            "content": base64.encodebytes(data).decode("ascii"), "sha": "0" * 40}


def routes() -> dict[str, Any]:
    """Path -> JSON body of every endpoint the collector reads (without query strings)."""
    r: dict[str, Any] = {
        "/orgs/acme": {"login": "acme", "id": 1001, "type": "Organization"},
        "/orgs/acme/repos": REPOSITORIES,
        "/orgs/acme/actions/runners": _listing("runners", RUNNERS),
        "/orgs/acme/actions/runner-groups": _listing("runner_groups", GROUPS),
        "/orgs/acme/actions/runner-groups/2/repositories": _listing("repositories", REPOSITORIES),
        "/orgs/acme/actions/runner-groups/3/repositories": _listing("repositories", REPOSITORIES[:1]),
        "/orgs/acme/actions/secrets": _listing("secrets", ORG_SECRETS),
        "/orgs/acme/actions/secrets/DOCS_DEPLOY_KEY/repositories": _listing("repositories", [REPOSITORIES[1]]),
        "/orgs/acme/actions/secrets/TF_STATE_TOKEN/repositories": _listing("repositories", [REPOSITORIES[2]]),
        "/orgs/acme/actions/variables": _listing("variables", [{"name": "REGION", "value": "eu-west-1",
                                                                "visibility": "all"}]),
        "/orgs/acme/actions/permissions/workflow": {"default_workflow_permissions": "read",
                                                    "can_approve_pull_request_reviews": False},
        "/orgs/acme/actions/oidc/customization/sub": {"include_claim_keys": ["repo", "context"]},
        "/orgs/acme/installations": _listing("installations", [{"id": 77, "app_slug": "autoscaler",
                                                                "permissions": {"organization_self_hosted_runners":
                                                                                "write"}}]),
        "/orgs/acme/audit-log": AUDIT,
    }
    for repo in REPOSITORIES:
        name, base = repo["name"], f"/repos/acme/{repo['name']}"
        checkout = REPOS / f"acme__{name}"
        files = sorted(p.relative_to(checkout).as_posix() for p in checkout.rglob("*") if p.is_file())
        r[base] = repo
        r[f"{base}/actions/runners"] = _listing("runners", [])
        r[f"{base}/actions/secrets"] = _listing("secrets", [{"name": s, "created_at": "2026-01-01T00:00:00Z",
                                                            "updated_at": "2026-01-01T00:00:00Z"}
                                                           for s in REPO_SECRETS[name]])
        r[f"{base}/actions/variables"] = _listing("variables", [])
        r[f"{base}/environments"] = _listing("environments", ENVIRONMENTS[name])
        for env in ENVIRONMENTS[name]:
            e = f"{base}/environments/{env['name']}"
            r[f"{e}/secrets"] = _listing("secrets", [{"name": s} for s in ENV_SECRETS[(name, env["name"])]])
            r[f"{e}/variables"] = _listing("variables", [])
            r[f"{e}/deployment-branch-policies"] = _listing("branch_policies", [{"id": 1, "node_id": "BP_1",
                                                                                "name": "main", "type": "branch"}])
        r[f"{base}/branches"] = []
        r[f"{base}/actions/permissions/workflow"] = {"default_workflow_permissions": "write",
                                                     "can_approve_pull_request_reviews": False}
        r[f"{base}/actions/permissions/fork-pr-contributor-approval"] = {"approval_policy":
                                                                         "first_time_contributors"}
        r[f"{base}/actions/permissions/fork-pr-workflows-private-repos"] = {
            "run_workflows_from_fork_pull_requests": False, "send_write_tokens_to_workflows": False,
            "send_secrets_and_variables": False, "require_approval_for_fork_pr_workflows": True}
        r[f"{base}/actions/oidc/customization/sub"] = {"use_default": True}
        r[f"{base}/keys"] = [{"id": 1, "key": "ssh-ed25519 AAAAfake", "title": "deploy", "read_only": True,
                              "verified": True, "created_at": "2026-01-01T00:00:00Z"}]
        r[f"{base}/git/trees/main"] = {"sha": "b" * 40, "truncated": False, "tree": [
            {"path": f, "mode": "100644", "type": "blob", "sha": "c" * 40} for f in files]}
        for f in files:
            r[f"{base}/contents/{f}"] = _file(checkout / f, f)
        r[f"{base}/actions/runs"] = _listing("workflow_runs", RUNS[name])
        for run in RUNS[name]:
            r[f"{base}/actions/runs/{run['id']}/jobs"] = _listing("jobs", JOBS[run["id"]])
    return r


def serve(httpserver, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Register every route on ``httpserver`` (``overrides``: path -> body, or a werkzeug ``Response`` such as a
    403); the org runners come in two pages linked by ``Link``.  Returns the routes."""
    table = {**routes(), **(overrides or {})}
    runners = "/orgs/acme/actions/runners"
    if runners not in (overrides or {}):  # two pages: Link pagination
        nxt = httpserver.url_for(runners) + "?page=2&per_page=100"
        httpserver.expect_request(runners, query_string={"page": "2", "per_page": "100"}).respond_with_json(
            _listing("runners", RUNNERS[2:]))
        httpserver.expect_request(runners).respond_with_json(
            _listing("runners", RUNNERS[:2]) | {"total_count": 3},
            headers={"Link": f'<{nxt}>; rel="next", <{nxt}>; rel="last"'})
    for path, body in table.items():
        handler = httpserver.expect_request(path)
        if isinstance(body, Response):
            handler.respond_with_response(body)
        else:
            handler.respond_with_json(body)
    return table


def forbidden(message: str = "Resource not accessible by integration") -> Response:
    """A 403 as GitHub answers a token without the permission."""
    return Response(json.dumps({"message": message, "documentation_url": "https://docs.github.com/rest",
                                "status": "403"}), status=403, content_type="application/json")


def not_found() -> Response:
    """A 404 (also GitHub's answer for an audit log on a plan without it)."""
    return Response(json.dumps({"message": "Not Found", "documentation_url": "https://docs.github.com/rest",
                                "status": "404"}), status=404, content_type="application/json")
