"""Kubernetes and Actions Runner Controller (issue 15): ingest, semantics, revocation, outputs.

Real inputs: ``../shared/corpus/k8s/actions__actions-runner-controller`` (ARC's own manifests and Helm values, read in
place).  The fixture cluster ``tests/fixtures/k8s`` is written from the documentation cited in its files: two ARC
scale sets on one node pool (one privileged), the controller's GitHub App Secret readable by a runner service
account, an IRSA-bound cluster-admin deployer, the EKS ``aws-auth`` ConfigMap mapping ``eks-admin`` to
``system:masters``, and a build host whose kubeconfig's exec plugin assumes ``eks-admin``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import require
from graphkit import limits
from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.graph import Graph
from graphkit.ingestor import InputFile, NotRecognised
from graphkit.model import EdgeKind, KubeSecret, KubeServiceAccount, RevocationAction, Runner, ids
from ingest.k8s import INGESTOR, parse
from ingest.k8s.models import BindingDoc, RoleDoc, Rule, Subject, Where
from ingest.k8s.rbac import evaluate, mapped_principal, service_account_principal

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS = REPO.parent / "shared" / "corpus" / "k8s" / "actions__actions-runner-controller"
FIX = HERE / "fixtures" / "k8s"
CLUSTER = "https://prod-eu.k8s.example.com"
CID = ids.target("cluster", CLUSTER)
BUILD = ids.job("acme/app", ".github/workflows/ci.yml", "build")
DEPLOY = ids.job("acme/app", ".github/workflows/ci.yml", "deploy")
APP_SECRET = ids.k8s_secret(CLUSTER, "arc-runners", "arc-github-app")
POOL = ids.k8s_node_pool(CLUSTER, {"pool": "ci"})
EKS_ADMIN = ids.cloud_role("aws", "arn:aws:iam::111122223333:role/eks-admin")


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


# --------------------------------------------------------------------------- the corpus (real ARC files)


@pytest.fixture(scope="module")
def corpus():
    require(CORPUS.is_dir(), f"corpus not present at {CORPUS}", corpus=True)
    return build_graph({"k8s": [CORPUS]})


def test_corpus_ingests_with_zero_problems(corpus):
    assert corpus.problems == []
    assert corpus.graph.meta.sources["k8s"].items == 9


def test_corpus_controller_binding_reads_every_secret(corpus):
    """config/rbac/role_binding.yaml binds manager-role (role.yaml: secrets create/delete/get/list...) to the
    service account default in namespace system, cluster-wide."""
    g = corpus.graph
    sa = ids.k8s_service_account("actions__actions-runner-controller", "system", "default")
    reads = {e.target: e for e in g.out_edges(sa) if e.kind is EdgeKind.READS_SECRET}
    secret = ids.k8s_secret("actions__actions-runner-controller", "default",
                            "values_k8s_extra_role_rules-gha-rs-github-secret")
    assert secret in reads and len(reads) == 2
    assert reads[secret].props["binding"] == "ClusterRoleBinding/manager-rolebinding"
    assert reads[secret].revoked_by is RevocationAction.REMOVE_RBAC_BINDING
    assert not any(e.kind is EdgeKind.ADMINISTERS for e in g.out_edges(sa))  # manager-role is not * on *


def test_corpus_scale_set_values_file(corpus):
    """charts/gha-runner-scale-set/tests/values_k8s_extra_role_rules.yaml: githubConfigUrl of the ARC repository,
    a PAT (github_token) inline, containerMode kubernetes, a hostPath /data work volume."""
    g = corpus.graph
    runner = g.node(ids.runner("actions/actions-runner-controller", "values_k8s_extra_role_rules"))
    assert isinstance(runner, Runner) and runner.pods is not None
    assert runner.scope == "actions/actions-runner-controller" and runner.ephemeral is True
    assert runner.labels == ["values_k8s_extra_role_rules"]
    assert runner.pods.container_mode == "kubernetes" and runner.pods.escapes == [
        "hostPath /data (a host folder: shared with the node and its other pods, not the node)"]
    secret = g.node(runner.pods.config_secret)
    assert isinstance(secret, KubeSecret) and secret.keys == ["github_token"] and secret.github_credential == "pat"
    assert "test" not in json.dumps(secret.model_dump(exclude={"evidence", "id", "name", "secret_name"}))
    reg = [e for e in g.out_edges(secret.id) if e.kind is EdgeKind.CAN_REGISTER_RUNNER]
    assert [e.target for e in reg] == [ids.repository("actions/actions-runner-controller")]
    # a data directory is a channel to the node, not the node: possible (Pod Security Standards, HostPath volumes)
    assert [e.confidence.value for e in g.out_edges(runner.id) if e.kind is EdgeKind.RUNS_ON_HOST] == ["possible"]


def test_corpus_kube_mode_values_use_the_charts_kube_mode_service_account(corpus):
    """A1: containerMode kubernetes without template.spec.serviceAccountName: the chart renders
    ``<release>-gha-rs-kube-mode`` bound to a Role reading the namespace's Secrets (kube_mode_role.yaml), so the
    job reads the inline githubConfigSecret and can register rogue runners; never ``default``."""
    from graphkit.analysis import blast_radius
    g = corpus.graph
    rid = ids.runner("actions/actions-runner-controller", "values_k8s_extra_role_rules")
    sa = ids.k8s_service_account("actions__actions-runner-controller", "default",
                                 "values_k8s_extra_role_rules-gha-rs-kube-mode")
    assert [e.target for e in g.out_edges(rid) if e.kind is EdgeKind.USES_SERVICE_ACCOUNT] == [sa]
    secret = ids.k8s_secret("actions__actions-runner-controller", "default",
                            "values_k8s_extra_role_rules-gha-rs-github-secret")
    assert secret in {e.target for e in g.out_edges(sa) if e.kind is EdgeKind.READS_SECRET}
    reached = {r.id for r in blast_radius(g, rid).reached}
    assert {sa, secret, ids.repository("actions/actions-runner-controller")} <= reached


def test_values_without_kube_mode_use_the_no_permission_service_account():
    text = "githubConfigUrl: https://github.com/acme\ngithubConfigSecret: {github_token: x}\n"
    (pool,) = parse(text, "arc.yaml").objects
    assert pool.pod.service_account == "arc-gha-rs-no-permission"
    named = parse(text + "containerMode: {type: kubernetes}\ntemplate: {spec: {serviceAccountName: mine}}\n",
                  "arc.yaml").objects
    assert [o.pod.service_account for o in named] == ["mine"]  # the values name one: no chart Role
    kube = parse(text + "containerMode:\n  type: kubernetes\n  kubernetesModeAdditionalRoleRules:\n"
                 "  - {apiGroups: [apps], resources: [deployments], verbs: [get]}\n", "arc.yaml").objects
    assert [type(o).__name__ for o in kube] == ["RunnerPool", "RoleDoc", "BindingDoc"]
    assert [(r.resources, r.verbs) for r in kube[1].rules][-2:] == [(["secrets"], ["get", "list", "create",
                                                                                   "delete"]),
                                                                     (["deployments"], ["get"])]


def test_corpus_default_values_have_no_owner(corpus):
    """values.yaml ships githubConfigUrl "": no GitHub owner, so no runner pool; the chart's Secret is there."""
    g = corpus.graph
    assert not any(isinstance(n, Runner) and n.name == "gha-runner-scale-set" for n in g.nodes())
    secret = g.node(ids.k8s_secret("actions__actions-runner-controller", "default",
                                   "gha-runner-scale-set-gha-rs-github-secret"))
    assert isinstance(secret, KubeSecret) and secret.keys == ["github_token"]


