"""``called-workflow-not-read``: a job calls a reusable workflow that is not in the input.

A job that calls a reusable workflow has no ``runs-on`` and no steps of its
own: the called workflow's jobs choose their runners and run their steps in
the caller's context, with the secrets the caller passes (``secrets:
inherit``: all of them) and its token (GitHub docs "Reusing workflows",
https://docs.github.com/en/actions/sharing-automations/reusing-workflows).
When that workflow was not read, where the job runs and what it does are
unknown: the resolver links ``possible`` routes to the runners and pools the
repository can use and invents no runner pool for it
(:func:`graphkit.resolve.routing.unread_callee`), and a privileged caller
(``pull_request_target``, ``workflow_run``, ``issue_comment``) is an entry
point of untrusted people, ``possible`` (:mod:`graphkit.resolve.untrusted`).
One finding per calling job, ``possible``: ``medium`` when the job passes
every secret or outsiders can trigger it, ``low`` otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Confidence, Job, NodeKind
from graphkit.resolve.context import nodes_of_kind
from graphkit.resolve.routing import unread_callee
from graphkit.resolve.untrusted import outside_entries

__all__ = ["called_workflow_not_read"]


@rule("called-workflow-not-read", title="Job calls a reusable workflow that was not read",
      description="A job calls a reusable workflow that is not among the inputs: where its jobs run (runs-on) and "
      "what they do with what the caller passes (inherited secrets, the token, OIDC) are unknown, so every path "
      "through it is only possible and no runner is assumed for it.",
      help_uri="https://docs.github.com/en/actions/sharing-automations/reusing-workflows",
      severity=Severity.LOW,
      remediation="Add the called workflow's repository checkout to the inputs (--github-actions), or pin the "
      "call to a reviewed commit and pass only the secrets it needs instead of secrets: inherit.")
def called_workflow_not_read(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    outside: dict[str, list[str]] = {}
    for actor, e in outside_entries(graph):
        outside.setdefault(e.target, []).append(actor.id)
    for job in sorted((j for j in nodes_of_kind(graph, NodeKind.JOB) if isinstance(j, Job)), key=lambda j: j.id):
        wid = unread_callee(graph, job)
        if wid is None:
            continue
        actors = sorted(set(outside.get(job.id, ())))
        inherit = job.all_secrets is not None
        severity = Severity.MEDIUM if inherit or actors else Severity.LOW
        what = [*(["every secret it can see"] if inherit else []), *([f"outside entry {', '.join(actors)}"]
                                                                    if actors else [])]
        ev = job.runs_on_unresolved
        yield called_workflow_not_read.finding(
            job.id, wid, subject=job.id, related=[wid, *actors], severity=severity, confidence=Confidence.POSSIBLE,
            evidence=[ev] if ev is not None else [],
            message=f"job {job.job_key} of {job.repository}/{job.workflow_path} calls {wid.removeprefix('workflow:')}, "
                    f"which was not read: where it runs and what it does are unknown"
                    + (f" ({'; '.join(what)})" if what else ""),
            called_workflow=wid, secrets_inherited=inherit, untrusted_entries=actors)
