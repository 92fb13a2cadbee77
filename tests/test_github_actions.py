"""Tests of ``ingest/github_actions/``: inline YAML cases, then the real corpus.

Step rules are tested one by one on fixture files in ``test_gha_steps.py``.

The corpus lives outside the repository (``../shared/corpus/github-actions``);
numbers asserted on it were checked by hand against the files.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphkit.errors import InputError
from graphkit.graph import Graph
from graphkit.meta import Problem
from graphkit.model import (Confidence, Criticality, EdgeKind, Job, NodeKind, OIDCIdentity, Workflow, ids)
from graphkit.targets import classify_targets
from ingest import github_actions as gha
from ingest.github_actions import (INGESTOR, PERMISSION_SCOPES, EvalContext, evaluate, expand_matrix, find_checkouts,
                                   parse_action, parse_workflow, scan_secrets, to_graph)

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "github-actions"
NONE = dict.fromkeys(PERMISSION_SCOPES, "none")


# ----------------------------------------------------------------------------- helpers


def graph_of(*files: tuple[str, str, str], **kw) -> Graph:
    """Build a graph from ``(repository, path, text)`` triples (workflows or action.yml), targets classified as
    the build classifies them (:func:`graphkit.targets.classify_targets`)."""
    parsed = [(parse_action if p.endswith(("action.yml", "action.yaml")) else parse_workflow)(t, file=p, repository=r)
              for r, p, t in files]
    res = to_graph(parsed, **kw)
    g = Graph()
    g.update(res.nodes, res.edges)
    classify_targets(g)
    g.meta.problems = [Problem(**p.as_dict()) for p in res.problems]
    return g


def wf(text: str, path: str = ".github/workflows/ci.yml", repo: str = "acme/app", *more, **kw) -> Graph:
    return graph_of((repo, path, text), *more, **kw)


def job(g: Graph, jid: str) -> Job:
    node = g.node(jid)
    assert isinstance(node, Job)
    return node


def out(g: Graph, source: str, kind: EdgeKind) -> dict[str, Confidence]:
    return {e.target: e.confidence for e in g.out_edges(source) if e.kind is kind}


def labels(j: Job) -> set[tuple[str, ...]]:
    return {c.labels for c in j.runs_on}


def ci(key: str) -> str:
    """The id of job ``key`` of ``acme/app``'s ``.github/workflows/ci.yml``."""
    return ids.job("acme/app", ".github/workflows/ci.yml", key)


def lib(key: str, caller: str) -> str:
    """The id of job ``key`` of ``acme/app``'s ``.github/workflows/lib.yml`` called by job ``caller``."""
    return ids.job("acme/app", ".github/workflows/lib.yml", key, caller=caller)


# ----------------------------------------------------------------------------- parse


def test_on_key_is_yaml11_boolean_and_all_trigger_forms():
    for text, expected in [
        ("on: push", {"push": {}}),
        ("on: [push, pull_request]", {"push": {}, "pull_request": {}}),
        ("on:\n  push:\n    branches: [main]\n    paths: ['src/**']\n  workflow_dispatch:\n",
         {"push": {"branches": ["main"], "paths": ["src/**"]}, "workflow_dispatch": {}}),
    ]:
        parsed = parse_workflow(text + "\njobs: {a: {runs-on: x}}\n", file="w.yml", repository="acme/app")
        assert parsed.triggers == expected


def test_lines_follow_yaml_paths():
    text = "on: push\njobs:\n  build:\n    runs-on: linux\n    steps:\n      - run: echo\n      - uses: a/b@v1\n"
    g = wf(text)
    j = job(g, ci("build"))
    assert j.runs_on[0].evidence.line == 4
    assert j.runs_on[0].evidence.yaml_path == "jobs.build.runs-on"
    assert parse_workflow(text, file="w.yml", repository="a/b").lines["jobs.build.steps[1]"] == 7


@pytest.mark.parametrize("text,place,reason", [
    ("on: push\njobs: [a, b]\n", "jobs", "expected a mapping"),
    # a malformed job/steps no longer rejects the file: see tests/test_ingest_robustness.py
    ("on: push\nenv: [a]\njobs:\n  a: {runs-on: x}\n", "env", "expected a mapping, got sequence (line 2)"),
    ("on: push\njobs:\n  a:\n    runs-on: x\n  b: [\n", "line 5", "invalid YAML"),
    ("jobs: {a: {runs-on: x}}\n", "on", "no triggers"),
    ("on: push\npermissions: {contents: admin}\njobs: {a: {runs-on: x}}\n", "permissions.contents", "invalid"),
])
def test_malformed_workflow_raises_input_error_with_place(text, place, reason):
    with pytest.raises(InputError) as info:
        parse_workflow(text, file=".github/workflows/bad.yml", repository="acme/app")
    assert info.value.file == ".github/workflows/bad.yml"
    assert info.value.place == place
    assert reason in info.value.reason


# ----------------------------------------------------------------------------- runs-on and matrix


def test_matrix_include_exclude_runs_on():
    g = wf("""
on: push
jobs:
  t:
    strategy:
      matrix:
        os: [linux-a, linux-b]
        include: [{os: linux-c}]
        exclude: [{os: linux-b}]
    runs-on: ${{ matrix.os }}
""")
    j = job(g, ci("t"))
    assert labels(j) == {("linux-a",), ("linux-c",)}
    assert j.runs_on_unresolved is None
    assert {c.matrix["os"] for c in j.runs_on} == {"linux-a", "linux-c"}


def test_matrix_include_extends_matching_combinations_github_rules():
    # GitHub docs example: include adds keys to combinations whose original values it does not overwrite
    combos = expand_matrix({"fruit": ["apple", "pear"], "animal": ["cat", "dog"],
                            "include": [{"color": "green"}, {"color": "pink", "animal": "cat"},
                                        {"fruit": "apple", "shape": "circle"}, {"fruit": "banana"},
                                        {"fruit": "banana", "animal": "cat"}]})
    assert combos == [
        {"fruit": "apple", "animal": "cat", "color": "pink", "shape": "circle"},
        {"fruit": "apple", "animal": "dog", "color": "green", "shape": "circle"},
        {"fruit": "pear", "animal": "cat", "color": "pink"},
        {"fruit": "pear", "animal": "dog", "color": "green"},
        {"fruit": "banana"},
        {"fruit": "banana", "animal": "cat"},
    ]
    assert expand_matrix("${{ fromJSON(needs.a.outputs.m) }}") is None


