"""Job history (issue 12, "what actually ran"): the github-history source, the join, exposed versus reachable.

Fixture: ``tests/fixtures/github-history/incident`` (README there), written from GitHub's documented REST shapes:
https://docs.github.com/en/rest/actions/workflow-runs , https://docs.github.com/en/rest/actions/workflow-jobs ,
https://docs.github.com/en/enterprise-cloud@latest/rest/orgs/orgs#get-the-audit-log-for-an-organization .
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.analysis import blast_radius, revocation_plan
from graphkit.analysis.exposure import exposure, observed_since
from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.model import EdgeKind, ids
from graphkit.output import NO_HISTORY, Clock, blast_radius_document
from graphkit.resolve.observed import name_matches
from ingest.github_history import INGESTOR
from ingest.github_history.models import WorkflowJob, WorkflowRun
from conftest import require

HERE = Path(__file__).parent
CASE = HERE / "fixtures" / "github-history" / "incident"
CORPUS = HERE.parent.parent / "shared" / "corpus" / "github-api" / "octokit__webhooks"
T = datetime(2026, 11, 30, tzinfo=timezone.utc)
APP = "acme/app", ".github/workflows/ci.yml"
RELEASE, BUILD, NIGHTLY = (ids.job(*APP, k) for k in ("release", "build", "nightly"))
LINT = ids.job_observed("acme/tools", ".github/workflows/lint.yml", "lint")
R1, R2, ROGUE = (ids.runner("acme", n) for n in ("build-01", "build-02", "rogue-9"))
ROLE = ids.cloud_role("aws", "arn:aws:iam::111122223333:role/release")


def _inputs(history: bool = True) -> dict[str, list[str]]:
    inputs = {"github-actions": [str(CASE / "repos")], "runners": [str(CASE / "inventory.yaml")]}
    if history:
        inputs["github-history"] = [str(CASE / "snapshot")]
    return inputs


@pytest.fixture(scope="module")
def graph():
    result = build_graph(_inputs())
    assert result.problems == []
    return result.graph


def test_the_source_reads_github_shapes_and_only_runner_audit_events():
    res = INGESTOR.ingest([CASE / "snapshot"])
    facts = res.meta["history"]
    assert res.problems == [] and res.items == 7
    assert [(r.repository, r.run_id, r.job_id, r.name, r.runner_name) for r in facts.runs] == [
        ("acme/app", 100, 1001, "build (linux, 3.11)", "build-01"),
        ("acme/app", 200, 2001, "Release", "build-01"),
        ("acme/app", 200, 2002, "build (linux, 3.11)", "build-02"),
        ("acme/app", 201, 2011, "build (linux, 3.12)", "rogue-9"),
        ("acme/tools", 300, 3001, "lint", "build-01")]
    release = facts.runs[1]
    assert (release.workflow_path, release.event, release.actor, release.head_sha) == (
        ".github/workflows/ci.yml", "push", "alice", "b" * 40)
    # repo.create is not a runner event; @timestamp (ms since the epoch) becomes ISO 8601
    assert [(e.action, e.runner_name, e.actor, e.actor_country, e.at) for e in facts.events] == [
        ("org.register_self_hosted_runner", "build-01", "ops-bot", "DE", "2026-11-24T16:00:00Z"),
        ("org.register_self_hosted_runner", "rogue-9", "mallory", "ZZ", "2026-11-30T08:06:40Z")]
    assert facts.audit_logs == ["acme"] and facts.repositories == ["acme/app", "acme/tools"]
    assert facts.since == "2026-11-28T09:00:00Z"


def test_a_bad_entry_is_a_problem_naming_its_place(tmp_path):
    jobs = tmp_path / "history" / "acme" / "app" / "jobs"
    jobs.mkdir(parents=True)
    good = json.loads((CASE / "snapshot/history/acme/app/jobs/100.json").read_text())
    good["jobs"].append({"id": "not a number", "run_id": 100, "name": "x"})
    (jobs / "100.json").write_text(json.dumps(good))
    (jobs / "101.json").write_text("{not json")
    res = INGESTOR.ingest([tmp_path])
    assert [(Path(p.file).name, p.place) for p in res.problems] == [
        ("100.json", "jobs[1]"), ("101.json", "line 1"), ("100.json", "jobs[0]")]  # no runs.json: run unknown
    assert len(res.meta["history"].runs) == 1


def test_observed_runs_join_workflow_jobs_matrix_names_and_keep_the_unjoinable(graph):
    ran = sorted((e.source, e.target, e.key) for e in graph.edges(EdgeKind.RAN_JOB))
    assert ran == sorted([(R1, BUILD, "1001"), (R1, RELEASE, "2001"), (R2, BUILD, "2002"),
                          (ROGUE, BUILD, "2011"), (R1, LINT, "3001")])
    edge = next(e for e in graph.edges(EdgeKind.RAN_JOB) if e.key == "2001")
    assert edge.props["run_id"] == 200 and edge.props["event"] == "push" and edge.props["actor"] == "alice"
    assert edge.evidence[0].yaml_path == "jobs[0]" and edge.evidence[0].file.endswith("jobs/200.json")
    lint = graph.node(LINT)  # kept as its own node; what it read is unknown: every secret of its repository
    assert lint.all_secrets is not None
    assert {e.target for e in graph.out_edges(LINT)} >= {ids.secret_all("acme/tools")}


def test_a_runner_seen_only_by_the_platform_is_created_with_its_registration(graph):
    rogue = graph.node(ROGUE)
    assert rogue.seen_in_history is True and rogue.in_inventory is None
    assert [(e.actor, e.actor_ip, e.actor_country) for e in rogue.platform_events] == [("mallory", "203.0.113.7", "ZZ")]
    assert graph.node(R1).in_inventory is True and [e.actor for e in graph.node(R1).platform_events] == ["ops-bot"]
    assert graph.node(R2).platform_events == []  # the audit log was read: no event for it in the window


@pytest.mark.parametrize("observed, written, ok", [
    ("build (linux, 3.11)", "build", True), ("Release", "Release", True), ("build", "build-docs", False),
    ("Test on linux (3.11)", "Test on ${{ matrix.os }}", True), ("Deploy", "Test on ${{ matrix.os }}", False)])
def test_github_job_names(observed, written, ok):
    # GitHub names a matrix instance "key (v1, v2)" and renders ${{ }} in name: (workflow-jobs REST "name")
    assert name_matches(observed, written) is ok


def _doc(graph, since=T):
    return blast_radius_document(graph, R1, clock=Clock(now=datetime(2026, 12, 1, tzinfo=timezone.utc),
                                                        compromised_since=since))


def test_exposed_versus_reachable_since_the_compromise(graph):
    doc = _doc(graph)
    by = {r["id"]: r for r in doc["reached"]}
    exposed = {i for i, r in by.items() if r["exposure"] == "exposed"}
    assert exposed == {RELEASE, LINT, ids.secret_repo("acme/app", "PYPI_TOKEN"), ids.github_token(RELEASE),
                       ids.oidc_identity(RELEASE), ROLE, ids.secret_all("acme/tools")}
    # build ran on build-01 before T (run 100) and after T on build-02 only: its secret is only reachable
    assert by[ids.secret_repo("acme/app", "CODECOV_TOKEN")]["exposure"] == "reachable"
    assert by[ids.secret_repo("acme/app", "NIGHTLY_TOKEN")]["exposure"] == "reachable"
    pypi = by[ids.secret_repo("acme/app", "PYPI_TOKEN")]
    assert pypi["exposure_confidence"] == "certain"
    assert [(r["job"], r["runner"], r["run_id"], r["job_id"]) for r in pypi["exposed_by"]] == [(RELEASE, R1, 200, 2001)]
    assert by[ids.secret_all("acme/tools")]["exposure_confidence"] == "possible"
    assert doc["exposure"]["known"] is True and doc["exposure"]["since"] == "2026-11-30T00:00:00Z"
    assert (doc["exposure"]["exposed"], doc["exposure"]["reachable"]) == (7, len(doc["reached"]) - 7)


def test_runs_before_the_compromise_expose_nothing_and_an_earlier_start_counts_them(graph):
    early = {r["id"]: r["exposure"] for r in _doc(graph, datetime(2026, 11, 27, tzinfo=timezone.utc))["reached"]}
    assert early[ids.secret_repo("acme/app", "CODECOV_TOKEN")] == "exposed"  # run 100 (2026-11-28) on build-01
    assert early[ids.secret_repo("acme/app", "NIGHTLY_TOKEN")] == "reachable"  # routed there, never ran there
    assert len(list(observed_since(graph, T).edges(EdgeKind.RAN_JOB))) == 4  # run 100 dropped


def test_the_plan_rotates_exposed_long_lived_secrets_first(graph):
    pypi, codecov, nightly = (ids.secret_repo("acme/app", n) for n in ("PYPI_TOKEN", "CODECOV_TOKEN", "NIGHTLY_TOKEN"))
    rotations = [s["target"] for s in _doc(graph)["revocations"] if s["action"] == "rotate_secret"]
    assert rotations == [ids.secret_all("acme/tools"), pypi, codecov, nightly]
    # the ordering rule makes the difference: without the exposure, PYPI_TOKEN comes after the others
    g = observed_since(graph, T)
    plain = revocation_plan(g, R1)
    assert [s.subject_id for s in plain.steps if s.action.value == "rotate_secret"] == [
        ids.secret_all("acme/tools"), codecov, nightly, pypi]
    exp = exposure(g, blast_radius(g, R1), T)
    assert set(exp.assets) >= {pypi} and codecov not in exp.assets


def test_without_history_exposure_is_unknown_never_nothing():
    g = build_graph(_inputs(history=False)).graph
    doc = _doc(g)
    assert doc["exposure"] == {"known": False, "since": None, "exposed": None, "reachable": None, "runs": [],
                               "note": NO_HISTORY}
    assert all("exposure" not in r for r in doc["reached"])


def test_the_terminal_summary_shows_exposed_and_reachable_before_the_listing():
    args = ["blast-radius", "--from", R1, "--since", "2026-11-30T00:00:00Z", "--now", "2026-12-01T00:00:00Z"]
    flags = [x for k, v in _inputs().items() for p in v for x in (f"--{k}", p)]
    text = CliRunner().invoke(app, [*args, *flags], catch_exceptions=False).output
    lines = text.splitlines()
    exposed_line = next(i for i, x in enumerate(lines) if x.strip().startswith("exposed 7 "))
    assert "reachable 7" in lines[exposed_line] and exposed_line < lines.index("deployment_target (1)") - 1
    assert "exposed by: Release on build-01 (run 200, push by alice, 2026-11-30T09:01:00Z)" in text
    flags = [x for k, v in _inputs(history=False).items() for p in v for x in (f"--{k}", p)]
    text = CliRunner().invoke(app, [*args, *flags], catch_exceptions=False).output
    assert NO_HISTORY in text.splitlines()[2]


def test_all_runners_applies_the_time_options_as_one_runner_does():
    """``--all-runners`` with ``--since``/``--now``: each runner's document equals the one ``--from`` gives."""
    times = ["--since", "2026-11-30T00:00:00Z", "--now", "2026-12-01T00:00:00Z"]
    flags = [x for k, v in _inputs().items() for p in v for x in (f"--{k}", p)]
    run = lambda *a: CliRunner().invoke(app, ["blast-radius", *a, *times, "--format", "json", *flags],  # noqa: E731
                                        catch_exceptions=False)
    every = {tuple(d["source"]): d for d in json.loads(run("--all-runners").stdout)["runners"]}
    one = json.loads(run("--from", R1).stdout)
    assert every[(R1,)]["exposure"]["since"] == "2026-11-30T00:00:00Z" and every[(R1,)]["exposure"]["exposed"] == 7
    assert every[(R1,)] == one
    res = CliRunner().invoke(app, ["blast-radius", "--all-runners", "--backend", "neo4j", *flags])
    assert res.exit_code == 2 and "--all-runners runs on the embedded graph" in res.output


