"""GitLab runners, CI/CD variables and their semantics (issue 14).

Fixtures are written from the GitLab documentation cited in each test: Runners API
https://docs.gitlab.com/api/runners/, CI/CD variables https://docs.gitlab.com/ci/variables/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphkit.model import EdgeKind, RevocationAction, Runner, Secret
from ingest.runner_inventory import parse, to_graph

FIX = Path(__file__).parent / "fixtures" / "gitlab"


@pytest.fixture(scope="module")
def inventory():
    parsed = parse((FIX / "inventory.yaml").read_text(), "inventory.yaml")
    assert parsed.problems == []
    return to_graph([parsed])


def test_gitlab_runner_entries_keep_the_api_fields(inventory):
    """runner_type, tag_list, run_untagged, access_level, paused, groups/projects (GET /runners/:id)."""
    nodes = inventory.graph.nodes
    shell = nodes["runner:gitlab.example.com/shared-shell-01"]
    assert isinstance(shell, Runner) and shell.platform == "gitlab" and shell.labels == ["linux", "shell"]
    assert (shell.gitlab.runner_type, shell.gitlab.run_untagged, shell.gitlab.access_level, shell.gitlab.executor,
            shell.gitlab.runner_id) == ("instance_type", True, "not_protected", "shell", 42)
    deploy = nodes["runner:gitlab.example.com/deploy-protected"]
    assert deploy.gitlab.access_level == "ref_protected" and deploy.gitlab.groups == ("acme",)
    assert deploy.runner_group is None  # no GitHub "Default" runner group for a GitLab runner
    assert nodes["runner:gitlab.example.com/old-paused"].gitlab.paused is True
    assert nodes["runner:gitlab.example.com/app-k8s"].gitlab.projects == ("acme/platform/app",)
    assert not any(n.id.startswith(("org:", "runner_group:")) for n in nodes.values())
    # deleting a GitLab runner is its own revocation action (DELETE /runners/:id)
    assert shell.revoked_by is RevocationAction.DELETE_GITLAB_RUNNER
    hosts = inventory.graph.edges[("host:build-07", shell.id, EdgeKind.HOSTS.value)]
    assert hosts.revoked_by is RevocationAction.DELETE_GITLAB_RUNNER


def test_gitlab_variables_are_secrets_with_flags_never_values(inventory):
    """Instance, group and project variables: protected, masked, hidden, raw, variable_type, environment_scope."""
    nodes = inventory.graph.nodes
    prod = nodes["secret:gitlab:gitlab.example.com/acme/platform/app:AWS_PROD_KEY:production"]
    assert isinstance(prod, Secret) and prod.scope == "gitlab" and prod.secret_name == "AWS_PROD_KEY"
    assert (prod.gitlab.level, prod.gitlab.protected, prod.gitlab.masked, prod.gitlab.environment_scope) == \
        ("project", True, True, "production")
    assert prod.revoked_by is RevocationAction.ROTATE_CICD_VARIABLE
    kube = nodes["secret:gitlab:gitlab.example.com/acme/platform/app:KUBECONFIG_STAGING:staging*"]
    assert kube.gitlab.variable_type == "file"
    group = nodes["secret:gitlab:gitlab.example.com/acme:GROUP_DEPLOY_KEY:*"]
    assert (group.gitlab.level, group.gitlab.hidden) == ("group", True)
    inst = nodes["secret:gitlab:gitlab.example.com:INSTANCE_NPM_TOKEN:*"]
    assert inst.gitlab.level == "instance"
    facts = inventory.meta["runner_inventory"]
    proj = facts.gitlab_projects["gitlab.example.com/acme/platform/app"]
    assert proj["protected_branches"] == ["main", "release/*"] and proj["protected_tags"] == ["v*"]
    assert facts.gitlab_variables_complete == ["gitlab.example.com", "gitlab.example.com/acme",
                                               "gitlab.example.com/acme/platform/app"]


def test_a_bad_gitlab_entry_costs_only_that_entry():
    text = (FIX / "inventory.yaml").read_text().replace("access_level: ref_protected", "access_level: protected")
    parsed = parse(text, "inventory.yaml")
    assert [p.place for p in parsed.problems] == ["runners[1].gitlab.access_level"]
    assert len(parsed.inventory.runners) == 3


# --------------------------------------------------------------------------- semantics (graphkit.resolve.gitlab)

from graphkit.build import build_graph  # noqa: E402
from graphkit.graph import Graph  # noqa: E402
from graphkit.model import Confidence, Evidence, Job, ids  # noqa: E402
from graphkit.model.gitlab import GitLabEnvironment, GitLabJob, GitLabTrigger  # noqa: E402
from graphkit.resolve import resolve  # noqa: E402

PROJECT = "acme/platform/app"
EV = Evidence(file=".gitlab-ci.yml", yaml_path="job")


def _trigger(ref_type="branch", refs=None, protected=None, from_fork=None, sources=("push",), excluded=()):
    return GitLabTrigger(ref_type=ref_type, sources=sources, refs=refs, refs_excluded=excluded, protected=protected,
                         from_fork=from_fork, evidence=EV)


def _job(name, *, tags=(), triggers=None, environment=None, dynamic_env=False, bridge=None):
    gl = GitLabJob(project=PROJECT, config_file=".gitlab-ci.yml", file=".gitlab-ci.yml", name=name, tags=tuple(tags),
                   bridge=bridge, triggers=tuple(triggers if triggers is not None else [_trigger()]),
                   environment=GitLabEnvironment(name=environment, dynamic=dynamic_env, evidence=EV)
                   if environment else None, evidence=EV)
    return Job(id=ids.gitlab_job(PROJECT, ".gitlab-ci.yml", name), name=name, repository=PROJECT,
               workflow_path=".gitlab-ci.yml", job_key=name, secrets_repository=PROJECT, platform="gitlab",
               environment=environment, gitlab=gl, evidence=[EV])


def _graph(inventory, *jobs):
    g = Graph()
    g.update(inventory.graph.nodes.values(), inventory.graph.edges.values())
    g.meta = {"runner_inventory": inventory.meta["runner_inventory"]}
    for j in jobs:
        g.add_node(j)
    resolve(g)
    return g


def _receivers(g, job):
    return {e.source.rsplit("/", 1)[1]: e.confidence.value for e in g.in_edges(job.id)
            if e.kind is EdgeKind.RECEIVES_JOB}


def _variables(g, job):
    return {ids.parse(e.target).parts["name"]: e.confidence.value for e in g.out_edges(job.id)
            if e.kind is EdgeKind.READS_SECRET}


def test_tags_pick_the_runner_and_untagged_jobs_need_run_untagged(inventory):
    """https://docs.gitlab.com/ci/yaml/#tags: the runner has every tag of the job; untagged: run_untagged."""
    shell, untagged, deploy = _job("lint", tags=["linux"]), _job("plain"), _job("k8s", tags=["k8s", "gpu"])
    g = _graph(inventory, shell, untagged, deploy)
    assert _receivers(g, shell) == {"shared-shell-01": "certain"}  # old-paused has the tags but is paused
    assert _receivers(g, untagged) == {"shared-shell-01": "certain"}  # run_untagged; deploy/app-k8s are not
    assert _receivers(g, deploy) == {}  # app-k8s lacks gpu
    e = next(e for e in g.in_edges(shell.id) if e.kind is EdgeKind.RECEIVES_JOB)
    assert e.revoked_by is RevocationAction.DELETE_GITLAB_RUNNER


