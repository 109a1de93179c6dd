"""Example bots built on the SDK; each runs as ``python -m arena.bots.<name> --server HOST:PORT --nick NICK``
(or ``python bots/<name>.py ...`` from a checkout).

A local tournament knows them, and the SDK's own random player, by short names
(``builtin_bots``): named here rather than imported, so that listing them (the command
line's help) loads no bot."""

from __future__ import annotations

from ..core import kit as kits

RANDOM_BOT = "arena.sdk.bot:Bot"
"""The bot a local tournament knows as ``random``."""


def builtin_bots() -> dict[str, str]:
    """Bot names a local tournament knows without a module path: ``random`` and every
    registered game's sample bots (its kit's)."""
    return {"random": RANDOM_BOT, **kits.bots()}
