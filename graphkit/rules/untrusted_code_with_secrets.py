"""``untrusted-code-with-secrets``: a privileged job runs code from a pull request or comment (a "pwn request").

``pull_request_target``, ``workflow_run`` and ``issue_comment`` runs get the
base repository's secrets and a ``GITHUB_TOKEN`` that can write, even when a
fork opened the pull request; a job of such a run that checks out, builds or
downloads the pull request's code hands all of it to the pull request's author
(GitHub docs "Security hardening for GitHub Actions", "Mitigating the risks of
untrusted code checkout"; a script that writes an outsider's text as ``${{ }}`` runs it as code, "Understanding
the risk of script injections",
https://docs.github.com/en/actions/reference/security/secure-use#understanding-the-risk-of-script-injections;
https://docs.github.com/en/actions/reference/security/secure-use#mitigating-the-risks-of-untrusted-code-checkout;
GitHub Security Lab "Preventing pwn requests",
https://securitylab.github.com/resources/github-actions-preventing-pwn-requests/).
The entry edges (``fork-pr`` or ``comment -> job``, with the guards GitHub
documents) come from :mod:`graphkit.resolve.untrusted`; this rule reports
each such job that holds something: the secrets it reads, a token that writes
the repository, an OIDC token, or a signing, deploy or publish grant.  One
finding per (untrusted source, job); ``critical`` when the job reads secrets,
mints OIDC tokens or writes the repository, ``high`` otherwise; one step
lower (and ``possible``) when the entry is a call of a workflow not in the
input (guard ``called-workflow-not-read``): what that workflow runs is unknown.  A fork
``pull_request`` run (``fork-pr -> runner``) gets none of this and is left to
``untrusted-path-to-self-hosted-runner``.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Confidence, Edge, EdgeKind, NodeKind
from graphkit.resolve.untrusted import outside_entries

__all__ = ["untrusted_code_with_secrets"]

#: what a job hands to whoever runs code in it, and whether that alone is critical
_HELD: dict[EdgeKind, bool] = {EdgeKind.READS_SECRET: True, EdgeKind.MINTS_OIDC: True,
                               EdgeKind.SIGNS_WITH: True, EdgeKind.DEPLOYS_TO: False,
                               EdgeKind.PUBLISHES_TO: True, EdgeKind.ASSUMES_ROLE: True}


def _held(graph: Graph, job: str, *, fork_run: bool = False) -> tuple[list[Edge], bool]:
    """The job's edges to what it holds (its token's repository writes included) and whether any is critical.

    ``fork_run``: the run is a GitLab merge request pipeline from a fork, never a protected ref, so a protected
    variable (edge prop ``protected_refs_only``, :mod:`graphkit.resolve.gitlab`) is not held
    (https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/#use-with-forked-projects).
    """
    held: list[Edge] = []
    critical = False
    for e in sorted(graph.out_edges(job), key=lambda x: (x.kind.value, x.target, x.key)):
        if fork_run and e.props.get("protected_refs_only"):
            continue
        if e.kind in _HELD:
            held.append(e)
            critical |= _HELD[e.kind]
        elif e.kind is EdgeKind.HAS_TOKEN:
            writes = [w for w in sorted(graph.out_edges(e.target), key=lambda x: x.target)
                      if w.kind is EdgeKind.WRITES_REPOSITORY]
            held.extend(writes)
            critical |= bool(writes)
    return held, critical


#: GitLab's counterpart of the remediation (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable,
#: https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/#run-pipelines-in-the-parent-project)
_GITLAB_FIX = ("Protect the CI/CD variables this job reads (fork merge request pipelines never get protected "
               "variables) or scope them to a protected environment; keep merge request jobs free of deploy "
               "and publish grants; review a fork's changes before running its pipeline in the parent project.")


@rule("untrusted-code-with-secrets", title="Pull request code runs in a privileged job (pwn request)",
      description="A pull_request_target, workflow_run or issue_comment job checks out, builds or downloads code "
      "that a pull request's author controls (or an issues / issue_comment / pull_request_target / workflow_run job "
      "writes an outsider's text, a title, body, comment or branch name, into a run script as ${{ }}: script "
      "injection), while it holds the repository's secrets, a writing GITHUB_TOKEN, "
      "an OIDC token or a signing/deploy/publish grant: the author gets all of them. On GitLab: a fork's merge "
      "request pipeline run in the parent project, with the unprotected CI/CD variables its job reads.",
      help_uri="https://securitylab.github.com/resources/github-actions-preventing-pwn-requests/",
      severity=Severity.CRITICAL,
      remediation="Build pull request code only in pull_request runs (no secrets, read-only token); split "
      "privileged follow-up work into a workflow_run job that never executes the pull request's files or "
      "artifacts; require approval for outside contributors; drop the checkout opt-in; pass outsider text to "
      "scripts through env: and quote the shell variable, never as ${{ }} in the script. GitLab: " + _GITLAB_FIX)
def untrusted_code_with_secrets(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    for actor, entry in outside_entries(graph):
        job = graph.node(entry.target)
        if job.spec.kind is not NodeKind.JOB:
            continue  # a fork pull_request run on a runner: untrusted-path-to-self-hosted-runner
        gitlab = entry.props.get("platform") == "gitlab"
        held, critical = _held(graph, job.id, fork_run=gitlab)
        if not held:
            continue
        unread = "called-workflow-not-read" in (entry.props.get("guards") or ())
        severity = Severity.CRITICAL if critical else Severity.HIGH
        if unread:  # only if the called workflow, which nobody read, runs the pull request's code
            severity = Severity.HIGH if critical else Severity.MEDIUM
        yield untrusted_code_with_secrets.finding(
            actor.id, job.id, subject=job.id, related=[actor.id, *sorted({e.target for e in held})],
            severity=severity,
            confidence=Confidence.CERTAIN if entry.confidence is Confidence.CERTAIN else Confidence.POSSIBLE,
            evidence=[*entry.evidence, *(ev for e in held for ev in e.evidence[:1])],
            message=f"{actor.actor} of {actor.owner} runs code in {job.id}, which holds "
                    f"{', '.join(sorted({e.target for e in held}))}"
                    + ("; only if the workflow it calls, which was not read, runs the pull request's code"
                       if unread else ""),
            event=entry.props.get("event"), **({"remediation": _GITLAB_FIX} if gitlab else {}))
