"""The runbook rotates each cloud secret with its own service's documented command (graphkit/report/runbook_cloud.py).

Commands from: https://docs.aws.amazon.com/cli/latest/reference/secretsmanager/rotate-secret.html,
https://docs.aws.amazon.com/cli/latest/reference/ssm/put-parameter.html,
https://developer.hashicorp.com/vault/docs/commands/kv/patch, https://learn.microsoft.com/en-us/cli/azure/keyvault/secret,
https://cloud.google.com/sdk/gcloud/reference/secrets/versions/add; GitLab ``secrets:``, https://docs.gitlab.com/ci/yaml/#secrets.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from graphkit.graph import Graph
from graphkit.model import CloudSecret, Edge, EdgeKind, Evidence, Job, ids
from graphkit.report.runbook_cloud import rotate_cloud_secret

EV = Evidence(file="test.yml", yaml_path="x")
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "gitlab-ci"


def _secret(service: str, resource: str, field: str | None = None, pattern: bool = False):
    g = Graph()
    sid = ids.cloud_secret(resource) if service in ("secretsmanager", "ssm") else ids.external_secret(service, resource)
    node = CloudSecret(id=sid, name=resource, service=service, resource=resource, pattern=pattern, evidence=[EV])
    g.add_node(node)
    if field is not None:
        jid = ids.job("acme/web", ".gitlab-ci.yml", "deploy")
        g.add_node(Job(id=jid, name="deploy", repository="acme/web", workflow_path=".gitlab-ci.yml", job_key="deploy",
                       secrets_repository="acme/web",
                       evidence=[EV]))
        g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=jid, target=sid, evidence=[EV], props={"field": field}))
    return rotate_cloud_secret(node, g)


def _api(actions):
    return [(a.command, a.doc) for a in actions if a.where == "api"]


def test_vault_secret_is_patched_in_vault_never_aws():
    acts = _secret("vault", "ops/production/db", field="password")
    assert _api(acts) == [("vault kv patch -mount=ops production/db password=-",
                           "https://developer.hashicorp.com/vault/docs/commands/kv/patch")]
    assert acts[0].where == "manual" and "issuer" in acts[0].text
    assert not any("aws" in (a.command or "") for a in acts)


def test_vault_secret_without_a_known_field_names_a_placeholder():
    assert _api(_secret("vault", "kv-v2/app"))[0][0] == "vault kv patch -mount=kv-v2 app '<field>=-'"


def test_azure_gcp_ssm_secretsmanager_commands():
    assert _api(_secret("azure_key_vault", "test")) == [
        ("az keyvault secret set --vault-name '<vault-name>' --name test --file /dev/stdin",
         "https://learn.microsoft.com/en-us/cli/azure/keyvault/secret")]
    assert _api(_secret("gcp_secret_manager", "my-secret")) == [
        ("gcloud secrets versions add my-secret --data-file=-",
         "https://cloud.google.com/sdk/gcloud/reference/secrets/versions/add")]
    ssm = "arn:aws:ssm:us-east-1:111122223333:parameter/prod/db/password"
    assert _api(_secret("ssm", ssm))[0][0] == ("aws ssm put-parameter --name /prod/db/password --overwrite "
                                               "--value file:///dev/stdin")
    assert "--name token " in _api(_secret("ssm", "arn:aws:ssm:us-east-1:111122223333:parameter/token"))[0][0]
    arn = "arn:aws:secretsmanager:us-east-1:111122223333:secret:db-AbCdEf"
    assert _api(_secret("secretsmanager", arn)) == [
        (f"aws secretsmanager rotate-secret --secret-id {arn}",
         "https://docs.aws.amazon.com/cli/latest/reference/secretsmanager/rotate-secret.html")]
    assert _api(_secret("aws_secrets_manager", "db"))[0][0] == "aws secretsmanager rotate-secret --secret-id db"


def test_pattern_is_a_manual_step():
    acts = _secret("secretsmanager", "arn:aws:secretsmanager:us-east-1:111122223333:secret:*", pattern=True)
    assert [a.where for a in acts] == ["manual"] and "each secret the pattern matches" in acts[0].text


@pytest.mark.requires((CORPUS / "gitlabhq__omnibus-gitlab").is_dir(), reason="corpus not present", corpus=True)
def test_runbook_of_omnibus_vault_secret(tmp_path):
    from typer.testing import CliRunner

    from graphkit.cli import app
    out = tmp_path / "g.json"
    res = CliRunner().invoke(app, ["build", "--gitlab-ci", str(CORPUS / "gitlabhq__omnibus-gitlab"), "-o", str(out)])
    assert res.exit_code in (0, 3), res.output
    g = Graph.load(out)
    sid = next(n.id for n in g.nodes() if n.id.startswith("cloud_secret:vault:ci/access_tokens/"))
    job = next(e.source for e in g.in_edges(sid))
    res = CliRunner().invoke(app, ["blast-radius", "--graph", str(out), "--from", job, "--format", "runbook"])
    assert "vault kv patch -mount=ci access_tokens/" in res.output
    assert "secretsmanager" not in res.output
