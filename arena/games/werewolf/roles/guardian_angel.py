"""Guardian angel (P2, village): each night (step 7) blocks one ordinary kill on another
player (rules/werewolf.md §3.10; the specification's "common version", a preventive
protection like the doctor's, not an immunity).

It protects others only (§2; the specification: "保护他人"), never itself, and, like the doctor and
the bodyguard, not the same player two nights running unless ``allowRepeatedProtect``. Its
block is matched to kills as the doctor's (§3.10, resolution.py): a guardian
angel and a doctor on the same victim of one kill, saves the victim once and leaves the
other protection unused. With ``protectAgainstPoison`` it stops a poisoning too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import Choice
from ..resolution import BLOCK
from .base import Action, Role, Team, protect, protect_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class GuardianAngelProtect(Action):
    kind = "guardian_angel_protect"
    step = 7

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        return protect_choice(game, seat, cls.kind, self_ok=False)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        protect(game, seat, value, BLOCK, cls.step)


@register
class GuardianAngel(Role):
    id = "guardian_angel"
    team = Team.VILLAGE
    priority = "P2"
    actions = (GuardianAngelProtect,)
