"""The attack model (issue 11): persistence of jobs on runners and hosts, credentials that re-register runners,
time (issued tokens, session revocation, ordering) and the runbook.

Small literal graphs written from the platform documentation (URLs next to each test); the bundled example for
the end-to-end checks.
"""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphkit.analysis import blast_radius, revocation_plan
from graphkit.analysis.plan.candidates import Containment
from graphkit.analysis.timeline import Issued, TokenKind, classify, load_issued, parse_time, session_notes
from graphkit.build import build_graph
from graphkit.errors import InputError
from graphkit.graph import Graph
from graphkit.model import (CloudRole, Confidence, Credential, Edge, EdgeKind, Evidence, Host, Job, Lifetime,
                            OIDCIdentity, Repository, RevocationAction, Runner, RunnerGroup, RunsOnCandidate,
                            Workflow, ids)
from graphkit.output import Clock, runbook_text
from graphkit.report.runbook import runbook_script, step_actions
from graphkit.resolve import resolve

ROOT = Path(__file__).resolve().parents[1]
EV = Evidence(file="test.yml", yaml_path="x")
C, P = Confidence.CERTAIN, Confidence.POSSIBLE
R = RevocationAction
WF = ".github/workflows/ci.yml"


def cand(*labels: str, group: str | None = None) -> RunsOnCandidate:
    return RunsOnCandidate(labels=tuple(labels), group=group, evidence=Evidence(file="wf.yml", yaml_path="runs-on"))


def job(repo: str, key: str, *cands: RunsOnCandidate, path: str = WF) -> Job:
    return Job(id=ids.job(repo, path, key), name=key, repository=repo, workflow_path=path, job_key=key,
               secrets_repository=repo, runs_on=list(cands), evidence=[EV])


def runner(name: str, labels: list[str], *, ephemeral: bool | None = None, host: str | None = None,
           group: str = "Default", scope: str = "acme") -> Runner:
    return Runner(id=ids.runner(scope, name), name=name, labels=["self-hosted", *labels], scope=scope,
                  runner_group=group if "/" not in scope else None, ephemeral=ephemeral, host=host, evidence=[EV])


def host(name: str, ephemeral: bool | None) -> Host:
    return Host(id=ids.host(name), name=name, ephemeral=ephemeral, evidence=[EV])


def group(name: str, **kw) -> RunnerGroup:
    return RunnerGroup(id=ids.runner_group("acme", name), name=name, owner="acme", evidence=[EV], **kw)


def repo(full: str, visibility: str = "private") -> Repository:
    return Repository(id=ids.repository(full), name=full, full_name=full, visibility=visibility, evidence=[EV])


def graph(nodes, edges=()) -> Graph:
    g = Graph()
    g.update(nodes=nodes, edges=edges)
    return g


def on_host(r: Runner, h: Host) -> Edge:
    return Edge(kind=EdgeKind.RUNS_ON_HOST, source=r.id, target=h.id, evidence=[EV])


def persists(g: Graph) -> set[tuple[str, str, str, str]]:
    return {(e.source.rsplit("#", 1)[-1], e.target, e.confidence.value, e.lifetime.value)
            for e in g.edges(EdgeKind.PERSISTS_ON)}


# --------------------------------------------------------------------------- 1. persistence


def test_persistence_rules_per_runner_and_host_kind():
    """GitHub docs, "Security hardening for GitHub Actions" (self-hosted runners can be persistently
    compromised; reused hardware under JIT runners), "Autoscaling with self-hosted runners" (ephemeral: one job),
    "About GitHub-hosted runners" (a fresh VM per job)."""
    kept, reset, unknown = host("kept", False), host("vm", True), host("pool", None)
    persistent = runner("persistent", ["p"], ephemeral=False, host="kept")
    eph_kept = runner("eph-kept", ["ek"], ephemeral=True, host="kept")
    eph_reset = runner("eph-reset", ["er"], ephemeral=True, host="vm")
    eph_unknown = runner("eph-unknown", ["eu"], ephemeral=True, host="pool")
    jobs = [job("acme/app", "p", cand("p")), job("acme/app", "ek", cand("ek")), job("acme/app", "er", cand("er")),
            job("acme/app", "eu", cand("eu")), job("acme/app", "hosted", cand("ubuntu-latest"))]
    g = graph([repo("acme/app"), group("Default", visibility="all"), kept, reset, unknown, persistent, eph_kept,
               eph_reset, eph_unknown, *jobs],
              [on_host(persistent, kept), on_host(eph_kept, kept), on_host(eph_reset, reset),
               on_host(eph_unknown, unknown)])
    resolve(g)
    assert persists(g) == {
        ("p", "runner:acme/persistent", "certain", "until_runner_removed"),  # persistent runner and its host
        ("p", "host:kept", "certain", "until_reimaged"),
        ("ek", "host:kept", "possible", "until_reimaged"),  # single-use registration, recycled machine
        ("eu", "host:pool", "possible", "until_reimaged"),  # host reuse unknown: the worst case, possible
    }  # eph-reset on a host reset after each job, and the GitHub-hosted job: nothing persists
    assert {e.revoked_by for e in g.edges(EdgeKind.PERSISTS_ON) if e.target.startswith("host:")} == {R.REIMAGE_HOST}


