"""Shadow (P3, neutral): each night (step 4.7) follows another living player and copies
their night actions, on the same players, as its own (rules/werewolf.md §3.7; the
specification: "夜晚跟随目标，复制其夜晚
行动"; mechanics/copies.py).

Every action of the followed player aimed at players, of a step after the shadow's, is
done again by the shadow when its step settles: a check or a comparison (the shadow is told
the result, as a ``SEER`` or ``DETECTIVE`` line), a follow or a watch (``TRACKED``,
``WATCHED``), a protection (a bodyguard's or a decoy's makes the shadow the one who takes
or draws the kill), a kill (the shadow's own, which protections meet as any other
and a bomb answers), a heal of the wolves' target, a poison, a silence, a charm, a
cleansing. A copy spends nothing: the shadow has no potion or bullet to spend. The
pack's vote and the little girl's peek are aimed at nobody and are not copied (a shadow
following a plain wolf copies nothing), nor is what comes before the shadow sets out:
Cupid, the thief, the jail, the roleblock, the bus driver's swap. A blocked player does
nothing to copy; a blocked shadow copies nothing. The shadow visits the player it follows,
then wherever it copies an action; it is told nothing else (it learns what it copied only
from the results a copy brings).

A swap moves the shadow like anyone (it follows whoever is where it went) and its copies
land where the originals do. The shadow acts early and ``controls`` later steps: no action
it could copy settles before it has chosen, whatever order the answers come in.

Side: neutral without a win of its own in the specification; as Mafia's "survivor" it
wins with whichever side wins if it is alive at the end (not in a draw). At most one per
game (a shadow following a shadow would copy a copy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..mechanics.copies import follow
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class ShadowFollow(Action):
    kind = "shadow_follow"
    step = 4.7
    controls = True

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            follow(game, seat, value, cls.step)


@register
class Shadow(Role):
    id = "shadow"
    team = Team.NEUTRAL
    priority = "P3"
    max_count = 1
    actions = (ShadowFollow,)
    survivor = True
