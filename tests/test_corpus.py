"""The real corpus end to end: seven checkouts + a runner inventory written here.

``shared/corpus/github-actions`` holds unmodified workflow files of seven public
repositories.  The ingestor alone is tested on them in ``test_github_actions.py``;
here the whole pipeline runs (``build_graph``: ingest, merge with a runner
inventory, resolve) and the assertions are on routing edges, inferred pools and
blast radius.  Every expected value below was checked by reading the YAML
(file and line given next to it).

The inventory (:data:`INVENTORY`) is made up: it declares org runners for some
of the self-hosted labels the pytorch and grafana workflows ask for, and
deliberately leaves others out (they must become inferred pools).
"""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
from conftest import require

from graphkit.analysis import blast_radius
from graphkit.build import BuildResult, build_graph
from graphkit.findings import run_rules
from graphkit.graph import Graph
from graphkit.model import Confidence, EdgeKind, Lifetime, NodeKind, ids

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
GHA = CORPUS / "github-actions"

require(GHA.is_dir(), f"corpus not present at {GHA} (shared/corpus/github-actions)", allow_module_level=True, corpus=True)

pytestmark = pytest.mark.corpus

C, P = Confidence.CERTAIN, Confidence.POSSIBLE
TI, AO = "pytorch/test-infra", "pytorch/ao"

#: Public repositories: GitHub runner groups refuse them unless ``allows_public_repositories``.
INVENTORY = """\
schema: graphkit.runner-inventory/v1
organizations:
  - name: pytorch
    secrets_complete: false
    secrets:
      - {name: HUD_API_TOKEN, visibility: all}
      - {name: CLICKHOUSE_HUD_USER_URL, visibility: selected, selected_repositories: [pytorch/test-infra]}
      - {name: NOT_FOR_TEST_INFRA, visibility: selected, selected_repositories: [pytorch/ao]}
    runner_groups:
      - {name: Default, visibility: all, allows_public_repositories: @PUBLIC@}
      - {name: gpu, visibility: selected, selected_repositories: [pytorch/ao], allows_public_repositories: @PUBLIC@}
  - name: grafana
    runner_groups:
      - {name: Default, visibility: all, allows_public_repositories: @PUBLIC@}
repositories:
  - full_name: pytorch/test-infra
    visibility: public
    default_branch: main
    secrets: [AWS_INFRA_ALERTS_LAMBDA_URL, TEST_REPORT_AWS_LAMBDA_TOKEN,
              CLICKHOUSE_HUD_USER_USERNAME, CLICKHOUSE_HUD_USER_PASSWORD]
  - {full_name: pytorch/ao, visibility: public, default_branch: main}
  - {full_name: grafana/shared-workflows, visibility: public, default_branch: main}
hosts:
  - name: pt-build-01
    os: linux
    ephemeral: false
    credentials:
      - credential_type: aws
        path: ~/.aws/credentials
        fingerprint: "a1b2c3d4e5f60718"
        grants:
          - {access: assumes_role, target: "cloud_role:aws:arn:aws:iam::308535385114:role/ossci-runner"}
    caches:
      - {path: /opt/hostedtoolcache, kind: toolcache}
runners:
  - {name: pt-2xl-persistent, labels: [self-hosted, Linux, X64, linux.2xlarge], scope: pytorch,
     runner_group: Default, ephemeral: false, host: pt-build-01}
  - {name: pt-4xl-eph, labels: [self-hosted, Linux, linux.4xlarge], scope: pytorch, runner_group: Default,
     ephemeral: true}
  - {name: pt-large-eph, labels: [self-hosted, linux.large], scope: pytorch, runner_group: Default, ephemeral: true}
  - {name: pt-12xl-eph, labels: [self-hosted, linux.12xlarge], scope: pytorch, runner_group: Default, ephemeral: true}
  - {name: pt-a10g, labels: [self-hosted, linux.g5.12xlarge.nvidia.gpu], scope: pytorch, runner_group: gpu,
     ephemeral: true}
  - {name: pt-mt-x86, labels: [self-hosted, mt-l-x86iamx-8-16], scope: pytorch, runner_group: Default,
     ephemeral: true}
  - {name: pt-m1, labels: [self-hosted, macos-m1-stable], scope: pytorch, runner_group: Default, ephemeral: false}
  - {name: grafana-small-1, labels: [self-hosted, ubuntu-x64-small], scope: grafana, runner_group: Default,
     ephemeral: false}
"""

