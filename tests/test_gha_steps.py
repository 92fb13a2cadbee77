"""Step rules of ``ingest/github_actions/steps`` on fixture workflows: the exact nodes, edges and grants each adds.

Fixtures are real-shaped workflows in ``tests/fixtures/github-actions/steps/<rule name>/<case>.yml``, read as
``.github/workflows/<case>.yml`` of ``acme/app``.  For each one, :data:`EXPECTED` lists *everything* the step
rules add: the nodes (cloud roles, signing keys, non-environment targets, the Actions cache) with the fields
that matter, the edges whose evidence is a step, and the jobs' secret grants.  Sources and targets are written
``<job key>`` for a job and ``<job key>/oidc`` for its OIDC identity.

Cases marked ``gap`` assert the *right* answer for a known limitation and are expected to fail (strict): when a
fix lands they pass and the mark must go.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from graphkit.ingestor import IngestResult
from graphkit.model import DeploymentTarget, Job, NodeKind, ids
from ingest.github_actions import parse_workflow, to_graph
from ingest.github_actions.steps import ACTION_RULES, RULES, SCRIPT_RULES, action_name, rule_for

FIXTURES = Path(__file__).parent / "fixtures" / "github-actions" / "steps"
REPO = "acme/app"
#: Node kinds step rules add (environment targets are the builder's, not a rule's).
RULE_NODE_KINDS = {NodeKind.CLOUD_ROLE, NodeKind.SIGNING_KEY, NodeKind.DEPLOYMENT_TARGET, NodeKind.CACHE}

OIDC = (("trust", "unknown"), ("via", "oidc"))
CHAINED = (("via", "role chaining"),)
KEYS = (("via", "static credentials"),)
AMBIENT = (("via", "ambient runner credentials"),)
LOGIN = (("via", "registry login"),)
CACHE = "cache:actions:acme/app"


@dataclass(frozen=True)
class Expect:
    """What the step rules add for one fixture.

    ``nodes``: id -> fields that must hold (every rule-made node listed, no other);
    ``edges``: ``(source, kind, target, confidence, props)``; ``grants``: ``(job key, secret, edge kind, target)``.
    """

    nodes: dict[str, dict[str, Any]]
    edges: set[tuple[str, str, str, str, tuple[tuple[str, str], ...]]]
    grants: set[tuple[str, str, str, str]] = field(default_factory=set)
    gap: str | None = None


def _sigstore(case: str) -> str:
    return ids.signing_key("sigstore", f"github.com/{REPO}/.github/workflows/{case}")


EXPECTED: dict[str, Expect] = {
    # ------------------------------------------------------------------ run-registration
    "run-registration/autoscale.yml": Expect(
        nodes={}, edges=set(),
        grants={("org", "RUNNER_ADMIN_PAT", "can_register_runner", "org:acme"),  # github.repository_owner
                ("repo", "REPO_ADMIN_TOKEN", "can_register_runner", "repo:acme/app")}),  # listing runners: none
    # ------------------------------------------------------------------ cloud-auth
    "cloud-auth/aws.yml": Expect(
        nodes={
            "cloud_role:aws:arn:aws:iam::123456789012:role/deploy":
                {"provider": "aws", "pattern": False, "account": "123456789012", "trust": "unknown"},
            "cloud_role:aws:arn:aws:iam::*:role/deploy": {"provider": "aws", "pattern": True, "account": None},
            "cloud_role:aws:expr:acme/app:secrets.AWS_ROLE_ARN": {"pattern": True, "account": None},
            "cloud_role:aws:arn:aws:iam::123456789012:role/runner-deploy": {"pattern": False},
            "cloud_role:aws:key:acme/app:AWS_ACCESS_KEY_ID": {"provider": "aws", "pattern": False, "account": None},
        },
        edges={
            ("oidc/oidc", "assumes_role", "cloud_role:aws:arn:aws:iam::123456789012:role/deploy", "possible", OIDC),
            ("oidc/oidc", "assumes_role", "cloud_role:aws:arn:aws:iam::*:role/deploy", "possible", OIDC),
            ("oidc/oidc", "assumes_role", "cloud_role:aws:expr:acme/app:secrets.AWS_ROLE_ARN", "possible", OIDC),
            ("ambient", "assumes_role", "cloud_role:aws:arn:aws:iam::123456789012:role/runner-deploy", "possible",
             AMBIENT),
            ("static-keys", "assumes_role", "cloud_role:aws:key:acme/app:AWS_ACCESS_KEY_ID", "certain", KEYS),
        },
        grants={
            ("static-keys", "AWS_ACCESS_KEY_ID", "assumes_role", "cloud_role:aws:key:acme/app:AWS_ACCESS_KEY_ID"),
            ("static-keys", "AWS_SECRET_ACCESS_KEY", "assumes_role", "cloud_role:aws:key:acme/app:AWS_ACCESS_KEY_ID"),
        }),
    "cloud-auth/aws-chaining.yml": Expect(
        nodes={"cloud_role:aws:arn:aws:iam::123456789012:role/hub": {"account": "123456789012"},
               "cloud_role:aws:arn:aws:iam::210987654321:role/workload": {"account": "210987654321"},
               "cloud_role:aws:arn:aws:iam::210987654321:role/not-chained": {"account": "210987654321"}},
        edges={("chain/oidc", "assumes_role", "cloud_role:aws:arn:aws:iam::123456789012:role/hub", "possible", OIDC),
               ("chain", "assumes_role", "cloud_role:aws:arn:aws:iam::210987654321:role/workload", "possible",
                CHAINED),
               ("chain/oidc", "assumes_role", "cloud_role:aws:arn:aws:iam::210987654321:role/not-chained",
                "possible", OIDC)}),
    "cloud-auth/cognito.yml": Expect(
        nodes={"cloud_role:aws:arn:aws:iam::111111111111:role/chained": {"account": "111111111111"}},
        edges={("sync/oidc", "assumes_role", "cloud_role:aws:arn:aws:iam::111111111111:role/chained", "possible",
                OIDC)}),
    "cloud-auth/gcp.yml": Expect(
        nodes={"cloud_role:gcp:projects/123/locations/global/workloadIdentityPools/gh/providers/gh":
                   {"provider": "gcp", "pattern": False},
               "cloud_role:gcp:key:acme/app:GCP_SA_KEY": {"provider": "gcp"}},
        edges={("wif/oidc", "assumes_role",
                "cloud_role:gcp:projects/123/locations/global/workloadIdentityPools/gh/providers/gh", "possible", OIDC),
               ("key", "assumes_role", "cloud_role:gcp:key:acme/app:GCP_SA_KEY", "certain", KEYS)},
        grants={("key", "GCP_SA_KEY", "assumes_role", "cloud_role:gcp:key:acme/app:GCP_SA_KEY")}),
    "cloud-auth/azure.yml": Expect(
        nodes={"cloud_role:azure:expr:acme/app:vars.AZURE_CLIENT_ID": {"provider": "azure", "pattern": True},
               "cloud_role:azure:key:acme/app:AZURE_CREDENTIALS": {"provider": "azure", "pattern": False}},
        edges={("oidc/oidc", "assumes_role", "cloud_role:azure:expr:acme/app:vars.AZURE_CLIENT_ID", "possible", OIDC),
               ("creds", "assumes_role", "cloud_role:azure:key:acme/app:AZURE_CREDENTIALS", "certain", KEYS)},
        grants={("creds", "AZURE_CREDENTIALS", "assumes_role", "cloud_role:azure:key:acme/app:AZURE_CREDENTIALS")}),
    # ------------------------------------------------------------------ signing
    "gpg-import/import.yml": Expect(
        nodes={"signing_key:gpg:acme/app:GPG_PRIVATE_KEY": {"scheme": "gpg", "identifier": "acme/app:GPG_PRIVATE_KEY"}},
        edges={("sign", "signs_with", "signing_key:gpg:acme/app:GPG_PRIVATE_KEY", "certain", ())},
        grants={("sign", "GPG_PRIVATE_KEY", "signs_with", "signing_key:gpg:acme/app:GPG_PRIVATE_KEY")}),
    "keyless-attest/attest.yml": Expect(
        nodes={_sigstore("attest.yml"): {"scheme": "sigstore"}},
        edges={("attest", "signs_with", _sigstore("attest.yml"), "certain", ()),
               ("sign", "signs_with", _sigstore("attest.yml"), "possible", ())}),  # no id-token: write
    "run-signing/cosign.yml": Expect(
        nodes={_sigstore("cosign.yml"): {},
               "signing_key:cosign:acme/app:SIGNING_KEY": {"scheme": "cosign"},
               "signing_key:cosign:awskms:///alias/release-signing": {"identifier": "awskms:///alias/release-signing"},
               "signing_key:cosign:acme/app:cosign.key": {}},
        edges={("keyless", "signs_with", _sigstore("cosign.yml"), "certain", ()),
               ("keyless-no-oidc", "signs_with", _sigstore("cosign.yml"), "possible", ()),
               ("key-env", "signs_with", "signing_key:cosign:acme/app:SIGNING_KEY", "certain", ()),
               ("kms", "signs_with", "signing_key:cosign:awskms:///alias/release-signing", "certain", ()),
               ("key-file", "signs_with", "signing_key:cosign:acme/app:cosign.key", "certain", ())},
        grants={("key-env", "SIGNING_KEY", "signs_with", "signing_key:cosign:acme/app:SIGNING_KEY")}),
    "run-signing/gpg.yml": Expect(
        nodes={"signing_key:gpg:acme/app:RELEASE_GPG_KEY": {}, "signing_key:gpg:acme/app:PGP_KEY": {}},
        edges={("import", "signs_with", "signing_key:gpg:acme/app:RELEASE_GPG_KEY", "certain", ()),
               ("detach-sign", "signs_with", "signing_key:gpg:acme/app:PGP_KEY", "certain", ())},
        grants={("import", "RELEASE_GPG_KEY", "signs_with", "signing_key:gpg:acme/app:RELEASE_GPG_KEY"),
                ("detach-sign", "PGP_KEY", "signs_with", "signing_key:gpg:acme/app:PGP_KEY")}),
    "run-signing/key-expression.yml": Expect(
        nodes={"signing_key:cosign:acme/app:COSIGN_PRIVATE_KEY": {}},
        edges={("key-secret", "signs_with", "signing_key:cosign:acme/app:COSIGN_PRIVATE_KEY", "certain", ())},
        grants={("key-secret", "COSIGN_PRIVATE_KEY", "signs_with", "signing_key:cosign:acme/app:COSIGN_PRIVATE_KEY")}),
    # ------------------------------------------------------------------ publishing and deploying
    "pypi-publish/publish.yml": Expect(
        nodes={"target:package_index:pypi": {"target_type": "package_index", "identifier": "pypi"},
               "target:package_index:testpypi": {},
               "target:package_index:https://pypi.example.com/simple/": {},
               _sigstore("publish.yml"): {}},
        edges={("trusted", "publishes_to", "target:package_index:pypi", "certain", ()),
               ("trusted", "signs_with", _sigstore("publish.yml"), "certain", ()),  # PEP 740 attestations
               ("no-attestations", "publishes_to", "target:package_index:testpypi", "certain", ()),
               ("token", "publishes_to", "target:package_index:https://pypi.example.com/simple/", "certain", ())},
        grants={("token", "PYPI_API_TOKEN", "publishes_to", "target:package_index:https://pypi.example.com/simple/")}),
    "docker-login/login.yml": Expect(
        nodes={"target:registry:ghcr.io": {}, "target:registry:docker.io": {},
               "target:registry:*.azurecr.io": {"identifier": "*.azurecr.io"}},
        edges={("ghcr", "publishes_to", "target:registry:ghcr.io", "possible", LOGIN),  # env.REGISTRY resolved
               ("hub", "publishes_to", "target:registry:docker.io", "possible", LOGIN),
               ("dynamic", "publishes_to", "target:registry:*.azurecr.io", "possible", LOGIN)},
        grants={("hub", "DOCKERHUB_TOKEN", "publishes_to", "target:registry:docker.io"),  # GITHUB_TOKEN is no secret
                ("dynamic", "ACR_PASSWORD", "publishes_to", "target:registry:*.azurecr.io")}),
    "build-push/build-push.yml": Expect(
        nodes={CACHE: {}, "target:registry:ghcr.io": {}, "target:registry:docker.io": {},
               "target:registry:registry.example.com": {}},
        edges={("tagged", "writes_cache", CACHE, "certain", ()),
               (CACHE, "restores_into", "tagged", "certain", ()),
               ("tagged", "publishes_to", "target:registry:ghcr.io", "certain", ()),
               ("tagged", "publishes_to", "target:registry:docker.io", "certain", ()),  # `acme/app:latest`
               # the login's possible edge; the tag-less push adds its evidence
               ("untagged", "publishes_to", "target:registry:registry.example.com", "possible", LOGIN),
               (CACHE, "restores_into", "no-push", "certain", ())},
        grants={("untagged", "REGISTRY_PASSWORD", "publishes_to", "target:registry:registry.example.com")}),
    "s3-upload/upload.yml": Expect(
        nodes={"target:bucket:s3://gha-artifacts": {"target_type": "bucket"}, "target:bucket:s3://*-nightly": {}},
        edges={("upload", "publishes_to", "target:bucket:s3://gha-artifacts", "certain", ()),
               ("upload", "publishes_to", "target:bucket:s3://*-nightly", "certain", ())}),
    "gcs-upload/upload.yml": Expect(
        nodes={"target:bucket:gs://acme-docs": {}, "target:bucket:gs://acme-reports": {}},
        edges={("site", "publishes_to", "target:bucket:gs://acme-docs", "certain", ()),
               ("site", "publishes_to", "target:bucket:gs://acme-reports", "certain", ())}),
    "run-publish/packages.yml": Expect(
        nodes={"target:package_index:pypi": {}, "target:package_index:testpypi": {},
               "target:package_index:https://pypi.example.com/legacy/": {}, "target:package_index:npm": {},
               "target:package_index:https://npm.pkg.github.com": {}},
        edges={("python", "publishes_to", "target:package_index:pypi", "certain", ()),
               ("python", "publishes_to", "target:package_index:testpypi", "certain", ()),
               ("python", "publishes_to", "target:package_index:https://pypi.example.com/legacy/", "certain", ()),
               ("node", "publishes_to", "target:package_index:npm", "certain", ()),  # npm and yarn; not `npm run`
               ("node", "publishes_to", "target:package_index:https://npm.pkg.github.com", "certain", ())}),
    "run-publish/deploy.yml": Expect(
        nodes={"target:registry:registry.example.com:5000": {}, "target:cluster:acme/app:prod-eu": {},
               "target:cluster:acme/app:staging": {}, "target:cluster:acme/app:default": {},
               "target:bucket:s3://acme-site": {}, "target:bucket:gs://acme-reports": {}, "target:bucket:gs://*": {},
               "target:function:acme-api": {"target_type": "function"}},
        edges={("deploy", "publishes_to", "target:registry:registry.example.com:5000", "certain", ()),
               ("deploy", "deploys_to", "target:cluster:acme/app:prod-eu", "certain", ()),
               ("deploy", "deploys_to", "target:cluster:acme/app:staging", "certain", ()),
               ("deploy", "deploys_to", "target:cluster:acme/app:default", "certain", ()),  # rollout restart
               ("deploy", "publishes_to", "target:bucket:s3://acme-site", "certain", ()),  # not the s3 download
               ("deploy", "publishes_to", "target:bucket:gs://acme-reports", "certain", ()),
               ("deploy", "publishes_to", "target:bucket:gs://*", "certain", ()),
               ("deploy", "deploys_to", "target:function:acme-api", "certain", ())}),
    "run-publish/option-order.yml": Expect(
        nodes={"target:cluster:acme/app:prod-eu": {}, "target:cluster:acme/app:*": {}},
        edges={("deploy", "deploys_to", "target:cluster:acme/app:prod-eu", "certain", ()),
               ("deploy", "deploys_to", "target:cluster:acme/app:*", "certain", ())}),
    # ------------------------------------------------------------------ caches
    "actions-cache/cache.yml": Expect(
        nodes={CACHE: {"cache_type": "actions", "scope": "acme/app"}},
        edges={("both", "writes_cache", CACHE, "certain", ()), (CACHE, "restores_into", "both", "certain", ()),
               ("save", "writes_cache", CACHE, "certain", ()), (CACHE, "restores_into", "restore", "certain", ())}),
    "rust-cache/rust.yml": Expect(
        nodes={CACHE: {}},
        edges={("test", "writes_cache", CACHE, "certain", ()), (CACHE, "restores_into", "test", "certain", ())}),
    "setup-cache/setup.yml": Expect(
        nodes={CACHE: {}},
        # setup-node without a cache flag, `cache: false` and setup-uv without enable-cache add nothing
        edges={("python", "writes_cache", CACHE, "certain", ()), (CACHE, "restores_into", "python", "certain", ()),
               ("uv", "writes_cache", CACHE, "certain", ()), (CACHE, "restores_into", "uv", "certain", ()),
               ("ruby", "writes_cache", CACHE, "certain", ()), (CACHE, "restores_into", "ruby", "certain", ())}),
}


# ----------------------------------------------------------------------------- helpers


def build(case: str) -> IngestResult:
    """The fixture ``case`` (``<rule>/<file>``) as ``acme/app``'s ``.github/workflows/<file>``."""
    path = FIXTURES / case
    wf = parse_workflow(path.read_text(), file=f".github/workflows/{path.name}", repository=REPO)
    return to_graph([wf])


