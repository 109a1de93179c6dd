"""Serial killer (P3, neutral): each night (step 9, with the vigilante) kills a player.

Its kill is an ordinary kill (rules/werewolf.md §3.10): bodyguards intercept it, doctors and guardian angels
block it, the witch's heal cancels it (the specification's worked examples pit it against the
wolves' kill). It has no limit on its kills and is not immune to the wolves (the
specification gives it neither a limit nor an immunity).

It wins alone (``serial_killer_survived``) when it is alive with at most one other living
player: as in Mafia, one against one it cannot be voted out and kills at night. While it
lives it is a threat to both teams (``hostile``): the village has not won with the wolves
dead, nor the wolves with their parity, until it is dead too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....core.game import Result
from .base import NightKill, Role, Team, last_standing
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class SerialKill(NightKill):
    kind = "serial_kill"
    step = 9
    cause = "serial_killer"


@register
class SerialKiller(Role):
    id = "serial_killer"
    team = Team.NEUTRAL
    priority = "P3"
    win_side = "serial_killer"
    win_reason = "serial_killer_survived"
    max_count = 1
    actions = (SerialKill,)
    win_order = 30
    hostile = True

    @classmethod
    def special_win(cls, game: WerewolfGame) -> Result | None:
        return last_standing(game, cls)
