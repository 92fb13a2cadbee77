"""``runner-without-host``: an inventory runner with no known host, or not found on its scanned host (semantics §7).

A registration the API lists but no host scan found may run anywhere --
including a machine of the attacker's with a copied registration
credential.  ``medium``/``possible`` when no host is known; ``high`` when the
inventory names a host that was scanned and the registration is not on it.
A host counts as scanned when a host snapshot describes it (a runner seen on
it, or credentials with ``readable_by``).
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Confidence, Credential, NodeKind, Runner, ids

__all__ = ["scanned_hosts", "runner_without_host"]


def scanned_hosts(graph: Graph) -> set[str]:
    """Host names a host snapshot describes."""
    out = {r.host for r in graph.nodes(NodeKind.RUNNER) if isinstance(r, Runner) and r.registration and r.host}
    out |= {c.host for c in graph.nodes(NodeKind.CREDENTIAL) if isinstance(c, Credential) and c.readable_by is not None}
    return out


@rule("runner-without-host", title="Inventory runner with no known host",
      description="The runner inventory lists a registration that no known host runs, or that a scan of its "
      "host did not find: a rogue registration elsewhere, or an unknown machine.",
      help_uri="https://docs.github.com/en/rest/actions/self-hosted-runners"
      "#list-self-hosted-runners-for-an-organization",
      severity=Severity.MEDIUM,
      remediation="Find the machine that runs it (runner name, last job logs); remove the registration if it "
      "cannot be accounted for; collect a host snapshot of every build host.")
def runner_without_host(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    scanned = scanned_hosts(graph)
    for r in graph.nodes(NodeKind.RUNNER):
        if not isinstance(r, Runner) or r.inferred or not r.in_inventory or r.registration is not None:
            continue
        if r.host is None:
            yield runner_without_host.finding(
                r.id, subject=r.id, confidence=Confidence.POSSIBLE, evidence=r.evidence,
                message=f"runner {r.scope}/{r.name} is in the inventory but no known host runs it")
        elif r.host in scanned:
            yield runner_without_host.finding(
                r.id, subject=r.id, related=[ids.host(r.host)], severity=Severity.HIGH, evidence=r.evidence,
                message=f"runner {r.scope}/{r.name} is listed on {r.host}, but the scan of {r.host} did not find it",
                host=r.host)