def short(node_id: str) -> str:
    """``<job key>`` for a job, ``<job key>/oidc`` for its OIDC identity, else the id."""
    parsed = ids.parse(node_id)
    if parsed.kind is NodeKind.JOB:
        return parsed.parts["key"]
    if parsed.kind is NodeKind.OIDC_IDENTITY:
        return short(parsed.parts["job"]) + "/oidc"
    return node_id


def rule_nodes(res: IngestResult) -> dict[str, Any]:
    return {n.id: n for n in res.nodes if n.spec.kind in RULE_NODE_KINDS
            and not (isinstance(n, DeploymentTarget) and n.target_type == "environment")}


def rule_edges(res: IngestResult) -> set[tuple]:
    """Edges made at a step (their evidence is under ``steps[...]``)."""
    return {(short(e.source), e.kind.value, short(e.target), e.confidence.value, tuple(sorted(e.props.items())))
            for e in res.edges if any(".steps[" in (ev.yaml_path or "") for ev in e.evidence)}


def grants(res: IngestResult) -> set[tuple[str, str, str, str]]:
    return {(n.job_key, g.name, g.edge_kind.value, g.target) for n in res.nodes if isinstance(n, Job)
            for g in n.secret_grants}


def fixture_cases() -> list[str]:
    return sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.yml"))


