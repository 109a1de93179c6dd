"""Vigilante (P1, village): at night (step 9, after the wolves) shoots a living player.

An ordinary kill (10.4.2): bodyguards, doctors and heals stop it while
``protectAgainstVigilante`` holds, and nothing stops it otherwise. ``vigilanteShots`` bullets
per game (the spec is silent; default 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE, Choice
from ..resolution import Kill
from .base import Action, Role, Team, target_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class VigilanteShoot(Action):
    kind = "vigilante_shoot"
    step = 9

    @classmethod
    def decision(cls, game: "WerewolfGame", seat: int) -> Choice | None:
        return None if cls.exhausted(game, seat) else target_choice(game, seat, cls.kind)

    @classmethod
    def apply(cls, game: "WerewolfGame", seat: int, value: Any) -> None:
        if value != NONE:
            game.state[seat]["shots"] -= 1
            stoppable = game.options.protectAgainstVigilante
            game.plan.kills.append(Kill(value, "vigilante", seat, protectable=stoppable, healable=stoppable))

    @classmethod
    def exhausted(cls, game: "WerewolfGame", seat: int) -> bool:
        return game.state[seat]["shots"] <= 0


@register
class Vigilante(Role):
    id = "vigilante"
    team = Team.VILLAGE
    priority = "P1"
    actions = (VigilanteShoot,)

    @classmethod
    def initial_state(cls, game: "WerewolfGame") -> dict[str, Any]:
        return {"shots": game.options.vigilanteShots}
