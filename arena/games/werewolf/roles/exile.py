"""Exile (P3, neutral): each night (step 3.5, between the jailer and the roleblocker)
banishes another living player for the night (rules/werewolf.md §3.4; the specification's
NIGHT_EXILE_BANISH, ``ABSENT``).

The banished player is out of the night (mechanics/blocks.py, ``banish``): blocked from
that step (told ``BLOCKED``, as any blocked player: the arena does not say why) and
beyond reach: no action aimed at them takes effect (a check, a protection, a charm, a
douse, a recruitment, a comparison or a link naming them), no kill reaches them (the
pack's, a shot, poison, fire) and nobody visits them, the jailer of step 3 included. A
kill that fails so is no death: the banished player lives, a bomb takes nobody along.
The bus driver's swap (step 4.5) does not move the banishment, and a swap naming the
banished player fails whole, as any action naming two players one of whom is absent. A
vote for them (the pack's) still counts: the pack's kill is lost, it does not fall to
another victim.

Between the two blocks: a jailed exile banishes nobody (the jail comes first), and a
banished roleblocker blocks nobody. The exile never banishes themself (it would be an
immunity) and may banish the same player night after night, like the roleblocker.

Side: neutral with no win of its own, as the specification gives none; like the
roleblocker (the Mafia "survivor") it wins with whichever side wins if it is alive at the
end. At most one exile: two banishing each other would have no order to settle in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..mechanics.blocks import banish
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class ExileBanish(Action):
    kind = "exile_banish"
    step = 3.5
    controls = True

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            assert cls.step is not None
            banish(game, value, cls.step)


@register
class Exile(Role):
    id = "exile"
    team = Team.NEUTRAL
    priority = "P3"
    max_count = 1
    actions = (ExileBanish,)
    survivor = True
