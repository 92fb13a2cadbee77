"""Runner inventory format: parse, to_graph, problems, schema (ingest/runner_inventory/)."""

from __future__ import annotations

import json
from collections import Counter
from importlib.metadata import entry_points
from pathlib import Path

import jsonschema
import pytest
import yaml

from graphkit.build import build_graph
from graphkit.errors import InputError
from graphkit.model import EdgeKind, Lifetime, NodeKind, ids
from ingest import runner_inventory as ri

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "acme" / "inventory.yaml"
SCHEMA = ROOT / "schemas" / "runner-inventory.schema.json"


@pytest.fixture(scope="module")
def example():
    return ri.INGESTOR.ingest([EXAMPLE])


def test_example_exact_counts(example):
    assert example.problems == []
    assert example.items == 1
    assert Counter(n.spec.kind.value for n in example.nodes) == {
        "secret": 11, "deployment_target": 4, "runner_group": 3, "repository": 3, "credential": 4, "runner": 3,
        "host": 2, "cache": 2, "organization": 1, "cloud_role": 1}
    assert Counter(e.kind.value for e in example.edges) == {
        "has_secret": 11, "owns": 6, "allows_repository": 4, "stores_credential": 4, "member_of": 3, "hosts": 3,
        "runs_on_host": 3, "shares_cache": 2, "assumes_role": 1, "publishes_to": 1,
        "registration_credential": 1}  # build-01-a's own .credentials (access: registration:acme/build-01-a)


def test_example_ids_and_fields(example):
    nodes = {n.id: n for n in example.nodes}
    assert {i for i in nodes if i.startswith("secret:")} == {
        "secret:org:acme:SLACK_WEBHOOK_URL", "secret:org:acme:ACME_BOT_TOKEN", "secret:org:acme:DOCS_DEPLOY_KEY",
        "secret:org:acme:TF_STATE_TOKEN", "secret:repo:acme/app:PYPI_API_TOKEN",
        "secret:repo:acme/app:CODECOV_TOKEN", "secret:env:acme/app:production:COSIGN_PRIVATE_KEY",
        "secret:env:acme/app:production:COSIGN_PASSWORD", "secret:repo:acme/docs:ALGOLIA_ADMIN_KEY",
        "secret:repo:acme/infra:KUBE_CONFIG_STAGING", "secret:env:acme/infra:production:KUBE_CONFIG_PROD"}
    assert {i for i in nodes if i.startswith("runner:")} == {
        "runner:acme/build-01-a", "runner:acme/build-01-b", "runner:acme/eph-7f3a"}
    a = nodes["runner:acme/build-01-a"]
    assert a.labels == ["self-hosted", "Linux", "X64", "shared"]
    assert (a.scope, a.runner_group, a.ephemeral, a.host) == ("acme", "shared-linux", False, "build-01")
    assert nodes["runner:acme/eph-7f3a"].ephemeral is True
    grp = nodes["runner_group:acme/release"]
    assert (grp.visibility, grp.selected_repositories, grp.restricted_to_workflows, grp.selected_workflows) == (
        "selected", ["acme/app"], True, ["acme/app/.github/workflows/release.yml@refs/heads/main"])
    assert nodes["runner_group:acme/default"].allows_public_repositories is False
    assert nodes["runner_group:acme/shared-linux"].allows_public_repositories is True
    sec = nodes["secret:org:acme:DOCS_DEPLOY_KEY"]
    assert (sec.scope, sec.visibility, sec.selected_repositories) == ("org", "selected", ["acme/docs"])
    # the inventory states no `production:`: the ingestor passes none, the build classifies (graphkit.targets)
    prod = nodes["target:environment:acme/app:production"]
    assert (prod.production, prod.criticality.value) == (None, "high")
    assert nodes["target:environment:acme/app:staging"].production is None
    assert nodes["repo:acme/docs"].visibility == "public"
    cred = nodes["credential:build-01:/home/runner/.aws/credentials"]
    assert (cred.credential_type, cred.fingerprint, cred.grants) == (
        "aws", "a1b2c3d4e5f60718", ["cloud_role:aws:arn:aws:iam::111122223333:role/acme-ci-builder"])
    assert nodes["credential:build-01:/opt/actions-runner-a/.credentials"].lifetime == Lifetime.UNTIL_RUNNER_REMOVED
    assert nodes["cache:host:build-01:/opt/hostedtoolcache"].cache_type == "host"
    role = nodes["cloud_role:aws:arn:aws:iam::111122223333:role/acme-ci-builder"]
    assert (role.provider, role.account) == ("aws", "111122223333")