def test_ref_protected_runner_takes_only_protected_ref_jobs(inventory):
    """https://docs.gitlab.com/ci/runners/configure_runners/#prevent-runners-from-revealing-sensitive-information;
    protected branch wildcards https://docs.gitlab.com/user/project/repository/branches/protected/."""
    on_main = _job("deploy-main", tags=["deploy"], triggers=[_trigger(refs=("main",))])
    on_release = _job("deploy-rel", tags=["deploy"], triggers=[_trigger(refs=("release/1.2",))])
    on_feature = _job("deploy-feat", tags=["deploy"], triggers=[_trigger(refs=("feature/x",))])
    any_branch = _job("deploy-any", tags=["deploy"])
    g = _graph(inventory, on_main, on_release, on_feature, any_branch)
    assert _receivers(g, on_main) == {"deploy-protected": "certain"}
    assert _receivers(g, on_release) == {"deploy-protected": "certain"}  # release/* wildcard
    assert _receivers(g, on_feature) == {}
    assert _receivers(g, any_branch) == {"deploy-protected": "possible"}  # undecidable: possible, not dropped


def test_unprotected_runner_takes_protected_jobs_and_their_protected_variables(inventory):
    """A not_protected runner also runs protected-ref jobs, so it receives their protected variables
    (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable)."""
    main = _job("build-main", tags=["linux"], triggers=[_trigger(refs=("main",))])
    feature = _job("build-feature", tags=["linux"], triggers=[_trigger(refs=("feature/x",))])
    g = _graph(inventory, main, feature)
    assert _receivers(g, main) == {"shared-shell-01": "certain"}
    assert _variables(g, main) == {"INSTANCE_NPM_TOKEN": "certain", "GROUP_DEPLOY_KEY": "certain",
                                   "SONAR_TOKEN": "certain"}
    assert _variables(g, feature) == {"INSTANCE_NPM_TOKEN": "certain", "SONAR_TOKEN": "certain"}
    e = next(e for e in g.out_edges(main.id) if e.kind is EdgeKind.READS_SECRET)
    assert e.revoked_by is RevocationAction.ROTATE_CICD_VARIABLE