def test_corpus_legacy_runner_deployment():
    """config/samples/actions_v1alpha1_runnerdeployment.yaml: a summerwind RunnerDeployment bound to the ARC
    repository, with the default privileged docker sidecar."""
    require(CORPUS.is_dir(), "corpus", corpus=True)
    f = CORPUS / "config/samples/actions_v1alpha1_runnerdeployment.yaml"
    (pool,) = parse(f.read_text(), str(f)).objects
    assert (pool.resource, pool.name, pool.scope) == ("RunnerDeployment", "summerwind-actions-runner-controller",
                                                      "actions/actions-runner-controller")
    assert pool.pod.escapes == ["docker sidecar (privileged; dockerEnabled is not false)"]
    assert pool.ephemeral is None  # not written: unknown (the analysis assumes persistent)


def test_corpus_runnerset_template_with_placeholders():
    """acceptance/testdata/runnerset.envsubst.yaml: 6 StorageClasses (skipped) and a RunnerSet whose owner and
    service account are envsubst placeholders (unknown, not problems); its volumeClaimTemplates outlive pods."""
    require(CORPUS.is_dir(), "corpus", corpus=True)
    f = CORPUS / "acceptance/testdata/runnerset.envsubst.yaml"
    parsed = parse(f.read_text(), str(f))
    assert parsed.problems == []
    (pool,) = parsed.objects
    assert pool.resource == "RunnerSet" and pool.scope is None and pool.pod.service_account is None
    assert pool.where.doc == 6 and pool.where.line == 67  # its apiVersion, after the "---" of line 66
    assert pool.pod.shared_volumes == ["vol1", "vol2", "var-lib-docker", "cache", "runner-tool-cache"]


