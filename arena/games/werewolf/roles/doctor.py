"""Doctor (P0, village): each night (step 7) blocks one ordinary kill on a player (rules/werewolf.md
§3.10).

Self-protection follows ``allowDoctorSelfProtect``; the same player two nights running only
with ``allowRepeatedProtect`` (REPEATED_PROTECT otherwise). Learns the wolves' target after
their vote (§3.8), which is after the protection was chosen (the order of §3.2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import Choice
from ..resolution import BLOCK
from .base import Action, Role, Team, protect, protect_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class DoctorProtect(Action):
    kind = "doctor_protect"
    step = 7

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        return protect_choice(game, seat, cls.kind, self_ok=game.options.allowDoctorSelfProtect)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        protect(game, seat, value, BLOCK, cls.step)


@register
class Doctor(Role):
    id = "doctor"
    team = Team.VILLAGE
    priority = "P0"
    actions = (DoctorProtect,)
    learns_wolf_target = True
