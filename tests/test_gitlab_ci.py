"""Tests of ``ingest/gitlab_ci/``: fixtures per construct written from docs.gitlab.com, then the real corpus.

Every fixture cites the GitLab documentation page whose example or rule it follows.  The corpus
(``../shared/corpus/gitlab-ci``) is read in place.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from graphkit.model import Confidence, EdgeKind, Job, NodeKind, ids
from ingest.gitlab_ci import INGESTOR, Conditions, deep_merge, parse_config, reduce_triggers
from ingest.gitlab_ci.expressions import parse_expression
from ingest.gitlab_ci.models import Project

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "gitlab-ci"
corpus = pytest.mark.requires(CORPUS.is_dir(), reason="corpus not present", corpus=True)


def _project(tmp_path: Path, files: dict[str, str], name: str = "acme__web") -> Path:
    root = tmp_path / name
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return root


def _jobs(result) -> dict[str, Job]:
    return {n.job_key: n for n in result.nodes if isinstance(n, Job)}


def _ingest(tmp_path: Path, files: dict[str, str]):
    return INGESTOR.ingest([_project(tmp_path, files)])


# ----------------------------------------------------------------------------- jobs and templates


def test_hidden_jobs_are_templates_and_reserved_keywords_are_not_jobs(tmp_path):
    # https://docs.gitlab.com/ci/jobs/#hide-a-job ; https://docs.gitlab.com/ci/yaml/#global-keywords ("pages" is
    # a job: https://docs.gitlab.com/ci/yaml/#pages)
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        stages: [build, deploy]
        variables: {GIT_DEPTH: "1"}
        default: {image: ruby:3.3}
        workflow: {rules: [{when: always}]}
        .hidden_job:
          script: [echo hidden]
        build:
          stage: build
          script: [make]
        pages:
          stage: deploy
          script: [mkdir public]
        """})
    assert set(_jobs(r)) == {"build", "pages"}
    assert not r.problems
    job = _jobs(r)["build"]
    assert job.id == "job:gitlab:acme/web:.gitlab-ci.yml#build"
    assert job.platform == "gitlab" and job.gitlab.stage == "build" and job.gitlab.image == "ruby:3.3"
    assert (job.gitlab.evidence.file, job.gitlab.evidence.line) == (".gitlab-ci.yml", 8)
    assert _jobs(r)["pages"].gitlab.stage == "deploy"
    kinds = {(e.kind, e.source) for e in r.edges}
    assert (EdgeKind.HAS_WORKFLOW, "repo:gitlab:acme/web") in kinds


def test_extends_deep_merges_mappings_and_replaces_arrays(tmp_path):
    # https://docs.gitlab.com/ci/yaml/yaml_optimization/#merge-details : variables merged, tags/script replaced;
    # multi-level and list extends: https://docs.gitlab.com/ci/yaml/#extends
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        .base:
          tags: [docker, linux]
          variables: {URL: "http://my-url.internal", IMPORTANT_VAR: "the details"}
          environment: {name: staging, deployment_tier: staging}
        .middle:
          extends: .base
          stage: deploy
        .other:
          variables: {DB_PASSWORD: "$VAULT_DB"}
        rspec:
          extends: [.middle, .other]
          tags: [gpu]
          variables: {URL: "http://docker-url.internal"}
          script: [rake rspec]
        """})
    g = _jobs(r)["rspec"].gitlab
    assert g.tags == ("gpu",)                      # array replaced, not merged
    assert g.stage == "deploy"                     # two levels up
    assert g.extends == (".middle", ".base", ".other")
    assert {v.name for v in g.variables} == {"URL", "IMPORTANT_VAR", "DB_PASSWORD"}  # mapping merged
    db = next(v for v in g.variables if v.name == "DB_PASSWORD")
    assert db.credential_like and db.references == ("VAULT_DB",)
    url = next(v for v in g.variables if v.name == "URL")
    assert (url.evidence.yaml_path, url.evidence.line) == ("rspec.variables.URL", 14)
    assert g.environment.name == "staging" and g.environment.deployment_tier == "staging"


def test_extends_problems_name_file_path_and_line(tmp_path):
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        a:
          extends: .missing
          script: [x]
        .loop1: {extends: .loop2}
        .loop2: {extends: .loop1}
        b:
          extends: .loop1
          script: [y]
        """})
    reasons = [(p.place, p.reason) for p in r.problems]
    assert any(place == "a.extends" and "'.missing': no such job" in why and "(line 3)" in why
               for place, why in reasons)
    assert any("circular" in why for _, why in reasons)
    assert set(_jobs(r)) == {"a", "b"}


def test_deep_merge_null_unsets():
    # https://docs.gitlab.com/ci/yaml/yaml_optimization/#exclude-a-key-from-extends
    assert deep_merge({"a": {"x": 1}, "b": [1]}, {"a": None, "b": [2]}) == {"a": None, "b": [2]}


