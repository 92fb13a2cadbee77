"""Defects that real public CI files showed (each test names the public file; its fixture is a minimal
reproduction written here, never a copy of the third-party file)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from graphkit.errors import InputError
from graphkit.model import EdgeKind, Job
from ingest._yaml import load_yaml
from ingest.gitlab_ci import INGESTOR as GITLAB
from ingest.gitlab_ci import parse_config
from ingest.gitlab_ci.models import Project


def _checkout(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    root = tmp_path / name
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return root


# ------------------------------------------------------------------ GitLab: a key defined twice (last one wins)

# gitlabhq/gitlabhq .gitlab-ci.yml defined ``before_script`` twice in the job ``package-and-qa`` (an empty list,
# then the real one); GitLab ran it with the second.  graphkit skipped the whole file ("duplicate key").
_DUPLICATE = """\
    .runner: &runner
      tags: [gitlab-org]
    package-and-qa:
      <<: *runner
      image: ruby:2.4-alpine
      before_script: []
      stage: build
      before_script:
        - wget https://example.invalid/trigger
      script:
        - ./trigger "$DEPLOY_TOKEN"
    """


def test_gitlab_key_defined_twice_keeps_the_last_definition():
    f = parse_config(textwrap.dedent(_DUPLICATE), file=".gitlab-ci.yml", project=Project("grp/app"))
    job = f.data["package-and-qa"]
    assert job["before_script"] == ["wget https://example.invalid/trigger"]
    assert job["tags"] == ["gitlab-org"]
    assert list(job) == ["tags", "image", "before_script", "stage", "script"]  # the first one's place
    assert f.lines["package-and-qa.before_script"] == 8  # the definition that is read
    assert f.lines["package-and-qa.before_script[0]"] == 9
    assert f.problems == []


def test_gitlab_file_with_a_key_defined_twice_is_not_skipped(tmp_path):
    root = _checkout(tmp_path, "grp__app", {".gitlab-ci.yml": _DUPLICATE})
    result = GITLAB.ingest([root])
    assert result.problems == []
    jobs = {n.job_key for n in result.nodes if isinstance(n, Job)}
    assert jobs == {"package-and-qa"}


def test_gitlab_duplicate_inside_an_anchor_and_an_alias_keeps_the_last():
    text = "a: &x\n  k: 1\n  k: 2\nb: *x\nc:\n  script: [one]\n  script: [two]\n"
    f = parse_config(text, file=".gitlab-ci.yml", project=Project("grp/app"))
    assert f.data["a"] == {"k": 2} and f.data["b"] == {"k": 2}
    assert f.data["c"] == {"script": ["two"]}
    assert f.lines["c.script"] == 7


@pytest.mark.parametrize("text, line", [
    ("on: push\njobs:\n  a:\n    runs-on: x\n    runs-on: y\n", 5),
    ("a: &x\n  k: 1\n  k: 2\nb: *x\n", 3),
])
def test_github_and_the_default_loader_still_refuse_a_key_defined_twice(text, line):
    # GitHub refuses such a workflow ("'runs-on' is already defined"): the default loader is unchanged.
    with pytest.raises(InputError, match=f"line {line}.*duplicate key"):
        load_yaml(text, file="w.yml")


def test_edges_of_a_gitlab_job_read_from_its_last_definition(tmp_path):
    text = """\
    deploy:
      script: [./deploy]
      environment: staging
      environment: production
    """
    result = GITLAB.ingest([_checkout(tmp_path, "grp__app", {".gitlab-ci.yml": text})])
    assert result.problems == []
    targets = {e.target for e in result.edges if e.kind == EdgeKind.DEPLOYS_TO}
    assert len(targets) == 1 and next(iter(targets)).endswith("production")


# ------------------------------------------------------------------ GitHub: numbers in branch filters

def _workflow(text: str):
    from ingest.github_actions.parse import parse_workflow
    return parse_workflow(textwrap.dedent(text), file=".github/workflows/build.yml", repository="acme/app")


def test_number_in_a_branch_filter_is_the_text_github_reads():
    # python/cpython .github/workflows/build.yml listed `- 3.10` and `- 3.9` under on.push.branches (YAML floats);
    # GitHub runs the workflow, reading 3.10 as the number 3.1 (https://github.com/actions/runner/issues/1989).
    # graphkit reported "filter pattern must be text" and dropped the whole filter.
    wf = _workflow("""\
        on:
          push:
            branches: [master, 3.10, 3.9, 4, true]
          pull_request:
            branches: 3.10
        jobs:
          a:
            runs-on: ubuntu-latest
            steps: [{run: make}]
        """)
    assert wf.problems == ()
    assert [(t.event, t.branches) for t in wf.events] == [
        ("push", ("master", "3.1", "3.9", "4", "true")), ("pull_request", ("3.1",))]


@pytest.mark.parametrize("bad, kind", [("[main, {a: 1}]", "mapping"), ("[main, ~]", "null"), ("[[x]]", "sequence")])
def test_a_branch_filter_entry_that_is_no_scalar_is_still_a_problem(bad, kind):
    wf = _workflow(f"on:\n  push:\n    branches: {bad}\njobs:\n  a:\n    runs-on: x\n    steps: [{{run: make}}]\n")
    assert [p.place for p in wf.problems] == ["on.push.branches"]
    assert f"got {kind}" in wf.problems[0].reason
    assert wf.events[0].branches is None


def test_scalar_text_writes_numbers_as_github_does():
    from ingest.github_actions.models import scalar_text
    assert [scalar_text(v) for v in (3.10, 3.0, 0.1, 10, 1e20, -2.5, float("inf"))] == [
        "3.1", "3", "0.1", "10", "1E+20", "-2.5", "Infinity"]


# ------------------------------------------------------------------ GitHub: workflow env and reusable-workflow calls

def test_workflow_env_secret_is_not_read_by_a_job_that_calls_a_reusable_workflow(tmp_path):
    # apache/airflow .github/workflows/ci-amd.yml sets SLACK_BOT_TOKEN: ${{ secrets.SLACK_BOT_TOKEN }} in the
    # workflow `env`, and most of its jobs are `uses: ./.github/workflows/...` calls.  GitHub does not propagate
    # the caller's workflow-level env to a called workflow
    # (https://docs.github.com/en/actions/sharing-automations/reusing-workflows#limitations); graphkit had a
    # reads_secret edge from every calling job.
    from graphkit.build import build_graph
    root = _checkout(tmp_path, "acme__app", {
        ".github/workflows/ci.yml": """\
            on: push
            env:
              SLACK_BOT_TOKEN: ${{ secrets.SLACK_BOT_TOKEN }}
            jobs:
              build-info:
                runs-on: ubuntu-latest
                steps: [{run: make}]
              tests:
                uses: ./.github/workflows/tests.yml
                with:
                  runners: x
              checks:
                uses: ./.github/workflows/tests.yml
                secrets:
                  DOCS_KEY: ${{ secrets.DOCS_KEY }}
            """,
        ".github/workflows/tests.yml": """\
            on:
              workflow_call:
                secrets:
                  DOCS_KEY:
                    required: false
            jobs:
              run:
                runs-on: ubuntu-latest
                steps:
                  - run: echo "$K"
                    env:
                      K: ${{ secrets.DOCS_KEY }}
            """,
    })
    result = build_graph({"github-actions": [root]})
    assert result.problems == []
    reads = sorted((e.source, e.target.rsplit(":", 1)[-1]) for e in result.graph.edges(EdgeKind.READS_SECRET))
    caller = "job:acme/app/.github/workflows/ci.yml#"
    assert reads == [(caller + "build-info", "SLACK_BOT_TOKEN"), (caller + "checks", "DOCS_KEY"),
                     (caller + "checks>acme/app/.github/workflows/tests.yml#run", "DOCS_KEY"),
                     ("job:acme/app/.github/workflows/tests.yml#run", "DOCS_KEY")]  # as called by any caller


# ------------------------------------------------------------------ GitLab: default keywords and trigger jobs

def test_gitlab_trigger_job_takes_no_default_id_tokens_tags_or_scripts(tmp_path):
    # gitlabhq/omnibus-gitlab .gitlab-ci.yml (default: tags, before_script) and gitlabhq/gitlab-runner
    # .gitlab-ci.yml (default: image, tags) have trigger jobs (`Trigger:ce-package`, `trigger UBI images build`):
    # graphkit gave them the default tags, image and scripts, and a `default: id_tokens` became a mints_oidc
    # edge from a bridge, which runs on no runner and can use none of those keywords
    # (https://docs.gitlab.com/ci/yaml/#trigger).
    from graphkit.build import build_graph
    root = _checkout(tmp_path, "grp__app", {
        ".gitlab-ci.yml": """\
            default:
              tags: [gitlab-org]
              image: ruby:3
              before_script: [echo "$DEV_SSH_KEY"]
              id_tokens:
                VAULT_ID_TOKEN:
                  aud: https://vault.example
              interruptible: true
            build:
              script: [make]
            Trigger:ce-package:
              trigger:
                project: grp/omnibus
                branch: main
            child:
              trigger:
                include: ci/child.yml
            """,
        "ci/child.yml": "inner:\n  script: [make]\n",
    })
    result = GITLAB.ingest([root])
    assert result.problems == []
    jobs = {n.job_key: n for n in result.nodes if isinstance(n, Job)}
    bridge = jobs["Trigger:ce-package"].gitlab
    assert (bridge.tags, bridge.image, bridge.id_tokens, bridge.referenced_variables) == ((), None, (), ())
    assert jobs["build"].gitlab.tags == ("gitlab-org",) and jobs["build"].gitlab.image == "ruby:3"
    graph = build_graph({"gitlab-ci": [root]}).graph
    minting = sorted(e.source.rsplit("#", 1)[-1] for e in graph.edges(EdgeKind.MINTS_OIDC))
    assert minting == ["build"]  # not the two trigger jobs; the child pipeline has no default of its own


# ------------------------------------------------------------------ GitLab: only/except refs with @project

_PROJECT_REFS = """\
    publish:github:
      script: [git push github HEAD]
      only:
        - master@tezos/tezos
        - alphanet@tezos/tezos
    opam:
      script: [opam install]
      only:
        - master@tezos/tezos
        - /^.*opam.*$/
    build:
      script: [make]
      except:
        - master@tezos/tezos
    """


def test_gitlab_only_refs_at_project_match_their_ref_part():
    # tezos/tezos .gitlab-ci.yml: `publish:github` (pushes with the CI_PK_GITHUB key) runs `only: [master@tezos/tezos,
    # alphanet@tezos/tezos]`; graphkit read every `REF@PROJECT` entry as undecided in every pipeline, so the job
    # "possibly" ran in fork merge request pipelines.  GitLab matches the part before the first "@" as any other
    # entry (never in a merge request pipeline) and runs the job in that project only
    # (https://docs.gitlab.com/ci/yaml/deprecated_keywords/#onlyrefs--exceptrefs).
    from ingest.gitlab_ci.conditions import Conditions, reduce_triggers
    from graphkit.model import Evidence
    f = parse_config(textwrap.dedent(_PROJECT_REFS), file=".gitlab-ci.yml", project=Project("tezos/tezos"))
    ev = Evidence(file=".gitlab-ci.yml", repository="tezos/tezos")

    def triggers(job):
        d = f.data[job]
        ts = reduce_triggers(Conditions(rules=None, only=d.get("only"), except_=d.get("except"), when="on_success",
                                        workflow=None, evidence=ev))
        return sorted((t.ref_type, tuple(t.refs or ()), tuple(t.refs_excluded), t.confidence.value) for t in ts)

    assert triggers("publish:github") == [("branch", ("alphanet", "master"), (), "possible"),
                                          ("tag", ("alphanet", "master"), (), "possible")]
    assert ("merge_request" not in {t[0] for t in triggers("opam")})
    assert ("branch", ("/^.*opam.*$/",), (), "certain") in triggers("opam")
    assert ("branch", ("master",), (), "possible") in triggers("opam")
    # except master@tezos/tezos: every other branch certainly, master possibly (another project's master runs it)
    assert triggers("build") == [("branch", (), ("master",), "certain"), ("branch", ("master",), (), "possible"),
                                 ("tag", (), ("master",), "certain"), ("tag", ("master",), (), "possible")]


def test_gitlab_fork_merge_request_cannot_run_a_job_only_for_project_refs(tmp_path):
    from graphkit.build import build_graph
    root = _checkout(tmp_path, "tezos__tezos", {".gitlab-ci.yml": _PROJECT_REFS.rstrip(" ") + """\
    mr:
      script: [make check]
      only: [merge_requests, master@tezos/tezos]
    """})
    result = build_graph({"gitlab-ci": [root]})
    assert result.problems == []
    entered = sorted(e.target.rsplit("#", 1)[-1] for e in result.graph.edges(EdgeKind.CAN_TRIGGER)
                     if e.source.startswith("untrusted:fork"))
    assert entered == ["mr"]  # no merge request pipeline runs `publish:github` or `opam`


# ------------------------------------------------------------------ GitHub: matrix values written as expressions

def test_matrix_value_written_as_an_expression_is_evaluated_not_used_as_a_label():
    # denoland/deno .github/workflows/ci.yml: `include: - os: ${{ github.repository == 'denoland/deno' &&
    # 'ubuntu-20.04-xl' || 'ubuntu-20.04' }}` with `runs-on: ${{ matrix.os }}`.  graphkit used the expression text
    # as a runner label (an inferred self-hosted pool named "${{ github.repository == ...").  GitHub evaluates
    # it when it expands the strategy: the job asks for one of the two labels.
    from graphkit.model import Evidence
    from ingest.github_actions.expressions import EvalContext
    from ingest.github_actions.matrix import runs_on_candidates
    matrix = {"include": [{"os": "macos-10.15", "job": "test"},
                          {"os": "${{ github.repository == 'denoland/deno' && 'ubuntu-20.04-xl' || 'ubuntu-20.04' }}",
                           "job": "lint"},
                          {"os": "${{ inputs.runner }}", "job": "bench"}]}
    cands, unresolved = runs_on_candidates("${{ matrix.os }}", matrix, EvalContext(inputs={}), Evidence(file="ci.yml"))
    assert sorted((c.labels, c.confidence.value) for c in cands) == [
        (("macos-10.15",), "certain"), (("ubuntu-20.04",), "possible"), (("ubuntu-20.04-xl",), "possible")]
    assert unresolved is not None  # `${{ inputs.runner }}` (no such input known here) stays unresolved
    assert not any("${{" in lbl for c in cands for lbl in c.labels)


# ------------------------------------------------------------------ GitLab: include: local with inputs

_GEM_TEMPLATE = """\
    spec:
      inputs:
        gem_name:
        gem_path_prefix:
          default: "gems/"
        enabled:
          default: "true"
    ---
    .gems:rules:$[[inputs.gem_name]]:
      rules:
        - if: "'$[[inputs.enabled]]' != 'true'"
          when: never
        - if: '$CI_PIPELINE_SOURCE == "schedule"'

    gems $[[inputs.gem_name]]:
      extends: ".gems:rules:$[[inputs.gem_name]]"
      trigger:
        include: "$[[inputs.gem_path_prefix]]$[[inputs.gem_name]]/.gitlab-ci.yml"
        strategy: depend
    """


def test_gitlab_local_include_with_inputs_is_one_copy_per_include(tmp_path):
    # gitlabhq/gitlabhq .gitlab/ci/gitlab-gems.gitlab-ci.yml includes .gitlab/ci/templates/gem.gitlab-ci.yml 16
    # times, each with `inputs: gem_name: ...`; the template's job `gems $[[inputs.gem_name]]` triggers the child
    # pipeline `$[[inputs.gem_path_prefix]]$[[inputs.gem_name]]/.gitlab-ci.yml`.  graphkit read the template once,
    # uninterpolated: one job named "gems $[[inputs.gem_name]]", no child pipeline, and a "matches no file"
    # problem.  GitLab interpolates each include's inputs (https://docs.gitlab.com/ci/yaml/inputs/).
    from graphkit.build import build_graph
    root = _checkout(tmp_path, "gitlabhq__gitlabhq", {
        ".gitlab-ci.yml": """\
            include:
              - local: .gitlab/ci/templates/gem.gitlab-ci.yml
                inputs:
                  gem_name: "gitlab-rspec"
              - local: .gitlab/ci/templates/gem.gitlab-ci.yml
                inputs:
                  gem_name: "gitlab-utils"
                  gem_path_prefix: "vendor/gems/"
            """,
        ".gitlab/ci/templates/gem.gitlab-ci.yml": _GEM_TEMPLATE,
        "gems/gitlab-rspec/.gitlab-ci.yml": "rspec:\n  script: [rspec]\n",
        "vendor/gems/gitlab-utils/.gitlab-ci.yml": "utils:\n  script: [make]\n",
    })
    result = build_graph({"gitlab-ci": [root]})
    assert result.problems == []
    jobs = sorted(n.id.split(":", 3)[-1] for n in result.graph.nodes() if isinstance(n, Job))
    assert jobs == [".gitlab-ci.yml#gems gitlab-rspec", ".gitlab-ci.yml#gems gitlab-utils",
                    "gems/gitlab-rspec/.gitlab-ci.yml#rspec", "vendor/gems/gitlab-utils/.gitlab-ci.yml#utils"]
    calls = sorted((e.source.rsplit("#", 1)[-1], e.target.rsplit(":", 1)[-1])
                   for e in result.graph.edges(EdgeKind.CALLS_WORKFLOW))
    assert calls == [("gems gitlab-rspec", "gems/gitlab-rspec/.gitlab-ci.yml"),
                     ("gems gitlab-utils", "vendor/gems/gitlab-utils/.gitlab-ci.yml")]


def test_gitlab_include_inputs_missing_child_names_the_interpolated_path(tmp_path):
    root = _checkout(tmp_path, "grp__app", {
        ".gitlab-ci.yml": "include:\n  - local: t.yml\n    inputs:\n      gem_name: nope\n",
        "t.yml": _GEM_TEMPLATE,
    })
    result = GITLAB.ingest([root])
    assert [p.reason for p in result.problems] == [
        "local include 'gems/nope/.gitlab-ci.yml' matches no file of the checkout (line 18)"]


def test_gitlab_interpolation_keeps_types_and_leaves_unknown_inputs():
    from ingest.gitlab_ci.inputs import interpolate
    assert interpolate({"tags": "$[[ inputs.tags ]]", "n": "$[[ inputs.missing ]]", "b": "x-$[[inputs.flag]]"},
                       {"tags": ["a", "b"], "flag": True}) == {"tags": ["a", "b"], "n": "$[[ inputs.missing ]]",
                                                              "b": "x-true"}


def test_gitlab_local_include_under_vendor_is_read(tmp_path):
    # gitlabhq/gitlabhq includes the template with `gem_path_prefix: "vendor/gems/"` (.gitlab/ci/vendored-gems
    # .gitlab-ci.yml); graphkit's listing of the checkout skips `vendor/` and `node_modules/` folders, so such a
    # local include "matched no file".  GitLab reads any path of the repository.
    root = _checkout(tmp_path, "grp__app", {
        ".gitlab-ci.yml": "include:\n  - local: vendor/gems/x/ci.yml\n  - local: node_modules/y/*.yml\n",
        "vendor/gems/x/ci.yml": "x:\n  script: [make]\n",
        "node_modules/y/a.yml": "y:\n  script: [make]\n",
    })
    result = GITLAB.ingest([root])
    assert sorted(n.job_key for n in result.nodes if isinstance(n, Job)) == ["x"]
    # a wildcard is matched against the listing, which leaves those folders out: said, never silent
    assert [p.place for p in result.problems] == ["include[1]"]


# ------------------------------------------------------------------ GitHub and GitLab in one build

def test_github_job_with_run_time_environment_and_gitlab_environment_in_one_build(tmp_path):
    # cli/cli .github/workflows/deployment.yml (`environment: ${{ inputs.environment }}`) built together with
    # gitlabhq/gitlabhq .gitlab-ci.yml (`environment: name: review-docs/$CI_COMMIT_REF_NAME`): the build crashed
    # (KeyError 'repo' in link_unknown_environments: a GitLab environment target is keyed by its project).
    from graphkit.build import build_graph
    gh = _checkout(tmp_path / "gh", "cli__cli", {
        ".github/workflows/deployment.yml": """\
            on:
              workflow_dispatch:
                inputs:
                  environment:
                    type: environment
            jobs:
              release:
                runs-on: ubuntu-latest
                environment: ${{ inputs.environment }}
                steps: [{run: make}]
              prod:
                runs-on: ubuntu-latest
                environment: production
                steps: [{run: make}]
            """})
    gl = _checkout(tmp_path / "gl", "grp__app", {
        ".gitlab-ci.yml": "deploy:\n  script: [make]\n  environment: production\n"})
    result = build_graph({"github-actions": [gh], "gitlab-ci": [gl]})
    assert result.problems == []
    deploys = sorted((e.source.rsplit("#", 1)[-1], e.target, e.confidence.value)
                     for e in result.graph.edges(EdgeKind.DEPLOYS_TO))
    assert deploys == [("deploy", "target:environment:gitlab:grp/app:production", "certain"),
                       ("prod", "target:environment:cli/cli:production", "certain"),
                       ("release", "target:environment:cli/cli:production", "possible")]


def test_gitlab_second_checkout_of_one_project_is_a_problem_not_a_silent_replacement(tmp_path):
    # Two folders named gitlabhq__gitlabhq (an old .gitlab-ci.yml and a newer one, given as two --gitlab-ci
    # inputs): the first checkout's jobs vanished without a word (its root file was replaced by the second's).
    one = _checkout(tmp_path / "a", "gitlabhq__gitlabhq", {".gitlab-ci.yml": "old:\n  script: [make]\n"})
    two = _checkout(tmp_path / "b", "GitLabHQ__gitlabhq", {".gitlab-ci.yml": "new:\n  script: [make]\n"})
    result = GITLAB.ingest([one, two, one])
    assert sorted(n.job_key for n in result.nodes if isinstance(n, Job)) == ["old"]
    assert [(p.file, "second checkout of project GitLabHQ/gitlabhq" in p.reason, str(one) in p.reason)
            for p in result.problems] == [(str(two), True, True)]
