"""Arsonist (P3, neutral): each night (step 11.2) douses a player with oil, or sets fire to
every doused player at once (rules/werewolf.md §2; the specification's NIGHT_ARSONIST_DOUSE
and NIGHT_ARSONIST_IGNITE).

One request a night, as in Town of Salem and most Mafia games: a living player not yet
doused (a douse), the word ``ignite`` (offered while a living player is doused), or
``none``. Oil (``OILED``, mechanics/statuses.py) stays for the rest of the game and
accumulates over nights (the specification's OILED); nobody is told they were doused; a
priest's cleansing lifts it, the same night too, since the priest acts after (step 11.5, §3.2).

The fire is an effect kill (the specification: "通常不视为普通击杀"): like the witch's poison (§3.10)
no bodyguard intercepts it, and by default no doctor, guardian angel, jail, shield or heal
stops it either (Town of Salem's unstoppable ignition). Players differ there (the specification lets a
warder's charm stop an effect kill "按实现"): with ``protectAgainstFire`` the blocks and the
heal stop a fire death as they stop an ordinary kill. ``protectAgainstPoison`` names the
witch's poison only. What always stops the fire: a block or banishment of the arsonist,
the victim's absence (an exiled player is not burnt and stays doused), or a cleansing
before it. It burns every player doused when it
is lit (a douse of the same night cannot come with it), each a death of cause ``fire``
whose attacker is the arsonist (a burnt bomb takes the arsonist along).

Swaps move a douse like any action aimed at a player (mechanics/redirects.py); a shadow
following the arsonist copies its douses, not its fire.

It wins alone (``arsonist_survived``) as the serial killer does: alive with at most one
other living player (``last_standing``), and while it lives neither the village nor the
wolves have won (``hostile``). At most one arsonist: the oil is theirs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.errors import ErrorCode
from ....core.game import Result
from ..choice import IGNITE, NONE, Choice
from ..mechanics import statuses
from ..resolution import Kill
from .base import Action, Role, Team, last_standing, target_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

OILED = statuses.OILED
FIRE = "fire"


def doused(game: WerewolfGame) -> list[int]:
    return [s for s in statuses.holders(game, OILED) if game.alive[s]]


class ArsonistAct(Action):
    kind = "arsonist"
    step = 11.2

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        oiled = doused(game)
        exclude = {s: (ErrorCode.TARGET_INVALID, f"seat {s} is already doused") for s in oiled}
        choice = target_choice(game, seat, cls.kind, exclude=exclude)
        if oiled:
            return Choice(seat, cls.kind, (*choice.seats, IGNITE, NONE), refusals=choice.refusals)
        refusals = {**choice.refusals, IGNITE: (ErrorCode.TARGET_INVALID, "nobody alive is doused")}
        return Choice(seat, cls.kind, choice.options, refusals=refusals)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value == IGNITE:
            assert cls.step is not None
            for victim in doused(game):
                stoppable = game.options.protectAgainstFire
                game.plan.kills.append(Kill(victim, FIRE, seat, cls.step, ordinary=False, stoppable=stoppable))
        elif value != NONE:
            statuses.add(game, OILED, value)

    @classmethod
    def copy(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        """A shadow copies a douse (the same oil), not the fire: ``ignite`` is aimed at no
        player, as a vote is not (mechanics/copies.py)."""
        if value != IGNITE:
            cls.apply(game, seat, value)


@register
class Arsonist(Role):
    id = "arsonist"
    team = Team.NEUTRAL
    priority = "P3"
    win_side = "arsonist"
    win_reason = "arsonist_survived"
    max_count = 1
    actions = (ArsonistAct,)
    win_order = 40
    hostile = True

    @classmethod
    def special_win(cls, game: WerewolfGame) -> Result | None:
        return last_standing(game, cls)
