"""Avenger (P3, village): "被击杀后，下一夜自动击杀其杀手" — killed at night, it kills its killer
the next night, without being asked (rules/werewolf.md §2; the specification's
AVENGER_TRIGGER_KILL, "依实现").

Its killers are the actors of the kills that landed on it (as the bomb's, roles/bomb.py):
for the pack's kill the wolf who carried it out (the first by seat among those who voted for
the avenger, or the werewolf leader who named it), the vigilante, the serial killer, a
witch or wolf witch who poisoned it, the arsonist whose fire burnt it. The next night each
killer still alive is attacked by
an ordinary kill (cause ``avenger``, step 9 with the other kills): the specification
declares it no exception, so (§3.10) bodyguards, blocks, charms and heals stop it like any
other. A kill stopped or taken by a bodyguard did not kill the avenger and leaves no due;
an execution, a hunter's shot or a lover's grief is not a kill by a player at night, and
leaves none either. No decision, no line of its own: the killer's death is told at dawn like
any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..resolution import Kill
from .base import Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

STEP = 9
"""Its vengeance is taken with the night's other kills (§3.2: vigilante, serial killer)."""


@register
class Avenger(Role):
    id = "avenger"
    team = Team.VILLAGE
    priority = "P3"

    @classmethod
    def on_death(cls, game: WerewolfGame, seat: int, causes: list[str]) -> None:
        killers = game.plan.killers.get(seat)  # last night's: empty for a death in the day
        if killers:
            game.state[seat]["vengeance"] = (game.day + 1, sorted(set(killers)))

    @classmethod
    def dawn(cls, game: WerewolfGame) -> None:
        for seat in range(game.players):
            due = game.state[seat].get("vengeance") if game.role_of(seat) is cls else None
            if due is not None and due[0] == game.day:
                for killer in due[1]:
                    if game.alive[killer]:
                        game.plan.kills.append(Kill(killer, "avenger", seat, STEP))