def test_runs_on_forms():
    g = wf("""
on: push
jobs:
  lst: {runs-on: [self-hosted, linux, x64]}
  grp: {runs-on: {group: big, labels: gpu}}
  grp2: {runs-on: {group: big, labels: [linux, gpu]}}
  nested:
    strategy: {matrix: {cfg: [{runner: {labels: [a, b]}}]}}
    runs-on: ${{ matrix.cfg.runner.labels }}
  cond: {runs-on: "${{ github.ref == 'refs/heads/main' && 'linux.big' || 'linux.small' }}"}
  dyn:
    strategy: {matrix: "${{ fromJSON(needs.gen.outputs.matrix) }}"}
    runs-on: ${{ matrix.runner }}
  expr: {runs-on: "${{ needs.pick.outputs.runner }}"}
""")
    assert labels(job(g, ci("lst"))) == {("self-hosted", "linux", "x64")}
    grp = job(g, ci("grp")).runs_on[0]
    assert (grp.group, grp.labels) == ("big", ("gpu",))
    assert job(g, ci("grp2")).runs_on[0].labels == ("linux", "gpu")
    assert labels(job(g, ci("nested"))) == {("a", "b")}
    cond = job(g, ci("cond"))
    assert labels(cond) == {("linux.big",), ("linux.small",)}
    assert {c.confidence for c in cond.runs_on} == {Confidence.POSSIBLE}
    for key in ("dyn", "expr"):
        j = job(g, ci(key))
        assert j.runs_on == [] and j.runs_on_unresolved is not None
        assert j.runs_on_unresolved.yaml_path == f"jobs.{key}.runs-on"


def test_evaluate_subset():
    ctx = EvalContext(inputs={"policy": [gha.Val("", True)]})
    assert evaluate("(inputs.policy != '' && inputs.policy) || 'nightly'", ctx) == [gha.Val("nightly", True)]
    assert evaluate("inputs.unknown || 'x'", EvalContext(inputs={})) is None
    assert evaluate("fromJSON('[\"a\", \"b\"]')", EvalContext()) == [gha.Val(["a", "b"], True)]


# ----------------------------------------------------------------------------- permissions and token


def test_permissions_job_replaces_workflow():
    g = wf("""
on: push
permissions: write-all
jobs:
  narrow: {runs-on: x, permissions: {contents: read}}
  wide: {runs-on: x}
  empty: {runs-on: x, permissions: {}}
  reader: {runs-on: x, permissions: read-all}
""")
    narrow = job(g, ci("narrow"))
    assert narrow.permissions == {**NONE, "contents": "read"}
    assert narrow.permissions["id-token"] == "none" and narrow.permissions_source == "job"
    assert ids.oidc_identity(narrow.id) not in g
    wide = job(g, ci("wide"))
    assert wide.permissions_source == "workflow" and wide.permissions["id-token"] == "write"
    assert wide.permissions["models"] == "read"  # models has no write level
    assert job(g, ci("empty")).permissions == NONE
    reader = job(g, ci("reader")).permissions  # id-token has no read level (write|none): read-all leaves it none
    assert reader["id-token"] == "none" and {v for s, v in reader.items() if s != "id-token"} == {"read"}
    assert out(g, ids.github_token(narrow.id), EdgeKind.WRITES_REPOSITORY) == {}
    edge = next(e for e in g.out_edges(ids.github_token(wide.id)) if e.kind is EdgeKind.WRITES_REPOSITORY)
    assert edge.target == "repo:acme/app" and "contents" in edge.props["scopes"]
    assert "id-token" not in edge.props["scopes"]


def test_no_permissions_block_is_default_and_possible_write():
    g = wf("on: push\njobs:\n  a: {runs-on: x}\n")
    a = job(g, ci("a"))
    assert a.permissions == {} and a.permissions_source == "default"
    token = g.node("github_token:acme/app/.github/workflows/ci.yml#a")
    assert token.permissions_source == "default"
    assert out(g, a.id, EdgeKind.HAS_TOKEN) == {token.id: Confidence.CERTAIN}
    assert out(g, token.id, EdgeKind.WRITES_REPOSITORY) == {"repo:acme/app": Confidence.POSSIBLE}
    assert out(g, a.id, EdgeKind.MINTS_OIDC) == {}  # id-token is never default


# ----------------------------------------------------------------------------- environment, secrets, OIDC


def test_environment_mapping_is_critical_production_target():
    g = wf("""
on: {push: {branches: [main]}}
jobs:
  deploy:
    runs-on: x
    permissions: {id-token: write}
    environment: {name: production, url: https://example.com}
  maybe:
    runs-on: x
    environment: ${{ github.ref == 'refs/heads/main' && 'staging' || '' }}
""")
    d = job(g, ci("deploy"))
    assert d.environment == "production"
    target = g.node("target:environment:acme/app:production")
    assert target.production is True and target.criticality is Criticality.CRITICAL
    assert out(g, d.id, EdgeKind.DEPLOYS_TO) == {target.id: Confidence.CERTAIN}
    oidc = g.node("oidc:acme/app/.github/workflows/ci.yml#deploy")
    assert isinstance(oidc, OIDCIdentity) and oidc.subjects == ["repo:acme/app:environment:production"]
    assert out(g, d.id, EdgeKind.MINTS_OIDC) == {oidc.id: Confidence.CERTAIN}
    m = job(g, ci("maybe"))
    assert m.environment == "staging"
    assert out(g, m.id, EdgeKind.DEPLOYS_TO) == {"target:environment:acme/app:staging": Confidence.POSSIBLE}
    assert g.node("target:environment:acme/app:staging").production is False


def test_secret_reference_forms():
    g = wf("""
on: push
env: {TOP: "${{ secrets.WORKFLOW_LEVEL }}"}
jobs:
  a:
    runs-on: x
    if: secrets.IN_IF != ''
    env: {J: "${{ secrets['BRACKET'] }}"}
    steps:
      - run: echo ${{ secrets["DOUBLE"] }} ${{ secrets.GITHUB_TOKEN }} ${{ github.token }}
        with: {x: "${{ secrets.IN_WITH }}"}
  b:
    runs-on: x
    steps: [{run: 'echo "${{ toJSON(secrets) }}"'}]
  c:
    runs-on: x
    strategy: {matrix: {n: [A]}}
    steps: [{env: {V: "${{ secrets[matrix.n] }}"}, run: echo}]
""")
    a = job(g, ci("a"))
    assert {r.name for r in a.secret_refs} == {"WORKFLOW_LEVEL", "IN_IF", "BRACKET", "DOUBLE", "IN_WITH"}
    assert a.all_secrets is None
    assert next(r for r in a.secret_refs if r.name == "BRACKET").evidence.yaml_path == "jobs.a.env.J"
    b = job(g, ci("b"))
    assert b.all_secrets.yaml_path == "jobs.b.steps[0].run" and b.all_secrets.line == 14
    assert b.all_secrets.detail == "${{ toJSON(secrets) }}"
    assert job(g, ci("c")).all_secrets is not None
    assert scan_secrets("secrets.x") == (["x"], False)


# ----------------------------------------------------------------------------- reusable workflows


CALLEE = """
on:
  workflow_call:
    inputs:
      runner: {type: string, default: default-runner}
    secrets:
      TOKEN: {required: true}
permissions: {contents: read, id-token: write}
jobs:
  build:
    runs-on: ${{ inputs.runner }}
    steps:
      - run: echo ${{ secrets.TOKEN }} ${{ secrets.NOT_PASSED }}
  dump:
    runs-on: fixed
    steps: [{run: 'echo ${{ toJSON(secrets) }}'}]
"""


