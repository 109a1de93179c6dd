"""Seat order across a series: kept for a block of games, then reshuffled.

The order of game ``i`` is a pure function of the roster, the seed and ``i // keep``, so a
resumed tournament seats players exactly as an uninterrupted one would. So is its deal:
within a block the role slots rotate one seat per game, so over any ``players``
consecutive games of a block every seat (every bot) holds every role slot exactly once —
role luck evens out instead of following the seats.
"""

from __future__ import annotations

import random
from typing import Sequence

from .seeds import derive_seed

DEFAULT_KEEP = 16


class Seating:
    def __init__(self, players: Sequence[str], keep: int = DEFAULT_KEEP, seed: int = 0) -> None:
        if keep < 1:
            raise ValueError("keep must be at least 1")
        if len(set(players)) != len(players):
            raise ValueError("player names must be distinct")
        self.players = tuple(sorted(players))
        self.keep = keep
        self.seed = seed

    def order(self, game_index: int) -> tuple[str, ...]:
        """The seat order of the ``game_index``-th game (0-based) of the series."""
        block = game_index // self.keep
        order = list(self.players)
        random.Random(derive_seed(self.seed, "seating", block)).shuffle(order)
        return tuple(order)

    def deal(self, game_index: int, players: int) -> tuple[int, ...]:
        """The deal of game ``game_index``: seat ``s`` gets the ``deal[s]``-th role of the
        game's role list (see ``Game.deal_roles``). A random permutation per block,
        rotated by one seat per game."""
        block = game_index // self.keep
        base = list(range(players))
        random.Random(derive_seed(self.seed, "deal", block, players)).shuffle(base)
        shift = (game_index - block * self.keep) % players
        return tuple(base[(s + shift) % players] for s in range(players))
