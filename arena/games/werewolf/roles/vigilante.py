"""Vigilante (P1, village): at night (step 9, after the wolves) shoots a living player.

An ordinary kill (rules/werewolf.md §3.10): bodyguards, doctors and heals stop it while
``protectAgainstVigilante`` holds, and nothing stops it otherwise. ``vigilanteShots`` bullets
per game (the spec is silent; default 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import NightKill, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class VigilanteShoot(NightKill):
    kind = "vigilante_shoot"
    step = 9
    cause = "vigilante"

    @classmethod
    def spend(cls, game: WerewolfGame, seat: int) -> None:
        game.state[seat]["shots"] -= 1

    @classmethod
    def exhausted(cls, game: WerewolfGame, seat: int) -> bool:
        shots: int = game.state[seat]["shots"]  # the seat's state is a plain dict: its values are untyped
        return shots <= 0

    @classmethod
    def stoppable(cls, game: WerewolfGame) -> bool:
        return game.options.protectAgainstVigilante


@register
class Vigilante(Role):
    id = "vigilante"
    team = Team.VILLAGE
    priority = "P1"
    actions = (VigilanteShoot,)

    @classmethod
    def initial_state(cls, game: WerewolfGame) -> dict[str, Any]:
        return {"shots": game.options.vigilanteShots}
