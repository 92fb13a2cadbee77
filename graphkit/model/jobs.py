"""The job node and what it holds: where it may run (:class:`RunsOnCandidate`), its triggers, the secrets it
references and is granted, the verdicts on its ``if:`` and the untrusted code it runs (split out of
:mod:`graphkit.model.nodes`, which re-exports every name)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphkit.model.enums import Confidence, Criticality, EdgeKind, NodeKind
from graphkit.model.evidence import Evidence
from graphkit.model.gitlab import GitLabJob
from graphkit.model.node import Node, NodeSpec

__all__ = ["IfVerdict", "Job", "RunsOnCandidate", "SecretGrant", "SecretRef", "Trigger", "UntrustedCode"]


class RunsOnCandidate(BaseModel):
    """One label set a job (or one matrix instance of it) asks for.

    ``labels`` as written (matching is case-insensitive); ``group`` from the
    ``{group, labels}`` form; ``matrix`` the matrix values of that instance.
    ``dynamic``: the labels (also in ``labels``) with a part known only at run
    time, written as patterns with ``*`` for that part (``run-id=*`` for
    ``run-id=${{ github.run_id }}``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    labels: tuple[str, ...]
    dynamic: tuple[str, ...] = ()
    group: str | None = None
    matrix: dict[str, Any] | None = None
    confidence: Confidence = Confidence.CERTAIN
    evidence: Evidence


class Trigger(BaseModel):
    """One event of the ``on:`` of the workflow whose run a job is part of.

    For a job of a called (reusable) workflow these are the **top-level
    caller's** events: the run is the caller's (GitHub docs "Reusing
    workflows": ``github`` context of the caller).  Filters as written
    (GitHub filter patterns: ``*``, ``**``, ``?``, ``+``, ``[]``, leading
    ``!``), ``None`` when the filter is absent (no restriction):

    - ``branches`` / ``branches_ignore``, ``tags`` / ``tags_ignore``,
      ``paths`` / ``paths_ignore`` (GitHub docs "Workflow syntax for GitHub
      Actions", ``on.<push|pull_request|pull_request_target>.<branches|tags>``,
      https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onpushpull_requestpull_request_targetpathspaths-ignore);
    - ``types``: the activity types (``on.<event>.types``);
    - ``workflows``: the triggering workflows of ``workflow_run``;
    - ``schedules``: the ``cron`` strings of ``schedule``.

    Which refs an event runs on (``GITHUB_REF``) is decided by
    :func:`graphkit.refs.trigger_refs` (GitHub docs "Events that trigger
    workflows", https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    event: str
    types: tuple[str, ...] | None = None
    branches: tuple[str, ...] | None = None
    branches_ignore: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    tags_ignore: tuple[str, ...] | None = None
    paths: tuple[str, ...] | None = None
    paths_ignore: tuple[str, ...] | None = None
    workflows: tuple[str, ...] | None = None
    schedules: tuple[str, ...] = ()
    evidence: Evidence


class SecretRef(BaseModel):
    """A secret name a job reads, as seen by the repository whose secrets it sees.  ``possible``: the caller
    may not pass it (``secrets: inherit`` into a workflow of another organization passes secrets only when
    both are in one enterprise, which graphkit does not read:
    https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idsecretsinherit)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    evidence: Evidence
    possible: bool = False


class SecretGrant(BaseModel):
    """A secret used as the credential of an action (e.g. PYPI_TOKEN for a publish step).

    The resolver adds an edge ``secret -> target`` of ``edge_kind``: whoever
    holds the secret has that access from anywhere, until it is rotated.
    ``possible``: as :class:`SecretRef` (the job may not be passed the secret).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    edge_kind: EdgeKind
    target: str
    evidence: Evidence
    possible: bool = False


class IfVerdict(BaseModel):
    """What a job's or a step's ``if`` means for an outsider's run of ``event`` (``pull_request_target``,
    ``workflow_run``, ``issue_comment``... : the base repository's workflow, or for ``pull_request_review(_comment)``
    the same-repository branch's, whose condition the outsider cannot change): ``skipped`` when it is false for every such run (no way in through it), ``gated`` when it is false
    for the outsider alone and ``guards`` (ids of ``graphkit/data/untrusted_guards.json``: a label that people
    with triage access add, a trusted commenter, a named author account, a head repository that is this one)
    decide it (a possible way in).  ``evidence``: the ``if`` (file, YAML path, line).  Read by :mod:`ingest.github_actions.conditions`
    (GitHub docs "Evaluate expressions in workflows and actions",
    https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/evaluate-expressions-in-workflows-and-actions).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    event: str
    outcome: Literal["skipped", "gated"]
    guards: tuple[str, ...] = ()
    evidence: Evidence


class UntrustedCode(BaseModel):
    """A step of a job that runs code a pull request author (or any outsider) controls.

    ``how``: ``checkout`` (``actions/checkout`` of the pull request head or
    merge ref), ``script`` (``gh pr checkout``, ``git fetch ... pull/N/...``
    in a run script), ``artifact`` (an artifact of the triggering run
    downloaded by a ``workflow_run`` job) or ``injection`` (a run script or
    ``actions/github-script`` script that writes ``${{ }}`` of text an outsider
    chose, an issue title or a head branch name: GitHub docs "Understanding the
    risk of script injections",
    https://docs.github.com/en/actions/reference/security/secure-use#understanding-the-risk-of-script-injections).
    ``events``: the events whose payload carries that text (an injection; empty:
    every event).  ``guard``: ``checkout-refuses``
    when ``actions/checkout`` refuses fork pull request code under
    ``pull_request_target`` / ``workflow_run`` (dated, 2026-06: GitHub changelog
    2026-06-18 "Safer pull_request_target defaults for GitHub Actions checkout",
    https://github.blog/changelog/2026-06-18-safer-pull_request_target-defaults-for-github-actions-checkout/;
    every v7 release and, by the 2026-07-16 backport, a floating major tag from
    ``@v4``), ``unknown`` for a version that may or may not have it (a commit pin,
    a v4-v6 release after the backport), ``opted-out`` when a version that has
    (or may have) it is told ``allow-unsafe-pr-checkout: true``, ``none`` for
    v1-v3 and for a v4-v6 minor or patch pin released before the backport (the
    guard does not exist there: https://github.com/actions/checkout/releases;
    :mod:`ingest.github_actions.untrusted`), or not a checkout.  ``via``: where the code or text came in
    from outside the file of ``evidence``, outermost first: the ``with:`` of a caller that passes outsider text
    as an input of a reusable workflow or composite action (``${{ inputs.X }}``: a script writing it, a checkout of
    its ``ref`` or ``repository``), the ``uses:`` step of a composite action whose script writes outsider text or
    that checks out the pull request itself (empty: the job's own step).  ``certain``: False for a checkout whose
    ``ref`` or ``repository`` is known only at run time (another job's output, ``needs.<job>.outputs``, an earlier
    step's, ``steps.<id>.outputs``, or ``env.NAME`` set from one or at run time; written there or passed in): it
    may check out the pull request's code (the entry is ``possible``, guard ``run-time-checkout-ref``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    how: Literal["checkout", "script", "artifact", "injection"]
    guard: Literal["none", "checkout-refuses", "unknown", "opted-out"] = "none"
    evidence: Evidence
    condition: tuple[IfVerdict, ...] = ()
    events: tuple[str, ...] = ()
    via: tuple[Evidence, ...] = ()
    certain: bool = True


class Job(Node):
    """A job of a workflow (for a reusable workflow: one instance per caller).

    Routing facts consumed by :mod:`graphkit.resolve`:

    - ``runs_on``: candidate label sets (matrix expanded).
    - ``runs_on_unresolved``: set when ``runs-on`` holds an expression that cannot
      be evaluated statically: the job may run on any runner its repository can
      use (``possible``).
    - ``secret_refs``: names read through ``secrets.NAME`` / ``secrets['NAME']``
      (as names of ``secrets_repository``, i.e. the caller's for reusable jobs).
    - ``all_secrets``: evidence of ``toJSON(secrets)`` / dynamic ``secrets[...]``
      / ``secrets: inherit`` into a callee that does so.
    - ``environment``: the deployment environment name, if any; :attr:`UNKNOWN_ENVIRONMENT` (``*``) when the job
      names one graphkit cannot read statically (an expression known only at run time, one of several names, a
      name past ``max_attribute_chars``): any environment of the repository (its OIDC ``sub`` is the pattern
      ``...:environment:*``, its secrets may be any environment's).  ``environment_optional``: the expression
      may also be empty (``${{ cond && 'prod' || '' }}``, an input): a run without an environment reads the
      repository's and organization's secrets instead, so an environment's secret is read only ``possible``
      (https://docs.github.com/en/actions/how-tos/write-workflows/choose-what-workflows-do/use-secrets).
    - ``untrusted_code``: steps that run code a pull request author controls
      (:class:`UntrustedCode`; entry points: :mod:`graphkit.untrusted`).
    - ``condition``: what the job's ``if`` means for an outsider's privileged run of each of its events
      (:class:`IfVerdict`: ``skipped``, or ``gated`` by a label, a trusted commenter or a head repository that
      is this one), a called job's with its callers' (each caller's ``if`` gates the jobs it calls); steps carry
  their own in ``untrusted_code``.
    - ``triggers``: the events (with their branch/tag filters) of the run the
      job is part of: the top-level caller's for a called workflow
      (:class:`Trigger`; refs: :func:`graphkit.refs.job_refs`).
    - ``permissions``: effective GITHUB_TOKEN scopes (scope -> read|write|none);
      ``permissions_source``: ``job``, ``workflow``, ``caller`` or ``default``
      (no block: the repository/org default applies, not known statically).
    - ``never_runs``: the evidence of a job ``if`` that is false in every run (``if: false``,
      ``if: ${{ false }}``, ``if: 0``, ``false && ...``: GitHub skips the job,
      https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif);
      or of the ``needs`` of a job that needs one that never runs and whose ``if`` has no status function
      continuing after a skipped dependency (``always()``...: "If a job fails or is skipped, all jobs that need
      it are skipped unless ...",
      https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idneeds);
      None otherwise.  Such a job (and every job it would call) reaches nothing: no runner receives it, it has
      no GITHUB_TOKEN, OIDC identity, environment, secret or step fact, and no outsider triggers it; the node
      stays, with its evidence.  A step whose ``if`` is false in every run is left out of the job's facts.

    ``platform="gitlab"``: a GitLab CI/CD job (id :func:`graphkit.model.ids.gitlab_job`): ``repository`` and
    ``secrets_repository`` are the project path, ``workflow_path`` the pipeline's root configuration file,
    ``job_key`` the job name, ``environment`` the environment name; the GitHub routing fields above stay empty
    and every GitLab fact (tags, refs and events, protected refs, variables, ``secrets:``, ``id_tokens``) is in
    ``gitlab`` (:class:`graphkit.model.gitlab.GitLabJob`, whose docstring is the routing contract).
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.JOB, label="Job", default_criticality=Criticality.LOW,
                                        description="A workflow job (GitHub) or CI/CD job (GitLab); future runs of it reach what it reaches")
    kind: Literal["job"] = "job"
    repository: str
    workflow_path: str
    job_key: str
    secrets_repository: str
    runs_on: list[RunsOnCandidate] = Field(default_factory=list)
    #: its labels become runner ids: bounded by ``max_identifier_chars`` where the resolver builds them (a label
    #: left out here would route the job to more runners); see :mod:`graphkit.model.bounds`
    unbounded_fields: ClassVar[frozenset[str]] = frozenset({"runs_on"})
    runs_on_unresolved: Evidence | None = None
    #: ``environment`` of a job that names an environment graphkit cannot read statically: unknown, never "none"
    UNKNOWN_ENVIRONMENT: ClassVar[str] = "*"
    environment: str | None = None
    #: the ``environment`` expression may be empty: some runs have no environment
    environment_optional: bool = False
    secret_refs: list[SecretRef] = Field(default_factory=list)
    secret_grants: list[SecretGrant] = Field(default_factory=list)
    all_secrets: Evidence | None = None
    permissions: dict[str, str] = Field(default_factory=dict)
    permissions_source: Literal["job", "workflow", "caller", "default"] = "default"
    caller: str | None = None
    triggers: list[Trigger] = Field(default_factory=list)
    untrusted_code: list[UntrustedCode] = Field(default_factory=list)
    condition: tuple[IfVerdict, ...] = ()
    never_runs: Evidence | None = None
    platform: Literal["github", "gitlab"] = "github"
    gitlab: GitLabJob | None = None
