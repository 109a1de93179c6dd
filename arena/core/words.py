"""Counts in words, for every line a person reads: "1 game", "2 games", never "1 games"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, in the plural (``plural``, by default ``noun`` + s) unless ``n`` is 1."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
