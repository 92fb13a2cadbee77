"""AWS Organizations export -> service and resource control policies with their targets -- **pure, no I/O**.

The export is one JSON document assembled from the AWS CLI's own outputs (nothing renamed), so that it can be
written with ``jq`` from:

- ``aws organizations describe-organization`` -> ``Organization`` (``MasterAccountId``: the management account,
  which no SCP or RCP restricts);
- ``aws organizations list-accounts`` -> ``Accounts`` (optional);
- ``aws organizations list-parents --child-id ID`` for every account and OU -> ``Parents``: ``{ID: [{"Id", "Type"}]}``
  (the ``Parents`` list of each call, keyed by the child);
- for every policy of ``aws organizations list-policies --filter SERVICE_CONTROL_POLICY`` (and
  ``RESOURCE_CONTROL_POLICY``): ``describe-policy --policy-id P`` -> ``Policy`` and ``list-targets-for-policy
  --policy-id P`` -> ``Targets``, one ``OrganizationPolicies`` entry each.

References: https://docs.aws.amazon.com/cli/latest/reference/organizations/describe-policy.html,
https://docs.aws.amazon.com/cli/latest/reference/organizations/list-targets-for-policy.html,
https://docs.aws.amazon.com/cli/latest/reference/organizations/list-parents.html; evaluation in
:mod:`graphkit.iam.control`.

>>> p = parse_organizations({"Organization": {"MasterAccountId": "999999999999"},
...     "Parents": {"111122223333": [{"Id": "ou-ab-1", "Type": "ORGANIZATIONAL_UNIT"}], "ou-ab-1": [{"Id": "r-ab", "Type": "ROOT"}]},
...     "OrganizationPolicies": [{"Policy": {"PolicySummary": {"Id": "p-1", "Name": "deny-kms", "Type": "SERVICE_CONTROL_POLICY"},
...                                          "Content": "{\\"Statement\\": {\\"Effect\\": \\"Deny\\", \\"Action\\": \\"kms:*\\", \\"Resource\\": \\"*\\"}}"},
...                               "Targets": [{"TargetId": "ou-ab-1", "Type": "ORGANIZATIONAL_UNIT"}]}]}, "org.json")
>>> p.organization.chain("111122223333"), [(x.name, x.policy_type, x.targets) for x in p.organization.policies]
(['111122223333', 'ou-ab-1', 'r-ab'], [('deny-kms', 'scp', ['ou-ab-1'])])
"""

from __future__ import annotations

import json
from typing import Any

from graphkit.errors import InputError
from graphkit.iam import PolicyError, parse_policy
from ingest.aws_iam.models import OrgPolicy, Organization, ParsedFile

__all__ = ["parse_organizations", "POLICY_TYPES"]

#: ``PolicySummary.Type`` -> graphkit's short name.
POLICY_TYPES = {"SERVICE_CONTROL_POLICY": "scp", "RESOURCE_CONTROL_POLICY": "rcp"}


def parse_organizations(data: dict[str, Any], file: str) -> ParsedFile:
    """Read an Organizations export (module docstring); a malformed policy entry is a problem, the rest is read.

    Raises
    ------
    InputError
        when ``Parents`` or ``OrganizationPolicies`` has the wrong shape.
    """
    out = ParsedFile(file=file, kind="organizations")
    org = data.get("Organization") if isinstance(data.get("Organization"), dict) else {}
    management = org.get("MasterAccountId") or org.get("ManagementAccountId")
    accounts = [a["Id"] for a in data.get("Accounts") or [] if isinstance(a, dict) and isinstance(a.get("Id"), str)]
    org_id = org.get("Id")
    out.organization = Organization(management=str(management) if management else None, accounts=accounts,
                                    parents=_parents(data.get("Parents") or {}, file), file=file,
                                    id=org_id if isinstance(org_id, str) and org_id else None)
    items = data.get("OrganizationPolicies") or []
    if not isinstance(items, list):
        raise InputError(file, "OrganizationPolicies", "expected a list")
    for i, item in enumerate(items):
        try:
            policy = _policy(item, file, f"OrganizationPolicies[{i}]")
        except PolicyError as exc:
            out.problems.append(InputError(file, exc.place, exc.reason))
            continue
        if policy is not None:
            out.organization.policies.append(policy)
    return out


def _parents(raw: Any, file: str) -> dict[str, str]:
    """child id -> parent id, from ``{child: [{"Id", "Type"}]}`` (``list-parents`` outputs) or ``{child: parent}``."""
    if not isinstance(raw, dict):
        raise InputError(file, "Parents", "expected a mapping of child id to its list-parents Parents")
    out: dict[str, str] = {}
    for child, parents in raw.items():
        if isinstance(parents, str):
            out[str(child)] = parents
        elif isinstance(parents, list) and parents and isinstance(parents[0], dict) and "Id" in parents[0]:
            out[str(child)] = str(parents[0]["Id"])
        else:
            raise InputError(file, f"Parents.{child}", "expected a list-parents Parents list")
    return out


def _policy(item: Any, file: str, place: str) -> OrgPolicy | None:
    """One ``{Policy, Targets}`` entry; None for another policy type (tag, backup, AI opt-out policies)."""
    if not isinstance(item, dict) or not isinstance(item.get("Policy"), dict):
        raise PolicyError(place, "expected {Policy: describe-policy output, Targets: list-targets-for-policy output}")
    pol = item["Policy"]
    summary = pol.get("PolicySummary") if isinstance(pol.get("PolicySummary"), dict) else {}
    kind = POLICY_TYPES.get(str(summary.get("Type") or "SERVICE_CONTROL_POLICY"))
    if kind is None:
        return None
    content = pol.get("Content")
    doc = json.loads(content) if isinstance(content, str) else content
    if not isinstance(doc, dict):
        raise PolicyError(f"{place}.Policy.Content", "policy content is not a JSON document")
    statements = parse_policy(doc, f"{place}.Policy.Content")
    targets = [str(t["TargetId"]) for t in item.get("Targets") or [] if isinstance(t, dict) and "TargetId" in t]
    return OrgPolicy(id=str(summary.get("Id") or place), arn=summary.get("Arn"),
                     name=str(summary.get("Name") or summary.get("Id") or place), policy_type=kind,
                     statements=statements, document=doc, targets=targets, file=file, place=place)
