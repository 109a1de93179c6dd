"""Seat order across a series: kept for a block of games, then reshuffled.

The order of game ``i`` is a pure function of the roster, the seed and ``i // keep``, so a
resumed tournament seats players exactly as an uninterrupted one would. Seat orders are
public (``START seats=``); what must stay hidden is who gets which role, so the deal is no
business of the seating: each game deals uniformly at random from its own secret seed
(``Game.deal_roles``). A competition passes a seed derived from its secret master key
(``arena.core.keys``), so not even the seat order of the next block can be computed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

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
        return shuffled(self.players, derive_seed(self.seed, "seating", game_index // self.keep))


def shuffled(players: Sequence[str], seed: int) -> tuple[str, ...]:
    """``players`` in the seat order that ``seed`` picks, uniformly among all orders."""
    order = list(players)
    random.Random(seed).shuffle(order)
    return tuple(order)
