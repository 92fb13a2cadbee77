"""Canary test: secret values planted in every input kind never appear in any output.

Inputs: a workflow and a composite action (literal tokens in ``run:``, ``env:``, ``with:`` and container
credentials, URL passwords), a runner inventory (registration URLs with userinfo and token parameters, a
kubeconfig server with a password in a credential's ``access`` and ``grants``), an IAM ``get-role`` export
(``sts:ExternalId``), and a scanned host (``.runner``/``.credentials``/``.env``, GitLab ``config.toml``,
kubeconfig, docker config, npmrc, pypirc, git-credentials... with URL credentials in every URL field).
Outputs: the host snapshot, the saved graph, every CLI command and format (tables, JSON, SARIF, OpenGraph,
HTML report, diff), Neo4j properties written through Bolt, and Python log records.

Every canary contains ``CANARY`` (token-shaped ones are built at run time: no tracked file holds one); the
check is a case-insensitive search for ``canary`` (ids lower-case some values).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.model import NodeKind, ids
from graphkit.redact import fingerprint
from host_fixtures import make_root, write

runner = CliRunner()

#: Token-shaped canaries, built here so that no tracked file holds one.
GH_TOKEN = "ghp_" + "CANARY" + "0" * 30
GH_TOKEN_2 = "ghp_" + "CANARY" + "1" * 30
AWS_KEY = "AKIA" + "CANARY" + "0" * 10
KEY_BLOCK = "\n        ".join(("-----BEGIN " + "OPENSSH PRIVATE" + " KEY-----", "CANARY-key-body",
                                "-----END " + "OPENSSH PRIVATE" + " KEY-----"))


def plant_checkout(root: Path) -> Path:
    """``repos/acme__app``: a workflow and a local composite action holding literal credentials."""
    repo = root / "repos" / "acme__app"
    write(repo, ".github/workflows/deploy.yml", f"""\
name: deploy
on: push
jobs:
  deploy:
    runs-on: [self-hosted, linux]
    container:
      image: ghcr.io/acme/build:1
      credentials: {{username: bot, password: "CANARY-Cntr-Pw-9x"}}
    env:
      DB_PASSWORD: "CANARY-Db-Pw-7q"
      GH_TOKEN: {GH_TOKEN}
    steps:
      - run: |
          curl -H "Authorization: token {GH_TOKEN_2}" https://api.github.com/x
          docker login -u bot --password CANARY-Docker-Pw-3z ghcr.io
          git clone https://bot:CANARY-Git-Pw-5k@github.com/acme/tools
      - uses: docker/login-action@v3
        with:
          registry: https://bot:CANARY-Reg-Pw-2m@registry.example.invalid
          password: CANARY-With-Pw-8j
      - uses: ./.github/actions/setup
  matrix:
    strategy:
      matrix:
        api_token: ["CANARY-Matrix-Tok-7y"]
        os: [linux]
    runs-on: [self-hosted, "${{{{ matrix.os }}}}"]
    environment: {{name: prod, url: "https://u:CANARY-Env-Url-2k@deploy.example.invalid"}}
    steps:
      - run: echo ${{{{ matrix.api_token }}}}
  labelled:
    runs-on: {{group: "grp-{GH_TOKEN_2}", labels: ["lbl-{GH_TOKEN}"]}}
    steps:
      - run: make
""")
    write(repo, ".github/actions/setup/action.yml", f"""\
name: setup
runs:
  using: composite
  steps:
    - run: echo {AWS_KEY} > key-id
      shell: bash
    - run: |
        cat > key <<EOF
        {KEY_BLOCK}
        EOF
      shell: bash
""")
    return root / "repos"


#: A runner inventory: URL credentials, and token-shaped strings where a name, label or path belongs (a runner
#: label and group the ``labelled`` job asks for, a credential path): marked alike on both sides of each join.
INVENTORY = f"""\
schema: graphkit.runner-inventory/v1
organizations: [{{name: acme, runner_groups: [{{name: "grp-{GH_TOKEN_2}", visibility: all}}]}}]
repositories: [{{full_name: acme/app, visibility: private}}]
hosts:
  - name: build-02
    credentials:
      - credential_type: kube
        path: /home/ci/.kube/config
        access: ["cluster:https://ci:CANARY-Inv-Kube-1@k8s.acme.example:6443"]
        grants: [{{access: deploys_to, target: "target:cluster:https://ci:CANARY-Inv-Kube-1@k8s.acme.example:6443"}}]
      - credential_type: github_pat
        path: /home/ci/.config/gh/{GH_TOKEN}/hosts.yml
        fingerprint: a1b2c3d4e5f60718
        scopes: [repo]
        github_owner: acme
