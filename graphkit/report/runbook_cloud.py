"""Runbook actions for a cloud secret (:class:`~graphkit.model.CloudSecret`), one documented command per service.

Every command reads the new value from stdin (typed at the terminal), never from the command line:

- AWS Secrets Manager (``secretsmanager``; GitLab's ``aws_secrets_manager``): ``aws secretsmanager rotate-secret``
  runs the secret's rotation function, https://docs.aws.amazon.com/cli/latest/reference/secretsmanager/rotate-secret.html;
- AWS SSM Parameter Store (``ssm``): ``aws ssm put-parameter --overwrite`` with ``--value file:///dev/stdin``
  (the name, never the ARN: "You can't enter the Amazon Resource Name (ARN) for a parameter, only the parameter
  name itself", https://docs.aws.amazon.com/cli/latest/reference/ssm/put-parameter.html; ``file://`` parameters,
  https://docs.aws.amazon.com/cli/latest/userguide/cli-usage-parameters-file.html);
- HashiCorp Vault KV (``vault``, path ``<mount>/<path>`` as GitLab reads it, https://docs.gitlab.com/ci/yaml/#secretsvault):
  rotate at the issuer, then ``vault kv patch -mount=<mount> <path> <field>=-`` (``-``: the value is read from
  stdin; ``patch`` keeps the secret's other fields, ``put`` would replace them all),
  https://developer.hashicorp.com/vault/docs/commands/kv/patch and
  https://developer.hashicorp.com/vault/docs/commands/kv/put;
- Azure Key Vault (``azure_key_vault``): ``az keyvault secret set --file /dev/stdin`` (the vault's name is GitLab's
  ``AZURE_KEY_VAULT_SERVER_URL``, not in the pipeline file: a placeholder),
  https://learn.microsoft.com/en-us/cli/azure/keyvault/secret;
- GCP Secret Manager (``gcp_secret_manager``): ``gcloud secrets versions add <name> --data-file=-``,
  https://cloud.google.com/sdk/gcloud/reference/secrets/versions/add.

A pattern of secrets, or a service not listed here, gets a manual step.
"""

from __future__ import annotations

from shlex import quote
from typing import TYPE_CHECKING

from graphkit.graph import Graph
from graphkit.model import CloudSecret, EdgeKind

if TYPE_CHECKING:  # pragma: no cover
    from graphkit.report.runbook import Action

__all__ = ["rotate_cloud_secret", "DOCS"]

#: service -> (the command's documentation, what the command does)
DOCS: dict[str, str] = {
    "secretsmanager": "https://docs.aws.amazon.com/cli/latest/reference/secretsmanager/rotate-secret.html",
    "aws_secrets_manager": "https://docs.aws.amazon.com/cli/latest/reference/secretsmanager/rotate-secret.html",
    "ssm": "https://docs.aws.amazon.com/cli/latest/reference/ssm/put-parameter.html",
    "vault": "https://developer.hashicorp.com/vault/docs/commands/kv/patch",
    "azure_key_vault": "https://learn.microsoft.com/en-us/cli/azure/keyvault/secret",
    "gcp_secret_manager": "https://cloud.google.com/sdk/gcloud/reference/secrets/versions/add",
}
_ISSUER_DOC = "https://docs.gitlab.com/ci/secrets/"


def _action(*args: object, **kw: object) -> "Action":
    from graphkit.report.runbook import Action  # the one Action type (runbook imports this module)
    return Action(*args, **kw)  # type: ignore[arg-type]


def _cmd(*argv: str) -> str:
    return " ".join(quote(a) for a in argv)


def _ssm_name(arn: str) -> str:
    """``arn:aws:ssm:r:a:parameter/a/b`` -> ``/a/b``; ``...:parameter/x`` -> ``x`` (a hierarchical name's ARN
    drops its leading slash, https://docs.aws.amazon.com/systems-manager/latest/userguide/sysman-paramstore-su-create.html)."""
    _, sep, tail = arn.partition(":parameter/")
    if not sep:
        return arn
    return f"/{tail}" if "/" in tail else tail


def _vault_fields(node: CloudSecret, graph: Graph) -> list[str]:
    fields = {e.props.get("field") for e in graph.in_edges(node.id) if e.kind is EdgeKind.READS_SECRET}
    return sorted(f for f in fields if isinstance(f, str) and f) or ["<field>"]


def _store(node: CloudSecret, graph: Graph) -> list[str]:
    """The commands that store a new value (read from stdin) of ``node``; [] for a service without one."""
    res = node.resource
    if node.service == "ssm":
        return [_cmd("aws", "ssm", "put-parameter", "--name", _ssm_name(res), "--overwrite",
                     "--value", "file:///dev/stdin")]
    if node.service == "vault":
        mount, _, path = res.partition("/")
        return [_cmd("vault", "kv", "patch", f"-mount={mount}", path or res, f"{f}=-")
                for f in _vault_fields(node, graph)]
    if node.service == "azure_key_vault":
        return [_cmd("az", "keyvault", "secret", "set", "--vault-name", "<vault-name>", "--name", res,
                     "--file", "/dev/stdin")]
    if node.service == "gcp_secret_manager":
        return [_cmd("gcloud", "secrets", "versions", "add", res, "--data-file=-")]
    return []


def rotate_cloud_secret(node: CloudSecret, graph: Graph) -> list["Action"]:
    """The runbook actions that rotate ``node`` with its own service's command.

    Parameters
    ----------
    node
        the cloud secret (``service`` picks the command; ``resource`` the ARN, path or name as written).
    graph
        the graph (the ``reads_secret`` edges give a Vault secret's fields).

    Returns
    -------
    list[Action]
        a manual step for a pattern or an unknown service; otherwise the documented command(s), the new value
        read from stdin, never on the command line.
    """
    res, doc = node.resource, DOCS.get(node.service)
    if node.pattern or doc is None:
        what = "each secret the pattern matches" if node.pattern else f"at its issuer ({node.service})"
        return [_action(f"Rotate the cloud secret {res}: {what}, then store the new values", doc or _ISSUER_DOC,
                        "manual")]
    if node.service in ("secretsmanager", "aws_secrets_manager"):
        return [_action(f"Rotate the cloud secret {res}", doc, "api",
                        _cmd("aws", "secretsmanager", "rotate-secret", "--secret-id", res))]
    out = [_action(f"Revoke what {node.service} secret {res} holds at its issuer and issue a new value",
                   _ISSUER_DOC, "manual")]
    out += [_action(f"Store the new value of {node.service} secret {res} (typed on stdin, never on the command line)",
                    doc, "api", cmd) for cmd in _store(node, graph)]
    return out
