"""Little girl (P2, village): each night may peek at the wolves (rules/werewolf.md §2); a peek tells
her the pack's target, and may get her caught, and a caught little girl dies.

The specification leaves what she learns to the implementation ("部分信息"). As in
Miller's Hollow she sees the wolves' victim, not the wolves: she is told the target (or that
there is none) as the doctor and the witch are (``wolf_target``), once the pack has voted
(step 8.5, right after the wolves). Each peek is caught with ``littleGirlCaughtPercent``
percent chance (the game's seeded generator): the wolves then learn who she is
(``caught``) and she is attacked by the pack, an ordinary kill carried out by the first
unblocked wolf by seat, which protections may stop as any other. With every wolf blocked
nobody is watching: she cannot be caught. Not peeking is always safe. A
blocked little girl does not peek.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE, PEEK, Choice
from ..mechanics.blocks import is_blocked
from ..resolution import Kill
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class LittleGirlPeek(Action):
    kind = "little_girl_peek"
    step = 8.5
    visits = False
    """She watches from afar: a peek visits nobody."""
    ordered = True
    """She sees the pack's target: her step waits for the wolves'."""

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        return Choice(seat, cls.kind, (PEEK, NONE))

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != PEEK:
            return
        game.night.tell_when_free(game, "wolf_target", {"night": game.day, "target": game.plan.wolf_target}, (seat,))
        free = [w for w in game.living_wolves() if not is_blocked(game, w)]
        if free and game.rng.randrange(100) < game.options.littleGirlCaughtPercent:
            game.tell("caught", {"night": game.day, "player": seat}, game.living_wolves())
            game.plan.kills.append(Kill(seat, "wolves", free[0], cls.step))


@register
class LittleGirl(Role):
    id = "little_girl"
    team = Team.VILLAGE
    priority = "P2"
    actions = (LittleGirlPeek,)