def test_reusable_workflow_instances_map_inputs_secrets_and_permissions():
    caller = """
on: push
permissions: {contents: read, id-token: write}
jobs:
  explicit:
    uses: ./.github/workflows/lib.yml
    with: {runner: big-runner}
    secrets: {TOKEN: "${{ secrets.DEPLOY_TOKEN }}"}
  inherit:
    uses: acme/app/.github/workflows/lib.yml@main
    secrets: inherit
"""
    g = graph_of(("acme/app", ".github/workflows/lib.yml", CALLEE), ("acme/app", ".github/workflows/ci.yml", caller))
    ex = job(g, lib("build", ci("explicit")))
    assert ex.caller == ci("explicit") and ex.secrets_repository == "acme/app"
    assert labels(ex) == {("big-runner",)}
    assert [r.name for r in ex.secret_refs] == ["DEPLOY_TOKEN"]  # NOT_PASSED is empty in the callee
    assert ex.permissions["contents"] == "read" and ex.permissions["id-token"] == "write"  # capped by caller
    dump = job(g, lib("dump", ci("explicit")))
    assert [r.name for r in dump.secret_refs] == ["DEPLOY_TOKEN"] and dump.all_secrets is None
    inh = job(g, lib("build", ci("inherit")))
    assert labels(inh) == {("default-runner",)}
    assert {r.name for r in inh.secret_refs} == {"TOKEN", "NOT_PASSED"}
    assert job(g, lib("dump", ci("inherit"))).all_secrets is not None
    assert out(g, ci("explicit"), EdgeKind.CALLS_WORKFLOW) == {
        "workflow:acme/app/.github/workflows/lib.yml": Confidence.CERTAIN}
    oidc = g.node("oidc:acme/app/.github/workflows/ci.yml#explicit>acme/app/.github/workflows/lib.yml#build")
    assert oidc.job_workflow_ref == "acme/app/.github/workflows/lib.yml@*"
    assert oidc.subjects == ["repo:acme/app:ref:refs/heads/*"]  # sub describes the caller
    # callers outside the ingested files may exist (issue 10): one more instance for an unknown caller, possible
    unknown = job(g, "job:acme/app/.github/workflows/lib.yml#build")
    assert unknown.caller is None and {c.confidence for c in unknown.runs_on} == {Confidence.POSSIBLE}


def test_uncalled_reusable_workflow_is_instantiated_for_an_unknown_caller():
    g = wf(CALLEE, ".github/workflows/lib.yml")
    j = job(g, "job:acme/app/.github/workflows/lib.yml#build")
    assert labels(j) == {("default-runner",)} and j.runs_on[0].confidence is Confidence.POSSIBLE
    assert j.runs_on_unresolved is not None  # any runner the caller names


def test_unresolvable_callee_is_inferred_and_cycles_are_guarded():
    g = wf("""
on: push
jobs:
  ext: {uses: other/lib/.github/workflows/x.yml@v1, secrets: inherit}
""")
    callee = g.node("workflow:other/lib/.github/workflows/x.yml")
    assert isinstance(callee, Workflow) and callee.inferred
    ext = job(g, ci("ext"))
    assert ext.runs_on_unresolved is not None and ext.all_secrets is not None
    loop = "on: [push, workflow_call]\njobs:\n  again: {uses: ./.github/workflows/ci.yml}\n"
    g = wf(loop)
    assert [p.place for p in g.meta.problems] == ["jobs.again.uses"]


def test_nesting_depth_limit_is_data():
    files = [("acme/app", f".github/workflows/w{i}.yml",
              f"on: {'push' if i == 0 else 'workflow_call'}\njobs:\n  j: {{uses: ./.github/workflows/w{i + 1}.yml}}\n")
             for i in range(3)]
    files.append(("acme/app", ".github/workflows/w3.yml", "on: workflow_call\njobs:\n  leaf: {runs-on: x}\n"))
    under_w0 = "job:acme/app/.github/workflows/w0.yml#j>"
    deep = graph_of(*files)
    assert sum(1 for j in deep.nodes(NodeKind.JOB) if j.job_key == "leaf" and j.id.startswith(under_w0)) == 1
    shallow = graph_of(*files, max_levels=2)
    assert not any(j.job_key == "leaf" and j.id.startswith(under_w0) for j in shallow.nodes(NodeKind.JOB))
    # w0 > w1 > w2 and the unknown-caller instance w1 > w2 > w3 go too deep (reported where the deeper call is);
    # w2 > w3 does not
    assert sorted(p.file for p in shallow.meta.problems) == ["acme/app:.github/workflows/w1.yml",
                                                             "acme/app:.github/workflows/w2.yml"]


# ----------------------------------------------------------------------------- ids built from input


def test_values_no_id_can_hold_are_problems_and_the_rest_is_kept():
    g = wf("""
on: push
jobs:
  "a#b": {runs-on: x}
  ok:
    runs-on: x
    environment: " "
  call: {uses: octo/lib@v1, secrets: inherit}
""")
    assert {(p.place, p.reason.rsplit("; ", 1)[-1]) for p in g.meta.problems} == {
        ("jobs.a#b", "job skipped (line 4)"), ("jobs.ok.environment", "environment skipped"),
        ("jobs.call.uses", "call not followed")}
    assert {j.job_key for j in g.nodes(NodeKind.JOB)} == {"ok", "call"}
    assert out(g, ci("ok"), EdgeKind.DEPLOYS_TO) == {}
    call = job(g, ci("call"))  # unknown is not empty: the callee runs somewhere, with every secret
    assert call.runs_on_unresolved is not None and call.all_secrets is not None
    assert out(g, call.id, EdgeKind.CALLS_WORKFLOW) == {}
    res = to_graph([parse_workflow("on: push\njobs: {a: {runs-on: x}}\n", file="w.yml", repository="no-owner")],
                   repositories=["no-owner"])
    assert [(p.file, p.place) for p in res.problems] == [("no-owner", ""), ("no-owner:w.yml", "")]
    assert res.nodes == []


def test_environment_target_identifier_is_the_normalised_name():
    g = wf("on: push\njobs:\n  d: {runs-on: x, environment: Production}\n")
    t = g.node("target:environment:acme/app:production")
    assert (t.name, t.identifier, t.production) == ("acme/app:Production", "acme/app:production", True)
    assert job(g, ci("d")).environment == "Production"


# ----------------------------------------------------------------------------- step rules