def test_environment_scoped_variables_reach_matching_environments_only(inventory):
    """https://docs.gitlab.com/ci/environments/#limit-the-environment-scope-of-a-cicd-variable (wildcards)."""
    prod = _job("deploy-prod", tags=["linux"], environment="production", triggers=[_trigger(refs=("main",))])
    review = _job("review", tags=["linux"], environment="review/feature-1", triggers=[_trigger(refs=("feature/x",))])
    dyn = _job("review-dyn", tags=["linux"], environment="review/$CI_COMMIT_REF_SLUG", dynamic_env=True,
               triggers=[_trigger(refs=("feature/x",))])
    staging = _job("staging", tags=["linux"], environment="staging-eu", triggers=[_trigger(refs=("feature/x",))])
    g = _graph(inventory, prod, review, dyn, staging)
    assert "AWS_PROD_KEY" in _variables(g, prod) and "REVIEW_TOKEN" not in _variables(g, prod)
    assert _variables(g, review)["REVIEW_TOKEN"] == "certain" and "AWS_PROD_KEY" not in _variables(g, review)
    assert _variables(g, dyn)["REVIEW_TOKEN"] == "possible"
    assert _variables(g, staging)["KUBECONFIG_STAGING"] == "certain"  # staging* matches staging-eu


def test_protected_variable_is_possible_when_the_ref_is_undecided(inventory):
    job = _job("any", tags=["linux"])  # any branch: main (protected) or another
    g = _graph(inventory, job)
    assert _variables(g, job)["GROUP_DEPLOY_KEY"] == "possible"


def test_a_job_on_every_ref_but_the_protected_ones_gets_no_protected_variable(inventory):
    """A job on any ref but excluded ones (``except: [main]``, ``if: $CI_COMMIT_BRANCH != "main"``) runs on a
    protected ref only if one is not excluded; protected variables are "only passed to pipelines running on
    protected branches or protected tags" (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable).  The
    project protects ``main``, ``release/*`` and tags ``v*`` (wildcards:
    https://docs.gitlab.com/user/project/repository/branches/protected/): a literal exclusion cannot hold a
    wildcard's endless names, a ``/^release\\//`` exclusion does."""
    not_main = _job("not-main", tags=["linux"], triggers=[_trigger(excluded=("main",))])
    neither = _job("neither", tags=["linux"], triggers=[_trigger(excluded=("$CI_DEFAULT_BRANCH", "/^release\\//"))])
    other_rx = _job("other-rx", tags=["linux"], triggers=[_trigger(excluded=("main", "/rel(ease)?\\//"))])
    no_v_tags = _job("no-v", tags=["linux"], triggers=[_trigger("tag", excluded=("/^v/",))])
    some_tags = _job("some-tags", tags=["linux"], triggers=[_trigger("tag", excluded=("v1.0",))])
    deploy = _job("deploy-neither", tags=["deploy"], triggers=[_trigger(excluded=("main", "/^release\\/.*$/"))])
    g = _graph(inventory, not_main, neither, other_rx, no_v_tags, some_tags, deploy)
    assert _variables(g, not_main)["GROUP_DEPLOY_KEY"] == "possible"  # release/1.2 is protected and not excluded
    assert _variables(g, neither) == {"INSTANCE_NPM_TOKEN": "certain", "SONAR_TOKEN": "certain"}
    assert _variables(g, other_rx)["GROUP_DEPLOY_KEY"] == "possible"  # a regex not read as covering release/*
    assert _variables(g, no_v_tags) == {"INSTANCE_NPM_TOKEN": "certain", "SONAR_TOKEN": "certain"}
    assert _variables(g, some_tags)["GROUP_DEPLOY_KEY"] == "possible"
    assert _receivers(g, deploy) == {}  # a ref_protected runner never takes it


