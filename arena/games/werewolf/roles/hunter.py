"""Hunter (P0, village): on death may shoot one living player (10.3).

Shoots when killed by wolves, executed, shot, heartbroken or killed by the vigilante; when
poisoned only with ``hunterShootOnPoison``. The shot is asked in the day (5.3 steps 4 and 9)
and kills at once; it cannot be protected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE, Choice
from .base import Action, Role, Team, target_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class HunterShoot(Action):
    kind = "hunter_shoot"

    @classmethod
    def decision(cls, game: "WerewolfGame", seat: int) -> Choice | None:
        choice = target_choice(game, seat, cls.kind)
        return choice if len(choice.options) > 1 else None

    @classmethod
    def apply(cls, game: "WerewolfGame", seat: int, value: Any) -> None:
        game.tell("hunter_shot", {"hunter": seat, "target": None if value == NONE else value})
        if value != NONE:
            game.kill(value, "hunter")


@register
class Hunter(Role):
    id = "hunter"
    team = Team.VILLAGE
    priority = "P0"
    actions = (HunterShoot,)

    @classmethod
    def on_death(cls, game: "WerewolfGame", seat: int, causes: list[str]) -> type[HunterShoot] | None:
        if "poison" in causes and not game.options.hunterShootOnPoison:
            return None
        return HunterShoot
