"""``credential-in-url``: a runner registration or credential file names a URL holding a credential.

A password or token in a URL's userinfo (``https://user:token@host``) or query (``?private_token=``) is
copied wherever the URL goes: process lists, logs, proxies, the runner's diagnostics, every tool that reads
the file.  RFC 3986 section 3.2.1: "Use of the format "user:password" in the userinfo field is deprecated";
the applications' own documentation stores credentials elsewhere (kubeconfig ``users``, docker ``auth``,
npm ``_authToken``).  graphkit removes the credential before storing the URL (:mod:`graphkit.redact`) and
keeps only its keyed fingerprint, so this finding names where it was, never the value.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Credential, NodeKind, Runner

__all__ = ["credential_in_url"]


@rule("credential-in-url", title="Credential in a URL",
      description="A runner registration URL (.runner gitHubUrl/serverUrl, GitLab runner url) or a URL in a "
      "credential file (kubeconfig server, docker auths key, npmrc/pypirc registry) carries a password or token "
      "in its userinfo or query: it is copied wherever the URL is logged or shown.",
      help_uri="https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1",
      severity=Severity.HIGH,
      remediation="Rotate the credential at its issuer; write the URL without it and give the credential through "
      "the tool's own credential field or helper (kubeconfig users, docker credential helper, npm _authToken).")
def credential_in_url(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    for r in graph.nodes(NodeKind.RUNNER):
        reg = r.registration if isinstance(r, Runner) else None
        if reg is not None and reg.url_credential_fingerprint:
            yield credential_in_url.finding(
                r.id, reg.url_credential_fingerprint, subject=r.id, evidence=r.evidence,
                message=f"the registration of {r.name} ({reg.config_path}) has a credential in its URL",
                fingerprint=reg.url_credential_fingerprint, path=reg.config_path)
    for c in graph.nodes(NodeKind.CREDENTIAL):
        if isinstance(c, Credential) and c.url_credential_fingerprint:
            yield credential_in_url.finding(
                c.id, c.url_credential_fingerprint, subject=c.id, related=[], evidence=c.evidence,
                message=f"{c.path} on {c.host} names a URL with a credential in it",
                fingerprint=c.url_credential_fingerprint, path=c.path)
