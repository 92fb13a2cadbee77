"""``runner-registration-unexpected``: runner on runner seen from the platform side (issue 12).

The organization's audit log records who registered each self-hosted runner, when and from where
(``org.register_self_hosted_runner`` / ``repo.register_self_hosted_runner``: ``actor``, ``actor_ip`` when
the enterprise discloses IP addresses, ``actor_location.country_code``; GitHub docs "Audit log events for your
organization",
https://docs.github.com/en/organizations/keeping-your-organization-secure/managing-security-settings-for-your-organization/audit-log-events-for-your-organization),
and the job history which runners took jobs (:mod:`graphkit.resolve.observed`).  A runner the platform saw is
unexpected when

1. **absent from the expected inventory**: its owner's runner list is given by an inventory
   (``meta.runner_inventory.runner_owners``) and does not list it (``Runner.in_inventory`` not true), yet the
   audit log shows it registered or the job history shows it took jobs;
2. **registered by an unexpected actor**: ``--expected-registrar LOGIN`` (repeatable; the accounts, bots and
   GitHub Apps that enroll runners) is given and a registration's ``actor`` is not among them;
3. **registered from an unexpected place**: ``--expected-registration-place`` (repeatable; ISO 3166-1 country
   codes such as ``DE``, or IP networks such as ``203.0.113.0/24``) is given and the registration's
   ``actor_location.country_code`` / ``actor_ip`` matches none of them (a registration that states neither
   is not judged).

What is expected comes only from the user (the inventory, the two options); without them that part of the rule
says nothing (unknown is not empty).  Severity: critical when the job history shows the runner took jobs (it
received their secrets), else high.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import NodeKind, Runner, RunnerEvent

__all__ = ["runner_registration_unexpected", "place_expected", "REGISTRARS", "PLACES"]

#: ``FindingOptions.extra`` keys (``graphkit findings --expected-registrar`` / ``--expected-registration-place``).
REGISTRARS, PLACES = "expected_registrars", "expected_registration_places"


def place_expected(event: RunnerEvent, places: Iterable[str]) -> bool | None:
    """Whether the event's country or IP is among ``places`` (country codes or IP networks); None when the
    event states neither (not judged).

    >>> from graphkit.model import Evidence
    >>> e = RunnerEvent(action="org.register_self_hosted_runner", scope="acme", actor_ip="203.0.113.7",
    ...                 actor_country="ZZ", evidence=Evidence(file="audit-log/acme.json"))
    >>> place_expected(e, ["DE"]), place_expected(e, ["203.0.113.0/24"]), place_expected(e, ["zz"])
    (False, True, True)
    """
    if event.actor_country is None and event.actor_ip is None:
        return None
    for p in places:
        p = p.strip()
        if event.actor_country and p.upper() == event.actor_country.upper():
            return True
        if event.actor_ip and ("." in p or ":" in p):
            try:
                if ipaddress.ip_address(event.actor_ip) in ipaddress.ip_network(p, strict=False):
                    return True
            except ValueError:
                continue
    return False


def _reasons(r: Runner, owners: set[str], registrars: frozenset[str] | None,
             places: tuple[str, ...] | None) -> list[str]:
    regs = [e for e in (r.platform_events or []) if e.registers]
    out = []
    if r.scope.split("/")[0] in owners and not r.in_inventory and (regs or r.seen_in_history):
        out.append("absent from the runner inventory")
    for e in regs:
        if registrars is not None and (e.actor or "").lower() not in registrars:
            out.append(f"registered by {e.actor or 'an unknown actor'} at {e.at or '?'} (expected: "
                       f"{', '.join(sorted(registrars))})")
        if places is not None and place_expected(e, places) is False:
            where = ", ".join(x for x in (e.actor_country, e.actor_ip) if x)
            out.append(f"registered from {where} at {e.at or '?'} (expected: {', '.join(places)})")
    return out


@rule("runner-registration-unexpected", title="Runner the platform saw registered unexpectedly",
      description="The audit log or the job history shows a self-hosted runner that the runner inventory does "
      "not list, or that an unexpected account registered, or that was registered from an unexpected place "
      "(--expected-registrar, --expected-registration-place): a rogue registration seen from the platform side.",
      help_uri="https://docs.github.com/en/organizations/keeping-your-organization-secure/"
      "managing-security-settings-for-your-organization/audit-log-events-for-your-organization",
      severity=Severity.HIGH,
      remediation="Remove the runner (Settings > Actions > Runners), revoke the credential that registered it "
      "(the actor's token or App key), rotate the secrets of the jobs it ran, and find the host it runs on.")
def runner_registration_unexpected(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    owners = set(graph.meta.inventory.runner_owners)
    raw = options.extra.get(REGISTRARS)
    registrars = frozenset(x.strip().lower() for x in raw) if raw else None
    places = tuple(options.extra.get(PLACES) or ()) or None
    for r in graph.nodes(NodeKind.RUNNER):
        if not isinstance(r, Runner) or r.inferred:
            continue
        reasons = _reasons(r, owners, registrars, places)
        if not reasons:
            continue
        evidence = [*r.evidence, *(e.evidence for e in r.platform_events or [])]
        yield runner_registration_unexpected.finding(
            r.id, subject=r.id, severity=Severity.CRITICAL if r.seen_in_history else None,
            message=f"runner {r.scope}/{r.name}: {'; '.join(reasons)}"
                    f"{'; the job history shows it took jobs' if r.seen_in_history else ''}",
            evidence=list(dict.fromkeys(evidence)), reasons=reasons,
            registered_by=sorted({e.actor for e in r.platform_events or [] if e.registers and e.actor}))
