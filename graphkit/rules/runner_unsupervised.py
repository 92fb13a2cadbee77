"""``runner-unsupervised``: a runner kept alive or running outside the service its installer sets up.

The GitHub runner's installer starts it as a service (``svc.sh install``: the
systemd unit ``actions.runner.<scope>.<name>.service``; a launchd plist on
macOS; a Windows service), GitHub docs "Configuring the self-hosted runner
application as a service",
https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/configuring-the-self-hosted-runner-application-as-a-service;
GitLab's installs ``gitlab-runner.service`` (GitLab docs "GitLab Runner
commands", https://docs.gitlab.com/runner/commands/#gitlab-runner-install).
A registration started by cron (``@reboot``), a shell profile, ``nohup`` /
``screen`` / ``tmux``, a user unit under another name or a job hook script is
how an attacker keeps a second runner alive (the npm worm of late 2025 ran the
official runner with ``nohup`` from a dot-folder).  A live runner process whose
folder holds no known registration is one the host scan could not tie to any
(hidden, deleted, or outside the search's bounds).  Facts from ``graphkit
collect host`` (``registration.kept_alive_by``, ``unsupervised``; the host's
``unknown_runner_processes``).
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Host, NodeKind, Runner, ids

__all__ = ["runner_unsupervised"]


@rule("runner-unsupervised", title="Runner kept alive outside its installer's service",
      description="A runner registration is started by cron, a shell profile, nohup/screen/tmux, a renamed or user "
      "service or a job hook instead of (or besides) the service its installer sets up, or a runner process runs "
      "from a folder holding no known registration: how a rogue runner stays alive.",
      help_uri="https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/"
      "configuring-the-self-hosted-runner-application-as-a-service",
      severity=Severity.HIGH,
      remediation="Stop the process and remove what starts it (crontab line, profile line, unit, hook); remove the "
      "registration if nobody enrolled it, then reimage the host.")
def runner_unsupervised(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    for r in graph.nodes(NodeKind.RUNNER):
        reg = r.registration if isinstance(r, Runner) else None
        if reg is None or not reg.unsupervised:
            continue
        how = "; ".join(reg.kept_alive_by or []) or "unknown"
        yield runner_unsupervised.finding(
            r.id, subject=r.id, related=[ids.host(r.host)] if r.host else [],
            severity=Severity.CRITICAL if r.unvetted else Severity.HIGH,
            message=f"runner {r.scope}/{r.name} ({reg.config_path}) is kept alive outside its installer's service: "
                    f"{how}", evidence=r.evidence, kept_alive_by=list(reg.kept_alive_by or []),
            config_path=reg.config_path)
    for h in graph.nodes(NodeKind.HOST):
        for proc in (h.unknown_runner_processes or []) if isinstance(h, Host) else []:
            yield runner_unsupervised.finding(
                h.id, proc, subject=h.id, severity=Severity.CRITICAL,
                message=f"a runner process on {h.name} runs from a folder with no known registration: {proc}",
                evidence=h.evidence, process=proc)
