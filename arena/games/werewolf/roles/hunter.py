"""Hunter (P0, village): on death may shoot one living player (rules/werewolf.md §4.2).

Shoots when killed by wolves, executed, shot, heartbroken, killed by the vigilante or burnt
by the arsonist (the specification makes poison alone an exception); when poisoned only with
``hunterShootOnPoison``. The shot is asked in the day (§4, steps 3 and 7)
and kills at once; it cannot be protected.

With ``revealRolesOnDeath`` off the hunter stays hidden: every player who dies is asked
``hunter_shoot`` at once, by DM (the others with ``none`` as their only option), so neither
who is asked nor how long the day pauses tells who the hunter was; the public line names
the shot player, never the shooter, and a declined shot says nothing. A shot does tell that
a hunter was among the dead: the rules make it kill in public.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE, Choice
from .base import Role, Team, Trigger, target_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class HunterShoot(Trigger):
    kind = "hunter_shoot"

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice | None:
        choice = target_choice(game, seat, cls.kind)
        return choice if len(choice.options) > 1 else None

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        target = None if value == NONE or not game.alive[value] else value  # an earlier shot of the round got them
        if game.options.revealRolesOnDeath:
            game.tell("hunter_shot", {"hunter": seat, "target": target})
        elif target is not None:
            game.tell("hunter_shot", {"target": target})
        if target is not None:
            game.kill(target, "hunter")


@register
class Hunter(Role):
    id = "hunter"
    team = Team.VILLAGE
    priority = "P0"
    actions = (HunterShoot,)

    @classmethod
    def on_death(cls, game: WerewolfGame, seat: int, causes: list[str]) -> type[HunterShoot] | None:
        if "poison" in causes and not game.options.hunterShootOnPoison:
            return None
        return HunterShoot
