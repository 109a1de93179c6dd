"""Jailer (P2, village): each night (step 3, the first to act after Cupid) jails another
living player: the prisoner is protected that night and cannot act (rules/werewolf.md §3.3).

The jail is a block (mechanics/blocks.py: the prisoner's answers that night take no effect
and they are told ``blocked``; a jailed roleblocker blocks nobody, since the jailer acts
first) and a protection of the preventive kind, like the doctor's (§3.10): it stops one
ordinary kill on the prisoner, not poison unless ``protectAgainstPoison``. The
specification does not make the jail an immunity and says a protection not declared
an immunity works once. The jailer never jails themself, nor, without
``allowRepeatedProtect``, the same player two nights running.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE, Choice
from ..mechanics.blocks import block
from ..resolution import BLOCK
from .base import Action, Role, Team, protect, protect_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class JailerJail(Action):
    kind = "jailer_jail"
    step = 3
    controls = True

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        return protect_choice(game, seat, cls.kind, self_ok=False)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        protect(game, seat, value, BLOCK, cls.step)
        if value != NONE:
            block(game, value, cls.step)


@register
class Jailer(Role):
    id = "jailer"
    team = Team.VILLAGE
    priority = "P2"
    max_count = 1
    """Two jailers jailing each other would have no order to settle in."""
    actions = (JailerJail,)
