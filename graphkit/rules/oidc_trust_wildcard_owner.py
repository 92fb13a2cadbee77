"""Rule ``oidc-trust-wildcard-owner``: a wildcard in the owner part of the trusted ``sub``."""

from graphkit.cloud import trust_findings
from graphkit.findings import Severity, rule


@rule("oidc-trust-wildcard-owner", title="OIDC trust with a wildcard owner",
      description="The sub condition of a GitHub OIDC trust uses a wildcard in the repository owner "
      "(repo:*/..., repo:acme*/..., repo:*/app:ref:refs/heads/main, *): repositories of other owners on github.com "
      "match it, whatever the rest of the pattern pins.",
      help_uri="https://docs.github.com/en/actions/reference/security/oidc",
      severity=Severity.CRITICAL,
      remediation="Write the owner literally (repo:ORG/REPO:..., or repo:ORG@OWNER_ID/REPO@REPO_ID:... for "
      "immutable subjects; list both forms rather than a wildcard) and prefer StringEquals.")
def check(graph, options):
    """``StringLike`` sub values with ``*`` or ``?`` anywhere in the owner part."""
    yield from trust_findings(check, graph, {"wildcard-owner": (
        Severity.CRITICAL, "{subject}: trusted sub {value!r} has a wildcard owner (other owners' repositories "
        "match)"),
        "gitlab:wildcard-owner": (Severity.CRITICAL, "{subject}: trusted GitLab sub {value!r} has a wildcard "
                                  "top-level group (other groups' projects match)")})
