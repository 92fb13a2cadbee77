"""Rule ``oidc-trust-without-sub``: a GitHub OIDC trust with no ``sub`` condition."""

from graphkit.cloud import trust_findings
from graphkit.findings import Severity, rule


@rule("oidc-trust-without-sub", title="OIDC trust without a sub condition",
      description="The role trusts token.actions.githubusercontent.com for sts:AssumeRoleWithWebIdentity with no "
      "condition on the sub claim (nor on repository, repository_id, repository_owner_id or enterprise_id, which AWS "
      "STS evaluates since 2026-01): every workflow of every repository on github.com can assume it (audience is "
      "chosen by the job, so an aud condition alone does not restrict it).  Likewise a GitLab ID token trust "
      "(oidc-provider/gitlab.com or a known instance) without a gitlab.com:sub condition lets in every project of "
      "the instance.",
      help_uri="https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/"
      "configuring-openid-connect-in-amazon-web-services",
      severity=Severity.CRITICAL,
      remediation="Add a StringEquals (or narrow StringLike) condition on token.actions.githubusercontent.com:sub, "
      "e.g. repo:ORG/REPO:environment:production, then revoke the role's active sessions.")
def check(graph, options):
    """Trust statements without any positive ``sub`` condition."""
    yield from trust_findings(check, graph, {
        "no-sub": (Severity.CRITICAL, "{subject}: GitHub OIDC trust has no sub condition (any repository on github.com)"),
        # GitLab ID tokens: "Configure OpenID Connect in AWS", https://docs.gitlab.com/ci/cloud_services/aws/
        "gitlab:no-sub": (Severity.CRITICAL, "{subject}: GitLab ID token trust has no sub condition (any project "
                          "on the GitLab instance)")})
