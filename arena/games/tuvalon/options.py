"""Tuvalon's options: the rules are fixed; only the speech budget may be set."""

from __future__ import annotations

from ...core.options import Options, option


class TuvalonOptions(Options):
    speech_budget: int = option(
        4000,
        help="bytes (UTF-8) each player may say in a game, both discussions together; going over forfeits "
        "the game (the abnormal end); 0: no budget",
    )
