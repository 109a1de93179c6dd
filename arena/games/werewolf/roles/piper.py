"""Piper (P1, neutral): each night (step 11) charms one living player not yet charmed.

The charmed learn they are charmed and who else is (as in Miller's Hollow). Being charmed
is a status for the rest of the game (mechanics/statuses.py). The piper wins
alone when alive and every other living player is charmed (checked after the lovers' win,
before the teams'). One charm per night: the spec's action has a single target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.errors import ErrorCode
from ....core.game import Result
from ..choice import NONE, Choice
from ..mechanics import statuses
from .base import Action, Role, Team, target_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

CHARMED = statuses.CHARMED


class PiperCharm(Action):
    kind = "piper_charm"
    step = 11

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice | None:
        exclude = {
            s: (ErrorCode.TARGET_INVALID, f"seat {s} is already charmed")
            for s in statuses.holders(game, CHARMED)
            if game.alive[s]
        }
        choice = target_choice(game, seat, cls.kind, exclude=exclude)
        return choice if len(choice.options) > 1 else None

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value == NONE:
            return
        statuses.add(game, CHARMED, value)
        living = [s for s in statuses.holders(game, CHARMED) if game.alive[s]]
        game.tell("charmed", {"night": game.day, "charmed": living, "new": value}, {*living, seat})


@register
class Piper(Role):
    id = "piper"
    team = Team.NEUTRAL
    priority = "P1"
    win_side = "piper"
    win_reason = "piper_charmed_all"
    max_count = 1
    actions = (PiperCharm,)
    win_order = 20

    @classmethod
    def special_win(cls, game: WerewolfGame) -> Result | None:
        pipers = [s for s in range(game.players) if game.role_of(s) is cls]
        living = game.living()
        if any(game.alive[p] for p in pipers) and all(statuses.has(game, CHARMED, s) or s in pipers for s in living):
            return Result(cls.win_side, frozenset(pipers), cls.win_reason)
        return None
