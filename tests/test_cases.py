"""The issue's required cases, end to end.

Each test writes real workflow YAML into ``tmp_path`` checkouts named
``acme__app`` / ``acme__docs`` and a runner inventory YAML, runs
:func:`graphkit.build.build_graph` (ingest + merge + resolve) and asserts on the
resulting graph edges and on :func:`graphkit.analysis.blast_radius`.  Unit-level
rules (the resolver on literal graphs, the parser on strings) are tested in
``test_resolve.py`` and ``test_github_actions.py``; here every case goes through
the whole pipeline from files on disk.
"""

from __future__ import annotations

import textwrap
from pathlib import Path


from graphkit.analysis import blast_radius
from graphkit.build import BuildResult, build_graph
from graphkit.graph import Graph
from graphkit.model import Confidence, EdgeKind, Lifetime, NodeKind, ids
from ingest.github_actions import PERMISSION_SCOPES

C, P = Confidence.CERTAIN, Confidence.POSSIBLE
WF = ".github/workflows"


# --------------------------------------------------------------------------- helpers


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def inventory(tmp_path: Path, text: str, name: str = "inventory.yaml") -> Path:
    return write(tmp_path, name, "schema: graphkit.runner-inventory/v1\n" + textwrap.dedent(text).lstrip("\n"))


def build(tmp_path: Path, *repos: str, inv: Path | None = None) -> BuildResult:
    inputs: dict[str, list[Path]] = {"github-actions": [tmp_path / r for r in repos]}
    if inv is not None:
        inputs["runners"] = [inv]
    return build_graph(inputs)


def jid(repo: str, wf: str, key: str) -> str:
    return ids.job(repo, f"{WF}/{wf}", key)


def receives(g: Graph) -> dict[tuple[str, str], list]:
    """(runner, job) -> [edges] of RECEIVES_JOB."""
    out: dict[tuple[str, str], list] = {}
    for e in g.edges(EdgeKind.RECEIVES_JOB):
        out.setdefault((e.source, e.target), []).append(e)
    return out


def runners_of(g: Graph, job_id: str) -> set[str]:
    return {e.source for e in g.in_edges(job_id) if e.kind is EdgeKind.RECEIVES_JOB}


# --------------------------------------------------------------------------- case 1: `on` read as a boolean key

CASE1_WF = """
on: [push]
jobs:
  build:
    runs-on: [self-hosted, linux]
    steps:
      - run: make
"""

CASE1_INV = """
organizations:
  - name: acme
    runner_groups: [{name: Default, visibility: all}]
repositories:
  - {full_name: acme/app, visibility: private}
runners:
  - {name: lin-1, labels: [self-hosted, linux, x64], scope: acme, runner_group: Default, ephemeral: false}
"""