def test_example_edges_and_evidence(example):
    edges = {(e.kind, e.source, e.target): e for e in example.edges}
    assert {(s, t) for (k, s, t) in edges if k == EdgeKind.HOSTS} == {
        ("host:build-01", "runner:acme/build-01-a"), ("host:build-01", "runner:acme/build-01-b"),
        ("host:ci-vm-7f3a", "runner:acme/eph-7f3a")}
    assert {(s, t) for (k, s, t) in edges if k == EdgeKind.ALLOWS_REPOSITORY} == {
        ("runner_group:acme/shared-linux", "repo:acme/app"), ("runner_group:acme/shared-linux", "repo:acme/docs"),
        ("runner_group:acme/shared-linux", "repo:acme/infra"), ("runner_group:acme/release", "repo:acme/app")}
    assert edges[(EdgeKind.RUNS_ON_HOST, "runner:acme/eph-7f3a", "host:ci-vm-7f3a")].lifetime == Lifetime.PER_JOB
    assert edges[(EdgeKind.RUNS_ON_HOST, "runner:acme/build-01-a", "host:build-01")].lifetime == Lifetime.UNTIL_REIMAGED
    member = edges[(EdgeKind.MEMBER_OF, "runner:acme/build-01-b", "runner_group:acme/release")]
    ev = member.evidence[0]
    assert (ev.file, ev.yaml_path) == (str(EXAMPLE), "runners[1].runner_group")
    assert EXAMPLE.read_text().splitlines()[ev.line - 1].strip() == "runner_group: release"
    for e in example.edges:
        assert e.evidence and all(x.file == str(EXAMPLE) and x.yaml_path for x in e.evidence)
    for n in example.nodes:
        assert n.evidence and all(x.file == str(EXAMPLE) and x.yaml_path for x in n.evidence)


def test_example_meta(example):
    assert list(example.meta) == ["runner_inventory"]
    assert example.meta["runner_inventory"].model_dump() == {
        "github_hosted_labels": ["acme-ubuntu-8core"], "self_hosted_labels": [],
        "secrets_complete": ["org:acme", "repo:acme/app", "repo:acme/docs", "target:environment:acme/app:production",
                             "target:environment:acme/app:staging"],
        "oidc_sub_templates": {"acme": {"use_default": True}}, "unknown_selected_workflows": [],
        "runner_owners": ["acme"], "runners_complete": [], "organizations": ["acme"],
        "files": [str(EXAMPLE)], "gitlab_projects": {}, "gitlab_variables_complete": [],
        "repository_names": {"acme/app": "acme/app", "acme/docs": "acme/docs", "acme/infra": "acme/infra"}}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


GOOD = """\
schema: graphkit.runner-inventory/v1
runners:
  - {name: r1, labels: [linux], scope: acme}
"""