def test_jobs_kept_off_the_protected_branch_by_their_rules_get_no_protected_variable(tmp_path):
    """The rules of a real ``.gitlab-ci.yml`` (project protects ``main`` only, no tag): ``!= "main"`` with a
    branch, and ``except: [main, tags]``, never run on a protected ref; ``!= "main"`` alone also runs in merge
    request pipelines (``$CI_COMMIT_BRANCH`` is not set there:
    https://docs.gitlab.com/ci/variables/predefined_variables/), whose source branch may be ``main``: possible."""
    repo = tmp_path / "repos" / "acme__app"
    repo.mkdir(parents=True)
    (repo / ".gitlab-ci.yml").write_text(
        "mr:\n  tags: [linux]\n  rules: [{if: '$CI_PIPELINE_SOURCE == \"merge_request_event\"'}]\n  script: [t]\n"
        "feature:\n  tags: [linux]\n  rules: [{if: '$CI_COMMIT_BRANCH != \"main\" && $CI_COMMIT_BRANCH'}]\n"
        "  script: [t]\n"
        "deploy:\n  tags: [linux]\n  rules: [{if: '$CI_COMMIT_BRANCH == \"main\"'}]\n  script: [d]\n"
        "notmain:\n  tags: [linux]\n  rules: [{if: '$CI_COMMIT_BRANCH != \"main\"'}]\n  script: [t]\n"
        "exceptmain:\n  tags: [linux]\n  except: [main, tags]\n  script: [t]\n", encoding="utf-8")
    inv = tmp_path / "inv.yaml"
    inv.write_text("""schema: graphkit.runner-inventory/v1
gitlab_groups:
  - {instance: gitlab.com, full_path: acme, variables_complete: true,
     variables: [{key: GROUP_DEPLOY_KEY, protected: true}]}
gitlab_projects:
  - {instance: gitlab.com, full_path: acme/app, default_branch: main, protected_branches: [main], protected_tags: [],
     variables_complete: true, variables: []}
runners:
  - name: shell1
    scope: gitlab.com
    platform: gitlab
    gitlab: {id: 1, runner_type: group_type, groups: [acme], tag_list: [linux], access_level: not_protected}
""", encoding="utf-8")
    g = build_graph({"gitlab-ci": [tmp_path / "repos"], "runners": [inv]}).graph
    reads = {e.source.rsplit("#", 1)[1]: e.confidence.value for e in g.edges()
             if e.kind is EdgeKind.READS_SECRET and e.target.endswith(":GROUP_DEPLOY_KEY:*")}
    assert reads == {"deploy": "certain", "mr": "possible", "notmain": "possible"}


def test_fork_merge_requests_are_not_protected_refs(inventory):
    """Merge request pipelines from a fork run on the fork's branch."""
    mr = _job("mr", tags=["deploy"], triggers=[_trigger("merge_request", sources=("merge_request_event",),
                                                         from_fork=True)])
    g = _graph(inventory, mr)
    assert _receivers(g, mr) == {} and "GROUP_DEPLOY_KEY" not in _variables(g, mr)


