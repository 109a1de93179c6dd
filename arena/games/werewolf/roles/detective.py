"""Detective (P2, village): each night (step 5, with the seer) compares two other living
players and learns whether they are on the same side (rules/werewolf.md §2).

Sides are compared as the seer sees them (``Role.seen_as``: neutral roles look like the
village), so a role that fools the seer fools the detective too. The comparison is not
optional: the spec's action always names two players (a detective with fewer than two
others alive is asked with ``none`` alone, as any actor with nothing to decide). The answer
comes as soon as the step settles, naming the two
players chosen even when a bus driver's swap moved the comparison (mechanics/redirects.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import Choice
from ..mechanics.redirects import aimed
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class DetectiveCompare(Action):
    kind = "detective_compare"
    step = 5

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice | None:
        others = tuple(s for s in game.living() if s != seat)
        return Choice(seat, cls.kind, others, count=2) if len(others) >= 2 else None

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        a, b = value
        same = game.role_of(a).seen_as() == game.role_of(b).seen_as()
        game.tell(
            "detective_result",
            {"night": game.day, "players": list(aimed(game, cls.step, value)), "same": same},
            (seat,),
        )

    @classmethod
    def default(cls, decision: Choice) -> Any:
        """A silent detective compares the first two players offered."""
        return tuple(decision.options[:2])


@register
class Detective(Role):
    id = "detective"
    team = Team.VILLAGE
    priority = "P2"
    actions = (DetectiveCompare,)
