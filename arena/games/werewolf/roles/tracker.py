"""Tracker (P2, village): each night (step 6) follows a living player and learns, at dawn,
whom they visited that night (rules/werewolf.md §3.5; the specification: "若无访问则为空",
nobody if they went nowhere).

Visits are the night's settled actions aimed at players (mechanics/visits.py): a check, a
protection, a kill (the wolves' from each wolf who voted for the victim), a potion, a
charm, a block. A blocked player visits nobody from the block on. The report comes at
dawn, once the whole night has settled and before the deaths are told, so a tracker who
dies that night still learns it (and may say it in last words). A blocked tracker learns
nothing. A tracker whose follow a bus driver moved follows the player it landed on and is
told the name it chose (mechanics/redirects.py); a trickster's forged visit is seen as real.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..mechanics.redirects import aimed
from ..mechanics.visits import visited_by
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

FOLLOWED = "tracked"


class TrackerTrack(Action):
    kind = "tracker_track"
    step = 6

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            game.plan.notes.setdefault(FOLLOWED, {})[seat] = value

    @classmethod
    def dawn(cls, game: WerewolfGame) -> None:
        for seat, target in sorted(game.plan.notes.get(FOLLOWED, {}).items()):
            found = visited_by(game, target)
            game.tell(
                "tracked", {"night": game.day, "target": aimed(game, cls.step, target), "visited": found}, (seat,)
            )


@register
class Tracker(Role):
    id = "tracker"
    team = Team.VILLAGE
    priority = "P2"
    actions = (TrackerTrack,)