#: Self-hosted label sets of the corpus deliberately left out of INVENTORY.
LEFT_OUT_POOLS = {
    "runner:inferred:pytorch:linux.arm64.2xlarge+self-hosted",
    "runner:inferred:pytorch:linux.arm64.m8g.4xlarge+self-hosted",
    "runner:inferred:pytorch:linux.g6.4xlarge.experimental.nvidia.gpu+self-hosted",
    "runner:inferred:pytorch:linux.idc.xpu+self-hosted",
    "runner:inferred:pytorch:linux.rocm.gpu.ecosystem.gfx950.1+self-hosted",
    "runner:inferred:pytorch:linux.rocm.gpu.ecosystem.mi350.1+self-hosted",
    "runner:inferred:pytorch:mt-l-arm64g2-6-32+self-hosted",
    "runner:inferred:pytorch:mt-l-arm64g4-16-62+self-hosted",
    "runner:inferred:pytorch:mt-l-x86aavx2-29-113-l4+self-hosted",
    "runner:inferred:pytorch:mt-l-x86iamx-22-225-h100+self-hosted",
    "runner:inferred:pytorch:mt-l-x86iamx-88-900-h100-4+self-hosted",
    "runner:inferred:pytorch:mt-l-x86iavx512-11-125-a100+self-hosted",
    "runner:inferred:pytorch:mt-l-x86iavx512-8-64+self-hosted",
    "runner:inferred:pytorch:mt-rel-l-arm64g4-16-62+self-hosted",
    "runner:inferred:pytorch:mt-rel-l-x86iavx512-8-64+self-hosted",
    # sigstore/cosign and sigstore-python call reusable workflows not in the corpus (runs-on unknown): no
    # sigstore file names a self-hosted label, so no sigstore pool is made up for them
}
#: The jobs of the corpus that call a reusable workflow not in it (where they run is unknown).
UNREAD_CALLERS = {
    "job:pytorch/ao/.github/workflows/build_wheels_linux_aarch64.yml#build",
    "job:pytorch/ao/.github/workflows/build_wheels_linux_x86.yml#build",
    "job:pytorch/ao/.github/workflows/claude-code.yml#claude-code",
    "job:pytorch/ao/.github/workflows/validate-binaries.yml#validate-binaries",
    "job:pytorch/test-infra/.github/workflows/test_build_wheels_linux_with_cuda.yml#test",
    "job:sigstore/cosign/.github/workflows/cut-release.yml#cut-release",
    "job:sigstore/cosign/.github/workflows/depsreview.yml#dependency-review",
    "job:sigstore/sigstore-python/.github/workflows/release.yml#pin-requirements",
}
#: Pools replaced by INVENTORY runners.
SERVED_POOLS = {
    "runner:inferred:pytorch:linux.2xlarge+self-hosted",
    "runner:inferred:pytorch:linux.4xlarge+self-hosted",
    "runner:inferred:pytorch:linux.large+self-hosted",
    "runner:inferred:pytorch:linux.12xlarge+self-hosted",
    "runner:inferred:pytorch:linux.g5.12xlarge.nvidia.gpu+self-hosted",
    "runner:inferred:pytorch:mt-l-x86iamx-8-16+self-hosted",
    "runner:inferred:pytorch:macos-m1-stable+self-hosted",
    "runner:inferred:grafana:self-hosted+ubuntu-x64-small",
}


