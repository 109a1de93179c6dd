"""Bus driver (P3, neutral): each night (step 4.5) swaps two living players' places: every
action of a later step aimed at one lands on the other (rules/werewolf.md §3.6; the
specification's NIGHT_BUS_DRIVER_SWAP:
"交换两名玩家当夜'被指向'的目标（目标重映射）"; mechanics/redirects.py).

A control action, as in Mafia, where the bus driver acts after the roleblocker and before
everyone else: the jail (3) and the roleblock (4) come first, so they are not moved and a
jailed or roleblocked driver swaps nobody; every check, protection, kill, status and visit
after it follows the swap, the wolves' kill and the witch's heal of their target too (both
aimed at that target, they land together: a heal saves only where the kill it answers
landed, §3.10). A result names the player its actor chose, with what was found where the
action landed (a seer who checks A is told A's name and B's side), and nobody is told of the
swap. The driver visits both passengers.

The specification's action names two players (``targetIds: [playerA, playerB]``), so, like
the detective's comparison, the swap is made every night: two distinct living players, the
driver may be one of them (swapping themself with another is the classic self-protection).
A silent driver swaps themself and the next seat.

Side: neutral without a win of its own in the specification; as the "survivor" of Mafia
games it wins with whichever side wins if it is alive at the end (not in a draw). At most
one per game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import Choice
from ..mechanics.redirects import swap
from .base import Action, Role, Team, beside
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class BusDriverSwap(Action):
    kind = "bus_driver_swap"
    step = 4.5
    controls = True

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice | None:
        living = tuple(game.living())
        return Choice(seat, cls.kind, living, count=2, refusals=game.dead_refusals()) if len(living) >= 2 else None

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        a, b = value
        swap(game, a, b, cls.step)

    @classmethod
    def default(cls, decision: Choice) -> Any:
        """A silent driver swaps themself and the next seat."""
        return tuple(sorted(beside(decision)))


@register
class BusDriver(Role):
    id = "bus_driver"
    team = Team.NEUTRAL
    priority = "P3"
    max_count = 1
    """Two drivers' swaps of one step would have no order to compose in."""
    actions = (BusDriverSwap,)
    survivor = True
