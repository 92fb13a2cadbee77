"""Rule ``oidc-trust-workflow-ref-only``: a GitHub OIDC trust that pins only the called reusable workflow.

In a called workflow the ``sub`` (and ``repository``) name the **caller** while ``job_workflow_ref`` names the
called workflow (GitHub "OpenID Connect reference", reusable workflows,
https://docs.github.com/en/actions/how-tos/secure-your-work/security-harden-deployments/oidc-with-reusable-workflows):
a trust whose only repository condition is ``job_workflow_ref`` is assumable by every repository that can call
that workflow -- any repository on github.com when the workflow's repository is public.
"""

from graphkit.cloud import trust_findings
from graphkit.findings import Severity, rule
from graphkit.model import Repository, ids


def _severity(graph, issue):
    """Critical when a pinned workflow's repository is public (or unknown), high when every one is private or
    internal (callers limited to the owner's or enterprise's repositories that are granted access)."""
    seen = []
    for value in issue.value.split(","):
        repo = "/".join(value.split("/", 2)[:2])
        try:
            rid = ids.repository(repo)
        except ids.IdError:
            return Severity.CRITICAL
        node = graph.node(rid) if rid in graph else None
        seen.append(node.visibility if isinstance(node, Repository) else None)
    return Severity.HIGH if seen and all(v in ("private", "internal") for v in seen) else Severity.CRITICAL


@rule("oidc-trust-workflow-ref-only", title="OIDC trust pins only the reusable workflow",
      description="The trust's only condition on who calls is token.actions.githubusercontent.com:job_workflow_ref: "
      "in a called workflow sub and repository name the caller, so every repository that can call that reusable "
      "workflow (any repository on github.com when it is public) can assume the role.",
      help_uri="https://docs.github.com/en/actions/how-tos/secure-your-work/security-harden-deployments/"
      "oidc-with-reusable-workflows",
      severity=Severity.CRITICAL,
      remediation="Also pin the caller: sub (repo:ORG/REPO:environment:NAME) or repository_id / repository_owner_id; "
      "then revoke the role's active sessions.")
def check(graph, options):
    """GitHub OIDC statements with a ``job_workflow_ref`` condition and no ``sub``/repository condition."""
    yield from trust_findings(check, graph, {"workflow-ref-only": (
        _severity, "{subject}: GitHub OIDC trust pins only job_workflow_ref {value!r}: every repository that can "
        "call that workflow can assume it")})