def test_case1_on_boolean_key_and_self_hosted_linux_routing(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/ci.yml", CASE1_WF)
    res = build(tmp_path, "acme__app", inv=inventory(tmp_path, CASE1_INV))
    g = res.graph
    assert res.problems == []
    # `on:` is PyYAML's boolean True key: still read as the trigger block
    assert g.node(ids.workflow("acme/app", f"{WF}/ci.yml")).triggers == {"push": {}}
    job = jid("acme/app", "ci.yml", "build")
    edges = receives(g)[("runner:acme/lin-1", job)]
    assert len(edges) == 1
    e = edges[0]
    assert (e.key, e.confidence, e.lifetime) == ("", C, Lifetime.UNTIL_RUNNER_REMOVED)
    ev = e.evidence[0]
    assert (ev.repository, ev.file, ev.yaml_path, ev.line) == ("acme/app", f"{WF}/ci.yml", "jobs.build.runs-on", 4)
    assert runners_of(g, job) == {"runner:acme/lin-1"}
    # no inferred pool once a real runner serves the label set
    assert [n.id for n in g.nodes(NodeKind.RUNNER) if n.inferred] == []


def test_case1_without_inventory_inferred_pool_then_replaced(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/ci.yml", CASE1_WF)
    job = jid("acme/app", "ci.yml", "build")
    pool = "runner:inferred:acme:linux+self-hosted"

    bare = build(tmp_path, "acme__app")
    assert bare.problems == []
    g = bare.graph
    assert [n.id for n in g.nodes(NodeKind.RUNNER)] == [pool]
    assert g.node(pool).inferred is True
    assert sorted(g.node(pool).labels) == ["linux", "self-hosted"]
    (e,) = receives(g)[(pool, job)]
    assert e.confidence is P
    br = blast_radius(g, pool)
    assert job in br and br[job].confidence is P

    full = build(tmp_path, "acme__app", inv=inventory(tmp_path, CASE1_INV))
    assert pool not in full.graph
    assert runners_of(full.graph, job) == {"runner:acme/lin-1"}


def test_github_hosted_job_not_linked_to_self_hosted_runners(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/ci.yml", """
        on: push
        jobs:
          hosted:
            runs-on: ubuntu-latest
            steps: [{run: make}]
          hosted-list:
            runs-on: [ubuntu-latest]
            steps: [{run: make}]
        """)
    g = build(tmp_path, "acme__app", inv=inventory(tmp_path, CASE1_INV)).graph
    assert receives(g) == {}
    assert [n.id for n in g.nodes(NodeKind.RUNNER) if n.inferred] == []
    assert blast_radius(g, "runner:acme/lin-1").ids == frozenset()
    # a self-hosted runner that carries the label ubuntu-latest may take them (GitHub routes a job to any runner
    # with all its labels; cocotb/cocotb#3626): possible, and still no pool, no other runner
    inv = inventory(tmp_path, CASE1_INV + "  - {name: impostor, labels: [self-hosted, ubuntu-latest], scope: acme}\n")
    g = build(tmp_path, "acme__app", inv=inv).graph
    assert {k: [(e.confidence.value, e.key, e.props["hosted_label"]) for e in v] for k, v in receives(g).items()} == {
        ("runner:acme/impostor", jid("acme/app", "ci.yml", "hosted")): [("possible", "", True)],
        ("runner:acme/impostor", jid("acme/app", "ci.yml", "hosted-list")): [("possible", "", True)]}
    assert [n.id for n in g.nodes(NodeKind.RUNNER) if n.inferred] == []
    assert blast_radius(g, "runner:acme/lin-1").ids == frozenset()


def test_malformed_workflow_next_to_good_one(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/ci.yml", CASE1_WF)
    write(tmp_path / "acme__app", f"{WF}/broken.yml", """
        on: push
        jobs:
          x: [
        """)
    res = build(tmp_path, "acme__app", inv=inventory(tmp_path, CASE1_INV))
    assert len(res.problems) == 1 and res.partial
    (p,) = res.problems
    assert Path(p.file).name == "broken.yml" and "broken.yml" in str(p)
    job = jid("acme/app", "ci.yml", "build")
    assert job in res.graph
    assert runners_of(res.graph, job) == {"runner:acme/lin-1"}
    assert not any("broken" in n.id for n in res.graph.nodes())


# --------------------------------------------------------------------------- case 2: group pin


def test_case2_group_pin_links_only_the_runner_of_that_group(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/gpu.yml", """
        on: push
        jobs:
          train:
            runs-on:
              group: builders
              labels: [gpu]
            steps: [{run: train}]
        """)
    inv = inventory(tmp_path, """
        organizations:
          - name: acme
            runner_groups:
              - {name: default, visibility: all}
              - {name: builders, visibility: all}
        repositories:
          - {full_name: acme/app, visibility: private}
        runners:
          - {name: gpu-default, labels: [self-hosted, gpu], scope: acme, runner_group: default, ephemeral: false}
          - {name: gpu-builders, labels: [self-hosted, gpu], scope: acme, runner_group: builders, ephemeral: false}
        """)
    res = build(tmp_path, "acme__app", inv=inv)
    assert res.problems == []
    job = jid("acme/app", "gpu.yml", "train")
    assert runners_of(res.graph, job) == {"runner:acme/gpu-builders"}
    (e,) = receives(res.graph)[("runner:acme/gpu-builders", job)]
    assert e.confidence is C
    assert job not in blast_radius(res.graph, "runner:acme/gpu-default")
    assert job in blast_radius(res.graph, "runner:acme/gpu-builders")


# --------------------------------------------------------------------------- case 3: matrix include/exclude


def test_case3_matrix_include_exclude_routes_to_expanded_labels_only(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/matrix.yml", """
        on: push
        jobs:
          test:
            strategy:
              matrix:
                os: [linux-a, linux-b]
                include:
                  - os: linux-c
                exclude:
                  - os: linux-b
            runs-on: ${{ matrix.os }}
            steps: [{run: make test}]
        """)
    inv = inventory(tmp_path, """
        organizations:
          - name: acme
            runner_groups: [{name: Default, visibility: all}]
        repositories:
          - {full_name: acme/app, visibility: private}
        runners:
          - {name: ra, labels: [self-hosted, linux-a], scope: acme, ephemeral: false}
          - {name: rb, labels: [self-hosted, linux-b], scope: acme, ephemeral: false}
          - {name: rc, labels: [self-hosted, linux-c], scope: acme, ephemeral: false}
        """)
    res = build(tmp_path, "acme__app", inv=inv)
    assert res.problems == []
    g = res.graph
    job = jid("acme/app", "matrix.yml", "test")
    assert runners_of(g, job) == {"runner:acme/ra", "runner:acme/rc"}
    by_runner = {src: [(e.key, e.confidence) for e in es] for (src, tgt), es in receives(g).items() if tgt == job}
    assert by_runner == {"runner:acme/ra": [('matrix={"os":"linux-a"}', C)],
                         "runner:acme/rc": [('matrix={"os":"linux-c"}', C)]}
    assert g.node(job).runs_on_unresolved is None
    assert [n.id for n in g.nodes(NodeKind.RUNNER) if n.inferred] == []


# --------------------------------------------------------------------------- case 4: permissions


def test_case4_job_permissions_replace_write_all(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/perm.yml", """
        on: push
        permissions: write-all
        jobs:
          narrow:
            runs-on: [self-hosted, linux]
            permissions:
              contents: read
            steps: [{run: make}]
          wide:
            runs-on: [self-hosted, linux]
            steps: [{run: make}]
        """)
    res = build(tmp_path, "acme__app", inv=inventory(tmp_path, CASE1_INV))
    assert res.problems == []
    g = res.graph
    narrow = jid("acme/app", "perm.yml", "narrow")
    tok = g.node(ids.github_token(narrow))
    assert tok.permissions_source == "job"
    assert tok.permissions == {**dict.fromkeys(PERMISSION_SCOPES, "none"), "contents": "read"}
    assert g.node(narrow).permissions == tok.permissions
    assert ids.oidc_identity(narrow) not in g
    assert not any(e.kind is EdgeKind.MINTS_OIDC for e in g.out_edges(narrow))
    assert not any(e.kind is EdgeKind.WRITES_REPOSITORY for e in g.out_edges(tok.id))
    br = blast_radius(g, "runner:acme/lin-1")
    assert tok.id in br and "repo:acme/app" in br  # ...the latter only through the `wide` job
    assert [h.source for h in br["repo:acme/app"].path][1] == jid("acme/app", "perm.yml", "wide")

    # contrast: the sibling job keeps write-all (workflow level), id-token included
    wide = jid("acme/app", "perm.yml", "wide")
    wtok = g.node(ids.github_token(wide))
    assert wtok.permissions_source == "workflow" and wtok.permissions["contents"] == "write"
    assert wtok.permissions["id-token"] == "write"
    assert ids.oidc_identity(wide) in g
    assert {e.target for e in g.out_edges(wtok.id) if e.kind is EdgeKind.WRITES_REPOSITORY} == {"repo:acme/app"}


# --------------------------------------------------------------------------- case 5: secrets visibility

CASE5_INV = """
organizations:
  - name: acme
    secrets_complete: true
    secrets:
      - {name: ORG_ALL, visibility: all}
      - {name: ORG_PRIVATE, visibility: private}
      - {name: ORG_SELECTED_IN, visibility: selected, selected_repositories: [acme/app, acme/docs]}
      - {name: ORG_SELECTED_OUT, visibility: selected, selected_repositories: [acme/docs]}
    runner_groups: [{name: Default, visibility: all}]
repositories:
  - full_name: acme/app
    visibility: private
    secrets: [REPO_ONE, REPO_TWO, SHADOWED]
    secrets_complete: true
    environments:
      - name: production
        secrets: [DEPLOY_KEY, PROD_DB_URL]
        secrets_complete: true
      - name: staging
        secrets: [STAGING_DB_URL, SHADOWED]
        secrets_complete: true
  - full_name: acme/docs
    visibility: public
    secrets: [DOCS_ONLY]
    secrets_complete: true
runners:
  - {name: deployer, labels: [self-hosted, linux, deploy], scope: acme, ephemeral: false}
"""


def test_case5_environment_job_with_tojson_reaches_every_visible_secret(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/deploy.yml", """
        on:
          push:
            branches: [main]
        jobs:
          deploy:
            runs-on: [self-hosted, deploy]
            environment: production
            steps:
              - run: ./deploy.sh
                env:
                  KEY: ${{ secrets.DEPLOY_KEY }}
              - run: echo "$ALL" > /dev/null
                env:
                  ALL: ${{ toJSON(secrets) }}
        """)
    res = build(tmp_path, "acme__app", inv=inventory(tmp_path, CASE5_INV))
    assert res.problems == []
    g = res.graph
    job = jid("acme/app", "deploy.yml", "deploy")
    assert runners_of(g, job) == {"runner:acme/deployer"}

    read = {e.target: e.confidence for e in g.out_edges(job) if e.kind is EdgeKind.READS_SECRET}
    expected = {
        "secret:org:acme:ORG_ALL", "secret:org:acme:ORG_PRIVATE", "secret:org:acme:ORG_SELECTED_IN",
        "secret:repo:acme/app:REPO_ONE", "secret:repo:acme/app:REPO_TWO", "secret:repo:acme/app:SHADOWED",
        "secret:env:acme/app:production:DEPLOY_KEY", "secret:env:acme/app:production:PROD_DB_URL",
    }
    assert read == dict.fromkeys(expected, C)  # every list complete: no secret:all placeholder

    br = blast_radius(g, "runner:acme/deployer")
    reached_secrets = {r.id for r in br if r.kind is NodeKind.SECRET}
    assert reached_secrets == expected
    for not_visible in ("secret:org:acme:ORG_SELECTED_OUT", "secret:env:acme/app:staging:STAGING_DB_URL",
                        "secret:env:acme/app:staging:SHADOWED", "secret:repo:acme/docs:DOCS_ONLY"):
        assert not_visible in g and not_visible not in br
    assert "secret:all:acme/app" not in g
    r = br["secret:env:acme/app:production:DEPLOY_KEY"]
    assert r.confidence is C and r.lifetime is Lifetime.UNTIL_ROTATED  # both hops unbounded; the secret's own
    assert [h.kind for h in r.path] == [EdgeKind.RECEIVES_JOB, EdgeKind.READS_SECRET]
    assert br["target:environment:acme/app:production"].criticality.value == "critical"


def test_case5_incomplete_lists_add_the_all_placeholder(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/deploy.yml", """
        on: push
        jobs:
          deploy:
            runs-on: [self-hosted, deploy]
            environment: {name: production, url: https://example.com}
            steps:
              - run: echo '${{ toJSON(secrets) }}' | wc -c
        """)
    inv = inventory(tmp_path, CASE5_INV.replace("    secrets: [REPO_ONE, REPO_TWO, SHADOWED]\n    secrets_complete: true",
                                                "    secrets: [REPO_ONE, REPO_TWO, SHADOWED]\n    secrets_complete: false"))
    g = build(tmp_path, "acme__app", inv=inv).graph
    br = blast_radius(g, "runner:acme/deployer")
    assert br["secret:all:acme/app"].confidence is P
    assert "secret:env:acme/app:production:DEPLOY_KEY" in br
    assert "secret:env:acme/app:staging:STAGING_DB_URL" not in br


# --------------------------------------------------------------------------- case 6: selected runner group

CASE6_WF = """
on: push
jobs:
  build:
    runs-on: [self-hosted, linux, shared]
    steps: [{run: make}]
  lint:
    runs-on: [self-hosted, shared]
    steps: [{run: make lint}]
"""


def test_case6_selected_group_only_reaches_listed_repository(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/ci.yml", CASE6_WF)
    write(tmp_path / "acme__docs", f"{WF}/ci.yml", CASE6_WF)
    inv = inventory(tmp_path, """
        organizations:
          - name: acme
            runner_groups:
              - {name: Default, visibility: all}
              - {name: app-only, visibility: selected, selected_repositories: [acme/app]}
        repositories:
          - {full_name: acme/app, visibility: private}
          - {full_name: acme/docs, visibility: private}
        runners:
          - {name: shared-1, labels: [self-hosted, linux, shared], scope: acme, runner_group: app-only, ephemeral: false}
        """)
    res = build(tmp_path, "acme__app", "acme__docs", inv=inv)
    assert res.problems == []
    g = res.graph
    edges = receives(g)
    assert set(edges) == {("runner:acme/shared-1", jid("acme/app", "ci.yml", "build")),
                          ("runner:acme/shared-1", jid("acme/app", "ci.yml", "lint"))}
    assert all(e.confidence is C for es in edges.values() for e in es)
    for key in ("build", "lint"):
        assert runners_of(g, jid("acme/docs", "ci.yml", key)) == set()
    br = blast_radius(g, "runner:acme/shared-1")
    assert {r.id for r in br if r.kind is NodeKind.JOB} == {jid("acme/app", "ci.yml", "build"),
                                                            jid("acme/app", "ci.yml", "lint")}
    assert not any(r.id.startswith(("job:acme/docs", "github_token:acme/docs")) for r in br)


# --------------------------------------------------------------------------- case 7: persistent vs ephemeral on one host

CASE7_INV = """
organizations:
  - name: acme
    runner_groups: [{name: Default, visibility: all}]
repositories:
  - {full_name: acme/app, visibility: private}
  - {full_name: acme/docs, visibility: private}
hosts:
  - name: build-01
    os: linux
    ephemeral: false
runners:
  - {name: persistent-1, labels: [self-hosted, linux, x64], scope: acme, ephemeral: false, host: build-01}
  - {name: ephemeral-1, labels: [self-hosted, linux, x64], scope: acme, ephemeral: true, host: build-01}
"""


def test_case7_persistent_and_ephemeral_runner_on_one_host(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/ci.yml", CASE1_WF)
    write(tmp_path / "acme__docs", f"{WF}/docs.yml", """
        on: push
        jobs:
          publish:
            runs-on: [self-hosted, x64]
            steps: [{run: make docs}]
        """)
    res = build(tmp_path, "acme__app", "acme__docs", inv=inventory(tmp_path, CASE7_INV))
    assert res.problems == []
    g = res.graph
    app, docs = jid("acme/app", "ci.yml", "build"), jid("acme/docs", "docs.yml", "publish")
    pers, eph, host = "runner:acme/persistent-1", "runner:acme/ephemeral-1", "host:build-01"

    edges = receives(g)
    assert {(s, t) for (s, t) in edges} == {(pers, app), (pers, docs), (eph, app), (eph, docs)}
    for job in (app, docs):
        (pe,) = edges[(pers, job)]
        assert (pe.confidence, pe.lifetime) == (C, Lifetime.UNTIL_RUNNER_REMOVED)
        (ee,) = edges[(eph, job)]
        assert (ee.confidence, ee.lifetime) == (P, Lifetime.PER_JOB)

    br_p = blast_radius(g, pers)
    for job in (app, docs):
        assert br_p[job].confidence is C and br_p[job].lifetime is Lifetime.UNTIL_RUNNER_REMOVED
        assert ids.github_token(job) in br_p

    br_h = blast_radius(g, host)
    assert {pers, eph} <= br_h.ids
    assert br_h[pers].confidence is C and br_h[eph].confidence is C
    assert [h.kind for h in br_h[pers].path] == [EdgeKind.HOSTS]
    assert br_h[app].confidence is C  # through the persistent runner

    # runner on runner: the ephemeral registration's host still holds the persistent one
    br_e = blast_radius(g, eph)
    assert host in br_e and pers in br_e
    assert br_e[docs].confidence is C
    assert [h.kind for h in br_e[docs].path] == [EdgeKind.RUNS_ON_HOST, EdgeKind.HOSTS, EdgeKind.RECEIVES_JOB]


# --------------------------------------------------------------------------- host caches across runners

CACHE_INV = """
organizations:
  - name: acme
    runner_groups: [{name: Default, visibility: all}]
repositories:
  - full_name: acme/app
    visibility: private
    secrets: [RELEASE_TOKEN]
    secrets_complete: true
hosts:
  - name: build-01
    ephemeral: false
    caches: [{path: /opt/hostedtoolcache, kind: toolcache}]
runners:
  - {name: shared-persistent, labels: [self-hosted, linux, release], scope: acme, ephemeral: false, host: build-01}
  - {name: elsewhere-eph, labels: [self-hosted, linux], scope: acme, ephemeral: true}
"""

CACHE_WF = """
on: push
jobs:
  test:
    runs-on: [self-hosted, linux]
    steps: [{run: make test}]
  release:
    runs-on: [self-hosted, release]
    steps:
      - run: ./release.sh
        env:
          TOKEN: ${{ secrets.RELEASE_TOKEN }}
"""


def test_host_cache_shared_by_jobs_of_the_persistent_host(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/ci.yml", CACHE_WF)
    g = build(tmp_path, "acme__app", inv=inventory(tmp_path, CACHE_INV)).graph
    cache = "cache:host:build-01:/opt/hostedtoolcache"
    test, release = jid("acme/app", "ci.yml", "test"), jid("acme/app", "ci.yml", "release")
    assert runners_of(g, test) == {"runner:acme/shared-persistent", "runner:acme/elsewhere-eph"}
    assert runners_of(g, release) == {"runner:acme/shared-persistent"}
    # a malicious `test` run on build-01 poisons the toolcache that `release` restores
    br = blast_radius(g, test)
    assert cache in br and release in br and "secret:repo:acme/app:RELEASE_TOKEN" in br


def test_runner_elsewhere_never_reaches_another_hosts_cache(tmp_path: Path):
    write(tmp_path / "acme__app", f"{WF}/ci.yml", CACHE_WF)
    g = build(tmp_path, "acme__app", inv=inventory(tmp_path, CACHE_INV)).graph
    br = blast_radius(g, "runner:acme/elsewhere-eph")
    assert jid("acme/app", "ci.yml", "test") in br
    # elsewhere-eph is not on build-01: the test job's runs there never touch build-01's toolcache (issue 13) ...
    cache = "cache:host:build-01:/opt/hostedtoolcache"
    assert blast_radius(g, "runner:acme/shared-persistent")[cache].confidence is Confidence.CERTAIN
    # ... except through the repository: its default token may write acme/app, whose pushed code runs in release
    # and test on build-01 (possible)
    assert br[cache].confidence is Confidence.POSSIBLE
    assert [h.kind.value for h in br[cache].path][:3] == ["receives_job", "has_token", "writes_repository"]
    # with a read-only token nothing of build-01 is reached
    write(tmp_path / "acme__app", f"{WF}/ci.yml", "permissions: {contents: read}\n" + CACHE_WF)
    g = build(tmp_path, "acme__app", inv=inventory(tmp_path, CACHE_INV)).graph
    br = blast_radius(g, "runner:acme/elsewhere-eph")
    assert jid("acme/app", "ci.yml", "test") in br
    assert cache not in br and "secret:repo:acme/app:RELEASE_TOKEN" not in br