def test_runner_scope_and_bridges(inventory):
    """Project runners serve their projects only (https://docs.gitlab.com/ci/runners/runners_scope/);
    a trigger job runs on no runner (https://docs.gitlab.com/ci/yaml/#trigger)."""
    k8s = _job("k8s", tags=["k8s"])
    other = k8s.model_copy(update={"id": ids.gitlab_job("other/proj", ".gitlab-ci.yml", "k8s"),
                                   "gitlab": k8s.gitlab.model_copy(update={"project": "other/proj"})})
    bridge = _job("downstream", bridge="acme/other")
    g = _graph(inventory, k8s, other, bridge)
    assert _receivers(g, k8s) == {"app-k8s": "certain"} and _receivers(g, other) == {}
    assert _receivers(g, bridge) == {} and _variables(g, bridge) == {}


def test_the_executor_decides_what_persists(inventory):
    """https://docs.gitlab.com/runner/security/: shell persists on the runner and host; kubernetes on a host reset
    after each job leaves nothing."""
    shell, k8s = _job("lint", tags=["linux"]), _job("k8s", tags=["k8s"])
    g = _graph(inventory, shell, k8s)
    persists = {(e.source, e.target) for e in g.edges(EdgeKind.PERSISTS_ON)}
    assert (shell.id, "runner:gitlab.example.com/shared-shell-01") in persists
    assert (shell.id, "host:build-07") in persists
    assert not any(s == k8s.id for s, _ in persists)


def test_id_tokens_assume_aws_roles_through_the_existing_trust_evaluator(inventory):
    """sub = project_path:{project}:ref_type:{branch|tag}:ref:{name}, iss = the instance
    (https://docs.gitlab.com/ci/secrets/id_token_authentication/); AWS evaluates only {host}:sub and {host}:aud
    for GitLab (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#condition-keys-wif)."""
    from graphkit.model.gitlab import GitLabIdToken
    from ingest.aws_iam import INGESTOR as IAM
    iam = IAM.ingest([FIX / "aws-iam.json"])

    def with_token(job):
        tok = GitLabIdToken(name="AWS_TOKEN", aud=("https://gitlab.example.com",), evidence=EV)
        return job.model_copy(update={"gitlab": job.gitlab.model_copy(update={"id_tokens": (tok,)})})
    main = with_token(_job("deploy", tags=["linux"], triggers=[_trigger(refs=("main",))]))
    feature = with_token(_job("feat", tags=["linux"], triggers=[_trigger(refs=("feature/x",))]))
    g = Graph()
    g.update(inventory.graph.nodes.values(), inventory.graph.edges.values())
    g.update(iam.graph.nodes.values(), iam.graph.edges.values())
    g.meta = {"runner_inventory": inventory.meta["runner_inventory"]}
    for j in (main, feature):
        g.add_node(j)
    resolve(g)
    oid = ids.oidc_identity(main.id)
    ident = g.node(oid)
    assert ident.issuer == "https://gitlab.example.com"
    assert ident.subjects == ["project_path:acme/platform/app:ref_type:branch:ref:main"]
    assert any(e.kind is EdgeKind.MINTS_OIDC and e.target == oid for e in g.out_edges(main.id))

    def roles(job):
        return {e.target.rsplit("/", 1)[1]: e.confidence.value for e in g.out_edges(ids.oidc_identity(job.id))
                if e.kind is EdgeKind.ASSUMES_ROLE}
    assert roles(main) == {"gitlab-deploy": "certain", "gitlab-any-branch": "certain"}
    # feature/x: not main; the namespace_path condition is an absent key for STS (no GitLab claims evaluated)
    assert roles(feature) == {"gitlab-any-branch": "certain"}


def _host_snapshot(tmp_path, config: str):
    import json as _json

    from ingest.host.collect import collect_host
    root = tmp_path / "root"
    (root / "etc" / "gitlab-runner").mkdir(parents=True)
    (root / "etc" / "gitlab-runner" / "config.toml").write_text(config)
    doc = collect_host(root, hostname="build-07").document
    out = tmp_path / "host.json"
    out.write_text(_json.dumps(doc))
    return out, doc


