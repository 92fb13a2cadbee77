"""Persistence: ``job -> runner`` and ``job -> host`` ``PERSISTS_ON`` edges (semantics §2).

Code that runs in a job controls the machine it runs on.  Where it can stay
after the job ends, every later job routed there is the attacker's.  For each
``RECEIVES_JOB`` edge ``runner -> job`` (self-hosted routing; GitHub-hosted
jobs get none), with ``H`` the runner's host (its ``RUNS_ON_HOST`` edge):

=================================================  ====================================  ===============================
runner / host                                      edges from the job                    confidence
=================================================  ====================================  ===============================
persistent runner (``ephemeral`` false or unknown)  ``-> runner`` (until removed) and      the routing edge's
                                                   ``-> H`` (until reimaged) unless H
                                                   is reset after each job
ephemeral / JIT runner, H kept (``ephemeral``       ``-> H`` only: the registration is      the routing edge's (``possible``
false): a recycled VM, pod node or work folder     single-use, the machine is not         for ephemeral runners)
ephemeral / JIT runner, H reuse unknown             ``-> H``                               ``possible``
H reset after each job (``Host.ephemeral`` true)   nothing on H (nor on an ephemeral
                                                   runner)
GitHub-hosted                                      nothing (fresh VM per job)
=================================================  ====================================  ===============================

The inventory states which hosts are reset after each job with
``hosts[].ephemeral`` (``true``: the VM, pod or machine is destroyed or
reimaged after every job; ``false``: it is recycled for later jobs; absent:
unknown).  A runner without a known host reaches no host.

Sources: GitHub docs "Security hardening for GitHub Actions", "Hardening for
self-hosted runners" (self-hosted runners "can be persistently compromised by
untrusted code in a workflow") and "Using just-in-time runners" ("reusing
hardware to host JIT runners can risk exposing information from the
environment"),
https://docs.github.com/en/actions/security-for-github-actions/security-guides/security-hardening-for-github-actions#hardening-for-self-hosted-runners;
ephemeral runners take one job and are unregistered: "Autoscaling with
self-hosted runners",
https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/autoscaling-with-self-hosted-runners#using-ephemeral-runners-for-autoscaling;
GitHub-hosted runners are a fresh VM per job: "About GitHub-hosted runners",
https://docs.github.com/en/actions/using-github-hosted-runners/using-github-hosted-runners/about-github-hosted-runners.
"""

from __future__ import annotations

from typing import Any

from graphkit.graph import Graph
from graphkit.model import Confidence, Edge, EdgeKind, Host, Lifetime, RevocationAction, Runner
from graphkit.resolve.context import host_of, records_of_kinds
from graphkit.resolve.gitlab import link_gitlab_persistence

__all__ = ["link_persistence"]

_P = Confidence.POSSIBLE


def _persist(graph: Graph, receive: Any, target: str, *, host: bool, confidence: Confidence, rule: str,
             shared: dict[tuple[str, str], Any]) -> None:
    """The ``persists_on`` edge of one routing edge (``receive``: the edge or its stored record,
    :func:`~graphkit.resolve.context.records_of_kinds`); ``shared``: the graph's props mapping per (runner, rule)."""
    lifetime, action = ((Lifetime.UNTIL_REIMAGED, RevocationAction.REIMAGE_HOST) if host else
                        (Lifetime.UNTIL_RUNNER_REMOVED, RevocationAction.REMOVE_RUNNER_REGISTRATION))
    props = shared.get((receive.source, rule))
    if props is None:
        props = shared[receive.source, rule] = graph.shared_props({"via_runner": receive.source, "rule": rule})
    graph.add_edge_fields(EdgeKind.PERSISTS_ON, receive.target, target, receive.evidence, confidence=confidence,
                          lifetime=lifetime, revoked_by=action, props=props)


def _weakest(a: Confidence, b: Confidence) -> Confidence:
    return _P if _P in (a, b) else Confidence.CERTAIN


def link_persistence(graph: Graph) -> None:
    """Add the ``PERSISTS_ON`` edges of every ``RECEIVES_JOB`` edge of ``graph`` (rules in the module docstring).

    Parameters
    ----------
    graph
        a resolved graph (routing and ``RUNS_ON_HOST`` edges present).

    Returns
    -------
    None
        ``graph`` gains ``job -> runner`` and ``job -> host`` edges; idempotent.
    """
    hosts: dict[str, Host | None] = {}  # per runner: a pool receives thousands of jobs (issue 18: was quadratic)
    gitlab: list[Edge] = []
    shared: dict[tuple[str, str], Any] = {}
    receives, = records_of_kinds(graph, EdgeKind.RECEIVES_JOB)  # the stored records: no edge made per routing edge
    for receive in receives:
        runner = graph.node(receive.source)
        if not isinstance(runner, Runner):
            continue
        if runner.platform == "gitlab":  # the executor decides (graphkit.resolve.gitlab)
            gitlab.append(receive if isinstance(receive, Edge) else receive.edge())
            continue
        conf = receive.confidence
        ephemeral_runner = runner.ephemeral is True
        if not ephemeral_runner:
            _persist(graph, receive, runner.id, host=False, confidence=conf, rule="persistent runner", shared=shared)
        if runner.id not in hosts:
            hosts[runner.id] = host_of(graph, runner.id)
        host = hosts[runner.id]
        if host is None or host.ephemeral is True:
            continue  # no known host, or a host reset after each job: nothing outlives the job there
        if host.ephemeral is None:
            rule, conf = "host reuse unknown", _P if ephemeral_runner else conf
        elif ephemeral_runner:
            rule = "ephemeral runner on a recycled host"
        else:
            rule = "persistent runner's host"
        _persist(graph, receive, host.id, host=True, confidence=_weakest(conf, receive.confidence), rule=rule,
                 shared=shared)
    link_gitlab_persistence(graph, gitlab)
