"""Ratings: pure, deterministic rating systems (Elo, TrueSkill) for team games.

No I/O here: the store reads current ratings, calls ``rate`` and writes the changes in
the same transaction as the game. See ``model`` for matches and outcomes, ``elo`` and
``skill`` for the formulas and the abnormal-end treatment, ``stats`` for win rates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from .announce import announce
from .elo import Elo
from .model import (
    ABORTED,
    BOT,
    DRAW,
    FORFEIT,
    LOSS,
    RANKED,
    SIDE,
    WIN,
    Change,
    Entity,
    Group,
    Match,
    Rating,
    aborted,
    forfeit,
    ranked,
    side_key,
)
from .settings import RatingsConfig
from .skill import TrueSkill
from .stats import wilson


class RatingSystem(Protocol):
    """What the store needs from a rating system."""

    @property
    def name(self) -> str: ...

    def initial_rating(self, entity: Entity) -> Rating: ...

    def score(self, rating: Rating) -> float: ...

    def rate(self, match: Match, current: Mapping[Entity, Rating]) -> tuple[Change, ...]: ...


def default_systems(elo_k: float = 32.0, elo_side_k: float = 4.0) -> tuple[RatingSystem, ...]:
    """Both systems with the given Elo K (what ``ratings.elo_k`` in the config would set)."""
    return (Elo(k=elo_k, side_k=elo_side_k), TrueSkill())


__all__ = [
    "ABORTED",
    "BOT",
    "DRAW",
    "FORFEIT",
    "LOSS",
    "RANKED",
    "SIDE",
    "WIN",
    "Change",
    "Elo",
    "Entity",
    "Group",
    "Match",
    "Rating",
    "RatingSystem",
    "RatingsConfig",
    "TrueSkill",
    "aborted",
    "announce",
    "default_systems",
    "forfeit",
    "ranked",
    "side_key",
    "wilson",
]
