"""Finding rules, one module each (see :mod:`graphkit.findings`).

:data:`RULE_MODULES` is the one explicit list of rule modules; a meta-test
checks every module here is listed and every rule is documented in the README.
"""

#: Module names under ``graphkit.rules``, imported by :func:`graphkit.findings.rules`.
RULE_MODULES: list[str] = [
    # runner hosts (issue 5)
    "runner_on_runner", "runner_unexpected_org", "runner_not_in_inventory", "runner_without_host",
    "persistent_runner_shared", "long_lived_credential_on_disk",
    # routing (issue 10)
    "runs_on_queued_forever", "called_workflow_not_read",
    # untrusted entry points (issue 11)
    "untrusted_path_to_runner", "untrusted_code_with_secrets",
    # hosts as an attacker leaves them (issue 13)
    "runner_unsupervised",
    # cloud trust (issue 3)
    "oidc_trust_without_sub", "oidc_trust_wildcard_owner", "oidc_trust_broad_sub", "oidc_trust_set_operator",
    "oidc_trust_audience", "aws_trust_any_principal",
    # workflows and secrets (issue 10)
    "referenced_secret_missing",
    # exact platform semantics (issue 10)
    "oidc_trust_workflow_ref_only", "iam_policy_duplicate_key",
    # secrets in inputs (issue 18)
    "credential_in_url", "literal_credential_in_workflow",
    # registrations seen by the platform: audit log and job history (issue 12)
    "runner_registration_unexpected",
]
