"""Stable seeds derived from a root seed, so every game of a series is reproducible alone."""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 63-bit seed that depends only on ``parts`` (not on PYTHONHASHSEED or the platform);
    63 bits so that it fits a signed 64-bit database integer."""
    text = "\x1f".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1
