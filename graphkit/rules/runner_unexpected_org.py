"""``runner-unexpected-org``: a registration to an organization (or repository) nobody expects (semantics §7).

Expected scopes come from ``graphkit findings --expected-org ORG`` (an org, or
``org/repo``; for GitLab, the instance host), else from the organizations the
ingested org inventories declare.  With neither, the rule says nothing
(unknown is not empty).  A build host registered to another organization
runs that organization's jobs -- code the attacker writes -- with access to
everything the host holds.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import NodeKind, Runner, ids

__all__ = ["expected_scopes", "is_expected", "runner_unexpected_org"]


def expected_scopes(graph: Graph, options: FindingOptions) -> tuple[frozenset[str], str] | None:
    """The expected orgs/repos (lower-cased) and where they come from, or None when unknown."""
    if options.expected_orgs:
        return frozenset(o.strip().lower() for o in options.expected_orgs), "--expected-org"
    declared = graph.meta.inventory.organizations
    if declared:
        return frozenset(declared), "inventory organizations"
    return None


def is_expected(scope: str, expected: frozenset[str]) -> bool:
    """``scope`` (``org`` or ``org/repo``) is an expected org or repository.

    >>> is_expected("acme/app", frozenset({"acme"})), is_expected("acme", frozenset({"acme/app"}))
    (True, False)
    """
    scope = scope.lower()
    return scope in expected or scope.split("/")[0] in expected


@rule("runner-unexpected-org", title="Runner registered to an unexpected organization",
      description="A runner registration's URL names an organization or repository that is not expected "
      "(--expected-org, else the organizations of the org inventory): a rogue enrollment that runs someone "
      "else's jobs on your host.",
      help_uri="https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/"
      "adding-self-hosted-runners",
      severity=Severity.CRITICAL,
      remediation="Stop and unregister the runner on the host (config.sh remove, or delete the service and "
      "installation), treat the host as compromised (reimage it), and rotate every credential it holds.")
def runner_unexpected_org(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    found = expected_scopes(graph, options)
    if found is None:
        return
    expected, origin = found
    for r in graph.nodes(NodeKind.RUNNER):
        if not isinstance(r, Runner) or r.inferred or is_expected(r.scope, expected):
            continue
        url = r.registration.url if r.registration is not None else None
        where = f" on {r.host}" if r.host else ""
        yield runner_unexpected_org.finding(
            r.id, subject=r.id, related=[ids.host(r.host)] if r.host else [],
            message=f"runner {r.name}{where} is registered to {r.scope}"
                    f"{f' ({url})' if url else ''}, not an expected org ({', '.join(sorted(expected))}, "
                    f"from {origin})",
            evidence=r.evidence, scope=r.scope, url=url, expected=sorted(expected), expected_from=origin)
