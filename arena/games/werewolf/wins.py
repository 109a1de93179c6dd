"""Who wins (rules/werewolf.md §5): the sides and end reasons a game may have, and the check.

The check asks the ``special_win`` of every role in play in ``win_order``: the lovers (10),
the piper (20), the cult (25), the serial killer (30), the arsonist (40); the first that
holds ends the game. Then, unless a ``hostile`` neutral lives (serial killer, arsonist, cult
leader), the village wins with no wolf alive and the wolves with at least as many living
wolves as living village-side players. The jester's win comes from its execution, at once;
a living ``survivor`` neutral (roleblocker, bomb, exile, dealer) joins whichever side wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.game import ABORTED, FORFEIT, Result
from .roles import REGISTRY, Team

if TYPE_CHECKING:
    from .engine import WerewolfGame

ALL_WOLVES_ELIMINATED = "all_wolves_eliminated"
PARITY_OR_MAJORITY = "parity_or_majority"
DAY_LIMIT = "day_limit"
# Neutral roles add their own sides and reasons (lovers, piper, jester for P1).
SIDES = (Team.VILLAGE.value, Team.WEREWOLF.value, *dict.fromkeys(r.win_side for r in REGISTRY.values() if r.win_side))
END_REASONS = (
    ALL_WOLVES_ELIMINATED,
    PARITY_OR_MAJORITY,
    *dict.fromkeys(r.win_reason for r in REGISTRY.values() if r.win_reason),
    DAY_LIMIT,
    FORFEIT,
    ABORTED,
)


def winner(game: WerewolfGame) -> Result | None:
    """The game's result if it is won now, else None."""
    for role in game.in_play:
        result = role.special_win(game)
        if result is not None:
            return result
    wolves = village = 0
    for s in range(game.players):
        if game.alive[s]:
            role = game.seat_roles[s]
            if role.hostile:
                return None
            wolves += role.team is Team.WEREWOLF
            village += role.team is Team.VILLAGE
    if wolves == 0:
        return Result(Team.VILLAGE.value, _team_seats(game, Team.VILLAGE), ALL_WOLVES_ELIMINATED)
    if wolves >= village:
        return Result(Team.WEREWOLF.value, _team_seats(game, Team.WEREWOLF), PARITY_OR_MAJORITY)
    return None


def with_survivors(game: WerewolfGame, result: Result) -> Result:
    """``result`` with the living ``survivor`` neutrals among the winners, if a side won."""
    if result.winner is None:
        return result
    survivors = {s for s in game.living() if game.seat_roles[s].survivor}
    return Result(result.winner, result.winners | survivors, result.reason)


def _team_seats(game: WerewolfGame, team: Team) -> frozenset[int]:
    return frozenset(s for s in range(game.players) if game.seat_roles[s].team is team)
