"""Signing: the keys a job signs with (``signs_with`` edges to :class:`~graphkit.model.SigningKey` nodes).

- Key-based keys are ``{cosign|gpg}:{owner}/{repo}:{SECRET}``: named by the
  secret holding them, in the repository whose secrets are read, and granted
  by it.
- Keyless sigstore identities are ``sigstore:github.com/{owner}/{repo}/{workflow path}``:
  the certificate identity is the workflow *defining* the job (the called
  workflow for reusable workflows); without ``id-token: write`` the job
  cannot get the certificate, so the edge is ``possible``.

Sources: https://github.com/crazy-max/ghaction-import-gpg,
https://docs.sigstore.dev/cosign/signing/overview/, https://github.com/actions/attest-build-provenance
"""

from __future__ import annotations

from collections.abc import Sequence

from graphkit.model import EdgeKind, Evidence, SigningKey, ids, secret_key

from .base import StepRule, StepView

__all__ = ["GPG_IMPORT", "KEYLESS_ACTIONS", "KEYLESS_ATTEST", "key_from_secrets", "keyless", "signing_key"]

#: Actions that sign or attest with a keyless (Fulcio) certificate of the job's workflow identity.
KEYLESS_ACTIONS = ("sigstore/gh-action-sigstore-python", "actions/attest-build-provenance", "actions/attest",
                   "actions/attest-sbom")


def signing_key(sv: StepView, scheme: str, identifier: str, ev: Evidence, *, secrets: Sequence[str] = (),
                possible: bool = False) -> None:
    """Add the key ``{scheme}:{identifier}``, the job's ``signs_with`` edge to it, and its secret grants."""
    kid = sv.out.node(SigningKey(id=ids.signing_key(scheme, identifier), name=f"{scheme}:{identifier}",
                                 scheme=scheme, identifier=identifier, evidence=[ev]))
    sv.from_job(EdgeKind.SIGNS_WITH, kid, ev, possible=possible)
    sv.job.grant(secrets, EdgeKind.SIGNS_WITH, kid, ev)


def keyless(sv: StepView, ev: Evidence) -> None:
    """Sigstore keyless signing: needs an OIDC token (``possible`` without id-token: write)."""
    signing_key(sv, "sigstore", sv.job.identity, ev, possible=sv.job.oidc_id is None)


def key_from_secrets(sv: StepView, scheme: str, secrets: Sequence[str], fallback: str, ev: Evidence) -> None:
    """One key per secret holding it (as the holding repository names it), else one named ``fallback``."""
    names = sv.job.mapped(secrets)
    for name in names or [fallback]:
        signing_key(sv, scheme, f"{sv.job.rk}:{secret_key(name) if names else name}", ev, secrets=secrets)


def gpg_import(sv: StepView) -> None:
    """crazy-max/ghaction-import-gpg: the key in ``gpg_private_key`` (when it comes from a secret)."""
    raw = sv.arg("gpg_private_key", "gpg-private-key")
    secrets = sv.secrets_in(raw)
    if secrets:
        key_from_secrets(sv, "gpg", secrets, "gpg-key", sv.ev("with.gpg_private_key", raw))


def keyless_attest(sv: StepView) -> None:
    """Sigstore signing and GitHub attestations: the job's keyless identity."""
    keyless(sv, sv.ev("uses", sv.step.uses))


GPG_IMPORT = StepRule("gpg-import", gpg_import, "GPG key imported from a secret",
                      actions=("crazy-max/ghaction-import-gpg",))
KEYLESS_ATTEST = StepRule("keyless-attest", keyless_attest, "sigstore keyless signature or attestation",
                          actions=KEYLESS_ACTIONS)
