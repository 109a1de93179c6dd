"""Trickster (P3, neutral): each night (step 5.5) forges a visit: it names a visitor and a
destination, and tonight's visits gain one from the first to the second, which trackers and
watchers read as real (rules/werewolf.md §3.5; the specification: "夜晚伪造一次访问或行动记录";
mechanics/visits.py).

"一次" is one record a night, and the forgery names its two players in order, visitor first
(an ordered pick of two distinct living players, the trickster allowed in either place). As
with the detective's comparison the two-player action is made every night; a trickster who
wants no effect forges a visit of its own, which only a tracker or a watcher of its own
could see. A silent trickster forges its own visit to the next seat.

The forgery is paperwork: the trickster visits nobody (it is not seen at either end), the
forged visitor need not be free (a jailed player may seem to have gone out), and a swap
does not move it (mechanics/redirects.py). It is no action of the visitor's: a shadow does
not copy it. A blocked trickster forges nothing. The trickster learns nothing.

Side: neutral without a win of its own in the specification; as Mafia's "survivor" it
wins with whichever side wins if it is alive at the end (not in a draw).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import Choice
from ..mechanics.visits import visit
from .base import Action, Role, Team, beside
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class TricksterForge(Action):
    kind = "trickster_forge"
    step = 5.5
    visits = False
    """Forging a record goes nowhere: the forged visit is its only trace."""

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice | None:
        living = tuple(game.living())
        if len(living) < 2:
            return None
        return Choice(seat, cls.kind, living, count=2, refusals=game.dead_refusals(), ordered=True)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        visitor, target = value
        visit(game, visitor, target, cls.kind, cls.step)

    @classmethod
    def default(cls, decision: Choice) -> Any:
        """A silent trickster forges its own visit to the next seat."""
        return beside(decision)


@register
class Trickster(Role):
    id = "trickster"
    team = Team.NEUTRAL
    priority = "P3"
    actions = (TricksterForge,)
    survivor = True
