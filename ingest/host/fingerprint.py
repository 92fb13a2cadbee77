"""Keyed fingerprints of secret bytes: the only thing the host collector keeps of a secret.

A fingerprint tells two values apart (a rotated credential, the same key on
two hosts) without revealing them: HMAC-SHA256 with a key, truncated.
"""

from __future__ import annotations

import hashlib
import hmac

__all__ = ["FINGERPRINT_HEX", "FINGERPRINT_KEY", "fingerprint"]

#: Default fingerprint key (documented, fixed): fingerprints stay comparable across runs and machines.
#: A per-installation key (``--key-file``) stops anyone holding a snapshot from confirming a guessed
#: low-entropy value (a password) against a fingerprint.
FINGERPRINT_KEY = b"graphkit/host-fingerprint/v1"
#: Hex digits kept of the HMAC-SHA256 (64 bits: enough to tell values apart, too few to be an oracle).
FINGERPRINT_HEX = 16


def fingerprint(data: bytes, key: bytes = FINGERPRINT_KEY) -> str:
    """Keyed, truncated fingerprint of secret bytes: HMAC-SHA256, first :data:`FINGERPRINT_HEX` hex digits.

    The caller drops ``data`` right after; only this value is kept.  Several parts are fingerprinted together
    by joining them with separators (HMAC is computed over the stream, so this equals feeding them one by one).

    >>> len(fingerprint(b"x")), fingerprint(b"x") == fingerprint(b"x"), fingerprint(b"x") == fingerprint(b"x", b"k")
    (16, True, False)
    """
    return hmac.new(key, data, hashlib.sha256).hexdigest()[:FINGERPRINT_HEX]

