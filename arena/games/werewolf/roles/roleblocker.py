"""Roleblocker (P2, neutral): each night (step 4) stops another player's night actions.

The block (mechanics/blocks.py) holds for the whole night: the target's answers that night
take no effect (a kill, a protection, a check, a potion; a blocked witch is asked with ``none``
alone and keeps her potions), and the target is told ``blocked``. A block
removes no status (rules/werewolf.md §3.3). The jailer (step 3) acts before it, so a jailed roleblocker
blocks nobody. A blocked wolf's vote does not count towards the pack's target.

Side: the specification makes the roleblocker neutral and gives it no win of its own. As
the neutral "survivor" of Mafia games it wins alongside whichever side wins, if it is
alive at the end (not in a draw); it never stops another side's win.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..mechanics.blocks import block
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class Roleblock(Action):
    kind = "roleblock"
    step = 4
    controls = True

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            block(game, value, cls.step)


@register
class Roleblocker(Role):
    id = "roleblocker"
    team = Team.NEUTRAL
    priority = "P2"
    max_count = 1
    """Two roleblockers on each other would have no order to settle in."""
    actions = (Roleblock,)
    survivor = True
