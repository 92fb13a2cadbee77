"""What ``collect github`` reads: one :class:`Resource` per REST endpoint family, with the permission that reads it.

``fix`` is what the snapshot and the summary say when the resource is unreadable (403/404): the fine-grained
token / GitHub App permission first, then the classic token scope.  Sources:
https://docs.github.com/en/rest/authentication/permissions-required-for-fine-grained-personal-access-tokens,
https://docs.github.com/en/rest/authentication/permissions-required-for-github-apps and each endpoint's page
(``doc``).  The README's "collect github" table is this table.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RESOURCES", "Resource", "resource"]


@dataclass(frozen=True)
class Resource:
    """One readable resource: ``name`` (as in ``snapshot.json`` scopes), the ``endpoint``, the ``fix`` (permission
    that reads it) and its ``doc`` URL."""

    name: str
    endpoint: str
    fix: str
    doc: str


_R = "https://docs.github.com/en/rest"
RESOURCES: dict[str, Resource] = {r.name: r for r in (
    Resource("organization", "GET /orgs/{org}", "fine-grained/App: Metadata (read) / classic: read:org",
             f"{_R}/orgs/orgs#get-an-organization"),
    Resource("repositories", "GET /orgs/{org}/repos, GET /repos/{owner}/{repo}",
             "fine-grained/App: Metadata (read) / classic: repo (private repositories)",
             f"{_R}/repos/repos#list-organization-repositories"),
    Resource("runners", "GET /orgs/{org}/actions/runners, GET /repos/{owner}/{repo}/actions/runners",
             "fine-grained/App: organization Self-hosted runners (read), repository Administration (read) / "
             "classic: admin:org (org), repo (repository)", f"{_R}/actions/self-hosted-runners"),
    Resource("runner-groups", "GET /orgs/{org}/actions/runner-groups[/{id}/repositories|runners]",
             "fine-grained/App: organization Self-hosted runners (read) / classic: admin:org",
             f"{_R}/actions/self-hosted-runner-groups"),
    Resource("secrets", "GET /orgs/{org}/actions/secrets[/{name}/repositories], "
             "GET /repos/{owner}/{repo}/actions/secrets, .../environments/{env}/secrets (names only)",
             "fine-grained/App: organization Secrets (read), repository Secrets (read) / classic: admin:org (org), "
             "repo (repository)", f"{_R}/actions/secrets"),
    Resource("variables", "GET /orgs/{org}/actions/variables, GET /repos/{owner}/{repo}/actions/variables, "
             ".../environments/{env}/variables (names only are kept)",
             "fine-grained/App: organization Variables (read), repository Variables (read), Environments (read) / "
             "classic: admin:org (org), repo (repository)", f"{_R}/actions/variables"),
    Resource("environments", "GET /repos/{owner}/{repo}/environments[/{env}/deployment-branch-policies]",
             "fine-grained/App: repository Actions (read) / classic: repo",
             f"{_R}/deployments/environments"),
    Resource("branches", "GET /repos/{owner}/{repo}/branches?protected=true",
             "fine-grained/App: repository Contents (read) / classic: repo", f"{_R}/branches/branches"),
    Resource("workflow-permissions", "GET /orgs/{org}/actions/permissions/workflow, "
             "GET /repos/{owner}/{repo}/actions/permissions/workflow",
             "fine-grained/App: organization Administration (read), repository Administration (read) / classic: "
             "admin:org (org), repo (repository)", f"{_R}/actions/permissions"),
    Resource("fork-pr-policy", "GET /repos/{owner}/{repo}/actions/permissions/fork-pr-contributor-approval "
             "(public), .../fork-pr-workflows-private-repos (private, internal)",
             "fine-grained/App: repository Administration (read) / classic: repo", f"{_R}/actions/permissions"),
    Resource("oidc-subject", "GET /orgs/{org}/actions/oidc/customization/sub, "
             "GET /repos/{owner}/{repo}/actions/oidc/customization/sub",
             "fine-grained/App: organization Administration (read), repository Actions (read) / classic: read:org "
             "(org), repo (repository)", f"{_R}/actions/oidc"),
    Resource("deploy-keys", "GET /repos/{owner}/{repo}/keys",
             "fine-grained/App: repository Administration (read) / classic: repo",
             f"{_R}/deploy-keys/deploy-keys"),
    Resource("installations", "GET /orgs/{org}/installations",
             "fine-grained/App: organization Administration (read) / classic: read:org",
             f"{_R}/orgs/orgs#list-app-installations-for-an-organization"),
    Resource("workflow-files", "GET /repos/{owner}/{repo}/git/trees/{branch}?recursive=1, "
             "GET /repos/{owner}/{repo}/contents/{path}?ref={branch}",
             "fine-grained/App: repository Contents (read) / classic: repo", f"{_R}/git/trees"),
    Resource("workflow-runs", "GET /repos/{owner}/{repo}/actions/runs?created=>=SINCE, "
             "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
             "fine-grained/App: repository Actions (read) / classic: repo", f"{_R}/actions/workflow-runs"),
    Resource("audit-log", "GET /orgs/{org}/audit-log?phrase=action:org.register_self_hosted_runner ...",
             "GitHub Enterprise Cloud plan, organization owner; fine-grained/App: organization Administration "
             "(read) / classic: read:audit_log", f"{_R}/orgs/orgs#get-the-audit-log-for-an-organization"),
)}


def resource(name: str) -> Resource:
    """The :class:`Resource` called ``name`` (a ``KeyError`` is a defect)."""
    return RESOURCES[name]
