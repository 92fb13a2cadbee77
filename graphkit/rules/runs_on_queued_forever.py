"""``runs-on-queued-forever``: a self-hosted label set no runner can take, where the inventory lists every runner.

GitHub routes a job to a runner that has **all** its ``runs-on`` labels; with
none online it stays queued until one comes (and is cancelled after about 24
hours): GitHub docs "Self-hosted runners reference", routing precedence,
https://docs.github.com/en/actions/reference/runners/self-hosted-runners#routing-precedence-for-self-hosted-runners.
Decided only for owners whose inventory says its runner list is complete
(``runners_complete``); elsewhere the resolver infers a runner pool instead.
Label patterns of third-party pools count (:mod:`graphkit.resolve.labels`).
The job runs nowhere today, and anyone who can register a runner with those
labels (a leaked registration token, an autoscaler credential) receives it.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.resolve.routing import queued_forever

__all__ = ["runs_on_queued_forever"]


@rule("runs-on-queued-forever", title="Job asks for runner labels no runner has",
      description="A job's runs-on names self-hosted labels that no runner of the organization (listed completely "
      "by the inventory, label patterns of runner pools included) has: GitHub keeps it queued until a runner "
      "with all those labels registers, so it never runs, and whoever registers such a runner receives it.",
      help_uri="https://docs.github.com/en/actions/reference/runners/self-hosted-runners"
      "#routing-precedence-for-self-hosted-runners",
      severity=Severity.MEDIUM,
      remediation="Fix the runs-on labels (a typo, a renamed pool), add the runner or the pool's label_patterns "
      "to the inventory if it exists, or remove the job.")
def runs_on_queued_forever(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    for job, cand in queued_forever(graph):
        labels = sorted(x.strip().lower() for x in cand.labels)
        yield runs_on_queued_forever.finding(
            job.id, ",".join(labels), cand.group or "", subject=job.id, evidence=[cand.evidence],
            message=f"job {job.job_key} of {job.repository}/{job.workflow_path} asks for runner labels "
                    f"[{', '.join(cand.labels)}]{f' in group {cand.group}' if cand.group else ''} that no runner "
                    f"of the inventory has: it stays queued",
            labels=list(cand.labels), dynamic_labels=list(cand.dynamic), group=cand.group)