def _two_runner_graph() -> tuple[Graph, Job]:
    h1, h2 = host("h1", False), host("h2", False)
    r1, r2 = runner("r1", ["shared"], ephemeral=False, host="h1"), runner("r2", ["shared"], ephemeral=False, host="h2")
    j = job("acme/app", "build", cand("shared"))
    g = graph([repo("acme/app"), group("Default", visibility="all"), h1, h2, r1, r2, j,
               Workflow(id=ids.workflow("acme/app", WF), name="ci", repository="acme/app", path=WF, evidence=[EV])],
              [on_host(r1, h1), on_host(r2, h2),
               Edge(kind=EdgeKind.HAS_WORKFLOW, source="repo:acme/app", target=ids.workflow("acme/app", WF),
                    evidence=[EV])])
    resolve(g)
    return g, j


def test_a_job_source_reaches_every_runner_and_host_it_lands_on_a_runner_source_does_not():
    g, j = _two_runner_graph()
    from_job = blast_radius(g, j.id)
    assert {"runner:acme/r1", "runner:acme/r2", "host:h1", "host:h2"} <= from_job.ids
    assert [h.kind for h in from_job["host:h2"].path] == [EdgeKind.PERSISTS_ON]
    # a compromised r1 controls the job's runs on r1, not its code: r2 and h2 stay out of reach
    from_runner = blast_radius(g, "runner:acme/r1")
    assert j.id in from_runner and "runner:acme/r2" not in from_runner and "host:h2" not in from_runner


def test_repository_and_workflow_sources_stand_for_the_jobs_that_run_their_code():
    g, j = _two_runner_graph()
    for source in ("repo:acme/app", ids.workflow("acme/app", WF)):
        br = blast_radius(g, source)
        assert br.sources == (j.id,) and {"host:h1", "host:h2"} <= br.ids


# --------------------------------------------------------------------------- 3. registrars


def _registrar_graph(**cred) -> Graph:
    """GitHub REST "Create a registration token for an organization": classic admin:org, fine-grained
    organization_self_hosted_runners:write; for a repository: administration:write."""
    h = host("scaler", False)
    c = Credential(id=ids.credential("scaler", "/etc/scaler/env"), name="scaler env", credential_type="github_pat",
                   host="scaler", path="/etc/scaler/env", evidence=[EV], **cred)
    nodes = [repo("acme/app"), repo("acme/docs", "public"), group("Default", visibility="all"),
             group("release", visibility="selected", selected_repositories=["acme/app"]), h, c,
             runner("scaler-runner", ["x"], host="scaler"),
             job("acme/app", "build", cand("linux")), job("acme/docs", "site", cand("self-hosted", "docs")),
             job("acme/app", "hosted", cand("ubuntu-latest")),
             job("acme/app", "pinned", cand("linux", group="release"))]
    g = graph(nodes, [Edge(kind=EdgeKind.STORES_CREDENTIAL, source=h.id, target=c.id, evidence=[EV]),
                      on_host(nodes[6], h)])
    resolve(g)
    return g


def _edges(g: Graph, kind: EdgeKind) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.confidence.value) for e in g.edges(kind)}


def test_admin_org_token_can_attach_a_runner_to_every_group_and_receive_what_the_group_allows():
    g = _registrar_graph(scopes=["admin:org"], github_owner="acme")
    cid = ids.credential("scaler", "/etc/scaler/env")
    assert _edges(g, EdgeKind.CAN_REGISTER_RUNNER) == {(cid, "runner_group:acme/default", "certain"),
                                                        (cid, "runner_group:acme/release", "certain")}
    wanted = {(g_, j.rsplit("#", 1)[-1]) for g_, j, _ in _edges(g, EdgeKind.GROUP_RECEIVES_JOB)}
    # Default (all, no public repositories): app jobs; release (selected: acme/app) also takes the pinned job;
    # the public docs repository and the GitHub-hosted job are never received
    assert wanted == {("runner_group:acme/default", "build"), ("runner_group:acme/release", "build"),
                      ("runner_group:acme/release", "pinned")}


@pytest.mark.parametrize("cred, expect", [
    ({"scopes": ["read:org", "workflow"], "github_owner": "acme"}, set()),  # cannot mint registration tokens
    ({"scopes": ["administration:write"], "github_owner": "acme/app"},  # a repository's runners: its jobs
     {("build", "certain"), ("pinned", "certain")}),
    ({"scopes": ["organization_self_hosted_runners:write"]},  # owner unknown: the host's runners' owner
     {("default", "possible"), ("release", "possible")}),
    ({}, {("default", "possible"), ("release", "possible")}),  # a github_pat whose scopes were not read
])
def test_registration_power_from_scopes(cred, expect):
    g = _registrar_graph(**cred)
    got = {(t.rsplit("#", 1)[-1].rsplit("/", 1)[-1], c) for _, t, c in _edges(g, EdgeKind.CAN_REGISTER_RUNNER)}
    assert got == expect


