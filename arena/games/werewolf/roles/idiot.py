"""Idiot (P1, village): the first time the village executes them, they are revealed and
live on without a vote (they still speak). A second execution, or any night death, kills."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....core.game import Result
from .base import DIES, SPARED, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


@register
class Idiot(Role):
    id = "idiot"
    team = Team.VILLAGE
    priority = "P1"

    @classmethod
    def on_executed(cls, game: WerewolfGame, seat: int) -> str | Result:
        state = game.state[seat]
        if state.get("revealed"):
            return DIES
        state["revealed"] = True
        state["no_vote"] = True
        game.tell("idiot_revealed", {"seat": seat, "role": cls.id})
        return SPARED
