"""What whoever writes a repository runs (``graphkit/resolve/writers.py``), runner registration by repository-level
tokens (``graphkit/resolve/registration.py``) and the ``org-member`` entry where the checkout guard refuses forks
only, on the fresh-user test's cases (session 29: c19, c11, c1b; ``tests/fixtures/writers/``).

GitHub: a GITHUB_TOKEN push starts no run except workflow_dispatch / repository_dispatch
(https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication#using-the-github_token-in-a-workflow);
organization registration tokens need admin:org, repository ones repository admin
(https://docs.github.com/en/rest/actions/self-hosted-runners#create-a-registration-token-for-an-organization);
actions/checkout refuses fork pull request heads only ("Same-repository pull requests aren't affected",
https://github.blog/changelog/2026-06-18-safer-pull_request_target-defaults-for-github-actions-checkout/).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from graphkit.analysis import blast_radius, revocation_plan
from graphkit.build import build_graph
from graphkit.model import Confidence, EdgeKind, Lifetime, RevocationAction, ids

HERE = Path(__file__).parent / "fixtures" / "writers"
C, P = Confidence.CERTAIN, Confidence.POSSIBLE
APP, WEB = ids.repository("acme/app"), ids.repository("acme/web")
R1 = ids.runner("acme", "r1")
PAT = "credential:h1:/home/runner/.config/gh/hosts.yml"


def _graph(folder: Path):
    res = build_graph({"github-actions": [folder / "repos"], "runners": [folder / "inv.yaml"]})
    assert res.problems == []
    return res.graph


def _edges(g, *kinds: EdgeKind) -> set[tuple]:
    return {(e.kind.value, e.source, e.target, e.confidence.value) for k in kinds for e in g.edges(k)}


def _job(repo: str, wf: str, key: str) -> str:
    return ids.job(repo, f".github/workflows/{wf}.yml", key)


def _with_scopes(tmp_path: Path, scopes: list[str], owner: str = "acme") -> Path:
    """The c11 case with the PAT's ``scopes`` and ``github_owner`` replaced."""
    dst = tmp_path / "case"
    shutil.copytree(HERE / "pat-repo-scope", dst)
    doc = yaml.safe_load((dst / "inv.yaml").read_text())
    cred = doc["hosts"][0]["credentials"][0]
    cred["scopes"], cred["github_owner"] = scopes, owner
    (dst / "inv.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return dst


LINT, DEPLOY = _job("acme/app", "ci", "lint"), _job("acme/app", "deploy", "deploy")


def test_a_token_write_leads_on_to_the_jobs_that_run_the_repository_code():
    """c19: lint's GITHUB_TOKEN (contents and actions write) reaches acme/app; the repository leads on to its push
    and workflow_dispatch jobs (possible) and so to deploy's DEPLOY_KEY; never to a runner (a GITHUB_TOKEN cannot
    change workflow files)."""
    g = _graph(HERE / "token-write")
    assert _edges(g, EdgeKind.RUNS_CODE_IN, EdgeKind.WRITES_WORKFLOWS) == {
        ("runs_code_in", APP, LINT, "possible"), ("runs_code_in", APP, DEPLOY, "possible"),
        # lint lands on the persistent runner r1 and its host h1: the pushed code can persist there
        ("runs_code_in", APP, R1, "possible"), ("runs_code_in", APP, "host:h1", "possible")}
    on_r1 = next(e for e in g.out_edges(APP) if e.target == R1)
    assert (on_r1.key, on_r1.lifetime, on_r1.revoked_by, on_r1.props["job"]) == (
        LINT, Lifetime.UNTIL_RUNNER_REMOVED, RevocationAction.REMOVE_RUNNER_REGISTRATION, LINT)
    edge = next(e for e in g.out_edges(APP) if e.target == DEPLOY)
    assert (edge.props["event"], edge.props["guards"], edge.revoked_by, edge.lifetime) == (
        "workflow_dispatch", ["org-member-write"], RevocationAction.RESTRICT_ENVIRONMENT, Lifetime.PER_JOB)
    assert edge.evidence[0].yaml_path == "on"
    br = blast_radius(g, R1)
    key = br["secret:repo:acme/app:DEPLOY_KEY"]
    assert key.confidence is P
    assert [h.kind.value for h in key.path] == [
        "receives_job", "has_token", "writes_repository", "runs_code_in", "reads_secret"]
    # a runner is reached from the repository only where a job a writer runs lands: deploy runs on GitHub's runners
    assert {e.props["job"] for e in g.out_edges(APP) if e.kind is EdgeKind.RUNS_CODE_IN and e.key} == {LINT}


def test_a_repo_scoped_pat_registers_repository_runners_only_and_writes_the_owners_repositories():
    """c11: a classic PAT with only ``repo`` and ``github_owner: acme`` cannot mint organization registration tokens
    (admin:org): no runner group; repository runners where its user is an admin (unknown): the self-hosted job of
    acme/app, possible.  It pushes to acme's repositories: writes_repository, possible, until rotated."""
    g = _graph(HERE / "pat-repo-scope")
    assert _edges(g, EdgeKind.CAN_REGISTER_RUNNER, EdgeKind.GROUP_RECEIVES_JOB) == {
        ("can_register_runner", PAT, LINT, "possible")}
    reg = next(g.edges(EdgeKind.CAN_REGISTER_RUNNER))
    assert reg.props == {"scope": "acme/*"}
    writes = [e for e in g.out_edges(PAT) if e.kind in (EdgeKind.WRITES_REPOSITORY, EdgeKind.WRITES_WORKFLOWS)]
    assert [(e.kind, e.target, e.confidence, e.key, e.lifetime, e.revoked_by) for e in writes] == [
        (EdgeKind.WRITES_REPOSITORY, APP, P, "scopes", Lifetime.UNTIL_ROTATED, RevocationAction.ROTATE_CREDENTIAL)]
    # through the repository: the release job's PyPI token (its code runs a writer's push to main)
    br = blast_radius(g, PAT)
    assert [h.kind.value for h in br["secret:repo:acme/app:PYPI_API_TOKEN"].path] == [
        "writes_repository", "runs_code_in", "reads_secret"]
    assert "runner_group:acme/default" not in br.ids


def test_org_and_repository_registration_scopes(tmp_path):
    """``admin:org`` still registers into the organization's groups (certain); ``administration:write`` on a named
    repository registers repository runners there (certain); a classic ``repo`` on a named repository needs its
    user to be an admin (possible)."""
    org = _graph(_with_scopes(tmp_path / "org", ["admin:org"]))
    assert ("can_register_runner", PAT, "runner_group:acme/default", "certain") in _edges(
        org, EdgeKind.CAN_REGISTER_RUNNER)
    fine = _graph(_with_scopes(tmp_path / "fine", ["administration:write"], "acme/app"))
    assert _edges(fine, EdgeKind.CAN_REGISTER_RUNNER) == {("can_register_runner", PAT, LINT, "certain")}
    assert not [e for e in fine.out_edges(PAT) if e.kind is EdgeKind.WRITES_REPOSITORY]  # administration: no push
    classic = _graph(_with_scopes(tmp_path / "classic", ["repo"], "acme/app"))
    assert _edges(classic, EdgeKind.CAN_REGISTER_RUNNER) == {("can_register_runner", PAT, LINT, "possible")}
    contents = _graph(_with_scopes(tmp_path / "contents", ["contents:write"], "acme/app"))
    assert _edges(contents, EdgeKind.WRITES_REPOSITORY) >= {("writes_repository", PAT, APP, "certain")}


def test_a_workflow_writer_reaches_every_runner_the_repository_can_use(tmp_path):
    """Fine-grained ``contents`` + ``workflows`` write on acme/app: the token can add a workflow that runs on any
    runner acme/app can use (r1, possible: ``writes_workflows`` from the token), a way the GITHUB_TOKEN of the same
    repository does not get (it cannot change workflow files)."""
    g = _graph(_with_scopes(tmp_path / "fine", ["contents:write", "workflows:write"], "acme/app"))
    assert _edges(g, EdgeKind.WRITES_WORKFLOWS, EdgeKind.WRITES_REPOSITORY, EdgeKind.CAN_REGISTER_RUNNER) == {
        ("writes_workflows", PAT, R1, "possible"), ("writes_repository", PAT, APP, "certain"),
        ("writes_repository", ids.github_token(LINT), APP, "certain")}
    edge = next(g.edges(EdgeKind.WRITES_WORKFLOWS))
    assert (edge.props["repository"], edge.props["job"], edge.lifetime, edge.revoked_by) == (
        "acme/app", LINT, Lifetime.UNTIL_ROTATED, RevocationAction.ROTATE_CREDENTIAL)
    assert [h.kind.value for h in blast_radius(g, PAT)[R1].path] == ["writes_workflows"]
    # the GITHUB_TOKEN reaches r1 only because lint's own code runs there and can persist (not by a new workflow)
    token = ids.github_token(LINT)
    assert [h.kind.value for h in blast_radius(g, token)[R1].path] == ["writes_repository", "runs_code_in"]
    g.nx.remove_edges_from([(e.source, e.target, e.nx_key) for e in list(g.edges(EdgeKind.RUNS_CODE_IN)) if e.key])
    g.changed()  # (lint's code on r1's host h1 would also read the PAT there)
    assert R1 not in blast_radius(g, token).ids and R1 in blast_radius(g, PAT).ids
    # a classic repo + workflow PAT naming the organization: possible, to every repository of acme
    classic = _graph(_with_scopes(tmp_path / "classic", ["repo", "workflow"]))
    assert _edges(classic, EdgeKind.WRITES_WORKFLOWS) == {("writes_workflows", PAT, R1, "possible")}
    plan = revocation_plan(classic, PAT)  # it registers repository runners too: rotated first
    assert (plan.steps[0].action, plan.steps[0].subject_id) == (RevocationAction.ROTATE_CREDENTIAL, PAT)


MEMBER, FORK = ids.untrusted("org-member", "acme"), ids.untrusted("fork-pr", "acme")
BUILD = _job("acme/web", "prt", "build")


def test_org_member_runs_a_same_repository_pull_request_where_the_checkout_refuses_forks():
    """c1b: ``pull_request_target`` + ``actions/checkout@v4`` of the head: the guard keeps forks out (no fork-pr
    edge) but not a writer's branch: org-member -> build (possible, naming the guard), and the runners acme/web can
    use (a pushed workflow's runs-on), so NPM_TOKEN and r1's host."""
    g = _graph(HERE / "prt-same-repository")
    assert {(e.source, e.target, e.confidence.value, e.key) for e in g.edges(EdgeKind.CAN_TRIGGER)} == {
        (MEMBER, BUILD, "possible", "write"), (MEMBER, R1, "possible", "write")}
    edge = next(e for e in g.out_edges(MEMBER) if e.target == BUILD)
    assert (edge.props["event"], edge.props["guards"]) == (
        "pull_request_target", ["checkout-refuses-fork-code", "org-member-write"])
    assert edge.evidence[0].yaml_path == "jobs.build.steps[0]"
    # the repository itself leads a writer's token to the same job
    assert _edges(g, EdgeKind.RUNS_CODE_IN) == {("runs_code_in", WEB, BUILD, "possible"),
                                                ("runs_code_in", WEB, R1, "possible"),
                                                ("runs_code_in", WEB, "host:h1", "possible")}
    br = blast_radius(g, MEMBER)
    assert {"secret:repo:acme/web:NPM_TOKEN", R1, "host:h1"} <= br.ids
    assert FORK not in g  # no outsider entry at all


def test_org_member_runbook_limits_the_runners_a_writer_can_name():
    """The runbook step that closes org-member's entry (restrict_untrusted_trigger) says what cuts rule 8's edge to a
    runner (its group's repository and workflow access), not the fork pull request advice."""
    from datetime import datetime, timezone

    from graphkit.output import Clock, runbook_text
    g = _graph(HERE / "prt-same-repository")
    text = runbook_text(g, MEMBER, clock=Clock(now=datetime(2026, 12, 6, tzinfo=timezone.utc)))
    assert "restrict_untrusted_trigger" in text
    assert "Limit which repositories and workflows may use this self-hosted runner" in text
    assert "Keep pull request code off this self-hosted runner" not in text