def test_malformed_inventory_one_problem_naming_file_and_place(tmp_path):
    bad = _write(tmp_path, "inventory.yaml", """\
schema: graphkit.runner-inventory/v1
runners:
  - {name: r1, labels: [linux], scope: acme}
  - {name: r2, labels: [linux], scope: acme}
  - {name: r3, labels: [linux], scope: acme}
  - name: r4
    scope: acme
    labels: linux-not-a-list
""")
    good = _write(tmp_path, "good.yaml", GOOD)
    res = ri.INGESTOR.ingest([bad, good])
    assert len(res.problems) == 1
    prob = res.problems[0]
    assert isinstance(prob, InputError)
    assert (prob.file, prob.place) == (str(bad), "runners[3].labels")
    assert "line 8" in prob.reason
    assert str(prob).startswith(f"{bad}: runners[3].labels: ")
    # validated entry by entry: only r4 is left out of bad.yaml; good.yaml read, its r1 merged with bad.yaml's
    runners = {n.id: n for n in res.nodes if n.spec.kind.value == "runner"}
    assert list(runners) == ["runner:acme/r1", "runner:acme/r2", "runner:acme/r3"]
    assert [e.file for e in runners["runner:acme/r1"].evidence] == [str(bad), str(good)]
    assert res.items == 2 and not res.complete


@pytest.mark.parametrize("text, place", [
    ("schema: graphkit.runner-inventory/v1\nhosts:\n  - {name: h, colour: red}\n", "hosts[0].colour"),
    ("schema: graphkit.runner-inventory/v2\n", "schema"),
    ("schema: graphkit.runner-inventory/v1\nrunners: [\n", "line 2"),  # the unclosed list (ingest._yaml)
    ("- just a list\n", ""),
    ("schema: graphkit.runner-inventory/v1\nrepositories:\n  - {full_name: noslash}\n", "repositories[0].full_name"),
    ("schema: graphkit.runner-inventory/v1\nhosts:\n  - name: h\n    credentials:\n"
     "      - {credential_type: aws, path: x, fingerprint: 'AKIA-not-hex'}\n", "hosts[0].credentials[0].fingerprint"),
    ("schema: graphkit.runner-inventory/v1\nhosts:\n  - name: h\n    credentials:\n"
     "      - {credential_type: aws, path: x, grants: [{access: assumes_role, target: 'repo:acme/app'}]}\n",
     "hosts[0].credentials[0].grants[0].access"),
    ("schema: graphkit.runner-inventory/v1\nhosts:\n  - name: h\n    credentials:\n"
     "      - {credential_type: aws, path: x, grants: [{access: assumes_role, target: 'cloud_role:aws:nope'}]}\n",
     "hosts[0].credentials[0].grants[0].target"),
])
def test_problem_places(tmp_path, text, place):
    res = ri.INGESTOR.ingest([_write(tmp_path, "inv.yaml", text)])
    assert [(p.file, p.place) for p in res.problems] == [(str(tmp_path / "inv.yaml"), place)]
    # a bad credential (or grant) costs only that credential (grant): host h stays (issue 18)
    kept = [ids.host("h")] if ".credentials[" in place else []
    kept += [ids.credential("h", "x")] if ".grants[" in place else []
    assert [n.id for n in res.nodes] == kept
    assert [e.kind for e in res.edges] == ([EdgeKind.STORES_CREDENTIAL] if ".grants[" in place else [])


def test_missing_file_is_a_problem(tmp_path):
    res = ri.INGESTOR.ingest([tmp_path / "absent.yaml"])
    assert [(p.file, p.place) for p in res.problems] == [(str(tmp_path / "absent.yaml"), "")]


def test_unknown_is_not_empty(tmp_path):
    res = ri.INGESTOR.ingest([_write(tmp_path, "inv.yaml", """\
schema: graphkit.runner-inventory/v1
organizations: [{name: acme}]
repositories: [{full_name: acme/app, secrets: [A]}]
runners:
  - {name: r1, labels: [{name: self-hosted, type: read-only}, {name: gpu, type: custom}], scope: acme}
  - {name: r2, labels: [linux], scope: acme/app, host: h9}
""")])
    nodes = {n.id: n for n in res.nodes}
    assert nodes["repo:acme/app"].visibility is None
    # listed secrets exist, but the list is not known complete
    assert res.meta["runner_inventory"].secrets_complete == []
    r1, r2 = nodes["runner:acme/r1"], nodes["runner:acme/app/r2"]
    assert (r1.labels, r1.runner_group, r1.ephemeral) == (["self-hosted", "gpu"], "Default", None)
    assert (r2.labels, r2.runner_group, r2.scope) == (["self-hosted", "linux"], None, "acme/app")
    # group referenced but not listed: inferred (access settings unknown)
    assert nodes["runner_group:acme/default"].inferred is True
    assert nodes["host:h9"].os is None and nodes["host:h9"].ephemeral is None


