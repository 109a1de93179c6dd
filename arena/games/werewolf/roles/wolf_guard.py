"""Wolf guard (P3, werewolf): each night (step 7, with the other protections) protects one
werewolf from one ordinary kill (rules/werewolf.md §2; the specification's
NIGHT_WOLF_GUARD_PROTECT: "通常仅允许保护狼人").

Only a living werewolf-side player may be protected (any other is TARGET_INVALID), itself
included, and not the same one two nights running unless ``allowRepeatedProtect``
(REPEATED_PROTECT). The protection is a block (§3.10) against ordinary kills only (the
vigilante's shot, the serial killer's, an avenger's vengeance): it never stops poison, not
even with ``protectAgainstPoison``, which lets only the doctor's and the guardian angel's
blocks, the witch's heal and the warder's charm stop it. It also votes with the pack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.errors import ErrorCode
from ..choice import Choice, Refusal
from ..resolution import GUARD
from .base import Action, Team, protect, protect_choice
from .registry import register
from .werewolf import Werewolf, WolfVote

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class WolfGuardProtect(Action):
    kind = "wolf_guard_protect"
    step = 7

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        villagers: dict[int, Refusal] = {
            s: (ErrorCode.TARGET_INVALID, f"seat {s} is not a werewolf: you protect only the pack")
            for s in game.living()
            if game.role_of(s).team is not Team.WEREWOLF
        }
        return protect_choice(game, seat, cls.kind, self_ok=True, exclude=villagers)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        protect(game, seat, value, GUARD, cls.step)


@register
class WolfGuard(Werewolf):
    id = "wolf_guard"
    priority = "P3"
    actions = (WolfVote, WolfGuardProtect)