def test_the_plan_cuts_the_registrar_before_removing_registrations():
    g = _registrar_graph(scopes=["manage_runners:org"], github_owner="acme")
    plan = revocation_plan(g, "runner:acme/scaler-runner")
    first = plan.steps[0]
    assert (first.action, first.subject_id) == (R.ROTATE_CREDENTIAL, ids.credential("scaler", "/etc/scaler/env"))
    assert plan.steps[1].action is R.REMOVE_RUNNER_REGISTRATION and Containment.REGISTRAR < Containment.BROAD_TRUST


def test_a_workflow_secret_that_calls_the_registration_api_can_register_runners(tmp_path):
    wf = tmp_path / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    wf.joinpath("autoscale.yml").write_text(
        (ROOT / "tests/fixtures/github-actions/steps/run-registration/autoscale.yml").read_text())
    inv = tmp_path / "inventory.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations:\n  - name: acme\n    secrets:\n"
                   "      - {name: RUNNER_ADMIN_PAT, visibility: all}\n    runner_groups:\n"
                   "      - {name: Default, id: 1, visibility: all}\n      - {name: gpu, id: 2, visibility: all}\n"
                   "repositories:\n  - {full_name: acme/app, visibility: private, secrets: [REPO_ADMIN_TOKEN]}\n")
    g = build_graph({"github-actions": [str(tmp_path / "acme__app")], "runners": [str(inv)]}).graph
    got = {(e.source, e.target) for e in g.edges(EdgeKind.CAN_REGISTER_RUNNER)}
    assert got == {("secret:org:acme:RUNNER_ADMIN_PAT", "org:acme"),
                   ("secret:org:acme:RUNNER_ADMIN_PAT", "runner_group:acme/default"),
                   ("secret:org:acme:RUNNER_ADMIN_PAT", "runner_group:acme/gpu"),
                   ("secret:repo:acme/app:REPO_ADMIN_TOKEN", "repo:acme/app")}  # no self-hosted job in acme/app
    # the job holding the org token reaches every group through it
    br = blast_radius(g, ids.job("acme/app", ".github/workflows/autoscale.yml", "org"))
    assert {"runner_group:acme/default", "runner_group:acme/gpu"} <= br.ids


# --------------------------------------------------------------------------- 4. time

NOW = parse_time("2026-12-01T20:00:00Z")


#: A subject of the kind each token kind has (timeline.SUBJECT_KINDS).
_SUBJECTS = {TokenKind.GITHUB_TOKEN: "job:acme/app/.github/workflows/ci.yml#build",
             TokenKind.OIDC_TOKEN: "job:acme/app/.github/workflows/ci.yml#build",
             TokenKind.STS_SESSION: "cloud_role:aws:arn:aws:iam::111122223333:role/acme-deploy"}


def _issued(kind: TokenKind, minutes_ago: float, **kw) -> Issued:
    return Issued(kind=kind, subject=kw.pop("subject", _SUBJECTS.get(kind, "runner_group:acme/default")),
                  issued_at=NOW - timedelta(minutes=minutes_ago), **kw)


@pytest.mark.parametrize("kind, minutes_ago, kw, status", [
    (TokenKind.REGISTRATION_TOKEN, 59, {}, "live"),  # REST docs: expires after one hour
    (TokenKind.REGISTRATION_TOKEN, 61, {}, "runners_remain"),  # expired; what it registered stays registered
    (TokenKind.GITHUB_TOKEN, 23 * 60, {}, "live"),  # until the job ends, at most 24 h
    (TokenKind.GITHUB_TOKEN, 25 * 60, {}, "expired"),
    (TokenKind.GITHUB_TOKEN, 60, {"ended_at": NOW - timedelta(minutes=30)}, "expired"),  # the job ended
    (TokenKind.OIDC_TOKEN, 4, {}, "live"),  # about 5 minutes
    (TokenKind.OIDC_TOKEN, 6, {}, "expired"),
    (TokenKind.STS_SESSION, 90, {"duration_seconds": 3600}, "expired"),  # requested 1 h
    (TokenKind.JIT_CONFIG, 600, {"used": True}, "used"),  # single use
    (TokenKind.JIT_CONFIG, 600, {"used": False}, "live"),
])
def test_documented_lifetimes(kind, minutes_ago, kw, status):
    s = classify(_issued(kind, minutes_ago, **kw), now=NOW)
    assert s.status == status and s.doc.startswith("https://")
    if status == "expired":
        assert "no action needed" in s.reason and s.action is None


def test_an_expired_registration_token_of_the_compromise_leaves_its_runners():
    """GitHub REST "Create a registration token for an organization": "The token expires after one hour"; the
    runners registered with it stay until deleted (same page, "Delete a self-hosted runner")."""
    s = classify(_issued(TokenKind.REGISTRATION_TOKEN, 180), now=NOW, compromised_since=NOW - timedelta(hours=4))
    assert (s.status, s.action, s.expires_at) == ("runners_remain", R.REMOVE_RUNNER_REGISTRATION,
                                                  NOW - timedelta(hours=2))
    assert s.reason == ("expired 2026-12-01T18:00:00Z (1 hour), but a runner registered with it between "
                        "2026-12-01T17:00:00Z and 2026-12-01T18:00:00Z stays registered: list the runners of its "
                        "scope and remove those registered then that you do not know")
    before = classify(_issued(TokenKind.REGISTRATION_TOKEN, 180), now=NOW, compromised_since=NOW - timedelta(hours=1))
    assert (before.status, before.action) == ("before_compromise", None)


