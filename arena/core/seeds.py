"""Stable seeds derived from a root seed, so every game of a series is reproducible alone."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

SEPARATOR = "\x1f"


def derive_seed(*parts: object) -> int:
    """A 63-bit seed that depends only on ``parts`` (not on PYTHONHASHSEED or the platform);
    63 bits so that it fits a signed 64-bit database integer."""
    text = SEPARATOR.join(map(str, parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def seed_series(first: object, *parts: object) -> Callable[[object], int]:
    """``derive_seed(first, *parts, last)`` as a function of ``last``: the same numbers at
    half the cost, for a series of games (the common prefix is hashed once, and each seed
    copies that hash rather than setting up its own)."""
    text = SEPARATOR.join(map(str, (first, *parts))) + SEPARATOR
    prefix = hashlib.blake2b(text.encode(), digest_size=8)

    def seed(last: object) -> int:
        digest = prefix.copy()
        digest.update(str(last).encode())
        return int.from_bytes(digest.digest(), "big") >> 1

    return seed