def _build(tmp: Path, *, public: bool | None) -> BuildResult:
    inputs: dict[str, list[Path]] = {"github-actions": [GHA]}
    if public is not None:
        inv = tmp / "inventory.yaml"
        inv.write_text(INVENTORY.replace("@PUBLIC@", "true" if public else "false"))
        inputs["runners"] = [inv]
    return build_graph(inputs)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    return _build(tmp_path_factory.mktemp("inv"), public=True)


@pytest.fixture(scope="module")
def g(built: BuildResult) -> Graph:
    return built.graph


@pytest.fixture(scope="module")
def bare() -> BuildResult:
    return _build(Path("."), public=None)


def jid(repo: str, path: str, key: str) -> str:
    return ids.job(repo, f".github/workflows/{path}", key)


def linked(g: Graph, runner: str, *, unresolved: bool = False) -> dict[str, list]:
    """job -> RECEIVES_JOB edges from ``runner`` (those of unresolved ``runs-on`` only when asked)."""
    out: dict[str, list] = collections.defaultdict(list)
    for e in g.out_edges(runner):
        if e.kind is EdgeKind.RECEIVES_JOB and (e.key == "unresolved") == unresolved:
            out[e.target].append(e)
    return dict(out)


def runners_of(g: Graph, job: str) -> set[str]:
    return {e.source for e in g.in_edges(job) if e.kind is EdgeKind.RECEIVES_JOB}


# --------------------------------------------------------------------------- counts


def test_counts_per_repository_and_no_problems(built: BuildResult, g: Graph):
    assert built.problems == []
    workflows = collections.Counter(w.repository for w in g.nodes(NodeKind.WORKFLOW) if not w.inferred)
    assert workflows == {TI: 63, AO: 18, "sigstore/cosign": 17, "grafana/shared-workflows": 13,
                         "sigstore/sigstore-python": 5, "actions/actions-runner-controller": 4,
                         "aws-actions/configure-aws-credentials": 2}
    # job nodes written in each repository's own files (`caller` None): equal to the number of keys under
    # `jobs:` (checked with PyYAML), reusable workflows with ingested callers included: they keep an instance
    # for callers outside the corpus (issue 10; test-infra 105 keys, grafana 19 keys)
    own = collections.Counter(j.repository for j in g.nodes(NodeKind.JOB) if j.caller is None)
    assert own == {TI: 105, AO: 27, "actions/actions-runner-controller": 25, "sigstore/cosign": 25,
                   "grafana/shared-workflows": 19, "sigstore/sigstore-python": 12,
                   "aws-actions/configure-aws-credentials": 8}
    instances = collections.Counter(j.repository for j in g.nodes(NodeKind.JOB) if j.caller is not None)
    # + build_wheels_{macos,windows}.yml#upload > _binary_upload.yml#upload under those instances
    assert instances == {TI: 40, "grafana/shared-workflows": 5}
    assert g.counts()["nodes"]["job"] == 266


# --------------------------------------------------------------------------- routing to inventory runners