def test_corpus_manager_role_rules():
    require(CORPUS.is_dir(), "corpus", corpus=True)
    f = CORPUS / "config/rbac/role.yaml"
    (role,) = parse(f.read_text(), str(f)).objects
    assert isinstance(role, RoleDoc) and role.name == "manager-role" and role.namespace is None
    secrets = next(r for r in role.rules if "secrets" in r.resources)
    assert secrets.verbs == ["create", "delete", "get", "list", "update", "watch"]


# --------------------------------------------------------------------------- parse: one bad document


def test_bad_document_is_one_problem_and_the_others_stay(tmp_path):
    text = ("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a, namespace: ns}\n---\n"
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns}\ndata: [not, a, mapping]\n---\n"
            "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: [bad\n---\n"
            "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: b, namespace: ns}\n")
    parsed = parse(text, "m.yaml")
    assert [o.name for o in parsed.objects] == ["a", "b"]
    assert [(p.place, p.reason) for p in parsed.problems][0] == ("document 1, data, line 8",
                                                                  "expected a mapping, found a sequence")
    assert parsed.problems[1].place.startswith("document 2, line 1")
    assert "[not" not in str(parsed.problems[0])


def test_each_document_is_parsed_once_with_its_line_offset(monkeypatch):
    """B1: a stream of N documents is N loads of the documents' own text (no padding: the characters loaded add
    up to the stream's), so reading it is linear; lines are still those of the stream."""
    import importlib
    kparse = importlib.import_module("ingest.k8s.parse")
    calls: list[tuple[int, int]] = []
    real = kparse.load_yaml

    def counting(text, *, file, line_offset=0, **kw):
        calls.append((len(text), line_offset))
        return real(text, file=file, line_offset=line_offset, **kw)

    monkeypatch.setattr(kparse, "load_yaml", counting)
    doc = "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa{i}\n  namespace: ns\n"
    text = "".join(doc.format(i=i) for i in range(500))
    parsed = parse(text, "many.yaml")
    assert len(parsed.objects) == 500 and parsed.problems == []
    assert len(calls) == 500 and sum(n for n, _ in calls) == len(text)
    assert [off for _, off in calls[:3]] == [0, 6, 12]
    assert (parsed.objects[-1].where.doc, parsed.objects[-1].where.line) == (499, 499 * 6 + 2)
    bad = parse(text + "---\nkind: [\n", "many.yaml")
    assert bad.problems[0].place == f"document 500, line {500 * 6 + 2}"


def test_document_count_is_bounded(monkeypatch):
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_DOCUMENTS_PER_FILE", "3")
    parsed = parse("---\nx: 1\n" * 4, "bomb.yaml")
    assert parsed.objects == [] and [str(p) for p in parsed.problems] == [
        "bomb.yaml: " + limits.too_many("max_documents_per_file", 3, "4 YAML documents")]
    sa = "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a}\n"
    assert [o.name for o in parse(sa * 3, "ok.yaml").objects] == ["a"] * 3  # at the limit: read


def test_workload_identity_annotation_that_is_no_arn_is_a_problem_not_an_id():
    """C2: IRSA takes an IAM role ARN (https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html);
    anything else is a problem naming the YAML path, the ServiceAccount is kept without it, the value is never
    shown."""
    text = ("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ci\n  annotations:\n"
            "    eks.amazonaws.com/role-arn: https://user:s3cr3tPassw0rd@example.com\n"
            "    azure.workload.identity/client-id: 00000000-1111-2222-3333-444444444444\n---\n"
            "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ok\n  annotations:\n"
            "    eks.amazonaws.com/role-arn: arn:aws-cn:iam::111122223333:role/path/deployer\n")
    parsed = parse(text, "sa.yaml")
    assert [(o.name, o.aws_role_arn, o.azure_client_id) for o in parsed.objects] == [
        ("ci", None, "00000000-1111-2222-3333-444444444444"),
        ("ok", "arn:aws-cn:iam::111122223333:role/path/deployer", None)]
    assert [(p.place, p.reason) for p in parsed.problems] == [
        ("document 0, metadata.annotations.eks.amazonaws.com/role-arn, line 6", "not an IAM role ARN: ignored")]
    assert "s3cr3t" not in str(parsed.problems)
    group = parse("githubConfigUrl: https://github.com/acme\nrunnerGroup: https://u:s3cr3t@x.example\n", "v.yaml")
    assert group.objects == [] and [(p.place, p.reason) for p in group.problems] == [
        ("runnerGroup, line 2", "holds URL credentials (user:password@): not a name")]