def test_default_and_inherit(tmp_path):
    # https://docs.gitlab.com/ci/yaml/#default ; https://docs.gitlab.com/ci/yaml/#inherit (example with
    # inherit:default false / list and inherit:variables false / list)
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        default:
          image: 'ruby:3.0'
          tags: [shared]
          id_tokens:
            VAULT_ID_TOKEN: {aud: https://vault.example.com}
        variables:
          DOMAIN: example.com
          WEBHOOK_URL: https://my-webhook.example.com
        rubocop:
          inherit: {default: false, variables: false}
          script: bundle exec rubocop
        rspec:
          inherit: {default: [image]}
          script: bundle exec rspec
        karma:
          inherit: {variables: [DOMAIN]}
          tags: [own]
          script: karma
        """})
    jobs = _jobs(r)
    assert jobs["rubocop"].gitlab.tags == () and jobs["rubocop"].gitlab.image is None
    assert not jobs["rubocop"].gitlab.variables and not jobs["rubocop"].gitlab.id_tokens
    assert jobs["rspec"].gitlab.image == "ruby:3.0" and jobs["rspec"].gitlab.tags == ()
    assert {v.name for v in jobs["rspec"].gitlab.variables} == {"DOMAIN", "WEBHOOK_URL"}
    assert jobs["karma"].gitlab.tags == ("own",)
    assert [v.name for v in jobs["karma"].gitlab.variables] == ["DOMAIN"]
    assert jobs["karma"].gitlab.variables[0].scope == "global"
    assert jobs["karma"].gitlab.id_tokens[0].aud == ("https://vault.example.com",)


def test_tags_with_variables_expanded_from_the_file(tmp_path):
    # https://docs.gitlab.com/ci/yaml/#tags ("You can use CI/CD variables in tags"); a project variable of the
    # same name would win (https://docs.gitlab.com/ci/variables/#cicd-variable-precedence)
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        variables: {RUNNER_TAG: linux-large, SECRET_TOKEN: "abc"}
        a: {script: [x], tags: ["$RUNNER_TAG", "${RUNNER_TAG}-gpu"]}
        b: {script: [x], tags: ["$UNDEFINED"]}
        c: {script: [x], tags: ["$SECRET_TOKEN"]}
        d: {script: [x], tags: ["$RUNNER_TAG"], variables: {RUNNER_TAG: arm64}}
        """})
    jobs = _jobs(r)
    assert jobs["a"].gitlab.expanded_tags == ("linux-large", "linux-large-gpu")
    assert jobs["b"].gitlab.expanded_tags == () and jobs["c"].gitlab.expanded_tags == ()
    assert jobs["d"].gitlab.expanded_tags == ("arm64",)


def test_reference_tags_and_anchors(tmp_path):
    # https://docs.gitlab.com/ci/yaml/yaml_optimization/#reference-tags ; #anchors ; merge keys (<<)
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        .setup:
          script:
            - echo creating environment
          tags: [k8s]
        .teardown:
          after_script: [echo deleting]
        .job_template: &job_configuration
          image: ruby:2.6
          services: [postgres, redis]
        test1:
          <<: *job_configuration
          script:
            - !reference [.setup, script]
            - echo running my own command
          after_script:
            - !reference [.teardown, after_script]
          tags: !reference [.setup, tags]
        """})
    g = _jobs(r)["test1"].gitlab
    assert g.tags == ("k8s",)
    assert g.image == "ruby:2.6" and g.services == ("postgres", "redis")
    assert not r.problems


def test_reference_that_names_nothing_is_a_problem(tmp_path):
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        job:
          script: [x]
          tags: !reference [.nowhere, tags]
        """})
    assert any("!reference [.nowhere, tags] names nothing" in p.reason and "(line 4)" in p.reason
               for p in r.problems)
    assert "job" in _jobs(r)


def test_reference_expansion_is_bounded(tmp_path):
    # ten levels of ten references: 10**10 values if expanded; refused as one problem, never a hang
    levels = ["l0: [x]"] + [f"l{i}: [{', '.join([f'!reference [.l{i - 1}]'] * 10)}]" for i in range(1, 11)]
    text = "\n".join("." + line for line in levels) + "\njob: {script: !reference [.l10]}\n"
    r = _ingest(tmp_path, {".gitlab-ci.yml": text})
    assert any("max_yaml_nodes" in p.reason for p in r.problems)
    assert not _jobs(r)


