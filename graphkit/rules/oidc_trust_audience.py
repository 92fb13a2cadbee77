"""Rule ``oidc-trust-audience``: missing or unexpected ``aud`` condition in a GitHub OIDC trust."""

from graphkit.cloud import trust_findings
from graphkit.findings import Severity, rule


@rule("oidc-trust-audience", title="OIDC trust with a missing or wrong aud condition",
      description="A GitHub OIDC trust for AWS should require aud = sts.amazonaws.com (the default audience of "
      "aws-actions/configure-aws-credentials). A missing aud accepts tokens minted for other relying parties; a "
      "different value is usually a mistake (and must be in the provider's client id list). The job chooses its "
      "audience, so aud is never a boundary on its own.",
      help_uri="https://docs.github.com/en/actions/reference/security/oidc",
      severity=Severity.MEDIUM,
      remediation="Add StringEquals token.actions.githubusercontent.com:aud = sts.amazonaws.com.")
def check(graph, options):
    """``no-aud`` (medium) and ``wrong-aud`` (low)."""
    yield from trust_findings(check, graph, {
        "no-aud": (Severity.MEDIUM, "{subject}: GitHub OIDC trust has no aud condition"),
        "wrong-aud": (Severity.LOW, "{subject}: GitHub OIDC trust expects aud {value!r}, not sts.amazonaws.com"),
    })