def test_other_yaml_is_not_recognised():
    with pytest.raises(NotRecognised):
        INGESTOR.parse("on: push\njobs: {}\n", InputFile(path=Path("ci.yml"), name="ci.yml", given=False))


# --------------------------------------------------------------------------- RBAC


def _binding(name, role_kind, role, subjects, ns=None):
    return BindingDoc(name=name, namespace=ns, role_kind=role_kind, role_name=role, subjects=subjects,
                      where=Where(file="rbac.yaml"))


def test_rbac_namespaced_cluster_role_and_resource_names():
    """A RoleBinding grants a ClusterRole in its namespace only; resourceNames limits get (RBAC docs)."""
    roles = {("one", None): RoleDoc(name="one", rules=[Rule(api_groups=[""], resources=["secrets"], verbs=["get"],
                                                            resource_names=["app-key"])], where=Where(file="r"))}
    sa = service_account_principal("ci", "runner")
    (g,) = evaluate(sa, [_binding("b", "ClusterRole", "one", [Subject(kind="ServiceAccount", name="runner",
                                                                       namespace="ci")], ns="ci")], roles)
    assert (g.admin, g.namespaces, g.names) == (False, {"ci"}, {"app-key"})
    (g,) = evaluate(sa, [_binding("e", "ClusterRole", "edit", [Subject(kind="Group",
                                                                        name="system:serviceaccounts:ci")], ns="ci")], {})
    assert (g.admin, g.namespaces, g.names) == (False, {"ci"}, None)
    assert evaluate(sa, [_binding("v", "ClusterRole", "view", [Subject(kind="Group", name="system:authenticated")])],
                    {}) == []


def test_rbac_system_masters_and_cluster_admin():
    masters = evaluate(mapped_principal("ops", ["system:masters"]), [], {})
    assert [(g.admin, g.binding) for g in masters] == [(True, None)]
    (g,) = evaluate(mapped_principal("ops", []), [_binding("x", "ClusterRole", "cluster-admin",
                                                           [Subject(kind="User", name="ops")])], {})
    assert g.admin and g.namespaces == {None}


# --------------------------------------------------------------------------- the fixture cluster, through the CLI


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    d = tmp_path_factory.mktemp("k8s")
    host = d / "host.json"
    res = invoke("collect", "host", "--root", str(FIX / "build-host"), "-o", str(host))
    assert res.exit_code == 0, res.output
    graph = d / "graph.json"
    res = invoke("build", "--github-actions", str(FIX / "repos"), "--k8s", str(FIX / "prod-eu"), "--aws-iam",
                 str(FIX / "iam.json"), "--runners", str(host), "-o", str(graph))
    assert res.exit_code == 0, res.output
    return graph


