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
from urllib.parse import urlsplit

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import NodeKind, Runner, ids

__all__ = ["GITHUB_COM", "expected_scopes", "is_expected", "runner_unexpected_org"]


#: the server a bare org names (an inventory's organisations, ``--expected-org acme``)
GITHUB_COM = "github.com"


def expected_scopes(graph: Graph, options: FindingOptions) -> tuple[frozenset[tuple[str, str | None]], str] | None:
    """The expected ``(org or org/repo, server host)`` pairs (lower-cased) and where they come from, or None when
    unknown.  ``--expected-org`` values are ``scope`` (github.com) or ``scope@HOST``; the inventory's
    organisations name no server (an inventory collected from a GitHub Enterprise Server is that server's), so
    their host is None: any server."""
    if options.expected_orgs:
        pairs = set()
        for o in options.expected_orgs:
            scope, _, host = o.strip().lower().partition("@")
            pairs.add((scope, host or GITHUB_COM))
        return frozenset(pairs), "--expected-org"
    declared = graph.meta.inventory.organizations
    if declared:
        return frozenset((o, None) for o in declared), "inventory organizations"
    return None


def is_expected(scope: str, expected: frozenset[tuple[str, str | None]], server: str | None = None) -> bool:
    """``scope`` (``org`` or ``org/repo``) on ``server`` (the registration URL's host; None: not known) is an
    expected org or repository on that server.  An org on a GitHub Enterprise Server or ``SUBDOMAIN.ghe.com``
    host is another account than github.com's org of the same name (GitHub docs "About GitHub Enterprise
    Server", https://docs.github.com/en/enterprise-server@latest/admin/overview/about-github-enterprise-server;
    "About GitHub Enterprise Cloud with data residency",
    https://docs.github.com/en/enterprise-cloud@latest/admin/data-residency/about-github-enterprise-cloud-with-data-residency).

    >>> gh = frozenset({("acme", "github.com")})
    >>> is_expected("acme/app", gh), is_expected("acme", frozenset({("acme/app", None)}))
    (True, False)
    >>> is_expected("acme", gh, "ghe.example.com"), is_expected("acme", gh, "github.com"), is_expected("acme", gh)
    (False, True, True)
    """
    scope = scope.lower()
    server = GITHUB_COM if server == "www.github.com" else server
    return any(s in (scope, scope.split("/")[0]) and (h is None or server is None or h == server)
               for s, h in expected)


def _server(r: Runner) -> str | None:
    """The host of a GitHub runner's registration URL (lower case), None when not known or a GitLab runner
    (whose scope is already its instance host)."""
    url = r.registration.url if r.registration is not None else None
    if r.platform != "github" or not url:
        return None
    try:
        return urlsplit(url).hostname or None
    except ValueError:
        return None


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
    shown = sorted(s if h in (None, GITHUB_COM) else f"{s}@{h}" for s, h in expected)
    for r in graph.nodes(NodeKind.RUNNER):
        if not isinstance(r, Runner) or r.inferred or is_expected(r.scope, expected, _server(r)):
            continue
        url = r.registration.url if r.registration is not None else None
        where = f" on {r.host}" if r.host else ""
        yield runner_unexpected_org.finding(
            r.id, subject=r.id, related=[ids.host(r.host)] if r.host else [],
            message=f"runner {r.name}{where} is registered to {r.scope}"
                    f"{f' ({url})' if url else ''}, not an expected org ({', '.join(shown)}, from {origin})",
            evidence=r.evidence, scope=r.scope, url=url, expected=shown, expected_from=origin)
