"""Parsed GitLab configuration files -> nodes and edges (pure).

Per project: a repository node (``repo:gitlab:{project}``), its pipeline configuration (a workflow node,
``has_workflow``), each job of the merged pipeline (``has_job``; hidden jobs are templates and make no node),
and what a job requests:

- ``secrets:`` -> ``reads_secret`` to a cloud secret node of the provider (``cloud_secret:vault:...``), props
  ``variable``, ``token`` (the ID token it authenticates with), ``field``;
- ``id_tokens`` -> ``mints_oidc`` to the job's OIDC identity (one per job, key = token name, props ``aud``):
  ``iss`` is the instance URL, ``sub`` candidates ``project_path:{project}:ref_type:{branch|tag}:ref:{ref}``
  for the refs the job runs on (``*`` for any ref; GitLab docs "OpenID Connect (OIDC) authentication using ID
  tokens", https://docs.gitlab.com/ci/secrets/id_token_authentication/#token-payload);
- ``environment`` with ``action: start`` (the default) -> ``deploys_to`` its environment
  (``target:environment:gitlab:{project}:{name}``; ``production`` when ``deployment_tier: production``).

A child pipeline (``trigger: include: local``) is a pipeline of its own (``calls_workflow`` from its trigger job)
whose jobs' triggers include the trigger job's conditions (:class:`_Parents`); a dynamic one (``artifact:``) is a
stand-in job ``*`` (:func:`_generated`).

CI/CD variables of the project, groups and instance are not linked here: they reach every job (subject to
protected refs and environment scope), decided by the variable inventory.  An edge is ``possible`` when the
job itself may not run (every trigger ``possible``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from graphkit.errors import InputError
from graphkit.graph import GraphBuilder
from graphkit.ingestor import IngestResult
from graphkit.model import (CloudSecret, Confidence, DeploymentTarget, Edge, EdgeKind, GitLabJob, GitLabVariable, Job,
                            OIDCIdentity, Repository, Workflow, ids)

from .collect import ROOT_FILE, local_targets
from .inputs import instances, with_inputs
from .conditions import Conditions, reduce_triggers
from .jobs import (child_files, forwarded_variables, generated_children, global_variables, instance_host,
                   job_conditions, job_facts, workflow_shape)
from .merge import Pipeline, ResolvedJob, assemble
from .models import CIFile

__all__ = ["to_graph", "oidc_subjects"]


def oidc_subjects(facts: GitLabJob) -> list[str]:
    """The ``sub`` claims the job's ID tokens can carry: ``project_path:{project}:ref_type:{branch|tag}:ref:{ref}``
    per ref it runs on (a merge request pipeline's ref is its source branch).  ``*`` stands for any ref, and for
    a ref known only as a ``/regex/`` or as the default branch (``$CI_DEFAULT_BRANCH``: its name is not in the
    file); the exact refs are in the job's triggers.

    >>> from graphkit.model import Evidence, GitLabJob, GitLabTrigger
    >>> ev = Evidence(file=".gitlab-ci.yml")
    >>> t = [GitLabTrigger(ref_type="tag", sources=("push",), refs=("v1", "/^v2/"), evidence=ev)]
    >>> oidc_subjects(GitLabJob(project="g/p", config_file="c", file="c", name="j", triggers=t, evidence=ev))
    ['project_path:g/p:ref_type:tag:ref:*', 'project_path:g/p:ref_type:tag:ref:v1']
    """
    out: list[str] = []
    for t in facts.triggers:
        ref_type = "tag" if t.ref_type == "tag" else "branch"
        for ref in t.refs if t.refs is not None else ("*",):
            literal = not ref.startswith(("/", "$"))
            out.append(f"project_path:{facts.project}:ref_type:{ref_type}:ref:{ref if literal else '*'}")
    return sorted(dict.fromkeys(out))


def _confidence(facts: GitLabJob) -> Confidence:
    certain = any(t.confidence is Confidence.CERTAIN for t in facts.triggers)
    return Confidence.CERTAIN if certain else Confidence.POSSIBLE


def _weakest(a: Confidence, b: Confidence) -> Confidence:
    return Confidence.POSSIBLE if Confidence.POSSIBLE in (a, b) else Confidence.CERTAIN


def _job(b: GraphBuilder, pipeline: Pipeline, facts: GitLabJob, wf_id: str, pending: list[Edge]) -> None:
    project = facts.project
    jid = ids.gitlab_job(project, facts.config_file, facts.name)
    env = facts.environment
    b.node(Job(id=jid, name=f"{project}: {facts.name}", repository=project, workflow_path=facts.config_file,
                   job_key=facts.name, secrets_repository=project, environment=env.name if env else None,
                   platform="gitlab", gitlab=facts, evidence=[facts.evidence]))
    b.add_edge(Edge(kind=EdgeKind.HAS_JOB, source=wf_id, target=jid, evidence=[facts.evidence]))
    for child in facts.child_pipelines:  # to the child's workflow node, once every pipeline is read (to_graph)
        pending.append(Edge(kind=EdgeKind.CALLS_WORKFLOW, source=jid, target=ids.gitlab_pipeline(project, child),
                        evidence=[facts.evidence], props={"child_pipeline": True}))
    conf = _confidence(facts)
    for s in facts.secrets:
        sid = ids.external_secret(s.provider, s.path)
        b.node(CloudSecret(id=sid, name=f"{s.provider} {s.path}", service=s.provider, resource=s.path,
                               evidence=[s.evidence]))
        b.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=jid, target=sid, key=s.name, evidence=[s.evidence],
                        confidence=_weakest(conf, s.confidence), props={"variable": s.name, "token": s.token, "field": s.field}))
    if facts.id_tokens:
        oid = ids.oidc_identity(jid)
        b.node(OIDCIdentity(id=oid, name=f"OIDC {project}: {facts.name}", issuer=pipeline.root.project.instance,
                                repository=project, subjects=oidc_subjects(facts),
                                evidence=[t.evidence for t in facts.id_tokens]))
        for t in facts.id_tokens:
            b.add_edge(Edge(kind=EdgeKind.MINTS_OIDC, source=jid, target=oid, key=t.name, evidence=[t.evidence],
                            confidence=_weakest(conf, t.confidence), props={"token": t.name, "aud": list(t.aud)}))
    if env is not None and env.action == "start":
        tid = ids.gitlab_environment(project, env.name)
        b.node(DeploymentTarget(id=tid, name=f"{project} environment {env.name}", target_type="environment",
                                    identifier=f"{project}:{env.name}",
                                    production=True if env.deployment_tier == "production" else None,
                                    evidence=[env.evidence]))
        b.add_edge(Edge(kind=EdgeKind.DEPLOYS_TO, source=jid, target=tid, evidence=[env.evidence], confidence=conf,
                        props={"deployment_tier": env.deployment_tier, "dynamic": env.dynamic}))


class _Parents:
    """The conditions of the trigger jobs that start each child pipeline of a project (a child pipeline runs only
    where one of its trigger jobs runs, https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#parent-child-pipelines;
    nested children through their own trigger jobs; a cycle of trigger includes is cut where it closes)."""

    def __init__(self, pipelines: list[Pipeline]) -> None:
        self.by_file = {p.root.file: p for p in pipelines}
        self.started_by: dict[str, list[tuple[Pipeline, ResolvedJob]]] = {}
        for p in pipelines:
            for job in p.jobs:
                for child in dict.fromkeys(child_files(job)):
                    if child in self.by_file and child != ROOT_FILE:
                        self.started_by.setdefault(child, []).append((p, job))
        self.memo: dict[str, dict[str, Conditions]] = {}

    def of(self, pipeline: Pipeline, stack: tuple[str, ...] = ()) -> tuple[Conditions, ...]:
        """The trigger jobs' conditions of ``pipeline`` (``()`` for the root pipeline)."""
        if not pipeline.child:
            return ()
        out = []
        for parent, job in self.started_by.get(pipeline.root.file, []):
            if parent.root.file in (*stack, pipeline.root.file):
                continue
            out.append(self.jobs(parent, (*stack, pipeline.root.file))[job.name])
        return tuple(out)

    def forwarded(self, pipeline: Pipeline) -> tuple[GitLabVariable, ...]:
        """The variables the trigger jobs of a child pipeline pass on (:func:`~.jobs.forwarded_variables`)."""
        if not pipeline.child:
            return ()
        return tuple(v for parent, job in self.started_by.get(pipeline.root.file, [])
                     for v in forwarded_variables(job, parent))

    def jobs(self, pipeline: Pipeline, stack: tuple[str, ...] = ()) -> dict[str, Conditions]:
        """The conditions of every job of ``pipeline`` (name -> :class:`Conditions`), its trigger jobs' included."""
        key = pipeline.root.file
        if key not in self.memo:
            parents = self.of(pipeline, stack)
            unknown = workflow_shape(pipeline, [])
            self.memo[key] = {j.name: job_conditions(j, pipeline, [], unknown, parents) for j in pipeline.jobs}
        return self.memo[key]


def _generated(b: GraphBuilder, pipeline: Pipeline, job: ResolvedJob, parents: _Parents, rid: str) -> None:
    """A stand-in job for each dynamic child pipeline of ``job`` (``trigger: include: - artifact:``,
    https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#dynamic-child-pipelines): its configuration is
    generated at run time, so its jobs are unknown, never none: one job ``*`` (``GitLabJob.generated``) whose
    conditions are unknown and bounded by the trigger job's, in a pipeline node named after the artifact."""
    project = pipeline.root.project.path
    for name, path in generated_children(job):
        ev = job.origin("trigger").evidence("trigger", detail=f"dynamic child pipeline: artifact {path}")
        cond = Conditions(rules=None, only=None, except_=None, when="on_success", workflow=None, evidence=ev,
                          child=True, unknown=True, parents=(parents.jobs(pipeline)[job.name],),
                          project=project if pipeline.root.project.known else None)
        facts = GitLabJob(project=project, config_file=name, file=job.home.file.file, name="*", generated=True,
                          instance=instance_host(pipeline),
                          triggers=reduce_triggers(cond), config_unresolved=(f"artifact: {path}",), evidence=ev)
        wf_id = ids.gitlab_pipeline(project, name)
        b.node(Workflow(id=wf_id, name=f"{project} {name}", repository=project, path=name, platform="gitlab",
                        evidence=[ev]))
        b.add_edge(Edge(kind=EdgeKind.HAS_WORKFLOW, source=rid, target=wf_id, evidence=[ev]))
        jid = ids.gitlab_job(project, name, "*")
        b.node(Job(id=jid, name=f"{project}: jobs generated at run time ({path})", repository=project,
                   workflow_path=name, job_key="*", secrets_repository=project, platform="gitlab", gitlab=facts,
                   evidence=[ev]))
        b.add_edge(Edge(kind=EdgeKind.HAS_JOB, source=wf_id, target=jid, evidence=[ev]))
        oid = ids.oidc_identity(jid)  # it may request an ID token with any aud (graphkit.resolve.gitlab_oidc)
        b.node(OIDCIdentity(id=oid, name=f"OIDC {project}: jobs generated at run time ({path})",
                            issuer=pipeline.root.project.instance, repository=project, subjects=oidc_subjects(facts),
                            evidence=[ev]))
        b.add_edge(Edge(kind=EdgeKind.MINTS_OIDC, source=jid, target=oid, key="*", evidence=[ev],
                        confidence=Confidence.POSSIBLE, props={"token": "*", "aud": [], "generated": True}))


def _pipeline(b: GraphBuilder, pipeline: Pipeline, problems: list[InputError], pending: list[Edge],
              parents: _Parents) -> None:
    root = pipeline.root
    project = root.project.path
    rid = ids.gitlab_project(project)
    ev = root.evidence("")
    b.node(Repository(id=rid, name=project, full_name=project, platform="gitlab", evidence=[ev]))
    wf_id = ids.gitlab_pipeline(project, root.file)
    b.node(Workflow(id=wf_id, name=f"{project} {root.file}", repository=project, path=root.file,
                        platform="gitlab", evidence=[ev]))
    b.add_edge(Edge(kind=EdgeKind.HAS_WORKFLOW, source=rid, target=wf_id, evidence=[ev]))
    globals_ = global_variables(pipeline, problems)
    wf_unknown = workflow_shape(pipeline, problems)
    bounds = parents.of(pipeline)
    forwarded = parents.forwarded(pipeline)
    for job in pipeline.jobs:
        ev = job.home.evidence()
        try:
            _job(b, pipeline, job_facts(job, pipeline, problems, globals_, wf_unknown, bounds, forwarded), wf_id,
                 pending)
            _generated(b, pipeline, job, parents, rid)
        except ids.IdError as exc:
            problems.append(InputError(ev.file, ev.yaml_path or "", f"{exc} (line {ev.line})"))
        except Exception as exc:  # noqa: BLE001 - a defect on one job never loses the others
            problems.append(InputError(ev.file, ev.yaml_path or "", f"job left out (internal error "
                                       f"{type(exc).__name__}; please report it) (line {ev.line})"))


def to_graph(parsed: Sequence[CIFile]) -> IngestResult:
    """Every project's pipeline (its root ``.gitlab-ci.yml`` and the local files it includes) -> graph part.

    Problems (named by file, YAML path and line): what merging left out (a missing ``extends`` parent, a
    dangling ``!reference``...), keywords of the wrong shape, values that cannot be part of an id.
    """
    result = IngestResult()
    by_project: dict[tuple[str, str], list[CIFile]] = {}
    for f in parsed:
        by_project.setdefault((f.project.path, f.project.instance), []).append(f)
    pending: list[Edge] = []
    for files in by_project.values():
        pipelines = [assemble(root, files, child=child) for root, child in _roots(files)]
        parents = _Parents(pipelines)
        for pipeline in pipelines:
            result.problems += _one(result.graph, pipeline, files, pending, parents)
    for edge in pending:  # a child pipeline whose file was not read has no node: its include is a problem
        if edge.target in result.graph:
            result.graph.add_edge(edge)
    return result


def _roots(files: list[CIFile]) -> list[tuple[CIFile, bool]]:
    """The project's root configuration, then the child pipelines' (``trigger: include: local``), each read with
    the ``inputs`` its trigger jobs give it (https://docs.gitlab.com/ci/yaml/#triggerinclude and
    https://docs.gitlab.com/ci/inputs/): one set of inputs, or the file's defaults when its trigger jobs give it
    different ones (a child file is one pipeline node)."""
    by_name = {f.file: f for f in files}
    if ROOT_FILE not in by_name:
        return []
    given: dict[str, list] = {}
    for f in instances(files):
        for inc in f.children:
            if inc.kind == "local":
                for t in local_targets(inc, list(by_name)):
                    given.setdefault(t, []).append(inc.inputs)
    out = [(by_name[ROOT_FILE], False)]
    for c in sorted(set(given) - {ROOT_FILE}):
        distinct = {json.dumps(i, sort_keys=True, default=str) for i in given[c]}
        out.append((with_inputs(by_name[c], given[c][0] if len(distinct) == 1 else None), True))
    return out


def _one(b: GraphBuilder, pipeline: Pipeline, files: list[CIFile], pending: list[Edge],
         parents: _Parents) -> list[InputError]:
    """One pipeline into ``b`` (``parents``: the project's trigger jobs' conditions); its problems, named by the
    files' locations."""
    root = pipeline.root
    problems = list(pipeline.problems)
    try:
        _pipeline(b, pipeline, problems, pending, parents)
    except ids.IdError as exc:
        problems.append(InputError(root.file, "", str(exc)))
    where = {f.file: f.location or f.file for f in files}
    return [InputError(where.get(p.file, p.file), p.place, p.reason) for p in problems]