def _radius(graph: Path, source: str) -> dict:
    res = invoke("blast-radius", "--graph", str(graph), "--from", source, "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    return {r["id"]: r for r in doc["reached"]} | {"": doc}


def _kinds(reached: dict) -> list[str]:
    return [step["kind"] for step in reached["path"]]


def test_job_reaches_node_and_the_other_scale_sets_jobs(cluster):
    """build runs on arc-dind (privileged dind): its code persists on the pool=ci nodes, which also run arc-deploy's
    pods, and so every later deploy job (and the deployer's cluster-admin)."""
    r = _radius(cluster, BUILD)
    assert _kinds(r[POOL]) == ["persists_on"]
    assert r[POOL]["path"][0]["evidence"][0]["yaml_path"] == "jobs.build.runs-on"
    assert _kinds(r[DEPLOY]) == ["persists_on", "hosts", "receives_job"]
    assert [s["target"] for s in r[DEPLOY]["path"]] == [POOL, ids.runner("acme", "arc-deploy"), DEPLOY]
    hosts = r[DEPLOY]["path"][1]["evidence"][0]
    assert hosts["file"].endswith("prod-eu/arc-runners.yaml") and hosts["yaml_path"] == "[5]"
    assert r[CID]["criticality"] == "critical"
    assert _kinds(r[CID])[-2:] == ["uses_service_account", "administers"]
    assert all(step["evidence"] for reached in r.values() if "path" in reached for step in reached["path"])


def test_controller_secret_registers_rogue_runners(cluster):
    """The GitHub App key in arc-github-app registers runners into acme's group k8s: every job routed there."""
    r = _radius(cluster, APP_SECRET)
    group = ids.runner_group("acme", "k8s")
    assert _kinds(r[group]) == ["can_register_runner"]
    assert _kinds(r[DEPLOY]) == ["can_register_runner", "group_receives_job"]
    assert r[group]["path"][0]["evidence"][0]["file"].endswith("prod-eu/arc-runners.yaml")
    steps = [(s["action"], s["target"]) for s in r[""]["revocations"]]
    assert steps[0] == ("rotate_secret", APP_SECRET)  # a registrar is cut first


def test_runner_service_account_reads_the_controller_secret(cluster):
    r = _radius(cluster, BUILD)
    assert _kinds(r[APP_SECRET]) == ["uses_service_account", "reads_secret"]
    rbac = r[APP_SECRET]["path"][1]
    assert rbac["evidence"][-1]["file"].endswith("prod-eu/rbac.yaml")


def test_build_host_kubeconfig_is_production_cluster_admin(cluster):
    """build-07's kubeconfig exec plugin assumes eks-admin, which aws-auth maps to system:masters."""
    r = _radius(cluster, "host:build-07")
    assert _kinds(r[EKS_ADMIN]) == ["stores_credential", "assumes_role"]
    assert r[CID]["criticality"] == "critical" and r[CID]["confidence"] == "certain"
    g = Graph.load(cluster)
    (admin,) = [e for e in g.out_edges(EKS_ADMIN) if e.kind is EdgeKind.ADMINISTERS]
    assert admin.target == CID and admin.props["binding"] == "aws-auth/arn:aws:iam::111122223333:role/eks-admin"
    assert admin.evidence[0].file.endswith("prod-eu/aws-auth.yaml") and admin.evidence[0].detail == "groups: system:masters"
    assert g.node(CID).name == "prod-eu" and g.node(CID).production is True
    kube = g.node(ids.credential("build-07", "/home/runner/.kube/config"))
    assert "user:eks-admin (exec)" in kube.grants and f"cluster:{CLUSTER}" in kube.grants  # the user's credential kind


def test_irsa_trust_is_evaluated(cluster):
    g = Graph.load(cluster)
    deployer = ids.k8s_service_account(CLUSTER, "arc-runners", "deployer")
    (e,) = [e for e in g.out_edges(deployer) if e.kind is EdgeKind.ASSUMES_ROLE]
    assert e.confidence.value == "certain" and e.props["trust"] == "evaluated"
    assert e.props["subject"] == "system:serviceaccount:arc-runners:deployer"
    assert any(ev.detail == "IRSA" for ev in e.evidence)


def test_irsa_trust_refuses_another_service_account(tmp_path):
    """The trust pins system:serviceaccount:arc-runners:deployer: another service account annotated with the same
    role gets no edge."""
    d = tmp_path / "c"
    d.mkdir()
    (d / "cluster.yaml").write_text((FIX / "prod-eu" / "cluster.yaml").read_text())
    (d / "sa.yaml").write_text("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: intruder\n"
                               "  namespace: arc-runners\n  annotations:\n"
                               "    eks.amazonaws.com/role-arn: arn:aws:iam::111122223333:role/arc-deployer\n")
    g = build_graph({"k8s": [d], "aws-iam": [FIX / "iam.json"]}).graph
    sa = ids.k8s_service_account(CLUSTER, "arc-runners", "intruder")
    assert isinstance(g.node(sa), KubeServiceAccount)
    assert [e for e in g.out_edges(sa) if e.kind is EdgeKind.ASSUMES_ROLE] == []


def test_runbook_speaks_kubernetes(cluster):
    res = invoke("blast-radius", "--graph", str(cluster), "--from", BUILD, "--format", "runbook")
    assert res.exit_code == 0, res.output
    out = res.output
    assert "kubectl delete autoscalingrunnerset arc-deploy --namespace arc-runners" in out
    assert "kubectl cordon --selector pool=ci" in out
    res = invoke("blast-radius", "--graph", str(cluster), "--from", APP_SECRET, "--format", "runbook")
    assert "Delete the GitHub App private key stored as github_app_private_key" in res.output


def test_html_report_renders_kubernetes_kinds(cluster, tmp_path):
    out = tmp_path / "r.html"
    res = invoke("report", "--graph", str(cluster), "--from", BUILD, "-o", str(out))
    assert res.exit_code == 0, res.output
    html = out.read_text()
    for text in ("k8s_service_account", "k8s_secret", "arc-runners/arc-github-app", "uses_service_account"):
        assert text in html


def test_shared_volume_keeps_what_a_job_leaves(tmp_path):
    """A legacy RunnerSet (ephemeral runners, docker disabled: nothing reaches the node) whose volumeClaimTemplates
    claim is mounted again by later pods: a job's code persists in the pool until the claims are deleted."""
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "set.yaml").write_text(
        "apiVersion: actions.summerwind.dev/v1alpha1\nkind: RunnerSet\nmetadata: {name: big, namespace: ci}\n"
        "spec:\n  organization: acme\n  ephemeral: true\n  dockerEnabled: false\n  labels: [big]\n"
        "  template:\n    spec:\n      containers:\n      - name: runner\n        volumeMounts:\n"
        "        - {name: tool-cache, mountPath: /opt/hostedtoolcache}\n"
        "  volumeClaimTemplates:\n  - metadata: {name: tool-cache}\n    spec: {accessModes: [ReadWriteOnce]}\n")
    wf = tmp_path / "repos" / "acme__lib" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text("on: push\njobs:\n  test:\n    runs-on: [self-hosted, big]\n    steps:\n"
                               "      - run: make test\n")
    g = build_graph({"k8s": [tmp_path / "k8s"], "github-actions": [tmp_path / "repos"]}).graph
    job = ids.job("acme/lib", ".github/workflows/ci.yml", "test")
    persist = {e.target: e for e in g.out_edges(job) if e.kind is EdgeKind.PERSISTS_ON}
    pool = ids.runner("acme", "big")
    assert list(persist) == [pool]
    assert persist[pool].props["rule"] == "shared volume" and persist[pool].props["volumes"] == ["tool-cache"]
    assert persist[pool].revoked_by is RevocationAction.PURGE_CACHE


