"""Trust statements that let any AWS principal assume a role (pure: no I/O).

A role trust policy whose Allow statement names ``"Principal": "*"`` or ``{"AWS": "*"}`` for
``sts:AssumeRole`` lets every principal of every AWS account assume the role, unless a ``Condition`` narrows it:
"we strongly recommend that you do not use a wildcard (*) in the Principal element of a role's trust policy unless
you otherwise restrict access through a Condition element in the policy" (AWS IAM User Guide "AWS JSON policy
elements: Principal", anonymous principals,
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html#principal-anonymous).
Any condition (``aws:PrincipalOrgID``, ``aws:PrincipalAccount``, ``sts:ExternalId``...) is read as narrowing it
(no finding), on the Allow or on a Deny for every principal (a Deny of ``sts:AssumeRole`` to ``*`` unless
``aws:PrincipalOrgID`` is the organisation's lets only that organisation in; without a condition it cancels the
Allow): AWS IAM User Guide "Policy evaluation logic", an explicit Deny wins,
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphkit.iam.evaluate import action_matches
from graphkit.iam.policy import Statement

__all__ = ["ASSUME_ROLE", "any_principal_statements"]

#: The action a role trust grants to AWS principals.
ASSUME_ROLE = "sts:AssumeRole"


def _for_assume(st: Statement) -> bool:
    if st.actions:
        return action_matches(st.actions, ASSUME_ROLE)
    return bool(st.not_actions) and not action_matches(st.not_actions, ASSUME_ROLE)


def _everyone(st: Statement) -> bool:
    """``Principal: "*"`` or ``{"AWS": "*"}`` (a list holding ``"*"`` included); ``NotPrincipal`` takes no part."""
    return not st.not_principals and ("*" in st.principals.get("*", ()) or "*" in st.principals.get("AWS", ()))


def any_principal_statements(statements: Sequence[Statement]) -> list[Statement]:
    """The Allow statements of a role trust policy that let any AWS principal call ``sts:AssumeRole`` with no
    ``Condition`` (module docstring), in document order; empty when a Deny for every principal covers
    ``sts:AssumeRole`` (without a condition it cancels the Allow, with one it narrows it).

    >>> from graphkit.iam.policy import parse_policy
    >>> doc = {"Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"},
    ...                      {"Effect": "Allow", "Principal": "*", "Action": "sts:*",
    ...                       "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abc"}}},
    ...                      {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::1:root"}, "Action": "sts:AssumeRole"}]}
    >>> [s.place for s in any_principal_statements(parse_policy(doc))]
    ['Statement[0]']
    >>> any_principal_statements(parse_policy({"Statement": [
    ...     {"Effect": "Allow", "Principal": "*", "Action": "*"},
    ...     {"Effect": "Deny", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}))
    []
    >>> any_principal_statements(parse_policy({"Statement": [
    ...     {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"},
    ...     {"Effect": "Deny", "Principal": "*", "Action": "sts:AssumeRole",
    ...      "Condition": {"StringNotEquals": {"aws:PrincipalOrgID": "o-abc"}}}]}))
    []
    """
    if any(st.effect == "Deny" and _everyone(st) and _for_assume(st) for st in statements):
        return []
    return [st for st in statements
            if st.effect == "Allow" and not st.conditions and _everyone(st) and _for_assume(st)]
