"""Rule ``aws-trust-any-principal``: a role trust that lets any AWS principal assume the role."""

from graphkit.cloud import statement_line, trust_documents
from graphkit.findings import Severity, rule
from graphkit.iam import any_principal_statements
from graphkit.model import CloudRole, Evidence

_URI = "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html#principal-anonymous"


@rule("aws-trust-any-principal", title="Role trust open to any AWS principal",
      description="The role's trust policy allows sts:AssumeRole to \"Principal\": \"*\" or {\"AWS\": \"*\"} with no "
      "Condition: every principal of every AWS account can assume the role (AWS recommends a wildcard principal in "
      "a trust policy only with a Condition that restricts it).  graphkit has no node for 'any AWS principal': the "
      "role's own blast radius shows what such a principal gets.",
      help_uri=_URI, severity=Severity.CRITICAL,
      remediation="Name the trusted accounts or roles in Principal (or add a Condition such as aws:PrincipalOrgID), "
      "then revoke the role's active sessions.")
def check(graph, options):
    """One finding per unconditional Allow statement for any AWS principal
    (:func:`graphkit.iam.any_principal_statements`), at the statement."""
    for subject, statements, evidence, _ in trust_documents(graph):
        node = graph.node(subject)
        for st in any_principal_statements(statements):
            base = evidence[0] if evidence else Evidence(file="graph")
            place = f"{base.yaml_path}." if base.yaml_path else ""
            if isinstance(node, CloudRole):
                place += "AssumeRolePolicyDocument."
            ev = base.model_copy(update={"yaml_path": (place + st.place).strip(".") or None,
                                         "line": statement_line(node, st), "detail": "Principal *"})
            yield check.finding(subject, st.sid or f"#{st.index}", subject=subject, evidence=[ev],
                                message=f"{node.name}: trust policy lets any AWS principal assume it "
                                "(Principal *, no Condition)", statement=st.sid or st.place)
