"""Secret master keys, and the seeds and deals derived from them.

A tournament (or an ``arena serve`` store) draws one key from the operating system when it
is created and keeps it in the store, never printed. Every secret of its games — seeds,
deals — is an HMAC of that key and a label, so a resumed series plays exactly the same
games, while no public line, no setting and no amount of earlier games lets anyone compute
the next deal. Public seeds (``derive_seed``) remain for what may be public: ``simulate``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

KEY_BYTES = 32


def new_key() -> bytes:
    """A fresh master key from the operating system's CSPRNG."""
    return secrets.token_bytes(KEY_BYTES)


def derive(key: bytes, *parts: object) -> int:
    """A 63-bit seed (it fits a signed 64-bit database integer) that only a holder of
    ``key`` can compute; distinct ``parts`` (a label first) give independent seeds."""
    if len(key) < 16:
        raise ValueError("a master key has at least 16 bytes")
    text = "\x1f".join(str(p) for p in parts).encode()
    return int.from_bytes(hmac.digest(key, text, hashlib.sha256)[:8], "big") >> 1
