"""Watcher (P2, village): each night (step 6) watches a living player and learns, at dawn,
who visited them that night (rules/werewolf.md §3.5), the watcher itself left out.

Visits and their timing are the tracker's (roles/tracker.py, mechanics/visits.py): every
settled action aimed at the watched player, by anyone not blocked at the time; the report
comes at dawn, before the deaths are told. A blocked watcher learns nothing; a moved one
watches where it landed, under the name it chose (mechanics/redirects.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..mechanics.redirects import aimed
from ..mechanics.visits import visitors_of
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

WATCHED = "watched"


class WatcherWatch(Action):
    kind = "watcher_watch"
    step = 6

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            game.plan.notes.setdefault(WATCHED, {})[seat] = value

    @classmethod
    def dawn(cls, game: WerewolfGame) -> None:
        for seat, target in sorted(game.plan.notes.get(WATCHED, {}).items()):
            found = [s for s in visitors_of(game, target) if s != seat]
            game.tell(
                "watched", {"night": game.day, "target": aimed(game, cls.step, target), "visitors": found}, (seat,)
            )


@register
class Watcher(Role):
    id = "watcher"
    team = Team.VILLAGE
    priority = "P2"
    actions = (WatcherWatch,)