ROLE = "cloud_role:aws:arn:aws:iam::111122223333:role/deploy"


def _role(**kw) -> CloudRole:
    return CloudRole(id=ROLE, name="deploy", provider="aws", identifier=ROLE.split(":", 2)[2], evidence=[EV], **kw)


def test_sts_sessions_last_up_to_the_role_max_and_die_under_a_session_revocation_policy():
    """AWS STS AssumeRoleWithWebIdentity (DurationSeconds up to the role's MaxSessionDuration); IAM User Guide
    "Revoking IAM role temporary security credentials" (Deny on aws:TokenIssueTime)."""
    g = graph([_role(max_session_seconds=7200, sessions_revoked_before="2026-12-01T19:00:00Z")])
    long_ask = _issued(TokenKind.STS_SESSION, 30, subject=ROLE, duration_seconds=43200)
    assert classify(long_ask, now=NOW).status == "live"  # no role facts: up to 12 h
    recent = _issued(TokenKind.STS_SESSION, 30, subject=ROLE, duration_seconds=43200)
    assert classify(recent, now=NOW, graph=g).expires_at == NOW + timedelta(minutes=90)  # capped at 2 h
    old = _issued(TokenKind.STS_SESSION, 100, subject=ROLE)
    s = classify(old, now=NOW, graph=g)
    assert s.status == "revoked" and "trust path that mints new sessions stays open" in s.reason
    assert classify(old, now=NOW, compromised_since=NOW - timedelta(minutes=50)).status == "before_compromise"


def test_session_revocation_policy_is_recognised_from_the_iam_export(tmp_path):
    export = json.loads((ROOT / "examples/acme/aws-iam.json").read_text())
    role = next(r for r in export["RoleDetailList"] if r["RoleName"] == "acme-deploy-admin")
    role["MaxSessionDuration"] = 3600
    role.setdefault("RolePolicyList", []).append({"PolicyName": "AWSRevokeOlderSessions", "PolicyDocument": {
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Action": ["*"], "Resource": ["*"],
                                                "Condition": {"DateLessThan": {"aws:TokenIssueTime":
                                                                               "2026-12-01T19:00:00Z"}}}]}})
    path = tmp_path / "iam.json"
    path.write_text(json.dumps(export))
    g = build_graph({"aws-iam": [str(path)]}).graph
    node = next(n for n in g.nodes() if isinstance(n, CloudRole) and n.name == "acme-deploy-admin")
    assert (node.sessions_revoked_before, node.max_session_seconds) == ("2026-12-01T19:00:00Z", 3600)
    (note,) = session_notes(g, [node.id], {})
    assert "are dead" in note and "still open" in note and "no step of this plan narrows it" in note


def test_issued_tokens_file_errors_name_the_place(tmp_path):
    bad = tmp_path / "t.yaml"
    bad.write_text("schema: graphkit.issued-tokens/v1\ntokens:\n  - {kind: sts_session, subject: x, issued_at: nope}\n")
    with pytest.raises(InputError) as err:
        load_issued(bad)
    assert err.value.place == "tokens[0].issued_at" and "nope" not in str(err.value)


def _minting_graph() -> Graph:
    """Two persistent runners whose jobs mint OIDC tokens that assume one role: two paths mint sessions."""
    nodes: list = [repo("acme/app"), group("Default", visibility="all"), _role()]
    edges = []
    for name in ("r1", "r2"):
        r = runner(name, [name], ephemeral=False)
        j = job("acme/app", name, cand(name))
        oidc = OIDCIdentity(id=ids.oidc_identity(j.id), name=f"oidc {name}", repository="acme/app", evidence=[EV])
        nodes += [r, j, oidc]
        edges += [Edge(kind=EdgeKind.MINTS_OIDC, source=j.id, target=oidc.id, evidence=[EV]),
                  Edge(kind=EdgeKind.ASSUMES_ROLE, source=oidc.id, target=ROLE, evidence=[EV])]
    g = graph(nodes, edges)
    resolve(g)
    return g


def test_sessions_are_revoked_only_after_every_path_that_mints_them_is_closed():
    """Ordering rule 3 of docs/revocation-plan.md: revoking sessions while a path still mints new ones leaves
    the sessions minted in between alive."""
    g = _minting_graph()
    plan = revocation_plan(g, ["runner:acme/r1", "runner:acme/r2"], live_sessions=[ROLE])
    actions = [(s.action, s.subject_id) for s in plan.steps]
    revoke = actions.index((R.REVOKE_ROLE_SESSIONS, ROLE))
    removals = [i for i, (a, _) in enumerate(actions) if a is R.REMOVE_RUNNER_REGISTRATION]
    assert len(removals) == 2 and revoke > max(removals)
    # without the issued tokens too (the attacker may have assumed the role in the window), still after the path
    assert [(s.action, s.subject_id) for s in revocation_plan(g, "runner:acme/r1").steps] == [
        (R.REMOVE_RUNNER_REGISTRATION, "runner:acme/r1"), (R.REVOKE_ROLE_SESSIONS, ROLE)]