def test_cloud_auth_roles():
    g = wf("""
on: push
jobs:
  oidc:
    runs-on: x
    permissions: {id-token: write}
    steps:
      - uses: aws-actions/configure-aws-credentials@v4
        with: {role-to-assume: "arn:aws:iam::${{ vars.ACCOUNT }}:role/deploy"}
      - uses: aws-actions/configure-aws-credentials@v4
        with: {role-to-assume: "${{ secrets.AWS_ROLE }}"}
      - uses: google-github-actions/auth@v2
        with: {workload_identity_provider: projects/1/providers/p, service_account: sa@p.iam.gserviceaccount.com}
      - uses: azure/login@v2
        with: {client-id: 0000-1111}
  keys:
    runs-on: x
    steps:
      - uses: aws-actions/configure-aws-credentials@v4
        with:
          role-to-assume: arn:aws:iam::123456789012:role/ci
          aws-access-key-id: ${{ secrets.AWS_KEY_ID }}
          aws-secret-access-key: ${{ secrets.AWS_SECRET }}
""")
    oidc = "oidc:acme/app/.github/workflows/ci.yml#oidc"
    roles = out(g, oidc, EdgeKind.ASSUMES_ROLE)
    assert roles == {"cloud_role:aws:arn:aws:iam::*:role/deploy": Confidence.POSSIBLE,
                     "cloud_role:aws:expr:acme/app:secrets.AWS_ROLE": Confidence.POSSIBLE,
                     "cloud_role:gcp:sa@p.iam.gserviceaccount.com": Confidence.POSSIBLE,
                     "cloud_role:azure:0000-1111": Confidence.POSSIBLE}
    pattern = g.node("cloud_role:aws:arn:aws:iam::*:role/deploy")
    assert pattern.pattern and pattern.trust == "unknown"
    keys = job(g, ci("keys"))
    role = "cloud_role:aws:arn:aws:iam::123456789012:role/ci"
    assert out(g, keys.id, EdgeKind.ASSUMES_ROLE) == {role: Confidence.CERTAIN}
    assert g.node(role).account == "123456789012"
    assert {(s.name, s.edge_kind, s.target) for s in keys.secret_grants} == {
        ("AWS_KEY_ID", EdgeKind.ASSUMES_ROLE, role), ("AWS_SECRET", EdgeKind.ASSUMES_ROLE, role)}


def test_signing_publishing_and_caches():
    g = wf("""
on: push
jobs:
  rel:
    runs-on: x
    permissions: {id-token: write, contents: read}
    environment: pypi
    steps:
      - uses: sigstore/cosign-installer@v3
      - run: cosign sign --yes ghcr.io/acme/app@sha256:abc
      - env: {COSIGN_PRIVATE_KEY: "${{ secrets.COSIGN_KEY }}"}
        run: cosign sign --key env://COSIGN_PRIVATE_KEY ghcr.io/acme/app
      - uses: crazy-max/ghaction-import-gpg@v6
        with: {gpg_private_key: "${{ secrets.GPG_KEY }}"}
      - uses: pypa/gh-action-pypi-publish@release/v1
        with: {password: "${{ secrets.PYPI_TOKEN }}"}
      - run: |
          docker push ghcr.io/acme/app:1
          aws s3 sync ./site s3://acme-docs/latest --delete
          npm publish
      - uses: actions/cache@v4
        with: {path: ~/.cache, key: k}
      - uses: actions/setup-python@v5
        with: {python-version: '3.12', cache: pip}
  restore:
    runs-on: x
    steps: [{uses: actions/cache/restore@v4, with: {path: p, key: k}}]
""")
    rel = job(g, ci("rel"))
    keys = out(g, rel.id, EdgeKind.SIGNS_WITH)
    assert keys == {"signing_key:sigstore:github.com/acme/app/.github/workflows/ci.yml": Confidence.CERTAIN,
                    "signing_key:cosign:acme/app:COSIGN_KEY": Confidence.CERTAIN,
                    "signing_key:gpg:acme/app:GPG_KEY": Confidence.CERTAIN}
    assert all(g.node(k).criticality is Criticality.CRITICAL for k in keys)
    assert set(out(g, rel.id, EdgeKind.PUBLISHES_TO)) == {
        "target:package_index:pypi", "target:registry:ghcr.io", "target:bucket:s3://acme-docs",
        "target:package_index:npm"}
    assert g.node("target:package_index:pypi").criticality is Criticality.CRITICAL
    assert g.node("target:environment:acme/app:pypi").production is True
    assert {(s.name, s.edge_kind) for s in rel.secret_grants} == {
        ("COSIGN_KEY", EdgeKind.SIGNS_WITH), ("GPG_KEY", EdgeKind.SIGNS_WITH), ("PYPI_TOKEN", EdgeKind.PUBLISHES_TO)}
    cache = "cache:actions:acme/app"
    assert out(g, rel.id, EdgeKind.WRITES_CACHE) == {cache: Confidence.CERTAIN}
    assert out(g, cache, EdgeKind.RESTORES_INTO) == {rel.id: Confidence.CERTAIN, ci("restore"): Confidence.CERTAIN}
    assert out(g, ci("restore"), EdgeKind.WRITES_CACHE) == {}


def test_composite_action_sees_secrets_through_inputs():
    action = """
name: publish
inputs:
  token: {required: true}
runs:
  using: composite
  steps:
    - uses: pypa/gh-action-pypi-publish@release/v1
      with: {password: "${{ inputs.token }}", repository-url: https://test.pypi.org/legacy/}
"""
    caller = """
on: push
jobs:
  pub:
    runs-on: x
    steps:
      - uses: actions/checkout@v4
      - uses: ./actions/pub
        with: {token: "${{ secrets.TEST_PYPI }}"}
"""
    g = graph_of(("acme/app", "actions/pub/action.yml", action), ("acme/app", ".github/workflows/ci.yml", caller))
    pub = job(g, ci("pub"))
    assert out(g, pub.id, EdgeKind.PUBLISHES_TO) == {"target:package_index:testpypi": Confidence.CERTAIN}
    grant = pub.secret_grants[0]
    assert (grant.name, grant.evidence.file, grant.evidence.yaml_path) == (
        "TEST_PYPI", "actions/pub/action.yml", "runs.steps[0].with.password")


# ----------------------------------------------------------------------------- collect and ingest


def _write(root: Path, rel: str, text: str | bytes) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text if isinstance(text, bytes) else text.encode())


