"""``referenced-secret-missing``: a job reads a secret that no scope holds, per complete inventories.

GitHub resolves ``secrets.NAME`` from the job's environment, then the
repository, then the organization (visible to the repository); a name none of
them holds evaluates to an empty string
(https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions).
Decided only when every one of those lists is known complete (inventory
``secrets_complete``); otherwise the reference stays a ``scope: unknown``
secret (:mod:`graphkit.resolve.secrets`).  No secret node is invented for it,
so a containment plan never asks to rotate a secret that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import ids, secret_key
from graphkit.resolve.context import context_repo
from graphkit.resolve.secrets import missing_secret_refs

__all__ = ["referenced_secret_missing"]


@rule("referenced-secret-missing", title="Referenced secret does not exist",
      description="A job reads secrets.NAME, but the complete secret lists of its organization, repository and "
      "environment hold no such secret visible to it: the job gets an empty string (a typo, a removed secret, or "
      "a secret not shared with the repository).",
      help_uri="https://docs.github.com/en/actions/security-for-github-actions/security-guides/"
      "using-secrets-in-github-actions",
      severity=Severity.LOW,
      remediation="Fix the name or create the secret at the intended scope (or share the organization secret with "
      "the repository); there is nothing to rotate for it.")
def referenced_secret_missing(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    for job, ref in missing_secret_refs(graph):
        repo = context_repo(job)
        name = secret_key(ref.name)
        scopes = f"{repo}" + (f" (environment {job.environment})" if job.environment else "")
        yield referenced_secret_missing.finding(
            job.id, name, subject=job.id, related=[ids.repository(repo)],
            message=f"job {job.job_key} of {job.workflow_path} reads secret {name}, which no complete secret list "
                    f"of {scopes} or its organization holds",
            evidence=[ref.evidence], secret_name=name, repository=repo, environment=job.environment)