def test_real_webhook_job_and_run_objects_have_the_shapes_read():
    # the workflow_job / workflow_run webhook payloads carry the same objects as the REST responses
    require(CORPUS.is_dir(), "shared corpus not found", corpus=True)
    job = json.loads((CORPUS / "payload-examples__api.github.com__workflow_job__completed.success.with-organization"
                               ".payload.json").read_text())["workflow_job"]
    run = json.loads((CORPUS / "payload-examples__api.github.com__workflow_run__completed.payload.json").read_text())
    j, r = WorkflowJob.model_validate(job), WorkflowRun.model_validate(run["workflow_run"])
    assert (j.runner_name, j.runner_group_name, j.labels, j.run_id) == ("GitHub Actions 5", "GitHub Actions",
                                                                        ["ubuntu-latest"], 2202229078)
    assert (r.path, r.event, r.actor.login) == (".github/workflows/test.yml", "repository_dispatch", "Codertocat")


def test_registrations_seen_by_the_platform(graph):
    from graphkit.findings import FindingOptions, run_rules
    from graphkit.rules.runner_registration_unexpected import PLACES, REGISTRARS

    def found(**extra):
        fs = run_rules(graph, FindingOptions(extra=extra), only=["runner-registration-unexpected"])
        return {f.subject: (f.severity.value, f.properties["reasons"]) for f in fs}

    # absent from the inventory and it took jobs (run 201): critical, with no option at all
    assert found() == {ROGUE: ("critical", ["absent from the runner inventory"])}
    by_actor = found(**{REGISTRARS: ["ops-bot"]})
    assert by_actor[ROGUE][1][1] == "registered by mallory at 2026-11-30T08:06:40Z (expected: ops-bot)"
    assert R1 not in by_actor
    by_place = found(**{PLACES: ["DE", "198.51.100.0/24"]})
    assert by_place[ROGUE][1][1] == "registered from ZZ, 203.0.113.7 at 2026-11-30T08:06:40Z (expected: DE, 198.51.100.0/24)"
    assert R1 not in by_place  # build-01 was registered from DE
    assert R1 in found(**{REGISTRARS: ["someone-else"]})