runners:
  - name: inv-01
    labels: [self-hosted, linux, "lbl-{GH_TOKEN}"]
    runner_group: "grp-{GH_TOKEN_2}"
    scope: acme
    ephemeral: false
    host: build-02
    registration:
      config_path: /opt/ar/.runner
      url: "https://x:CANARY-Inv-Reg-2@github.com/acme"
      server_url: "https://pipelines.example.invalid/x?access_token=CANARY-Inv-Srv-3"
"""

#: ``aws iam get-role`` output whose trust names a partner account with an external id
#: (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_common-scenarios_third-party.html).
IAM = {"Role": {
    "RoleName": "partner-audit", "RoleId": "AROAFAKEFAKEFAKEFAKE1", "Path": "/",
    "Arn": "arn:aws:iam::111122223333:role/partner-audit",
    "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::444455556666:root"}, "Action": "sts:AssumeRole",
        "Condition": {"StringEquals": {"sts:ExternalId": "CANARY-ExtId-1"}}}]}}}


def plant_host(tmp: Path) -> Path:
    """The host fixture of the collector tests, with a credential in every URL field it reads."""
    root = make_root(tmp)
    home = "home/runner"
    settings = {"agentId": 301, "agentName": "build-01-u", "poolId": 1, "poolName": "Default",
                "serverUrl": "https://pipelines.example.invalid/abc?access_token=CANARY-Srv-Tok-4",
                "gitHubUrl": "https://x-access-token:CANARY-Runner-Url-1@github.com/acme", "workFolder": "_work"}
    write(root, "srv/actions-runner-u/.runner", json.dumps(settings))
    write(root, "srv/actions-runner-u/.credentials", json.dumps({"scheme": "OAuth", "secret": "CANARY-cred-u"}))
    write(root, "srv/actions-runner-t/.runner", json.dumps({  # a token pasted where the runner's name belongs
        "agentId": 302, "agentName": f"t-{GH_TOKEN_2}", "poolId": 1, "poolName": "Default",
        "gitHubUrl": "https://github.com/acme", "workFolder": "_work"}))
    write(root, f"{home}/.kube/config", "apiVersion: v1\nclusters:\n- name: prod\n  cluster:\n"
          "    server: https://admin:CANARY-Kube-Url-2@k8s.acme.example:6443\nusers:\n- name: ci\n  user:\n"
          "    token: CANARY-kube-token-x\n")
    write(root, f"{home}/.docker/config.json", json.dumps({"auths": {
        "https://bot:CANARY-Docker-Url-3@registry.acme.example/v1/": {"auth": "CANARY-docker-auth-x"},
        "ghcr.io": {"auth": "CANARY-docker-auth-y"}}}))
    write(root, f"{home}/.npmrc", "registry=https://bot:CANARY-Npm-Url-4@npm.acme.example/\n"
          "//npm.acme.example/:_authToken=CANARY-npm-token-x\n")
    write(root, f"{home}/.pypirc", "[distutils]\nindex-servers = internal\n[internal]\n"
          "repository = https://up:CANARY-Pypi-Url-5@pypi.acme.example/legacy/\nusername = up\n"
          "password = CANARY-pypi-pass-x\n")
    write(root, "etc/gitlab-runner/config.toml", "concurrent = 2\n[[runners]]\n  name = \"gl-build-01\"\n"
          "  url = \"https://gitlab-ci-token:CANARY-Gl-Url-6@gitlab.example.com/?private_token=CANARY-Gl-Q-7\"\n"
          "  id = 77\n  token = \"CANARY-gitlab-token-x\"\n  executor = \"docker\"\n")
    return root


def leaks(text: str) -> list[str]:
    """Lines of ``text`` holding a canary (case-insensitive)."""
    return [line[:200] for line in text.splitlines() if "canary" in line.lower()]


def plant_k8s(root: Path) -> Path:
    """``k8s/``: a Secret's values, an ARC values file's inline PAT, a kubeconfig token and a cluster server URL
    with a password (issue 15)."""
    d = root / "k8s"
    write(d, "cluster.yaml", "schema: graphkit.k8s-cluster/v1\nname: prod\n"
          "server: https://bot:CANARY-Kube-Url-5@prod.k8s.example.invalid\n")
    write(d, "secrets.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: app, namespace: ci}\n"
          "stringData: {github_token: CANARY-K8s-Secret-6}\ndata: {key: Q0FOQVJZ}\n")
    write(d, "arc/values.yaml", "githubConfigUrl: https://github.com/acme\n"
          f"githubConfigSecret: {{github_token: {GH_TOKEN}}}\nrunnerScaleSetName: arc\n")
    write(d, "kubeconfig.yaml", "apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster:\n"
          "    server: https://bot:CANARY-Kube-Url-7@prod.k8s.example.invalid\nusers:\n- name: ci\n  user:\n"
          "    token: CANARY-Kube-Token-8\n")
    write(d, "irsa.yaml", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ci\n  namespace: ci\n"
          "  annotations:\n    eks.amazonaws.com/role-arn: https://user:CANARY-Irsa-Url-9@example.com\n"
          "    iam.gke.io/gcp-service-account: https://u:CANARY-Gke-Url-10@example.com\n"
          "    azure.workload.identity/client-id: https://u:CANARY-Azure-Url-11@example.com\n"
          "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: aws-auth, namespace: kube-system}\ndata:\n"
          "  mapRoles: |\n    - rolearn: https://u:CANARY-AwsAuth-Url-12@example.com\n      username: x\n"
          "      groups: [system:masters]\n")
    write(d, "rbac.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n"
          "  name: https://u:CANARY-Role-Url-13@example.com\nrules: [{apiGroups: [''], resources: [secrets], "
          "verbs: [get]}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n"
          "  name: https://u:CANARY-Binding-Url-14@example.com\nroleRef: {kind: ClusterRole, name: view}\n"
          "subjects: [{kind: ServiceAccount, name: ci, namespace: ci}]\n")
    write(d, "arc/group.yaml", "githubConfigUrl: https://github.com/acme\ngithubConfigSecret: arc\n"
          "runnerGroup: https://u:CANARY-Group-Url-15@example.com\n")
    return d


def plant_gitlab(root: Path) -> Path:
    """``gitlab/acme__app/.gitlab-ci.yml``: URL passwords in every place the tester found them copied from
    (``extends``, ``!reference``, tags, environment name, ``id_tokens`` aud, Vault ``field``, a variable, a
    script), some of them problems (an ``extends`` or ``!reference`` naming nothing)."""
    d = root / "gitlab"
    u = "https://user:CANARY-Gl-{}@example.invalid"
    write(d, "acme__app/.gitlab-ci.yml", f"""variables:
  REPO_URL: {u.format("Var-1")}/x.git