def test_linux_2xlarge_runner_receives_the_right_jobs_with_evidence(g: Graph):
    r = "runner:pytorch/pt-2xl-persistent"
    got = {job: [(e.key, e.confidence, e.lifetime, e.evidence[0].file, e.evidence[0].line) for e in es]
           for job, es in linked(g, r).items()}
    wf = ".github/workflows/"
    assert got == {
        # update_test_file_report.yml:18 / :67 `runs-on: linux.2xlarge`
        jid(TI, "update_test_file_report.yml", "file-report"):
            [("", C, Lifetime.UNTIL_RUNNER_REMOVED, wf + "update_test_file_report.yml", 18)],
        jid(TI, "update_test_file_report.yml", "weekly-file-report-notification"):
            [("", C, Lifetime.UNTIL_RUNNER_REMOVED, wf + "update_test_file_report.yml", 67)],
        # upload_benchmark_results.yml:41 (reusable, no caller in the corpus: possible, issue 10)
        jid(TI, "upload_benchmark_results.yml", "job"):
            [("", P, Lifetime.UNTIL_RUNNER_REMOVED, wf + "upload_benchmark_results.yml", 41)],
        # ao doc_build.yml:61 `runs-on: [self-hosted, linux.2xlarge]`
        jid(AO, "doc_build.yml", "doc-preview"):
            [("", C, Lifetime.UNTIL_RUNNER_REMOVED, wf + "doc_build.yml", 61)],
        # linux_job.yml:122 `runs-on: ${{ inputs.runner }}`, input default "linux.2xlarge" (line 16) of an
        # unknown caller: possible
        jid(TI, "linux_job.yml", "job"):
            [("", P, Lifetime.UNTIL_RUNNER_REMOVED, wf + "linux_job.yml", 122)],
        # linux_job_v2.yml:142 the same for callers outside the corpus (its ao callers pass other runners)
        jid(TI, "linux_job_v2.yml", "job"):
            [("", P, Lifetime.UNTIL_RUNNER_REMOVED, wf + "linux_job_v2.yml", 142)],
    }
    assert g.node(r).inferred is False


def test_ephemeral_runners_get_possible_per_job_edges(g: Graph):
    # build-gcc.yml:40 `runs-on: ${{ matrix.runner }}`, matrix.include runner mt-l-x86iamx-8-16 (line 28)
    (e,) = linked(g, "runner:pytorch/pt-mt-x86")[jid(TI, "build-gcc.yml", "build")]
    assert (e.confidence, e.lifetime, e.evidence[0].line) == (P, Lifetime.PER_JOB, 40)
    assert '"runner":"mt-l-x86iamx-8-16"' in e.key
    # the aarch64 instance of the same job goes to the (left out) inferred pool, not to this runner
    pool = "runner:inferred:pytorch:mt-l-arm64g2-6-32+self-hosted"
    (pe,) = linked(g, pool)[jid(TI, "build-gcc.yml", "build")]
    assert '"runner":"mt-l-arm64g2-6-32"' in pe.key and pe.confidence is P
    # update_disabled_tests.yml:107 and update_test_file_ratings.yml:109 `runs-on: linux.large`
    assert {j: [x.evidence[0].line for x in es] for j, es in linked(g, "runner:pytorch/pt-large-eph").items()} == {
        jid(TI, "update_disabled_tests.yml", "upload-disabled-tests-s3"): [107],
        jid(TI, "update_test_file_ratings.yml", "update-ec2-pricing"): [109]}
    assert all(e.lifetime is Lifetime.PER_JOB and e.confidence is P
               for es in linked(g, "runner:pytorch/pt-large-eph", unresolved=True).values() for e in es)


def test_gpu_group_selected_for_ao_only(g: Graph):
    # regression_test.yml matrix -> linux_job_v2.yml:142 `runs-on: ${{ inputs.runner }}`
    jobs = set(linked(g, "runner:pytorch/pt-a10g"))
    v2 = ">pytorch/test-infra/.github/workflows/linux_job_v2.yml#job"
    assert jobs == {jid(AO, "nightly_smoke_test.yml", "test") + v2, jid(AO, "regression_test.yml", "test") + v2,
                    jid(AO, "regression_test.yml", "test-nightly") + v2,
                    jid(AO, "regression_test_pt2e_gpu.yml", "test") + v2}
    # the group is selected for pytorch/ao: unresolved jobs of test-infra never reach it
    unresolved = set(linked(g, "runner:pytorch/pt-a10g", unresolved=True))
    assert unresolved and all(g.node(j).secrets_repository == AO for j in unresolved)