def test_the_findings_command_takes_the_expected_registrars():
    flags = [x for k, v in _inputs().items() for p in v for x in (f"--{k}", p)]
    res = CliRunner().invoke(app, ["findings", "--format", "json", "--rule", "runner-registration-unexpected",
                                   "--expected-registrar", "ops-bot", *flags], catch_exceptions=False)
    doc = json.loads(res.output)
    assert [f["subject"] for f in doc["findings"]] == [ROGUE]


def test_the_html_report_lists_the_exposure_of_each_asset(graph):
    from graphkit.report.html import report_html

    html = report_html(graph, R1, since=T, findings=[])
    table = html[html.index('<table id="gk-reached">'):]
    table = table[:table.index("</table>")]
    rows = {r.split("<code>")[1].split("</code>")[0]: r for r in table.split("<tr>")[2:]}
    pypi, nightly = ids.secret_repo("acme/app", "PYPI_TOKEN"), ids.secret_repo("acme/app", "NIGHTLY_TOKEN")
    assert "<b>exposed</b>" in rows[pypi] and f"by {RELEASE}" in rows[pypi]
    assert "<td>reachable</td>" in rows[nightly]


def test_a_called_workflow_job_is_joined_by_its_caller_slash_called_name():
    # GitHub names a reusable workflow's job "caller / called" (https://docs.github.com/en/actions/how-tos/reuse-automations/reuse-workflows)
    from graphkit.graph import Graph
    from graphkit.meta import HistoryFacts
    from graphkit.model import Evidence, Job, ObservedRun, Runner
    from graphkit.resolve.observed import link_observed

    ev = Evidence(file="history/acme/app/jobs/7.json", yaml_path="jobs[0]")
    caller = ids.job("acme/app", ".github/workflows/ci.yml", "call-build")
    called = ids.job("acme/lib", ".github/workflows/build.yml", "compile", caller=caller)
    g = Graph()
    g.update(nodes=[Job(id=caller, name="Build it", repository="acme/app", workflow_path=".github/workflows/ci.yml",
                        job_key="call-build", secrets_repository="acme/app", evidence=[ev]),
                    Job(id=called, name="compile", repository="acme/lib", workflow_path=".github/workflows/build.yml",
                        job_key="compile", secrets_repository="acme/app", caller=caller, evidence=[ev]),
                    Runner(id=R1, name="build-01", scope="acme", labels=["self-hosted"], evidence=[ev])])
    run = ObservedRun(repository="acme/app", workflow_path=".github/workflows/ci.yml", name="Build it / compile (3.12)",
                      job_id=70, run_id=7, runner_name="build-01", runner_group_name="Default",
                      completed_at="2026-11-30T10:00:00Z", evidence=ev)
    g.meta.history = HistoryFacts(runs=[run])
    link_observed(g)
    assert [(e.source, e.target, e.key) for e in g.edges(EdgeKind.RAN_JOB)] == [(R1, called, "70")]
