"""Copies: a player who repeats another's night actions as their own (the shadow's).

A follower set out at step ``s`` after a player copies each of that player's actions of a
later step that is aimed at players (``Action.visits``: a check, a protection, a kill, a
silence, a charm...), on the same players, when that step settles: the engine gives
effect to the original and then to each copy (``Action.copy``, which spends no use of the
follower's), by follower seat, so a night never depends on the order of its answers. A
vote (the pack's) or a peek is aimed at nobody and is not copied; an answer of ``none``
copies as nothing, and one dropped by a block is not there to copy. A blocked follower
copies nothing. A copy lands where the original does (mechanics/redirects.py) and visits
the same players, from the follower. The store is ``NightPlan.follows``, plain data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .blocks import is_blocked

if TYPE_CHECKING:
    from ..engine import WerewolfGame
    from ..roles.base import Action


def follow(game: WerewolfGame, follower: int, target: int, step: float) -> None:
    """``follower`` copies ``target``'s actions of the steps after ``step`` tonight."""
    game.plan.follows[follower] = (target, step)


def followers(game: WerewolfGame, seat: int, action: type[Action]) -> list[int]:
    """Who copies ``seat``'s answer to ``action`` now, by seat."""
    if not action.visits or action.step is None:
        return []
    return sorted(
        f
        for f, (target, step) in game.plan.follows.items()
        if target == seat and step < action.step and not is_blocked(game, f, action.step)
    )