def test_macos_and_grafana_runners(g: Graph):
    m1 = linked(g, "runner:pytorch/pt-m1")
    assert {j: [(e.confidence, e.evidence[0].file, e.evidence[0].line) for e in es] for j, es in m1.items()} == {
        jid(TI, "clang-tidy-macos.yml", "build-M1"): [(C, ".github/workflows/clang-tidy-macos.yml", 57)],
        jid(TI, "test_build_wheels_m1.yml", "test") + ">pytorch/test-infra/.github/workflows/build_wheels_macos.yml#build":
            [(C, ".github/workflows/build_wheels_macos.yml", 118)]}
    # sign-and-attest.yml:67 `runs-on: ubuntu-x64-small` (a grafana larger-runner name, not GitHub-hosted);
    # reusable with no caller in the corpus: possible (issue 10)
    gr = linked(g, "runner:grafana/grafana-small-1")
    assert {j: [(e.confidence, e.evidence[0].line) for e in es] for j, es in gr.items()} == {
        jid("grafana/shared-workflows", "sign-and-attest.yml", "sign-and-attest"): [(P, 67)]}


def test_github_hosted_jobs_not_linked(g: Graph):
    for job in (jid(TI, "update_test_file_ratings.yml", "update-test-file-ratings"),  # line 17 ubuntu-latest
                jid(AO, "doc_build.yml", "upload"),                                    # line 115 ubuntu-latest
                jid("sigstore/sigstore-python", "release.yml", "release-pypi")):
        assert job in g and runners_of(g, job) == set()
    unlinked = [j for j in g.nodes(NodeKind.JOB) if not runners_of(g, j.id)]
    # 195 before issue 10, + 11 instances for callers outside the corpus, + the 3 sigstore jobs calling workflows
    # not in the corpus (their runners are unknown: none is made up)
    assert len(unlinked) == 209


def test_inferred_pools_only_for_labels_left_out(g: Graph):
    pools = {n.id for n in g.nodes(NodeKind.RUNNER) if n.inferred}
    assert pools == LEFT_OUT_POOLS
    assert not pools & SERVED_POOLS
    # xpu_test.yml:29 `runs-on: linux.idc.xpu`
    (e,) = linked(g, "runner:inferred:pytorch:linux.idc.xpu+self-hosted")[jid(AO, "xpu_test.yml", "test")]
    assert (e.confidence, e.evidence[0].line) == (P, 29)
    # eleven test_linux_job_v3.yml callers -> linux_job_v3.yml:126 on mt-l-x86iavx512-8-64, and the instance
    # for callers outside the corpus (input default)
    assert len(linked(g, "runner:inferred:pytorch:mt-l-x86iavx512-8-64+self-hosted")) == 12


# --------------------------------------------------------------------------- blast radius


def test_persistent_runner_blast_radius(g: Graph):
    br = blast_radius(g, "runner:pytorch/pt-2xl-persistent")
    # update_test_file_report.yml:54-55 read these repository secrets
    for name in ("TEST_REPORT_AWS_LAMBDA_TOKEN", "AWS_INFRA_ALERTS_LAMBDA_URL",
                 "CLICKHOUSE_HUD_USER_USERNAME", "CLICKHOUSE_HUD_USER_PASSWORD"):
        r = br[ids.secret_repo("pytorch/test-infra", name)]
        assert r.confidence is C and r.lifetime is Lifetime.UNTIL_ROTATED
        assert [h.kind for h in r.path] == [EdgeKind.RECEIVES_JOB, EdgeKind.READS_SECRET]
    # org secrets: possible because the repository's own list is not complete (could shadow)
    assert br["secret:org:pytorch:HUD_API_TOKEN"].confidence is P
    assert br["secret:org:pytorch:CLICKHOUSE_HUD_USER_URL"].confidence is P
    # the host's on-disk AWS credential: certain and long-lived
    role = br["cloud_role:aws:arn:aws:iam::308535385114:role/ossci-runner"]
    assert role.confidence is C
    assert [h.kind for h in role.path] == [EdgeKind.RUNS_ON_HOST, EdgeKind.STORES_CREDENTIAL, EdgeKind.ASSUMES_ROLE]
    # OIDC roles of jobs whose runs-on is an expression (mobile_job.yml, build-pypi-cache.yml): possible
    for arn in ("arn:aws:iam::308535385114:role/gha_workflow_mobile_job",
                "arn:aws:iam::308535385114:role/gha_workflow_pypi_wheel_cache"):
        assert br[ids.cloud_role("aws", arn)].confidence is P
    # doc_build.yml:75-79 seemethere/upload-artifact-s3 to s3-bucket doc-previews
    assert br["target:bucket:s3://doc-previews"].confidence is C
    assert {r.id for r in br if r.kind is NodeKind.JOB and r.confidence is C} == set(
        linked(g, "runner:pytorch/pt-2xl-persistent")) - {jid(TI, "linux_job.yml", "job"),
                                                          jid(TI, "linux_job_v2.yml", "job"),
                                                          jid(TI, "upload_benchmark_results.yml", "job")}
    # the persistent host's runner-on-runner view is the same set plus the runner itself
    host = blast_radius(g, "host:pt-build-01")
    assert host.ids == (br.ids - {"host:pt-build-01"}) | {"runner:pytorch/pt-2xl-persistent"}