def test_json_and_directory_inputs(tmp_path):
    d = tmp_path / "inv"
    d.mkdir()
    (d / "a.json").write_text(json.dumps(yaml.safe_load(GOOD)))
    (d / "b.yaml").write_text(GOOD.replace("r1", "r2").replace("[linux]", "[linux]\n") +
                              "github_hosted_labels: [big-box]\n")
    res = ri.INGESTOR.ingest([d])
    assert res.problems == [] and ri.INGESTOR.count([d]) == 2
    assert sorted(n.id for n in res.nodes if n.spec.kind.value == "runner") == ["runner:acme/r1", "runner:acme/r2"]
    assert res.meta["runner_inventory"].github_hosted_labels == ["big-box"]


def test_schema_file_up_to_date():
    assert SCHEMA.read_text(encoding="utf-8") == ri.schema_text(), (
        "regenerate with: python -m ingest.runner_inventory --write schemas/runner-inventory.schema.json")


def test_example_valid_against_schema():
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(yaml.safe_load(EXAMPLE.read_text()), schema)


def test_registered_entry_point():
    (ep,) = [ep for ep in entry_points(group="graphkit.ingestors") if ep.name == "runners"]
    assert ep.load() is ri.INGESTOR
    assert ri.INGESTOR.name == "runners" and ri.INGESTOR.description


def test_production_only_when_stated_and_classified_by_the_build(tmp_path):
    inv = _write(tmp_path, "inv.yaml", """\
schema: graphkit.runner-inventory/v1
repositories:
  - full_name: acme/app
    environments:
      - {name: Production}
      - {name: staging}
      - {name: docs, production: true}
      - {name: live-eu, production: false}
""")
    nodes = {n.id: n for n in ri.INGESTOR.ingest([inv]).nodes}
    envs = [ids.environment("acme/app", e) for e in ("production", "staging", "docs", "live-eu")]
    assert [(nodes[e].production, nodes[e].criticality.value) for e in envs] == [
        (None, "high"), (None, "high"), (True, "high"), (False, "high")]
    # environment names are case-insensitive: the id lower-cases the name, the identifier keeps it as written
    assert (envs[0], nodes[envs[0]].identifier) == ("target:environment:acme/app:production", "acme/app:Production")
    built = {n.id: n for n in build_graph({"runners": [inv]}).graph.nodes()}
    assert [(built[e].production, built[e].criticality.value) for e in envs] == [
        (True, "critical"), (False, "high"), (True, "critical"), (False, "high")]


def test_example_built_environments_are_classified():
    built = {n.id: n for n in build_graph({"runners": [EXAMPLE]}).graph.nodes()}
    prod = built["target:environment:acme/app:production"]
    assert (prod.production, prod.criticality.value) == (True, "critical")
    assert built["target:environment:acme/app:staging"].production is False


GRANTS = """\
schema: graphkit.runner-inventory/v1
hosts:
  - name: h
    credentials:
      - credential_type: x
        path: /x
        grants:
          - {access: deploys_to, target: "TARGET"}
"""


