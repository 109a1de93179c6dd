"""Priest (P3, village): each night (step 11.5, after the piper) cleanses a living player
(themself allowed) of every harmful status (rules/werewolf.md §2; the specification: "清除魅惑/中毒/诅咒等"): charmed,
silenced, and those the later roles add (``statuses.HARMFUL``).

Acting after the piper and the silencer, the priest can undo a charm or a silence of the
same night. The cleansed player is told what was lifted (``cleansed``), and only when
something was; a block stops the cleansing (§3.3: a block removes no status).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE, Choice
from ..mechanics import statuses
from .base import Action, Role, Team, target_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class PriestCleanse(Action):
    kind = "priest_cleanse"
    step = 11.5
    ordered = True
    """It lifts what the night's earlier steps gave: it waits for them."""

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        return target_choice(game, seat, cls.kind, self_ok=True)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value == NONE:
            return
        lifted = statuses.remove(game, value, statuses.HARMFUL)
        if lifted:
            game.tell("cleansed", {"night": game.day, "statuses": lifted}, (value,))


@register
class Priest(Role):
    id = "priest"
    team = Team.VILLAGE
    priority = "P3"
    actions = (PriestCleanse,)