a:
  extends: '{u.format("Ext-2")}'
  script: [echo]
b:
  script:
    - !reference [{u.format("Ref-3")}, script]
    - git clone {u.format("Clone-4")}/r.git
  tags: ['{u.format("Tag-5")}']
  environment: {{name: '{u.format("Env-6")}'}}
  id_tokens:
    T: {{aud: '{u.format("Aud-7")}'}}
  secrets:
    S: {{vault: {{engine: {{name: kv-v2, path: kv}}, path: p, field: '{u.format("Field-8")}'}}}}
""")
    return d


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("planted")
    plant_k8s(tmp)
    plant_gitlab(tmp)
    (tmp / "inventory.yaml").write_text(INVENTORY, encoding="utf-8")
    (tmp / "iam.json").write_text(json.dumps(IAM), encoding="utf-8")
    return {"dir": tmp, "repos": plant_checkout(tmp), "host_root": plant_host(tmp),
            "inventory": tmp / "inventory.yaml", "iam": tmp / "iam.json"}


def run_cli(*args: str):
    """Run a command (exit status 0 or 3: partial); its result."""
    res = runner.invoke(app, list(args))
    assert res.exit_code in (0, 3), (args, res.output[-2000:], res.exception)
    return res


def cli(*args: str) -> str:
    """Run a command; its stdout and stderr together."""
    return run_cli(*args).output


@pytest.fixture(scope="module")
def outputs(planted) -> dict[str, str]:
    """Every output, by name: files written and command outputs."""
    d = planted["dir"]
    got: dict[str, str] = {}
    got["collect"] = cli("collect", "host", "--root", str(planted["host_root"]), "-o", str(d / "host.json"))
    got["host.json"] = (d / "host.json").read_text(encoding="utf-8")
    inputs = ["--github-actions", str(planted["repos"]), "--runners", str(d / "host.json"),
              "--runners", str(planted["inventory"]), "--aws-iam", str(planted["iam"]), "--k8s", str(d / "k8s"),
              "--gitlab-ci", str(d / "gitlab")]
    got["build"] = cli("build", *inputs, "-o", str(d / "graph.json"))
    got["graph.json"] = (d / "graph.json").read_text(encoding="utf-8")
    g = ["--graph", str(d / "graph.json")]
    for fmt in ("table", "json"):
        got[f"nodes {fmt}"] = cli("nodes", *g, "--format", fmt)
        for src in ("host:build-01", "runner:acme/build-01-u", "runner:acme/inv-01", "runner:acme/arc"):
            got[f"blast-radius {src} {fmt}"] = cli("blast-radius", *g, "--from", src, "--format", fmt)
        got[f"diff {fmt}"] = cli("diff", str(planted["inventory"]), str(d / "host.json"), "--format", fmt)
    for fmt in ("table", "json", "sarif"):
        res = run_cli("findings", *g, "--format", fmt)
        got[f"findings {fmt}"] = res.output
        got[f"findings {fmt} stdout"] = res.stdout  # the document alone (stderr ends with the partial-input note)
    got["report"] = cli("report", *g, "--from", "host:build-01", "--from", "runner:acme/inv-01",
                        "-o", str(d / "report.html"))
    got["report.html"] = (d / "report.html").read_text(encoding="utf-8")
    got["opengraph"] = cli("export", "opengraph", *g, "-o", str(d / "og.json"))
    got["og.json"] = (d / "og.json").read_text(encoding="utf-8")
    got["from inputs"] = cli("findings", *inputs, "--format", "json")
    return got


def test_inputs_really_hold_the_canaries(planted):
    """The planted files carry the values (a canary test whose canaries are absent proves nothing)."""
    text = "".join(p.read_text(encoding="utf-8") for p in planted["repos"].rglob("*.yml"))
    assert GH_TOKEN in text and AWS_KEY in text and "CANARY-With-Pw-8j" in text
    host = planted["host_root"]
    assert "CANARY-Runner-Url-1" in (host / "srv/actions-runner-u/.runner").read_text()
    assert "CANARY-ExtId-1" in planted["iam"].read_text() and "CANARY-Inv-Reg-2" in planted["inventory"].read_text()
    assert "CANARY-K8s-Secret-6" in (planted["dir"] / "k8s" / "secrets.yaml").read_text()
    assert "CANARY-Gl-Field-8" in (planted["dir"] / "gitlab" / "acme__app" / ".gitlab-ci.yml").read_text()
    assert "CANARY-Irsa-Url-9" in (planted["dir"] / "k8s" / "irsa.yaml").read_text()


def test_token_shaped_inventory_and_host_strings_are_marked_alike_and_still_join(planted, outputs):
    """A token-shaped runner label, runner group, credential path (inventory) and runner name (host snapshot)
    are stored as ``***`` and the keyed fingerprint of the value, as the same values written in a workflow
    are: the ``labelled`` job (``runs-on: {group: grp-<token 2>, labels: [lbl-<token>]}``) still goes to
    ``inv-01``, certain, and no pool is inferred for it (newuser-s29 defects 6 and 7)."""
    mark, mark2 = "***" + fingerprint(GH_TOKEN.encode()), "***" + fingerprint(GH_TOKEN_2.encode())
    job = "job:acme/app/.github/workflows/deploy.yml#labelled"
    alone = build_graph({"github-actions": [planted["repos"]], "runners": [planted["inventory"]]}).graph
    assert {(e.source, e.confidence.value) for e in alone.in_edges(job) if e.kind.value == "receives_job"} == \
        {("runner:acme/inv-01", "certain")}
    graph = json.loads(outputs["graph.json"])  # with the host snapshot too (whose groups make access possible)
    nodes = {n["id"]: n for n in graph["nodes"]}
    assert {e["source"] for e in graph["edges"] if e["kind"] == "receives_job" and e["target"] == job} == \
        {"runner:acme/inv-01"}
    assert not [i for i in nodes if i.startswith("runner:inferred:") and "lbl-" in i]
    # labels and group names are case-insensitive on GitHub: fingerprinted lower-cased (mark_tokens fold)
    folded, folded2 = "***" + fingerprint(GH_TOKEN.lower().encode()), "***" + fingerprint(GH_TOKEN_2.lower().encode())
    assert nodes["runner:acme/inv-01"]["labels"] == ["self-hosted", "linux", f"lbl-{folded}"]
    assert nodes["runner:acme/inv-01"]["runner_group"] == f"grp-{folded2}"
    # ids made from the raw values (graphkit.model.ids marks them) are the graph's
    group, cred = ids.runner_group("acme", f"grp-{GH_TOKEN_2}"), ids.credential("build-02", f"/home/ci/.config/gh/{GH_TOKEN}/hosts.yml")
    assert (group, cred) == (ids.runner_group("acme", f"grp-{folded2}"), ids.credential("build-02", f"/home/ci/.config/gh/{mark}/hosts.yml"))
    assert group in nodes and cred in nodes and mark in cred
    assert nodes[ids.runner("acme", f"t-{GH_TOKEN_2}")]["name"] == f"t-{mark2}"  # from the host snapshot
    assert [r["name"] for r in json.loads(outputs["host.json"])["runners"] if r["name"].startswith("t-")] == \
        [f"t-{mark2}"]


def test_no_output_holds_a_canary(outputs):
    found = {name: leaks(text) for name, text in outputs.items()}
    assert {k: v for k, v in found.items() if v} == {}


def test_what_was_removed_is_flagged(planted, outputs):
    """The credentials are not silently dropped: each URL credential and literal credential is a finding."""
    doc = json.loads(outputs["findings json stdout"])
    by_rule: dict[str, set[str]] = {}
    for f in doc["findings"]:
        by_rule.setdefault(f["rule"], set()).add(f["subject"])
    assert {"runner:acme/build-01-u", "runner:acme/inv-01", "runner:gitlab.example.com/gl-build-01"} \
        <= by_rule["credential-in-url"]
    assert any(s.startswith("credential:") and "/.kube/config" in s for s in by_rule["credential-in-url"])
    assert any(s.startswith("credential:") and "/.docker/config.json" in s for s in by_rule["credential-in-url"])
    assert "credential:build-02:/home/ci/.kube/config" in by_rule["credential-in-url"]  # written in an inventory
    literal = [f for f in doc["findings"] if f["rule"] == "literal-credential-in-workflow"]
    where = {(f["properties"]["file"], f["properties"]["line"], f["properties"]["kind"]) for f in literal}
    assert {(".github/workflows/deploy.yml", 11, "GitHub Token"), (".github/workflows/deploy.yml", 14, "GitHub Token"),
            (".github/workflows/deploy.yml", 10, "High-entropy assignment"),
            (".github/workflows/deploy.yml", 16, "URL credential"),
            (".github/workflows/deploy.yml", 19, "URL credential"),
            (".github/actions/setup/action.yml", 5, "AWS Access Key"),
            (".github/actions/setup/action.yml", 9, "Private Key")} <= where, sorted(where)
    assert {(".gitlab-ci.yml", 2, "URL credential"), (".gitlab-ci.yml", 9, "URL credential")} <= where, sorted(where)
    graph = json.loads(outputs["graph.json"])
    ext = [n for n in graph["nodes"] if n.get("id") == "cloud_role:aws:arn:aws:iam::111122223333:role/partner-audit"]
    cond = ext[0]["trust_policy"]["Statement"][0]["Condition"]["StringEquals"]["sts:ExternalId"]
    assert cond.startswith("fingerprint:")  # presence kept, value gone


def test_neo4j_properties_hold_no_canary(planted, outputs, bolt):
    from graphkit.graph import Graph
    from graphkit.neo4j.connection import connect
    from graphkit.neo4j.sync import sync_graph
    from neo4j_helpers import settings, snapshot, wipe

    graph = Graph.load(planted["dir"] / "graph.json")
    s = settings(bolt)
    with connect(s) as driver:
        wipe(driver, s.database)
        sync_graph(driver, graph, database=s.database)
        nodes, rels = snapshot(driver, s.database)
        wipe(driver, s.database)
    assert len(nodes) == len(list(graph.nodes()))
    assert leaks(repr(nodes)) == [] and leaks(repr(rels)) == []


def test_log_records_hold_no_canary(planted, caplog):
    caplog.set_level(logging.DEBUG)
    result = build_graph({"github-actions": [planted["repos"]], "runners": [planted["inventory"]],
                          "aws-iam": [planted["iam"]]})
    assert list(result.graph.nodes(NodeKind.JOB))
    assert leaks("\n".join(f"{r.getMessage()} {r.args}" for r in caplog.records)) == []
    assert leaks("\n".join(str(p) for p in result.problems)) == []


def test_a_crash_prints_no_local_variables(tmp_path):
    """Typer's pretty exceptions show locals by default in 0.12.x: graphkit turns that off explicitly."""
    (tmp_path / "token").write_text("CANARY-crash-local", encoding="utf-8")  # read at run time: not in the source
    script = tmp_path / "crash.py"
    script.write_text(
        "import pathlib\n"
        "from graphkit.cli import app\n"
        "@app.command('boom')\n"
        "def boom() -> None:\n"
        f"    token = pathlib.Path({str(tmp_path / 'token')!r}).read_text()\n"
        "    raise RuntimeError('boom ' + str(len(token)))\n"
        "app(['boom'])\n", encoding="utf-8")
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("_TYPER")}
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode != 0 and "RuntimeError" in res.stderr + res.stdout
    assert leaks(res.stdout + res.stderr) == []
    assert app.pretty_exceptions_show_locals is False if hasattr(app, "pretty_exceptions_show_locals") else True