# --------------------------------------------------------------------------- 5. runbook and the example

EXAMPLE = {"github-actions": [str(ROOT / "examples/acme/repos")], "runners": [str(ROOT / "examples/acme/inventory.yaml")],
           "aws-iam": [str(ROOT / "examples/acme/aws-iam.json")]}


@pytest.fixture(scope="module")
def acme() -> Graph:
    return build_graph(EXAMPLE).graph


def test_the_example_plan_starts_with_the_autoscaler_token(acme):
    plan = revocation_plan(acme, "runner:acme/build-01-a")
    assert (plan.steps[0].action, plan.steps[0].subject_id) == (
        R.ROTATE_CREDENTIAL, "credential:build-01:/etc/runner-autoscaler/env")
    assert {"runner_group:acme/release", "runner_group:acme/shared-linux"} <= set(plan.steps[0].cuts)


def test_runbook_commands_are_concrete_and_guarded(acme, tmp_path):
    text = runbook_text(acme, "runner:acme/build-01-a", clock=Clock(now=NOW))
    assert text.startswith("# Runbook: runner:acme/build-01-a") and "- [ ] **1. [contain] rotate_credential**" in text
    script = text.split("```sh\n", 1)[1].rsplit("```", 1)[0]
    body = script.split("\n")[6:]  # after the prelude
    assert all(line == "" or line.startswith(("# ", "run ")) for line in body)
    assert "run gh cache delete --all --repo acme/app" in body
    assert "run gh secret set SLACK_WEBHOOK_URL --org acme --visibility all" in body
    assert any(line.startswith("run sh -c") and "select(.name == \"build-01-a\")" in line for line in body)
    assert '"aws:TokenIssueTime":"2026-12-01T20:00:00Z"' in script
    assert "a1b2c3d4e5f60718" not in text  # never a fingerprint (nor a value)
    path = tmp_path / "rb.sh"
    path.write_text(script)
    subprocess.run(["sh", "-n", str(path)], check=True)
    run = subprocess.run(["sh", str(path)], capture_output=True, text=True, check=True, env={"PATH": "/usr/bin:/bin"})
    assert run.stdout and all(line.startswith("would run: ") for line in run.stdout.splitlines())


def test_runbook_keeps_hostile_names_on_one_line():
    g, _ = _two_runner_graph()
    hostile = Host(id=ids.host("h1"), name="h1\nrm -rf /", ephemeral=False, evidence=[EV])
    g.replace_node(hostile)
    plan = revocation_plan(g, "runner:acme/r1")
    script = runbook_script(g, plan, now=NOW)
    assert "\nrm -rf /" not in script
    reimage = next(s for s in plan.steps if s.action is R.REIMAGE_HOST)
    assert all(a.where != "api" for a in step_actions(g, reimage, now=NOW))  # a host action is never run


