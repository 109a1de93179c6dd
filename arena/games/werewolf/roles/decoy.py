"""Decoy (P3, village): "夜晚可吸引一次针对目标的击杀" — once per game, at night, draws onto
itself one kill aimed at another player.

The decoy chooses (step 7, with the protections) another living player to lure for; the
first ordinary kill of the night aimed at that player (in the order of rules/werewolf.md §3.2, resolution.py) is
drawn onto the decoy: it is aimed at the decoy from then on, so the player is not attacked
at all (a protection on them is not used); a doctor, a jail or a charm on the decoy may
still save it, but no bodyguard takes the kill again (§3.10: protections do not chain). Poison is not an
ordinary kill and is never drawn, nor is a kill nothing may stop (the vigilante's shot
without ``protectAgainstVigilante``). The lure is spent when it is set, whether or not a
kill came, as the witch's heal is (§3.10): "一次" is one use. A blocked decoy sets no lure
and keeps it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..resolution import DRAW, Protection
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class DecoyDraw(Action):
    kind = "decoy_draw"
    step = 7

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            if game.role_of(seat) is Decoy:  # a shadow's copy spends nothing
                game.state[seat]["lure"] = False
            game.plan.protections.append(Protection(seat, value, DRAW))

    @classmethod
    def exhausted(cls, game: WerewolfGame, seat: int) -> bool:
        return not game.state[seat]["lure"]


@register
class Decoy(Role):
    id = "decoy"
    team = Team.VILLAGE
    priority = "P3"
    actions = (DecoyDraw,)

    @classmethod
    def initial_state(cls, game: WerewolfGame) -> dict[str, Any]:
        return {"lure": True}