@pytest.mark.parametrize("target, node_id", [
    ("target:environment:Acme/App:Prod", "target:environment:acme/app:prod"),
    ("target:registry:ghcr.io", "target:registry:ghcr.io"),
    ("target:cluster:https://k8s.example:6443", "target:cluster:https://k8s.example:6443"),
])
def test_grant_targets_are_rebuilt_by_the_id_constructors(tmp_path, target, node_id):
    res = ri.INGESTOR.ingest([_write(tmp_path, "inv.yaml", GRANTS.replace("TARGET", target))])
    assert res.problems == []
    cred = next(n for n in res.nodes if n.spec.kind.value == "credential")
    assert cred.grants == [node_id]
    assert [(e.kind, e.target) for e in res.edges if e.source == cred.id] == [(EdgeKind.DEPLOYS_TO, node_id)]


ROLE = "expected cloud_role:aws:arn:aws:iam::<12 digits>:role/<name> (or :instance-profile/<name>)"
NOT_A_TARGET = "not a cloud_role:, target:, signing_key: or repo: node id"


@pytest.mark.parametrize("access, target, place, reason", [
    ("assumes_role", "cloud_role:aws:nope", "target", f"'cloud_role:aws:nope': {ROLE}"),
    ("assumes_role", "cloud_role:aws:", "target", f"'cloud_role:aws:': {ROLE}"),
    ("assumes_role", "cloud_user:aws:ci", "target",
     "'cloud_user:aws:ci': expected cloud_user:aws:arn:aws:iam::<12 digits>:user/<name>"),
    ("deploys_to", "target:registry", "target", "'target:registry': expected target:<type>:<identifier>"),
    ("deploys_to", "target:environment:noslash", "target",
     "'target:environment:noslash': expected target:environment:<owner>/<repo>:<environment>"),
    ("deploys_to", "target:spaceship:x", "target",
     ("'target:spaceship:x': expected target:<type>:<identifier> with <type> one of environment, registry, "
      "package_index, bucket, cluster, function, site, other")),
    ("signs_with", "signing_key:gpg", "target", "'signing_key:gpg': expected signing_key:<scheme>:<identifier>"),
    ("writes_repository", "repo:noslash", "target", f"'repo:noslash': {NOT_A_TARGET}"),
    ("deploys_to", "host:h", "target", f"'host:h': {NOT_A_TARGET}"),
    ("signs_with", "target:registry:ghcr.io", "access",
     "signs_with cannot point to a deployment_target (target:registry:ghcr.io)"),
    ("authenticates_as", "cloud_role:aws:arn:aws:iam::111122223333:role/ci", "access",
     "authenticates_as points only to an IAM user (cloud_user:aws:<user arn>), not to a cloud_role "
     "(cloud_role:aws:arn:aws:iam::111122223333:role/ci): a role is written with assumes_role"),
    ("authenticates_as", "repo:acme/app", "access",
     "authenticates_as points only to an IAM user (cloud_user:aws:<user arn>), not to a repository (repo:acme/app)"),
])
def test_malformed_grant_targets_say_what_was_expected(tmp_path, access, target, place, reason):
    f = _write(tmp_path, "inv.yaml", GRANTS.replace("deploys_to", access).replace("TARGET", target))
    res = ri.INGESTOR.ingest([f])
    assert [(p.file, p.place, p.reason) for p in res.problems] == [
        (str(f), f"hosts[0].credentials[0].grants[0].{place}", f"{reason} (line 8)")]
    # the bad grant costs only itself (issue 18): the host and its credential stay, granting nothing
    assert {n.spec.kind.value for n in res.nodes} == {"host", "credential"}
    assert [e.kind for e in res.edges] == [EdgeKind.STORES_CREDENTIAL]


