"""Cloud authentication actions: the cloud role (or identity) a job acts as.

One :class:`~graphkit.model.CloudRole` per role the step names, with an
``assumes_role`` edge:

- through static keys (``aws-access-key-id``, ``credentials_json``,
  ``creds``/``client-secret`` read from secrets): from the job, granted by
  those secrets; a role known only through its keys is
  ``key:{owner}/{repo}:{SECRET}`` (the principal owning that access key);
- else, for configure-aws-credentials with ``role-chaining: true`` ("Use existing credentials from the
  environment to assume a new role", https://github.com/aws-actions/configure-aws-credentials#role-chaining):
  from the job, ``possible``, lifetime ``chained_session`` (``sts:AssumeRole`` with the session an earlier step
  configured: the role's trust names that role, not the OIDC provider, and role chaining lasts at most 1 hour,
  https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_terms-and-concepts.html#iam-term-role-chaining);
- else through OIDC (the job has ``id-token: write``): from the job's OIDC
  identity, ``possible`` (the trust policy decides; :mod:`graphkit.resolve`);
- else through the runner's ambient credentials (instance profile,
  ``~/.aws``): from the job, ``possible``.

A role named by an expression that cannot be evaluated statically is a
pattern (literal parts kept, ``*`` for each expression), or
``expr:{owner}/{repo}:{expression}`` when nothing is literal.
Sources: https://github.com/aws-actions/configure-aws-credentials,
https://github.com/catnekaise/cognito-idpool-auth, https://github.com/google-github-actions/auth,
https://github.com/Azure/login
"""

from __future__ import annotations

import re
from typing import NamedTuple

from graphkit.model import CloudRole, EdgeKind, Evidence, Lifetime, ids, secret_key

from ..expressions import expressions
from .base import StepRule, StepView

__all__ = ["CLOUD_ACTIONS", "CLOUD_AUTH"]

#: action -> (provider, identity inputs in preference order, static credential inputs)
CLOUD_ACTIONS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "aws-actions/configure-aws-credentials": ("aws", ("role-to-assume",), ("aws-access-key-id",
                                                                           "aws-secret-access-key")),
    "catnekaise/cognito-idpool-auth": ("aws", ("chain-role-arn",), ()),
    "google-github-actions/auth": ("gcp", ("service_account", "workload_identity_provider"), ("credentials_json",)),
    "azure/login": ("azure", ("client-id",), ("creds", "client-secret")),
}
_AWS_ARN = re.compile(r"arn:aws[\w-]*:iam::(\d{12}|\*):")


class _Role(NamedTuple):
    identifier: str
    pattern: bool
    certain: bool
    evidence: Evidence


def _named_roles(sv: StepView, id_input: str) -> list[_Role]:
    """The roles an identity input (``role-to-assume``...) names: values, a pattern, or the expression."""
    raw = sv.arg(id_input)
    ev = sv.ev(f"with.{id_input}", raw)
    values, pattern, certain = sv.value(raw)
    if pattern is None:
        return [_Role(v, False, certain, ev) for v in values]
    if pattern.strip("*"):
        return [_Role(pattern, True, False, ev)]
    return [_Role(f"expr:{sv.job.rk}:{' '.join(expressions(raw or '')[0].split())}", True, False, ev)]


def _key_role(sv: StepView, name: str, secret: str) -> _Role:
    """The principal owning the access key held by ``secret`` (read by input ``name``)."""
    mapped = sv.job.mapped([secret])
    return _Role(f"key:{sv.job.rk}:{secret_key(mapped[0] if mapped else secret)}", False, True,
                 sv.ev(f"with.{name}", f"${{{{ secrets.{secret} }}}}"))


def _assume(sv: StepView, provider: str, role: _Role, key_secrets: list[tuple[str, str]]) -> None:
    account = _AWS_ARN.match(role.identifier) if provider == "aws" else None
    rid = sv.out.node(CloudRole(id=ids.cloud_role(provider, role.identifier), name=role.identifier,
                                provider=provider, identifier=role.identifier, pattern=role.pattern,
                                evidence=[role.evidence],
                                account=account.group(1) if account and account.group(1) != "*" else None))
    ev = role.evidence
    if key_secrets:
        sv.from_job(EdgeKind.ASSUMES_ROLE, rid, ev, possible=not role.certain, props={"via": "static credentials"})
        for name, secret in key_secrets:
            sv.job.grant([secret], EdgeKind.ASSUMES_ROLE, rid, sv.ev(f"with.{name}", f"${{{{ secrets.{secret} }}}}"))
    elif provider == "aws" and (sv.arg("role-chaining") or "").strip().lower() == "true":
        sv.from_job(EdgeKind.ASSUMES_ROLE, rid, ev, possible=True, props={"via": "role chaining"},
                    lifetime=Lifetime.CHAINED_SESSION)
    elif sv.job.oidc_id:
        sv.out.edge(EdgeKind.ASSUMES_ROLE, sv.job.oidc_id, rid, ev, possible=True,
                    props={"via": "oidc", "trust": "unknown"})
    else:  # no OIDC, no keys: the runner's ambient credentials (instance profile, ~/.aws) are used
        sv.from_job(EdgeKind.ASSUMES_ROLE, rid, ev, possible=True, props={"via": "ambient runner credentials"})


def cloud_auth(sv: StepView) -> None:
    """configure-aws-credentials, cognito-idpool-auth, google-github-actions/auth, azure/login."""
    provider, id_inputs, key_inputs = CLOUD_ACTIONS[sv.action or ""]
    id_input = next((n for n in id_inputs if sv.arg(n)), None)
    key_secrets = [(n, s) for n in key_inputs for s in sv.secrets_in(sv.arg(n))]
    if id_input is None and not key_secrets:
        return
    roles = _named_roles(sv, id_input) if id_input is not None else [_key_role(sv, *key_secrets[0])]
    for role in roles:
        _assume(sv, provider, role, key_secrets)


CLOUD_AUTH = StepRule("cloud-auth", cloud_auth, "cloud role assumed through OIDC, static keys or the runner",
                      actions=tuple(CLOUD_ACTIONS))
