"""Scapegoat (P3, village): "被处决后，投票其的玩家之一将被惩罚" — executed, it chooses one of the
players who voted for it, who is punished.

The scapegoat is asked (``scapegoat_punish``, like the hunter's shot: after its last words)
to choose one living player who voted for it in the round that executed it; a choice is
owed, so ``none`` is not offered (a timeout punishes the first voter by seat). The
punishment is public (``PUNISHED``) and set by ``scapegoatPunishment``:

- ``lose_vote`` (default): the punished does not vote the next day, the Miller's Hollow
  scapegoat's say over who votes, kept to one player. It is a status (``voteless``) that a
  priest's cleansing lifts, as a curse;
- ``death``: the punished dies at once, as by a hunter's shot.

Only an execution triggers it: a scapegoat killed at night, shot or dead of grief was not
voted against. With roles hidden every player who dies is asked a trigger at once
(``Deaths.ask_hidden``, deaths.py), so the request alone tells nobody who the scapegoat was;
the punishment itself is public (the table must know who does not vote) and tells that the
executed player was the scapegoat, as a shot tells that a hunter died.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.errors import ErrorCode
from ..choice import NONE, Choice, Refusal
from ..mechanics import statuses
from .base import Role, Team, Trigger
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

DEATH = "death"


class ScapegoatPunish(Trigger):
    kind = "scapegoat_punish"

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice | None:
        voters = game.assembly.voters_against(game, seat)
        if not voters:
            return None
        refusals: dict[Any, Refusal] = game.dead_refusals()
        for s in range(game.players):
            if s not in voters:
                refusals.setdefault(s, (ErrorCode.TARGET_INVALID, f"seat {s} did not vote for you"))
        return Choice(seat, cls.kind, tuple(voters), refusals=refusals)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value == NONE or not game.alive[value]:  # a cover request, or an earlier shot of the round got them
            return
        punishment = game.options.scapegoatPunishment
        game.tell("punished", {"day": game.day, "seat": value, "punishment": punishment})
        if punishment == DEATH:
            game.kill(value, "scapegoat")
        else:
            statuses.add(game, statuses.VOTELESS, value, until=game.day + 1)


@register
class Scapegoat(Role):
    id = "scapegoat"
    team = Team.VILLAGE
    priority = "P3"
    actions = (ScapegoatPunish,)

    @classmethod
    def on_death(cls, game: WerewolfGame, seat: int, causes: list[str]) -> type[ScapegoatPunish] | None:
        return ScapegoatPunish if "execution" in causes else None
