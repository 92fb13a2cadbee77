"""``untrusted-path-to-self-hosted-runner``: people who are not trusted can run code on a self-hosted runner.

A fork pull request's code runs on the runners a ``pull_request`` job can use
(``fork-pr -> runner``), and a privileged job that builds pull request code
(``pull_request_target``, ``workflow_run``, ``issue_comment``: ``fork-pr`` or
``comment -> job``) runs it on every runner that receives the job.  On a
self-hosted runner that code can persist and take every later job (GitHub
docs "Security hardening for GitHub Actions", self-hosted runners: "should
almost never be used for public repositories",
https://docs.github.com/en/actions/reference/security/secure-use#hardening-for-self-hosted-runners).
One finding per (untrusted source, runner), naming the path; ``critical``
for a persistent (or unknown) runner, ``high`` for an ephemeral one, one step
lower (and ``possible``) when the route to the runner is that of a called
workflow not in the input (edge prop ``called_workflow_unread``,
:func:`graphkit.resolve.routing.unread_callee`): only that workflow's
``runs-on`` would send the job there.  The
``org-member`` source (writers) is left out: every writer reaches the
runners of the jobs they can change, by design.  Entry points:
:mod:`graphkit.resolve.untrusted`.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Confidence, Edge, EdgeKind, NodeKind, Runner, UntrustedActor
from graphkit.resolve.untrusted import outside_entries

__all__ = ["untrusted_path_to_runner"]


def _paths(graph: Graph) -> dict[tuple[str, str], tuple[list[str], list[Edge]]]:
    """(actor id, runner id) -> (path of node ids, its edges): a ``certain`` path over a ``possible`` one, then
    the shortest."""
    out: dict[tuple[str, str], tuple[list[str], list[Edge]]] = {}

    def keep(actor: str, runner: str, path: list[str], edges: list[Edge]) -> None:
        def rank(es: list[Edge]) -> tuple[bool, int]:
            return any(e.confidence is not Confidence.CERTAIN for e in es), len(es)

        old = out.get((actor, runner))
        if old is None or rank(edges) < rank(old[1]):
            out[(actor, runner)] = (path, edges)

    for actor, e in outside_entries(graph):
        if graph.node(e.target).spec.kind is NodeKind.RUNNER:
            keep(actor.id, e.target, [actor.id, e.target], [e])
            continue
        for r in sorted(graph.in_edges(e.target), key=lambda x: x.source):
            if r.kind is EdgeKind.RECEIVES_JOB:
                keep(actor.id, r.source, [actor.id, e.target, r.source], [e, r])
    return out


@rule("untrusted-path-to-self-hosted-runner", title="Untrusted people can run code on a self-hosted runner",
      description="A fork pull request or a comment makes a job run code its author controls on a self-hosted "
      "runner: a fork pull_request run, or a pull_request_target / workflow_run / issue_comment job that builds "
      "the pull request. The code can persist on the runner and take every later job routed to it.",
      help_uri="https://docs.github.com/en/actions/reference/security/secure-use#hardening-for-self-hosted-runners",
      severity=Severity.CRITICAL,
      remediation="Keep public repositories off self-hosted runner groups (allows_public_repositories: false), "
      "require approval of fork workflows for all external contributors, never build pull request code in "
      "privileged events, and use ephemeral runners on fresh machines.")
def untrusted_path_to_runner(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    for (actor_id, runner_id), (path, edges) in sorted(_paths(graph).items()):
        actor = graph.node(actor_id)
        assert isinstance(actor, UntrustedActor)
        runner = graph.node(runner_id)
        assert isinstance(runner, Runner)
        ephemeral = runner.ephemeral is True
        certain = all(e.confidence is Confidence.CERTAIN for e in edges)
        unread = sorted({str(e.props["called_workflow_unread"]) for e in edges if e.props.get("called_workflow_unread")})
        severity = Severity.HIGH if ephemeral else Severity.CRITICAL
        if unread:  # the route exists only if a workflow nobody read asks for this runner: one step lower
            severity = Severity.MEDIUM if ephemeral else Severity.HIGH
        note = f"; only if the called workflow {', '.join(unread)} (not read) runs on it" if unread else ""
        yield untrusted_path_to_runner.finding(
            actor.id, runner_id, subject=runner_id, related=path[:-1], severity=severity,
            confidence=Confidence.CERTAIN if certain else Confidence.POSSIBLE,
            evidence=[ev for e in edges for ev in e.evidence],
            message=f"{actor.actor} of {actor.owner} can run code on self-hosted runner {runner.name} "
                    f"({'ephemeral' if ephemeral else 'persistent or unknown'}): {' -> '.join(path)}{note}",
            path=path, events=sorted({str(e.props.get('event')) for e in edges if e.props.get('event')}),
            **({"called_workflows_unread": unread} if unread else {}))
