"""Jester (P1, neutral): wins alone, and the game ends, when the village executes them.

Many variants let the game go on after the jester's win; with one winner per Result we end
it, which also stops the jester from being a free vote for the village afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....core.game import Result
from .base import Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


@register
class Jester(Role):
    id = "jester"
    team = Team.NEUTRAL
    priority = "P1"
    win_side = "jester"
    win_reason = "jester_executed"

    @classmethod
    def on_executed(cls, game: WerewolfGame, seat: int) -> str | Result:
        return Result(cls.win_side, frozenset({seat}), cls.win_reason)