def test_a_host_registration_joins_its_inventory_runner_and_its_token_receives_jobs(tmp_path):
    """config.toml ``[[runners]]`` (https://docs.gitlab.com/runner/configuration/advanced-configuration/): joined to
    the inventory runner by token fingerprint (never the token), else by runner id; the token on disk is a
    credential that requests the runner's jobs until the runner is deleted or the token reset
    (https://docs.gitlab.com/api/runners/#reset-runners-authentication-token-by-using-the-runner-id)."""
    from graphkit.redact import fingerprint
    from ingest.runner_inventory import INGESTOR
    token = "test-runner-token-not-real"
    config = ('[[runners]]\n  name = "build07-shell"\n  url = "https://gitlab.example.com/"\n  id = 99\n'
              f'  token = "{token}"\n  executor = "shell"\n'
              '[[runners]]\n  name = "build07-deploy"\n  url = "https://gitlab.example.com/"\n  id = 43\n'
              '  token = "another-fake-token"\n  executor = "docker"\n'
              '[[runners]]\n  name = "rogue"\n  url = "https://gitlab.example.com/"\n  id = 777\n'
              '  token = "third-fake-token"\n  executor = "shell"\n')
    host_file, doc = _host_snapshot(tmp_path, config)
    assert token not in host_file.read_text()
    inv = (FIX / "inventory.yaml").read_text().replace(
        "run_untagged: true,\n             access_level: not_protected, paused: false, locked: false, executor: shell}",
        f"run_untagged: true,\n             access_level: not_protected, paused: false, locked: false, executor: shell,"
        f"\n             token_fingerprint: \"{fingerprint(token.encode())}\"}}")
    (tmp_path / "inventory.yaml").write_text(inv)
    res = INGESTOR.ingest([tmp_path / "inventory.yaml", host_file])
    g = Graph()
    g.update(res.graph.nodes.values(), res.graph.edges.values())
    g.meta = {"runner_inventory": res.meta["runner_inventory"]}
    resolve(g)
    shell = g.node("runner:gitlab.example.com/shared-shell-01")  # by fingerprint (the id 99 differs)
    deploy = g.node("runner:gitlab.example.com/deploy-protected")  # by runner id 43
    assert shell.registration is not None and shell.in_inventory and not shell.unvetted
    assert deploy.registration is not None and deploy.host == "build-07"
    assert "runner:gitlab.example.com/build07-shell" not in g and "runner:gitlab.example.com/build07-deploy" not in g
    rogue = g.node("runner:gitlab.example.com/rogue")
    assert rogue.unvetted  # on the host, in no inventory: runner on runner
    cred = "credential:build-07:/etc/gitlab-runner/config.toml"
    auth = {e.target for e in g.out_edges(cred) if e.kind is EdgeKind.AUTHENTICATES_RUNNER}
    assert auth == {shell.id, deploy.id, rogue.id}
    assert g.node(cred).revoked_by is RevocationAction.RESET_RUNNER_TOKEN
    resolve(g)  # idempotent
    assert "runner:gitlab.example.com/build07-shell" not in g