@pytest.mark.parametrize("access", ["authenticates_as", "assumes_role"])
def test_a_credential_reaches_an_iam_user_with_authenticates_as(tmp_path, access):
    """The README's edge name is the inventory's access value (newuser2-s29 defect 6): an IAM user's access key
    on the host ``authenticates_as`` the user; ``assumes_role`` on a cloud_user is read as it (older files)."""
    user = "cloud_user:aws:arn:aws:iam::111122223333:user/deployer"
    f = _write(tmp_path, "inv.yaml", GRANTS.replace("deploys_to", access).replace("TARGET", user))
    res = ri.INGESTOR.ingest([f])
    assert res.problems == []
    assert sorted((e.kind.value, e.target, e.confidence.value) for e in res.edges) == [
        ("authenticates_as", user, "certain"), ("stores_credential", "credential:h:/x", "certain")]
    schema = json.loads((Path(__file__).parents[1] / "schemas" / "runner-inventory.schema.json").read_text())
    assert "authenticates_as" in schema["$defs"]["CredentialGrant"]["properties"]["access"]["enum"]


@pytest.mark.parametrize("entry, place, reason", [
    ("hosts:\n  - {name: 'build:01'}", "hosts[0].name",
     "Value error, host id: 'build:01' is not a valid host name; hosts[0] is left out"),
    ("repositories:\n  - {full_name: acme/app, secrets: ['A:B']}", "repositories[0].secrets[0]",
     "Value error, secret id: 'A:B' is not a valid secret name"),
    ("runners:\n  - {name: ' ', scope: acme}", "runners[0].name",
     "Value error, runner id: ' ' is not a valid runner name; runners[0] is left out"),
    ("runners:\n  - {name: a, scope: acme, host: ' '}", "runners[0].host",
     "Value error, host id: ' ' is not a valid host name; runners[0] is left out"),
    ("hosts:\n  - {name: h, credentials: [{credential_type: x, path: /x, readable_by: [nobody]}]}",
     "hosts[0].credentials[0].readable_by[0]",
     "Value error, runner reference 'nobody' is not owner/name or owner/repo/name"),
])
def test_values_no_id_can_hold_are_problems_at_their_place(tmp_path, entry, place, reason):
    f = _write(tmp_path, "inv.yaml", "schema: graphkit.runner-inventory/v1\n" + entry + "\n")
    good = _write(tmp_path, "good.yaml", GOOD)
    res = ri.INGESTOR.ingest([f, good])
    assert [(p.file, p.place, p.reason) for p in res.problems] == [(str(f), place, f"{reason} (line 3)")]
    assert [n.id for n in res.nodes if n.spec.kind.value == "runner"] == ["runner:acme/r1"]


def test_readable_by_an_unknown_runner_skips_only_that_link(tmp_path):
    # issue 18: one runner named elsewhere (unknown, or its entry skipped) never drops the rest of the file
    f = _write(tmp_path, "inv.yaml", "schema: graphkit.runner-inventory/v1\nhosts:\n  - name: h\n    credentials:\n"
               "      - {credential_type: x, path: /x, readable_by: [Acme/ghost]}\n")
    good = _write(tmp_path, "good.yaml", GOOD)
    res = ri.INGESTOR.ingest([f, good])
    assert [(p.file, p.place, p.reason) for p in res.problems] == [
        (str(f), "hosts[0].credentials[0].readable_by",
         "acme/ghost is not a runner of this file (or its entry was skipped); link skipped")]
    assert [n.id for n in res.nodes] == ["host:h", "credential:h:/x", "runner:acme/r1", "org:acme",
                                         "runner_group:acme/default"]
    assert not any(e.source.startswith("runner:") and e.target == "credential:h:/x" for e in res.edges)


#: Issue 18 (fresh-user test): one bad sub-entry dropped the whole host (its valid credentials too) or the runner.
SUB_ENTRIES = """\
schema: graphkit.runner-inventory/v1
hosts:
  - name: build-01
    credentials:
      - {credential_type: aws, path: /root/.aws/credentials, lifetime: forever}
      - {credential_type: docker, path: /root/.docker/config.json}
      - {credential_type: kube, path: /root/.kube/config, access: 'cluster:prod'}
      - credential_type: npm
        path: /root/.npmrc
        grants:
          - {access: publishes_to, target: 'nope'}
          - {access: publishes_to, target: 'target:package_index:registry.npmjs.org'}
    caches:
      - {path: /opt/hostedtoolcache}
runners:
  - name: r1
    scope: acme
    host: build-01
    registration: {url: 'https://github.com/acme'}
  - {name: r2, scope: acme, host: build-01}
"""


