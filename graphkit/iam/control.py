"""Organizations control policies (SCPs and RCPs): the ceiling they put on what member accounts can do -- pure.

AWS Organizations User Guide "SCP evaluation"
(https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_scps_evaluation.html): for a
principal of a member account, an action is permitted only when **every level** of the hierarchy (the root, each
organizational unit down to the account, the account) has an attached SCP that allows it, and **no** SCP at any
level denies it; SCPs never grant anything (the identity policy must also allow) and do not apply to the management
account.  "Resource control policies"
(https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_rcps.html): the same evaluation
for requests to the **resources** of member accounts (whatever the caller's account), including
``sts:AssumeRoleWithWebIdentity`` on their roles, where the conditions can test the token's claims.  Policy
variables in their ``Resource`` and condition values are read from the same context (AWS "IAM policy elements:
Variables and tags", https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html: SCPs
support them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from graphkit.iam.conditions import ClaimValue, evaluate_conditions
from graphkit.iam.evaluate import action_matches, resource_hit
from graphkit.iam.policy import Statement
from graphkit.iam.tri import Tri, and3, not3, or3
from graphkit.iam.variables import Bindings

__all__ = ["control_policy_decision"]


def _applies(st: Statement, action: str, resource: str, context: Mapping[str, Sequence[ClaimValue]],
             known_keys: Iterable[str] | Callable[[str], bool]) -> Tri:
    """Whether ``st`` applies to ``action`` on ``resource`` (its conditions evaluated against ``context``)."""
    if st.actions:
        acts = action_matches(st.actions, action)
    else:
        acts = bool(st.not_actions) and not action_matches(st.not_actions, action)
    if not acts:
        return False
    env = Bindings(context, known_keys)
    res = resource_hit(st, resource, variables=env) if (st.resources or st.not_resources) else True
    cond = evaluate_conditions(st.conditions, context, known_keys=known_keys,
                               variables=st.variables) if st.conditions else True
    return and3([res, cond])


def control_policy_decision(levels: Sequence[Sequence[Statement] | None], action: str, resource: str, *,
                            context: Mapping[str, Sequence[ClaimValue]] | None = None,
                            known_keys: Iterable[str] | Callable[[str], bool] = ()) -> Tri:
    """Whether SCPs (or RCPs) permit ``action`` on ``resource``: every level allows it, no level denies it.

    Parameters
    ----------
    levels : sequence of sequences of Statement
        The statements of the policies attached at each level (account, each parent OU, root); None for a level
        whose policies are unknown (not exported: AWS attaches at least one to every level); no levels at all means
        no control policy applies (True).
    action, resource : str
        A concrete action and a resource (possibly a pattern, ``*``).
    context, known_keys
        The request context (OIDC claims for ``AssumeRoleWithWebIdentity``); by default every condition key is
        unknown, so a conditional statement gives ``None``.

    Returns
    -------
    bool or None

    Examples
    --------
    >>> from graphkit.iam import parse_policy
    >>> full = parse_policy({"Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}})
    >>> deny_kms = parse_policy({"Statement": {"Effect": "Deny", "Action": "kms:*", "Resource": "*"}})
    >>> only_s3 = parse_policy({"Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}})
    >>> control_policy_decision([full, full + deny_kms], "kms:Sign", "*"), control_policy_decision([full, only_s3], "s3:PutObject", "*")
    (False, True)
    >>> control_policy_decision([full, only_s3], "kms:Sign", "*")
    False
    """
    ctx = context or {}
    allows: list[Tri] = []
    denies: list[Tri] = []
    for level in levels:
        if level is None:
            allows.append(None)
            continue
        level_allow: list[Tri] = []
        for st in level:
            hit = _applies(st, action, resource, ctx, known_keys)
            (denies if st.effect == "Deny" else level_allow).append(hit)
        allows.append(or3(level_allow))
    return and3(allows + [not3(or3(denies))])