def _param(case: str):
    gap = EXPECTED[case].gap if case in EXPECTED else None
    return pytest.param(case, id=case, marks=[pytest.mark.xfail(reason=gap, strict=True)] if gap else [])


# ----------------------------------------------------------------------------- the fixtures


@pytest.mark.parametrize("case", [_param(c) for c in fixture_cases()])
def test_step_rule_fixture(case: str):
    expect = EXPECTED[case]
    res = build(case)
    assert res.problems == []
    nodes = rule_nodes(res)
    assert set(nodes) == set(expect.nodes)
    for node_id, fields in expect.nodes.items():
        assert {k: getattr(nodes[node_id], k) for k in fields} == fields, node_id
    assert rule_edges(res) == expect.edges
    assert grants(res) == expect.grants


@pytest.mark.parametrize("case", fixture_cases())
def test_rules_do_not_guess_production(case: str):
    """Targets are classified once, by ``graphkit.targets``: a step rule states no production or criticality."""
    for node in build(case).nodes:
        if isinstance(node, DeploymentTarget):
            assert node.production is None and node.criticality is DeploymentTarget.spec.default_criticality


def _rules_selected(case: str) -> set[str]:
    wf = parse_workflow((FIXTURES / case).read_text(), file=".github/workflows/x.yml", repository=REPO)
    selected: set[str] = set()
    for jd in wf.jobs.values():
        for step in jd.steps:
            if step.run:
                selected |= {r.name for r in SCRIPT_RULES}
            rule = rule_for(action_name(step.uses)) if step.uses else None
            if rule is not None:
                selected.add(rule.name)
    return selected


