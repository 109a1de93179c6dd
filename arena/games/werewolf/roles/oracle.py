"""Oracle (P2, village): each night (step 12, the last) marks a living player; when the
oracle dies, the role of the player it marked last is told to everyone (rules/werewolf.md §2).

The mark of the night the oracle dies counts (step 12 settles before dawn). The reveal is
the oracle's death-triggered ability, told as the oracle dies: at dawn, just before
``DAWN``, for a night death; at once for a death in the day. It names the marked player
and their role, not the oracle (with ``revealRolesOnDeath`` off, it still tells that an
oracle died). A blocked oracle's mark of that night is not made; the one before stands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class OracleMark(Action):
    kind = "oracle_mark"
    step = 12

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            game.state[seat]["marked"] = value


@register
class Oracle(Role):
    id = "oracle"
    team = Team.VILLAGE
    priority = "P2"
    actions = (OracleMark,)

    @classmethod
    def on_death(cls, game: WerewolfGame, seat: int, causes: list[str]) -> None:
        marked = game.state[seat].get("marked")
        if marked is not None:
            game.tell("oracle_reveal", {"target": marked, "role": game.roles[marked]})