def test_ephemeral_runner_reaches_build_gcc_oidc_role(g: Graph):
    br = blast_radius(g, "runner:pytorch/pt-mt-x86")
    # build-gcc.yml:11 `id-token: write`, :98 role-to-assume arn:aws:iam::308535385114:role/arc; the same in
    # build-clang.yml:11 / :136 (its x86_64 matrix entry also runs on mt-l-x86iamx-8-16, line 58)
    arc = br["cloud_role:aws:arn:aws:iam::308535385114:role/arc"]
    assert arc.confidence is P
    assert [h.kind for h in arc.path] == [EdgeKind.RECEIVES_JOB, EdgeKind.MINTS_OIDC, EdgeKind.ASSUMES_ROLE]
    gcc, clang = jid(TI, "build-gcc.yml", "build"), jid(TI, "build-clang.yml", "build")
    assert arc.path[0].target in (gcc, clang)
    assert {gcc, clang} <= set(linked(g, "runner:pytorch/pt-mt-x86"))
    for job in (gcc, clang):
        roles = {e.target for e in g.out_edges(ids.oidc_identity(job)) if e.kind is EdgeKind.ASSUMES_ROLE}
        assert roles == {"cloud_role:aws:arn:aws:iam::308535385114:role/arc"}
    # the host credential of pt-build-01 (not on that host) only through a repository write: a job's token pushes
    # code that a job landing on pt-build-01 runs (writes_repository, runs_code_in: possible)
    for far in ("credential:pt-build-01:~/.aws/credentials", "cloud_role:aws:arn:aws:iam::308535385114:role/ossci-runner"):
        assert br[far].confidence is P
        assert {EdgeKind.WRITES_REPOSITORY, EdgeKind.RUNS_CODE_IN} <= {h.kind for h in br[far].path}


def test_a_run_time_runs_on_goes_to_the_runners_the_repository_can_use(g: Graph):
    """reusable-zizmor.yml:266 `runs-on: ${{ inputs.runs-on }}`: possible (key ``unresolved``) on grafana's one
    runner the public repository may use (the group allows public repositories here), and no pool."""
    zizmor = jid("grafana/shared-workflows", "reusable-zizmor.yml", "analysis")
    assert {(e.source, e.key, e.confidence) for e in g.in_edges(zizmor) if e.kind is EdgeKind.RECEIVES_JOB} == {
        ("runner:grafana/grafana-small-1", "unresolved", P)}
    assert not [n for n in g.nodes(NodeKind.RUNNER) if n.inferred and n.scope == "grafana"]