def test_error_messages_quote_no_value(tmp_path):
    """A value whose YAML tag fails, or that breaks a model, is never echoed in the problem."""
    repo = tmp_path / "repos" / "acme__app"
    write(repo, ".github/workflows/a.yml", "on: push\njobs:\n  a:\n    runs-on: x\n    env: {X: !!int 12CANARYx}\n"
          "    steps: [{run: make}]\n")
    write(repo, ".github/workflows/b.yml", "on: push\njobs:\n  b:\n    runs-on: x\n    steps: [{run: make}]\n")
    inv = tmp_path / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\nrunners:\n  - {name: r1, scope: acme, labels: "
                   "CANARY-not-a-list, ephemeral: !!bool CANARYyes}\n", encoding="utf-8")
    result = build_graph({"github-actions": [tmp_path / "repos"], "runners": [inv]})
    assert result.problems, "both bad files are named"
    assert leaks("\n".join(str(p) for p in result.problems)) == []


def test_jobs_keyed_by_two_token_shaped_names_stay_two_jobs(tmp_path):
    """A token-shaped job key is scrubbed from the job's id (never stored), but two jobs keyed by two such names
    must not merge into one node: each keeps its own runner pool and secret (the scrub mark carries the value's
    keyed fingerprint)."""
    wf = tmp_path / "repos" / "evil__c" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "c.yml").write_text(
        f"on: push\njobs:\n"
        f"  {GH_TOKEN}:\n    runs-on: [self-hosted, linux]\n    steps:\n      - run: echo ${{{{ secrets.A_SECRET }}}}\n"
        f"  {GH_TOKEN_2}:\n    runs-on: [self-hosted, gpu]\n    steps:\n      - run: echo ${{{{ secrets.B_SECRET }}}}\n",
        encoding="utf-8")
    g = build_graph({"github-actions": [tmp_path / "repos"]}).graph
    jobs = [n for n in g.nodes(NodeKind.JOB)]
    assert len(jobs) == 2 and len({j.id for j in jobs}) == 2
    assert {s.id for s in g.nodes(NodeKind.SECRET)} == {"secret:evil/c:A_SECRET", "secret:evil/c:B_SECRET"}
    saved = tmp_path / "g.json"
    g.save(saved)
    assert "CANARY" not in saved.read_text(encoding="utf-8")
    by_job = {j.id: {e.target for e in g.out_edges(j.id)} for j in jobs}
    assert sorted(len(t & {"secret:evil/c:A_SECRET", "secret:evil/c:B_SECRET"}) for t in by_job.values()) == [1, 1]


def test_a_token_shaped_key_of_an_inventory_is_never_quoted_by_its_problem(tmp_path):
    """An unknown key is a problem naming its place: a token-shaped key is written ``***`` there (stderr and the
    graph file's problems), as a URL's userinfo is."""
    inv = tmp_path / "inventory.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations:\n  - name: acme\n"
                   f"    {GH_TOKEN}: 1\nrunners:\n  - {{name: good, labels: [self-hosted], scope: acme}}\n",
                   encoding="utf-8")
    result = build_graph({"runners": [inv]})
    assert [(p.place[:21], p.reason[:13]) for p in result.problems] == [("organizations[0].***", "unknown field")]
    saved = tmp_path / "g.json"
    result.graph.save(saved)
    assert "CANARY" not in saved.read_text(encoding="utf-8") and "CANARY" not in str(result.problems)
    assert "runner:acme/good" in result.graph