def test_a_bad_sub_entry_costs_only_that_sub_entry(tmp_path):
    f = _write(tmp_path, "inv.yaml", SUB_ENTRIES)
    parsed = ri.parse(SUB_ENTRIES, str(f))
    assert [(p.file, p.place, p.reason.rsplit(" (line ", 1)[1]) for p in parsed.problems] == [
        (str(f), "hosts[0].credentials[0].lifetime", "5)"),
        (str(f), "hosts[0].credentials[2].access", "7)"),
        (str(f), "hosts[0].credentials[3].grants[0].target", "11)"),
        (str(f), "runners[0].registration.config_path", "19)")]  # a missing field: the line of its mapping
    host, = parsed.inventory.hosts
    assert [c.path for c in host.credentials] == ["/root/.docker/config.json", "/root/.npmrc"]
    assert [g.target for g in host.credentials[1].grants] == ["target:package_index:registry.npmjs.org"]
    assert [c.path for c in host.caches] == ["/opt/hostedtoolcache"]
    assert [(r.name, r.registration) for r in parsed.inventory.runners] == [("r1", None), ("r2", None)]
    res = ri.INGESTOR.ingest([f])
    nodes = {n.id: n for n in res.nodes}
    docker, npm = (ids.credential("build-01", p) for p in ("/root/.docker/config.json", "/root/.npmrc"))
    # the kept entries keep their own YAML path and line (never shifted by the left-out ones)
    assert [(e.yaml_path, e.line) for e in nodes[docker].evidence] == [("hosts[0].credentials[1]", 6)]
    assert [(e.yaml_path, e.line) for e in nodes[npm].evidence] == [("hosts[0].credentials[3]", 8)]
    grants = [e for e in res.edges if e.source == npm and e.kind is EdgeKind.PUBLISHES_TO]
    assert [(e.evidence[0].yaml_path, e.evidence[0].line) for e in grants] == [
        ("hosts[0].credentials[3].grants[1]", 12)]
    assert {ids.host("build-01"), ids.runner("acme", "r1"), ids.runner("acme", "r2")} <= set(nodes)


def test_a_token_shaped_secret_name_is_stored_as_its_fingerprint(tmp_path):
    """The example inventory with a token pasted as an org, a repository and an environment secret name: no case
    of the value is stored (the name was kept upper-cased), each node is ``***`` and the value's keyed fingerprint
    (as a workflow's ``secrets.<token>`` is scrubbed), and a job of acme/app referencing it reads that repository
    secret, certainly (the lists are complete)."""
    from graphkit.redact import fingerprint

    token = "ghp_" + "Q7x9" * 9
    text = EXAMPLE.read_text(encoding="utf-8")
    for old, new in [("      - name: SLACK_WEBHOOK_URL\n", f"      - name: {token}\n        visibility: all\n"
                      "      - name: SLACK_WEBHOOK_URL\n"),
                     ("secrets: [PYPI_API_TOKEN, CODECOV_TOKEN]", f"secrets: [PYPI_API_TOKEN, CODECOV_TOKEN, {token}]"),
                     ("secrets: [COSIGN_PRIVATE_KEY, COSIGN_PASSWORD]",
                      f"secrets: [COSIGN_PRIVATE_KEY, COSIGN_PASSWORD, {token}]")]:
        assert old in text
        text = text.replace(old, new, 1)
    inv = tmp_path / "inventory.yaml"
    inv.write_text(text, encoding="utf-8")
    wf = tmp_path / "repos" / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                               f"      - run: echo ${{{{ secrets.{token} }}}}\n", encoding="utf-8")
    result = build_graph({"runners": [inv], "github-actions": [tmp_path / "repos"]})
    assert result.problems == []
    out = tmp_path / "g.json"
    result.graph.save(out)
    saved = out.read_text(encoding="utf-8").lower()
    assert "q7x9q7x9" not in saved
    shown = "***" + fingerprint(token.encode()).upper()
    repo_secret = ids.secret_repo("acme/app", shown)
    assert {n.id for n in result.graph.nodes() if "***" in n.id and n.spec.kind.value == "secret"} == {
        ids.secret_org("acme", shown), repo_secret, ids.secret_env("acme/app", "production", shown)}
    assert result.graph.node(repo_secret).secret_name == shown
    job = ids.job("acme/app", ".github/workflows/ci.yml", "a")
    assert {(e.target, e.confidence.value) for e in result.graph.out_edges(job)
            if e.kind is EdgeKind.READS_SECRET} == {(repo_secret, "certain"),
                                                    # the token is written in the file too: a literal credential
                                                    (ids.literal_credential("acme/app", fingerprint(token.encode())),
                                                     "certain")}


