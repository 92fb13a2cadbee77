"""``long-lived-credential-on-disk``: a credential valid until rotated, on a host, readable by a runner's user.

Every job that runner runs -- and an attacker persisted there -- can copy it
(semantics §2 "the host itself"); unlike a job's OIDC token it does not
expire.  Readers come from the host scan (``runner -> credential`` edges);
when the scan did not say (``readable_by`` unknown) every runner of the host
is a possible reader.  Runner registration credentials are not reported here
(they are the registration: see ``runner-on-runner``).  ``critical`` when it
reaches a critical asset (a signing key, production) or can register runners
(``can_register_runner``: a PAT with ``admin:org``, semantics §8): whoever
copies it attaches a runner to those groups and receives their jobs.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Confidence, Credential, Criticality, EdgeKind, Lifetime, NodeKind, Runner, ids

__all__ = ["long_lived_credential_on_disk"]


def _readers(graph: Graph, c: Credential) -> tuple[list[str], Confidence]:
    """Runners whose user can read ``c`` (host scan), else -- when the scan did not say -- every runner of its
    host, ``possible``."""
    readers = sorted(e.source for e in graph.in_edges(c.id)
                     if e.kind is EdgeKind.STORES_CREDENTIAL and isinstance(graph.node(e.source), Runner))
    if readers or c.readable_by is not None:
        return readers, Confidence.CERTAIN
    hid = ids.host(c.host)
    hosted = sorted(e.target for e in graph.out_edges(hid) if e.kind is EdgeKind.HOSTS) if hid in graph else []
    return hosted, Confidence.POSSIBLE


@rule("long-lived-credential-on-disk", title="Long-lived credential on a build host, readable by a runner",
      description="A credential that stays valid until rotated (cloud keys, registry, package index, cluster, "
      "git or gh tokens, SSH, GPG or cosign keys) is stored on a runner host where a runner's user can read it.",
      help_uri="https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/"
      "about-security-hardening-with-openid-connect",
      severity=Severity.HIGH,
      remediation="Rotate it at its issuer and delete the file; give jobs short-lived credentials instead (OIDC "
      "to the cloud, registry and package index; keyless signing), scoped to the job that needs them.")
def long_lived_credential_on_disk(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    for c in graph.nodes(NodeKind.CREDENTIAL):
        if not isinstance(c, Credential) or c.lifetime is not Lifetime.UNTIL_ROTATED or not c.host:
            continue
        readers, confidence = _readers(graph, c)
        if not readers:
            continue
        reached = [graph.node(e.target) for e in graph.out_edges(c.id) if graph.node(e.target).spec.kind is not
                   NodeKind.CREDENTIAL]
        critical = sorted(n.id for n in reached if n.criticality is Criticality.CRITICAL)
        registers = sorted(e.target for e in graph.out_edges(c.id) if e.kind is EdgeKind.CAN_REGISTER_RUNNER)
        grants = ", ".join(c.grants) if c.grants else "not readable from the file"
        can = f"; can register runners into {', '.join(registers)} (and receive their jobs)" if registers else ""
        yield long_lived_credential_on_disk.finding(
            c.id, subject=c.id, confidence=confidence, related=[*readers, *critical, *registers],
            severity=Severity.CRITICAL if critical or registers else None, evidence=c.evidence,
            message=f"{c.credential_type} credential {c.path} on {c.host}, valid until rotated, readable by "
                    f"{', '.join(readers)}; grants: {grants}{can}",
            credential_type=c.credential_type, fingerprint=c.fingerprint, readers=readers, grants=list(c.grants))