def test_local_include_resolved_and_others_recorded(tmp_path):
    # https://docs.gitlab.com/ci/yaml/#include ; #includelocal (wildcards) ; override of included values:
    # https://docs.gitlab.com/ci/yaml/includes/#override-included-configuration-values
    r = _ingest(tmp_path, {
        ".gitlab-ci.yml": """
            include:
              - local: /ci/*.yml
              - project: my-group/my-project
                ref: main
                file: /templates/.gitlab-ci-template.yml
              - remote: https://gitlab.com/example-project/-/raw/main/.gitlab-ci.yml
              - template: Auto-DevOps.gitlab-ci.yml
              - component: $CI_SERVER_FQDN/my-org/security-components/secret-detection@1.0
            production:
              environment: {name: production, url: https://example.com}
            """,
        "ci/deploy.yml": """
            production:
              stage: deploy
              script: [deploy]
              environment: {name: staging}
              tags: [deployer]
            """,
        "ci/nested.yml": """
            include: 'ci/more/last.yml'
            """,
        "ci/more/last.yml": """
            lint:
              script: [lint]
            """,
    })
    jobs = _jobs(r)
    assert set(jobs) == {"production", "lint"}
    g = jobs["production"].gitlab
    assert g.environment.name == "production" and g.tags == ("deployer",) and g.stage == "deploy"
    assert g.file == ".gitlab-ci.yml" and g.config_file == ".gitlab-ci.yml"
    assert jobs["lint"].gitlab.file == "ci/more/last.yml"
    assert set(g.config_unresolved) == {
        "project: my-group/my-project:/templates/.gitlab-ci-template.yml@main",
        "remote: https://gitlab.com/example-project/-/raw/main/.gitlab-ci.yml",
        "template: Auto-DevOps.gitlab-ci.yml",
        "component: $CI_SERVER_FQDN/my-org/security-components/secret-detection@1.0"}
    assert r.items == 4


def test_missing_local_include_is_a_problem(tmp_path):
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        include:
          - local: /nope.yml
        job: {script: [x]}
        """})
    assert any("matches no file" in p.reason and "(line 3)" in p.reason for p in r.problems)
    assert "local: /nope.yml" in _jobs(r)["job"].gitlab.config_unresolved


def test_missing_child_pipeline_is_a_problem_not_a_dangling_edge(tmp_path):
    r = _ingest(tmp_path, {".gitlab-ci.yml": "trig:\n  trigger:\n    include: missing.yml\n"})
    assert any("matches no file" in p.reason for p in r.problems)
    assert not [e for e in r.edges if e.kind is EdgeKind.CALLS_WORKFLOW]
    assert _jobs(r)["trig"].gitlab.child_pipelines == ("missing.yml",)


def test_spec_header_and_child_pipeline(tmp_path):
    # https://docs.gitlab.com/ci/yaml/#spec ; child pipelines:
    # https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#parent-child-pipelines
    r = _ingest(tmp_path, {
        ".gitlab-ci.yml": """
            spec:
              inputs:
                stage: {default: test}
            ---
            trigger-child:
              trigger:
                include: child.yml
            """,
        "child.yml": """
            child-job:
              script: [x]
            """})
    jobs = _jobs(r)
    assert jobs["trigger-child"].gitlab.bridge == "child pipeline"
    assert jobs["trigger-child"].gitlab.evidence.line == 6
    child = jobs["child-job"]
    assert child.id == "job:gitlab:acme/web:child.yml#child-job"
    assert {s for t in child.gitlab.triggers for s in t.sources} == {"parent_pipeline"}
    assert jobs["trigger-child"].gitlab.child_pipelines == ("child.yml",)
    calls = [(e.source, e.target) for e in r.edges if e.kind is EdgeKind.CALLS_WORKFLOW]
    assert calls == [(jobs["trigger-child"].id, "workflow:gitlab:acme/web:child.yml")]
    assert "workflow:gitlab:acme/web:child.yml" in {n.id for n in r.nodes}


def test_malformed_file_never_stops_the_others(tmp_path):
    good = _project(tmp_path, {".gitlab-ci.yml": "job: {script: [x]}\n"}, "acme__good")
    bad = _project(tmp_path, {".gitlab-ci.yml": "job: {script: [x]\n  bad: [\n"}, "acme__bad")
    notmap = _project(tmp_path, {".gitlab-ci.yml": "- a\n- b\n"}, "acme__list")
    r = INGESTOR.ingest([tmp_path])
    assert "job:gitlab:acme/good:.gitlab-ci.yml#job" in {n.id for n in r.nodes}
    files = {Path(p.file).parent.name: p for p in r.problems}
    assert files["acme__bad"].place.startswith("line ")
    assert "expected a mapping" in files["acme__list"].reason
    assert good.exists() and bad.exists() and notmap.exists()


def test_job_that_is_not_a_mapping_and_bad_keywords(tmp_path):
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        job1: [not, a, job]
        job2:
          script: [x]
          tags: {a: b}
          id_tokens: {T: {}}
          secrets: {S: {unknown: x}}
        """})
    places = {p.place for p in r.problems}
    assert {"job1", "job2.tags", "job2.id_tokens.T", "job2.secrets.S"} <= places
    assert set(_jobs(r)) == {"job2"}