def test_names_that_kubernetes_refuses_are_problems():
    """A name the API server would refuse (not a DNS-1123 subdomain: "Object Names and IDs",
    https://kubernetes.io/docs/concepts/overview/working-with-objects/names/) never becomes a node id: one problem,
    the other documents stay."""
    text = ("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: \"evil/../x\\u001b[31m\", namespace: ci}\n---\n"
            "apiVersion: v1\nkind: Secret\nmetadata: {name: ok, namespace: \"Bad NS\"}\n---\n"
            "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: fine, namespace: ci}\n")
    parsed = parse(text, "m.yaml")
    assert [o.name for o in parsed.objects] == ["fine"]
    assert [p.place for p in parsed.problems] == ["document 0, metadata.name, line 3",
                                                  "document 1, metadata.namespace, line 7"]
    assert all("\x1b" not in str(p) and "evil" not in str(p) for p in parsed.problems)


def test_a_folder_without_manifests_is_a_problem_and_other_yaml_is_ignored(tmp_path):
    (tmp_path / "ci.yml").write_text("on: push\njobs: {}\n")
    res = build_graph({"k8s": [tmp_path]})
    assert [(p.file, p.reason) for p in res.problems] == [
        (str(tmp_path), "no Kubernetes manifest, ARC values file or kubeconfig (*.yaml, *.yml, *.json) found")]
    assert res.nothing_readable


