"""Parsed workflows and actions -> nodes and edges (pure: no I/O).

What a workflow file becomes:

- ``org`` -owns-> ``repo`` -has_workflow-> ``workflow`` -has_job-> ``job``;
- per job instance: its GITHUB_TOKEN (``has_token``; ``writes_repository``
  when a scope writes, ``possible`` under the default permissions), its OIDC
  identity when ``id-token: write`` (``mints_oidc``), its environments
  (``deploys_to`` a ``target:environment:{owner}/{repo}:{env}``, lower-case),
  and what its steps give it (:mod:`.steps`);
- a job that calls a reusable workflow (``calls_workflow``) instantiates the
  callee's jobs under it (ids ``job:{caller}>{owner}/{repo}/{path}#{key}``)
  with the inputs, secrets (:class:`~.secrets.SecretMap`) and permission cap
  it passes; a callee not among the files is an inferred workflow and leaves
  the caller ``runs_on_unresolved`` (its jobs run somewhere);
- a step that uses a local or ingested composite action runs the action's
  steps in the job, with the inputs it passes;
- a reusable workflow is also instantiated once for callers outside the
  ingested files (``possible``), and a run GitHub refuses (a called job asking
  for more permissions than its caller grants, a call without a required
  input or secret) adds no job at all: a problem naming the calling job.

Not produced here: Secret nodes and runner links; the resolver
(:mod:`graphkit.resolve`) makes them from ``Job.secret_refs``,
``Job.all_secrets``, ``Job.secret_grants`` and ``Job.runs_on``.  Nor
production or criticality of targets (:mod:`graphkit.targets`).

Every id comes from :mod:`graphkit.model.ids`; a value an id cannot hold
(:class:`~graphkit.model.ids.IdError`) is an :class:`~graphkit.errors.InputError`
naming the file and YAML path, and the rest of the input is still used.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graphkit import limits
from graphkit.errors import InputError
from graphkit.graph import GraphBuilder
from graphkit.ingestor import IngestResult
from graphkit.model import (Confidence, DeploymentTarget, EdgeKind, Evidence, GitHubToken, Job, OIDCIdentity,
                            Organization, Repository, Workflow, ids, repo_key, secret_key)
from graphkit.model.bounds import refuse
from graphkit.oidc import default_subjects

from .calls import Call, uses_target
from .evidence import Src
from .expressions import EvalContext, Val, resolve, run_outputs, truthy
from .matrix import MATRIX_LIMIT_EFFECT, bind_inputs, expand_matrix, matrix_limit_reason, runs_on_candidates
from .models import ActionFile, JobDef, Step, WorkflowFile, jsonable, scalar_text
from .permissions import (LEVEL, POSSIBLE_REPOSITORY_WRITE_SCOPES, effective_permissions, possible_repository_writes,
                          repository_writes)
from .secrets import SecretMap, secret_refs
from .skipped import live_job, never_detail, never_runs, run_events, skipped_needs
from .steps import JobState, StepView, apply_step_rules
from .untrusted import Scope, combined, composite_code, job_condition, job_scope, tainted_call, untrusted_code

__all__ = ["MAX_COMPOSITE_DEPTH", "MAX_WORKFLOW_LEVELS", "to_graph"]

#: Levels of workflows (top-level caller included) GitHub connects.  (dated) github.com
#: allows ten since 2025; GHES four.  https://docs.github.com/en/actions/how-tos/reuse-automations/reuse-workflows#nesting-reusable-workflows
MAX_WORKFLOW_LEVELS = 10
#: Nested composite actions per workflow (same page: "up to 10 composite actions").
MAX_COMPOSITE_DEPTH = 10


def _environment_names(jd: JobDef, ctx: EvalContext, ev: Evidence) -> tuple[str | None, list[Val], bool]:
    """``(Job.environment, candidate names, whether the run may have no environment)``: one candidate -> its
    name; no environment when every value is certainly empty; else the environment is unknown
    (:attr:`Job.UNKNOWN_ENVIRONMENT`), with the candidate names it may take (``deploys_to``, ``possible``).  An
    expression that may be empty (``${{ cond && 'prod' || '' }}``, an input) may leave the run without one.

    A name known only at run time (``${{ inputs.environment }}`` from a free-form input, ``prod-${{ ... }}``) or
    one of several (``${{ cond && 'prod' || 'staging' }}``) is unknown, never the expression's text: the run's
    OIDC ``sub`` is then the pattern ``repo:OWNER/REPO:environment:*`` (GitHub "OpenID Connect reference": the
    environment name replaces the event in ``sub``,
    https://docs.github.com/en/actions/reference/security/oidc#example-subject-claims) and any environment's
    secrets may shadow the repository's (GitHub "Using secrets in GitHub Actions": an environment secret takes
    precedence, https://docs.github.com/en/actions/how-tos/write-workflows/choose-what-workflows-do/use-secrets).
    A name past ``max_attribute_chars`` (``ev``: its place) is left out and recorded
    (:func:`graphkit.model.bounds.refuse`): unknown too, never none, and it deploys to no environment graphkit can
    name."""
    raw = jd.environment.get("name") if isinstance(jd.environment, dict) else jd.environment
    if raw is None:
        return None, [], False
    text = scalar_text(raw)
    if len(text) > limits.latest().max_attribute_chars:
        refuse(ev, "job environment", len(text), "value left out: the job's environment is unknown (any "
               "environment of the repository)")
        return Job.UNKNOWN_ENVIRONMENT, [], False
    vals, pattern = resolve(text, ctx)
    names = [Val(scalar_text(v.value), v.certain) for v in vals if truthy(v.value)]
    optional = pattern is not None or len(names) < len(vals)
    if pattern is None and not names and vals and all(v.certain for v in vals):
        return None, [], False  # the expression is certainly empty: no environment
    if pattern is not None or len(names) != 1:
        return Job.UNKNOWN_ENVIRONMENT, names, optional
    return names[0].value, names, optional


def _step_outputs(jd: JobDef) -> dict[str, dict[str, list[Val]]]:
    return {s.id: run_outputs(s.run) for s in jd.steps if s.id and s.run and "GITHUB_OUTPUT" in s.run}


class _Builder:
    def __init__(self, files: Sequence[WorkflowFile | ActionFile], max_levels: int,
                 named: Mapping[tuple[str, str], str] | None = None) -> None:
        self.out = GraphBuilder()
        #: how a problem names a file: ``(repository, file) -> input path`` (else ``OWNER/REPO:file``)
        self.named = dict(named or {})
        self.problems: list[InputError] = []
        #: why GitHub refuses the run being instantiated (a call it cannot make): its jobs are dropped
        self.refused: list[InputError] = []
        self.max_levels = max_levels
        lim = limits.current()
        self.max_composite = lim.max_call_depth
        #: jobs and steps left to instantiate through calls (``max_call_fanout``): fan-out is exponential in depth
        self.budget, self.over_budget = lim.max_call_fanout, False
        self._srcs: dict[tuple[str, str, int], Src] = {}  # (file, repository, id of its lines) -> its Src
        #: repository name -> its owner's and its own node as first made (validated), copied with the evidence of
        #: each further file naming it
        self._repos: dict[str, tuple[Organization, Repository]] = {}
        self.workflows = {(repo_key(f.repository), f.file): f for f in files if isinstance(f, WorkflowFile)}
        self.actions = {(repo_key(f.repository), f.directory): f for f in files if isinstance(f, ActionFile)}
        self._skipped: dict[tuple, dict[str, str]] = {}  # (workflow, run events) -> skipped_needs of its jobs

    # ------------------------------------------------------------ structure
    def src(self, f: WorkflowFile | ActionFile) -> Src:
        """The evidence factory of a file, one per file (its evidence made once per place for every job and
        instance)."""
        key = (f.file, f.repository, id(f.lines))
        got = self._srcs.get(key)
        if got is None:
            got = self._srcs[key] = Src(f.file, f.repository, f.lines)
        return got

    def repository(self, full_name: str, ev: Evidence) -> str:
        """Add the repository and its owner; raises :class:`ids.IdError` for a name that is not ``owner/name``."""
        made = self._repos.get(full_name)
        if made is None:
            owner = full_name.split("/", 1)[0]
            oid, rid = ids.organization(owner), ids.repository(full_name)
            org = Organization(id=oid, name=owner, evidence=[ev])
            repo = Repository(id=rid, name=full_name, full_name=full_name, evidence=[ev])
            if org.name == owner and repo.name == repo.full_name == full_name:  # nothing left out (model.bounds):
                self._repos[full_name] = (org, repo)  # else validated at each place, each refusal recorded
        else:  # the same validated values, the evidence of this place
            org, repo = (n.model_copy(update={"evidence": [ev]}) for n in made)
        self.out.node(org)
        self.out.node(repo)
        self.out.edge(EdgeKind.OWNS, org.id, repo.id, ev)
        return repo.id

    def literal_credentials(self, files: Sequence[WorkflowFile | ActionFile]) -> None:
        """Credentials written in the files, on their repository (finding ``literal-credential-in-workflow``)."""
        for f in files:
            if f.literal_credentials:
                try:
                    rid = self.repository(f.repository, f.literal_credentials[0].evidence)
                except ids.IdError:
                    continue  # reported with the file's workflows
                self.out.node(Repository(id=rid, name=f.repository, full_name=f.repository,
                                         literal_credentials=list(f.literal_credentials),
                                         evidence=[f.literal_credentials[0].evidence]))

    def workflow(self, wf: WorkflowFile) -> None:
        """Add the workflow (and its repository); raises :class:`ids.IdError` before adding anything."""
        ev = self.src(wf).ev("", wf.name)
        wid = ids.workflow(wf.repository, wf.file)
        rid = self.repository(wf.repository, ev)
        self.out.node(Workflow(id=wid, name=wf.name or wf.file, repository=wf.repository, path=wf.file,
                               triggers=wf.triggers, reusable=wf.reusable, evidence=[ev]))
        self.out.edge(EdgeKind.HAS_WORKFLOW, rid, wid, ev)

    def run(self) -> None:
        """Instantiate every workflow that runs on its own.

        A workflow triggered only by ``workflow_call`` runs as instances under
        its callers, and once more for an unknown caller, whether ingested
        workflows call it or not: workflows of other repositories may call it
        when its repository is public or shares its workflows
        (https://docs.github.com/en/actions/how-tos/reuse-automations/reuse-workflows#access-to-reusable-workflows),
        which no workflow file tells.  That instance is ``possible``: its
        runner candidates are, its inputs are the defaults (``possible``), and
        the secrets it reads are named as it declares them (the resolver
        links them as ``possible``, never as missing).
        """
        for key, wf in list(self.workflows.items()):
            try:
                self.workflow(wf)
            except ids.IdError as exc:
                self.problems.append(self.problem(wf, "", f"{exc}; workflow skipped"))
                del self.workflows[key]
        for key, wf in self.workflows.items():
            standalone = bool(set(wf.triggers) - {"workflow_call"})
            inputs = None if standalone else {n.lower(): (None if d is None else [Val(d, False)])
                                              for n, d in wf.call_inputs.items()}
            self.instance(wf, Call(top=wf, chain=(key,), inputs=inputs, unknown_caller=not standalone,
                                    unknown_top=not standalone,
                                    secrets=SecretMap(any_name=not standalone)))

    def instance(self, wf: WorkflowFile, call: Call) -> None:
        """Instantiate a triggered workflow's jobs; a run GitHub would refuse (a call it cannot make) adds none.

        GitHub validates the whole run, nested calls included, before any job
        starts ("The workflow is not valid ... Error calling workflow"): a
        called job asking for more permissions than its caller grants, or a
        call without a required input or secret, fails the run with zero jobs.
        https://docs.github.com/en/actions/reference/workflows-and-actions/reusing-workflow-configurations#access-and-permissions-for-nested-workflows
        """
        kept, self.out, self.refused = self.out, GraphBuilder(), []
        for jd in wf.jobs.values():
            self.job(wf, jd, call)
        built, self.out = self.out, kept
        if not self.refused:
            self.out.update(built)
        for p in self.refused:
            if p not in self.problems:
                self.problems.append(p)

    def problem(self, owner: Any, place: str, reason: str) -> InputError:
        """A problem found while building ``owner``'s file (a workflow, an action, a :class:`Src`, an
        :class:`Evidence`: anything with ``file`` and ``repository``), naming it as the parse problems do: its input
        path, else ``OWNER/REPO:file`` (a relative path alone is ambiguous with several repositories)."""
        file = self.named.get((owner.repository, owner.file)) or f"{owner.repository}:{owner.file}"
        return InputError(file, place, reason)

    # ------------------------------------------------------------ jobs
    def job(self, wf: WorkflowFile, jd: JobDef, call: Call) -> None:
        """Add one job instance, what its steps give it, and the jobs it calls."""
        src = self.src(wf)
        path = f"jobs.{jd.key}"
        try:
            jid = ids.job(wf.repository, wf.file, jd.key, caller=call.caller_id)
        except ids.IdError as exc:  # a key GitHub refuses (graphkit.model.id_parts.JOB_KEY), at its line
            line = wf.lines.get(path)
            self.problems.append(self.problem(wf, path, f"{exc} (a letter or _, then letters, digits, - or _: GitHub "
                                              "refuses the workflow file otherwise); job skipped"
                                              + (f" (line {line})" if line else "")))
            return
        top_repo = call.top.repository
        run_repo = None if call.unknown_top else top_repo  # github.repository of the run: the caller's
        self._over_cap(wf, jd, call)
        perms, perm_source = effective_permissions(wf.permissions, jd.permissions, call.cap)
        events = run_events((t.event for t in call.top.events), unknown_caller=call.unknown_top)  # github.event_name
        dep = self._skipped_needs(wf, events).get(jd.key)
        if dep is not None or never_runs(jd.raw.get("if"), events):
            self._never(wf, jd, call, jid, perms, perm_source, dep, events)
            return
        jd = live_job(jd, events)
        env = {**wf.env, **jd.env}
        ctx = EvalContext(inputs=call.inputs, env=env, steps=_step_outputs(jd))
        matrix = bind_inputs(jd.matrix, ctx)
        if matrix is not jd.matrix:  # built from a caller's inputs (as written, the file's parse checked it)
            self._matrix_limit(matrix, src, path)
        environment, env_names, no_env = _environment_names(jd, ctx, src.ev(f"{path}.environment"))
        envs = [environment, None] if no_env else [environment]
        oidc_id = self._oidc(jid, wf, jd, call, envs, src) if perms.get("id-token") == "write" else None
        state = JobState(id=jid, repo=top_repo, oidc_id=oidc_id, secrets=call.secrets, env=env,
                         identity=f"github.com/{repo_key(wf.repository)}/{wf.file}")
        refs, all_ev = secret_refs(wf, jd, src, call.secrets)
        runs_on, unresolved = runs_on_candidates(jd.runs_on, matrix, ctx, src.ev(f"{path}.runs-on", jd.runs_on))
        if call.unknown_top:  # the run of a caller we do not know: every route is possible
            runs_on = [c.model_copy(update={"confidence": Confidence.POSSIBLE}) for c in runs_on]
            if "inputs" in json.dumps(jsonable(jd.runs_on)):
                unresolved = unresolved or src.ev(f"{path}.runs-on", f"{jd.runs_on} (input of an unknown caller)")
        self._steps(jd.steps, src, ctx, state, {}, depth=0, seen=(), scope=job_scope(call.top.events, run_repo, env,
                                                                                      call.taint, events))
        self._environments(jid, top_repo, env_names, src, src.ev(f"{path}.environment", jd.environment))
        if jd.uses:
            unresolved, all_ev = self._call(wf, jd.model_copy(update={"matrix": matrix}), src, call, jid,
                                            (perms, perm_source), ctx, unresolved, all_ev)
        job = Job(id=jid, name=jd.name if jd.name and "${{" not in jd.name else jd.key, repository=wf.repository,
                  workflow_path=wf.file, job_key=jd.key, secrets_repository=top_repo, runs_on=runs_on,
                  runs_on_unresolved=unresolved, environment=environment,
                  environment_optional=no_env and environment is not None, secret_refs=refs,
                  secret_grants=state.grants, all_secrets=all_ev, permissions=perms,
                  permissions_source=perm_source, caller=call.caller_id, triggers=list(call.top.events),
                  untrusted_code=untrusted_code(jd, src, call.top.events, run_repo, env, call.taint) + state.untrusted,
                  condition=combined(call.condition, job_condition(jd, src, path, call.top.events, run_repo)),
                  evidence=[src.ev(path, jd.name)])
        self.out.node(job)
        self.out.edge(EdgeKind.HAS_JOB, ids.workflow(wf.repository, wf.file), jid, job.evidence[0])
        self._token(job, top_repo, src.ev(f"{path}.permissions" if jd.permissions is not None else
                                          "permissions" if wf.permissions is not None else path))

    def _skipped_needs(self, wf: WorkflowFile, events: tuple[str, ...] | None) -> dict[str, str]:
        if (wf.repository, wf.file, events) not in self._skipped:  # once per workflow and run events
            self._skipped[wf.repository, wf.file, events] = skipped_needs(wf.jobs, events)
        return self._skipped[wf.repository, wf.file, events]

    def _never(self, wf: WorkflowFile, jd: JobDef, call: Call, jid: str, perms: dict[str, str],
               perm_source: Any, dep: str | None = None, events: tuple[str, ...] | None = None) -> None:
        """A job whose ``if`` is false in every run, or that needs a job ``dep`` that never runs
        (:attr:`Job.never_runs`): its node, with the evidence of its ``if`` (of its ``needs``), and nothing it
        would reach (no runner, token, OIDC, environment, secret, step or call)."""
        src, path = self.src(wf), f"jobs.{jd.key}"
        never = src.ev(f"{path}.if", never_detail(jd.raw.get("if"), events)) if dep is None else src.ev(
            f"{path}.needs", f"needs {dep}, which never runs")
        job = Job(id=jid, name=jd.name if jd.name and "${{" not in jd.name else jd.key, repository=wf.repository,
                  workflow_path=wf.file, job_key=jd.key, secrets_repository=call.top.repository, permissions=perms,
                  permissions_source=perm_source, caller=call.caller_id, triggers=list(call.top.events),
                  never_runs=never, evidence=[src.ev(path, jd.name)])
        self.out.node(job)
        self.out.edge(EdgeKind.HAS_JOB, ids.workflow(wf.repository, wf.file), jid, job.evidence[0])
        owner_repo, callee_path, _ = uses_target(jd.uses or "")
        callee = self.workflows.get((repo_key(owner_repo or wf.repository), callee_path)) if jd.uses else None
        if callee is not None:  # GitHub validates the call before any job runs, this one skipped or not
            self._missing(callee, jd, src)

    def _over_cap(self, wf: WorkflowFile, jd: JobDef, call: Call) -> None:
        """Record (in :attr:`refused`) a called job whose own block asks for more than its caller grants.

        Under the caller's default permissions only ``id-token: write`` is
        known to exceed them (``id-token`` is never granted by default:
        https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication).
        """
        declared = jd.permissions if jd.permissions is not None else wf.permissions
        if call.caller_id is None or declared is None or (call.cap is None and not call.default_cap):
            return
        cap = call.cap if call.cap is not None else {"id-token": "none"}
        over = [f"{s}: {lvl} (granted {cap.get(s, 'none')})" for s, lvl in sorted(declared.items())
                if lvl in LEVEL and LEVEL[lvl] > LEVEL.get(cap.get(s, "none"), 0) and (call.cap is not None
                                                                                      or s == "id-token")]
        if over and call.call_ev is not None:
            place, where, grant = (f"jobs.{jd.key}.permissions" if jd.permissions is not None else "permissions",
                                   call.call_ev, call.cap_ev)
            granted = f"{grant.file} {grant.yaml_path} (line {grant.line})" if grant else "the caller"
            self.refused.append(self.problem(
                where, where.yaml_path or "", f"called job {wf.file}#{jd.key} asks in {place} (line "
                f"{wf.lines.get(place, '?')}) for {', '.join(over)}, more than {granted} grants: GitHub refuses "
                f"the run, no job of it runs (line {where.line})"))

    def _oidc(self, jid: str, wf: WorkflowFile, jd: JobDef, call: Call, environments: list[str | None],
              src: Src) -> str:
        """The job's OIDC identity (it has ``id-token: write``): the subjects describe the triggering workflow,
        in each of ``environments`` the run may have (None: no environment).

        Evidence: the job's (else its workflow's) ``id-token`` grant; in a
        called workflow without one, the caller's grant that it inherits.
        """
        if jd.permissions is not None:
            ev = src.ev(f"jobs.{jd.key}.permissions.id-token")
        elif wf.permissions is not None or call.cap_ev is None:
            ev = src.ev("permissions.id-token")
        else:
            ev = call.cap_ev
        top_repo = call.top.repository
        oidc_id = self.out.node(OIDCIdentity(
            id=ids.oidc_identity(jid), name=f"OIDC of {jd.key}", repository=top_repo,
            subjects=list(dict.fromkeys(s for env in environments
                                        for s in default_subjects(top_repo, call.top.triggers, env))),
            job_workflow_ref=call.job_workflow_ref, evidence=[ev]))
        # for an unknown caller, minting depends on that caller granting id-token: write
        self.out.edge(EdgeKind.MINTS_OIDC, jid, oidc_id, self.out.nodes[oidc_id].evidence[0],
                      possible=call.unknown_top)
        return oidc_id

    def _environments(self, jid: str, top_repo: str, names: list[Val], src: Src, ev: Evidence) -> None:
        """``deploys_to`` each environment the job may name (environments of the triggering repository)."""
        for name in names:
            try:
                tid = ids.environment(top_repo, name.value)
            except ids.IdError as exc:
                self.problems.append(self.problem(src, ev.yaml_path or "", f"{exc}; environment skipped"))
                continue
            parts = ids.parse(tid).parts
            self.out.node(DeploymentTarget(id=tid, name=f"{top_repo}:{name.value}", target_type="environment",
                                           identifier=f"{parts['repo']}:{parts['environment']}", evidence=[ev]))
            self.out.edge(EdgeKind.DEPLOYS_TO, jid, tid, ev, possible=not name.certain)

    def _token(self, job: Job, repo: str, ev: Evidence) -> None:
        """The job's GITHUB_TOKEN and what it writes in ``repo`` (the run's repository as read, not the Job's
        attribute: that may be a placeholder for a value past ``max_attribute_chars``)."""
        tid = self.out.node(GitHubToken(id=ids.github_token(job.id), name=f"GITHUB_TOKEN of {job.job_key}",
                                        repository=job.secrets_repository, permissions=job.permissions,
                                        permissions_source=job.permissions_source, evidence=[ev]))
        self.out.edge(EdgeKind.HAS_TOKEN, job.id, tid, ev)
        writes = repository_writes(job.permissions)  # only scopes that change code or workflows or start runs
        rid = ids.repository(repo)
        if writes:
            self.out.edge(EdgeKind.WRITES_REPOSITORY, tid, rid, ev, props={"scopes": writes})
        elif maybe := possible_repository_writes(job.permissions):
            self.out.edge(EdgeKind.WRITES_REPOSITORY, tid, rid, ev, possible=True, props={
                "scopes": maybe, "reason": "; ".join(POSSIBLE_REPOSITORY_WRITE_SCOPES.get(
                    s, f"{s}: a scope not documented when graphkit was written") for s in maybe)})
        elif job.permissions_source == "default":
            self.out.edge(EdgeKind.WRITES_REPOSITORY, tid, rid, ev, possible=True,
                          props={"scopes": [], "reason": "default token permissions (repository/org setting)"})

    # ------------------------------------------------------------ reusable workflows
    def _call(self, wf: WorkflowFile, jd: JobDef, src: Src, call: Call, jid: str, perms: tuple[dict[str, str], str],
              ctx: EvalContext, unresolved: Evidence | None,
              all_ev: Evidence | None) -> tuple[Evidence | None, Evidence | None]:
        """Instantiate the called workflow's jobs; returns the caller's ``(runs_on_unresolved, all_secrets)``."""
        path = f"jobs.{jd.key}"
        ev = src.ev(f"{path}.uses", jd.uses)
        owner_repo, callee_path, ref = uses_target(jd.uses or "")
        callee_repo = owner_repo or wf.repository
        key = (repo_key(callee_repo), callee_path)
        callee = self.workflows.get(key)
        # unknown is not empty: an unknown callee's jobs run somewhere with what the caller passes
        unknown = src.ev(f"{path}.uses", f"{jd.uses} (called workflow not ingested)")
        try:
            wid = ids.workflow(callee_repo, callee_path)
        except ids.IdError as exc:
            self.problems.append(self.problem(src, f"{path}.uses", f"{exc}; call not followed"))
            return unresolved or unknown, (all_ev or unknown) if jd.secrets == "inherit" else all_ev
        if callee is None:
            self.out.node(Workflow(id=wid, name=callee_path, repository=callee_repo, path=callee_path, reusable=True,
                                   inferred=True, evidence=[ev]))
            self.out.edge(EdgeKind.CALLS_WORKFLOW, jid, wid, ev, possible=True)
            return unresolved or unknown, (all_ev or unknown) if jd.secrets == "inherit" else all_ev
        self.out.edge(EdgeKind.CALLS_WORKFLOW, jid, wid, ev)
        if key in call.chain:
            self.problems.append(self.problem(src, f"{path}.uses", f"reusable workflow cycle via {jd.uses}"))
            return unresolved, all_ev
        if len(call.chain) >= self.max_levels:
            self.problems.append(self.problem(src, f"{path}.uses", f"more than {self.max_levels} workflow "
                                            "levels; deeper calls not instantiated"))
            return unresolved, all_ev
        self._missing(callee, jd, src)
        if not self._spend(len(callee.jobs), src, f"{path}.uses"):
            return unresolved, all_ev
        same_owner = repo_key(callee_repo).split("/")[0] == repo_key(wf.repository).split("/")[0]
        smap = call.secrets.inherited(same_owner) if jd.secrets == "inherit" else call.secrets.explicit(
            jd.secrets or {}, src, f"{path}.secrets")
        sub = Call(top=call.top, chain=call.chain + (key,), caller_id=jid,
                    inputs=self._call_inputs(callee, jd, ctx), secrets=smap, **self._cap(wf, jd, call, perms, src),
                    call_ev=ev, unknown_top=call.unknown_top, taint=tainted_call(
                        callee, jd.with_args, src, f"{path}.with", call.taint, self.src(callee), ev),
                    condition=combined(call.condition, job_condition(
                        jd, src, path, call.top.events, None if call.unknown_top else call.top.repository)),
                    job_workflow_ref=f"{callee.repository}/{callee.file}@{ref or '*'}")
        for cjd in callee.jobs.values():
            self.job(callee, cjd, sub)
        return unresolved, all_ev

    @staticmethod
    def _cap(wf: WorkflowFile, jd: JobDef, call: Call, perms: tuple[dict[str, str], str], src: Src) -> dict:
        """The permission cap a calling job passes (its effective permissions) and where it is decided."""
        levels, source = perms
        if source == "default" and call.unknown_top:  # no block up to a caller we do not know: cap unknown
            return {"cap": None, "cap_ev": None, "default_cap": False}
        if source == "default":
            return {"cap": None, "cap_ev": src.ev(f"jobs.{jd.key}", "default token permissions"),
                    "default_cap": True}
        if source == "caller":
            return {"cap": levels, "cap_ev": call.cap_ev, "default_cap": False}
        place = f"jobs.{jd.key}.permissions" if source == "job" else "permissions"
        return {"cap": levels, "cap_ev": src.ev(place + ".id-token" if (place + ".id-token") in wf.lines else place),
                "default_cap": False}

    def _missing(self, callee: WorkflowFile, jd: JobDef, src: Src) -> None:
        """Record (in :attr:`refused`) a call without a required input or secret: GitHub refuses the run.
        https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onworkflow_callinputs
        and #onworkflow_callsecrets; ``secrets: inherit`` passes every secret (not checked here)."""
        path = f"jobs.{jd.key}"
        given = {k.lower() for k in jd.with_args}
        missing = [f"input {n}" for n in callee.required_inputs if n.lower() not in given]
        if jd.secrets != "inherit":
            passed = {secret_key(k) for k in (jd.secrets or {})}
            missing += [f"secret {n}" for n, req in callee.call_secrets.items() if req and secret_key(n) not in passed]
        if missing:
            line = src.ev(f"{path}.uses").line
            self.refused.append(self.problem(src, f"{path}.uses", f"calls {callee.file} without required "
                                           f"{', '.join(missing)}: GitHub refuses the run, no job of it runs"
                                           + (f" (line {line})" if line else "")))

    def _matrix_limit(self, matrix: object, src: Src, path: str) -> None:
        """A matrix a caller's inputs make past ``max_matrix_combinations`` is one problem (the source partial):
        what depends on it (a ``runs-on`` naming ``matrix``, a call's inputs) is left unresolved, the rest of the
        job is read as usual."""
        reason = matrix_limit_reason(matrix)
        if reason is not None:
            line = src.ev(f"{path}.strategy.matrix").line
            p = InputError(f"{src.repository}/{src.file}", f"{path}.strategy.matrix", reason + MATRIX_LIMIT_EFFECT
                           + " (from the caller's inputs" + (f"; line {line})" if line else ")"))
            if p not in self.problems:
                self.problems.append(p)

    def _call_inputs(self, callee: WorkflowFile, jd: JobDef, ctx: EvalContext) -> dict[str, list[Val] | None]:
        """The callee's inputs: what the caller passes (over its matrix), else the default, else ``""``."""
        given = {k.lower(): v for k, v in jd.with_args.items()}
        combos = expand_matrix(jd.matrix) if jd.matrix is not None else [{}]
        return {name.lower(): self._input(given.get(name.lower(), default), jd, combos, ctx)
                for name, default in callee.call_inputs.items()}

    @staticmethod
    def _input(raw: object, jd: JobDef, combos: list[dict] | None, ctx: EvalContext) -> list[Val] | None:
        if raw is None:
            return [Val("", True)]
        vals: list[Val] = []
        for combo in combos or [None]:
            sub = EvalContext(matrix=combo if jd.matrix is not None else None, inputs=ctx.inputs, env=ctx.env,
                              steps={})
            r, pattern = resolve(raw, sub)
            if pattern is not None:
                return None
            vals += [v for v in r if v not in vals]
        if len({json.dumps(jsonable(v.value)) for v in vals}) > 1:  # differs between instances: each is possible
            vals = [Val(v.value, False) for v in vals]
        return vals

    # ------------------------------------------------------------ steps and composite actions
    def _steps(self, steps: Sequence[Step], src: Src, ctx: EvalContext, state: JobState, subst: dict[str, str],
               depth: int, seen: tuple[str, ...], scope: Scope) -> None:
        for step in steps:
            if step.condition is not None and never_runs(step.condition, scope.run_events):
                continue  # a step that never runs (in a run of the workflow's events) reaches nothing
            sv = StepView(step=step, src=src, ctx=EvalContext(matrix=ctx.matrix, inputs=ctx.inputs,
                                                                env={**ctx.env, **step.env}, steps=ctx.steps),
                          job=state, subst=subst)
            self._apply_rules(sv)
            if sv.action is None:
                continue
            if sv.action == "actions/checkout":
                self._record_checkout(sv)
            composite = self._find_action(step.uses or "", state)
            if composite is not None and composite.steps and depth < self.max_composite and composite.file not in seen \
                    and self._spend(len(composite.steps), src, f"{step.path}.uses"):
                self._composite(sv, composite, ctx, depth, seen, scope)

    def _spend(self, n: int, src: Src, place: str) -> bool:
        """Take ``n`` jobs or steps from the expansion budget; past it, one problem and no more instantiation."""
        self.budget -= n
        if self.budget >= 0:
            return True
        if not self.over_budget:
            self.over_budget = True
            lim = limits.current().max_call_fanout
            self.problems.append(self.problem(src, place, limits.too_many(
                "max_call_fanout", lim, f"more than {lim} jobs and steps instantiated through reusable workflows "
                "and composite actions") + "; further calls not instantiated"))
        return False

    def _apply_rules(self, sv: StepView) -> None:
        """The step rules of one step, all or nothing: an id that cannot be built drops the step's additions."""
        grants, registries = len(sv.job.grants), len(sv.job.registries)
        try:
            apply_step_rules(sv)
        except ids.IdError as exc:
            del sv.job.grants[grants:], sv.job.registries[registries:]
            self.problems.append(self.problem(sv.src, sv.step.path, f"{exc}; step not analysed"))
            return
        self.out.update(sv.out)

    def _composite(self, sv: StepView, action: ActionFile, ctx: EvalContext, depth: int,
                   seen: tuple[str, ...], scope: Scope) -> None:
        """Run a composite action's steps in the job, with the inputs the step passes (else their defaults), and
        record those that run pull request code (:func:`.untrusted.composite_code`)."""
        subst = {name.lower(): scalar_text(default) for name, default in action.inputs.items() if default is not None}
        subst.update({k.lower(): sv.arg(k) or "" for k in sv.step.with_args})
        cctx = EvalContext(inputs={k: (resolve(v, sv.ctx)[0] or None) for k, v in subst.items()},
                           env=sv.ctx.env, steps=ctx.steps)
        found, inner = composite_code(action, self.src(action), sv.step, sv.src, scope)
        sv.job.untrusted += found
        self._steps(action.steps, self.src(action), cctx, sv.job, subst,
                    depth + 1, seen + (action.repository + ":" + action.file,), inner)

    def _record_checkout(self, sv: StepView) -> None:
        repo, path = sv.arg("repository"), sv.arg("path")
        if path and "${{" not in path:
            target = repo_key(repo) if repo and "${{" not in repo else sv.job.rk
            sv.job.checkouts[posixpath.normpath(path)] = target

    def _find_action(self, uses: str, state: JobState) -> ActionFile | None:
        owner_repo, path, _ = uses_target(uses)
        if owner_repo is not None:
            return self.actions.get((repo_key(owner_repo), path))
        path = "" if path == "." else path
        for prefix, rk in state.checkouts.items():
            if prefix != "." and (path == prefix or path.startswith(prefix + "/")):
                return self.actions.get((rk, path[len(prefix):].strip("/")))
        return self.actions.get((state.rk, path))


