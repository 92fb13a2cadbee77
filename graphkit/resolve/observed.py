"""Join what the platform saw (``graph.meta.history``) to the graph: observed runs and runner registrations.

Each observed job (GitHub REST job history, :class:`~graphkit.model.ObservedRun`) becomes a ``ran_job`` edge
``runner -> job`` (key: GitHub's job id; props: run id, attempt, event, actor, head ref, time window;
evidence: the API object and file), joined as follows:

- **The job**: the workflow job of the run's repository and workflow ``path`` whose display name GitHub reports
  as the job ``name`` (https://docs.github.com/en/rest/actions/workflow-jobs).  GitHub names a job by its
  ``name:`` (else its key); a matrix instance gets its matrix values in parentheses (``build (ubuntu, 3.11)``,
  GitHub docs "Running variations of jobs in a workflow",
  https://docs.github.com/en/actions/how-tos/write-workflows/choose-what-workflows-do/run-job-variations);
  a job of a called workflow is ``caller / called`` (GitHub docs "Reuse workflows",
  https://docs.github.com/en/actions/how-tos/reuse-automations/reuse-workflows).  A ``name:`` holding
  ``${{ }}`` expressions matches with each expression as a wildcard.  A job that matches no workflow job
  (workflow not in the checkouts, renamed job, a dynamic name) is kept as a job node of its own
  (:func:`graphkit.model.ids.job_observed`) whose secrets are unknown: it may have read any secret its
  repository sees (``all_secrets``, resolved ``possible`` by :mod:`graphkit.resolve.secrets`).
- **The runner**: the registration named ``runner_name`` of the repository, else of its owner.  A run on a
  runner no source lists still creates that runner (a platform-side sighting: ``seen_in_history``, labels at
  least those the job asked for, scope the repository when a ``repo.register_self_hosted_runner`` event names
  it, else the owner).  Runs on GitHub-hosted runners (group ``GitHub Actions``, or hosted labels only) and
  jobs no runner picked up are not linked.

Runner registrations and removals of the audit logs read become ``Runner.platform_events`` (who, when, from
where); a registration of a runner no source lists creates it too.  Runners of an organization whose audit log
was read get ``platform_events = []`` when it holds none for them (known: none in the window).
"""

from __future__ import annotations

import re
from collections import defaultdict

from graphkit.graph import Graph
from graphkit.hosted import is_self_hosted
from graphkit.meta import HistoryFacts
from graphkit.model import Confidence, Edge, EdgeKind, Evidence, Job, NodeKind, ObservedRun, Runner, RunnerEvent, ids
from graphkit.model.ids import owner_key, repo_key
from graphkit.resolve.context import nodes_of_kind
from graphkit.resolve.routing import top_level_workflow

__all__ = ["link_observed", "name_matches", "HOSTED_GROUP"]

#: The runner group of GitHub-hosted runners as the job history names it (``runner_group_name``).
HOSTED_GROUP = "github actions"
#: a ``${{ }}`` expression, ended by the first ``}}`` outside a single-quoted string literal (as
#: :data:`ingest.github_actions.expressions.EXPRESSION_PATTERN`: ``format('{{0}}', x)`` is one expression)
_EXPR = re.compile(r"\$\{\{(?:(?:[^'}]|\}(?!\})|(?>'(?:[^']|'')*'))*?|.*?)\}\}", re.DOTALL)


def _names(job: Job) -> list[str]:
    """The names GitHub may show for ``job``: its name, its key, and a ``name:`` template from its evidence."""
    out = [job.name, job.job_key]
    out += [e.detail for e in job.evidence if e.detail and "${{" in e.detail]
    return out


def name_matches(observed: str, written: str) -> bool:
    """Whether GitHub's job ``name`` ``observed`` is a run of a job named ``written`` (its ``name:`` or key).

    Equal, or equal once a matrix suffix `` (a, b)`` is removed, or matching a ``name:`` whose ``${{ }}``
    expressions stand for anything.

    >>> name_matches("build (ubuntu-latest, 3.11)", "build"), name_matches("Test on linux", "Test on ${{ matrix.os }}")
    (True, True)
    >>> name_matches("build-docs", "build")
    False
    """
    if observed == written:
        return True
    base = observed[:observed.rfind(" (")] if observed.endswith(")") and " (" in observed else None
    if base is not None and base == written:
        return True
    if "${{" in written:
        pattern = ".*".join(re.escape(p) for p in _EXPR.split(written))
        return re.fullmatch(pattern, observed, re.S) is not None
    return False


class _Jobs:
    """Workflow jobs by the (repository, workflow path) of the run that starts them."""

    def __init__(self, graph: Graph) -> None:
        self.by_workflow: dict[tuple[str, str], list[Job]] = defaultdict(list)
        for j in nodes_of_kind(graph, NodeKind.JOB):
            if isinstance(j, Job) and ids.parse(j.id).form != "observed":
                top = top_level_workflow(j.id)
                if top is not None:
                    self.by_workflow[top].append(j)

    def find(self, run: ObservedRun) -> list[Job]:
        """The workflow jobs ``run`` is a run of (several for a called workflow's jobs)."""
        if run.workflow_path is None:
            return []
        jobs = self.by_workflow.get((repo_key(run.repository), run.workflow_path), [])
        caller, sep, called = run.name.partition(" / ")
        found = []
        for j in sorted(jobs, key=lambda x: x.id):
            if j.caller is None:
                ok = any(name_matches(run.name, n) for n in _names(j))
            else:  # a called workflow's job: "caller name / called name"
                parent = next((c for c in jobs if c.id == j.caller), None)
                ok = bool(sep) and parent is not None and any(name_matches(caller, n) for n in _names(parent)) \
                    and any(name_matches(called, n) for n in _names(j))
            if ok:
                found.append(j)
        return found


