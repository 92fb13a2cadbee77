"""``literal-credential-in-workflow``: a credential written literally in a workflow or action file.

A token in a workflow file is readable by everyone who can read the repository (everyone, for a public one),
lives on in its git history and in forks, and is not masked in logs.  GitHub: "never store sensitive
information in a workflow file"; use secrets instead
(https://docs.github.com/en/actions/security-for-github-actions/security-guides/security-hardening-for-github-actions#using-secrets).
GitLab ``.gitlab-ci.yml`` files too (the ``gitlab-ci`` source keeps them on the project): GitLab keeps
credentials in CI/CD variables, never in the file (https://docs.gitlab.com/ci/variables/#define-a-cicd-variable-in-the-ui).
Detection: :func:`graphkit.redact.find_credentials` (detect-secrets token formats, private keys, URL
credentials, high-entropy values assigned to credential-named keys).  The value is never kept: the finding
names the file, line and kind, its identity is the value's keyed fingerprint.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import LiteralCredential, NodeKind, Repository

__all__ = ["literal_credential_in_workflow"]


@rule("literal-credential-in-workflow", title="Literal credential in workflow",
      description="A workflow, action or .gitlab-ci.yml file holds a credential as text (a token format such as ghp_/AKIA/glpat-/"
      "xoxb-, a private key, a URL with a password, or a high-entropy value assigned to a password/token key) "
      "instead of a reference to a secret.",
      help_uri="https://docs.github.com/en/actions/security-for-github-actions/security-guides/"
      "security-hardening-for-github-actions#using-secrets",
      severity=Severity.HIGH,
      remediation="Rotate the credential at its issuer now (it is in the git history); store it as an Actions "
      "secret (or use OIDC) and reference it as ${{ secrets.NAME }}; on GitLab, as a masked, protected CI/CD "
      "variable (or an id_tokens exchange).")
def literal_credential_in_workflow(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    """One finding per repository, file and value (its identity: never a line number), listing every place the
    value is written: evidence and ``lines`` hold each line (a value pasted in a script, a header and a ``with:``
    input is three places to clean), ``line`` the first."""
    for repo in graph.nodes(NodeKind.REPOSITORY):
        if not isinstance(repo, Repository):
            continue
        places: dict[tuple[str, str], list[LiteralCredential]] = {}
        for c in repo.literal_credentials:
            places.setdefault((c.evidence.file, c.fingerprint), []).append(c)
        for (file, fingerprint), found in places.items():
            found = sorted(found, key=lambda c: (c.evidence.line or 0, c.evidence.yaml_path or ""))
            lines = list(dict.fromkeys(c.evidence.line for c in found if c.evidence.line))
            kinds = list(dict.fromkeys(c.kind for c in found))
            where = (f" line {lines[0]}" if len(lines) == 1 else
                     f" lines {', '.join(map(str, lines))}" if lines else "")
            yield literal_credential_in_workflow.finding(
                repo.id, file, fingerprint, subject=repo.id, evidence=[c.evidence for c in found],
                severity=Severity.CRITICAL if repo.visibility == "public" else None,
                message=f"{' / '.join(kinds)} written in {file}{where}",
                kind=kinds[0], file=file, line=lines[0] if lines else None, lines=lines, fingerprint=fingerprint)
