"""``runner-not-in-inventory``: a registration on disk that the org's runner inventory does not list (semantics §7).

Decided only for owners whose runner list an org inventory gives
(``graph.meta.runner_inventory.runner_owners``); a registration to an
owner no inventory covers is left to ``runner-unexpected-org``.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import NodeKind, Runner, ids

__all__ = ["runner_not_in_inventory"]


@rule("runner-not-in-inventory", title="Runner on a host but absent from the org's runner inventory",
      description="A host scan found a runner registration that the organization's runner inventory (the "
      "inventory file, or an API snapshot) does not list: a rogue or forgotten enrollment.",
      help_uri="https://docs.github.com/en/rest/actions/self-hosted-runners"
      "#list-self-hosted-runners-for-an-organization",
      severity=Severity.HIGH,
      remediation="Compare with Settings > Actions > Runners; remove the registration if nobody enrolled it "
      "and reimage the host; otherwise add it to the inventory.")
def runner_not_in_inventory(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    covered = set(graph.meta.inventory.runner_owners)
    for r in graph.nodes(NodeKind.RUNNER):
        if not isinstance(r, Runner) or not r.unvetted:
            continue
        owner = r.scope.split("/")[0]
        if owner not in covered:
            continue
        assert r.registration is not None
        yield runner_not_in_inventory.finding(
            r.id, subject=r.id, related=[ids.host(r.host)] if r.host else [],
            message=f"runner {r.scope}/{r.name} is registered on {r.host or 'a host'} "
                    f"({r.registration.config_path}) but the {owner} runner inventory does not list it",
            evidence=r.evidence, config_path=r.registration.config_path)