def test_grafana_runner_reaches_sigstore_identity(g: Graph):
    br = blast_radius(g, "runner:grafana/grafana-small-1")
    key = "signing_key:sigstore:github.com/grafana/shared-workflows/.github/workflows/sign-and-attest.yml"
    # sign-and-attest.yml is reusable with no caller in the corpus: it runs here only for some caller (issue 10)
    assert br[key].confidence is P and br[key].criticality.value == "critical"
    assert {r.kind for r in br} == {NodeKind.JOB, NodeKind.GITHUB_TOKEN, NodeKind.OIDC_IDENTITY, NodeKind.CLOUD_ROLE,
                                    NodeKind.SIGNING_KEY, NodeKind.REPOSITORY, NodeKind.CACHE}
    # reusable-zizmor.yml for a caller outside the corpus: `runs-on: ${{ inputs.runs-on }}` may name this runner
    assert br["cache:actions:grafana/shared-workflows"].confidence is P
    assert {r.confidence for r in br if r.id != "runner:grafana/grafana-small-1"} == {P}
    assert not any(r.id.startswith(("job:pytorch", "secret:")) for r in br)


# --------------------------------------------------------------------------- other builds


def test_public_repositories_refused_by_default_group_settings(tmp_path: Path):
    """``allows_public_repositories`` defaults to false: the (public) corpus repos route to no real runner.

    And no pool either, as the label sets *are* served (group access is not considered for pools).
    """
    res = _build(tmp_path, public=False)
    assert res.problems == []
    g = res.graph
    for r in ("runner:pytorch/pt-2xl-persistent", "runner:pytorch/pt-a10g", "runner:grafana/grafana-small-1"):
        assert linked(g, r) == {} and linked(g, r, unresolved=True) == {}
    assert runners_of(g, jid(TI, "update_test_file_report.yml", "file-report")) == set()
    assert {n.id for n in g.nodes(NodeKind.RUNNER) if n.inferred} == LEFT_OUT_POOLS
    # reusable-zizmor.yml:266 `runs-on: ${{ inputs.runs-on }}` for callers outside the corpus: the input's default
    # (ubuntu-latest, GitHub-hosted) or any runs-on a caller passes, GitHub-hosted among them, so no grafana pool
    # is invented (there was a catch-all runner:inferred:grafana:self-hosted); with no runner the repository can
    # use, the job stays unresolved
    zizmor = jid("grafana/shared-workflows", "reusable-zizmor.yml", "analysis")
    job = g.node(zizmor)
    assert [(c.labels, c.confidence) for c in job.runs_on] == [(("ubuntu-latest",), P)]
    assert job.runs_on_unresolved.line == 266
    assert runners_of(g, zizmor) == set() and zizmor in g.meta.resolve.unresolved_jobs


def test_no_inventory_whole_corpus(bare: BuildResult):
    assert bare.problems == []
    g = bare.graph
    runners = list(g.nodes(NodeKind.RUNNER))
    assert all(r.inferred for r in runners)
    assert {r.id for r in runners} == LEFT_OUT_POOLS | SERVED_POOLS
    per_owner = collections.Counter(r.scope for r in runners)
    assert per_owner == {"pytorch": 22, "grafana": 1}
    edges = list(g.edges(EdgeKind.RECEIVES_JOB))
    # 269 before issue 10; + 94 of the instances for callers outside the corpus: build_wheels_{macos,windows}#build,
    # linux_job_v2/v3#job unresolved (4 x 22), reusable-zizmor's four jobs (4 x 1), v2/v3 input defaults (2);
    # - 3 of the sigstore jobs calling workflows not in the corpus (no pool made up for them)
    assert len(edges) == 360 and {e.confidence for e in edges} == {P}
    # fourteen pytorch jobs have unresolvable runs-on: each links to every one of the 22 pytorch pools
    unresolved = collections.Counter(e.target for e in edges if e.key == "unresolved")
    assert len([j for j in unresolved if j.startswith("job:pytorch/")]) == 14
    assert all(n == 22 for j, n in unresolved.items() if j.startswith("job:pytorch/"))
    # sigstore: three jobs calling workflows outside the corpus, routed nowhere (no runner, no pool of sigstore),
    # unresolved and reported by called-workflow-not-read; the pytorch callers go to the 22 pools (possible)
    sig = {j for j in UNREAD_CALLERS if j.startswith("job:sigstore/")}
    assert len(sig) == 3 and sig <= set(g.meta.resolve.unresolved_jobs)
    assert not any(e.target in sig for e in edges)
    assert all(unresolved[j] == 22 and all(e.props.get("called_workflow_unread") for e in edges if e.target == j)
               for j in UNREAD_CALLERS - sig)
    found = {f.subject: f for f in run_rules(g, only=["called-workflow-not-read"])}
    assert set(found) == UNREAD_CALLERS
    assert {f.confidence for f in found.values()} == {P}
    assert found["job:pytorch/ao/.github/workflows/claude-code.yml#claude-code"].severity.value == "medium"
    (e,) = linked(g, "runner:inferred:pytorch:linux.2xlarge+self-hosted")[
        jid(TI, "update_test_file_report.yml", "file-report")]
    assert (e.confidence, e.evidence[0].line) == (P, 18)