def test_only_real_booleans_are_booleans_and_a_bad_ephemeral_is_unknown(tmp_path):
    """``ephemeral: "yes"``, ``"on"``, ``"t"``, ``1`` (which the published schema, ``boolean|null``, rejects):
    each one problem naming the file, place and line, and the runner or host is kept with its ephemeral state
    unknown (null: read as persistent, the wider blast radius), never ephemeral; real booleans are kept."""
    inv = _write(tmp_path, "inv.yaml", "schema: graphkit.runner-inventory/v1\nhosts:\n"
                 "  - {name: h1, ephemeral: \"on\"}\n  - {name: h2, ephemeral: true}\nrunners:\n"
                 "  - {name: r1, labels: [self-hosted], scope: acme, host: h1, ephemeral: \"yes\"}\n"
                 "  - {name: r2, labels: [self-hosted], scope: acme, host: h1, ephemeral: 1}\n"
                 "  - {name: r3, labels: [self-hosted], scope: acme, host: h1, ephemeral: \"t\"}\n"
                 "  - {name: r4, labels: [self-hosted], scope: acme, host: h2, ephemeral: true}\n"
                 "  - {name: r5, labels: [self-hosted], scope: acme, host: h2, ephemeral: false}\n")
    doc = yaml.safe_load(inv.read_text())
    schema = json.loads((ROOT / "schemas" / "runner-inventory.schema.json").read_text())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    result = build_graph({"runners": [inv]})
    assert [(p.file, p.place, p.reason) for p in result.problems] == [
        (str(inv), place, f"Input should be a valid boolean; left unknown (read as persistent) (line {line})")
        for place, line in (("hosts[0].ephemeral", 3), ("runners[0].ephemeral", 6), ("runners[1].ephemeral", 7),
                            ("runners[2].ephemeral", 8))]
    g = result.graph
    got = {n.id: n.ephemeral for n in (*g.nodes(NodeKind.RUNNER), *g.nodes(NodeKind.HOST))}
    assert got == {"runner:acme/r1": None, "runner:acme/r2": None, "runner:acme/r3": None,
                   "runner:acme/r4": True, "runner:acme/r5": False, "host:h1": None, "host:h2": True}
    # another boolean field the schema types: strict too (the entry's own field: the group is left out, named)
    inv2 = _write(tmp_path, "inv2.yaml", "schema: graphkit.runner-inventory/v1\norganizations:\n  - name: acme\n"
                  "    runner_groups:\n      - {name: g, visibility: all, allows_public_repositories: \"no\"}\n")
    problems = build_graph({"runners": [inv2]}).problems
    assert [(p.place, p.reason) for p in problems] == [
        ("organizations[0].runner_groups[0].allows_public_repositories", "Input should be a valid boolean (line 5)")]
