"""What a GitLab CI/CD job says about itself (the ``gitlab`` field of a :class:`~graphkit.model.jobs.Job`).

Shape decision: a GitLab job is a **job node** (``NodeKind.JOB``, ``platform="gitlab"``), not a kind of its own,
so that every edge kind, analysis, finding, report and export that reads jobs (``receives_job``,
``persists_on``, ``reads_secret``, ``mints_oidc``, blast radius, revocation plan) treats it as it treats a
GitHub job.  The GitHub routing fields of :class:`~graphkit.model.jobs.Job` (``runs_on``, ``triggers``,
``permissions``...) stay empty for it; everything GitLab-specific is in :class:`GitLabJob`, written by the
``gitlab-ci`` ingestor (``ingest/gitlab_ci``) from the merged pipeline configuration (``extends``,
``default:``, ``inherit:``, anchors, ``!reference`` and local ``include:`` already applied).

Contract for routing (``graphkit.resolve``, GitLab runners; GitLab docs "CI/CD YAML syntax reference",
https://docs.gitlab.com/ci/yaml/):

- ``tags``: a runner picks the job when the job's tags are all among the runner's tags; an untagged job only
  by a runner with ``run_untagged`` (https://docs.gitlab.com/ci/yaml/#tags).  Tags holding a CI/CD variable
  (``$KUBERNETES_RUNNER_TAG``) are expanded at run time: ``dynamic_tags`` lists them, ``expanded_tags`` gives
  the tags with the file's own values (matching them is ``possible``).
- ``bridge``: a trigger job (``trigger:``) starts a downstream pipeline and runs on **no** runner
  (https://docs.gitlab.com/ci/yaml/#trigger).
- ``triggers``: the pipelines the job can be part of, reduced from ``workflow:rules``, ``rules`` and
  ``only``/``except`` (:class:`GitLabTrigger`); an empty tuple means it never runs.  ``protected`` tells
  whether the ref is protected: protected variables reach only jobs on protected refs, and a ``ref_protected``
  runner takes only those (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable,
  https://docs.gitlab.com/ci/runners/configure_runners/#prevent-runners-from-revealing-sensitive-information).
- ``environment``: name (environment-scoped variables reach only jobs whose environment matches the scope,
  https://docs.gitlab.com/ci/environments/#limit-the-environment-scope-of-a-cicd-variable), ``deployment_tier``
  and ``action``.
- ``variables``: the names defined in the configuration for this job (global ones it inherits included),
  never values; ``credential_like`` from :mod:`graphkit.redact` (name or literal value).  CI/CD variables of
  the project, its groups and the instance reach every job whether it names them or not ("Unlike CI/CD
  variables, which are always available in jobs, secrets must be explicitly requested",
  https://docs.gitlab.com/ci/secrets/): ``referenced_variables`` is evidence, not a filter.
- ``secrets``: external secrets the job requests (Vault, Azure Key Vault, GCP Secret Manager, AWS Secrets
  Manager; https://docs.gitlab.com/ci/yaml/#secrets), each with the ID token it authenticates with.
- ``id_tokens``: name -> ``aud`` (https://docs.gitlab.com/ci/yaml/#id_tokens); the token's ``sub`` is
  ``project_path:{project}:ref_type:{branch|tag}:ref:{name}`` and ``iss`` the instance URL
  (https://docs.gitlab.com/ci/secrets/id_token_authentication/).
- ``generated``: a dynamic child pipeline's jobs, unknown until run time (one stand-in job per trigger job
  and artifact): any runner of the project may take them, any CI/CD variable and environment scope may reach
  them, and they may request an ID token with any audience (all ``possible``).
- ``config_unresolved``: includes that were not read (``project``, ``remote``, ``template``, ``component``,
  or a local file missing from the checkout): what they define can add to or change this job, so facts about
  it are then ``possible``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from graphkit.model.enums import Confidence
from graphkit.model.evidence import Evidence

__all__ = ["PIPELINE_SOURCES", "GitLabTrigger", "GitLabEnvironment", "GitLabVariable", "GitLabSecret",
           "GitLabIdToken", "GitLabJob"]

#: Values of ``$CI_PIPELINE_SOURCE`` graphkit distinguishes (GitLab docs "Predefined CI/CD variables" and
#: "Common if clauses with predefined variables", https://docs.gitlab.com/ci/jobs/job_rules/#ci_pipeline_source-predefined-variable).
PIPELINE_SOURCES: tuple[str, ...] = ("push", "web", "schedule", "api", "trigger", "pipeline", "parent_pipeline",
                                     "merge_request_event", "external_pull_request_event", "chat", "webide")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GitLabTrigger(_Frozen):
    """One kind of pipeline a job is part of.

    ``ref_type``: ``branch`` (branch pipelines), ``tag`` (tag pipelines) or ``merge_request`` (merge request
    pipelines, which run on the merge request's source branch; https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/).
    ``sources``: the ``$CI_PIPELINE_SOURCE`` values (:data:`PIPELINE_SOURCES`).  ``refs``: the ref names
    (branch or tag; for a merge request its source branch) as literal names, ``/regex/`` patterns (RE2, as
    written) or ``$CI_DEFAULT_BRANCH`` (the default branch, whose name the file does not say), None = any ref
    but ``refs_excluded`` (same forms).  ``protected``: True only protected refs, False only unprotected ones, None
    either.  ``from_fork``: merge requests only: True from a fork (``$CI_MERGE_REQUEST_SOURCE_PROJECT_PATH``
    differs from ``$CI_PROJECT_PATH``, ``$CI_MERGE_REQUEST_SOURCE_PROJECT_ID`` from ``$CI_PROJECT_ID``), False from the project itself, None either.  ``when``: ``on_success``,
    ``manual``, ``delayed``, ``always``, ``on_failure``.  ``confidence``: ``possible`` when a condition could
    not be decided from the file (a user variable, ``changes:``, ``exists:``, a regex on an unnamed ref).
    ``evidence``: the rule (or ``only``/``except``) that decided it.
    """

    ref_type: Literal["branch", "tag", "merge_request"]
    sources: tuple[str, ...]
    refs: tuple[str, ...] | None = None
    refs_excluded: tuple[str, ...] = ()
    protected: bool | None = None
    from_fork: bool | None = None
    when: str = "on_success"
    confidence: Confidence = Confidence.CERTAIN
    evidence: Evidence


class GitLabEnvironment(_Frozen):
    """A job's ``environment`` (string or mapping; https://docs.gitlab.com/ci/yaml/#environment).

    ``name`` as written (``dynamic`` when it holds a CI/CD variable such as ``review/$CI_COMMIT_REF_SLUG``);
    ``deployment_tier``: ``production``, ``staging``, ``testing``, ``development``, ``other`` or None (GitLab
    then guesses it from the name, https://docs.gitlab.com/ci/environments/#deployment-tier-of-environments);
    ``action``: ``start`` (default), ``prepare``, ``stop``, ``verify``, ``access``.
    """

    name: str
    dynamic: bool = False
    deployment_tier: str | None = None
    action: str = "start"
    url: str | None = None
    evidence: Evidence


class GitLabVariable(_Frozen):
    """A variable the configuration defines for a job (name only, never the value).

    ``scope``: ``job`` (the job's ``variables:``), ``trigger`` (a child pipeline's job: passed on by the trigger job
    that starts its pipeline, its own and the global ones it inherits, unless ``trigger:forward:yaml_variables:
    false``; they take precedence over the child's own, https://docs.gitlab.com/ci/yaml/#triggerforward) or
    ``global`` (top-level ``variables:``, inherited unless
    ``inherit:variables`` says otherwise).  ``credential_like``: the name or the literal value looks like a
    credential (:func:`graphkit.redact.looks_like_credential_name`, :func:`graphkit.redact.find_credentials`).
    ``references``: the variables its value expands (``$CI_REGISTRY_PASSWORD``), names only.
    """

    name: str
    scope: Literal["job", "global", "trigger"] = "job"
    credential_like: bool = False
    references: tuple[str, ...] = ()
    evidence: Evidence


class GitLabSecret(_Frozen):
    """An external secret a job requests (``secrets:NAME``; https://docs.gitlab.com/ci/yaml/#secrets).

    ``name``: the CI/CD variable it becomes.  ``provider``: ``vault``, ``azure_key_vault``,
    ``gcp_secret_manager`` or ``aws_secrets_manager``.  ``path``: what it names at the provider (Vault:
    ``engine/path`` from ``vault: path/to/secret/field@engine`` or the mapping form, without the field; Azure and
    GCP: ``name``; AWS: ``secret_id``).  ``field``: Vault field.  ``token``: the ID token name it authenticates
    with (``token: $VAULT_ID_TOKEN`` -> ``VAULT_ID_TOKEN``), None when not set (which token GitLab then uses:
    https://docs.gitlab.com/ci/yaml/#secretstoken).  ``file``: exposed as a file variable (default true).
    """

    name: str
    provider: Literal["vault", "azure_key_vault", "gcp_secret_manager", "aws_secrets_manager"]
    path: str
    field: str | None = None
    token: str | None = None
    file: bool = True
    #: ``possible`` when the definition comes from a file included with ``rules:`` (it may not be part of the
    #: pipeline)
    confidence: Confidence = Confidence.CERTAIN
    evidence: Evidence


class GitLabIdToken(_Frozen):
    """An ID token a job requests: ``id_tokens:NAME:aud`` (string or list; https://docs.gitlab.com/ci/yaml/#id_tokens).
    ``confidence`` as for :class:`GitLabSecret`."""

    name: str
    aud: tuple[str, ...]
    confidence: Confidence = Confidence.CERTAIN
    evidence: Evidence


class GitLabJob(_Frozen):
    """The GitLab facts of a job node (module docstring: the contract routing reads).

    ``project``: ``GROUP/SUBGROUP/PROJECT`` as written; ``config_file``: the pipeline's root configuration
    (``.gitlab-ci.yml``); ``file``: the file that defines the job (an included file, or the root).  ``name``:
    the job name; ``stage`` (default ``test``, https://docs.gitlab.com/ci/yaml/#stage).  ``when``: the job's own
    ``when``.  ``image`` / ``services``: container images as written.  ``extends``: the templates merged in,
    nearest first.  ``evidence``: the job's key in ``file``.
    """

    project: str
    config_file: str
    file: str
    name: str
    #: the host of the project's GitLab instance (``gitlab.com``, or the checkout's remote / ``https://HOST/...``
    #: argument), None when not known
    instance: str | None = None
    stage: str = "test"
    tags: tuple[str, ...] = ()
    dynamic_tags: tuple[str, ...] = ()
    #: ``tags`` with their variables replaced by the values the configuration itself gives them (job, then
    #: global ``variables:``), when every one is a plain tag word; empty when some cannot be expanded.  A CI/CD
    #: variable of the project, group or instance with the same name takes precedence over the file
    #: (https://docs.gitlab.com/ci/variables/#cicd-variable-precedence), so routing on them is ``possible``.
    expanded_tags: tuple[str, ...] = ()
    bridge: str | None = None
    #: the root files of the child pipelines a trigger job starts (``trigger: include: local``)
    child_pipelines: tuple[str, ...] = ()
    when: str = "on_success"
    environment: GitLabEnvironment | None = None
    triggers: tuple[GitLabTrigger, ...] = ()
    variables: tuple[GitLabVariable, ...] = ()
    referenced_variables: tuple[str, ...] = ()
    secrets: tuple[GitLabSecret, ...] = ()
    id_tokens: tuple[GitLabIdToken, ...] = ()
    image: str | None = None
    services: tuple[str, ...] = ()
    extends: tuple[str, ...] = ()
    config_unresolved: tuple[str, ...] = ()
    #: a stand-in for the jobs of a dynamic child pipeline (``trigger: include: - artifact: FILE job: JOB``,
    #: https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#dynamic-child-pipelines): the configuration is
    #: generated at run time, so its jobs, their tags, environments, ID tokens and secrets are unknown.  Routing,
    #: CI/CD variables and ID tokens read it as any job of the project could be (``possible``), never as no job;
    #: its triggers are its trigger job's.
    generated: bool = False
    evidence: Evidence

    @property
    def protected_refs(self) -> bool | None:
        """True when the job runs on protected refs only, False when only on unprotected ones, None when on
        both or not decided (from :attr:`triggers`)."""
        seen = {t.protected for t in self.triggers}
        return next(iter(seen)) if len(seen) == 1 else None