def test_eks_access_entries(tmp_path):
    """EKS access entries (``aws eks list-associated-access-policies`` output): AmazonEKSClusterAdminPolicy on the
    cluster is cluster admin; AmazonEKSEditPolicy scoped to a namespace reads that namespace's Secrets only
    (https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html)."""
    d = tmp_path / "c"
    d.mkdir()
    (d / "cluster.yaml").write_text((FIX / "prod-eu" / "cluster.yaml").read_text())
    (d / "secrets.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: a, namespace: ci}\n---\n"
                                    "apiVersion: v1\nkind: Secret\nmetadata: {name: b, namespace: prod}\n")
    pol = "arn:aws:eks::aws:cluster-access-policy/"
    for name, policy, scope in (("admin", "AmazonEKSClusterAdminPolicy", {"type": "cluster"}),
                                ("editor", "AmazonEKSEditPolicy", {"type": "namespace", "namespaces": ["ci"]})):
        (d / f"{name}.json").write_text(json.dumps({
            "clusterName": "prod-eu", "principalArn": f"arn:aws:iam::111122223333:role/{name}",
            "associatedAccessPolicies": [{"policyArn": pol + policy, "accessScope": scope}]}))
    g = build_graph({"k8s": [d]}).graph
    admin, editor = (ids.cloud_role("aws", f"arn:aws:iam::111122223333:role/{n}") for n in ("admin", "editor"))
    (adm,) = [e for e in g.out_edges(admin) if e.kind is EdgeKind.ADMINISTERS]
    assert adm.target == CID and adm.props["binding"] == (
        "access-entry/prod-eu|arn:aws:iam::111122223333:role/admin|" + pol + "AmazonEKSClusterAdminPolicy")
    assert not [e for e in g.out_edges(editor) if e.kind is EdgeKind.ADMINISTERS]
    assert [e.target for e in g.out_edges(editor) if e.kind is EdgeKind.READS_SECRET] == [
        ids.k8s_secret(CLUSTER, "ci", "a")]
    from graphkit.report.runbook_k8s import remove_rbac_binding
    (action,) = remove_rbac_binding(g.node(admin), g)
    assert action.command == ("aws eks disassociate-access-policy --cluster-name prod-eu --principal-arn "
                              "arn:aws:iam::111122223333:role/admin --policy-arn " + pol + "AmazonEKSClusterAdminPolicy")


def test_a_document_of_no_object_shape_is_named_in_a_recognised_file(tmp_path):
    """A stream whose documents are a ServiceAccount, a sequence, a ``kind: 42``, a ``kind`` without
    ``apiVersion`` and an empty document: each bad one is one problem naming the file, the document index, the
    YAML path and the line; the good object is kept.  A file of no Kubernetes object at all (a YAML list alone)
    stays not recognised (ignored in a folder), as before."""
    f = tmp_path / "a.yaml"
    f.write_text("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa, namespace: arc}\n---\n- just\n- a list\n"
                 "---\nkind: 42\n---\nkind: Secret\nmetadata: {name: s}\n---\n", encoding="utf-8")
    parsed = parse(f.read_text(), str(f))
    assert [(p.place, p.reason) for p in parsed.problems] == [
        ("document 1, line 5", "expected a mapping (a Kubernetes object), found a sequence"),
        ("document 2, kind, line 8", "expected a string (the object's kind), found an int"),
        ("document 3, apiVersion, line 10", "missing")]
    assert [o.name for o in parsed.objects] == ["sa"]
    lone = tmp_path / "list.yaml"
    lone.write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(NotRecognised):
        parse(lone.read_text(), str(lone))
    result = build_graph({"k8s": [tmp_path]})
    assert {(Path(p.file).name, p.place) for p in result.problems} == {
        ("a.yaml", "document 1, line 5"), ("a.yaml", "document 2, kind, line 8"),
        ("a.yaml", "document 3, apiVersion, line 10")}


def test_document_numbers_are_the_yaml_streams_and_a_list_item_that_is_no_object_is_named(tmp_path):
    """An object, an empty document (``---`` then ``---``), then ``kind: 42``: the bad one is document 2, as
    PyYAML's ``load_all`` and kubectl number it (empty documents counted), and its object is kept with that index;
    a comment-only head before the first ``---`` is no document.  A ``kind: List`` whose ``items`` hold ``5``
    and ``null`` beside a ServiceAccount: each non-object item is a problem with its YAML path and line, the
    ServiceAccount kept."""
    import yaml
    text = ("# head\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa, namespace: x}\n---\n---\n"
            "kind: 42\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sb, namespace: x}\n")
    assert list(yaml.safe_load_all(text))[2] == {"kind": 42}
    parsed = parse(text, "c.yaml")
    assert [(p.place, p.reason) for p in parsed.problems] == [
        ("document 2, kind, line 8", "expected a string (the object's kind), found an int")]
    assert [(o.name, o.where.doc) for o in parsed.objects] == [("sa", 0), ("sb", 3)]
    f = tmp_path / "d.yaml"
    f.write_text("apiVersion: v1\nkind: List\nitems:\n  - 5\n  - {apiVersion: v1, kind: ServiceAccount, "
                 "metadata: {name: s, namespace: x}}\n  -\n", encoding="utf-8")
    parsed = parse(f.read_text(), str(f))
    assert [(p.place, p.reason) for p in parsed.problems] == [
        ("items[0], line 4", "expected a mapping (a Kubernetes object), found an int: item left out"),
        ("items[2], line 6", "expected a mapping (a Kubernetes object), found a null: item left out")]
    assert [o.name for o in parsed.objects] == ["s"]
    result = build_graph({"k8s": [f]})
    assert [(p.file, p.place) for p in result.problems] == [(str(f), "items[0], line 4"), (str(f), "items[2], line 6")]


