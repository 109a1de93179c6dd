"""Cupid (P1, neutral): on the first night (step 1) links two players as lovers (rules/werewolf.md §2.1).

Cupid may choose themself. The lovers (and Cupid) are told who the lovers are, nothing more.
When one lover dies the other dies at once (the engine's ``links``). Lovers may be on
different teams. The lovers win, with Cupid, when every living player is a lover or Cupid;
this is checked before the teams' conditions, so a wolf and a villager in love can win as
the last two. Otherwise each lover wins or loses with their own team, and Cupid, being
neutral, wins only with the lovers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.game import Result
from ..choice import Choice
from .base import Action, Role, Team, beside
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class CupidLink(Action):
    kind = "cupid_link"
    step = 1
    first_night_only = True

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        return Choice(seat, cls.kind, tuple(game.living()), count=2)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        a, b = value
        game.link(a, b)
        game.tell("lovers", {"lovers": [a, b], "cupid": seat}, {a, b, seat})

    @classmethod
    def default(cls, decision: Choice) -> Any:
        """A silent Cupid links themself and the next seat."""
        return tuple(sorted(beside(decision)))


@register
class Cupid(Role):
    id = "cupid"
    team = Team.NEUTRAL
    priority = "P1"
    win_side = "lovers"
    win_reason = "lovers_last_alive"
    max_count = 1
    actions = (CupidLink,)
    win_order = 10

    @classmethod
    def special_win(cls, game: WerewolfGame) -> Result | None:
        lovers = set(game.links)
        if not lovers or not all(game.alive[s] for s in lovers):
            return None
        cupids = {s for s in range(game.players) if game.role_of(s) is cls}
        if all(s in lovers or s in cupids for s in game.living()):
            return Result(cls.win_side, frozenset(lovers | cupids), cls.win_reason)
        return None