def test_conditions_of_the_wrong_shape_are_problems_and_the_job_may_run(tmp_path):
    # https://docs.gitlab.com/ci/yaml/#rules (an array of rules: hashes of if, changes, exists, when...),
    # https://docs.gitlab.com/ci/yaml/#when (its values), https://docs.gitlab.com/ci/yaml/#workflowrules,
    # https://docs.gitlab.com/ci/yaml/deprecated_keywords/#only--except (refs: an array).  GitLab rejects such a
    # file: graphkit names each shape and reads the job's triggers as unknown (possible), not "no pipeline".
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        workflow:
          rules: {if: x}
        deploy_a:
          script: [echo a]
          rules: "always"
          id_tokens:
            TOK: {aud: https://vault.example.com}
        deploy_b:
          script: [echo b]
          rules: 5
        deploy_c:
          script: [echo c]
          only: {refs: 7}
        deploy_d:
          script: [echo d]
          rules:
            - if: 5
            - when: sometimes
        deploy_e:
          script: [echo e]
          environment: {name: prod, deployment_tier: production}
        """})
    got = {(Path(p.file).name, p.place, p.reason) for p in r.problems}
    assert got == {
        (".gitlab-ci.yml", "workflow.rules", "expected an array of rules, got mapping (line 3)"),
        (".gitlab-ci.yml", "deploy_a.rules", "expected an array of rules, got string (line 6)"),
        (".gitlab-ci.yml", "deploy_b.rules", "expected an array of rules, got int (line 11)"),
        (".gitlab-ci.yml", "deploy_c.only.refs",
         "expected an array of refs (names, /regex/, keywords), got int (line 14)"),
        (".gitlab-ci.yml", "deploy_d.rules[0].if",
         "expected a CI/CD variable expression (a string), got int (line 18)"),
        (".gitlab-ci.yml", "deploy_d.rules[1].when",
         "expected one of on_success, on_failure, never, always, manual, delayed, got sometimes (line 19)")}
    jobs = _jobs(r)
    for name in ("deploy_a", "deploy_b", "deploy_c", "deploy_d", "deploy_e"):
        ts = jobs[name].gitlab.triggers
        assert {t.ref_type for t in ts} == {"branch", "tag", "merge_request"} or name == "deploy_e", name
        assert ts and {t.confidence for t in ts} == {Confidence.POSSIBLE}, name
        assert {t.when for t in ts} == {"on_success"}
    assert {t.ref_type for t in jobs["deploy_e"].gitlab.triggers} == {"branch", "tag"}  # its own default
    mints = [e for e in r.edges if e.kind is EdgeKind.MINTS_OIDC]
    deploys = [e for e in r.edges if e.kind is EdgeKind.DEPLOYS_TO]
    assert [e.confidence for e in mints + deploys] == [Confidence.POSSIBLE, Confidence.POSSIBLE]
    oidc = next(n for n in r.nodes if n.kind == "oidc_identity")
    assert oidc.subjects == ["project_path:acme/web:ref_type:branch:ref:*", "project_path:acme/web:ref_type:tag:ref:*"]


def test_conditions_of_every_documented_shape_are_no_problem(tmp_path):
    # https://docs.gitlab.com/ci/yaml/#ruleschanges (paths, compare_to), #rulesexists (paths, project, ref),
    # #rulesallow_failure, #rulesneeds, #rulesvariables, #rulesinterruptible, #when (delayed + start_in),
    # #workflowrules (when: always / never), deprecated_keywords/#only--except (refs, variables, changes, kubernetes)
    r = _ingest(tmp_path, {".gitlab-ci.yml": """
        workflow:
          name: p
          rules:
            - if: $CI_COMMIT_TAG
              when: never
            - changes: {paths: [src/*], compare_to: refs/heads/main}
              variables: {X: "1"}
            - when: always
        .shared: &shared
          - if: $CI_PIPELINE_SOURCE == "schedule"
            when: never
        a:
          script: [x]
          rules:
            - *shared
            - if: $CI_COMMIT_BRANCH == "main"
              exists: {paths: [Dockerfile], project: g/other, ref: main}
              allow_failure: true
              needs: [b]
              variables: {Y: "2"}
              interruptible: false
              when: delayed
              start_in: 30 minutes
            - changes: [docs/*]
              when: manual
        b:
          script: [x]
          when: manual
          only:
            refs: [main, /^release-.*$/, merge_requests]
            variables: [$RELEASE == "staging"]
            changes: [Dockerfile]
            kubernetes: active
          except: [schedules]
        """})
    assert r.problems == []
    a = _jobs(r)["a"].gitlab.triggers
    assert {(t.ref_type, t.refs, t.when, t.confidence) for t in a if t.ref_type == "branch" and t.refs} == {
        ("branch", ("main",), "delayed", Confidence.POSSIBLE)}


# ----------------------------------------------------------------------------- secrets, id_tokens, environments


def test_secrets_id_tokens_and_environment_edges(tmp_path):
    # https://docs.gitlab.com/ci/yaml/#secrets (vault short form, azure_key_vault, gcp_secret_manager, token) ;
    # https://docs.gitlab.com/ci/yaml/#id_tokens ; https://docs.gitlab.com/ci/yaml/#environmentdeployment_tier
    root = _project(tmp_path, {".gitlab-ci.yml": """
        deploy:
          id_tokens:
            FIRST_ID_TOKEN: {aud: https://vault.example.com}
            SECOND_ID_TOKEN: {aud: [https://gcp.example.com, https://azure.example.com]}
          secrets:
            DATABASE_PASSWORD:
              vault: production/db/password@ops
              token: $FIRST_ID_TOKEN
            AZ:
              azure_key_vault: {name: test, version: "1"}
              token: $SECOND_ID_TOKEN
            GCP:
              gcp_secret_manager: {name: my-secret}
              token: $SECOND_ID_TOKEN
              file: false
          environment:
            name: prod-eu
            deployment_tier: production
          rules:
            - if: $CI_COMMIT_BRANCH == "main"
          script: [deploy]
        """})
    r = INGESTOR.ingest([f"https://gitlab.example.com/acme/sub/web={root}"])
    job = _jobs(r)["deploy"]
    assert job.id == "job:gitlab:acme/sub/web:.gitlab-ci.yml#deploy"
    vault = next(s for s in job.gitlab.secrets if s.name == "DATABASE_PASSWORD")
    assert (vault.provider, vault.path, vault.field, vault.token) == ("vault", "ops/production/db", "password",
                                                                      "FIRST_ID_TOKEN")
    edges = {(e.kind, e.target): e for e in r.edges if e.source == job.id}
    assert (EdgeKind.READS_SECRET, ids.external_secret("vault", "ops/production/db")) in edges
    assert (EdgeKind.READS_SECRET, "cloud_secret:gcp_secret_manager:my-secret") in edges
    oidc = next(n for n in r.nodes if n.kind == "oidc_identity")
    assert oidc.issuer == "https://gitlab.example.com"
    assert oidc.subjects == ["project_path:acme/sub/web:ref_type:branch:ref:main"]
    mints = [e for e in r.edges if e.kind is EdgeKind.MINTS_OIDC]
    assert {e.key: tuple(e.props["aud"]) for e in mints} == {
        "FIRST_ID_TOKEN": ("https://vault.example.com",),
        "SECOND_ID_TOKEN": ("https://gcp.example.com", "https://azure.example.com")}
    target = edges[(EdgeKind.DEPLOYS_TO, "target:environment:gitlab:acme/sub/web:prod-eu")]
    assert target.confidence is Confidence.CERTAIN
    assert next(n for n in r.nodes if n.id == target.target).production is True


# ----------------------------------------------------------------------------- rules reduced to triggers


def _triggers(rules=None, only=None, except_=None, when="on_success", workflow=None):
    from graphkit.model import Evidence

    return reduce_triggers(Conditions(rules=rules, only=only, except_=except_, when=when, workflow=workflow,
                                      evidence=Evidence(file=".gitlab-ci.yml")))


def _summary(ts):
    return {(t.ref_type, t.refs, t.protected, t.from_fork, t.confidence.value) for t in ts}


def test_rules_on_the_default_branch_and_tags():
    # https://docs.gitlab.com/ci/jobs/job_rules/#common-if-clauses-with-predefined-variables
    ts = _triggers(rules=[{"if": "$CI_COMMIT_TAG"}, {"if": "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH"}])
    assert _summary(ts) == {("tag", None, None, None, "certain"),
                            ("branch", ("$CI_DEFAULT_BRANCH",), None, None, "certain")}


def test_rules_protected_refs_and_when_never():
    # $CI_COMMIT_REF_PROTECTED: https://docs.gitlab.com/ci/variables/predefined_variables/
    ts = _triggers(rules=[{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"', "when": "never"},
                          {"if": '$CI_COMMIT_REF_PROTECTED == "true"', "when": "manual"}])
    assert {(t.ref_type, t.protected, t.when) for t in ts} == {("branch", True, "manual"), ("tag", True, "manual")}
    assert all(t.confidence is Confidence.CERTAIN for t in ts)


def test_rules_merge_requests_from_forks():
    # https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/#run-pipelines-in-the-parent-project
    ts = _triggers(rules=[{"if": '$CI_PIPELINE_SOURCE == "merge_request_event" && '
                                 '$CI_MERGE_REQUEST_SOURCE_PROJECT_PATH != $CI_PROJECT_PATH'}])
    assert _summary(ts) == {("merge_request", None, False, True, "certain")}
    assert ts[0].sources == ("merge_request_event",)


@pytest.mark.parametrize("rules, from_fork", [
    # a fork is another project (its own ID and path); its merge request pipeline run in the parent project has
    # $CI_PROJECT_ID / $CI_PROJECT_PATH of the parent, $CI_MERGE_REQUEST_SOURCE_PROJECT_ID / _PATH of the fork
    # (https://docs.gitlab.com/ci/variables/predefined_variables/,
    # https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/#use-with-forked-projects)
    ([{"if": "$CI_MERGE_REQUEST_SOURCE_PROJECT_ID != $CI_PROJECT_ID", "when": "never"},
      {"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}], {False}),
    ([{"if": "$CI_MERGE_REQUEST_SOURCE_PROJECT_PATH != $CI_PROJECT_PATH", "when": "never"},
      {"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}], {False}),
    ([{"if": '$CI_PIPELINE_SOURCE == "merge_request_event" && $CI_MERGE_REQUEST_SOURCE_PROJECT_ID == $CI_PROJECT_ID'}],
     {False}),
    ([{"if": '$CI_PIPELINE_SOURCE == "merge_request_event" && '
             '$CI_MERGE_REQUEST_SOURCE_PROJECT_ID != $CI_MERGE_REQUEST_PROJECT_ID'}], {True}),
    # unguarded: from the project itself and from a fork
    ([{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}], {False, True}),
])
def test_rules_fork_guards_by_project_id_and_path(rules, from_fork):
    ts = _triggers(rules=rules)
    assert {t.ref_type for t in ts} == {"merge_request"}
    assert {t.from_fork for t in ts} == from_fork and all(t.confidence is Confidence.CERTAIN for t in ts)


@pytest.mark.parametrize("guard, edges", [
    ("", 1),
    ("    - if: $CI_MERGE_REQUEST_SOURCE_PROJECT_ID != $CI_PROJECT_ID\n      when: never\n", 0),
    ("    - if: $CI_MERGE_REQUEST_SOURCE_PROJECT_PATH != $CI_PROJECT_PATH\n      when: never\n", 0),
])
def test_a_fork_guard_closes_the_gitlab_fork_entry(tmp_path, guard, edges):
    """The public acme/docs merge request job is a fork entry (``untrusted:fork-pr:acme -> job``) unless its first
    rule says never for a merge request from another project."""
    from graphkit.build import build_graph

    case = Path(__file__).parent / "fixtures" / "rules" / "untrusted-code-with-secrets" / "positive"
    folder = tmp_path / "acme__docs"
    folder.mkdir()
    text = (case / "gitlab" / "acme__docs" / ".gitlab-ci.yml").read_text()
    assert "  rules:\n" in text
    (folder / ".gitlab-ci.yml").write_text(text.replace("  rules:\n", "  rules:\n" + guard))
    res = build_graph({"gitlab-ci": [tmp_path], "runners": [case / "inventory.yaml"]})
    assert res.problems == []
    jid = "job:gitlab:acme/docs:.gitlab-ci.yml#mr-build"
    assert jid in res.graph
    assert len([e for e in res.graph.out_edges("untrusted:fork-pr:acme") if e.target == jid]) == edges


def test_rules_undecided_is_possible_never_dropped():
    ts = _triggers(rules=[{"if": '$DEPLOY_ENABLED == "true" && $CI_COMMIT_BRANCH == "main"'},
                          {"if": "$CI_COMMIT_TAG =~ /^v[0-9.]+$/", "changes": ["src/**"]}])
    assert _summary(ts) == {("branch", ("main",), None, None, "possible"),
                            ("tag", ("/^v[0-9.]+$/",), None, None, "possible")}


def test_rules_regex_refs_and_schedules():
    ts = _triggers(rules=[{"if": '$CI_PIPELINE_SOURCE == "schedule"', "when": "never"},
                          {"if": "$CI_COMMIT_BRANCH =~ /^release-/"}])
    assert {(t.ref_type, t.refs) for t in ts} == {("branch", ("/^release-/",))}
    assert "schedule" not in ts[0].sources and "push" in ts[0].sources


def test_no_rules_means_branches_and_tags_not_merge_requests():
    # "only is set to branches and tags by default": https://docs.gitlab.com/ci/yaml/deprecated_keywords/#only--except
    ts = _triggers()
    assert {t.ref_type for t in ts} == {"branch", "tag"}


def test_only_except_refs():
    # https://docs.gitlab.com/ci/yaml/deprecated_keywords/#onlyrefs--exceptrefs
    ts = _triggers(only=["main", "/^issue-.*$/", "merge_requests"], except_=["schedules"])
    got = {(t.ref_type, t.refs) for t in ts}
    # names match branches and tags alike
    assert got == {("branch", ("/^issue-.*$/", "main")), ("tag", ("/^issue-.*$/", "main")), ("merge_request", None)}
    assert all("schedule" not in t.sources for t in ts)
    assert _triggers(only={"refs": ["tags"], "variables": ['$RELEASE == "yes"']})[0].confidence is \
        Confidence.POSSIBLE


def test_except_excludes_when_any_key_matches():
    # gitlab-org/gitlab lib/gitlab/ci/pipeline/seed/build.rb: only.all? / except.none? (per key)
    ts = _triggers(only=["branches", "pushes"], except_={"refs": ["main"], "variables": ['$SKIP == "1"']})
    assert {(t.ref_type, t.refs, t.refs_excluded, t.confidence.value) for t in ts} == {
        ("branch", None, ("main",), "possible"), ("tag", None, ("main",), "possible")}  # tags: pushed ones
    assert {s for t in ts if t.ref_type == "branch" for s in t.sources} == {
        "push", "web", "schedule", "api", "trigger", "pipeline", "parent_pipeline", "chat", "webide"}
    pushes = _triggers(only=["pushes"])  # a source keyword: branch and tag pipelines started by a push
    assert {(t.ref_type, t.sources) for t in pushes} == {("branch", ("push",)), ("tag", ("push",))}


def test_workflow_rules_gate_every_job():
    # https://docs.gitlab.com/ci/yaml/workflow/#workflowrules-examples
    wf = {"rules": [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}, {"if": "$CI_COMMIT_TAG"}]}
    ts = _triggers(workflow=wf)
    assert {t.ref_type for t in ts} == {"tag"}  # no rules: branches and tags; workflow: MRs and tags


def test_expressions_parse_gitlab_grammar():
    assert parse_expression("($A == 'x' || $B) && $C !~ /y/i")[0] == "and"
    with pytest.raises(ValueError):
        parse_expression("$A === 1")


def test_values_never_stored_and_hostile_names_kept_verbatim(tmp_path):
    # a literal token in a variable, a URL credential in an environment URL and a remote include: none is kept
    canary = "glpat-" + "CANARYvalue0123456789"
    r = _ingest(tmp_path, {".gitlab-ci.yml": f"""
        include:
          - remote: https://ci:{canary}@gitlab.example.com/t.yml
        variables:
          API_KEY: "{canary}"
          SERVICE: "https://bot:{canary}@registry.example.com"
        "deploy \\x1b[2J </script> ‮txt":
          image: https://u:{canary}@registry.example.com/img:1
          environment:
            name: "prod'}}) MATCH (n) DETACH DELETE n //"
            url: https://bot:{canary}@app.example.com
          script: [echo {canary}]
        """})
    from graphkit.graph import Graph
    g = Graph()
    g.update(r.nodes, r.edges)
    dumped = json.dumps(g.to_dict())
    assert canary not in dumped and "CANARY" not in dumped
    (job,) = _jobs(r).values()
    assert job.job_key == "deploy \x1b[2J </script> \u202etxt"  # YAML escapes, stored verbatim
    assert ids.parse(job.id).parts["name"] == job.job_key
    assert job.gitlab.environment.name == "prod'}) MATCH (n) DETACH DELETE n //"
    assert {v.name: v.credential_like for v in job.gitlab.variables} == {"API_KEY": True, "SERVICE": True}


# ----------------------------------------------------------------------------- the real corpus


@corpus
def test_corpus_every_file_ingests_without_crash():
    r = INGESTOR.ingest([CORPUS])
    assert r.items == 30
    assert not [p for p in r.problems if "internal error" in p.reason]
    # the only problems: templates that come from includes graphkit does not fetch
    assert {p.reason.split(":")[0] for p in r.problems} == {"!reference [.google-oidc", "extends '.google-oidc",
                                                           "extends '.fuzz_base'"}
    assert sum(1 for n in r.nodes if n.kind == NodeKind.JOB) == 344


@corpus
def test_corpus_real_jobs_tags_stages_environments():
    jobs = {n.id: n for n in INGESTOR.ingest([CORPUS]).nodes if isinstance(n, Job)}
    glib = jobs["job:gitlab:gnome/glib:.gitlab-ci.yml#macos-arm64"].gitlab
    assert glib.tags == ("macos", "arm64") and glib.stage == "build"
    assert jobs["job:gitlab:gnome/glib:.gitlab-ci.yml#hurd-i386"].gitlab.tags == ("hurd",)
    assert jobs["job:gitlab:f-droid/fdroidserver:.gitlab-ci.yml#macOS"].gitlab.tags == ("saas-macos-medium-m1",)
    runner = "job:gitlab:gitlabhq/gitlab-runner:.gitlab-ci.yml#"
    s3 = jobs[runner + "stable S3"].gitlab
    assert (s3.environment.name, s3.stage, s3.file) == ("stable/s3", "release", ".gitlab/ci/release.gitlab-ci.yml")
    unit = jobs[runner + "unit test"].gitlab
    assert unit.tags == ("$KUBERNETES_RUNNER_TAG",) and unit.dynamic_tags == ("$KUBERNETES_RUNNER_TAG",)
    assert unit.expanded_tags == ("kubernetes_runner",)  # the global variable's value in _common.gitlab-ci.yml
    docs = jobs[runner + "review-docs-cleanup"].gitlab.environment
    assert (docs.name, docs.action, docs.dynamic) == ("review-docs/mr-${CI_MERGE_REQUEST_IID}", "stop", True)
    bridge = jobs[runner + "hosted runners bridge stable"].gitlab
    assert any(v.name == "GITLAB_TOKEN" and v.credential_like for v in bridge.variables)
    omnibus = "job:gitlab:gitlabhq/omnibus-gitlab:.gitlab-ci.yml#"
    assert jobs[omnibus + "Ubuntu-22.04-staging"].gitlab.tags == ("${PACKAGE_PROMOTION_RUNNER_TAG}",)
    child = jobs["job:gitlab:gitlabhq/omnibus-gitlab:gitlab-ci-config/check-packages.yml#Debian-12-arm64-check"]
    assert child.gitlab.tags == ("distribution-runner", "arm64")
    glib_cov = jobs["job:gitlab:gnome/glib:.gitlab-ci.yml#coverage"].gitlab
    assert {t.ref_type for t in glib_cov.triggers} == {"branch"}  # .only-default: no tags, no MRs


@corpus
def test_corpus_vault_secret_and_id_token():
    r = INGESTOR.ingest([CORPUS / "gitlabhq__omnibus-gitlab"])
    job = _jobs(r)["fetch-assets"]
    (token,) = job.gitlab.id_tokens
    assert (token.name, token.aud) == ("VAULT_ID_TOKEN", ("https://vault.gitlab.net",))
    (secret,) = job.gitlab.secrets
    assert (secret.name, secret.provider, secret.field, secret.file) == ("SECURITY_PRIVATE_TOKEN", "vault", "token",
                                                                         False)
    assert secret.path == "ci/access_tokens/gitlab-com/gitlab-org/security/_group_access_tokens/build-token"
    assert secret.evidence.file == "gitlab-ci-config/vault-security-secrets.yml" and secret.evidence.line == 6
    # vault-security-secrets.yml is included only `if: $CI_PROJECT_PATH == $SECURITY_PROJECT_PATH`
    assert secret.confidence is Confidence.POSSIBLE and token.confidence is Confidence.CERTAIN
    reads = [e for e in r.edges if e.kind is EdgeKind.READS_SECRET and e.source == job.id]
    assert [e.confidence for e in reads] == [Confidence.POSSIBLE]
    assert job.gitlab.tags == ("gitlab-org-docker",)


def test_parse_config_is_pure_and_reads_reference():
    f = parse_config("a:\n  script: !reference [.x, script]\n", file="c.yml", project=Project("g/p"))
    assert f.data["a"]["script"].path == (".x", "script") and f.data["a"]["script"].line == 2


def test_fixture_case_triggers_and_subjects():
    # tests/fixtures/cases/gitlab-project: deploy only on the protected default branch; build on branches and
    # merge requests from the project itself (forks: when: never)
    r = INGESTOR.ingest([Path(__file__).parent / "fixtures" / "cases" / "gitlab-project" / "projects"])
    jobs = _jobs(r)
    (deploy,) = jobs["deploy"].gitlab.triggers
    assert (deploy.ref_type, deploy.refs, deploy.protected, deploy.confidence) == (
        "branch", ("$CI_DEFAULT_BRANCH",), True, Confidence.CERTAIN)
    assert jobs["deploy"].gitlab.protected_refs is True and jobs["build"].gitlab.protected_refs is None
    assert {(t.ref_type, t.from_fork) for t in jobs["build"].gitlab.triggers} == {("branch", None),
                                                                                  ("merge_request", False)}
    oidc = next(n for n in r.nodes if n.kind == "oidc_identity")
    assert oidc.subjects == ["project_path:acme/web:ref_type:branch:ref:*"]
    reg = next(v for v in jobs["build"].gitlab.variables if v.name == "REGISTRY_PASSWORD")
    assert reg.credential_like and reg.references == ("CI_REGISTRY_PASSWORD",)