# --------------------------------------------------------------------------- how far a hostPath reaches
# Pod Security Standards, baseline "HostPath volumes" (https://kubernetes.io/docs/concepts/security/pod-security-standards/);
# Kubernetes "Volumes", hostPath (https://kubernetes.io/docs/concepts/storage/volumes/#hostpath): a node path (or a
# runtime socket) controls the node; another host folder is shared with the node and its other pods.

SCALE_SET = """\
apiVersion: actions.github.com/v1alpha1
kind: AutoscalingRunnerSet
metadata: {{name: {name}, namespace: arc}}
spec:
  githubConfigUrl: https://github.com/acme
  githubConfigSecret: arc-app
  runnerScaleSetName: {name}
  template:
    spec:
      containers:
      - name: runner
        volumeMounts: [{{name: v, mountPath: /mnt, readOnly: {ro}}}]
      volumes:
      - name: v
        hostPath: {{path: {path}}}
"""


def _arc(tmp_path: Path, *pools: tuple[str, str, str]) -> Graph:
    (tmp_path / "k8s").mkdir()
    text = "---\n".join(SCALE_SET.format(name=n, path=p, ro=ro) for n, p, ro in pools)
    (tmp_path / "k8s" / "arc.yaml").write_text(text)
    return build_graph({"k8s": [tmp_path / "k8s"]}).graph


ANY_NODE = ids.k8s_node_pool("k8s", {})


@pytest.mark.parametrize("path, ro, confidence, escape", [
    ("/", "false", "certain", "hostPath /"),
    ("/var/run/docker.sock", "true", "certain", "hostPath /var/run/docker.sock (container runtime socket)"),
    ("/run/containerd/containerd.sock", "false", "certain",
     "hostPath /run/containerd/containerd.sock (container runtime socket)"),
    ("/var/lib/kubelet/pods", "true", "certain", "hostPath /var/lib/kubelet/pods"),
    ("/etc", "false", "certain", "hostPath /etc"),
    ("/var", "false", "certain", "hostPath /var"),
    ("/home", "false", "certain", "hostPath /home"),
    ("/data", "false", "possible",
     "hostPath /data (a host folder: shared with the node and its other pods, not the node)"),
    ("/home/runner/cache", "true", "possible",
     "hostPath /home/runner/cache (a host folder, read-only: shared with the node and its other pods, not the node)"),
    ("'{{ .Values.dir }}'", "false", "possible", "hostPath {{ .Values.dir }} (path not known: may be a node path)"),
])
def test_a_host_path_controls_the_node_only_when_it_is_a_node_path(tmp_path, path, ro, confidence, escape):
    g = _arc(tmp_path, ("s", path, ro))
    rid = ids.runner("acme", "s")
    (edge,) = [e for e in g.out_edges(rid) if e.kind is EdgeKind.RUNS_ON_HOST]
    assert (edge.target, edge.confidence.value, edge.props["escapes"]) == (ANY_NODE, confidence, [escape])
    assert g.node(rid).pods.escapes == [escape]


def test_an_any_node_host_co_locates_other_pools_only_possibly(tmp_path):
    """Two scale sets without nodeSelector: the one mounting / takes its node for certain; the other's pods are on
    that node only if the scheduler put them there (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/)."""
    from graphkit.analysis import blast_radius

    g = _arc(tmp_path, ("root", "/", "false"), ("data", "/data", "false"))
    hosts = {e.target: (e.confidence.value, e.props) for e in g.out_edges(ANY_NODE) if e.kind is EdgeKind.HOSTS}
    assert hosts == {ids.runner("acme", "root"): ("possible", {"shared": "any node"}),
                     ids.runner("acme", "data"): ("possible", {"shared": "any node"})}
    reached = {r.id: r.confidence.value for r in blast_radius(g, ids.runner("acme", "root")).reached}
    assert (reached[ANY_NODE], reached[ids.runner("acme", "data")]) == ("certain", "possible")
    from graphkit.findings import run_rules
    assert [f.rule for f in run_rules(g, only=["runner-on-runner"])] == []  # not registrations of one host
    # two pools on one nodeSelector's nodes are (the fixture cluster's pool=ci)
    fixture = build_graph({"k8s": [FIX / "prod-eu"]}).graph
    assert [(f.rule, f.subject) for f in run_rules(fixture, only=["runner-on-runner"])] == [("runner-on-runner", POOL)]
