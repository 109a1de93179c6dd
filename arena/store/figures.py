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

from ..core.game import ABORTED, FORFEIT
from ..games.avalon.engine import ASSASSINATED_MERLIN, MERLIN_SURVIVED
from ..games.werewolf.engine import WerewolfGame
from ..games.werewolf.roles import REGISTRY

_WEREWOLF_ENDS = frozenset(WerewolfGame.end_reasons) - {FORFEIT, ABORTED}
"""Games that ended by the rules (a neutral role's own win is one of these reasons)."""


@dataclass(frozen=True)
class Figure:
    name: str
    role: str
    help: str
    counted: frozenset[str]
    success: frozenset[str]


_ASSASSINATION = (
    Figure("merlin_survival", "merlin", "as Merlin, survived the assassination (games that reached it)",
           frozenset({MERLIN_SURVIVED, ASSASSINATED_MERLIN}), frozenset({MERLIN_SURVIVED})),
    Figure("assassin_hit", "assassin", "as assassin, named Merlin (games that reached the assassination)",
           frozenset({MERLIN_SURVIVED, ASSASSINATED_MERLIN}), frozenset({ASSASSINATED_MERLIN})),
)
"""Avalon's figures, which Tuvalon (Avalon's quests and assassination) shares."""

FIGURES: Mapping[str, tuple[Figure, ...]] = types.MappingProxyType({
    "avalon": _ASSASSINATION,
    "tuvalon": _ASSASSINATION,
    # Each neutral role's own win (the jester executed, the piper charming everyone, ...).
    "werewolf": tuple(
        Figure(f"{name}_own_win", name, f"as {name}, won by its own condition ({role.win_reason})",
               _WEREWOLF_ENDS, frozenset({role.win_reason}))
        for name, role in REGISTRY.items() if role.win_reason
    ),
})
