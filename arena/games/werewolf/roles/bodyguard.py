"""Bodyguard (P1, village): each night (step 7) guards another player and takes the first
ordinary kill aimed at them, dying in their place (rules/werewolf.md §3.10).

A bodyguard cannot guard themself (an interception would kill them anyway) nor, without
``allowRepeatedProtect``, the same player two nights running.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import Choice
from ..resolution import INTERCEPT
from .base import Action, Role, Team, protect, protect_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class BodyguardProtect(Action):
    kind = "bodyguard_protect"
    step = 7

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        return protect_choice(game, seat, cls.kind, self_ok=False)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        protect(game, seat, value, INTERCEPT, cls.step)


@register
class Bodyguard(Role):
    id = "bodyguard"
    team = Team.VILLAGE
    priority = "P1"
    actions = (BodyguardProtect,)
