"""Mason (P2, village): the masons know each other from the start, and so know that they
are all on the village's side (rules/werewolf.md §2). No night action.

They learn it with their roles (``masons``, to the masons alone), as the wolves learn their
pack; a lone mason learns that there is no other. At least two are usually dealt, but one
is allowed. A thief who takes a mason card is a mason from then on: every mason, the thief
included, is told the masons again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


@register
class Mason(Role):
    id = "mason"
    team = Team.VILLAGE
    priority = "P2"
    chaos_copies = 2

    @classmethod
    def on_deal(cls, game: WerewolfGame, seats: list[int]) -> None:
        game.tell("masons", {"masons": seats}, seats)
