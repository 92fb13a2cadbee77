"""GitLab parent-child pipelines and ``spec:inputs`` defaults (``ingest/gitlab_ci``, ``graphkit/resolve/gitlab*``).

Child pipelines "run under the same project, ref, and commit SHA as the parent pipeline"
(https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#parent-child-pipelines), their
``$CI_PIPELINE_SOURCE`` is ``parent_pipeline`` (https://docs.gitlab.com/ci/jobs/job_rules/#ci_pipeline_source-predefined-variable),
and a child pipeline exists only where its trigger job runs: the trigger job's rules bound every child job.
Inputs: https://docs.gitlab.com/ci/inputs/.  The inventory is ``tests/fixtures/gitlab/inventory.yaml``
(project ``acme/platform/app``, public, default branch ``main``, protected branches ``main`` and ``release/*``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from graphkit.build import build_graph
from graphkit.model import Confidence, EdgeKind, Job
from ingest.gitlab_ci import INGESTOR

INVENTORY = Path(__file__).parent / "fixtures" / "gitlab" / "inventory.yaml"
APP = "job:gitlab:acme/platform/app:"

# Shaped like gitlabhq/omnibus-gitlab's `build-package-on-all-os` / `check-packages.yml` (a trigger job with rules
# starting a local child pipeline) and GitLab's "Run child pipelines with merge request pipelines" example.
PARENT = """
    workflow:
      rules:
        - if: $CI_PIPELINE_SOURCE == "merge_request_event"
        - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
    deploy-child:
      trigger:
        include: ci/deploy.yml
        strategy: depend
      rules:
        - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
    mr-child:
      trigger:
        include:
          - local: ci/mr.yml
      rules:
        - if: $CI_MERGE_REQUEST_SOURCE_PROJECT_PATH != $CI_PROJECT_PATH
          when: never
        - if: $CI_PIPELINE_SOURCE == "merge_request_event"
    """
DEPLOY = """
    deploy:
      tags: [deploy]
      script: [./deploy]
    """
MR = """
    test:
      script: [make test]
      rules:
        - if: $CI_MERGE_REQUEST_ID
    """


def _checkout(tmp_path: Path, files: dict[str, str], name: str = "acme__platform__app") -> Path:
    root = tmp_path / name
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return tmp_path


def _jobs(result) -> dict[str, Job]:
    return {n.id: n for n in result.nodes if isinstance(n, Job)}


def _summary(job: Job) -> set[tuple]:
    return {(t.ref_type, t.sources, t.refs, t.protected, t.from_fork, t.when, t.confidence.value)
            for t in job.gitlab.triggers}


def test_child_jobs_run_only_where_their_trigger_job_runs(tmp_path):
    r = INGESTOR.ingest([_checkout(tmp_path, {".gitlab-ci.yml": PARENT, "ci/deploy.yml": DEPLOY, "ci/mr.yml": MR})])
    assert r.problems == []
    jobs = _jobs(r)
    # the trigger job: default-branch pipelines only; so is its child's job (it was "any branch or tag")
    assert _summary(jobs[APP + "ci/deploy.yml#deploy"]) == {
        ("branch", ("parent_pipeline",), ("$CI_DEFAULT_BRANCH",), None, None, "on_success", "certain")}
    # the trigger job says never for a fork's merge request: the child's job never runs with the fork's context
    assert _summary(jobs[APP + "ci/mr.yml#test"]) == {
        ("merge_request", ("parent_pipeline",), None, None, False, "on_success", "certain")}
    calls = sorted((e.source, e.target) for e in r.edges if e.kind is EdgeKind.CALLS_WORKFLOW)
    assert calls == [(APP + ".gitlab-ci.yml#deploy-child", "workflow:gitlab:acme/platform/app:ci/deploy.yml"),
                     (APP + ".gitlab-ci.yml#mr-child", "workflow:gitlab:acme/platform/app:ci/mr.yml")]


def test_child_job_edges_follow_the_parent_ref(tmp_path):
    """The deploy child runs for the default branch (``main``, protected): the ``ref_protected`` runner takes it and
    the protected group variable reaches it, both certain; no fork entry reaches the merge request child."""
    res = build_graph({"gitlab-ci": [_checkout(tmp_path, {".gitlab-ci.yml": PARENT, "ci/deploy.yml": DEPLOY,
                                                          "ci/mr.yml": MR})],
                       "runners": [INVENTORY]})
    assert res.problems == []
    g = res.graph
    deploy, test = APP + "ci/deploy.yml#deploy", APP + "ci/mr.yml#test"
    receives = {(e.source, e.target): e.confidence for e in g.edges(EdgeKind.RECEIVES_JOB)
                if e.target in (deploy, test)}
    assert receives == {("runner:gitlab.example.com/deploy-protected", deploy): Confidence.CERTAIN,
                        ("runner:gitlab.example.com/shared-shell-01", test): Confidence.CERTAIN}
    reads = {(e.target, e.confidence) for e in g.edges(EdgeKind.READS_SECRET) if e.source == deploy}
    assert reads == {("secret:gitlab:gitlab.example.com/acme:GROUP_DEPLOY_KEY:*", Confidence.CERTAIN),
                     ("secret:gitlab:gitlab.example.com/acme/platform/app:SONAR_TOKEN:*", Confidence.CERTAIN),
                     ("secret:gitlab:gitlab.example.com:INSTANCE_NPM_TOKEN:*", Confidence.CERTAIN)}
    # the merge request child runs only for merge requests from the project itself, whose source branch may be
    # protected (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable): the protected variable is possible
    test_reads = {(e.target, e.confidence) for e in g.edges(EdgeKind.READS_SECRET) if e.source == test}
    assert test_reads == {("secret:gitlab:gitlab.example.com/acme:GROUP_DEPLOY_KEY:*", Confidence.POSSIBLE),
                          ("secret:gitlab:gitlab.example.com/acme/platform/app:SONAR_TOKEN:*", Confidence.CERTAIN),
                          ("secret:gitlab:gitlab.example.com:INSTANCE_NPM_TOKEN:*", Confidence.CERTAIN)}
    assert [e.target for e in g.out_edges("untrusted:fork-pr:acme") if e.target in (deploy, test)] == []


def test_a_manual_trigger_job_makes_its_child_jobs_wait(tmp_path):
    r = INGESTOR.ingest([_checkout(tmp_path, {
        ".gitlab-ci.yml": """
            release-child:
              trigger: {include: ci/release.yml}
              rules:
                - if: $CI_COMMIT_TAG =~ /^v[0-9]+/
                  when: manual
            """,
        "ci/release.yml": """
            publish:
              script: [./publish]
              rules:
                - if: $CI_PIPELINE_SOURCE == "parent_pipeline"
            """})])
    assert r.problems == []
    assert _summary(_jobs(r)[APP + "ci/release.yml#publish"]) == {
        ("tag", ("parent_pipeline",), ("/^v[0-9]+/",), None, None, "manual", "certain")}


def test_nested_child_takes_both_trigger_jobs(tmp_path):
    """Root -> child -> grandchild (two levels of child pipelines are allowed): the grandchild's job runs where
    both trigger jobs do: tags only (root trigger) and protected refs only (child trigger)."""
    r = INGESTOR.ingest([_checkout(tmp_path, {
        ".gitlab-ci.yml": "child:\n  trigger: {include: ci/child.yml}\n  rules:\n    - if: $CI_COMMIT_TAG\n",
        "ci/child.yml": ("grandchild:\n  trigger: {include: ci/grand.yml}\n  rules:\n"
                         "    - if: $CI_COMMIT_REF_PROTECTED == \"true\"\n"),
        "ci/grand.yml": "sign:\n  script: [./sign]\n  rules:\n    - when: on_success\n"})])
    assert r.problems == []
    assert _summary(_jobs(r)[APP + "ci/grand.yml#sign"]) == {
        ("tag", ("parent_pipeline",), None, True, None, "on_success", "certain")}


def test_root_spec_inputs_defaults_are_interpolated(tmp_path):
    """The root file's own ``spec:inputs`` defaults (gitlabhq/omnibus-gitlab's ``.gitlab-ci.yml`` header): its
    ``$[[ inputs.X ]]`` take them, and so do the inputs it passes to a template that includes a further template."""
    r = INGESTOR.ingest([_checkout(tmp_path, {
        ".gitlab-ci.yml": """
            spec:
              inputs:
                runner_tag: {default: gpu}
                skip_deploy: {type: boolean, default: true}
            ---
            include:
              - local: ci/outer.yml
                inputs:
                  deploy_env: $[[ inputs.runner_tag ]]-prod
            build:
              tags: ["$[[ inputs.runner_tag ]]"]
              script: [make]
            deploy:
              script: [./deploy]
              rules:
                - if: '"$[[ inputs.skip_deploy ]]" == "true"'
                  when: never
                - when: on_success
            """,
        "ci/outer.yml": """
            spec:
              inputs:
                deploy_env: {}
            ---
            include:
              - local: ci/inner.yml
                inputs:
                  name: $[[ inputs.deploy_env ]]
            """,
        "ci/inner.yml": """
            spec:
              inputs:
                name: {}
            ---
            ship-$[[ inputs.name ]]:
              environment: $[[ inputs.name ]]
              script: [./ship]
            """})])
    assert r.problems == []
    jobs = _jobs(r)
    assert jobs[APP + ".gitlab-ci.yml#build"].gitlab.tags == ("gpu",)
    assert jobs[APP + ".gitlab-ci.yml#deploy"].gitlab.triggers == ()  # skip_deploy defaults to true
    ship = jobs[APP + ".gitlab-ci.yml#ship-gpu-prod"]
    assert ship.gitlab.environment.name == "gpu-prod"
    assert "target:environment:gitlab:acme/platform/app:gpu-prod" in {n.id for n in r.nodes}


def test_child_pipeline_reads_the_inputs_its_trigger_include_gives(tmp_path):
    """``trigger: include: - local: ... inputs:`` (https://docs.gitlab.com/ci/yaml/#triggerinclude)."""
    r = INGESTOR.ingest([_checkout(tmp_path, {
        ".gitlab-ci.yml": "child:\n  trigger:\n    include:\n      - local: ci/c.yml\n        inputs: {tag: arm64}\n",
        "ci/c.yml": "spec:\n  inputs:\n    tag: {default: amd64}\n---\nbuild:\n  tags: [\"$[[ inputs.tag ]]\"]\n"
                    "  script: [make]\n  rules: [{when: always}]\n"})])
    assert r.problems == []
    assert _jobs(r)[APP + "ci/c.yml#build"].gitlab.tags == ("arm64",)


# GitLab's "Dynamic child pipelines" example (https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#dynamic-child-pipelines):
# a job writes the configuration as an artifact, a trigger job starts it.
DYNAMIC = """
    generate-config:
      stage: build
      script: [./generate.sh > generated-config.yml]
      artifacts:
        paths: [generated-config.yml]
    child-pipeline:
      stage: test
      trigger:
        include:
          - artifact: generated-config.yml
            job: generate-config
      rules:
        - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
    """
GENERATED = APP + "generated-config.yml (artifact of generate-config)#*"


def test_a_dynamic_child_pipeline_is_unknown_jobs_never_none(tmp_path):
    r = INGESTOR.ingest([_checkout(tmp_path, {".gitlab-ci.yml": DYNAMIC})])
    assert r.problems == []
    jobs = _jobs(r)
    stand_in = jobs[GENERATED]
    assert stand_in.gitlab.generated and stand_in.gitlab.config_unresolved == ("artifact: generated-config.yml",)
    # its trigger job's conditions (default branch only), nothing of its own known: possible
    assert _summary(stand_in) == {
        ("branch", ("parent_pipeline",), ("$CI_DEFAULT_BRANCH",), None, None, "on_success", "possible")}
    calls = [(e.source, e.target) for e in r.edges if e.kind is EdgeKind.CALLS_WORKFLOW]
    assert calls == [(APP + ".gitlab-ci.yml#child-pipeline",
                      "workflow:gitlab:acme/platform/app:generated-config.yml (artifact of generate-config)")]


def test_a_dynamic_child_pipeline_reaches_what_the_project_can_use(tmp_path):
    """Every runner of the project that is not paused, every CI/CD variable of the project, its group and the
    instance (any environment scope), and the roles whose trust accepts the project's default branch (any
    ``aud`` the trust names): all possible."""
    _checkout(tmp_path, {".gitlab-ci.yml": DYNAMIC})
    fix = Path(__file__).parent / "fixtures" / "gitlab"
    res = build_graph({"gitlab-ci": [f"https://gitlab.example.com/acme/platform/app={tmp_path / 'acme__platform__app'}"],
                       "runners": [INVENTORY], "aws-iam": [fix / "aws-iam.json"]})
    assert res.problems == []
    g = res.graph
    receives = {(e.source, e.confidence) for e in g.edges(EdgeKind.RECEIVES_JOB) if e.target == GENERATED}
    assert receives == {(r, Confidence.POSSIBLE) for r in (
        "runner:gitlab.example.com/app-k8s", "runner:gitlab.example.com/deploy-protected",
        "runner:gitlab.example.com/shared-shell-01")}  # not the paused one
    reads = {(e.target, e.confidence) for e in g.edges(EdgeKind.READS_SECRET) if e.source == GENERATED}
    assert reads == {(v, Confidence.POSSIBLE) for v in (
        "secret:gitlab:gitlab.example.com/acme/platform/app:AWS_PROD_KEY:production",
        "secret:gitlab:gitlab.example.com/acme/platform/app:KUBECONFIG_STAGING:staging*",
        "secret:gitlab:gitlab.example.com/acme/platform/app:SONAR_TOKEN:*",
        "secret:gitlab:gitlab.example.com/acme:GROUP_DEPLOY_KEY:*",
        "secret:gitlab:gitlab.example.com/acme:REVIEW_TOKEN:review/*",
        "secret:gitlab:gitlab.example.com:INSTANCE_NPM_TOKEN:*")}
    oid = "oidc:gitlab:acme/platform/app:generated-config.yml (artifact of generate-config)#*"
    assert [(e.target, e.confidence) for e in g.edges(EdgeKind.MINTS_OIDC) if e.source == GENERATED] == \
        [(oid, Confidence.POSSIBLE)]
    assumes = {(e.target, e.confidence) for e in g.edges(EdgeKind.ASSUMES_ROLE) if e.source == oid}
    assert assumes == {("cloud_role:aws:arn:aws:iam::111122223333:role/gitlab-deploy", Confidence.POSSIBLE),
                       ("cloud_role:aws:arn:aws:iam::111122223333:role/gitlab-any-branch", Confidence.POSSIBLE)}


# ----------------------------------------------------------------------------- tags with no runner listed

TAGGED = """
    variables:
      ARCH_TAG: arm64
    train:
      tags: [gpu, linux]
      script: [./train]
    cross:
      tags: [$ARCH_TAG]
      script: [make]
    runtime-tag:
      tags: [$KUBERNETES_RUNNER_TAG]
      script: [make]
    hosted:
      tags: [saas-linux-small-amd64]
      script: [make]
    lint:
      script: [make lint]
    """


def test_tagged_jobs_no_listed_runner_serves_get_an_inferred_pool(tmp_path):
    """A job with tags runs only on a runner holding all of them
    (https://docs.gitlab.com/ci/runners/configure_runners/#control-jobs-that-a-runner-can-run); with no runner of
    the input serving them the runner is unknown, not absent: an inferred pool of the instance, ``possible`` (as a
    GitHub self-hosted label set gets).  No pool for a tag known only at run time, GitLab.com's hosted runners
    (``saas-*``) or an untagged job."""
    res = build_graph({"gitlab-ci": [_checkout(tmp_path, {".gitlab-ci.yml": TAGGED}, "acme__app")]})
    assert res.problems == []
    g = res.graph
    receives = {(e.source, e.target, e.confidence) for e in g.edges(EdgeKind.RECEIVES_JOB)}
    # keyed by the job's own tags: GitLab has no implicit ``self-hosted`` tag (newuser2-s29 defect 4)
    assert receives == {
        ("runner:inferred:gitlab.com:gpu+linux", "job:gitlab:acme/app:.gitlab-ci.yml#train", Confidence.POSSIBLE),
        ("runner:inferred:gitlab.com:arm64", "job:gitlab:acme/app:.gitlab-ci.yml#cross", Confidence.POSSIBLE)}
    assert g.meta.resolve.inferred_pools == ["runner:inferred:gitlab.com:arm64", "runner:inferred:gitlab.com:gpu+linux"]
    pool = g.node("runner:inferred:gitlab.com:gpu+linux")
    assert (pool.platform, pool.inferred, pool.scope, pool.labels) == ("gitlab", True, "gitlab.com", ["gpu", "linux"])
    persists = {(e.source, e.target, e.confidence) for e in g.edges(EdgeKind.PERSISTS_ON)}
    assert ("job:gitlab:acme/app:.gitlab-ci.yml#train", "runner:inferred:gitlab.com:gpu+linux",
            Confidence.POSSIBLE) in persists


def test_a_self_hosted_tag_is_a_tag_like_any_other(tmp_path):
    """A runner takes a job when it has all the job's tags (https://docs.gitlab.com/ci/yaml/#tags), and GitLab adds
    none: ``[linux]`` and ``[linux, self-hosted]`` are two pools, and only the first job may run on either."""
    ci = "a: {tags: [linux], script: [make]}\nb: {tags: [linux, self-hosted], script: [make]}\n"
    g = build_graph({"gitlab-ci": [_checkout(tmp_path, {".gitlab-ci.yml": ci}, "acme__app")]}).graph
    assert {(e.source.rsplit(":", 1)[1], e.target.rsplit("#", 1)[1]) for e in g.edges(EdgeKind.RECEIVES_JOB)} == {
        ("linux", "a"), ("linux+self-hosted", "a"), ("linux+self-hosted", "b")}


def test_a_dynamic_child_pipeline_may_run_on_every_inferred_pool(tmp_path):
    """The generated YAML may carry any tags (https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#dynamic-child-pipelines):
    with no runner listed, the stand-in is linked ``possible`` to every inferred pool of its instance, as GitHub's
    unresolved ``runs-on`` is (newuser2-s29 defect 3)."""
    ci = DYNAMIC.replace("      stage: build\n", "      stage: build\n      tags: [linux]\n") + TAGGED.replace(
        "    variables:\n      ARCH_TAG: arm64\n", "")
    g = build_graph({"gitlab-ci": [_checkout(tmp_path, {".gitlab-ci.yml": ci}, "acme__app")]}).graph
    stand_in = "job:gitlab:acme/app:generated-config.yml (artifact of generate-config)#*"
    assert {(e.source, e.confidence) for e in g.edges(EdgeKind.RECEIVES_JOB) if e.target == stand_in} == {
        (p, Confidence.POSSIBLE) for p in ("runner:inferred:gitlab.com:linux", "runner:inferred:gitlab.com:gpu+linux")}


def test_an_inventory_runner_serving_the_tags_means_no_pool(tmp_path):
    res = build_graph({"gitlab-ci": [f"https://gitlab.example.com/acme/platform/app="
                                     f"{_checkout(tmp_path, {'.gitlab-ci.yml': TAGGED.replace('gpu, linux', 'deploy')})}"
                                     "/acme__platform__app"],
                       "runners": [INVENTORY]})
    assert res.problems == []
    g = res.graph
    train = {(e.source, e.confidence) for e in g.edges(EdgeKind.RECEIVES_JOB)
             if e.target == "job:gitlab:acme/platform/app:.gitlab-ci.yml#train"}
    # tag `deploy` on the default branch or not: the ref_protected runner may take it; no pool
    assert train == {("runner:gitlab.example.com/deploy-protected", Confidence.POSSIBLE)}
    # saas-* tags name hosted runners on GitLab.com only: on another instance they are a runner of its own; `cross`
    # (a $VAR tag) may be taken by every listed runner already (possible), so it gets no pool
    assert g.meta.resolve.inferred_pools == ["runner:inferred:gitlab.example.com:saas-linux-small-amd64"]


def test_trigger_job_variables_reach_the_child_unless_forward_says_no(tmp_path):
    """``trigger:forward:yaml_variables`` (default true; https://docs.gitlab.com/ci/yaml/#triggerforward): the
    trigger job's variables and the global ones it inherits are passed on and win over the child's own; shaped like
    gitlabhq/omnibus-gitlab's trigger jobs (``forward: {yaml_variables: false}`` on rat.yml)."""
    r = INGESTOR.ingest([_checkout(tmp_path, {
        ".gitlab-ci.yml": """
            variables:
              PIPELINE_TYPE: BRANCH
            on:
              trigger: {include: ci/on.yml}
              variables:
                DEPLOY_TOKEN: $PROJECT_DEPLOY_TOKEN
            off:
              trigger:
                include: ci/off.yml
                forward: {yaml_variables: false}
              variables:
                DEPLOY_TOKEN: $PROJECT_DEPLOY_TOKEN
            """,
        "ci/on.yml": "a:\n  script: [x]\n  variables: {DEPLOY_TOKEN: child, LOCAL: y}\n  rules: [{when: always}]\n",
        "ci/off.yml": "b:\n  script: [x]\n  rules: [{when: always}]\n"})])
    assert r.problems == []
    jobs = _jobs(r)
    got = [(v.name, v.scope, v.evidence.file, v.credential_like)
           for v in jobs[APP + "ci/on.yml#a"].gitlab.variables]
    assert got == [("DEPLOY_TOKEN", "trigger", ".gitlab-ci.yml", True),
                   ("PIPELINE_TYPE", "trigger", ".gitlab-ci.yml", False), ("LOCAL", "job", "ci/on.yml", False)]
    assert jobs[APP + "ci/off.yml#b"].gitlab.variables == ()
