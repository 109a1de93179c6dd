"""Silencer (P3, werewolf): a werewolf who each night (step 8.2, after the pack's vote)
silences a living player: the player may not speak the next day (rules/werewolf.md §2, ``SILENCED``).

"次日禁止发言/投票（按实现）": the arena takes the speech away, not the vote (a silenced
player still votes: the vote is the village's, the floor is one voice). The silence is a
status that lasts through the next day (mechanics/statuses.py), announced to everyone when
the day begins (``silenced``): the player gets no turn at the floor that day (no
candidacy, no discussion or runoff turn, no last words), and a priest's cleansing that
night lifts it. It also votes and talks with the pack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..mechanics import statuses
from .base import Action
from .registry import register
from .werewolf import Werewolf, WolfVote

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class SilencerSilence(Action):
    kind = "silencer_silence"
    step = 8.2

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            statuses.add(game, statuses.SILENCED, value, until=game.day)


@register
class Silencer(Werewolf):
    id = "silencer"
    priority = "P3"
    actions = (WolfVote, SilencerSilence)
