"""Untrusted entry points on GitLab: who can run code on GitLab runners without being trusted (issue 14).

The GitLab side of :mod:`graphkit.resolve.untrusted` (same actors, same ``can_trigger`` edges, same findings):

1. ``fork-pr -> runner`` for every instance runner that is not paused and not ``ref_protected``: anyone who can
   create or fork a project on the instance runs a pipeline of their own there, and instance runners serve every
   project by default ("Instance runners are available to every project in a GitLab instance",
   https://docs.gitlab.com/ci/runners/runners_scope/#instance-runners); their own configuration picks the tags.
   ``possible``: who may sign up and create projects is an instance setting graphkit does not read.  The owner
   of the actor is the instance host (``untrusted:fork-pr:gitlab.example.com``).
2. ``fork-pr -> job`` for a job of a public (or visibility unknown) project that runs in merge request pipelines
   from forks (``from_fork`` true or undecided): a project member can run the fork's pipeline in the parent
   project, with the fork's code and the parent's runners and unprotected variables
   (https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/#run-pipelines-in-the-parent-project);
   ``possible`` (a member must start it).  The owner is the project's top-level group.

``org-member`` gets every ``fork-pr`` edge too (:class:`graphkit.resolve.untrusted._Out`).
"""

from __future__ import annotations

from graphkit.graph import Graph
from graphkit.model import Confidence, Job, NodeKind, Runner
from graphkit.resolve.context import nodes_of_kind
from graphkit.resolve.gitlab import GitLabContext
from graphkit.resolve.untrusted import _Out

__all__ = ["link_gitlab_untrusted"]

_P = Confidence.POSSIBLE
_INSTANCE_RUNNERS = "https://docs.gitlab.com/ci/runners/runners_scope/#instance-runners"
_PARENT_PIPELINE = "https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/#run-pipelines-in-the-parent-project"


def _open_runners(out: _Out, runners: list[Runner]) -> None:
    for r in runners:
        info = r.gitlab
        if info is None or info.runner_type != "instance_type" or info.paused or info.access_level == "ref_protected":
            continue
        out.edge("fork-pr", info.instance, r.id, r.evidence[0], _P, "instance-runner",
                 {"platform": "gitlab", "rule": "own project on the instance", "doc": _INSTANCE_RUNNERS})


def _fork_jobs(out: _Out, ctx: GitLabContext, jobs: list[Job]) -> None:
    for job in jobs:
        gl = job.gitlab
        if gl is None or gl.bridge is not None:
            continue
        visibility = ctx.project(gl.project).get("visibility")
        if visibility in ("private", "internal"):
            continue
        forks = [t for t in gl.triggers if t.ref_type == "merge_request" and t.from_fork is not False]
        if not forks:
            continue
        out.edge("fork-pr", gl.project.split("/", 1)[0].lower(), job.id, forks[0].evidence, _P, "fork-mr",
                 {"platform": "gitlab", "job": job.id, "event": "merge_request_event", "doc": _PARENT_PIPELINE})


def link_gitlab_untrusted(graph: Graph) -> None:
    """Add the GitLab entry points (module docstring); idempotent."""
    ctx = GitLabContext.of(graph)
    out = _Out(graph)
    _open_runners(out, ctx.runners)
    jobs = [j for j in nodes_of_kind(graph, NodeKind.JOB) if isinstance(j, Job) and j.platform == "gitlab"]
    _fork_jobs(out, ctx, jobs)
