"""Wolf witch (P3, werewolf): a werewolf with one poison for the whole game
(rules/werewolf.md §2; the specification's NIGHT_WOLF_WITCH_POISON: "Poison/Effect"). Its
role list says "毒杀或干扰" (poison or
interference); the specification defines an action for the poison only, so that is the
power.

It votes with the pack, and may poison a living player other than itself at step 10.6,
right after the witch's poison: the same kill as the witch's (cause ``poison``): never
intercepted by a bodyguard, stopped by blocks, charms and heals only with
``protectAgainstPoison``, and a poisoned hunter shoots only with ``hunterShootOnPoison``.
Unlike the witch it does not wait for the pack's target (it voted on it): it is asked at
the start of the night. A blocked wolf witch keeps its poison.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .registry import register
from .werewolf import Werewolf, WolfVote
from .witch import Poison

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class WolfWitchPoison(Poison):
    kind = "wolf_witch_poison"
    step = 10.6


@register
class WolfWitch(Werewolf):
    id = "wolf_witch"
    priority = "P3"
    actions = (WolfVote, WolfWitchPoison)

    @classmethod
    def initial_state(cls, game: WerewolfGame) -> dict[str, Any]:
        return {"poison": True}
