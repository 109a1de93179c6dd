"""The one line the referee says in the channel after a game's ratings change."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .model import BOT, Change

MAX_BYTES = 400
"""An IRC PRIVMSG payload budget (servers prepend the sender's prefix to 512 bytes)."""


def announce(game: str, changes: Mapping[str, Sequence[Change]], limit: int = MAX_BYTES) -> str:
    """``ratings avalon | elo: alice 1516 +16, bob 1484 -16 | trueskill: alice 27.0 +2.0, bob 23.0 -2.0``

    TrueSkill shows mu (sigma is on the leaderboard), to fit ten players of two systems.

    Players in the order given (seat order); side terms are left out (they are about
    the game, not the bots). Cut with an ellipsis at ``limit`` UTF-8 bytes so the line
    is always sendable.
    """
    parts = [f"ratings {game}"]
    for system, items in changes.items():
        shown = []
        for c in items:
            if c.entity[0] != BOT:
                continue
            if c.after.sigma:
                shown.append(f"{c.entity[1]} {c.after.mu:.1f} {c.delta:+.1f}")
            else:
                shown.append(f"{c.entity[1]} {c.after.mu:.0f} {c.delta:+.0f}")
        if shown:
            parts.append(f"{system}: " + ", ".join(shown))
    if len(parts) == 1:
        parts.append("no change")
    line = " | ".join(parts)
    data = line.encode("utf-8")
    if len(data) <= limit:
        return line
    return data[: limit - 3].decode("utf-8", "ignore") + "…"