def to_graph(files: Sequence[WorkflowFile | ActionFile], *, repositories: Iterable[str] = (),
             max_levels: int | None = None, named: Mapping[tuple[str, str], str] | None = None) -> IngestResult:
    """Turn parsed files of one or more checkouts into nodes and edges (pure).

    Reusable workflows and actions are resolved among ``files`` only; a called
    workflow that is not among them becomes an inferred :class:`Workflow` node
    and its caller job is marked ``runs_on_unresolved`` (its jobs run
    somewhere, with what the caller passes).

    Parameters
    ----------
    files
        parsed workflows and actions (their ``repository`` decides ownership).
    repositories
        repository names to create even without files (``owner/name``).
    max_levels
        workflow levels instantiated (top-level caller included); default: the
        ``max_call_depth`` limit (:mod:`graphkit.limits`, default
        :data:`MAX_WORKFLOW_LEVELS`), which also bounds nested composite
        actions; ``max_call_fanout`` bounds the jobs and steps instantiated
        through calls.
    named
        ``(repository, file) -> input path``: how the problems found while building name a file, as the parse
        problems do (default, and for a file not in it: ``OWNER/REPO:file``).

    Returns
    -------
    IngestResult
        ``graph`` and ``problems``: the ``problems`` of every file, then
        values no id can hold (a repository that is not ``owner/name``, a job
        key with ``#``...: that part is skipped), reusable workflow cycles,
        depth overflow, and runs GitHub refuses (their jobs are left out).
        ``items`` is 0.
    """
    b = _Builder(files, limits.current().max_call_depth if max_levels is None else max_levels, named)
    for name in repositories:
        try:
            b.repository(name, Evidence(file=".", repository=name, detail="checkout"))
        except ids.IdError as exc:
            b.problems.append(InputError(name, "", f"{exc}; repository skipped"))
    for f in files:  # every action read is on its repository, used by an ingested workflow or not
        if isinstance(f, ActionFile):
            try:
                b.repository(f.repository, b.src(f).ev("", f"{f.using or '?'} action {f.name or f.directory or '.'}"))
            except ids.IdError as exc:
                b.problems.append(b.problem(f, "", f"{exc}; action skipped"))
    b.run()
    b.literal_credentials(files)
    parse_problems = [p for f in files for p in f.problems]  # skipped jobs/steps: incomplete, say so
    return IngestResult(graph=b.out, problems=parse_problems + b.problems)