def test_every_rule_has_fixtures_and_every_fixture_an_expectation():
    cases = fixture_cases()
    assert set(cases) == set(EXPECTED), "a fixture without expectation, or an expectation without fixture"
    folders = {c.split("/", 1)[0] for c in cases}
    assert folders == {r.name for r in RULES}, "one fixture folder per registered step rule"
    for rule in RULES:
        own = [c for c in cases if c.startswith(rule.name + "/") and not EXPECTED[c].gap]
        assert own, f"step rule {rule.name} has no passing fixture"
        assert all(rule.name in _rules_selected(c) for c in own), f"a {rule.name} fixture never selects it"


def test_registry_dispatch():
    names = [r.name for r in RULES]
    assert len(set(names)) == len(names), "rule names are unique"
    assert len(ACTION_RULES) == sum(len(r.actions) for r in RULES), "each action is handled by one rule"
    assert all(r.actions or r.prefixes or r.scripts for r in RULES), "every rule says what it handles"
    assert rule_for("aws-actions/configure-aws-credentials").name == "cloud-auth"
    assert rule_for("azure/login").name == "cloud-auth"
    assert rule_for("actions/setup-go").name == "setup-cache"  # by prefix
    assert rule_for("actions/cache/restore").name == "actions-cache"
    assert rule_for("actions/checkout") is None and rule_for("actions/upload-artifact") is None
    assert [r.name for r in SCRIPT_RULES] == ["run-signing", "run-publish", "run-registration"]


# ----------------------------------------------------------------------------- the contract


def test_an_id_a_rule_cannot_build_is_a_problem_and_the_step_adds_nothing():
    """A blank registry cannot be a target id: the login step is reported and leaves no edge, target, grant or
    registry for the later push; the other steps still count."""
    text = """
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: docker/login-action@v3
        with: {registry: " ", password: "${{ secrets.REGISTRY_PASSWORD }}"}
      - uses: docker/build-push-action@v6
        with: {push: true}
      - uses: aws-actions/configure-aws-credentials@v4
        with: {role-to-assume: "arn:aws:iam::123456789012:role/ci"}
"""
    res = to_graph([parse_workflow(text, file=".github/workflows/ci.yml", repository=REPO)])
    assert [(p.file, p.place) for p in res.problems] == [(f"{REPO}:.github/workflows/ci.yml", "jobs.build.steps[0]")]
    assert "step not analysed" in res.problems[0].reason
    assert set(rule_nodes(res)) == {"cloud_role:aws:arn:aws:iam::123456789012:role/ci"}
    assert rule_edges(res) == {("build", "assumes_role", "cloud_role:aws:arn:aws:iam::123456789012:role/ci",
                                "possible", AMBIENT)}
    assert grants(res) == set()
