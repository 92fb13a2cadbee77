"""A job environment known only at run time (an expression) is unknown, never the expression's text.

GitHub resolves ``jobs.<job_id>.environment`` at run time; the run's OIDC ``sub`` then names the environment
(https://docs.github.com/en/actions/reference/security/oidc#example-subject-claims) and an environment secret
shadows the repository's.  Before, the expression's text became the environment (``sub``
``repo:acme/app:environment:${{ inputs.target }}``, which no trust matches) and a ``deploys_to`` target named
by the expression.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graphkit.build import build_graph
from graphkit.model import EdgeKind, Job

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "acme"
CORPUS = ROOT.parent / "shared" / "corpus" / "github-actions"
JOB = "job:acme/app/.github/workflows/release.yml#publish"
OIDC = "oidc:acme/app/.github/workflows/release.yml#publish"


def _inputs(root: Path) -> dict[str, list[Path]]:
    return {"github-actions": [root / "repos"], "runners": [root / "inventory.yaml"],
            "aws-iam": [root / "aws-iam.json"]}


def _example_with(tmp_path: Path, environment: str):
    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root)
    release = root / "repos/acme__app/.github/workflows/release.yml"
    text = release.read_text(encoding="utf-8")
    assert "    environment: production\n" in text
    release.write_text(text.replace("    environment: production\n", f"    environment: {environment}\n"),
                       encoding="utf-8")
    return build_graph(_inputs(root))


def _out(g, source: str, kind: EdgeKind) -> dict[str, str]:
    return {e.target: e.confidence.value for e in g.out_edges(source) if e.kind is kind}


def test_a_run_time_environment_is_any_environment_of_the_repository(tmp_path):
    res = _example_with(tmp_path, "${{ inputs.target }}")
    g = res.graph
    assert res.problems == []  # an expression is legal: nothing was skipped
    assert g.node(JOB).environment == Job.UNKNOWN_ENVIRONMENT
    # any environment, or none (an empty input): both kinds of subject
    assert g.node(OIDC).workflow_subjects == ["repo:acme/app:environment:*", "repo:acme/app:ref:refs/heads/main",
                                              "repo:acme/app:ref:refs/heads/*"]
    # the evaluation (and so the node's subjects) keeps the runs without an environment too
    assert {"repo:acme/app:environment:*", "repo:acme/app:ref:refs/heads/main"} <= set(g.node(OIDC).subjects)
    reads = _out(g, JOB, EdgeKind.READS_SECRET)
    assert {t: c for t, c in reads.items() if t.startswith(("secret:env:", "secret:repo:"))} == {
        "secret:env:acme/app:production:COSIGN_PRIVATE_KEY": "possible",
        "secret:env:acme/app:production:COSIGN_PASSWORD": "possible",
        "secret:repo:acme/app:PYPI_API_TOKEN": "possible"}
    # each environment the inventory knows for acme/app, possible; no target named by the expression
    assert _out(g, JOB, EdgeKind.DEPLOYS_TO) == {"target:environment:acme/app:production": "possible",
                                                "target:environment:acme/app:staging": "possible"}
    assert not any("${{" in n.id for n in g.nodes())


def test_one_of_several_names_is_unknown_with_each_name_a_possible_target(tmp_path):
    res = _example_with(tmp_path, "${{ github.ref == 'refs/heads/main' && 'production' || 'staging' }}")
    g = res.graph
    assert g.node(JOB).environment == Job.UNKNOWN_ENVIRONMENT
    assert g.node(OIDC).subjects == ["repo:acme/app:environment:*"]  # never empty: no run without one
    assert _out(g, JOB, EdgeKind.DEPLOYS_TO) == {"target:environment:acme/app:production": "possible",
                                                "target:environment:acme/app:staging": "possible"}


def test_a_name_or_nothing_keeps_the_name_and_adds_the_subjects_without_one(tmp_path):
    res = _example_with(tmp_path, "${{ github.ref == 'refs/heads/main' && 'production' || '' }}")
    g = res.graph
    assert g.node(JOB).environment == "production"
    assert g.node(OIDC).workflow_subjects == ["repo:acme/app:environment:production",
                                              "repo:acme/app:ref:refs/heads/main", "repo:acme/app:ref:refs/heads/*"]
    assert {"repo:acme/app:environment:production", "repo:acme/app:ref:refs/heads/main"} <= set(g.node(OIDC).subjects)


def test_a_certainly_empty_expression_is_no_environment(tmp_path):
    g = _example_with(tmp_path, "${{ '' }}").graph
    assert g.node(JOB).environment is None
    assert _out(g, JOB, EdgeKind.DEPLOYS_TO) == {}


@pytest.mark.requires((CORPUS / "pytorch__test-infra").is_dir(), reason="corpus not present", corpus=True)
def test_corpus_environment_that_may_be_empty_keeps_the_runs_without_one():
    # build_wheels_macos.yml line 119: environment: ${{(inputs.trigger-event == 'schedule' || ...) &&
    # 'pytorchbot-env' || ''}}: an environment on nightly pushes and schedules, none on a pull request
    g = build_graph({"github-actions": [CORPUS / "pytorch__test-infra"]}).graph
    oidc = ("oidc:pytorch/test-infra/.github/workflows/test_build_wheels_m1.yml#test>pytorch/test-infra/.github/"
            "workflows/build_wheels_macos.yml#build")
    assert g.node(oidc).workflow_subjects == ["repo:pytorch/test-infra:environment:pytorchbot-env",
                                              "repo:pytorch/test-infra:pull_request",
                                              "repo:pytorch/test-infra:ref:refs/heads/*"]
    assert {"repo:pytorch/test-infra:environment:pytorchbot-env",
            "repo:pytorch/test-infra:pull_request"} <= set(g.node(oidc).subjects)
