"""Role-specific figures, declared per game in this one place.

A figure is a rate over the games a bot played in one role: among the games whose end
reason is in ``counted``, the share whose reason is in ``success``. The generic stats
query only counts (bot, role, result, reason); adding a game's figures means adding an
entry here (or, later, a ``FIGURES`` attribute next to the game's engine).
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Mapping

from ..games.avalon.engine import ASSASSINATED_MERLIN, MERLIN_SURVIVED


@dataclass(frozen=True)
class Figure:
    name: str
    role: str
    help: str
    counted: frozenset[str]
    success: frozenset[str]


FIGURES: Mapping[str, tuple[Figure, ...]] = types.MappingProxyType({
    "avalon": (
        Figure("merlin_survival", "merlin", "as Merlin, survived the assassination (games that reached it)",
               frozenset({MERLIN_SURVIVED, ASSASSINATED_MERLIN}), frozenset({MERLIN_SURVIVED})),
        Figure("assassin_hit", "assassin", "as assassin, named Merlin (games that reached the assassination)",
               frozenset({MERLIN_SURVIVED, ASSASSINATED_MERLIN}), frozenset({ASSASSINATED_MERLIN})),
    ),
})
