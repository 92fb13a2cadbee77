"""Runner routing and workflow reading where graphkit disagreed with GitHub, each found in a public bug report, with
the smallest workflow that shows it and the values GitHub's documentation gives.

- ARC runner scale sets have no ``self-hosted`` label: ``runs-on: self-hosted`` or ``[self-hosted, NAME]`` never
  reaches them, only the scale set's name does ("Using ARC runners in a workflow",
  https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/use-arc-in-a-workflow; "Note that
  Actions Runner Controller does not support multiple labels and does not support the self-hosted label",
  https://docs.github.com/en/enterprise-server@3.14/actions/hosting-your-own-runners/managing-self-hosted-runners/using-self-hosted-runners-in-a-workflow;
  actions/actions-runner-controller#3330; kunobi-ninja/kache#363 and evoila/meho#167, jobs queued forever).
- A GitHub-hosted label that a self-hosted runner carries too (``ubuntu-20.04``) sends the job to that runner as
  well: cocotb/cocotb#3626 ("a job assigned only the label ubuntu-20.04 ... got executed on our self-hosted
  runners"); GitHub recommends ``self-hosted`` "to ensure that your job does not unintentionally specify any current
  or future GitHub-hosted runners".
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from graphkit.build import build_graph
from graphkit.hosted import is_self_hosted
from graphkit.model import EdgeKind, RunnerPods, ids

HERE = Path(__file__).resolve().parent
ARC = HERE / "fixtures" / "k8s" / "prod-eu"
WF = ".github/workflows/ci.yml"


def _write(root: Path, repo: str, path: str, text: str) -> Path:
    f = root / repo / path
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(textwrap.dedent(text), encoding="utf-8")
    return root / repo


def _receives(g, job: str) -> list[tuple[str, str, str]]:
    return sorted((e.source, e.key, e.confidence.value) for e in g.in_edges(ids.job("acme/app", WF, job))
                  if e.kind is EdgeKind.RECEIVES_JOB)


# --------------------------------------------------------------------------------------------- ARC scale sets

ARC_JOBS = """\
    on: push
    jobs:
      plain:
        runs-on: self-hosted
        steps: [{run: make}]
      with-name:
        runs-on: [self-hosted, arc-dind]
        steps: [{run: make}]
      name:
        runs-on: arc-dind
        steps: [{run: make}]
      name-upper:
        runs-on: ARC-Dind
        steps: [{run: make}]
    """


def test_a_scale_set_is_reached_by_its_name_only(tmp_path):
    """The fixture cluster's two AutoscalingRunnerSets (arc-dind, arc-deploy, group k8s): only the jobs naming
    arc-dind reach it (possible: its runners are ephemeral); ``self-hosted`` reaches neither, so those jobs wait for
    a runner graphkit was not shown (inferred pools, as for any label set no known runner has)."""
    repos = _write(tmp_path, "acme__app", WF, ARC_JOBS).parent
    g = build_graph({"github-actions": [repos], "k8s": [ARC]}).graph
    assert _receives(g, "name") == [("runner:acme/arc-dind", "", "possible")]
    assert _receives(g, "name-upper") == [("runner:acme/arc-dind", "", "possible")]
    assert _receives(g, "with-name") == [("runner:inferred:acme:arc-dind+self-hosted", "", "possible")]
    assert _receives(g, "plain") == [("runner:inferred:acme:arc-dind+self-hosted", "", "possible"),
                                     ("runner:inferred:acme:self-hosted", "", "possible")]


@pytest.mark.parametrize("resource, scale_set", [
    ("AutoscalingRunnerSet/arc-dind", True), ("values", True),  # gha-runner-scale-set chart values
    ("RunnerDeployment/big", False), ("RunnerSet/big", False), ("Runner/one", False)])
def test_which_arc_pools_are_scale_sets(resource, scale_set):
    assert RunnerPods(cluster="target:cluster:c", namespace="ns", resource=resource).scale_set is scale_set


def test_a_legacy_arc_pool_keeps_the_self_hosted_label(tmp_path):
    """A summerwind RunnerDeployment registers its pods with config.sh: ``self-hosted`` and ``linux`` are theirs."""
    repos = _write(tmp_path, "acme__app", WF, """\
        on: push
        jobs:
          plain:
            runs-on: [self-hosted, linux, big]
            steps: [{run: make}]
        """).parent
    (tmp_path / "arc.yaml").write_text(textwrap.dedent("""\
        apiVersion: actions.summerwind.dev/v1alpha1
        kind: RunnerDeployment
        metadata: {name: big-runners, namespace: ci}
        spec:
          template:
            spec:
              organization: acme
              labels: [big]
        """), encoding="utf-8")
    g = build_graph({"github-actions": [repos], "k8s": [tmp_path / "arc.yaml"]}).graph
    assert _receives(g, "plain") == [("runner:acme/big-runners", "", "possible")]  # its group is not known


# --------------------------------------------------------------------------------------------- hosted labels

INVENTORY = """\
    schema: graphkit.runner-inventory/v1
    organizations:
      - name: acme
        runner_groups:
          - {name: Default, id: 1, visibility: all, allows_public_repositories: true}
    repositories:
      - {full_name: acme/app, visibility: public, default_branch: main}
    runners:
      - {name: lab-1, id: 7, labels: [self-hosted, ubuntu-20.04, Linux, X64], scope: acme, ephemeral: false}
      - {name: lab-2, id: 8, labels: [self-hosted, Linux, X64], scope: acme, ephemeral: false}
    """


def test_a_hosted_label_on_a_self_hosted_runner_routes_there(tmp_path):
    """cocotb/cocotb#3626's shape: the public repository's fork pull requests ran on the lab runner that carries
    ``ubuntu-20.04``; ``ubuntu-latest`` (no runner has it) and the runner without the label get nothing."""
    repos = _write(tmp_path, "acme__app", WF, """\
        on: pull_request
        jobs:
          test:
            runs-on: ubuntu-20.04
            steps: [{run: make test}]
          latest:
            runs-on: ubuntu-latest
            steps: [{run: make test}]
        """).parent
    (tmp_path / "inventory.yaml").write_text(textwrap.dedent(INVENTORY), encoding="utf-8")
    res = build_graph({"github-actions": [repos], "runners": [tmp_path / "inventory.yaml"]})
    assert res.problems == []
    g = res.graph
    assert _receives(g, "test") == [("runner:acme/lab-1", "", "possible")]
    assert _receives(g, "latest") == []
    assert [n.id for n in g.nodes() if getattr(n, "inferred", False) and n.id.startswith("runner:")] == []
    # a fork's pull request runs on lab-1 as routed (no rewrite of runs-on needed); every self-hosted runner of a
    # public repository stays reachable by rewriting runs-on, as before
    fork = ids.untrusted("fork-pr", "acme")
    rewrite = "the pull request can rewrite the job's runs-on"
    latest, test = ids.job("acme/app", WF, "latest"), ids.job("acme/app", WF, "test")
    assert sorted((e.target, e.key, e.confidence.value, e.props.get("reason")) for e in g.out_edges(fork)
                  if e.kind is EdgeKind.CAN_TRIGGER) == [
        ("runner:acme/lab-1", latest, "possible", rewrite), ("runner:acme/lab-1", test, "possible", None),
        ("runner:acme/lab-2", latest, "possible", rewrite), ("runner:acme/lab-2", test, "possible", rewrite)]


@pytest.mark.parametrize("label", ["windows-2025-vs2026", "windows-11-vs2026-arm", "ubuntu-26.04", "ubuntu-26.04-arm",
                                   "macos-26-intel", "Windows-2025-VS2026", "ubuntu-latest-16-cores",
                                   "windows-latest-8-cores"])
def test_current_github_hosted_images_are_hosted(tmp_path, label):
    """Images GitHub added in 2026 (windows-2025-vs2026 GA 2026-05-07, actions/runner-images#14016; the lists of
    zizmor's github-runners.txt and actionlint 1.7.12) and the larger runners GitHub created for every Team and
    Enterprise organization (changelog 2022-10-20; boostsecurityio/poutine#214): a job asking for one runs on
    GitHub's VM, never in an inferred pool of self-hosted runners."""
    assert not is_self_hosted([label])
    repos = _write(tmp_path, "acme__app", WF, f"""\
        on: push
        jobs:
          build:
            runs-on: {label}
            steps: [{{run: make}}]
        """).parent
    g = build_graph({"github-actions": [repos]}).graph
    assert _receives(g, "build") == [] and g.meta.resolve.inferred_pools == []


@pytest.mark.parametrize("label", ["windows-2025-vs", "windows-vs2026", "ubuntu-26.04-arm64", "macos-26-intel-arm",
                                   "ubuntu-latest-32-cores-gpu"])
def test_lookalike_labels_stay_self_hosted(label):
    assert is_self_hosted([label])


# --------------------------------------------------------------------------------------------- format() in runs-on

FORMAT_JOBS = """\
    on: push
    jobs:
      sized:
        strategy:
          matrix:
            size: [large, small]
        runs-on: ${{ format('linux-{0}', matrix.size) }}
        steps: [{run: make}]
      pair:
        strategy:
          matrix:
            include:
              - {os: linux, arch: gpu}
        runs-on: [self-hosted, "${{ format('{0}-{1}', matrix.os, matrix.arch) }}"]
        steps: [{run: make}]
      braces:
        runs-on: ${{ format('{{{0}', 'x') }}
        steps: [{run: make}]
      escaped:
        runs-on: ${{ format('{{0}}-{0}', 'linux') }}
        steps: [{run: make}]
      quoted:
        runs-on: [self-hosted, "${{ format('it''s-}}{0}', 'x') }}"]
        steps: [{run: make}]
      unknown:
        runs-on: ${{ format('linux-{0}', vars.SIZE) }}
        steps: [{run: make}]
    """


def test_format_in_runs_on_is_evaluated(tmp_path):
    """``format()`` of literals and a static matrix is known before the run (GitHub "Expressions", format:
    https://docs.github.com/en/actions/reference/workflows-and-actions/expressions#format; the shape of zizmor's
    self-hosted-runner false positives with static matrices, zizmorcore/zizmor#113): each instance asks for its
    labels, certain; an argument known only at run time leaves the runs-on unresolved, as before."""
    repos = _write(tmp_path, "acme__app", WF, FORMAT_JOBS).parent
    g = build_graph({"github-actions": [repos]}).graph
    job = lambda key: g.node(ids.job("acme/app", WF, key))  # noqa: E731
    assert [(c.labels, c.matrix, c.confidence.value) for c in job("sized").runs_on] == [
        (("linux-large",), {"size": "large"}, "certain"), (("linux-small",), {"size": "small"}, "certain")]
    assert [(c.labels, c.confidence.value) for c in job("pair").runs_on] == [(("self-hosted", "linux-gpu"), "certain")]
    assert [(c.labels, c.confidence.value) for c in job("braces").runs_on] == [(("{x",), "certain")]
    assert job("unknown").runs_on == [] and job("unknown").runs_on_unresolved is not None
    assert job("sized").runs_on_unresolved is None
    # a ``}}`` inside a string literal does not end the expression; ``{{``/``}}`` are escaped braces (newuser2-s29
    # defect 2: the expression was cut at the first ``}}`` and its tail became a bogus pool every dynamic job joined)
    assert [(c.labels, c.confidence.value) for c in job("escaped").runs_on] == [(("{0}-linux",), "certain")]
    assert [(c.labels, c.confidence.value) for c in job("quoted").runs_on] == [(("self-hosted", "it's-}x"), "certain")]
    assert sorted(n.id for n in g.nodes() if n.id.startswith("runner:inferred:")) == [
        "runner:inferred:acme:it's-}x+self-hosted", "runner:inferred:acme:linux-gpu+self-hosted",
        "runner:inferred:acme:linux-large+self-hosted", "runner:inferred:acme:linux-small+self-hosted",
        "runner:inferred:acme:self-hosted+{0}-linux", "runner:inferred:acme:self-hosted+{x"]


# --------------------------------------------------------------------------------------------- --no-default-labels

API_INVENTORY = """\
    schema: graphkit.runner-inventory/v1
    organizations:
      - name: acme
        runner_groups:
          - {name: Default, id: 1, visibility: all}
    repositories:
      - {full_name: acme/app, visibility: private, default_branch: main}
    runners:
      - name: gpu-opt-in
        id: 1
        scope: acme
        ephemeral: false
        labels: [{name: gpu, id: 11, type: custom}]
      - name: build-1
        id: 2
        scope: acme
        ephemeral: false
        labels: [{name: self-hosted, id: 1, type: read-only}, {name: Linux, id: 2, type: read-only},
                 {name: gpu, id: 11, type: custom}]
      - name: hand-written
        id: 3
        scope: acme
        ephemeral: false
        labels: [gpu]
    """


def test_a_runner_listed_without_self_hosted_by_the_api_lacks_it(tmp_path):
    """``config.sh --no-default-labels`` (actions/runner#2443: "so that jobs asking only for self-hosted do not land
    on it") registers a runner without ``self-hosted``; the REST API lists the labels it has, each with its ``type``.
    Such a runner takes ``[gpu]`` but never ``self-hosted``; a runner whose list names it, or a hand-written list
    (``self-hosted`` implied), takes both."""
    repos = _write(tmp_path, "acme__app", WF, """\
        on: push
        jobs:
          any:
            runs-on: [self-hosted, gpu]
            steps: [{run: make}]
          gpu:
            runs-on: gpu
            steps: [{run: make}]
        """).parent
    (tmp_path / "inventory.yaml").write_text(textwrap.dedent(API_INVENTORY), encoding="utf-8")
    res = build_graph({"github-actions": [repos], "runners": [tmp_path / "inventory.yaml"]})
    assert res.problems == []
    g = res.graph
    assert _receives(g, "any") == [("runner:acme/build-1", "", "certain"), ("runner:acme/hand-written", "", "certain")]
    assert _receives(g, "gpu") == [("runner:acme/build-1", "", "certain"), ("runner:acme/gpu-opt-in", "", "certain"),
                                   ("runner:acme/hand-written", "", "certain")]
    runner = lambda name: g.node(ids.runner("acme", name))  # noqa: E731
    assert (runner("gpu-opt-in").labels, runner("gpu-opt-in").labels_exact) == (["gpu"], True)
    assert (runner("build-1").labels, runner("build-1").labels_exact) == (["self-hosted", "Linux", "gpu"], True)
    assert (runner("hand-written").labels, runner("hand-written").labels_exact) == (["self-hosted", "gpu"], None)