def test_cli_runbook_and_time_options(tmp_path):
    from typer.testing import CliRunner

    from graphkit.cli import app
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("schema: graphkit.issued-tokens/v1\ntokens:\n"
                      "  - {kind: registration_token, subject: runner_group:acme/shared-linux, "
                      "issued_at: '2026-12-01T17:00:00Z'}\n")
    args = ["blast-radius", "--from", "runner:acme/build-01-a", "--now", "2026-12-01T20:00:00Z", "--tokens", str(tokens)]
    for k, v in EXAMPLE.items():
        args += [f"--{k}", *v]
    res = CliRunner().invoke(app, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    token = doc["time"]["tokens"][0]
    assert (token["status"], token["action"]) == ("runners_remain", "remove_runner_registration")
    assert doc["revocations"][0]["target"].endswith("scaler/env")
    res = CliRunner().invoke(app, [*args, "--format", "runbook"])
    assert res.exit_code == 0 and "**runners_remain**" in res.stdout and "DRY_RUN" in res.stdout
    # the runbook's own runner listing command, for the group's organization, with the window
    lines = res.stdout.splitlines()
    at = lines.index(next(x for x in lines if x.startswith("- [ ] registration_token `runner_group:acme/shared-linux`")))
    assert lines[at + 1:at + 3] == [
        "  - List the runners of acme and remove the unknown ones registered between 2026-12-01T17:00:00Z and "
        "2026-12-01T18:00:00Z (the audit log's register_self_hosted_runner events give the time) "
        "([doc](https://docs.github.com/en/rest/actions/self-hosted-runners))",
        "    `gh api --paginate /orgs/acme/actions/runners --jq '.runners[] | [.id, .name, .status] | @tsv'`"]
    assert "run gh api --paginate /orgs/acme/actions/runners --jq '.runners[] | [.id, .name, .status] | @tsv'" \
        in lines  # the same command text as the registrar step's
    bad = CliRunner().invoke(app, [*args[:5], "not-a-time"])
    assert bad.exit_code == 2
    both = CliRunner().invoke(app, [*args, "--format", "runbook", "--no-plan"])  # the runbook is the plan
    assert both.exit_code == 2 and "--no-plan and --format runbook exclude each other" in " ".join(both.output.split())


def test_every_revocation_action_has_runbook_actions():
    """A plan step of any action renders (the fork-PR runbook crashed on restrict_untrusted_trigger)."""
    from graphkit.report.runbook import HANDLED_ACTIONS
    assert set(RevocationAction) == set(HANDLED_ACTIONS)


def test_fork_pr_runbook_closes_the_entry_with_the_approval_policy(acme):
    """GitHub REST: PUT /orgs/{org}/actions/permissions/fork-pr-contributor-approval
    (https://docs.github.com/en/rest/actions/permissions#set-fork-pr-contributor-approval-permissions-for-an-organization)."""
    text = runbook_text(acme, "untrusted:fork-pr:acme", clock=Clock(now=NOW))
    assert "restrict_untrusted_trigger" in text and "Keep pull request code off this self-hosted runner" in text
    assert ("run gh api -X PUT /orgs/acme/actions/permissions/fork-pr-contributor-approval "
            "-f approval_policy=all_external_contributors") in text


def test_org_member_reaches_at_least_what_a_fork_pr_reaches(acme):
    """A job entered through can_trigger runs the attacker's code like a source job (EdgeSpec.runs_code), so
    persists_on is followed from it; a writer can open any pull request an outsider can (untrusted rule 5)."""
    fork = set(blast_radius(acme, "untrusted:fork-pr:acme").ids)
    member = set(blast_radius(acme, "untrusted:org-member:acme").ids)
    assert {"host:build-01", "runner:acme/build-01-a", "credential:build-01:/etc/runner-autoscaler/env"} <= fork
    assert fork <= member


def test_a_triggered_job_persists_like_a_source_job():
    """pull_request_target job that builds the PR head on a persistent runner: the untrusted code persists
    (https://docs.github.com/en/actions/security-for-github-actions/security-guides/security-hardening-for-github-actions#hardening-for-self-hosted-runners)."""
    from graphkit.model import UntrustedActor
    g, j = _two_runner_graph()
    u = UntrustedActor(id=ids.untrusted("fork-pr", "acme"), name="fork-pr (acme)", actor="fork-pr", owner="acme",
                       evidence=[EV])
    g.add_node(u)
    g.add_edge(Edge(kind=EdgeKind.CAN_TRIGGER, source=u.id, target=j.id, evidence=[EV]))
    reached = blast_radius(g, u.id)
    assert {"host:h1", "host:h2", "runner:acme/r1", "runner:acme/r2"} <= reached.ids
    assert [h.kind for h in reached["host:h2"].path] == [EdgeKind.CAN_TRIGGER, EdgeKind.PERSISTS_ON]


def test_fork_pr_plan_contains_and_rotates_what_the_entry_reached(acme):
    """Cutting the entry stops new entries; the persistence and the secrets the runs took stay (ordering rule 5:
    docs/revocation-plan.md, "Untrusted entry points")."""
    plan = revocation_plan(acme, "untrusted:fork-pr:acme")
    steps = [(s.action, s.subject_id) for s in plan.steps]
    assert steps[0] == (R.ROTATE_CREDENTIAL, "credential:build-01:/etc/runner-autoscaler/env")  # registrar first
    assert steps[1] == (R.RESTRICT_UNTRUSTED_TRIGGER, "untrusted:fork-pr:acme")  # then the door, its own step
    assert {(R.REMOVE_RUNNER_REGISTRATION, "runner:acme/build-01-a"), (R.REIMAGE_HOST, "host:build-01"),
            (R.ROTATE_SECRET, "secret:repo:acme/docs:ALGOLIA_ADMIN_KEY")} <= set(steps)
    assert "secret:repo:acme/docs:ALGOLIA_ADMIN_KEY" in plan.held


def test_lifetime_behind_an_untrusted_entry_is_what_the_run_obtained(acme):
    radius = blast_radius(acme, "untrusted:fork-pr:acme")
    assert radius["secret:repo:acme/docs:ALGOLIA_ADMIN_KEY"].lifetime is Lifetime.UNTIL_ROTATED
    assert radius["host:build-01"].lifetime is Lifetime.UNTIL_REIMAGED
    assert radius["job:acme/docs/.github/workflows/preview.yml#preview"].lifetime is Lifetime.PER_JOB
    assert radius["github_token:acme/docs/.github/workflows/preview.yml#preview"].lifetime is Lifetime.PER_JOB


def test_ephemeral_runner_plan_rotates_what_its_run_could_read(acme):
    """An ephemeral runner takes one job (``receives_job`` is ``per_job``), but what that run read stays usable
    until rotated and a cache it wrote stays poisoned until purged (ordering rule 5): removing the registration
    stops the next job, then the plan purges and rotates (it used to stop at the registration, residual 0)."""
    radius = blast_radius(acme, "runner:acme/eph-7f3a")
    assert radius["job:acme/app/.github/workflows/ci.yml#test"].lifetime is Lifetime.PER_JOB
    assert radius["github_token:acme/app/.github/workflows/ci.yml#test"].lifetime is Lifetime.PER_JOB
    assert radius["secret:repo:acme/app:CODECOV_TOKEN"].lifetime is Lifetime.UNTIL_ROTATED
    assert radius["cache:actions:acme/app"].lifetime is Lifetime.UNTIL_PURGED
    plan = revocation_plan(acme, "runner:acme/eph-7f3a")
    steps = [(s.action, s.subject_id) for s in plan.steps]
    assert {"secret:repo:acme/app:PYPI_API_TOKEN", "secret:env:acme/infra:production:KUBE_CONFIG_PROD",
            "cache:actions:acme/app"} <= set(plan.held)
    registration = steps.index((R.REMOVE_RUNNER_REGISTRATION, "runner:acme/eph-7f3a"))
    assert steps.index((R.PURGE_CACHE, "cache:actions:acme/app")) > registration
    assert steps.index((R.ROTATE_SECRET, "secret:repo:acme/app:PYPI_API_TOKEN")) > registration
    assert plan.steps[registration].residual_weight > 0 and plan.steps[-1].residual_weight == 0
    # what the run could not keep is not held: the job's token ends with the job
    assert "github_token:acme/app/.github/workflows/ci.yml#test" not in plan.held


def test_every_role_reached_with_admin_power_gets_its_session_revocation(acme):
    """No --tokens: acme-infra-deployer, acme-deploy-admin (AdministratorAccess) may have been assumed in the
    window; each is revoked after the last step that closes a path minting it
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html)."""
    plan = revocation_plan(acme, "untrusted:fork-pr:acme")
    steps = [(s.action, s.subject_id) for s in plan.steps]
    for role in ("acme-infra-deployer", "acme-deploy-admin"):
        rid = ids.cloud_role("aws", "arn:aws:iam::111122223333:role/" + role)
        assert (R.REVOKE_ROLE_SESSIONS, rid) in steps
        assert steps.index((R.REVOKE_ROLE_SESSIONS, rid)) > steps.index((R.REIMAGE_HOST, "host:build-01"))


def test_a_credential_that_can_register_runners_is_a_critical_finding(acme):
    """An admin:org PAT on disk (semantics §8) registers runners into every group: critical, and it says so."""
    from graphkit.findings import FindingOptions, run_rules
    found = {f.subject: f for f in run_rules(acme, FindingOptions(), only=["long-lived-credential-on-disk"])}
    pat = found["credential:build-01:/etc/runner-autoscaler/env"]
    assert pat.severity.value == "critical"
    assert "can register runners into runner_group:acme/default, runner_group:acme/release" in pat.message


def test_an_untrusted_actor_without_entry_point_is_an_empty_blast_radius_with_a_note():
    from typer.testing import CliRunner

    from graphkit.cli import app
    args = ["blast-radius", "--from", "untrusted:comment", "--org", "acme", "--format", "json"]
    for k, v in EXAMPLE.items():
        args += [f"--{k}", *v]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "untrusted:comment:acme: no job of acme can be made to run code by this actor" in res.stderr
    doc = json.loads(res.stdout)
    assert (doc["source"], doc["reached"], doc["revocations"]) == (["untrusted:comment:acme"], [], [])


def test_readme_runbook_excerpt_matches_the_real_output(acme):
    """Every line of the README excerpt (but the `...` elisions) is a line of the runbook, in order."""
    readme = (ROOT / "README.md").read_text()
    excerpt = readme.split("````markdown\n", 1)[1].split("\n````", 1)[0].splitlines()
    real = runbook_text(acme, "runner:acme/build-01-a", clock=Clock(now=NOW)).splitlines()
    assert "    `cd /opt/actions-runner-a && sudo ./svc.sh uninstall`" in excerpt  # the runner directory, when known
    pos = 0
    for line in excerpt:
        if line == "...":
            continue
        pos = real.index(line, pos) + 1


def test_runbook_never_has_a_bare_svc_uninstall_for_a_runner_whose_folder_is_unknown(acme):
    """build-01-a's folder is known (its .credentials path): ``cd`` into it on the same command line.  build-01-b on
    the same host has no known folder: the step says so and lists the runner units (read-only), never a bare
    ``sudo ./svc.sh uninstall`` that, typed after step 4's ``cd``, would uninstall build-01-a a second time."""
    real = runbook_text(acme, "runner:acme/build-01-a", clock=Clock(now=NOW))
    lines = real.splitlines()
    uninstall = [line.strip() for line in lines if "svc.sh uninstall" in line and line.strip().startswith(("`", "#"))]
    assert "`cd /opt/actions-runner-a && sudo ./svc.sh uninstall`" in uninstall
    assert all("cd " in line for line in uninstall), uninstall
    step = next(i for i, line in enumerate(lines) if "runner service of build-01-b: its folder is unknown" in line)
    assert "actions.runner.<scope>.build-01-b.service" in lines[step] and "host `build-01`" in lines[step]
    assert lines[step + 1].strip() == "`systemctl list-units --all --type=service 'actions.runner.*'`"


def test_token_records_graphkit_cannot_classify_are_problems(acme):
    ghost = Issued(kind=TokenKind.REGISTRATION_TOKEN, subject="runner_group:acme/nope",
                   issued_at=NOW - timedelta(minutes=10))
    assert classify(ghost, now=NOW, graph=acme).status == "problem"
    assert "not in the graph" in classify(ghost, now=NOW, graph=acme).reason
    future = Issued(kind=TokenKind.REGISTRATION_TOKEN, subject="runner_group:acme/shared-linux",
                    issued_at=NOW + timedelta(minutes=10))
    assert classify(future, now=NOW, graph=acme).status == "problem"


def test_cli_time_table_section_and_usage_errors(tmp_path):
    from typer.testing import CliRunner

    from graphkit.cli import app
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("schema: graphkit.issued-tokens/v1\ntokens:\n"
                      "  - {kind: registration_token, subject: runner_group:acme/shared-linux, "
                      "issued_at: '2026-12-01T17:00:00Z'}\n"
                      "  - {kind: registration_token, subject: runner_group:acme/ghost, "
                      "issued_at: '2026-12-01T19:30:00Z'}\n")
    args = ["blast-radius", "--from", "runner:acme/build-01-a", "--now", "2026-12-01T20:00:00Z"]
    for k, v in EXAMPLE.items():
        args += [f"--{k}", *v]
    res = CliRunner().invoke(app, [*args, "--tokens", str(tokens)])
    assert res.exit_code == 0, res.output
    section = res.stdout.split("Tokens and sessions", 1)[1]
    assert "expired" in section and "problem" in section and "runner_group:acme/ghost" in section
    bad = CliRunner().invoke(app, [*args, "--compromised-since", "2026-12-02T00:00:00Z"])
    assert bad.exit_code == 2 and "--compromised-since" in bad.output


def test_senseless_and_invalid_token_records_are_per_record_problems(tmp_path):
    """A registration token whose subject is a cloud role, an STS session whose subject is a job, a GITHUB_TOKEN
    that ended before it was issued: each a ``problem`` naming its place (never live, never expired), and a
    record that does not validate is named on stderr and left out (exit 3): the other records are still used."""
    from typer.testing import CliRunner

    from graphkit.cli import app
    role = "cloud_role:aws:arn:aws:iam::111122223333:role/acme-release"
    job = "job:acme/app/.github/workflows/release.yml#publish"
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("schema: graphkit.issued-tokens/v1\ntokens:\n"
                      f"  - {{kind: registration_token, subject: '{role}', issued_at: '2026-12-01T19:30:00Z'}}\n"
                      f"  - {{kind: sts_session, subject: '{job}', issued_at: '2026-12-01T19:45:00Z'}}\n"
                      f"  - {{kind: github_token, subject: '{job}', issued_at: '2026-12-01T19:40:00Z', "
                      "ended_at: '2026-12-01T19:00:00Z'}\n"
                      "  - {kind: nope, subject: x, issued_at: '2026-12-01T19:30:00Z'}\n"
                      "  - {kind: registration_token, subject: 'runner_group:acme/shared-linux', "
                      "issued_at: '2026-12-01T19:30:00Z'}\n")
    args = ["blast-radius", "--from", "runner:acme/build-01-a", "--now", "2026-12-01T20:00:00Z", "--format", "json",
            "--tokens", str(tokens)]
    for k, v in EXAMPLE.items():
        args += [f"--{k}", *v]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 3, res.output
    assert "tokens[3].kind: Input should be 'registration_token'" in " ".join(res.stderr.split())
    got = {(t["kind"], t["status"], t["reason"]) for t in json.loads(res.stdout)["time"]["tokens"]}
    assert got == {
        ("registration_token", "problem", "tokens[0]: registration_token subject must be a runner_group or runner "
         "id, not a cloud_role id: check the record"),
        ("sts_session", "problem", "tokens[1]: sts_session subject must be a cloud_role id, not a job id: check the "
         "record"),
        ("github_token", "problem", "tokens[2]: ended_at is before issued_at: check the record (no lifetime can be "
         "computed)"),
        ("registration_token", "live", "live until 2026-12-01T20:30:00Z (1 hour): remove every runner registered "
         "with it")}
    with pytest.raises(InputError, match=r"tokens\[3\]\.kind"):  # the library's strict form: all errors at once
        load_issued(tokens)


def test_issued_tokens_example_validates_against_its_schema():
    import jsonschema
    import yaml
    schema = json.loads((ROOT / "schemas/issued-tokens.schema.json").read_text())
    example = yaml.safe_load((ROOT / "examples/acme/issued-tokens.yaml").read_text())
    jsonschema.validate(example, schema)
    assert load_issued(ROOT / "examples/acme/issued-tokens.yaml")


def test_issued_tokens_schema_is_rendered_from_the_model():
    from graphkit.analysis.timeline import issued_schema_text
    assert (ROOT / "schemas/issued-tokens.schema.json").read_text() == issued_schema_text(), "python -m graphkit.docs"
