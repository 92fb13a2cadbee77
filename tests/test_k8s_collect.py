"""``graphkit collect k8s`` against pytest-httpserver pretending to be the Kubernetes API server.

The server answers the read-only list calls with the fixture cluster's objects (``tests/fixtures/k8s/prod-eu``) as
the API returns them (``*List`` objects, https://kubernetes.io/docs/reference/using-api/api-concepts/#collections),
Secret values included (canaries): the collector must keep key names only.  Only GET is answered: any other
method would fail the test (``check_assertions``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.model import EdgeKind, KubeSecret, ids

pytest.importorskip("kubernetes")
httpserver_mod = pytest.importorskip("pytest_httpserver")

FIX = Path(__file__).resolve().parent / "fixtures" / "k8s"
CANARY = "Q0FOQVJZLWs4cy1jb2xsZWN0"  # base64 of CANARY-k8s-collect
ISSUER = "https://oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"


def _objects() -> dict[str, list[dict]]:
    by_kind: dict[str, list[dict]] = {}
    for f in sorted((FIX / "prod-eu").glob("*.yaml")):
        for doc in yaml.safe_load_all(f.read_text()):
            if isinstance(doc, dict) and "kind" in doc:
                by_kind.setdefault(doc["kind"], []).append(doc)
    for s in by_kind["Secret"]:  # as the API returns them: data only, base64 values
        s["data"] = {k: CANARY for k in {**s.get("data", {}), **s.pop("stringData", {})}}
    return by_kind


def _list(kind: str, items: list[dict]) -> dict:
    return {"apiVersion": "v1", "kind": f"{kind}List", "metadata": {}, "items": items}


@pytest.fixture
def api(httpserver):
    objs = _objects()
    rbac = "/apis/rbac.authorization.k8s.io/v1"
    routes = {"/api/v1/serviceaccounts": _list("ServiceAccount", objs["ServiceAccount"]),
              "/api/v1/secrets": _list("Secret", objs["Secret"]),
              f"{rbac}/roles": _list("Role", objs["Role"]),
              f"{rbac}/clusterroles": _list("ClusterRole", []),
              f"{rbac}/rolebindings": _list("RoleBinding", objs["RoleBinding"]),
              "/apis/apps/v1/deployments": _list("Deployment", []),
              "/api/v1/namespaces/kube-system/configmaps/aws-auth": objs["ConfigMap"][0],
              "/apis/actions.github.com/v1alpha1/autoscalingrunnersets": _list("AutoscalingRunnerSet",
                                                                               objs["AutoscalingRunnerSet"]),
              "/.well-known/openid-configuration": {"issuer": ISSUER}}
    for path, body in routes.items():
        httpserver.expect_request(path, method="GET").respond_with_json(body)
    httpserver.expect_request(f"{rbac}/clusterrolebindings", method="GET").respond_with_json(
        {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403}, status=403)
    for plural in ("runnerdeployments", "runnersets"):  # legacy ARC not installed
        httpserver.expect_request(f"/apis/actions.summerwind.dev/v1alpha1/{plural}", method="GET").respond_with_json(
            {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404}, status=404)
    return httpserver


def test_collect_reads_the_cluster_read_only(api, tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "t",
        "clusters": [{"name": "t", "cluster": {"server": api.url_for("/").rstrip("/")}}],
        "users": [{"name": "u", "user": {"token": "placeholder"}}],
        "contexts": [{"name": "t", "context": {"cluster": "t", "user": "u"}}]}))
    out = tmp_path / "cluster.yaml"
    res = CliRunner().invoke(app, ["collect", "k8s", "--kubeconfig", str(kubeconfig), "--name", "prod-eu",
                                   "--production", "-o", str(out)])
    assert res.exit_code == 3, res.output  # partial: the clusterrolebindings call was refused
    assert "GET /apis/rbac.authorization.k8s.io/v1/clusterrolebindings: HTTP 403" in res.output
    assert "summerwind" not in res.output  # a CRD that is not installed is not a problem: there are none
    text = out.read_text()
    assert CANARY not in text and "CANARY" not in text
    assert all(r.method == "GET" for r, _ in api.log)
    descriptor, items = list(yaml.safe_load_all(text))
    assert descriptor == {"schema": "graphkit.k8s-cluster/v1", "name": "prod-eu",
                          "server": api.url_for("/").rstrip("/"), "production": True, "oidc_issuer": ISSUER}
    assert sorted({i["kind"] for i in items["items"]}) == ["AutoscalingRunnerSet", "ConfigMap", "Role",
                                                           "RoleBinding", "Secret", "ServiceAccount"]

    graph = build_graph({"k8s": [out], "github-actions": [FIX / "repos"], "aws-iam": [FIX / "iam.json"]})
    assert graph.problems == []
    g = graph.graph
    cluster = api.url_for("/").rstrip("/")
    secret = g.node(ids.k8s_secret(cluster, "arc-runners", "arc-github-app"))
    assert isinstance(secret, KubeSecret) and secret.github_credential == "app"
    assert secret.keys == ["github_app_id", "github_app_installation_id", "github_app_private_key"]
    job = ids.job("acme/app", ".github/workflows/ci.yml", "build")
    assert [e.target for e in g.out_edges(job) if e.kind is EdgeKind.PERSISTS_ON] == [
        ids.k8s_node_pool(cluster, {"pool": "ci"})]
    deployer = ids.k8s_service_account(cluster, "arc-runners", "deployer")
    (irsa,) = [e for e in g.out_edges(deployer) if e.kind is EdgeKind.ASSUMES_ROLE]
    assert irsa.confidence.value == "certain"  # the issuer came from the discovery document
    assert json.dumps(g.node(ids.target("cluster", cluster)).model_dump(mode="json"))