def test_blast_radius_of_a_gitlab_runner_end_to_end(tmp_path):
    """graphkit blast-radius on .gitlab-ci.yml + GitLab inventory + a host's config.toml + IAM trust of the GitLab
    issuer: the shared shell runner (not_protected) takes the protected deploy job on main, so it reaches the
    protected, production-scoped variables and the AWS role trusting project_path:...:ref:main; the plan deletes
    the runner, resets the token found on disk and rotates the variables (https://docs.gitlab.com/api/runners/)."""
    import json as _json

    from typer.testing import CliRunner

    from graphkit.cli import app
    host_file, _ = _host_snapshot(tmp_path, '[[runners]]\n  name = "shared-shell-01"\n  url = "https://gitlab.example.com/"'
                                            '\n  id = 42\n  token = "fake-token-e2e"\n  executor = "shell"\n')
    checkout = f"https://gitlab.example.com/{PROJECT}={FIX / 'checkouts' / 'app'}"
    args = ["blast-radius", "--gitlab-ci", checkout, "--runners", str(FIX / "inventory.yaml"), "--runners",
            str(host_file), "--aws-iam", str(FIX / "aws-iam.json"), "--from", "runner:gitlab.example.com/shared-shell-01"]
    res = CliRunner().invoke(app, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = _json.loads(res.stdout)
    reached = {r["id"] for r in doc["reached"]}
    deploy = ids.gitlab_job(PROJECT, ".gitlab-ci.yml", "deploy")
    assert {deploy, "host:build-07", "cloud_role:aws:arn:aws:iam::111122223333:role/gitlab-deploy",
            "cloud_account:aws:111122223333",
            "secret:gitlab:gitlab.example.com/acme/platform/app:AWS_PROD_KEY:production",
            "secret:gitlab:gitlab.example.com/acme:GROUP_DEPLOY_KEY:*"} <= reached
    assert "cloud_role:aws:arn:aws:iam::111122223333:role/gitlab-namespace-claim" not in reached
    steps = [(s["action"], s["target"]) for s in doc["revocations"]]
    # a trust accepting any branch of the project is a door any push reopens: narrowed first (as for GitHub), then
    # the runner is deleted; the trust pinned to main is not broad
    any_branch = "cloud_role:aws:arn:aws:iam::111122223333:role/gitlab-any-branch"
    assert steps[:3] == [("narrow_trust_policy", any_branch), ("revoke_role_sessions", any_branch),
                         ("delete_gitlab_runner", "runner:gitlab.example.com/shared-shell-01")]
    assert ("narrow_trust_policy", "cloud_role:aws:arn:aws:iam::111122223333:role/gitlab-deploy") not in steps
    assert ("rotate_cicd_variable", "secret:gitlab:gitlab.example.com/acme/platform/app:AWS_PROD_KEY:production") in steps
    runbook = CliRunner().invoke(app, [*args, "--format", "runbook"])
    assert runbook.exit_code == 0 and "/api/v4/runners/42" in runbook.stdout and "fake-token-e2e" not in runbook.stdout
    # the token on disk: its holder keeps requesting the runner's jobs until the token is reset
    res = CliRunner().invoke(app, [*args[:-2], "--from", "credential:build-07:/etc/gitlab-runner/config.toml",
                                   "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = _json.loads(res.stdout)
    assert deploy in {r["id"] for r in doc["reached"]}
    # deleting the runner kills every copy of its token (resetting the token would too)
    first = next(x for x in doc["revocations"] if x["target"].startswith(("runner:", "credential:")))
    assert (first["action"], first["target"]) == ("delete_gitlab_runner", "runner:gitlab.example.com/shared-shell-01")
    out = tmp_path / "report.html"
    rep = CliRunner().invoke(app, ["report", *args[1:], "-o", str(out)])
    assert rep.exit_code == 0, rep.output
    assert "delete_gitlab_runner" in out.read_text()


def test_runbook_resets_the_runner_token_and_never_prints_it(tmp_path):
    """POST /runners/:id/reset_authentication_token for each registration the config.toml holds
    (https://docs.gitlab.com/api/runners/#reset-runners-authentication-token-by-using-the-runner-id)."""
    from datetime import datetime, timezone

    from graphkit.analysis.results import Phase, RevocationStep
    from graphkit.model import NodeKind
    from graphkit.report.runbook import step_actions
    from ingest.runner_inventory import INGESTOR
    host_file, _ = _host_snapshot(tmp_path, '[[runners]]\n  name = "shared-shell-01"\n  url = "https://gitlab.example.com/"'
                                            '\n  id = 42\n  token = "fake-token-reset"\n  executor = "shell"\n')
    res = INGESTOR.ingest([FIX / "inventory.yaml", host_file])
    g = Graph()
    g.update(res.graph.nodes.values(), res.graph.edges.values())
    cred = "credential:build-07:/etc/gitlab-runner/config.toml"
    step = RevocationStep(1, RevocationAction.RESET_RUNNER_TOKEN, cred, NodeKind.CREDENTIAL, "config.toml", "", True,
                          Phase.ROTATE, 1, (), 0)
    actions = step_actions(g, step, now=datetime(2026, 12, 2, tzinfo=timezone.utc))
    assert "https://gitlab.example.com/api/v4/runners/42/reset_authentication_token" in actions[0].command
    assert not any("fake-token-reset" in (a.command or "") + a.text for a in actions)


def _findings(tmp_path, inventory_text):
    from graphkit.findings import FindingOptions, run_rules
    from ingest.aws_iam import INGESTOR as IAM
    from ingest.gitlab_ci import INGESTOR as CI
    from ingest.runner_inventory import INGESTOR
    (tmp_path / "inv.yaml").write_text(inventory_text)
    g = Graph()
    metas = {}
    for res in (INGESTOR.ingest([tmp_path / "inv.yaml"]),
                CI.ingest([f"https://gitlab.example.com/{PROJECT}={FIX / 'checkouts' / 'app'}"]),
                IAM.ingest([FIX / "aws-iam.json"])):
        g.update(res.graph.nodes.values(), res.graph.edges.values())
        metas.update(res.meta)
    g.meta = {"runner_inventory": metas["runner_inventory"]}
    resolve(g)
    return {(f.rule, f.subject) for f in run_rules(g, FindingOptions())}


def test_untrusted_and_persistence_findings_fire_on_a_shared_shell_runner(tmp_path):
    """Anyone who can create or fork a project runs code on instance runners
    (https://docs.gitlab.com/ci/runners/runners_scope/#instance-runners); a fork's merge request pipeline can run in
    the parent project (https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/#run-pipelines-in-the-parent-project);
    a shell executor persists (https://docs.gitlab.com/runner/security/)."""
    found = _findings(tmp_path, (FIX / "inventory.yaml").read_text())
    shell = "runner:gitlab.example.com/shared-shell-01"
    assert ("untrusted-path-to-self-hosted-runner", shell) in found
    assert ("persistent-runner-shared", shell) in found
    # near miss: the same runner, ref_protected and a project runner of a private project: no untrusted path
    text = (FIX / "inventory.yaml").read_text().replace(
        "{id: 42, runner_type: instance_type, tag_list: [linux, shell], run_untagged: true,\n"
        "             access_level: not_protected",
        "{id: 42, runner_type: project_type, projects: [acme/platform/app], tag_list: [linux, shell], "
        "run_untagged: true,\n             access_level: ref_protected").replace("visibility: public",
                                                                                "visibility: private")
    found = _findings(tmp_path, text)
    assert ("untrusted-path-to-self-hosted-runner", shell) not in found


def test_a_variable_whose_protected_flag_is_unknown_is_possible_on_unprotected_refs(tmp_path):
    """Unknown is not empty: a variable listed without its protected flag may or may not reach an unprotected ref's
    job (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable); a protected ref's job receives it."""
    text = (FIX / "inventory.yaml").read_text().replace("{key: SONAR_TOKEN, protected: false, masked: true, raw: true}",
                                                       "{key: SONAR_TOKEN, masked: true, raw: true}")
    inv = to_graph([parse(text, "inventory.yaml")])
    feature = _job("f", tags=["linux"], triggers=[_trigger(refs=("feature/x",))])
    main = _job("m", tags=["linux"], triggers=[_trigger(refs=("main",))])
    g = _graph(inv, feature, main)
    assert _variables(g, feature)["SONAR_TOKEN"] == "possible" and _variables(g, main)["SONAR_TOKEN"] == "certain"


def test_no_history_note_names_no_github_command_on_a_gitlab_only_graph():
    """graphkit reads job history from GitHub only: a GitLab-only blast radius says so instead of pointing to
    ``collect github --since``; a graph with GitHub jobs keeps that hint."""
    from typer.testing import CliRunner

    from graphkit.cli import app
    case = Path(__file__).parent / "fixtures" / "rules" / "untrusted-code-with-secrets" / "positive"
    args = ["blast-radius", "--runners", str(case / "inventory.yaml"), "--from", "untrusted:fork-pr", "--org", "acme",
            "--format", "json"]
    gitlab = CliRunner().invoke(app, [*args, "--gitlab-ci", str(case / "gitlab")])
    both = CliRunner().invoke(app, [*args, "--gitlab-ci", str(case / "gitlab"), "--github-actions",
                                    str(case / "repos")])
    assert gitlab.exit_code == 0 and both.exit_code == 0, gitlab.output + both.output
    note = json.loads(gitlab.output)["exposure"]["note"]
    assert "collect github --since" in note and "none is read for GitLab" in note
    assert json.loads(both.output)["exposure"]["note"] == "exposure unknown: no job history; run collect github --since"
