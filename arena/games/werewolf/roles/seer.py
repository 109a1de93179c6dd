"""Seer (P0, village): each night (step 5) learns whether a living player is village or werewolf.

Neutral roles look like village (rules/werewolf.md §2: the specification names only the two
answers); a role may change how it
looks with ``Role.seen_as`` (P3 miller, godfather). A check moved by a bus driver's swap
reads the player it landed on, under the name of the one chosen (mechanics/redirects.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..mechanics.redirects import aimed
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class SeerCheck(Action):
    kind = "seer_check"
    step = 5

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            named = aimed(game, cls.step, value)
            game.tell(
                "seer_result", {"night": game.day, "target": named, "team": game.role_of(value).seen_as()}, (seat,)
            )


@register
class Seer(Role):
    id = "seer"
    team = Team.VILLAGE
    priority = "P0"
    actions = (SeerCheck,)