POOL_2XL = "runner:inferred:pytorch:linux.2xlarge+self-hosted"


def test_runbook_top_computes_only_the_first_steps_and_says_the_plan_goes_on(bare: BuildResult, tmp_path: Path):
    # README "blast-radius": an explicit --top N computes only the first N plan steps, for --from too
    from typer.testing import CliRunner

    from graphkit.cli import app
    path = tmp_path / "g.json"
    bare.graph.save(path)
    args = ["blast-radius", "--graph", str(path), "--from", POOL_2XL, "--format", "runbook", "--now",
            "2026-12-01T20:00:00Z"]
    whole = CliRunner().invoke(app, args)
    top = CliRunner().invoke(app, [*args, "--top", "3"])
    assert whole.exit_code == top.exit_code == 0, top.output
    steps = [line for line in whole.output.splitlines() if line.startswith("- [ ] **")]
    assert len(steps) == 61  # the pool's jobs' tokens write pytorch repositories: their jobs lead on (runs_code_in)
    got = [line for line in top.output.splitlines() if line.startswith("- [ ] **")]
    assert got == steps[:3]
    assert top.output.count("# --- step ") == 3 and whole.output.count("# --- step ") == 61
    note = "Only the first 3 steps were computed (--top 3): the plan goes on; run without --top for every step."
    assert note in top.output.splitlines() and f"# {note}" in top.output.splitlines()
    assert "the plan goes on" not in whole.output
    assert "weighted blast radius 3752 -> 740." in top.output and "weighted blast radius 3752 -> 0." in whole.output
    exact = CliRunner().invoke(app, [*args, "--top", "61"])
    assert "the plan goes on" not in exact.output and exact.output.count("# --- step ") == 61


def test_runbook_texts_of_unenumerated_and_scope_unknown_secrets(bare: BuildResult):
    # secret:all:REPO (the job ships every secret: toJSON(secrets)) and a secret referenced but declared nowhere
    from graphkit.output import Clock, runbook_text
    from graphkit.analysis.timeline import parse_time
    text = runbook_text(bare.graph, POOL_2XL, clock=Clock(now=parse_time("2026-12-01T20:00:00Z")))
    lines = text.splitlines()
    assert ("  - Rotate every secret visible to pytorch/ao at its issuer (the inputs do not name them: its "
            "repository, environment and organization secrets), then store the new values "
            "([doc](https://cli.github.com/manual/gh_secret_set))") in lines
    assert ("  - Revoke PYPI_API_TOKEN at its issuer and issue a new value, then store it where pytorch/ao defines it "
            "(a repository, environment or organization secret: the inputs do not say which) "
            "([doc](https://cli.github.com/manual/gh_secret_set))") in lines
    assert "every secret every secret" not in text and "Rotate every secret pytorch/" not in text
    assert "(not enumerated)" not in text and "(scope unknown)" not in text
