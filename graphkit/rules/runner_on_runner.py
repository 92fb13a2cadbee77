"""``runner-on-runner``: several runner registrations on one host (semantics §2, §7).

Whoever controls one registration on a host controls the host, and through
it every other registration there (the ``hosts`` edge): an attacker who
registers a second runner or agent on a build host receives its jobs and
secrets, and keeps access after the malicious package is gone.  Two
registrations of one scope are common (concurrency) and are ``medium``; to
different repositories, or one running as root, ``high``; to different
organizations, ``critical``.  The message names each registration with how it
stays alive (a host scan's ``kept_alive_by``: a cron ``@reboot`` entry, a user
systemd unit, a job hook, a ``nohup`` in a profile...) and says when that is
outside the service its installer sets up (GitHub docs "Configuring the
self-hosted runner application as a service").
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Confidence, EdgeKind, NodeKind, Runner

__all__ = ["runners_on_host", "runner_on_runner"]


def runners_on_host(graph: Graph, host_id: str) -> list[Runner]:
    """Real (not inferred) runners a host certainly runs (``hosts`` edges that are ``certain``), in id order: the
    pods of a Kubernetes pool on "any node", or on nodes another pool may share, are there only if the scheduler put
    them there (``possible``, ``ingest/k8s/to_graph.py``), so they are no registrations of one host."""
    ids = sorted({e.target for e in graph.out_edges(host_id)
                  if e.kind is EdgeKind.HOSTS and e.confidence is Confidence.CERTAIN})
    return [r for r in (graph.node(i) for i in ids) if isinstance(r, Runner) and not r.inferred]


@rule("runner-on-runner", title="Several runner registrations on one host",
      description="A host runs more than one runner registration: controlling one controls the others (runner on "
      "runner); critical when they serve different organizations, high for different repositories or one "
      "running as root.",
      help_uri="https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/"
      "about-self-hosted-runners#self-hosted-runner-security",
      severity=Severity.HIGH,
      remediation="Remove every registration you did not enroll (Settings > Actions > Runners), then reimage the "
      "host; run one registration per host, ephemeral, as a non-root user.")
def runner_on_runner(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    for host in graph.nodes(NodeKind.HOST):
        runners = runners_on_host(graph, host.id)
        if len(runners) < 2:
            continue
        owners = sorted({r.scope.split("/")[0] for r in runners})
        scopes = sorted({r.scope for r in runners})
        root = [r.id for r in runners if r.registration is not None and r.registration.runs_as_root]
        unvetted = [r.id for r in runners if r.unvetted]
        evidence = [e for r in runners for e in r.evidence]
        msg = _message(host.name, runners, owners, root, unvetted)
        kept, unsupervised = _kept_alive(runners)
        yield runner_on_runner.finding(host.id, subject=host.id, message=msg, severity=_severity(owners, scopes, root),
                                       related=[r.id for r in runners], evidence=evidence,
                                       registrations=[r.id for r in runners], owners=owners, scopes=scopes,
                                       runs_as_root=root, unvetted=unvetted, kept_alive_by=kept,
                                       unsupervised=unsupervised)


def _severity(owners: list[str], scopes: list[str], root: list[str]) -> Severity:
    """``critical`` across organizations, ``high`` across repositories or with a root registration, else ``medium``."""
    if len(owners) > 1:
        return Severity.CRITICAL
    if len(scopes) > 1 or root:
        return Severity.HIGH
    return Severity.MEDIUM


def _kept_alive(runners: list[Runner]) -> tuple[dict[str, list[str]], list[str]]:
    """``(runner id -> kept_alive_by, unsupervised runner ids)`` of the registrations a host scan saw."""
    regs = [(r.id, r.registration) for r in runners if r.registration is not None]
    return ({i: reg.kept_alive_by for i, reg in regs if reg.kept_alive_by},
            [i for i, reg in regs if reg.unsupervised])


def _kept(r: Runner) -> str:
    """`` (kept alive by ...)`` when the host scan saw how the registration stays alive, with its job hooks and
    whether that is outside its installer's supervisor (:mod:`ingest.host.keepalive`)."""
    reg = r.registration
    if reg is None or not (reg.kept_alive_by or reg.job_hooks):
        return ""
    parts = [f"kept alive by {'; '.join(reg.kept_alive_by)}"] if reg.kept_alive_by else []
    if reg.unsupervised:
        parts.append("outside its installer's service")
    if reg.job_hooks:
        parts.append(f"job hooks {'; '.join(reg.job_hooks)}")
    return f" ({', '.join(parts)})"


def _message(host: str, runners: list[Runner], owners: list[str], root: list[str], unvetted: list[str]) -> str:
    """The registrations on ``host``, then what makes them worse (organizations, root, no inventory)."""
    names = ", ".join(f"{r.scope}/{r.name}{_kept(r)}" for r in runners)
    msg = f"{len(runners)} runner registrations on {host}: {names}"
    if len(owners) > 1:
        msg += f"; to different organizations ({', '.join(owners)})"
    if root:
        msg += f"; running as root: {', '.join(root)}"
    if unvetted:
        msg += f"; in no inventory: {', '.join(unvetted)}"
    return msg
