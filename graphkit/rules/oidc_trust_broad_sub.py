"""Rule ``oidc-trust-broad-sub``: ``repo:ORG/*``, ``repo:ORG/REPO:*`` or any branch."""

from graphkit.cloud import trust_findings
from graphkit.findings import Severity, rule


@rule("oidc-trust-broad-sub", title="OIDC trust accepts any repository, branch, PR or environment",
      description="The trusted sub is repo:ORG/* (every repository of the organization), repo:ORG/REPO:* (any "
      "branch, pull request or environment) or repo:ORG/REPO:ref:refs/heads/* (any branch): whoever can push a "
      "branch or open a pull request there can assume the role, from any runner; repo:ORG/REPO:environment:* "
      "likewise (a job naming a new environment creates it, without protection rules).  GitLab: project_path:GROUP/*, "
      "project_path:GROUP/PROJECT:* and ...:ref_type:branch:ref:*.",
      help_uri="https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_create_for-idp_oidc.html",
      severity=Severity.HIGH,
      remediation="Pin the sub to an environment with protection rules (repo:ORG/REPO:environment:NAME) or to "
      "a protected branch, then revoke the role's active sessions.")
def check(graph, options):
    """Org-wide and any-context subs (high), any-branch subs (medium)."""
    yield from trust_findings(check, graph, {
        "org-wide": (Severity.HIGH, "{subject}: trusted sub {value!r} accepts every repository of the owner"),
        "any-context": (Severity.HIGH, "{subject}: trusted sub {value!r} accepts any branch, pull request or "
                        "environment"),
        "any-branch": (Severity.MEDIUM, "{subject}: trusted sub {value!r} accepts any branch"),
        "any-environment": (Severity.MEDIUM, "{subject}: trusted sub {value!r} accepts any environment (a job naming "
                            "a new environment creates it, without protection rules)"),
        "gitlab:org-wide": (Severity.HIGH, "{subject}: trusted GitLab sub {value!r} accepts every project of the "
                            "group"),
        "gitlab:any-context": (Severity.HIGH, "{subject}: trusted GitLab sub {value!r} accepts any branch or tag"),
        "gitlab:any-branch": (Severity.MEDIUM, "{subject}: trusted GitLab sub {value!r} accepts any branch"),
    })