def test_malformed_file_among_good_ones(tmp_path: Path):
    co = tmp_path / "acme__app"
    _write(co, ".github/workflows/good.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    _write(co, ".github/workflows/bad.yml", "on: push\njobs:\n  a: [\n")
    _write(co, ".github/workflows/latin1.yml", b"on: push\nname: caf\xe9\njobs: {a: {runs-on: x}}\n")
    _write(co, ".github/workflows/notes.txt", "ignored")
    _write(co, ".github/workflows/sub/nested.yml", "on: push\njobs: {a: {runs-on: x}}\n")  # GitHub ignores
    _write(co, "examples/demo/.github/workflows/x.yml", "on: push\njobs: {a: {runs-on: x}}\n")  # ditto
    _write(co, "actions/thing/action.yaml", "name: t\nruns: {using: composite, steps: [{run: echo, shell: bash}]}\n")
    seen: list[str] = []
    assert INGESTOR.count([tmp_path]) == 4
    res = INGESTOR.ingest([tmp_path], progress=lambda n, d: seen.append(d))
    assert res.items == 2 and len(seen) == 4  # four files read, two usable
    assert sorted((Path(p.file).name, p.place) for p in res.problems) == [("bad.yml", "line 3"), ("latin1.yml", "byte 18")]
    assert not res.complete
    jobs = {n.id for n in res.nodes if n.spec.kind is NodeKind.JOB}
    assert jobs == {"job:acme/app/.github/workflows/good.yml#a"}


def test_repository_names(tmp_path: Path):
    _write(tmp_path / "Acme__App", ".github/workflows/a.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    _write(tmp_path / "clone", ".git/config", '[remote "origin"]\n\turl = git@github.com:Octo/Widget.git\n')
    _write(tmp_path / "clone", ".github/workflows/a.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    _write(tmp_path / "plain", ".github/workflows/a.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    found, problems = find_checkouts([tmp_path, f"given/name={tmp_path / 'plain'}", tmp_path / "missing"])
    assert [c.repository for c in found] == ["Acme/App", "Octo/Widget", "local/plain", "given/name"]
    assert len(problems) == 1
    res = INGESTOR.ingest([tmp_path / "Acme__App"])
    assert {n.id for n in res.nodes if n.spec.kind in (NodeKind.REPOSITORY, NodeKind.ORGANIZATION)} == {
        "repo:acme/app", "org:acme"}


def test_ingestor_is_registered():
    from graphkit import registry
    assert registry.get("github-actions").name == "github-actions"


# ----------------------------------------------------------------------------- the real corpus

corpus = pytest.mark.requires(CORPUS.is_dir(), reason="corpus not present", corpus=True)


@pytest.fixture(scope="module")
def corpus_graph() -> tuple[Graph, object]:
    res = INGESTOR.ingest([CORPUS])
    g = Graph()
    g.update(res.nodes, res.edges)  # every edge joins allowed kinds
    return g, res


@corpus
@pytest.mark.corpus
def test_corpus_files_and_problems(corpus_graph):
    g, res = corpus_graph
    assert res.items == 139 and res.problems == []
    per_repo: dict[str, int] = {}
    for w in g.nodes(NodeKind.WORKFLOW):
        if not w.inferred:
            per_repo[w.repository] = per_repo.get(w.repository, 0) + 1
    assert per_repo == {"actions/actions-runner-controller": 4, "aws-actions/configure-aws-credentials": 2,
                        "grafana/shared-workflows": 13, "pytorch/ao": 18, "pytorch/test-infra": 63,
                        "sigstore/cosign": 17, "sigstore/sigstore-python": 5}
    # flattened copies are not workflows: their callers point at an inferred node and stay unresolved
    assert g.node("workflow:pytorch/test-infra/.github/workflows/build_wheels_linux.yml").inferred
    assert job(g, "job:pytorch/ao/.github/workflows/build_wheels_linux_x86.yml#build").runs_on_unresolved
    assert "workflow:aws-actions/configure-aws-credentials/examples/cfn-deploy-example/.github/workflows/deploy.yml" \
        not in g


@corpus
@pytest.mark.corpus
def test_corpus_test_file_report_jobs(corpus_graph):
    g, _ = corpus_graph
    wid = "workflow:pytorch/test-infra/.github/workflows/update_test_file_report.yml"
    jobs = sorted(e.target for e in g.out_edges(wid) if e.kind is EdgeKind.HAS_JOB)
    assert jobs == [ids.job("pytorch/test-infra", ".github/workflows/update_test_file_report.yml", key)
                    for key in ("file-report", "weekly-file-report-notification")]
    fr = job(g, jobs[0])
    assert labels(fr) == {("linux.2xlarge",)} and fr.runs_on[0].evidence.line == 18
    assert fr.permissions == {**NONE, "issues": "write"} and fr.permissions_source == "job"
    assert {r.name for r in fr.secret_refs} == {
        "CLICKHOUSE_HUD_USER_URL", "CLICKHOUSE_HUD_USER_USERNAME", "CLICKHOUSE_HUD_USER_PASSWORD",
        "AWS_INFRA_ALERTS_LAMBDA_URL", "TEST_REPORT_AWS_LAMBDA_TOKEN", "HUD_API_TOKEN"}
    assert g.node(wid).triggers["schedule"] == [{"cron": "0 2 * * *"}, {"cron": "0 3 * * 2"}]


@corpus
@pytest.mark.corpus
def test_corpus_grafana_techdocs_role_through_composite_action(corpus_graph):
    g, _ = corpus_graph
    jid = ("job:grafana/shared-workflows/.github/workflows/test-publish-techdocs.yml#publish-docs"
           ">grafana/shared-workflows/.github/workflows/publish-techdocs.yaml#generate-and-publish-docs")
    j = job(g, jid)
    assert labels(j) == {("ubuntu-latest",)}
    assert j.permissions == {**NONE, "contents": "read", "id-token": "write"}
    roles = out(g, ids.oidc_identity(jid), EdgeKind.ASSUMES_ROLE)
    ops = "cloud_role:aws:arn:aws:iam::058264369985:role/github-actions/backstage-techdocs-publisher"
    dev = "cloud_role:aws:arn:aws:iam::663667355653:role/github-actions/backstage-techdocs-publisher"
    assert roles == {ops: Confidence.POSSIBLE, dev: Confidence.POSSIBLE}
    role = g.node(ops)
    assert role.account == "058264369985" and role.trust == "unknown"
    assert role.evidence[0].file == "actions/aws-auth/action.yaml"


@corpus
@pytest.mark.corpus
def test_corpus_grafana_zizmor_reusable_with_inherit(corpus_graph):
    g, _ = corpus_graph
    caller = "job:grafana/shared-workflows/.github/workflows/zizmor.yml#zizmor"
    assert out(g, caller, EdgeKind.CALLS_WORKFLOW) == {
        "workflow:grafana/shared-workflows/.github/workflows/reusable-zizmor.yml": Confidence.CERTAIN}
    instances = {j.job_key: j for j in g.nodes(NodeKind.JOB) if j.caller == caller}
    assert sorted(instances) == ["analysis", "delete-vulnerable-branch", "grafana-bench", "job-workflow-ref"]
    for j in instances.values():
        assert j.secrets_repository == "grafana/shared-workflows"
        assert labels(j) == {("ubuntu-latest",)}  # caller's `with: runs-on`
    # callee blocks are capped by the caller's (contents: write, id-token: write, ...)
    assert instances["delete-vulnerable-branch"].permissions["contents"] == "write"
    assert instances["analysis"].permissions["contents"] == "read"
    assert instances["job-workflow-ref"].permissions == {**NONE, "id-token": "write"}
    # the reusable workflow is also instantiated for callers outside the corpus (issue 10), as possible
    other = job(g, "job:grafana/shared-workflows/.github/workflows/reusable-zizmor.yml#analysis")
    assert other.caller is None and {c.confidence for c in other.runs_on} == {Confidence.POSSIBLE}


@corpus
@pytest.mark.corpus
def test_corpus_to_json_secrets_and_explicit_mapping(corpus_graph):
    g, _ = corpus_graph
    # linux_job.yml is called by no ingested workflow: one instance for an unknown caller
    lj = job(g, "job:pytorch/test-infra/.github/workflows/linux_job.yml#job")
    assert (lj.all_secrets.yaml_path, lj.all_secrets.line) == ("jobs.job.steps[11].env.ALL_SECRETS", 222)
    assert labels(lj) == {("linux.2xlarge",)} and lj.runs_on_unresolved is not None
    # pytorch/ao calls linux_job_v2 cross-repo without `secrets:`: toJSON(secrets) sees none of ao's secrets
    ao = job(g, "job:pytorch/ao/.github/workflows/1xL4_tests.yml#test"
                ">pytorch/test-infra/.github/workflows/linux_job_v2.yml#job")
    assert labels(ao) == {("linux.g6.4xlarge.experimental.nvidia.gpu",)}
    assert ao.secrets_repository == "pytorch/ao" and ao.all_secrets is None and ao.secret_refs == []
    # m1 -> build_wheels_macos (no secrets passed) -> _binary_upload (explicit R2_* mapping): nothing arrives
    up = job(g, "job:pytorch/test-infra/.github/workflows/test_build_wheels_m1.yml#test"
                ">pytorch/test-infra/.github/workflows/build_wheels_macos.yml#upload"
                ">pytorch/test-infra/.github/workflows/_binary_upload.yml#upload")
    assert up.secret_refs == [] and up.secret_grants == []
    roles = {e.target for e in g.out_edges(ids.oidc_identity(up.id)) if e.kind is EdgeKind.ASSUMES_ROLE}
    assert roles == {"cloud_role:aws:arn:aws:iam::749337293305:role/gha_workflow_nightly_build_wheels",
                     "cloud_role:aws:arn:aws:iam::749337293305:role/gha_workflow_test_build_wheels"}


@corpus
@pytest.mark.corpus
def test_corpus_signing_publishing_and_gcp(corpus_graph):
    g, _ = corpus_graph
    rel = "job:sigstore/sigstore-python/.github/workflows/release.yml#release-pypi"
    assert out(g, rel, EdgeKind.PUBLISHES_TO) == {"target:package_index:pypi": Confidence.CERTAIN}
    assert out(g, rel, EdgeKind.SIGNS_WITH) == {
        "signing_key:sigstore:github.com/sigstore/sigstore-python/.github/workflows/release.yml": Confidence.CERTAIN}
    build = "job:sigstore/cosign/.github/workflows/build.yaml#build"
    assert out(g, ids.oidc_identity(build), EdgeKind.ASSUMES_ROLE) == {
        "cloud_role:gcp:github-actions@projectsigstore.iam.gserviceaccount.com": Confidence.POSSIBLE}
    assert out(g, build, EdgeKind.PUBLISHES_TO) == {"target:registry:ghcr.io": Confidence.POSSIBLE}
    sign = ("job:grafana/shared-workflows/.github/workflows/sign-and-attest.yml#sign-and-attest")
    assert labels(job(g, sign)) == {("ubuntu-x64-small",)}
    assert "signing_key:sigstore:github.com/grafana/shared-workflows/.github/workflows/sign-and-attest.yml" in \
        out(g, sign, EdgeKind.SIGNS_WITH)
    counts = g.counts()
    # 247 before issue 10, plus 19 instances of called reusable workflows for callers outside the corpus
    assert counts["nodes"]["job"] == 266 and counts["nodes"]["github_token"] == 266
    assert counts["edges"]["has_token"] == 266


# ----------------------------------------------------------------------------- issue 10: exact platform semantics


def test_hyphenated_workflow_call_secret_maps_through_the_callers_mapping():
    """Property dereference keeps ``-`` in names (https://docs.github.com/en/actions/reference/workflows-and-actions/
    contexts, "property dereference"); ``on.workflow_call.secrets`` may declare ``aws-access-key-id``
    (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onworkflow_callsecrets);
    stored secrets hold only letters, digits and ``_`` (https://docs.github.com/en/actions/security-for-github-actions/
    security-guides/about-secrets, "Naming your secrets")."""
    assert scan_secrets("secrets.aws-access-key-id || secrets['b-c']") == (["aws-access-key-id", "b-c"], False)
    callee = """
on:
  workflow_call:
    secrets:
      github-token: {required: true}
      aws-access-key-id: {required: true}
jobs:
  use:
    runs-on: x
    steps: [{run: 'echo ${{ secrets.github-token }} ${{ secrets.aws-access-key-id }}'}]
"""
    caller = """
on: push
jobs:
  explicit:
    uses: ./.github/workflows/lib.yml
    secrets: {github-token: "${{ secrets.GITHUB_TOKEN }}", aws-access-key-id: "${{ secrets.AWS_KEY_ID }}"}
  inherit:
    uses: ./.github/workflows/lib.yml
    secrets: inherit
  top:
    runs-on: x
    steps: [{run: 'echo ${{ secrets.github-token }}'}]
"""
    g = graph_of(("acme/app", ".github/workflows/lib.yml", callee), ("acme/app", ".github/workflows/ci.yml", caller))
    assert g.meta.problems == []
    # GITHUB_TOKEN is the job's token; the hyphenated name is never cut into a secret GITHUB
    assert [r.name for r in job(g, lib("use", ci("explicit"))).secret_refs] == ["AWS_KEY_ID"]
    # through inherit (and in a top-level job) a name no stored secret can have reads nothing
    assert job(g, lib("use", ci("inherit"))).secret_refs == []
    assert job(g, ci("top")).secret_refs == []
    # a caller outside the ingested files fills the declared names: kept as written
    alone = wf(callee, ".github/workflows/lib.yml")
    assert [r.name for r in job(alone, "job:acme/app/.github/workflows/lib.yml#use").secret_refs] == [
        "github-token", "aws-access-key-id"]


@pytest.mark.parametrize("text,place,reason", [
    # https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#on : the key is `on`;
    # PyYAML (YAML 1.1) reads `on`, `true` and `yes` alike as True
    ("true: push\njobs: {a: {runs-on: x}}\n", "true", "GitHub reads only `on`"),
    ("yes: push\njobs: {a: {runs-on: x}}\n", "yes", "GitHub reads only `on`"),
    # id-token accepts write|none (https://docs.github.com/en/actions/reference/workflows-and-actions/
    # workflow-syntax#permissions); at workflow level the whole file goes
    ("on: push\npermissions: {id-token: read}\njobs: {a: {runs-on: x}}\n", "permissions.id-token",
     "invalid permission level 'read' for id-token (GitHub accepts write|none)"),
])
def test_workflows_github_refuses_are_problems_with_place(text, place, reason):
    with pytest.raises(InputError) as info:
        parse_workflow(text, file=".github/workflows/bad.yml", repository="acme/app")
    assert (info.value.place, reason in info.value.reason) == (place, True)
    assert re.search(r"\(line \d+\)$", info.value.reason)


def test_job_permission_level_github_rejects_refuses_the_workflow():
    """A job-level ``id-token: read``/``models: write``: GitHub validates the whole file before any job runs
    ("The workflow is not valid"), so no job of it gets a node or an edge; the problem names the place.
    https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#permissions"""
    text = ("on: push\njobs:\n  a: {runs-on: x}\n  b:\n    runs-on: x\n    permissions: {id-token: read}\n"
            "  c:\n    runs-on: x\n    permissions: {models: write, contents: '${{ secrets.X }}'}\n")
    with pytest.raises(InputError) as info:
        parse_workflow(text, file=".github/workflows/ci.yml", repository="acme/app")
    assert (info.value.place, info.value.reason) == (
        "jobs.b.permissions.id-token", "invalid permission level 'read' for id-token (GitHub accepts write|none); "
                                       "the workflow is not run (line 6)")
    with pytest.raises(InputError) as info:
        parse_workflow(text.replace("models: write, ", "").replace("id-token: read", "id-token: write"),
                       file="w.yml", repository="acme/app")
    assert "secrets" not in info.value.reason and "of type str" in info.value.reason  # not quoted: no level


def test_trigger_key_on_is_read_quoted_or_not():
    for text in ("on: push\njobs: {a: {runs-on: x}}\n", "'on': push\njobs: {a: {runs-on: x}}\n"):
        assert parse_workflow(text, file="w.yml", repository="acme/app").triggers == {"push": {}}


LIB_NEEDS = """
on:
  workflow_call:
    inputs:
      target: {type: string, required: true}
      level: {type: string, required: true, default: info}
    secrets:
      deploy-key: {required: true}
      optional: {}
permissions: {contents: read, id-token: write}
jobs:
  deploy:
    runs-on: x
    steps: [{run: 'echo ${{ secrets.deploy-key }}'}]
"""


@pytest.mark.parametrize("call,refused", [
    ("with: {target: prod}\n    secrets: {deploy-key: '${{ secrets.K }}'}", None),
    ("with: {target: prod}\n    secrets: inherit", None),
    ("secrets: {deploy-key: '${{ secrets.K }}'}", "without required input target"),
    ("with: {target: prod}\n    secrets: {optional: '${{ secrets.K }}'}", "without required secret deploy-key"),
    ("with: {target: prod}", "without required secret deploy-key"),
])
def test_call_without_required_input_or_secret_is_refused(call, refused):
    """https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onworkflow_callinputs and
    #onworkflow_callsecrets: a required input (without default) or secret the caller does not pass fails the run."""
    caller = ("on: push\npermissions: {contents: read, id-token: write}\njobs:\n  lint: {runs-on: x}\n"
              f"  go:\n    uses: ./.github/workflows/lib.yml\n    {call}\n")
    g = graph_of(("acme/app", ".github/workflows/lib.yml", LIB_NEEDS), ("acme/app", ".github/workflows/ci.yml", caller))
    if refused is None:
        assert g.meta.problems == [] and lib("deploy", ci("go")) in g
        return
    assert [(p.file, p.place) for p in g.meta.problems] == [("acme/app:.github/workflows/ci.yml", "jobs.go.uses")]
    assert refused in g.meta.problems[0].reason and g.meta.problems[0].reason.endswith("(line 6)")
    # GitHub runs no job of a refused run: no job of the caller, none of the callee (only the instance of
    # lib.yml for callers outside the ingested files remains)
    assert [j.id for j in g.nodes(NodeKind.JOB)] == ["job:acme/app/.github/workflows/lib.yml#deploy"]
    assert "workflow:acme/app/.github/workflows/ci.yml" in g


CALLED_OIDC = """
on: workflow_call
jobs:
  asks:
    runs-on: x
    permissions: {id-token: write, contents: read}
    steps: [{run: make}]
  inherits:
    runs-on: x
    steps: [{run: make}]
"""


@pytest.mark.parametrize("grant,refused", [
    ("permissions: {contents: read}", "id-token: write (granted none)"),
    ("", "id-token: write (granted none)"),  # id-token is never granted by default
    ("permissions: {contents: read, id-token: write}", None),
    ("permissions: read-all", "id-token: write (granted none)"),
])
def test_called_job_asking_more_than_the_caller_grants_is_refused(grant, refused):
    """A called workflow can keep or reduce, never elevate, its caller's permissions; GitHub fails the run
    ("The nested job 'asks' is requesting 'id-token: write', but is only allowed 'id-token: none'").
    https://docs.github.com/en/actions/reference/workflows-and-actions/reusing-workflow-configurations#access-and-permissions-for-nested-workflows"""
    caller = f"on: push\n{grant}\njobs:\n  call:\n    uses: ./.github/workflows/lib.yml\n"
    g = graph_of(("acme/app", ".github/workflows/lib.yml", CALLED_OIDC),
                 ("acme/app", ".github/workflows/ci.yml", caller))
    if refused is None:
        assert g.meta.problems == []
        # the job without its own block inherits the caller's grant: its OIDC evidence is the caller's line
        oidc = g.node(ids.oidc_identity(lib("inherits", ci("call"))))
        assert (oidc.evidence[0].file, oidc.evidence[0].yaml_path, oidc.evidence[0].line) == (
            ".github/workflows/ci.yml", "permissions.id-token", 2)
        asks = g.node(ids.oidc_identity(lib("asks", ci("call"))))
        assert (asks.evidence[0].file, asks.evidence[0].yaml_path) == (".github/workflows/lib.yml",
                                                                       "jobs.asks.permissions.id-token")
        return
    assert [(p.file, p.place) for p in g.meta.problems] == [("acme/app:.github/workflows/ci.yml", "jobs.call.uses")]
    assert refused in g.meta.problems[0].reason and "jobs.asks.permissions (line 6)" in g.meta.problems[0].reason
    assert not any(j.caller or j.workflow_path.endswith("ci.yml") for j in g.nodes(NodeKind.JOB))
    assert not any(">" in o.id for o in g.nodes(NodeKind.OIDC_IDENTITY))


def test_called_workflow_cannot_mint_oidc_without_the_callers_grant():
    """The caller's permissions cap the called job's GITHUB_TOKEN and id-token (same doc as above)."""
    caller = "on: push\npermissions: {contents: write}\njobs:\n  call: {uses: ./.github/workflows/lib.yml}\n"
    callee = "on: workflow_call\njobs:\n  j: {runs-on: x, steps: [{run: make}]}\n"
    g = graph_of(("acme/app", ".github/workflows/lib.yml", callee), ("acme/app", ".github/workflows/ci.yml", caller))
    j = job(g, lib("j", ci("call")))
    assert (j.permissions["contents"], j.permissions["id-token"], j.permissions_source) == ("write", "none", "caller")
    assert list(g.nodes(NodeKind.OIDC_IDENTITY)) == [] and g.meta.problems == []


def test_matrix_and_runs_on_of_a_called_workflow_use_the_callers_inputs():
    """Inputs of a called workflow are what the caller passes under ``with:``
    (https://docs.github.com/en/actions/reference/workflows-and-actions/reusing-workflow-configurations), including
    in ``strategy.matrix`` and ``runs-on``."""
    callee = """
on:
  workflow_call:
    inputs:
      runner-prefix: {type: string, required: true}
      arches: {type: string, default: '["x64"]'}
jobs:
  build:
    strategy:
      matrix:
        arch: ${{ fromJSON(inputs.arches) }}
    runs-on: ${{ inputs.runner-prefix }}-${{ matrix.arch }}
    steps: [{run: make}]
"""
    caller = """
on: push
jobs:
  call:
    uses: ./.github/workflows/lib.yml
    with: {runner-prefix: acme-pool, arches: '["x64", "arm64"]'}
"""
    g = graph_of(("acme/app", ".github/workflows/lib.yml", callee), ("acme/app", ".github/workflows/ci.yml", caller))
    j = job(g, lib("build", ci("call")))
    assert labels(j) == {("acme-pool-x64",), ("acme-pool-arm64",)} and j.runs_on_unresolved is None
    assert all(c.confidence is Confidence.CERTAIN for c in j.runs_on)
    assert not any("${{" in lbl for c in j.runs_on for lbl in c.labels)


def test_checkout_holding_only_composite_actions_is_one_repository(tmp_path: Path):
    """A repository of composite actions in sub-folders (``uses: acme/actions/setup@v1`` names
    ``{owner}/{repo}/{path}``: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax
    #jobsjob_idstepsuses) is read as one checkout, never split per action nor skipped beside others."""
    action = "name: setup\nruns:\n  using: composite\n  steps:\n    - {run: 'echo ${{ inputs.token }}', shell: bash}\n"
    _write(tmp_path / "acme__actions", "setup/action.yml", action)
    _write(tmp_path / "acme__actions", "lint/action.yml", action.replace("setup", "lint"))
    _write(tmp_path / "acme__app", ".github/workflows/ci.yml",
           "on: push\njobs:\n  a:\n    runs-on: x\n    steps: [{uses: acme/actions/setup@v1, with: {token: '${{ secrets.T }}'}}]\n")
    (tmp_path / "notes").mkdir()
    found, problems = find_checkouts([tmp_path])
    assert [c.repository for c in found] == ["acme/actions", "acme/app"]
    assert [Path(p.file).name for p in problems] == ["notes"]  # a folder with nothing to read is reported
    assert [c.repository for c in find_checkouts([tmp_path / "acme__actions"])[0]] == ["acme/actions"]
    res = INGESTOR.ingest([tmp_path / "acme__actions", tmp_path / "acme__app"])
    assert res.items == 3 and res.problems == []
    repo = next(n for n in res.nodes if n.id == "repo:acme/actions")
    assert sorted(e.file for e in repo.evidence if e.file != ".") == ["lint/action.yml", "setup/action.yml"]


@pytest.mark.parametrize("complete,org_secrets,expected", [
    # every deciding list complete and none holds it: no node, a finding
    (["org:acme", "repo:acme/app"], [], None),
    # the scope that has it (an org secret visible to all repositories)
    (["org:acme", "repo:acme/app"], ["NPM_TOKEN"], "secret:org:acme:NPM_TOKEN"),
    # the org list is not known complete: it may be an org secret, scope unknown
    (["repo:acme/app"], [], "secret:acme/app:NPM_TOKEN"),
])
def test_secret_absent_from_complete_inventories_is_not_invented(complete, org_secrets, expected):
    """Lookup order environment, repository, organization; a secret that is not set reads as empty
    (https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions)."""
    from graphkit.findings import FindingOptions, run_rules
    from graphkit.meta import InventoryFacts
    from graphkit.model import Evidence, Secret
    from graphkit.resolve import resolve
    g = wf("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps: [{run: 'echo ${{ secrets.NPM_TOKEN }}'}]\n")
    for name in org_secrets:
        g.add_node(Secret(id=ids.secret_org("acme", name), name=name, secret_name=name, scope="org", owner="acme",
                          visibility="all", evidence=[Evidence(file="inventory.yaml")]))
    g.meta.runner_inventory = InventoryFacts(secrets_complete=complete)
    resolve(g)
    assert sorted(out(g, ci("a"), EdgeKind.READS_SECRET)) == ([expected] if expected else [])
    assert [n.id for n in g.nodes(NodeKind.SECRET)] == ([expected] if expected else [])
    found = [f for f in run_rules(g, FindingOptions()) if f.rule == "referenced-secret-missing"]
    assert [(f.subject, f.properties["secret_name"], f.evidence[0].line) for f in found] == (
        [] if expected else [(ci("a"), "NPM_TOKEN", 5)])


def test_reusable_workflow_keeps_an_instance_for_callers_outside_the_ingested_files():
    """A reusable workflow of a public repository, or one that shares its workflows, can be called by workflows
    that are not ingested (https://docs.github.com/en/actions/how-tos/reuse-automations/reuse-workflows
    #access-to-reusable-workflows): with an ingested caller, the secrets and reach of that other instance stay,
    as possible."""
    from graphkit.resolve import resolve
    callee = """
on:
  workflow_call:
    secrets: {PUBLISH_TOKEN: {required: true}}
permissions: {id-token: write}
jobs:
  publish:
    runs-on: [self-hosted, linux]
    steps: [{run: 'echo ${{ secrets.PUBLISH_TOKEN }}'}]
"""
    caller = ("on: push\npermissions: {id-token: write}\njobs:\n  rel:\n    uses: ./.github/workflows/lib.yml\n"
              "    secrets: {PUBLISH_TOKEN: '${{ secrets.NPM }}'}\n")
    g = graph_of(("acme/app", ".github/workflows/lib.yml", callee), ("acme/app", ".github/workflows/ci.yml", caller))
    resolve(g)
    assert out(g, lib("publish", ci("rel")), EdgeKind.READS_SECRET) == {"secret:acme/app:NPM": Confidence.CERTAIN}
    other = "job:acme/app/.github/workflows/lib.yml#publish"
    # the unknown caller's secret, never acme/app's: that caller is a repository of acme (the runners it is routed
    # to are acme's; https://docs.github.com/en/actions/sharing-automations/reusing-workflows)
    assert out(g, other, EdgeKind.READS_SECRET) == {"secret:acme/*:PUBLISH_TOKEN": Confidence.POSSIBLE}
    assert out(g, other, EdgeKind.MINTS_OIDC) == {ids.oidc_identity(other): Confidence.POSSIBLE}
    assert {c.confidence for c in job(g, other).runs_on} == {Confidence.POSSIBLE}


def test_jobs_called_from_an_unknown_callers_run_are_possible_and_inherit_an_unknown_cap():
    """In the run of a caller outside the ingested files, a nested call is capped by what that caller grants,
    which no file tells: a nested job asking for ``id-token: write`` is not refused, and its routes are possible
    (https://docs.github.com/en/actions/reference/workflows-and-actions/reusing-workflow-configurations
    #access-and-permissions-for-nested-workflows)."""
    middle = "on: workflow_call\njobs:\n  m: {uses: ./.github/workflows/leaf.yml}\n"
    leaf = "on: workflow_call\njobs:\n  n: {runs-on: [self-hosted], permissions: {id-token: write}}\n"
    g = graph_of(("acme/app", ".github/workflows/middle.yml", middle), ("acme/app", ".github/workflows/leaf.yml", leaf))
    assert g.meta.problems == []
    nested = job(g, ids.job("acme/app", ".github/workflows/leaf.yml", "n",
                            caller=ids.job("acme/app", ".github/workflows/middle.yml", "m")))
    assert {c.confidence for c in nested.runs_on} == {Confidence.POSSIBLE}
    assert out(g, nested.id, EdgeKind.MINTS_OIDC) == {ids.oidc_identity(nested.id): Confidence.POSSIBLE}