def _observed_job(graph: Graph, run: ObservedRun) -> str:
    """A job node of its own for a run that matches no workflow job; its id."""
    path = run.workflow_path or run.workflow_name or "unknown workflow"
    jid = ids.job_observed(run.repository, path, run.name)
    ev = Evidence(file=run.evidence.file, yaml_path=run.evidence.yaml_path,
                  detail="observed job matching no workflow job of the checkouts: what it received is unknown")
    graph.add_node(Job(id=jid, name=run.name, repository=run.repository, workflow_path=path, job_key=run.name,
                       secrets_repository=run.repository, all_secrets=ev, evidence=[run.evidence]))
    return jid


def _hosted(run: ObservedRun) -> bool:
    if (run.runner_group_name or "").strip().lower() == HOSTED_GROUP:
        return True
    return bool(run.labels) and not is_self_hosted(run.labels)


def _runner_scope(run_repo: str, name: str, events: list[RunnerEvent]) -> str:
    for e in events:
        if e.runner_name == name and "/" in e.scope and repo_key(e.scope) == repo_key(run_repo):
            return e.scope
    return run_repo.split("/", 1)[0]


def _runner(graph: Graph, repo: str, name: str, ev: Evidence, *, labels: tuple[str, ...] = (),
            group: str | None = None, events: list[RunnerEvent] = ()) -> str:  # type: ignore[assignment]
    """The runner registration ``name`` of ``repo`` or its owner; a sighting is created when none exists."""
    for scope in (repo, repo.split("/", 1)[0]):
        rid = ids.runner(scope, name)
        if rid in graph:
            return rid
    scope = _runner_scope(repo, name, list(events))
    rid = ids.runner(scope, name)
    graph.add_node(Runner(id=rid, name=name, scope=scope.lower() if "/" not in scope else repo_key(scope),
                          labels=sorted({*labels, "self-hosted"}) if labels else [], runner_group=group,
                          evidence=[ev]))
    return rid


def _link_runs(graph: Graph, facts: HistoryFacts) -> None:
    jobs = _Jobs(graph)
    seen: set[str] = set()
    for run in facts.runs:
        if not run.runner_name or _hosted(run):
            continue
        try:
            rid = _runner(graph, run.repository, run.runner_name, run.evidence, labels=run.labels,
                          group=run.runner_group_name, events=facts.events)
            targets = [j.id for j in jobs.find(run)] or [_observed_job(graph, run)]
        except ids.IdError as exc:
            graph.meta.problems.append(_problem(run.evidence, f"job not linked: {exc}"))
            continue
        seen.add(rid)
        for jid in targets:
            graph.add_edge(Edge(kind=EdgeKind.RAN_JOB, source=rid, target=jid, key=str(run.job_id),
                                evidence=[run.evidence], confidence=Confidence.CERTAIN, props=run.props()))
    for rid in sorted(seen):
        node = graph.node(rid)
        graph.replace_node(node.model_copy(update={"seen_in_history": True}))


def _link_events(graph: Graph, facts: HistoryFacts) -> None:
    by_runner: dict[str, list[RunnerEvent]] = defaultdict(list)
    for e in facts.events:
        if not e.runner_name:
            continue
        try:
            rid = ids.runner(e.scope, e.runner_name)
        except ids.IdError as exc:
            graph.meta.problems.append(_problem(e.evidence, f"event not linked: {exc}"))
            continue
        if rid not in graph and e.registers:
            graph.add_node(Runner(id=rid, name=e.runner_name, scope=e.scope.lower(), labels=list(e.labels),
                                  runner_group=e.runner_group_name, evidence=[e.evidence]))
        if rid in graph:
            by_runner[rid].append(e)
    audited = {owner_key(o) for o in facts.audit_logs}
    for r in list(nodes_of_kind(graph, NodeKind.RUNNER)):
        if not isinstance(r, Runner) or r.inferred:
            continue
        events = by_runner.get(r.id)
        if events is None and owner_key(r.scope.split("/", 1)[0]) not in audited:
            continue  # no audit log read for its owner: unknown, never "no event"
        graph.replace_node(r.model_copy(update={"platform_events": list(events or [])}))


def _problem(ev: Evidence, reason: str):  # noqa: ANN202 - graphkit.meta.Problem
    from graphkit.meta import Problem
    return Problem(file=ev.file, place=ev.yaml_path or "", reason=reason)


def link_observed(graph: Graph) -> None:
    """Add ``ran_job`` edges, observed jobs and runner sightings, and runner audit events (module docstring).

    Parameters
    ----------
    graph : Graph
        The merged graph; ``graph.meta.history`` (None: nothing to do).

    Returns
    -------
    None
        ``graph`` is changed in place.  Idempotent.
    """
    facts = graph.meta.history
    if facts is None:
        return
    _link_events(graph, facts)
    _link_runs(graph, facts)
