"""Rule ``oidc-trust-set-operator``: ``ForAllValues:``/``ForAnyValue:`` on single-valued ``sub``/``aud``."""

from graphkit.cloud import trust_findings
from graphkit.findings import Severity, rule


@rule("oidc-trust-set-operator", title="Set operator on a single-valued OIDC claim",
      description="ForAllValues:/ForAnyValue: are for multi-valued keys; sub and aud are single-valued. "
      "ForAllValues: evaluates to true when the key is absent, so the condition may restrict nothing.",
      help_uri="https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-"
      "context-keys.html",
      severity=Severity.HIGH,
      remediation="Use StringEquals / StringLike without a set operator on token.actions.githubusercontent.com:sub "
      "and :aud.")
def check(graph, options):
    """Set-operator qualified conditions on ``sub``/``aud``."""
    yield from trust_findings(check, graph, {"set-operator": (
        Severity.HIGH, "{subject}: {operator} on single-valued {value} (true when the key is absent)"),
        "gitlab:set-operator": (Severity.HIGH, "{subject}: {operator} on single-valued {value} (true when the key "
                                "is absent)")})
