"""Keyed fingerprints of secret bytes: the only thing the host collector keeps of a secret.

A fingerprint tells two values apart (a rotated credential, the same key on
two hosts) without revealing them: HMAC-SHA256 with a key, truncated.  Defined
once in :mod:`graphkit.redact` (URL credentials and literal tokens use it too).
"""

from __future__ import annotations

from graphkit.redact import FINGERPRINT_HEX, FINGERPRINT_KEY, fingerprint

__all__ = ["FINGERPRINT_HEX", "FINGERPRINT_KEY", "fingerprint"]
