"""Warder (P3, village): puts a one-shot charm on a player that stops one lethal event
(rules/werewolf.md §3.10; the specification's NIGHT_WARDER_WARD: "抵挡一次致死事件（Kill 或
Effect，按实现）").

The charm is a status (``warded``, mechanics/statuses.py) held until it stops a night kill:
an ordinary kill, or poison when ``protectAgainstPoison`` lets protections stop it (as the
doctor's block, never an unstoppable kill). It is matched after the night's blocks
(resolution.py), so a doctor on the same player is used first and the charm is kept; it
then lifts. It is beneficial: a priest's cleansing leaves it, and a block leaves it too
(§3.3). Deaths in the day (an execution, a hunter's shot, a lover's grief) are not night
kills and it does not stop them.

The warder charms (step 7, with the protections) another living player, and has one charm
in play at a time: while one of its charms is held by a living player it is asked with
``none`` alone, so after its charm stopped a kill (or its holder died) it may charm again
the next night. Offered nothing in between, it can tell its charm is still in play. The
holder is not told. Fire is an effect kill like poison: the charm stops it only with
``protectAgainstFire`` (roles/arsonist.py), and otherwise stays.
A blocked warder charms nobody that night. At most one warder: a charm's maker is never in
doubt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..mechanics import statuses
from ..resolution import WARD, Protection
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class WarderWard(Action):
    kind = "warder_ward"
    step = 7

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            statuses.add(game, statuses.WARDED, value)
            if game.role_of(seat) is Warder:  # a shadow's copy charms the same player: nothing to keep
                game.state[seat]["charm"] = value

    @classmethod
    def exhausted(cls, game: WerewolfGame, seat: int) -> bool:
        charm = game.state[seat].get("charm")
        return charm is not None and game.alive[charm] and statuses.has(game, statuses.WARDED, charm)

    @classmethod
    def dawn(cls, game: WerewolfGame) -> None:
        """Every charm in play protects its living holder tonight, the warder dead or alive."""
        for seat in range(game.players):
            charm = game.state[seat].get("charm") if game.role_of(seat) is Warder else None
            if charm is not None and game.alive[charm] and statuses.has(game, statuses.WARDED, charm):
                game.plan.protections.append(Protection(seat, charm, WARD, statuses.WARDED))


@register
class Warder(Role):
    id = "warder"
    team = Team.VILLAGE
    priority = "P3"
    max_count = 1
    actions = (WarderWard,)
